"""What the viewer's roots hold: run directories, their metrics and config, episode files.

A run directory is a folder with ``metrics.jsonl`` or an ``episodes/`` folder (what the
trainers write, ``turngym/sdk/trainers/loop.py``). An episode file is any ``*.jsonl``
under a root whose first line is an episode (``EpisodeWriter`` rows, ``turngym collect``
datasets, ``RecordEpisodes`` transcripts); ``metrics.jsonl`` never is. Parquet files
(``turngym collect --format parquet``) are episode files too. A root given as a file
holds just that file. The catalog is re-read when older than ``ttl`` seconds.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from turngym.view.episode_index import is_episode_file
from turngym.view.files import NotInside, Where, display, open_inside, read_inside, walk

__all__ = ["Catalog", "CatalogCache", "Run", "read_metrics"]

MAX_METRICS_BYTES = 64 << 20
MAX_CONFIG_BYTES = 1 << 20
_STEP_FILE = re.compile(r"^eval-step-(\d+)\.jsonl$")


@dataclass
class Run:
    """One run directory."""

    where: Where
    name: str
    has_metrics: bool
    has_curve: bool
    config_file: str | None
    episode_files: list[Where] = field(default_factory=list)

    @property
    def id(self) -> str:
        """The run's name in URLs."""
        return self.where.name

    def steps(self) -> dict[int, Where]:
        """The episode files written at evaluations, by step (``eval-step-NNNNNNN.jsonl``)."""
        out = {}
        for file in self.episode_files:
            found = _STEP_FILE.match(file.parts[-1])
            if found:
                out[int(found.group(1))] = file
        return dict(sorted(out.items()))


@dataclass
class Catalog:
    """The runs and episode files under the roots."""

    runs: list[Run]
    files: list[Where]
    run_of: dict[str, Run]
    """episode file name -> the run it belongs to"""

    def run(self, rid: str) -> Run | None:
        """The run named ``rid`` in URLs, or None."""
        return next((r for r in self.runs if r.id == rid), None)


def _episode_like(roots: Sequence[Path], where: Where) -> bool:
    try:
        with open_inside(roots, where) as f:
            return is_episode_file(f.read(4096))
    except (NotInside, OSError):
        return False


def scan(roots: Sequence[Path], only: Sequence[str | None]) -> Catalog:
    """Walk every root (or look at its one file) and list runs and episode files."""
    runs: list[Run] = []
    files: list[Where] = []
    for k in range(len(roots)):
        if only[k] is not None:
            where = Where(k, (str(only[k]),))
            if _episode_like(roots, where):
                files.append(where)
            continue
        for here, folders, names in walk(roots, k):
            for name in names:
                if name.endswith((".jsonl", ".parquet")) and name != "metrics.jsonl":
                    where = here.child(name)
                    if _episode_like(roots, where):
                        files.append(where)
            if "metrics.jsonl" in names or "episodes" in folders:
                config = next((c for c in ("config.json", "config.toml") if c in names), None)
                runs.append(
                    Run(
                        here,
                        display(roots, here),
                        "metrics.jsonl" in names,
                        "curve.png" in names,
                        config,
                    )
                )
    run_of: dict[str, Run] = {}
    by_depth = sorted(runs, key=lambda r: len(r.where.parts))
    for file in files:
        for run in by_depth:  # the deepest run folder that holds the file
            n = len(run.where.parts)
            if file.root == run.where.root and file.parts[:n] == run.where.parts:
                run_of[file.name] = run
    for file in files:
        if file.name in run_of:
            run_of[file.name].episode_files.append(file)
    return Catalog(runs, files, run_of)


class CatalogCache:
    """The catalog, read again when it is older than ``ttl`` seconds."""

    def __init__(self, roots: Sequence[Path], only: Sequence[str | None], ttl: float = 2.0):
        self.roots, self.only, self.ttl = roots, only, ttl
        self._value: Catalog | None = None
        self._at = 0.0
        self._lock = threading.Lock()

    def get(self) -> Catalog:
        """The current catalog."""
        with self._lock:
            if self._value is None or time.monotonic() - self._at > self.ttl:
                self._value = scan(self.roots, self.only)
                self._at = time.monotonic()
            return self._value


def read_metrics(roots: Sequence[Path], run: Run) -> list[dict[str, Any]]:
    """The rows of the run's ``metrics.jsonl`` that are JSON objects (others skipped)."""
    if not run.has_metrics:
        return []
    try:
        data = read_inside(roots, run.where.child("metrics.jsonl"), MAX_METRICS_BYTES)
    except NotInside:
        return []
    rows = []
    for line in data.splitlines():
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(row, dict) and isinstance(row.get("step"), (int, float)):
            rows.append(row)
    return rows


def read_config(roots: Sequence[Path], run: Run) -> tuple[Any, str]:
    """The run's config: (parsed JSON or None, its text); (None, "") without one."""
    if run.config_file is None:
        return None, ""
    try:
        data = read_inside(roots, run.where.child(run.config_file), MAX_CONFIG_BYTES)
    except NotInside:
        return None, ""
    text = data.decode("utf-8", errors="replace")
    if run.config_file.endswith(".json"):
        try:
            return json.loads(text), text
        except (ValueError, RecursionError):
            return None, text
    return None, text


@functools.cache
def _trainer_fields() -> dict[str, frozenset[str]]:
    from turngym.sdk.trainers import TRAINERS

    out = {}
    for name, row in TRAINERS.items():
        try:
            config = row.config_class()
        except (ImportError, AttributeError):  # a trainer whose extra is missing
            continue
        out[name] = frozenset(f.name for f in dataclasses.fields(config))
    return out


def trainer_of(config: Any) -> str:
    """The trainer that wrote a run's ``config.json`` ("" when unknown).

    Its ``trainer`` key, else the trainer whose config dataclass has exactly these
    fields (trainers write ``asdict(config)``).
    """
    if not isinstance(config, dict):
        return ""
    named = config.get("trainer") or config.get("method") or config.get("algorithm")
    if isinstance(named, str):
        return named
    keys = set(config)
    return next((name for name, fields in _trainer_fields().items() if fields == keys), "")


def numeric_keys(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The metric names that hold a finite number in some row (``step`` left out)."""
    keys: dict[str, None] = {}
    for row in rows:
        for key, value in row.items():
            if key != "step" and _finite(value):
                keys[key] = None
    return list(keys)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def last_value(rows: Sequence[dict[str, Any]], key: str) -> float | None:
    """The last finite value of ``key`` in ``rows``."""
    for row in reversed(rows):
        if _finite(row.get(key)):
            return float(row[key])
    return None


def series(runs: Sequence[tuple[str, Sequence[dict[str, Any]]]]) -> dict[str, Any]:
    """Chart data: one x axis (the union of steps) and one series per (run, metric)."""
    steps = sorted({float(r["step"]) for _, rows in runs for r in rows})
    at = {s: i for i, s in enumerate(steps)}
    out: dict[str, list[float | None]] = {}
    for label, rows in runs:
        for key in numeric_keys(rows):
            values: list[float | None] = [None] * len(steps)
            for r in rows:
                if _finite(r.get(key)):
                    values[at[float(r["step"])]] = float(r[key])
            out[f"{label}: {key}" if len(runs) > 1 else key] = values
    # "order" keeps the runs' order: the page's JSON has its keys sorted.
    return {"steps": steps, "series": out, "order": list(out)}
