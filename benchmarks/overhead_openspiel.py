"""Steps/s of raw ``pyspiel`` versus turngym's OpenSpiel adapter on the same random play.

Each pair plays ``steps`` moves of uniformly random legal play (a new game when one
ends). Native: a ``pyspiel`` state, chance outcomes drawn with their probabilities (one
uniform draw scanned over the outcomes, the adapter's way),
and per move the string the adapter shows the player to move (its
``information_state_string`` or ``observation_string``) plus the names of the legal
actions (``action_to_string``), which is what a language agent reads, and the returns
(``returns()``) where the adapter reads them: at the end of each game, and after every
move in games that pay along the way. Adapter:
``turngym.make_game`` (made once) with string actions picked from
``infos[agent]["legal_actions"]`` and ``observe(agent)`` per move. Each side seeds once a
block and its RNG runs on from game to game: the native side's ``random.Random``, the
adapter's ``reset(seed=...)`` at the block's start and a plain ``reset()`` per game
(reseeding every game was work the native side did not do). Chance moves are not
counted as steps on either side.

``benchmarks/adapter_overhead.py`` imports ``pairs``; run this file to print one JSON
line per pair (the best of ``--repeat`` interleaved passes per side; ``--cpu`` times
with the process's CPU time instead of the wall clock, steadier on a loaded machine):

    python benchmarks/overhead_openspiel.py [--quick] [--repeat 5] [--cpu]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

GAMES = ("tic_tac_toe", "leduc_poker", "pig", "go")
"""Representative games: tiny perfect-information, poker with cards, dice, a big board."""

Runner = Callable[[int, int], int]


def _native(name: str) -> Runner:
    loaded: list[Any] = []  # the game and its spec, loaded at the first call

    def run(steps: int, seed: int) -> int:
        if not loaded:
            import pyspiel

            from turngym.envs.adapters.openspiel import game_class

            loaded.extend([pyspiel.load_game(name), game_class(name)()._spec])
        game, spec = loaded
        kind = spec.text  # the same string the adapter shows
        rng = random.Random(seed)
        state, done = game.new_initial_state(), 0
        while done < steps:
            if state.is_terminal():
                assert len(state.returns()) == game.num_players()  # the rewards of the end
                state = game.new_initial_state()
            elif state.is_chance_node():
                # One uniform draw scanned over the outcomes, as the adapter draws
                # (``rng.choices`` cost 1.7 us a draw here against 0.5 us: work the
                # adapter does not do, counted against the native side)
                outcomes = state.chance_outcomes()
                draw, action = rng.random(), outcomes[-1][0]
                for outcome, probability in outcomes:
                    draw -= probability
                    if draw < 0.0:
                        action = outcome
                        break
                state.apply_action(action)
            else:
                player = state.current_player()
                text = str(state) if kind == "str" else getattr(state, kind)(player)
                legal = state.legal_actions()
                names = [state.action_to_string(player, a) for a in legal]
                assert text is not None and names
                state.apply_action(legal[rng.randrange(len(legal))])
                if not spec.terminal_rewards:
                    state.returns()  # rewards along the way
                done += 1
        return done

    return run


def _adapter(name: str) -> Runner:
    made: list[Any] = []  # the game, made at the first call

    def run(steps: int, seed: int) -> int:
        if not made:
            import turngym

            made.append(turngym.make_game(f"turngym/openspiel.{name}-v0"))
        game = made[0]
        rng = random.Random(seed)
        game.reset(seed=seed)
        done = 0
        while done < steps:
            if not game.agents or game.over:
                game.reset()  # the game's RNG goes on, as the native side's does
                continue
            agent = game.agent_selection
            obs = game.observe(agent)
            legal = game.infos[agent]["legal_actions"]
            assert obs["text"] and legal
            game.step(legal[rng.randrange(len(legal))])
            done += 1
        return done

    return run


def pairs(quick: bool) -> list[tuple[str, Runner, Runner]]:
    """(name, native(steps, seed), adapter(steps, seed)) for each representative game."""
    return [(f"openspiel.{name}", _native(name), _adapter(name)) for name in GAMES]


def _rate(run: Runner, steps: int, seed: int, clock: Callable[[], float]) -> float:
    start = clock()
    done = run(steps, seed)
    return done / (clock() - start)


def main(argv: list[str]) -> None:
    """Print one JSON line per pair: steps/s of both and the adapter's overhead."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2,000 steps instead of 20,000")
    parser.add_argument("--repeat", type=int, default=1, help="timed passes per side")
    parser.add_argument("--cpu", action="store_true", help="CPU time, not the wall clock")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    steps, repeat = (2_000 if args.quick else 20_000), args.repeat
    clock = time.process_time if args.cpu else time.perf_counter
    for name, native, adapter in pairs(args.quick):
        native(200, 0)  # warm up: imports, game loading, the names table
        adapter(200, 0)
        native_rate = adapter_rate = 0.0
        for r in range(repeat):  # interleaved, so load on the machine hits both sides
            native_rate = max(native_rate, _rate(native, steps, r, clock))
            adapter_rate = max(adapter_rate, _rate(adapter, steps, r, clock))
        print(
            json.dumps(
                {
                    "bench": "adapter_overhead",
                    "pair": name,
                    "clock": "cpu" if clock is time.process_time else "wall",
                    "repeat": repeat,
                    "steps": steps,
                    "native_steps_per_s": round(native_rate, 1),
                    "adapter_steps_per_s": round(adapter_rate, 1),
                    "overhead_per_step": round(native_rate / adapter_rate - 1.0, 3),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
