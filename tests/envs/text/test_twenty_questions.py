from __future__ import annotations

import gymnasium as gym
import pytest

import turngym  # noqa: F401
from tests.envs.text.twenty_questions_phrasings import PHRASINGS
from turngym.agents import make_expert
from turngym.agents.experts.twenty_questions import TwentyQuestionsExpert
from turngym.envs.text.twenty_questions import (
    MAX_QUESTION_LENGTH,
    TwentyQuestionsEnv,
    answer_kind_of,
    canonical_question,
    find_object,
    parse_question,
    rule_based_answer,
    with_article,
)
from turngym.envs.text.twenty_questions_data import ATTRIBUTES, OBJECTS
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/TwentyQuestions-v0"


def play(env: TwentyQuestionsEnv, questions: list[str]) -> list[tuple]:
    return [env.step(q) for q in questions]


def yes_no_hook(secret: str, question: str) -> str:
    """A stub oracle: yes to animals, 'Perhaps' to metal, a flat 'Nope' otherwise."""
    if "animal" in question.lower():
        return "Yes, it is."
    return "Perhaps" if "metal" in question.lower() else "Nope"


def shouting_oracle(secret: str, question: str) -> str:
    """A truthful stub oracle: the rule-based answer in capitals."""
    return rule_based_answer(secret, parse_question(question))[0].upper()


# -- conformance ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"max_turns": 5, "invalid_action_penalty": -0.5, "max_invalid_actions": 3},
        {"oracle": shouting_oracle},
    ],
)
def test_conformance(kwargs):
    check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs, reset_episodes=20, expert_episodes=10)


def test_registry_row():
    from turngym.registry import entry

    row = entry(ID)
    assert row.max_episode_steps == 20
    assert row.finite_actions is False and row.stochastic is False
    assert gym.make(ID).spec.max_episode_steps == 20


# -- the knowledge base ---------------------------------------------------------------


def test_knowledge_base_size_and_values():
    assert len(OBJECTS) >= 150
    assert len(ATTRIBUTES) >= 30
    for obj in OBJECTS:
        assert obj.true <= ATTRIBUTES.keys() and obj.unknown <= ATTRIBUTES.keys(), obj.name
        assert not obj.true & obj.unknown, obj.name
        # every attribute has a value; at least 30 of them are a definite yes or no
        assert len(ATTRIBUTES) - len(obj.unknown) >= 30, obj.name


def test_every_object_has_a_unique_attribute_vector():
    seen: dict[tuple, str] = {}
    for obj in OBJECTS:
        vector = tuple(
            "yes" if a in obj.true else "?" if a in obj.unknown else "no" for a in ATTRIBUTES
        )
        assert vector not in seen, f"{obj.name} and {seen[vector]} have the same attributes"
        seen[vector] = obj.name


def test_names_and_aliases_are_unambiguous():
    owner: dict[str, str] = {}
    for obj in OBJECTS:
        for name in (obj.name, *obj.aliases):
            assert name not in owner, f"{name!r} names both {owner[name]} and {obj.name}"
            owner[name] = obj.name


@pytest.mark.parametrize(
    ("name", "fact", "value"),
    [
        ("dog", "mammal", True),
        ("whale", "fish", False),
        ("bat", "fly", True),
        ("penguin", "fly", False),
        ("tomato", "vegetable", True),
        ("spider", "insect", False),
        ("airplane", "wings", True),
        ("mushroom", "plant", False),
        ("lemon", "sweet", False),
        ("car", "engine", True),
    ],
)
def test_spot_checked_facts(name, fact, value):
    obj = next(o for o in OBJECTS if o.name == name)
    assert (fact in obj.true) is value


# -- the oracle -------------------------------------------------------------------------


def test_the_phrasing_table_is_large_and_varied():
    assert len(PHRASINGS) >= 100
    assert len({q for q, _, _ in PHRASINGS}) >= 100
    canonical = {canonical_question(a) for a in ATTRIBUTES}
    assert sum(q not in canonical for q, _, _ in PHRASINGS) >= 100


@pytest.mark.parametrize(("question", "secret", "expected"), PHRASINGS)
def test_oracle_answers_natural_phrasings(question, secret, expected):
    assert rule_based_answer(secret, parse_question(question))[0] == expected


@pytest.mark.parametrize("attribute", list(ATTRIBUTES))
def test_canonical_questions_are_recognised(attribute):
    parsed = parse_question(canonical_question(attribute))
    assert (parsed.guess, parsed.attribute, parsed.negated) == (None, attribute, False)


@pytest.mark.parametrize(
    ("text", "guess"),
    [
        ("Is it a dog?", "dog"),
        ("Is it an apple?", "apple"),
        ("dog?", "dog"),
        ("Dog", "dog"),
        ("My guess is dog", "dog"),
        ("My final guess is: the dog!", "dog"),
        ("It's a dog", "dog"),
        ("It is a dog.", "dog"),
        ("I think it's a dog", "dog"),
        ("Could it be a puppy?", "dog"),
        ("Is it maybe a kitten then?", "cat"),
        ("Are you thinking of an elephant?", "elephant"),
        ("What about a fire truck?", "fire truck"),
        ("Is it a fire engine?", "fire truck"),
        ("Are they grapes?", "grapes"),
        ("Is it dogs?", "dog"),
        ("Is it one of the cherries?", "cherry"),
        ("Is it wolves?", "wolf"),
        ("Is it scissors?", "scissors"),
        ("is it a BASEBALL BAT", "baseball bat"),
        ("Is it a bat?", "bat"),
        ("Guess: smartphone", "phone"),
        # not guesses: other words around the name, or no object named
        ("Is it bigger than a car?", None),
        ("Does it lay eggs?", None),
        ("Is it found in a house?", None),
        ("Is it a dog or a cat?", None),
        ("Is it an animal?", None),
        ("Is it a spaceship-shaped gadget?", None),
        ("", None),
    ],
)
def test_guess_recognition(text, guess):
    assert find_object(text) == guess


def test_every_object_can_be_guessed_by_name_and_alias():
    for obj in OBJECTS:
        for name in (obj.name, *obj.aliases):
            assert find_object(f"Is it {with_article(name)}?") == obj.name, name


def test_answer_kind_of_hook_replies():
    assert answer_kind_of("Yes.") == "yes"
    assert answer_kind_of("yep, sure") == "yes"
    assert answer_kind_of("No, it is not.") == "no"
    assert answer_kind_of("Hmm, sometimes") == "unknown"
    assert answer_kind_of("") == "unknown"


# -- the env: observations, rewards, endings -------------------------------------------


def test_first_observation_explains_the_game():
    env = gym.make(ID)
    obs, info = env.reset(seed=0)
    assert "20 Questions" in obs and "yes/no" in obs and "Is it a dog?" in obs
    assert info["instruction"] == obs
    assert info["state_key"] == "start" and "legal_actions" not in info


def test_answers_rewards_and_state_key():
    env = TwentyQuestionsEnv()
    env.reset(seed=0, options={"object": "dog"})
    (o1, r1, t1, u1, i1), (o2, r2, _, _, i2), (o3, r3, _, _, i3), (o4, r4, _, _, i4) = play(
        env, ["Is it an animal?", "Can it fly?", "What colour is it?", "Is it a cat?"]
    )
    assert (o1, r1, t1, u1) == ("Yes. (19 questions left)", -1.0, False, False)
    assert (i1["answer_kind"], i1["attribute"]) == ("yes", "animal")
    assert (o2, r2, i2["answer_kind"]) == ("No. (18 questions left)", -1.0, "no")
    assert (o3, r3, i3["answer_kind"], i3["attribute"]) == (
        "I don't know. (17 questions left)",
        -1.0,
        "unknown",
        None,
    )
    assert (o4, r4, i4["answer_kind"], i4["guess"]) == (
        "No. (16 questions left)",
        -1.0,
        "wrong_guess",
        "cat",
    )
    assert i4["state_key"] == "animal=yes|fly=no|is:cat=no"
    assert "object" not in i4  # the secret stays hidden until the end
    obs, reward, terminated, truncated, info = env.step("Is it a dog?")
    assert obs == "Yes! It is a dog. You found it in 5 questions."
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["success"] is True and info["answer_kind"] == "correct_guess"
    assert info["object"] == "dog"


def test_negated_question_records_the_plain_fact():
    env = TwentyQuestionsEnv()
    env.reset(options={"object": "rock"})
    obs, *_, info = env.step("Is it natural?")
    assert obs.startswith("Yes.") and info["state_key"] == "man_made=no"


def test_truncates_after_twenty_turns_and_reveals_the_object():
    env = gym.make(ID)
    env.reset(seed=0, options={"object": "dog"})
    total = 0.0
    for turn in range(1, 21):
        obs, reward, terminated, truncated, info = env.step("Is it a cat?")
        total += reward
        assert terminated is False
        assert truncated is (turn == 20)
    assert total == -20.0
    assert info["success"] is False and info["object"] == "dog"
    assert "Out of questions: the object was a dog." in obs
    assert env.unwrapped.questions_left == 0


def test_invalid_actions_use_up_turns_and_the_last_one_truncates():
    env = TwentyQuestionsEnv(max_turns=3, max_invalid_actions=None)
    env.reset(options={"object": "cat"})
    obs, reward, terminated, truncated, info = env.step("   ")
    assert info["invalid_action"] is True and reward == -1.0 and "empty" in obs
    assert "2 questions left" in obs and not truncated
    obs, reward, _, truncated, info = env.step("x" * (MAX_QUESTION_LENGTH + 1))
    assert info["invalid_action"] is True and "at most 500" in obs and not truncated
    obs, reward, terminated, truncated, info = env.step("")
    assert (terminated, truncated, info["success"]) == (False, True, False)
    assert "the object was a cat" in obs


def test_long_but_allowed_and_unusual_questions_are_valid():
    env = TwentyQuestionsEnv()
    env.reset(seed=0)
    for action in ["?", "x" * MAX_QUESTION_LENGTH, "¿Es un perro? 🐶", "42"]:
        *_, info = env.step(action)
        assert info["invalid_action"] is False
        assert info["answer_kind"] == "unknown"


def test_reset_option_object_accepts_aliases_and_rejects_unknown_names():
    env = TwentyQuestionsEnv()
    env.reset(options={"object": " Puppy "})
    assert env.secret == "dog"
    with pytest.raises(ValueError, match="must name an object"):
        env.reset(options={"object": "unicorn"})
    with pytest.raises(ValueError, match="must name an object"):
        env.reset(options={"object": 3})
    with pytest.raises(ValueError, match="takes 'object'"):
        env.reset(options={"secret": "dog"})


def test_render_lists_the_questions():
    env = TwentyQuestionsEnv(render_mode="ansi")
    env.reset(options={"object": "apple"})
    env.step("Is it a fruit?")
    text = env.render()
    assert text.splitlines() == [
        "20 Questions, 19 of 20 questions left",
        "  Q1: Is it a fruit? -> Yes.",
    ]


# -- kwargs, seeding, the hook ----------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_turns": 0}, "max_turns must be an int >= 1"),
        ({"max_turns": "20"}, "max_turns must be an int >= 1"),
        ({"max_turns": True}, "max_turns must be an int >= 1"),
        ({"oracle": "yes"}, "oracle must be None"),
        ({"render_mode": "rgb_array"}, "render_mode"),
    ],
)
def test_bad_kwargs_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TwentyQuestionsEnv(**kwargs)


def test_seeding_same_seed_same_secret_and_seeds_differ():
    env = gym.make(ID)
    secrets = []
    for seed in range(20):
        env.reset(seed=seed)
        first = env.unwrapped.secret
        env.reset(seed=seed)
        assert env.unwrapped.secret == first
        secrets.append(first)
    assert len(set(secrets)) >= 15


def test_oracle_hook_replaces_answers_but_not_guess_detection():
    calls = []

    def hook(secret: str, question: str) -> str:
        calls.append((secret, question))
        return yes_no_hook(secret, question)

    env = TwentyQuestionsEnv(oracle=hook)
    env.reset(options={"object": "hammer"})
    obs, reward, _, _, info = env.step("Is it an animal?")
    assert obs == "Yes, it is. (19 questions left)" and info["answer_kind"] == "yes"
    obs, _, _, _, info = env.step("Is it made of metal?")
    assert obs == "Perhaps (18 questions left)" and info["answer_kind"] == "unknown"
    obs, _, _, _, info = env.step("Is it made of wood?")
    assert obs == "Nope (17 questions left)" and info["answer_kind"] == "no"
    obs, _, _, _, info = env.step("Is it a saw?")
    assert info["answer_kind"] == "wrong_guess" and obs.startswith("Nope")
    obs, reward, terminated, _, info = env.step("Is it a hammer?")
    assert (reward, terminated, info["success"]) == (0.0, True, True)
    assert obs.startswith("Yes! It is a hammer.")
    assert calls == [
        ("hammer", "Is it an animal?"),
        ("hammer", "Is it made of metal?"),
        ("hammer", "Is it made of wood?"),
        ("hammer", "Is it a saw?"),
    ]


# -- the expert ---------------------------------------------------------------------------


def test_expert_over_200_seeds():
    result = evaluate(ID, make_expert, episodes=200, seed=0)
    assert result.success_rate >= 0.95
    assert all(e.invalid == 0 for e in result.episodes)
    assert max(e.steps for e in result.episodes) <= 20
    assert result.mean_return > -10


def test_expert_finds_every_object():
    env = gym.make(ID)
    expert = TwentyQuestionsExpert(env)
    for obj in OBJECTS:
        obs, info = env.reset(seed=0, options={"object": obj.name})
        expert.reset()
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(expert.act(obs, info))
            assert info["invalid_action"] is False
            done = terminated or truncated
        assert info["success"], obj.name


def test_expert_with_a_truthful_hook_oracle():
    result = evaluate(
        ID, make_expert, episodes=30, seed=500, env_kwargs={"oracle": shouting_oracle}
    )
    assert result.success_rate == 1.0


def test_expert_needs_the_twenty_questions_env():
    with pytest.raises(TypeError, match="TwentyQuestionsEnv"):
        TwentyQuestionsExpert(gym.make("turngym/Wordle-v0"))
