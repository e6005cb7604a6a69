"""`turngym play`: play an env in the terminal, or watch an agent play it."""

from __future__ import annotations

import argparse
from typing import Any

from turngym.cli.args import (
    OPPONENT_HELP,
    SET_HELP,
    CliError,
    full_id,
    game_options,
    make_env,
    parse_sets,
)
from turngym.sdk.agents import MODEL_KINDS

__all__ = ["add_play_parser", "cmd_play"]


def add_play_parser(sub: Any, formatter: type[argparse.HelpFormatter]) -> None:
    """Add ``play`` to the ``turngym`` command's subparsers."""
    p = sub.add_parser(
        "play", help="play an env in the terminal (or watch an agent)", formatter_class=formatter
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
    p.set_defaults(fn=cmd_play)


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


def cmd_play(args: argparse.Namespace) -> int:
    """Run ``turngym play``; returns the exit status."""
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
