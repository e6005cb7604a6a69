"""The grade book: record scores per student and report their standing."""
from collections import defaultdict

from gradebook.letters import letter_for, whole_percent


class GradeBook:
    """Scores per student and assignment; every assignment has a maximum in points."""

    def __init__(self):
        self.maximum = {}
        self.scores = defaultdict(dict)

    def add_assignment(self, name, out_of):
        if out_of <= 0:
            raise ValueError(f"{name}: out_of must be positive")
        self.maximum[name] = out_of

    def record(self, student, assignment, points):
        if assignment not in self.maximum:
            raise KeyError(f"unknown assignment {assignment!r}; add_assignment() it first")
        if not 0 <= points <= self.maximum[assignment]:
            raise ValueError(f"{points} is outside 0..{self.maximum[assignment]}")
        self.scores[student][assignment] = points

    def percent(self, student):
        """Return the student's percentage over the assignments they were graded on."""
        graded = self.scores.get(student, {})
        if not graded:
            return None
        possible = sum(self.maximum[a] for a in graded)
        return 100 * sum(graded.values()) / possible

    def report(self):
        """Return one line per student, e.g. "ann: 91% A-", sorted by name."""
        lines = []
        for student in sorted(self.scores):
            pct = self.percent(student)
            lines.append(f"{student}: {whole_percent(pct)}% {letter_for(pct)}")
        return lines
