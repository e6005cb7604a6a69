"""``Sokoban-v0``: push every box onto a target in a procedurally generated room.

Each reset builds a fresh level from ``self.np_random`` (see ``sokoban_levels``):
a random connected room, boxes placed on targets, then a backwards walk in which
the player pulls boxes away. The level is therefore solvable by construction, in
at most ``max_reverse_steps`` moves. ``reset(options={"level": grid})`` starts from
a given layout instead.

Rewards follow RAGEN's Sokoban: -0.1 per move (bumps included), +1 for each box
pushed onto a target, -1 for each box pushed off one, and +10 when every box is on
a target, which ends the episode with ``success=True``. Walking into a wall or
pushing a blocked box is a valid move that changes nothing; only unparseable text
is an invalid action.
"""

from __future__ import annotations

from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, match_action, normalize_action
from turngym.envs.text.sokoban_levels import (
    DIRECTIONS,
    LEGEND,
    Level,
    apply_move,
    generate_level,
)

__all__ = ["SokobanEnv"]

DIM_RANGE = range(6, 11)
BOX_RANGE = range(1, 4)
REVERSE_STEPS_RANGE = range(10, 91)

STEP_REWARD = -0.1
BOX_REWARD = 1.0
SOLVED_REWARD = 10.0

_ACTIONS = {name: name for name in DIRECTIONS}
_PREFIXES = ("move ", "push ", "go ")

_BUMPS = {
    "wall": "You walked into a wall; nothing changed.",
    "box_wall": "The box {d} of you is against a wall and cannot be pushed; nothing changed.",
    "box_box": "The box {d} of you is blocked by another box and cannot be pushed; "
    "nothing changed.",
}
_SIDE = {"up": "above", "down": "below", "left": "left", "right": "right"}


def _check_dim(dim: Any) -> tuple[int, int]:
    """``dim`` as (rows, cols), each in 6..10."""
    allowed = f"an int in {DIM_RANGE.start}..{DIM_RANGE.stop - 1} or a (rows, cols) pair of them"
    values = list(dim) if isinstance(dim, (tuple, list)) else [dim, dim]
    if len(values) != 2 or not all(
        isinstance(v, int) and not isinstance(v, bool) and v in DIM_RANGE for v in values
    ):
        raise ValueError(f"dim must be {allowed}, got {dim!r}")
    return values[0], values[1]


def _check_int(name: str, value: Any, allowed: range, why: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
        raise ValueError(
            f"{name} must be in {allowed.start}..{allowed.stop - 1}{why}, got {value!r}"
        )
    return value


class SokobanEnv(TextEnv[str]):
    r"""Push every box onto a target; the room is generated anew on each reset.

    Args:
        dim: room size including the outer wall: an int in 6..10 (square) or a
            ``(rows, cols)`` pair.
        num_boxes: boxes (and targets) per level, 1..3.
        max_reverse_steps: length of the generator's backwards walk, 10..90. It is an
            upper bound on the shortest solution, so larger values give harder levels;
            90 still fits the registered 100-step limit.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> from turngym.envs.text.sokoban import SokobanEnv
        >>> env = SokobanEnv(render_mode="ansi")
        >>> obs, info = env.reset(options={"level": "#####\n#PXO#\n#####"})
        >>> obs, reward, terminated, truncated, info = env.step("Right")
        >>> round(reward, 1), terminated, info["success"]
        (10.9, True, True)
        >>> print(env.render())
        #####
        #_P√#
        #####

    """

    def __init__(
        self,
        dim: int | tuple[int, int] = 6,
        num_boxes: int = 1,
        max_reverse_steps: int = 40,
        **kwargs: Any,
    ) -> None:
        self.rows, self.cols = _check_dim(dim)
        self.num_boxes = _check_int("num_boxes", num_boxes, BOX_RANGE)
        self.max_reverse_steps = _check_int(
            "max_reverse_steps",
            max_reverse_steps,
            REVERSE_STEPS_RANGE,
            " (it bounds the solution length, which must fit the 100-step limit)",
        )
        super().__init__(**kwargs)
        self.level = Level(3, 3, frozenset(), frozenset(), frozenset(), 4)
        """The current position (room, boxes, player); replaced on every move."""

    def _reset(self, options: dict[str, Any]) -> str:
        layout = options.get("level")
        if layout is not None:
            self.level = Level.from_text(layout)
        else:
            self.level = generate_level(
                self.np_random, self.rows, self.cols, self.num_boxes, self.max_reverse_steps
            )
        n = len(self.level.boxes)
        goal = (
            "the box (X) onto the target (O)" if n == 1 else f"all {n} boxes (X) onto targets (O)"
        )
        self.instruction = (
            f"You are playing Sokoban. Push {goal}. Walk into a box to push it one cell; "
            "you cannot pull boxes or push two at once, and a box stuck in a corner stays "
            "stuck. "
            f"Legend: {LEGEND}. "
            "Rewards: -0.1 per move, +1 for a box pushed onto a target, -1 for one pushed "
            "off, +10 when every box is on a target. "
            "Answer with one move: up, down, left or right."
        )
        return f"{self.instruction}\n\n{self._board()}"

    def _parse(self, action: str) -> str | Invalid:
        text = normalize_action(action)
        for prefix in _PREFIXES:
            if text.startswith(prefix):
                text = text[len(prefix) :]
                break
        move = match_action(text, _ACTIONS)
        if move is None:
            return Invalid("answer with one move: up, down, left or right")
        return move

    def _apply(self, action: str) -> Outcome:
        result = apply_move(self.level, action)
        self.level = result.level
        reward = STEP_REWARD + BOX_REWARD * result.box_delta
        parts = {"step": STEP_REWARD, "box": BOX_REWARD * result.box_delta, "solved": 0.0}
        if result.event == "moved":
            message = f"You moved {action}."
        elif result.event == "pushed":
            message = f"You pushed a box {action}"
            if result.box_delta > 0:
                message += " onto a target (+1)"
            elif result.box_delta < 0:
                message += " off a target (-1)"
            message += "."
        else:
            message = _BUMPS[result.event].format(d=_SIDE[action])
        solved = self.level.solved
        if solved:
            reward += SOLVED_REWARD
            parts["solved"] = SOLVED_REWARD
            message += " Every box is on a target: you solved the level (+10)!"
        return Outcome(
            f"{message}\n{self._board()}",
            reward,
            terminated=solved,
            success=solved,
            info={"reward_parts": parts},
        )

    def _legal_actions(self) -> list[str]:
        return list(DIRECTIONS)

    def _render(self) -> str:
        return self.level.to_text()

    def _state_key(self) -> str:
        """``P<row>,<col>|<row>,<col>;...``: the player, then the sorted boxes."""
        lvl = self.level
        boxes = ";".join("{},{}".format(*lvl.coords(b)) for b in sorted(lvl.boxes))
        return "P{},{}|{}".format(*lvl.coords(lvl.player), boxes)

    def _extra_info(self) -> dict[str, Any]:
        return {"boxes_on_targets": self.level.boxes_on_targets}

    def _board(self) -> str:
        lvl = self.level
        return f"{lvl.to_text()}\nBoxes on targets: {lvl.boxes_on_targets}/{len(lvl.boxes)}."
