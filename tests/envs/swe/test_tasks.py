"""The SWE task format: SWE-bench instances in and out, JSONL loading, log parsing."""

from __future__ import annotations

import json

import pytest

from turngym.envs.swe.grading import parse_pytest_log
from turngym.envs.swe.tasks import SWETask, find_task, load_jsonl, swebench_image

INSTANCE = {
    "instance_id": "acme__widgets-7",
    "repo": "acme/widgets",
    "base_commit": "abc123",
    "problem_statement": "Widgets break.",
    "patch": "diff --git a/w.py b/w.py\n",
    "test_patch": "diff --git a/tests/test_w.py b/tests/test_w.py\n",
    "FAIL_TO_PASS": '["tests/test_w.py::test_new"]',  # as in the HF datasets: a JSON string
    "PASS_TO_PASS": ["tests/test_w.py::test_old", "tests/test_x.py::test_y[a-b]"],
    "version": "1.0",
}


def test_an_instance_round_trips_with_its_extra_fields():
    task = SWETask.from_instance(INSTANCE, source="/src/widgets")
    assert task.fail_to_pass == ("tests/test_w.py::test_new",)
    assert task.test_files == ["tests/test_w.py", "tests/test_x.py"]
    out = task.to_instance()
    assert out["FAIL_TO_PASS"] == ["tests/test_w.py::test_new"] and out["version"] == "1.0"
    assert out["test_cmd"].startswith("python -m pytest")


def test_malformed_instances_name_the_problem():
    with pytest.raises(ValueError, match="lacks base_commit"):
        SWETask.from_instance({k: v for k, v in INSTANCE.items() if k != "base_commit"})
    with pytest.raises(ValueError, match="FAIL_TO_PASS of acme__widgets-7 is not JSON"):
        SWETask.from_instance({**INSTANCE, "FAIL_TO_PASS": "[oops"})
    with pytest.raises(ValueError, match="must be a list of test ids"):
        SWETask.from_instance({**INSTANCE, "PASS_TO_PASS": [1, 2]})


def test_jsonl_maps_repos_to_clones_or_images(tmp_path):
    path = tmp_path / "tasks.jsonl"
    other = {**INSTANCE, "instance_id": "other__thing-1", "repo": "other/thing"}
    path.write_text(json.dumps(INSTANCE) + "\n\n" + json.dumps(other) + "\n")
    tasks = load_jsonl(path, repos={"acme/widgets": tmp_path}, image=swebench_image)
    assert tasks[0].source == tmp_path and tasks[0].image is None
    assert tasks[1].source is None
    assert tasks[1].image == "swebench/sweb.eval.x86_64.other_1776_thing-1:latest"
    with pytest.raises(ValueError, match="no local clone for repo 'other/thing'"):
        load_jsonl(path, repos={"acme/widgets": tmp_path})
    path.write_text("not json\n")
    with pytest.raises(ValueError, match=r"tasks.jsonl:1: not a JSON object"):
        load_jsonl(path, repos={})


def test_find_task_by_id_or_unique_prefix():
    tasks = [
        SWETask.from_instance(INSTANCE),
        SWETask.from_instance({**INSTANCE, "instance_id": "acme__gadgets-1"}),
    ]
    assert find_task(tasks, "acme__widgets").instance_id == "acme__widgets-7"
    with pytest.raises(ValueError, match="2 tasks named 'acme'"):
        find_task(tasks, "acme")
    with pytest.raises(ValueError, match="no task named 'zzz'; the tasks are: acme__widgets-7"):
        find_task(tasks, "zzz")


def test_the_pytest_log_gives_each_test_its_outcome():
    log = """\
============================= test session starts ==============================
tests/test_w.py .F                                                       [100%]
=========================== short test summary info ============================
PASSED tests/test_w.py::test_old
PASSED tests/test_x.py::test_y[a-b]
FAILED tests/test_w.py::test_new - AssertionError: assert 3 == 6
ERROR tests/test_z.py::test_setup - RuntimeError
SKIPPED [1] tests/test_w.py:9: no reason
XFAIL tests/test_w.py::test_known - a known bug
"""
    assert parse_pytest_log(log) == {
        "tests/test_w.py::test_old": "PASSED",
        "tests/test_x.py::test_y[a-b]": "PASSED",
        "tests/test_w.py::test_new": "FAILED",
        "tests/test_z.py::test_setup": "ERROR",
        "tests/test_w.py::test_known": "XFAIL",
    }
