"""``TextCraft-v0``: craft a target item from base materials, in the spirit of TextCraft.

Each reset draws a target item from ``self.np_random`` (optionally of a given recipe
``depth``, 1..4) and shows the crafting commands of its recipe tree mixed with a few
distractor recipes, as in TextCraft (Prasad et al., ADaPT). The inventory starts
empty. Commands:

- ``get <n> <item>``: fetch ``n`` of a base material (an item with no recipe);
- ``craft <n> <item> using <k> <ingredient>, ...``: the canonical form, as the recipes
  are written; ``craft <n> <item>`` and ``craft <item>`` (one batch) are accepted too.
  ``n`` is rounded up to whole batches (``craft 5 oak planks`` makes 8 from 2 logs);
  the ``using`` part, when given, must name the recipe's ingredients (counts ignored);
- ``inventory``: show the inventory.

The action set is free-form (``legal_actions`` is None): counts are open-ended, so the
list of valid commands would not be a short finite list. Unknown items, fetching a
craftable item, crafting a base material or crafting without the ingredients are
invalid actions whose message says what to do instead. Holding the target ends the
episode with reward 1 and ``success``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, normalize_action, read_int
from turngym.envs.text.textcraft_data import BASE_ITEMS, RECIPES, depth, subtree

__all__ = ["Command", "TextCraftEnv", "recipe_text"]

MAX_COUNT = 999
_BASE = frozenset(BASE_ITEMS)
_ITEMS = frozenset(BASE_ITEMS) | frozenset(RECIPES)
_GET = re.compile(r"^(?:get|fetch|take)\s+(?:(\d+)\s*x?\s+)?(.+)$")
_CRAFT = re.compile(r"^craft\s+(?:(\d+)\s*x?\s+)?(.+?)(?:\s+(?:using|from|with)\s+(.+))?$")
_COUNTED = re.compile(r"^(?:(\d+)\s*x?\s+)?(.+)$")
_INVENTORY = frozenset({"inventory", "inv", "check inventory", "show inventory", "i"})
_USAGE = "use `get <n> <item>`, `craft <n> <item> using <k> <ingredient>, ...` or `inventory`"


def recipe_text(item: str, batches: int = 1) -> str:
    """The canonical craft command for ``batches`` batches of ``item``.

    >>> recipe_text("oak fence")
    'craft 3 oak fence using 4 oak planks, 2 stick'
    """
    count, ingredients = RECIPES[item]
    using = ", ".join(f"{n * batches} {name}" for name, n in ingredients.items())
    return f"craft {count * batches} {item} using {using}"


def _item(text: str) -> str | None:
    """Match an item name leniently: brackets, a ``minecraft:`` prefix, plurals."""
    name = text.strip(" .[]'\"`").removeprefix("minecraft:").replace("_", " ").strip()
    for candidate in (name, name[:-1], name[:-2], f"{name}s"):
        if candidate in _ITEMS:
            return candidate
    return None


@dataclass(frozen=True)
class Command:
    """A parsed command: ``verb`` is ``get``, ``craft`` or ``inventory``."""

    verb: str
    item: str = ""
    count: int = 1
    """items to get; for craft, whole batches to make"""


def _count(raw: str | None, default: int) -> int | Invalid:
    if raw is None:
        return default
    n = read_int(raw)
    if n is None or not 1 <= n <= MAX_COUNT:
        return Invalid(f"counts must be between 1 and {MAX_COUNT}, got {raw[:12]}")
    return n


class TextCraftEnv(TextEnv[Command]):
    r"""Craft the target item; the first observation lists the crafting commands.

    Args:
        depth: recipe depth of the target: 1..4, or None (any, drawn uniformly over
            items). Depth 1 items are made from base materials only.
        num_distractors: extra recipes, unrelated to the target, shown with its own
            (0..10).
        target: always this item (a craftable item name) instead of drawing one.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> from turngym.envs.text.textcraft import TextCraftEnv
        >>> env = TextCraftEnv(target="stick", num_distractors=0)
        >>> obs, info = env.reset(seed=0)
        >>> print(obs.split("\n\n")[1])
        Crafting commands:
        craft 4 stick using 2 oak planks
        craft 4 oak planks using 1 oak log
        >>> _ = env.step("get 1 oak log")
        >>> _ = env.step("craft 4 oak planks using 1 oak log")
        >>> obs, reward, terminated, truncated, info = env.step("craft stick")
        >>> print(obs)
        Crafted 4 stick.
        Inventory: [oak planks] (2), [stick] (4)
        You have the stick: task complete!
        >>> reward, terminated, info["success"]
        (1.0, True, True)

    """

    def __init__(
        self,
        depth: int | None = None,
        num_distractors: int = 4,
        target: str | None = None,
        **kwargs: Any,
    ) -> None:
        if depth is not None and (isinstance(depth, bool) or depth not in (1, 2, 3, 4)):
            raise ValueError(f"depth must be 1, 2, 3, 4 or None (any), got {depth!r}")
        if isinstance(num_distractors, bool) or num_distractors not in range(11):
            raise ValueError(f"num_distractors must be an int in 0..10, got {num_distractors!r}")
        if target is not None and target not in RECIPES:
            raise ValueError(
                f"target must be a craftable item (a key of textcraft_data.RECIPES, "
                f"e.g. 'stone pickaxe'), got {target!r}"
            )
        super().__init__(**kwargs)
        self.depth = depth
        self.num_distractors = num_distractors
        self.fixed_target = target
        self.target = ""
        """The item to craft this episode."""
        self.recipes: list[str] = []
        """Items whose recipes the observation shows (tree first, distractors mixed in)."""
        self.inventory: dict[str, int] = {}

    def _reset(self, options: dict[str, Any]) -> str:
        rng = self.np_random
        if self.fixed_target is not None:
            self.target = self.fixed_target
        else:
            pool = [i for i in RECIPES if self.depth is None or depth(i) == self.depth]
            self.target = pool[int(rng.integers(len(pool)))]
        tree = subtree(self.target)
        others = [i for i in RECIPES if i not in tree]
        picks = rng.choice(len(others), size=self.num_distractors, replace=False)
        shown = tree + [others[int(k)] for k in picks]
        self.recipes = [shown[int(k)] for k in rng.permutation(len(shown))]
        self.inventory = {}
        self.instruction = (
            f"You are crafting in a Minecraft-like world. Goal: craft {self.target}. "
            "Fetch base materials (items no command below makes) with `get <n> <item>`, "
            "craft with `craft <n> <item> using <k> <ingredient>, ...` exactly as the "
            "commands below are written (repeat one to make more), and check your items "
            "with `inventory`. Some commands are not needed."
        )
        commands = "\n".join(recipe_text(i) for i in self.recipes)
        return f"{self.instruction}\n\nCrafting commands:\n{commands}\n\n{self._inventory_text()}"

    # -- parsing ------------------------------------------------------------------------

    def _parse(self, action: str) -> Command | Invalid:
        text = normalize_action(action).rstrip(".")
        if not text:
            return Invalid(f"the action is empty; {_USAGE}")
        if text in _INVENTORY:
            return Command("inventory")
        if m := _GET.match(text):
            return self._parse_get(m.group(1), m.group(2))
        if m := _CRAFT.match(text):
            return self._parse_craft(m.group(1), m.group(2), m.group(3))
        return Invalid(f"unknown command; {_USAGE}")

    def _parse_get(self, raw_count: str | None, raw_item: str) -> Command | Invalid:
        count = _count(raw_count, 1)
        if isinstance(count, Invalid):
            return count
        item = _item(raw_item)
        if item is None:
            return Invalid(f"there is no item called {raw_item!r}")
        if item not in _BASE:
            return Invalid(
                f"{item} is not a base material and cannot be fetched; craft it with "
                f"`{recipe_text(item)}`"
            )
        return Command("get", item, count)

    def _parse_craft(
        self, raw_count: str | None, raw_item: str, raw_using: str | None
    ) -> Command | Invalid:
        item = _item(raw_item)
        if item is None:
            return Invalid(f"there is no item called {raw_item!r}")
        if item not in RECIPES:
            return Invalid(f"{item} is a base material: fetch it with `get 1 {item}`")
        made, ingredients = RECIPES[item]
        count = _count(raw_count, made)
        if isinstance(count, Invalid):
            return count
        if raw_using is not None:
            named = set()
            for part in re.split(r",|\band\b", raw_using):
                m = _COUNTED.match(part.strip())
                if m is None:  # an empty part, as in "a, , b"
                    continue
                name = _item(m.group(2))
                if name is None:
                    return Invalid(f"there is no item called {m.group(2)!r}")
                named.add(name)
            if named != set(ingredients):
                return Invalid(f"that is not the recipe of {item}; it is `{recipe_text(item)}`")
        batches = -(-count // made)
        missing = [
            f"{n * batches - self.inventory.get(name, 0)} {name}"
            for name, n in ingredients.items()
            if self.inventory.get(name, 0) < n * batches
        ]
        if missing:
            return Invalid(
                f"not enough ingredients for {batches * made} {item}: you still need "
                f"{', '.join(missing)}"
            )
        return Command("craft", item, batches)

    # -- rules --------------------------------------------------------------------------

    def _apply(self, action: Command) -> Outcome:
        inv = self.inventory
        if action.verb == "inventory":
            return Outcome(self._inventory_text())
        if action.verb == "get":
            inv[action.item] = inv.get(action.item, 0) + action.count
            message = f"Got {action.count} {action.item}."
        else:
            made, ingredients = RECIPES[action.item]
            for name, n in ingredients.items():
                inv[name] -= n * action.count
                if inv[name] == 0:
                    del inv[name]
            inv[action.item] = inv.get(action.item, 0) + made * action.count
            message = f"Crafted {made * action.count} {action.item}."
        text = f"{message}\n{self._inventory_text()}"
        done = inv.get(self.target, 0) > 0
        if done:
            text += f"\nYou have the {self.target}: task complete!"
        return Outcome(text, 1.0 if done else 0.0, terminated=done, success=done)

    def _inventory_text(self) -> str:
        if not self.inventory:
            return "Inventory: empty."
        items = ", ".join(f"[{name}] ({n})" for name, n in sorted(self.inventory.items()))
        return f"Inventory: {items}"

    def _render(self) -> str:
        return f"Goal: {self.target}\n{self._inventory_text()}"

    def _state_key(self) -> str:
        items = ";".join(f"{name}={n}" for name, n in sorted(self.inventory.items()))
        return f"{self.target}|{items}"

    def _extra_info(self) -> dict[str, Any]:
        return {"target": self.target, "inventory": dict(self.inventory)}
