"""The scripted expert of ``ToolUse-v0``: a by-the-book support agent that knows the goal.

It plays the realistic sequence (ask who the customer is, look them up, list their
orders, ask which order, read it, read the product for a swap, confirm, act, close),
taking the ids from the env's hidden goal instead of from the customer's replies.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.tool_use import ToolUseEnv

__all__ = ["ToolUseExpert"]


def _call(tool: str, /, **args: Any) -> str:
    return f"{tool}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


class ToolUseExpert(BaseAgent):
    """Serves the customer's request in about ten turns (privileged: reads the goal).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/ToolUse-v0")
        >>> expert = ToolUseExpert(env)
        >>> obs, info = env.reset(seed=0)
        >>> expert.act(obs, info)[:34]
        "respond(message='Hello! I can help"

    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, ToolUseEnv, "ToolUseExpert")
        self._env = inner
        self._plan: list[str] = []

    def plan(self) -> list[str]:
        """The whole episode's tool calls for the current goal."""
        g = self._env.goal
        if g["knows_email"]:
            lookup = _call("find_user", email=g["email"])
        else:
            lookup = _call("find_user_by_name", name=g["name"], zip=g["zip"])
        steps = [
            _call(
                "respond",
                message="Hello! I can help with that. To verify your identity, could you "
                "please share your email address, or your full name and zip code?",
            ),
            lookup,
            _call("list_orders", user_id=g["user_id"]),
            _call(
                "respond",
                message="Thanks! Which order is this about? Please share the order id "
                "or describe it.",
            ),
            _call("get_order", order_id=g["order_id"]),
        ]
        oid = g["order_id"]
        if g["kind"] == "cancel":
            what = f"cancel order {oid} (reason: {g['reason']})"
            act = _call("cancel_order", order_id=oid, reason=g["reason"])
        elif g["kind"] == "modify":
            steps.append(_call("get_product", product_id=g["product_id"]))
            what = (
                f"in order {oid}, swap the {g['product']} ({g['old_options']}, item "
                f"{g['item_id']}) for the one with {g['new_options']} (item {g['new_item_id']})"
            )
            act = _call(
                "modify_order_items",
                order_id=oid,
                item_id=g["item_id"],
                new_item_id=g["new_item_id"],
            )
        else:
            what = f"request a return of {', '.join(g['item_ids'])} from order {oid}"
            act = _call("return_items", order_id=oid, item_ids=list(g["item_ids"]))
        steps += [
            _call("respond", message=f"To confirm: I will {what}. Do you confirm (yes/no)?"),
            act,
            _call("respond", message="All set: it's done. Is there anything else I can help with?"),
        ]
        return steps

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next call of the plan (made afresh at the episode's first turn)."""
        turn = int(info.get("turn", 0))
        if turn == 0 or not self._plan:
            self._plan = self.plan()
        if turn < len(self._plan):
            return self._plan[turn]
        return "transfer_to_human()"
