"""A run's metrics: ``metrics.jsonl`` (mirrored to TensorBoard), its curve, its log lines.

- ``MetricsLog``: one JSON line per step, mirrored to TensorBoard when it is installed;
  on resume, rows after the checkpoint's step are dropped.
- ``plot_curves``: the learning curve PNG from those rows.
- ``format_metrics``: metrics as one printed line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["MetricsLog", "format_metrics", "plot_curves"]


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


def format_metrics(metrics: dict[str, float]) -> str:
    """``"success=0.500 loss=0.120"``: metrics as one line."""
    return " ".join(f"{k}={v:.3f}" for k, v in metrics.items())
