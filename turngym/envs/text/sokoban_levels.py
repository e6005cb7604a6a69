"""Sokoban levels: the ``Level`` record, its text format, the move rule and the generator.

A level is a rectangle of cells indexed ``row * cols + col``. ``generate_level``
builds levels that are solvable by construction: it carves a connected room, puts
every box on a target, then plays the game backwards (the player *pulls* boxes) for
a bounded number of steps. Every reverse step undoes a legal forward step, so the
reversed walk is a solution, no longer than ``max_reverse_steps`` moves.

The text format is the grid the env shows (``#`` wall, ``_`` floor, ``O`` target,
``X`` box, ``√`` box on target, ``P`` player, ``S`` player on target); the common
XSB symbols (``' '``/``-`` floor, ``.`` ``$`` ``*`` ``@`` ``+``) are read as well.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

__all__ = [
    "DIRECTIONS",
    "LEGEND",
    "Level",
    "MoveResult",
    "apply_move",
    "generate_level",
]

DIRECTIONS: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}
"""Canonical move names and their (row, col) deltas, in the order actions are listed."""

LEGEND = "# wall, _ floor, O target, X box, √ box on target, P player, S player on target"

WALL, FLOOR, TARGET, BOX, BOX_ON_TARGET, PLAYER, PLAYER_ON_TARGET = "#_OX√PS"

# symbol -> (wall, target, box, player); the second group is the XSB notation.
_SYMBOLS: dict[str, tuple[bool, bool, bool, bool]] = {
    WALL: (True, False, False, False),
    FLOOR: (False, False, False, False),
    TARGET: (False, True, False, False),
    BOX: (False, False, True, False),
    BOX_ON_TARGET: (False, True, True, False),
    PLAYER: (False, False, False, True),
    PLAYER_ON_TARGET: (False, True, False, True),
    " ": (False, False, False, False),
    "-": (False, False, False, False),
    ".": (False, True, False, False),
    "$": (False, False, True, False),
    "*": (False, True, True, False),
    "@": (False, False, False, True),
    "+": (False, True, False, True),
}


@dataclass(frozen=True)
class Level:
    """One Sokoban position: the static room plus where the player and boxes are.

    Cells are ints ``row * cols + col``. The outer ring of every level is wall, so a
    neighbour of a non-wall cell is always inside the grid.
    """

    rows: int
    cols: int
    walls: frozenset[int]
    targets: frozenset[int]
    boxes: frozenset[int]
    player: int

    @property
    def solved(self) -> bool:
        """Every box is on a target."""
        return self.boxes == self.targets

    @property
    def boxes_on_targets(self) -> int:
        """How many boxes sit on targets."""
        return len(self.boxes & self.targets)

    def offset(self, direction: str) -> int:
        """The cell-index step of a move name (``up`` is ``-cols``)."""
        dr, dc = DIRECTIONS[direction]
        return dr * self.cols + dc

    def coords(self, cell: int) -> tuple[int, int]:
        """(row, col) of a cell index."""
        return divmod(cell, self.cols)

    def to_text(self) -> str:
        """The grid in the env's symbols, one row per line."""
        lines = []
        for r in range(self.rows):
            row = []
            for c in range(self.cols):
                cell = r * self.cols + c
                on_target = cell in self.targets
                if cell in self.walls:
                    row.append(WALL)
                elif cell == self.player:
                    row.append(PLAYER_ON_TARGET if on_target else PLAYER)
                elif cell in self.boxes:
                    row.append(BOX_ON_TARGET if on_target else BOX)
                else:
                    row.append(TARGET if on_target else FLOOR)
            lines.append("".join(row))
        return "\n".join(lines)

    @classmethod
    def from_text(cls, text: str | Sequence[str]) -> Level:
        """Parse a grid in the env's symbols or in XSB notation.

        Ragged rows are padded with wall, a wall ring is added when the grid's edge is
        open, and floor the player cannot reach (e.g. outside an XSB level's walls)
        becomes wall.

        Raises:
            ValueError: unknown symbols, not exactly one player, no boxes, or a box count
                that differs from the target count.

        """
        raw = text if isinstance(text, str) else "\n".join(text)
        lines = [line.rstrip() for line in textwrap.dedent(raw).splitlines()]
        while lines and not lines[0]:
            lines.pop(0)
        while lines and not lines[-1]:
            lines.pop()
        if not lines:
            raise ValueError("the level is empty; give a grid such as '#####\\n#PXO#\\n#####'")
        for line in lines:
            bad = sorted({ch for ch in line if ch not in _SYMBOLS})
            if bad:
                raise ValueError(
                    f"unknown level symbols {bad}; use {LEGEND} (or XSB: ' ' - . $ * @ +)"
                )
        width = max(len(line) for line in lines)
        grid = [line.ljust(width, WALL) for line in lines]
        edge = grid[0] + grid[-1] + "".join(line[0] + line[-1] for line in grid)
        if any(ch != WALL for ch in edge):
            # A closed ring keeps every neighbour of a non-wall cell inside the grid.
            ring = WALL * (width + 2)
            grid = [ring, *(WALL + line + WALL for line in grid), ring]
        rows, cols = len(grid), len(grid[0])
        kinds = [_SYMBOLS[ch] for line in grid for ch in line]
        players = [i for i, k in enumerate(kinds) if k[3]]
        boxes = {i for i, k in enumerate(kinds) if k[2]}
        targets = {i for i, k in enumerate(kinds) if k[1]}
        if len(players) != 1:
            raise ValueError(f"a level needs exactly one player (P or S), found {len(players)}")
        if not boxes:
            raise ValueError("a level needs at least one box (X or √)")
        if len(boxes) != len(targets):
            raise ValueError(
                f"a level needs as many targets as boxes, found {len(boxes)} boxes "
                f"and {len(targets)} targets"
            )
        # Floor the player cannot reach (e.g. outside an XSB level) becomes wall.
        keep = {players[0]}
        stack = [players[0]]
        while stack:
            cell = stack.pop()
            for step in (-cols, cols, -1, 1):
                nxt = cell + step
                if not kinds[nxt][0] and nxt not in keep:
                    keep.add(nxt)
                    stack.append(nxt)
        keep |= boxes | targets
        walls = frozenset(i for i in range(rows * cols) if i not in keep)
        return cls(rows, cols, walls, frozenset(targets), frozenset(boxes), players[0])


@dataclass(frozen=True)
class MoveResult:
    """What one move did: the new level and what happened."""

    level: Level
    event: str
    """``moved``, ``pushed``, ``wall`` (walked into a wall), ``box_wall`` / ``box_box``
    (the box in the way is blocked by a wall / another box)."""
    box_delta: int = 0
    """+1 a box was pushed onto a target, -1 off one, 0 otherwise"""


def apply_move(level: Level, direction: str) -> MoveResult:
    r"""Play one move: walk, push the box in the way, or bump (a no-op).

    >>> lvl = Level.from_text("#####\n#PXO#\n#####")
    >>> result = apply_move(lvl, "right")
    >>> result.event, result.box_delta, result.level.solved
    ('pushed', 1, True)

    """
    step = level.offset(direction)
    ahead = level.player + step
    if ahead in level.walls:
        return MoveResult(level, "wall")
    if ahead not in level.boxes:
        return MoveResult(replace(level, player=ahead), "moved")
    beyond = ahead + step
    if beyond in level.walls:
        return MoveResult(level, "box_wall")
    if beyond in level.boxes:
        return MoveResult(level, "box_box")
    boxes = (level.boxes - {ahead}) | {beyond}
    delta = int(beyond in level.targets) - int(ahead in level.targets)
    return MoveResult(replace(level, boxes=boxes, player=ahead), "pushed", delta)


# -- generation --------------------------------------------------------------------

_PULL_PROB = 0.8
"""chance that a reverse step next to a box pulls it along"""
_MAX_ATTEMPTS = 2000
_WALKS = 10
"""backwards walks tried per room; the farthest one wins"""


def _carve(rng: np.random.Generator, rows: int, cols: int, num_boxes: int) -> list[int]:
    """A connected set of floor cells, dug by a random walk inside the outer wall."""
    inner_r, inner_c = rows - 2, cols - 2
    n_inner = inner_r * inner_c
    want = int(n_inner * rng.uniform(0.55, 0.8) + 0.5)
    want = min(n_inner, max(want, 3 * num_boxes + 7))
    r = int(rng.integers(1, rows - 1))
    c = int(rng.integers(1, cols - 1))
    floor = {r * cols + c}
    dirs = list(DIRECTIONS.values())
    dr, dc = dirs[int(rng.integers(4))]
    for _ in range(50 * n_inner):
        if len(floor) >= want:
            break
        if rng.random() < 0.35:
            dr, dc = dirs[int(rng.integers(4))]
        nr, nc = r + dr, c + dc
        if not (1 <= nr <= inner_r and 1 <= nc <= inner_c):
            dr, dc = dirs[int(rng.integers(4))]
            continue
        r, c = nr, nc
        floor.add(r * cols + c)
        # Widen the corridor now and then: one-wide mazes leave no room to pull boxes.
        if rng.random() < 0.3:
            wr, wc = r + dc, c + dr  # a side neighbour, perpendicular to the walk
            if rng.random() < 0.5:
                wr, wc = r - dc, c - dr
            if 1 <= wr <= inner_r and 1 <= wc <= inner_c:
                floor.add(wr * cols + wc)
    return sorted(floor)


def _score(boxes: list[int], targets: list[int], cols: int) -> int:
    """How far the boxes are from the targets: boxes off target + Manhattan distances."""
    total = 0
    for b in boxes:
        br, bc = divmod(b, cols)
        best = min(abs(br - t // cols) + abs(bc - t % cols) for t in targets)
        total += best + (best > 0)
    return total


def _reverse_walk(
    rng: np.random.Generator,
    floor: set[int],
    targets: list[int],
    player: int,
    cols: int,
    steps: int,
) -> tuple[int, list[int], int]:
    """Play backwards from the solved position; return the farthest (player, boxes, score)."""
    boxes = list(targets)
    offsets = [dr * cols + dc for dr, dc in DIRECTIONS.values()]
    best: tuple[int, list[int], int] = (player, list(boxes), 0)
    last = 0
    for _ in range(steps):
        occupied = set(boxes)
        options = [d for d in offsets if player + d in floor and player + d not in occupied]
        if not options:
            break
        pulls = [d for d in options if player - d in occupied]
        # Pulling is what moves boxes away from targets; keep pulling the same way
        # when possible so boxes travel instead of jiggling in place.
        if pulls and rng.random() < _PULL_PROB:
            d = last if last in pulls else pulls[int(rng.integers(len(pulls)))]
            boxes[boxes.index(player - d)] = player
        else:
            d = options[int(rng.integers(len(options)))]
        last = d
        player += d
        score = _score(boxes, targets, cols)
        # Ties go to the later state: the player has wandered off, so it must walk back.
        if score >= best[2]:
            best = (player, list(boxes), score)
    return best


def generate_level(
    rng: np.random.Generator,
    rows: int,
    cols: int,
    num_boxes: int,
    max_reverse_steps: int,
) -> Level:
    """A random level that is solvable in at most ``max_reverse_steps`` moves.

    Args:
        rng: the env's ``np_random``; the only source of randomness.
        rows: grid height including the outer wall (>= 5).
        cols: grid width including the outer wall (>= 5).
        num_boxes: boxes (and targets) in the level.
        max_reverse_steps: length of the backwards walk, an upper bound on the
            length of the shortest solution.

    Returns:
        A level with at least one box off target and boxes at least
        ``num_boxes + 3`` "score points" (off-target count plus Manhattan distance)
        away from the targets.

    >>> lvl = generate_level(np.random.default_rng(0), 6, 6, 1, 30)
    >>> len(lvl.boxes), lvl.solved
    (1, False)

    """
    min_score = num_boxes + 3
    for _ in range(_MAX_ATTEMPTS):
        cells = _carve(rng, rows, cols, num_boxes)
        if len(cells) < num_boxes + 3:
            continue
        pick = rng.choice(len(cells), size=num_boxes + 1, replace=False)
        targets = [cells[int(i)] for i in pick[:num_boxes]]
        start = cells[int(pick[-1])]
        player, boxes, score = max(
            (
                _reverse_walk(rng, set(cells), targets, start, cols, max_reverse_steps)
                for _ in range(_WALKS)
            ),
            key=lambda found: found[2],
        )
        if score < min_score:
            continue
        floor = set(cells)
        walls = frozenset(i for i in range(rows * cols) if i not in floor)
        return Level(rows, cols, walls, frozenset(targets), frozenset(boxes), player)
    raise RuntimeError(  # pragma: no cover - the room sizes allowed make this unreachable
        f"could not generate a {rows}x{cols} level with {num_boxes} boxes; "
        "try more max_reverse_steps"
    )
