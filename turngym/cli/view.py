"""`turngym view`: serve the viewer of runs and episodes (``turngym.view``) on loopback."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import socket
import sys
from pathlib import Path
from typing import Any

from turngym.cli.args import CliError

__all__ = ["add_view_parser", "cmd_view", "play_folder"]


def add_view_parser(sub: Any, formatter: type[argparse.HelpFormatter]) -> None:
    """Add ``view`` to the ``turngym`` command's subparsers."""
    p = sub.add_parser(
        "view",
        help="look at runs and episodes in the browser (a local, read-only web app)",
        description="Serve a read-only web app over run directories, folders of runs, "
        "RecordEpisodes JSONL files and `turngym collect` datasets: runs with their metrics "
        "charts, a table of every episode, each episode turn by turn, two runs side by side. "
        "Example: turngym view runs/",
        formatter_class=formatter,
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="run dirs, folders of runs, episode files (default: runs if it exists, else .)",
    )
    p.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on; beyond loopback it needs --allow-remote",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host that is not loopback (anyone who reaches it reads the files)",
    )
    p.add_argument(
        "--play-dir",
        default="runs/play",
        help="where the play page saves its episodes ('none': not saved); shown in the "
        "viewer beside the PATHs",
    )
    p.set_defaults(fn=cmd_view)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _free_port(host: str) -> int:
    """A port free on ``host`` now (so the printed URL is the one served)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as s:
        s.bind((host.strip("[]"), 0))
        return int(s.getsockname()[1])


def play_folder(value: str, paths: list[Path]) -> Path | None:
    """The play page's folder from ``--play-dir`` (None for 'none'), made if missing.

    Played episodes show beside the PATHs, so the folder joins ``paths`` unless one of
    them holds it already.
    """
    if value.strip().lower() in ("", "none"):
        return None
    play_dir = Path(value)
    if play_dir.exists() and not play_dir.is_dir():
        raise CliError(f"--play-dir {value!r} is not a folder")
    play_dir.mkdir(parents=True, exist_ok=True)
    inside = any(
        path.is_dir() and play_dir.resolve().is_relative_to(path.resolve()) for path in paths
    )
    if not inside:
        paths.append(play_dir)
    return play_dir


def cmd_view(args: argparse.Namespace) -> int:
    """Run ``turngym view`` until interrupted."""
    paths = [Path(p) for p in args.paths] or [Path("runs") if Path("runs").is_dir() else Path(".")]
    for path in paths:
        if not path.exists():
            raise CliError(f"PATH {str(path)!r}: no such file or folder")
    if not 0 <= args.port <= 65535:
        raise CliError(f"--port must be in 0..65535 (0: any free port), got {args.port}")
    loopback = _loopback(args.host)
    if not loopback and not args.allow_remote:
        raise CliError(
            f"--host {args.host} is not a loopback address: the viewer shows every file under "
            "its folders to whoever reaches it; add --allow-remote if that is what you want"
        )
    play_dir = play_folder(args.play_dir, paths)
    from turngym.extras import needs_extra

    with needs_extra("serve", "turngym view"):
        import uvicorn

        from turngym.http_guards import LOOPBACK_NAMES
        from turngym.view.app import create_app
    hosts = [*LOOPBACK_NAMES, args.host] if loopback else None
    try:
        app = create_app(paths, play_dir=play_dir, allowed_hosts=hosts)
    except ValueError as error:
        raise CliError(str(error)) from None
    if not loopback:
        print(
            f"turngym view: WARNING: listening on {args.host}, not loopback: anyone who "
            "can reach this address can read the runs and episodes",
            file=sys.stderr,
        )
    port = args.port or _free_port(args.host)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"turngym view: http://{shown}:{port}/  (Ctrl-C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.run(app, host=args.host, port=port, log_level="warning")
    return 0
