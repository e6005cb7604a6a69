"""Run one bundled app: ``python -m turngym.envs.gui.apps NAME --socket S --workdir D``."""

from __future__ import annotations

import argparse
import importlib

from turngym.envs.gui.apps import APPS
from turngym.envs.gui.apps.base import serve


def main() -> None:
    """Parse the command line and serve the app until the env hangs up."""
    parser = argparse.ArgumentParser(prog="python -m turngym.envs.gui.apps")
    parser.add_argument("app", choices=sorted(APPS))
    parser.add_argument("--socket", required=True, help="Unix socket path to answer on")
    parser.add_argument("--workdir", required=True, help="the folder the app's files live in")
    parser.add_argument("--geometry", default="1280x800+0+0", help="Tk window geometry")
    args = parser.parse_args()
    module, _, name = APPS[args.app].partition(":")
    serve(getattr(importlib.import_module(module), name), args.socket, args.workdir, args.geometry)


if __name__ == "__main__":
    main()
