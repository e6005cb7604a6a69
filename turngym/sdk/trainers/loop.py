"""The training loop every trainer runs, over the ``Trainer`` protocol.

``run_training(trainer)`` resumes from the latest checkpoint, evaluates before
training, runs ``train_step`` for each step with periodic evaluation, logging and
checkpoints, evaluates after, saves ``final/`` and draws the curve; a trainer supplies
only what is its own (``Trainer``: its steps, its evaluation, its checkpoints).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from turngym.sdk.trainers.checkpoints import latest_checkpoint
from turngym.sdk.trainers.config import RunConfig
from turngym.sdk.trainers.metrics import MetricsLog, format_metrics, plot_curves
from turngym.sdk.trainers.run_files import drop_eval_episodes_after, write_config

__all__ = ["Trainer", "run_training"]


@runtime_checkable
class Trainer(Protocol):
    """What ``run_training`` needs of a trainer (``GRPOTrainer``, ``SFTTrainer``, ...).

    Under torchrun only process 0 (``is_main``) prints, logs and writes; a sharded model
    is saved by every process (``collective_save``: they gather it for process 0).
    """

    label: ClassVar[str]
    """the method's name (``"GRPO"``): the curve's title, lower-cased on the progress bar"""
    curve_panels: ClassVar[Sequence[Sequence[str]]]
    """the curve's panels, each a group of metric keys sharing one axis"""
    line_keys: ClassVar[Sequence[str]]
    """the metrics of each printed step line"""

    @property
    def config(self) -> RunConfig:
        """The run's settings (read-only here: a trainer's own config subclass)."""

    run_dir: Path
    """where the run writes (``config.output_dir``)"""
    env_id: str
    """the env trained on, for the curve's title"""
    step: int
    """steps done (restored by ``load``)"""
    is_main: bool
    """this process prints, logs and writes"""
    collective_save: bool
    """every process calls ``save`` and ``save_final`` (a sharded model)"""

    def load(self, checkpoint: Path) -> None:
        """Restore the state ``save`` wrote (``step`` included)."""

    def evaluate(self) -> dict[str, float]:
        """Play the held-out evaluation episodes; their metrics (``success``, ...)."""

    def train_step(self, step: int) -> dict[str, Any]:
        """One step (collect and update): its metrics row, with ``collect_s``/``update_s``."""

    def save(self) -> Path:
        """Write a checkpoint of the current state."""

    def save_final(self) -> Path:
        """Write ``final/``: the trained model as an ``hf:DIR`` agent loads it."""

    def close(self) -> None:
        """Release the envs and engines the trainer made."""


def run_training(trainer: Trainer) -> dict[str, Any]:
    """The loop every trainer runs: resume, evaluate, train, log, checkpoint, evaluate.

    Returns the summary: evaluation before (None on resume) and after, steps, seconds
    and the written paths (``final``, ``curve``, ``metrics``).
    """
    import sys
    import time

    from turngym.progress import progress

    c = trainer.config
    # Under torchrun only process 0 prints, logs and writes (``trainer.is_main``); a
    # sharded model is saved by all (``collective_save``: they gather it for process 0).
    main = trainer.is_main
    saves = main or trainer.collective_save

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
    bar: Any = progress(steps, total=len(steps), desc=trainer.label.lower()) if shown_bar else steps
    for step in bar:
        row = trainer.train_step(step)
        trainer.step = step + 1
        if c.eval_every and trainer.step % c.eval_every == 0 and trainer.step < c.steps:
            row.update({f"eval_{k}": v for k, v in trainer.evaluate().items()})
        if log is not None:
            log.log(row)
        if c.log_every and (trainer.step % c.log_every == 0 or trainer.step == c.steps):
            shown = format_metrics(
                {k: row[k] for k in trainer.line_keys if isinstance(row.get(k), float)}
            )
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
        title = f"{trainer.label} on {trainer.env_id}"
        curve = plot_curves(
            log.rows(), trainer.run_dir / "curve.png", trainer.curve_panels, title=title
        )
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
