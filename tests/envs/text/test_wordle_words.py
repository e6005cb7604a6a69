from __future__ import annotations

import re

import pytest

from turngym.envs.text import wordle_words as ww
from turngym.envs.text.wordle_words import (
    ALLOWED_FILE,
    ANSWERS_FILE,
    DEFAULT_DICT,
    EXCLUDED_ANSWERS,
    SOURCE_SHA256,
    allowed_set,
    build_word_lists,
    file_sha256,
    load_allowed,
    load_answers,
    select_words,
)


@pytest.mark.parametrize("path", [ANSWERS_FILE, ALLOWED_FILE])
def test_bundled_files_are_sorted_unique_lowercase_words(path):
    text = path.read_text(encoding="ascii")
    words = text.splitlines()
    assert text.endswith("\n") and words
    assert all(re.fullmatch("[a-z]{5}", w) for w in words)
    assert words == sorted(set(words))


def test_answers_are_a_commoner_subset_of_allowed():
    answers, allowed = load_answers(), load_allowed()
    assert 1500 <= len(answers) <= 3000
    assert set(answers) < set(allowed)
    assert not EXCLUDED_ANSWERS & set(answers)
    for common in ("crane", "house", "light", "bonus", "basis", "thing", "paper", "bleed"):
        assert common in answers, common
    for inflected in ("moves", "baked", "using", "older", "cacti", "media", "xviii"):
        assert inflected in allowed and inflected not in answers, inflected


def test_loading_is_cached():
    assert load_answers() is load_answers()
    assert load_allowed() is load_allowed()
    assert allowed_set() is allowed_set() and "crane" in allowed_set()


@pytest.mark.parametrize(
    ("entries", "kept", "dropped"),
    [
        # only five lowercase ascii letters are allowed at all
        (["Crane", "can't", "naïve", "cranes", "cat"], [], []),
        # -s forms go; -us/-is/-as/-os stay unless their singular is listed
        (
            ["move", "moves", "fly", "flies", "box", "boxes", "bonus", "chaos", "abyss"],
            ["abyss", "bonus", "chaos"],
            ["boxes", "flies", "moves"],
        ),
        (["carbs", "oasis", "oases", "tacos", "taco"], ["oasis"], ["carbs", "oases", "tacos"]),
        # -ed with a stem goes; bleed and naked stay
        (
            ["bake", "baked", "add", "added", "try", "tried", "up", "upped", "bleed", "naked"],
            ["bleed", "naked"],
            ["added", "baked", "tried", "upped"],
        ),
        # -ing with a vowel stem goes; "th" is no stem, so thing stays
        (
            ["use", "using", "do", "doing", "die", "dying", "the", "thing"],
            ["thing"],
            ["doing", "dying", "using"],
        ),
        # a comparative has a matching superlative; a noun in -er does not
        (
            ["old", "older", "oldest", "pap", "paper", "safe", "safer", "safest"],
            ["paper"],
            ["older", "safer"],
        ),
        # Latin plurals and Roman numerals
        (
            ["cactus", "cacti", "medium", "media", "nova", "novae", "xviii", "civic", "alibi"],
            ["alibi", "civic"],
            ["cacti", "media", "novae", "xviii"],
        ),
        (["stdio", "gonna", "crane"], ["crane"], ["gonna", "stdio"]),
    ],
)
def test_answer_rules(entries, kept, dropped):
    answers, allowed = select_words(entries)
    assert answers == kept
    assert sorted(set(dropped) - set(allowed)) == []
    assert sorted(set(allowed) - set(answers)) == sorted(dropped)


def test_build_from_a_small_list_and_main_writes_files(tmp_path):
    source = tmp_path / "words"
    source.write_text("crane\nmoves\nmove\nCrane\nbonus\n", encoding="utf-8")
    assert build_word_lists(source) == (["bonus", "crane"], ["bonus", "crane", "moves"])
    out = tmp_path / "out"
    ww.main(["--dict", str(source), "--out", str(out)])
    assert (out / "wordle_answers.txt").read_text() == "bonus\ncrane\n"
    assert (out / "wordle_allowed.txt").read_text() == "bonus\ncrane\nmoves\n"


def test_missing_list_says_how_to_install(tmp_path):
    with pytest.raises(FileNotFoundError, match="apt-get install wamerican"):
        build_word_lists(tmp_path / "nope")


def test_rebuilding_from_wamerican_reproduces_the_bundled_files():
    if not DEFAULT_DICT.is_file():
        pytest.skip(f"{DEFAULT_DICT} is missing: apt-get install wamerican")
    if file_sha256(DEFAULT_DICT) != SOURCE_SHA256:
        pytest.skip(
            f"{DEFAULT_DICT} is another wamerican version than the bundled lists were built "
            "from (Debian 12's 2020.12.07-2); regenerate with "
            "`python -m turngym.envs.text.wordle_words` and update SOURCE_SHA256 if intended"
        )
    answers, allowed = build_word_lists(DEFAULT_DICT)
    assert answers == ANSWERS_FILE.read_text(encoding="ascii").splitlines()
    assert allowed == ALLOWED_FILE.read_text(encoding="ascii").splitlines()
