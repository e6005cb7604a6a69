from __future__ import annotations

import math

import pytest

from turngym.envs.text.bm25 import BM25Index, tokenize
from turngym.envs.text.search_corpus import load_corpus

TINY = [
    "the cat sat on the mat",  # 0: 6 tokens
    "the dog sat on the log",  # 1: 6 tokens
    "cat cat cat",  # 2: 3 tokens
    "a bird in the hand",  # 3: 5 tokens
]  # avgdl = 20 / 4 = 5


def ranked(index: BM25Index, query: str, k: int = 10) -> list[int]:
    return [doc for doc, _ in index.search(query, k)]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello, World!", ["hello", "world"]),
        ("Selvan-River's mouth", ["selvan", "river", "s", "mouth"]),
        ("  born in 1987.", ["born", "in", "1987"]),
        ("snake_case Élan", ["snake", "case", "élan"]),
        ("", []),
        ("?!", []),
    ],
)
def test_tokenize(text, tokens):
    assert tokenize(text) == tokens


def test_hand_checked_ranking():
    index = BM25Index(TINY)
    assert index.avgdl == 5.0
    # "cat": doc 2 has it three times in 3 tokens, doc 0 once in 6.
    assert ranked(index, "cat") == [2, 0]
    # "sat cat": doc 0 has both terms (2 * 0.924 idf units) > doc 2 (1.719) > doc 1 (0.924).
    assert ranked(index, "sat cat") == [0, 2, 1]
    # "dog mat": docs 1 and 0 score the same; the tie goes to the lower index.
    assert ranked(index, "dog mat") == [0, 1]
    assert ranked(index, "unicorn") == []
    assert ranked(index, "CAT!") == ranked(index, "cat")


def test_score_matches_the_formula():
    index = BM25Index(TINY, k1=1.2, b=0.75)
    idf = math.log(1 + (4 - 2 + 0.5) / (2 + 0.5))  # "cat" is in 2 of 4 docs
    tf, dl = 3, 3
    expected = idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / 5))
    assert index.scores("cat")[2] == pytest.approx(expected)
    # A repeated query term counts once.
    assert index.scores("cat cat")[2] == pytest.approx(expected)


def test_rare_terms_weigh_more():
    index = BM25Index(["apple banana", "apple cherry", "apple", "banana"])
    # "cherry" (1 doc) outweighs "apple" (3 docs) even against a shorter doc.
    assert ranked(index, "apple cherry") == [1, 2, 0]
    assert index.idf["cherry"] > index.idf["banana"] > index.idf["apple"] > 0


def test_parameters_change_the_ranking():
    docs = ["cat " * 10 + "filler " * 30, "cat"]
    # With full length normalisation the short doc wins; without it, term frequency does.
    assert ranked(BM25Index(docs, b=1.0), "cat") == [1, 0]
    assert ranked(BM25Index(docs, b=0.0), "cat") == [0, 1]
    # k1 = 0 ignores term frequency: with b = 0 both docs score the same (tie to index 0).
    scores = BM25Index(docs, k1=0.0, b=0.0).scores("cat")
    assert scores[0] == pytest.approx(scores[1])


def test_top_k_stopwords_and_empty_index():
    index = BM25Index(TINY, stopwords={"the", "a", "on"})
    assert ranked(index, "the") == []
    assert ranked(index, "the cat", k=1) == [2]
    assert index.search("cat", k=0) == []
    assert BM25Index([]).search("cat") == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k1": -1.0}, "k1 must be a finite number >= 0"),
        ({"k1": float("inf")}, "k1 must be a finite number >= 0"),
        ({"b": 1.5}, r"b must be a number in \[0, 1\]"),
        ({"b": "0.5"}, r"b must be a number in \[0, 1\]"),
    ],
)
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BM25Index(TINY, **kwargs)


def test_every_title_finds_its_own_document_in_the_corpus():
    # (speed is measured in benchmarks, never asserted here)
    texts = [f"{d.title}. {d.text}" for d in load_corpus().docs]
    index = BM25Index(texts)
    queries = [text.split(".")[0] for text in texts]
    hits = sum(k in [i for i, _ in index.search(query, 5)] for k, query in enumerate(queries))
    assert hits >= 0.9 * len(queries), (hits, len(queries))
