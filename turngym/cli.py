"""The turngym command: list, play, check, eval, collect, serve, train and view.

turngym list
turngym play turngym/Wordle-v0 --agent human --seed 3
turngym check Sokoban-v0
turngym eval --all --agents expert,random --episodes 50
turngym collect Sokoban-v0 --agent expert --episodes 500 --output data/sokoban
turngym serve --model ./tiny-model --port 8000
turngym train grpo --env FrozenLake-v0 --model tiny --steps 40
turngym train sac-glam --env BabyAIText-v0 --env-kwargs '{"mission": "goto"}' --model tiny
turngym train archer --env FrozenLake-v0 --model tiny --critic-steps 20
turngym train sft --env FrozenLake-v0 --demos expert --episodes 8 --epochs 20
turngym view runs/
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from turngym.cli_args import (
    OPPONENT_HELP,
    SET_HELP,
    WRAPPERS_HELP,
    CliError,
    full_id,
    game_options,
    make_env,
    parse_sets,
    selected,
    wrappers_for,
)
from turngym.cli_eval import FAMILIES_HELP, add_eval_parser
from turngym.cli_view import add_view_parser
from turngym.extras import MissingExtra
from turngym.sdk.agents import MODEL_KINDS
from turngym.sdk.policy import PolicyError

__all__ = ["main"]


# -- list ----------------------------------------------------------------------------


def _cmd_list(args: argparse.Namespace) -> int:
    from turngym.registry import select
    from turngym.tables import format_table

    try:
        rows = select(families=[args.family] if args.family else [])
    except ValueError as error:
        raise CliError(f"--{error}") from None
    by_needs: dict[tuple[str | None, tuple[str, ...]], str | None] = {}
    for e in rows:  # looked up once per kind of need, not per env
        if (e.extra, e.system) not in by_needs:
            by_needs[e.extra, e.system] = e.unavailable()
    missing = {e.id: by_needs[e.extra, e.system] for e in rows}
    if args.json:
        for e in rows:
            print(
                json.dumps(
                    {
                        "id": e.id,
                        "family": e.family,
                        "finite_actions": e.finite_actions,
                        "max_episode_steps": e.max_episode_steps,
                        "expert": e.expert is not None,
                        "extra": e.extra,
                        "system": list(e.system),
                        "installed": missing[e.id] is None,
                        "missing": missing[e.id],
                        "description": e.description,
                    }
                )
            )
        return 0
    table = [
        [
            e.id,
            e.family,
            "yes" if e.finite_actions else "no",
            e.max_episode_steps or "-",
            "yes" if e.expert else "no",
            e.extra or "-",
            "yes" if missing[e.id] is None else "no",
            e.description,
        ]
        for e in rows
    ]
    headers = ["id", "family", "finite actions", "max steps", "expert", "extra", "installed"]
    print(format_table([*headers, "description"], table))
    fixes = {(e.extra, missing[e.id]) for e in rows if missing[e.id] is not None}
    for extra, fix in sorted(fixes, key=str):
        print(f"{extra} envs need: {fix}")
    return 0


# -- play ----------------------------------------------------------------------------


def _shown(obs: Any, folder: str, stem: str) -> str:
    """An observation as text; its screenshot, if any, goes to a PNG file it names."""
    if not isinstance(obs, dict) or "screenshot" not in obs:
        return str(obs)
    from pathlib import Path

    import numpy as np

    from turngym.sdk.episode_values import png_bytes

    path = Path(folder) / f"{stem}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png_bytes(np.asarray(obs["screenshot"], dtype=np.uint8)))
    return f"{obs.get('text', '')}\n[screenshot: {path}]"


def _cmd_play(args: argparse.Namespace) -> int:
    from turngym.registry import entry
    from turngym.sdk.agents import make_agent

    env_id = full_id(args.env)
    if args.agent not in ("human", "random", "expert") and not args.agent.startswith(MODEL_KINDS):
        raise CliError(
            f"--agent is human, random, expert, hf:DIR or openai:URL, got {args.agent!r}"
        )
    kwargs = parse_sets(args.set)
    game_options(env_id, args, kwargs)
    if args.agent == "human":
        # A person's typos should get a retry, not end the episode.
        kwargs.setdefault("max_invalid_actions", None)
    env = make_env(env_id, kwargs)
    try:
        agent = make_agent(args.agent, env, seed=args.seed)
    except ValueError as error:
        raise CliError(str(error)) from None
    total_success = 0
    try:
        for k in range(args.episodes):
            seed = args.seed + k
            agent.reset(seed=seed)
            obs, info = env.reset(seed=seed)
            stem = f"{entry(env_id).name}-seed{seed}"
            print(f"=== {env_id}  seed {seed} ===\n{_shown(obs, args.screenshots, f'{stem}-0')}")
            ret, done, steps = 0.0, False, 0
            while not done:
                legal = info.get("legal_actions")
                text = obs.get("text", "") if isinstance(obs, dict) else obs
                shown = legal and ", ".join(legal) in str(text)
                if args.agent == "human" and legal and len(legal) <= 12 and not shown:
                    print(f"(legal: {', '.join(legal)})")
                action = agent.act(obs, info)
                if args.agent != "human":
                    print(f"> {action}")
                obs, reward, terminated, truncated, info = env.step(action)
                ret += float(reward)
                steps += 1
                done = terminated or truncated
                seen = _shown(obs, args.screenshots, f"{stem}-{steps}")
                print(seen if reward == 0 else f"{seen}\n[reward {reward:+g}]")
            total_success += bool(info.get("success"))
            ending = "truncated" if truncated and not terminated else "finished"
            print(
                f"--- episode {ending}: success={bool(info.get('success'))}, "
                f"return={ret:g}, steps={steps}\n"
            )
    except (EOFError, KeyboardInterrupt):
        print("\nbye")
        return 0
    finally:
        env.close()
    if args.episodes > 1:
        print(f"success in {total_success}/{args.episodes} episodes")
    return 0


# -- check ---------------------------------------------------------------------------


def _cmd_check(args: argparse.Namespace) -> int:
    from turngym.registry import ENVS, entry
    from turngym.testing import check_game, check_text_env

    ids = (
        [e.id for e in ENVS if e.family in ("text", "classic", "games")]
        if args.all
        else [e.id for e in selected(args.env, [])]
        if args.env
        else []
    )
    if not ids:
        raise CliError("name at least one env id, or pass --all")
    kwargs = parse_sets(args.set)
    # --all skips what this install cannot run; an env named on purpose is an error
    missing = {env_id: entry(env_id).unavailable() for env_id in ids}
    for env_id, reason in missing.items():
        if reason is not None and not args.all:
            raise CliError(f"{entry(env_id).name} cannot run here: {reason}")
    failed = 0
    for env_id in ids:
        if missing[env_id] is not None:
            print(f"skipped {env_id}: {missing[env_id]}\n")
            continue
        if entry(env_id).game is not None:
            report = check_game(
                env_id,
                n_fuzz=args.n_fuzz,
                reset_games=args.reset_episodes,
                seed=args.seed,
                make_kwargs=kwargs,
                raise_on_failure=False,
            )
        else:
            report = check_text_env(
                env_id,
                n_fuzz=args.n_fuzz,
                reset_episodes=args.reset_episodes,
                seed=args.seed,
                make_kwargs=kwargs,
                raise_on_failure=False,
            )
        print(report.table())
        print("PASS\n" if report.passed else "FAIL\n")
        failed += not report.passed
    checked = sum(reason is None for reason in missing.values())
    if len(ids) > 1:
        skipped = len(ids) - checked
        note = f" ({skipped} skipped: extras not installed)" if skipped else ""
        print(f"{checked - failed}/{checked} envs pass{note}")
    return 1 if failed else 0


# -- collect -------------------------------------------------------------------------


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


def _cmd_collect(args: argparse.Namespace) -> int:
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


# -- serve ---------------------------------------------------------------------------


def _cmd_serve(args: argparse.Namespace) -> int:
    from pathlib import Path

    if not Path(args.model).is_dir():
        raise CliError(
            f"--model {args.model}: no such directory (pass a model dir saved with save_pretrained)"
        )
    if not 0 <= args.port <= 65535:
        raise CliError(f"--port must be in 0..65535 (0: any free port), got {args.port}")
    if args.max_batch_size < 1:
        raise CliError(f"--max-batch-size must be >= 1, got {args.max_batch_size}")
    for flag, value in [
        ("--max-prompts", args.max_prompts),
        ("--max-model-len", args.max_model_len),
        ("--max-choices", args.max_choices),
        ("--max-choice-chars", args.max_choice_chars),
    ]:
        if value is not None and value < 1:
            raise CliError(f"{flag} must be >= 1, got {value}")
    if not args.max_body_mb > 0:
        raise CliError(f"--max-body-mb must be > 0, got {args.max_body_mb}")
    for flag, seconds in [
        ("--header-timeout", args.header_timeout),
        ("--body-timeout", args.body_timeout),
        ("--keep-alive-timeout", args.keep_alive_timeout),
    ]:
        if not 0 < seconds < float("inf"):
            raise CliError(f"{flag} must be a number of seconds > 0, got {seconds}")
    if args.max_connections < 1:
        raise CliError(f"--max-connections must be >= 1, got {args.max_connections}")
    from turngym.sdk.policy import PolicyError
    from turngym.sdk.serve import ServeConnections, ServeLimits, serve

    try:
        limits = ServeLimits(
            max_model_len=args.max_model_len,
            max_prompts=args.max_prompts,
            max_body_bytes=max(int(args.max_body_mb * (1 << 20)), 1),
            max_choices=args.max_choices,
            max_choice_chars=args.max_choice_chars,
        )
        serve(
            args.model,
            port=args.port,
            host=args.host,
            device=args.device,
            max_batch_size=args.max_batch_size,
            batch_wait_ms=args.batch_wait_ms,
            model_name=args.name,
            announce=lambda line: print(line, flush=True),
            accept_weight_updates=args.accept_weight_updates,
            api_key=args.api_key,
            weights_dir=args.weights_dir,
            limits=limits,
            connections=ServeConnections(
                header_timeout=args.header_timeout,
                body_timeout=args.body_timeout,
                keep_alive_timeout=args.keep_alive_timeout,
                max_connections=args.max_connections,
            ),
        )
    except (PolicyError, ValueError) as error:
        raise CliError(str(error)) from None
    except KeyboardInterrupt:
        pass
    return 0


# -- train ---------------------------------------------------------------------------


def _cmd_train(args: argparse.Namespace) -> int:
    from turngym.sdk.trainers import trainer_entry
    from turngym.sdk.trainers.config import config_from_args

    row = trainer_entry(args.trainer)
    try:
        config = config_from_args(row.config_class(), args)
        trainer = row.trainer_class()(config)
    except ValueError as error:
        raise CliError(str(error)) from None
    return _report_training(trainer.train(), trainer.env_id, config.env_kwargs)


def _set_flags(kwargs: dict[str, Any]) -> str:
    """``kwargs`` as the ``--set`` flags that rebuild them (shell-quoted), with a leading space.

    >>> _set_flags({"goal": "random", "size": 8})
    ' --set goal=random --set size=8'
    >>> import shlex  # what the shell hands back to --set rebuilds the same kwargs
    >>> kwargs = {"goal": "random", "name": "8", "sizes": [1, 2], "text": "a b"}
    >>> parse_sets(shlex.split(_set_flags(kwargs))[1::2]) == kwargs
    True
    """
    import shlex

    flags = []
    for key, value in kwargs.items():
        text = value if isinstance(value, str) else repr(value)
        if isinstance(value, str):
            try:
                ast.literal_eval(value)
                text = repr(value)  # would read back as a number, list...: keep the quotes
            except (ValueError, SyntaxError):
                pass
        flags.append(f" --set {shlex.quote(f'{key}={text}')}")
    return "".join(flags)


def _report_training(summary: dict[str, Any], env: str, env_kwargs: dict[str, Any]) -> int:
    """Print a trainer's summary: success before/after, where the model and metrics are.

    Under torchrun only process 0 (the one that wrote the model) prints it.
    """
    if summary["final"] is None:
        return 0
    before, after = summary["eval_before"], summary["eval_after"]
    final = summary["final"]
    print(f"trained {summary['steps']} steps in {summary['seconds']:.0f} s")
    if before is not None:
        print(f"held-out success: {before['success']:.2f} before -> {after['success']:.2f} after")
    else:
        print(f"held-out success after resuming: {after['success']:.2f}")
    print(f"model:   {final}")
    print(f"metrics: {summary['metrics']}")
    if summary["curve"]:
        print(f"curve:   {summary['curve']}")
    sets = _set_flags(env_kwargs)  # the env the model was trained on, not the default one
    print(f"evaluate it: turngym eval {env}{sets} --agent hf:{final} --episodes 100")
    print(f"watch it:    turngym play {env}{sets} --agent hf:{final}")
    return 0


# -- entry point ---------------------------------------------------------------------


class _Defaults(argparse.HelpFormatter):
    """Help that ends each flag with its default, where the default is a value."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        # no value to show: a switch, an unset option (its help says what then), a list
        unset = default is None or default is False or default is argparse.SUPPRESS
        if unset or default == [] or "%(default)" in text or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``turngym`` command."""
    parser = argparse.ArgumentParser(
        prog="turngym", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("list", help="list the registered envs", formatter_class=_Defaults)
    p.add_argument("--family", help=f"only this family: {FAMILIES_HELP}")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(fn=_cmd_list)

    p = sub.add_parser(
        "play", help="play an env in the terminal (or watch an agent)", formatter_class=_Defaults
    )
    p.add_argument("env", help="env id, e.g. turngym/Wordle-v0 or Wordle-v0")
    p.add_argument("--agent", default="human", help="human, random, expert, hf:DIR or openai:URL")
    p.add_argument("--seed", type=int, default=0, help="episode k is reset with seed SEED + k")
    p.add_argument("--episodes", type=int, default=1, help="episodes to play")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=SET_HELP)
    p.add_argument("--opponent", choices=["random", "expert"], help=OPPONENT_HELP)
    p.add_argument("--seat", help="games: your seat, 0, 1, ... or random (default: 0)")
    p.add_argument(
        "--screenshots",
        default="screenshots",
        metavar="DIR",
        help="where envs with pictures save each screenshot, as ENV-seedS-TURN.png",
    )
    p.set_defaults(fn=_cmd_play)

    p = sub.add_parser(
        "check",
        help="run the conformance checks and print a pass/fail table",
        formatter_class=_Defaults,
    )
    p.add_argument("env", nargs="*", help="env ids or globs, e.g. 'turngym/*Poker*'")
    p.add_argument("--all", action="store_true", help="check every text env and game")
    p.add_argument("--n-fuzz", type=int, default=1000, help="fuzzed actions per env")
    p.add_argument("--reset-episodes", type=int, default=50, help="reused-vs-fresh episodes")
    p.add_argument("--seed", type=int, default=0, help="the first seed of every check")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=SET_HELP)
    p.set_defaults(fn=_cmd_check)

    add_eval_parser(sub, formatter=_Defaults)

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
    p.set_defaults(fn=_cmd_collect)

    p = sub.add_parser("serve", help="serve a local model through an OpenAI-compatible HTTP API")
    p.add_argument("--model", required=True, help="a Hugging Face model dir (save_pretrained)")
    p.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    p.add_argument(
        "--host", default="127.0.0.1", help="0.0.0.0 to accept remote workers (needs a key)"
    )
    p.add_argument("--device", help="cpu, cuda, cuda:1, ... (default: the backend's choice)")
    p.add_argument("--max-batch-size", type=int, default=32, help="most prompts per model call")
    p.add_argument(
        "--batch-wait-ms", type=float, default=5.0, help="how long to gather requests into a batch"
    )
    p.add_argument("--name", help="the model id clients see (default: the dir's name)")
    p.add_argument(
        "--api-key",
        help="require Authorization: Bearer KEY on every request (default: $TURNGYM_API_KEY; "
        "needed beyond 127.0.0.1 and with --accept-weight-updates)",
    )
    p.add_argument(
        "--accept-weight-updates",
        action="store_true",
        help="let a trainer push new weights (POST /v1/update_weights with a file path)",
    )
    p.add_argument(
        "--weights-dir",
        help="the only folder weight updates load from (default: a private temp folder)",
    )
    p.add_argument(
        "--max-model-len",
        type=int,
        help="tokens of prompt plus completion (default: the model's context length)",
    )
    p.add_argument("--max-prompts", type=int, default=256, help="most prompts in one request")
    p.add_argument("--max-body-mb", type=float, default=16.0, help="largest request body, MiB")
    p.add_argument(
        "--max-choices",
        type=int,
        default=8192,
        help="guided choice: most choices in one request (structured_outputs.choice)",
    )
    p.add_argument(
        "--max-choice-chars",
        type=int,
        default=1 << 18,
        help="guided choice: most characters of one request's choices together",
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        help="seconds a client has to send a request's headers (then it is disconnected)",
    )
    p.add_argument(
        "--body-timeout",
        type=float,
        default=60.0,
        help="seconds a client has to send a request's body, once its headers came",
    )
    p.add_argument(
        "--keep-alive-timeout",
        type=float,
        default=5.0,
        help="seconds an idle connection stays open between requests",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        default=1024,
        help="most connections waiting on their client (one more closes the longest waiting)",
    )
    p.set_defaults(fn=_cmd_serve)

    from turngym.sdk.trainers import TRAINERS
    from turngym.sdk.trainers.config import add_config_flags

    p = sub.add_parser("train", help=f"train a model on an env ({', '.join(TRAINERS)})")
    trainers = p.add_subparsers(dest="trainer", required=True)
    for row in TRAINERS.values():
        t = trainers.add_parser(
            row.name,
            help=row.help,
            description=f"{row.help[0].upper()}{row.help[1:]}. Every config field is a flag; "
            "--config FILE gives defaults (JSON or TOML, a run's config.json too). "
            f"Example: {row.example}",
        )
        add_config_flags(t, row.config_class())
        t.set_defaults(fn=_cmd_train)
    add_view_parser(sub, formatter=_Defaults)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    args = build_parser().parse_args(argv)
    episodes = getattr(args, "episodes", 1)  # None: `train sft --episodes none`
    if episodes is not None and episodes < 1:
        print("turngym: --episodes must be >= 1", file=sys.stderr)
        return 2
    try:
        return int(args.fn(args))
    except (CliError, PolicyError, MissingExtra) as error:
        # Bad input, an unusable model/server or a missing extra: one line, no traceback.
        print(f"turngym: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`turngym list | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
