from __future__ import annotations

import gymnasium as gym
import pytest

import turngym  # noqa: F401
from turngym.agents.experts.textcraft import TextCraftExpert, plan
from turngym.envs.text.textcraft import TextCraftEnv, recipe_text
from turngym.envs.text.textcraft_data import BASE_ITEMS, RECIPES, depth, subtree
from turngym.sdk.evaluation import evaluate
from turngym.testing import check_text_env

ID = "turngym/TextCraft-v0"


def start(target: str = "wooden pickaxe", **kwargs) -> tuple[TextCraftEnv, str]:
    env = TextCraftEnv(target=target, **kwargs)
    obs, _ = env.reset(seed=0)
    return env, obs


# -- conformance and expert -------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, {"depth": 4, "num_distractors": 10}])
def test_conformance(kwargs):
    check_text_env(ID, n_fuzz=1000, make_kwargs=kwargs, reset_episodes=20, expert_episodes=10)


@pytest.mark.parametrize("kwargs", [{}, {"depth": 1}, {"depth": 3}, {"depth": 4}])
def test_expert_crafts_the_target_on_200_seeds(kwargs):
    result = evaluate(ID, TextCraftExpert, episodes=200, env_kwargs=kwargs)
    assert result.success_rate == 1.0
    assert result.mean_return == 1.0
    assert all(e.invalid == 0 for e in result.episodes)


def test_every_item_can_be_planned_within_the_step_limit():
    for item in RECIPES:
        env, _ = start(item)
        commands = plan(item, {})
        assert len(commands) <= 40
        for command in commands[:-1]:
            _, reward, terminated, _, info = env.step(command)
            assert not info["invalid_action"], (item, command, info.get("invalid_reason"))
            assert (reward, terminated) == (0.0, False)
        _, reward, terminated, _, info = env.step(commands[-1])
        assert (reward, terminated, info["success"]) == (1.0, True, True)


# -- the recipe table ---------------------------------------------------------------------


def test_recipe_table_is_closed_and_deep_enough():
    assert len(RECIPES) + len(BASE_ITEMS) >= 40
    assert not set(RECIPES) & set(BASE_ITEMS)
    for made, ingredients in RECIPES.values():
        assert made >= 1
        assert all(i in RECIPES or i in BASE_ITEMS for i in ingredients)
    assert {depth(i) for i in RECIPES} == {1, 2, 3, 4}
    assert depth("chiseled stone bricks") == 4  # cobblestone, stone, bricks, slab, chiseled
    assert subtree("bow") == ["bow", "stick", "oak planks"]


# -- constructor ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"depth": 5}, "depth must be 1, 2, 3, 4 or None"),
        ({"depth": 0}, "depth must be 1, 2, 3, 4 or None"),
        ({"num_distractors": 11}, "num_distractors must be an int in 0..10"),
        ({"target": "oak log"}, "target must be a craftable item"),
        ({"target": "netherite hoe"}, "target must be a craftable item"),
    ],
)
def test_bad_kwargs_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TextCraftEnv(**kwargs)


# -- episodes -----------------------------------------------------------------------------


def test_first_observation_lists_tree_recipes_and_distractors():
    env, obs = start("bow", num_distractors=3)
    assert "Goal: craft bow." in obs
    assert obs.endswith("Inventory: empty.")
    lines = obs.split("Crafting commands:\n")[1].split("\n\n")[0].splitlines()
    assert len(lines) == 3 + 3
    for item in ("bow", "stick", "oak planks"):
        assert recipe_text(item) in lines
    assert "craft 1 bow using 3 stick, 3 string" in lines
    assert sorted(env.recipes) == sorted(set(env.recipes))


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_depth_kwarg_picks_targets_of_that_depth(level):
    env = gym.make(ID, depth=level)
    targets = {env.reset(seed=s)[1]["target"] for s in range(30)}
    assert all(depth(t) == level for t in targets)
    assert len(targets) > 2


def test_same_seed_same_episode_and_seeds_differ():
    env = gym.make(ID)
    firsts = [env.reset(seed=s)[0] for s in range(20)]
    assert firsts == [gym.make(ID).reset(seed=s)[0] for s in range(20)]
    assert len(set(firsts)) == 20


def test_get_craft_and_win():
    env, _ = start("wooden pickaxe")
    obs, reward, terminated, _, info = env.step("get 2 oak log")
    assert obs == "Got 2 oak log.\nInventory: [oak log] (2)"
    assert (reward, terminated, info["invalid_action"]) == (0.0, False, False)
    obs, *_ = env.step("craft 8 oak planks using 2 oak log")
    assert obs == "Crafted 8 oak planks.\nInventory: [oak planks] (8)"
    obs, *_ = env.step("craft 4 stick using 2 oak planks")
    assert obs == "Crafted 4 stick.\nInventory: [oak planks] (6), [stick] (4)"
    obs, reward, terminated, truncated, info = env.step(
        "craft 1 wooden pickaxe using 3 oak planks, 2 stick"
    )
    assert obs == (
        "Crafted 1 wooden pickaxe.\n"
        "Inventory: [oak planks] (3), [stick] (2), [wooden pickaxe] (1)\n"
        "You have the wooden pickaxe: task complete!"
    )
    assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
    assert info["inventory"] == {"oak planks": 3, "stick": 2, "wooden pickaxe": 1}


@pytest.mark.parametrize(
    "action",
    [
        "Get 1 Oak Log",
        "get oak log",
        "get 1 oak logs",
        "get 1 [oak log]",
        "fetch 1 minecraft:oak_log",
        "  GET 1x oak log. ",
    ],
)
def test_lenient_get(action):
    env, _ = start()
    _, _, _, _, info = env.step(action)
    assert not info["invalid_action"], info.get("invalid_reason")
    assert env.inventory == {"oak log": 1}


@pytest.mark.parametrize(
    "action",
    [
        "craft oak planks",
        "craft 4 oak planks",
        "Craft 3 oak plank from 1 oak log",
        "craft [oak planks]",
        "craft 4 oak planks using 1 oak log, ",
    ],
)
def test_lenient_craft_makes_one_batch(action):
    env, _ = start()
    env.step("get 1 oak log")
    _, _, _, _, info = env.step(action)
    assert not info["invalid_action"], info.get("invalid_reason")
    assert env.inventory == {"oak planks": 4}


def test_craft_count_rounds_up_to_whole_batches():
    env, _ = start()
    env.step("get 3 oak log")
    env.step("craft 5 oak planks")
    assert env.inventory == {"oak log": 1, "oak planks": 8}


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("craft 4 stick using 2 oak planks", "you still need 2 oak planks"),
        ("craft stick using 2 birch planks", "it is `craft 4 stick using 2 oak planks`"),
        ("craft stick using 2 dirt", "there is no item called 'dirt'"),
        ("get 1 stick", "stick is not a base material"),
        ("craft 2 diamond", "diamond is a base material: fetch it with `get 1 diamond`"),
        ("get 3 unobtainium", "there is no item called 'unobtainium'"),
        ("craft flux capacitor", "there is no item called 'flux capacitor'"),
        ("get 0 oak log", "counts must be between 1 and 999"),
        ("get 5000 oak log", "counts must be between 1 and 999"),
        ("mine some wood", "unknown command"),
        ("", "the action is empty"),
    ],
)
def test_invalid_actions_say_why(action, reason):
    env, _ = start(invalid_action_penalty=-0.1)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["invalid_action"]
    assert reason in info["invalid_reason"] and reason in obs
    assert reward == -0.1 and not terminated and not truncated
    assert env.inventory == {}


def test_inventory_command_and_state_key():
    env, _ = start("bread")
    obs, _, _, _, info = env.step("inventory")
    assert obs == "Inventory: empty." and not info["invalid_action"]
    env.step("get 3 wheat")
    obs, _, _, _, info = env.step("Inventory")
    assert obs == "Inventory: [wheat] (3)"
    assert info["state_key"] == "bread|wheat=3"
    assert info.get("legal_actions") is None  # free-form commands
    _, reward, terminated, _, info = env.step("craft 1 bread using 3 wheat")
    assert (reward, terminated) == (1.0, True)


def test_planner_reserves_shared_ingredients():
    # The fence needs planks both directly and through its sticks.
    assert plan("oak fence", {}) == [
        "get 1 oak log",
        "craft 4 oak planks using 1 oak log",
        "get 1 oak log",
        "craft 4 oak planks using 1 oak log",
        "craft 4 stick using 2 oak planks",
        "craft 3 oak fence using 4 oak planks, 2 stick",
    ]
    assert plan("stick", {"stick": 1}) == []
