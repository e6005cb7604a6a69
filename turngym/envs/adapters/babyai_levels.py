"""The names of minigrid's BabyAI levels, as static data (this module imports nothing).

``turngym.registry`` reads ``LEVELS`` to register ``turngym/babyai.<Level>-v0`` without
importing minigrid. Every level the installed minigrid registers (``BabyAI-<Level>-v<N>``)
is either in ``LEVELS`` or in ``LEFT_OUT`` with the reason; ``tests/envs/adapters/
test_babyai.py`` checks that.
"""

from __future__ import annotations

__all__ = ["LEFT_OUT", "LEVELS", "minigrid_id"]

LEVELS: tuple[tuple[str, int, int], ...] = (
    # (level, minigrid's version of it, the largest native max_steps over seeds 0-4):
    # the registry's TimeLimit is twice that number, a backstop that also counts invalid
    # turns; minigrid's own limit (per episode, it grows with a mission's length) ends
    # a valid episode first.
    ("GoToRedBallGrey", 0, 64),
    ("GoToRedBall", 0, 64),
    ("GoToRedBallNoDists", 0, 64),
    ("GoToObj", 0, 64),
    ("GoToObjS4", 0, 16),
    ("GoToObjS6", 1, 36),
    ("GoToLocal", 0, 64),
    ("GoToLocalS5N2", 0, 25),
    ("GoToLocalS6N2", 0, 36),
    ("GoToLocalS6N3", 0, 36),
    ("GoToLocalS6N4", 0, 36),
    ("GoToLocalS7N4", 0, 49),
    ("GoToLocalS7N5", 0, 49),
    ("GoToLocalS8N2", 0, 64),
    ("GoToLocalS8N3", 0, 64),
    ("GoToLocalS8N4", 0, 64),
    ("GoToLocalS8N5", 0, 64),
    ("GoToLocalS8N6", 0, 64),
    ("GoToLocalS8N7", 0, 64),
    ("GoTo", 0, 576),
    ("GoToOpen", 0, 576),
    ("GoToObjMaze", 0, 576),
    ("GoToObjMazeOpen", 0, 576),
    ("GoToObjMazeS4R2", 0, 64),
    ("GoToObjMazeS4", 0, 144),
    ("GoToObjMazeS5", 0, 225),
    ("GoToObjMazeS6", 0, 324),
    ("GoToObjMazeS7", 0, 441),
    ("GoToImpUnlock", 0, 576),
    ("GoToSeq", 0, 2304),
    ("GoToSeqS5R2", 0, 400),
    ("GoToRedBlueBall", 0, 64),
    ("GoToDoor", 0, 441),
    ("GoToObjDoor", 0, 576),
    ("Open", 0, 576),
    ("OpenRedDoor", 0, 50),
    ("OpenDoor", 0, 576),
    ("OpenDoorDebug", 0, 576),
    ("OpenDoorColor", 0, 576),
    ("OpenDoorLoc", 0, 576),
    ("OpenTwoDoors", 0, 720),
    ("OpenRedBlueDoors", 0, 720),
    ("OpenRedBlueDoorsDebug", 0, 720),
    ("OpenDoorsOrderN2", 0, 720),
    ("OpenDoorsOrderN4", 0, 720),
    ("Pickup", 0, 576),
    ("UnblockPickup", 0, 576),
    ("PickupLoc", 0, 64),
    ("PickupDist", 0, 49),
    ("PickupDistDebug", 0, 49),
    ("PickupAbove", 0, 288),
    ("PutNextLocal", 0, 128),
    ("PutNextLocalS5N3", 0, 50),
    ("PutNextLocalS6N4", 0, 72),
    ("PutNextS4N1", 0, 128),
    ("PutNextS5N2", 0, 200),
    ("PutNextS5N1", 0, 200),
    ("PutNextS6N3", 0, 288),
    ("PutNextS7N4", 0, 392),
    ("PutNextS5N2Carrying", 0, 200),
    ("PutNextS6N3Carrying", 0, 288),
    ("PutNextS7N4Carrying", 0, 392),
    ("Unlock", 0, 576),
    ("UnlockLocal", 0, 576),
    ("UnlockLocalDist", 0, 576),
    ("KeyInBox", 0, 576),
    ("UnlockPickup", 0, 72),
    ("UnlockPickupDist", 0, 72),
    ("BlockedUnlockPickup", 0, 576),
    ("UnlockToUnlock", 0, 1080),
    ("ActionObjDoor", 0, 441),
    ("FindObjS5", 0, 500),
    ("FindObjS6", 0, 720),
    ("FindObjS7", 0, 980),
    ("KeyCorridor", 0, 1080),
    ("KeyCorridorS3R1", 0, 270),
    ("KeyCorridorS3R2", 0, 270),
    ("KeyCorridorS3R3", 0, 270),
    ("KeyCorridorS4R3", 0, 480),
    ("KeyCorridorS5R3", 0, 750),
    ("KeyCorridorS6R3", 0, 1080),
    ("OneRoomS8", 0, 64),
    ("OneRoomS12", 0, 144),
    ("OneRoomS16", 0, 256),
    ("OneRoomS20", 0, 400),
    ("MoveTwoAcrossS5N2", 0, 400),
    ("MoveTwoAcrossS8N9", 0, 1024),
    ("Synth", 0, 1152),
    ("SynthS5R2", 0, 300),
    ("SynthLoc", 0, 1152),
    ("SynthSeq", 0, 2880),
    ("MiniBossLevel", 0, 600),
    ("BossLevel", 0, 2880),
    ("BossLevelNoUnlock", 0, 2880),
)
"""Every BabyAI level minigrid 3.2 registers but those in ``LEFT_OUT``, in its order."""


_UNWINNABLE = (
    "unwinnable on most seeds in minigrid: its strict BeforeInstr/AfterInstr checks the "
    "toggle that opens the first named door against the second door's OpenInstr too, "
    "which fails the episode, so right play loses every two-door mission"
)

LEFT_OUT: dict[str, str] = {
    # minigrid 3.2 registers both as -v0; only their one-door missions (29 and 33 of
    # seeds 0-99) can be won, so an agent would learn that opening doors loses.
    "OpenDoorsOrderN2Debug": _UNWINNABLE,
    "OpenDoorsOrderN4Debug": _UNWINNABLE,
}
"""minigrid's BabyAI levels not registered, and why (each is ``BabyAI-<Level>-v0``)."""


def minigrid_id(level: str, version: int) -> str:
    """The id minigrid registers a level under.

    >>> minigrid_id("GoToRedBall", 0)
    'BabyAI-GoToRedBall-v0'
    """
    return f"BabyAI-{level}-v{version}"
