"""The tutorials (docs/tutorials/*.md) run as written.

Each page is one test: its ``python`` blocks, in page order, make one script that runs
in a fresh interpreter in a temporary folder (so a page's blocks share state, as a
reader's session does), and each ``bash`` block runs through bash at its place in that
order, with the interpreter's ``bin`` first on PATH (so ``turngym ...`` is this
checkout's). Other fences (``text``, ``toml``) are not run.

An HTML comment on the line before a fence changes that:

- ``<!-- skip: REASON -->``: not run (a GPU, an API key, a server that runs until
  Ctrl-C); the page still runs the rest, and the block is reported as a skipped test
  whose reason names the page and line;
- ``<!-- needs: WHAT -->`` (``chromium``, ``xvfb``, ``bubblewrap``, ``ray``): run when
  that is installed, else skipped the same way, naming what to install. CI
  (``TURNGYM_REQUIRE_SYSTEM_DEPS=1``) installs them all, so there a missing one fails.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import system_deps

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
PAGES = (
    "first-env.md",
    "own-env.md",
    "train-grpo.md",
    "models-and-servers.md",
    "self-play.md",
    "context-wrappers.md",
    "web-gui-swe.md",
    "scaling.md",
    "demonstrations-to-rl.md",
)
# Pages of the docs site that other helpers write (docs/api/, docs/envs/ are generated or
# theirs): a tutorial may link to these before they exist in this checkout.
SHARED_PAGES = {"index.md", "api/index.md", "envs/index.md"}

_FENCE = re.compile(
    r"(?:^<!-- (?P<mark>skip|needs): (?P<why>[^>]*?) -->\n)?"
    r"^```(?P<lang>[\w-]*)\n(?P<code>.*?)^```",
    re.S | re.M,
)


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: where it starts, its language, code and mark."""

    page: str
    line: int
    lang: str
    code: str
    mark: str | None
    why: str


def blocks(page: str) -> list[Block]:
    """The fenced blocks of ``docs/tutorials/<page>``, in order."""
    text = (TUTORIALS / page).read_text()
    found = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start("code")) + 1
        found.append(Block(page, line, m["lang"], m["code"], m["mark"], m["why"] or ""))
    return found


def _found(what: str) -> tuple[bool, str]:
    """Whether ``what`` (a ``needs:`` name) is installed here, and how to install it."""
    import importlib.util
    import shutil

    if what == "chromium":
        return system_deps.chromium_found(), "apt-get install chromium; pip install 'turngym[web]'"
    if what == "xvfb":
        return system_deps.x11_found(), "apt-get install xvfb xterm; pip install 'turngym[gui]'"
    if what == "bubblewrap":
        from turngym.host.sandbox import bwrap_available

        return bwrap_available()[0], "apt-get install bubblewrap"
    if what == "ray":
        return importlib.util.find_spec("ray") is not None, "pip install 'turngym[ray]'"
    if what == "torchrun":
        return shutil.which("torchrun", path=_path()) is not None, "pip install 'turngym[llm]'"
    raise AssertionError(f"unknown needs: {what!r} (chromium, xvfb, bubblewrap, ray, torchrun)")


def _skip_reason(block: Block) -> str | None:
    """Why ``block`` does not run here (None: it runs)."""
    where = f"docs/tutorials/{block.page}:{block.line}"
    if block.mark == "skip":
        assert block.why, f"{where}: a skip needs a reason"
        return f"{where}: {block.why}"
    if block.mark == "needs":
        ok, install = _found(block.why)
        if not ok and not system_deps.REQUIRED:
            return f"{where}: needs {block.why}, not installed here ({install})"
    return None


def _path() -> str:
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


_PRELUDE = '''\
import subprocess as _subprocess


def _bash(path):
    """A bash block of the page, at its place in the page's order."""
    _subprocess.run(["bash", "-euo", "pipefail", path], check=True)

'''


def script(page: str, folder: Path) -> str:
    """The page's runnable blocks as one Python script; bash blocks are written to files."""
    parts = [_PRELUDE]
    for block in blocks(page):
        if block.lang not in ("python", "bash") or _skip_reason(block):
            continue
        parts.append(f"# --- docs/tutorials/{page}:{block.line}\n")
        if block.lang == "python":
            parts.append(block.code + "\n")
        else:
            sh = folder / f"block-{block.line}.sh"
            sh.write_text(block.code)
            parts.append(f"_bash({str(sh)!r})\n")
    return "".join(parts)


@pytest.mark.slow  # each page end to end (some train a model): make test runs them
@pytest.mark.parametrize("page", PAGES)
def test_tutorial_runs_as_written(page, tmp_path):
    """The page's blocks, run in order in a fresh interpreter; skipped ones are reported
    by ``test_tutorial_block_is_skipped``."""
    work = tmp_path / "work"
    work.mkdir()
    code = script(page, tmp_path)
    (tmp_path / "page.py").write_text(code)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PATH": _path(),
        # One torch thread, as the SDK tests run: on 2 shared cores more threads only spin.
        "OMP_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "MPLBACKEND": "Agg",
        "TURNGYM_CACHE": str(tmp_path / "cache"),
    }
    env.pop("TURNGYM_API_KEY", None)
    log = tmp_path / "output.log"
    # Output to a file, not a pipe: a server a failed page left running must not hold
    # the test open; its own session lets the cleanup below stop whatever it started.
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, str(tmp_path / "page.py")],
            cwd=work,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            returncode = proc.wait(timeout=900)  # a hang guard: the pages take seconds each
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert returncode == 0, f"docs/tutorials/{page} failed:\n{log.read_text()[-8000:]}"


# A missing page fails its own test above, not the collection of every test here.
_MARKED = [b for page in PAGES if (TUTORIALS / page).is_file() for b in blocks(page) if b.mark]


@pytest.mark.parametrize("block", _MARKED, ids=[f"{b.page}:{b.line}" for b in _MARKED])
def test_tutorial_block_is_skipped(block):
    """One item per marked block: skipped with its reason, or passed where it ran."""
    reason = _skip_reason(block)
    if reason:
        pytest.skip(reason)
    assert block.mark == "needs"  # it ran in test_tutorial_runs_as_written


def test_every_tutorial_is_linked_from_the_index_and_links_resolve():
    index = (TUTORIALS / "index.md").read_text()
    for page in PAGES:
        assert f"]({page})" in index, f"docs/tutorials/index.md does not link {page}"
    docs = ROOT / "docs"
    for page in ("index.md", *PAGES):
        text = (TUTORIALS / page).read_text()
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # a URL
            assert target.endswith((".md", ".png")), f"{page}: link {target!r} is not a page"
            resolved = (TUTORIALS / target).resolve()
            inside = resolved.relative_to(docs.resolve()).as_posix()
            assert resolved.is_file() or inside in SHARED_PAGES, f"{page}: broken link {target}"


def test_every_page_has_code_and_skips_say_why():
    for page in PAGES:
        found = blocks(page)
        assert any(b.lang == "python" and not b.mark for b in found), f"{page} runs no Python"
        for b in found:
            if b.mark == "skip":
                assert len(b.why.split()) >= 2, f"{page}:{b.line}: a skip says why"
                # issue 31: CI runs every tutorial's code but the GPU and server parts
                assert re.search(r"GPU|server|cluster", b.why), f"{page}:{b.line}: {b.why}"
