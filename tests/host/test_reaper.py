"""The reaper: children and temp folders die with their process, even when it is SIGKILLed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from turngym.host import reaper

ROOT = Path(__file__).resolve().parents[2]

HOLDER = """
import json, sys, threading
from turngym.host import reaper

def start():
    child = reaper.spawn(["sleep", "1000"])
    folder = reaper.temp_dir("turngym-reapertest-")
    (folder / "data.txt").write_text("x")
    print(json.dumps({"pid": child.pid, "folder": str(folder)}), flush=True)

# made in a thread that ends at once: a thread's end must not kill anything
worker = threading.Thread(target=start)
worker.start()
worker.join()
sys.stdin.read()  # wait to be killed
"""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_until(predicate, polls: int = 200) -> bool:
    for _ in range(polls):
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def killed_after_it_reports(code: str, before=lambda report: None):
    """Run ``code`` in a process, read the JSON line it prints, then SIGKILL it.

    ``before(report)`` runs just before the kill.
    """
    holder = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert holder.stdout is not None
    report = json.loads(holder.stdout.readline())
    before(report)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    return report


def test_a_sigkilled_process_leaves_no_child_and_no_folder():
    def still_there(made) -> None:  # the thread that made them has ended
        assert alive(made["pid"]) and Path(made["folder"]).is_dir()

    made = killed_after_it_reports(HOLDER, still_there)
    pid, folder = made["pid"], Path(made["folder"])
    assert wait_until(lambda: not alive(pid)), "the child outlived its SIGKILLed parent"
    assert wait_until(lambda: not folder.exists()), "the folder outlived its SIGKILLed owner"


def test_stale_folders_of_dead_processes_are_swept_and_live_ones_kept(tmp_path):
    dead = tmp_path / "turngym-sweeptest-999999999.12345-abcd"
    dead.mkdir()
    (dead / "file").write_text("left over")
    me = os.getpid()
    mine = tmp_path / f"turngym-sweeptest-{me}.{reaper._start_time(me)}-efgh"
    mine.mkdir()
    # a pid that runs now but started at another time is someone else: its folder is stale
    reused = tmp_path / f"turngym-sweeptest-{me}.1-ijkl"
    reused.mkdir()
    other = tmp_path / "unrelated-999999999.1-x"
    other.mkdir()
    removed = reaper.sweep("turngym-sweeptest-", tmp_path)
    assert sorted(removed) == sorted([dead, reused])
    assert mine.is_dir() and other.is_dir() and not dead.exists() and not reused.exists()


def test_temp_dir_sweeps_on_first_use_and_remove_dir_forgets():
    prefix = f"turngym-firstuse{os.getpid()}-"
    stale = Path(tempfile.gettempdir()) / f"{prefix}999999999.1-zz"
    stale.mkdir()
    folder = reaper.temp_dir(prefix)
    assert not stale.exists() and folder.is_dir()
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    reaper.remove_dir(folder)
    assert not folder.exists()


def test_a_forked_child_does_not_hold_the_parents_reaper():
    reaper.temp_dir("turngym-forktest-")  # the reaper runs
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its own state, not the parent's pipe
        os.close(read)
        os.write(write, b"1" if reaper._pipe is None else b"0")
        os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.close(read)
    os.waitpid(pid, 0)


FORGETTER = """
import json, sys
from turngym.host import reaper
kept = reaper.spawn(["sleep", "1000"])
freed = reaper.spawn(["sleep", "1000"])
reaper.forget(freed.pid)
print(json.dumps([kept.pid, freed.pid]), flush=True)
sys.stdin.read()
"""


def test_a_forgotten_group_is_left_alone():
    kept, freed = killed_after_it_reports(FORGETTER)
    try:
        assert wait_until(lambda: not alive(kept))
        assert alive(freed)
    finally:
        os.kill(freed, signal.SIGKILL)


@pytest.mark.parametrize("prefix", ["", "a/b"])
def test_a_bad_prefix_is_refused(prefix):
    with pytest.raises(ValueError, match="prefix"):
        reaper.temp_dir(prefix)
