"""turngym view's app through FastAPI's TestClient: pages, filters, attacks, bad files."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("jinja2")

from fastapi.testclient import TestClient

from turngym.sdk.episode_files import EpisodeWriter
from turngym.sdk.records import Episode, Turn
from turngym.view import episode_index
from turngym.view.app import create_app
from turngym.view.demo import make_demo

RUN_A = "0/runs/grpo-tictactoe"
RUN_B = "0/runs/grpo-tictactoe-lr2"
STEP0 = f"{RUN_A}/episodes/eval-step-0000000.jsonl"
SCRIPT = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("view")
    make_demo(root)
    return root


@pytest.fixture(scope="module")
def client(demo: Path) -> TestClient:
    return TestClient(create_app([demo]))


def _png_name(demo: Path) -> str:
    return next((demo / "screens" / "images").iterdir()).name


def test_every_page_renders(client: TestClient, demo: Path) -> None:
    runs = client.get("/")
    assert runs.status_code == 200
    assert "grpo-tictactoe-lr2" in runs.text and "turngym/TicTacToe-v0" in runs.text
    run = client.get(f"/run/{RUN_A}")
    assert run.status_code == 200
    assert 'id="metrics-data"' in run.text and "uPlot.iife.min.js" in run.text
    assert "eval_success" in run.text and "&#34;lr&#34;" in run.text  # the config
    data = json.loads(run.text.split('id="metrics-data">')[1].split("</script>")[0])
    assert data["steps"][:3] == [0.0, 1.0, 2.0] and "reward" in data["series"]
    overlay = client.get(f"/run/{RUN_A}", params={"with": RUN_B})
    assert "grpo-tictactoe-lr2: reward" in overlay.text
    episodes = client.get("/episodes")
    assert episodes.status_code == 200 and "39 episodes" in episodes.text  # 2 x 3 x 6 + 3
    page = client.get("/episode", params={"file": STEP0, "n": 0})
    assert page.status_code == 200
    assert "a b c" in page.text and "invalid action" in page.text  # the board, the bad move
    compare = client.get("/compare", params={"a": RUN_A, "b": RUN_B})
    assert compare.status_code == 200 and "6 (env, seed, seat, mode) played by both" in compare.text
    steps = client.get("/compare", params={"a": RUN_A, "b": RUN_A, "a_step": 0, "b_step": 40})
    assert "@ 40" in steps.text and "6 (env, seed, seat, mode)" in steps.text
    assert client.get("/compare").status_code == 200
    picture = client.get(f"/file/0/screens/images/{_png_name(demo)}")
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    assert picture.content.startswith(b"\x89PNG")
    assert client.get("/static/uplot/LICENSE").status_code == 200


def test_episode_page_shows_screens_marks_events_and_swe(client: TestClient) -> None:
    text = client.get("/episode", params={"file": "0/screens/episodes.jsonl", "n": 0}).text
    assert text.count('class="screenshot"') == 5 and "/file/0/screens/images/" in text
    assert "marks-toggle" in text and 'class="mark"' in text  # set-of-marks from widgets
    assert "widget tree (" in text and "invalid action" in text
    assert "full reply" in text and "ParseAction" in text
    swe = client.get("/episode", params={"file": "0/swe/episodes.jsonl", "n": 0}).text
    assert 'class="diff"' in swe and "test_calc.py::test_add" in swe and "resolved" in swe
    assert "tool: submit" in swe
    record = client.get("/episode", params={"file": "0/screens/transcripts.jsonl", "n": 0}).text
    assert record.count('class="screenshot"') == 2 and 'class="mark"' in record


def test_episodes_table_paginates_and_filters(client: TestClient) -> None:
    first = client.get("/episodes", params={"per": 10}).text
    assert "page 1 of 4" in first and 'rel="next"' in first and 'rel="prev"' not in first
    last = client.get("/episodes", params={"per": 10, "page": 4}).text
    assert last.count("/episode?file=") == 9 and 'rel="prev"' in last
    run = client.get("/episodes", params={"run": RUN_A, "step": 40}).text
    assert "6 episodes" in run
    seed = client.get("/episodes", params={"seed": 2, "env": "TicTacToe"}).text
    assert "6 episodes" in seed
    won = client.get("/episodes", params={"success": "yes"}).text
    lost = client.get("/episodes", params={"success": "no"}).text
    n_won = int(won.split(" episode")[0].split(">")[-1])
    n_lost = int(lost.split(" episode")[0].split(">")[-1])
    assert n_won + n_lost == 39 and n_won > 0 and n_lost > 0
    bad = client.get("/episodes", params={"seed": "x"})
    assert bad.status_code == 400 and "seed must be an integer" in bad.text


@pytest.mark.parametrize(
    "url",
    [
        "/file/0/../../etc/passwd",
        "/file/0/%2e%2e/%2e%2e/etc/passwd",
        "/file/0/screens/..%2f..%2fetc%2fpasswd",
        "/file//etc/passwd",
        "/file/0//etc/passwd",
        "/file/7/x.png",
        "/file/0/runs/grpo-tictactoe/metrics.jsonl",  # not a picture: never served
        "/episode?file=0/../../etc/passwd&n=0",
        "/episode?file=/etc/passwd&n=0",
        "/episode?file=0/%2e%2e/x.jsonl&n=0",
        f"/episode?file={STEP0}&n=99",
        "/run/0/..",
        "/run/0/runs/%2e%2e/runs/grpo-tictactoe",
    ],
)
def test_traversal_is_404(client: TestClient, url: str) -> None:
    assert client.get(url).status_code == 404


def test_dotdot_never_leaves_the_root(tmp_path: Path) -> None:
    (tmp_path / "secret.png").write_bytes(b"\x89PNG secret")
    (tmp_path / "eps.jsonl").write_text(json.dumps({"env_id": "x", "steps": []}) + "\n")
    root = tmp_path / "root"
    root.mkdir()
    client = TestClient(create_app([root]))
    for url in [
        "/file/0/..%2Fsecret.png",  # %2F survives the client's own path clean-up
        "/file/0/%2e%2e%2Fsecret.png",
        f"/file/0/..%2F..%2F{tmp_path.parent.name}%2F{tmp_path.name}%2Fsecret.png",
        "/episode?file=0/../eps.jsonl&n=0",
        "/episode?file=0/%2e%2e/eps.jsonl&n=0",
        f"/episode?file=0/{tmp_path}/eps.jsonl&n=0",
        f"/episode?file={tmp_path}/eps.jsonl&n=0",
    ]:
        answer = client.get(url)
        assert answer.status_code == 404, url
        assert b"secret" not in answer.content


def test_a_root_given_as_a_file_shows_only_that_file(demo: Path) -> None:
    client = TestClient(create_app([demo / "screens" / "transcripts.jsonl"]))
    assert "1 episode " in client.get("/episodes").text
    page = client.get("/episode", params={"file": "0/transcripts.jsonl", "n": 0})
    assert page.status_code == 200
    picture = page.text.split('src="')[1].split('"')[0]
    assert client.get(picture).status_code == 200  # its images/ beside it
    assert client.get("/episode", params={"file": "0/episodes.jsonl", "n": 0}).status_code == 404


def test_symlinks_fifos_and_folders_out_of_reach(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.png"
    secret.write_bytes(b"\x89PNG secret")
    (outside / "eps.jsonl").write_text(json.dumps({"env_id": "x", "steps": []}) + "\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "link.png").symlink_to(secret)
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "eps.jsonl").symlink_to(outside / "eps.jsonl")
    os.mkfifo(root / "pipe.png")
    os.mkfifo(root / "pipe.jsonl")
    (root / "dir.png").mkdir()
    client = TestClient(create_app([root]))
    answers: dict[str, int] = {}

    def ask() -> None:
        for url in [
            "/file/0/link.png",
            "/file/0/linkdir/secret.png",
            "/file/0/pipe.png",
            "/file/0/dir.png",
            "/episode?file=0/pipe.jsonl&n=0",
            "/episode?file=0/eps.jsonl&n=0",
            "/episode?file=0/linkdir/eps.jsonl&n=0",
        ]:
            answers[url] = client.get(url).status_code
        answers["/episodes"] = client.get("/episodes").status_code

    worker = threading.Thread(target=ask, daemon=True)
    worker.start()
    worker.join(120)  # a FIFO opened without O_NONBLOCK would block here forever
    assert not worker.is_alive(), "a request blocked (a FIFO was opened?)"
    assert answers.pop("/episodes") == 200
    assert set(answers.values()) == {404}, answers
    assert "secret" not in client.get("/episodes").text


def _xss_run(root: Path) -> None:
    run = root / "runs" / SCRIPT.replace("/", "")
    (run / "episodes").mkdir(parents=True)
    (run / "metrics.jsonl").write_text(json.dumps({"step": 0, SCRIPT: 1.0}) + "\n")
    (run / "config.json").write_text(json.dumps({"env_id": SCRIPT, "trainer": SCRIPT}))
    info = {"note": SCRIPT, "patch": SCRIPT, "tests": {SCRIPT: SCRIPT}, "widgets": [SCRIPT]}
    turn = Turn(
        obs={"text": SCRIPT, SCRIPT: SCRIPT}, action=SCRIPT, reward=0.0, info=info, agent=SCRIPT
    )
    episode = Episode(SCRIPT, seed=1, turns=[turn], returns={SCRIPT: 0.0}, meta={"x": SCRIPT})
    with EpisodeWriter(run / "episodes" / "eval-step-0000000.jsonl") as writer:
        writer.write([episode])


def test_everything_is_escaped(tmp_path: Path) -> None:
    _xss_run(tmp_path)
    client = TestClient(create_app([tmp_path]))
    rid = "0/runs/" + SCRIPT.replace("/", "")
    source = f"{rid}/episodes/eval-step-0000000.jsonl"
    pages = [
        client.get("/"),
        client.get(f"/run/{rid}"),
        client.get("/episodes"),
        client.get("/episode", params={"file": source, "n": 0}),
        client.get("/compare", params={"a": rid, "b": rid}),
    ]
    for page in pages:
        assert page.status_code == 200, page.url
        assert "<script>alert" not in page.text, page.url
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[3].text
    # JSON in <script> tags is escaped too: no "</script>" can close the tag early.
    assert "\\u003cscript\\u003e" in pages[1].text


def test_malformed_lines_are_error_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(episode_index, "MAX_LINE_BYTES", 2000)
    good = {"env_id": "turngym/Bandit-v0", "seed": 1, "steps": [], "return": 0.0}
    lines = [
        json.dumps(good),
        '{"env_id": "broken',
        json.dumps({"env_id": "turngym/Bandit-v0", "schema_version": 1, "turns": 5}),
        json.dumps({"env_id": "x", "pad": "y" * 5000}),
        "[" * 100000,
        json.dumps(good),
    ]
    (tmp_path / "eps.jsonl").write_text("\n".join(lines) + "\n")
    client = TestClient(create_app([tmp_path / "eps.jsonl"]))
    table = client.get("/episodes")
    assert table.status_code == 200
    assert "2 episodes" in table.text and "4 unreadable lines" in table.text
    assert "over the 2000 the viewer reads" in table.text
    for n in range(6):
        page = client.get("/episode", params={"file": "0/eps.jsonl", "n": n})
        assert page.status_code == 200
        assert ("Unreadable episode" in page.text) == (n not in (0, 5))


def test_index_follows_a_growing_file(tmp_path: Path) -> None:
    path = tmp_path / "eps.jsonl"
    line = json.dumps({"env_id": "turngym/Bandit-v0", "seed": 1, "steps": [], "return": 0.0})
    path.write_text(line + "\n")
    client = TestClient(create_app([tmp_path]))
    assert "1 episode " in client.get("/episodes").text
    with open(path, "a") as f:
        f.write(line.replace('"seed": 1', '"seed": 2') + "\n")
    assert "2 episodes" in client.get("/episodes").text


def test_read_only_and_host_guard(demo: Path) -> None:
    client = TestClient(create_app([demo], allowed_hosts=["127.0.0.1"]))
    assert client.get("/", headers={"host": "127.0.0.1"}).status_code == 200
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    assert client.post("/episodes", headers={"host": "127.0.0.1"}).status_code == 405
    with pytest.raises(ValueError, match="PATH"):
        create_app([demo / "missing"])


def test_cli_refuses_a_remote_host_without_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from turngym.cli import main

    assert main(["view", ".", "--host", "0.0.0.0"]) == 2
    assert "--allow-remote" in capsys.readouterr().err
    assert main(["view", "no/such/folder"]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_index_summaries_match_a_full_parse(demo: Path) -> None:
    from turngym.view.episode_index import Row, _scan, summarise
    from turngym.view.files import Where

    paths = [*sorted((demo / "runs").glob("*/episodes/*.jsonl")), demo / "screens/episodes.jsonl"]
    invalid = 0
    for path in paths:
        with open(path, "rb") as f:
            fast = _scan(f, Where(0, (path.name,)), 0, 0).rows
        lines = path.read_bytes().splitlines()
        assert len(fast) == len(lines)
        for row, line in zip(fast, lines, strict=True):
            full = Row(row.line, row.offset, row.length, step=row.step)
            summarise(full, json.loads(line))
            assert row == full
            invalid += row.invalid
    assert invalid > 0  # the invalid-action path was exercised too


def test_parquet_collect_folder(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from turngym.sdk.episode_files import save_episodes
    from turngym.view.demo import _screens_episode, tictactoe_episodes

    episodes = [*tictactoe_episodes(5, step=0, skill=0.5, invalid_every=2), _screens_episode()]
    save_episodes(episodes, tmp_path / "data", format="parquet")
    client = TestClient(create_app([tmp_path / "data"]))
    table = client.get("/episodes", params={"env": "TicTacToe"}).text
    assert "5 episodes" in table and "episodes.parquet" in table
    assert client.get("/episodes", params={"env": "ScreenGraph"}).text.count(">1</td>") >= 1
    page = client.get("/episode", params={"file": "0/episodes.parquet", "n": 5}).text
    assert page.count('class="screenshot"') == 5 and "/picture?file=0/episodes.parquet" in page
    url = page.split('src="')[1].split('"')[0].replace("&amp;", "&")
    picture = client.get(url)
    assert picture.status_code == 200 and picture.content.startswith(b"\x89PNG")
    assert client.get("/picture", params={"file": "0/episodes.parquet", "n": 0}).status_code == 404


def test_real_wrapper_events_are_shown(tmp_path: Path) -> None:
    import turngym
    from turngym.wrappers import MemoryTools, RecordEpisodes, SlidingWindow

    path = tmp_path / "eps.jsonl"
    env = RecordEpisodes(
        SlidingWindow(MemoryTools(turngym.make("turngym/FrozenLake-v0")), keep_last=1), path
    )
    env.reset(seed=0)
    actions = ["memory_insert: a hole at row 2", "right", "right", "jump"] + ["down"] * 200
    for action in actions:  # until FrozenLake ends (a hole, the goal or its step limit)
        *_, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    env.close()
    assert env.episodes_written == 1
    client = TestClient(create_app([tmp_path]))
    page = client.get("/episode", params={"file": "0/eps.jsonl", "n": 0}).text
    assert "memory: memory_insert" in page and "wrapper turn" in page
    assert "context: evict, segment 1" in page  # SlidingWindow's cut, where it happened
    assert 'class="role">user' in page  # chat messages shown message by message
    assert "invalid action" in page  # "jump" is not a FrozenLake move


def test_odd_but_valid_json_rows_render(tmp_path: Path) -> None:
    shot = {"__turngym__": "image", "path": 5}
    outside = {"__turngym__": "image", "path": "../outside.png", "shape": [16, 16, 3]}
    absolute = {"__turngym__": "image", "path": "/etc/x.png", "shape": [16, 16, 3]}
    rows = [
        {
            "env_id": "x",
            "steps": [
                {
                    "info": [1],
                    "observation": {"screenshot": shot},
                    "action": {"a": 1},
                    "reward": "z",
                }
            ],
        },
        {
            "env_id": "x",
            "observation": {"a": outside, "b": absolute},
            "info": {},
            "steps": [{"action": "a", "observation": "o", "info": {"success": True}}],
        },
        {
            "env_id": "x",
            "turns": [{"obs": 5, "info": "[1,2]", "action": None, "agent": 3, "segment": "s"}],
            "returns": "[1]",
            "meta": "3",
            "final_obs": '{"agent": {"__turngym__": "image", "index": 99}}',
        },
        {
            "env_id": "x",
            "turns": [
                {
                    "obs": '{"__turngym__": "dict", "items": 5}',
                    "info": '{"widgets": [{"x": "a"}, 3], "marks": {"1": [1, [1, 2, 3]]},'
                    ' "tests": [1], "patch": 5, "legal_actions": "ab"}',
                }
            ],
        },
        {"env_id": "x", "schema_version": 1, "turns": [7], "images": "bad"},
        {"env_id": None, "turns": []},
    ]
    (tmp_path / "eps.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp_path.parent / "outside.png").write_bytes(b"\x89PNG")
    client = TestClient(create_app([tmp_path]))
    assert client.get("/episodes").status_code == 200
    for n in range(len(rows)):
        page = client.get("/episode", params={"file": "0/eps.jsonl", "n": n})
        assert page.status_code == 200, (n, page.text[-500:])
    page = client.get("/episode", params={"file": "0/eps.jsonl", "n": 1}).text
    assert page.count("missing or outside the viewer") == 2 and "outside.png" not in page


def test_compare_keeps_a_games_seats_apart(tmp_path: Path) -> None:
    import dataclasses

    from turngym.view.demo import tictactoe_episodes

    for name in ("a", "b"):
        episodes = [
            dataclasses.replace(ep, meta={**ep.meta, "seat": seat})
            for seat in (0, 1)
            for ep in tictactoe_episodes(3, step=0, skill=0.5)
        ]
        with EpisodeWriter(tmp_path / name / "episodes" / "eval-step-0000000.jsonl") as writer:
            writer.write(episodes)
    client = TestClient(create_app([tmp_path]))
    page = client.get("/compare", params={"a": "0/a", "b": "0/b"}).text
    assert "6 (env, seed, seat, mode) played by both" in page
    assert page.count("<td>turngym/TicTacToe-v0</td>") == 6


def test_runs_list_names_the_trainer_of_a_trainers_config(tmp_path: Path) -> None:
    import dataclasses

    from turngym.sdk.trainers.grpo_config import GRPOConfig

    config = dataclasses.asdict(GRPOConfig(env="turngym/FrozenLake-v0"))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text(json.dumps(config, default=str))
    (tmp_path / "run" / "metrics.jsonl").write_text('{"step": 0, "eval_success": 0.25}\n')
    page = TestClient(create_app([tmp_path])).get("/").text
    row = page.split('href="/run/0/run"')[1].split("</tr>")[0]
    assert "<td>turngym/FrozenLake-v0</td>" in row and "<td>grpo</td>" in row
    assert "<td>0.250</td>" in row  # the final eval success


def test_links_to_runs_with_odd_names_work(tmp_path: Path) -> None:
    run = tmp_path / "a b?#x"
    (run / "episodes").mkdir(parents=True)
    (run / "metrics.jsonl").write_text('{"step": 0, "reward": 1.0}\n')
    with EpisodeWriter(run / "episodes" / "eval-step-0000000.jsonl") as writer:
        writer.write([Episode("turngym/Bandit-v0", seed=1)])
    client = TestClient(create_app([tmp_path]))
    href = client.get("/").text.split('<a href="/run/')[1].split('"')[0]
    assert client.get(f"/run/{href}").status_code == 200
    table = client.get("/episodes").text
    link = table.split('<a href="/episode?')[1].split('"')[0].replace("&amp;", "&")
    assert client.get(f"/episode?{link}").status_code == 200


def test_the_play_folder_defaults_to_runs_play_and_joins_the_roots(tmp_path: Path) -> None:
    from turngym.cli.args import CliError
    from turngym.cli.view import play_folder

    runs = tmp_path / "runs"
    runs.mkdir()
    paths = [runs]
    assert play_folder(str(runs / "play"), paths) == runs / "play"
    assert (runs / "play").is_dir() and paths == [runs]  # already under a root
    elsewhere = tmp_path / "games"
    assert play_folder(str(elsewhere), paths) == elsewhere
    assert paths == [runs, elsewhere]  # shown beside the PATHs
    assert play_folder("none", paths) is None
    (tmp_path / "file").write_text("x")
    with pytest.raises(CliError, match="not a folder"):
        play_folder(str(tmp_path / "file"), paths)
