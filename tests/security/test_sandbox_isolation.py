"""The sandbox never degrades in silence, shows no root-only file, and is bounded.

- No host fallback: where bubblewrap cannot run, ``sandbox="auto"`` (SWE) and the GUI
  terminal refuse with one line naming the fix; ``"local"`` runs and warns every reset.
- The sandbox's uid 0 is host root, the owner of the files shown: a root-only file
  (under /etc, or in a folder shown read-only) must not be readable, nor /etc's
  entries off the allowlist.
- /dev (a tmpfs in bwrap) is bounded: a big file there fails.
- cgroup v2: the files a delegated subtree needs are written (a fake tree here, where
  the host has v1), and on a real v2 host a fork bomb and a memory bomb are bounded.
"""

from __future__ import annotations

import logging
import os
import shutil
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import system_deps
from tests.envs.swe.toy_task import toy_task
from turngym.host import sandbox as sandbox_module
from turngym.host.cgroups import CgroupSet, is_v2
from turngym.host.sandbox import BwrapSandbox, Limits, make_sandbox
from turngym.host.sandbox import bwrap as bwrap_module

NEEDS_BWRAP = system_deps.bubblewrap()
WHY = "bwrap: No permissions to create new namespace,\nlikely because the kernel does not allow"


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bubblewrap cannot make its namespaces here (an unprivileged container, say)."""
    monkeypatch.setattr(sandbox_module, "bwrap_available", lambda: (False, WHY))
    import turngym.envs.swe.env as env_module

    monkeypatch.setattr(env_module, "bwrap_available", lambda: (False, WHY))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def one_line_naming_the_fix(message: str, option: str) -> None:
    assert "\n" not in message, message
    assert "apt-get install bubblewrap" in message and option in message, message


# --------------------------------------------------------------------------- no fallback


@pytest.mark.usefixtures("no_bwrap")
def test_auto_refuses_to_run_unsandboxed(workspace: Path) -> None:
    with pytest.raises(RuntimeError) as refused:
        make_sandbox(workspace)  # kind="auto"
    one_line_naming_the_fix(str(refused.value), "sandbox='local'")
    from turngym.envs.swe.env import SWEEnv

    with pytest.raises(RuntimeError) as refused:
        SWEEnv(tasks=[toy_task(workspace.parent / "toy")])  # sandbox="auto"
    one_line_naming_the_fix(str(refused.value), "sandbox='local'")


@pytest.mark.usefixtures("no_bwrap")
def test_local_runs_and_warns_at_every_reset(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from turngym.envs.swe.env import SWEEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the sandbox's own, once
        env = SWEEnv(tasks=[toy_task(tmp_path / "toy")], sandbox="local")
    try:
        with pytest.warns(RuntimeWarning) as seen, caplog.at_level(logging.WARNING):
            for seed in range(3):
                env.reset(seed=seed)
                obs, *_ = env.step('bash("echo ran")')
                assert "ran" in obs
        said = [str(w.message) for w in seen if "UNSANDBOXED" in str(w.message)]
        logged = [r for r in caplog.records if "UNSANDBOXED" in r.getMessage()]
        assert len(said) == 3 and len(logged) == 3, said
        assert "sandbox='local'" in said[0]
    finally:
        env.close()


@pytest.mark.usefixtures("no_bwrap")
@system_deps.needs(shutil.which("xterm"), "xterm", "apt-get install xterm")
def test_the_gui_terminal_refuses_to_run_unsandboxed(tmp_path: Path) -> None:
    from turngym.envs.gui.display import DisplayError
    from turngym.envs.gui.terminal import Terminal

    with pytest.raises(DisplayError) as refused:
        Terminal(None, tmp_path, (0, 0, 400, 300))  # type: ignore[arg-type]
    one_line_naming_the_fix(str(refused.value), "terminal_sandbox='local'")
    with pytest.raises(ValueError, match="'bwrap' or 'local'"):
        Terminal(None, tmp_path, (0, 0, 400, 300), sandbox="host")  # type: ignore[arg-type]


@pytest.mark.x11
@system_deps.x11()
@system_deps.needs(shutil.which("xterm"), "xterm", "apt-get install xterm")
@pytest.mark.usefixtures("no_bwrap")
def test_the_gui_env_refuses_and_local_warns_at_every_reset(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from turngym.envs.gui.display import DisplayError
    from turngym.envs.gui.env import DesktopEnv

    with pytest.raises(DisplayError) as refused:
        DesktopEnv("terminal-notes", screenshot=False)
    one_line_naming_the_fix(str(refused.value), "terminal_sandbox='local'")
    env = DesktopEnv("terminal-notes", screenshot=False, terminal_sandbox="local")
    try:
        with pytest.warns(RuntimeWarning) as seen, caplog.at_level(logging.WARNING):
            for seed in range(2):
                env.reset(seed=seed)
        said = [str(w.message) for w in seen if "UNSANDBOXED" in str(w.message)]
        logged = [r for r in caplog.records if "UNSANDBOXED" in r.getMessage()]
        assert len(said) == 2 and len(logged) == 2, said
    finally:
        env.close()


# --------------------------------------------------------------------------- root's files


@pytest.fixture
def root_only_files(tmp_path: Path) -> Iterator[tuple[Path, dict[str, tuple[Path, str]]]]:
    """A Python installation to show, and host files the sandbox must not read in it
    and in /etc, with one readable file of that installation."""
    if os.geteuid() != 0:
        pytest.skip("writes under /etc: needs root (the case it defends: a sandbox as root)")
    import venv

    shown = tmp_path / "venv"
    venv.EnvBuilder(symlinks=True).create(shown)  # no pip: a second at most
    lib = next(shown.glob("lib/python*"))
    tag = uuid.uuid4().hex
    files = {
        "etc-root-only": (Path(f"/etc/turngym-secret-{tag}"), 0o600),
        "etc-not-allowed": (Path(f"/etc/turngym-settings-{tag}"), 0o644),
        "shown-root-only": (lib / "key.pem", 0o600),
        "shown-root-only-dir": (lib / "private" / "token", 0o644),
        "shown-readable": (lib / "public.txt", 0o644),
    }
    (lib / "private").mkdir(mode=0o700)
    os.chmod(lib / "private", 0o700)
    made = {}
    try:
        for what, (path, mode) in files.items():
            token = f"{what}-{uuid.uuid4().hex}"
            path.write_text(token)
            os.chmod(path, mode)
            made[what] = (path, token)
        yield shown / "bin" / "python", made
    finally:
        for path, _ in made.values():
            path.unlink(missing_ok=True)


@NEEDS_BWRAP
def test_no_root_only_file_is_readable_in_the_sandbox(
    root_only_files: tuple[Path, dict[str, tuple[Path, str]]], workspace: Path
) -> None:
    python, files = root_only_files
    with BwrapSandbox(workspace, python=python) as box:
        paths = " ".join(str(path) for path, _ in files.values())
        out = box.run(f"for f in {paths}; do cat $f; echo; done 2>&1; cat /etc/passwd").output
        ssh = box.run("ls /etc/ssh /etc/ssl/private /etc/shadow 2>&1; echo .").output
    for what, (_, token) in files.items():
        assert (token in out) == (what == "shown-readable"), f"{what}: {out}"
    assert "root:x:0:0" in out, out  # what programs need is still there
    assert ssh.count("No such file or directory") == 3, ssh


@NEEDS_BWRAP
def test_programs_still_run_with_the_etc_allowlist(workspace: Path) -> None:
    (workspace / "test_it.py").write_text("def test_ok():\n    assert True\n")
    with BwrapSandbox(workspace) as box:
        result = box.run(
            "git init -q . && git -c user.name=a -c user.email=a@b commit -q --allow-empty "
            "-m x && git log --oneline | wc -l && whoami && date +%Z >/dev/null && "
            "awk 'BEGIN{print 7}' && python -c 'import ssl, ctypes.util, locale; print(8)' && "
            "python -m pytest -q -p no:cacheprovider test_it.py",
            env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
            timeout=60,
        )
    assert result.returncode == 0, result.output
    assert result.output.split()[:4] == ["1", "root", "7", "8"], result.output
    assert "1 passed" in result.output


# --------------------------------------------------------------------------- /dev


@NEEDS_BWRAP
def test_a_big_file_in_dev_is_refused(workspace: Path) -> None:
    mb = bwrap_module._SHM_MB
    with BwrapSandbox(workspace, limits=Limits(disk_mb=1024, memory_mb=1024)) as box:
        made = box.run(
            f"head -c {4 * mb}M /dev/zero > /dev/big; head -c {4 * mb}M /dev/zero > "
            "/dev/shm/big; echo x > /dev/null && echo null-ok; "
            "for f in /dev/big /dev/shm/big; do echo SIZE $f $(stat -c %s $f || echo 0); done"
        )
    sizes = {
        line.split()[1]: int(line.split()[2])
        for line in made.output.splitlines()
        if line.startswith("SIZE ")
    }
    assert "null-ok" in made.output, made.output
    assert sizes["/dev/big"] == 0 and sizes["/dev/shm/big"] <= mb << 20, made.output


# --------------------------------------------------------------------------- cgroup v2


def fake_v2(tmp_path: Path, own: str = "/") -> tuple[Path, Path]:
    """A cgroup v2 tree with this process at ``own``, and its /proc/self/cgroup."""
    root = tmp_path / "cgroup"
    folder = root / own.lstrip("/")
    folder.mkdir(parents=True)
    for path in [root, *[p for p in folder.parents if root in p.parents], folder]:
        (path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
        (path / "cgroup.subtree_control").write_text("")
        (path / "cgroup.procs").write_text("")
    self_cgroup = tmp_path / "self-cgroup"
    self_cgroup.write_text(f"0::{own}\n")
    return root, self_cgroup


def test_cgroup_v2_writes_the_limits_of_a_delegated_subtree(tmp_path: Path) -> None:
    root, self_cgroup = fake_v2(tmp_path)
    cgroups = CgroupSet(processes=48, memory_mb=128, root=root, self_cgroup=self_cgroup)
    assert cgroups.version == 2 and set(cgroups.dirs) == {"pids", "memory", "cpuacct"}
    [path] = set(cgroups.dirs.values())
    assert path.parent == root and path.name.startswith("turngym-sandbox-")
    assert set((root / "cgroup.subtree_control").read_text().split()) == {
        "+pids",
        "+memory",
        "+cpu",
    }
    assert (path / "pids.max").read_text() == "48"
    assert (path / "memory.max").read_text() == str(128 << 20)
    script = cgroups.attach_script("exit 1")
    assert script.count("cgroup.procs") == 1 and str(path / "cgroup.procs") in script
    # the CPU clock and the OOM kills are read back from the kernel's files
    (path / "cpu.stat").write_text("usage_usec 1000000\nuser_usec 900000\n")
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 0\n")
    cgroups.start_call()
    (path / "cpu.stat").write_text("usage_usec 3500000\nuser_usec 3000000\n")
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\n")
    assert cgroups.cpu_seconds() == pytest.approx(2.5)
    assert cgroups.hit_memory_limit()
    (path / "cgroup.kill").write_text("0")
    cgroups.kill_all()
    assert (path / "cgroup.kill").read_text() == "1"


def test_cgroup_v2_goes_up_to_an_ancestor_that_can_delegate(tmp_path: Path) -> None:
    root, self_cgroup = fake_v2(tmp_path, own="/user.slice/session-1.scope")
    own = root / "user.slice" / "session-1.scope"
    # the kernel refuses controllers to a cgroup that holds processes (ours): EBUSY
    (own / "cgroup.subtree_control").unlink()
    (own / "cgroup.subtree_control").mkdir()
    cgroups = CgroupSet(processes=10, memory_mb=64, root=root, self_cgroup=self_cgroup)
    [path] = set(cgroups.dirs.values())
    assert path.parent == root / "user.slice", path
    assert (path / "pids.max").read_text() == "10"


def test_no_cgroup_v2_controllers_means_no_cgroups(tmp_path: Path) -> None:
    root, self_cgroup = fake_v2(tmp_path)
    (root / "cgroup.controllers").write_text("")  # v2 mounted, nothing delegated (hybrid)
    cgroups = CgroupSet(processes=10, memory_mb=64, root=root, self_cgroup=self_cgroup)
    assert (cgroups.version, cgroups.dirs) == (0, {})


def real_v2() -> bool:
    """Whether this host has cgroup v2 with pids and memory delegated to this process."""
    if not is_v2():
        return False
    cgroups = CgroupSet(processes=8, memory_mb=64)
    try:
        return cgroups.version == 2
    finally:
        cgroups.remove()


REAL_V2 = real_v2()


@pytest.mark.skipif(not REAL_V2, reason="needs cgroup v2 at /sys/fs/cgroup with pids and memory")
@NEEDS_BWRAP
@pytest.mark.timeout(90)
def test_real_cgroup_v2_bounds_a_fork_bomb_and_memory(workspace: Path) -> None:
    with BwrapSandbox(workspace, limits=Limits(processes=32, memory_mb=128)) as box:
        assert box._cgroups.version == 2
        probe = box.run(
            "for i in $(seq 100); do sleep 3 & done 2>/dev/null; sleep 0.5; "
            "cat /proc/[0-9]*/comm | grep -c sleep",
            timeout=10,
        )
        assert 0 < int(probe.output.split()[-1]) < 32, probe.output
        box.run("b() { b | b & }; b; sleep 1", timeout=3)
        grab = box.run("python3 -c \"x = b'a' * (512 << 20); print('ALLOCATED')\"")
    assert "ALLOCATED" not in grab.output and grab.returncode != 0, grab
    assert os.system("true") == 0
