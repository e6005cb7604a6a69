"""Plumbing every turngym trainer shares: models, checkpoints, metrics, curves, CLI flags.

- ``resolve_model``: ``"tiny"`` builds a fresh tiny model (RL-ready near-uniform logits)
  into the run directory; anything else must be a saved transformers directory.
- ``save_checkpoint`` / ``latest_checkpoint``: a checkpoint is written to a temporary
  directory and renamed into place, and ``LATEST`` is replaced atomically, so a crash
  never leaves a half-written checkpoint where resume would find it.
- ``MetricsLog``: one JSON line per step (``metrics.jsonl``), mirrored to TensorBoard
  when it is installed; on resume, rows after the checkpoint's step are dropped.
- ``plot_curves``: the learning curve PNG from ``metrics.jsonl``.
- ``add_config_flags`` / ``config_from_args``: every field of a config dataclass as a
  command-line flag, with ``--config FILE`` (JSON or TOML) supplying defaults.
  ``COMMON_FIELD_DOCS`` documents the fields every trainer's config shares.
- ``make_text_env``: a registered (or given) env with wrappers named by ``WRAPPERS``;
  ``make_game_env``: a registered game with their game twins (``GAME_WRAPPERS``).
- ``load_policy`` / ``restore_weights`` / ``save_final_model``: the trained LM (LoRA
  optional), its weights back from a checkpoint, and ``final/`` for ``hf:DIR`` agents.
- ``run_training``: the loop around a trainer's ``train_step``: resume, evaluation
  before and after, periodic evaluation, logs, checkpoints, ``final/`` and the curve;
  it writes ``config.json`` (the config as JSON) when the run starts writing.
- ``record_eval_episodes``, ``write_config``, ``drop_eval_episodes_after``: the run's
  files for ``turngym view`` (from ``run_files``, re-exported here).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import shutil
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from turngym.hf_compat import quiet
from turngym.sdk.trainers.run_files import (
    drop_eval_episodes_after,
    record_eval_episodes,
    write_config,
)

__all__ = [
    "GAME_WRAPPERS",
    "WRAPPERS",
    "MetricsLog",
    "add_config_flags",
    "check_config",
    "checkpoint_dirs",
    "config_from_args",
    "drop_eval_episodes_after",
    "env_id_of",
    "format_metrics",
    "is_int",
    "is_number",
    "latest_checkpoint",
    "load_policy",
    "make_game_env",
    "make_text_env",
    "plot_curves",
    "record_eval_episodes",
    "resolve_model",
    "restore_weights",
    "run_training",
    "save_checkpoint",
    "save_final_model",
    "scheduled_lr",
    "wrapper_spec",
    "write_config",
]

TINY = "tiny"
"""The model name that builds a fresh tiny model instead of loading one."""


def resolve_model(model: str, run_dir: Path, seed: int = 0) -> Path:
    """The directory of the model to train.

    ``"tiny"`` builds a Qwen2-style model (hidden 64, 2 layers, tokenizer trained on
    env text) with near-uniform initial logits into ``run_dir/base-model`` (reused when
    it is already there, so a resumed run starts from the same weights).

    Raises:
        ValueError: ``model`` is neither ``"tiny"`` nor a saved transformers directory.

    """
    if model == TINY:
        target = run_dir / "base-model"
        if not (target / "config.json").is_file():
            from turngym.sdk.models import build_tiny_model

            build_tiny_model(target, seed=seed, logit_std=0.3)
        return target
    path = Path(model).expanduser()
    if not (path / "config.json").is_file():
        raise ValueError(
            f"--model must be 'tiny' or a directory saved with save_pretrained "
            f"(with config.json), got {model!r}"
        )
    return path


# -- checkpoints -------------------------------------------------------------------


def checkpoint_dirs(run_dir: Path) -> list[Path]:
    """The run's complete checkpoints, oldest first."""
    root = run_dir / "checkpoints"
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("step-"))


def open_run_dir(output_dir: str | Path, resume: bool) -> Path:
    """The run directory of a trainer; with ``resume`` it must hold a checkpoint.

    Nothing is created here: the first file a run writes makes the folder, so a run that
    fails before its first step leaves no empty one behind.

    Raises:
        ValueError: ``resume`` and no checkpoint to resume from (a missing or empty dir).

    """
    run_dir = Path(output_dir)
    if resume and latest_checkpoint(run_dir) is None:
        what = "does not exist" if not run_dir.exists() else "holds no checkpoint"
        raise ValueError(
            f"resume: {run_dir} {what}; drop --resume to start a new run there, or "
            "name the --output-dir of the run to continue"
        )
    return run_dir


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The checkpoint ``LATEST`` names, or None when the run has none."""
    pointer = run_dir / "checkpoints" / "LATEST"
    if not pointer.is_file():
        return None
    path = run_dir / "checkpoints" / pointer.read_text().strip()
    return path if path.is_dir() else None


def save_checkpoint(run_dir: Path, step: int, write: Any, keep: int = 2) -> Path:
    """Write a checkpoint atomically: ``write(tmp_dir)`` fills it, then it is renamed.

    ``LATEST`` then names it (replaced atomically) and all but the newest ``keep``
    checkpoints are deleted.
    """
    root = run_dir / "checkpoints"
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step-{step:07d}"
    tmp = root / f".tmp-step-{step:07d}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    write(tmp)
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    pointer = root / ".LATEST.tmp"
    pointer.write_text(final.name + "\n")
    os.replace(pointer, root / "LATEST")
    for old in checkpoint_dirs(run_dir)[:-keep] if keep > 0 else []:
        if old != final:
            shutil.rmtree(old, ignore_errors=True)
    return final


def scheduled_lr(base: float, step: int, steps: int, schedule: str, warmup: int = 0) -> float:
    """The learning rate of 0-based ``step``: linear warm-up, then constant/linear/cosine.

    >>> [round(scheduled_lr(1.0, s, 4, "linear", warmup=1), 3) for s in range(4)]
    [0.5, 1.0, 0.667, 0.333]
    """
    if step < warmup:
        return base * (step + 1) / (warmup + 1)
    done = (step - warmup) / max(1, steps - warmup)
    if schedule == "linear":
        return base * (1 - done)
    if schedule == "cosine":
        return base * 0.5 * (1 + math.cos(math.pi * done))
    return base


# -- metrics -----------------------------------------------------------------------


class MetricsLog:
    """Per-step metrics to ``metrics.jsonl`` and, when installed, TensorBoard.

    Args:
        run_dir: where ``metrics.jsonl`` and ``tensorboard/`` go.
        resume_step: rows with a larger ``step`` are dropped (they were written after
            the checkpoint a resumed run restarts from); None: start a new file.
        tensorboard: also write TensorBoard events (skipped when it is not installed).

    """

    def __init__(self, run_dir: Path, resume_step: int | None = None, tensorboard: bool = True):
        self.path = run_dir / "metrics.jsonl"
        run_dir.mkdir(parents=True, exist_ok=True)
        rows = self.rows() if resume_step is not None else []
        kept = [r for r in rows if r.get("step", 0) <= (resume_step or 0)]
        with open(self.path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in kept)
        self._writer: Any = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # tensorboard is optional: JSONL holds everything
                pass
            else:
                self._writer = SummaryWriter(
                    str(run_dir / "tensorboard"),
                    purge_step=None if resume_step is None else resume_step + 1,
                )

    def rows(self) -> list[dict[str, Any]]:
        """Every row written so far."""
        if not self.path.is_file():
            return []
        with open(self.path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def log(self, row: dict[str, Any]) -> None:
        """Append one row (it must hold ``step``)."""
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        if self._writer is not None:
            for key, value in row.items():
                if key != "step" and isinstance(value, (int, float)) and math.isfinite(value):
                    self._writer.add_scalar(key, value, row["step"])
            self._writer.flush()

    def close(self) -> None:
        """Flush and close the TensorBoard writer."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def plot_curves(
    rows: Sequence[dict[str, Any]], path: Path, panels: Sequence[Sequence[str]], title: str = ""
) -> Path | None:
    """Draw ``panels`` (each a list of metric keys sharing one axis) against ``step``.

    Returns the PNG's path, or None when matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.6), squeeze=False)
    for ax, keys in zip(axes[0], panels, strict=True):
        drawn = False
        for key in keys:
            points = [(r["step"], r[key]) for r in rows if isinstance(r.get(key), (int, float))]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, marker="o" if len(points) < 30 else None, ms=3, label=key)
                drawn = True
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
        if drawn:
            ax.legend(fontsize=8)
        else:  # e.g. ArCHer's actor before its first update; legend() would warn
            ax.set_title(f"{', '.join(keys)}: not logged yet", fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# -- config flags ------------------------------------------------------------------


def _base_type(annotation: Any) -> tuple[Any, bool]:
    """The non-None type of a field's annotation, and whether None is allowed."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else str), len(rest) < len(args)
    return annotation, False


def _top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside brackets.

    A list flag's items may hold Python literals
    (``horizon_curriculum:schedule=[(0, 2), (9, 4)]``).
    """
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


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
            return [part.strip() for part in _top_level_split(text) if part.strip()]
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
    docs = getattr(config_cls, "__field_docs__", {})
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

    Raises:
        ValueError: an unknown field in the file or a value the config rejects.

    """
    names = {f.name for f in dataclasses.fields(config_cls)}
    values: dict[str, Any] = {}
    if getattr(args, "config", None):
        data = _read_config_file(args.config)
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"--config: unknown fields {unknown}; known: {sorted(names)}")
        values.update(data)
    skipped = set(skip)
    values.update({k: v for k, v in vars(args).items() if k in names and k not in skipped})
    return config_cls(**values)


# -- envs and wrappers ---------------------------------------------------------------

WRAPPERS = {
    "chat_history": "ChatHistory",
    "sliding_window": "SlidingWindow",
    "summarize": "SummarizeContext",
    "internal_state": "InternalState",
    "markovian_chunks": "MarkovianChunks",
    "memory": "MemoryTools",
    "parse_action": "ParseAction",
    "gated_reward": "GatedReward",
    "unary_feedback": "UnaryFeedback",
    "horizon_curriculum": "HorizonCurriculum",
}
"""Wrapper names trainers accept (text envs): ``name`` or ``name:key=value;...``."""

GAME_WRAPPERS = {
    "chat_history": "ChatHistoryGame",
    "sliding_window": "SlidingWindowGame",
    "summarize": "SummarizeContextGame",
    "internal_state": "InternalStateGame",
    "markovian_chunks": "MarkovianChunksGame",
    "memory": "MemoryToolsGame",
    "parse_action": "ParseActionGame",
}
"""The game twin a wrapper name gives on a PettingZoo game (``make_game_env``)."""


COMMON_FIELD_DOCS: dict[str, str] = {
    "env_kwargs": "JSON object of env constructor arguments",
    "wrappers": (
        "wrappers, innermost first (name or name:key=value;...): "
        f"{', '.join(WRAPPERS)} (on a game, GRPO puts the game twin of each around it: "
        f"{', '.join(GAME_WRAPPERS)})"
    ),
    "model": "'tiny' (build a tiny model from a config) or a saved model directory",
    "output_dir": "run directory: metrics, checkpoints, curve.png, final/",
    "system_prompt": "system message before every observation",
    "max_turns": "cut episodes after this many turns (None: the env's limit)",
    "lora_rank": "LoRA rank via peft (0: train every weight)",
    "lora_alpha": "LoRA alpha",
    "device": "cpu, cuda, cuda:1 (None: CUDA when available)",
    "dtype": "model weights: float32, bfloat16 (None: float32; autocast on GPU)",
    "eval_episodes": "episodes per evaluation",
    "eval_record_episodes": (
        "episodes of each evaluation saved to episodes/eval-step-N.jsonl for turngym view "
        "(games: per seat; 0: none)"
    ),
    "eval_seed": "first held-out evaluation seed (training seeds stay below it)",
    "keep_checkpoints": "checkpoints kept on disk",
    "tensorboard": "also write TensorBoard events",
    "progress": "show a progress bar",
    "resume": "continue from the run directory's latest checkpoint",
}
"""The docs of the config fields every trainer has (its ``__field_docs__`` adds its own)."""


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
    for spec in config.wrappers:
        wrapper_spec(spec)  # unknown names and malformed options fail here
    if not isinstance(config.env_kwargs, dict):
        raise ValueError(f"env_kwargs must be a dict, got {config.env_kwargs!r}")


def wrapper_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """The wrapper class name and keyword arguments a ``name:key=value;...`` spec gives.

    Values are Python literals where they parse as one, else strings.

    >>> wrapper_spec("sliding_window:keep_last=2")
    ('SlidingWindow', {'keep_last': 2})
    """
    import ast

    name, _, rest = spec.partition(":")
    if name not in WRAPPERS:
        raise ValueError(f"unknown wrapper {spec!r}; known: {', '.join(WRAPPERS)}")
    kwargs: dict[str, Any] = {}
    for pair in filter(None, rest.split(";")):
        key, sep, raw = pair.partition("=")
        if not sep:
            raise ValueError(f"wrapper options are key=value;..., got {spec!r}")
        try:
            kwargs[key.strip()] = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError):
            kwargs[key.strip()] = raw.strip()
    return WRAPPERS[name], kwargs


def env_id_of(env: str, env_fn: Any, games: bool, trainer: str) -> tuple[str, bool]:
    """The registered id of ``env`` and whether it is a game (``env_fn``: ``env`` as is).

    Raises a one-line ``ValueError`` for an unknown id, or for a game when the
    ``trainer`` (its name, for the message) only takes single-agent envs.
    """
    if env_fn is not None:
        return env, False
    from turngym.registry import entry

    try:
        row = entry(env)
    except KeyError as error:
        raise ValueError(str(error.args[0])) from None
    if row.game is not None and not games:
        raise ValueError(f"{trainer} trains on single-agent envs; {row.id} is a game")
    return row.id, row.game is not None


def make_text_env(
    env_id: str,
    env_kwargs: dict[str, Any],
    wrappers: Sequence[str] = (),
    env_fn: Callable[[], Any] | None = None,
    tokenizer: Any = None,
    system_prompt: str | None = None,
) -> Any:
    """``turngym.make(env_id, **env_kwargs)`` (or ``env_fn()``) with ``wrappers`` applied.

    ``wrappers`` go on innermost first. With the policy's ``tokenizer`` (and the agent's
    ``system_prompt``), wrappers that count tokens count them as the policy does unless
    the spec says otherwise: ``summarize`` gets ``count_tokens=chat_token_counter(...)``,
    ``markovian_chunks`` gets ``tokenizer``.

    Under wrappers the env first gets ``StateKey``: an env without a ``state_key`` of
    its own reports its observation's, so GiGPO anchors by the env's state and not by
    a wrapper's prompt.

    Raises:
        ValueError: bad env arguments, wrapper options or wrapper order (one line).

    """
    import turngym
    import turngym.wrappers

    try:
        env = env_fn() if env_fn is not None else turngym.make(env_id, **env_kwargs)
    except TypeError as error:
        raise ValueError(f"env_kwargs {env_kwargs}: {error}") from None
    if wrappers:
        env = turngym.wrappers.StateKey(env)
    for spec in wrappers:
        name, kwargs = wrapper_spec(spec)
        _count_like_the_policy(spec, kwargs, tokenizer, system_prompt)
        try:
            env = getattr(turngym.wrappers, name)(env, **kwargs)
        except TypeError as error:
            raise ValueError(f"wrapper {spec!r}: {error}") from None
    return env


def _count_like_the_policy(
    spec: str, kwargs: dict[str, Any], tokenizer: Any, system_prompt: str | None
) -> None:
    """Give a token-counting wrapper the policy's ``tokenizer``, unless ``spec`` set one."""
    if tokenizer is None:
        return
    name = spec.partition(":")[0]
    if name == "summarize":
        from turngym.wrappers.summarize import chat_token_counter

        kwargs.setdefault("count_tokens", chat_token_counter(tokenizer, system_prompt))
    elif name == "markovian_chunks":
        kwargs.setdefault("tokenizer", tokenizer)


def make_game_env(
    env_id: str,
    env_kwargs: dict[str, Any],
    wrappers: Sequence[str] = (),
    tokenizer: Any = None,
    system_prompt: str | None = None,
) -> Any:
    """``turngym.make_game(env_id, **env_kwargs)`` with the game twins of ``wrappers``.

    Each wrapper of the spec (``WRAPPERS`` names, applied in order) becomes its game
    twin (``GAME_WRAPPERS``), which acts for every seat; ``tokenizer`` and
    ``system_prompt`` as for ``make_text_env``.

    Raises:
        ValueError: bad game arguments, a wrapper with no game twin, bad options (one line).

    """
    import turngym
    import turngym.wrappers

    try:
        game = turngym.make_game(env_id, **env_kwargs)
    except TypeError as error:
        raise ValueError(f"env_kwargs {env_kwargs}: {error}") from None
    for spec in wrappers:
        _, kwargs = wrapper_spec(spec)  # unknown names and malformed options fail here
        _count_like_the_policy(spec, kwargs, tokenizer, system_prompt)
        name = spec.partition(":")[0]
        if name not in GAME_WRAPPERS:
            raise ValueError(
                f"wrapper {name!r} has no game twin; games take: {', '.join(GAME_WRAPPERS)}"
            )
        try:
            game = getattr(turngym.wrappers, GAME_WRAPPERS[name])(game, **kwargs)
        except TypeError as error:
            raise ValueError(f"wrapper {spec!r}: {error}") from None
    return game


# -- policy models -------------------------------------------------------------------


def load_policy(
    model_dir: Path, device: str | None, dtype: str | None, lora_rank: int, lora_alpha: int
) -> tuple[Any, Any]:
    """The trained model (with LoRA adapters when ``lora_rank``) and an HFPolicy over it."""
    from turngym.sdk.backends.hf import HFPolicy

    base = HFPolicy(model_dir, device=device, dtype=dtype or "float32")
    if not lora_rank:
        return base.model, base
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=lora_rank, lora_alpha=lora_alpha, target_modules="all-linear")
    model = get_peft_model(base.model, config)
    return model, HFPolicy(model, tokenizer=base.tokenizer)


def restore_weights(model: Any, saved_dir: Path, lora: bool) -> None:
    """Load weights written by ``model.save_pretrained(saved_dir)`` into ``model``."""
    if lora:
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        set_peft_model_state_dict(model, load_file(saved_dir / "adapter_model.safetensors"))
        return
    from transformers import AutoModelForCausalLM

    dtype = next(model.parameters()).dtype
    with quiet():
        saved = AutoModelForCausalLM.from_pretrained(saved_dir, dtype=dtype)
    model.load_state_dict(saved.state_dict())


def save_final_model(
    model: Any, tokenizer: Any, target: Path, lora: bool, settings: dict[str, Any]
) -> Path:
    """The model (LoRA merged) + tokenizer + agent settings in ``target``, for ``hf:DIR``."""
    import copy

    from turngym.sdk.agents import AGENT_SETTINGS

    with quiet():
        (copy.deepcopy(model).merge_and_unload() if lora else model).save_pretrained(target)
    tokenizer.save_pretrained(target)
    (target / AGENT_SETTINGS).write_text(json.dumps(settings, indent=1) + "\n")
    return target


# -- the training loop -----------------------------------------------------------------


def run_training(
    trainer: Any, label: str, panels: list[list[str]], line_keys: Sequence[str]
) -> dict[str, Any]:
    """The loop every trainer runs: resume, evaluate, train, log, checkpoint, evaluate.

    ``trainer`` has ``config`` (``resume``, ``steps``, ``eval_every``, ``log_every``,
    ``save_every``, ``progress``, ``tensorboard``), ``run_dir``, ``step``, ``env_id`` and
    ``load(checkpoint)``, ``evaluate()``, ``train_step(step)`` (the step's metrics row),
    ``save()``, ``save_final()`` and ``close()``. ``label`` names the method (``"GRPO"``)
    in the curve's title and, lower-cased, on the progress bar; ``panels`` are the
    curve's metric groups and ``line_keys`` the metrics of each printed step line.
    Returns the summary: evaluation before (None on resume) and after, steps, seconds
    and the written paths.
    """
    import sys
    import time

    from turngym.progress import progress

    c = trainer.config
    # Under torchrun only process 0 prints, logs and writes (``trainer.is_main``); a
    # sharded model is saved by all (``collective_save``: they gather it for process 0).
    main = getattr(trainer, "is_main", True)
    saves = main or getattr(trainer, "collective_save", False)

    def say(text: str) -> None:
        if c.log_every and main:
            print(text, file=sys.stderr if c.progress else sys.stdout, flush=True)

    resume_from = latest_checkpoint(trainer.run_dir) if c.resume else None
    if resume_from is not None:
        trainer.load(resume_from)
    if main:
        write_config(trainer.run_dir, c)
        if resume_from is not None:
            drop_eval_episodes_after(trainer.run_dir, trainer.step)
    log = (
        MetricsLog(
            trainer.run_dir,
            resume_step=trainer.step if resume_from is not None else None,
            tensorboard=c.tensorboard,
        )
        if main
        else None
    )
    started = time.perf_counter()
    before = None
    if resume_from is None:
        before = trainer.evaluate()
        if log is not None:
            log.log({"step": 0, **{f"eval_{k}": v for k, v in before.items()}})
        say(f"before training: eval {format_metrics(before)}")
    steps = range(trainer.step, c.steps)
    shown_bar = c.progress and main
    bar: Any = progress(steps, total=len(steps), desc=label.lower()) if shown_bar else steps
    for step in bar:
        row = trainer.train_step(step)
        trainer.step = step + 1
        if c.eval_every and trainer.step % c.eval_every == 0 and trainer.step < c.steps:
            row.update({f"eval_{k}": v for k, v in trainer.evaluate().items()})
        if log is not None:
            log.log(row)
        if c.log_every and (trainer.step % c.log_every == 0 or trainer.step == c.steps):
            shown = format_metrics({k: row[k] for k in line_keys if isinstance(row.get(k), float)})
            seconds = row["collect_s"] + row["update_s"]
            say(f"step {row['step']}/{c.steps} {shown} ({seconds:.1f}s)")
        if saves and c.save_every and trainer.step % c.save_every == 0:
            trainer.save()
    after = trainer.evaluate()
    say(f"after training: eval {format_metrics(after)}")
    final = curve = None
    if saves:
        trainer.save()
        saved = trainer.save_final()
    if log is not None:
        log.log({"step": trainer.step, **{f"eval_{k}": v for k, v in after.items()}})
        final = saved
        log.close()
        title = f"{label} on {trainer.env_id}"
        curve = plot_curves(log.rows(), trainer.run_dir / "curve.png", panels, title=title)
    trainer.close()
    return {
        "eval_before": before,
        "eval_after": after,
        "steps": trainer.step,
        "seconds": time.perf_counter() - started,
        "final": str(final) if final else None,
        "curve": str(curve) if curve else None,
        "metrics": str(log.path) if log is not None else None,
    }


def format_metrics(metrics: dict[str, float]) -> str:
    """``"success=0.500 loss=0.120"``: metrics as one line."""
    return " ".join(f"{k}={v:.3f}" for k, v in metrics.items())
