"""Okapi BM25 ranking over an in-memory inverted index (no dependencies).

``tokenize`` lower-cases text and splits it into runs of letters and digits.
``BM25Index`` maps every term to its postings ``(doc, term frequency)`` and scores a
query by summing, over its distinct terms ``t`` found in document ``d``::

    idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avgdl))

with the non-negative idf ``log(1 + (N - df + 0.5) / (df + 0.5))`` (as in Lucene), so
a term found in most documents still counts a little instead of subtracting.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["BM25Index", "tokenize"]

_TOKEN = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased runs of letters and digits; punctuation and spaces split tokens.

    >>> tokenize("Tarnwick's port, on the Selvan-River (1987)!")
    ['tarnwick', 's', 'port', 'on', 'the', 'selvan', 'river', '1987']
    """
    return _TOKEN.findall(text.lower())


class BM25Index:
    """An inverted index over ``docs`` answering top-k BM25 queries.

    Args:
        docs: the document texts; a document is named by its position.
        k1: term-frequency saturation (>= 0; 0 ignores repeats of a term).
        b: length normalisation in [0, 1] (0: none, 1: full).
        stopwords: terms left out of the index and of queries.

    Example:
        >>> index = BM25Index(["the cat sat", "the dog", "cat and cat"])
        >>> [doc for doc, _ in index.search("cat")]
        [2, 0]
        >>> index.search("unicorn")
        []

    """

    def __init__(
        self,
        docs: Sequence[str],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        stopwords: Iterable[str] = (),
    ) -> None:
        if not (isinstance(k1, (int, float)) and math.isfinite(k1) and k1 >= 0):
            raise ValueError(f"k1 must be a finite number >= 0, got {k1!r}")
        if not (isinstance(b, (int, float)) and 0.0 <= b <= 1.0):
            raise ValueError(f"b must be a number in [0, 1], got {b!r}")
        self.k1 = float(k1)
        self.b = float(b)
        self.stopwords = frozenset(stopwords)
        self.lengths: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, text in enumerate(docs):
            terms = [t for t in tokenize(text) if t not in self.stopwords]
            self.lengths.append(len(terms))
            for term, tf in Counter(terms).items():
                self.postings.setdefault(term, []).append((i, tf))
        self.n_docs = len(self.lengths)
        self.avgdl = sum(self.lengths) / self.n_docs if self.n_docs else 0.0
        self.idf: dict[str, float] = {
            term: math.log(1.0 + (self.n_docs - len(p) + 0.5) / (len(p) + 0.5))
            for term, p in self.postings.items()
        }
        # The length part of the denominator depends on the document only: precompute it.
        avgdl = self.avgdl or 1.0
        self._norm = [self.k1 * (1.0 - self.b + self.b * n / avgdl) for n in self.lengths]

    def scores(self, query: str) -> dict[int, float]:
        """BM25 score of every document sharing a term with ``query`` (others score 0)."""
        acc: dict[int, float] = {}
        for term in dict.fromkeys(tokenize(query)):  # distinct terms, in query order
            if term in self.stopwords or term not in self.postings:
                continue
            idf = self.idf[term]
            for doc, tf in self.postings[term]:
                gain = idf * tf * (self.k1 + 1.0) / (tf + self._norm[doc])
                acc[doc] = acc.get(doc, 0.0) + gain
        return acc

    def search(self, query: str, k: int = 5) -> list[tuple[int, float]]:
        """The ``k`` best ``(doc, score)`` pairs, best first; ties go to the lower doc index.

        Documents that share no term with the query are never returned.
        """
        if k < 1:
            return []
        scored = self.scores(query)
        return heapq.nsmallest(k, scored.items(), key=lambda item: (-item[1], item[0]))
