"""``HumanAgent``: a person at the terminal types the actions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from turngym.agents.base import BaseAgent

__all__ = ["HumanAgent"]


class HumanAgent(BaseAgent):
    """Reads each action from ``input`` (the terminal by default).

    Typing ``?`` lists the legal actions when the env gives them. End of input
    (Ctrl-D) raises ``EOFError`` so the caller can stop cleanly.
    """

    def __init__(
        self,
        env: Any = None,
        input_fn: Callable[[str], str] = input,
        print_fn: Callable[[str], None] = print,
    ) -> None:
        self._input = input_fn
        self._print = print_fn

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """Prompt until the person types something other than ``?``."""
        legal = info.get("legal_actions")
        while True:
            text = self._input("your action (? for help) > ")
            if text.strip() != "?":
                return text
            if legal:
                self._print("legal actions: " + ", ".join(map(str, legal)))
            else:
                self._print("this env takes free text; type what you want to do")
