"""``InternalState`` (MEM1): a constant-size context of task, agent state and latest observation.

Each turn the agent writes its updated internal state inside ``<state>...</state>``
followed by its action. The wrapper keeps only the latest state, removes it from the
action before the env sees it, and shows the agent: the task (the first observation),
its latest state, and the env's latest observation. Nothing else of the history stays,
so the context does not grow with the number of turns.

Every turn starts a new context, so ``info["segment"]`` counts turns and
``info["context_event"]`` is ``"evict"`` from the second turn on (ARCHITECTURE.md
section 5).
"""

from __future__ import annotations

import re
from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs
from pettingzoo.utils.wrappers import BaseWrapper

from turngym.spaces import Unicode
from turngym.wrappers.game_turns import BlankEnv
from turngym.wrappers.stack_order import check_order

__all__ = ["InternalState", "InternalStateGame"]

DEFAULT_INSTRUCTION = (
    "Keep an internal state: every turn, first write everything worth remembering "
    "(progress, facts, plans) inside <{tag}>...</{tag}>, then your action. Only your "
    "latest <{tag}> is kept; the rest of the history is forgotten."
)


class InternalState(gym.Wrapper[str, str, str, str], RecordConstructorArgs):
    """MEM1's internal state: the context is [task, latest state, latest observation].

    Args:
        env: a text env (string observations and actions).
        tag: the state tag the agent writes (``<state>...</state>``).
        max_state_chars: a longer state is cut to this many characters (and
            ``info["state_truncated"]`` is set), so the context stays bounded.
        instruction: what the first observation tells the agent about the state;
            ``{tag}`` is filled in. None: a default.

    Actions: the text outside the state tags is the env action (stripped). An action
    without a state keeps the previous state (``info["state_missing"] = True``).

    Example:
        >>> import turngym
        >>> env = InternalState(turngym.make("turngym/FrozenLake-v0"))
        >>> obs, info = env.reset(seed=0)
        >>> obs, r, term, trunc, info = env.step("<state>start at top left</state> down")
        >>> "<state>start at top left</state>" in obs, info["segment"]
        (True, 1)

    """

    def __init__(
        self,
        env: gym.Env[str, str],
        tag: str = "state",
        max_state_chars: int = 2000,
        instruction: str | None = None,
    ) -> None:
        RecordConstructorArgs.__init__(
            self, tag=tag, max_state_chars=max_state_chars, instruction=instruction
        )
        check_order("InternalState", env)
        gym.Wrapper.__init__(self, env)
        if not isinstance(tag, str) or not re.fullmatch(r"[A-Za-z][\w-]*", tag):
            raise ValueError(f"tag must be a word such as 'state', got {tag!r}")
        if (
            isinstance(max_state_chars, bool)
            or not isinstance(max_state_chars, int)
            or max_state_chars < 1
        ):
            raise ValueError(f"max_state_chars must be an int >= 1, got {max_state_chars!r}")
        if instruction is not None and not isinstance(instruction, str):
            raise ValueError(f"instruction must be a string or None, got {instruction!r}")
        self.tag = tag
        self.max_state_chars = max_state_chars
        self.instruction = (instruction or DEFAULT_INSTRUCTION).replace("{tag}", tag)
        self._block = re.compile(rf"<{tag}>(.*?)</{tag}>", re.S | re.I)
        self._open = re.compile(rf"<{tag}>(.*)$", re.S | re.I)  # an unclosed last tag
        inner = getattr(env.observation_space, "max_length", 65_536)
        self.observation_space = Unicode(2 * inner + max_state_chars + len(self.instruction))
        self._task = ""
        self.state = ""
        self._turn = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Reset the env and forget the state; the first observation is the task."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._task, self.state, self._turn = obs, "", 0
        out = dict(info)
        out.update(segment=0, context_event=None, state_missing=False, state_truncated=False)
        return f"{obs}\n\n{self.instruction}", out

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Take the state out of ``action``, send the rest to the env, rebuild the context."""
        missing, truncated_state = True, False
        if isinstance(action, str):
            action, state = self._split(action)
            if state is not None:
                missing = False
                truncated_state = len(state) > self.max_state_chars
                self.state = state[: self.max_state_chars]
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._turn += 1
        out = dict(info)
        out.update(
            segment=self._turn,
            context_event="evict",
            state_missing=missing,
            state_truncated=truncated_state,
        )
        return self._context(obs), reward, terminated, truncated, out

    def _split(self, action: str) -> tuple[str, str | None]:
        """(the env action, the latest state or None) from the agent's text."""
        blocks = self._block.findall(action)
        rest = self._block.sub(" ", action)
        unclosed = self._open.search(rest)
        if unclosed is not None:  # "<state>... (cut off)": the state runs to the end
            blocks.append(unclosed.group(1))
            rest = rest[: unclosed.start()]
        state = blocks[-1].strip() if blocks else None
        return rest.strip(), state

    def _context(self, obs: str) -> str:
        tag = self.tag
        return f"{self._task}\n\n<{tag}>{self.state}</{tag}>\n\n{obs}"


class InternalStateGame(BaseWrapper[str, Any, str]):
    """``InternalState`` for a PettingZoo game: each player keeps its own state.

    A player's observation text becomes its first observation (the rules and its first
    deal), its latest ``<state>``, and what it reads now; the action mask passes through.
    """

    def __init__(
        self,
        env: Any,
        tag: str = "state",
        max_state_chars: int = 2000,
        instruction: str | None = None,
    ) -> None:
        super().__init__(env)
        # The single-agent wrapper's checks and text, on a stand-in env it never steps.
        self._core = InternalState(
            BlankEnv(), tag=tag, max_state_chars=max_state_chars, instruction=instruction
        )
        self._tasks: dict[str, str] = {}
        self._states: dict[str, str] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the game; every player starts without a state."""
        super().reset(seed=seed, options=options)
        self._tasks, self._states = {}, {}

    def observe(self, agent: str) -> dict[str, Any]:
        """The player's task, its latest state and its current observation."""
        inner = self.env.observe(agent)
        text = inner["text"] if isinstance(inner, dict) else str(inner)
        if agent not in self._tasks:  # first sight: the rules are the task
            self._tasks[agent] = text
            shown = f"{text}\n\n{self._core.instruction}"
        else:
            tag, state = self._core.tag, self._states.get(agent, "")
            shown = f"{self._tasks[agent]}\n\n<{tag}>{state}</{tag}>\n\n{text}"
        return {**inner, "text": shown} if isinstance(inner, dict) else {"text": shown}

    def step(self, action: Any) -> None:
        """Keep the state the player wrote; the rest of its text is the move."""
        agent = self.agent_selection
        done = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        if not done and isinstance(action, str):
            if agent not in self._tasks:
                self.observe(agent)  # it acted unseen: its first observation is still the task
            action, state = self._core._split(action)
            if state is not None:
                self._states[agent] = state[: self._core.max_state_chars]
        super().step(action)
