"""Play in the browser (turngym/view/play.py) through Starlette's TestClient."""

from __future__ import annotations

import re
import threading
import time
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import turngym.view.play as play
from turngym.sdk.episode_files import load_episodes
from turngym.view.app import create_app

TEMPLATES = Path(play.__file__).parent / "templates"
BASE = "http://127.0.0.1:8000"
ORIGIN = {"origin": BASE}


def make_app(play_dir: Path | None) -> FastAPI:
    return create_app([play_dir or Path(".")], play_dir=play_dir)


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(make_app(tmp_path), base_url=BASE, headers=ORIGIN)


def start(client: TestClient, env: str, seat_0: str, seat_1: str = "", seed: int = 0) -> str:
    form = {"env": env, "seat_0": seat_0, "seat_1": seat_1, "seed": str(seed)}
    r = client.post("/play/new", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    return str(r.headers["location"])


def buttons(html: str) -> list[str]:
    return [unescape(v) for v in re.findall(r'name="action" value="([^"]*)"', html)]


def observation(html: str) -> str:
    match = re.search(r'id="observation">(.*?)</pre>', html, re.S)
    assert match is not None
    return unescape(match.group(1))


def test_tictactoe_against_the_expert_to_the_end_is_saved_and_loads(
    client: TestClient, tmp_path: Path
) -> None:
    game = start(client, "TicTacToe-v0", "human", "expert")
    page = client.get(game).text
    assert buttons(page) == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    assert "You are X (player_0)" in observation(page)
    # an illegal cell: the game's own invalid-action observation, and a retry
    page = client.post(f"{game}/act", data={"action": "zz"}).text
    assert "Invalid action &#39;zz&#39;" in page
    assert buttons(page) == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    played = ["zz"]
    while 'id="result"' not in page:
        move = buttons(page)[0]
        played.append(move)
        page = client.post(f"{game}/act", data={"action": move}).text
    assert "Game over: player_0 (you)" in page
    assert 'id="saved"' in page
    (saved,) = tmp_path.glob("play-*-TicTacToe-v0-*.jsonl")
    (ep,) = load_episodes(saved)
    assert ep.env_id == "turngym/TicTacToe-v0" and ep.seed == 0
    assert [t.action for t in ep.turns if t.agent == "player_0"] == played
    assert ep.turns[0].info["invalid_action"] is True
    assert ep.returns["player_1"] == 1.0 and ep.returns["player_0"] == -1.0  # never beats it
    assert ep.success is False  # the person's seat decides
    assert ep.meta["agents"] == {"player_0": "human", "player_1": "expert"}
    assert sum(t.reward for t in ep.turns if t.agent == "player_0") == ep.returns["player_0"]
    # the finished game refuses more moves
    assert client.post(f"{game}/act", data={"action": "a1"}).status_code == 409


def test_expert_first_moves_before_the_person_sees_the_board(client: TestClient) -> None:
    game = start(client, "TicTacToe-v0", "expert", "human")
    page = client.get(game).text
    assert "player_0 (expert)" in page
    assert len(buttons(page)) == 8  # the expert's mark is down


def test_wordle_alone_through_the_text_box(client: TestClient, tmp_path: Path) -> None:
    game = start(client, "Wordle-v0", "human", seed=3)
    page = client.get(game).text
    assert 'id="action"' in page and not buttons(page)  # thousands of words: a text box
    page = client.post(f"{game}/act", data={"action": "qqqqq"}).text
    assert "invalid" in page
    guesses = ["crane", "slate", "pious", "dumpy", "fight", "wreck"]
    for word in guesses:
        if 'id="result"' in page:
            break
        page = client.post(f"{game}/act", data={"action": word}).text
    assert "Episode over:" in page
    (ep,) = load_episodes(tmp_path)
    assert ep.env_id == "turngym/Wordle-v0" and ep.seed == 3
    assert ep.turns[0].action == "qqqqq" and ep.turns[0].info["invalid_action"]
    assert [t.action for t in ep.turns[1:]] == guesses[: len(ep.turns) - 1]
    assert ep.returns["agent"] == pytest.approx(sum(t.reward for t in ep.turns))
    assert ep.turns[-1].done


def test_random_against_the_expert_without_a_person(client: TestClient, tmp_path: Path) -> None:
    game = start(client, "TicTacToe-v0", "random", "expert", seed=5)
    page = client.get(game).text
    assert 'id="next"' in page and not buttons(page)
    page = client.post(f"{game}/next", data={}).text
    assert page.count('class="play-turn') == 1
    page = client.post(f"{game}/next", data={"to_end": "1"}).text
    assert 'id="result"' in page
    (ep,) = load_episodes(tmp_path)
    assert ep.returns["player_1"] >= 0.0 and sum(ep.returns.values()) == 0.0
    assert {t.agent for t in ep.turns} == {"player_0", "player_1"}
    assert client.post(f"{game}/act", data={"action": "a1"}).status_code == 409


def test_read_only_viewer_says_episodes_are_not_saved(tmp_path: Path) -> None:
    client = TestClient(make_app(None), base_url=BASE, headers=ORIGIN)
    assert "not saved" in client.get("/play").text
    game = start(client, "TicTacToe-v0", "random", "expert")
    page = client.post(f"{game}/next", data={"to_end": "1"}).text
    assert 'id="result"' in page and 'id="not-saved"' in page
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("form", "status", "said"),
    [
        ({"env": "TicTacToo-v0", "seat_0": "human"}, 404, "did you mean TicTacToe-v0?"),
        ({"env": "WebShop-v0", "seat_0": "human"}, 400, "WebShop-v0 is a web env"),
        ({"env": "TicTacToe-v0", "seat_0": "wizard"}, 400, "agents are human, random"),
        ({"env": "TicTacToe-v0", "seat_0": "hf:/no/such/dir"}, 400, "no model directory"),
        ({"env": "TicTacToe-v0", "seat_0": "human", "seed": "-1"}, 400, "seed must be"),
        ({"env": "TicTacToe-v0", "seat_0": "human", "seed": "\u00b2"}, 400, "seed must be"),
        ({"env": "TicTacToe-v0", "seat_0": "x" * 5000}, 400, "over 4000 characters"),
    ],
)
def test_bad_starts_are_one_line_errors(
    client: TestClient, form: dict[str, str], status: int, said: str
) -> None:
    r = client.post("/play/new", data=form, follow_redirects=False)
    assert r.status_code == status
    assert said in unescape(r.text)
    assert len(play.sessions(client.app)) == 0


def test_unknown_env_in_the_link_suggests_one(client: TestClient) -> None:
    r = client.get("/play", params={"env": "Wordel-v0"})
    assert r.status_code == 404 and "did you mean Wordle-v0?" in r.text


def test_bad_requests_on_a_game_are_clean_4xx(client: TestClient) -> None:
    game = start(client, "TicTacToe-v0", "human", "expert")
    assert client.get("/play/nosuchgame").status_code == 404
    assert client.post("/play/nosuchgame/act", data={"action": "a1"}).status_code == 404
    r = client.post(f"{game}/act", data={"action": "a" * 5000})
    assert r.status_code == 400 and "over 4000 characters" in r.text
    r = client.post(f"{game}/act", content=b"action=" + b"a" * 40_000)
    assert r.status_code == 400
    assert client.post(f"{game}/act", data={}).status_code == 400
    # the refused requests left the game as it was
    assert len(buttons(client.get(game).text)) == 9


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example"},
        {"origin": "null"},
        {"origin": "http://127.0.0.1:8000.evil.example"},
        {"origin": "http://127.0.0.1:8001"},
        {"referer": "http://evil.example/page"},
    ],
)
def test_cross_site_posts_are_refused(client: TestClient, headers: dict[str, str]) -> None:
    game = start(client, "TicTacToe-v0", "human", "expert")
    bare = TestClient(client.app, base_url=BASE, headers=headers)
    assert bare.post(f"{game}/act", data={"action": "b2"}).status_code == 403
    form = {"env": "TicTacToe-v0", "seat_0": "human"}
    assert bare.post("/play/new", data=form).status_code == 403
    assert len(buttons(client.get(game).text)) == 9  # nothing was played


def test_a_post_without_origin_or_referer_is_refused_and_a_referer_suffices(
    client: TestClient,
) -> None:
    game = start(client, "TicTacToe-v0", "human", "expert")
    bare = TestClient(client.app, base_url=BASE)
    assert bare.post(f"{game}/act", data={"action": "b2"}).status_code == 403
    own = TestClient(client.app, base_url=BASE, headers={"referer": game})
    assert own.post(f"{game}/act", data={"action": "b2"}, follow_redirects=False).status_code == 303


class _Fake:
    def __init__(self, sid: str) -> None:
        self.id, self.used, self.closed = sid, time.monotonic(), False
        self.lock = threading.Lock()

    def close(self) -> None:
        self.closed = True


def test_store_closes_the_least_recently_used_beyond_its_limit() -> None:
    store = play.SessionStore(limit=2)
    a, b, c = _Fake("a"), _Fake("b"), _Fake("c")
    store.add(a)  # type: ignore[arg-type]
    store.add(b)  # type: ignore[arg-type]
    b.used = a.used - 1.0  # b is the older one now
    store.add(c)  # type: ignore[arg-type]
    assert b.closed and not a.closed and not c.closed and len(store) == 2
    with pytest.raises(play.PlayError):
        store.get("b")


def test_idle_games_are_closed_and_gone(client: TestClient) -> None:
    game = start(client, "TicTacToe-v0", "human", "expert")
    store = play.sessions(client.app)
    (session,) = store._sessions.values()
    closed: list[Any] = []
    session.env.close = lambda: closed.append(True)  # type: ignore[method-assign]
    session.used -= play.IDLE_TIMEOUT_S + 1
    assert client.get(game).status_code == 404
    assert closed == [True] and len(store) == 0


def test_live_games_are_capped_and_the_evicted_one_closed(client: TestClient) -> None:
    first = start(client, "TicTacToe-v0", "human", "expert")
    (oldest,) = play.sessions(client.app)._sessions.values()
    for _ in range(play.MAX_SESSIONS):
        start(client, "TicTacToe-v0", "human", "expert")
    assert len(play.sessions(client.app)) == play.MAX_SESSIONS
    assert client.get(first).status_code == 404
    assert oldest._closed


def test_the_env_is_closed_when_the_episode_ends(client: TestClient) -> None:
    game = start(client, "TicTacToe-v0", "random", "expert")
    (session,) = play.sessions(client.app)._sessions.values()
    closed: list[bool] = []
    real_close = session.env.close
    session.env.close = lambda: closed.append(True) or real_close()  # type: ignore[method-assign]
    client.post(f"{game}/next", data={"to_end": "1"})
    assert session.done and closed == [True]
    assert "Game over" in client.get(game).text  # the page is still there, from the record


def test_an_env_that_cannot_start_is_a_400(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turngym

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("stockfish is not installed")

    monkeypatch.setattr(turngym, "make", broken)
    r = client.post("/play/new", data={"env": "Wordle-v0", "seat_0": "human"})
    assert r.status_code == 400
    assert "cannot start Wordle-v0: stockfish is not installed" in r.text


def test_random_players_of_a_free_form_game_make_well_formed_moves(client: TestClient) -> None:
    game = start(client, "SimpleNegotiation-v0", "random", "random", seed=2)
    client.post(f"{game}/next", data={"to_end": "1"})
    ep = play.sessions(client.app)._sessions[game.rsplit("/", 1)[1]].episode
    assert ep is not None and ep.turns
    assert not any(t.info.get("invalid_action") for t in ep.turns)


class _Babbler:
    """A stand-in model agent that never says a legal move."""

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        return "I think the answer is 42"


def test_a_model_that_babbles_forfeits_beside_a_person(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turngym.sdk.agents

    monkeypatch.setattr(turngym.sdk.agents, "make_agent", lambda *a, **k: _Babbler())
    game = start(client, "TicTacToe-v0", "human", "hf:some-model")
    page = client.post(f"{game}/act", data={"action": "b2"}).text
    assert "Game over: player_0 (you) won" in page  # 3 invalid replies in a row, not 29
    ep = play.sessions(client.app)._sessions[game.rsplit("/", 1)[1]].episode
    assert ep is not None and [t.agent for t in ep.turns].count("player_1") == 3


def test_a_post_to_a_rebound_name_is_refused(client: TestClient) -> None:
    """DNS rebinding: evil.example re-pointed at 127.0.0.1 posts same-origin to itself."""
    game = start(client, "TicTacToe-v0", "human", "expert")
    evil = "http://evil.example:8000"
    rebound = TestClient(client.app, base_url=evil, headers={"origin": evil})
    sid = game.rsplit("/", 1)[1]
    r = rebound.post(f"/play/{sid}/act", data={"action": "b2"})
    assert r.status_code == 403 and "open the viewer as localhost" in unescape(r.text)
    assert rebound.post("/play/new", data={"env": "TicTacToe-v0"}).status_code == 403
    assert len(buttons(client.get(game).text)) == 9
