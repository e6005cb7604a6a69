"""Guided choice: decoding restricted to a finite set of token sequences (legal actions).

An env that lists its legal actions lets a policy decode only those: at each step the
next token must extend some candidate's tokens (a prefix tree over the candidates, each
ending in an end-of-turn token), and the model's distribution is renormalised over the
allowed tokens. The same tree tells a trainer which tokens were allowed at each action
position, so it computes the log-probs of exactly the distribution that was sampled.
A position with a single allowed token has log-prob 0 and gets no gradient.

>>> tree = ChoiceTree([[5, 6, 0], [5, 7, 0], [9, 0]])
>>> tree.allowed([]), tree.allowed([5]), tree.allowed([5, 6]), tree.allowed([5, 6, 0])
([5, 9], [6, 7], [0], [])
>>> tree.positions([5, 7, 0])
[[5, 9], [6, 7], [0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["ChoiceTree", "choice_token_ids"]


class ChoiceTree:
    """A prefix tree over token sequences: which tokens may come next after a prefix.

    Args:
        sequences: the allowed continuations (each should end with an end-of-turn token
            so that one candidate being a prefix of another stays decodable).

    Raises:
        ValueError: no sequences, or an empty one.

    """

    def __init__(self, sequences: Sequence[Sequence[int]]) -> None:
        if not sequences:
            raise ValueError("a choice needs at least one candidate sequence")
        self.root: dict[int, Any] = {}
        for seq in sequences:
            if not seq:
                raise ValueError("a candidate sequence is empty")
            node = self.root
            for tok in seq:
                node = node.setdefault(int(tok), {})

    def _node(self, prefix: Sequence[int]) -> dict[int, Any] | None:
        node: dict[int, Any] | None = self.root
        for tok in prefix:
            node = node.get(int(tok)) if node is not None else None
            if node is None:
                return None
        return node

    def allowed(self, prefix: Sequence[int]) -> list[int]:
        """The tokens that may follow ``prefix`` (sorted); [] when it is complete or off-tree."""
        node = self._node(prefix)
        return sorted(node) if node else []

    def positions(self, tokens: Sequence[int]) -> list[list[int]]:
        """The allowed tokens at each position of a decoded ``tokens``.

        Raises:
            ValueError: ``tokens`` leaves the tree (it was not decoded from these candidates).

        """
        out = []
        for j in range(len(tokens)):
            allowed = self.allowed(tokens[:j])
            if int(tokens[j]) not in allowed:
                raise ValueError(f"token {tokens[j]} at position {j} is not one of the candidates'")
            out.append(allowed)
        return out


def choice_token_ids(tokenizer: Any, candidates: Sequence[str], end_id: int) -> list[list[int]]:
    """Each candidate action's tokens (as the tokenizer writes it alone) plus ``end_id``.

    ``LLMAgent`` (in-process guided choice) and ``turngym serve`` (a request's
    ``structured_outputs.choice``) both build their choices here, so a model decodes
    among the same token sequences in either place.

    Raises:
        ValueError: a candidate encodes to no tokens.

    """
    texts = [str(text) for text in candidates]
    if not texts:
        return []
    # One batched call: a fast tokenizer encodes each text as it would alone.
    encoded = tokenizer(texts, add_special_tokens=False)["input_ids"]
    out = []
    for text, row in zip(texts, encoded, strict=True):
        if not row:
            raise ValueError(f"the candidate action {text!r} has no tokens")
        out.append([*(int(t) for t in row), int(end_id)])
    return out
