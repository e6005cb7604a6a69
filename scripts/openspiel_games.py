"""Regenerate ``turngym/envs/adapters/openspiel_games.py`` from the installed OpenSpiel.

Run after an OpenSpiel upgrade (``tests/envs/adapters/test_openspiel.py`` notices one):

    python scripts/openspiel_games.py > turngym/envs/adapters/openspiel_games.py

A game is registered when it is sequential (a simultaneous-move game counts, played as
OpenSpiel's turn-based conversion), loads without parameters, draws its chance
outcomes at explicit chance nodes (so turngym's own RNG can draw them), and names every
action the same way in every state (``action_to_string`` of an action id never changes,
so ``action_mask`` has a fixed universe). The last is checked on 20 random games per
game, each probed in a child process, because naming an action that is not legal can
crash OpenSpiel outright.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import defaultdict
from typing import Any

_PROBE_GAMES = 20


def _kind(game_type: object) -> str:
    """Which of the game's strings a player reads (the adapter makes the same choice)."""
    perfect = str(game_type.information).rsplit(".", 1)[-1] == "PERFECT_INFORMATION"  # type: ignore[attr-defined]
    if not perfect and game_type.provides_information_state_string:  # type: ignore[attr-defined]
        return "information_state_string"
    if game_type.provides_observation_string:  # type: ignore[attr-defined]
        return "observation_string"
    if game_type.provides_information_state_string:  # type: ignore[attr-defined]
        return "information_state_string"
    return "str" if perfect else ""


def _load(name: str) -> object:
    """The game; a simultaneous-move one as OpenSpiel's turn-based conversion."""
    import pyspiel

    game = pyspiel.load_game(name)
    if str(game.get_type().dynamics).endswith(".SIMULTANEOUS"):
        return pyspiel.load_game_as_turn_based(name)
    return game


def probe(name: str) -> dict[str, object]:
    """Name every action at the start, then check the names over random games."""
    import pyspiel

    game: Any = _load(name)
    kind = _kind(game.get_type())
    n, actions = game.num_players(), game.num_distinct_actions()
    start = game.new_initial_state()
    try:
        names = {(p, a): start.action_to_string(p, a) for p in range(n) for a in range(actions)}
    except pyspiel.SpielError:
        return {"reason": "OpenSpiel cannot name every action at the start of a game"}
    rng = random.Random(0)
    seen: defaultdict[tuple[int, int], set[str]] = defaultdict(set)
    longest = 0
    zero_sum = str(game.get_type().utility).endswith(".ZERO_SUM")
    for _ in range(_PROBE_GAMES):
        state, steps = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                action = rng.choices(outcomes, weights)[0]
            else:
                p = state.current_player()
                for q in range(n):
                    getattr(state, kind)(q) if kind != "str" else str(state)
                legal = state.legal_actions()
                for a in legal:
                    seen[p, a].add(state.action_to_string(p, a))
                action = rng.choice(legal)
            state.apply_action(action)
            steps += 1
            # some games declare zero-sum but pay one player's losses before the others' gains
            zero_sum = zero_sum and abs(sum(state.returns())) < 1e-9
        longest = max(longest, steps)
    if any(len(v) > 1 or names[k] not in v for k, v in seen.items()):
        return {"reason": "action strings depend on the state, so no fixed action universe"}
    return {"kind": kind, "longest": longest, "zero_sum": zero_sum}


def main() -> None:
    """Print the data module."""
    import pyspiel

    rows, left_out = [], {}
    for game_type in pyspiel.registered_games():
        name = game_type.short_name
        dynamics = str(game_type.dynamics).rsplit(".", 1)[-1]
        chance = str(game_type.chance_mode).rsplit(".", 1)[-1]
        if dynamics == "MEAN_FIELD":
            left_out[name] = "mean-field game (a population, not players)"
        elif not game_type.default_loadable:
            left_out[name] = "needs parameters (a game to wrap, a file, a count)"
        elif chance == "SAMPLED_STOCHASTIC":
            left_out[name] = "chance drawn by OpenSpiel's own RNG, so seeds would not replay"
        elif not _kind(game_type):
            left_out[name] = "no per-player text observation"
        else:
            simultaneous = dynamics == "SIMULTANEOUS"
            if simultaneous:  # what the adapter plays: the turn-based conversion
                game_type = _load(name).get_type()  # type: ignore[attr-defined]
                chance = str(game_type.chance_mode).rsplit(".", 1)[-1]
                if chance == "SAMPLED_STOCHASTIC":
                    left_out[name] = (
                        "chance drawn by OpenSpiel's own RNG, so seeds would not replay"
                    )
                    continue
            child = subprocess.run(
                [sys.executable, __file__, "--probe", name],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            lines = [x for x in child.stdout.splitlines() if x.startswith("PROBE ")]
            if not lines:
                left_out[name] = "OpenSpiel crashes or fails when its actions are named"
                continue
            found = json.loads(lines[-1][len("PROBE ") :])
            if "reason" in found:
                left_out[name] = str(found["reason"])
                continue
            game: Any = _load(name)
            perfect = str(game_type.information).rsplit(".", 1)[-1] == "PERFECT_INFORMATION"
            rows.append(
                (
                    name,
                    pyspiel.load_game(name).get_type().long_name,
                    game.num_players(),
                    game.max_game_length(),
                    perfect,
                    chance == "EXPLICIT_STOCHASTIC",
                    found["kind"],
                    found["zero_sum"],
                    str(game_type.reward_model).endswith(".TERMINAL"),
                    simultaneous,
                    found["longest"],
                )
            )
    from importlib.metadata import version

    print(_HEADER.replace("{version}", version("open_spiel")))
    print(f"OPENSPIEL_VERSION = {version('open_spiel')!r}\n")
    print("# fmt: off")  # one game a line: ruff format would spread each over 13
    print("GAMES: tuple[OpenSpielRow, ...] = (")
    for row in rows:
        print(f"    OpenSpielRow{row!r},")
    print(")")
    print("# fmt: on\n")
    print("LEFT_OUT: dict[str, str] = {")
    for name, reason in sorted(left_out.items()):
        print(f"    {name!r}: {reason!r},")
    print("}")


_HEADER = '''"""The OpenSpiel games turngym registers, and the ones it leaves out: static data.

Generated by ``scripts/openspiel_games.py`` from the installed OpenSpiel ({version}), so that
registering the ids imports nothing of OpenSpiel. ``tests/envs/adapters/test_openspiel.py``
checks it still matches the installed release.
"""

# ruff: noqa: E501  (one game a line: generated data)

from __future__ import annotations

from typing import NamedTuple


class OpenSpielRow(NamedTuple):
    """One registered OpenSpiel game, as its default parameters make it."""

    name: str
    """OpenSpiel's short name (``pyspiel.load_game(name)``)"""
    title: str
    """OpenSpiel's long name"""
    players: int
    """players with the default parameters"""
    max_length: int
    """OpenSpiel's bound on the moves of a game, chance moves included"""
    perfect: bool
    """perfect information (every player sees the whole state)"""
    chance: bool
    """chance nodes decide outcomes (dealt cards, dice)"""
    text: str
    """what a player reads: ``information_state_string``, ``observation_string`` or ``str``"""
    zero_sum: bool
    """the returns sum to zero after every move (declared, and seen in random games)"""
    terminal_rewards: bool
    """rewards come at the end only (OpenSpiel's MCTS bot needs it)"""
    simultaneous: bool
    """a simultaneous-move game, played as OpenSpiel's turn-based conversion (each
    player moves in turn without seeing the others' moves of the round)"""
    longest: int
    """the most moves (chance included) in 20 random games of the probe"""

'''


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--probe":
        print("PROBE " + json.dumps(probe(sys.argv[2])), flush=True)
    else:
        main()
