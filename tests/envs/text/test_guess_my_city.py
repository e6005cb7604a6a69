from __future__ import annotations

import re

import gymnasium as gym
import pytest

import turngym  # noqa: F401
from turngym.agents.experts.guess_my_city import GuessMyCityExpert
from turngym.envs.text.city_data import CITIES, CLIMATES, CONTINENTS, population_band
from turngym.envs.text.city_oracle import (
    UNKNOWN,
    find_city,
    normalize_text,
    parse_question,
    respond,
)
from turngym.envs.text.guess_my_city import MAX_QUESTION_LENGTH, GuessMyCityEnv
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/GuessMyCity-v0"


def city(name: str):
    found = find_city(name)
    assert found is not None, name
    return found


# -- conformance ---------------------------------------------------------------------


def test_conformance():
    check_text_env(ID, n_fuzz=1000, expert_episodes=20)


def test_conformance_short_game_with_hook():
    check_text_env(
        ID,
        n_fuzz=1000,
        reset_episodes=20,
        # a hook that forwards to the rule-based oracle, so the expert still wins
        make_kwargs={"max_turns": 5, "oracle": lambda secret, q: respond(city(secret), q).text},
    )


# -- the oracle: a hand-checked table --------------------------------------------------

CASES = [
    # yes/no: continent, region, country
    ("Is it in Europe?", "Paris", "Yes."),
    ("Is it in Europe?", "Tokyo", "No."),
    ("is it in asia", "Istanbul", "Yes."),
    ("Is it in Europe?", "Istanbul", "Yes."),
    ("Is it in Africa?", "Nairobi", "Yes."),
    ("Is it in South America?", "Lima", "Yes."),
    ("Is it in North America?", "Lima", "No."),
    ("Is it in Oceania?", "Auckland", "Yes."),
    ("Is it a European city?", "Cairo", "No."),
    ("Is it in Japan?", "Osaka", "Yes."),
    ("Is it in Japan?", "Seoul", "No."),
    ("Is it in the USA?", "Chicago", "Yes."),
    ("Is it in the U.S.A.?", "Toronto", "No."),
    ("Is it in America?", "Miami", "Yes."),
    ("Is it in the UK?", "Manchester", "Yes."),
    ("Is it in England?", "London", "Yes."),
    ("Is it in Iceland?", "Oslo", "No."),
    ("Is it in Mali?", "Dakar", "No."),
    ("Is it in Korea?", "Pyongyang", "Yes."),
    ("Is it a French city?", "Marseille", "Yes."),
    ("Is it a Brazilian city?", "Buenos Aires", "No."),
    ("Is it in Scandinavia?", "Copenhagen", "Yes."),
    ("Is it in Scandinavia?", "Helsinki", "No."),
    ("Is it in the Middle East?", "Doha", "Yes."),
    ("Is it in Latin America?", "Havana", "Yes."),
    ("Is it in Southeast Asia?", "Hanoi", "Yes."),
    ("Is it in Brazl?", "Rio de Janeiro", "Yes."),  # a typo
    ("Is it in Eurpoe?", "Madrid", "Yes."),  # a transposition
    # capital, coast, hemisphere, climate
    ("Is it a capital?", "Canberra", "Yes."),
    ("Is it a capital city?", "Sydney", "No."),
    ("Is it the capital of France?", "Paris", "Yes."),
    ("Is it the capital of France?", "Marseille", "No."),
    ("Is it a European capital?", "Dublin", "Yes."),
    ("Is it on the coast?", "Lisbon", "Yes."),
    ("Is it on the coast?", "Madrid", "No."),
    ("Is it by the sea?", "Sydney", "Yes."),
    ("Is it a port city?", "Berlin", "No."),
    ("Is it landlocked?", "Berlin", "Yes."),
    ("Is it inland?", "Mumbai", "No."),
    ("Is it in the southern hemisphere?", "Jakarta", "Yes."),
    ("Is it south of the equator?", "Quito", "Yes."),
    ("Is it in the northern hemisphere?", "Santiago", "No."),
    ("Is it tropical?", "Singapore", "Yes."),
    ("Is the climate tropical?", "Moscow", "No."),
    ("Is it a desert city?", "Dubai", "Yes."),
    ("Is it cold there?", "Ulaanbaatar", "Yes."),
    ("Does it have a mediterranean climate?", "Perth", "Yes."),
    # languages
    ("Do people speak Spanish there?", "Bogota", "Yes."),
    ("Do people speak Spanish there?", "Lisbon", "No."),
    ("Is Portuguese spoken there?", "Luanda", "Yes."),
    ("Do they speak Chinese?", "Hong Kong", "Yes."),
    ("Is it an English-speaking city?", "Nairobi", "Yes."),
    ("Is French the language?", "Montreal", "Yes."),
    ("Do locals speak German?", "Vienna", "Yes."),
    ("Do they speak Farsi?", "Tehran", "Yes."),
    ("Is Arabic spoken?", "Istanbul", "No."),
    # population
    ("Does it have more than 5 million people?", "Tokyo", "Yes."),
    ("Does it have more than 5 million people?", "Oslo", "No."),
    ("Does it have over 10 million inhabitants?", "Seoul", "Yes."),
    ("Does it have fewer than 1 million people?", "Reykjavik", "Yes."),
    ("Does it have less than 500,000 people?", "Wellington", "Yes."),
    ("Is the population above 2,000,000?", "Prague", "No."),
    ("Is it a megacity?", "Cairo", "Yes."),
    ("Is it bigger than London?", "Tokyo", "Yes."),
    ("Is it smaller than London?", "Dublin", "Yes."),
    ("Is it more populous than Tokyo?", "Mumbai", "No."),
    # landmarks
    ("Does it have the Eiffel Tower?", "Paris", "Yes."),
    ("Is the Eiffel Tower there?", "Rome", "No."),
    ("Can I see the Colosseum there?", "Rome", "Yes."),
    ("Is the Golden Gate Bridge there?", "San Francisco", "Yes."),
    ("Is Table Mountain there?", "Cape Town", "Yes."),
    # "or" questions that ask which
    ("Is it in Europe or Asia?", "Tokyo", "It is in Asia."),
    ("Is it in Europe or in Asia?", "Istanbul", "It lies in both Europe and Asia."),
    ("Is it coastal or inland?", "Madrid", "It is not on the coast."),
    ("Is it in France or Spain?", "Barcelona", "Yes."),
    ("Is it in France or Spain?", "Rome", "No."),
    # open questions
    ("What continent is it on?", "Paris", "It is in Europe."),
    ("Which continent?", "Lagos", "It is in Africa."),
    ("What language do people speak?", "Paris", "People there mainly speak French."),
    ("What languages are spoken there?", "Brussels", "People there mainly speak French and Dutch."),
    (
        "What is a famous landmark there?",
        "Rome",
        "Famous landmarks there: Colosseum and Trevi Fountain.",
    ),
    (
        "What is it known for?",
        "Beijing",
        "Famous landmarks there: Forbidden City and Temple of Heaven.",
    ),
    ("How many people live there?", "Dublin", "It has 1-5 million people."),
    ("What's the population?", "Tokyo", "It has over 10 million people."),
    ("How big is it?", "Venice", "It has under 1 million people."),
    ("Is it a big city?", "Lima", "It has over 10 million people."),
    ("What is the climate like?", "Cairo", "It has a desert climate."),
    ("What's the weather like?", "Singapore", "It has a tropical climate."),
    ("Which hemisphere is it in?", "Lima", "It is in the southern hemisphere."),
    ("Where is it?", "Sydney", "It is in Oceania, in the southern hemisphere."),
    ("What sea is it on?", "Madrid", "It is not on the coast."),
    (
        "What continent is it on and what language do they speak?",
        "Quito",
        "It is in South America. People there mainly speak Spanish.",
    ),
    ("WHAT   CONTINENT is it on???", "Perth", "It is in Oceania."),
    # refusals
    ("What country is it in?", "Paris", "I can't tell you the country, but it is in Europe."),
    ("Which country?", "Istanbul", "I can't tell you the country, but it is in Europe and Asia."),
    (
        "What is the city called?",
        "Paris",
        "I can't tell you the city's name; that is for you to guess.",
    ),
    (
        "Does its name start with P?",
        "Paris",
        "I can't tell you the city's name; that is for you to guess.",
    ),
    # guesses, aliases and typos
    ("Is it Paris?", "Paris", "Yes! It is Paris."),
    ("Paris?", "Paris", "Yes! It is Paris."),
    ("My guess is Paris", "Paris", "Yes! It is Paris."),
    ("Is it Pariss?", "Paris", "Yes! It is Paris."),
    ("Is it London?", "Paris", "No, it is not London."),
    ("Is it NYC?", "New York City", "Yes! It is New York City."),
    ("is it new york city", "New York City", "Yes! It is New York City."),
    ("I think it's the Big Apple", "New York City", "Yes! It is New York City."),
    ("Is it Bombay?", "Mumbai", "Yes! It is Mumbai."),
    ("Is it Saigon?", "Ho Chi Minh City", "Yes! It is Ho Chi Minh City."),
    ("Is it Washington DC?", "Washington, D.C.", "Yes! It is Washington, D.C."),
    ("Is it São Paulo, Brazil?", "Sao Paulo", "Yes! It is Sao Paulo."),
    ("Is it Rio?", "Lima", "No, it is not Rio de Janeiro."),
    ("Is it located in Kiev?", "Kyiv", "Yes! It is Kyiv."),
    ("My guess is Atlantis", "Paris", "No, it is not Atlantis."),
    ("Is it Singapore?", "Singapore", "Yes! It is Singapore."),
    ("Is it Paris or London?", "Paris", "One guess at a time, please: ask 'Is it <city>?'."),
    ("Is the city Montreal, Quebec?", "Montreal", "Yes! It is Montreal."),
    ("Could it be Montréal?", "Montreal", "Yes! It is Montreal."),
    ("Final answer: Toronto", "Montreal", "No, it is not Toronto."),
    ("Are you thinking of Montreal?", "Montreal", "Yes! It is Montreal."),
]

# Questions about what the table does not record: "I don't know.", never a wrong fact.
UNSUPPORTED = [
    ("Is it near the Atlantic Ocean?", "Sydney"),
    ("Is it on the Mediterranean?", "Perth"),  # the sea, not the climate
    ("Is it on an island?", "Singapore"),
    ("Is it in the western hemisphere?", "Lima"),
    ("Is it on a river?", "Paris"),
    ("Is it near Paris?", "Paris"),
    ("Is it in the same country as Toronto?", "Montreal"),
]


@pytest.mark.parametrize(("question", "name", "expected"), CASES)
def test_oracle_cases(question, name, expected):
    assert respond(city(name), question).text == expected


@pytest.mark.parametrize(("question", "name"), UNSUPPORTED)
def test_unsupported_questions_get_i_dont_know(question, name):
    answer = respond(city(name), question)
    assert answer.kind == "unknown" and answer.text.startswith(UNKNOWN)


def test_the_case_table_is_large_and_varied():
    assert len(CASES) >= 60
    assert len({q for q, _, _ in CASES}) >= 60


@pytest.mark.parametrize(
    "question",
    ["Tell me a joke", "Is it near a river?", "asdf qwer", "Is it famous for pizza or not"],
)
def test_questions_it_cannot_answer(question):
    answer = respond(city("Paris"), question)
    if answer.kind == "unknown":
        assert answer.text.startswith(UNKNOWN) and "Is it <city>?" in answer.text
    else:  # "famous" is read as a landmark question: an answer, never a guess
        assert answer.kind == "fact"


def test_answer_kinds():
    paris = city("Paris")
    kinds = {
        "Is it in Europe?": "yes",
        "Is it in Asia?": "no",
        "What continent is it on?": "fact",
        "What country is it in?": "refusal",
        "Tell me a joke": "unknown",
        "Is it Paris?": "guess_correct",
        "Is it Rome?": "guess_wrong",
    }
    for question, kind in kinds.items():
        assert respond(paris, question).kind == kind


def test_normalize_text():
    assert normalize_text("Is it São Paulo?!") == "is it sao paulo"
    assert normalize_text("U.S.A. 5.5 million, 12,000,000") == "usa 5.5 million 12000000"
    assert normalize_text("St. Mark's") == "st marks"


def test_a_question_mentioning_a_city_is_not_always_a_guess():
    assert parse_question("Is it bigger than London?").form == "yes_no"
    assert parse_question("Does it have the Eiffel Tower?").form == "yes_no"
    assert parse_question("Is it in Paris, France?").form == "guess"


# -- the table -----------------------------------------------------------------------


def test_table_properties():
    assert len(CITIES) >= 100
    assert len({c.name for c in CITIES}) == len(CITIES)
    for c in CITIES:
        assert c.name and c.country and c.languages and len(c.landmarks) >= 1, c
        assert set(c.continents) <= set(CONTINENTS)
        assert c.climate in CLIMATES and c.hemisphere in ("northern", "southern")
        assert 0.05 < c.population < 50
        assert c.band == population_band(c.population)
    assert {c.continents[0] for c in CITIES} == set(CONTINENTS)
    assert sum(c.capital for c in CITIES) >= 50 and sum(c.coastal for c in CITIES) >= 50
    assert sum(c.hemisphere == "southern" for c in CITIES) >= 20


def test_some_facts():
    assert (city("Tokyo").country, city("Tokyo").capital, city("Tokyo").band) == (
        "Japan",
        True,
        "over 10 million",
    )
    assert city("Canberra").capital and not city("Sydney").capital
    assert city("Quito").hemisphere == "southern" and city("Singapore").hemisphere == "northern"
    assert not city("Madrid").coastal and city("Lisbon").coastal
    assert city("Istanbul").continents == ("Europe", "Asia")


def test_landmarks_do_not_give_the_name_or_country_away():
    for c in CITIES:
        names = [c.name, *c.aliases, c.country]
        for mark in (*c.landmarks, *[a for aliases in c.landmark_aliases for a in aliases]):
            text = f" {normalize_text(mark)} "
            for name in names:
                assert f" {normalize_text(name)} " not in text, (c.name, mark)


@pytest.mark.parametrize("c", CITIES, ids=lambda c: c.name)
def test_every_city_and_alias_is_recognised_as_a_guess(c):
    for name in (c.name, *c.aliases):
        assert respond(c, f"Is it {name}?").kind == "guess_correct", name
        assert find_city(name) == c
    for mark in c.landmarks:
        assert respond(c, f"Is the {mark} there?").text == "Yes.", mark


def test_landmarks_belong_to_one_city():
    owners = {}
    for c in CITIES:
        for mark in c.landmarks:
            assert normalize_text(mark) not in owners, mark
            owners[normalize_text(mark)] = c.name


# -- the env -------------------------------------------------------------------------


def test_first_observation_explains_the_game():
    env = gym.make(ID)
    obs, info = env.reset(seed=0)
    assert "Guess My City" in obs and "20 questions" in obs and "Is it <city>?" in obs
    assert info["instruction"] == obs and "legal_actions" not in info
    assert info["turn"] == 0


def test_rewards_and_a_win():
    env = GuessMyCityEnv()
    env.reset(options={"city": "Tokyo"})
    obs, reward, terminated, truncated, info = env.step("Is it in Asia?")
    assert obs == "Yes.\n19 questions left." and reward == -1.0
    assert (terminated, truncated, info["answer_kind"]) == (False, False, "yes")
    obs, reward, terminated, truncated, info = env.step("Is it Kyoto?")
    assert obs.startswith("No, it is not Kyoto.") and reward == -1.0 and not terminated
    assert info["answer_kind"] == "guess_wrong"
    obs, reward, terminated, truncated, info = env.step("tokyo?")
    assert obs == "Yes! It is Tokyo.\nYou found it with 3 questions."
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["success"] is True and info["city"] == "Tokyo"
    assert info["answer_kind"] == "guess_correct"


def test_running_out_of_questions_truncates_and_reveals():
    env = GuessMyCityEnv(max_turns=3)
    env.reset(options={"city": "Lima"})
    results = [env.step("Is it in Europe?") for _ in range(3)]
    assert [r[1] for r in results] == [-1.0, -1.0, -1.0]
    assert [(r[2], r[3]) for r in results] == [(False, False), (False, False), (False, True)]
    obs, info = results[-1][0], results[-1][4]
    assert obs == "No.\nNo questions left. The city was Lima."
    assert info["success"] is False and info["city"] == "Lima"
    assert env.step("Is it Lima?")[4]["invalid_action"]  # no late win


def test_a_right_guess_on_the_last_question_wins():
    env = GuessMyCityEnv(max_turns=2)
    env.reset(options={"city": "Lima"})
    env.step("Is it in Peru?")
    _, reward, terminated, truncated, info = env.step("Is it Lima?")
    assert (reward, terminated, truncated, info["success"]) == (0.0, True, False, True)


def test_registered_time_limit_matches():
    env = gym.make(ID)
    assert env.spec.max_episode_steps == 20
    env.reset(options={"city": "Lima"})
    for _ in range(19):
        assert not any(env.step("Is it in Europe?")[2:4])
    _, _, terminated, truncated, info = env.step("Is it in Europe?")
    assert truncated and not terminated and info["city"] == "Lima"


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("", "the question is empty"),
        ("   \n\t", "the question is empty"),
        ("x" * (MAX_QUESTION_LENGTH + 1), f"at most {MAX_QUESTION_LENGTH} characters"),
        (None, "actions are strings"),
    ],
)
def test_invalid_questions(action, reason):
    env = GuessMyCityEnv()
    env.reset(options={"city": "Paris"})
    _, reward, terminated, truncated, info = env.step(action)
    assert info["invalid_action"] and reason in info["invalid_reason"]
    assert (reward, terminated, truncated) == (-1.0, False, False)
    assert env.questions_left == 20 and env.history == ()


def test_odd_questions_are_not_invalid():
    env = GuessMyCityEnv()
    env.reset(options={"city": "Paris"})
    for question in ["???", "Tell me a joke", "x" * MAX_QUESTION_LENGTH, "是巴黎吗", "42"]:
        _, _, _, _, info = env.step(question)
        assert info["invalid_action"] is False
        assert info["answer_kind"] == "unknown"


def test_reset_city_option():
    env = gym.make(ID)
    env.reset(options={"city": "  new york "})
    assert env.unwrapped.city.name == "New York City"
    env.reset(options={"city": "Bombay"})
    assert env.unwrapped.city.name == "Mumbai"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"city": "Atlantis"}, "must name a city of the table"),
        ({"city": 3}, "must name a city of the table"),
        ({"city": "Paris or London"}, "must name a city of the table"),
        ({"secret": "Paris"}, "unknown reset options"),
    ],
)
def test_bad_reset_options(options, message):
    env = GuessMyCityEnv()
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_turns": 0}, "max_turns must be an int >= 1"),
        ({"max_turns": "20"}, "max_turns must be an int >= 1"),
        ({"max_turns": 2.5}, "max_turns must be an int >= 1"),
        ({"max_turns": True}, "max_turns must be an int >= 1"),
        ({"oracle": "gpt"}, "oracle must be None"),
        ({"max_invalid_actions": 0}, "max_invalid_actions must be a positive int"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(ID, **kwargs)


def test_seeding():
    env = GuessMyCityEnv()
    names = []
    for seed in range(40):
        env.reset(seed=seed)
        names.append(env.city.name)
    again = []
    for seed in range(40):
        env.reset(seed=seed)
        again.append(env.city.name)
    assert names == again and len(set(names)) >= 30


def test_oracle_hook():
    calls = []

    def stub(secret: str, question: str) -> str:
        calls.append((secret, question))
        return f"Stub says hi about {len(question)} chars."

    env = gym.make(ID, oracle=stub)
    env.reset(options={"city": "Cairo"})
    obs, reward, _, _, info = env.step("Is it in Africa?")
    assert obs.splitlines()[0] == "Stub says hi about 16 chars."
    assert info["answer_kind"] == "oracle" and reward == -1.0
    assert calls == [("Cairo", "Is it in Africa?")]
    # guesses are still judged by the env, without calling the hook
    obs, _, terminated, _, info = env.step("Is it Lagos?")
    assert obs.startswith("No, it is not Lagos.") and not terminated
    obs, reward, terminated, _, info = env.step("My guess is Cairo")
    assert (reward, terminated, info["success"]) == (0.0, True, True)
    assert len(calls) == 1


def test_render_and_state_key():
    env = gym.make(ID, render_mode="ansi")
    _, info = env.reset(options={"city": "Oslo"})
    assert info["state_key"] == "start"
    _, _, _, _, info = env.step("Is it a capital?")
    assert info["state_key"] == "is it a capital=Yes."
    env.step("Is it Oslo?")
    assert env.render() == (
        "Guess My City: 2 of 20 questions asked\n"
        "  Q: Is it a capital?\n  A: Yes.\n"
        "  Q: Is it Oslo?\n  A: Yes! It is Oslo.\n"
        "The city was Oslo."
    )


# -- the expert ----------------------------------------------------------------------


@pytest.mark.parametrize("use_landmarks", [True, False])
def test_expert_200_seeds(use_landmarks):
    result = evaluate(
        ID, lambda env: GuessMyCityExpert(env, use_landmarks=use_landmarks), episodes=200
    )
    assert result.success_rate >= 0.95
    assert all(e.invalid == 0 for e in result.episodes)
    assert all(e.steps <= 20 for e in result.episodes)
    assert result.mean_return >= (-1.5 if use_landmarks else -4.0)


def test_expert_reads_answers_not_the_secret():
    env = GuessMyCityEnv()
    expert = GuessMyCityExpert(env, use_landmarks=False)
    obs, info = env.reset(options={"city": "Quito"})
    done = False
    while not done:
        question = expert.act(obs, info)
        obs, _, terminated, truncated, info = env.step(question)
        done = terminated or truncated
        if not done:
            assert "Quito" in expert.candidates
    assert info["success"]


def test_expert_under_an_unhelpful_hook_still_guesses_validly():
    env = GuessMyCityEnv(oracle=lambda secret, q: "Maybe.")
    expert = GuessMyCityExpert(env)
    obs, info = env.reset(seed=3)
    for _ in range(20):
        action = expert.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        assert not info["invalid_action"]
        if terminated or truncated:
            break
    assert re.match(r"Is it .+\?", action)
