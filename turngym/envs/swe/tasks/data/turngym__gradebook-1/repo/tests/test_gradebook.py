import pytest

from gradebook import GradeBook, letter_for, whole_percent


def make_book():
    book = GradeBook()
    book.add_assignment("hw1", 50)
    book.add_assignment("exam", 150)
    return book


def test_letters():
    assert letter_for(95) == "A"
    assert letter_for(90) == "A-"
    assert letter_for(84.2) == "B"
    assert letter_for(12) == "F"


def test_percent_and_report():
    book = make_book()
    book.record("ann", "hw1", 45)
    book.record("ann", "exam", 140)
    book.record("bo", "hw1", 30)
    assert book.percent("ann") == pytest.approx(92.5)
    assert book.percent("bo") == 60
    assert book.report()[1] == "bo: 60% D"


def test_whole_percent_rounds_to_nearest():
    assert whole_percent(84.4) == 84
    assert whole_percent(84.6) == 85
    assert whole_percent(87.5) == 88


def test_record_validates():
    book = make_book()
    with pytest.raises(KeyError, match="add_assignment"):
        book.record("ann", "quiz", 3)
    with pytest.raises(ValueError):
        book.record("ann", "hw1", 51)


def test_ungraded_student():
    assert make_book().percent("nobody") is None
