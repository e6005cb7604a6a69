"""``Chess-v0`` and ``ChessEndgame-v0``: play chess in text against Stockfish.

The agent writes one move per turn in SAN (``Nf3``, ``exd5``, ``O-O``, ``e8=Q``) or
UCI (``g1f3``); the opponent answers inside the same ``step``. The opponent is the
real Stockfish engine (Debian's ``stockfish``) at a skill level whose noise comes
from the env's seed, so an episode replays exactly; without Stockfish a pure-Python
engine stands in, with a warning (see ``chess_engine.py``). ``ChessEndgameEnv`` starts
from a random won endgame (king and queen against king, and similar) and asks for
checkmate against Stockfish's defence.

Rewards: +1 for a win, 0 for a draw, -1 for a loss, all at the end; ``info["success"]``
is a win. Draws are stalemate, insufficient material, and threefold repetition or 50
moves without a capture or pawn move as soon as they happen on the board.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

from turngym.extras import needs_extra

with needs_extra("chess", "a chess env"):
    import chess

from turngym.core import Invalid, Outcome, TextEnv
from turngym.envs.text.chess_engine import (
    Engine,
    StockfishEngine,
    find_stockfish,
    pick_move,
    skill_profile,
)
from turngym.envs.text.chess_fallback import PythonEngine

__all__ = [
    "ENDGAMES",
    "ChessEndgameEnv",
    "ChessEnv",
    "game_result",
    "parse_move",
    "random_endgame",
    "render_board",
]

Opponent = Callable[[chess.Board], "chess.Move | str"]
"""A custom opponent: the board (a copy) in, a legal move (Move, SAN or UCI) out."""

ENDGAMES: dict[str, tuple[int, ...]] = {
    "KQvK": (chess.QUEEN,),
    "KRvK": (chess.ROOK,),
    "KBBvK": (chess.BISHOP, chess.BISHOP),
}
"""Won endgames for ``ChessEndgame-v0``: the strong side's pieces besides its king."""

_REWARDS = {"win": 1.0, "draw": 0.0, "loss": -1.0}
_COLOURS = {"white": chess.WHITE, "black": chess.BLACK}
_NAMES = {chess.WHITE: "White", chess.BLACK: "Black"}
_PIECE_NAMES = {
    chess.PAWN: "pawn",
    chess.QUEEN: "queen",
    chess.ROOK: "rook",
    chess.BISHOP: "bishop",
    chess.KNIGHT: "knight",
}
# Noise a writer adds around a move: check/mate marks, annotations, a final full stop
# (stripped with str.rstrip: the regex "[+#!?.]+$" is quadratic in a run of them).
_DECORATION = "+#!?."
_MOVE_SHAPE = re.compile(
    r"^([kqrbnp]?[a-h]?[1-8]?x?[a-h][1-8](=?[qrbn])?|[a-h][1-8][a-h][1-8][qrbn]?)$"
)


def _key(text: str) -> str:
    """A spelling of a move with case, capture marks and separators dropped."""
    return re.sub(r"[x:=\-\s+#]", "", text.lower()).replace("0", "o")


def parse_move(board: chess.Board, text: str) -> chess.Move | str:
    """The legal move ``text`` names on ``board``, or the reason it names none.

    Accepts SAN in any case (``Nf3``, ``nf3``, ``NF3``; a leading capital ``B`` means
    the bishop, a small ``b`` the b-pawn), with or without ``x``, ``+``, ``#``, ``=``
    and annotations; castling as ``O-O``/``0-0``; UCI and long algebraic
    (``g1f3``, ``g1-f3``).

    >>> board = chess.Board()
    >>> parse_move(board, "NF3"), parse_move(board, "e2-e4"), parse_move(board, " d4+ ")
    (Move.from_uci('g1f3'), Move.from_uci('e2e4'), Move.from_uci('d2d4'))
    >>> parse_move(board, "Ke2")
    'Ke2 is not a legal move here (White to move)'
    """
    raw = text.strip().rstrip(_DECORATION)
    if not raw:
        return "empty move; write one move in SAN (e.g. Nf3) or UCI (e.g. g1f3)"
    legal = list(board.legal_moves)
    by_key: dict[str, list[chess.Move]] = {}
    for move in legal:
        for spelling in {board.san(move), move.uci()}:
            by_key.setdefault(_key(spelling), []).append(move)
    found = list(dict.fromkeys(by_key.get(_key(raw), [])))
    if len(found) > 1:
        # Only "b..." collides: bxc3 (pawn) against Bxc3 (bishop); the case decides.
        wants_bishop = raw[0] == "B"
        found = [
            m for m in found if (board.piece_type_at(m.from_square) == chess.BISHOP) == wants_bishop
        ]
    if len(found) == 1:
        return found[0]
    lenient = _python_chess_parse(board, raw)
    if lenient is not None:
        return lenient
    if _MOVE_SHAPE.match(_key(raw)):
        check = " You are in check." if board.is_check() else ""
        return f"{raw} is not a legal move here ({_NAMES[board.turn]} to move){check}".rstrip()
    return f"{raw[:40]!r} is not a chess move; write one move in SAN (e.g. Nf3) or UCI (e.g. g1f3)"


def _python_chess_parse(board: chess.Board, text: str) -> chess.Move | None:
    """python-chess's own lenient SAN/UCI parser (e.g. ``Ng1f3``); never a null move."""
    for parse in (board.parse_san, board.parse_uci):
        try:
            move = parse(text)
        except ValueError:
            continue
        if move and move in board.legal_moves:
            return move
    return None


def render_board(board: chess.Board) -> str:
    """The board with White at the bottom: capitals White, small letters Black, ``.`` empty.

    >>> print(render_board(chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")))
      a b c d e f g h
    8 . . . . k . . . 8
    7 . . . . . . . . 7
    6 . . . . . . . . 6
    5 . . . . . . . . 5
    4 . . . . . . . . 4
    3 . . . . . . . . 3
    2 . . . . . . . . 2
    1 . . . . K . . R 1
      a b c d e f g h
    """
    files = "  a b c d e f g h"
    rows = [files]
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(chess.square(file, rank))
            cells.append(piece.symbol() if piece else ".")
        rows.append(f"{rank + 1} {' '.join(cells)} {rank + 1}")
    rows.append(files)
    return "\n".join(rows)


class ChessEnv(TextEnv[chess.Move]):
    """Play a game of chess against Stockfish, one move per turn.

    Each observation has your move, the opponent's reply, the board (White at the
    bottom), its FEN, and (by default) your legal moves. ``info`` carries ``fen``,
    ``legal_actions`` (SAN or UCI, per ``notation``) and, at the end, ``result``
    (``1-0``, ``0-1``, ``1/2-1/2``) and ``termination``.

    Args:
        color: your side: ``"white"``, ``"black"`` or ``"random"`` (drawn from the seed).
        skill: the opponent's level, 0 (weakest) to 20; see ``skill_profile``.
            Default 0 here, 20 in ``ChessEndgameEnv``.
        elo: instead of ``skill``, Stockfish's own Elo limiter (1350..2850 for Stockfish
            15.1). Stockfish seeds that limiter from the clock, so games with ``elo``
            do not replay from a seed.
        depth: search depth of the opponent in plies, overriding the skill's depth.
        notation: ``"san"`` or ``"uci"``: the form of ``legal_actions`` and of moves in
            observations. Both forms are accepted as actions either way.
        engine: ``"auto"`` (Stockfish if found, else the Python engine with a
            warning), ``"stockfish"`` (required) or ``"python"``.
        stockfish_path: the Stockfish binary; default ``$TURNGYM_STOCKFISH``, then
            ``stockfish`` on PATH, then ``/usr/games/stockfish``.
        opponent: a callable ``opponent(board) -> move`` that replaces the engine
            (another model, a person); it gets a copy of the board and returns a
            ``chess.Move`` or a SAN/UCI string.
        show_legal_moves: list your legal moves in each observation.
        **kwargs: ``TextEnv`` options (``invalid_action_penalty``, ...).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/Chess-v0", color="white", engine="python")
        >>> obs, info = env.reset(seed=0)
        >>> info["legal_actions"][:5]
        ['Nh3', 'Nf3', 'Nc3', 'Na3', 'h3']
        >>> obs, reward, terminated, truncated, info = env.step("e4")
        >>> obs.splitlines()[0].startswith("You played e4.")
        True

    """

    default_skill = 0

    def __init__(
        self,
        color: str = "random",
        skill: int | None = None,
        elo: int | None = None,
        depth: int | None = None,
        notation: str = "san",
        engine: str = "auto",
        stockfish_path: str | None = None,
        opponent: Opponent | None = None,
        show_legal_moves: bool = True,
        **kwargs: Any,
    ) -> None:
        if color not in ("white", "black", "random"):
            raise ValueError(f"color must be 'white', 'black' or 'random', got {color!r}")
        if notation not in ("san", "uci"):
            raise ValueError(f"notation must be 'san' or 'uci', got {notation!r}")
        if engine not in ("auto", "stockfish", "python"):
            raise ValueError(f"engine must be 'auto', 'stockfish' or 'python', got {engine!r}")
        if skill is not None and elo is not None:
            raise ValueError("pass skill= or elo=, not both (elo uses Stockfish's own limiter)")
        if depth is not None and (
            isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 30
        ):
            raise ValueError(f"depth must be an int from 1 to 30, got {depth!r}")
        if opponent is not None and not callable(opponent):
            raise ValueError(f"opponent must be a callable board -> move, got {opponent!r}")
        self.profile = skill_profile(self.default_skill if skill is None else skill)
        super().__init__(**kwargs)
        self.color = color
        self.elo = elo
        self.depth = depth
        self.notation = notation
        self.show_legal_moves = bool(show_legal_moves)
        self.opponent_hook = opponent
        self.engine: Engine | None = None
        if opponent is None:
            self.engine = _make_engine(engine, stockfish_path, elo)
        self.board = chess.Board()
        self.agent_color = chess.WHITE
        self._legal_cache: tuple[int, list[str], dict[str, chess.Move]] | None = None

    @property
    def engine_kind(self) -> str:
        """``stockfish``, ``python`` or ``callable`` (an ``opponent`` hook)."""
        if self.engine is None:
            return "callable"
        return "stockfish" if isinstance(self.engine, StockfishEngine) else "python"

    @property
    def opponent_name(self) -> str:
        """Who the agent plays against, as told in the instruction."""
        if self.engine_kind == "callable":
            return "your opponent"
        name = "Stockfish" if self.engine_kind == "stockfish" else "a small Python chess engine"
        strength = f"Elo {self.elo}" if self.elo is not None else f"skill {self.profile.level}/20"
        return f"{name} ({strength})"

    # -- the game --------------------------------------------------------------------

    def _start_position(self) -> tuple[chess.Board, bool]:
        """The starting board and the agent's colour (subclasses: other positions)."""
        if self.color == "random":
            colour = bool(self.np_random.integers(2) == 0)
        else:
            colour = _COLOURS[self.color]
        return chess.Board(), colour

    def _task(self) -> str:
        side = _NAMES[self.agent_color]
        return (
            f"You are playing chess as {side} against {self.opponent_name}. A win scores +1, "
            "a draw 0 and a loss -1."
        )

    def _reset(self, options: dict[str, Any]) -> str:
        self._legal_cache = None
        self.board, self.agent_color = self._start_position()
        if "fen" in options:
            # A given position: the agent plays the side to move unless told otherwise.
            self.board = _board_from_fen(options["fen"])
            colour = options.get("color", "white" if self.board.turn else "black")
            if colour not in _COLOURS:
                raise ValueError(f"options['color'] must be 'white' or 'black', got {colour!r}")
            self.agent_color = _COLOURS[colour]
        self.instruction = f"{self._task()}\n{_HOW_TO_MOVE}"
        opening = ""
        if self.board.turn != self.agent_color and game_result(self.board) is None:
            reply = self._opponent_move()
            opening = f"{self._opponent_label()} opened with {self._spell(reply, push=True)}.\n\n"
        return f"{self.instruction}\n\n{opening}{self._view()}"

    def _parse(self, action: str) -> chess.Move | Invalid:
        move = self._legal_lookup().get(action.strip())
        if move is not None:  # the canonical spelling: skip the lenient parser
            return move
        parsed = parse_move(self.board, action)
        return Invalid(parsed) if isinstance(parsed, str) else parsed

    def _apply(self, move: chess.Move) -> Outcome:
        text = f"You played {self._spell(move, push=True)}."
        info: dict[str, Any] = {}
        if game_result(self.board) is None:
            reply = self._spell(self._opponent_move(), push=True)
            text += f" {self._opponent_label()} replied {reply}."
            info["opponent_move"] = reply
        end = game_result(self.board)
        if end is None:
            return Outcome(f"{text}\n\n{self._view()}", info=info)
        winner, reason = end
        if winner is None:
            result, verdict, score = "draw", f"Draw by {reason}.", "1/2-1/2"
        else:
            won = winner == self.agent_color
            result, verdict = ("win", "you win!") if won else ("loss", "you lose.")
            verdict = f"Checkmate: {verdict}"
            score = "1-0" if winner == chess.WHITE else "0-1"
        info |= {"result": score, "termination": reason}
        return Outcome(
            f"{text} {verdict}\n\n{render_board(self.board)}",
            _REWARDS[result],
            terminated=True,
            success=result == "win",
            info=info,
        )

    def _legal_actions(self) -> list[str]:
        return self._legal_list()

    def _render(self) -> str:
        turn = _NAMES[self.board.turn]
        return f"{render_board(self.board)}\nFEN: {self.board.fen()}\n{turn} to move."

    def _state_key(self) -> str:
        return self.board.epd()

    def _extra_info(self) -> dict[str, Any]:
        return {"fen": self.board.fen()}

    # -- moves and the opponent ------------------------------------------------------

    def _opponent_label(self) -> str:
        return "Stockfish" if self.engine_kind == "stockfish" else "Your opponent"

    def _opponent_move(self) -> chess.Move:
        board = self.board
        if self.opponent_hook is not None:
            return self._hook_move()
        engine = self.engine
        assert engine is not None
        if self.elo is not None:
            assert isinstance(engine, StockfishEngine)
            return engine.play(board, self.depth or 10)
        profile = self.profile
        scored = engine.analyse(board, self.depth or profile.depth, profile.multipv)
        return pick_move(scored, profile.temperature, self.np_random)

    def _hook_move(self) -> chess.Move:
        assert self.opponent_hook is not None
        reply = self.opponent_hook(self.board.copy())
        if isinstance(reply, chess.Move):
            if reply in self.board.legal_moves:
                return reply
            problem = f"{reply.uci()} is not legal"
        elif isinstance(reply, str):
            parsed = parse_move(self.board, reply)
            if isinstance(parsed, chess.Move):
                return parsed
            problem = parsed
        else:
            problem = f"it returned {type(reply).__name__}, not a chess.Move or str"
        raise ValueError(
            f"the opponent callable gave no legal move in {self.board.fen()}: {problem}"
        )

    def _spell(self, move: chess.Move, *, push: bool = False) -> str:
        """The move in the env's notation; ``push`` plays it too."""
        text = self.board.san(move) if self.notation == "san" else move.uci()
        if push:
            self.board.push(move)
        return text

    def _legal_lookup(self) -> dict[str, chess.Move]:
        self._legal_list()
        assert self._legal_cache is not None
        return self._legal_cache[2]

    def _legal_list(self) -> list[str]:
        ply = len(self.board.move_stack)
        if self._legal_cache is None or self._legal_cache[0] != ply:
            moves = list(self.board.legal_moves)
            spelled = [self.board.san(m) if self.notation == "san" else m.uci() for m in moves]
            self._legal_cache = (ply, spelled, dict(zip(spelled, moves, strict=True)))
        return self._legal_cache[1]

    def _view(self) -> str:
        board = self.board
        side = _NAMES[board.turn]
        lines = [render_board(board), f"FEN: {board.fen()}"]
        check = " You are in check." if board.is_check() else ""
        lines.append(f"You are {side}; your move (move {board.fullmove_number}).{check}")
        if self.show_legal_moves:
            lines.append(f"Legal moves: {' '.join(self._legal_list())}")
        return "\n".join(lines)


_HOW_TO_MOVE = (
    "Reply with one move per turn in SAN (e.g. e4, Nf3, exd5, O-O, e8=Q); UCI such as e2e4 "
    "works too. The board is drawn with White at the bottom: capital letters are White's "
    "pieces (K king, Q queen, R rook, B bishop, N knight, P pawn), small letters Black's, "
    "dots empty squares. Threefold repetition and 50 moves without a capture or pawn move "
    "end the game in a draw."
)


def _make_engine(kind: str, stockfish_path: str | None, elo: int | None) -> Engine:
    """The opponent's engine: Stockfish when found (or required), else the Python one."""
    path = None if kind == "python" else find_stockfish(stockfish_path)
    if path is None:
        where = stockfish_path or "$TURNGYM_STOCKFISH, 'stockfish' on PATH, /usr/games/stockfish"
        fix = "install it (apt-get install stockfish) or pass stockfish_path="
        if kind == "stockfish":
            raise FileNotFoundError(f"Stockfish not found (looked at {where}); {fix}")
        if elo is not None:
            raise ValueError("elo= needs Stockfish (its own Elo limiter); use skill= instead")
        if kind == "auto":
            warnings.warn(
                f"Stockfish not found (looked at {where}); the chess opponent falls back to "
                "turngym's pure-Python engine, which is far weaker and slower. "
                f"To play Stockfish, {fix}.",
                RuntimeWarning,
                stacklevel=4,
            )
        return PythonEngine()
    if elo is None:
        return StockfishEngine(path)
    lo, hi = StockfishEngine(path).elo_range()
    if isinstance(elo, bool) or not isinstance(elo, int) or not lo <= elo <= hi:
        raise ValueError(f"elo must be an int from {lo} to {hi} for this Stockfish, got {elo!r}")
    return StockfishEngine(path, elo=elo)


def game_result(board: chess.Board) -> tuple[bool | None, str] | None:
    """``(winner or None for a draw, reason)`` when the game on ``board`` is over, else None.

    Checkmate, stalemate and insufficient material end it, and so do a threefold
    repetition and the 50-move rule once they have happened on the board (claimed at
    once). A draw that the side to move could only claim by making a move does not end
    it: the player who is winning would not claim it.

    >>> game_result(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"))
    (True, 'checkmate')
    >>> game_result(chess.Board()) is None
    True
    """
    outcome = board.outcome()
    if outcome is not None:
        return outcome.winner, outcome.termination.name.lower().replace("_", " ")
    if board.is_repetition(3):
        return None, "threefold repetition"
    if board.is_fifty_moves():
        return None, "the fifty-move rule"
    return None


def _board_from_fen(fen: Any) -> chess.Board:
    if not isinstance(fen, str):
        raise ValueError(f"options['fen'] must be a FEN string, got {fen!r}")
    try:
        board = chess.Board(fen)
    except ValueError as error:
        raise ValueError(f"options['fen'] is not a valid FEN: {error}") from error
    if not board.is_valid():
        raise ValueError(f"options['fen'] is not a legal position: {board.status()!r}")
    if game_result(board) is not None:
        raise ValueError("options['fen'] is a finished game; give a position with moves left")
    return board


class ChessEndgameEnv(ChessEnv):
    """Checkmate a lone king from a random won endgame, against the engine's best defence.

    Each reset places your king and pieces (``endgame``) and the opponent's king on
    random squares (a legal position, your move, bishops on opposite colours); you win
    by checkmate. Losing your pieces, stalemate, threefold repetition and the 50-move
    rule are draws (reward 0).

    Args:
        endgame: ``"KQvK"`` (default), ``"KRvK"``, ``"KBBvK"`` or ``"random"`` (one of them
            per seed).
        color: your colour (the strong side): ``"white"``, ``"black"`` or ``"random"``.
        **kwargs: everything ``ChessEnv`` takes. The default opponent here is ``skill=20``
            searching 8 plies (``depth=8``), not the 12 plies of skill 20: a lone king has
            few moves, and 8 plies keep a step near 10 ms instead of 50-100 ms (the
            expert's mates get about 20% longer against 12 plies).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/ChessEndgame-v0", endgame="KRvK", engine="python")
        >>> obs, info = env.reset(seed=1)
        >>> sorted(str(p) for p in env.unwrapped.board.piece_map().values())
        ['K', 'R', 'k']

    """

    default_skill = 20

    def __init__(self, endgame: str = "KQvK", color: str = "random", **kwargs: Any) -> None:
        if endgame != "random" and endgame not in ENDGAMES:
            known = ", ".join([*ENDGAMES, "random"])
            raise ValueError(f"endgame must be one of {known}; got {endgame!r}")
        if all(kwargs.get(k) is None for k in ("skill", "elo", "depth")):
            kwargs["depth"] = 8
        super().__init__(color=color, **kwargs)
        self.endgame = endgame
        self.current_endgame = "KQvK"

    def _start_position(self) -> tuple[chess.Board, bool]:
        _, colour = super()._start_position()
        names = sorted(ENDGAMES)
        name = (
            names[int(self.np_random.integers(len(names)))]
            if self.endgame == "random"
            else self.endgame
        )
        self.current_endgame = name
        return random_endgame(ENDGAMES[name], colour, self.np_random.integers), colour

    def _task(self) -> str:
        side = _NAMES[self.agent_color]
        return (
            f"Chess endgame: you are {side} with {_material(self.board, self.agent_color)} "
            f"against {_material(self.board, not self.agent_color)}, played by "
            f"{self.opponent_name}. Checkmate to win (+1); a draw scores 0 and a loss -1."
        )


def random_endgame(
    pieces: tuple[int, ...], strong: bool, randint: Callable[[int], Any]
) -> chess.Board:
    """A random legal position: ``strong`` has its king and ``pieces``, the other side a king.

    ``strong`` is to move. Bishop pairs stand on opposite colours, so mate is possible.
    """
    while True:
        squares: list[int] = []
        while len(squares) < 2 + len(pieces):
            square = int(randint(64))
            if square not in squares:
                squares.append(square)
        board = chess.Board(None)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, strong))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, not strong))
        for square, kind in zip(squares[2:], pieces, strict=True):
            board.set_piece_at(square, chess.Piece(kind, strong))
        board.turn = strong
        bishops = [s for s in squares[2:] if board.piece_type_at(s) == chess.BISHOP]
        if len(bishops) == 2 and _square_colour(bishops[0]) == _square_colour(bishops[1]):
            continue
        if board.is_valid() and game_result(board) is None:
            return board


def _material(board: chess.Board, colour: bool) -> str:
    """``king and queen``, ``king and two bishops``, ``a lone king``: what ``colour`` has."""
    counts: dict[int, int] = {}
    for piece in board.piece_map().values():
        if piece.color == colour and piece.piece_type != chess.KING:
            counts[piece.piece_type] = counts.get(piece.piece_type, 0) + 1
    if not counts:
        return "a lone king"
    parts = [
        _PIECE_NAMES[kind] if n == 1 else f"{_COUNT_WORDS.get(n, str(n))} {_PIECE_NAMES[kind]}s"
        for kind, n in sorted(counts.items(), reverse=True)
    ]
    return "king and " + ", ".join(parts)


_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def _square_colour(square: int) -> int:
    return (chess.square_file(square) + chess.square_rank(square)) % 2
