"""MarkovianChunks (Delethink): reasoning chunks, the carry-over, answers, overlong."""

from __future__ import annotations

import tempfile

import gymnasium as gym
import pytest

import turngym
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.markovian_chunks import CARRY_HEADER, MarkovianChunks

ENVS = [  # single-answer envs first, then multi-turn ones
    "turngym/Countdown-v0",
    "turngym/TryAgainQA-v0",
    "turngym/SearchQA-v0",
    "turngym/Bandit-v0",
    "turngym/FrozenLake-v0",
    "turngym/Maze-v0",
]


class Tagged(gym.Wrapper):
    """Sends each string action as reasoning that ends with it in <answer> tags."""

    def step(self, action):
        if isinstance(action, str):
            action = f"I reason briefly. <answer>{action}</answer>"
        return self.env.step(action)


@pytest.mark.parametrize("env_id", ENVS)
def test_thinking_chunks_then_the_answer(env_id):
    plain = turngym.make(env_id)
    env = MarkovianChunks(turngym.make(env_id), chunk_tokens=12, carry_tokens=4)
    expert = make_expert(plain, env_id)
    expert.reset(seed=0)
    obs_p, info_p = plain.reset(seed=0)
    obs, info = env.reset(seed=0)
    assert obs == obs_p and info["segment"] == 0
    done, chunks = False, 0
    while not done:
        for _ in range(2):  # two chunks of thought before each answer
            words = [f"w{chunks}_{j}" for j in range(20)]  # 20 words: cut to 12
            obs, reward, terminated, truncated, info = env.step(" ".join(words))
            chunks += 1
            assert info["wrapper_turn"] and info["context_event"] == "chunk"
            assert reward == 0.0 and not (terminated or truncated)
            assert obs == f"{obs_p}\n\n{CARRY_HEADER}\n" + " ".join(words[8:12])
            assert info["segment"] == chunks
        action = expert.act(obs_p, info_p)
        obs_p, r_p, term, trunc, info_p = plain.step(action)
        obs, r, term_w, trunc_w, info = env.step(f"So the answer: <answer>{action}</answer>")
        assert (obs, r, term_w, trunc_w) == (obs_p, r_p, term, trunc)
        assert not info["wrapper_turn"]
        done = term or trunc


@pytest.mark.parametrize("env_id", ENVS[:5])
def test_conformance_with_the_wrapper(env_id):
    check_text_env(
        lambda: Tagged(MarkovianChunks(turngym.make(env_id), 64, 8)),
        n_fuzz=1000,
        reset_episodes=5,
        expert=lambda env: make_expert(env, env_id),
    )


def test_the_context_stays_constant_with_a_real_tokenizer():
    pytest.importorskip("transformers", reason="needs transformers for a real tokenizer")
    from transformers import AutoTokenizer

    from turngym.sdk.models import build_tiny_model

    tok = AutoTokenizer.from_pretrained(build_tiny_model(tempfile.mkdtemp()))
    env = MarkovianChunks(
        turngym.make("turngym/Countdown-v0"), 32, 6, max_chunks=201, tokenizer=tok
    )
    task, _ = env.reset(seed=0)
    sizes = []
    for k in range(200):
        chunk = f"step {k}: " + "try 3 + 5 then multiply by 7 and compare with the target " * 3
        obs, _, _, truncated, info = env.step(chunk)
        assert not truncated and info["segment"] == k + 1
        sizes.append(len(tok.encode(obs)))
    assert max(sizes) <= len(tok.encode(task)) + len(tok.encode(CARRY_HEADER)) + 6 + 4


def test_max_chunks_truncates_as_overlong_and_reset_is_clean():
    env = MarkovianChunks(turngym.make("turngym/Countdown-v0"), 16, 4, max_chunks=3)
    task, _ = env.reset(seed=1)
    flags = [env.step("thinking hard")[3] for _ in range(3)]
    assert flags == [False, False, True] and env.chunks == 3
    obs, info = env.reset(seed=1)
    assert obs == task and env.chunks == 0 and info["segment"] == 0


def test_non_strings_reach_the_env_invalid_path():
    env = MarkovianChunks(turngym.make("turngym/Countdown-v0"), 16, 4)
    env.reset(seed=0)
    *_, info = env.step(None)
    assert info["invalid_action"] and not info["wrapper_turn"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 0), "chunk_tokens must be an int >= 1"),
        ((8, -1), "carry_tokens must be an int >= 0"),
        ((8, 8), "must be below chunk_tokens"),
    ],
)
def test_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        MarkovianChunks(turngym.make("turngym/Countdown-v0"), *args)


@pytest.mark.filterwarnings("ignore:.*(NumPy array|all zeros).*:UserWarning")  # api_test
@pytest.mark.parametrize("game_id", ["turngym/TicTacToe-v0", "turngym/KuhnPoker-v0"])
def test_games_let_each_player_think_in_chunks(game_id):
    from pettingzoo.test import api_test

    from turngym.wrappers.markovian_chunks import MarkovianChunksGame

    api_test(MarkovianChunksGame(turngym.make_game(game_id), 16, 3), num_cycles=10)
    plain = turngym.make_game(game_id)
    game = MarkovianChunksGame(turngym.make_game(game_id), 16, 3, max_chunks=3)
    plain.reset(seed=2)
    game.reset(seed=2)
    totals = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter(200):
        obs, reward, terminated, truncated, info = game.last()
        totals[agent] += reward
        if terminated or truncated:
            game.step(None)
            continue
        assert obs["text"].startswith(plain.observe(agent)["text"])
        if not info.get("wrapper_turn"):
            game.step(f"{agent} ponders the position carefully")
            assert game.agent_selection == agent
            assert game.infos[agent]["context_event"] == "chunk"
            continue
        assert obs["text"].endswith(f"{CARRY_HEADER}\nthe position carefully")
        move = info["legal_actions"][0]
        game.step(f"ok <answer>{move}</answer>")
        plain.step(move)
    assert [totals[a] for a in game.possible_agents] == plain.returns


def test_games_after_max_chunks_only_a_legal_move_plays():
    """Issue 26, item 6: the last chunk is the move only when it IS a legal move.

    Any other last chunk is no answer: the game's invalid-action rules decide, and the
    reasoning never reaches the game.
    """
    from turngym.wrappers.markovian_chunks import MarkovianChunksGame

    game = MarkovianChunksGame(turngym.make_game("turngym/TicTacToe-v0"), 16, 3, max_chunks=2)
    game.reset(seed=0)
    game.step("thinking")
    assert game.infos["player_0"]["wrapper_turn"]
    game.step("b2")  # the second chunk in a row, no tags, but a legal move: played
    assert game.agent_selection == "player_1" and not game.infos["player_0"]["invalid_action"]
    assert not game.infos["player_0"].get("wrapper_turn")
    game.step("my secret plan: take a corner")
    game.step("the secret plan still stands")  # out of chunks, no answer
    info = game.infos["player_1"]
    assert game.agent_selection == "player_1"  # the game's rules: an invalid move, retry
    assert info["invalid_action"] and info["format_error"] and not info.get("wrapper_turn")
    assert "[no action found]" in game.observe("player_1")["text"]
    assert "secret" not in game.observe("player_0")["text"]


def test_free_form_games_never_show_a_players_reasoning():
    """Issue 26, item 6: out of chunks in a negotiation, nothing is said to the other player.

    Before, the last chunk went to the game as the move, and a free-form game relays
    it: the opponent read the player's private reasoning.
    """
    from turngym.wrappers.markovian_chunks import MarkovianChunksGame

    game = MarkovianChunksGame(
        turngym.make_game("turngym/SimpleNegotiation-v0"), 16, 3, max_chunks=2
    )
    game.reset(seed=0)
    game.step("I value Ore most, they must not know")
    game.step("so I will lowball them on Ore")
    info = game.infos["player_0"]
    assert info["invalid_action"] and info["format_error"]
    game.step("<answer>[Offer: 1 Wheat -> 1 Ore]</answer>")  # its retry: an answer
    assert game.agent_selection == "player_1"
    seen = game.observe("player_1")["text"]
    assert "Offer" in seen and "Ore most" not in seen and "lowball" not in seen


def test_games_count_each_players_chunks_as_its_segments():
    """Issue 26, item 6: a player's segment is its chunk count, never back to 0 after a move."""
    from turngym.wrappers.markovian_chunks import MarkovianChunksGame

    game = MarkovianChunksGame(turngym.make_game("turngym/TicTacToe-v0"), 16, 3)
    game.reset(seed=0)
    seen: dict[str, list[tuple[int, str | None]]] = {a: [] for a in game.possible_agents}
    script = iter(["hmm", "<answer>a1</answer>", "<answer>b1</answer>", "hmm", "hmm again"])
    for action in script:
        game.step(action)
        _, _, _, _, info = game.last()
        seen[game.agent_selection].append((info["segment"], info["context_event"]))
    game.step("<answer>a2</answer>")
    game.step("<answer>b2</answer>")
    info = game.last()[-1]
    assert game.agent_selection == "player_0"
    assert seen["player_0"] == [(1, "chunk"), (1, None), (2, "chunk"), (3, "chunk")]
    assert (info["segment"], info["context_event"]) == (3, None)
