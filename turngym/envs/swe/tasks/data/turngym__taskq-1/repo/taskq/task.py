"""A unit of work with a priority (0 is the most urgent)."""
from dataclasses import dataclass, field


@dataclass(order=True)
class Task:
    priority: int
    name: str
    payload: dict = field(default_factory=dict)
    attempts: int = 0

    def __post_init__(self):
        if self.priority < 0:
            raise ValueError(f"priority must be >= 0, got {self.priority}")
        if not self.name:
            raise ValueError("a task needs a name")

    def retried(self, penalty=1):
        """Return a copy for another attempt, penalty levels less urgent."""
        return Task(self.priority + penalty, self.name, dict(self.payload), self.attempts + 1)
