"""``babyai.<Level>-v0``: minigrid's BabyAI levels as text envs, told the way BALROG does.

The dynamics, missions, rewards and time limits are minigrid's own (``BabyAI-<Level>-v0``):
this module only turns the agent's 7x7 egocentric view into sentences and action names
into minigrid's action numbers. Each observation gives the mission, what the agent sees
relative to itself ("a red ball 1 step left and 2 steps forward"), the nearest wall
straight ahead, to the left and to the right, and what it carries, as in BALROG's BabyAI
text wrapper (our own code). Actions are BabyAI's seven names, always all legal.

``reset(seed=s)`` resets minigrid with seed ``s``; a reset without a seed draws minigrid's
seed from the env's own RNG, so a seeded sequence of resets replays.
"""

from __future__ import annotations

import functools
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, match_action
from turngym.envs.adapters.babyai_levels import LEFT_OUT, LEVELS, minigrid_id
from turngym.extras import needs_extra

__all__ = ["ACTIONS", "BabyAIEnv", "describe_view"]

ACTIONS: tuple[str, ...] = (
    "turn left",
    "turn right",
    "go forward",
    "pick up",
    "drop",
    "toggle",
    "done",
)
"""BabyAI's actions, in minigrid's order (``Actions.left`` = 0 ... ``Actions.done`` = 6)."""

_ALIASES = {"left": 0, "right": 1, "forward": 2, "pickup": 3, "pick": 3}
_VERSIONS = {level: version for level, version, _ in LEVELS}
_DOOR_STATES = ("open", "closed", "locked")
_NOT_LISTED = frozenset(
    {"unseen", "empty", "floor", "wall", "agent"}
)  # minigrid's door encoding: 0, 1, 2
_SEED_RANGE = 2**31 - 1

_HELP = (
    "Actions: turn left, turn right, go forward, pick up (the object in front of you), "
    "drop (what you carry, in front of you), toggle (open/close the door or box in front "
    "of you; a locked door needs the key of its colour), done (does nothing)."
)


def _steps(n: int, way: str) -> str:
    return f"{n} step{'s' if n != 1 else ''} {way}"


@functools.lru_cache(maxsize=256)
def _where(right: int, forward: int) -> str:
    """Where a cell lies from the agent: ``right`` columns to its right, ``forward`` ahead."""
    parts = []
    if right:
        parts.append(_steps(abs(right), "right" if right > 0 else "left"))
    if forward:
        parts.append(_steps(forward, "forward"))
    return " and ".join(parts)


@functools.lru_cache(maxsize=4)
def _listed(objects: tuple[str, ...]) -> frozenset[int]:
    """The object indices ``describe_view`` names one by one."""
    return frozenset(i for i, kind in enumerate(objects) if kind not in _NOT_LISTED)


def describe_view(
    image: Any, objects: tuple[str, ...], colors: tuple[str, ...], carrying: str | None
) -> list[str]:
    """The sentences for one egocentric view (minigrid's encoded ``obs["image"]``).

    Args:
        image: ``(view, view, 3)`` ints (object, colour, state) indexed ``[x, y]``; the
            agent stands at ``(view // 2, view - 1)`` facing up (smaller ``y``).
        objects: minigrid's ``IDX_TO_OBJECT`` as a tuple of names.
        colors: minigrid's ``IDX_TO_COLOR`` as a tuple of names.
        carrying: what the agent carries ("a red key"), or None.

    Returns:
        One sentence per thing seen: objects first (nearest first), then walls.

    """
    cells = image.tolist()  # [x][y] -> [object, colour, state]; plain ints are fastest here
    view = len(cells)
    mid, back = view // 2, view - 1
    wall = objects.index("wall")
    # Only the walls in line with the agent, the nearest one each way (as BALROG).
    walls: dict[str, int] = {}
    for way, line in (
        ("forward", [cells[mid][y][0] for y in range(back - 1, -1, -1)]),
        ("left", [cells[x][back][0] for x in range(mid - 1, -1, -1)]),
        ("right", [cells[x][back][0] for x in range(mid + 1, view)]),
    ):
        if wall in line:
            walls[way] = line.index(wall) + 1
    listed = _listed(objects)
    found: list[tuple[int, str]] = []
    for x, column in enumerate(cells):
        for y, (index, color_index, state) in enumerate(column):
            if index not in listed or (x == mid and y == back):  # own cell: what it carries
                continue
            kind, color = objects[index], colors[color_index]
            if kind == "door":
                name = f"{_DOOR_STATES[state]} {color} door"
            elif kind in ("goal", "lava"):
                name = kind
            else:
                name = f"{color} {kind}"
            article = "an" if name[0] in "aeiou" else "a"
            right, forward = x - mid, back - y
            found.append((abs(right) + forward, f"{article} {name} {_where(right, forward)}"))
    lines = [f"You see {text}." for _, text in sorted(found)]
    lines += [
        f"You see a wall {_steps(walls[w], w)}." for w in ("forward", "left", "right") if w in walls
    ]
    lines.append(f"You carry {carrying}." if carrying else "You carry nothing.")
    return lines


class BabyAIEnv(TextEnv[int]):
    """One of minigrid's BabyAI levels, with text observations and BabyAI's action names.

    Reward, termination and truncation are minigrid's (reward ``1 - 0.9 * steps /
    max_steps`` on success, else 0; ``info["success"]`` is a positive reward at the end).
    Every observation restates the mission, since minigrid's partial view changes with
    each step and an agent without history still needs it.

    Args:
        level: a BabyAI level name, e.g. ``"GoToRedBall"`` (``LEVELS``; the levels in
            ``LEFT_OUT`` raise ValueError with the reason).
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ``max_invalid_actions``,
            ``render_mode``).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/babyai.GoToRedBall-v0")
        >>> obs, info = env.reset(seed=0)
        >>> info["mission"]
        'go to the red ball'
        >>> info["legal_actions"][:3]
        ['turn left', 'turn right', 'go forward']

    """

    def __init__(self, level: str = "GoToRedBall", **kwargs: Any) -> None:
        if level in LEFT_OUT:
            raise ValueError(f"level {level!r} is left out: {LEFT_OUT[level]}")
        if level not in _VERSIONS:
            raise ValueError(
                f"level must be one of minigrid's BabyAI levels (e.g. 'GoToRedBall', "
                f"'BossLevel'; turngym.envs.adapters.babyai_levels.LEVELS), got {level!r}"
            )
        super().__init__(**kwargs)
        self.level = level
        self.minigrid_id = minigrid_id(level, _VERSIONS[level])
        with needs_extra("babyai", f"babyai.{level}-v0"):
            import gymnasium as gym
            import minigrid  # noqa: F401  (registers the BabyAI ids with gymnasium)
            from minigrid.core.constants import IDX_TO_COLOR, IDX_TO_OBJECT
        # The bare env: gymnasium's checker and order wrappers would only slow each step.
        self.minigrid: Any = gym.make(self.minigrid_id, disable_env_checker=True).unwrapped
        self._objects = tuple(IDX_TO_OBJECT[i] for i in range(len(IDX_TO_OBJECT)))
        self._colors = tuple(IDX_TO_COLOR[i] for i in range(len(IDX_TO_COLOR)))
        self._lookup = {name: i for i, name in enumerate(ACTIONS)} | _ALIASES
        self.mission = ""
        self.episode = 0
        """Counts resets, so an expert can tell a new episode from the next turn."""
        self._seed: int | None = None
        self._view: list[str] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode: minigrid is reset with ``seed`` (or one drawn from our RNG)."""
        self._seed = seed
        return super().reset(seed=seed, options=options)

    def _reset(self, options: dict[str, Any]) -> str:
        seed = self._seed
        if seed is None:
            seed = int(self.np_random.integers(_SEED_RANGE))
        obs, _ = self.minigrid.reset(seed=seed)
        if self.minigrid.carrying is not None:
            # The Carrying levels (PutNext*Carrying) take the object off the floor and
            # hand it over after their reset drew the view: that view still shows it
            # where it lay. The view of the state as it now is (gen_obs has no side
            # effects) shows it in the agent's cell, where what it carries belongs.
            obs = self.minigrid.gen_obs()
        self.episode += 1
        self.mission = str(obs["mission"])
        self.instruction = (
            f"You are an agent in a BabyAI grid world ({self.level}). Your mission: "
            f"{self.mission}. You see 3 cells to each side and 6 cells ahead; walls and "
            f"closed doors block the view. {_HELP}"
        )
        self._view = self._describe(obs)
        return f"{self.instruction}\n\n{self._render()}"

    def _describe(self, obs: dict[str, Any]) -> list[str]:
        held = self.minigrid.carrying
        carrying = None
        if held is not None:
            carrying = f"a {held.color} {held.type}"
        return describe_view(obs["image"], self._objects, self._colors, carrying)

    def _parse(self, action: str) -> int | Invalid:
        index = match_action(action, self._lookup)
        if index is None:
            return Invalid(f"unknown action; answer with one of: {', '.join(ACTIONS)}")
        return index

    def _apply(self, action: int) -> Outcome:
        obs, reward, terminated, truncated, _ = self.minigrid.step(action)
        self._view = self._describe(obs)
        success = bool(terminated and reward > 0)
        text = f"You chose: {ACTIONS[action]}.\n{self._render()}"
        if success:
            text += "\nMission accomplished."
        elif terminated:
            text += "\nThe mission failed; the episode is over."
        elif truncated:
            text += "\nOut of time; the episode is over."
        return Outcome(text, float(reward), bool(terminated), bool(truncated), success)

    def _legal_actions(self) -> list[str]:
        return list(ACTIONS)

    def _render(self) -> str:
        return "\n".join([f"Mission: {self.mission}", *self._view])

    def _extra_info(self) -> dict[str, Any]:
        return {"mission": self.mission}
