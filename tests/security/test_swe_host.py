"""An SWE agent against the host: special files, huge files, bad text, a full disk (issue 23).

The agent controls its workspace: FIFOs, sparse files, links and unencodable arguments
must come back as invalid actions with a reason, never hang or crash the host, never
leave a file half-written; a call that fills the disk is stopped at the workspace's
quota. After each attack the env still serves an honest episode.
"""

from __future__ import annotations

import json
import os
import threading

import pytest

from tests import system_deps
from tests.envs.swe.toy_task import BASE, FIXED, toy_task
from turngym.envs.swe.env import SWEEnv
from turngym.host.sandbox import Limits

pytestmark = [pytest.mark.sandbox, system_deps.bubblewrap()]

BOUND_S = 60.0  # a step that blocks on a FIFO would never end; this only bounds the wait
QUOTA_MB = 64


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    limits = Limits(disk_mb=QUOTA_MB, wall_s=20.0)
    made = SWEEnv(tasks=[toy_task(tmp_path_factory.mktemp("toy"))], sandbox="bwrap", limits=limits)
    yield made
    made.close()


def step(env, action: str):
    """``env.step`` in a thread, so a step that blocks forever fails the test instead."""
    box: dict = {}

    def run() -> None:
        try:
            box["result"] = env.step(action)
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(BOUND_S)
    assert not worker.is_alive(), f"{action[:60]!r} blocked the host"
    if "error" in box:
        raise box["error"]
    return box["result"]


def call(name: str, *args: object) -> str:
    return json.dumps({"name": name, "arguments": dict(zip(ARGS[name], args, strict=False))})


ARGS = {
    "view": ("path",),
    "create": ("path", "text"),
    "str_replace": ("path", "old", "new"),
    "insert": ("path", "line", "text"),
    "bash": ("command",),
    "find_file": ("name", "path"),
    "search": ("pattern", "path"),
}


def assert_invalid(result, *words: str) -> None:
    obs, _reward, terminated, _truncated, info = result
    assert info["invalid_action"], obs
    assert not terminated
    assert all(w in obs for w in words), obs
    assert "\n" not in info["invalid_reason"]


def assert_still_works(env) -> None:
    """An honest episode still resolves the task."""
    env.reset(seed=0)
    for path, text in FIXED.items():
        assert not step(env, call("create", path, text))[4]["invalid_action"]
    assert step(env, "submit()")[1] == 1.0


def workspace(env):
    return env._work.root


# -- special files -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        call("view", "pipe"),
        call("create", "pipe", "x = 1\n"),
        call("str_replace", "pipe", "a", "b"),
        call("insert", "pipe", 0, "x"),
        call("view", "mathy/pipe"),
    ],
)
def test_a_fifo_never_blocks_the_file_tools(env, action):
    env.reset(seed=0)
    os.mkfifo(workspace(env) / "pipe")
    os.mkfifo(workspace(env) / "mathy" / "pipe")
    assert_invalid(step(env, action), "FIFO")
    assert_still_works(env)


def test_a_fifo_made_by_the_agent_in_the_sandbox_is_refused(env):
    env.reset(seed=0)
    step(env, call("bash", "mkfifo notes.txt"))
    assert_invalid(step(env, call("view", "notes.txt")), "FIFO")


def test_a_fifo_where_the_submission_patch_used_to_go_does_not_block_submit(env):
    env.reset(seed=0)
    for name in ("turngym-submission.patch", "turngym-test.log", "turngym-model.patch"):
        os.mkfifo(workspace(env) / ".git" / name)
    for path, text in FIXED.items():
        step(env, call("create", path, text))
    _obs, reward, terminated, _truncated, _info = step(env, "submit()")
    assert terminated and reward == 1.0


def test_code_under_test_that_turns_graders_files_into_fifos_does_not_block_grading(env):
    env.reset(seed=0)
    sabotage = (
        "import os\n\nfrom mathy.ops import total\n\n"
        "for name in os.listdir('.git'):\n"
        "    path = os.path.join('.git', name)\n"
        "    if os.path.isfile(path):\n"
        "        os.unlink(path)\n"
        "        os.mkfifo(path)\n"
        "os.mkfifo('.git/turngym-test.log') if not os.path.exists('.git/turngym-test.log') else 0\n"
    )
    step(env, call("create", "mathy/__init__.py", sabotage))
    _obs, reward, terminated, *_ = step(env, "submit()")
    assert terminated and reward == 0.0
    assert_still_works(env)


def test_a_huge_sparse_file_is_refused_not_loaded(env):
    env.reset(seed=0)
    with open(workspace(env) / "big.bin", "wb") as f:
        f.truncate(30 << 30)  # 30 GB, no block on disk
    assert_invalid(step(env, call("view", "big.bin")), "big.bin", "bytes")
    assert_invalid(step(env, call("str_replace", "big.bin", "a", "b")), "bytes")
    assert_still_works(env)


def test_links_are_never_followed_by_the_file_tools(env, tmp_path):
    secret = tmp_path / "host-secret.txt"
    secret.write_text("TOP SECRET")
    env.reset(seed=0)
    os.symlink(secret, workspace(env) / "out.txt")
    os.symlink(tmp_path / "dangling.txt", workspace(env) / "dangling.txt")
    os.symlink(tmp_path, workspace(env) / "outdir")
    for action in (
        call("view", "out.txt"),
        call("str_replace", "out.txt", "TOP", "NOT"),
        call("create", "dangling.txt", "written through a link"),
        call("create", "outdir/new.txt", "written through a link"),
        call("view", "outdir"),
    ):
        result = step(env, action)
        assert "TOP SECRET" not in result[0]
        assert result[4]["invalid_action"] or result[4]["tool_error"], result[0]
    assert secret.read_text() == "TOP SECRET"
    assert not (tmp_path / "dangling.txt").exists() and not (tmp_path / "new.txt").exists()


# -- text that cannot be written ------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        'str_replace("mathy/ops.py", "result = 0", "\\ud800")',
        call("str_replace", "mathy/ops.py", "result = 0", "\ud800"),
        call("create", "mathy/ops.py", "lone \udcff surrogate"),
        call("insert", "mathy/ops.py", 1, "\ud83d"),
        call("create", "mathy/ops.py", "nul \x00 byte"),
        call("create", "mathy/\x00ops.py", "x"),
        call("view", "mathy/\ud800.py"),
        call("bash", "echo \x00"),
        call("bash", "echo \ud800"),
        call("find_file", "\ud800"),
        call("search", "\x00"),
    ],
)
def test_unencodable_arguments_are_invalid_and_leave_files_whole(env, action):
    env.reset(seed=0)
    result = step(env, action)
    assert_invalid(result)
    assert (workspace(env) / "mathy" / "ops.py").read_text() == BASE["mathy/ops.py"]
    assert_still_works(env)


def test_edits_replace_files_atomically(env):
    env.reset(seed=0)
    target = workspace(env) / "mathy" / "ops.py"
    before = os.stat(target).st_ino
    step(env, call("str_replace", "mathy/ops.py", "result = 0", "result = 0  # start"))
    assert os.stat(target).st_ino != before  # a new file was renamed over the old one
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".")]


# -- the disk -------------------------------------------------------------------------------


def usage_mb(env) -> float:
    total = 0
    for folder, _dirs, files in os.walk(workspace(env)):
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                total += os.lstat(path).st_blocks * 512
    return total / 2**20


@pytest.mark.parametrize(
    "command",
    [
        "head -c 2000M /dev/zero > big.bin",
        "for i in $(seq 40); do head -c 10M /dev/zero > f$i.bin; done",
        "fallocate -l 5G a.bin; fallocate -l 5G b.bin; "
        "for i in $(seq 20); do fallocate -l 1G c$i; done",
        "python -c \"import os; [os.posix_fallocate(os.open(f'p{i}', os.O_CREAT|os.O_WRONLY), "
        '0, 1 << 30) for i in range(8)]"',
    ],
)
def test_a_call_cannot_fill_the_disk_past_the_quota(env, command):
    env.reset(seed=0)
    obs, *_ = step(env, call("bash", command))
    assert usage_mb(env) <= QUOTA_MB + 8, obs
    assert any(w in obs for w in ("quota", "No space", "too large", "size limit")), obs
    # the agent can clean up and go on
    step(env, call("bash", "rm -f *.bin f* a.bin b.bin c* p*"))
    assert_still_works(env)


def test_the_sandbox_tmp_is_bounded_too(env):
    env.reset(seed=0)
    obs, *_ = step(env, call("bash", "head -c 3000M /dev/zero > /tmp/x; ls -l /tmp/x"))
    assert "3145728000" not in obs
    assert_still_works(env)


# -- the soft quota (where no tmpfs can be mounted: measured during each call) -----------


@pytest.fixture
def soft_box(tmp_path):
    from turngym.host.sandbox import BwrapSandbox

    folder = tmp_path / "ws"
    folder.mkdir()
    box = BwrapSandbox(folder, limits=Limits(disk_mb=QUOTA_MB, wall_s=60.0))
    assert not box.disk.hard  # a plain folder: no tmpfs of ours
    yield box
    box.close()


def folder_mb(folder) -> float:
    return sum(p.lstat().st_blocks * 512 for p in folder.rglob("*") if p.is_file()) / 2**20


@pytest.mark.parametrize(
    "command",
    [
        "while true; do i=$((i+1)); head -c 4M /dev/zero > f$i || break; done",
        "python -c \"import os\nfor i in range(100000): os.posix_fallocate(os.open(f'p{i}', "
        'os.O_CREAT | os.O_WRONLY), 0, 32 << 20)"',
        "for i in $(seq 1000); do fallocate -l 60M a$i; done",
    ],
)
def test_the_soft_quota_stops_a_call_that_fills_the_disk(soft_box, command):
    result = soft_box.run(command)
    # measured every 100 ms: what one call writes meanwhile is the bound's slack
    assert folder_mb(soft_box.workspace) <= 4 * QUOTA_MB, result.output[-500:]
    # stopped at the quota, or fallocate refused outright (the sandbox's seccomp filter)
    assert "quota" in result.output or "not supported" in result.output, result.output[-500:]
    assert soft_box.run("rm -f f* p* a*; echo still here").output.startswith("still here")


def test_the_workspace_quota_is_a_tmpfs_where_the_host_may_mount(env):
    if os.geteuid() != 0:
        pytest.skip("only root may mount a tmpfs: the soft quota applies")
    assert env._work.hard_quota and env._judge.hard_quota


# -- nothing outlives the env's process ------------------------------------------------------

HOLDER = """
import json, sys, tempfile
from pathlib import Path
from tests.envs.swe.toy_task import toy_task
from turngym.envs.swe.env import SWEEnv

env = SWEEnv(tasks=[toy_task(Path(tempfile.mkdtemp()))], sandbox="bwrap")
env.reset(seed=0)
env.step('bash("sleep 1000 & echo started")')
print(json.dumps({"root": str(env._root)}), flush=True)
sys.stdin.read()
"""


def test_a_sigkilled_swe_env_leaves_no_folder_and_no_mount():
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER],
        cwd=Path(__file__).resolve().parents[2],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    root = json.loads(holder.stdout.readline())["root"]
    holder.send_signal(signal.SIGKILL)
    holder.wait()

    def mounted() -> bool:
        return root in Path("/proc/self/mountinfo").read_text()

    for _ in range(200):
        if not os.path.exists(root) and not mounted():
            break
        time.sleep(0.05)
    assert not os.path.exists(root) and not mounted()


def test_a_repository_larger_than_the_quota_is_a_clear_error(tmp_path):
    big = toy_task(tmp_path / "big")
    (big.source / "data.bin").write_bytes(os.urandom(3 << 20))
    env = SWEEnv(tasks=[big], sandbox="bwrap", limits=Limits(disk_mb=1))
    try:
        if not env._work.hard_quota:
            pytest.skip("only a mounted quota refuses the copy itself")
        with pytest.raises(RuntimeError, match="disk quota of 1 MB"):
            env.reset(seed=0)
    finally:
        env.close()
