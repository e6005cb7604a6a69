"""Episodes as a dataset: ``Episode`` records in JSONL or Parquet files, or a ``datasets.Dataset``.

``save_episodes`` / ``load_episodes`` write and read a ``.jsonl`` file, a ``.parquet``
file or a folder (``turngym collect`` writes one: ``dataset.json``, the manifest, and the
files it lists). ``EpisodeWriter`` streams episodes into a file as they come;
``to_hf_dataset`` / ``from_hf_dataset`` convert to and from Hugging Face ``datasets``.
Everything in a ``Turn`` and an ``Episode`` comes back, so ``samples()``, ``packed()``
and ``transitions()`` of a loaded episode equal the original's.

Schema, version 1 (``SCHEMA_VERSION``): one row per episode, the same columns in both
formats, so a ``datasets.Dataset`` reads either file (``Dataset.from_parquet``,
``load_dataset("parquet"|"json", ...)``).

=================  ========================  ================================================
column             type                      holds
=================  ========================  ================================================
schema_version     int                       1
env_id             string                    the env or game id
seed               int or null               the seed the env was reset with
group              int                       episodes sharing a task (group baselines)
index              int                       the episode's number in its collection
success            bool                      the task was solved
returns            JSON text                 ``{agent: total reward}``
final_obs          JSON text                 ``{agent: its observation after its last turn}``
meta               JSON text                 anything else (agents per seat...)
turns              list of turn structs      every agent's turns, in play order (below)
images             list of {bytes, path}     the PNG pictures the JSON text refers to
=================  ========================  ================================================

A turn: ``obs`` (JSON text: a string, chat messages or a game's ``{"text",
"action_mask"}``), ``prompt_ids`` list[int], ``action_ids`` list[int],
``action_logprobs`` list[float], ``action`` string, ``reward`` float, ``terminated`` bool,
``truncated`` bool, ``info`` (JSON text), ``agent`` string, ``segment`` int,
``trainable`` bool, ``candidates`` list[string], ``candidate_logprobs`` list[float],
``constrained`` bool, ``policy_version`` int, ``state_key`` (JSON text). The fields are
``Turn``'s, documented there.

JSON text is ``json.dumps`` of the value; what JSON lacks is an object with the key
``"__turngym__"``:

- ``{"__turngym__": "ndarray", "dtype": "int8", "shape": [9], "data": [...]}``: a NumPy
  array, ``data`` flat in C order (dtypes: bool, (u)int8-64, float16-64);
- ``{"__turngym__": "image", "index": 0, "shape": [H, W, 3]}``: a uint8 picture, entry
  ``index`` of the row's ``images``;
- ``{"__turngym__": "tuple", "items": [...]}``, ``{"__turngym__": "bytes", "base64": "..."}``;
- ``{"__turngym__": "dict", "items": [[key, value], ...]}``: a dict with keys that are not
  all strings, or with a ``"__turngym__"`` key of its own.

NumPy scalars are stored as the Python number they equal; NaN and infinities as Python's
``json`` writes them (``NaN``, ``Infinity``), in JSON text and in JSONL's number columns.

Pictures (uint8 arrays shaped (H, W) or (H, W, C), C in 1..4, of at least 256 pixels:
screenshots of the web and desktop envs) are PNG, never lists of numbers: in a JSONL
file they are files ``images/<sha256>.png`` beside it (``path`` is relative to the
file's folder; a picture shown many times is stored once, ``bytes`` is null); in Parquet
they are the ``bytes`` of the ``images`` column. Writing or reading them needs Pillow.

Reading treats a file as data from anywhere: a malformed row, a path that leaves the
dataset's folder (``..``, absolute, a symlink), a row longer than ``max_row_bytes`` or a
picture larger than ``max_image_pixels`` is a one-line ``ValueError`` naming the file and
line (Parquet: row), and nothing outside the folder is opened.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import fields
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

import numpy as np

from turngym.extras import needs_extra
from turngym.images import ImageError
from turngym.sdk.episode_values import (
    RowError,
    RowImages,
    encode,
    json_text,
    parse_json_text,
    png_bytes,
    read_inside,
    row_image_loader,
)
from turngym.sdk.records import Episode, Turn

__all__ = [
    "MANIFEST",
    "MAX_IMAGE_PIXELS",
    "MAX_ROW_BYTES",
    "SCHEMA_VERSION",
    "EpisodeWriter",
    "from_hf_dataset",
    "iter_episodes",
    "load_episodes",
    "read_manifest",
    "save_episodes",
    "to_hf_dataset",
    "write_manifest",
]

SCHEMA_VERSION = 1
"""The version of the row layout this module writes (and the newest it reads)."""
MANIFEST = "dataset.json"
"""The manifest of a dataset folder: schema version, files, what was collected."""
MAX_ROW_BYTES = 256 << 20
"""Default bound on one episode's row (a JSONL line, a Parquet row's share of its group)."""
MAX_IMAGE_PIXELS = 1 << 26
"""Default bound on one picture's width x height (a 8192 x 8192 screen)."""

_FORMATS = ("jsonl", "parquet")
_PARQUET_BATCH = 32  # rows per row group: keeps a group's strings far below Arrow's 2 GiB
_MAX_MANIFEST_BYTES = 1 << 20

# Each stored field of Turn and Episode and its column kind (the order of the columns).
_TURN_COLUMNS = {
    "obs": "json",
    "prompt_ids": "ints",
    "action_ids": "ints",
    "action_logprobs": "floats",
    "action": "str",
    "reward": "float",
    "terminated": "bool",
    "truncated": "bool",
    "info": "json",
    "agent": "str",
    "segment": "int",
    "trainable": "bool",
    "candidates": "strs",
    "candidate_logprobs": "floats",
    "constrained": "bool",
    "policy_version": "int",
    "state_key": "json",
}
_EPISODE_COLUMNS = {
    "env_id": "str",
    "seed": "int?",
    "group": "int",
    "index": "int",
    "success": "bool",
    "returns": "json",
    "final_obs": "json",
    "meta": "json",
}
assert set(_TURN_COLUMNS) == {f.name for f in fields(Turn)}, "a Turn field has no column"
assert set(_EPISODE_COLUMNS) | {"turns"} == {f.name for f in fields(Episode)}


# -- Episode <-> row -------------------------------------------------------------------


def _row(ep: Episode, images: RowImages) -> dict[str, Any]:
    """One episode as a row of the schema (module docstring)."""
    where = f"episode {ep.index}"
    row: dict[str, Any] = {"schema_version": SCHEMA_VERSION}
    for name, kind in _EPISODE_COLUMNS.items():
        value = getattr(ep, name)
        if kind == "json":
            row[name] = json_text(value, f"{where}: {name}", images)
        else:
            try:
                row[name] = _check(encode(value, name, images), kind, name)
            except RowError as error:
                raise ValueError(f"{where}: {error}") from None
    turns = []
    for k, turn in enumerate(ep.turns):
        out = {}
        for name, kind in _TURN_COLUMNS.items():
            value = getattr(turn, name)
            if kind == "json":
                value = json_text(value, f"{where}: turns[{k}].{name}", images)
            else:
                what = f"turns[{k}].{name}"
                try:
                    value = _check(encode(value, what, images), kind, what)
                except RowError as error:
                    raise ValueError(f"{where}: {error}") from None
            out[name] = value
        turns.append(out)
    row["turns"] = turns
    row["images"] = images.entries
    return row


def _check(value: Any, kind: str, what: str) -> Any:
    """``value`` when it is of column kind ``kind``; a ``RowError`` naming ``what`` if not."""
    number = (int, float)
    ok = {
        "str": lambda v: isinstance(v, str),
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "int?": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
        "bool": lambda v: isinstance(v, bool),
        "float": lambda v: isinstance(v, number) and not isinstance(v, bool),
        "json": lambda v: isinstance(v, str),
    }
    each = {"ints": ok["int"], "floats": ok["float"], "strs": ok["str"]}
    if kind in each:
        if not isinstance(value, list) or not all(each[kind](v) for v in value):
            raise RowError(f"{what} must be a list of {kind[:-1]}s")
        return value
    if not ok[kind](value):
        raise RowError(f"{what} must be {kind.rstrip('?')}, got {type(value).__name__}")
    return value


def _legacy_episode(row: dict[str, Any]) -> Episode:
    """The Episode of a ``records.save_jsonl`` line (plain JSON values), its types checked."""
    turns = row.get("turns") or []
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        raise RowError("turns must be a list of objects")
    for k, turn in enumerate(turns):
        for name, kind in _TURN_COLUMNS.items():
            if kind != "json" and name in turn:
                _check(turn[name], kind, f"turns[{k}].{name}")
    for name, kind in _EPISODE_COLUMNS.items():
        if kind != "json" and name in row:
            _check(row[name], kind, name)
    try:
        return Episode.from_dict(row)
    except (TypeError, ValueError) as error:
        raise RowError(f"not an episode record ({error})") from None


def _episode(row: Any, images: Callable[[int, str], np.ndarray]) -> Episode:
    """The Episode a row holds; a ``RowError`` (without file and line) when it holds none."""
    if not isinstance(row, dict):
        raise RowError(f"a row must be a JSON object, got {type(row).__name__}")
    if "schema_version" not in row:  # a line of records.save_jsonl: Episode.to_dict
        return _legacy_episode(row)
    version = row["schema_version"]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise RowError(f"schema_version must be an int >= 1, got {version!r}")
    if version > SCHEMA_VERSION:
        raise RowError(
            f"schema_version {version} was written by a newer turngym (this one reads "
            f"{SCHEMA_VERSION}); upgrade turngym"
        )
    unknown = set(row) - {"schema_version", "turns", "images", *_EPISODE_COLUMNS}
    if unknown:
        raise RowError(f"unknown field(s) {sorted(unknown)}")
    values: dict[str, Any] = {}
    for name, kind in _EPISODE_COLUMNS.items():
        if name in row:
            value = _check(row[name], kind, name)
            values[name] = parse_json_text(value, name, images) if kind == "json" else value
    if "env_id" not in values:
        raise RowError("env_id is missing")
    raw_turns = row.get("turns") or []
    if not isinstance(raw_turns, list):
        raise RowError("turns must be a list")
    turns = []
    for k, raw in enumerate(raw_turns):
        if not isinstance(raw, dict):
            raise RowError(f"turns[{k}] must be an object")
        extra = set(raw) - set(_TURN_COLUMNS)
        if extra:
            raise RowError(f"turns[{k}]: unknown field(s) {sorted(extra)}")
        turn: dict[str, Any] = {}
        for name, kind in _TURN_COLUMNS.items():
            if name in raw and raw[name] is not None:
                what = f"turns[{k}].{name}"
                value = _check(raw[name], kind, what)
                turn[name] = parse_json_text(value, what, images) if kind == "json" else value
        turns.append(Turn(**turn))
    for name in ("returns", "final_obs", "meta"):
        if name in values and not isinstance(values[name], dict):
            raise RowError(f"{name} must hold a JSON object")
    return Episode(turns=turns, **values)


# -- files ------------------------------------------------------------------------------


def _format_of(path: Path, format: str | None) -> str:
    suffix = path.suffix.lstrip(".").lower()
    if format is not None and format not in _FORMATS:
        raise ValueError(f"format must be jsonl or parquet, got {format!r}")
    if suffix in _FORMATS:
        if format is not None and format != suffix:
            raise ValueError(f"format={format!r} does not match the file name {path.name!r}")
        return suffix
    raise ValueError(f"{path}: an episode file is named *.jsonl or *.parquet")


def _pyarrow() -> tuple[Any, Any]:
    with needs_extra("data", "Parquet episode files"):
        import pyarrow as pa
        import pyarrow.parquet as pq
    return pa, pq


def _arrow_schema(pa: Any) -> Any:
    """The Arrow schema of a row (module docstring)."""
    kinds = {
        "str": pa.string(),
        "json": pa.string(),
        "int": pa.int64(),
        "int?": pa.int64(),
        "bool": pa.bool_(),
        "float": pa.float64(),
        "ints": pa.list_(pa.int64()),
        "floats": pa.list_(pa.float64()),
        "strs": pa.list_(pa.string()),
    }
    turn = pa.struct([(name, kinds[kind]) for name, kind in _TURN_COLUMNS.items()])
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    return pa.schema(
        [("schema_version", pa.int64())]
        + [(name, kinds[kind]) for name, kind in _EPISODE_COLUMNS.items()]
        + [("turns", pa.list_(turn)), ("images", pa.list_(image))]
    )


def _temp_beside(path: Path) -> tuple[BinaryIO, Path]:
    """A new file to rename to ``path`` when done (its mode follows the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.fdopen(os.open(tmp, flags, 0o666), "wb"), tmp
        except FileExistsError:
            continue


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all (temp file, then rename)."""
    file, tmp = _temp_beside(path)
    try:
        with file:
            file.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class EpisodeWriter:
    """Streams episodes into a ``.jsonl`` or ``.parquet`` file, in place when closed.

    The file is written under a temporary name and renamed on ``close()`` (or at the end
    of a ``with`` block); after an exception nothing is left but pictures already stored.

    Args:
        path: the file to write (``*.jsonl`` or ``*.parquet``); its folder is made.
        format: ``"jsonl"`` or ``"parquet"``; None: from the file name.

    Attributes:
        episodes, turns, successes: what was written so far.
        images: pictures stored (each distinct one once per JSONL folder / Parquet row).

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "eps.jsonl")
        >>> with EpisodeWriter(path) as writer:
        ...     writer.write([Episode("turngym/Bandit-v0", seed=1)])
        1
        >>> load_episodes(path)[0].seed
        1

    """

    def __init__(self, path: str | Path, format: str | None = None) -> None:
        self.path = Path(path)
        self.format = _format_of(self.path, format)
        self.episodes = self.turns = self.successes = self.images = 0
        self._stored: set[str] = set()
        self._pending: list[dict[str, Any]] = []
        self._parquet: Any = None
        if self.format == "parquet":
            self._pa, self._pq = _pyarrow()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        file, self._tmp = _temp_beside(self.path)
        self._file: BinaryIO | None = file

    def _store_file(self, image: np.ndarray, digest: str) -> dict[str, Any]:
        name = f"images/{digest}.png"
        if name not in self._stored:
            folder = self.path.parent / "images"
            folder.mkdir(exist_ok=True)
            _write_atomic(folder / f"{digest}.png", png_bytes(image))
            self._stored.add(name)
            self.images += 1
        return {"bytes": None, "path": name}

    def _store_bytes(self, image: np.ndarray, digest: str) -> dict[str, Any]:
        self.images += 1
        return {"bytes": png_bytes(image), "path": f"{digest}.png"}

    def write(self, episodes: Iterable[Episode]) -> int:
        """Append ``episodes``; returns how many were written by this call.

        Raises:
            ValueError: an episode holds a value that cannot be stored (names where).

        """
        if self._file is None:
            raise ValueError(f"{self.path}: the writer is closed")
        n = 0
        for ep in episodes:
            store = self._store_file if self.format == "jsonl" else self._store_bytes
            row = _row(ep, RowImages(store))
            if self.format == "jsonl":
                line = json.dumps(row, ensure_ascii=False, allow_nan=True) + "\n"
                self._file.write(line.encode("utf-8"))
            else:
                self._pending.append(row)
                if len(self._pending) >= _PARQUET_BATCH:
                    self._flush()
            n += 1
            self.episodes += 1
            self.turns += ep.length
            self.successes += bool(ep.success)
        return n

    def _flush(self) -> None:
        if self._parquet is None:
            schema = _arrow_schema(self._pa)
            self._parquet = self._pq.ParquetWriter(self._file, schema, compression="zstd")
        if self._pending:
            try:
                table = self._pa.Table.from_pylist(self._pending, schema=self._parquet.schema)
            except (self._pa.ArrowException, OverflowError) as error:
                raise ValueError(f"{self.path}: cannot write these episodes ({error})") from None
            self._parquet.write_table(table)
            self._pending = []

    def close(self) -> None:
        """Finish the file and move it into place."""
        if self._file is None:
            return
        if self.format == "parquet":
            self._flush()
            self._parquet.close()
        self._file.close()
        self._file = None
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        """Drop what was written (the file at ``path`` is left as it was)."""
        if self._file is None:
            return
        self._file.close()
        self._file = None
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> EpisodeWriter:
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


def save_episodes(episodes: Iterable[Episode], path: str | Path, format: str | None = None) -> int:
    """Write ``episodes`` to a file or a dataset folder; returns how many were written.

    ``path`` ending in ``.jsonl`` or ``.parquet`` is one file; any other path is a folder
    that gets ``episodes.jsonl`` (or ``.parquet``) and the manifest ``dataset.json``.

    Args:
        episodes: the episodes, in the order they are to be read back.
        path: the file or folder.
        format: ``"jsonl"`` or ``"parquet"``; None: the file's suffix, or JSONL.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> save_episodes([Episode("turngym/Bandit-v0", seed=3)], folder)
    1
    >>> load_episodes(folder)[0].seed
    3

    """
    path = Path(path)
    if path.suffix.lstrip(".").lower() in _FORMATS:
        with EpisodeWriter(path, format) as writer:
            writer.write(episodes)
        return writer.episodes
    if format is not None and format not in _FORMATS:
        raise ValueError(f"format must be jsonl or parquet, got {format!r}")
    with EpisodeWriter(path / f"episodes.{format or 'jsonl'}") as writer:
        writer.write(episodes)
    write_manifest(path, writer)
    return writer.episodes


def write_manifest(folder: str | Path, writer: EpisodeWriter, **fields: Any) -> Path:
    """Write ``folder/dataset.json`` for the file ``writer`` wrote, plus ``fields``."""
    folder = Path(folder)
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "format": writer.format,
        "files": [writer.path.name],
        "episodes": writer.episodes,
        "turns": writer.turns,
        "success_rate": writer.successes / writer.episodes if writer.episodes else None,
        "images": writer.images,
        **fields,
    }
    text = json.dumps(manifest, indent=2, default=repr) + "\n"
    _write_atomic(folder / MANIFEST, text.encode("utf-8"))
    return folder / MANIFEST


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest of a dataset folder, its ``files`` checked to be plain files in it.

    Raises:
        ValueError: no manifest, or one that is not JSON or names files outside the folder.

    """
    where = Path(folder) / MANIFEST
    try:
        raw = read_inside(Path(folder), MANIFEST, _MAX_MANIFEST_BYTES)
        manifest = json.loads(raw.decode("utf-8"))
    except ImageError as error:
        raise ValueError(f"{where}: {error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"{where}: not valid JSON ({error})") from None
    if not isinstance(manifest, dict):
        raise ValueError(f"{where}: not valid JSON object")
    files = manifest.get("files")
    ok = isinstance(files, list) and all(
        isinstance(f, str)
        and f == PurePosixPath(f).name
        and "\\" not in f
        and not f.startswith(".")
        and PurePosixPath(f).suffix in (".jsonl", ".parquet")
        for f in files
    )
    if not ok:
        raise ValueError(
            f"{where}: files must list *.jsonl / *.parquet file names in its folder, got {files!r}"
        )
    return manifest


def _lines(path: Path, max_bytes: int) -> Iterator[tuple[int, Any]]:
    """Each non-blank line of a JSONL file, parsed, with its number; bounded reads."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    with os.fdopen(os.open(path, flags), "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError(f"{path}: not a regular file")
        lineno = 0
        while True:
            line = f.readline(max_bytes + 1)
            if not line:
                return
            lineno += 1
            if len(line) > max_bytes:
                raise ValueError(f"{path}:{lineno}: a line longer than {max_bytes} bytes")
            if not line.strip():
                continue
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"{path}:{lineno}: not UTF-8 text") from None
            try:
                yield lineno, json.loads(text)
            except (json.JSONDecodeError, RecursionError) as error:
                reason = "nested too deep" if isinstance(error, RecursionError) else error
                raise ValueError(f"{path}:{lineno}: not valid JSON ({reason})") from None


def _rows_to_episodes(
    rows: Iterable[tuple[str, Any]], root: Path | None, max_bytes: int, max_pixels: int
) -> Iterator[Episode]:
    for where, row in rows:
        try:
            images = row_image_loader(
                row.get("images") if isinstance(row, dict) else None, root, max_bytes, max_pixels
            )
            yield _episode(row, images)
        except RowError as error:
            raise ValueError(f"{where}: {error}") from None


def _parquet_rows(path: Path, max_bytes: int) -> Iterator[tuple[str, Any]]:
    pa, pq = _pyarrow()
    try:
        reader = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as error:
        raise ValueError(f"{path}: not a Parquet file ({error})") from None
    n = 0
    with reader:
        for group in range(reader.num_row_groups):
            meta = reader.metadata.row_group(group)
            if meta.total_byte_size > max_bytes * max(meta.num_rows, 1):
                raise ValueError(
                    f"{path}: row group {group} holds {meta.total_byte_size} bytes for "
                    f"{meta.num_rows} rows, over max_row_bytes={max_bytes} a row"
                )
            try:
                table = reader.read_row_group(group)
            except (pa.ArrowException, OSError) as error:
                raise ValueError(f"{path}: row group {group} is unreadable ({error})") from None
            for row in table.to_pylist():
                yield f"{path}: row {n}", row
                n += 1


def _files(path: Path) -> list[Path]:
    """The episode files of ``path``: itself, or those its folder's manifest lists."""
    if path.is_dir():
        if (path / MANIFEST).exists() or (path / MANIFEST).is_symlink():
            listed = [path / name for name in read_manifest(path)["files"]]
            for file in listed:  # plain files of the folder only, never a link out of it
                try:
                    mode = os.lstat(file).st_mode
                except OSError:
                    raise ValueError(
                        f"{path / MANIFEST}: lists {file.name}, which is missing"
                    ) from None
                if not stat.S_ISREG(mode):
                    raise ValueError(f"{file}: not a regular file (a symlink?)")
            return listed
        found = sorted(
            p
            for p in path.iterdir()
            if p.suffix in (".jsonl", ".parquet") and p.is_file() and not p.is_symlink()
        )
        if not found:
            raise ValueError(f"{path}: no episode files (*.jsonl, *.parquet) and no {MANIFEST}")
        return found
    _format_of(path, None)
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    return [path]


def iter_episodes(
    path: str | Path,
    *,
    max_row_bytes: int = MAX_ROW_BYTES,
    max_image_pixels: int = MAX_IMAGE_PIXELS,
) -> Iterator[Episode]:
    """Yield the episodes of a file or dataset folder one by one (see ``load_episodes``)."""
    for file in _files(Path(path)):
        if file.suffix == ".jsonl":
            lines = ((f"{file}:{n}", row) for n, row in _lines(file, max_row_bytes))
            yield from _rows_to_episodes(lines, file.parent, max_row_bytes, max_image_pixels)
        else:  # Parquet embeds its pictures: no path in it is ever opened
            rows = _parquet_rows(file, max_row_bytes)
            yield from _rows_to_episodes(rows, None, max_row_bytes, max_image_pixels)


def load_episodes(
    path: str | Path,
    *,
    max_row_bytes: int = MAX_ROW_BYTES,
    max_image_pixels: int = MAX_IMAGE_PIXELS,
) -> list[Episode]:
    """Read the episodes of a ``.jsonl`` file, a ``.parquet`` file or a dataset folder.

    Also reads the files of ``records.save_jsonl``.

    Args:
        path: a file, or a folder (``turngym collect``'s, or one of episode files).
        max_row_bytes: refuse a row (JSONL line, Parquet row, picture file) over this.
        max_image_pixels: refuse a picture over this many pixels.

    Raises:
        ValueError: a file or row that is not episodes (names the file and line/row), a
            path out of the folder, a row or picture over the bounds.

    """
    return list(iter_episodes(path, max_row_bytes=max_row_bytes, max_image_pixels=max_image_pixels))


# -- Hugging Face datasets ----------------------------------------------------------------


def to_hf_dataset(episodes: Iterable[Episode]) -> Any:
    """A ``datasets.Dataset`` with one row per episode (the schema; pictures embedded).

    ``Dataset.to_parquet`` of it writes a file ``load_episodes`` reads.
    """
    with needs_extra("data", "to_hf_dataset"):
        import datasets
    pa, _ = _pyarrow()
    rows = [_row(ep, RowImages(_embedded)) for ep in episodes]
    try:
        table = pa.Table.from_pylist(rows, schema=_arrow_schema(pa))
    except (pa.ArrowException, OverflowError) as error:
        raise ValueError(f"cannot convert these episodes ({error})") from None
    return datasets.Dataset(table)


def _embedded(image: np.ndarray, digest: str) -> dict[str, Any]:
    return {"bytes": png_bytes(image), "path": f"{digest}.png"}


def from_hf_dataset(
    dataset: Any,
    root: str | Path | None = None,
    *,
    max_row_bytes: int = MAX_ROW_BYTES,
    max_image_pixels: int = MAX_IMAGE_PIXELS,
) -> list[Episode]:
    """The episodes of a ``datasets.Dataset`` of schema rows (e.g. ``Dataset.from_parquet``).

    Args:
        dataset: the dataset (a selection or shuffle of one is fine).
        root: the folder that pictures stored as files (``path``, no ``bytes``: a JSONL
            file loaded with ``load_dataset("json")``) are read from; None: pictures
            must be embedded.
        max_row_bytes: refuse a row or picture file over this many bytes.
        max_image_pixels: refuse a picture over this many pixels.

    """
    with needs_extra("data", "from_hf_dataset"):
        import datasets
    if not isinstance(dataset, datasets.Dataset):
        raise ValueError(f"expected a datasets.Dataset, got {type(dataset).__name__}")
    arrow = dataset.with_format("arrow")

    def rows() -> Iterator[tuple[str, Any]]:
        for start in range(0, len(arrow), _PARQUET_BATCH):
            for k, row in enumerate(arrow[start : start + _PARQUET_BATCH].to_pylist()):
                yield f"dataset row {start + k}", row

    folder = Path(root) if root is not None else None
    return list(_rows_to_episodes(rows(), folder, max_row_bytes, max_image_pixels))
