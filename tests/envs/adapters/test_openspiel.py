"""OpenSpiel's games as turngym games: the static game list, every id, conformance on a
seeded sample, lockstep equivalence with raw ``pyspiel``, the MCTS expert, parameters."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import turngym  # noqa: E402
from tests.sampling import sample_ids  # noqa: E402
from turngym.agents.experts.openspiel import OpenSpielKuhnNash, OpenSpielMCTS  # noqa: E402
from turngym.envs.adapters.openspiel import GAME_NAMES, game_class  # noqa: E402
from turngym.envs.adapters.openspiel_games import GAMES, LEFT_OUT  # noqa: E402
from turngym.registry import select  # noqa: E402
from turngym.testing import check_game, check_text_env  # noqa: E402

ROWS = select(families=["openspiel"])
IDS = [row.id for row in ROWS]
# Bridge scores each deal with a double-dummy solver (about 25 s per check_game here);
# laser_tag and capture_the_flag play 1,000 rounds, past check_game's 2,000-move bound
# (test_long_games_pass_check_game_with_a_shorter_horizon covers them).
SLOW = {
    "turngym/openspiel.bridge-v0",
    "turngym/openspiel.laser_tag-v0",
    "turngym/openspiel.capture_the_flag-v0",
}


def _name(game_id: str) -> str:
    return game_id.split("openspiel.", 1)[1].rsplit("-v", 1)[0]


# -- the static list -------------------------------------------------------------------


def test_static_game_list_matches_the_installed_openspiel():
    """A new OpenSpiel release that adds, drops or changes a game fails here:
    regenerate with ``python scripts/openspiel_games.py``."""
    installed = {t.short_name for t in pyspiel.registered_games()}
    assert set(GAME_NAMES) | set(LEFT_OUT) == installed
    assert not set(GAME_NAMES) & set(LEFT_OUT)
    for row in GAMES:
        original = pyspiel.load_game(row.name)
        simultaneous = original.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
        assert simultaneous == row.simultaneous, row.name
        game = pyspiel.load_game_as_turn_based(row.name) if simultaneous else original
        kind = game.get_type()
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL, row.name
        assert kind.chance_mode != pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC, row.name
        assert (original.get_type().long_name, game.num_players(), game.max_game_length()) == (
            row.title,
            row.players,
            row.max_length,
        ), row.name
        perfect = kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        assert perfect == row.perfect, row.name


def test_every_game_is_registered_once_in_the_openspiel_suite():
    assert [_name(i) for i in IDS] == list(GAME_NAMES)
    assert all(r.suite == "openspiel" and r.extra == "openspiel" for r in ROWS)
    assert len(ROWS) >= 80


def test_registration_imports_no_openspiel():
    code = "import sys, turngym; turngym.make; print('pyspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- every id, cheaply -----------------------------------------------------------------


@pytest.mark.parametrize("game_id", IDS)
def test_every_id_builds_resets_and_plays(game_id):
    """Construct, reset, a few random legal moves and an invalid one: no exception."""
    game = turngym.make_game(game_id)
    rng = np.random.default_rng(0)
    game.reset(seed=3)
    agent = game.agent_selection
    game.step("not an action of any game")
    assert game.infos[agent]["invalid_action"] is True
    for _ in range(12):
        if not game.agents:
            break
        agent = game.agent_selection
        if game.terminations[agent]:
            game.step(None)
            continue
        obs = game.observe(agent)
        legal = game.infos[agent]["legal_actions"]
        assert obs["text"].strip() and legal
        assert sorted(game.action_names[k] for k in np.flatnonzero(obs["action_mask"])) == sorted(
            legal
        )
        game.step(legal[int(rng.integers(len(legal)))])
        assert game.infos.get(agent, {}).get("invalid_action") in (False, None)


# -- conformance on a seeded sample ----------------------------------------------------

SAMPLE = sample_ids(
    [i for i in IDS if i not in SLOW],
    4,
    always=["turngym/openspiel.tic_tac_toe-v0", "turngym/openspiel.leduc_poker-v0"],
)


@pytest.mark.parametrize("game_id", SAMPLE)
def test_sampled_ids_pass_check_game(game_id):
    check_game(game_id, n_fuzz=1000, n_games=40, reset_games=5, expert_games=1)


@pytest.mark.parametrize("game_id", SAMPLE[:4])
def test_sampled_single_agent_views_pass_check_text_env(game_id):
    check_text_env(game_id, n_fuzz=1000, reset_episodes=5, expert_episodes=3)


# -- lockstep with raw pyspiel ---------------------------------------------------------


@pytest.mark.parametrize("name", ["tic_tac_toe", "leduc_poker", "pig"])
def test_lockstep_with_pyspiel_over_1000_random_games(name):
    """The adapter and a raw pyspiel state, given the same moves and the same chance
    outcomes, agree on the player to move, the legal set at every step and the returns."""
    game = game_class(name)()
    raw_game = pyspiel.load_game(name)
    rng = np.random.default_rng(7)
    for k in range(1000):
        game.reset(seed=k)
        raw = raw_game.new_initial_state()
        while not raw.is_terminal():
            if raw.is_chance_node():  # take the outcome the adapter drew, if it may occur
                outcome = game.state.history()[len(raw.history())]
                assert dict(raw.chance_outcomes()).get(outcome, 0.0) > 0.0
                raw.apply_action(outcome)
                continue
            player = raw.current_player()
            assert game.agent_selection == f"player_{player}"
            names = [raw.action_to_string(player, a) for a in raw.legal_actions()]
            assert game.infos[game.agent_selection]["legal_actions"] == names
            action = raw.legal_actions()[int(rng.integers(len(names)))]
            game.step(raw.action_to_string(player, action))
            raw.apply_action(action)
        assert game.over
        assert game.returns == pytest.approx(raw.returns(), abs=1e-9)


def test_long_games_pass_check_game_with_a_shorter_horizon():
    check_game(
        game_class("capture_the_flag"),
        n_fuzz=300,
        n_games=20,
        reset_games=3,
        make_kwargs={"params": {"horizon": 50}},
    )


def test_simultaneous_moves_stay_hidden_until_the_round_is_over():
    """matrix_rps as turns: player_1 reads the same whatever player_0 chose."""
    seen = set()
    for first in ("Rock", "Paper", "Scissors"):
        game = turngym.make_game("turngym/openspiel.matrix_rps-v0")
        game.reset(seed=0)
        game.step(first)
        seen.add(game.observe("player_1")["text"])
        game.step("Paper")
        assert game.over
    assert len(seen) == 1


def test_chance_outcomes_follow_openspiel_probabilities_and_seeds_replay():
    game = game_class("kuhn_poker")()
    deals = []
    for seed in range(600):
        game.reset(seed=seed)
        deals.append(tuple(game.state.history()[:2]))
    counts = np.bincount([d[0] for d in deals], minlength=3)
    assert counts.min() > 160  # each of 3 cards about 200 times of 600
    again = game_class("kuhn_poker")()
    for seed in (0, 1, 599):
        again.reset(seed=seed)
        assert tuple(again.state.history()[:2]) == deals[seed]


def test_rewards_per_step_sum_to_returns_with_intermediate_rewards():
    """cliff_walking pays -1 a step: the rewards are the changes of OpenSpiel's returns."""
    game = game_class("cliff_walking")()
    game.reset(seed=0)
    total = 0.0
    for _ in range(30):
        if game.over:
            break
        game.step(game.infos["player_0"]["legal_actions"][0])
        total += game.rewards["player_0"]
    assert total == pytest.approx(game.state.returns()[0]) and total < 0


# -- experts ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "games"), [("tic_tac_toe", 50), ("nim", 50), ("connect_four", 8)])
def test_mcts_expert_never_loses_to_random(name, games):
    for seat in (0, 1):
        env = gym.make(f"turngym/openspiel.{name}-v0", opponent="random", seat=seat)
        expert = OpenSpielMCTS(env)
        for k in range(games):
            obs, info = env.reset(seed=k)
            expert.reset(seed=k)
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(expert.act(obs, info))
                done = terminated or truncated
            assert info["returns"][seat] >= 0, f"{name}: lost as seat {seat}, seed {k}"


def test_experts_only_where_they_apply():
    experts = {_name(r.id): r.expert for r in ROWS if r.expert}
    assert {"tic_tac_toe", "nim", "connect_four"} <= experts.keys()
    assert experts["kuhn_poker"].endswith(":OpenSpielKuhnNash")
    assert not experts.keys() & {"leduc_poker", "cliff_walking", "go", "pig", "matrix_rps"}
    with pytest.raises(ValueError, match="no registered expert"):
        gym.make("turngym/openspiel.leduc_poker-v0", opponent="expert")


def test_kuhn_nash_expert_wins_chips_from_random_in_either_seat():
    """The equilibrium exploits a uniformly random player: about +0.15 chips a hand."""
    for seat in (0, 1):
        env = gym.make("turngym/openspiel.kuhn_poker-v0", opponent="random", seat=seat)
        expert = OpenSpielKuhnNash(env)
        total = 0.0
        for k in range(600):
            obs, info = env.reset(seed=k)
            expert.reset(seed=k)
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(expert.act(obs, info))
                done = terminated or truncated
            total += info["returns"][seat]
        assert total / 600 > 0.05, (seat, total / 600)


# -- parameters, forfeits, errors ------------------------------------------------------


def test_game_parameters_through_params():
    env = gym.make("turngym/openspiel.breakthrough-v0", params={"rows": 6, "columns": 5})
    obs, info = env.reset(seed=0)
    assert len(obs.split("\n")) > 6 and info["legal_actions"]
    game = turngym.make_game("turngym/openspiel.tic_tac_toe-v0", params={})
    assert len(game.action_names) == 18  # x and o for each of 9 cells


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"rowz": 6}, "'rowz' is not a parameter of OpenSpiel's breakthrough; allowed: columns"),
        ({"rows": [6]}, r"params\['rows'\] must be a bool, int, float or str"),
        ("rows=6", "params must be a dict"),
        ({"rows": "six"}, "OpenSpiel's breakthrough rejects them"),
    ],
)
def test_bad_params_raise_one_line_value_errors(params, message):
    with pytest.raises(ValueError, match=message) as error:
        turngym.make_game("turngym/openspiel.breakthrough-v0", params=params)
    assert "\n" not in str(error.value)


def test_oware_plays_the_pit_named_in_its_case_only():
    """Oware names player_0's pits A-F and player_1's a-f: the case is the pit's owner."""
    game = turngym.make_game("turngym/openspiel.oware-v0")
    game.reset(seed=0)
    assert game.infos["player_0"]["legal_actions"] == ["A", "B", "C", "D", "E", "F"]
    game.step("d")  # player_1's pit: not a move of player_0's
    info = game.infos["player_0"]
    assert info["invalid_action"] and game.agent_selection == "player_0"
    assert "case" in game.observe("player_0")["text"]
    game.step(" D ")  # its own pit, with spaces around: forgiven
    assert not game.infos["player_0"]["invalid_action"] and game.agent_selection == "player_1"
    game.step("A")
    assert game.infos["player_1"]["invalid_action"] and game.agent_selection == "player_1"
    game.step("a")
    assert not game.infos["player_1"]["invalid_action"]


def test_oware_passes_the_conformance_checks_that_forgive_case_only_where_it_is_safe():
    """The checkers' near-legal actions change case; where case names another action
    (Oware's "a" and "A"), accepting the changed spelling is not theirs to demand."""
    check_game("turngym/openspiel.oware-v0", n_fuzz=1000, n_games=20, reset_games=3)
    check_text_env("turngym/openspiel.oware-v0", n_fuzz=1000, reset_episodes=3)
    check_text_env(
        "turngym/openspiel.oware-v0", n_fuzz=1000, reset_episodes=3, make_kwargs={"seat": 1}
    )


@pytest.mark.parametrize("name", GAME_NAMES)
def test_case_is_forgiven_only_where_it_tells_no_two_actions_apart(name):
    """Every game: a legal action written in another case plays that action, unless
    some action of the game's universe differs from it by case alone; then only the
    spelling as listed (spaces aside) plays it."""
    from turngym.core import normalize_action

    game = game_class(name)()
    game.reset(seed=0)
    agent = game.agent_selection
    universe = game.action_names
    by_key: dict[str, set[str]] = {}
    for text in universe:
        by_key.setdefault(normalize_action(text), set()).add(text)
    legal = game.infos[agent]["legal_actions"]
    mine = set(legal)
    for action in legal[:60]:  # Go's 362 moves say no more than its first 60
        wanted = game._parse(action)  # the id the listed spelling plays
        assert isinstance(wanted, int), (name, action)
        clash = len(by_key[normalize_action(action)]) > 1
        for variant in (action.upper(), action.lower(), action.swapcase(), f"  {action} "):
            got = game._parse(variant)
            if variant.strip() == action or not clash:
                assert got == wanted, (name, action, variant)
            elif variant.strip() in mine:  # another action of this player's, as listed
                assert got == game._parse(variant.strip()), (name, action, variant)
            else:
                assert not isinstance(got, int), (name, action, variant, got)


def test_forfeit_drops_the_return_to_the_worst_and_stays_zero_sum():
    game = game_class("tic_tac_toe")(max_invalid_actions=1)
    game.reset(seed=0)
    game.step("x(1,1)")
    game.step("x(1,1)")  # player_1 answers with player_0's move: invalid, forfeit
    assert game.over and game.returns == [1.0, -1.0]
    assert game.infos["player_1"]["success"] is False


def test_unknown_game_name_is_a_clear_error():
    with pytest.raises(ValueError, match="registered OpenSpiel games"):
        game_class("chess")


def test_without_open_spiel_the_error_names_the_extra(monkeypatch):
    from turngym.extras import MissingExtra

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open_spiel were not installed
    with pytest.raises(MissingExtra, match=r"turngym\[openspiel\]"):
        turngym.make_game("turngym/openspiel.tic_tac_toe-v0")


def test_overhead_benchmark_pairs_play_the_steps_asked():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "overhead_openspiel.py"
    spec = importlib.util.spec_from_file_location("overhead_openspiel", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pairs = module.pairs(quick=True)
    assert 2 <= len(pairs) <= 5
    for name, native, adapter in pairs:
        assert native(60, 1) == 60 and adapter(60, 1) == 60, name


def _python_calls_per_move(name: str, moves: int = 300) -> float:
    """Python-level function calls per move of the agent loop (observe, legal actions,
    step), counted with ``sys.setprofile`` once the game's tables are warm."""
    game = turngym.make_game(f"turngym/openspiel.{name}-v0")
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event == "call"

    def play(n: int, seed: int) -> None:
        game.reset(seed=seed)
        for k in range(n):
            if game.over:
                game.reset(seed=seed + k)
                continue
            agent = game.agent_selection
            assert game.observe(agent)["text"]
            legal = game.infos[agent]["legal_actions"]
            game.step(legal[(7 * k) % len(legal)])

    play(moves, 0)  # warm: the memoised legal-action entries and move announcements
    sys.setprofile(count)
    try:
        play(moves, 1)
    finally:
        sys.setprofile(None)
    return calls / moves


@pytest.mark.parametrize(
    ("name", "budget"), [("tic_tac_toe", 4.0), ("leduc_poker", 6.0), ("pig", 4.5)]
)
def test_the_step_path_stays_lean(name, budget):
    """Issue 30, item 4: the adapter's overhead per move is Python bookkeeping, a few
    function calls each next to OpenSpiel's own work; this counts them (a deterministic
    stand-in for time, which tests may not assert) so a change that adds calls to every
    move shows up here (benchmarks/overhead_openspiel.py measures the time)."""
    assert _python_calls_per_move(name) <= budget


@pytest.mark.parametrize("name", ["tic_tac_toe", "leduc_poker", "pig"])
def test_a_reused_game_with_warm_memos_plays_as_a_fresh_one(name):
    """Issue 42: a game keeps memos across episodes (legal-action entries, move and
    game-over messages, the state-string method); each episode of one reused game must
    read exactly as the same episode of a fresh game, whose memos start empty."""
    reused = turngym.make_game(f"turngym/openspiel.{name}-v0")
    for seed in range(20):
        traces = []
        for game in (reused, turngym.make_game(f"turngym/openspiel.{name}-v0")):
            game.reset(seed=seed)
            trace: list[object] = []
            for k in range(2000):
                if game.over:
                    break
                agent = game.agent_selection
                legal = game.infos[agent]["legal_actions"]
                trace.append((agent, game.observe(agent)["text"], tuple(legal)))
                game.step(legal[(7 * k + seed) % len(legal)])
            trace.append([game.observe(a)["text"] for a in game.possible_agents])
            trace.append(dict(game._cumulative_rewards))
            traces.append(trace)
        assert traces[0] == traces[1]


def _plain(name: str) -> type:
    """The game of ``name`` played through ``TextGame``'s own reset, step, observe and
    hooks, with no memo of the opening (its player, legal actions and chance outcomes):
    the reference the one-call paths must match."""
    from turngym.envs.games.base import TextGame

    class Plain(game_class(name)):  # type: ignore[misc]
        reset = TextGame.reset
        step = TextGame.step
        observe = TextGame.observe

        def _start(self, options):
            self._opening = None  # read the initial state afresh every game
            return super()._start(options)

        def _chance_moves(self, outcomes=None):
            super()._chance_moves(None)  # ask OpenSpiel for the opening's outcomes too

    return Plain


def _trace(game, seed: int, moves: int) -> list[object]:
    """Everything a player can read after each step of a seeded game of mixed actions:
    legal ones as listed, in other case and spacing, names not legal now, junk, and the
    steps of finished players; resets with and without a seed."""
    rng = np.random.default_rng(seed)
    trace: list[object] = []

    def snap() -> None:
        observed = []
        for a in game.possible_agents:
            obs = game.observe(a)
            observed.append((obs["text"], obs["action_mask"].tolist()))
        trace.append(
            (
                game.agent_selection,
                list(game.agents),
                observed,
                {a: dict(info) for a, info in game.infos.items()},
                dict(game.rewards),
                dict(game._cumulative_rewards),
                dict(game.terminations),
                dict(game.truncations),
            )
        )

    game.reset(seed=seed)
    snap()
    for k in range(moves):
        if not game.agents:
            game.reset(seed=None if k % 2 else seed + k)
            snap()
            continue
        agent = game.agent_selection
        legal = game.infos[agent].get("legal_actions") or []
        u = rng.random()
        if game.terminations[agent] or game.truncations[agent]:
            action: object = None
        elif legal and u < 0.8:
            action = legal[int(rng.integers(len(legal)))]
            if u < 0.1:
                action = f"  {str(action).upper()} "
        elif u < 0.9:
            action = game.action_names[int(rng.integers(len(game.action_names)))]
        else:
            action = ["", "zz", 3, None][int(rng.integers(4))]
        game.step(action)
        snap()
    return trace


@pytest.mark.parametrize(
    "name", ["tic_tac_toe", "leduc_poker", "pig", "oware", "goofspiel", "2048", "go"]
)
@pytest.mark.parametrize("kwargs", [{}, {"invalid_action_penalty": -0.5, "max_invalid_actions": 2}])
def test_the_one_call_step_observe_and_opening_play_as_textgames_own(name, kwargs):
    """Issue 42: the adapter plays a legal move and builds an observation in one call
    each, and reads the initial state's player and legal actions once per game object;
    every step of mixed play must read exactly as through TextGame's own step and
    observe with the initial state read afresh each game."""
    moves = 150 if name in ("go", "2048") else 600
    fast, plain = game_class(name)(**kwargs), _plain(name)(**kwargs)
    for seed in range(3):
        assert _trace(fast, seed, moves) == _trace(plain, seed, moves)
