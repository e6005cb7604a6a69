"""turngym's own planners for the BabyAI levels minigrid's bot cannot solve.

Each planner reads the env's true state (the grid, the agent's pose, what it carries and
the mission's instruction objects, as minigrid's bot does), decides the next subgoal
afresh every turn and walks there along a breadth-first shortest path over the agent's
poses (cell and direction). It acts only through BabyAI's seven actions and never
writes to the env. Levels (``PLANNERS``):

- ``PutNext*Carrying``: the agent starts holding the object to move; it walks until it
  faces an empty cell beside the fixed object and drops it there.
- ``KeyInBox``: open the box (the key takes its place), pick up the key, unlock the door.
- ``UnlockToUnlock``: pick up the ball behind two locked doors: fetch whichever key opens
  a door it can reach, unlock that door, set the key down, and repeat until the ball is
  in reach.

Re-planning from the state every turn keeps the planners free of loops of their own:
each subgoal is chosen by what is true now, and every subgoal brings the next nearer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["PLANNERS", "plan"]

LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE = range(6)
_VECTORS = ((1, 0), (0, 1), (-1, 0), (0, -1))  # minigrid's directions 0-3: E, S, W, N

Cell = tuple[int, int]
Pose = tuple[int, int, int]


def _cells(env: Any, keep: Callable[[Any], bool]) -> list[Cell]:
    """Positions of the grid objects for which ``keep`` is true."""
    width = env.grid.width
    return [(i % width, i // width) for i, obj in enumerate(env.grid.grid) if obj and keep(obj)]


def _passable(env: Any, cell: Cell) -> bool:
    obj = env.grid.get(*cell)
    return obj is None or bool(obj.can_overlap())


def _walk_to_face(env: Any, targets: Iterable[Cell]) -> int | None:
    """First action of a shortest walk to a pose facing one of ``targets``.

    Returns -1 when the agent already faces one, and None when none can be reached.
    """
    goals = set(targets)
    x, y = (int(v) for v in env.agent_pos)
    start: Pose = (x, y, int(env.agent_dir))
    first: dict[Pose, int] = {start: -1}
    queue = deque([start])
    while queue:
        pose = queue.popleft()
        px, py, d = pose
        dx, dy = _VECTORS[d]
        if (px + dx, py + dy) in goals:
            return first[pose]
        moves = [(LEFT, (px, py, (d - 1) % 4)), (RIGHT, (px, py, (d + 1) % 4))]
        if _passable(env, (px + dx, py + dy)):
            moves.append((FORWARD, (px + dx, py + dy, d)))
        for action, nxt in moves:
            if nxt not in first:
                first[nxt] = action if first[pose] == -1 else first[pose]
                queue.append(nxt)
    return None


def _face_then(env: Any, targets: Iterable[Cell], action: int) -> int | None:
    """Walk to face one of ``targets``, then play ``action``; None when out of reach."""
    step = _walk_to_face(env, targets)
    return action if step == -1 else step


def _drop_cells(env: Any) -> list[Cell]:
    """Empty cells where a carried key can lie without blocking a doorway."""
    doors = set(_cells(env, lambda obj: obj.type == "door"))
    agent = tuple(int(v) for v in env.agent_pos)
    width, height = env.grid.width, env.grid.height
    free = []
    for x in range(1, width - 1):
        for y in range(1, height - 1):
            near = {(x + dx, y + dy) for dx, dy in _VECTORS} | {(x, y)}
            if env.grid.get(x, y) is None and (x, y) != agent and not near & doors:
                free.append((x, y))
    return free


def _put_next(env: Any) -> int | None:
    """``put the A next to the B``: carry A to an empty cell beside a B and drop it."""
    instrs = env.instrs
    moving = instrs.desc_move.obj_set
    if env.carrying is None or all(env.carrying is not obj for obj in moving):
        if env.carrying is not None:
            return _face_then(env, _drop_cells(env), DROP)
        return _face_then(env, _cells(env, lambda obj: any(obj is o for o in moving)), PICKUP)
    fixed = _cells(env, lambda obj: any(obj is o for o in instrs.desc_fixed.obj_set))
    beside = {(x + dx, y + dy) for x, y in fixed for dx, dy in _VECTORS}
    agent = tuple(int(v) for v in env.agent_pos)
    empty = [cell for cell in beside if env.grid.get(*cell) is None and cell != agent]
    return _face_then(env, empty, DROP)


def _key_in_box(env: Any) -> int | None:
    """``open the door`` whose key lies in a box: open the box, take the key, unlock."""
    doors = _cells(env, lambda obj: any(obj is o for o in env.instrs.desc.obj_set))
    color = env.grid.get(*doors[0]).color
    held = env.carrying
    if held is not None and held.type == "key" and held.color == color:
        return _face_then(env, doors, TOGGLE)
    keys = _cells(env, lambda obj: obj.type == "key" and obj.color == color)
    if keys:
        return _face_then(env, keys, PICKUP)
    boxes = _cells(env, lambda obj: obj.type == "box" and obj.contains is not None)
    return _face_then(env, boxes, TOGGLE)


def _pickup_behind_locked_doors(env: Any) -> int | None:
    """``pick up the X`` behind locked doors: open the doors whose keys are in reach."""
    targets = _cells(env, lambda obj: any(obj is o for o in env.instrs.desc.obj_set))
    held = env.carrying
    if _walk_to_face(env, targets) is not None:
        if held is not None:
            return _face_then(env, _drop_cells(env), DROP)
        return _face_then(env, targets, PICKUP)
    # A key may lie in the only cell facing its door, so every locked door counts here,
    # not only those the agent can face now.
    locked = _cells(env, lambda obj: obj.type == "door" and obj.is_locked)
    colors = {env.grid.get(*cell).color for cell in locked}
    if held is not None and held.type == "key" and held.color in colors:
        doors = [c for c in locked if env.grid.get(*c).color == held.color]
        if _walk_to_face(env, doors) is not None:
            return _face_then(env, doors, TOGGLE)
    keys = _cells(env, lambda obj: obj.type == "key" and obj.color in colors)
    if _walk_to_face(env, keys) is None:
        return None
    if held is not None:
        return _face_then(env, _drop_cells(env), DROP)
    return _face_then(env, keys, PICKUP)


PLANNERS: dict[str, Callable[[Any], int | None]] = {
    "PutNextS5N2Carrying": _put_next,
    "PutNextS6N3Carrying": _put_next,
    "PutNextS7N4Carrying": _put_next,
    "KeyInBox": _key_in_box,
    "UnlockToUnlock": _pickup_behind_locked_doors,
}
"""Level name -> planner (minigrid env -> action number, or None when it is stuck)."""


def plan(level: str, env: Any) -> int | None:
    """The next action number of ``level``'s planner on minigrid env ``env`` (None: stuck)."""
    return PLANNERS[level](env)
