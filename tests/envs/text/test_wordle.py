from __future__ import annotations

import gymnasium as gym
import pytest

import turngym  # noqa: F401
from turngym.envs.text.wordle import LEGEND, WordleEnv, format_marks, score_guess
from turngym.envs.text.wordle_words import load_allowed, load_answers
from turngym.testing import check_text_env


def test_conformance_short_game_with_shaping():
    check_text_env(
        "turngym/Wordle-v0",
        n_fuzz=1000,
        reset_episodes=20,
        make_kwargs={"max_guesses": 4, "shaping": 0.5, "invalid_action_penalty": -0.1},
    )


@pytest.mark.parametrize(
    ("guess", "answer", "marks"),
    [
        ("crane", "crane", "G G G G G"),
        ("react", "crane", "Y Y G Y _"),
        # two b's guessed, two in the secret: one green, the other yellow
        ("babes", "abbey", "Y Y G G _"),
        ("abbey", "babes", "Y Y G G _"),
        # three e's guessed, one in the secret and it is green: no yellow e's
        ("eerie", "crane", "_ _ Y _ G"),
        # two e's guessed, one in the secret: only the first (left) turns yellow
        ("speed", "abide", "_ _ Y _ Y"),
        # greens take the l's first, so the leading l gets nothing
        ("lolly", "hello", "_ Y G G _"),
        ("geese", "eerie", "_ G Y _ G"),
        ("mamma", "maxim", "G G Y _ _"),
    ],
)
def test_duplicate_letter_feedback(guess, answer, marks):
    assert format_marks(score_guess(guess, answer)) == marks


def test_first_observation_states_the_task():
    env = gym.make("turngym/Wordle-v0")
    obs, info = env.reset(seed=0)
    assert "Wordle" in obs and "5-letter" in obs and "6 guesses" in obs
    assert LEGEND in obs
    assert info["instruction"] in obs
    assert info["turn"] == 0 and info["state_key"] == "start"
    assert info["legal_actions"] == list(load_allowed())


def test_step_observation_shows_feedback_board_and_guesses_left():
    env = WordleEnv()
    env.reset(options={"answer": "crane"})
    obs, reward, terminated, truncated, info = env.step("react")
    assert obs.splitlines() == [
        "Guess 1 of 6: REACT -> Y Y G Y _",
        "Board so far:",
        "  REACT  Y Y G Y _",
        f"Legend: {LEGEND}",
        "Letters not in the word: T. 5 guesses left.",
    ]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["state_key"] == "react:11210" and info["invalid_action"] is False
    assert "answer" not in info  # the secret is only revealed at the end


def test_solve_rewards_one_and_terminates():
    env = gym.make("turngym/Wordle-v0")
    env.reset(seed=0, options={"answer": "crane"})
    env.step("raise")
    obs, reward, terminated, truncated, info = env.step("crane")
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["success"] is True and info["answer"] == "crane"
    assert "Solved in 2 guesses" in obs
    assert info["reward_parts"] == {"outcome": 1.0, "shaping": 0.0}
    assert info["legal_actions"] == []


def test_running_out_of_guesses_loses_and_reveals():
    env = gym.make("turngym/Wordle-v0", max_guesses=2)
    env.reset(seed=0, options={"answer": "crane"})
    _, reward, terminated, _, _ = env.step("raise")
    assert (reward, terminated) == (0.0, False)
    obs, reward, terminated, truncated, info = env.step("slate")
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["success"] is False and info["answer"] == "crane"
    assert "Out of guesses. The word was CRANE." in obs
    obs, _, _, _, info = env.step("crane")  # the game is over: no late win
    assert info["invalid_action"] and info["success"] is False


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("abcde", "'abcde' is not in the word list"),
        ("cat", "guesses have 5 letters; 'cat' has 3"),
        ("cranes", "guesses have 5 letters"),
        ("", "the guess is empty"),
        ("two words", "guesses are one word of letters a-z"),
        ("cr4ne", "guesses are one word of letters a-z"),
        ("café!", "guesses are one word of letters a-z"),
    ],
)
def test_invalid_guesses_explain_and_cost_no_guess(action, reason):
    env = WordleEnv(invalid_action_penalty=-0.1)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["invalid_action"] is True and reason in info["invalid_reason"]
    assert reason in obs
    assert (reward, terminated, truncated) == (-0.1, False, False)
    assert env.guesses_left == 6 and env.history == ()


@pytest.mark.parametrize(
    "action", ["  CRANE\n", "Crane", "guess: crane", "Guess crane", "GUESS:crane"]
)
def test_lenient_guess_forms(action):
    env = WordleEnv()
    env.reset(options={"answer": "crane"})
    _, reward, terminated, _, info = env.step(action)
    assert not info["invalid_action"] and (reward, terminated) == (1.0, True)


def test_the_word_guess_is_a_guess():
    env = WordleEnv()
    env.reset(options={"answer": "guess"})
    assert env.step("guess")[1] == 1.0


def test_too_many_invalid_in_a_row_truncates():
    env = WordleEnv(max_invalid_actions=3)
    env.reset(seed=0)
    results = [env.step("zzzzz") for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    assert results[-1][4]["success"] is False


def test_reset_answer_option():
    env = gym.make("turngym/Wordle-v0")
    env.reset(options={"answer": " CRANE "})
    assert env.unwrapped.answer == "crane"
    # any allowed word may be the secret, not only the answer list's
    env.reset(options={"answer": "moves"})
    assert "moves" not in load_answers() and env.step("moves")[1] == 1.0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"answer": "zzzzz"}, "must be a 5-letter word of the allowed list"),
        ({"answer": "cat"}, "must be a 5-letter word of the allowed list"),
        ({"answer": 12345}, "must be a 5-letter word of the allowed list"),
        ({"secret": "crane"}, "unknown reset options"),
    ],
)
def test_bad_reset_options(options, message):
    env = WordleEnv()
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)


def test_seeding():
    env = WordleEnv()
    answers = []
    for seed in range(30):
        env.reset(seed=seed)
        answers.append(env.answer)
        assert env.answer in load_answers()
    again = []
    for seed in range(30):
        env.reset(seed=seed)
        again.append(env.answer)
    assert answers == again
    assert len(set(answers)) >= 25


def test_shaping_rewards_new_greens_only():
    env = WordleEnv(shaping=0.5)
    env.reset(options={"answer": "crane"})
    _, reward, _, _, info = env.step("crate")  # G G G _ G: four new greens
    assert reward == pytest.approx(0.4)
    assert info["reward_parts"] == {"outcome": 0.0, "shaping": pytest.approx(0.4)}
    _, reward, _, _, _ = env.step("crate")  # the same greens again earn nothing
    assert reward == 0.0
    _, reward, terminated, _, _ = env.step("crane")  # the last green, and the win
    assert reward == pytest.approx(1.1) and terminated


def test_state_key_is_the_feedback_history():
    env = WordleEnv()
    env.reset(options={"answer": "crane"})
    env.step("react")
    env.step("zzzzz")  # invalid: no change
    *_, info = env.step("crane")
    assert info["state_key"] == "react:11210|crane:22222"


def test_legal_actions_are_the_allowed_list_and_safe_to_mutate():
    env = WordleEnv()
    _, info = env.reset(seed=0)
    legal = info["legal_actions"]
    assert len(legal) == len(load_allowed()) and "crane" in legal
    legal.clear()
    *_, info = env.step("raise")
    assert len(info["legal_actions"]) == len(load_allowed())


def test_render_shows_the_board():
    env = gym.make("turngym/Wordle-v0", render_mode="ansi")
    env.reset(options={"answer": "crane"})
    assert env.render() == "Wordle, 6 of 6 guesses left\n(no guesses yet)"
    env.step("react")
    env.step("crane")
    assert env.render() == (
        "Wordle, 4 of 6 guesses left\n  REACT  Y Y G Y _\n  CRANE  G G G G G\nThe word was CRANE."
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_guesses": 0}, "max_guesses must be an int >= 1"),
        ({"max_guesses": "6"}, "max_guesses must be an int >= 1"),
        ({"max_guesses": 2.5}, "max_guesses must be an int >= 1"),
        ({"shaping": -0.5}, "shaping must be a finite number >= 0"),
        ({"shaping": float("nan")}, "shaping must be a finite number >= 0"),
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make("turngym/Wordle-v0", **kwargs)
