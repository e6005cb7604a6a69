"""Game throughput under random legal self-play: turngym next to TextArena and PettingZoo.

In ONE run, every implementation plays the same number of episodes (default 2,000)
of random legal moves for both seats and prints one JSON line: episodes/s, moves/s
and, on turngym's lines, the ratio of its episodes/s to each peer's. Each row is
timed ``--repeat`` times (default 5), the passes of a game's rows interleaved
round-robin, and the fastest pass is kept, so a noisy neighbour on the machine
slows no implementation more than another.

    python benchmarks/games_throughput.py                  # peers skipped if missing
    .venv-peers/bin/python benchmarks/games_throughput.py  # pip install -e '.[bench]'

Implementations per game:
- turngym: the PettingZoo AEC game from ``turngym.make_game`` (``agent_iter`` /
  ``last`` / ``step``; legal moves from ``info["legal_actions"]``).
- TextArena 0.7.4: ``<id>`` with its default wrappers, put on afresh for each game
  (a reused wrapped env leaks every earlier game's text into the next), and ``<id>-raw``;
  legal moves read from the env's state (its prompts only list them as text).
- PettingZoo 1.27: ``env()`` (with its wrappers) and ``raw_env()``; legal moves from the
  observation's ``action_mask``.
TextArena's ``KuhnPoker-v0`` plays 3 hands a game, so turngym's Kuhn Poker runs with
``rounds=3`` here; PettingZoo has no Kuhn poker, so its Leduc Hold'em stands in.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import turngym

_MAX_MOVES = 10_000


class PeerUnavailable(Exception):
    """The implementation cannot be measured here (not installed, no such game)."""


Player = Callable[[random.Random, int], int]
"""Plays one episode from a seed with random legal moves; returns the moves made."""


# -- the implementations ---------------------------------------------------------------


def turngym_player(game_id: str, **kwargs: Any) -> Player:
    """A turngym AEC game; random choice over ``info["legal_actions"]``."""
    try:
        game = turngym.make_game(game_id, **kwargs)
    except ValueError as exc:
        raise PeerUnavailable(str(exc)) from exc

    def play(rng: random.Random, seed: int) -> int:
        game.reset(seed=seed)
        moves = 0
        for _ in game.agent_iter(_MAX_MOVES):
            _, _, terminated, truncated, info = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            legal = info["legal_actions"]
            game.step(legal[rng.randrange(len(legal))])
            moves += 1
        return moves

    return play


def pettingzoo_player(module: str, raw: bool) -> Player:
    """A PettingZoo classic env; random choice over the ``action_mask``."""
    try:
        mod = importlib.import_module(f"pettingzoo.classic.{module}")
        env = mod.raw_env() if raw else mod.env()
    except Exception as exc:  # pettingzoo, or its extras (rlcard, pygame), missing
        raise PeerUnavailable(f"pettingzoo.classic.{module}: {type(exc).__name__}: {exc}") from exc

    def play(rng: random.Random, seed: int) -> int:
        env.reset(seed=seed)
        moves = 0
        for _ in env.agent_iter(_MAX_MOVES):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            moves += 1
        return moves

    return play


def textarena_player(env_id: str, legal: Callable[[Any], list[str]], wrapped: bool) -> Player:
    """A TextArena two-player game; both seats random over the moves its state allows."""
    try:
        import textarena as ta
        from textarena.envs.registration import ENV_REGISTRY
    except ImportError as exc:
        raise PeerUnavailable(f"textarena is not importable ({exc})") from exc
    if env_id not in ENV_REGISTRY:
        raise PeerUnavailable(f"textarena has no env {env_id!r}")
    raw = ta.make(f"{env_id}-raw")
    wrappers = list(ENV_REGISTRY[env_id].default_wrappers or []) if wrapped else []

    def play(rng: random.Random, seed: int) -> int:
        env = raw
        for wrapper in wrappers:
            env = wrapper(env)
        env.reset(num_players=2, seed=seed)
        moves = 0
        done = False
        while not done and moves < _MAX_MOVES:
            env.get_observation()
            options = legal(raw)
            done, _ = env.step(options[rng.randrange(len(options))])
            moves += 1
        env.close()
        return moves

    return play


def _ta_tictactoe_moves(env: Any) -> list[str]:
    board = env.state.game_state["board"]
    return [f"[{3 * r + c}]" for r in range(3) for c in range(3) if board[r][c] == ""]


def _ta_kuhn_moves(env: Any) -> list[str]:
    tree = env.state.game_state["current_legal_action_tree"]
    return [f"[{move}]" for move in tree]


@dataclass(frozen=True)
class Row:
    """One implementation of one game."""

    game: str
    impl: str
    id: str
    make: Callable[[], Player]
    note: str = ""


@dataclass
class Game:
    """A game, turngym's id for it and the peer rows measured beside it."""

    name: str
    turngym_id: str
    turngym_kwargs: dict[str, Any] = field(default_factory=dict)
    peers: list[Row] = field(default_factory=list)


GAMES: list[Game] = [
    Game(
        "TicTacToe",
        "turngym/TicTacToe-v0",
        peers=[
            Row(
                "TicTacToe",
                "textarena",
                "TicTacToe-v0",
                lambda: textarena_player("TicTacToe-v0", _ta_tictactoe_moves, wrapped=True),
                "default wrappers, put on afresh each game",
            ),
            Row(
                "TicTacToe",
                "textarena",
                "TicTacToe-v0-raw",
                lambda: textarena_player("TicTacToe-v0", _ta_tictactoe_moves, wrapped=False),
            ),
            Row(
                "TicTacToe",
                "pettingzoo",
                "tictactoe_v3.env()",
                lambda: pettingzoo_player("tictactoe_v3", raw=False),
            ),
            Row(
                "TicTacToe",
                "pettingzoo",
                "tictactoe_v3.raw_env()",
                lambda: pettingzoo_player("tictactoe_v3", raw=True),
            ),
        ],
    ),
    Game(
        "KuhnPoker",
        "turngym/KuhnPoker-v0",
        {"rounds": 3},
        peers=[
            Row(
                "KuhnPoker",
                "textarena",
                "KuhnPoker-v0",
                lambda: textarena_player("KuhnPoker-v0", _ta_kuhn_moves, wrapped=True),
                "3 hands a game; default wrappers, put on afresh each game",
            ),
            Row(
                "KuhnPoker",
                "textarena",
                "KuhnPoker-v0-raw",
                lambda: textarena_player("KuhnPoker-v0", _ta_kuhn_moves, wrapped=False),
                "3 hands a game",
            ),
            Row(
                "KuhnPoker",
                "pettingzoo",
                "leduc_holdem_v4.env()",
                lambda: pettingzoo_player("leduc_holdem_v4", raw=False),
                "Leduc Hold'em (PettingZoo has no Kuhn poker): a bigger game, one hand",
            ),
            Row(
                "KuhnPoker",
                "pettingzoo",
                "leduc_holdem_v4.raw_env()",
                lambda: pettingzoo_player("leduc_holdem_v4", raw=True),
                "Leduc Hold'em (PettingZoo has no Kuhn poker): a bigger game, one hand",
            ),
        ],
    ),
    Game(
        "LeducHoldem",
        "turngym/LeducHoldem-v0",
        peers=[
            Row(
                "LeducHoldem",
                "pettingzoo",
                "leduc_holdem_v4.raw_env()",
                lambda: pettingzoo_player("leduc_holdem_v4", raw=True),
            ),
        ],
    ),
]


# -- measuring -------------------------------------------------------------------------


class Pass:
    """Times passes of ``episodes`` games of one implementation; keeps the fastest."""

    def __init__(self, play: Player, episodes: int, seed: int) -> None:
        self.play, self.episodes, self.seed = play, episodes, seed
        self.best: tuple[float, int] | None = None
        self.play(self._rng(), seed)  # warm-up: lazy imports and first-call caches

    def _rng(self) -> random.Random:
        # A private Python RNG: a NumPy scalar draw costs ~1.6 us, as much as a move here,
        # and would blur the differences between the implementations it is the same for.
        return random.Random(f"{self.seed}/agent")

    def run(self) -> None:
        """One timed pass over seeds ``seed .. seed + episodes - 1``."""
        rng = self._rng()
        start = time.perf_counter()
        moves = sum(self.play(rng, self.seed + k) for k in range(self.episodes))
        seconds = time.perf_counter() - start
        if self.best is None or seconds < self.best[0]:
            self.best = (seconds, moves)

    def stats(self) -> dict[str, float | int]:
        """The fastest pass, as numbers for the JSON line."""
        assert self.best is not None
        seconds, moves = self.best
        return {
            "episodes": self.episodes,
            "moves": moves,
            "seconds": round(seconds, 4),
            "episodes_per_s": round(self.episodes / seconds, 1),
            "moves_per_s": round(moves / seconds, 1),
            "mean_moves": round(moves / self.episodes, 3),
        }


_DIST = {"turngym": "turngym", "textarena": "textarena", "pettingzoo": "pettingzoo"}


def _version(impl: str) -> str | None:
    try:
        return importlib.metadata.version(_DIST[impl])
    except importlib.metadata.PackageNotFoundError:
        return turngym.__version__ if impl == "turngym" else None


def measure_game(rows: list[Row], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Measure a game's rows with passes interleaved round-robin; a line per row.

    Interleaving means a stretch of a slow machine (another process, a busy host)
    falls on every implementation alike instead of on whichever ran then.
    """
    lines: list[dict[str, Any]] = []
    passes: dict[int, Pass] = {}
    for k, row in enumerate(rows):
        head: dict[str, Any] = {"bench": "games_throughput", "game": row.game, "impl": row.impl}
        head["id"] = row.id
        lines.append(head)
        with contextlib.redirect_stdout(sys.stderr):  # peers print banners; stdout is JSON
            try:
                passes[k] = Pass(row.make(), args.episodes, args.seed)
            except PeerUnavailable as exc:
                ours = row.impl == "turngym" and "unknown" not in str(exc)
                head["error" if ours else "skipped"] = str(exc)
            except Exception as exc:
                head["error"] = f"{type(exc).__name__}: {exc}"
    for _ in range(args.repeat):
        for k, timer in list(passes.items()):
            with contextlib.redirect_stdout(sys.stderr):
                try:
                    timer.run()
                except Exception as exc:
                    lines[k]["error"] = f"{type(exc).__name__}: {exc}"
                    del passes[k]
    for k, timer in passes.items():
        row = rows[k]
        lines[k].update(timer.stats())
        lines[k].update({"python": platform.python_version(), "version": _version(row.impl)})
        if row.note:
            lines[k]["note"] = row.note
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run every row and print one JSON line each; 1 if a turngym row failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=2000, help="episodes per row")
    parser.add_argument(
        "--repeat", type=int, default=5, help="interleaved passes per row; the fastest counts"
    )
    parser.add_argument("--games", default=None, help="comma list, e.g. TicTacToe,KuhnPoker")
    parser.add_argument("--no-peers", action="store_true", help="measure turngym only")
    parser.add_argument("--seed", type=int, default=0, help="first reset seed")
    args = parser.parse_args(argv)
    if args.episodes < 1 or args.repeat < 1:
        parser.error("--episodes and --repeat must be >= 1")
    wanted = {g.strip().lower() for g in args.games.split(",")} if args.games else None

    failed = False
    for game in GAMES:
        if wanted is not None and game.name.lower() not in wanted:
            continue
        note = ", ".join(f"{k}={v}" for k, v in game.turngym_kwargs.items())
        ours_row = Row(
            game.name,
            "turngym",
            game.turngym_id,
            lambda g=game: turngym_player(g.turngym_id, **g.turngym_kwargs),  # type: ignore[misc]
            note,
        )
        ours, *peers = measure_game([ours_row, *([] if args.no_peers else game.peers)], args)
        if "episodes_per_s" in ours:
            ours["ratio_vs"] = {
                f"{p['impl']}/{p['id']}": round(ours["episodes_per_s"] / p["episodes_per_s"], 2)
                for p in peers
                if "episodes_per_s" in p
            }
        for line in [ours, *peers]:
            failed = failed or ("error" in line and line["impl"] == "turngym")
            print(json.dumps(line), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
