"""Play in the browser: ``router`` (``/play``) lets a person play any text env or game.

A person picks an env (the ``text``, ``classic`` and ``games`` families) and who plays
each seat: ``human`` (the person at the browser), ``random``, ``expert``, ``hf:DIR`` or
``openai:URL``, the agent names ``turngym eval --agent`` takes. The game lives on the
server in a ``PlaySession`` keyed by an unguessable id; agents' moves are computed there
after each human move, until it is the person's turn again or the episode ends. A game
of agents only moves on the page's "next move" / "play to the end" buttons. Finished
episodes are written with ``EpisodeWriter`` (schema v1) into ``app.state.play_dir``,
one file per episode, ``play-YYYYMMDD-HHMMSS-<Name>-<hex>.jsonl``, so
``load_episodes(play_dir)`` reads them all back; ``play_dir`` None (a read-only
viewer) saves nothing and the page says so. A person's invalid action gets the env's
own invalid-action observation and, unless a model plays too, unlimited retries (as in
``turngym play``); beside a model the env's own rule holds for everyone.

The server runs on localhost, where any web page could post to it: every state change
is a POST whose ``Origin`` (or ``Referer``) must be the server itself, reached as
``localhost`` or by IP address (a DNS-rebinding guard); bodies and fields are bounded;
at most ``MAX_SESSIONS`` games live at once (the least recently used is closed to make
room), a game idle for ``IDLE_TIMEOUT_S`` is closed, and an env is closed as soon as
its episode ends.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import fastapi
from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from turngym.registry import ENVS, EnvEntry, entry
from turngym.sdk.records import Decision, Episode, Turn
from turngym.sdk.rollout import GameProgress, decide, make_turn

__all__ = [
    "IDLE_TIMEOUT_S",
    "MAX_FIELD_CHARS",
    "MAX_SESSIONS",
    "PLAYABLE_FAMILIES",
    "PlayError",
    "PlaySession",
    "SessionStore",
    "parse_seats",
    "router",
]

router = fastapi.APIRouter(prefix="/play")

PLAYABLE_FAMILIES = ("text", "classic", "games")
"""The families a person can play here (web, desktop and SWE envs need their own screens)."""
MAX_SESSIONS = 16
"""Games alive at once; a new one closes the least recently used."""
IDLE_TIMEOUT_S = 1800.0
"""A game nobody touched for this long is closed."""
MAX_FIELD_CHARS = 4000
"""The longest form field (an action, an agent name) a request may send."""
MAX_BODY_BYTES = 32 << 10
"""The largest form body a request may send."""
MAX_BUTTONS = 100
"""Legal actions shown as buttons up to this many; a text box beyond."""
HUMAN = "human"
_PLAIN_AGENTS = (HUMAN, "random", "expert")
_MODEL_KINDS = ("hf:", "openai:")
_HARD_TURN_CAP = 10_000  # an env without a time limit still ends a "play to the end"


class PlayError(Exception):
    """A request the page refuses, with the HTTP status and a one-line reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def playable(row: EnvEntry) -> bool:
    """Whether ``row`` is a text env or game (the families this page plays)."""
    return row.family in PLAYABLE_FAMILIES


def parse_seats(row: EnvEntry, given: dict[str, str], n_seats: int) -> dict[str, str]:
    """Who plays each seat, from the form's ``seat_K`` fields (``random`` when left out).

    Single-agent envs have one seat, ``agent`` (the form's ``seat_0``); games have
    ``player_0`` ... ``player_{n-1}``.

    >>> parse_seats(entry("TicTacToe-v0"), {"seat_0": "human", "seat_1": "expert"}, 2)
    {'player_0': 'human', 'player_1': 'expert'}

    Raises:
        PlayError: a name that is not an agent, or ``expert`` where the env has none.

    """
    names = ["agent"] if row.game is None else [f"player_{k}" for k in range(n_seats)]
    seats: dict[str, str] = {}
    for k, seat in enumerate(names):
        kind = given.get(f"seat_{k}", "").strip() or "random"
        if kind not in _PLAIN_AGENTS and not kind.startswith(_MODEL_KINDS):
            raise PlayError(
                400,
                f"seat_{k}: agents are human, random, expert, hf:DIR or openai:URL, got {kind!r}",
            )
        if kind == "expert" and row.expert is None:
            raise PlayError(400, f"seat_{k}: {row.name} has no expert; use random or a model")
        seats[seat] = kind
    return seats


@dataclass
class Entry:
    """One line of the transcript a page shows: what a seat saw, did and got."""

    who: str
    seen: str = ""
    action: str | None = None
    turn: Turn | None = None
    invalid: bool = False
    reason: str = ""

    @property
    def reward(self) -> float:
        """What the move earned so far (in games: until the seat's next move)."""
        return self.turn.reward if self.turn is not None else 0.0


class _GameRandom:
    """A game's ``random`` player: ``game.sample_action`` (``turngym play --opponent random``).

    ``RandomAgent`` answers free-form games (negotiation) with random text, always invalid;
    the game's own sampler makes random well-formed offers and replies.
    """

    def __init__(self, game: Any, seed: int) -> None:
        import numpy as np

        self.game = game
        self.rng = np.random.default_rng(seed)

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """A random well-formed action for the player to move."""
        return str(self.game.sample_action(self.rng))


def _text(obs: Any) -> str:
    """The text of an observation (a game's ``{"text", ...}`` dict or a plain string)."""
    if isinstance(obs, dict):
        return str(obs.get("text", ""))
    return str(obs)


@dataclass
class PlaySession:
    """One episode being played: the env or game, who plays each seat, the record so far.

    Args:
        env_id: the registered id.
        seats: seat -> agent name (``agent`` for single-agent envs, ``player_K`` in games).
        seed: the episode's seed.

    """

    env_id: str
    seats: dict[str, str]
    seed: int
    id: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    used: float = field(default_factory=time.monotonic)
    started: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    log: list[Entry] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    done: bool = False
    episode: Episode | None = None
    saved: Path | None = None
    error: str = ""
    summary: str = ""
    final_board: str = ""
    success: bool = False
    _closed: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        import turngym
        from turngym.sdk.agents import make_agent

        self.row = entry(self.env_id)
        self.is_game = self.row.game is not None
        kwargs: dict[str, Any] = {}
        kinds = set(self.seats.values())
        if (
            HUMAN in kinds
            and not any(k.startswith(_MODEL_KINDS) for k in kinds)
            and "max_invalid_actions" in self.row.kwarg_names()
        ):
            # A person's typo gets a retry, not a loss (as in `turngym play`). Not beside a
            # model: its invalid replies forfeit under the env's own rule, as in training.
            kwargs["max_invalid_actions"] = None
        try:
            self.env: Any = (
                turngym.make_game(self.row.id, render_mode="ansi", **kwargs)
                if self.is_game
                else turngym.make(self.row.id, **kwargs)
            )
        except Exception as error:  # a missing engine binary...: said on the page, not a 500
            raise PlayError(400, f"cannot start {self.row.name}: {error}".splitlines()[0]) from None
        if self.is_game and list(self.seats) != list(self.env.possible_agents):
            self.env.close()
            raise PlayError(400, f"{self.row.name} has seats {self.env.possible_agents}")
        self.agents: dict[str, Any] = {}
        models: dict[str, Any] = {}  # one model serves every seat that names it
        try:
            for k, (seat, kind) in enumerate(self.seats.items()):
                if kind == HUMAN:
                    continue
                if kind.startswith(_MODEL_KINDS):
                    if kind not in models:
                        models[kind] = make_agent(kind, self.env, seed=self.seed)
                    self.agents[seat] = models[kind]
                    continue
                if kind == "random" and self.is_game:  # well-formed moves, also free-form
                    self.agents[seat] = _GameRandom(self.env, self.seed + k)
                    continue
                extra = {"env_id": self.row.id} if kind == "expert" else {}
                agent = make_agent(kind, self.env, seed=self.seed + k, **extra)
                agent.reset(seed=self.seed + k)
                self.agents[seat] = agent
        except (ValueError, TypeError, ImportError) as error:  # a bad dir, a missing extra
            self.env.close()
            raise PlayError(400, str(error).splitlines()[0]) from None
        for agent in models.values():
            agent.reset(seed=self.seed)
        # The rollout collector's bookkeeping (turns, rewards, who moves next), shared.
        self.progress = GameProgress(returns=dict.fromkeys(self.seats, 0.0))
        self.max_turns = self.row.max_episode_steps if self.is_game else None
        if self.is_game:
            self.env.reset(seed=self.seed)
            self.progress.seat, self.progress.obs, self.progress.info = "", None, {}
            self._settle()
        else:
            self.progress.seat = "agent"
            self.progress.obs, self.progress.info = self.env.reset(seed=self.seed)

    # -- what the page shows -----------------------------------------------------------

    @property
    def humans(self) -> list[str]:
        """The seats a person plays."""
        return [s for s, kind in self.seats.items() if kind == HUMAN]

    @property
    def awaiting_human(self) -> bool:
        """It is a person's turn."""
        return not self.done and self.seats.get(self.progress.seat) == HUMAN

    def label(self, seat: str) -> str:
        """How the page names a seat: ``you`` or the agent, with the game seat."""
        kind = "you" if self.seats[seat] == HUMAN else self.seats[seat]
        return kind if seat == "agent" else f"{seat} ({kind})"

    def legal_actions(self) -> list[str]:
        """The legal actions of the seat to move, as the env lists them ([] when it does not)."""
        if self.done:
            return []
        return [str(a) for a in self.progress.info.get("legal_actions") or []]

    def board(self) -> str:
        """The text to show in the box: the mover's observation, or the whole game."""
        if self.done:
            return self.final_board
        if not self.is_game or self.awaiting_human:
            return _text(self.progress.obs)
        # between a person's turns, or a game of agents: the whole game, hidden cards too
        return str(self.env.render() or "")

    def outcome(self) -> str:
        """One line on how the episode ended (empty while it goes on)."""
        return self.summary

    # -- playing -------------------------------------------------------------------------

    def human_move(self, action: str) -> None:
        """Play a person's action, then the agents' turns up to the next person's turn.

        Raises:
            PlayError: the episode is over, or it is an agent's turn.

        """
        if self.done:
            raise PlayError(409, "the episode is over; start a new one")
        if not self.awaiting_human:
            raise PlayError(409, "it is not your turn; press 'next move'")
        self._act(Decision(action))
        self.run_agents(_HARD_TURN_CAP)

    def run_agents(self, moves: int) -> None:
        """Let the agents play up to ``moves`` turns, stopping at a person's turn or the end."""
        while moves > 0 and not self.done and not self.awaiting_human:
            agent = self.agents[self.progress.seat]
            try:
                [decision] = decide(agent, [self.progress.obs], [self.progress.info])
                decision = Decision(str(decision.action), decision.turn)
            except Exception as error:  # a model server down: said on the page, not a 500
                self.error = (
                    f"{self.seats[self.progress.seat]} failed to act: {error}".splitlines()[0]
                )
                return
            self._act(decision, agent)
            moves -= 1

    def _act(self, decision: Decision, agent: Any = None) -> None:
        seat, obs, seen = self.progress.seat, self.progress.obs, self.progress.info
        action = decision.action
        turn = make_turn(obs, seen, decision, agent, seat)
        shown = self.seats[seat] == HUMAN or not self.humans
        self.log.append(
            Entry(
                who=self.label(seat),
                seen=_text(obs) if shown else "",
                action=action,
                turn=turn,
            )
        )
        if self.is_game:
            self.progress.play(self.env, turn, action)
            self._note(turn.info)
            self._settle()
            return
        self.progress.turns.append(turn)
        obs, reward, terminated, truncated, info = self.env.step(action)
        turn.reward = float(reward)
        turn.terminated, turn.truncated = bool(terminated), bool(truncated)
        turn.info = dict(info)
        self.progress.returns["agent"] += turn.reward
        self._note(info)
        self.progress.obs, self.progress.info = obs, info
        if terminated or truncated:
            self.success = bool(info.get("success", False))
            self.progress.final_obs = {"agent": obs}
            self._finish()

    def _note(self, info: dict[str, Any]) -> None:
        """Mark the last transcript line invalid when the env said so."""
        self.log[-1].invalid = bool(info.get("invalid_action", False))
        self.log[-1].reason = str(info.get("invalid_reason", ""))

    def _settle(self) -> None:
        """Run the game to its next live player, or record the episode when it is over."""
        if self.progress.settle(self.env, self.max_turns):
            self._finish()

    def _finish(self) -> None:
        """Record the episode, say how it ended, and close the env (nothing more to do)."""
        meta: dict[str, Any] = {"source": "play", "agents": dict(self.seats)}
        if self.is_game:
            inner = getattr(self.env, "unwrapped", self.env)
            won = {s: bool(inner.success(s)) for s in self.seats}
            people = self.humans or list(self.seats)  # a person's win is the success
            success = any(won[s] for s in people)
            parts = [
                f"{self.label(s)} {'won' if won[s] else 'did not win'} "
                f"(return {self.progress.returns[s]:+g})"
                for s in self.seats
            ]
            self.summary = "Game over: " + "; ".join(parts) + f". Success: {success}."
            mine = self.progress.final_obs.get(people[0]) if len(self.humans) == 1 else None
            self.final_board = _text(mine) if mine is not None else str(self.env.render() or "")
        else:
            success = self.success
            end = "solved" if success else "not solved"
            ret = self.progress.returns["agent"]
            self.summary = f"Episode over: {end} (success={success}), return {ret:+g}."
            self.final_board = _text(self.progress.obs)
        self.done = True
        self.close()
        self.episode = Episode(
            env_id=self.row.id,
            seed=self.seed,
            group=0,
            turns=self.progress.turns,
            returns=dict(self.progress.returns),
            success=success,
            final_obs=dict(self.progress.final_obs),
            index=0,
            meta=meta,
        )

    def save(self, folder: Path) -> Path:
        """Write the finished episode to a new file in ``folder`` (schema v1); its path."""
        from turngym.sdk.episode_files import EpisodeWriter

        assert self.episode is not None
        stamp = self.started.strftime("%Y%m%d-%H%M%S")
        path = folder / f"play-{stamp}-{self.row.name}-{secrets.token_hex(4)}.jsonl"
        with EpisodeWriter(path) as writer:
            writer.write([self.episode])
        self.saved = path
        return path

    def close(self) -> None:
        """Close the env (and whatever it started); again is a no-op."""
        if not self._closed:
            self._closed = True
            self.env.close()


class SessionStore:
    """The live games of one app: a bounded number, each closed when it goes.

    Args:
        limit: games alive at once; adding one more closes the least recently used.
        idle_s: a game untouched for this many seconds is closed.

    """

    def __init__(self, limit: int = MAX_SESSIONS, idle_s: float = IDLE_TIMEOUT_S) -> None:
        self.limit = limit
        self.idle_s = idle_s
        self._sessions: dict[str, PlaySession] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def add(self, session: PlaySession) -> None:
        """Keep ``session``, closing the oldest ones beyond the limit."""
        gone: list[PlaySession] = []
        with self._lock:
            gone += self._expired()
            while len(self._sessions) >= self.limit:
                oldest = min(self._sessions.values(), key=lambda s: s.used)
                gone.append(self._sessions.pop(oldest.id))
            self._sessions[session.id] = session
        for old in gone:
            with old.lock:  # after a move in flight on it
                old.close()

    def get(self, sid: str) -> PlaySession:
        """The live session ``sid``, marked as used.

        Raises:
            PlayError: 404 when there is none (never was, ended, expired or evicted).

        """
        with self._lock:
            gone = self._expired()
            session = self._sessions.get(sid)
            if session is not None:
                session.used = time.monotonic()
        for old in gone:
            with old.lock:
                old.close()
        if session is None:
            raise PlayError(404, "no such game: it ended, expired or never was")
        return session

    def close_all(self) -> None:
        """Close every session (the server is stopping)."""
        with self._lock:
            gone, self._sessions = list(self._sessions.values()), {}
        for old in gone:
            with old.lock:
                old.close()

    def _expired(self) -> list[PlaySession]:
        now = time.monotonic()
        dead = [s for s in self._sessions.values() if now - s.used > self.idle_s]
        for s in dead:
            del self._sessions[s.id]
        return dead


_STORE_LOCK = threading.Lock()


def sessions(app: Any) -> SessionStore:
    """The app's ``SessionStore`` (made on first use, kept on ``app.state``)."""
    with _STORE_LOCK:
        store = getattr(app.state, "play_sessions", None)
        if store is None:
            store = SessionStore()
            app.state.play_sessions = store
    return store


# -- requests ----------------------------------------------------------------------------


def _local_name(host: str) -> bool:
    """Whether ``host`` (``name:port``) is ``localhost`` or an IP address.

    >>> [_local_name(h) for h in ("127.0.0.1:8000", "[::1]:80", "localhost", "evil.example:80")]
    [True, True, True, False]
    """
    import ipaddress

    name = urlsplit(f"//{host}").hostname or ""
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _same_origin(request: Request) -> None:
    """Refuse a POST that another site's page made (the server listens on localhost).

    Browsers send ``Origin`` on every cross-site POST; it (or, without it, ``Referer``)
    must name this server's own host and port. The server must also have been reached
    as ``localhost`` or by IP address: a page of ``evil.example`` whose name was
    re-pointed at 127.0.0.1 (DNS rebinding) is same-origin with itself.
    """
    host = request.headers.get("host", "")
    if not _local_name(host):
        raise PlayError(
            403, f"refused: reached as {host!r}; open the viewer as localhost or by IP address"
        )
    claimed = request.headers.get("origin") or request.headers.get("referer")
    if not claimed or claimed == "null":
        raise PlayError(403, "refused: a POST must come from this server's own pages")
    parts = urlsplit(claimed)
    if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
        raise PlayError(403, f"refused: a POST from {parts.netloc or claimed!r}, not {host!r}")


async def _form(request: Request) -> dict[str, str]:
    """The URL-encoded form of a POST, bounded in size and field length."""
    _same_origin(request)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in ("", "application/x-www-form-urlencoded"):
        raise PlayError(400, f"expected a form (application/x-www-form-urlencoded), got {kind}")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise PlayError(400, f"the form is over {MAX_BODY_BYTES} bytes")
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=64)
    except (UnicodeDecodeError, ValueError) as error:
        raise PlayError(400, f"unreadable form: {error}") from None
    form: dict[str, str] = {}
    for key, value in pairs:
        if len(value) > MAX_FIELD_CHARS:
            raise PlayError(400, f"the field {key[:40]!r} is over {MAX_FIELD_CHARS} characters")
        form[key] = value
    return form


def _choices() -> list[tuple[str, list[EnvEntry]]]:
    """The playable rows by family, in the registry's order."""
    return [(fam, [r for r in ENVS if r.family == fam]) for fam in PLAYABLE_FAMILIES]


def _picker(request: Request, status: int = 200, error: str = "", **chosen: Any) -> Response:
    """The page to choose an env and its players (with ``error`` said on it)."""
    form = {"env": "turngym/TicTacToe-v0", "seat_0": HUMAN, "seat_1": "expert", "seed": ""}
    form.update({k: v for k, v in chosen.items() if v is not None})
    return request.app.state.templates.TemplateResponse(
        request,
        "play.html",
        {
            "families": _choices(),
            "form": form,
            "error": error,
            "play_dir": request.app.state.play_dir,
            "agents": ["human", "random", "expert", "hf:DIR", "openai:URL"],
        },
        status_code=status,
    )


def _game_page(request: Request, session: PlaySession) -> Response:
    legal = session.legal_actions() if session.awaiting_human else []
    again = urlencode(
        {"env": session.row.name, **{f"seat_{k}": v for k, v in enumerate(session.seats.values())}}
    )
    return request.app.state.templates.TemplateResponse(
        request,
        "play_game.html",
        {
            "s": session,
            "buttons": legal if len(legal) <= MAX_BUTTONS else [],
            "board": session.board(),
            "again": again,
            "play_dir": request.app.state.play_dir,
        },
    )


@router.get("", name="play_pick", include_in_schema=False)
def pick(
    request: Request,
    env: str | None = None,
    seat_0: str | None = None,
    seat_1: str | None = None,
) -> Response:
    """The form: an env and who plays each seat."""
    for value in (env, seat_0, seat_1):
        if value is not None and len(value) > MAX_FIELD_CHARS:
            return _picker(request, 400, f"a field is over {MAX_FIELD_CHARS} characters")
    if env is not None:
        try:
            env = entry(env).id
        except KeyError as error:
            return _picker(request, 404, str(error.args[0]))
    return _picker(request, env=env, seat_0=seat_0, seat_1=seat_1)


def _locked_play(request: Request, session: PlaySession, fn: Any, *args: Any) -> None:
    """Run ``fn(*args)`` on ``session`` alone (one request at a time), then save if it ended."""
    with session.lock:
        fn(*args)
        folder = request.app.state.play_dir
        if session.done and session.saved is None and folder is not None:
            try:
                session.save(Path(folder))
            except (OSError, ValueError) as error:
                session.error = f"could not save the episode: {error}".splitlines()[0]


def _to_game(request: Request, sid: str) -> Response:
    return RedirectResponse(str(request.url_for("play_game", sid=sid)), status_code=303)


@router.post("/new", name="play_new", include_in_schema=False)
async def new(request: Request) -> Response:
    """Start a game from the form and go to its page."""
    try:
        form = await _form(request)
    except PlayError as error:
        return _picker(request, error.status, error.message)
    name = form.get("env", "").strip()
    try:
        row = entry(name)
    except KeyError as error:
        return _picker(request, 404, str(error.args[0]), **form)
    if not playable(row):
        families = ", ".join(PLAYABLE_FAMILIES)
        return _picker(
            request, 400, f"{row.name} is a {row.family} env; here you play {families}", **form
        )
    missing = row.unavailable()
    if missing is not None:
        return _picker(request, 400, f"{row.name} cannot run here: {missing}", **form)
    raw_seed = form.get("seed", "").strip()
    if raw_seed and not (raw_seed.isascii() and raw_seed.isdigit() and len(raw_seed) <= 18):
        return _picker(request, 400, f"seed must be a whole number >= 0, got {raw_seed!r}", **form)
    seed = int(raw_seed) if raw_seed else secrets.randbelow(2**31)
    try:
        seats = parse_seats(row, form, 2)
        session = await run_in_threadpool(PlaySession, row.id, seats, seed)
    except PlayError as error:
        return _picker(request, error.status, error.message, **form)
    sessions(request.app).add(session)
    if session.humans:  # the agents before the person's first turn; agents alone wait
        await run_in_threadpool(_locked_play, request, session, session.run_agents, _HARD_TURN_CAP)
    return _to_game(request, session.id)


@router.get("/{sid}", name="play_game", include_in_schema=False)
def show(request: Request, sid: str) -> Response:
    """The live game: transcript, the board, the person's moves or the agents' buttons."""
    try:
        session = sessions(request.app).get(sid)
    except PlayError as error:
        return _picker(request, error.status, error.message)
    with session.lock:
        return _game_page(request, session)


@router.post("/{sid}/act", name="play_act", include_in_schema=False)
async def act(request: Request, sid: str) -> Response:
    """Play the person's action (the agents answer before the page comes back)."""
    try:
        form = await _form(request)
        session = sessions(request.app).get(sid)
        if "action" not in form:
            raise PlayError(400, "the form has no 'action' field")
        await run_in_threadpool(_locked_play, request, session, session.human_move, form["action"])
    except PlayError as error:
        return _picker(request, error.status, error.message)
    return _to_game(request, sid)


@router.post("/{sid}/next", name="play_next", include_in_schema=False)
async def next_move(request: Request, sid: str) -> Response:
    """Let the agents make one move, or (``to_end``) play until a person's turn or the end."""
    try:
        form = await _form(request)
        session = sessions(request.app).get(sid)
        moves = _HARD_TURN_CAP if form.get("to_end") else 1
        await run_in_threadpool(_locked_play, request, session, session.run_agents, moves)
    except PlayError as error:
        return _picker(request, error.status, error.message)
    return _to_game(request, sid)
