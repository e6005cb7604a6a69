"""RecordEpisodes: one JSON line per finished episode, reloadable with load_transcripts."""

from __future__ import annotations

import importlib.util
import json
import sys

import gymnasium as gym
import numpy as np
import pytest

import turngym
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.record_episodes import RecordEpisodes, json_safe, load_transcripts

ENV_IDS = [
    "turngym/FrozenLake-v0",
    "turngym/Wordle-v0",
    "turngym/Sokoban-v0",
    "turngym/Countdown-v0",
    "turngym/Taxi-v0",
    "turngym/TicTacToe-v0",
    "turngym/SearchQA-v0",
]


# Pictures are PNG files written and read with Pillow (the data extra); a base install
# refuses them in one line (the last test).
NEEDS_PILLOW = pytest.mark.skipif(
    importlib.util.find_spec("PIL") is None,
    reason="pictures need Pillow: pip install 'turngym[data]'",
)


def play(env: gym.Env, seed: int, rng: np.random.Generator, limit: int = 300) -> list[tuple]:
    _, info = env.reset(seed=seed)
    steps = []
    for _ in range(limit):
        legal = info.get("legal_actions")
        action = legal[int(rng.integers(len(legal)))] if legal else "answer[x]"
        out = env.step(action)
        steps.append((action, *out))
        if out[2] or out[3]:
            break
    return steps


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_each_finished_episode_is_one_line_that_reloads(env_id, tmp_path):
    path = tmp_path / "runs" / "episodes.jsonl"
    env = RecordEpisodes(gym.make(env_id), path)
    played = [play(env, seed, np.random.default_rng(seed)) for seed in range(3)]
    env.close()
    transcripts = load_transcripts(path)
    assert len(transcripts) == 3 == len(path.read_text().splitlines())
    for seed, (t, steps) in enumerate(zip(transcripts, played, strict=True)):
        assert t["env_id"] == env_id and t["seed"] == seed and t["length"] == len(steps)
        assert t["observation"] == gym.make(env_id).reset(seed=seed)[0]
        for rec, (action, obs, reward, term, trunc, info) in zip(t["steps"], steps, strict=True):
            assert rec["action"] == action and rec["observation"] == obs
            assert rec["reward"] == reward and rec["terminated"] == term
            assert rec["truncated"] == trunc and rec["info"] == json_safe(info)
        assert t["return"] == pytest.approx(sum(s[2] for s in steps))
        assert t["steps"][-1]["terminated"] or t["steps"][-1]["truncated"]


def test_line_is_flushed_at_episode_end_and_survives_a_crash(tmp_path):
    path = tmp_path / "e.jsonl"
    env = RecordEpisodes(gym.make("turngym/FrozenLake-v0"), path)
    play(env, 0, np.random.default_rng(0))
    # Read by another reader before close(): the finished episode is on disk.
    assert len(load_transcripts(path)) == 1
    env.reset(seed=1)
    env.step("up")  # mid-episode: nothing written yet
    assert len(path.read_text().splitlines()) == 1
    # A torn last line (a writer killed mid-write) is skipped; earlier lines stay.
    with path.open("a") as f:
        f.write('{"env_id": "turngym/Froz')
    assert [t["seed"] for t in load_transcripts(path)] == [0]


def test_unfinished_episodes_are_dropped_and_append_mode_keeps_old_lines(tmp_path):
    path = tmp_path / "e.jsonl"
    env = RecordEpisodes(gym.make("turngym/Bandit-v0"), path)
    env.reset(seed=0)  # abandoned: never stepped
    env.reset(seed=1)
    env.step("nonsense")  # abandoned after an invalid step
    play(env, 2, np.random.default_rng(0))
    env.close()
    env = RecordEpisodes(gym.make("turngym/Bandit-v0"), path)  # mode="a"
    play(env, 3, np.random.default_rng(0))
    env.close()
    assert [t["seed"] for t in load_transcripts(path)] == [2, 3]
    env = RecordEpisodes(gym.make("turngym/Bandit-v0"), path, mode="w", fsync=True)
    play(env, 4, np.random.default_rng(0))
    env.close()
    assert [t["seed"] for t in load_transcripts(path)] == [4]


def test_a_corrupt_middle_line_is_reported(tmp_path):
    path = tmp_path / "e.jsonl"
    path.write_text('{"seed": 0}\nnot json\n{"seed": 1}\n')
    with pytest.raises(ValueError, match=r"e.jsonl:2"):
        load_transcripts(path)


def test_json_safe_values():
    value = {
        "arr": np.zeros((2, 2), dtype=np.uint8),
        "f": np.float64(1.5),
        "b": np.bool_(True),
        3: {"nested": (1, 2)},
        "s": {"b", "a"},
        "obj": object,
        "nan": float("nan"),
    }
    safe = json_safe(value)
    text = json.dumps(safe)
    back = json.loads(text)
    assert back["arr"] == [[0, 0], [0, 0]] and back["f"] == 1.5 and back["b"] is True
    assert back["3"] == {"nested": [1, 2]} and back["s"] == ["a", "b"]
    assert back["obj"] == "<class 'object'>" and np.isnan(back["nan"])


def test_options_and_seedless_resets_are_recorded(tmp_path):
    path = tmp_path / "e.jsonl"
    env = RecordEpisodes(gym.make("turngym/FrozenLake-v0"), path)
    env.reset()
    for move in ["up"] * 100:
        *_, term, trunc, _ = env.step(move)
        if term or trunc:
            break
    env.close()
    (t,) = load_transcripts(path)
    assert t["seed"] is None and t["options"] is None and t["steps"][-1]["truncated"]


def test_bad_mode_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="mode"):
        RecordEpisodes(gym.make("turngym/Bandit-v0"), tmp_path / "e.jsonl", mode="r")


@pytest.mark.parametrize("env_id", ["turngym/FrozenLake-v0", "turngym/Countdown-v0"])
def test_conformance_with_the_wrapper(env_id, tmp_path):
    def make(**kwargs):
        return RecordEpisodes(gym.make(env_id, **kwargs), tmp_path / "c.jsonl")

    check_text_env(make, n_fuzz=1000, reset_episodes=10, expert=lambda e: make_expert(e, env_id))
    assert load_transcripts(tmp_path / "c.jsonl")


def test_odd_unicode_actions_round_trip_exactly(tmp_path):
    path = tmp_path / "e.jsonl"
    env = RecordEpisodes(gym.make("turngym/Bandit-v0", max_invalid_actions=1), path)
    env.reset(seed=0)
    action = "\udfd8 \x00 😆 二"  # a lone surrogate, NUL, emoji, CJK
    *_, truncated, _ = env.step(action)
    env.close()
    assert truncated and load_transcripts(path)[0]["steps"][0]["action"] == action


class Screens(gym.Env):
    """A web-like env: each observation has text and a 64x64 RGB screenshot (info: a grey one).

    The screen changes every other step, so some pictures repeat.
    """

    observation_space = gym.spaces.Dict(
        {
            "text": turngym.spaces.Unicode(64),
            "screenshot": gym.spaces.Box(0, 255, (64, 64, 3), np.uint8),
        }
    )
    action_space = turngym.spaces.Unicode(16)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {"thumb": self._screen()[:, :, 0]}

    def _screen(self) -> np.ndarray:
        rng = np.random.default_rng(self.t // 2)
        return rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)

    def _obs(self) -> dict:
        return {"text": f"page {self.t}", "screenshot": self._screen()}

    def step(self, action):
        self.t += 1
        info = {"thumb": self._screen()[:, :, 0], "mask": np.ones((4, 4), np.uint8)}
        return self._obs(), 0.0, self.t == 4, False, info


def record_screens(path, episodes: int = 1) -> list[list]:
    """Play ``episodes`` of Screens under RecordEpisodes; each one's observations."""
    env = RecordEpisodes(Screens(), path)
    seen = []
    for _ in range(episodes):
        obs, _ = env.reset(seed=0)
        shown = [obs]
        for _ in range(4):
            shown.append(env.step("next")[0])
        seen.append(shown)
    env.close()
    return seen


@NEEDS_PILLOW
def test_screenshots_are_png_files_beside_the_jsonl_and_load_back_as_arrays(tmp_path):
    path = tmp_path / "episodes.jsonl"
    (shown,) = record_screens(path)
    line = path.read_text()
    # 5 screenshots of 12,288 bytes each would be ~150 KB of JSON integers
    assert len(line) < 5000
    pngs = sorted((tmp_path / "images").iterdir())
    assert len(pngs) == 6  # 3 distinct RGB screens and their 3 grey thumbnails, once each
    raw = json.loads(line)
    first = raw["observation"]["screenshot"]
    assert first["__turngym__"] == "image" and first["shape"] == [64, 64, 3]
    assert first["path"].startswith("images/") and first["path"].endswith(".png")
    assert raw["steps"][0]["info"]["mask"] == [[1] * 4] * 4  # small arrays stay numbers
    (t,) = load_transcripts(path)
    loaded = [t["observation"]] + [s["observation"] for s in t["steps"]]
    for got, want in zip(loaded, shown, strict=True):
        assert got["text"] == want["text"]
        assert got["screenshot"].dtype == np.uint8
        np.testing.assert_array_equal(got["screenshot"], want["screenshot"])
    np.testing.assert_array_equal(t["info"]["thumb"], shown[0]["screenshot"][:, :, 0])
    (refs,) = load_transcripts(path, images=False)
    assert refs == raw


@NEEDS_PILLOW
def test_a_second_recording_in_the_folder_reuses_the_pictures(tmp_path):
    record_screens(tmp_path / "a.jsonl")
    before = {p.name: p.stat().st_ino for p in (tmp_path / "images").iterdir()}
    record_screens(tmp_path / "b.jsonl", episodes=2)
    after = {p.name: p.stat().st_ino for p in (tmp_path / "images").iterdir()}
    assert after == before  # same pictures, same files, not rewritten
    assert len(load_transcripts(tmp_path / "b.jsonl")) == 2


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` x ``height`` grey pixels (a decompression bomb's header)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


@NEEDS_PILLOW
@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("../secret.png", "leads outside the folder"),
        ("/etc/passwd", "leads outside the folder"),
        ("images/link.png", "symlink"),
        ("images/bomb.png", "over max_image_pixels"),
        ("images/missing.png", "cannot open"),
        ("images/text.png", "not a readable PNG"),
    ],
)
def test_hostile_picture_references_are_one_line_errors(tmp_path, where, message):
    folder = tmp_path / "data"
    path = folder / "episodes.jsonl"
    record_screens(path)
    outside = tmp_path / "secret.png"
    outside.write_bytes((folder / "images" / next((folder / "images").iterdir()).name).read_bytes())
    (folder / "images" / "link.png").symlink_to(outside)
    (folder / "images" / "bomb.png").write_bytes(_png_header(100_000, 100_000))
    (folder / "images" / "text.png").write_text("not a picture")
    raw = json.loads(path.read_text())
    raw["observation"]["screenshot"]["path"] = where
    raw["observation"]["screenshot"]["shape"] = [64, 64, 3]
    path.write_text(json.dumps(raw) + "\n")
    with pytest.raises(ValueError, match=rf"episodes\.jsonl:1: .*{message}") as caught:
        load_transcripts(path)
    assert "\n" not in str(caught.value)
    assert load_transcripts(path, images=False)[0]["observation"]["screenshot"]["path"] == where


@NEEDS_PILLOW
def test_a_picture_reference_must_match_its_png(tmp_path):
    path = tmp_path / "episodes.jsonl"
    record_screens(path)
    raw = json.loads(path.read_text())
    raw["observation"]["screenshot"]["shape"] = [32, 128, 3]
    path.write_text(json.dumps(raw) + "\n")
    with pytest.raises(ValueError, match=r"episodes\.jsonl:1: picture .* not the shape"):
        load_transcripts(path)
    raw["observation"]["screenshot"] = {"__turngym__": "image", "path": 3, "shape": [1]}
    path.write_text(json.dumps(raw) + "\n")
    with pytest.raises(ValueError, match=r"episodes\.jsonl:1: a picture is"):
        load_transcripts(path)
    record_screens(tmp_path / "new.jsonl")
    with pytest.raises(ValueError, match=r"new\.jsonl:1: .*64x64 picture is over max_image_pix"):
        load_transcripts(tmp_path / "new.jsonl", max_image_pixels=100)


def test_without_pillow_pictures_are_a_missing_extra_one_liner(tmp_path, monkeypatch):
    from turngym.extras import MissingExtra

    monkeypatch.setitem(sys.modules, "PIL", None)  # what an install without Pillow sees
    env = RecordEpisodes(Screens(), tmp_path / "episodes.jsonl")
    with pytest.raises(MissingExtra, match=r"turngym\[data\]"):
        env.reset(seed=0)
    env.close()
