"""A generated encyclopedia of fictional entities, and multi-hop questions over it.

``load_corpus(seed)`` builds (once per seed, then cached) about 560 short documents
about invented countries, rivers, cities, people, companies, books and inventions.
Every name is made from syllable tables, and every invented word is used by one
entity only, so titles are unique and no language model can know the facts.

Facts link the entities, one relation per sentence, each stated in the document of
the entity it starts from: a company names its founder and headquarters city, a
person their birth city, a city its river and country, a country its capital, a book
its author, an invention its inventor and maker. Every relation is a function (one
target per entity), so a chain of relations from a start entity has exactly one
answer; ``make_question`` turns such a chain (2 or 3 hops) into a question.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from turngym.core import read_int
from turngym.envs.text.bm25 import BM25Index

__all__ = [
    "CORPUS_SEED",
    "TEMPLATES",
    "Corpus",
    "Document",
    "Question",
    "Template",
    "load_corpus",
    "make_question",
    "normalize_answer",
]

CORPUS_SEED = 20_240_601
"""The seed of the corpus every ``SearchQA-v0`` episode uses."""

# How many entities of each kind (documents: 12 + 24 + 72 + 280 + 60 + 60 + 50 = 558).
N_COUNTRIES = 12
RIVERS_PER_COUNTRY = 2
CITIES_PER_COUNTRY = 6
N_PEOPLE = 280
N_COMPANIES = 60
N_BOOKS = 60
N_INVENTIONS = 50

# Syllable and word tables (fmt: off keeps them compact, several words a line).
# fmt: off
_ONSETS = (
    "b", "br", "c", "d", "dr", "f", "g", "gr", "h", "k", "l", "m", "n",
    "p", "pr", "r", "s", "st", "t", "tr", "v", "w", "z", "th", "sh",
)
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "u", "a", "e", "o", "ai", "ei", "ou", "ia")
_CODAS = ("", "", "", "n", "r", "l", "s", "th", "m", "nd", "rn", "x")
_CITY_ENDS = (
    "wick", "ford", "haven", "mere", "holt", "bury", "stead", "port", "mouth", "gate", "field",
    "dale",
)
_COUNTRY_ENDS = ("ia", "ova", "ara", "and", "esh", "ovia", "istan", "ania")
_COMPANY_KINDS = (
    "Labs", "Works", "Industries", "Foundry", "Mills", "Instruments", "Shipyards", "Dynamics",
)
_INVENTION_KINDS = (
    "Engine", "Lamp", "Loom", "Press", "Valve", "Compass", "Telegraph", "Pump", "Clock", "Kiln",
    "Lens",
)
_BOOK_PATTERNS = (
    "The Ballad of {w}",
    "Winter in {w}",
    "The {w} Letters",
    "{w} and the Sea",
    "A History of {w}",
    "The Last Days of {w}",
    "Songs from {w}",
    "The {w} Affair",
)
_PROFESSIONS = (
    "chemist", "engineer", "painter", "novelist", "physician", "architect", "botanist",
    "mathematician", "merchant", "astronomer", "composer", "shipbuilder",
)
_CITY_KINDS = ("port", "market", "mill", "mining", "university", "harbour", "garrison", "river")
_REGIONS = ("northern", "southern", "eastern", "western", "central", "coastal")
_INDUSTRIES = (
    "glassware", "textiles", "steel", "instruments", "ships", "chemicals", "clocks", "paper",
)
_GENRES = ("a novel", "a book of poems", "a memoir", "a history", "a play", "a travel book")
# fmt: on


@dataclass(frozen=True)
class Document:
    """One encyclopedia entry: an id such as ``d0042``, a unique title, and its text."""

    id: str
    title: str
    text: str
    kind: str
    """``country``, ``river``, ``city``, ``person``, ``company``, ``book`` or ``invention``"""


@dataclass(frozen=True)
class Template:
    """A question shape: a start kind, the relations to follow, and the wording."""

    kind: str
    relations: tuple[str, ...]
    text: str
    """the question with ``{x}`` for the start entity's title"""


@dataclass(frozen=True)
class Question:
    """A drawn question and its solution path (privileged: the agent sees ``text``)."""

    text: str
    answer: str
    aliases: tuple[str, ...]
    """normalised strings accepted as correct"""
    chain: tuple[str, ...]
    """titles of the entities whose documents state each hop, start entity first"""
    relations: tuple[str, ...]

    @property
    def hops(self) -> int:
        """Relations to follow from the start entity to the answer."""
        return len(self.relations)


@dataclass
class Corpus:
    """The documents, their facts and a BM25 index over them."""

    seed: int
    docs: tuple[Document, ...]
    facts: MappingProxyType[str, MappingProxyType[str, str]]
    """entity title -> relation -> target title"""
    index: BM25Index = field(repr=False)
    by_id: dict[str, Document] = field(default_factory=dict, repr=False)
    by_title: dict[str, Document] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.by_id = {d.id: d for d in self.docs}
        self.by_title = {normalize_answer(d.title): d for d in self.docs}
        self._kinds: dict[str, list[str]] = {}
        for d in self.docs:
            self._kinds.setdefault(d.kind, []).append(d.title)

    def titled(self, title: str) -> Document:
        """The document about ``title`` (matched after ``normalize_answer``)."""
        return self.by_title[normalize_answer(title)]

    def lookup(self, ref: str) -> Document | None:
        """The document named by an id (``d0042``, ``D42``, ``42``) or a title; else None."""
        key = ref.strip().lower()
        digits = key[1:] if key.startswith("d") else key
        number = read_int(digits) if digits.isdecimal() else None
        if number is not None:
            doc = self.by_id.get(f"d{number:04d}")
            if doc is not None:
                return doc
        return self.by_title.get(normalize_answer(ref))

    def search(self, query: str, k: int = 5) -> list[Document]:
        """The ``k`` best documents for ``query`` under BM25, best first."""
        return [self.docs[i] for i, _ in self.index.search(query, k)]

    def of_kind(self, kind: str) -> list[str]:
        """Titles of every entity of ``kind``, in document order."""
        return list(self._kinds.get(kind, []))


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans(dict.fromkeys(string.punctuation, " "))


def normalize_answer(text: str) -> str:
    """Lower case, punctuation and the articles a/an/the removed, spaces collapsed.

    >>> normalize_answer("  The Selvan-River. ")
    'selvan river'
    """
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


# -- names ---------------------------------------------------------------------------


class _Names:
    """Draws pronounceable invented words, each used at most once in a corpus."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def _pick(self, table: tuple[str, ...] | list[str]) -> str:
        return table[int(self.rng.integers(len(table)))]

    def word(self, syllables: tuple[int, int] = (2, 3), end: tuple[str, ...] = ("",)) -> str:
        while True:
            n = int(self.rng.integers(syllables[0], syllables[1] + 1))
            parts = [self._pick(_ONSETS) + self._pick(_VOWELS) for _ in range(n)]
            tail = self._pick(end)
            word = "".join(parts)
            if tail and tail[0] in "aeiou":
                word = word.rstrip("aeiou") + tail  # "Bra" + "ova" reads better as "Brova"
            else:
                word += tail or self._pick(_CODAS)
            if 4 <= len(word) <= 12 and word not in self.used:
                self.used.add(word)
                return word.capitalize()


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _build(seed: int) -> tuple[list[tuple[str, str, str]], dict[str, dict[str, str]]]:
    """(kind, title, text) entries and the facts table, from ``seed``."""
    rng = np.random.default_rng(seed)
    names = _Names(rng)

    def pick(table: list[str] | tuple[str, ...]) -> str:
        return table[int(rng.integers(len(table)))]

    facts: dict[str, dict[str, str]] = {}
    entries: list[tuple[str, str, str]] = []
    countries = [names.word((1, 2), tuple(_COUNTRY_ENDS)) for _ in range(N_COUNTRIES)]
    rivers: dict[str, list[str]] = {}
    cities: dict[str, list[str]] = {}
    city_river: dict[str, str] = {}
    for country in countries:
        rivers[country] = [f"{names.word((2, 2))} River" for _ in range(RIVERS_PER_COUNTRY)]
        cities[country] = [names.word((1, 2), tuple(_CITY_ENDS)) for _ in range(CITIES_PER_COUNTRY)]
        for i, city in enumerate(cities[country]):
            city_river[city] = rivers[country][i % RIVERS_PER_COUNTRY]

    for country in countries:
        capital = cities[country][0]
        facts[country] = {"capital": capital}
        text = (
            f"{country} is a country in the {pick(_REGIONS)} part of the continent. "
            f"Its capital is {capital}. Other cities of {country} include "
            f"{_join(cities[country][1:4])}. It is known for its {pick(_INDUSTRIES)}."
        )
        entries.append(("country", country, text))
        for river in rivers[country]:
            banks = [c for c in cities[country] if city_river[c] == river]
            text = (
                f"The {river} is a river of {country}, about {int(rng.integers(80, 900))} "
                f"kilometres long. Towns on its banks include {_join(banks[:2])}."
            )
            entries.append(("river", river, text))
            facts[river] = {}
        for city in cities[country]:
            river = city_river[city]
            facts[city] = {"country": country, "river": river}
            text = (
                f"{city} is a {pick(_CITY_KINDS)} city on the {river} in the country of "
                f"{country}. About {int(rng.integers(5, 900)) * 1000:,} people live in {city}."
            )
            if city == cities[country][0]:
                text += f" {city} is the capital of {country}."
            entries.append(("city", city, text))

    all_cities = [c for country in countries for c in cities[country]]
    people: list[tuple[str, str, int]] = []  # (name, pronoun, birth year)
    for _ in range(N_PEOPLE):
        name = f"{names.word((2, 3), ('',))} {names.word((1, 2))}"
        people.append((name, pick(["She", "He"]), int(rng.integers(1780, 1960))))
        facts[name] = {"birthplace": pick(all_cities)}

    def distinct_people(n: int) -> list[int]:
        return [int(i) for i in rng.choice(N_PEOPLE, size=n, replace=False)]

    extra: dict[str, list[str]] = {p[0]: [] for p in people}
    companies: list[str] = []
    for who in distinct_people(N_COMPANIES):
        name, pronoun, born = people[who]
        company = f"{names.word((2, 2))} {pick(_COMPANY_KINDS)}"
        companies.append(company)
        year = born + int(rng.integers(22, 50))
        facts[company] = {"founder": name, "headquarters": pick(all_cities)}
        hq = facts[company]["headquarters"]
        text = (
            f"{company} is a company that makes {pick(_INDUSTRIES)}. It was founded by "
            f"{name} in {year}. {company} is headquartered in {hq}."
        )
        entries.append(("company", company, text))
        extra[name].append(f"{pronoun} founded {company} in {year}.")
    for who in distinct_people(N_BOOKS):
        name, pronoun, born = people[who]
        book = pick(_BOOK_PATTERNS).format(w=names.word((2, 3)))
        year = born + int(rng.integers(20, 60))
        genre = pick(_GENRES)
        facts[book] = {"author": name}
        text = f"{book} is {genre} by {name}, first published in {year}."
        entries.append(("book", book, text))
        extra[name].append(f"{pronoun} wrote {book}.")
    for who in distinct_people(N_INVENTIONS):
        name, pronoun, born = people[who]
        invention = f"{names.word((2, 2))} {pick(_INVENTION_KINDS)}"
        year = born + int(rng.integers(20, 55))
        maker = pick(companies)
        facts[invention] = {"inventor": name, "maker": maker}
        text = (
            f"The {invention} is an invention of {name}, patented in {year}. "
            f"Today the {invention} is manufactured by {maker}."
        )
        entries.append(("invention", invention, text))
        extra[name].append(f"{pronoun} invented the {invention}.")
    for name, _, born in people:
        city = facts[name]["birthplace"]
        job = pick(_PROFESSIONS)
        article = "an" if job[0] in "aeiou" else "a"
        text = f"{name} is {article} {job} born in {born} in the city of {city}."
        entries.append(("person", name, " ".join([text, *extra[name]])))
    return entries, facts


@functools.lru_cache(maxsize=4)
def load_corpus(seed: int = CORPUS_SEED) -> Corpus:
    """The corpus of ``seed``, built on first use (about 0.1 s) and cached.

    >>> corpus = load_corpus()
    >>> len(corpus.docs) >= 500 and corpus.docs[0].id
    'd0000'
    """
    entries, facts = _build(seed)
    # Shuffle so that a document id says nothing about the kind of entity.
    order = np.random.default_rng(seed + 1).permutation(len(entries))
    docs = tuple(
        Document(f"d{i:04d}", entries[j][1], entries[j][2], entries[j][0])
        for i, j in enumerate(order)
    )
    # The title is indexed twice (a cheap field boost): a query naming an entity then
    # ranks that entity's own document above the documents that merely mention it.
    index = BM25Index([f"{d.title}. {d.title}. {d.text}" for d in docs])
    frozen = MappingProxyType({k: MappingProxyType(v) for k, v in facts.items()})
    return Corpus(seed, docs, frozen, index)


# -- questions -----------------------------------------------------------------------

TEMPLATES: dict[int, tuple[Template, ...]] = {
    2: (
        Template(
            "company", ("founder", "birthplace"), "In which city was the founder of {x} born?"
        ),
        Template("book", ("author", "birthplace"), "In which city was the author of {x} born?"),
        Template(
            "invention",
            ("inventor", "birthplace"),
            "In which city was the inventor of the {x} born?",
        ),
        Template("person", ("birthplace", "country"), "In which country was {x} born?"),
        Template(
            "person", ("birthplace", "river"), "On which river lies the city where {x} was born?"
        ),
        Template("company", ("headquarters", "country"), "In which country is {x} headquartered?"),
        Template(
            "company",
            ("headquarters", "river"),
            "On which river lies the headquarters city of {x}?",
        ),
        Template(
            "invention", ("maker", "founder"), "Who founded the company that manufactures the {x}?"
        ),
    ),
    3: (
        Template(
            "company",
            ("founder", "birthplace", "country"),
            "In which country was the founder of {x} born?",
        ),
        Template(
            "book",
            ("author", "birthplace", "country"),
            "In which country was the author of {x} born?",
        ),
        Template(
            "invention",
            ("inventor", "birthplace", "country"),
            "In which country was the inventor of the {x} born?",
        ),
        Template(
            "company",
            ("founder", "birthplace", "river"),
            "On which river lies the city where the founder of {x} was born?",
        ),
        Template(
            "book",
            ("author", "birthplace", "river"),
            "On which river lies the city where the author of {x} was born?",
        ),
        Template(
            "invention",
            ("maker", "headquarters", "country"),
            "In which country is the company that manufactures the {x} headquartered?",
        ),
        Template(
            "invention",
            ("maker", "founder", "birthplace"),
            "In which city was the founder of the company that manufactures the {x} born?",
        ),
        Template(
            "person",
            ("birthplace", "country", "capital"),
            "What is the capital of the country where {x} was born?",
        ),
    ),
}
"""Question shapes by number of hops; every relation is total on its kind."""


def make_question(corpus: Corpus, rng: np.random.Generator, hops: int) -> Question:
    """Draw a template of ``hops`` hops and a start entity, and follow the facts.

    >>> q = make_question(load_corpus(), np.random.default_rng(0), 2)
    >>> q.hops, len(q.chain), normalize_answer(q.answer) in q.aliases
    (2, 2, True)
    """
    templates = TEMPLATES[hops]
    template = templates[int(rng.integers(len(templates)))]
    starts = corpus.of_kind(template.kind)
    entity = starts[int(rng.integers(len(starts)))]
    chain = [entity]
    for relation in template.relations:
        chain.append(corpus.facts[chain[-1]][relation])
    answer = chain.pop()
    aliases = {normalize_answer(answer)}
    if answer.endswith(" River"):
        aliases.add(normalize_answer(answer.removesuffix(" River")))
    return Question(
        text=template.text.format(x=entity),
        answer=answer,
        aliases=tuple(sorted(aliases)),
        chain=tuple(chain),
        relations=template.relations,
    )
