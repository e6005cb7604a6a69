"""Chess opponents for ``Chess-v0``/``ChessEndgame-v0``: Stockfish, a pure-Python fallback, skill.

An ``Engine`` scores the best few moves of a position (``analyse``). Two engines:

- ``StockfishEngine``: the real Stockfish over UCI. One process per
  worker process and setting, shared by every env in it; each search starts with
  ``ucinewgame`` and runs single-threaded to a fixed depth, so a search is a pure
  function of the position and its move history: episodes replay exactly from a seed
  and a reused env equals a fresh one.
- ``PythonEngine`` (``chess_fallback.py``): a small alpha-beta searcher for machines
  without Stockfish, much weaker and slower.

Strength comes from ``skill_profile(level)``: levels 0..20 set the search depth, how
many of the best moves stay candidates, and how much noise the choice among them gets
(``pick_move``, drawn from the env's own RNG). It follows the idea of Stockfish's
``Skill Level`` (search shallower, pick among the best few moves with noise), but
Stockfish seeds that noise from the clock, so turngym draws it itself. Stockfish's
own Elo limiter (``UCI_LimitStrength``) is available too, without that guarantee.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import re
import select
import shutil
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from turngym.extras import needs_extra

with needs_extra("chess", "a chess env"):
    import chess

__all__ = [
    "MATE_SCORE",
    "SKILL_LEVELS",
    "Engine",
    "ScoredMove",
    "SkillProfile",
    "StockfishEngine",
    "find_stockfish",
    "pick_move",
    "skill_profile",
]

MATE_SCORE = 100_000
"""Centipawn value of a forced mate (minus its distance), so mates outrank everything."""
SKILL_LEVELS = range(21)
"""Valid skill levels: 0 (weakest) to 20 (full strength at the profile's depth)."""
_STOCKFISH_PLACES = ("/usr/games/stockfish", "/usr/bin/stockfish", "/usr/local/bin/stockfish")


@dataclass(frozen=True)
class ScoredMove:
    """A move with its score in centipawns for the side to move (mates: +-MATE_SCORE)."""

    move: chess.Move
    score: int


class Engine(Protocol):
    """Something that scores the best moves of a position."""

    name: str
    """shown to the agent, e.g. ``Stockfish 15.1``"""

    def analyse(self, board: chess.Board, depth: int, multipv: int) -> list[ScoredMove]:
        """The ``multipv`` best legal moves of ``board``, best first, searched to ``depth``."""
        ...


@dataclass(frozen=True)
class SkillProfile:
    """How one skill level searches and chooses."""

    level: int
    depth: int
    """search depth in plies"""
    multipv: int
    """how many of the best moves are candidates"""
    temperature: float
    """softmax temperature over the candidates' scores, in centipawns (0: always the best)"""


def skill_profile(level: int) -> SkillProfile:
    """The search settings of a skill level (0..20).

    Depth grows from 1 ply at level 0 to 12 at level 20; level 0 picks among the 5 best
    moves with a 250-centipawn softmax temperature (a blunder of a minor piece is taken
    about a quarter as often as the best move), level 20 always plays the best move.

    >>> skill_profile(0)
    SkillProfile(level=0, depth=1, multipv=5, temperature=250.0)
    >>> skill_profile(20)
    SkillProfile(level=20, depth=12, multipv=1, temperature=0.0)
    """
    if isinstance(level, bool) or not isinstance(level, int) or level not in SKILL_LEVELS:
        raise ValueError(f"skill must be an int from 0 to 20, got {level!r}")
    weakness = (20 - level) / 20
    return SkillProfile(
        level=level,
        depth=1 + round(level * 0.55),
        multipv=1 if level == 20 else 5 - level // 6,
        temperature=round(250.0 * weakness**2, 3),
    )


def pick_move(
    scored: Sequence[ScoredMove], temperature: float, rng: np.random.Generator
) -> chess.Move:
    """Choose among scored candidates: softmax of score / temperature (0: the best one).

    The draw comes from ``rng`` even when only one candidate is left, so how much of
    the stream a move uses does not depend on the position.
    """
    if not scored:
        raise ValueError("no candidate moves to pick from")
    u = float(rng.random())
    if temperature <= 0 or len(scored) == 1:
        return scored[0].move
    best = max(s.score for s in scored)
    weights = [math.exp(max(-50.0, (s.score - best) / temperature)) for s in scored]
    total = sum(weights)
    acc = 0.0
    for s, w in zip(scored, weights, strict=True):
        acc += w / total
        if u < acc:
            return s.move
    return scored[-1].move


def find_stockfish(path: str | None = None) -> str | None:
    """Where the Stockfish binary is: ``path``, ``$TURNGYM_STOCKFISH``, PATH, Debian's place."""
    for candidate in (path, os.environ.get("TURNGYM_STOCKFISH")):
        if candidate:
            found = shutil.which(candidate)
            return found if found else None
    found = shutil.which("stockfish")
    if found:
        return found
    return next((p for p in _STOCKFISH_PLACES if os.access(p, os.X_OK)), None)


class StockfishEngine:
    """Stockfish over UCI, one shared process per worker process, path and options.

    Args:
        path: the binary (see ``find_stockfish``).
        elo: use Stockfish's own strength limiter (``UCI_LimitStrength``) at this Elo;
            Stockfish draws that limiter's noise from the clock, so moves are not
            reproducible. None: plain search (deterministic).

    """

    def __init__(self, path: str, elo: int | None = None) -> None:
        self.path = path
        self.elo = elo
        self._options: dict[str, str] = {"Threads": "1", "Hash": "4"}
        if elo is not None:
            self._options |= {"UCI_LimitStrength": "true", "UCI_Elo": str(elo)}
        self.name = self._process().name

    def elo_range(self) -> tuple[int, int]:
        """The ``UCI_Elo`` range this binary accepts."""
        found = self._process().elo_range
        if found is None:
            raise ValueError(f"{self.path} has no UCI_Elo option; use skill= instead")
        return found

    def analyse(self, board: chess.Board, depth: int, multipv: int) -> list[ScoredMove]:
        """The ``multipv`` best moves of ``board`` at ``depth`` (a fresh search each time)."""
        lines = self._process().search(board, depth, multipv)
        out = []
        for _, (score, move) in sorted(lines.items()):
            parsed = chess.Move.from_uci(move)
            if parsed in board.legal_moves:
                out.append(ScoredMove(parsed, score))
        if not out and any(board.legal_moves):
            raise RuntimeError(f"Stockfish gave no move for {board.fen()}")
        return out

    def play(self, board: chess.Board, depth: int) -> chess.Move:
        """Stockfish's own choice of move (what the Elo limiter changes)."""
        move = chess.Move.from_uci(self._process().best_move(board, depth))
        if move not in board.legal_moves:
            raise RuntimeError(f"Stockfish played {move.uci()}, illegal in {board.fen()}")
        return move

    def _process(self) -> _UciProcess:
        key = (os.getpid(), self.path, tuple(sorted(self._options.items())))
        with _POOL_LOCK:
            process = _POOL.get(key)
            if process is None:
                process = _POOL[key] = _UciProcess(self.path, self._options)
        return process


_TIMEOUT_S = 120.0
"""A search that prints nothing for this long means a hung engine."""
_START_TIMEOUT_S = 10.0
"""The UCI handshake (NNUE load included) takes 0.3 s here."""
_INFO = re.compile(
    r"\bmultipv (\d+) .*?\bscore (cp|mate) (-?\d+)(?! (?:lower|upper)bound).*?\bpv (\S+)"
)


class _UciProcess:
    """One engine process spoken to over UCI, behind a lock; restarted once if it died.

    A plain pipe client rather than python-chess's ``SimpleEngine``: that one keeps a
    non-daemon thread per engine, which blocks interpreter exit while a shared engine
    is still open.
    """

    def __init__(self, path: str, options: dict[str, str]) -> None:
        self.path = path
        self.options = options
        self.lock = threading.Lock()
        self.name = "Stockfish"
        self.elo_range: tuple[int, int] | None = None
        self._multipv = 1
        self._proc = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        try:
            proc = subprocess.Popen(
                [self.path],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as error:
            raise RuntimeError(f"could not start Stockfish at {self.path}: {error}") from error
        self._proc = proc
        self._buffer = b""
        try:
            self._handshake()
        except (OSError, EOFError, TimeoutError) as error:
            proc.kill()
            raise RuntimeError(
                f"{self.path} does not answer as a UCI chess engine ({error}); "
                "point stockfish_path= or $TURNGYM_STOCKFISH at a Stockfish binary"
            ) from error
        return proc

    def _handshake(self) -> None:
        self._send("uci")
        for line in self._read_until("uciok", _START_TIMEOUT_S):
            if line.startswith("id name "):
                self.name = line.removeprefix("id name ").strip()
            elif line.startswith("option name UCI_Elo "):
                bounds = re.search(r"min (\d+) max (\d+)", line)
                if bounds:
                    self.elo_range = (int(bounds.group(1)), int(bounds.group(2)))
        for name, value in self.options.items():
            self._send(f"setoption name {name} value {value}")
        self._multipv = 1
        self._send("isready")
        self._read_until("readyok", _START_TIMEOUT_S)

    def search(self, board: chess.Board, depth: int, multipv: int) -> dict[int, tuple[int, str]]:
        """``{pv index: (score for the side to move, first move)}`` after ``go depth``."""
        with self.lock:
            return self._retry(lambda: self._search(board, depth, multipv)[0])

    def best_move(self, board: chess.Board, depth: int) -> str:
        """The ``bestmove`` of a fresh search to ``depth``."""
        with self.lock:
            return self._retry(lambda: self._search(board, depth, 1)[1])

    def _retry(self, fn: Any) -> Any:
        try:
            return fn()
        except (BrokenPipeError, EOFError):
            self._start()
            return fn()

    def _search(
        self, board: chess.Board, depth: int, multipv: int
    ) -> tuple[dict[int, tuple[int, str]], str]:
        # ucinewgame clears the hash and history tables: each search is a pure function of
        # the position and its move history.
        self._send("ucinewgame")
        if multipv != self._multipv:
            self._send(f"setoption name MultiPV value {multipv}")
            self._multipv = multipv
        self._send("isready")
        self._read_until("readyok")
        root = board.root()
        moves = " ".join(m.uci() for m in board.move_stack)
        self._send(f"position fen {root.fen()}" + (f" moves {moves}" if moves else ""))
        self._send(f"go depth {depth}")
        lines: dict[int, tuple[int, str]] = {}
        for line in self._read_until("bestmove"):
            # Bound lines come from aspiration windows: not the final score of a line.
            bound = "lowerbound" in line or "upperbound" in line
            found = _INFO.search(line) if line.startswith("info") and not bound else None
            if found:
                value = int(found.group(3))
                if found.group(2) == "mate":
                    value = MATE_SCORE - value if value > 0 else -MATE_SCORE - value
                lines[int(found.group(1))] = (value, found.group(4))
        return lines, self._last.split()[1]

    def _send(self, command: str) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(command.encode() + b"\n")
        self._proc.stdin.flush()

    def _read_until(self, prefix: str, timeout: float = _TIMEOUT_S) -> list[str]:
        """Lines up to and including the first that starts with ``prefix``."""
        out = []
        while True:
            line = self._readline(timeout)
            out.append(line)
            if line.startswith(prefix):
                self._last = line
                return out

    def _readline(self, timeout: float) -> str:
        assert self._proc.stdout is not None
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([self._proc.stdout], [], [], timeout)
            if not ready:
                self._proc.kill()
                raise TimeoutError(f"{self.path} sent nothing for {timeout:.0f} s")
            chunk = os.read(self._proc.stdout.fileno(), 65536)
            if not chunk:
                raise EOFError("Stockfish closed its output")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace").rstrip("\r")

    def quit(self) -> None:
        """Ask the engine to quit; kill it if it does not."""
        with contextlib.suppress(OSError, ValueError):
            self._send("quit")
        try:
            self._proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self._proc.kill()


_POOL: dict[tuple[Any, ...], _UciProcess] = {}
_POOL_LOCK = threading.Lock()


@atexit.register
def _quit_all() -> None:
    pid = os.getpid()
    for key, process in list(_POOL.items()):
        if key[0] == pid:
            process.quit()
    _POOL.clear()
