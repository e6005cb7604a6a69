"""``ToolUse-v0``: retail customer service with tool calls (tau-bench / MUA-RL style).

The agent is a store's support agent. Each turn it writes ONE tool call as Python
call syntax with literal arguments, e.g. ``get_order(order_id="#W1234")``; the call
is parsed with ``ast`` (never evaluated) and checked against the tool's signature.
The store is a small SQLite database rebuilt from the seed on every reset
(``tool_use_db``). A simulated customer with a hidden goal (cancel an order, swap
an item of a pending order for another variant, return items of a delivered order)
opens with a vague request and answers the agent's ``respond(message=...)`` by
keyword matching. The episode ends when the customer says goodbye, when the agent
calls ``transfer_to_human()``, or after ``max_turns`` (truncation, reward 0). The
reward is 1 when the database then equals the state the goal's intended actions
produce from the initial store, else 0.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.text.tool_use_db import (
    GOAL_KINDS,
    Store,
    ToolError,
    apply_goal,
    build_rows,
    norm_order_id,
    sample_goal,
)
from turngym.pyparse import parse

__all__ = ["TOOLS", "ToolCall", "ToolUseEnv", "parse_tool_call", "rule_based_user"]

# tool name -> ((argument, type), ...), then a one-line description.
TOOLS: dict[str, tuple[tuple[str, str], ...]] = {
    "find_user": (("email", "str"),),
    "find_user_by_name": (("name", "str"), ("zip", "str")),
    "get_user": (("user_id", "str"),),
    "list_orders": (("user_id", "str"),),
    "get_order": (("order_id", "str"),),
    "get_product": (("product_id", "str"),),
    "cancel_order": (("order_id", "str"), ("reason", "str")),
    "modify_order_items": (("order_id", "str"), ("item_id", "str"), ("new_item_id", "str")),
    "return_items": (("order_id", "str"), ("item_ids", "list[str]")),
    "respond": (("message", "str"),),
    "transfer_to_human": (),
}
_TOOL_DOCS: dict[str, str] = {
    "find_user": "the user id registered with an email",
    "find_user_by_name": "the user id of a customer by full name and zip code",
    "get_user": "a user's name, email, zip and order ids",
    "list_orders": "a user's orders with status and items",
    "get_order": "an order's status, payment method and items (item and product ids)",
    "get_product": "a product's variants (item ids) with options, price and stock",
    "cancel_order": "cancel a pending order; reason: 'no longer needed' or 'ordered by mistake'",
    "modify_order_items": "swap an item of a pending order for an in-stock variant of it",
    "return_items": "request the return of items of a delivered order (once per order)",
    "respond": "send a message to the customer; their reply comes back",
    "transfer_to_human": "hand the customer to a human agent (ends the conversation)",
}
_WRITES = frozenset({"cancel_order", "modify_order_items", "return_items"})
_MAX_CALL_CHARS = 8000
_STOP = re.compile(r"###stop###|\bgood-?bye\b|\bbye\b", re.IGNORECASE)
_ORDER_REF = re.compile(r"#?\bw\d{3,}\b", re.IGNORECASE)

UserFn = Callable[[dict, str], str]


def signature(name: str) -> str:
    """The tool's call signature, e.g. ``get_order(order_id: str)``.

    >>> signature("return_items")
    'return_items(order_id: str, item_ids: list[str])'
    """
    return f"{name}({', '.join(f'{arg}: {kind}' for arg, kind in TOOLS[name])})"


@dataclass(frozen=True)
class ToolCall:
    """A parsed tool call: the tool's name and its keyword arguments."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


def _strip_wrapping(text: str) -> str:
    """Drop what models put around a call: a code fence, backticks, a final ``;``."""
    text = text.strip()
    if text.startswith("```"):
        text = text[3:]
        text = text[text.find("\n") + 1 :] if "\n" in text else text
        text = text.removesuffix("```")
    text = text.strip().removesuffix(";").strip().strip("`").strip()
    return text.removesuffix(";").strip()


def _parse_expression(text: str) -> ast.Expression | None:
    try:
        return parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def parse_tool_call(action: str) -> ToolCall | Invalid:
    """Parse one tool call safely: ``ast`` syntax, a known tool, literal arguments only.

    >>> parse_tool_call('get_order(order_id="#W1234")')
    ToolCall(name='get_order', args={'order_id': '#W1234'})
    >>> parse_tool_call('__import__("os")').reason
    "unknown tool '__import__'; the tools are find_user, find_user_by_name, get_user, \
list_orders, get_order, get_product, cancel_order, modify_order_items, return_items, \
respond, transfer_to_human"
    """
    text = _strip_wrapping(action)
    example = 'e.g. get_order(order_id="#W1234") or respond(message="Hello!")'
    if not text:
        return Invalid(f"the action is empty; write one tool call, {example}")
    if len(text) > _MAX_CALL_CHARS:
        return Invalid(f"a tool call is at most {_MAX_CALL_CHARS} characters")
    tree = _parse_expression(text)
    if tree is None and "\n" in text:
        # Models often put raw line breaks inside a quoted message; read them as \n.
        tree = _parse_expression(text.replace("\n", "\\n"))
    if tree is None:
        return Invalid(f"not a tool call; write exactly one call in Python syntax, {example}")
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return Invalid(f"not a tool call; write exactly one call in Python syntax, {example}")
    name = call.func.id.lower()
    if name not in TOOLS:
        return Invalid(f"unknown tool {call.func.id!r}; the tools are {', '.join(TOOLS)}")
    params = TOOLS[name]
    sig = signature(name)
    if len(call.args) > len(params):
        return Invalid(f"{name}() takes {len(params)} argument(s), got {len(call.args)}: {sig}")
    nodes: dict[str, ast.expr] = {}
    for (arg, _), node in zip(params, call.args, strict=False):
        if isinstance(node, ast.Starred):
            return Invalid(f"*args is not allowed; write {sig}")
        nodes[arg] = node
    known = [arg for arg, _ in params]
    for kw in call.keywords:
        if kw.arg is None:
            return Invalid(f"**kwargs is not allowed; write {sig}")
        if kw.arg not in known:
            allowed = ", ".join(known) or "none"
            return Invalid(f"{name}() has no argument {kw.arg!r} (its arguments: {allowed})")
        if kw.arg in nodes:
            return Invalid(f"{name}() got argument {kw.arg!r} twice")
        nodes[kw.arg] = kw.value
    args: dict[str, Any] = {}
    for arg, kind in params:
        if arg not in nodes:
            return Invalid(f"{name}() is missing argument {arg!r}: {sig}")
        try:
            value = ast.literal_eval(nodes[arg])
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return Invalid(f'argument {arg!r} of {name}() must be a literal value, like "text"')
        if kind == "str" and not isinstance(value, str):
            return Invalid(f"argument {arg!r} must be a string, got {type(value).__name__}: {sig}")
        if kind == "list[str]":
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                return Invalid(f'argument {arg!r} must be a list of strings, e.g. ["i1234"]: {sig}')
            value = list(value)
        args[arg] = value
    if name == "respond" and not args["message"].strip():
        return Invalid("the message is empty; say something to the customer")
    return ToolCall(name, args)


# -- the simulated customer --------------------------------------------------------

_CONFIRM: tuple[str, ...] = (
    "confirm", "yes/no", "shall i", "should i", "proceed", "would you like me to",
    "do you want me to",
)  # fmt: skip
_DONE: tuple[str, ...] = (
    "anything else", "all set", "is done", "been done", "completed", "successfully",
    "has been cancel", "has been return", "has been modif", "has been updat",
    "has been changed", "has been swap", "has been submit", "been processed",
)  # fmt: skip
_ASK_EMAIL = ("email", "e-mail", "verify", "identity", "authenticat", "account", "look you up")
_ASK_NAME = ("name", "zip", "postal", "post code")
_ASK_ORDER = ("which order", "order id", "order number", "order #", "what order", "which one")
_ASK_ITEM: tuple[str, ...] = (
    "which item", "which product", "what item", "which variant", "what would you like",
    "what do you want", "option", "color", "size", "which part",
)  # fmt: skip
_ASK_REASON = ("reason", "why")


def _request(goal: dict) -> str:
    """The customer's request in their own words, without ids."""
    if goal["kind"] == "cancel":
        why = (
            "I placed it by mistake"
            if goal["reason"] == "ordered by mistake"
            else "I no longer need it"
        )
        return f"I'd like to cancel an order, {why}."
    if goal["kind"] == "modify":
        return (
            f"I'd like to change the {goal['product']} in an order that hasn't shipped yet: "
            f"from {goal['old_options']} to {goal['new_options']}."
        )
    return "I'd like to return something from an order that was delivered."


def rule_based_user(goal: dict, message: str, *, helped: bool = False) -> str:
    """The default customer: answers the agent's ``message`` by keyword matching.

    ``message`` is empty for the opening line; ``helped`` tells whether the agent has
    changed the store, so that a "done, anything else?" gets a goodbye.

    >>> goal = {"kind": "cancel", "reason": "no longer needed", "order_id": "#W1234",
    ...         "knows_email": True, "email": "a@b.com", "knows_order_id": True}
    >>> rule_based_user(goal, "")
    "Hi! I'd like to cancel an order, I no longer need it."
    >>> rule_based_user(goal, "Could you give me your email and the order id?")
    'My email is a@b.com. It is order #W1234.'
    """
    m = " ".join(message.lower().split())
    if not m:
        return f"Hi! {_request(goal)}"
    if any(k in m for k in _CONFIRM):
        mentioned = {norm_order_id(x) for x in _ORDER_REF.findall(m)}
        if mentioned and goal["order_id"] not in mentioned:
            return f"No, that's not the order I mean. {_which_order(goal)}"
        return "Yes, please go ahead."
    if any(k in m for k in _DONE):
        if helped:
            return "That's all I needed, thank you! Goodbye."
        return f"Hmm, it doesn't look like that has been done yet. {_request(goal)}"
    parts = []
    if any(k in m for k in _ASK_EMAIL):
        if goal["knows_email"]:
            parts.append(f"My email is {goal['email']}.")
        else:
            parts.append(
                f"I don't remember which email I used, but my name is {goal['name']} "
                f"and my zip code is {goal['zip']}."
            )
    elif any(k in m for k in _ASK_NAME):
        parts.append(f"My name is {goal['name']} and my zip code is {goal['zip']}.")
    if any(k in m for k in _ASK_ORDER):
        parts.append(_which_order(goal))
    if any(k in m for k in _ASK_ITEM):
        parts.append(_which_items(goal))
    if any(k in m for k in _ASK_REASON) and goal["kind"] == "cancel":
        parts.append(f"The reason is: {goal['reason']}.")
    return " ".join(parts) if parts else f"Could you help me? {_request(goal)}"


def _which_order(goal: dict) -> str:
    if goal["knows_order_id"]:
        return f"It is order {goal['order_id']}."
    return f"I don't have the order number, but it's {goal['order_hint']}."


def _which_items(goal: dict) -> str:
    if goal["kind"] == "modify":
        return (
            f"I want the {goal['product']} ({goal['old_options']}) changed to the one with "
            f"{goal['new_options']}."
        )
    if goal["kind"] == "return":
        return f"I want to return {' and '.join(goal['items'])}."
    return "I want to cancel the whole order."


# -- the env -----------------------------------------------------------------------

_POLICY = (
    "You are a customer-service agent of an online store. Help the customer with their "
    "request using the tools below. Each turn, write exactly ONE tool call in Python "
    'syntax with literal arguments, e.g. get_order(order_id="#W1234"). Talk to the '
    "customer only through respond(message=...); their reply comes back. Rules: first "
    "identify the customer (find_user by email, or find_user_by_name by full name and "
    "zip code); only pending orders can be cancelled or have an item swapped (for an "
    "in-stock variant of the same product); only delivered orders can be returned, with "
    "all items to return in one call; confirm the details with the customer before any "
    "change; when the request is done, tell the customer and ask if there is anything "
    "else. Call transfer_to_human() if you cannot help."
)


class ToolUseEnv(TextEnv[ToolCall]):
    """Serve a simulated retail customer by calling store tools.

    Args:
        max_turns: turns before the conversation is cut off (truncation, reward 0).
        user: replaces the rule-based customer: ``user(goal, message) -> reply``, with
            the hidden goal dict (its ``instruction`` says what the customer wants) and
            the agent's message (empty for the opening line). A reply containing
            "goodbye", "bye" or ``###STOP###`` ends the conversation.
        n_users: customers in the store (2..20).
        n_products: products in the store (2..12), each with 3-4 variants.
        kinds: the request kinds to draw from (``cancel``, ``modify``, ``return``).
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> env = ToolUseEnv()
        >>> obs, info = env.reset(seed=0)
        >>> obs.splitlines()[-1]
        "Customer: Hi! I'd like to cancel an order, I placed it by mistake."
        >>> obs, *_ = env.step('respond(message="Sure! What is your email?")')
        >>> obs
        'Customer: My email is daniel.martin25@example.com.'
        >>> obs, *_ = env.step('find_user(email="daniel.martin25@example.com")')
        >>> obs
        'find_user -> u9'

    """

    def __init__(
        self,
        max_turns: int = 30,
        user: UserFn | None = None,
        n_users: int = 12,
        n_products: int = 8,
        kinds: Sequence[str] = GOAL_KINDS,
        **kwargs: Any,
    ) -> None:
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be an int >= 1, got {max_turns!r}")
        if user is not None and not callable(user):
            raise ValueError(
                f"user must be None or a callable (goal, message) -> reply, got {user!r}"
            )
        for arg, value, hi in (("n_users", n_users, 20), ("n_products", n_products, 12)):
            if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= hi:
                raise ValueError(f"{arg} must be an int in [2, {hi}], got {value!r}")
        if isinstance(kinds, str) or not kinds or any(k not in GOAL_KINDS for k in kinds):
            raise ValueError(
                f"kinds must be a non-empty list drawn from {GOAL_KINDS}, got {kinds!r}"
            )
        super().__init__(**kwargs)
        self.max_turns = max_turns
        self.user = user
        self.n_users = n_users
        self.n_products = n_products
        self.kinds = tuple(kinds)
        self.goal: dict[str, Any] = {}
        self.store: Store | None = None
        self._expected: dict[str, list[tuple[Any, ...]]] = {}
        self._helped = False
        self._log: list[str] = []
        self.instruction = (
            _POLICY
            + "\nTools:\n"
            + "\n".join(f"  {signature(t)}: {doc}" for t, doc in _TOOL_DOCS.items())
        )

    @property
    def tools(self) -> list[str]:
        """The tool signatures."""
        return [signature(t) for t in TOOLS]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start a conversation; ``options={"kind": "return"}`` picks the request kind."""
        obs, info = super().reset(seed=seed, options=options)
        info["tools"] = self.tools
        return obs, info

    def _reset(self, options: dict[str, Any]) -> str:
        unknown = set(options) - {"kind"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; the only one is 'kind'")
        kind = options.get("kind")
        if kind is not None and kind not in GOAL_KINDS:
            raise ValueError(f"reset option kind must be one of {GOAL_KINDS}, got {kind!r}")
        rng = self.np_random
        rows = build_rows(rng, self.n_users, self.n_products)
        kind = kind or self.kinds[int(rng.integers(len(self.kinds)))]
        self.goal = sample_goal(rng, rows, kind)
        if self.store is not None:
            self.store.close()
        self.store = Store(rows)
        expected = Store(rows)
        apply_goal(expected, self.goal)
        self._expected = expected.snapshot()
        expected.close()
        self._helped = False
        opening = self._reply("")
        self._log = [f"Customer: {opening}"]
        return f"{self.instruction}\n\nCustomer: {opening}"

    def _reply(self, message: str) -> str:
        if self.user is not None:
            return str(self.user(dict(self.goal), message))
        return rule_based_user(self.goal, message, helped=self._helped)

    def _parse(self, action: str) -> ToolCall | Invalid:
        return parse_tool_call(action)

    def solved(self) -> bool:
        """Whether the store now equals the goal's expected final state."""
        assert self.store is not None
        return self.store.snapshot() == self._expected

    def _end(self, obs: str) -> Outcome:
        ok = self.solved()
        info = {"user_goal": self.goal["instruction"], "reward_parts": {"outcome": float(ok)}}
        return Outcome(obs, float(ok), terminated=True, success=ok, info=info)

    def _apply(self, action: ToolCall) -> Outcome:
        assert self.store is not None
        self._log.append(
            f"Agent: {action.name}({', '.join(f'{k}={v!r}' for k, v in action.args.items())})"
        )
        if action.name == "transfer_to_human":
            self._log.append("(transferred to a human agent)")
            return self._end("Transferred to a human agent. The conversation is over.")
        if action.name == "respond":
            reply = self._reply(action.args["message"])
            self._log.append(f"Customer: {reply}")
            if _STOP.search(reply):
                return self._end(f"Customer: {reply}\nThe conversation is over.")
            return Outcome(f"Customer: {reply}")
        try:
            result = getattr(self.store, action.name)(**action.args)
            self._helped = self._helped or action.name in _WRITES
        except ToolError as error:
            result = f"Error: {error}"
        self._log.append(f"{action.name} -> {result}")
        return Outcome(f"{action.name} -> {result}")

    def _turn_limit_reached(self) -> tuple[str, dict[str, Any]]:
        return (
            f"Out of turns ({self.max_turns}); the conversation ends unresolved.",
            {"user_goal": self.goal["instruction"]},
        )

    def close(self) -> None:
        """Free the store's database."""
        if self.store is not None:
            self.store.close()
            self.store = None
        super().close()

    def _render(self) -> str:
        g = self.goal
        head = (
            f"ToolUse: {g['name']} ({g['user_id']}) wants to {g['kind']} order {g['order_id']}; "
            f"turn {self._turn}/{self.max_turns}; solved so far: {self.solved()}"
        )
        return "\n".join([head, *(line[:200] for line in self._log[-6:])])
