"""Deprecated: the plumbing trainers share now lives in one module per concern.

Importing a name from here still works for one release, with a ``DeprecationWarning``
naming its new home:

- ``config``: ``RunConfig``, ``add_config_flags``, ``config_from_args``,
  ``check_config``, ``is_int``, ``is_number`` (``COMMON_FIELD_DOCS`` is
  ``field_help(RunConfig)``);
- ``loop``: ``Trainer``, ``run_training``; ``metrics``: ``MetricsLog``,
  ``plot_curves``, ``format_metrics``; ``checkpoints``: ``open_run_dir``,
  ``checkpoint_dirs``, ``latest_checkpoint``, ``save_checkpoint``;
- ``learner``: ``TINY``, ``resolve_model``, ``load_policy``, ``restore_weights``,
  ``save_final_model``, ``scheduled_lr``; ``envs``: ``env_id_of``, ``make_text_env``,
  ``make_game_env``; ``run_files``: ``write_config``, ``record_eval_episodes``,
  ``drop_eval_episodes_after``;
- ``turngym.wrappers.specs``: ``WRAPPERS``, ``GAME_WRAPPERS``, ``wrapper_spec``.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Sequence
from typing import Any

_NAMES_BY_MODULE = {
    "turngym.sdk.trainers.config": (
        "RunConfig",
        "add_config_flags",
        "config_from_args",
        "check_config",
        "is_int",
        "is_number",
    ),
    "turngym.sdk.trainers.loop": ("Trainer",),
    "turngym.sdk.trainers.metrics": ("MetricsLog", "plot_curves", "format_metrics"),
    "turngym.sdk.trainers.checkpoints": (
        "open_run_dir",
        "checkpoint_dirs",
        "latest_checkpoint",
        "save_checkpoint",
    ),
    "turngym.sdk.trainers.learner": (
        "TINY",
        "resolve_model",
        "load_policy",
        "restore_weights",
        "save_final_model",
        "scheduled_lr",
    ),
    "turngym.sdk.trainers.envs": ("env_id_of", "make_text_env", "make_game_env"),
    "turngym.sdk.trainers.run_files": (
        "write_config",
        "record_eval_episodes",
        "drop_eval_episodes_after",
    ),
    "turngym.wrappers.specs": ("WRAPPERS", "GAME_WRAPPERS", "wrapper_spec"),
}
_MOVED = {name: module for module, names in _NAMES_BY_MODULE.items() for name in names}

__all__ = sorted([*_MOVED, "COMMON_FIELD_DOCS", "run_training"])


def _warn(name: str, new: str) -> None:
    warnings.warn(
        f"turngym.sdk.trainers.common.{name} moved to {new}; this alias goes in the next release",
        DeprecationWarning,
        stacklevel=3,
    )


def run_training(
    trainer: Any,
    label: str | None = None,
    panels: Sequence[Sequence[str]] | None = None,
    line_keys: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Deprecated: ``turngym.sdk.trainers.loop.run_training(trainer)``.

    The old arguments become the trainer's ``label``, ``curve_panels`` and
    ``line_keys`` (the ``Trainer`` protocol), where it has none.
    """
    from turngym.sdk.trainers import loop

    _warn("run_training", f"{loop.__name__}.run_training")
    for attr, value in (("label", label), ("curve_panels", panels), ("line_keys", line_keys)):
        if value is not None and not hasattr(trainer, attr):
            setattr(trainer, attr, value)
    for flag, default in (("is_main", True), ("collective_save", False)):
        if not hasattr(trainer, flag):
            setattr(trainer, flag, default)
    return loop.run_training(trainer)


def __getattr__(name: str) -> Any:
    if name == "COMMON_FIELD_DOCS":
        from turngym.sdk.trainers.config import RunConfig, field_help

        _warn(name, "turngym.sdk.trainers.config.field_help(RunConfig)")
        return field_help(RunConfig)
    where = _MOVED.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _warn(name, f"{where}.{name}")
    return getattr(importlib.import_module(where), name)
