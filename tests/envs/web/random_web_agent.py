"""A random web agent for baselines in tests: random clicks, fills, selects, back and scrolls.

turngym's ``RandomAgent`` sends random text to envs without ``legal_actions``, which a
web env turns down as invalid; this one plays well-formed actions on the ids the page
shows, so "random success is near 0" says something about the task, not the parser.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

_ID = re.compile(r"^\s*\[(\d+)\] (\S+)", re.M)
_TEXT = re.compile(r"^\s*StaticText '(.*)'$", re.M)
_WORDS = ("red", "shoes", "black", "size", "cheap", "organic", "buy", "hello", "9", "blue")


class RandomWebAgent:
    """Uniform over action kinds, then over the page's elements of a fitting role."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        text = obs["text"] if isinstance(obs, dict) else obs
        elements = [(int(i), role) for i, role in _ID.findall(text)]
        fields = [i for i, r in elements if r in ("textbox", "searchbox")]
        boxes = [i for i, r in elements if r == "combobox"]
        kind = self.rng.choice(
            ["click"] * 6 + ["fill", "select", "back", "scroll", "enter", "answer"]
        )
        if kind == "answer":  # a text from the page, or "done"
            texts = [*_TEXT.findall(text), "done"]
            return f"answer({json.dumps(texts[int(self.rng.integers(len(texts)))][:80])})"
        if kind == "fill" and fields:
            words = " ".join(self.rng.choice(_WORDS, size=2))
            return f'fill({self.rng.choice(fields)}, "{words}")'
        if kind == "select" and boxes:
            return f'select({self.rng.choice(boxes)}, "{self.rng.choice(_WORDS)}")'
        if kind == "back":
            return "back()"
        if kind == "scroll":
            return "scroll(0, 400)"
        if kind == "enter":
            return 'press("Enter")'
        if elements:
            return f"click({elements[int(self.rng.integers(len(elements)))][0]})"
        return "noop()"
