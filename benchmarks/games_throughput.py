"""Game throughput under random legal self-play: turngym next to TextArena and PettingZoo.

In ONE run, every implementation plays the same number of episodes (default 2,000)
of random legal moves for both seats and prints one JSON line: episodes/s, moves/s
and, on turngym's lines, the ratio of its episodes/s to each peer's. Each row is
timed ``--repeat`` times (default 3) and the fastest pass is kept, so a noisy
neighbour on the machine slows no implementation more than another.

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
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import turngym

# The agents' draws never share a stream with an env's own RNG.
_AGENT_SPAWN_KEY = (0xB3C4,)
_MAX_MOVES = 10_000


class PeerUnavailable(Exception):
    """The implementation cannot be measured here (not installed, no such game)."""


Player = Callable[[np.random.Generator, int], int]
"""Plays one episode from a seed with random legal moves; returns the moves made."""


# -- the implementations ---------------------------------------------------------------


def turngym_player(game_id: str, **kwargs: Any) -> Player:
    """A turngym AEC game; random choice over ``info["legal_actions"]``."""
    try:
        game = turngym.make_game(game_id, **kwargs)
    except ValueError as exc:
        raise PeerUnavailable(str(exc)) from exc

    def play(rng: np.random.Generator, seed: int) -> int:
        game.reset(seed=seed)
        moves = 0
        for _ in game.agent_iter(_MAX_MOVES):
            _, _, terminated, truncated, info = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            legal = info["legal_actions"]
            game.step(legal[int(rng.integers(len(legal)))])
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

    def play(rng: np.random.Generator, seed: int) -> int:
        env.reset(seed=seed)
        moves = 0
        for _ in env.agent_iter(_MAX_MOVES):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
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

    def play(rng: np.random.Generator, seed: int) -> int:
        env = raw
        for wrapper in wrappers:
            env = wrapper(env)
        env.reset(num_players=2, seed=seed)
        moves = 0
        done = False
        while not done and moves < _MAX_MOVES:
            env.get_observation()
            options = legal(raw)
            done, _ = env.step(options[int(rng.integers(len(options)))])
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


def measure(play: Player, episodes: int, seed: int, repeat: int) -> dict[str, float | int]:
    """Play ``episodes`` games ``repeat`` times after one warm-up game; keep the fastest pass."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_AGENT_SPAWN_KEY))
    play(rng, seed)
    best: tuple[float, int] | None = None
    for _ in range(repeat):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_AGENT_SPAWN_KEY))
        start = time.perf_counter()
        moves = sum(play(rng, seed + k) for k in range(episodes))
        seconds = time.perf_counter() - start
        if best is None or seconds < best[0]:
            best = (seconds, moves)
    assert best is not None
    seconds, moves = best
    return {
        "episodes": episodes,
        "moves": moves,
        "seconds": round(seconds, 4),
        "episodes_per_s": round(episodes / seconds, 1),
        "moves_per_s": round(moves / seconds, 1),
        "mean_moves": round(moves / episodes, 3),
    }


_DIST = {"turngym": "turngym", "textarena": "textarena", "pettingzoo": "pettingzoo"}


def _version(impl: str) -> str | None:
    try:
        return importlib.metadata.version(_DIST[impl])
    except importlib.metadata.PackageNotFoundError:
        return turngym.__version__ if impl == "turngym" else None


def run_row(row: Row, args: argparse.Namespace) -> dict[str, Any]:
    """Build and measure one implementation: a line to print either way."""
    head: dict[str, Any] = {"bench": "games_throughput", "game": row.game, "impl": row.impl}
    head["id"] = row.id
    with contextlib.redirect_stdout(sys.stderr):  # peers print banners; stdout is JSON
        try:
            play = row.make()
        except PeerUnavailable as exc:
            key = "error" if row.impl == "turngym" and "unknown" not in str(exc) else "skipped"
            return {**head, key: str(exc)}
        try:
            stats = measure(play, args.episodes, args.seed, args.repeat)
        except Exception as exc:
            return {**head, "error": f"{type(exc).__name__}: {exc}"}
    line = {**head, **stats, "python": platform.python_version(), "version": _version(row.impl)}
    if row.note:
        line["note"] = row.note
    return line


def main(argv: Sequence[str] | None = None) -> int:
    """Run every row and print one JSON line each; 1 if a turngym row failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=2000, help="episodes per row")
    parser.add_argument("--repeat", type=int, default=3, help="passes per row; the fastest counts")
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
        ours = run_row(
            Row(
                game.name,
                "turngym",
                game.turngym_id,
                lambda g=game: turngym_player(g.turngym_id, **g.turngym_kwargs),  # type: ignore[misc]
                note,
            ),
            args,
        )
        peers = [] if args.no_peers else [run_row(row, args) for row in game.peers]
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
