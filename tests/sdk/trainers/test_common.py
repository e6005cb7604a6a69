"""Shared trainer plumbing: atomic checkpoints, metrics log, curves, config flags, and
the deprecated ``common`` module that used to hold them."""

from __future__ import annotations

import argparse
import dataclasses
import json
import warnings

import pytest

from turngym.sdk.trainers.checkpoints import checkpoint_dirs, latest_checkpoint, save_checkpoint
from turngym.sdk.trainers.config import add_config_flags, config_from_args, field_help
from turngym.sdk.trainers.metrics import MetricsLog, plot_curves


def test_a_failed_write_leaves_the_previous_checkpoint_latest(tmp_path):
    save_checkpoint(tmp_path, 1, lambda d: (d / "w").write_text("one"))

    def crash(d):
        (d / "w").write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        save_checkpoint(tmp_path, 2, crash)
    latest = latest_checkpoint(tmp_path)
    assert latest is not None and (latest / "w").read_text() == "one"
    assert [p.name for p in checkpoint_dirs(tmp_path)] == ["step-0000001"]


def test_old_checkpoints_are_pruned(tmp_path):
    for step in range(1, 5):
        save_checkpoint(tmp_path, step, lambda d: None, keep=2)
    assert [p.name for p in checkpoint_dirs(tmp_path)] == ["step-0000003", "step-0000004"]
    assert latest_checkpoint(tmp_path) == tmp_path / "checkpoints" / "step-0000004"


def test_metrics_log_drops_rows_after_the_resumed_step(tmp_path):
    log = MetricsLog(tmp_path, tensorboard=False)
    for step in range(1, 6):
        log.log({"step": step, "loss": float(step)})
    resumed = MetricsLog(tmp_path, resume_step=3, tensorboard=False)
    assert [r["step"] for r in resumed.rows()] == [1, 2, 3]
    assert [r["step"] for r in MetricsLog(tmp_path, tensorboard=False).rows()] == []


def test_metrics_reach_tensorboard(tmp_path):
    pytest.importorskip("tensorboard")
    log = MetricsLog(tmp_path, tensorboard=True)
    log.log({"step": 1, "loss": 0.5, "note": "text is skipped"})
    log.close()
    assert any(p.name.startswith("events.out") for p in (tmp_path / "tensorboard").iterdir())


def test_plot_curves_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    rows = [{"step": s, "reward": s / 10, "loss": 1 - s / 10} for s in range(10)]
    path = plot_curves(rows, tmp_path / "curve.png", [["reward"], ["loss"]], title="t")
    assert path is not None and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_panel_without_data_yet_draws_without_a_warning(tmp_path):
    """ArCHer's actor panel is empty before the actor's first update: no matplotlib noise."""
    pytest.importorskip("matplotlib")
    rows = [{"step": s, "q_loss": 1 / (s + 1)} for s in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = plot_curves(rows, tmp_path / "curve.png", [["q_loss"], ["actor_loss"]])
    assert path is not None and path.exists()


@dataclasses.dataclass
class Toy:
    name: str = "a"
    steps: int = 3
    rate: float | None = None
    flag: bool = False
    items: list[str] = dataclasses.field(default_factory=list)
    extra: dict = dataclasses.field(default_factory=dict)


def parse(argv):
    parser = argparse.ArgumentParser()
    add_config_flags(parser, Toy)
    return parser.parse_args(argv)


def test_every_field_is_a_typed_flag_and_files_give_defaults(tmp_path):
    assert config_from_args(Toy, parse([])) == Toy()
    args = parse(
        ["--steps", "5", "--rate", "0.5", "--flag", "--items", "x,y", "--extra", '{"k": 1}']
    )
    assert config_from_args(Toy, args) == Toy(
        steps=5, rate=0.5, flag=True, items=["x", "y"], extra={"k": 1}
    )
    assert config_from_args(Toy, parse(["--rate", "none", "--flag", "false"])) == Toy()
    toml = tmp_path / "c.toml"
    toml.write_text('name = "b"\nsteps = 7\n')
    assert config_from_args(Toy, parse(["--config", str(toml), "--steps", "9"])) == Toy(
        name="b", steps=9
    )
    bad = tmp_path / "c.json"
    bad.write_text(json.dumps({"stepz": 1}))
    with pytest.raises(ValueError, match="unknown fields"):
        config_from_args(Toy, parse(["--config", str(bad)]))
    with pytest.raises(SystemExit):
        parse(["--steps", "many"])


def test_a_list_flag_splits_only_at_top_level_commas():
    """``--wrappers "horizon_curriculum:schedule=[(0, 2), (9, 4)],chat_history"`` is two
    wrapper specs: commas inside brackets belong to an option's value."""
    from turngym.sdk.trainers.envs import make_text_env

    spec = "horizon_curriculum:schedule=[(0, 2), (9, 4)]"
    args = parse(["--items", f"{spec}, chat_history"])
    items = config_from_args(Toy, args).items
    assert items == [spec, "chat_history"]
    env = make_text_env("turngym/FrozenLake-v0", {}, items[:1])
    assert env.reset(seed=0)[1]["horizon"] == 2
    env.close()


def test_config_json_is_kept_when_identical_and_replaced_when_not(tmp_path):
    from turngym.sdk.trainers.run_files import write_config
    from turngym.sdk.trainers.sft import SFTConfig

    path = write_config(tmp_path / "run", SFTConfig(steps=3))
    first = path.stat().st_ino
    assert write_config(tmp_path / "run", SFTConfig(steps=3)).stat().st_ino == first
    write_config(tmp_path / "run", SFTConfig(steps=5))
    assert json.loads(path.read_text())["steps"] == 5
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["config.json"]  # no temp left


def test_only_process_zero_records_and_zero_records_nothing(tmp_path):
    from types import SimpleNamespace

    from turngym.sdk.episode_files import load_episodes
    from turngym.sdk.records import Episode
    from turngym.sdk.trainers.run_files import record_eval_episodes

    def trainer(count, main=True):
        config = SimpleNamespace(eval_record_episodes=count)
        return SimpleNamespace(config=config, step=7, run_dir=tmp_path, is_main=main)

    episodes = [Episode("turngym/Bandit-v0", seed=s, meta={"seats": 1}) for s in range(5)]
    assert record_eval_episodes(trainer(2, main=False), [(episodes, {"mode": "greedy"})]) is None
    assert record_eval_episodes(trainer(0), [(episodes, {"mode": "greedy"})]) is None
    assert not (tmp_path / "episodes").exists()
    path = record_eval_episodes(trainer(2), [(episodes, {"mode": "greedy"})])
    assert path == tmp_path / "episodes" / "eval-step-0000007.jsonl"
    loaded = load_episodes(path)
    assert [(ep.seed, ep.meta) for ep in loaded] == [
        (s, {"seats": 1, "mode": "greedy", "step": 7}) for s in (0, 1)
    ]
    assert episodes[0].meta == {"seats": 1}  # the evaluation's own records stay as they were


def test_a_resumed_run_drops_the_recorded_evaluations_after_its_checkpoint(tmp_path):
    from turngym.sdk.trainers.run_files import drop_eval_episodes_after

    folder = tmp_path / "episodes"
    folder.mkdir()
    for step in (0, 10, 20, 30):
        (folder / f"eval-step-{step:07d}.jsonl").write_text("")
    (folder / "notes.jsonl").write_text("")
    drop_eval_episodes_after(tmp_path, 10)
    assert sorted(p.name for p in folder.iterdir()) == [
        "eval-step-0000000.jsonl",
        "eval-step-0000010.jsonl",
        "notes.jsonl",
    ]
    drop_eval_episodes_after(tmp_path / "nothing-here", 0)  # a run without episodes/


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("turngym.sdk.trainers.grpo_config", "GRPOConfig"),
        ("turngym.sdk.trainers.sac_glam", "SACGLAMConfig"),
        ("turngym.sdk.trainers.archer", "ArCHerConfig"),
        ("turngym.sdk.trainers.sft", "SFTConfig"),
    ],
)
def test_eval_record_episodes_is_validated_and_documented(module, name):
    import importlib

    config_cls = getattr(importlib.import_module(module), name)
    assert config_cls().eval_record_episodes == 4
    assert "eval_record_episodes" in field_help(config_cls)
    with pytest.raises(ValueError, match="eval_record_episodes must be an int >= 0"):
        config_cls(eval_record_episodes=-1)


def test_the_old_common_module_still_gives_every_name_with_a_warning():
    import turngym.sdk.trainers.common as common
    from turngym.sdk.trainers import checkpoints
    from turngym.wrappers import specs

    with pytest.warns(DeprecationWarning, match=r"moved to turngym\.sdk\.trainers\.checkpoints"):
        assert common.save_checkpoint is checkpoints.save_checkpoint
    with pytest.warns(DeprecationWarning, match=r"turngym\.wrappers\.specs\.WRAPPERS"):
        assert common.WRAPPERS is specs.WRAPPERS
    with pytest.warns(DeprecationWarning):
        assert "eval_seed" in common.COMMON_FIELD_DOCS
    for name in sorted(set(common.__all__) - {"run_training"}):  # a function: warns when run
        with pytest.warns(DeprecationWarning):
            assert getattr(common, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        common.nothing  # noqa: B018
