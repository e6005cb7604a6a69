"""`turngym collect`: play an agent over many seeds and save the episodes as a dataset."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Any

from turngym.cli.args import (
    SET_HELP,
    WRAPPERS_HELP,
    CliError,
    full_id,
    parse_sets,
    wrappers_for,
)
from turngym.extras import MissingExtra
from turngym.sdk.agents import MODEL_KINDS

__all__ = ["add_collect_parser", "cmd_collect"]


def add_collect_parser(sub: Any) -> None:
    """Add ``collect`` to the ``turngym`` command's subparsers."""
    p = sub.add_parser(
        "collect",
        help="play an agent over many seeds and save the episodes as a dataset",
        description="Play an agent (every seat of a game, or one seat against --opponent) "
        "and write the episodes to DIR: episodes.jsonl (pictures in DIR/images) or "
        "episodes.parquet, and the manifest dataset.json. Episode k is reset with seed "
        "SEED + k. Read them with turngym.sdk.episode_files.load_episodes(DIR) or "
        "datasets.Dataset.from_parquet.",
    )
    p.add_argument("env", help="env or game id, e.g. FrozenLake-v0 or TicTacToe-v0")
    p.add_argument(
        "--agent", default="expert", help="expert (default), random, hf:MODEL_DIR or openai:URL"
    )
    p.add_argument("--episodes", type=int, default=100)
    p.add_argument("--output", required=True, metavar="DIR", help="the dataset folder to write")
    p.add_argument("--seed", type=int, default=0, help="episode k is reset with seed SEED + k")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=SET_HELP)
    p.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    p.add_argument(
        "--opponent",
        help="games: who plays the other seats (expert, random, hf:DIR, openai:URL); "
        "default: --agent plays every seat",
    )
    p.add_argument("--seat", help="games with --opponent: the agent's seat, 0, 1, ... (default 0)")
    p.add_argument("--overwrite", action="store_true", help="replace a dataset already in DIR")
    p.add_argument("--wrappers", metavar="SPECS", help=WRAPPERS_HELP)
    p.set_defaults(fn=cmd_collect)


def _collect_agents(env_id: str, args: argparse.Namespace, seats: list[str]) -> dict[str, str]:
    """Who plays: ``{"agent": kind}`` in an env, ``{seat: kind}`` in a game."""
    from turngym.registry import entry

    for flag, kind in (("--agent", args.agent), ("--opponent", args.opponent)):
        if kind is None:
            continue
        if kind not in ("expert", "random") and not kind.startswith(MODEL_KINDS):
            raise CliError(f"{flag} is expert, random, hf:DIR or openai:URL, got {kind!r}")
        if kind == "expert" and entry(env_id).expert is None:
            raise CliError(f"{env_id} has no expert; use random or a model (hf:DIR, openai:URL)")
    if not seats:
        if args.opponent is not None or args.seat is not None:
            raise CliError(f"--opponent and --seat are for games; {env_id} is a single-agent env")
        return {"agent": args.agent}
    if args.opponent is None:
        if args.seat is not None:
            raise CliError("--seat needs --opponent (without it the agent plays every seat)")
        return dict.fromkeys(seats, args.agent)
    seat = args.seat if args.seat is not None else "0"
    if seat not in [str(k) for k in range(len(seats))]:
        allowed = ", ".join(str(k) for k in range(len(seats)))
        raise CliError(f"--seat must be one of {allowed}, got {seat!r}")
    return {s: args.agent if k == int(seat) else args.opponent for k, s in enumerate(seats)}


def _clear_dataset(out: Any, overwrite: bool) -> None:
    """Make ``out`` ready for a dataset: new, empty, or (``overwrite``) one turngym wrote."""
    import shutil

    from turngym.sdk.episode_files import MANIFEST, read_manifest

    if out.exists() and not out.is_dir():
        raise CliError(f"--output {out} is a file; name a folder")
    if not out.exists() or not any(out.iterdir()):
        return
    if not overwrite:
        raise CliError(f"--output {out} is not empty; pass --overwrite or name another folder")
    if not (out / MANIFEST).is_file():
        raise CliError(
            f"--output {out} holds no {MANIFEST}: --overwrite only replaces a dataset that "
            "turngym collect wrote; name another folder"
        )
    try:
        old = read_manifest(out)["files"]
    except ValueError as error:
        raise CliError(str(error)) from None
    # Only what the old dataset consists of: the files its manifest lists and its pictures.
    for name in [*old, MANIFEST]:
        (out / name).unlink(missing_ok=True)
    images = out / "images"
    if images.is_dir() and not images.is_symlink():
        shutil.rmtree(images)


def _collected(collector: Any, episodes: int, seed: int, chunk: int) -> Any:
    """Episodes ``0..episodes-1`` in order, ``chunk`` at a time (episode k: seed + k)."""
    for start in range(0, episodes, chunk):
        for ep in collector.collect(min(chunk, episodes - start), seed=seed + start):
            ep.index += start
            yield ep


def cmd_collect(args: argparse.Namespace) -> int:
    """Run ``turngym collect``: write the dataset; returns the exit status."""
    from datetime import datetime, timezone
    from pathlib import Path

    import turngym
    from turngym.progress import progress
    from turngym.registry import entry
    from turngym.sdk.episode_files import EpisodeWriter, write_manifest
    from turngym.sdk.rollout import Collector, GameCollector

    env_id = full_id(args.env)
    kwargs = parse_sets(args.set)
    seats: list[str] = []
    if entry(env_id).game is not None:
        try:
            probe = turngym.make_game(env_id, **kwargs)
        except (ValueError, TypeError) as error:
            raise CliError(f"cannot make {env_id} with {kwargs}: {error}") from None
        seats = list(probe.possible_agents)
        probe.close()
    agents = _collect_agents(env_id, args, seats)
    wrappers = wrappers_for(args.agent, args.wrappers)
    if args.format == "parquet" and importlib.util.find_spec("pyarrow") is None:
        raise MissingExtra("--format parquet", "data")
    out = Path(args.output)
    n = min(args.episodes, 16)
    try:
        if seats:
            collector: Any = GameCollector(
                env_id,
                dict(agents),
                num_games=n,
                game_kwargs=kwargs,
                progress=False,
                wrappers=wrappers,
            )
        else:
            collector = Collector(
                env_id, args.agent, num_envs=n, env_kwargs=kwargs, progress=False, wrappers=wrappers
            )
    except (ValueError, TypeError) as error:
        raise CliError(f"cannot collect {env_id} with {kwargs} and {agents}: {error}") from None
    try:
        _clear_dataset(out, args.overwrite)  # after every check, so a typo keeps the old one
    except CliError:
        collector.close()
        raise
    path = out / f"episodes.{args.format}"
    returns: dict[str, float] = {}
    try:
        with EpisodeWriter(path) as writer:
            run = _collected(collector, args.episodes, args.seed, chunk=max(n, 32))
            for ep in progress(run, total=args.episodes, desc=f"collect {env_id}"):
                ep.meta = {**ep.meta, "agents": agents}
                for who, value in ep.returns.items():
                    returns[who] = returns.get(who, 0.0) + value
                writer.write([ep])
    except ValueError as error:  # an episode with a value no file can hold
        raise CliError(str(error)) from None
    except KeyboardInterrupt:
        print(f"\ninterrupted: nothing written to {path}", file=sys.stderr)
        return 130
    finally:
        collector.close()
    write_manifest(
        out,
        writer,
        env_id=env_id,
        env_kwargs=kwargs,
        wrappers=list(wrappers),
        agents=agents,
        seeds=[args.seed, args.seed + args.episodes - 1],
        mean_returns={who: total / writer.episodes for who, total in returns.items()},
        turngym_version=turngym.__version__,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    rate = writer.successes / writer.episodes
    means = ", ".join(f"{who} {total / writer.episodes:+.2f}" for who, total in returns.items())
    pictures = f", {writer.images} pictures" if writer.images else ""
    print(
        f"collected {writer.episodes} episodes of {env_id} ({writer.turns} turns, success "
        f"{rate:.2f}, mean return {means}{pictures}) -> {path} (+ {out / 'dataset.json'})"
    )
    return 0
