"""Expert for ``SearchQA-v0``: follows the question's hop chain with real searches.

The expert knows the chain of entities behind the question (privileged: the env's
``question.chain``), but it reaches every document the honest way: it searches for
the next entity by name, reads the result list it gets back, and opens the document
by an id that appeared there. Only then does it move to the next hop, and after the
last one it answers.
"""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym

from turngym.agents.base import BaseAgent, unwrap
from turngym.envs.text.search_corpus import normalize_answer
from turngym.envs.text.search_qa import SearchQAEnv

__all__ = ["SearchQAExpert", "result_ids"]

_RESULT = re.compile(r"^\d+\. \[(d\d+)\] (.+?): ", re.MULTILINE)
_QUERY_SUFFIXES = ("", " document", " encyclopedia entry")
"""Ways to re-phrase a query whose target was not in the results (never needed so far)."""


def result_ids(obs: str) -> dict[str, str]:
    r"""``normalised title -> doc id`` for every result listed in a search observation.

    >>> result_ids('Search results for "x":\n1. [d0007] Rogel River: The Rogel River is')
    {'rogel river': 'd0007'}
    """
    return {normalize_answer(title): doc_id for doc_id, title in _RESULT.findall(obs)}


class SearchQAExpert(BaseAgent):
    """Searches each entity of the hop chain, opens it from the results, then answers.

    Two turns per hop (search, open) plus the answer: 5 turns for 2 hops, 7 for 3.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/SearchQA-v0")
        >>> expert = SearchQAExpert(env)
        >>> obs, info = env.reset(seed=0)
        >>> expert.act(obs, info) == f"search[{env.unwrapped.question.chain[0]}]"
        True

    """

    def __init__(self, env: gym.Env) -> None:
        inner = unwrap(env, SearchQAEnv, "SearchQAExpert")
        self._env = inner
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Start from the first hop."""
        self._hop = 0
        self._tries = 0
        self._searched = False

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The next search, open or answer of the plan."""
        if info.get("turn", 0) == 0:
            self.reset()
        question = self._env.question
        if question is None:
            raise RuntimeError("reset the env before asking the expert to act")
        if self._searched:
            self._searched = False
            target = question.chain[self._hop]
            doc_id = result_ids(str(obs)).get(normalize_answer(target))
            if doc_id is not None:
                self._hop += 1
                self._tries = 0
                return f"open[{doc_id}]"
            self._tries += 1
        if self._hop >= len(question.chain):
            return f"answer[{question.answer}]"
        target = question.chain[self._hop]
        if self._tries >= len(_QUERY_SUFFIXES):
            # The target never showed up in the results (the corpus tests rule that out):
            # its name is known from the question or the last document, so open by title.
            self._hop += 1
            self._tries = 0
            return f"open[{target}]"
        self._searched = True
        return f"search[{target}{_QUERY_SUFFIXES[self._tries]}]"
