"""A small pure-Python chess engine: the opponent when Stockfish is not installed.

Negamax with alpha-beta to a fixed depth, a capture-only quiescence search, captures
ordered most-valuable-victim first, and a hand-written evaluation: material, piece
centralisation, pawn advance, king shelter in the middlegame and king activity in the
endgame, plus a "mop-up" term that drives a bare king to the edge so that king and
queen or rook against a king gets mated. It plays legal, sensible chess at a few
hundred nodes per move; Stockfish is stronger by far and much faster.
"""

from __future__ import annotations

from turngym.extras import needs_extra

with needs_extra("chess", "a chess env"):
    import chess

from turngym.envs.text.chess_engine import MATE_SCORE, ScoredMove

__all__ = ["PythonEngine", "evaluate"]

_VALUE = {
    chess.PAWN: 100,
    chess.KNIGHT: 320,
    chess.BISHOP: 330,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}
_INF = 10 * MATE_SCORE
_QUIESCENCE_PLIES = 6


def _centre_distance(square: int) -> int:
    """0 on the four centre squares, 3 in the corners."""
    f, r = chess.square_file(square), chess.square_rank(square)
    return max(abs(2 * f - 7), abs(2 * r - 7)) // 2


def evaluate(board: chess.Board) -> int:
    """A static score of ``board`` in centipawns for the side to move.

    >>> evaluate(chess.Board())
    0
    >>> evaluate(chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) > 900
    True
    """
    pieces = board.piece_map()
    heavy = sum(_VALUE[p.piece_type] for p in pieces.values() if p.piece_type != chess.PAWN)
    endgame = heavy <= 1800 or not any(p.piece_type == chess.QUEEN for p in pieces.values())
    score = 0
    kings: dict[bool, int] = {}
    material = {chess.WHITE: 0, chess.BLACK: 0}
    for square, piece in pieces.items():
        colour, kind = piece.color, piece.piece_type
        rank = chess.square_rank(square) if colour == chess.WHITE else 7 - chess.square_rank(square)
        centre = 3 - _centre_distance(square)
        value = _VALUE[kind]
        if kind == chess.PAWN:
            value += 6 * (rank - 1) + (
                8 if chess.square_file(square) in (3, 4) and rank >= 3 else 0
            )
        elif kind in (chess.KNIGHT, chess.BISHOP):
            value += 10 * centre
        elif kind == chess.QUEEN:
            value += 3 * centre
        elif kind == chess.KING:
            kings[colour] = square
            value += 10 * centre if endgame else -12 * rank - 4 * centre
        if kind != chess.KING:
            material[colour] += _VALUE[kind]
        score += value if colour == chess.WHITE else -value
    score += _mop_up(kings, material)
    return score if board.turn == chess.WHITE else -score


def _mop_up(kings: dict[bool, int], material: dict[bool, int]) -> int:
    """Push a bare king to the edge and bring the other king close (white's view)."""
    for strong in (chess.WHITE, chess.BLACK):
        weak = not strong
        if material[weak] == 0 and material[strong] >= _VALUE[chess.ROOK] and len(kings) == 2:
            edge = _centre_distance(kings[weak])
            near = 14 - chess.square_manhattan_distance(kings[strong], kings[weak])
            bonus = 20 * edge + 6 * near
            return bonus if strong == chess.WHITE else -bonus
    return 0


def _ordered(board: chess.Board, moves: list[chess.Move]) -> list[chess.Move]:
    def key(move: chess.Move) -> int:
        victim = board.piece_type_at(move.to_square)
        gain = 10 * _VALUE[victim] if victim else (800 if board.is_en_passant(move) else 0)
        attacker = board.piece_type_at(move.from_square) or chess.PAWN
        promo = _VALUE[move.promotion] if move.promotion else 0
        return -(gain + promo - (_VALUE[attacker] if victim else 0))

    return sorted(moves, key=key)


class PythonEngine:
    """Alpha-beta search in pure Python (python-chess move generation).

    Args:
        max_depth: the deepest search it will run, whatever a skill level asks for
            (each ply costs roughly 20-30 times the one before in Python).

    Example:
        >>> engine = PythonEngine()
        >>> board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
        >>> engine.analyse(board, depth=2, multipv=1)[0].move.uci()  # back-rank mate
        'a1a8'

    """

    name = "turngym's pure-Python engine"

    def __init__(self, max_depth: int = 2) -> None:
        if not 1 <= max_depth <= 4:
            raise ValueError(f"max_depth must be 1..4, got {max_depth!r}")
        self.max_depth = max_depth
        self.nodes = 0

    def analyse(self, board: chess.Board, depth: int, multipv: int) -> list[ScoredMove]:
        """The ``multipv`` best moves, best first (exact scores for those, bounds skipped)."""
        board = board.copy()
        depth = max(1, min(depth, self.max_depth))
        best: list[ScoredMove] = []
        for move in _ordered(board, list(board.legal_moves)):
            floor = best[-1].score if len(best) >= multipv else -_INF
            board.push(move)
            if board.is_repetition(2) or board.can_claim_fifty_moves():
                score = 0
            else:
                score = -self._negamax(board, depth - 1, -_INF, -floor, 1)
            board.pop()
            if score > floor or len(best) < multipv:
                best.append(ScoredMove(move, score))
                best.sort(key=lambda s: -s.score)
                del best[multipv:]
        return best

    def _negamax(self, board: chess.Board, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        moves = list(board.legal_moves)
        if not moves:
            return -(MATE_SCORE - ply) if board.is_check() else 0
        if board.is_insufficient_material() or board.halfmove_clock >= 100:
            return 0
        if depth <= 0:
            return self._quiescence(board, alpha, beta, 0)
        for move in _ordered(board, moves):
            board.push(move)
            score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1)
            board.pop()
            if score >= beta:
                return score
            alpha = max(alpha, score)
        return alpha

    def _quiescence(self, board: chess.Board, alpha: int, beta: int, qply: int) -> int:
        self.nodes += 1
        stand = evaluate(board)
        if stand >= beta or qply >= _QUIESCENCE_PLIES:
            return stand
        alpha = max(alpha, stand)
        captures = [m for m in board.legal_moves if board.is_capture(m) or m.promotion]
        for move in _ordered(board, captures):
            board.push(move)
            score = -self._quiescence(board, -beta, -alpha, qply + 1)
            board.pop()
            if score >= beta:
                return score
            alpha = max(alpha, score)
        return alpha
