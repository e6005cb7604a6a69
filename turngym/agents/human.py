"""``HumanAgent``: a person at the terminal types the actions."""

from __future__ import annotations

import builtins
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
        input_fn: Callable[[str], str] | None = None,
        print_fn: Callable[[str], None] | None = None,
    ) -> None:
        self._input = input_fn
        self._print = print_fn

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """Prompt until the person types something other than ``?``."""
        legal = info.get("legal_actions")
        # Looked up per call so a patched builtins.input (tests, notebooks) is honoured.
        read = self._input or builtins.input
        say = self._print or builtins.print
        while True:
            text = read("your action (? for help) > ")
            if text.strip() != "?":
                return text
            if legal:
                say("legal actions: " + ", ".join(map(str, legal)))
            else:
                say("this env takes free text; type what you want to do")
