import pytest

from tokenizer import LexError, caret, tokenize


def kinds(src):
    return [(t.kind, t.text) for t in tokenize(src)]


def test_kinds():
    assert kinds("f(x_1) = 2.5*x_1") == [
        ("name", "f"),
        ("lparen", "("),
        ("name", "x_1"),
        ("rparen", ")"),
        ("op", "="),
        ("num", "2.5"),
        ("op", "*"),
        ("name", "x_1"),
    ]


def test_first_line_columns():
    assert [t.col for t in tokenize("ab + 12")] == [1, 4, 6]


def test_lines_are_counted():
    assert [t.line for t in tokenize("a\n\nb")] == [1, 3]


def test_error_on_first_line():
    with pytest.raises(LexError) as info:
        tokenize("1 + # 2")
    assert (info.value.line, info.value.col) == (1, 5)
    assert caret("1 + # 2", info.value) == "1 + # 2\n    ^"
