"""`turngym train <trainer>`: every trainer of the table, its config's fields as flags."""

from __future__ import annotations

import argparse
import ast
from typing import Any

from turngym.cli.args import CliError

__all__ = ["add_train_parser", "cmd_train"]


def add_train_parser(sub: Any) -> None:
    """Add ``train`` and one subcommand per trainer to the ``turngym`` command's subparsers."""
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
        t.set_defaults(fn=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    """Run ``turngym train <trainer>`` and print its summary; returns the exit status."""
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
    >>> from turngym.cli.args import parse_sets
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
