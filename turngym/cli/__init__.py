"""The ``turngym`` command (``turngym.cli:main``), one module per command.

``parser`` builds the argument parser and dispatches (``main``); ``listing``, ``play``,
``check``, ``eval``, ``collect``, ``serve``, ``train`` and ``view`` each add their
command's flags and run it; ``args`` holds what the commands share (user errors, help,
env ids, ``--set``, making envs).
"""

from turngym.cli.parser import build_parser, main

__all__ = ["build_parser", "main"]
