"""The env gallery: one page per registered id, recorded data for each, and replays.

The replays re-play every committed episode (the web and desktop ones aside) against
today's code, so the gallery cannot drift from the envs silently: when an env changes
what it shows, the test says to re-record (``python scripts/docs_gallery.py record --ids '<id>'``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from turngym.registry import ENVS, entry

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import docs_gallery  # noqa: E402
import gallery_pages  # noqa: E402

# Every committed recording is replayed every run (all of them together take about 20 s
# here) except the web and desktop ones: a browser or an X display per id would cost
# minutes, and three of their ids depend on the wall clock (tests/test_testing_replay.py,
# TIMED).
REPLAY_LEFT_OUT = ("web", "gui")


def _replayable() -> list[str]:
    ids = []
    for row in ENVS:
        if row.family in REPLAY_LEFT_OUT:
            continue
        path = docs_gallery.data_path(row)
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            if data["status"] == "recorded" and data["actions"] is not None:
                ids.append(row.id)
    return ids


REPLAYED = _replayable()


def _no_stockfish() -> bool:
    from turngym.envs.text.chess_engine import find_stockfish

    return find_stockfish() is None


def test_pages_writes_one_page_per_registered_id_and_family_pages(tmp_path):
    count = gallery_pages.write_pages(tmp_path, docs_gallery.GALLERY)
    families = sorted({row.group for row in ENVS})
    id_pages = [p for p in tmp_path.glob("*/*.md") if p.name != "index.md"]
    assert len(id_pages) == len(ENVS) == len({p.as_posix() for p in id_pages})
    assert sorted(p.parent.name for p in tmp_path.glob("*/index.md")) == families
    assert count == len(ENVS) + len(families) + 1
    for row in ENVS:
        text = (tmp_path / row.group / f"{docs_gallery.slug(row.id)}.md").read_text()
        assert text.startswith(f"# {row.id}\n")
    index = (tmp_path / "index.md").read_text()
    assert all(f"]({family}/index.md)" in index for family in families)


def test_every_registered_id_has_recorded_data_or_a_reason():
    missing, unexplained, committed = [], [], []
    for row in ENVS:
        path = docs_gallery.data_path(row)
        if gallery_pages.recorded_on_build(row):  # recorded with the pages, never committed
            if path.is_file():
                committed.append(row.id)
            continue
        if not path.is_file():
            missing.append(row.id)
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["id"] == row.id
        if data["status"] == "recorded":
            assert data["turns"] and data["turns"][0]["turn"] == 0, row.id
            assert all((path.parent / name).is_file() for name in data["images"]), row.id
        elif not data.get("reason"):
            unexplained.append(row.id)
    assert not missing, f"no gallery data for {missing[:5]} (run docs_gallery.py record)"
    assert not unexplained
    assert not committed, f"{committed[:5]}: `make docs` records these; delete their JSON"


def test_record_leaves_out_the_ids_the_pages_record(tmp_path, capsys):
    assert docs_gallery.main(["record", "--ids", "turngym/Bandit-v0"]) == 0
    assert "recorded by `pages`" in capsys.readouterr().out
    assert not docs_gallery.data_path(entry("turngym/Bandit-v0")).is_file()


@pytest.mark.parametrize("env_id", REPLAYED)
def test_recorded_episode_replays_against_todays_env(env_id):
    row = entry(env_id)
    if row.unavailable() is not None:
        pytest.skip(row.unavailable())
    if row.extra == "chess" and _no_stockfish():
        # recorded against Stockfish; without it the env plays its Python engine
        pytest.skip("the recording's opponent is Stockfish: apt-get install stockfish")
    data = json.loads(docs_gallery.data_path(row).read_text(encoding="utf-8"))
    assert data["status"] == "recorded" and data["actions"] is not None
    hint = f"re-record: python scripts/docs_gallery.py record --ids '{env_id}'"
    env = gym.make(env_id)
    try:
        obs, _ = env.reset(seed=data["seed"])
        seen = {0: (docs_gallery.cut(docs_gallery.obs_text(obs)), None)}
        for k, action in enumerate(data["actions"], start=1):
            obs, reward, *_ = env.step(action)
            seen[k] = (docs_gallery.cut(docs_gallery.obs_text(obs)), float(reward))
    finally:
        env.close()
    assert len(seen) == data["steps"] + 1, hint
    for turn in data["turns"]:
        assert seen[turn["turn"]][0] == turn["obs"], f"turn {turn['turn']}: {hint}"
        assert seen[turn["turn"]][1] == turn.get("reward"), f"turn {turn['turn']}: {hint}"


def test_an_id_without_data_still_gets_a_page_saying_why():
    row = entry("turngym/FrozenLake-v0")
    text = gallery_pages.page(row, None, "../../gallery/text")
    assert text.startswith("# turngym/FrozenLake-v0\n")
    assert "No episode has been recorded for this id yet" in text
    assert "record --ids 'turngym/FrozenLake-v0'" in text
    reason = {"id": row.id, "status": "not recorded", "reason": "Xvfb is not installed"}
    assert "Not recorded: Xvfb is not installed." in gallery_pages.page(row, reason, "x")


def test_record_writes_a_reason_when_the_env_cannot_be_built(tmp_path, monkeypatch):
    def broken(row):
        raise RuntimeError("no display here\nsecond line")

    monkeypatch.setattr(docs_gallery, "_make", broken)
    data = docs_gallery.record_one("turngym/Bandit-v0", 0, tmp_path)
    assert data["status"] == "not recorded"
    assert data["reason"] == "RuntimeError: no display here"
    saved = json.loads((tmp_path / "text" / "Bandit.json").read_text())
    assert saved == data


def test_record_keeps_the_first_and_last_turns_and_cuts_long_observations(tmp_path, monkeypatch):
    monkeypatch.setattr(docs_gallery, "HEAD_TURNS", 3)
    monkeypatch.setattr(docs_gallery, "TAIL_TURNS", 2)
    monkeypatch.setattr(docs_gallery, "MEASURE_EPISODES", 2)
    data = docs_gallery.record_one("turngym/Maze-v0", 0, tmp_path)
    assert data["status"] == "recorded" and data["agent"] == "expert"
    steps = data["steps"]
    assert steps > 5 and len(data["actions"]) == steps
    assert [t["turn"] for t in data["turns"]] == [0, 1, 2, steps - 1, steps]
    assert data["turns_left_out"] == steps - 4
    assert data["measured"]["episodes"] == 2
    text = gallery_pages.page(entry("turngym/Maze-v0"), data, "x")
    assert f"*... {steps - 4} turns left out ...*" in text
    assert docs_gallery.cut("x" * 2000).endswith("x\n[... 500 more characters cut]")


def test_record_removes_only_its_own_old_pictures(tmp_path):
    # "choose-date" is a prefix of "choose-date-easy": re-recording one must not delete
    # the other's screenshots.
    folder = tmp_path / "text"
    folder.mkdir()
    for name in ("Bandit-3.png", "Bandit-easy-0.png"):
        (folder / name).write_bytes(b"png")
    docs_gallery.record_one("turngym/Bandit-v0", 0, tmp_path)
    assert sorted(p.name for p in folder.glob("*.png")) == ["Bandit-easy-0.png"]
