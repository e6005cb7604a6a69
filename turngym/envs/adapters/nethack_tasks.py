"""The MiniHack tasks turngym registers (data only: the registry reads it, nothing is imported).

``MINIHACK_TASKS`` holds MiniHack's own registered ids without the ``MiniHack-`` prefix
(``"Room-5x5-v0"``); turngym's id drops MiniHack's version: ``turngym/minihack.Room-5x5-v0``
(MiniHack's Sokoban levels are its ``-v1``). Every id that MiniHack 1.0.2 registers is here
except those in ``MINIHACK_LEFT_OUT``, each with the reason (tests/envs/adapters/test_nethack.py
checks both against what ``import minihack`` registers).
"""

from __future__ import annotations

__all__ = ["MINIHACK_GOALS", "MINIHACK_LEFT_OUT", "MINIHACK_TASKS", "minihack_task"]

MINIHACK_TASKS: tuple[str, ...] = (
    "ClosedDoor-v0",
    "Corridor-R2-v0",
    "Corridor-R3-v0",
    "Corridor-R5-v0",
    "CorridorBattle-Dark-v0",
    "CorridorBattle-v0",
    "Eat-Distr-v0",
    "Eat-Fixed-v0",
    "Eat-v0",
    "ExploreMaze-Easy-Mapped-v0",
    "ExploreMaze-Easy-v0",
    "ExploreMaze-Hard-Mapped-v0",
    "ExploreMaze-Hard-v0",
    "Freeze-Horn-Full-v0",
    "Freeze-Horn-Restricted-v0",
    "Freeze-Lava-Full-v0",
    "Freeze-Lava-Restricted-v0",
    "Freeze-Random-Full-v0",
    "Freeze-Random-Restricted-v0",
    "Freeze-Wand-Full-v0",
    "Freeze-Wand-Restricted-v0",
    "HideNSeek-Big-v0",
    "HideNSeek-Lava-v0",
    "HideNSeek-Mapped-v0",
    "HideNSeek-v0",
    "KeyRoom-Dark-S15-v0",
    "KeyRoom-Dark-S5-v0",
    "KeyRoom-Fixed-S5-v0",
    "KeyRoom-S15-v0",
    "KeyRoom-S5-v0",
    "Labyrinth-Big-v0",
    "Labyrinth-Small-v0",
    "LavaCross-Full-v0",
    "LavaCross-Levitate-Full-v0",
    "LavaCross-Levitate-Potion-Inv-Full-v0",
    "LavaCross-Levitate-Potion-Inv-Restricted-v0",
    "LavaCross-Levitate-Potion-Pickup-Full-v0",
    "LavaCross-Levitate-Potion-Pickup-Restricted-v0",
    "LavaCross-Levitate-Restricted-v0",
    "LavaCross-Levitate-Ring-Inv-Full-v0",
    "LavaCross-Levitate-Ring-Inv-Restricted-v0",
    "LavaCross-Levitate-Ring-Pickup-Full-v0",
    "LavaCross-Levitate-Ring-Pickup-Restricted-v0",
    "LavaCross-Restricted-v0",
    "Levitate-Boots-Fixed-v0",
    "Levitate-Boots-Full-v0",
    "Levitate-Boots-Restricted-v0",
    "Levitate-Potion-Fixed-v0",
    "Levitate-Potion-Full-v0",
    "Levitate-Potion-Restricted-v0",
    "Levitate-Random-Full-v0",
    "Levitate-Ring-Fixed-v0",
    "Levitate-Ring-Full-v0",
    "Levitate-Ring-Restricted-v0",
    "LockedDoor-Fixed-v0",
    "LockedDoor-v0",
    "MazeWalk-15x15-v0",
    "MazeWalk-45x19-v0",
    "MazeWalk-9x9-v0",
    "MazeWalk-Mapped-15x15-v0",
    "MazeWalk-Mapped-45x19-v0",
    "MazeWalk-Mapped-9x9-v0",
    "Memento-F2-v0",
    "Memento-F4-v0",
    "Memento-Short-F2-v0",
    "Pray-Distr-v0",
    "Pray-Fixed-v0",
    "Pray-v0",
    "PutOn-Distr-v0",
    "PutOn-Fixed-v0",
    "PutOn-v0",
    "Quest-Easy-v0",
    "Quest-Hard-v0",
    "Quest-Medium-v0",
    "Read-Distr-v0",
    "Read-Fixed-v0",
    "Read-v0",
    "River-Lava-v0",
    "River-Monster-v0",
    "River-MonsterLava-v0",
    "River-Narrow-v0",
    "River-v0",
    "Room-15x15-v0",
    "Room-5x5-v0",
    "Room-Dark-15x15-v0",
    "Room-Dark-5x5-v0",
    "Room-Monster-15x15-v0",
    "Room-Monster-5x5-v0",
    "Room-Random-15x15-v0",
    "Room-Random-5x5-v0",
    "Room-Trap-15x15-v0",
    "Room-Trap-5x5-v0",
    "Room-Ultimate-15x15-v0",
    "Room-Ultimate-5x5-v0",
    "Sink-Distr-v0",
    "Sink-Fixed-v0",
    "Sink-v0",
    "Sokoban1a-v1",
    "Sokoban1b-v1",
    "Sokoban2a-v1",
    "Sokoban2b-v1",
    "Sokoban3a-v1",
    "Sokoban3b-v1",
    "Sokoban4a-v1",
    "Sokoban4b-v1",
    "Wear-Distr-v0",
    "Wear-Fixed-v0",
    "Wear-v0",
    "Wield-Distr-v0",
    "Wield-Fixed-v0",
    "Wield-v0",
    "WoD-Easy-Full-v0",
    "WoD-Easy-Restricted-v0",
    "WoD-Hard-Full-v0",
    "WoD-Hard-Restricted-v0",
    "WoD-Medium-Full-v0",
    "WoD-Medium-Restricted-v0",
    "WoD-Pro-Full-v0",
    "WoD-Pro-Restricted-v0",
    "Zap-Distr-v0",
    "Zap-Fixed-v0",
    "Zap-v0",
)

# The goal of each task that has a reward manager, by the start of its task name (the
# longest start that matches wins). A task without one has MiniHack's default goal, the
# staircase down. tests/envs/adapters/test_nethack.py checks each goal against the
# reward manager's events and the staircase against the level's des-file.
MINIHACK_GOALS: dict[str, str] = {
    "Eat": "Eat the apple.",
    "Wield": "Wield the dagger.",
    "Wear": "Wear the robe.",
    "PutOn": "Put on the amulet.",
    "Zap": "Zap the wand.",
    "Read": "Read the scroll.",
    "Pray": "Pray at the altar.",
    "Sink": "Quaff from the sink.",
    "Levitate": "Start levitating, with the item the level holds (boots, potion or ring).",
    "Freeze": "Make a bolt of cold bounce off a wall: zap the wand of cold or apply the "
    "frost horn, whichever the level holds, towards a wall.",
    "WoD-Easy": "Kill the minotaur (a wand of death can do it).",
    "Memento": "Kill the grid bug (+1). Stepping on the squeaky board (its squeak) ends "
    "the episode with -1.",
    "ExploreMaze": "Reach the staircase down (>), which gives +1 and ends the episode; "
    "each apple you eat before gives +0.5.",
}

# Left out, by the start of MiniHack's id: why each group cannot run here.
MINIHACK_LEFT_OUT: dict[str, str] = {
    "Boxoban-": "needs the Boxoban level files, a separate download (minihack's "
    "download_boxoban_levels script)",
    "MultiRoom-": "built on MiniGrid; minihack 1.0.2 calls env.seed(), which minigrid 3 removed",
    "LavaCrossingS": "built on MiniGrid; minihack 1.0.2 calls env.seed(), which minigrid 3 removed",
    "SimpleCrossingS": "built on MiniGrid; minihack 1.0.2 calls env.seed(), which minigrid 3 "
    "removed",
    "Navigation-Custom-": "a template that needs a des_file of the user's",
    "Skill-Custom-": "a template that needs a des_file of the user's",
}


def minihack_task(minihack_id: str) -> str:
    """The task name in turngym's id for one of MiniHack's ids, without prefix or version.

    >>> minihack_task("Sokoban1a-v1"), minihack_task("Room-5x5-v0")
    ('Sokoban1a', 'Room-5x5')
    """
    return minihack_id.rsplit("-v", 1)[0]
