"""How fast `turngym view` opens the episode table of a run with many recorded episodes.

Writes a run folder whose ``episodes/eval-step-0000040.jsonl`` holds N real TicTacToe
episodes (``turngym.view.demo.tictactoe_episodes``: multi-turn games against the
random opponent, written with ``EpisodeWriter``), then times, through the app
in-process (FastAPI's TestClient, so HTTP parsing but no socket):

- ``episodes_cold``: the first ``/episodes?run=...`` (the file's index is built);
- ``episodes_warm``: the same request again (the index is cached by size and mtime);
- ``episodes_last_page``, ``episodes_filtered``: the last page, and ``success=yes``;
- ``episode_page``: one episode turn by turn (reads one line by its offset);
- the peer, ``load_episodes``: reading every episode with
  ``turngym.sdk.episode_files.load_episodes``, the naive way to build the table.

Prints one JSON line per measurement. Usage:
``python benchmarks/view_episodes.py [--episodes 10000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path


def _time(fn: object, repeat: int) -> tuple[float, float]:
    """(best, median) seconds of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000, help="episodes in the run")
    parser.add_argument("--repeat", type=int, default=3, help="timed repeats of warm requests")
    args = parser.parse_args()
    if args.episodes < 1 or args.repeat < 1:
        raise SystemExit("--episodes and --repeat must be >= 1")

    from fastapi.testclient import TestClient

    from turngym.sdk.episode_files import EpisodeWriter, load_episodes
    from turngym.view.app import create_app
    from turngym.view.demo import tictactoe_episodes

    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "runs" / "big"
        path = run / "episodes" / "eval-step-0000040.jsonl"
        start = time.perf_counter()
        with EpisodeWriter(path) as writer:
            for first in range(0, args.episodes, 1000):
                count = min(1000, args.episodes - first)
                writer.write(tictactoe_episodes(count, step=40, skill=0.5, seed=first))
        made = time.perf_counter() - start
        base = {
            "bench": "view_episodes",
            "episodes": args.episodes,
            "turns": writer.turns,
            "file_mb": round(path.stat().st_size / 2**20, 2),
            "python": platform.python_version(),
        }
        print(json.dumps({**base, "what": "write_episodes", "seconds": round(made, 3)}))

        client = TestClient(create_app([Path(tmp) / "runs"]))
        url = "/episodes?run=0/big"

        def get(query: str = "") -> None:
            answer = client.get(url + query)
            assert answer.status_code == 200, answer.status_code

        start = time.perf_counter()
        get()
        cold = time.perf_counter() - start
        print(
            json.dumps(
                {**base, "what": "episodes_cold", "impl": "turngym view", "seconds": round(cold, 4)}
            )
        )
        pages = -(-args.episodes // 50)
        for what, query in [
            ("episodes_warm", ""),
            ("episodes_last_page", f"&page={pages}"),
            ("episodes_filtered", "&success=yes"),
        ]:
            best, median = _time(lambda q=query: get(q), args.repeat)
            print(
                json.dumps(
                    {
                        **base,
                        "what": what,
                        "impl": "turngym view",
                        "seconds": round(median, 4),
                        "best": round(best, 4),
                    }
                )
            )
        episode = f"/episode?file=0/big/episodes/{path.name}&n={args.episodes - 1}"
        best, median = _time(lambda: client.get(episode), args.repeat)
        print(
            json.dumps(
                {
                    **base,
                    "what": "episode_page",
                    "impl": "turngym view",
                    "seconds": round(median, 4),
                    "best": round(best, 4),
                }
            )
        )
        best, median = _time(lambda: load_episodes(path), 1)
        print(
            json.dumps(
                {
                    **base,
                    "what": "load_all",
                    "impl": "episode_files.load_episodes",
                    "seconds": round(median, 4),
                }
            )
        )


if __name__ == "__main__":
    main()
