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
import os
import sys
from collections.abc import Sequence

from turngym.cli.args import CliError, DefaultsFormatter
from turngym.cli.check import add_check_parser
from turngym.cli.collect import add_collect_parser
from turngym.cli.eval import add_eval_parser
from turngym.cli.listing import add_list_parser
from turngym.cli.play import add_play_parser
from turngym.cli.serve import add_serve_parser
from turngym.cli.train import add_train_parser
from turngym.cli.view import add_view_parser
from turngym.extras import MissingExtra
from turngym.sdk.policy import PolicyError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``turngym`` command."""
    parser = argparse.ArgumentParser(
        prog="turngym", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # in the order ``turngym --help`` lists the commands
    add_list_parser(sub, formatter=DefaultsFormatter)
    add_play_parser(sub, formatter=DefaultsFormatter)
    add_check_parser(sub, formatter=DefaultsFormatter)
    add_eval_parser(sub, formatter=DefaultsFormatter)
    add_collect_parser(sub)
    add_serve_parser(sub)
    add_train_parser(sub)
    add_view_parser(sub, formatter=DefaultsFormatter)
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
