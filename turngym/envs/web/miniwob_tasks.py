"""The names of the MiniWoB++ tasks turngym registers (data only: the registry reads it).

Every task of the ``miniwob`` package's ``html/miniwob`` folder that turngym's action set
can finish: the drag-and-drop, drawing, slider, colour-wheel and drag-to-select tasks are
left out (``drag-*``, ``draw-*``, ``use-slider*``, ``use-colorwheel*``,
``highlight-text*``, ``resize-textarea``), and so are those that time the mouse's
hovering or chase a moving target (``chase-circle``, ``moving-items``, ``hot-cold``,
``hover-shape``), those that run on the wall clock, which a turn-based agent cannot
keep (``button-delay`` times the gap between two clicks, ``simon-says`` blinks its
sequence for 250 ms, ``stock-market`` ticks every 100 ms), and ``click-pie(-nodelay)``,
whose first wheel item never takes a press in headless Chromium (its hover effect
redraws it under the pointer). Geometry tasks answered by clicking points
(``bisect-angle``, ``circle-center``, ``find-midpoint``, ``right-angle``) stay, for
``mouse_click``; their reward is graded by distance, so a click at whole pixels earns a
little under 1, and ``MINIWOB_GRADED`` says from which reward on they count as solved.
"""

from __future__ import annotations

__all__ = [
    "MINIWOB_GRADED",
    "MINIWOB_ORACLES",
    "MINIWOB_STOCHASTIC",
    "MINIWOB_TASKS",
    "MINIWOB_TEST_SPLIT",
    "MINIWOB_TURNS",
]

MINIWOB_TASKS: tuple[str, ...] = (
    "ascending-numbers", "bisect-angle", "circle-center", "find-midpoint", "right-angle",
    "book-flight", "book-flight-nodelay", "buy-ticket", "choose-date", "choose-date-easy",
    "choose-date-medium", "choose-date-nodelay", "choose-list", "click-button",
    "click-button-sequence", "click-checkboxes", "click-checkboxes-large",
    "click-checkboxes-soft", "click-checkboxes-transfer", "click-collapsible",
    "click-collapsible-2", "click-collapsible-2-nodelay", "click-collapsible-nodelay",
    "click-color", "click-dialog", "click-dialog-2", "click-link", "click-menu",
    "click-menu-2", "click-option", "click-scroll-list", "click-shades", "click-shape",
    "click-tab", "click-tab-2", "click-tab-2-easy", "click-tab-2-hard",
    "click-tab-2-medium", "click-test", "click-test-2", "click-test-transfer",
    "click-widget", "copy-paste", "copy-paste-2", "count-shape", "count-sides",
    "daily-calendar", "email-inbox", "email-inbox-delete", "email-inbox-forward",
    "email-inbox-forward-nl", "email-inbox-forward-nl-turk", "email-inbox-important",
    "email-inbox-nl-turk", "email-inbox-noscroll", "email-inbox-reply",
    "email-inbox-star-reply", "enter-date", "enter-password", "enter-text", "enter-text-2",
    "enter-text-dynamic", "enter-time", "find-greatest", "find-word", "focus-text",
    "focus-text-2", "form-sequence", "form-sequence-2", "form-sequence-3",
    "generate-number", "grid-coordinate", "guess-number", "identify-shape", "login-user",
    "login-user-popup", "multi-layouts", "multi-orderings", "navigate-tree",
    "number-checkboxes", "odd-or-even", "order-food", "phone-book", "read-table",
    "read-table-2", "scroll-text", "scroll-text-2", "search-engine", "sign-agreement",
    "simple-algebra", "simple-arithmetic", "social-media", "social-media-all",
    "social-media-some", "terminal", "text-editor", "text-transform", "tic-tac-toe",
    "unicode-test", "use-autocomplete", "use-autocomplete-nodelay", "use-spinner",
    "visual-addition",
)  # fmt: skip
"""The registered tasks (``turngym/miniwob.<task>-v0``)."""

MINIWOB_ORACLES: frozenset[str] = frozenset(
    {
        "ascending-numbers",
        "bisect-angle",
        "book-flight",
        "book-flight-nodelay",
        "buy-ticket",
        "choose-date",
        "choose-date-easy",
        "choose-date-medium",
        "choose-date-nodelay",
        "choose-list",
        "circle-center",
        "click-button",
        "click-button-sequence",
        "click-checkboxes",
        "click-checkboxes-large",
        "click-checkboxes-soft",
        "click-checkboxes-transfer",
        "click-collapsible",
        "click-collapsible-2",
        "click-collapsible-2-nodelay",
        "click-collapsible-nodelay",
        "click-color",
        "click-dialog",
        "click-dialog-2",
        "click-link",
        "click-menu",
        "click-menu-2",
        "click-option",
        "click-scroll-list",
        "click-shades",
        "click-shape",
        "click-tab",
        "click-tab-2",
        "click-tab-2-easy",
        "click-tab-2-hard",
        "click-tab-2-medium",
        "click-test",
        "click-test-2",
        "click-test-transfer",
        "click-widget",
        "copy-paste",
        "copy-paste-2",
        "count-shape",
        "count-sides",
        "daily-calendar",
        "email-inbox",
        "email-inbox-delete",
        "email-inbox-forward",
        "email-inbox-forward-nl",
        "email-inbox-forward-nl-turk",
        "email-inbox-important",
        "email-inbox-nl-turk",
        "email-inbox-noscroll",
        "email-inbox-reply",
        "email-inbox-star-reply",
        "enter-date",
        "enter-password",
        "enter-text",
        "enter-text-2",
        "enter-text-dynamic",
        "enter-time",
        "find-greatest",
        "find-midpoint",
        "find-word",
        "focus-text",
        "focus-text-2",
        "form-sequence",
        "form-sequence-2",
        "form-sequence-3",
        "generate-number",
        "grid-coordinate",
        "guess-number",
        "identify-shape",
        "login-user",
        "login-user-popup",
        "multi-layouts",
        "multi-orderings",
        "navigate-tree",
        "number-checkboxes",
        "odd-or-even",
        "order-food",
        "phone-book",
        "read-table",
        "read-table-2",
        "right-angle",
        "scroll-text",
        "scroll-text-2",
        "search-engine",
        "sign-agreement",
        "simple-algebra",
        "simple-arithmetic",
        "social-media",
        "social-media-all",
        "social-media-some",
        "terminal",
        "text-editor",
        "text-transform",
        "tic-tac-toe",
        "unicode-test",
        "use-autocomplete",
        "use-autocomplete-nodelay",
        "use-spinner",
        "visual-addition",
    }
)
"""The tasks ``agents.experts.miniwob.MiniWoBOracle`` solves (their registry rows name it)."""

MINIWOB_TURNS: dict[str, int] = {"terminal": 40}
"""Tasks that need more than the default 20 turns: the terminal reads one key a turn."""

MINIWOB_STOCHASTIC: frozenset[str] = frozenset({"tic-tac-toe"})
"""Tasks where chance decides: tic-tac-toe's opponent plays a random cell half the time,
so no strategy always wins (the oracle's success is below 1 there)."""

MINIWOB_GRADED: dict[str, float] = {
    "bisect-angle": 0.9,
    "circle-center": 0.9,
    "find-midpoint": 0.9,
    "right-angle": 0.98,
}
"""Tasks that grade a click by its distance (or angle) from the exact point, and the
least raw reward that counts as solved (``info["success"]``): the exact point is seldom
a whole pixel, so the full 1.0 is out of reach, but a whole pixel near it earns more
than this. 0.9 is within 3 px of find-midpoint's point, a tenth of circle-center's
radius, a twentieth of bisect-angle's angle off its bisector; right-angle, whose 0.9
would allow 9 degrees (a random click earns that about one time in four), asks 0.98,
within 1.8 degrees. Every other task's success is its full raw reward, 1."""

MINIWOB_TEST_SPLIT: frozenset[str] = frozenset(
    {
        "click-checkboxes-transfer",
        "click-test-transfer",
        "email-inbox-forward-nl",
        "email-inbox-forward-nl-turk",
        "email-inbox-nl-turk",
    }
)
"""Tasks whose problems differ under ``data_mode="test"`` (the others ignore it): the
transfer tasks ask for other buttons or more boxes, the natural-language ones draw their
sentence from held-out templates."""
