"""The rule-based oracle of ``GuessMyCity-v0``: free-text question in, answer out.

A question is parsed once, independently of the secret city (``parse_question``, cached),
into tags found by a lexicon scan: longest phrases first, exact matches, then fuzzy
(``difflib``) matches for typos. ``respond(city, question)`` then answers it:

- guesses ("Is it Paris?", "My guess is NYC", "Paris?") -> ``guess_correct`` / ``guess_wrong``;
- yes/no questions about the continent, region, country, language, capital, coast,
  hemisphere, climate, landmarks or population ("Does it have more than 5 million
  people?", "Is it bigger than London?") -> "Yes." / "No.";
- open questions (continent, language, population band, climate, hemisphere, landmarks,
  coast, capital) -> a fact from the table;
- questions about the country or the name -> a refusal (the country one names the
  continent instead, to keep the game from collapsing to "which country?");
- anything else -> "I don't know." with a hint of what can be asked.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from turngym.envs.text.city_data import (
    CITIES,
    CLIMATES,
    CONTINENTS,
    COUNTRY_ALIASES,
    DEMONYMS,
    EXTRA_COUNTRIES,
    LANGUAGE_ALIASES,
    REGIONS,
    City,
)

__all__ = [
    "UNKNOWN",
    "Answer",
    "Parsed",
    "find_city",
    "normalize_text",
    "parse_question",
    "respond",
]

UNKNOWN = "I don't know."
_HINT = (
    " I can tell you about its continent, language, population, climate, hemisphere, coast, "
    "capital status and famous landmarks, or answer yes/no questions about them; to guess, "
    "ask 'Is it <city>?'."
)


@dataclass(frozen=True)
class Answer:
    """The oracle's reply: its text and kind.

    ``kind`` is one of ``yes``, ``no``, ``fact``, ``refusal``, ``unknown``,
    ``guess_correct``, ``guess_wrong``.
    """

    kind: str
    text: str


# -- normalisation -------------------------------------------------------------------


def normalize_text(text: str) -> str:
    """Lower-case ASCII words and numbers, accents and punctuation dropped.

    >>> normalize_text("  Is it São Paulo, Brazil?? (pop. 12,300,000 / 12.3M)")
    'is it sao paulo brazil pop 12300000 12.3m'
    """
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)  # 12,300,000 -> 12300000
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", "", text)  # u.s.a. -> usa, keep 5.5
    text = re.sub(r"['\u2019`]", "", text)  # st mark's -> st marks
    return " ".join(re.sub(r"[^a-z0-9.]+", " ", text).split())


# -- the lexicon ---------------------------------------------------------------------

Tag = tuple[str, Any]
"""(kind, value): kinds are city, country, continent, language, demonym, landmark,
climate, coast, capital, hemisphere, megacity and topic (value: the topic's name)."""


def _phrases(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",") if p.strip())


_TOPICS: dict[str, tuple[str, ...]] = {
    "continent": _phrases("continent, continents, part of the world"),
    "country": _phrases("country, countries, nation, nationality"),
    "language": _phrases("language, languages, speak, speaks, spoken, speaking, tongue"),
    "landmark": _phrases(
        "landmark, landmarks, famous, known for, sights, sight, attraction, attractions, monument, "
        "monuments, tourist, tourists, visit, see there, famous for"
    ),
    "population": _phrases(
        "population, populous, how many people, people live, many people, people living, "
        "inhabitants, residents, big, large, huge, small, tiny, size, how many, million, millions, "
        "thousand, live there, lives there, bigger, larger, smaller"
    ),
    "climate": _phrases(
        "climate, weather, temperature, temperatures, hot, cold, warm, rain, rainy, snow, snowy, "
        "humid, dry, mild"
    ),
    "hemisphere": _phrases("hemisphere, equator"),
    "name": _phrases(
        "name, named, called, letter, letters, spell, spelled, spelling, start with, starts with, "
        "begin with, begins with, end with"
    ),
    "where": _phrases("where, located, location"),
}

_VALUE_WORDS: dict[str, Tag] = {
    "capital": ("capital", True),
    "capital city": ("capital", True),
    "capitol": ("capital", True),
    "seat of government": ("capital", True),
    "coast": ("coast", True),
    "coastal": ("coast", True),
    "sea": ("coast", True),
    "ocean": ("coast", True),
    "seaside": ("coast", True),
    "beach": ("coast", True),
    "beaches": ("coast", True),
    "port": ("coast", True),
    "seaport": ("coast", True),
    "by the sea": ("coast", True),
    "on the water": ("coast", True),
    "shore": ("coast", True),
    "landlocked": ("coast", False),
    "inland": ("coast", False),
    "southern hemisphere": ("hemisphere", "southern"),
    "south of the equator": ("hemisphere", "southern"),
    "northern hemisphere": ("hemisphere", "northern"),
    "north of the equator": ("hemisphere", "northern"),
    "megacity": ("megacity", True),
    "mega city": ("megacity", True),
}

# Things the table does not record: asking about them gets "I don't know." rather than
# an answer about a nearby word ("the Atlantic" is not just "the coast").
_UNSUPPORTED = _phrases(
    "atlantic, atlantic ocean, pacific, pacific ocean, indian ocean, arctic, arctic ocean, "
    "mediterranean sea, baltic sea, north sea, caribbean sea, red sea, black sea, "
    "on the mediterranean, near the mediterranean, by the mediterranean, persian gulf, gulf, bay, "
    "lake, lakes, river, rivers, island, islands, western hemisphere, eastern hemisphere, "
    "west of greenwich, time zone, state, province, mountains, hills, desert nearby, border, "
    "borders"
)

_CLIMATE_WORDS: dict[str, tuple[str, ...]] = {
    **{c: (c,) for c in CLIMATES},
    "arid": ("desert",),
    "dry": ("desert",),
    "semi arid": ("desert",),
    "hot": ("tropical", "desert"),
    "warm": ("tropical", "subtropical", "desert", "mediterranean"),
    "humid": ("tropical", "subtropical"),
    "mild": ("temperate", "mediterranean"),
    "cold": ("continental", "cold"),
    "snow": ("continental", "cold"),
    "snowy": ("continental", "cold"),
    "freezing": ("continental", "cold"),
}

_CONTINENT_WORDS: dict[str, tuple[str, ...]] = {
    **{c: (c,) for c in CONTINENTS},
    "european": ("Europe",),
    "asian": ("Asia",),
    "african": ("Africa",),
    "north american": ("North America",),
    "south american": ("South America",),
    "oceanian": ("Oceania",),
    "australasia": ("Oceania",),
    "antarctica": (),
    "americas": ("North America", "South America"),
}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that may surround a city name in a plain guess ("Is it in Paris, France?").
_GUESS_FILLER = _words(
    "is it its the city secret your my guess i think maybe perhaps could be this that "
    "a in of then ok okay so what about how you are thinking answer final located "
    "called named town then well hmm must would will it s"
)
_EXPLICIT_GUESS = re.compile(
    r"^(?:(?:my|final|the|our) )*(?:guess|answer)(?: is)? (?P<x>.+)$"
    r"|^i (?:guess|think) (?:(?:it is|its|the city is|that it is|you mean) )?(?P<y>.+)$"
    r"|^(?:the )?(?:secret )?city is (?P<z>.+)$"
)
_AUX = _words(
    "is are does do did can could has have was were will would should isnt arent "
    "doesnt dont am shall"
)
_WH = _words("what whats which where wheres how who tell name describe give list when why")
_MORE = _phrases(
    "more, over, above, greater, bigger, larger, exceed, exceeds, at least, upwards of, "
    "more populous"
)
_LESS = ("less", "fewer", "under", "below", "smaller", "at most", "less populous")
_NUMBER_WORDS: dict[str, float] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "hundred": 100,
    "a hundred": 100,
    "half a": 0.5,
}
_NUMBER = re.compile(
    r"\b(?P<n>\d+(?:\.\d+)?|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
    r" ?(?P<unit>million|millions|mln|m|thousand|k|billion)?\b"
)
_STOP_FUZZY = _words(
    "there their where which what people about have does would could should think "
    "guess city cities there these those other place thing really please maybe known "
    "island islands state states canon"
)


def _add(lex: dict[str, list[Tag]], phrase: str, tag: Tag) -> None:
    key = normalize_text(phrase)
    if key.startswith("the ") and len(key) > 4:
        key = key[4:]
    if key and tag not in lex.setdefault(key, []):
        lex[key].append(tag)


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, list[Tag]]:
    lex: dict[str, list[Tag]] = {}
    countries = sorted({c.country for c in CITIES} | set(EXTRA_COUNTRIES))
    for i, city in enumerate(CITIES):
        for name in (city.name, *city.aliases):
            _add(lex, name, ("city", i))
        for mark, aliases in zip(city.landmarks, city.landmark_aliases, strict=True):
            for m in (mark, *aliases):
                _add(lex, m, ("landmark", i))
    for country in countries:
        _add(lex, country, ("country", (country,)))
    for country, aliases in COUNTRY_ALIASES.items():
        for alias in aliases:
            _add(lex, alias, ("country", (country,)))
    for region, members in REGIONS.items():
        _add(lex, region, ("country", members))
    languages = {lang for c in CITIES for lang in c.languages}
    lang_words: dict[str, set[str]] = {}
    for lang in languages:
        lang_words.setdefault(lang, set()).add(lang)
        if " " in lang:  # "Mandarin Chinese" is also asked as plain "Mandarin"
            lang_words.setdefault(lang.split()[0], set()).add(lang)
    for alias, langs in LANGUAGE_ALIASES.items():
        lang_words.setdefault(alias, set()).update(langs)
    for word, spoken in lang_words.items():
        if word in DEMONYMS:  # "French": the language, or the country's adjective
            _add(lex, word, ("demonym", (DEMONYMS[word], tuple(sorted(spoken)))))
        else:
            _add(lex, word, ("language", tuple(sorted(spoken))))
    for word, members in DEMONYMS.items():
        if word not in lang_words:
            _add(lex, word, ("country", members))
    for word, conts in _CONTINENT_WORDS.items():
        _add(lex, word, ("continent", conts))
    for word, climates in _CLIMATE_WORDS.items():
        _add(lex, word, ("climate", climates))
    for word, tag in _VALUE_WORDS.items():
        _add(lex, word, tag)
    for word in _UNSUPPORTED:
        _add(lex, word, ("unsupported", word))
    for topic, words in _TOPICS.items():
        for word in words:
            _add(lex, word, ("topic", topic))
    return lex


@lru_cache(maxsize=1)
def _fuzzy_index() -> dict[tuple[int, str], list[str]]:
    index: dict[tuple[int, str], list[str]] = {}
    for key in _lexicon():
        if len(key) >= 5:
            index.setdefault((key.count(" ") + 1, key[0]), []).append(key)
    return index


def _fuzzy(gram: str, n: int) -> str | None:
    if len(gram) < 5 or not re.fullmatch(r"[a-z ]+", gram) or gram in _STOP_FUZZY:
        return None
    pool = _fuzzy_index().get((n, gram[0]), [])
    # Five-letter words need a near-exact match: "green" must not become "Greek".
    cutoff = 0.88 if len(gram) < 6 else 0.8
    close = difflib.get_close_matches(gram, pool, n=1, cutoff=cutoff)
    return close[0] if close else None


def _scan(tokens: list[str]) -> tuple[list[tuple[int, Tag]], list[bool]]:
    """Tags (with their start position) found in ``tokens``, and which tokens they used."""
    lex = _lexicon()
    used = [False] * len(tokens)
    found: list[tuple[int, Tag]] = []
    for fuzzy in (False, True):
        for n in range(min(3 if fuzzy else 8, len(tokens)), 0, -1):
            for i in range(len(tokens) - n + 1):
                if any(used[i : i + n]):
                    continue
                gram = " ".join(tokens[i : i + n])
                key = _fuzzy(gram, n) if fuzzy else (gram if gram in lex else None)
                if key is None:
                    continue
                found.extend((i, tag) for tag in lex[key])
                used[i : i + n] = [True] * n
    found.sort(key=lambda item: item[0])
    return found, used


# -- parsing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    """A question parsed independently of the secret city."""

    text: str
    """the normalized question"""
    form: str
    """``guess``, ``guess_unknown``, ``yes_no``, ``open`` or ``empty``"""
    tags: tuple[Tag, ...] = ()
    guess: int | None = None
    """index into ``CITIES`` of the guessed city"""
    guess_text: str = ""
    """what was guessed, for a guess of a city not in the table"""
    any_of: bool = False
    """an "or" question: Yes when any predicate holds"""
    sign: str | None = None
    """">" or "<" in a size question ("more than", "smaller than")"""
    number: float | None = None
    """millions, from "more than 5 million people" """
    language_context: bool = False
    negated: bool = False
    """the question asks the opposite ("not in Europe", "outside Asia", "far from the sea")"""


def find_city(text: str) -> City | None:
    """The table city that ``text`` names (a name or alias, typos tolerated), or None.

    >>> find_city("nyc").name, find_city("Rio").name, find_city("Pariss").name
    ('New York City', 'Rio de Janeiro', 'Paris')
    >>> find_city("Atlantis") is None
    True
    """
    tokens = normalize_text(text).split()
    found, used = _scan(tokens)
    cities = {value for _, (kind, value) in found if kind == "city"}
    if len(cities) == 1 and all(used):
        return CITIES[int(next(iter(cities)))]
    return None


def _comparison(text: str, population_asked: bool) -> tuple[str | None, float | None]:
    """The comparison sign (">" / "<") of a size question and its number in millions."""
    words = f" {text} "
    sign = None
    for phrase in _MORE:
        if f" {phrase} " in words:
            sign = ">"
    for phrase in _LESS:
        if f" {phrase} " in words:
            sign = "<"
    match = _NUMBER.search(text)
    if sign is None or match is None or not (population_asked or match.group("unit")):
        return sign, None
    raw = match.group("n")
    value = float(_NUMBER_WORDS[raw]) if raw in _NUMBER_WORDS else float(raw)
    unit = match.group("unit") or ""
    if unit in ("thousand", "k"):
        value /= 1000
    elif unit == "billion":
        value *= 1000
    elif not unit and value >= 1000:
        value /= 1_000_000  # a plain head count
    return sign, value


@lru_cache(maxsize=4096)
def parse_question(question: str) -> Parsed:
    """Parse a question once; the answer for any city follows from the result.

    >>> parse_question("Is it Paris?").form, parse_question("Do they speak French?").form
    ('guess', 'yes_no')
    """
    text = normalize_text(question)
    tokens = text.split()
    if not tokens:
        return Parsed(text, "empty")
    found, used = _scan(tokens)
    tags = tuple(tag for _, tag in found)
    cities = {v for k, v in tags if k == "city"}
    others = [
        k
        for k, v in tags
        if k not in ("city", "country", "continent") and v not in ("where", "name")
    ]
    # Words before the city must be filler ("is it", "my guess is"); a few words after it
    # may name a state or a region the table does not know ("Montreal, Quebec").
    first = min((i for i, (k, _) in found if k == "city"), default=0)
    before = [t for t, u in zip(tokens[:first], used, strict=False) if not u]
    after = [t for t, u in zip(tokens[first:], used[first:], strict=True) if not u]
    city_guess = (
        len(cities) == 1
        and not others
        and all(t in _GUESS_FILLER for t in before)
        and sum(t not in _GUESS_FILLER for t in after) <= 2
    )
    if city_guess:
        return Parsed(text, "guess", tags, guess=int(next(iter(cities))))
    explicit = _EXPLICIT_GUESS.match(text)
    if explicit and all(k == "unsupported" for k, _ in tags):
        target = next(g for g in explicit.groups() if g)
        if len(target.split()) <= 4:
            return Parsed(text, "guess_unknown", tags, guess_text=target.title())
    if tokens[0] in _AUX:
        form = "yes_no"
    elif tokens[0] in _WH:
        form = "open"
    else:
        form = "yes_no" if any(k != "topic" for k, _ in tags) else "open"
    topics = {v for k, v in tags if k == "topic"}
    counted = {"people", "inhabitants", "residents", "persons", "citizens"} & set(tokens)
    sign, number = _comparison(text, "population" in topics or bool(counted))
    return Parsed(
        text,
        form,
        tags,
        any_of=" or " in f" {text} ",
        sign=sign,
        number=number,
        language_context="language" in topics,
        negated=_negated(tokens),
    )


# "Isn't it in Europe?" opens with a contraction and asks for a yes; a negation later
# on ("Is it not in Europe?", "so it isn't coastal?") asks the opposite.
_NEGATORS = _words("not never outside isnt arent doesnt dont wasnt cant nor")
_NEGATING_PHRASES = ("far from", "away from", "nowhere near", "not near")


def _negated(tokens: list[str]) -> bool:
    """Whether a yes/no question asks the opposite of its claims."""
    body = tokens[1:] if tokens and tokens[0] in _AUX else tokens
    if body[-2:] == ["or", "not"]:  # "Is it in Europe or not?" asks the plain question
        body = body[:-2]
    text = f" {' '.join(body)} "
    if any(f" {phrase} " in text for phrase in _NEGATING_PHRASES):
        return True
    return sum(t in _NEGATORS for t in body) % 2 == 1  # "not outside" is inside


# -- answering -------------------------------------------------------------------------


def _join(items: Iterable[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _sentence(text: str) -> str:
    return text if text.endswith(".") else text + "."


def _value_tags(p: Parsed) -> list[Tag]:
    return [(k, v) for k, v in p.tags if k not in ("topic", "city")]


def _predicates(p: Parsed, city: City) -> list[bool]:
    """The truth of every checkable claim of a yes/no question about ``city``."""
    out: list[bool] = []
    for kind, value in _value_tags(p):
        if kind == "continent":
            out.append(any(c in city.continents for c in value))
        elif kind == "country":
            out.append(city.country in value)
        elif kind == "language":
            out.append(any(lang in city.languages for lang in value))
        elif kind == "demonym":
            countries, langs = value
            if p.language_context:
                out.append(any(lang in city.languages for lang in langs))
            else:
                out.append(city.country in countries)
        elif kind == "landmark":
            out.append(CITIES[value] == city)
        elif kind == "climate":
            out.append(city.climate in value)
        elif kind == "coast":
            out.append(city.coastal == value)
        elif kind == "capital":
            out.append(city.capital)
        elif kind == "hemisphere":
            out.append(city.hemisphere == value)
        elif kind == "megacity":
            out.append(city.population >= 10)
    cities = [v for k, v in p.tags if k == "city"]
    if p.sign is not None and (cities or p.number is not None):
        # "bigger than London?" compares with that city, "over 5 million?" with the number
        other = CITIES[cities[0]].population if cities else p.number
        assert other is not None
        out.append(city.population > other if p.sign == ">" else city.population < other)
    return out


def _fact_topics(p: Parsed) -> list[str]:
    """The fact topics a question asks about, in the order asked, without repeats."""
    out: list[str] = []
    for kind, value in p.tags:
        if kind == "topic":
            topic = str(value)
        elif kind == "demonym":
            topic = "language" if p.language_context else ""
        elif kind == "megacity":
            topic = "population"
        else:
            topic = kind
        if topic in _FACT_TOPICS and topic not in out:
            out.append(topic)
    return out


_FACT_TOPICS = (
    "continent",
    "where",
    "language",
    "landmark",
    "population",
    "climate",
    "hemisphere",
    "coast",
    "capital",
)


def _fact(topic: str, city: City) -> str:
    place = (
        f"It lies in both {_join(city.continents)}"
        if len(city.continents) > 1
        else f"It is in {city.continents[0]}"
    )
    if topic == "continent":
        return place + "."
    if topic == "where":
        return f"{place}, in the {city.hemisphere} hemisphere."
    if topic == "language":
        return f"People there mainly speak {_join(city.languages)}."
    if topic == "landmark":
        return f"Famous landmarks there: {_join(city.landmarks)}."
    if topic == "population":
        return f"It has {city.band} people."
    if topic == "climate":
        return f"It has a {city.climate} climate."
    if topic == "hemisphere":
        return f"It is in the {city.hemisphere} hemisphere."
    if topic == "coast":
        return "It is on the coast." if city.coastal else "It is not on the coast."
    return (
        "It is the capital of its country." if city.capital else "It is not its country's capital."
    )


def _yes_no(p: Parsed, city: City) -> Answer | None:
    preds = _predicates(p, city)
    if not preds:
        return None
    yes = any(preds) if p.any_of else all(preds)
    if p.negated:
        yes = not yes
    return Answer("yes", "Yes.") if yes else Answer("no", "No.")


def respond(city: City, question: str) -> Answer:
    """The rule-based oracle's answer about ``city`` to ``question``.

    >>> paris = find_city("Paris")
    >>> respond(paris, "Is it in Europe?").text, respond(paris, "Is it on the coast?").text
    ('Yes.', 'No.')
    >>> respond(paris, "What language do people speak there?").text
    'People there mainly speak French.'
    >>> respond(paris, "Which country is it in?").text
    "I can't tell you the country, but it is in Europe."
    >>> respond(paris, "is it paris?")
    Answer(kind='guess_correct', text='Yes! It is Paris.')
    """
    p = parse_question(question)
    if p.form == "guess" and p.guess is not None:
        guessed = CITIES[p.guess]
        if guessed == city:
            return Answer("guess_correct", _sentence(f"Yes! It is {city.name}"))
        return Answer("guess_wrong", _sentence(f"No, it is not {guessed.name}"))
    if p.form == "guess_unknown":
        return Answer("guess_wrong", f"No, it is not {p.guess_text}.")
    topics = {v for k, v in p.tags if k == "topic"}
    if any(k == "unsupported" for k, _ in p.tags):
        return Answer("unknown", UNKNOWN + _HINT)
    values = _value_tags(p)
    if topics and topics <= {"name"} and not values:
        return Answer("refusal", "I can't tell you the city's name; that is for you to guess.")
    facts = _fact_topics(p)
    if p.form == "open" and "country" in topics:
        where = " and ".join(city.continents)
        return Answer("refusal", f"I can't tell you the country, but it is in {where}.")
    if p.form == "yes_no":
        kinds = {k if k != "demonym" else "language" for k, _ in values}
        if p.any_of and len(values) >= 2 and len(kinds) == 1 and facts and p.sign is None:
            # "Is it in Europe or Asia?" asks which: name it.
            return Answer("fact", " ".join(_fact(t, city) for t in facts))
        answer = _yes_no(p, city)
        if answer is not None:
            return answer
        if len({v for k, v in p.tags if k == "city"}) > 1:
            return Answer("unknown", "One guess at a time, please: ask 'Is it <city>?'.")
    elif p.sign is not None and (p.number is not None or "city" in {k for k, _ in p.tags}):
        answer = _yes_no(p, city)  # "What about more than 5 million?"
        if answer is not None:
            return answer
    if facts:
        return Answer("fact", " ".join(_fact(t, city) for t in facts))
    answer = _yes_no(p, city)  # "What about France?": no fact to tell, a claim to check
    if answer is not None:
        return answer
    return Answer("unknown", UNKNOWN + _HINT)
