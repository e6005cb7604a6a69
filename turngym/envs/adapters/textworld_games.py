"""TextWorld games generated from a seed, once, into turngym's cache.

``game_file(kind, settings, seed)`` returns the compiled game (``game.z8``, with
TextWorld's ``game.json`` beside it) under ``$TURNGYM_CACHE/textworld/<key>/``, where
the key names the kind, a hash of the settings and TextWorld's version, and the seed.
A game is made only the first time: TextWorld's challenge generator and its Inform 7
compiler run in a child process (``python -m turngym.envs.adapters.textworld_games``)
whose ``TMPDIR`` and working folder are a fresh temporary folder inside the cache, so
nothing is written outside it; the finished folder is then renamed into place, which
is atomic, so two processes making the same game at once both end up with one
complete copy (the loser of the race throws its own away).

The child runs with ``PYTHONHASHSEED=0`` (``MAKER_HASH_SEED``), whatever this process's
is: TextWorld's generators iterate over sets of strings, whose order follows the hash
seed (the cooking challenge lists each ingredient's wrong cookings and cuttings, its
quests' failure events, from a set; every challenge writes a set of names into
``game.json``), so without it a cleared cache or another machine would make another
game file from the same seed.

Run as a module it is that child: ``kind settings-json seed out-folder``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from turngym.envs.cache import cache_dir

__all__ = ["GENERATION_TIMEOUT", "MAKER_HASH_SEED", "game_file", "game_key"]

GENERATION_TIMEOUT = 600.0
"""Seconds a child may take to make one game before it is killed."""

MAKER_HASH_SEED = "0"
"""The ``PYTHONHASHSEED`` every game is made under (part of the cache key)."""


def game_key(kind: str, settings: Mapping[str, Any], seed: int, version: str) -> str:
    """The cache folder's name of one game.

    >>> game_key("coin_collector", {"level": 5}, 3, "1.7.0")
    'coin_collector-197e6d5729d3-3'
    """
    # the hash seed is in the key: games cached before it was fixed are not reused
    made = {"settings": dict(settings), "textworld": version, "hash_seed": MAKER_HASH_SEED}
    text = json.dumps(made, sort_keys=True)
    return f"{kind}-{hashlib.sha256(text.encode()).hexdigest()[:12]}-{seed}"


def game_file(kind: str, settings: Mapping[str, Any], seed: int, version: str) -> Path:
    """The compiled game of ``kind`` with ``settings`` and ``seed``, made if not cached.

    Raises:
        RuntimeError: the generator failed (its last output lines say why).

    """
    root = cache_dir() / "textworld"
    final = root / game_key(kind, settings, seed, version)
    game = final / "game.z8"
    if game.is_file() and (final / "game.json").is_file():
        return game
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".making-", dir=root))
    try:
        (work / "tmp").mkdir()
        out = work / "game"
        env = dict(os.environ, TMPDIR=str(work / "tmp"), TEMP=str(work / "tmp"))
        env["PYTHONHASHSEED"] = MAKER_HASH_SEED  # the game must not depend on ours
        # the child imports this very turngym, wherever it was imported from
        package_root = str(Path(__file__).resolve().parents[3])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        command = [
            sys.executable,
            "-m",
            "turngym.envs.adapters.textworld_games",
            kind,
            json.dumps(dict(settings)),
            str(seed),
            str(out),
        ]
        done = subprocess.run(
            command,
            cwd=work / "tmp",
            env=env,
            capture_output=True,
            text=True,
            timeout=GENERATION_TIMEOUT,
            check=False,
        )
        if done.returncode != 0 or not (out / "game.z8").is_file():
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
            raise RuntimeError(f"TextWorld could not make {kind} game {seed}: {tail}")
        try:
            os.rename(out, final)
        except OSError:
            if not game.is_file():  # not a lost race: a real failure
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return game


def _make(kind: str, settings: dict[str, Any], seed: int, out: Path) -> None:
    """Generate and compile one game into ``out`` (the child's work)."""
    import textworld.challenges
    from textworld import GameOptions
    from textworld.generator import compile_game

    options = GameOptions()
    options.seeds = seed
    options.path = str(out / "game.z8")
    options.force_recompile = True
    make = textworld.challenges.CHALLENGES[f"tw-{kind}"][1]
    game = make(settings, options)
    compile_game(game, options)


if __name__ == "__main__":
    _make(sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))
