"""``RunConfig``, the settings every trainer's run shares, and their command-line flags.

Each trainer's config (``GRPOConfig``, ``SFTConfig``, ``SACGLAMConfig``,
``ArCHerConfig``) is a dataclass that subclasses ``RunConfig``: the shared fields are
declared once here, a trainer adds its own and may redeclare a shared one to change its
default or its help. A field's help is the string under it (an attribute docstring,
read by ``field_help``) or ``metadata={"help": ...}`` where it must be computed; the
``turngym train`` flags, the docs' config tables and ``turngym view`` read it there.

- ``add_config_flags`` / ``config_from_args``: every field as a ``--field-name`` flag,
  with ``--config FILE`` (JSON or TOML, e.g. a run's own ``config.json``) as defaults.
- ``check_config``, ``is_int``, ``is_number``: one-line errors for bad values.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import inspect
import json
import math
import textwrap
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from turngym.pyparse import parse
from turngym.wrappers.specs import GAME_WRAPPERS, WRAPPERS, top_level_split, wrapper_spec

__all__ = [
    "RunConfig",
    "add_config_flags",
    "check_config",
    "config_from_args",
    "field_help",
    "is_int",
    "is_number",
]


@dataclass
class RunConfig:
    """The fields every trainer's config has (a trainer's config subclasses it).

    Each evaluation (before training, every ``eval_every`` steps, after) saves
    ``eval_record_episodes`` of its episodes (games: per seat) to
    ``output_dir/episodes/eval-step-NNNNNNN.jsonl`` for ``turngym view``; the run writes
    its config, with the trainer's name, to ``output_dir/config.json``.
    """

    trainer: ClassVar[str] = ""
    """The trainer's name in ``turngym train NAME`` and ``TRAINERS`` (set by each config)."""

    env: str = "turngym/Bandit-v0"
    """registered env id"""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """JSON object of env constructor arguments"""
    wrappers: list[str] = field(
        default_factory=list,
        metadata={
            "help": "wrappers, innermost first (name or name:key=value;...): "
            f"{', '.join(WRAPPERS)} (on a game, GRPO puts the game twin of each around it: "
            f"{', '.join(GAME_WRAPPERS)})"
        },
    )
    model: str = "tiny"
    """'tiny' (build a tiny model from a config) or a saved model directory"""
    output_dir: str = "runs/run"
    """run directory: metrics, checkpoints, curve.png, final/"""
    system_prompt: str | None = None
    """system message before every observation"""
    steps: int = 50
    """training steps"""
    max_turns: int | None = None
    """cut episodes after this many turns (None: the env's limit)"""
    warmup_steps: int = 0
    """steps of linear warm-up from 0 to lr"""
    max_grad_norm: float = 1.0
    """gradient clipping norm (0: off)"""
    lora_rank: int = 0
    """LoRA rank via peft (0: train every weight)"""
    lora_alpha: int = 16
    """LoRA alpha"""
    device: str | None = None
    """cpu, cuda, cuda:1 (None: CUDA when available)"""
    dtype: str | None = None
    """model weights: float32, bfloat16 (None: float32; autocast on GPU)"""
    mixed_precision: bool = True
    """bfloat16 autocast for the update on a GPU"""
    eval_every: int = 10
    """evaluate every N steps (0: only before and after)"""
    eval_episodes: int = 64
    """episodes per evaluation"""
    eval_seed: int = 1_000_000_000
    """first held-out evaluation seed (training seeds stay below it)"""
    eval_greedy: bool = True
    """evaluate the greedy policy instead of the sampled one"""
    eval_record_episodes: int = 4
    """episodes of each evaluation saved to episodes/eval-step-N.jsonl for turngym view
    (games: per seat; 0: none)"""
    save_every: int = 10
    """checkpoint every N steps (0: only at the end)"""
    keep_checkpoints: int = 2
    """checkpoints kept on disk"""
    seed: int = 0
    """seeds rollouts and sampling"""
    tensorboard: bool = True
    """also write TensorBoard events"""
    progress: bool = True
    """show a progress bar"""
    log_every: int = 1
    """print a summary line every N steps (0: never)"""
    resume: bool = False
    """continue from the run directory's latest checkpoint"""

    def __post_init__(self) -> None:
        """Check the shared fields (a subclass's ``__post_init__`` calls this first)."""
        checks: list[tuple[str, bool, str]] = [
            ("env", isinstance(self.env, str) and bool(self.env.strip()), "an env id"),
            (
                "max_turns",
                self.max_turns is None or is_int(self.max_turns, 1),
                "None or an int >= 1",
            ),
            (
                "max_grad_norm",
                is_number(self.max_grad_norm) and self.max_grad_norm >= 0,
                "a number >= 0",
            ),
        ]
        for name in ("eval_episodes", "keep_checkpoints", "lora_alpha"):
            checks.append((name, is_int(getattr(self, name), 1), "an int >= 1"))
        for name in ("steps", "warmup_steps", "lora_rank", "eval_every", "eval_seed"):
            checks.append((name, is_int(getattr(self, name), 0), "an int >= 0"))
        for name in ("eval_record_episodes", "save_every", "seed", "log_every"):
            checks.append((name, is_int(getattr(self, name), 0), "an int >= 0"))
        check_config(self, checks)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)


@functools.cache
def _attribute_docs(cls: type) -> dict[str, str]:
    """The attribute docstrings of the fields ``cls`` itself declares ({} without source)."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # built in a REPL or frozen: no help, still flags
        return {}
    body = parse(source).body[0]
    assert isinstance(body, ast.ClassDef)
    docs: dict[str, str] = {}
    for node, after in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def field_help(config_cls: type) -> dict[str, str]:
    """Each field's help: its ``metadata["help"]``, else the nearest attribute docstring.

    A subclass that redeclares a field without a docstring keeps its base's help.

    >>> from turngym.sdk.trainers.grpo_config import GRPOConfig
    >>> field_help(GRPOConfig)["group_size"]
    'episodes per task: the GRPO group'
    """
    helps: dict[str, str] = {}
    for f in dataclasses.fields(config_cls):
        if "help" in f.metadata:
            helps[f.name] = str(f.metadata["help"])
            continue
        for klass in config_cls.__mro__:
            if dataclasses.is_dataclass(klass) and f.name in _attribute_docs(klass):
                helps[f.name] = _attribute_docs(klass)[f.name]
                break
    return helps


def is_number(value: object) -> bool:
    """A finite int or float (not a bool): what numeric config fields accept."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_int(value: object, low: int) -> bool:
    """An int (not a bool) of at least ``low``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def check_config(config: Any, checks: Iterable[tuple[str, bool, str]]) -> None:
    """Raise a one-line ``ValueError`` for the first failed ``(field, ok, wanted)`` check.

    Then the fields every trainer config has: ``wrappers`` (each a valid spec) and
    ``env_kwargs`` (a dict).
    """
    for name, ok, want in checks:
        if not ok:
            raise ValueError(f"{name} must be {want}, got {getattr(config, name)!r}")
    if not isinstance(config.wrappers, list) or not all(
        isinstance(spec, str) for spec in config.wrappers
    ):
        raise ValueError(f"wrappers must be a list of specs, got {config.wrappers!r}")
    for spec in config.wrappers:
        wrapper_spec(spec)  # unknown names and malformed options fail here
    if not isinstance(config.env_kwargs, dict):
        raise ValueError(f"env_kwargs must be a dict, got {config.env_kwargs!r}")


# -- command-line flags --------------------------------------------------------------


def _base_type(annotation: Any) -> tuple[Any, bool]:
    """The non-None type of a field's annotation, and whether None is allowed."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else str), len(rest) < len(args)
    return annotation, False


def _parser_for(kind: Any, optional: bool, name: str) -> Any:
    def parse(text: str) -> Any:
        if optional and text.lower() in ("none", "null"):
            return None
        origin = typing.get_origin(kind)
        if kind is bool:
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise argparse.ArgumentTypeError(f"--{name} takes true or false, got {text!r}")
        if kind in (int, float, str):
            try:
                return kind(text)
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"--{name} takes {kind.__name__}, got {text!r}"
                ) from None
        if origin is list or kind is list:
            return [part.strip() for part in top_level_split(text) if part.strip()]
        if origin is dict or kind is dict:
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                raise argparse.ArgumentTypeError(
                    f"--{name} takes a JSON object, e.g. '{{\"size\": 4}}', got {text!r}"
                ) from None
            if not isinstance(value, dict):
                raise argparse.ArgumentTypeError(f"--{name} takes a JSON object, got {text!r}")
            return value
        return text

    return parse


def add_config_flags(parser: argparse.ArgumentParser, config_cls: type) -> None:
    """One ``--field-name`` flag per field of the dataclass ``config_cls`` (default: unset)."""
    hints = typing.get_type_hints(config_cls)
    docs = field_help(config_cls)
    parser.add_argument("--config", help="a JSON or TOML file of config fields (flags win)")
    for f in dataclasses.fields(config_cls):
        kind, optional = _base_type(hints[f.name])
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = None
        shown = ",".join(map(str, default)) if isinstance(default, list) else default
        extra: dict[str, Any] = {"nargs": "?", "const": True} if kind is bool else {}
        parser.add_argument(
            f"--{f.name.replace('_', '-')}",
            dest=f.name,
            type=_parser_for(kind, optional, f.name.replace("_", "-")),
            default=argparse.SUPPRESS,
            help=f"{docs.get(f.name, '')} (default: {shown})".strip(),
            metavar=getattr(kind, "__name__", "VALUE").upper(),
            **extra,
        )


def _read_config_file(path: str) -> dict[str, Any]:
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"--config file {path!r} does not exist")
    text = file.read_text(encoding="utf-8")
    if file.suffix == ".toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"--config {path}: not valid TOML ({error})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"--config {path}: not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise ValueError(f"--config {path}: expected a JSON object of config fields")
    return data


def config_from_args(config_cls: type, args: argparse.Namespace, skip: Iterable[str] = ()) -> Any:
    """The config the flags (over ``--config FILE``, over the defaults) describe.

    A file's ``trainer`` key (a run's ``config.json`` names its trainer) must name this
    config's trainer.

    Raises:
        ValueError: an unknown field in the file, another trainer's file, or a value the
            config rejects.

    """
    names = {f.name for f in dataclasses.fields(config_cls)}
    values: dict[str, Any] = {}
    if getattr(args, "config", None):
        data = _read_config_file(args.config)
        own = getattr(config_cls, "trainer", "")
        named = data.pop("trainer", own)
        if named != own:
            raise ValueError(
                f"--config {args.config} is a config of trainer {named!r}: "
                f"use it with `turngym train {named}`, or drop its trainer key"
            )
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"--config: unknown fields {unknown}; known: {sorted(names)}")
        values.update(data)
    skipped = set(skip)
    values.update({k: v for k, v in vars(args).items() if k in names and k not in skipped})
    return config_cls(**values)
