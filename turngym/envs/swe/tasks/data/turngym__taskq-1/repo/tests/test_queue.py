import pytest

from taskq import Task, TaskQueue


def test_priority_order():
    q = TaskQueue([Task(5, "low"), Task(0, "urgent"), Task(2, "mid")])
    assert [t.name for t in q.drain()] == ["urgent", "mid", "low"]


def test_peek_and_len():
    q = TaskQueue()
    q.push(Task(3, "x"))
    q.push(Task(1, "y"))
    assert q.peek().name == "y" and len(q) == 2
    q.pop()
    assert len(q) == 1


def test_empty_errors():
    with pytest.raises(IndexError):
        TaskQueue().pop()
    with pytest.raises(IndexError):
        TaskQueue().peek()


def test_retry_until_out_of_attempts():
    q = TaskQueue()
    task = Task(1, "flaky", {"url": "x"})
    assert q.fail(task)
    again = q.pop()
    assert (again.priority, again.attempts) == (2, 1)
    assert q.fail(again)
    assert not q.fail(q.pop())


def test_validation():
    with pytest.raises(ValueError):
        Task(-1, "neg")
    with pytest.raises(ValueError):
        Task(1, "")
