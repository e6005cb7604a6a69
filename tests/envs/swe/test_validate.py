"""The SWE task validator: FAIL_TO_PASS, PASS_TO_PASS as SWE-bench computes them (issue 25, item 2).

PASS_TO_PASS must be every test that passes both before and after the reference patch:
with a partial list, a fix that breaks untested behaviour still resolves the task.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess

import pytest

from tests import system_deps
from tests.envs.swe.toy_task import BASE, _diff, toy_task, write
from turngym.envs.swe.env import SWEEnv
from turngym.envs.swe.tasks import bundled_tasks, find_task, load_jsonl
from turngym.envs.swe.validate import main, validate_task, validate_tasks, write_task_toml

pytestmark = [pytest.mark.sandbox, system_deps.bubblewrap()]

ROMAN = "turngym__romancodec-1"
RIGHT_BOUND = "+    if not 1 <= number <= MAX_VALUE:"
# The wrong fix: 3999 is accepted, and so are 0 and negative numbers.
WRONG_BOUND = "+    if number > MAX_VALUE:"


def apply_and_submit(env, task_id: str, patch: str):
    """Reset to ``task_id``, apply ``patch`` in the workspace with git, submit."""
    env.reset(options={"task": task_id})
    env.step(f"create({json.dumps('.fix.patch')}, {json.dumps(patch)})")
    obs, *_ = env.step('bash("git apply .fix.patch && rm .fix.patch && git status --short")')
    assert ".fix.patch" not in obs and "error" not in obs, obs
    return env.step("submit()")


def test_a_fix_that_lets_zero_through_does_not_resolve_romancodec():
    task = find_task(bundled_tasks(), ROMAN)
    wrong = task.patch.replace(RIGHT_BOUND, WRONG_BOUND)
    assert wrong != task.patch
    env = SWEEnv(task=ROMAN, sandbox="bwrap")
    try:
        obs, reward, terminated, _truncated, info = apply_and_submit(env, ROMAN, wrong)
        assert terminated and reward == 0.0 and not info["resolved"], obs
        # the F2P test passes: only the complete PASS_TO_PASS catches it
        assert info["tests"]["tests/test_codec.py::test_largest_value"] == "PASSED"
        assert info["tests"]["tests/test_codec.py::test_to_roman_rejects[0]"] == "FAILED"
        _obs, reward, *_ = apply_and_submit(env, ROMAN, task.patch)
        assert reward == 1.0
    finally:
        env.close()


def test_romancodec_lists_every_test_that_passes_before_and_after_the_fix():
    result = validate_task(find_task(bundled_tasks(), ROMAN), sandbox="bwrap")
    assert result.ok, [*result.problems, *result.differences()]
    assert result.fail_to_pass == ("tests/test_codec.py::test_largest_value",)
    assert len(result.pass_to_pass) == 25 and not result.broken
    assert "tests/test_codec.py::test_to_roman_rejects[0]" in result.pass_to_pass


@pytest.mark.slow
def test_every_bundled_task_passes_the_validator():
    invalid = {
        r.task.instance_id: [*r.problems, *r.differences()]
        for r in validate_tasks(bundled_tasks(), sandbox="bwrap")
        if not r.ok
    }
    assert not invalid, invalid


def test_the_validator_reports_what_a_list_misses_and_which_do_not_belong(tmp_path):
    task = toy_task(tmp_path)
    listed = ("tests/test_ops.py::test_double", "tests/test_ops.py::test_gone")
    short = dataclasses.replace(task, pass_to_pass=listed)
    result = validate_task(short, sandbox="bwrap")
    assert not result.ok and not result.problems
    assert result.pass_to_pass == (
        "tests/test_ops.py::test_double",
        "tests/test_ops.py::test_total_of_nothing",
    )
    assert result.differences() == [
        "PASS_TO_PASS misses 1 of 2: tests/test_ops.py::test_total_of_nothing",
        "PASS_TO_PASS lists 1 that do not belong: tests/test_ops.py::test_gone",
    ]


def test_a_reference_patch_that_does_not_apply_is_a_problem(tmp_path):
    task = toy_task(tmp_path)
    bad = dataclasses.replace(task, patch=task.patch.replace("len(values) - 1", "nope"))
    result = validate_task(bad, sandbox="bwrap")
    assert not result.ok and result.problems == (
        "with the reference patch: the patch does not apply",
        "the reference patch does not apply",
    )


def _clone_of_the_toy_repo(tmp_path):
    """The toy task's repo as a git clone with one commit; (task, clone, commit)."""
    task = toy_task(tmp_path / "toy")
    clone = tmp_path / "clone"
    shutil.copytree(task.source, clone)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run([*git, *args], cwd=clone, check=True, capture_output=True)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True, text=True
    ).stdout.strip()
    return task, clone, commit


def test_a_jsonl_user_validates_and_writes_back_their_own_tasks(tmp_path, capsys):
    task, clone, commit = _clone_of_the_toy_repo(tmp_path)
    instance = {**task.to_instance(), "base_commit": commit, "version": "1.0"}
    # as in the Hugging Face datasets, the lists are JSON strings; one test is left out
    instance["PASS_TO_PASS"] = json.dumps(["tests/test_ops.py::test_double"])
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(instance) + "\n")
    argv = ["--jsonl", str(path), "--repo", f"toy/mathy={clone}", "--sandbox", "bwrap"]

    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "DIFF toy__mathy-1" in out and "misses 1 of 2: tests/test_ops.py::test_total_of" in out

    assert main([*argv, "--write"]) == 0
    out = capsys.readouterr().out
    assert "1 tasks: 0 valid, 1 with other lists (written), 0 with problems" in out
    written = json.loads(path.read_text())
    assert json.loads(written["PASS_TO_PASS"]) == list(task.pass_to_pass)
    assert written["version"] == "1.0" and written["patch"] == task.patch
    assert load_jsonl(path, repos={"toy/mathy": clone})[0].pass_to_pass == task.pass_to_pass

    assert main([*argv, "--json"]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    assert line["ok"] and line["instance_id"] == "toy__mathy-1"


def test_write_task_toml_replaces_only_the_two_lists(tmp_path):
    source = find_task(bundled_tasks(), "turngym__jpath-1").source
    assert source is not None
    toml = tmp_path / "task.toml"
    shutil.copy(source.parent / "task.toml", toml)
    before = toml.read_text()
    write_task_toml(toml, ["tests/a.py::test_x"], ['tests/a.py::test_y["q"]', "tests/b.py::t"])
    after = toml.read_text()
    assert 'PASS_TO_PASS = [\n    "tests/a.py::test_y[\\"q\\"]",\n    "tests/b.py::t",\n]' in after
    head = before.split("FAIL_TO_PASS")[0]
    assert after.startswith(head) and after.rstrip().endswith(before.rstrip().splitlines()[-1])
    toml.write_text("instance_id = 'x'\n")
    with pytest.raises(ValueError, match="no 'FAIL_TO_PASS = \\[' array"):
        write_task_toml(toml, [], [])


def test_bad_command_lines_are_clear_errors(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--repo", "a/b=/x"])
    assert exited.value.code == 2
    assert "--repo and --image go with --jsonl" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--task", "no-such-task"])
    assert "no task named 'no-such-task'" in capsys.readouterr().err


def test_a_task_whose_hidden_test_compares_no_constant_is_rejected(tmp_path):
    # total([1, 2, 3]) == total([3, 2, 1]) fails with the bug (3 != 5) and passes with
    # the fix, but an object equal to everything passes it too, and no constant of it
    # can be kept outside the sandbox.
    task = toy_task(tmp_path / "toy")
    gamed = BASE["tests/test_ops.py"] + (
        "\n\ndef test_total_counts_every_value():\n"
        "    assert total([1, 2, 3]) == total([3, 2, 1])\n"
    )
    test_patch = _diff(write(tmp_path / "scratch", BASE), {"tests/test_ops.py": gamed})
    result = validate_task(dataclasses.replace(task, test_patch=test_patch), sandbox="bwrap")
    assert result.fail_to_pass == ("tests/test_ops.py::test_total_counts_every_value",)
    assert not result.ok
    [unjudged, stand_in] = result.problems
    assert "compare no value with a constant" in unjudged
    assert "pass against a stand-in" in stand_in
