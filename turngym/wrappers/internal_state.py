"""``InternalState`` (MEM1): a constant-size context of task, state, latest action and observation.

Each turn the agent writes its updated internal state inside ``<state>...</state>``
followed by its action. The wrapper keeps only the latest state, removes it from the
action before the env sees it, and, as MEM1 does, shows the agent: the task (the first
observation) with the instruction to keep a ``<state>``, its latest state, its latest
action and the env's latest observation (what that action led to). Nothing else of the
history stays, so the context does not grow with the number of turns.

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
from turngym.wrappers.parse_action import TagFinder
from turngym.wrappers.stack_order import check_order

__all__ = ["InternalState", "InternalStateGame"]

DEFAULT_INSTRUCTION = (
    "Keep an internal state: every turn, first write everything worth remembering "
    "(progress, facts, plans) inside <{tag}>...</{tag}>, then your action. Only your "
    "latest <{tag}> and your latest action are kept; the rest of the history is forgotten."
)
ACTION_HEADER = "Your latest action:"


class InternalState(gym.Wrapper[str, str, str, str], RecordConstructorArgs):
    """MEM1's internal state: the context is task, latest state, action and observation.

    Args:
        env: a text env (string observations and actions).
        tag: the state tag the agent writes (``<state>...</state>``).
        max_state_chars: a longer state is cut to this many characters (and
            ``info["state_truncated"]`` is set), so the context stays bounded.
        instruction: what the first observation tells the agent about the state;
            ``{tag}`` is filled in. None: a default.

    Actions: the text outside the state tags is the env action (stripped). An action
    without a state keeps the previous state (``info["state_missing"] = True``).

    Every observation after the first reads: the task, the instruction, the latest
    ``<state>``, ``Your latest action: ...`` (the env action, state removed) and the
    env's observation, separated by blank lines.

    Example:
        >>> import turngym
        >>> env = InternalState(turngym.make("turngym/FrozenLake-v0"))
        >>> obs, info = env.reset(seed=0)
        >>> obs, r, term, trunc, info = env.step("<state>start at top left</state> down")
        >>> "<state>start at top left</state>" in obs, "Your latest action: down" in obs
        (True, True)
        >>> info["segment"]
        1

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
        self._tags = TagFinder(tag)  # linear time, even on 100k characters of "<state>"
        inner = getattr(env.observation_space, "max_length", 65_536)
        self._max_action = getattr(env.action_space, "max_length", 65_536)
        # The task and the observation, the instruction, the state, the action, headers.
        self.observation_space = Unicode(
            2 * inner + len(self.instruction) + max_state_chars + self._max_action + 128
        )
        self._task = ""
        self.state = ""
        self.last_action = ""
        self._turn = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Reset the env and forget the state; the first observation is the task."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._task, self.state, self.last_action, self._turn = obs, "", "", 0
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
        self.last_action = _shown(action, self._max_action)
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
        found, unclosed = self._tags.blocks(action)
        states = [action[inner:end] for _, inner, end, _ in found]
        outside, at = [], 0
        for start, _, _, end in found:
            outside.append(action[at:start])
            at = end
        outside.append(action[at : unclosed[0] if unclosed else len(action)])
        if unclosed is not None:  # "<state>... (cut off)": the state runs to the end
            states.append(action[unclosed[1] :])
        state = states[-1].strip() if states else None
        return " ".join(outside).strip(), state

    def _context(self, obs: str) -> str:
        return self.context(self._task, self.state, self.last_action, obs)

    def context(self, task: str, state: str, action: str, obs: str) -> str:
        """MEM1's context: the task and instruction, the state, the action, the observation."""
        tag = self.tag
        return (
            f"{task}\n\n{self.instruction}\n\n<{tag}>{state}</{tag}>\n\n"
            f"{ACTION_HEADER} {action}\n\n{obs}"
        )


def _shown(action: Any, limit: int) -> str:
    """An action as the context shows it (a non-string as its repr), at most ``limit`` long."""
    text = action if isinstance(action, str) else repr(action)
    return text[:limit]


class InternalStateGame(BaseWrapper[str, Any, str]):
    """``InternalState`` for a PettingZoo game: each player keeps its own state.

    A player's observation text becomes its first observation (the rules and its first
    deal) with the instruction, its latest ``<state>``, its latest move, and what it reads
    now; before its first move, what it reads now and the instruction. The action mask
    passes through.
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
        self._moves: dict[str, str] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the game; every player starts without a state."""
        super().reset(seed=seed, options=options)
        self._tasks, self._states, self._moves = {}, {}, {}

    def observe(self, agent: str) -> dict[str, Any]:
        """The player's task, its latest state and move, and its current observation."""
        inner = self.env.observe(agent)
        text = inner["text"] if isinstance(inner, dict) else str(inner)
        self._tasks.setdefault(agent, text)  # first sight: the rules are the task
        if agent not in self._moves:
            shown = f"{text}\n\n{self._core.instruction}"
        else:
            state = self._states.get(agent, "")
            shown = self._core.context(self._tasks[agent], state, self._moves[agent], text)
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
        if not done:
            limit = getattr(self.action_space(agent), "max_length", 65_536)
            self._moves[agent] = _shown(action, limit)
        super().step(action)
