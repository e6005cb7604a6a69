"""A light index of episode files: where each line starts and a summary of it.

The episodes table must open fast over tens of thousands of episodes, so each JSONL
file is read once into a ``FileIndex``: the byte offset and length of every line and
the fields the table shows (env, seed, step, success, return, turns, invalid actions).
It is cached by (path, size, mtime), so a file that grows is read again; a page then
reads only its own rows. Three line formats are understood: ``EpisodeWriter`` rows
(schema v1, ``turngym.sdk.episode_files``), ``records.save_jsonl`` lines and
``RecordEpisodes`` transcripts (``steps``). A line that is none of them, is not JSON or
is over ``MAX_LINE_BYTES`` becomes a row that holds only its error.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from turngym.view.files import Where, open_inside

__all__ = ["MAX_LINE_BYTES", "FileIndex", "IndexCache", "Row", "is_episode_file", "read_line"]

MAX_LINE_BYTES = 64 << 20
"""A longer line is shown as an error row and never parsed."""
_CHUNK = 1 << 20
_STEP_IN_NAME = re.compile(r"step-(\d+)")
_INVALID = ('"invalid_action": true', '"invalid_action":true')
_V1_START = b'{"schema_version": '
_TURNS_KEY = b', "turns": ['
_INVALID_TEXT = b'invalid_action\\": true'  # as JSON text inside a JSON string


@dataclass
class Row:
    """One line of an episode file, as the episodes table shows it."""

    line: int
    """the line's number among the file's episode lines (0-based): its id in URLs"""
    offset: int
    """JSONL: the line's first byte; Parquet: its row group"""
    length: int
    """JSONL: the line's bytes; Parquet: its row in the group"""
    env_id: str = ""
    seed: int | None = None
    step: int | None = None
    mode: str = ""
    seat: str = ""
    """a game's seat the episode is about (``meta["seat"]``), "" otherwise"""
    success: bool | None = None
    ret: float | None = None
    turns: int = 0
    invalid: int = 0
    error: str = ""


@dataclass
class FileIndex:
    """The rows of one episode file and the (size, mtime) they were read at."""

    where: Where
    size: int
    mtime_ns: int
    rows: list[Row] = field(default_factory=list)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _own_return(returns: Any, meta: dict[str, Any]) -> float | None:
    """The return of the agent the episode is about (its seat in a game)."""
    if not isinstance(returns, dict) or not returns:
        return _number(returns)
    if "agent" in returns:
        return _number(returns["agent"])
    seat = meta.get("seat")
    for key in (seat, f"player_{seat}"):
        if isinstance(key, str) and key in returns:
            return _number(returns[key])
    return _number(next(iter(returns.values())))


def _info_invalid(info: Any) -> bool:
    if isinstance(info, dict):
        return info.get("invalid_action") is True
    if isinstance(info, str) and any(s in info for s in _INVALID):
        # JSON text (schema v1): parsed only when it can hold the flag, which is rare.
        try:
            value = json.loads(info)
        except (ValueError, RecursionError):
            return False
        return isinstance(value, dict) and value.get("invalid_action") is True
    return False


def _json_object(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return {}
    return value if isinstance(value, dict) else {}


def summarise(row: Row, value: Any) -> None:
    """Fill ``row``'s table fields from a parsed line (or its ``error``)."""
    if not isinstance(value, dict) or not isinstance(value.get("env_id"), (str, type(None))):
        row.error = "not an episode (a JSON object with env_id)"
        return
    row.env_id = value.get("env_id") or ""
    seed = value.get("seed")
    row.seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else None
    if isinstance(value.get("steps"), list):  # a RecordEpisodes transcript
        steps = [s for s in value["steps"] if isinstance(s, dict)]
        row.turns = len(steps)
        row.invalid = sum(_info_invalid(s.get("info")) for s in steps)
        row.ret = _number(value.get("return"))
        last = steps[-1].get("info") if steps else None
        if isinstance(last, dict) and isinstance(last.get("success"), bool):
            row.success = last["success"]
        return
    turns = value.get("turns")
    if not isinstance(turns, list):
        row.error = "not an episode (no turns or steps)"
        return
    meta = _json_object(value.get("meta"))
    step = meta.get("step")
    row.step = step if isinstance(step, int) and not isinstance(step, bool) else None
    mode = meta.get("mode")
    row.mode = mode if isinstance(mode, str) else ""
    seat = meta.get("seat")
    row.seat = str(seat) if isinstance(seat, (int, str)) and not isinstance(seat, bool) else ""
    row.turns = len(turns)
    row.invalid = sum(_info_invalid(t.get("info")) for t in turns if isinstance(t, dict))
    success = value.get("success")
    row.success = success if isinstance(success, bool) else None
    row.ret = _own_return(_json_object(value.get("returns")) or value.get("returns"), meta)


def _summarise_v1(row: Row, line: bytes) -> bool:
    """The table fields of an ``EpisodeWriter`` line without parsing its turns.

    Parsing every turn costs most of the index's time, and the table needs only their
    number and the invalid ones. In a schema v1 row everything an env or agent wrote
    is JSON text (a string), whose quotes are escaped, so the turns' own ``"state_key"``
    key (one per turn) is counted exactly; a line whose info may hold
    ``"invalid_action": true`` is parsed whole (False: not such a line, parse it).
    """
    if not line.startswith(_V1_START) or _INVALID_TEXT in line:
        return False
    cut = line.find(_TURNS_KEY)
    if cut < 0:
        return False
    try:
        head = json.loads(line[:cut] + b"}")
    except (ValueError, RecursionError):
        return False
    if not isinstance(head, dict):
        return False
    head["turns"] = []
    summarise(row, head)
    row.turns = line.count(b'"state_key": ', cut)
    return not row.error


def is_episode_file(head: bytes) -> bool:
    """Whether a JSONL file's first bytes look like episodes (not metrics or other logs)."""
    if head.startswith(b"PAR1"):  # Parquet: EpisodeWriter's is the only kind we read
        return True
    text = head.lstrip()
    return text.startswith(b"{") and b'"env_id"' in text[:4096]


def _scan(f: Any, where: Where, size: int, mtime_ns: int) -> FileIndex:
    index = FileIndex(where, size, mtime_ns)
    default_step = None
    found = _STEP_IN_NAME.search(where.parts[-1])
    if found:
        default_step = int(found.group(1))
    offset = 0
    while True:
        line = f.readline(MAX_LINE_BYTES + 1)
        if not line:
            break
        start, length = offset, len(line)
        offset += length
        if length > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while True:  # skip the rest of the huge line without holding it
                more = f.readline(_CHUNK)
                offset += len(more)
                length += len(more)
                if not more or more.endswith(b"\n"):
                    break
        if not line.strip():
            continue
        row = Row(len(index.rows), start, length, step=default_step)
        if length > MAX_LINE_BYTES:
            row.error = f"a line of {length} bytes, over the {MAX_LINE_BYTES} the viewer reads"
        elif not _summarise_v1(row, line):
            try:
                value = json.loads(line)
            except (ValueError, RecursionError) as error:
                reason = "nested too deep" if isinstance(error, RecursionError) else error
                row.error = f"not valid JSON ({reason})"[:300]
            else:
                summarise(row, value)
        if row.step is None:
            row.step = default_step
        index.rows.append(row)
    return index


_PARQUET_COLUMNS = ["env_id", "seed", "success", "returns", "meta", "turns"]


def _scan_parquet(f: Any, where: Where, size: int, mtime_ns: int) -> FileIndex:
    """The index of an ``EpisodeWriter`` Parquet file: one row per episode row."""
    index = FileIndex(where, size, mtime_ns)
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    except ImportError:
        index.rows.append(Row(0, 0, 0, error="Parquet needs the data extra (pyarrow)"))
        return index
    try:
        reader = pq.ParquetFile(f)
    except (pa.ArrowException, OSError) as error:
        index.rows.append(Row(0, 0, 0, error=f"not a Parquet file ({error})"[:300]))
        return index
    for group in range(reader.num_row_groups):
        meta = reader.metadata.row_group(group)
        if meta.total_byte_size > MAX_LINE_BYTES * max(meta.num_rows, 1):
            index.rows.append(Row(len(index.rows), group, 0, error="a row group over the bound"))
            continue
        try:
            table = reader.read_row_group(group, columns=_PARQUET_COLUMNS)
            lengths = pc.list_value_length(table["turns"]).to_pylist()
            infos = pc.list_flatten(table["turns"]).combine_chunks().field("info")
            flagged = pc.match_substring(infos, "invalid_action").to_pylist()
            texts = infos.to_pylist()
            light = table.drop_columns(["turns"]).to_pylist()
        except (pa.ArrowException, KeyError, TypeError, ValueError) as error:
            index.rows.append(Row(len(index.rows), group, 0, error=f"unreadable ({error})"[:300]))
            continue
        at = 0
        for k, (value, n) in enumerate(zip(light, lengths, strict=True)):
            row = Row(len(index.rows), group, k)
            summarise(row, {**value, "turns": []})
            row.turns = n or 0
            row.invalid = sum(
                _info_invalid(texts[j]) for j in range(at, at + row.turns) if flagged[j]
            )
            at += row.turns
            index.rows.append(row)
    return index


def _read_parquet_row(f: Any, row: Row) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(f).read_row_group(row.offset)
        return table.slice(row.length, 1).to_pylist()[0]
    except (pa.ArrowException, OSError, IndexError) as error:
        raise ValueError(f"unreadable Parquet row ({error})"[:300]) from None


class IndexCache:
    """``FileIndex`` of each file, kept while the file's size and mtime stay the same."""

    def __init__(self, roots: Sequence[Path], max_files: int = 512) -> None:
        self.roots = roots
        self.max_files = max_files
        self._cache: OrderedDict[str, FileIndex] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, where: Where) -> FileIndex:
        """The index of ``where`` (read now when new or changed); ``NotInside`` if gone."""
        with open_inside(self.roots, where) as f:
            st = os.fstat(f.fileno())
            with self._lock:
                hit = self._cache.get(where.name)
                if hit is not None and (hit.size, hit.mtime_ns) == (st.st_size, st.st_mtime_ns):
                    self._cache.move_to_end(where.name)
                    return hit
            scan = _scan_parquet if where.parts[-1].endswith(".parquet") else _scan
            index = scan(f, where, st.st_size, st.st_mtime_ns)
        with self._lock:
            self._cache[where.name] = index
            while len(self._cache) > self.max_files:
                self._cache.popitem(last=False)
        return index


def read_line(roots: Sequence[Path], row: Row, where: Where) -> Any:
    """The parsed line of ``row`` (``ValueError`` with a one-line reason if it is bad)."""
    if row.error:
        raise ValueError(row.error)
    with open_inside(roots, where) as f:
        if where.parts[-1].endswith(".parquet"):
            return _read_parquet_row(f, row)
        f.seek(row.offset)
        data = f.read(row.length)
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"not valid JSON ({error})"[:300]) from None
