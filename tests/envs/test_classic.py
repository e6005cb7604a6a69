from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.envs.classic_control import PendulumEnv
from gymnasium.envs.toy_text.cliffwalking import CliffWalkingEnv

import turngym  # noqa: F401
from turngym.agents import RandomAgent, make_expert
from turngym.agents.experts.classic import BlackjackExpert, TabularExpert, basic_strategy
from turngym.envs.classic import TextAdapter
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

TAXI, CLIFF, BLACKJACK = "turngym/Taxi-v0", "turngym/CliffWalking-v0", "turngym/Blackjack-v0"


def rollouts(env_id, make_agent, episodes: int = 200, **kwargs) -> tuple[float, float, list]:
    """Success rate, mean return and returns over seeds 0..episodes-1 (no invalid actions)."""
    result = evaluate(env_id, make_agent, episodes=episodes, env_kwargs=kwargs)
    assert all(e.invalid == 0 for e in result.episodes)
    return result.success_rate, result.mean_return, [e.ret for e in result.episodes]


def classic(env: gym.Env):
    """The Gymnasium env inside a registered adapter."""
    return env.unwrapped.inner.unwrapped


# -- conformance ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        (TAXI, {}),
        (TAXI, {"is_rainy": True, "fickle_passenger": True}),
        (CLIFF, {}),
        (CLIFF, {"is_slippery": True}),
        (BLACKJACK, {}),
        (BLACKJACK, {"sab": False, "natural": True}),
    ],
)
def test_conformance(env_id, kwargs):
    check_text_env(env_id, n_fuzz=1000, make_kwargs=kwargs, expert_episodes=20)


def test_conformance_of_the_generic_fallback():
    report = check_text_env(lambda: TextAdapter(gym.make("FrozenLake-v1")), n_fuzz=1000)
    assert report.passed


# -- the adapter ----------------------------------------------------------------------


def test_fallback_names_actions_by_index_and_shows_repr():
    env = TextAdapter(CliffWalkingEnv())
    obs, info = env.reset(seed=0)
    assert info["legal_actions"] == ["0", "1", "2", "3"]
    assert "CliffWalkingEnv" in obs and "Observation: 36" in obs
    assert info["state_key"] == "36"
    obs, reward, terminated, _, info = env.step(" 0 ")  # up
    assert "Observation: 24" in obs and reward == -1.0 and not terminated
    assert info["state_key"] == "24"


def test_adapter_reseeds_the_classic_env_from_its_own_rng():
    a, b = gym.make(TAXI), gym.make(TAXI)
    starts = set()
    for seed in range(30):
        obs_a, _ = a.reset(seed=seed)
        obs_b, _ = b.reset(seed=seed)
        assert obs_a == obs_b
        starts.add(obs_a)
    assert len(starts) > 20  # different seeds, different start states


def test_adapter_rejects_bad_setups():
    with pytest.raises(ValueError, match="Discrete action space"):
        TextAdapter(PendulumEnv())
    with pytest.raises(ValueError, match="name all 4 actions"):
        TextAdapter(CliffWalkingEnv(), action_names=["up", "down"])
    with pytest.raises(ValueError, match="distinct ignoring case"):
        TextAdapter(CliffWalkingEnv(), action_names=["up", "UP", "down", "left"])
    with pytest.raises(ValueError, match="not one of"):
        TextAdapter(CliffWalkingEnv(), action_names=["u", "r", "d", "l"], aliases={"north": "up"})


@pytest.mark.parametrize(
    ("env_id", "kwargs", "message"),
    [
        (TAXI, {"is_rainy": "yes"}, "is_rainy must be True or False"),
        (TAXI, {"fickle_passenger": 1}, "fickle_passenger must be True or False"),
        (CLIFF, {"is_slippery": None}, "is_slippery must be True or False"),
        (BLACKJACK, {"sab": "no"}, "sab must be True or False"),
    ],
)
def test_bad_kwargs(env_id, kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(env_id, **kwargs)


# -- Taxi -----------------------------------------------------------------------------


def test_taxi_pickup_and_dropoff_rules():
    env = gym.make(TAXI)
    env.reset(seed=0)
    taxi = classic(env)
    # Taxi at Y (4, 0), passenger at Y (index 2), destination R (index 0).
    taxi.s = taxi.encode(4, 0, 2, 0)
    obs, reward, terminated, _, info = env.step("dropoff")
    assert reward == -10.0 and not terminated and not info["invalid_action"]
    obs, reward, terminated, _, info = env.step("Pick Up")
    assert reward == -1.0 and "Passenger: in the taxi" in obs
    assert info["state_key"] == f"taxi:{taxi.encode(4, 0, 4, 0)}"
    obs, reward, *_ = env.step("pickup")  # nobody left to pick up
    assert reward == -10.0
    taxi.s = taxi.encode(0, 0, 4, 0)  # drive to R in one jump
    obs, reward, terminated, truncated, info = env.step("dropoff")
    assert (reward, terminated, truncated, info["success"]) == (20.0, True, False, True)
    assert "delivered at R" in obs and "you succeeded" in obs


def test_taxi_walls_and_moves():
    env = gym.make(TAXI)
    env.reset(seed=0)
    taxi = classic(env)
    taxi.s = taxi.encode(0, 1, 1, 2)
    obs, reward, *_ = env.step("east")  # the wall between columns 1 and 2 of row 0
    assert taxi.decode(taxi.s)[:2] == (0, 1) and reward == -1.0
    assert "|R:T| : :G|" in obs
    env.step("down")  # alias of south
    env.step("EAST")
    assert taxi.decode(taxi.s)[:2] == (1, 1)  # the wall goes down to row 1
    env.step("south")
    env.step("east")
    assert taxi.decode(taxi.s)[:2] == (2, 2)
    obs, *_ = env.step("n")  # single letters are not accepted
    assert "south, north, east, west, pickup, dropoff" in obs


def test_taxi_observation_explains_the_map():
    env = gym.make(TAXI)
    obs, info = env.reset(seed=0)
    assert info["instruction"] in obs and "'|' is a wall" in obs
    row, col, passenger, dest = classic(env).decode(classic(env).s)
    assert f"Taxi: row {row}, column {col}." in obs
    stands = "RGYB"
    assert f"Passenger: waiting at {stands[passenger]} (row" in obs
    assert f"Destination: {stands[dest]} (row" in obs


def test_taxi_expert_on_200_seeds():
    success, mean_return, returns = rollouts(TAXI, make_expert)
    assert success >= 0.95  # measured: 1.0
    # shortest routes are at most 17 moves + pickup/dropoff (return >= 20 - 19 = 1)
    assert min(returns) >= 0 and mean_return > 7  # measured mean 7.6


def test_taxi_expert_copes_with_rain_and_fickle_passengers():
    success, *_ = rollouts(TAXI, make_expert, episodes=50, is_rainy=True, fickle_passenger=True)
    assert success >= 0.95  # measured: 1.0


# -- CliffWalking ---------------------------------------------------------------------


def test_cliff_fall_costs_100_and_returns_to_start():
    env = gym.make(CLIFF)
    obs, info = env.reset(seed=0)
    assert "P C C C C C C C C C C G" in obs
    obs, reward, terminated, _, info = env.step("right")
    assert (reward, terminated) == (-100.0, False)
    assert info["state_key"] == "cliff:36" and "row 3, column 0" in obs


def test_cliff_edge_path_reaches_goal():
    env = gym.make(CLIFF)
    env.reset(seed=0)
    total = 0.0
    for move in ["up"] + ["right"] * 11:
        _, reward, terminated, _, _ = env.step(move)
        total += reward
        assert not terminated
    obs, reward, terminated, truncated, info = env.step("south")  # alias of down
    assert total + reward == -13.0
    assert terminated and not truncated and info["success"]
    assert "you succeeded" in obs


def test_cliff_time_limit_truncates_without_success():
    env = gym.make(CLIFF)
    env.reset(seed=0)
    for _ in range(99):
        _, _, terminated, truncated, _ = env.step("left")
        assert not (terminated or truncated)
    _, _, terminated, truncated, info = env.step("left")
    assert truncated and not terminated and info["success"] is False


def test_cliff_expert_on_200_seeds():
    success, mean_return, returns = rollouts(CLIFF, make_expert)
    assert success >= 0.95 and mean_return == -13.0  # measured: 1.0
    assert set(returns) == {-13.0}  # always the 13-step edge path, never the cliff


def test_cliff_expert_on_slippery_ground_beats_random():
    expert, *_ = rollouts(CLIFF, make_expert, episodes=100, is_slippery=True)
    rand, *_ = rollouts(CLIFF, lambda env: RandomAgent(seed=0), episodes=100, is_slippery=True)
    assert expert - rand >= 0.7  # measured: 0.92 vs 0.025 on 200 seeds


# -- Blackjack ------------------------------------------------------------------------


def _deal(env: gym.Env, player: list[int], dealer: list[int]) -> None:
    env.reset(seed=0)
    game = classic(env)
    game.player, game.dealer = list(player), list(dealer)


def test_blackjack_stick_win_draw_loss():
    env = gym.make(BLACKJACK)
    _deal(env, [10, 9], [10, 7])
    obs, reward, terminated, _, info = env.step("stick")
    assert (reward, terminated, info["success"]) == (1.0, True, True)
    assert "Dealer's hand: 10, 7 (total 17). You win." in obs
    _deal(env, [10, 8], [10, 8])
    obs, reward, terminated, _, info = env.step("Stand")  # alias of stick
    assert (reward, terminated, info["success"]) == (0.0, True, False)
    assert "draw" in obs
    _deal(env, [10, 6], [10, 9])
    obs, reward, _, _, info = env.step("stick")
    assert (reward, info["success"]) == (-1.0, False) and "You lose." in obs


def test_blackjack_bust_and_soft_hands():
    env = gym.make(BLACKJACK)
    _deal(env, [1, 10, 10], [10, 7])  # 21 exactly: any card busts
    obs, reward, terminated, _, info = env.step("hit")
    assert (reward, terminated, info["success"]) == (-1.0, True, False)
    assert "bust" in obs
    env.reset(seed=0)
    game = classic(env)
    game.player, game.dealer = [1, 6], [5, 10]
    obs, *_ = env.step("STICK")
    assert "A, 6 (total 17, soft" in obs


def test_blackjack_hides_the_hole_card_until_the_end():
    env = gym.make(BLACKJACK)
    obs, info = env.reset(seed=3)
    game = classic(env)
    assert "face down" in obs and "Dealer's hand" not in obs
    total, up, soft = game._get_obs()
    assert info["state_key"] == f"blackjack:{total},{up},{soft}"


def test_basic_strategy_table():
    assert basic_strategy(11, 10, False) == "hit"
    assert basic_strategy(12, 3, False) == "hit"
    assert basic_strategy(12, 4, False) == "stick"
    assert basic_strategy(16, 6, False) == "stick"
    assert basic_strategy(16, 7, False) == "hit"
    assert basic_strategy(17, 1, False) == "stick"
    assert basic_strategy(17, 6, True) == "hit"
    assert basic_strategy(18, 1, True) == "hit"
    assert basic_strategy(18, 8, True) == "stick"
    assert basic_strategy(19, 10, True) == "stick"


def test_blackjack_expert_beats_random_on_200_seeds():
    expert_win, expert_mean, _ = rollouts(BLACKJACK, make_expert)
    rand_win, rand_mean, _ = rollouts(BLACKJACK, lambda env: RandomAgent(seed=0))
    # measured: expert 0.39 wins / mean -0.125, random 0.29 wins / mean -0.395
    assert expert_mean - rand_mean >= 0.15
    assert expert_win > rand_win


def test_experts_reject_other_envs():
    with pytest.raises(TypeError, match="needs a BlackjackTextEnv"):
        BlackjackExpert(gym.make(TAXI))
    with pytest.raises(TypeError, match="needs a TaxiTextEnv"):
        make_expert(gym.make(CLIFF), TAXI)
    with pytest.raises(TypeError, match="no transition table"):
        TabularExpert(TextAdapter(gym.make("CartPole-v1")))
