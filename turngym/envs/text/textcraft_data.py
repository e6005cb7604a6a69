"""The item table of ``TextCraft-v0``: base materials and crafting recipes.

Minecraft-flavoured but our own simplified table (one recipe per item, smelting
written as crafting). ``RECIPES`` maps an item to ``(count made, {ingredient: count})``;
``BASE_ITEMS`` are fetched with ``get``; ``depth(item)`` is 0 for a base material and
1 + the deepest ingredient otherwise.
"""

from __future__ import annotations

from functools import cache

__all__ = ["BASE_ITEMS", "RECIPES", "Recipe", "depth", "subtree"]

Recipe = tuple[int, dict[str, int]]

BASE_ITEMS: tuple[str, ...] = (
    "oak log",
    "birch log",
    "spruce log",
    "cobblestone",
    "sand",
    "coal",
    "iron ingot",
    "gold ingot",
    "diamond",
    "redstone dust",
    "string",
    "feather",
    "flint",
    "leather",
    "sugar cane",
    "wheat",
    "egg",
    "slimeball",
    "gunpowder",
    "obsidian",
    "quartz",
    "apple",
    "melon slice",
    "cocoa beans",
    "nether star",
)


def _r(count: int, **ingredients: int) -> Recipe:
    """A recipe; ingredient names are written with ``_`` for spaces."""
    return count, {name.replace("_", " "): n for name, n in ingredients.items()}


RECIPES: dict[str, Recipe] = {
    # wood
    "oak planks": _r(4, oak_log=1),
    "birch planks": _r(4, birch_log=1),
    "spruce planks": _r(4, spruce_log=1),
    "stick": _r(4, oak_planks=2),
    "crafting table": _r(1, oak_planks=4),
    "chest": _r(1, oak_planks=8),
    "oak slab": _r(6, oak_planks=3),
    "oak door": _r(3, oak_planks=6),
    "oak fence": _r(3, oak_planks=4, stick=2),
    "oak boat": _r(1, oak_planks=5),
    "birch door": _r(3, birch_planks=6),
    "birch boat": _r(1, birch_planks=5),
    "spruce trapdoor": _r(2, spruce_planks=6),
    "ladder": _r(3, stick=7),
    "barrel": _r(1, oak_planks=6, oak_slab=2),
    "campfire": _r(1, stick=3, coal=1, oak_log=3),
    "bowl": _r(4, birch_planks=3),
    # tools and weapons
    "wooden pickaxe": _r(1, oak_planks=3, stick=2),
    "stone pickaxe": _r(1, cobblestone=3, stick=2),
    "stone axe": _r(1, cobblestone=3, stick=2),
    "iron pickaxe": _r(1, iron_ingot=3, stick=2),
    "diamond pickaxe": _r(1, diamond=3, stick=2),
    "iron sword": _r(1, iron_ingot=2, stick=1),
    "diamond sword": _r(1, diamond=2, stick=1),
    "shears": _r(1, iron_ingot=2),
    "bow": _r(1, stick=3, string=3),
    "arrow": _r(4, flint=1, stick=1, feather=1),
    "fishing rod": _r(1, stick=3, string=2),
    "tripwire hook": _r(2, iron_ingot=1, stick=1, oak_planks=1),
    "crossbow": _r(1, stick=3, string=2, iron_ingot=1, tripwire_hook=1),
    "iron helmet": _r(1, iron_ingot=5),
    "iron chestplate": _r(1, iron_ingot=8),
    "diamond helmet": _r(1, diamond=5),
    "leather boots": _r(1, leather=4),
    # stone
    "stone": _r(1, cobblestone=1),
    "smooth stone": _r(1, stone=1),
    "stone bricks": _r(4, stone=4),
    "stone brick slab": _r(6, stone_bricks=3),
    "chiseled stone bricks": _r(1, stone_brick_slab=2),
    "stone brick stairs": _r(4, stone_bricks=6),
    "smooth stone slab": _r(6, smooth_stone=3),
    "armor stand": _r(1, stick=6, smooth_stone_slab=1),
    "furnace": _r(1, cobblestone=8),
    "smoker": _r(1, oak_log=4, furnace=1),
    "blast furnace": _r(1, iron_ingot=5, furnace=1, smooth_stone=3),
    "lever": _r(1, cobblestone=1, stick=1),
    # iron, gold and redstone
    "iron nugget": _r(9, iron_ingot=1),
    "gold nugget": _r(9, gold_ingot=1),
    "iron block": _r(1, iron_ingot=9),
    "gold block": _r(1, gold_ingot=9),
    "iron bars": _r(16, iron_ingot=6),
    "bucket": _r(1, iron_ingot=3),
    "minecart": _r(1, iron_ingot=5),
    "hopper": _r(1, iron_ingot=5, chest=1),
    "hopper minecart": _r(1, hopper=1, minecart=1),
    "rail": _r(16, iron_ingot=6, stick=1),
    "powered rail": _r(6, gold_ingot=6, stick=1, redstone_dust=1),
    "redstone torch": _r(1, redstone_dust=1, stick=1),
    "activator rail": _r(6, iron_ingot=6, stick=2, redstone_torch=1),
    "compass": _r(1, iron_ingot=4, redstone_dust=1),
    "clock": _r(1, gold_ingot=4, redstone_dust=1),
    "piston": _r(1, oak_planks=3, cobblestone=4, iron_ingot=1, redstone_dust=1),
    "sticky piston": _r(1, piston=1, slimeball=1),
    "note block": _r(1, oak_planks=8, redstone_dust=1),
    "jukebox": _r(1, oak_planks=8, diamond=1),
    "dispenser": _r(1, cobblestone=7, bow=1, redstone_dust=1),
    "torch": _r(4, coal=1, stick=1),
    "lantern": _r(1, iron_nugget=8, torch=1),
    "tnt": _r(1, gunpowder=5, sand=4),
    # glass
    "glass": _r(1, sand=1),
    "glass pane": _r(16, glass=6),
    "glass bottle": _r(3, glass=3),
    "daylight detector": _r(1, glass=3, quartz=3, oak_slab=3),
    "beacon": _r(1, glass=5, obsidian=3, nether_star=1),
    # paper and books
    "paper": _r(3, sugar_cane=3),
    "book": _r(1, paper=3, leather=1),
    "bookshelf": _r(1, oak_planks=6, book=3),
    "enchanting table": _r(1, book=1, diamond=2, obsidian=4),
    "map": _r(1, paper=8, compass=1),
    # food and cloth
    "sugar": _r(1, sugar_cane=1),
    "bread": _r(1, wheat=3),
    "cookie": _r(8, wheat=2, cocoa_beans=1),
    "cake": _r(1, wheat=3, sugar=2, egg=1),
    "golden apple": _r(1, gold_ingot=8, apple=1),
    "glistering melon slice": _r(1, gold_nugget=8, melon_slice=1),
    "white wool": _r(1, string=4),
    "white bed": _r(1, white_wool=3, oak_planks=3),
    "painting": _r(1, stick=8, white_wool=1),
    "item frame": _r(1, stick=8, leather=1),
    "lead": _r(2, string=4, slimeball=1),
    "loom": _r(1, string=2, oak_planks=2),
}


@cache
def depth(item: str) -> int:
    """0 for a base material, else 1 + the depth of its deepest ingredient.

    >>> depth("oak log"), depth("oak planks"), depth("stick"), depth("bow"), depth("dispenser")
    (0, 1, 2, 3, 4)
    """
    if item not in RECIPES:
        return 0
    return 1 + max(depth(i) for i in RECIPES[item][1])


def subtree(item: str) -> list[str]:
    """The craftable items needed to make ``item`` (itself first, then breadth-first).

    >>> subtree("wooden pickaxe")
    ['wooden pickaxe', 'oak planks', 'stick']
    """
    seen: list[str] = []
    stack = [item]
    while stack:
        name = stack.pop(0)
        if name in RECIPES and name not in seen:
            seen.append(name)
            stack.extend(RECIPES[name][1])
    return seen
