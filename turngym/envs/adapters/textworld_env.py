"""``textworld.<kind>-v0``: TextWorld's generated text games, a new game per seed.

Kinds are TextWorld's challenges ``tw-treasure_hunter`` (find an object in a few
rooms), ``tw-coin_collector`` (walk a chain of rooms to a coin) and ``tw-cooking``
(read a recipe, gather, cut and cook ingredients, eat the meal: the First TextWorld
Problems games). Each reset draws a game seed from the env's RNG; the game is made
from it offline by TextWorld's generator and cached (``textworld_games``), so a seed
always gives the same game and the second reset with it makes nothing.

Observation: the game's own text (the banner and the interpreter's status line cut),
with ``observe=("description", "inventory")`` adding the room and the inventory.
Actions: TextWorld's admissible commands, in ``info["legal_actions"]``. A command
outside them is refused as an invalid action (the contract's message, penalty and
truncation) and never reaches the game: the interpreter would otherwise accept meta
commands such as ``undo`` (take back a losing move) or ``restart``, and parser
quirks a policy could learn to farm. Reward: the game's score gained by the step
(TextWorld's points for quest steps); the episode ends when the game is won
(``success``) or lost. The expert follows the game's walkthrough.
``reset(options={"game_seed": n})`` plays game ``n`` itself (a fixed evaluation set).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from turngym.core import Invalid, Outcome, TextEnv, normalize_action
from turngym.extras import needs_extra

__all__ = ["KINDS", "OBSERVE", "TextWorldEnv"]

KINDS: tuple[str, ...] = ("treasure_hunter", "coin_collector", "cooking")
"""The TextWorld challenges offered (``tw-<kind>``); ``tw-simple`` is left out."""

OBSERVE = ("description", "inventory")
"""What ``observe=`` may add to every observation."""

_LEVELS = {"treasure_hunter": (1, 30, 5), "coin_collector": (1, 300, 5)}  # min, max, default
_COOKING_DEFAULTS: dict[str, Any] = {
    "recipe": 1,
    "take": 1,
    "go": 6,
    "open": True,
    "cook": True,
    "cut": True,
    "drop": False,
    "split": None,
}
_READ_ONLY = frozenset({"look", "inventory", "examine"})  # verbs that change nothing
_BANNER = set(" $\\|_/<>")
_TAIL = re.compile(r"\n>[^\n]*\Z")  # the interpreter's prompt and status line
_REPLAY = "Would you like to RESTART, RESTORE a saved game, QUIT or UNDO the last command?"


def _clean(text: str, *, first: bool = False) -> str:
    """The game's text without the interpreter's prompt, status line and replay offer."""
    text = _TAIL.sub("", text.rstrip()).replace(_REPLAY, "")
    lines = text.splitlines()
    if first:  # the ASCII-art TEXTWORLD banner
        while lines and set(lines[0]) <= _BANNER:
            lines.pop(0)
    return "\n".join(line.rstrip() for line in lines).strip()


class TextWorldEnv(TextEnv[str]):
    """Play a TextWorld game generated from the seed; the admissible commands are the actions.

    Args:
        kind: ``"treasure_hunter"``, ``"coin_collector"`` or ``"cooking"``.
        level: difficulty of treasure_hunter (1-30, default 5) and coin_collector
            (1-300 with at most 100 rooms, default 5), as TextWorld defines them.
        recipe, take, go, open, cook, cut, drop, split: the cooking game's skills
            (ingredients 1-5, ingredients to find 0-recipe, rooms 1/6/9/12, closed
            containers and doors, cooking, cutting, a limited inventory, the food
            split: None/"train"/"valid"/"test"); defaults 1, 1, 6, True, True, True,
            False, None.
        num_games: None: every seed its own game; an int n: seeds map onto n games
            (a fixed training set, cheap to cache).
        observe: extra sections for every observation, from ``OBSERVE``.
        track_policy: have TextWorld track its winning policy on every step, so that the
            expert can win from any state, not only along the walkthrough (it halves
            the steps per second).
        invalid_action_penalty, max_invalid_actions, render_mode: as in ``TextEnv``.

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/textworld.coin_collector-v0", num_games=1)
        >>> obs, info = env.reset(seed=0)  # made once, then read from the cache
        >>> info["legal_actions"]
        ['go west', 'inventory', 'look']
        >>> _, reward, terminated, _, info = env.step("Go West")
        >>> reward, terminated, info["invalid_action"]
        (0.0, False, False)
        >>> env.step("undo")[4]["invalid_action"]  # not an admissible command
        True

    """

    def __init__(
        self,
        kind: str,
        *,
        level: int | None = None,
        recipe: int | None = None,
        take: int | None = None,
        go: int | None = None,
        open: bool | None = None,  # TextWorld's name for the skill
        cook: bool | None = None,
        cut: bool | None = None,
        drop: bool | None = None,
        split: str | None = None,
        num_games: int | None = None,
        observe: Sequence[str] = (),
        track_policy: bool = False,
        invalid_action_penalty: float = 0.0,
        max_invalid_actions: int | None = 10,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            invalid_action_penalty=invalid_action_penalty,
            max_invalid_actions=max_invalid_actions,
            render_mode=render_mode,
        )
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        cooking = {
            "recipe": recipe,
            "take": take,
            "go": go,
            "open": open,
            "cook": cook,
            "cut": cut,
            "drop": drop,
            "split": split,
        }
        if kind == "cooking":
            if level is not None:
                raise ValueError(
                    "level is for treasure_hunter and coin_collector; cooking "
                    "takes recipe, take, go, open, cook, cut, drop, split"
                )
            self.settings = _cooking_settings(cooking)
        else:
            given = [name for name, value in cooking.items() if value is not None]
            if given:
                raise ValueError(f"{given[0]} is a cooking setting; {kind} takes level only")
            self.settings = {"level": _level(kind, level)}
        if num_games is not None and (
            isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1
        ):
            raise ValueError(f"num_games must be None or an int >= 1, got {num_games!r}")
        if isinstance(observe, str) or not all(part in OBSERVE for part in observe):
            raise ValueError(f"observe must be a sequence of {OBSERVE}, got {observe!r}")
        if not isinstance(track_policy, bool):
            raise ValueError(f"track_policy must be True or False, got {track_policy!r}")
        self.kind = kind
        self.num_games = num_games
        self.observe = tuple(observe)
        with needs_extra("textworld", f"textworld.{kind}-v0"):
            import textworld

        self._textworld = textworld
        self._infos = textworld.EnvInfos(
            admissible_commands=True,
            won=True,
            lost=True,
            score=True,
            max_score=True,
            objective=True,
            extras=["walkthrough"],
            description="description" in self.observe,
            inventory="inventory" in self.observe,
            policy_commands=track_policy,
        )
        self.game_seed = 0
        """The seed of the game being played (what the cache is keyed by)."""
        self.walkthrough: list[str] = []
        """The game's own winning commands from its start (privileged: the expert's)."""
        self.played: list[str] = []
        """The commands played since the reset (invalid ones are not played)."""
        self._game: Any = None
        self._path: Path | None = None
        self._state: Any = None
        self._legal: dict[str, str] = {}
        self._text = ""

    def _reset(self, options: dict[str, Any]) -> str:
        from turngym.envs.adapters.textworld_games import game_file

        chosen = options.get("game_seed")
        if self.num_games is None:
            self.game_seed = int(self.np_random.integers(2**31 - 1))
        else:
            self.game_seed = int(self.np_random.integers(self.num_games))
        if chosen is not None:
            limit = 2**31 - 1 if self.num_games is None else self.num_games
            if isinstance(chosen, bool) or not isinstance(chosen, int) or not 0 <= chosen < limit:
                raise ValueError(
                    f"options['game_seed'] must be an int in [0, {limit}), got {chosen!r}"
                )
            self.game_seed = chosen
        path = game_file(self.kind, self.settings, self.game_seed, self._textworld.__version__)
        with warnings.catch_warnings():
            # Jericho's own score and move detection does not know TextWorld's games;
            # TextWorld keeps the score itself, so the warning says nothing to our users.
            warnings.filterwarnings("ignore", message=".*is not fully supported")
            if path != self._path:
                self.close()
                self._game = self._textworld.start(str(path), request_infos=self._infos)
                self._path = path
            self._state = self._game.reset()
        self.walkthrough = list(self._state.get("extra.walkthrough") or [])
        self.played = []
        self.instruction = self._state["objective"]
        return self._observe(_clean(self._state.feedback, first=True))

    def _observe(self, text: str) -> str:
        self._legal = {normalize_action(c): c for c in self._state["admissible_commands"]}
        parts = [text]
        if "description" in self.observe:
            parts.append(f"Room:\n{_clean(self._state['description'])}")
        if "inventory" in self.observe:
            parts.append(f"Inventory:\n{_clean(self._state['inventory'])}")
        self._text = "\n\n".join(parts)
        return self._text

    def _parse(self, action: str) -> str | Invalid:
        command = self._legal.get(normalize_action(action))
        if command is None:
            return Invalid("not one of the admissible commands (info['legal_actions'])")
        return command

    def _apply(self, action: str) -> Outcome:
        before = self._state["score"] or 0
        self._state, _, done = self._game.step(action)
        self.played.append(action)
        won, lost = bool(self._state["won"]), bool(self._state["lost"])
        obs = self._observe(_clean(self._state.feedback))
        info = {"score": self._state["score"], "max_score": self._state["max_score"]}
        reward = float(self._state["score"] - before)
        return Outcome(obs, reward, terminated=bool(done) or won or lost, success=won, info=info)

    def _legal_actions(self) -> list[str]:
        return sorted(self._legal.values())

    def _extra_info(self) -> dict[str, Any]:
        return {"game_seed": self.game_seed}

    def plan(self) -> list[str]:
        """Commands that win from here ([] if none is known).

        The rest of the walkthrough while the episode has followed it (commands that
        only read, such as ``look``, ``inventory`` and ``examine ...``, are no detour).
        After a real detour: TextWorld's winning policy from the current state, which it
        tracks only when the env is made with ``track_policy=True``.
        """
        k = 0
        for command in self.played:
            if k < len(self.walkthrough) and command == self.walkthrough[k]:
                k += 1
            elif command.split()[0] not in _READ_ONLY:
                return list(self._state.get("policy_commands") or [])
        return self.walkthrough[k:]

    def _render(self) -> str:
        return self._text

    def close(self) -> None:
        """Stop the game's interpreter."""
        if self._game is not None:
            self._game.close()
            self._game = None
            self._path = None


def _level(kind: str, level: int | None) -> int:
    low, high, default = _LEVELS[kind]
    if level is None:
        return default
    if isinstance(level, bool) or not isinstance(level, int) or not low <= level <= high:
        raise ValueError(f"level must be an int in [{low}, {high}] for {kind}, got {level!r}")
    if kind == "coin_collector" and ((level - 1) // 100 + 1) * ((level - 1) % 100 + 1) > 100:
        # TextWorld 1.7 makes at most 100 rooms: (distractor tiers) x (quest length)
        raise ValueError(
            f"coin_collector level {level} needs more than 100 rooms, which TextWorld 1.7 "
            "cannot make: (1 + (level - 1) // 100) * (1 + (level - 1) % 100) must be <= 100"
        )
    return level


def _cooking_settings(given: dict[str, Any]) -> dict[str, Any]:
    settings = {k: (_COOKING_DEFAULTS[k] if v is None else v) for k, v in given.items()}
    recipe, take, go = settings["recipe"], settings["take"], settings["go"]
    if isinstance(recipe, bool) or not isinstance(recipe, int) or not 1 <= recipe <= 5:
        raise ValueError(f"recipe (ingredients) must be an int in [1, 5], got {recipe!r}")
    if isinstance(take, bool) or not isinstance(take, int) or not 0 <= take <= recipe:
        raise ValueError(f"take must be an int in [0, recipe={recipe}], got {take!r}")
    if go not in (1, 6, 9, 12) or isinstance(go, bool):
        raise ValueError(f"go (rooms) must be 1, 6, 9 or 12, got {go!r}")
    for name in ("open", "cook", "cut", "drop"):
        if not isinstance(settings[name], bool):
            raise ValueError(f"{name} must be True or False, got {settings[name]!r}")
    if settings["split"] not in (None, "train", "valid", "test"):
        raise ValueError(
            f"split must be None, 'train', 'valid' or 'test', got {settings['split']!r}"
        )
    settings["recipe_seed"] = 0  # the recipe comes from the game seed
    return settings
