"""``TRAINERS``, ``RunConfig`` and the ``Trainer`` protocol: one table, fields declared once."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import textwrap

import pytest

from turngym.cli import build_parser
from turngym.sdk.trainers import TRAINERS, trainer_entry
from turngym.sdk.trainers.config import RunConfig, config_from_args, field_help
from turngym.sdk.trainers.loop import Trainer
from turngym.sdk.trainers.run_files import write_config

ROWS = list(TRAINERS.values())


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_each_row_names_a_run_config_and_a_trainer_of_the_protocol(row):
    config_cls = row.config_class()
    assert issubclass(config_cls, RunConfig) and config_cls.trainer == row.name
    trainer_cls = row.trainer_class()
    methods = ("load", "evaluate", "train_step", "save", "save_final", "close")
    for name in ("label", "curve_panels", "line_keys", *methods):
        assert name in Trainer.__annotations__ or hasattr(Trainer, name), name
        assert hasattr(trainer_cls, name), f"{trainer_cls.__name__} lacks {name}"
    assert all(isinstance(panel, (tuple, list)) for panel in trainer_cls.curve_panels)
    helps = field_help(config_cls)
    assert [f.name for f in dataclasses.fields(config_cls) if not helps.get(f.name)] == []


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_a_shared_field_is_redeclared_only_to_change_its_default_or_help(row):
    """What every trainer has is declared in ``RunConfig`` once, not again per trainer."""
    config_cls = row.config_class()
    base = {f.name: f for f in dataclasses.fields(RunConfig)}
    source = textwrap.dedent(inspect.getsource(config_cls))
    body = ast.parse(source).body[0]
    assert isinstance(body, ast.ClassDef)
    redeclared = [
        node.target.id
        for node in body.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    ]
    own_help = field_help(config_cls)
    for name in set(redeclared) & set(base):
        field = next(f for f in dataclasses.fields(config_cls) if f.name == name)
        same_default = field.default == base[name].default
        same_help = own_help[name] == field_help(RunConfig)[name]
        assert not (same_default and same_help), f"{row.name} redeclares {name} as it is"


def test_a_redeclared_field_without_help_keeps_its_bases():
    @dataclasses.dataclass
    class Mine(RunConfig):
        trainer = "mine"
        output_dir: str = "runs/mine"
        depth: int = 2
        """how deep"""

    helps = field_help(Mine)
    assert helps["output_dir"] == field_help(RunConfig)["output_dir"]
    assert helps["depth"] == "how deep"
    with pytest.raises(ValueError, match="eval_episodes must be an int >= 1, got 0"):
        Mine(eval_episodes=0)


def test_the_cli_lists_every_trainer_of_the_table_with_every_field_as_a_flag():
    parser = build_parser()
    train = next(
        a
        for a in parser._subparsers._group_actions[0].choices["train"]._actions  # type: ignore[union-attr]
        if isinstance(a, argparse._SubParsersAction)
    )
    assert list(train.choices) == list(TRAINERS)
    for row in ROWS:
        flags = {opt for a in train.choices[row.name]._actions for opt in a.option_strings}
        for field in dataclasses.fields(row.config_class()):
            assert f"--{field.name.replace('_', '-')}" in flags


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_a_runs_config_json_names_its_trainer_and_is_a_config_file_again(row, tmp_path):
    config_cls = row.config_class()
    config = config_cls(seed=7, eval_episodes=3)
    path = write_config(tmp_path, config)
    data = json.loads(path.read_text())
    assert next(iter(data)) == "trainer" and data["trainer"] == row.name
    again = config_from_args(config_cls, argparse.Namespace(config=str(path)))
    assert again == config


def test_another_trainers_config_json_is_refused_in_one_line(tmp_path):
    grpo, sft = trainer_entry("grpo"), trainer_entry("sft")
    path = write_config(tmp_path, grpo.config_class()())
    with pytest.raises(
        ValueError, match=r"config of trainer 'grpo': use it with `turngym train grpo`"
    ):
        config_from_args(sft.config_class(), argparse.Namespace(config=str(path)))


def test_an_unknown_trainer_lists_the_known_ones():
    with pytest.raises(KeyError, match="unknown trainer 'ppo'; known: grpo, sac-glam"):
        trainer_entry("ppo")
