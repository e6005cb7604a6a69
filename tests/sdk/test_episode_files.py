from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from turngym.sdk.episode_files import (
    MANIFEST,
    SCHEMA_VERSION,
    EpisodeWriter,
    from_hf_dataset,
    load_episodes,
    save_episodes,
    to_hf_dataset,
)
from turngym.sdk.records import Episode, Turn, save_jsonl
from turngym.sdk.rollout import collect, collect_games

FORMATS = ["jsonl", "parquet"]


def canon(value: Any) -> Any:
    """A comparable form: arrays by dtype/shape/bytes, NaN equal to NaN, types kept."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.generic):  # stored as the Python number it equals
        return canon(value.item())
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            tuple(canon(getattr(value, f.name)) for f in dataclasses.fields(value)),
        )
    if isinstance(value, dict):
        return ("dict", tuple((canon(k), canon(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(canon(v) for v in value))
    return (type(value).__name__, value)


def assert_same(loaded: list[Episode], original: list[Episode]) -> None:
    assert canon(loaded) == canon(original)
    for a, b in zip(loaded, original, strict=True):
        for agent in [None, *b.agents]:
            assert canon(a.transitions(agent)) == canon(b.transitions(agent))
            if any(t.trainable for t in b.turns if agent in (None, t.agent)):
                assert canon(a.samples(agent)) == canon(b.samples(agent))
        for agent in b.agents:
            if b.is_append_only(agent):
                assert canon(a.packed(agent)) == canon(b.packed(agent))


def gradient(h: int, w: int, c: int | None = 3) -> np.ndarray:
    shape = (h, w) if c is None else (h, w, c)
    return (np.arange(np.prod(shape)) % 251).astype(np.uint8).reshape(shape)


def rich_episodes() -> list[Episode]:
    """Two seats, token turns, dict observations with masks, images, values JSON lacks."""
    image = gradient(120, 90)
    gray = gradient(32, 24, None)
    turns = [
        Turn(
            obs={"text": "board", "action_mask": np.array([1, 0, 1], np.int8)},
            prompt_ids=[1, 2, 3],
            action_ids=[4, 5],
            action_logprobs=[-0.5, float("nan")],
            action="a",
            reward=1.0,
            info={
                "legal_actions": ["a", "b"],
                "keys": {1: "int key", (2, 3): "tuple key"},
                "pair": (1, "x"),
                "lookalike": {"__turngym__": "not a marker"},
                "raw": b"\x00\xff",
                "nan": float("nan"),
                "inf": float("-inf"),
                "none": None,
                "f32": np.float32(0.25),
                "i64": np.int64(7),
                "mask": np.array([True, False]),
                "grid": np.array([[0.1, np.nan]], np.float32),
                "big": 2**70,
                "empty": np.zeros((0, 3)),
                "screenshot": image,
            },
            agent="player_0",
            trainable=True,
            candidates=["a", "b"],
            candidate_logprobs=[-0.1, -2.0],
            constrained=True,
            policy_version=3,
            state_key=("s", 1),
        ),
        Turn(
            obs={"text": "x", "screenshot": image, "gray": gray, "gray1": gray[:, :, None]},
            action="b",
            reward=-1.0,
            agent="player_1",
            state_key=None,
            segment=2,
        ),
        Turn(
            obs=[{"role": "user", "content": "héllo ✓"}],
            prompt_ids=[1, 2, 3, 4, 5, 6],
            action_ids=[7],
            action_logprobs=[-0.1],
            action="c",
            reward=float("nan"),
            truncated=True,
            agent="player_0",
            trainable=True,
            state_key="k",
            info={"rgba": gradient(16, 16, 4), "la": gradient(16, 16, 2)},
        ),
    ]
    first = Episode(
        "turngym/Made-up-v0",
        seed=None,
        group=4,
        turns=turns,
        success=True,
        final_obs={"player_0": {"text": "end", "screenshot": image}, "player_1": None},
        index=9,
        meta={"seats": {"player_0": "LLMAgent"}, "pair": (1, 2)},
    )
    second = Episode("turngym/Bandit-v0", seed=2**40, turns=[Turn(action="pull", reward=0.5)])
    return [first, second, Episode("turngym/Empty-v0")]


def collected() -> list[Episode]:
    return collect("turngym/FrozenLake-v0", "expert", episodes=3, seed=5) + collect_games(
        "turngym/TicTacToe-v0", "random", episodes=3, seed=1
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_everything(tmp_path, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    episodes = rich_episodes() + collected()
    path = tmp_path / f"eps.{fmt}"
    assert save_episodes(episodes, path) == len(episodes)
    loaded = load_episodes(path)
    assert_same(loaded, episodes)
    # arrays come back as arrays: dtype, shape and values
    mask = loaded[0].turns[0].obs["action_mask"]
    assert mask.dtype == np.int8 and mask.tolist() == [1, 0, 1]
    assert loaded[0].turns[1].obs["gray1"].shape == (32, 24, 1)
    assert loaded[0].turns[0].info["keys"][(2, 3)] == "tuple key"
    assert loaded[-1].turns[-1].obs["action_mask"].dtype == np.int8  # a real game's mask


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_model_s_episodes_keep_their_tokens(tmp_path, tiny_model_dir, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    model = f"hf:{tiny_model_dir}"
    episodes = collect("turngym/FrozenLake-v0", model, episodes=2, max_turns=3)
    episodes += collect_games("turngym/TicTacToe-v0", model, episodes=1, max_turns=4)
    assert all(t.trainable and t.action_ids and t.prompt_ids for e in episodes for t in e.turns)
    save_episodes(episodes, tmp_path / f"eps.{fmt}")
    assert_same(load_episodes(tmp_path / f"eps.{fmt}"), episodes)


def test_a_directory_holds_a_manifest_and_loads_whole(tmp_path):
    episodes = collected()
    assert save_episodes(episodes, tmp_path / "data") == len(episodes)
    manifest = json.loads((tmp_path / "data" / MANIFEST).read_text())
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["files"] == ["episodes.jsonl"] and manifest["episodes"] == len(episodes)
    assert_same(load_episodes(tmp_path / "data"), episodes)


def test_files_from_save_jsonl_still_load(tmp_path):
    episodes = collect("turngym/FrozenLake-v0", "expert", episodes=2)
    save_jsonl(episodes, tmp_path / "old.jsonl")
    assert canon(load_episodes(tmp_path / "old.jsonl")) == canon(episodes)
    row = episodes[0].to_dict()
    row["turns"][1]["action_ids"] = ["seven"]
    rewrite(tmp_path / "old.jsonl", episodes[1].to_dict(), row)
    with pytest.raises(ValueError, match=r"old\.jsonl:2: turns\[1\]\.action_ids"):
        load_episodes(tmp_path / "old.jsonl")


def test_writer_streams_and_leaves_nothing_when_aborted(tmp_path):
    episodes = collected()
    path = tmp_path / "eps.jsonl"
    with pytest.raises(RuntimeError), EpisodeWriter(path) as writer:
        writer.write(episodes[:2])
        raise RuntimeError("collection died")
    assert list(tmp_path.iterdir()) == []
    with EpisodeWriter(path) as writer:
        for ep in episodes:
            writer.write([ep])
    assert writer.episodes == len(episodes) and writer.turns == sum(e.length for e in episodes)
    assert_same(load_episodes(path), episodes)


def test_images_are_png_files_not_lists_of_ints(tmp_path):
    episodes = rich_episodes()
    path = tmp_path / "eps.jsonl"
    save_episodes(episodes, path)
    first_line = path.read_text().splitlines()[0]
    # the 120x90x3 screenshot alone is 32,400 numbers, ~120 KB as a JSON list
    assert len(first_line) < 8_000
    pngs = sorted((tmp_path / "images").iterdir())
    # the screenshot is stored once though three places show it; gray and gray1 too
    assert len(pngs) == 5 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_screen_graph_episode_shrinks_and_comes_back_exact(tmp_path):
    pytest.importorskip("PIL")
    episodes = collect("turngym/ScreenGraph-v0", "expert", episodes=1, max_turns=2)
    save_episodes(episodes, tmp_path / "new" / "eps.jsonl")
    # records.save_jsonl wrote this episode as 11.3 MB of JSON numbers (3 screenshots)
    pixels = sum(t.obs["screenshot"].size for t in episodes[0].turns) + 640 * 360 * 3
    after = sum(p.stat().st_size for p in (tmp_path / "new").rglob("*") if p.is_file())
    assert pixels > 2_000_000 and after < 200_000
    loaded = load_episodes(tmp_path / "new" / "eps.jsonl")
    shot = loaded[0].turns[1].obs["screenshot"]
    assert shot.dtype == np.uint8 and shot.shape == episodes[0].turns[1].obs["screenshot"].shape
    assert_same(loaded, episodes)


def test_a_value_that_cannot_be_stored_is_named(tmp_path):
    ep = Episode("turngym/X-v0", turns=[Turn(action="a", info={"odd": {1, 2}})])
    with pytest.raises(ValueError, match=r"turns\[0\]\.info\['odd'\]: cannot store a set"):
        save_episodes([ep], tmp_path / "eps.jsonl")
    assert not (tmp_path / "eps.jsonl").exists()


def test_bad_paths_and_formats_are_refused(tmp_path):
    with pytest.raises(ValueError, match="format must be jsonl or parquet"):
        save_episodes([], tmp_path / "eps.jsonl", format="csv")
    with pytest.raises(ValueError, match="does not match"):
        save_episodes([], tmp_path / "eps.jsonl", format="parquet")
    with pytest.raises(ValueError, match=r"\*\.jsonl or \*\.parquet"):
        load_episodes(tmp_path / "eps.txt")
    with pytest.raises(ValueError, match="no such file"):
        load_episodes(tmp_path / "missing.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no episode files"):
        load_episodes(tmp_path / "empty")


# -- hostile files ---------------------------------------------------------------------


def one_image_dataset(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    ep = Episode("turngym/X-v0", turns=[Turn(obs={"screenshot": gradient(20, 20)}, action="a")])
    path = tmp_path / "data" / "eps.jsonl"
    save_episodes([ep], path)
    return path, json.loads(path.read_text())


def rewrite(path: Path, *rows: Any) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))


def test_malformed_lines_are_named_by_file_and_line(tmp_path):
    path, row = one_image_dataset(tmp_path)
    rewrite(path, row, "{not json")
    with pytest.raises(ValueError, match=r"eps\.jsonl:2: not valid JSON"):
        load_episodes(path)
    rewrite(path, row, "", "[1, 2]")
    with pytest.raises(ValueError, match=r"eps\.jsonl:3: .*object"):
        load_episodes(path)
    bad = {**row, "turns": [{**row["turns"][0], "reward": "lots"}]}
    rewrite(path, bad)
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: turns\[0\]\.reward"):
        load_episodes(path)
    rewrite(path, {**row, "secret": 1})
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: unknown field"):
        load_episodes(path)
    rewrite(path, {**row, "schema_version": SCHEMA_VERSION + 1})
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: .*newer turngym"):
        load_episodes(path)
    deep = {**row, "meta": "[" * 100_000 + "]" * 100_000}
    rewrite(path, deep)
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: meta"):
        load_episodes(path)
    path.write_bytes(b'{"env_id": "\xff"}\n')
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: not UTF-8"):
        load_episodes(path)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ({"__turngym__": "ndarray", "dtype": "object", "shape": [1], "data": [1]}, "dtype"),
        ({"__turngym__": "ndarray", "dtype": "int8", "shape": [3], "data": [1]}, "shape"),
        ({"__turngym__": "ndarray", "dtype": "int8", "shape": [1], "data": [900]}, "int8"),
        ({"__turngym__": "image", "index": 5, "shape": [20, 20, 3]}, "index"),
        ({"__turngym__": "image", "index": 0, "shape": [21, 20, 3]}, "shape"),
        ({"__turngym__": "bytes", "base64": "***"}, "base64"),
        ({"__turngym__": "dict", "items": [[[1], 2]]}, "key"),
        ({"__turngym__": "pickle", "data": "x"}, "unknown"),
    ],
)
def test_bad_typed_values_are_refused(tmp_path, marker, message):
    path, row = one_image_dataset(tmp_path)
    rewrite(path, {**row, "turns": [{**row["turns"][0], "obs": json.dumps({"x": marker})}]})
    with pytest.raises(ValueError, match=rf"eps\.jsonl:1: turns\[0\]\.obs.*{message}"):
        load_episodes(path)


@pytest.mark.parametrize(
    "where",
    ["../../etc/passwd", "/etc/passwd", "images/../../outside.png", "images\\..\\x.png", ""],
)
def test_image_paths_cannot_leave_the_dataset(tmp_path, where):
    path, row = one_image_dataset(tmp_path)
    rewrite(path, {**row, "images": [{"bytes": None, "path": where}]})
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: images\[0\]"):
        load_episodes(path)


def test_symlinks_out_of_the_dataset_are_not_followed(tmp_path):
    path, row = one_image_dataset(tmp_path)
    real = tmp_path / "data" / row["images"][0]["path"]
    outside = tmp_path / "outside.png"
    outside.write_bytes(real.read_bytes())  # a valid picture, so only the link is wrong
    real.unlink()
    real.symlink_to(outside)
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: images\[0\].*(symlink|outside)"):
        load_episodes(path)
    # a link to a picture inside the folder is refused too: datasets hold plain files
    (tmp_path / "data" / "other.png").write_bytes(outside.read_bytes())
    real.unlink()
    real.symlink_to(tmp_path / "data" / "other.png")
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: images\[0\].*is a symlink"):
        load_episodes(path)
    # the images folder itself a link out of the dataset
    images = tmp_path / "data" / "images"
    real.unlink()
    images.rmdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / real.name).write_bytes(outside.read_bytes())
    images.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: images\[0\].*outside"):
        load_episodes(path)


def test_an_image_that_is_not_a_png_is_refused(tmp_path):
    path, row = one_image_dataset(tmp_path)
    (tmp_path / "data" / row["images"][0]["path"]).write_bytes(b"GIF89a not really")
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: images\[0\].*PNG"):
        load_episodes(path)


def test_huge_lines_and_images_are_refused_before_reading_them_whole(tmp_path):
    path, row = one_image_dataset(tmp_path)
    rewrite(path, row, {**row, "meta": json.dumps({"pad": "x" * 5000})})
    with pytest.raises(ValueError, match=r"eps\.jsonl:2: .*longer than 4000 bytes"):
        load_episodes(path, max_row_bytes=4000)
    with pytest.raises(ValueError, match=r"eps\.jsonl:1: images\[0\].*pixels"):
        load_episodes(path, max_image_pixels=100)


def test_a_manifest_cannot_point_outside_its_folder(tmp_path):
    save_episodes(collected()[:1], tmp_path / "data")
    (tmp_path / "secret.jsonl").write_text("")
    for files in (["../secret.jsonl"], ["/etc/passwd"], "episodes.jsonl", ["notes.txt"]):
        (tmp_path / "data" / MANIFEST).write_text(json.dumps({"schema_version": 1, "files": files}))
        with pytest.raises(ValueError, match=rf"{MANIFEST}: files"):
            load_episodes(tmp_path / "data")
    (tmp_path / "data" / MANIFEST).write_text("{oops")
    with pytest.raises(ValueError, match=rf"{MANIFEST}: not valid JSON"):
        load_episodes(tmp_path / "data")


# -- Parquet and Hugging Face datasets ---------------------------------------------------


def test_parquet_rows_that_lie_are_refused(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "eps.parquet"
    path.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(ValueError, match=r"eps\.parquet: not a Parquet file"):
        load_episodes(path)
    ep = Episode("turngym/X-v0", turns=[Turn(obs={"screenshot": gradient(20, 20)}, action="a")])
    save_episodes([ep], path)
    table = pq.read_table(path)
    rows = table.to_pylist()
    rows[0]["images"][0]["bytes"] = b"not a png"
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    with pytest.raises(ValueError, match=r"eps\.parquet: row 0: images\[0\].*PNG"):
        load_episodes(path)
    with pytest.raises(ValueError, match=r"eps\.parquet: row group 0 .* over max_row_bytes"):
        load_episodes(path, max_row_bytes=100)
    rows[0]["images"][0] = {"bytes": None, "path": "/etc/passwd"}
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    with pytest.raises(ValueError, match=r"eps\.parquet: row 0: images\[0\].*no bytes"):
        load_episodes(path)


def test_hugging_face_datasets_read_the_files(tmp_path):
    datasets = pytest.importorskip("datasets")
    episodes = rich_episodes() + collected()
    save_episodes(episodes, tmp_path / "eps.parquet")
    ds = datasets.Dataset.from_parquet(str(tmp_path / "eps.parquet"), cache_dir=str(tmp_path / "c"))
    assert ds.num_rows == len(episodes) and ds[3]["env_id"] == "turngym/FrozenLake-v0"
    assert_same(from_hf_dataset(ds), episodes)
    ds = datasets.load_dataset(
        "parquet",
        data_files=str(tmp_path / "eps.parquet"),
        split="train",
        cache_dir=str(tmp_path / "c"),
    )
    assert_same(from_hf_dataset(ds.select(range(3, len(episodes)))), episodes[3:])
    ds = to_hf_dataset(episodes)
    assert ds.num_rows == len(episodes) and ds.features["env_id"].dtype == "string"
    assert_same(from_hf_dataset(ds), episodes)
    # the JSONL files are the same table: the json loader reads them too
    plain = collected()
    save_episodes(plain, tmp_path / "j" / "eps.jsonl")
    ds = datasets.load_dataset(
        "json",
        data_files=str(tmp_path / "j" / "eps.jsonl"),
        split="train",
        cache_dir=str(tmp_path / "c"),
    )
    assert_same(from_hf_dataset(ds, root=tmp_path / "j"), plain)
    with pytest.raises(ValueError, match=r"a datasets\.Dataset"):
        from_hf_dataset([{"env_id": "x"}])


def test_importing_turngym_and_the_module_stays_light():
    code = (
        "import sys, turngym, turngym.sdk.episode_files; "
        "print(sorted(m for m in ('pyarrow', 'datasets', 'PIL', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**os.environ}
    )
    assert out.stdout.strip() == "[]"
