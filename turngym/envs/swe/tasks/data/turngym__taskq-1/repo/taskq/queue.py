"""The queue: a heap of tasks, which order themselves by priority."""
import heapq


class TaskQueue:
    """Pop the most urgent task; tasks of equal priority come out in the order they were pushed."""

    def __init__(self, tasks=()):
        self._heap = []
        for task in tasks:
            self.push(task)

    def push(self, task):
        heapq.heappush(self._heap, task)

    def pop(self):
        if not self._heap:
            raise IndexError("pop from an empty TaskQueue")
        return heapq.heappop(self._heap)

    def peek(self):
        if not self._heap:
            raise IndexError("peek at an empty TaskQueue")
        return self._heap[0]

    def __len__(self):
        return len(self._heap)

    def drain(self, limit=None):
        """Pop up to limit tasks (all if None) and return them in run order."""
        out = []
        while self._heap and (limit is None or len(out) < limit):
            out.append(self.pop())
        return out

    def fail(self, task, max_attempts=3):
        """Requeue a failed task at a lower urgency; return False once it is out of attempts."""
        if task.attempts + 1 >= max_attempts:
            return False
        self.push(task.retried())
        return True
