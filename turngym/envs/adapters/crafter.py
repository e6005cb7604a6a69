"""``crafter-v0``: Danijar Hafner's Crafter as a text env, told the way BALROG does.

The world, its dynamics and the reward are Crafter's own (``crafter.Env``): this module
only describes what the agent's 9x7 local view holds (the nearest of each material and
creature, with its direction and distance), what it faces, its health/food/drink/energy,
its inventory and the achievements unlocked so far, as BALROG's Crafter language wrapper
does (our own code). Actions are Crafter's 17 names (``noop``, ``move_left``, ``do``,
``make_wood_pickaxe``...), always all legal: one that cannot do anything is Crafter's
no-op, as in the game.

``reset(seed=s)`` starts the world ``crafter.Env(seed=s)`` starts, so a seed replays the
same world; a reset without a seed draws Crafter's seed from the env's own RNG.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, normalize_action
from turngym.extras import needs_extra

__all__ = ["ACHIEVEMENTS", "ACTIONS", "CrafterEnv"]

ACTIONS: tuple[str, ...] = (
    "noop",
    "move_left",
    "move_right",
    "move_up",
    "move_down",
    "do",
    "sleep",
    "place_stone",
    "place_table",
    "place_furnace",
    "place_plant",
    "make_wood_pickaxe",
    "make_stone_pickaxe",
    "make_iron_pickaxe",
    "make_wood_sword",
    "make_stone_sword",
    "make_iron_sword",
)
"""Crafter's actions, in its order (``crafter.constants.actions``)."""

ACHIEVEMENTS: tuple[str, ...] = (
    "collect_coal",
    "collect_diamond",
    "collect_drink",
    "collect_iron",
    "collect_sapling",
    "collect_stone",
    "collect_wood",
    "defeat_skeleton",
    "defeat_zombie",
    "eat_cow",
    "eat_plant",
    "make_iron_pickaxe",
    "make_iron_sword",
    "make_stone_pickaxe",
    "make_stone_sword",
    "make_wood_pickaxe",
    "make_wood_sword",
    "place_furnace",
    "place_plant",
    "place_stone",
    "place_table",
    "wake_up",
)
"""Crafter's 22 achievements (``crafter.constants.achievements``)."""

# BALROG names the moves by compass point ("Move West"); both spellings are accepted.
_ALIASES = {"move_west": 1, "move_east": 2, "move_north": 3, "move_south": 4}
_VITALS = ("health", "food", "drink", "energy")
_SEED_RANGE = 2**31 - 1
_VIEW = (9, 7)  # the local view Crafter draws with its default view=(9, 9): 2 rows of items

_HELP = (
    "Actions: noop; move_left/move_right/move_up/move_down (west/east/north/south); do "
    "(collect the material in front of you, drink water, eat, attack); sleep; "
    "place_stone, place_table, place_furnace, place_plant; make_wood_pickaxe, "
    "make_stone_pickaxe, make_iron_pickaxe, make_wood_sword, make_stone_sword, "
    "make_iron_sword (crafting needs a table nearby, iron tools a furnace too). "
    "Reward: +1 for each achievement unlocked for the first time, +-0.1 per health point "
    f"gained or lost. Achievements: {', '.join(ACHIEVEMENTS)}."
)


class _OrderedSet(dict[Any, None]):
    """The set API Crafter's world uses on a chunk (add, remove, iterate), in insertion order."""

    def add(self, item: Any) -> None:
        """Add ``item`` (kept after the items already there)."""
        self[item] = None

    def remove(self, item: Any) -> None:
        """Remove ``item``; KeyError if absent, as ``set.remove``."""
        del self[item]


def _order_chunks(world: Any) -> None:
    """Give ``world``'s chunks a replayable order (the same keys, the same objects).

    Crafter keeps each chunk's creatures in a ``set``, which iterates in memory-address
    order; when it despawns one it indexes that order with its seeded RNG, so the same
    seed removed a different cow from one run to the next. Sorted by the order the
    world added them, and kept in insertion order from then on, the choice replays;
    it stays a uniform draw among the chunk's creatures, as Crafter meant.
    """
    index = world._obj_map
    ordered: defaultdict[Any, _OrderedSet] = defaultdict(_OrderedSet)
    for key, objs in world._chunks.items():
        chunk = ordered[key]  # empty chunks too: Crafter balances every key it holds
        for obj in sorted(objs, key=lambda o: int(index[tuple(o.pos)])):
            chunk.add(obj)
    world._chunks = ordered


def _steps(n: int, way: str) -> str:
    return f"{n} step{'s' if n != 1 else ''} {way}"


def _where(dx: int, dy: int) -> str:
    """Where a cell ``dx`` east and ``dy`` south of the agent lies, in words."""
    parts = []
    if dy:
        parts.append(_steps(abs(dy), "north" if dy < 0 else "south"))
    if dx:
        parts.append(_steps(abs(dx), "west" if dx < 0 else "east"))
    return " and ".join(parts)


class CrafterEnv(TextEnv[int]):
    """Crafter with text observations and Crafter's action names.

    Reward is Crafter's. The episode terminates when the agent dies and is truncated
    when Crafter's ``length`` runs out (``max_steps``). ``info["achievements"]`` is
    Crafter's own count per achievement (a count above 0: unlocked), ``info["inventory"]``
    its inventory. Crafter has no goal of its own: ``info["success"]`` is True only
    once all 22 achievements are unlocked; score runs by achievements and return.

    Args:
        max_steps: Crafter's episode length (its ``length``; default 10,000). Above
            10,000, also pass ``max_episode_steps`` to ``gym.make``.
        area: Crafter's world size in cells (its ``area``; default 64 x 64, as in the
            paper and BALROG). Generating a world costs about 0.2 ms a cell.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ``max_invalid_actions``,
            ``render_mode``).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/crafter-v0", max_steps=50)
        >>> obs, info = env.reset(seed=0)
        >>> "Your status: health 9/9, food 9/9, drink 9/9, energy 9/9." in obs
        True
        >>> len(info["legal_actions"])
        17

    """

    def __init__(
        self, max_steps: int = 10_000, area: tuple[int, int] = (64, 64), **kwargs: Any
    ) -> None:
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, got {max_steps!r}")
        if (
            not isinstance(area, (tuple, list))
            or len(area) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 9 for n in area)
        ):
            raise ValueError(f"area must be two ints >= 9 (width, height), got {area!r}")
        super().__init__(**kwargs)
        self.max_steps = max_steps
        self.area = (int(area[0]), int(area[1]))
        with needs_extra("crafter", "crafter-v0"):
            import crafter
        self._crafter = crafter
        self.crafter: Any = None
        """The ``crafter.Env`` behind this env (made at the first reset, reseeded at each)."""
        self._lookup = {name: i for i, name in enumerate(ACTIONS)} | _ALIASES
        self._names: dict[int, str] = {}
        self._seed: int | None = None
        self._last: dict[str, Any] = {}
        self._text = ""

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode in the world ``crafter.Env(seed=seed)`` generates."""
        self._seed = seed
        return super().reset(seed=seed, options=options)

    def _reset(self, options: dict[str, Any]) -> str:
        seed = self._seed
        if seed is None:
            seed = int(self.np_random.integers(_SEED_RANGE))
        # Crafter derives each world from (its seed, how many resets it saw), so a reused
        # Env would not replay a seed. Setting both puts it where crafter.Env(seed=seed)
        # starts (reset rebuilds the world, player and counters), without loading its
        # textures again (0.3 s, a third of a world's generation).
        if self.crafter is None:
            self.crafter = self._crafter.Env(area=self.area, length=self.max_steps, seed=seed)
        self.crafter._seed = seed
        self.crafter._episode = 0
        self.crafter.reset()
        _order_chunks(self.crafter._world)
        sem = self.crafter._sem_view
        self._names = {i: str(name) for name, i in sem._mat_ids.items() if name}
        self._names |= {i: cls.__name__.lower() for cls, i in sem._obj_ids.items()}
        player = self.crafter._player
        self._last = {
            "inventory": player.inventory.copy(),
            "achievements": player.achievements.copy(),
            "semantic": sem(),
            "player_pos": player.pos,
        }
        self.instruction = (
            "You are playing Crafter, a 2D survival and crafting world seen from above. "
            "Survive (keep health, food, drink and energy up; zombies and skeletons "
            "attack) and unlock as many achievements as you can. You see 4 cells west "
            f"and east and 3 cells north and south of you. {_HELP}"
        )
        self._text = self._describe()
        return f"{self.instruction}\n\n{self._text}"

    def _describe(self) -> str:
        info = self._last
        player = self.crafter._player
        sem = info["semantic"]
        px, py = (int(v) for v in info["player_pos"])
        half_w, half_h = _VIEW[0] // 2, _VIEW[1] // 2
        nearest: dict[str, tuple[int, int, int]] = {}
        width, height = sem.shape
        x0, y0 = max(px - half_w, 0), max(py - half_h, 0)
        window = sem[x0 : px + half_w + 1, y0 : py + half_h + 1].tolist()  # plain ints: fast
        names = self._names
        for x, column in enumerate(window, x0):
            for y, index in enumerate(column, y0):
                name = names.get(index)
                if name is None or name == "player":
                    continue
                dx, dy = x - px, y - py
                far = abs(dx) + abs(dy)
                if name not in nearest or far < nearest[name][0]:
                    nearest[name] = (far, dx, dy)
        seen = sorted(nearest.items(), key=lambda kv: (kv[1][0], kv[0]))
        lines = ["You see:", *(f"- {name} {_where(dx, dy)}" for name, (_, dx, dy) in seen)]
        fx, fy = px + int(player.facing[0]), py + int(player.facing[1])
        inside = 0 <= fx < width and 0 <= fy < height
        front = self._names.get(int(sem[fx, fy]), "nothing") if inside else "the edge of the world"
        lines.append(f"You face {front} at your front.")
        if player.sleeping:
            lines.append("You are sleeping.")
        inventory = info["inventory"]
        vitals = ", ".join(f"{v} {inventory[v]}/9" for v in _VITALS)
        lines.append(f"Your status: {vitals}.")
        items = [f"{k} {n}" for k, n in inventory.items() if k not in _VITALS and n > 0]
        lines.append(f"Your inventory: {', '.join(items) if items else 'empty'}.")
        unlocked = [name for name, n in info["achievements"].items() if n > 0]
        lines.append(f"Achievements so far: {', '.join(unlocked) if unlocked else 'none'}.")
        return "\n".join(lines)

    def _parse(self, action: str) -> int | Invalid:
        index = self._lookup.get(normalize_action(action).replace(" ", "_"))
        if index is None:
            return Invalid(f"unknown action; answer with one of: {', '.join(ACTIONS)}")
        return index

    def _apply(self, action: int) -> Outcome:
        _, reward, done, info = self.crafter.step(action)
        self._last = info
        self._text = self._describe()
        dead = self.crafter._player.health <= 0
        unlocked = all(n > 0 for n in info["achievements"].values())
        text = f"You chose: {ACTIONS[action]}.\n{self._text}"
        if dead:
            text += "\nYou died; the episode is over."
        elif done:
            text += "\nOut of time; the episode is over."
        return Outcome(text, float(reward), dead, bool(done) and not dead, unlocked)

    def _legal_actions(self) -> list[str]:
        return list(ACTIONS)

    def _render(self) -> str:
        return self._text

    def _extra_info(self) -> dict[str, Any]:
        if not self._last:
            return {}
        return {
            "achievements": dict(self._last["achievements"]),
            "inventory": dict(self._last["inventory"]),
        }
