"""``TwentyQuestions-v0``: find the secret everyday object with yes/no questions.

An offline rebuild of LMRL-Gym's 20 Questions. The secret is drawn from the bundled
knowledge base (``twenty_questions_data``: 200+ objects, 50+ yes/no attributes each).
A rule-based oracle answers each free-text question: it maps the question to an
attribute through key phrases (word sets, with ``difflib`` fuzzy matching of single
words so that typos and plural forms still match) and answers "Yes.", "No." or
"I don't know." (no attribute recognised, or a debatable fact). A question naming an
object ("Is it a dog?", "dog?", "My guess is dog") is a guess: right ends the game.
Negations ("Is it not alive?") are not understood: the key words decide.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.text.twenty_questions_data import ATTRIBUTES, OBJECTS, KnownObject

__all__ = [
    "MAX_QUESTION_LENGTH",
    "Parsed",
    "TwentyQuestionsEnv",
    "answer_kind_of",
    "canonical_question",
    "find_object",
    "match_attribute",
    "parse_question",
    "rule_based_answer",
    "tokens",
    "with_article",
]

MAX_QUESTION_LENGTH = 500
"""Longer actions are invalid (a question is one sentence)."""

AnswerKind = Literal["yes", "no", "unknown", "correct_guess", "wrong_guess"]

_WORD = re.compile(r"[a-z0-9]+")
_FUZZY_CUTOFF = 0.85  # difflib ratio for a word to count as a misspelt key word
_FUZZY_MIN_LENGTH = 5  # shorter words must match exactly ("car" is not "cat")
_FUZZY_WEIGHT = 0.5  # a misspelt word weighs half an exact one

# A guess is an object name preceded only by filler words ("is it a", "my final guess
# is the", "could it be maybe an", "what about", nothing) and followed by at most a few
# tags ("then", "right"); any other word ("bigger than a car") makes it a question.
_GUESS_FILLERS = frozenset(
    _WORD.findall(
        "a about actually alright an answer are be bet can could final guess guessing hmm how i "
        "id ill im is it its just kind maybe might must my object of ok okay one perhaps possibly "
        "probably say secret should so some sort sure that the then theyre these they think "
        "thinking this thing type what will well would you youre your"
    )
)
_GUESS_TAGS = frozenset(["then", "maybe", "perhaps", "right", "correct", "please", "now", "yes"])
_MAX_GUESS_WORDS = 12
_MAX_NAME_WORDS = 3


def tokens(text: str) -> list[str]:
    """Lower-case words of ``text`` (apostrophes dropped: "it's" -> "its").

    >>> tokens("Is it bigger than a bread-box? It's big!")
    ['is', 'it', 'bigger', 'than', 'a', 'bread', 'box', 'its', 'big']
    """
    return _WORD.findall(text.lower().replace("'", "").replace("\u2019", ""))


def _plurals(name: str) -> set[str]:
    head, _, last = name.rpartition(" ")
    forms = {last, last + "s", last + "es"}
    if last.endswith("y"):
        forms.add(last[:-1] + "ies")
    if last.endswith("f"):
        forms.add(last[:-1] + "ves")
    return {f"{head} {f}".strip() for f in forms}


def _name_index(objects: Iterable[KnownObject]) -> dict[str, str]:
    index: dict[str, str] = {}
    for obj in objects:
        for alias in (obj.name, *obj.aliases):
            for form in _plurals(" ".join(tokens(alias))):
                index.setdefault(form, obj.name)
    for obj in objects:  # a real name beats another object's plural form
        for alias in (obj.name, *obj.aliases):
            index[" ".join(tokens(alias))] = obj.name
    return index


_NAMES: dict[str, str] = _name_index(OBJECTS)
_BY_NAME: dict[str, KnownObject] = {o.name: o for o in OBJECTS}


def find_object(text: str) -> str | None:
    """The object a guess names (name, alias or simple plural), or None.

    >>> find_object("Is it a puppy?"), find_object("My guess is: Apples")
    ('dog', 'apple')
    >>> find_object("Is it alive?") is None
    True
    >>> find_object("Is it bigger than a car?") is None
    True
    """
    words = tokens(text)
    while words and words[-1] in _GUESS_TAGS and len(words) > 1:
        words.pop()
    if not words or len(words) > _MAX_GUESS_WORDS:
        return None
    for k in range(min(_MAX_NAME_WORDS, len(words)), 0, -1):
        name = _NAMES.get(" ".join(words[-k:]))
        if name is not None and all(w in _GUESS_FILLERS for w in words[:-k]):
            return name
    return None


# -- attribute matching ----------------------------------------------------------------


@dataclass(frozen=True)
class _Key:
    attribute: str
    words: frozenset[str]
    negated: bool


def _keys() -> tuple[_Key, ...]:
    out = []
    for attribute, (_, phrases) in ATTRIBUTES.items():
        for phrase in phrases:
            negated = phrase.startswith("!")
            words = frozenset(tokens(phrase.lstrip("!")))
            out.append(_Key(attribute, words, negated))
    return tuple(out)


_KEYS = _keys()
_VOCABULARY = sorted({w for key in _KEYS for w in key.words})
_VOCABULARY_SET = frozenset(_VOCABULARY)


@lru_cache(maxsize=8192)
def _known_words(word: str) -> frozenset[str]:
    """Key words that ``word`` stands for: itself, or close spellings of longer words."""
    if word in _VOCABULARY_SET:
        return frozenset([word])  # exact: no fuzzy look-alikes ("edible" is not "inedible")
    found: set[str] = set()
    if len(word) >= _FUZZY_MIN_LENGTH:
        found.update(
            w
            for w in difflib.get_close_matches(word, _VOCABULARY, n=3, cutoff=_FUZZY_CUTOFF)
            if len(w) >= _FUZZY_MIN_LENGTH
        )
    return frozenset(found)


def match_attribute(question: str) -> tuple[str, bool] | None:
    """The attribute a question asks about and whether it asks the opposite, or None.

    Among the keys whose words all occur in the question, the longest wins (so "bigger
    than a person" beats "bigger"); misspelt words (fuzzy matches) count half.

    >>> match_attribute("Does it have fur?"), match_attribute("Is it natural?")
    (('fur', False), ('man_made', True))
    >>> match_attribute("What colour is it?") is None
    True
    """
    exact: set[str] = set()
    fuzzy: set[str] = set()
    for word in tokens(question):
        found = _known_words(word)
        (exact if word in found else fuzzy).update(found)
    present = exact | fuzzy
    best: _Key | None = None
    best_score = 0.0
    for key in _KEYS:
        if key.words <= present:
            # A misspelt word counts half, so "contain" does not outweigh "sugar".
            score = sum(len(w) * (1.0 if w in exact else _FUZZY_WEIGHT) for w in key.words)
            if score > best_score:
                best, best_score = key, score
    return None if best is None else (best.attribute, best.negated)


def canonical_question(attribute: str) -> str:
    """The standard phrasing of ``attribute`` (the one the expert asks).

    >>> canonical_question("fly")
    'Can it fly?'
    """
    return ATTRIBUTES[attribute][0]


@dataclass(frozen=True)
class Parsed:
    """A question as the oracle understood it: a guess, an attribute, or neither."""

    text: str
    guess: str | None = None
    attribute: str | None = None
    negated: bool = False


def parse_question(question: str) -> Parsed:
    """Classify a question: a guess of a known object, an attribute question, or neither.

    A size comparison is read by its comparative and what it compares with ("smaller than
    a breadbox" is the breadbox question, negated; "lighter"/"shorter" count as
    smaller); a comparison with anything but a breadbox, a person or a car is not in the
    knowledge base (neither). A "not" after the opening words asks the opposite.

    >>> parse_question("Can it fly?")
    Parsed(text='Can it fly?', guess=None, attribute='fly', negated=False)
    >>> parse_question("is it an apple").guess
    'apple'
    >>> parse_question("Is it smaller than a breadbox?").negated
    True
    """
    guess = find_object(question)
    if guess is not None:
        return Parsed(question, guess=guess)
    words = tokens(question)
    compared = _compared(words)
    if compared == "unknown":
        return Parsed(question)
    found = compared or match_attribute(question)
    if found is None:
        return Parsed(question)
    return Parsed(question, attribute=found[0], negated=found[1] != _negated(words))


# Size comparisons: comparative -> "more", what it is compared with -> the attribute.
_MORE = frozenset(_WORD.findall("bigger larger taller longer heavier wider greater huger"))
_LESS = frozenset(_WORD.findall("smaller tinier shorter lighter littler narrower"))
_REFERENCES = {
    "breadbox": "big",
    "bread box": "big",
    "person": "huge",
    "human": "huge",
    "man": "huge",
    "woman": "huge",
    "adult": "huge",
    "adult person": "huge",
    "grown up": "huge",
    "me": "huge",
    "you": "huge",
    "people": "huge",
    "car": "giant",
    "automobile": "giant",
}
_ARTICLES = frozenset(_WORD.findall("a an the your my one average normal typical regular"))
_NEGATORS = frozenset(_WORD.findall("not never isnt arent doesnt dont cant wasnt"))
_OPENERS = frozenset(
    _WORD.findall("is are does do can could has have was were will would isnt arent")
)


def _compared(words: list[str]) -> tuple[str, bool] | str | None:
    """What a size comparison asks: ``(attribute, negated)``, or None when there is none.

    ``"unknown"``: a comparison the knowledge base cannot answer ("bigger than a house").
    """
    for i, word in enumerate(words[:-1]):
        if (word in _MORE or word in _LESS) and words[i + 1] == "than":
            rest = [w for w in words[i + 2 :] if w not in _ARTICLES]
            for n in (2, 1):
                attribute = _REFERENCES.get(" ".join(rest[:n]))
                if attribute is not None:
                    return attribute, word in _LESS
            return "unknown"
    return None


def _negated(words: list[str]) -> bool:
    """A "not" after the opening words ("Is it not an animal?", "Can it not fly?").

    A question that opens with a contraction ("Isn't it an animal?") asks for a yes.
    """
    body = words[1:] if words and words[0] in _OPENERS else words
    if body[-2:] == ["or", "not"]:  # "Is it alive or not?"
        body = body[:-2]
    return sum(w in _NEGATORS for w in body) % 2 == 1


def rule_based_answer(secret: str, parsed: Parsed) -> tuple[str, AnswerKind]:
    """The oracle's answer to a parsed question about ``secret``, and its kind.

    >>> rule_based_answer("dog", parse_question("Does it bark and have fur?"))
    ('Yes.', 'yes')
    >>> rule_based_answer("dog", parse_question("Is it a cat?"))
    ('No.', 'wrong_guess')
    """
    obj = _BY_NAME[secret]
    if parsed.guess is not None:
        if parsed.guess == secret:
            return f"Yes! It is {with_article(secret)}.", "correct_guess"
        return "No.", "wrong_guess"
    if parsed.attribute is None or parsed.attribute in obj.unknown:
        return "I don't know.", "unknown"
    value = (parsed.attribute in obj.true) != parsed.negated
    return ("Yes.", "yes") if value else ("No.", "no")


def answer_kind_of(answer: str) -> AnswerKind:
    """Read an answer text as yes / no / unknown (for answers from an ``oracle`` hook).

    >>> answer_kind_of("Yes, it is."), answer_kind_of("no"), answer_kind_of("Maybe?")
    ('yes', 'no', 'unknown')
    """
    words = tokens(answer)
    if words and words[0] in ("yes", "yeah", "yep", "correct", "true"):
        return "yes"
    if words and words[0] in ("no", "nope", "false"):
        return "no"
    return "unknown"


def with_article(name: str) -> str:
    """The name with 'a'/'an', or alone for plural names.

    >>> with_article("apple"), with_article("scissors")
    ('an apple', 'scissors')
    """
    if name.endswith("s") and name not in ("glass", "bus", "cactus", "octopus", "hippopotamus"):
        return name  # grapes, scissors, glasses, headphones
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


# -- the env -------------------------------------------------------------------------


class TwentyQuestionsEnv(TextEnv[Parsed]):
    """Guess the secret object by asking free-text yes/no questions.

    Reward is -1 per turn and 0 on the turn that names the object (LMRL-Gym's setting),
    so the return is minus the number of turns that did not win. The episode ends on a
    correct guess (success) or after ``max_turns`` turns (truncated, the object is
    revealed). Invalid actions (empty, or over 500 characters) also use up a turn and
    cost ``invalid_action_penalty`` (default -1). ``reset(options={"object": "dog"})``
    fixes the secret. ``gym.make`` applies a 20-step time limit: pass
    ``max_episode_steps`` too when raising ``max_turns``.

    Args:
        max_turns: questions per episode (>= 1).
        oracle: optional ``(secret object name, question) -> answer text`` that replaces
            the rule-based oracle. Guesses are still recognised by turngym's parser: naming
            the secret wins whatever the hook says; ``info["answer_kind"]`` of other turns
            is read from the hook's first word (yes / no / anything else: unknown).
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> from turngym.envs.text.twenty_questions import TwentyQuestionsEnv
        >>> env = TwentyQuestionsEnv()
        >>> obs, info = env.reset(seed=0, options={"object": "dog"})
        >>> env.step("Is it an animal?")[0]
        'Yes. (19 questions left)'
        >>> obs, reward, terminated, truncated, info = env.step("Is it a dog?")
        >>> obs, reward, terminated, info["success"]
        ('Yes! It is a dog. You found it in 2 questions.', 0.0, True, True)

    """

    max_turns: int  # always set here (narrows TextEnv's ``int | None``)

    def __init__(
        self,
        max_turns: int = 20,
        oracle: Callable[[str, str], str] | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be an int >= 1, got {max_turns!r}")
        if oracle is not None and not callable(oracle):
            raise ValueError(
                "oracle must be None (rule-based) or a callable (secret, question) -> answer, "
                f"got {type(oracle).__name__}"
            )
        kwargs.setdefault("invalid_action_penalty", -1.0)
        super().__init__(**kwargs)
        self.max_turns = max_turns
        self.oracle = oracle
        self.objects: tuple[KnownObject, ...] = OBJECTS
        self.secret = ""
        self._history: list[tuple[str, str, AnswerKind]] = []
        self._facts: dict[str, str] = {}

    @property
    def history(self) -> tuple[tuple[str, str, AnswerKind], ...]:
        """The questions so far with the answer text and its kind."""
        return tuple(self._history)

    @property
    def questions_left(self) -> int:
        """Turns the player still has."""
        return self.max_turns - self._turn

    def _reset(self, options: dict[str, Any]) -> str:
        unknown = set(options) - {"object"}
        if unknown:
            raise ValueError(
                f"unknown reset options {sorted(unknown)}; TwentyQuestions takes 'object'"
            )
        if "object" in options:
            name = options["object"]
            found = _NAMES.get(" ".join(tokens(name))) if isinstance(name, str) else None
            if found is None:
                raise ValueError(
                    f"options['object'] must name an object of the knowledge base (e.g. 'dog'), "
                    f"got {name!r}"
                )
            self.secret = found
        else:
            self.secret = self.objects[int(self.np_random.integers(len(self.objects)))].name
        self._history = []
        self._facts = {}
        self.instruction = (
            "Let's play 20 Questions. I am thinking of an everyday object: an animal, plant, "
            "food, tool, vehicle, household item, instrument, piece of clothing or similar. "
            f"Find it in at most {self.max_turns} questions. Ask one yes/no question per turn "
            "(e.g. 'Is it an animal?', 'Can it fly?', 'Is it bigger than a breadbox?'); I "
            "answer 'Yes.', 'No.' or 'I don't know.'. To guess, ask 'Is it a <object>?' "
            "(e.g. 'Is it a dog?'). Every turn costs -1 reward; the turn with the correct "
            "guess costs 0 and ends the game."
        )
        return self.instruction

    def _parse(self, action: str) -> Parsed | Invalid:
        if not action.strip():
            return Invalid("the question is empty; ask a yes/no question, e.g. 'Is it an animal?'")
        if len(action) > MAX_QUESTION_LENGTH:
            return Invalid(
                f"the question has {len(action)} characters; ask one short question "
                f"(at most {MAX_QUESTION_LENGTH})"
            )
        return parse_question(action)

    def _apply(self, action: Parsed) -> Outcome:
        text, kind = rule_based_answer(self.secret, action)
        if self.oracle is not None and kind != "correct_guess":
            text = str(self.oracle(self.secret, action.text)).strip() or "I don't know."
            kind = "wrong_guess" if action.guess is not None else answer_kind_of(text)
        self._history.append((action.text, text, kind))
        if action.guess is not None:
            self._facts[f"is:{action.guess}"] = "yes" if kind == "correct_guess" else "no"
        elif action.attribute is not None:
            fact = kind
            if action.negated and kind in ("yes", "no"):
                fact = "no" if kind == "yes" else "yes"
            self._facts[action.attribute] = fact
        info: dict[str, Any] = {"answer_kind": kind, "attribute": action.attribute}
        if action.guess is not None:
            info["guess"] = action.guess
        if kind == "correct_guess":
            n = self._turn
            info["object"] = self.secret
            obs = f"{text} You found it in {n} question{'s' if n > 1 else ''}."
            return Outcome(obs, 0.0, terminated=True, success=True, info=info)
        if self.questions_left <= 0:  # TextEnv.max_turns ends the episode right after
            return Outcome(text, -1.0, info=info)
        return Outcome(f"{text} ({self._left()})", -1.0, info=info)

    def _turn_limit_reached(self) -> tuple[str, dict[str, Any]]:
        # Invalid turns use up questions too (TextEnv.max_turns counts every turn).
        return self._reveal(), {"object": self.secret}

    def _state_key(self) -> str:
        return "|".join(f"{k}={v}" for k, v in sorted(self._facts.items())) or "start"

    def _render(self) -> str:
        lines = [f"20 Questions, {self.questions_left} of {self.max_turns} questions left"]
        lines += [f"  Q{i}: {q} -> {a}" for i, (q, a, _) in enumerate(self._history, 1)]
        if self._done:
            lines.append(f"The object was {with_article(self.secret)}.")
        return "\n".join(lines)

    def _turns_left_text(self, n: int) -> str:
        return f"{n} question{'s' if n != 1 else ''} left"

    def _left(self) -> str:
        return self._turns_left_text(self.questions_left)

    def _reveal(self) -> str:
        return f"Out of questions: the object was {with_article(self.secret)}."
