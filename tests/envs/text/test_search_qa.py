from __future__ import annotations

import re
from collections import Counter
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.agents import make_expert
from turngym.agents.base import BaseAgent
from turngym.agents.experts.search_qa import SearchQAExpert, result_ids
from turngym.core import Invalid
from turngym.envs.text.search_corpus import (
    CORPUS_SEED,
    TEMPLATES,
    load_corpus,
    make_question,
    normalize_answer,
)
from turngym.envs.text.search_qa import SearchQAEnv, parse_tool_call
from turngym.registry import entry
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/SearchQA-v0"


# -- conformance and registry -----------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, {"hops": 3}, {"max_turns": 5, "top_k": 2}])
def test_conformance(kwargs):
    check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs, expert_episodes=10)


def test_registry_row():
    row = entry(ID)
    assert row.max_episode_steps == 10
    assert (row.finite_actions, row.stochastic) == (False, False)
    assert isinstance(make_expert(gym.make(ID)), SearchQAExpert)


# -- the corpus -------------------------------------------------------------------------


def test_corpus_size_ids_and_unique_titles():
    corpus = load_corpus()
    assert len(corpus.docs) >= 500
    assert [d.id for d in corpus.docs] == [f"d{i:04d}" for i in range(len(corpus.docs))]
    titles = [normalize_answer(d.title) for d in corpus.docs]
    assert len(set(titles)) == len(titles)
    kinds = Counter(d.kind for d in corpus.docs)
    assert set(kinds) == {"country", "river", "city", "person", "company", "book", "invention"}
    assert min(kinds.values()) >= 12


def test_corpus_is_deterministic_and_seeded():
    cached = load_corpus()
    assert load_corpus() is cached
    rebuilt = load_corpus.__wrapped__(CORPUS_SEED)  # a fresh build, not the cache
    assert rebuilt.docs == cached.docs and dict(rebuilt.facts) == dict(cached.facts)
    other = load_corpus.__wrapped__(CORPUS_SEED + 1)
    assert {d.title for d in other.docs} != {d.title for d in cached.docs}


def test_names_are_pronounceable_words():
    corpus = load_corpus()
    invented = [d.title for d in corpus.docs if d.kind in ("person", "city", "country")]
    invented += [d.title.split()[0] for d in corpus.docs if d.kind in ("river", "company")]
    assert len(invented) >= 400
    for name in invented:
        for word in name.split():
            assert re.fullmatch(r"[A-Z][a-z]{2,11}", word), word
            assert re.search(r"[aeiou]", word.lower()), word
            # no runs of four vowels or four consonants
            assert not re.search(r"[aeiou]{4}|[^aeiou]{4}", word.lower()), word


def test_every_fact_is_stated_in_its_document():
    corpus = load_corpus()
    n = 0
    for title, relations in corpus.facts.items():
        doc = corpus.titled(title)
        for target in relations.values():
            assert target in doc.text, (title, target)
            assert corpus.titled(target).title == target  # every target has its own doc
            n += 1
    assert n >= 500


def test_searching_a_title_finds_its_document_first():
    corpus = load_corpus()
    for doc in corpus.docs:
        assert corpus.search(doc.title, 1) == [doc], doc.title


def test_lookup_by_id_or_title():
    corpus = load_corpus()
    doc = corpus.docs[42]
    for ref in ["d0042", "D0042", " d42 ", "42", doc.title, doc.title.upper() + "."]:
        assert corpus.lookup(ref) == doc, ref
    assert corpus.lookup("d9999") is None and corpus.lookup("Atlantis") is None


# -- questions --------------------------------------------------------------------------


@pytest.mark.parametrize("hops", [2, 3])
def test_questions_follow_existing_facts(hops):
    corpus = load_corpus()
    env = SearchQAEnv(hops=hops)
    for seed in range(50):
        env.reset(seed=seed)
        q = env.question
        assert q is not None and q.hops == hops and len(q.chain) == hops
        assert q.chain[0] in q.text
        path = [*q.chain, q.answer]
        for i, relation in enumerate(q.relations):
            assert corpus.facts[path[i]][relation] == path[i + 1]
            # the fact is readable: the hop's target is named in the hop's document
            assert path[i + 1] in corpus.titled(path[i]).text
        assert normalize_answer(q.answer) in q.aliases


def test_every_template_is_drawn():
    rng = np.random.default_rng(0)
    corpus = load_corpus()
    for hops, templates in TEMPLATES.items():
        seen = {make_question(corpus, rng, hops).relations for _ in range(300)}
        assert seen == {t.relations for t in templates}


def test_seeding():
    env = SearchQAEnv()
    first = [env.reset(seed=s)[0] for s in range(50)]
    again = [env.reset(seed=s)[0] for s in range(50)]
    assert first == again
    assert len(set(first)) >= 45


# -- tools ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "call"),
    [
        ("search[Tarnwick port]", ("search", "Tarnwick port")),
        ("  SEARCH [  Tarnwick   port ]\n", ("search", "Tarnwick port")),
        ("Open[d0042]", ("open", "d0042")),
        ("open(Velora Quince)", ("open", "Velora Quince")),
        ("<search>Selvan River</search>", ("search", "Selvan River")),
        ("<Answer> Ostrava </answer>", ("answer", "Ostrava")),
        ("answer[The [odd] name]", ("answer", "The [odd] name")),
        ("<think>first the founder\n</think>\nsearch[Velora]", ("search", "Velora")),
    ],
)
def test_tool_calls_are_parsed_leniently(text, call):
    assert parse_tool_call(text) == call


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "the action is empty"),
        ("   \n", "the action is empty"),
        ("Ostrava", "not a tool call"),
        ("I think the answer is Ostrava", "not a tool call"),
        ("search Tarnwick", "malformed search call"),
        ("answer: Ostrava", "malformed answer call"),
        ("<search>Tarnwick</open>", "malformed search call"),
        ("search[]", "search[...] needs an argument"),
        ("open[  ]", "open[...] needs an argument"),
        ("lookup[Tarnwick]", "not a tool call"),
        ("<think>only thinking</think>", "the action is empty"),
        ("search[a] <think>late</think>", "malformed search call"),
        ("search[" + "x" * 600 + "]", "longer than 500 characters"),
    ],
)
def test_bad_tool_calls_explain(text, reason):
    parsed = parse_tool_call(text)
    assert isinstance(parsed, Invalid) and reason in parsed.reason
    env = SearchQAEnv(invalid_action_penalty=-0.1)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(text)
    assert info["invalid_action"] and reason in obs and "tool" not in info
    assert (reward, terminated, truncated) == (-0.1, False, False)


def test_search_lists_ids_titles_and_snippets():
    env = SearchQAEnv(top_k=3)
    env.reset(seed=0)
    target = env.question.chain[0]
    obs, reward, terminated, _, info = env.step(f"search[{target}]")
    lines = obs.splitlines()
    assert lines[0] == f'Search results for "{target}":'
    assert re.fullmatch(rf"1\. \[d\d{{4}}\] {re.escape(target)}: .+", lines[1])
    assert len(result_ids(obs)) == 3 and len(lines) == 5
    assert (reward, terminated, info["tool"], info["turns_left"]) == (0.0, False, "search", 9)
    obs, *_, info = env.step("search[zzyzx qwv]")
    assert obs.startswith("No document matches") and not info["invalid_action"]


def test_open_by_id_or_title():
    env = SearchQAEnv()
    env.reset(seed=0)
    doc = load_corpus().docs[7]
    for ref in [doc.id, doc.id.upper(), doc.title.lower()]:
        obs, *_, info = env.step(f"open[{ref}]")
        assert obs == f"[{doc.id}] {doc.title}\n{doc.text}"
        assert (info["tool"], info["doc_id"]) == ("open", doc.id)
    obs, reward, terminated, _, info = env.step("open[d9999]")
    assert "No document has the id or title 'd9999'" in obs
    assert (info["invalid_action"], info["doc_id"], reward, terminated) == (False, None, 0.0, False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Selvan-River.", "selvan river"),
        ("  velora   QUINCE ", "velora quince"),
        ("an Ostrava!", "ostrava"),
        ("Theodora", "theodora"),  # an article only as a whole word
    ],
)
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


def test_correct_answer_under_normalisation():
    env = SearchQAEnv()
    env.reset(seed=0)
    answer = env.question.answer
    obs, reward, terminated, truncated, info = env.step(f"answer[  the {answer.upper()}!! ]")
    assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
    assert info["tool"] == "answer" and info["answer"] == answer and "is correct" in obs
    obs, *_, info = env.step(f"answer[{answer}]")  # no second answer after the end
    assert info["invalid_action"] and "episode is over" in obs


def test_river_answers_accept_the_bare_name():
    env = SearchQAEnv()
    for seed in range(200):
        env.reset(seed=seed)
        if env.question.answer.endswith(" River"):
            break
    bare = env.question.answer.removesuffix(" River")
    assert env.step(f"answer[{bare}]")[1] == 1.0


def test_wrong_answer_ends_with_zero_and_reveals():
    env = SearchQAEnv()
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("answer[Atlantis]")
    assert (reward, terminated, truncated, info["success"]) == (0.0, True, False, False)
    assert obs == f"Your answer 'Atlantis' is wrong; the answer was {env.question.answer}."


def test_turn_limit_truncates_and_counts_invalid_turns():
    env = SearchQAEnv(max_turns=3)
    env.reset(seed=0)
    assert env.step("search[river]")[2:4] == (False, False)
    assert env.step("nonsense")[2:4] == (False, False)
    obs, reward, terminated, truncated, info = env.step("open[d0001]")
    assert (reward, terminated, truncated, info["success"]) == (0.0, False, True, False)
    assert f"Out of turns (3); the answer was {env.question.answer}." in obs
    assert info["turns_left"] == 0 and info["answer"] == env.question.answer
    assert env.step("answer[x]")[4]["invalid_action"]


def test_answer_on_the_last_turn_counts():
    env = SearchQAEnv(max_turns=1)
    env.reset(seed=0)
    obs, reward, terminated, truncated, _ = env.step(f"answer[{env.question.answer}]")
    assert (reward, terminated, truncated) == (1.0, True, False) and "Out of turns" not in obs


def test_more_turns_through_gym_make():
    env = gym.make(ID, max_turns=12, max_episode_steps=12)
    env.reset(seed=0)
    ends = [env.step("search[river]")[2:4] for _ in range(12)]
    assert ends == [(False, False)] * 11 + [(False, True)]


def test_render_logs_the_calls():
    env = gym.make(ID, render_mode="ansi")
    env.reset(seed=0)
    env.step("search[river]")
    env.step("answer[Atlantis]")
    text = env.render()
    q = env.unwrapped.question
    assert text.splitlines() == [
        f"Question (2 hops): {q.text}",
        "  1. search[river]",
        "  2. answer[Atlantis]",
        "Turn 2 of 10",
        f"Answer: {q.answer}",
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hops": 1}, "hops must be 2 or 3"),
        ({"hops": 4}, "hops must be 2 or 3"),
        ({"hops": "2"}, "hops must be 2 or 3"),
        ({"hops": True}, "hops must be 2 or 3"),
        ({"max_turns": 0}, "max_turns must be an int >= 1"),
        ({"max_turns": 2.5}, "max_turns must be an int >= 1"),
        ({"top_k": 0}, "top_k must be an int from 1 to 20"),
        ({"top_k": 21}, "top_k must be an int from 1 to 20"),
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(ID, **kwargs)


def test_bad_reset_options():
    with pytest.raises(ValueError, match="unknown reset options"):
        SearchQAEnv().reset(options={"question": "x"})


# -- the expert -------------------------------------------------------------------------


class _Recorder(BaseAgent):
    """Wraps the expert; checks it opens only ids it was shown and reads every hop."""

    def __init__(self, env: gym.Env) -> None:
        self.env = env.unwrapped
        self.expert = SearchQAExpert(env)
        self.seen: set[str] = set()
        self.opened: list[str] = []
        self.last_action = ""
        self.problems: list[str] = []

    def reset(self, seed: int | None = None) -> None:
        self.expert.reset(seed)

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        if info["turn"] == 0:
            self.seen, self.opened = set(), []
        elif self.last_action.startswith("search["):
            self.seen |= set(result_ids(obs).values())
        action = self.expert.act(obs, info)
        call = parse_tool_call(action)
        assert not isinstance(call, Invalid)
        tool, arg = call
        if tool == "open":
            if arg not in self.seen:
                self.problems.append(f"opened {arg} before any search listed it")
            self.opened.append(arg)
        if tool == "answer":
            chain_ids = [load_corpus().titled(t).id for t in self.env.question.chain]
            if self.opened != chain_ids:
                self.problems.append(f"read {self.opened}, the chain is {chain_ids}")
        self.last_action = action
        return action


@pytest.mark.parametrize(("hops", "steps"), [(2, 5), (3, 7)])
def test_expert_solves_200_seeds_honestly(hops, steps):
    recorders: list[_Recorder] = []

    def make(env: gym.Env) -> _Recorder:
        recorders.append(_Recorder(env))
        return recorders[-1]

    result = evaluate(ID, make, episodes=200, env_kwargs={"hops": hops})
    assert result.success_rate >= 0.95
    assert result.mean_return == result.success_rate
    assert all(e.invalid == 0 for e in result.episodes)
    assert all(e.steps == steps for e in result.episodes)  # search + open per hop, answer
    assert recorders[0].problems == []


def test_expert_works_with_small_top_k():
    result = evaluate(ID, SearchQAExpert, episodes=50, env_kwargs={"hops": 3, "top_k": 1})
    assert result.success_rate == 1.0


def test_expert_needs_a_search_qa_env():
    with pytest.raises(TypeError, match="needs a SearchQAEnv"):
        SearchQAExpert(gym.make("turngym/Bandit-v0"))
