"""The SWE env end to end on a toy task: tools, sandbox, submission and grading."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from tests.envs.swe.toy_task import toy_task
from turngym.agents.experts.swe import SWEOracle, patch_actions, split_patch
from turngym.envs.swe.env import SWEEnv
from turngym.envs.swe.tools import TOOL_SCHEMAS, TOOLS
from turngym.envs.swe.workspace import Workspace, prepare

pytestmark = [pytest.mark.sandbox, system_deps.bubblewrap()]


@pytest.fixture
def task(tmp_path):
    return toy_task(tmp_path)


@pytest.fixture
def env(task):
    made = SWEEnv(tasks=[task], sandbox="bwrap")
    yield made
    made.close()


def play(env, *actions):
    """Step each action; the last step's result."""
    result = None
    for action in actions:
        result = env.step(action)
    return result


def test_the_base_is_built_once_with_a_fixed_commit_and_no_other_history(task):
    first = prepare(task)
    again = prepare(task)
    assert first == again
    log = subprocess.run(
        ["git", "log", "--all", "--oneline"], cwd=first.path, capture_output=True, text=True
    ).stdout.splitlines()
    assert len(log) == 1  # nothing to dig the fix out of
    assert subprocess.run(["git", "remote"], cwd=first.path, capture_output=True).stdout == b""


def test_each_reset_gives_a_fresh_copy_fast(task, tmp_path):
    base = prepare(task)
    workspace = Workspace(tmp_path / "ws")
    workspace.reset(base)
    (workspace.root / "mathy" / "ops.py").write_text("broken")
    (workspace.root / "stray.txt").write_text("left over")
    workspace.reset(base)
    assert "def total" in (workspace.root / "mathy" / "ops.py").read_text()
    assert not (workspace.root / "stray.txt").exists()
    # Objects are borrowed, not copied.
    assert (workspace.root / ".git" / "objects" / "info" / "alternates").is_file()


def test_the_first_observation_states_the_issue_and_the_tools(env):
    obs, info = env.reset(seed=0)
    assert "total([1, 2, 3]) returns 3 instead of 6." in obs
    assert "/testbed" in obs and "str_replace(path, old, new)" in obs
    assert info["instruction"] == obs and info["task"] == "toy__mathy-1"


def test_view_shows_numbered_lines_and_lists_folders(env):
    env.reset(seed=0)
    obs, *_, info = env.step('view("mathy/ops.py", 3, 4)')
    assert obs.splitlines() == [
        "     3\t    result = 0",
        "     4\t    for i in range(len(values) - 1):",
        "(6 more lines; view('mathy/ops.py', 5) shows them)",
    ]
    assert not info["tool_error"]
    obs, *_ = env.step('view("/testbed")')
    assert obs.splitlines()[:3] == ["mathy/", "  mathy/__init__.py", "  mathy/ops.py"]
    assert "  tests/test_ops.py" in obs.splitlines() and ".git" not in obs


def test_edit_tools_change_files_and_undo_restores_them(env):
    env.reset(seed=0)
    obs, *_ = env.step('str_replace("mathy/ops.py", "len(values) - 1", "len(values)")')
    assert "Edited mathy/ops.py" in obs and "range(len(values)):" in obs
    obs, *_ = env.step('insert("mathy/ops.py", 0, "# fixed")')
    assert "     1\t# fixed" in obs
    obs, *_ = env.step('create("notes/todo.txt", "write tests\\n")')
    assert obs.startswith("Created notes/todo.txt")
    obs, *_ = env.step('bash("cat notes/todo.txt && head -1 mathy/ops.py")')
    assert "write tests" in obs and "# fixed" in obs and "(exit code 0)" in obs
    env.step('undo_edit("mathy/ops.py")')
    obs, *_ = env.step('bash("head -1 mathy/ops.py; ls notes")')
    assert "# fixed" not in obs
    env.step('undo_edit("notes/todo.txt")')
    obs, *_ = env.step('bash("ls notes")')
    assert "todo.txt" not in obs


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ('str_replace("mathy/ops.py", "no such text", "x")', "does not occur"),
        (
            'str_replace("mathy/ops.py", "values", "v")',
            "occurs 5 times in mathy/ops.py (lines 1, 2, 4, 5)",
        ),
        ('view("nope.py")', "does not exist"),
        ('view("../../etc/passwd")', "leads outside the repository"),
        ('view("/etc/passwd")', "outside the repository"),
        ('create("/root/x", "y")', "outside the repository"),
        ('insert("mathy/ops.py", 99, "x")', "has 10 lines"),
        ('undo_edit("mathy/ops.py")', "no edit of mathy/ops.py"),
        ('bash("   ")', "the command is empty"),
        ('view("mathy/ops.py", 50)', "start 50 is past the end"),
    ],
)
def test_tool_errors_are_observations_not_invalid_actions(env, action, message):
    env.reset(seed=0)
    obs, _reward, terminated, _truncated, info = env.step(action)
    assert obs.startswith("Error:") and message in obs, obs
    assert info["tool_error"] and not info["invalid_action"] and not terminated


def test_a_symlink_out_of_the_repository_is_refused_by_the_file_tools(env, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    env.reset(seed=0)
    os.symlink(secret, env._work.root / "link.txt")
    obs, *_, info = env.step('view("link.txt")')
    assert "links are never followed" in obs and "host secret" not in obs
    assert info["invalid_action"]
    obs, *_ = env.step('create("link.txt", "overwrite")')
    assert secret.read_text() == "host secret"


def test_search_find_and_run_tests_run_in_the_sandbox(env):
    env.reset(seed=0)
    obs, *_ = env.step('search("def (total|double)")')
    assert "mathy/ops.py:1:def total(values):" in obs and "mathy/ops.py:9:def double(x):" in obs
    obs, *_ = env.step('search("zzz_nothing")')
    assert "No match" in obs
    obs, *_ = env.step('find_file("test_*.py")')
    assert obs.strip() == "tests/test_ops.py"
    obs, *_ = env.step('run_tests("tests/test_ops.py::test_double")')
    assert "1 passed" in obs and "(exit code 0)" in obs


def test_malformed_actions_are_invalid_with_a_clear_reason(env):
    env.reset(seed=0)
    for action, reason in [
        ("rm -rf /", "not a single action call"),
        ('bash(__import__("os").system("id"))', "command must be a literal string"),
        ("exec('1')", "unknown action 'exec'"),
        ('view("a", "b")', "start must be a literal line number"),
    ]:
        _obs, _reward, _terminated, _truncated, info = env.step(action)
        assert info["invalid_action"] and reason in info["invalid_reason"], (action, info)


def test_json_tool_calls_work_like_call_syntax(env):
    env.reset(seed=0)
    obs, *_, info = env.step(json.dumps({"name": "bash", "arguments": {"command": "echo hi"}}))
    assert obs.startswith("hi") and not info["invalid_action"]


def test_the_oracle_resolves_the_task_through_the_tools(env):
    obs, info = env.reset(seed=0)
    oracle = SWEOracle(env)
    done, reward = False, 0.0
    while not done:
        obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
        done = terminated or truncated
    assert terminated and reward == 1.0 and info["success"] and info["resolved"]
    assert info["reward_parts"] == {"f2p": 1.0, "p2p": 1.0, "applies": 1.0, "submitted": 1.0}
    assert "mathy/ops.py" in info["patch"] and "tests/" not in info["patch"]
    assert info["grade_seconds"] > 0


def test_an_empty_submission_gets_nothing(env):
    env.reset(seed=0)
    obs, reward, terminated, _truncated, info = env.step("submit()")
    assert terminated and reward == 0.0 and not info["success"]
    assert info["reward_parts"] == {"f2p": 0.0, "p2p": 1.0, "applies": 1.0, "submitted": 1.0}
    assert "not resolved" in obs and "failing tests fixed 0/1" in obs


def test_breaking_a_passing_test_is_not_resolved(env):
    env.reset(seed=0)
    play(
        env,
        'str_replace("mathy/ops.py", "len(values) - 1", "len(values)")',
        'str_replace("mathy/ops.py", "2 * x", "3 * x")',
    )
    _obs, reward, _terminated, _truncated, info = env.step("submit()")
    assert reward == 0.0 and info["reward_parts"]["f2p"] == 1.0
    assert (
        info["reward_parts"]["p2p"] == 0.5
        and info["tests"]["tests/test_ops.py::test_double"] == "FAILED"
    )


def test_files_the_tests_leave_behind_are_not_submitted(env):
    env.reset(seed=0)
    play(
        env,
        'bash("python -c \\"import mathy.ops\\"; mkdir .pytest_cache; touch .pytest_cache/x")',
        'run_tests("")',
    )
    patch, whole = env.submission()
    assert whole and patch == ""


def test_running_out_of_turns_truncates_ungraded(task):
    env = SWEEnv(tasks=[task], sandbox="bwrap", max_turns=2)
    try:
        env.reset(seed=0)
        env.step('bash("true")')
        obs, reward, terminated, truncated, info = env.step('bash("true")')
        assert truncated and not terminated and reward == 0.0
        assert info["reward_parts"]["submitted"] == 0.0 and "Out of turns" in obs
    finally:
        env.close()


def test_bash_only_envs_offer_only_bash_and_submit(task):
    env = SWEEnv(tasks=[task], sandbox="bwrap", tools=["bash"])
    try:
        obs, info = env.reset(seed=0)
        assert "- bash(command)" in obs and "str_replace" not in obs
        obs, _reward, _terminated, _truncated, info = env.step('view("mathy/ops.py")')
        assert info["invalid_action"] and "unknown action 'view'" in info["invalid_reason"]
    finally:
        env.close()


def test_bad_arguments_are_clear_errors(task):
    with pytest.raises(ValueError, match="no task named 'nope'"):
        SWEEnv("nope", tasks=[task])
    with pytest.raises(ValueError, match="sandbox must be"):
        SWEEnv(tasks=[task], sandbox="vm")
    with pytest.raises(ValueError, match="tools must be names"):
        SWEEnv(tasks=[task], tools=["rm"])
    with pytest.raises(ValueError, match="tasks must be"):
        SWEEnv(tasks="everything")
    with pytest.raises(ValueError, match="max_turns"):
        SWEEnv(tasks=[task], max_turns=0)
    with pytest.raises(ValueError, match="is not a file; give an interpreter"):
        SWEEnv(tasks=[task], python="/no/such/python")


def test_the_tests_run_with_the_python_given(task):
    import sys

    env = SWEEnv(tasks=[task], sandbox="bwrap", python=sys.executable)
    try:
        env.reset(seed=0)
        obs, *_ = env.step('bash("python -c \\"import sys; print(sys.prefix)\\"")')
        assert obs.splitlines()[0] == sys.prefix
    finally:
        env.close()


def test_close_removes_the_workspaces(task):
    env = SWEEnv(tasks=[task], sandbox="bwrap")
    env.reset(seed=0)
    root = env._root
    assert root.exists()
    env.close()
    env.close()
    assert not root.exists()


def test_tool_schemas_describe_every_tool():
    names = [s["function"]["name"] for s in TOOL_SCHEMAS]
    assert names == list(TOOLS)
    view = next(s for s in TOOL_SCHEMAS if s["function"]["name"] == "view")["function"]
    assert view["parameters"]["required"] == ["path"]
    assert view["parameters"]["properties"]["start"]["type"] == "integer"
    json.dumps(TOOL_SCHEMAS)


def test_the_oracle_turns_a_patch_into_tool_calls():
    patch = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"
        "@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
        "diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n"
        "@@ -0,0 +1 @@\n+print('hi')\n"
        "diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-gone\n"
    )
    assert [(f.old_path, f.new_path) for f in split_patch(patch)] == [
        ("a.py", "a.py"),
        (None, "new.py"),
        ("old.py", None),
    ]
    assert patch_actions(patch) == [
        'str_replace("a.py", "x = 1\\ny = 2\\n", "x = 1\\ny = 3\\n")',
        'create("new.py", "print(\'hi\')\\n")',
        'bash("rm -- old.py")',
    ]


def test_the_oracle_needs_an_swe_env():
    with pytest.raises(TypeError, match="SWEEnv"):
        SWEOracle(gym.make("turngym/Wordle-v0"))


def test_an_interpreter_without_pytest_is_refused_when_the_env_is_made(task, tmp_path):
    """Grading without pytest would score every submission 0 ("missing" tests)."""
    import sys

    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    with pytest.raises(RuntimeError, match=r"cannot import: .*pip install pytest") as caught:
        SWEEnv(tasks=[task], python=bare / "bin" / "python")
    assert "\n" not in str(caught.value)


def test_a_python_without_pytest_is_told_to_install_the_swe_extra(task, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pytest" else real(name, *a)
    )
    from turngym.extras import MissingExtra

    with pytest.raises(MissingExtra, match=r"pip install 'turngym\[swe\]'"):
        SWEEnv(tasks=[task])


def test_an_explicit_bwrap_sandbox_without_bubblewrap_is_refused_at_make(task, monkeypatch):
    from turngym.envs.swe import env as swe_env

    monkeypatch.setattr(
        swe_env, "bwrap_available", lambda: (False, "bubblewrap is not installed (apt-get ...)")
    )
    with pytest.raises(RuntimeError, match="sandbox='bwrap' cannot run here: bubblewrap is not"):
        SWEEnv(tasks=[task], sandbox="bwrap")


# -- the hidden tests over the agent's own test edits (issue 25, item 3) -----------------

NEW_FOLDER_TESTS = """\
diff --git a/tests/unit/test_more.py b/tests/unit/test_more.py
new file mode 100644
--- /dev/null
+++ b/tests/unit/test_more.py
@@ -0,0 +1,5 @@
+from mathy.ops import total
+
+
+def test_total_of_two():
+    assert total([1, 2]) == 3
"""


def submit_fix_and(env, *actions):
    """Reset, apply the toy task's fix, take ``actions``, submit: the last step's result."""
    env.reset(seed=0)
    fix = 'str_replace("mathy/ops.py", "len(values) - 1", "len(values)")'
    return play(env, fix, *actions, "submit()")


def test_a_fix_with_a_test_of_its_own_in_the_hidden_tests_file_resolves(env):
    # SWE-bench puts the files the test patch touches back at the base commit first.
    own = "\\n\\ndef test_mine():\\n    assert total([5]) == 5\\n"
    obs, reward, terminated, _truncated, info = submit_fix_and(
        env, f"bash(\"printf '{own}' >> tests/test_ops.py && python -m pytest -q tests\")"
    )
    assert terminated and reward == 1.0 and info["resolved"], (obs, info["tests"])
    assert info["reverted"] == ["tests/test_ops.py"] and info["grade_problem"] == ""
    assert "failing tests fixed 1/1" in obs


def test_a_file_where_the_hidden_tests_make_a_folder_is_put_back(task):
    # The test patch adds tests/unit/test_more.py; a file named tests/unit blocks it.
    moved = dataclasses.replace(
        task,
        test_patch=NEW_FOLDER_TESTS,
        fail_to_pass=("tests/unit/test_more.py::test_total_of_two",),
    )
    env = SWEEnv(tasks=[moved], sandbox="bwrap")
    try:
        obs, reward, _terminated, _truncated, info = submit_fix_and(
            env, 'bash("echo notes > tests/unit")'
        )
        assert reward == 1.0 and info["resolved"], (obs, info["tests"])
        assert info["reverted"] == ["tests/unit"]
    finally:
        env.close()


def test_hidden_tests_that_do_not_apply_are_said_so_not_counted_as_unfixed(task):
    # A task whose test patch does not fit its own base (a bad JSONL line, say).
    broken = dataclasses.replace(
        task, test_patch=task.test_patch.replace("def test_total_of_nothing", "def test_none")
    )
    env = SWEEnv(tasks=[broken], sandbox="bwrap")
    try:
        obs, reward, terminated, _truncated, info = submit_fix_and(env)
        assert terminated and reward == 0.0 and not info["resolved"]
        assert "the hidden tests' patch does not apply" in obs, obs
        assert "failing tests fixed" not in obs
        assert info["grade_problem"].startswith("the hidden tests' patch does not apply")
        assert info["reward_parts"]["applies"] == 1.0 and info["tests"] == {
            t: "MISSING" for t in (*broken.fail_to_pass, *broken.pass_to_pass)
        }
    finally:
        env.close()
