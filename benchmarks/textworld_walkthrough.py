"""Does the walkthrough win every generated TextWorld game? One JSON line per kind.

For each kind of ``turngym/textworld.<kind>-v0`` (default settings, or ``--level``),
games ``0 .. n-1`` are made (``reset(options={"game_seed": k})``; made games are read
from ``$TURNGYM_CACHE``) and the game's own walkthrough is played command by command
through the env. A game counts as won when the episode ends with ``success`` and the
rewards sum to the game's ``max_score``; a walkthrough command that is not admissible
counts as a loss. The line gives wins/games, the walkthrough lengths, and the seconds
spent making games (``make_s``) and playing them.

    python benchmarks/textworld_walkthrough.py --games 50
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym

import turngym  # noqa: F401  (registers the ids)
from turngym.envs.adapters.textworld_env import KINDS


def run(kind: str, games: int, kwargs: dict) -> dict:
    """Play the walkthrough of games ``0 .. games-1`` of ``kind``; a summary dict."""
    env = gym.make(f"turngym/textworld.{kind}-v0", **kwargs)
    wins, lengths, failures = 0, [], []
    make_s = play_s = 0.0
    for game in range(games):
        start = time.perf_counter()
        _, info = env.reset(options={"game_seed": game})
        make_s += time.perf_counter() - start
        start = time.perf_counter()
        walkthrough = list(env.unwrapped.walkthrough)
        total, won = 0.0, False
        for command in walkthrough:
            if command not in info["legal_actions"]:
                break
            _, reward, terminated, truncated, info = env.step(command)
            total += reward
            if terminated or truncated:
                won = terminated and info["success"] and total == info["max_score"]
                break
        play_s += time.perf_counter() - start
        wins += won
        lengths.append(len(walkthrough))
        if not won:
            failures.append(game)
    env.close()
    return {
        "kind": kind,
        "settings": env.unwrapped.settings,
        "games": games,
        "wins": wins,
        "failed_games": failures,
        "walkthrough_min": min(lengths),
        "walkthrough_mean": round(sum(lengths) / len(lengths), 1),
        "walkthrough_max": max(lengths),
        "make_s": round(make_s, 1),
        "play_s": round(play_s, 2),
    }


def main() -> None:
    """Run every kind (or ``--kinds``) and print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games per kind")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds")
    parser.add_argument("--level", type=int, default=None, help="level (not for cooking)")
    args = parser.parse_args()
    for kind in args.kinds.split(","):
        kwargs = {"level": args.level} if args.level is not None and kind != "cooking" else {}
        print(json.dumps(run(kind, args.games, kwargs)), flush=True)


if __name__ == "__main__":
    main()
