"""The furniture and objects of ``TextNav-v0`` houses (written for turngym).

Each room type lists its receptacles as ``(name, preposition, can_close)``:
``"in"`` receptacles are containers, ``"on"`` ones are surfaces; a container that
can close may start closed, hiding what is inside. Receptacle names are unique
across all rooms, so an action names one without saying the room.
"""

from __future__ import annotations

__all__ = ["OBJECTS", "ROOMS"]

ROOMS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "kitchen": (("fridge", "in", True), ("counter", "on", False), ("cupboard", "in", True)),
    "living room": (
        ("sofa", "on", False),
        ("coffee table", "on", False),
        ("bookshelf", "on", False),
    ),
    "bedroom": (("bed", "on", False), ("wardrobe", "in", True), ("nightstand", "on", False)),
    "bathroom": (("sink", "on", False), ("medicine cabinet", "in", True), ("bathtub", "in", False)),
    "hallway": (("shoe rack", "on", False), ("coat closet", "in", True)),
    "garden": (("garden bench", "on", False), ("shed", "in", True)),
    "dining room": (("dining table", "on", False), ("sideboard", "in", True)),
    "study": (("desk", "on", False), ("filing cabinet", "in", True)),
    "garage": (("workbench", "on", False), ("toolbox", "in", True)),
    "laundry room": (("washing machine", "in", True), ("laundry basket", "in", False)),
}
"""Room type -> its receptacles ``(name, "in" | "on", can_close)``."""

OBJECTS: tuple[str, ...] = (
    "apple",
    "banana",
    "key",
    "book",
    "mug",
    "towel",
    "phone",
    "remote",
    "pillow",
    "soap",
    "hammer",
    "plate",
    "candle",
    "sock",
    "wallet",
    "scarf",
    "umbrella",
    "notebook",
    "flashlight",
    "teddy bear",
)
"""Objects that can be placed in a house (singular nouns, no receptacle names)."""
