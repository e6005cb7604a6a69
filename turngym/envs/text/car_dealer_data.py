"""Cars, features and their keywords for ``CarDealer-v0`` (written for turngym).

Prices are rough new-car list prices in US dollars (2020s, base trims); the env
jitters them per episode. Feature keywords are what the buyer listens for.
"""

from __future__ import annotations

__all__ = ["CAR_TYPES", "COUNT_NOUNS", "FEATURES", "MODELS", "TYPE_FEATURES"]

CAR_TYPES: tuple[str, ...] = ("sedan", "SUV", "truck", "minivan", "hatchback", "coupe")
"""Body types; every type has several models below."""

MODELS: tuple[tuple[str, str, str, int], ...] = (
    # (make, model, type, base price)
    ("Honda", "Civic", "sedan", 24_000),
    ("Toyota", "Corolla", "sedan", 22_000),
    ("Toyota", "Camry", "sedan", 27_000),
    ("Honda", "Accord", "sedan", 28_000),
    ("Nissan", "Altima", "sedan", 26_000),
    ("Hyundai", "Elantra", "sedan", 21_000),
    ("Toyota", "RAV4", "SUV", 29_000),
    ("Honda", "CR-V", "SUV", 30_000),
    ("Hyundai", "Tucson", "SUV", 28_000),
    ("Subaru", "Forester", "SUV", 28_000),
    ("Ford", "Explorer", "SUV", 37_000),
    ("Toyota", "Highlander", "SUV", 39_000),
    ("Chevrolet", "Tahoe", "SUV", 55_000),
    ("Ford", "F-150", "truck", 36_000),
    ("Chevrolet", "Silverado", "truck", 38_000),
    ("Toyota", "Tacoma", "truck", 31_000),
    ("Toyota", "Tundra", "truck", 40_000),
    ("Honda", "Odyssey", "minivan", 38_000),
    ("Toyota", "Sienna", "minivan", 39_000),
    ("Chrysler", "Pacifica", "minivan", 40_000),
    ("Volkswagen", "Golf", "hatchback", 24_000),
    ("Subaru", "Impreza", "hatchback", 23_000),
    ("Mazda", "Mazda3", "hatchback", 25_000),
    ("Ford", "Mustang", "coupe", 32_000),
    ("Chevrolet", "Camaro", "coupe", 30_000),
    ("Subaru", "BRZ", "coupe", 30_000),
)
"""Every model the dealership can stock; model names are unique."""

FEATURES: dict[str, tuple[str, ...]] = {
    "leather seats": ("leather",),
    "sunroof": ("sunroof", "moonroof", "panoramic roof"),
    "third-row seating": ("third row", "third-row", "3rd row", "seven seats", "7 seats"),
    "all-wheel drive": ("all-wheel", "all wheel", "awd", "4x4", "four-wheel", "four wheel"),
    "heated seats": ("heated seat",),
    "navigation": ("navigation", "gps", "nav system"),
    "backup camera": ("backup camera", "rear camera", "reversing camera", "backup cam"),
    "towing package": ("towing", "tow package", "tow hitch"),
    "hybrid engine": ("hybrid",),
    "premium sound": ("premium sound", "sound system", "speakers", "stereo"),
}
"""Feature -> lower-case keywords that count as mentioning it."""

_COMMON = (
    "leather seats",
    "sunroof",
    "heated seats",
    "navigation",
    "backup camera",
    "premium sound",
)

TYPE_FEATURES: dict[str, tuple[str, ...]] = {
    "sedan": (*_COMMON, "all-wheel drive", "hybrid engine"),
    "SUV": (*_COMMON, "all-wheel drive", "hybrid engine", "third-row seating", "towing package"),
    "truck": (*_COMMON, "all-wheel drive", "hybrid engine", "towing package"),
    "minivan": (*_COMMON, "all-wheel drive", "hybrid engine", "third-row seating"),
    "hatchback": (*_COMMON, "all-wheel drive", "hybrid engine"),
    "coupe": _COMMON,
}
"""The features a car of each body type can have."""

COUNT_NOUNS: frozenset[str] = frozenset(
    {"sunroof", "backup camera", "towing package", "hybrid engine"}
)
"""Features spoken of with "a" ("a sunroof", but "leather seats", "navigation")."""
