"""What of the host a bubblewrap sandbox shows: the system, /etc's allowlist, the Python.

`ETC_ALLOWED` is the part of ``/etc`` shown; `unreadable` finds what only root may
read in what is shown (covered, since the sandbox keeps host uid 0, the files' owner);
`python_paths` the folders an interpreter needs; `secrets` turngym's own packages, which
no sandbox may read. `BwrapSandbox` (``sandbox.py``) builds its command line from them.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# What of /etc programs in the sandbox need (users and groups, name lookup, the dynamic
# linker, time zone, Debian's /usr/bin -> /etc/alternatives links, CA certificates,
# Python's, git's and bash's settings): the rest (host keys, the package managers'
# settings and tokens, services' configuration) is not shown. The sandbox keeps host
# uid 0, which owns these files, so their modes alone would not keep it out.
ETC_ALLOWED = (
    "passwd", "group", "hosts", "host.conf", "hostname", "nsswitch.conf", "networks",
    "protocols", "services", "rpc", "gai.conf", "ld.so.cache", "ld.so.conf",
    "ld.so.conf.d", "localtime", "timezone", "alternatives", "os-release", "lsb-release",
    "debian_version", "issue", "mime.types", "mailcap", "magic", "magic.mime",
    "ssl/certs", "ssl/openssl.cnf", "ca-certificates", "pki/tls/certs", "gitconfig",
    "inputrc", "bash.bashrc", "profile", "shells", "locale.alias", "locale.conf",
    "locale.gen", "default/locale", "terminfo", "fonts", "xdg", "mtab", "python3",
    "python3.8", "python3.9", "python3.10", "python3.11", "python3.12", "python3.13",
    "python3.14",
)  # fmt: skip
"""The entries of /etc (relative paths) a bwrap sandbox shows, where the host has them."""


def system_links() -> list[str]:
    """Bwrap arguments recreating the merged-/usr links (/bin -> usr/bin...) of this host."""
    args: list[str] = []
    for path in SYSTEM_DIRS[1:-1]:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
    return args


def python_paths(python: Path) -> tuple[str, list[str]]:
    """The bin directory of ``python`` and the directories it needs (prefixes, site-packages)."""
    if Path(python) == Path(sys.executable):
        import site

        dirs = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
        dirs += site.getsitepackages()
    else:
        code = (
            "import json, site, sys; print(json.dumps([sys.prefix, sys.base_prefix, "
            "sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages()]))"
        )
        try:
            done = subprocess.run(
                [str(python), "-c", code], capture_output=True, text=True, timeout=60, check=True
            )
            dirs = json.loads(done.stdout)
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            raise ValueError(
                f"python={str(python)!r} could not be run to find its paths: {exc}"
            ) from exc
    # the interpreter file itself may be a link out of its venv (pyenv, /usr/bin...)
    dirs += [str(Path(python).parent), os.path.realpath(python)]
    if "/" in dirs:
        raise ValueError(f"python={str(python)!r} has its prefix at /: it cannot be shown alone")
    return str(Path(python).parent), dirs


def outermost(paths: Sequence[str], covered: Sequence[str]) -> list[str]:
    """The existing paths not inside another one (nor inside ``covered``), deduplicated."""
    kept: list[str] = []
    for path in sorted({os.path.abspath(p) for p in paths if os.path.exists(p)}):
        inside = [*covered, *kept]
        if not any(path == c or path.startswith(c.rstrip("/") + "/") for c in inside):
            kept.append(path)
    return kept


def etc_args() -> tuple[list[str], list[str]]:
    """Bwrap arguments showing the entries of `ETC_ALLOWED` this host has, and those bound.

    A link is made again as a link (its target may be relative: ``../usr/lib/os-release``).
    """
    args = ["--dir", "/etc"]
    bound = []
    for name in ETC_ALLOWED:
        path = f"/etc/{name}"
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
            bound.append(path)
    return args, bound


def unreadable(tops: Sequence[str]) -> list[str]:
    """What under ``tops`` others may not read (a folder: read or enter): root's alone.

    Links are not followed (a link's target is judged where it is shown).
    """
    found: list[str] = []
    todo = list(tops)
    while todo:
        top = todo.pop()
        try:
            st = os.lstat(top)
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            continue
        folder = stat.S_ISDIR(st.st_mode)
        if not st.st_mode & stat.S_IROTH or (folder and not st.st_mode & stat.S_IXOTH):
            found.append(top)
        elif folder:
            with contextlib.suppress(OSError), os.scandir(top) as entries:
                todo.extend(entry.path for entry in entries)
    return found


@lru_cache(maxsize=32)
def unreadable_static(tops: tuple[str, ...]) -> tuple[str, ...]:
    """`unreadable` of the system and the Python shown, read once a process (~1 s)."""
    return tuple(unreadable(tops))


def inside(path: str, folders: Sequence[str]) -> bool:
    """Whether ``path`` is one of ``folders`` or inside one."""
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def secrets(python_dirs: Sequence[str]) -> list[str]:
    """Folders no sandbox may read although their parents are shown: turngym's packages.

    This process's own, and any installed in the site-packages of the Python shown.
    """
    # turngym/host/system_view.py: the package is two folders up (no import of turngym:
    # this module is below it)
    found = {str(Path(__file__).resolve().parents[1])}
    for folder in python_dirs:
        package = Path(folder, "turngym")
        if (package / "__init__.py").is_file():
            found.add(str(package.resolve()))
    return sorted(found)
