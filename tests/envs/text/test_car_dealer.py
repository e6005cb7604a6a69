from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import turngym  # noqa: F401
from turngym.agents import make_expert
from turngym.agents.base import BaseAgent
from turngym.agents.experts.car_dealer import CarDealerExpert
from turngym.envs.text.car_dealer import MAX_MESSAGE, CarDealerEnv, parse_price
from turngym.envs.text.car_dealer_data import MODELS, TYPE_FEATURES
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/CarDealer-v0"


def deal_stub(profile: dict[str, Any], message: str) -> str:
    """A stand-in partner: takes any priced message, otherwise asks for one."""
    price = parse_price(message)
    if price is None:
        return f"I have ${profile['budget']:,}. Make me an offer."
    return f"DEAL at ${price[0]:,}, thanks!"


def seed0() -> CarDealerEnv:
    """Seed 0 with 8 cars: she wants a coupe with heated seats and a sunroof, budget $27,200."""
    env = gym.make(ID, num_cars=8)
    env.reset(seed=0)
    inner = env.unwrapped
    assert isinstance(inner, CarDealerEnv)
    return inner


class ListPriceSeller(BaseAgent):
    """Naive baseline: offers the best-fitting car at its list price, every turn."""

    def __init__(self, env: gym.Env) -> None:
        self.env = env.unwrapped

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        env = self.env
        model = max(env.cars, key=env.fit)
        return f"Offer the {model} for ${env.cars[model].list_price:,}"


class CounterTaker(ListPriceSeller):
    """Baseline: asks list price for the best-fitting car once, then takes her counter."""

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        return "Deal." if "I could do" in obs else super().act(obs, info)


# -- conformance ----------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, {"num_cars": 15}, {"buyer": deal_stub}])
def test_conformance(kwargs):
    check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs, reset_episodes=20, expert_episodes=10)


# -- the lot and the buyer ------------------------------------------------------------


def test_lots_and_buyers_are_sensible():
    env = CarDealerEnv()
    sizes = set()
    for seed in range(100):
        env.reset(seed=seed)
        sizes.add(len(env.cars))
        models = {m[1]: m for m in MODELS}
        for model, car in env.cars.items():
            assert models[model][2] == car.type and 2 <= len(car.features) <= 4
            assert set(car.features) <= set(TYPE_FEATURES[car.type])
            assert car.list_price % 100 == 0 and car.list_price > 15_000
        b = env.buyer
        # Some car on the lot is exactly what she wants.
        assert any(env.fit(m) == 1.0 for m in env.cars)
        assert 1 <= len(b.features) <= 2 and 4 <= b.patience <= 9 and b.budget % 100 == 0
    assert sizes == set(range(8, 16))


def test_seeds_are_deterministic_and_differ():
    env = CarDealerEnv()
    firsts = [env.reset(seed=s)[0] for s in range(20)]
    assert len(set(firsts)) == 20
    assert CarDealerEnv().reset(seed=5)[0] == firsts[5]


def test_first_observation_lists_the_lot_and_the_task():
    env = gym.make(ID, num_cars=8)
    obs, info = env.reset(seed=0)
    assert info["instruction"] in obs and "legal_actions" not in info
    assert (
        "- BRZ: 2016 Subaru BRZ (coupe), heated seats, leather seats, sunroof; list price $29,700"
        in obs
    )
    assert obs.count("list price $") == 8
    assert obs.endswith("Buyer: Hi! I'm shopping for a car today.")


def test_parse_price():
    assert parse_price("offer the RAV4 for $27,500") == (27500, 19)
    assert parse_price("$27.5k on the RAV4") == (27500, 0)
    assert parse_price("$ 30000") == (30000, 0)
    assert parse_price("was $31,000, now $29,900!") == (29900, 17)
    assert parse_price("30000 dollars") is None


def test_willingness_follows_the_documented_rule():
    env = seed0()
    assert (env.buyer.budget, env.buyer.car_type, env.buyer.features) == (
        27_200,
        "coupe",
        ("heated seats", "sunroof"),
    )
    # BRZ: her type, both features; capped by her budget (list $29,700).
    assert env.fit("BRZ") == 1.0
    assert env.willingness("BRZ") == pytest.approx(27_200 * 0.9)
    assert env.willingness("BRZ", interest=1.0) == pytest.approx(27_200)
    # Civic: a sedan (x 0.7) with heated seats but no sunroof (- 5%).
    assert env.fit("Civic") == pytest.approx(0.7 * 0.95)
    # Corolla: list $26,300 is under her budget, so the list price caps it.
    assert env.willingness("Corolla", interest=1.0) == pytest.approx(26_300 * 0.7 * 0.9)


def test_pitching_raises_interest_and_the_price_she_pays():
    env = seed0()
    env.step("How about the Civic? It has a sunroof!")  # a sedan, and no sunroof: no points
    assert env.interest() == 0.0
    env.step("Then the BRZ, a sporty coupe.")
    assert env.points == {"type"} and env.interest() == pytest.approx(1 / 3)
    obs, *_ = env.step("It has heated seats and a moonroof.")
    assert env.points == {"type", "heated seats", "sunroof"} and env.interest() == 1.0
    assert obs == (
        "Buyer: The BRZ looks interesting. I like that it has heated seats and sunroof. "
        "What price could you do?"
    )
    obs, reward, terminated, _, info = env.step("I can do $27,200 on the BRZ.")
    assert obs == "Buyer: Deal! I'll take the BRZ for $27,200."
    assert reward == pytest.approx(27_200 / 29_700) and terminated and info["success"]
    assert info["sale"] == {"car": "BRZ", "price": 27_200, "list_price": 29_700}


def test_offers_are_accepted_at_or_below_her_price_else_countered():
    env = seed0()
    top = env.willingness("BRZ", interest=1 / 3)  # naming the BRZ earns the type point
    assert top == pytest.approx(27_200 * (0.9 + 0.1 / 3))
    obs, reward, terminated, _, info = env.step("offer the BRZ for $25,400")
    assert obs == "Buyer: $25,400 is more than I want to pay for the BRZ. I could do $22,800."
    assert (reward, terminated, env.rejections) == (0.0, False, 1)
    obs, *_ = env.step("offer the BRZ for $25,400")
    assert obs.endswith("I could do $24,100.")  # 0.95 of her top price, floored to $100
    obs, reward, terminated, _, info = env.step("Fine, $25,300 for the BRZ.")
    assert obs == "Buyer: Deal! I'll take the BRZ for $25,300."
    assert reward == pytest.approx(25_300 / 29_700) and info["success"]


def test_deal_takes_her_counter_and_three_rejections_end_it():
    env = seed0()
    env.step("offer the BRZ for $40,000")
    obs, reward, terminated, _, info = env.step("No deal, sorry.")
    assert not terminated and not info["success"]
    obs, reward, terminated, _, info = env.step("Deal, I accept.")
    assert obs == "Buyer: Deal! I'll take the BRZ for $22,800." and info["success"]
    assert terminated and reward == pytest.approx(22_800 / 29_700)
    env = seed0()
    outs = [env.step("BRZ: $40,000, final.") for _ in range(3)]
    assert [o[2] for o in outs] == [False, False, True]
    assert outs[-1][0].endswith("(The buyer walked away.)")
    assert outs[-1][1] == 0.0 and not outs[-1][4]["success"]


def test_which_car_an_offer_is_about():
    env = seed0()
    obs, *_ = env.step("I'll sell it for $20,000.")
    assert obs == "Buyer: Which car is that price for?" and env.rejections == 0
    env.step("Have a look at the Tundra.")
    obs, *_ = env.step("Not the Tundra. The BRZ for $40,000.")
    assert env.current == "BRZ" and "for the BRZ" in obs
    env.step("I can do $30,000 on the Tundra or the BRZ for $45,000.")
    assert env.current == "BRZ"  # the last amount, and the car named nearest it
    obs, *_ = env.step("OK, $45,000 then.")  # no car named: the one under discussion
    assert "for the BRZ" in obs


def test_chat_replies_reveal_taste_and_budget_on_request():
    env = seed0()
    assert env.step("What are you looking for?")[0] == (
        "Buyer: I'm looking for a coupe with heated seats and a sunroof."
    )
    assert env.step("What's your budget?")[0] == "Buyer: I'd like to stay under $30,000."
    assert env.step("Nice weather today.")[0] == (
        "Buyer: Hmm. I'm after a coupe. What would you recommend?"
    )
    assert env.step("the tundra is great")[0].startswith(
        "Buyer: The Tundra is a truck; I'm really looking for a coupe"
    )


def test_patience_runs_out():
    env = seed0()
    assert env.buyer.patience == 8
    outs = [env.step(f"Small talk number {i}.") for i in range(8)]
    assert [o[2] for o in outs] == [False] * 7 + [True]
    assert "I've been here long enough" in outs[-1][0] and outs[-1][1] == 0.0


def test_only_empty_or_overlong_messages_are_invalid():
    env = gym.make(ID, num_cars=8)
    env.reset(seed=0)
    for bad in ["", "   \n", "x" * (MAX_MESSAGE + 1)]:
        obs, reward, terminated, truncated, info = env.step(bad)
        assert info["invalid_action"] and reward == 0.0 and not (terminated or truncated)
        assert "empty" in obs or "longer than 1000 characters" in obs
    for odd in ["x" * MAX_MESSAGE, "¿¡ 🚗 !?", "asdf qwer"]:
        *_, info = env.step(odd)
        assert not info["invalid_action"]


def test_state_key_and_render():
    env = gym.make(ID, num_cars=8, render_mode="ansi")
    _, info = env.reset(seed=0)
    assert info["state_key"] == "t0|-||r0|-"
    *_, info = env.step("offer the BRZ for $40,000")
    assert info["state_key"] == "t1|BRZ|type|r1|BRZ@22800"
    assert "buyer: budget $27,200, wants a coupe with heated seats and sunroof" in env.render()


# -- the buyer hook -------------------------------------------------------------------


def test_buyer_hook_replaces_the_scripted_buyer():
    seen: list[tuple[dict, str]] = []

    def hook(profile: dict[str, Any], message: str) -> str:
        seen.append((profile, message))
        if "leave" in message:
            return "WALK AWAY. Bye."
        if "$" in message:
            return "DEAL at $26,000 for the BRZ"
        return "Tell me more."

    env = gym.make(ID, num_cars=8, buyer=hook)
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step("Look at the Civic.")
    assert obs == "Buyer: Tell me more." and not terminated
    profile = seen[0][0]
    assert profile["budget"] == 27_200 and profile["car_type"] == "coupe"
    assert profile["features"] == ["heated seats", "sunroof"] and len(profile["inventory"]) == 8
    assert profile["inventory"][2]["model"] == "BRZ"
    obs, reward, terminated, _, info = env.step("How about $26,000?")
    # The reply names the BRZ, so that is the car sold (not the Civic under discussion).
    assert info["sale"]["car"] == "BRZ" and reward == pytest.approx(26_000 / 29_700)
    assert terminated and info["success"]
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step("please leave")
    assert terminated and reward == 0.0 and not info["success"]
    assert obs == "Buyer: WALK AWAY. Bye. (The buyer walked away.)"
    # No patience limit with a hook: the scripted buyer would have left by now.
    env.reset(seed=0)
    outs = [env.step("hello") for _ in range(12)]
    assert not any(o[2] for o in outs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_cars": 7}, "num_cars must be an int from 8 to 15 or None, got 7"),
        ({"num_cars": 16}, "num_cars must be an int from 8 to 15"),
        ({"num_cars": 10.0}, "num_cars must be an int"),
        ({"buyer": "alice"}, r"buyer must be None .* or a callable"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(ID, **kwargs)


# -- expert ---------------------------------------------------------------------------


def test_expert_closes_on_200_seeds_and_beats_naive_sellers():
    expert = evaluate(ID, make_expert, episodes=200)
    assert all(e.invalid == 0 for e in expert.episodes)
    assert expert.success_rate >= 0.95 and {e.steps for e in expert.episodes} == {2}
    naive = evaluate(ID, ListPriceSeller, episodes=200)
    taker = evaluate(ID, CounterTaker, episodes=200)
    # measured: expert 1.0 / 0.973, list-price seller 0.0 / 0.0, counter taker 1.0 / 0.812
    assert naive.mean_return == 0.0
    assert expert.mean_return >= 0.93
    assert expert.mean_return - taker.mean_return >= 0.12


def test_expert_rejects_other_envs():
    with pytest.raises(TypeError, match="needs a CarDealerEnv"):
        CarDealerExpert(gym.make("turngym/Bandit-v0"))
