"""``SearchQA-v0``: answer a multi-hop question with search and open tools (Search-R1 style).

The knowledge base is the generated encyclopedia of ``search_corpus`` (fictional
people, cities, companies, ...), so the answer cannot come from memory: the agent must
search it with BM25, open documents and follow facts across 2 or 3 of them. Tools are
action strings: ``search[query]``, ``open[doc id or title]`` and ``answer[text]``; the
tool name is case-blind, ``search(query)`` and ``<search>query</search>`` work too, and a
leading ``<think>...</think>`` block is skipped.
"""

from __future__ import annotations

import re
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, preview
from turngym.envs.text.search_corpus import (
    Corpus,
    Document,
    Question,
    load_corpus,
    make_question,
    normalize_answer,
)

__all__ = ["TOOLS", "SearchQAEnv", "ToolCall", "parse_tool_call"]

TOOLS = ("search", "open", "answer")
TOOL_SYNTAX = (
    "search[query] (find documents), open[doc id or title] (read one), "
    "answer[text] (final answer, ends the episode)"
)
MAX_ARGUMENT = 500
"""Longest accepted tool argument, in characters."""
SNIPPET = 100
"""Characters of a document shown in a search result."""

_NAMES = "|".join(TOOLS)
_CALL_PATTERNS = (
    re.compile(rf"({_NAMES})\s*\[(.*)\]", re.IGNORECASE | re.DOTALL),
    re.compile(rf"({_NAMES})\s*\((.*)\)", re.IGNORECASE | re.DOTALL),
    re.compile(rf"<\s*({_NAMES})\s*>(.*)<\s*/\s*\1\s*>", re.IGNORECASE | re.DOTALL),
)
_THINK = re.compile(r"^\s*<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_NAMED = re.compile(rf"\s*<?\s*({_NAMES})\b", re.IGNORECASE)

ToolCall = tuple[str, str]
"""``(tool, argument)``, the tool in lower case, the argument stripped."""


def parse_tool_call(text: str) -> ToolCall | Invalid:
    """Read one tool call from ``text``, or say what is wrong with it.

    >>> parse_tool_call("  Search[ Tarnwick port ] ")
    ('search', 'Tarnwick port')
    >>> parse_tool_call("<think>Find the founder.</think> <answer>Ostrava</answer>")
    ('answer', 'Ostrava')
    >>> parse_tool_call("open[]")
    Invalid(reason='open[...] needs an argument, e.g. open[d0042] or open[Velora Quince]')
    """
    # Search-R1 style models reason first: "<think>...</think><search>q</search>".
    stripped = _THINK.sub("", text, count=1).strip()
    if not stripped:
        return Invalid(f"the action is empty; use one tool: {TOOL_SYNTAX}")
    for pattern in _CALL_PATTERNS:
        match = pattern.fullmatch(stripped)
        if match is None:
            continue
        tool, arg = match.group(1).lower(), " ".join(match.group(2).split())
        if not arg:
            example = {"search": "search[Tarnwick]", "open": "open[d0042] or open[Velora Quince]"}
            return Invalid(
                f"{tool}[...] needs an argument, e.g. {example.get(tool, 'answer[Ostrava]')}"
            )
        if len(arg) > MAX_ARGUMENT:
            return Invalid(f"the {tool} argument is longer than {MAX_ARGUMENT} characters")
        return tool, arg
    named = _NAMED.match(stripped)
    if named is not None:
        tool = named.group(1).lower()
        return Invalid(f"malformed {tool} call {preview(stripped)}; write it as {tool}[...]")
    return Invalid(f"not a tool call: {preview(stripped)}; reply with one of {TOOL_SYNTAX}")


class SearchQAEnv(TextEnv[ToolCall]):
    """Answer a 2- or 3-hop question about fictional entities by searching a corpus.

    Each turn is one tool call. ``search[query]`` lists the ``top_k`` best BM25 matches
    (id, title, snippet); ``open[d0042]`` or ``open[Title]`` shows a whole document;
    ``answer[text]`` ends the episode with reward 1 if the text matches the answer
    after normalisation (case, punctuation and articles ignored), else 0. After
    ``max_turns`` turns (invalid ones count) without an answer the episode is truncated.
    ``env.question`` holds the drawn question with its solution chain (privileged).

    Args:
        hops: relations between the question's entity and the answer, 2 or 3.
        max_turns: turns per episode (>= 1). ``gym.make`` also applies the registered
            limit of 10 steps: to raise it, pass ``max_episode_steps`` as well.
        top_k: search results shown, 1 to 20.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> env = SearchQAEnv()
        >>> obs, info = env.reset(seed=0)
        >>> obs.splitlines()[-1] == "Question: " + env.question.text
        True
        >>> obs, reward, terminated, truncated, info = env.step("search[Tarnwick]")
        >>> info["tool"], terminated
        ('search', False)
        >>> env.step(f"answer[{env.question.answer.upper()}]")[1:3]
        (1.0, True)

    """

    max_turns: int  # always set here (narrows TextEnv's ``int | None``)

    def __init__(self, hops: int = 2, max_turns: int = 10, top_k: int = 5, **kwargs: Any) -> None:
        if isinstance(hops, bool) or hops not in (2, 3):
            raise ValueError(f"hops must be 2 or 3, got {hops!r}")
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be an int >= 1, got {max_turns!r}")
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= 20:
            raise ValueError(f"top_k must be an int from 1 to 20, got {top_k!r}")
        super().__init__(**kwargs)
        self.hops = hops
        self.max_turns = max_turns
        self.top_k = top_k
        self.corpus: Corpus = load_corpus()
        self.question: Question | None = None
        self._log: list[str] = []

    def _reset(self, options: dict[str, Any]) -> str:
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; SearchQA takes none")
        self.question = make_question(self.corpus, self.np_random, self.hops)
        self._log = []
        n = len(self.corpus.docs)
        self.instruction = (
            f"Answer the question using a private encyclopedia of {n} documents about "
            "fictional people, places, companies, books and inventions; the facts are "
            "not known outside it, so look them up. One tool call per turn:\n"
            f"  search[query] - the {self.top_k} best matching documents (id, title, snippet)\n"
            "  open[doc id or title] - the full text of one document, e.g. open[d0042]\n"
            "  answer[text] - your final answer (a name); ends the episode\n"
            f"You have {self.max_turns} turns. The answer may need facts from several "
            f"documents.\nQuestion: {self._q.text}"
        )
        return self.instruction

    @property
    def _q(self) -> Question:
        if self.question is None:
            raise RuntimeError("call reset() first")
        return self.question

    def _parse(self, action: str) -> ToolCall | Invalid:
        return parse_tool_call(action)

    def _apply(self, action: ToolCall) -> Outcome:
        tool, arg = action
        self._log.append(f"{tool}[{arg}]")
        info: dict[str, Any] = {"tool": tool}
        if tool == "search":
            return Outcome(self._search(arg), info=info)
        if tool == "open":
            doc = self.corpus.lookup(arg)
            info["doc_id"] = doc.id if doc is not None else None
            return Outcome(self._open(arg, doc), info=info)
        correct = normalize_answer(arg) in self._q.aliases
        info["answer"] = self._q.answer
        verdict = "correct" if correct else f"wrong; the answer was {self._q.answer}"
        obs = f"Your answer {arg!r} is {verdict}."
        return Outcome(obs, 1.0 if correct else 0.0, terminated=True, success=correct, info=info)

    def _search(self, query: str) -> str:
        docs = self.corpus.search(query, self.top_k)
        if not docs:
            return f'No document matches "{query}". Try other words (names work best).'
        lines = [f'Search results for "{query}":']
        lines += [f"{i}. [{d.id}] {d.title}: {_snippet(d)}" for i, d in enumerate(docs, 1)]
        lines.append("Use open[doc id] to read a document in full.")
        return "\n".join(lines)

    def _open(self, ref: str, doc: Document | None) -> str:
        if doc is None:
            return (
                f"No document has the id or title {ref!r}. Ids look like d0042; "
                "use search[...] to find them."
            )
        return f"[{doc.id}] {doc.title}\n{doc.text}"

    def _turn_limit_reached(self) -> tuple[str, dict[str, Any]]:
        return (
            f"Out of turns ({self.max_turns}); the answer was {self._q.answer}.",
            {"answer": self._q.answer},
        )

    def _extra_info(self) -> dict[str, Any]:
        return {"turns_left": max(self.max_turns - self._turn, 0)}

    def _render(self) -> str:
        lines = [f"Question ({self.hops} hops): {self._q.text}"]
        lines += [f"  {i}. {call}" for i, call in enumerate(self._log, 1)] or ["  (no tool calls)"]
        lines.append(f"Turn {self._turn} of {self.max_turns}")
        if self._done:
            lines.append(f"Answer: {self._q.answer}")
        return "\n".join(lines)


def _snippet(doc: Document) -> str:
    if len(doc.text) <= SNIPPET:
        return doc.text
    return doc.text[:SNIPPET].rsplit(" ", 1)[0] + " ..."
