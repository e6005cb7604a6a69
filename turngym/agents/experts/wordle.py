"""Expert for ``Wordle-v0``: an entropy-maximising solver that reads only the feedback.

It never looks at the secret. From the env it takes the public word lists and the
feedback history (``WordleEnv.history``), keeps the answers consistent with every
mark, and plays the allowed word whose feedback splits those candidates most evenly
(highest entropy), preferring a candidate among near-equals since it may win at once.
Feedback for many (guess, answer) pairs is computed at once with numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.wordle import WORD_LENGTH, WordleEnv

__all__ = ["FIRST_GUESS", "WordleExpert", "best_guess", "pattern_codes", "word_array"]

FIRST_GUESS = "raise"
"""The opening: ``best_guess`` over every allowed word against all bundled answers.

Precomputed once (it takes about a second) because the opening never depends on
feedback; ``tests/agents/test_wordle_expert.py`` recomputes it to keep it honest.
"""

_POWERS = 3 ** np.arange(WORD_LENGTH, dtype=np.int64)
_N_CODES = 3**WORD_LENGTH


def word_array(words: Sequence[str]) -> np.ndarray:
    """Words of five ASCII letters as a ``(len(words), 5)`` uint8 array."""
    if not words:
        return np.zeros((0, WORD_LENGTH), dtype=np.uint8)
    raw = "".join(words).encode("ascii")
    return np.frombuffer(raw, dtype=np.uint8).reshape(len(words), WORD_LENGTH)


def pattern_codes(guesses: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """Feedback of every guess against every answer, as ``(n_guesses, n_answers)`` codes.

    A code is ``sum(mark[i] * 3**i)`` with marks as in ``score_guess`` (2 green,
    1 yellow, 0 absent), so it agrees with ``WordleEnv`` on repeated letters.
    """
    green = guesses[:, None, :] == answers[None, :, :]  # (g, a, 5)
    codes = np.zeros(green.shape[:2], dtype=np.int64)
    for i in range(WORD_LENGTH):
        letter = guesses[:, i][:, None]  # (g, 1)
        # Copies of this letter in the answer that no green has used up ...
        avail = np.zeros(green.shape[:2], dtype=np.int8)
        for k in range(WORD_LENGTH):
            avail += (answers[None, :, k] == letter) & ~green[:, :, k]
        # ... minus those taken by earlier non-green copies in the guess (left to right).
        taken = np.zeros_like(avail)
        for j in range(i):
            taken += (guesses[:, j] == guesses[:, i])[:, None] & ~green[:, :, j]
        yellow = ~green[:, :, i] & (taken < avail)
        codes += (2 * green[:, :, i] + yellow) * _POWERS[i]
    return codes


def _code(marks: Sequence[int]) -> int:
    return int(np.dot(np.asarray(marks, dtype=np.int64), _POWERS))


def _entropy(codes: np.ndarray, n: int) -> np.ndarray:
    """Entropy (bits) of each row's feedback distribution over ``n`` candidates."""
    rows = np.arange(len(codes), dtype=np.int64)[:, None] * _N_CODES
    counts = np.bincount((codes + rows).ravel(), minlength=len(codes) * _N_CODES)
    # H = log2(n) - sum(c log2 c) / n, with c log2 c looked up for c = 0..n.
    c = np.arange(n + 1, dtype=np.float64)
    clogc = c * np.log2(np.maximum(c, 1.0))
    return np.log2(n) - clogc[counts].reshape(len(codes), _N_CODES).sum(axis=1) / n


def shortlist(pool: np.ndarray, candidates: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` pool words that best split ``candidates`` by a cheap proxy.

    The proxy adds ``q (1 - q)`` over a word's distinct letters (``q``: share of
    candidates holding the letter) and over its (position, letter) pairs, which is
    high for letters whose presence or place is still uncertain.
    """
    n = len(candidates)
    letter_idx = candidates.astype(np.int64) - ord("a")
    has = np.zeros((n, 26), dtype=bool)
    has[np.arange(n)[:, None], letter_idx] = True
    q_letter = has.mean(axis=0)
    q_place = np.stack([np.bincount(letter_idx[:, i], minlength=26) / n for i in range(5)])
    pool_idx = pool.astype(np.int64) - ord("a")
    split = q_letter * (1 - q_letter)
    place = q_place * (1 - q_place)
    # Count each distinct letter once: a repeat adds no new presence information.
    first = np.ones(pool_idx.shape, dtype=bool)
    for i in range(1, WORD_LENGTH):
        first[:, i] = (pool_idx[:, :i] != pool_idx[:, i : i + 1]).all(axis=1)
    score = (split[pool_idx] * first).sum(axis=1)
    score += place[np.arange(WORD_LENGTH), pool_idx].sum(axis=1)
    k = min(k, len(pool))
    return np.argpartition(-score, k - 1)[:k]


def best_guess(pool: np.ndarray, candidates: np.ndarray, is_candidate: np.ndarray) -> int:
    """Index into ``pool`` of the guess whose feedback over ``candidates`` has most entropy.

    A guess that is itself a candidate gets ``1 / len(candidates)`` bits extra (its chance
    of winning now), which settles ties and near-ties in favour of playable answers.
    """
    entropy = _entropy(pattern_codes(pool, candidates), len(candidates))
    return int(np.argmax(entropy + is_candidate / len(candidates)))


class WordleExpert(BaseAgent):
    """Solves Wordle from the feedback alone (100% of 200 seeds within six guesses).

    Args:
        env: a ``Wordle-v0`` env (possibly wrapped).
        pool_size: words short-listed by a cheap letter-split score, besides the
            candidates themselves, for the exact entropy search each turn.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/Wordle-v0")
        >>> expert = WordleExpert(env)
        >>> obs, info = env.reset(seed=0)
        >>> expert.act(obs, info)
        'raise'

    """

    def __init__(self, env: gym.Env, pool_size: int = 200) -> None:
        inner = unwrap(env, WordleEnv, "WordleExpert")
        if pool_size < 1:
            raise ValueError(f"pool_size must be >= 1, got {pool_size}")
        self._env = inner
        self.pool_size = pool_size
        self._allowed = word_array(inner.allowed)
        # Answers as indices into the (sorted) allowed list, so every word is one index.
        allowed_np = np.asarray(inner.allowed)
        self._answer_idx = np.searchsorted(allowed_np, np.asarray(inner.answers))

    def candidate_indices(self) -> np.ndarray:
        """Allowed-list indices of the answers consistent with all feedback so far.

        Falls back to every allowed word when no answer fits (a secret set through
        ``reset(options={"answer": ...})`` need only be an allowed word).
        """
        history = self._env.history
        for idx in (self._answer_idx, np.arange(len(self._allowed))):
            for guess, marks in history:
                codes = pattern_codes(word_array([guess]), self._allowed[idx])[0]
                idx = idx[codes == _code(marks)]
            if len(idx):
                return idx
        return idx  # empty: only if the feedback contradicts itself

    def candidates(self) -> list[str]:
        """The words that could still be the secret."""
        return [self._env.allowed[i] for i in self.candidate_indices()]

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next guess: the fixed opening, then the most informative word."""
        allowed = self._env.allowed
        if not self._env.history and FIRST_GUESS in self._env.allowed_words:
            return FIRST_GUESS
        cands = self.candidate_indices()
        if len(cands) == 0:
            return allowed[0]  # never reached with honest feedback; still a legal guess
        if len(cands) <= 2 or self._env.guesses_left == 1:
            return allowed[int(cands[0])]
        cand_words = self._allowed[cands]
        probes = shortlist(self._allowed, cand_words, self.pool_size)
        pool = np.union1d(probes, cands)
        is_cand = np.isin(pool, cands).astype(np.float64)
        return allowed[int(pool[best_guess(self._allowed[pool], cand_words, is_cand)])]
