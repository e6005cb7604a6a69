"""The rule-based oracles against the knowledge they hold, phrasing by phrasing.

For each attribute a list of natural phrasings (comparisons, negations, paraphrases)
is asked about every object or city, and the answer must follow from the table:
comparisons by their comparative and what they compare with, negations flipped.
"""

from __future__ import annotations

import re

import pytest

from turngym.envs.text.city_data import CITIES, COUNTRY_ALIASES
from turngym.envs.text.city_oracle import respond
from turngym.envs.text.twenty_questions import parse_question, rule_based_answer
from turngym.envs.text.twenty_questions_data import OBJECTS

YES, NO, UNKNOWN = "Yes.", "No.", "I don't know."

# (question, attribute, asks the opposite)
SIZE = [
    ("Is it bigger than a breadbox?", "big", False),
    ("Is it smaller than a breadbox?", "big", True),
    ("Is it larger than a bread box?", "big", False),
    ("Is it smaller than a bread box?", "big", True),
    ("Is it tinier than a breadbox?", "big", True),
    ("Is it not bigger than a breadbox?", "big", True),
    ("Is it bigger than a person?", "huge", False),
    ("Is it smaller than a person?", "huge", True),
    ("Is it lighter than a person?", "huge", True),
    ("Is it shorter than a person?", "huge", True),
    ("Is it heavier than a person?", "huge", False),
    ("Is it taller than an adult?", "huge", False),
    ("Is it smaller than me?", "huge", True),
    ("Is it larger than a human?", "huge", False),
    ("Is it bigger than a car?", "giant", False),
    ("Is it smaller than a car?", "giant", True),
    ("Is it lighter than a car?", "giant", True),
    ("Would it be longer than a car?", "giant", False),
]
NEGATIONS = [
    ("Is it not an animal?", "animal"),
    ("Is it not alive?", "alive"),
    ("Can it not fly?", "fly"),
    ("Is it not made of metal?", "metal"),
    ("Does it not have legs?", "legs"),
    ("Is it not something you can eat?", "food"),
    ("Is it not man-made?", "man_made"),
]
BEYOND = ["Is it bigger than a house?", "Is it smaller than a house?", "Is it bigger than a mouse?"]


def _wrongly_answered(question: str, attribute: str, opposite: bool) -> list[str]:
    """The objects whose answer does not follow from the table."""
    parsed = parse_question(question)
    wrong = []
    for obj in OBJECTS:
        if attribute in obj.unknown:
            expected = UNKNOWN
        else:
            expected = YES if (attribute in obj.true) != opposite else NO
        if rule_based_answer(obj.name, parsed)[0] != expected:
            wrong.append(obj.name)
    return wrong


@pytest.mark.parametrize(("question", "attribute", "opposite"), SIZE)
def test_twenty_questions_size_comparisons(question, attribute, opposite):
    wrong = _wrongly_answered(question, attribute, opposite)
    assert not wrong, f"{question!r} wrong for {len(wrong)} objects: {wrong[:5]}"


@pytest.mark.parametrize(("question", "attribute"), NEGATIONS)
def test_twenty_questions_negations(question, attribute):
    wrong = _wrongly_answered(question, attribute, opposite=True)
    assert not wrong, f"{question!r} wrong for {len(wrong)} objects: {wrong[:5]}"


@pytest.mark.parametrize("question", BEYOND)
def test_twenty_questions_does_not_guess_beyond_its_knowledge(question):
    assert {rule_based_answer(o.name, parse_question(question))[0] for o in OBJECTS} == {UNKNOWN}


def _in_europe(city) -> bool:
    return "Europe" in city.continents


# (question, truth as a function of the city)
CITY_PHRASINGS = [
    ("Is it in Europe?", _in_europe),
    ("Is it outside Europe?", lambda c: not _in_europe(c)),
    ("Is it not in Europe?", lambda c: not _in_europe(c)),
    ("Is it a city outside of Europe?", lambda c: not _in_europe(c)),
    ("Is it in Europe or not?", _in_europe),
    ("Is it not in Asia?", lambda c: "Asia" not in c.continents),
    ("Is it on the coast?", lambda c: c.coastal),
    ("Is it far from the sea?", lambda c: not c.coastal),
    ("Is it not on the coast?", lambda c: not c.coastal),
    ("Is it away from the ocean?", lambda c: not c.coastal),
    ("Is it landlocked?", lambda c: not c.coastal),
    ("Is it not landlocked?", lambda c: c.coastal),
    ("Is it the capital?", lambda c: c.capital),
    ("Is it not the capital?", lambda c: not c.capital),
    ("Is it in the southern hemisphere?", lambda c: c.hemisphere == "southern"),
    ("Is it not in the southern hemisphere?", lambda c: c.hemisphere != "southern"),
    ("Does it have more than 10 million people?", lambda c: c.population > 10),
    ("Does it not have more than 10 million people?", lambda c: not c.population > 10),
]


@pytest.mark.parametrize(("question", "truth"), CITY_PHRASINGS, ids=[q for q, _ in CITY_PHRASINGS])
def test_guess_my_city_negations_and_comparisons(question, truth):
    wrong = [c.name for c in CITIES if respond(c, question).text != (YES if truth(c) else NO)]
    assert not wrong, f"{question!r} wrong for {len(wrong)} cities: {wrong[:5]}"


OPEN = [
    "What is a famous landmark there?",
    "What is it famous for?",
    "What landmarks are there?",
    "What language do they speak?",
    "Where is it?",
    "What is the climate like?",
    "How many people live there?",
    "Which country is it in?",
    "What is the city called?",
    "What is its name?",
]


def test_open_answers_never_name_the_city_or_its_country():
    leaks = []
    for city in CITIES:
        names = [city.name, *city.aliases, city.country, *COUNTRY_ALIASES.get(city.country, ())]
        for question in OPEN:
            text = respond(city, question).text
            for continent in city.continents:  # "North America" is not "America"
                text = text.replace(continent, "")
            leaks += [
                (city.name, question, name)
                for name in names
                if re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE)
            ]
    assert not leaks, leaks[:5]
