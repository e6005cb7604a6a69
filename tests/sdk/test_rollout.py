from __future__ import annotations

import collections
import itertools
from typing import Any

import gymnasium as gym
import pytest

import turngym
from turngym.agents import RandomAgent, make_expert
from turngym.sdk.agents import LLMAgent
from turngym.sdk.policy import Generation, SamplingParams
from turngym.sdk.records import Decision, Turn
from turngym.sdk.rollout import Collector, GameCollector, collect, collect_games


class Counting:
    """Forwards to a real agent and records the size of every ``act_batch`` call."""

    def __init__(self, inner: Any, trainable: bool = False) -> None:
        self.inner = inner
        self.trainable = trainable
        self.batches: list[int] = []

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed=seed)

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        return str(self.inner.act(obs, info))

    def act_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[str]:
        self.batches.append(len(obs))
        return list(self.inner.act_batch(obs, infos))


class Recording(Counting):
    """A scripted agent that records fake token ids the way an LLM agent does."""

    def decide_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[Decision]:
        return [Decision(a, _fake_turn(a)) for a in super().act_batch(obs, infos)]


def _fake_turn(action: str) -> Turn:
    return Turn(prompt_ids=[1, len(action)], action_ids=[7], action_logprobs=[-0.25])


class OldRecording(Counting):
    """An agent written for the record on ``last_turns`` (before ``decide_batch``)."""

    def act_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[str]:
        actions = super().act_batch(obs, infos)
        self.last_turns = [_fake_turn(a) for a in actions]
        return actions


def _lockstep(batches: list[int], num_envs: int, episodes: int, total_turns: int) -> None:
    """Every call held every active env: full batches while episodes remain to start."""
    assert sum(batches) == total_turns
    assert all(b <= num_envs for b in batches)
    assert batches == sorted(batches, reverse=True)  # envs only drop out at the end
    if episodes >= num_envs:
        assert batches[0] == num_envs


@pytest.mark.parametrize("env_id", ["turngym/FrozenLake-v0", "turngym/Wordle-v0"])
def test_counts_groups_and_one_call_per_step(env_id):
    agent = Counting(RandomAgent(seed=0))
    episodes = collect(env_id, agent, episodes=12, seed=5, group_size=3, num_envs=4, max_turns=8)
    assert [ep.index for ep in episodes] == list(range(12))
    assert [ep.group for ep in episodes] == [k // 3 for k in range(12)]
    assert [ep.seed for ep in episodes] == [5 + k // 3 for k in range(12)]
    assert all(ep.env_id == env_id for ep in episodes)
    _lockstep(agent.batches, 4, 12, sum(ep.length for ep in episodes))
    # a group is one task: its episodes start from the same observation
    for g in range(4):
        assert len({ep.turns[0].obs for ep in episodes if ep.group == g}) == 1
    assert all(ep.turns[-1].done and not any(t.done for t in ep.turns[:-1]) for ep in episodes)


@pytest.mark.parametrize("env_id", ["turngym/FrozenLake-v0", "turngym/Wordle-v0"])
def test_turns_replay_in_a_fresh_env(env_id):
    episodes = collect(env_id, RandomAgent(seed=1), episodes=6, seed=0, num_envs=3)
    env = turngym.make(env_id)
    for ep in episodes:
        obs, _ = env.reset(seed=ep.seed)
        total = 0.0
        for turn in ep.turns:
            assert turn.obs == obs and turn.agent == "agent" and not turn.trainable
            obs, reward, terminated, truncated, info = env.step(turn.action)
            assert (turn.reward, turn.terminated, turn.truncated) == (reward, terminated, truncated)
            assert turn.info == info
            total += reward
        assert ep.returns == {"agent": total}
        assert ep.final_obs == {"agent": obs}
        assert ep.success == bool(info.get("success"))


def test_deterministic_given_seeds():
    def run(seed: int) -> list[dict[str, Any]]:
        eps = collect("turngym/Wordle-v0", RandomAgent(seed=3), episodes=6, seed=seed, num_envs=3)
        return [ep.to_dict() for ep in eps]

    assert run(0) == run(0)
    assert run(0) != run(1)


def test_experts_per_env_solve_their_tasks():
    for env_id in ["turngym/FrozenLake-v0", "turngym/Wordle-v0"]:
        episodes = collect(env_id, "expert", episodes=6, seed=0, num_envs=3)
        assert all(ep.success for ep in episodes), env_id
    factory = collect("turngym/Wordle-v0", make_expert, episodes=4, seed=0, num_envs=2)
    assert all(ep.success for ep in factory)


def test_list_of_envs_and_sync_vector_env():
    envs = [turngym.make("turngym/FrozenLake-v0") for _ in range(2)]
    from_list = collect(envs, RandomAgent(seed=0), episodes=4, seed=0)
    vec = gym.vector.SyncVectorEnv([lambda: turngym.make("turngym/FrozenLake-v0")] * 2)
    from_vec = collect(vec, RandomAgent(seed=0), episodes=4, seed=0)
    from_id = collect("FrozenLake-v0", RandomAgent(seed=0), episodes=4, seed=0, num_envs=2)
    assert [e.to_dict() for e in from_list] == [e.to_dict() for e in from_vec]
    assert [e.to_dict() for e in from_list] == [e.to_dict() for e in from_id]
    envs[0].reset(seed=0)  # envs passed in stay open for their owner


def test_max_turns_truncates():
    episodes = collect("turngym/Wordle-v0", RandomAgent(seed=0), episodes=3, max_turns=2)
    assert all(ep.length == 2 and ep.turns[-1].truncated for ep in episodes)


def test_recorded_token_ids_reach_the_turns():
    agent = Recording(RandomAgent(seed=0), trainable=True)
    ep = collect("turngym/FrozenLake-v0", agent, episodes=1, seed=0)[0]
    for turn in ep.turns:
        assert turn.prompt_ids == [1, len(turn.action)] and turn.action_ids == [7]
        assert turn.action_logprobs == [-0.25] and turn.trainable
        assert turn.agent == "agent" and turn.info  # the env's side filled in
    assert len(ep.samples()) == ep.length


def test_the_agents_own_turn_is_the_record_not_a_copy():
    made: list[Turn] = []

    class Keeping(Recording):
        def decide_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[Decision]:
            decisions = super().decide_batch(obs, infos)
            made.extend(d.turn for d in decisions if d.turn is not None)
            return decisions

    ep = collect("turngym/FrozenLake-v0", Keeping(RandomAgent(seed=0)), episodes=1, seed=0)[0]
    assert len(made) == ep.length and all(a is b for a, b in zip(made, ep.turns, strict=True))


def test_records_left_on_last_turns_still_arrive_with_a_warning():
    agent = OldRecording(RandomAgent(seed=0), trainable=True)
    with pytest.warns(DeprecationWarning, match="decide_batch"):
        ep = collect("turngym/FrozenLake-v0", agent, episodes=1, seed=0)[0]
    assert all(t.action_ids == [7] and t.prompt_ids == [1, len(t.action)] for t in ep.turns)


def test_bad_arguments():
    with pytest.raises(ValueError, match="multiple of group_size"):
        collect("turngym/Bandit-v0", RandomAgent(), episodes=5, group_size=2)
    with pytest.raises(ValueError, match="num_envs"):
        Collector("turngym/Bandit-v0", RandomAgent(), num_envs=0)
    with pytest.raises(ValueError, match="group_size"):
        collect("turngym/Bandit-v0", RandomAgent(), episodes=2, group_size=0)
    with pytest.raises(TypeError, match="factory"):
        collect("turngym/Bandit-v0", 42, episodes=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown agent"):
        collect("turngym/Bandit-v0", "wizard", episodes=1)
    assert collect("turngym/Bandit-v0", RandomAgent(), episodes=0) == []


def _replay_game(game_id: str, ep: Any) -> list[float]:
    """Replay the episode's actions in a fresh game; its final returns."""
    game = turngym.make_game(game_id)
    game.reset(seed=ep.seed)
    for turn in ep.turns:
        assert game.agent_selection == turn.agent
        assert game.observe(turn.agent)["text"] == turn.obs["text"]
        game.step(turn.action)
        while game.agents and (
            game.terminations[game.agent_selection] or game.truncations[game.agent_selection]
        ):
            game.step(None)
    assert not game.agents
    return list(game.returns)


def test_tictactoe_self_play_batches_every_game():
    agent = Counting(RandomAgent(seed=0))
    episodes = collect_games("TicTacToe-v0", agent, episodes=10, seed=0, num_games=4)
    assert len(episodes) == 10
    _lockstep(agent.batches, 4, 10, sum(ep.length for ep in episodes))
    for ep in episodes:
        seats = [t.agent for t in ep.turns]
        assert seats == ["player_0", "player_1"] * (len(seats) // 2) + ["player_0"] * (
            len(seats) % 2
        )
        assert sum(ep.returns.values()) == 0
        for seat in ("player_0", "player_1"):
            assert sum(t.reward for t in ep.turns if t.agent == seat) == ep.returns[seat]
        assert [ep.returns["player_0"], ep.returns["player_1"]] == _replay_game(
            "turngym/TicTacToe-v0", ep
        )
        last = {t.agent: t for t in ep.turns}
        assert all(t.terminated for t in last.values())
        assert set(ep.final_obs) == {"player_0", "player_1"}


def test_tictactoe_expert_self_play_draws():
    episodes = collect_games("turngym/TicTacToe-v0", "expert", episodes=6, seed=0)
    assert all(ep.length == 9 and ep.returns == {"player_0": 0, "player_1": 0} for ep in episodes)
    assert not any(ep.success for ep in episodes)


def test_kuhn_against_the_expert():
    learner = Counting(RandomAgent(seed=0), trainable=True)
    episodes = collect_games(
        "turngym/KuhnPoker-v0",
        {"player_0": learner, "player_1": "expert"},
        episodes=2000,
        seed=0,
        group_size=2,
        num_games=8,
    )
    assert [ep.seed for ep in episodes[:4]] == [0, 0, 1, 1]
    assert all(
        ep.meta["seats"] == {"player_0": "Counting", "player_1": "KuhnPokerExpert"}
        for ep in episodes
    )
    for ep in episodes[:40]:
        assert [ep.returns["player_0"], ep.returns["player_1"]] == _replay_game(
            "turngym/KuhnPoker-v0", ep
        )
    for ep in episodes:
        assert all(t.trainable == (t.agent == "player_0") for t in ep.turns)
        assert ep.success == (ep.returns["player_0"] > 0)
    # the Nash expert beats a random player on average
    assert sum(ep.returns["player_1"] for ep in episodes) > 0
    # the expert acts alone per game; the learner's calls batch every game it is to move in
    assert max(learner.batches) > 1


def test_game_collection_is_deterministic():
    def run() -> list[dict[str, Any]]:
        eps = collect_games(
            "turngym/KuhnPoker-v0",
            {"player_0": RandomAgent(seed=2), "player_1": "expert"},
            episodes=8,
            seed=3,
            num_games=3,
        )
        return [ep.to_dict() for ep in eps]

    assert run() == run()


def test_game_agents_must_cover_every_seat():
    with pytest.raises(ValueError, match=r"every seat.*missing \['player_1'\]"):
        GameCollector("turngym/TicTacToe-v0", {"player_0": RandomAgent()})


def test_game_max_turns_truncates_every_seat():
    episodes = collect_games("turngym/TicTacToe-v0", RandomAgent(seed=0), episodes=2, max_turns=3)
    for ep in episodes:
        assert ep.length == 3
        assert all(t.truncated for t in {t.agent: t for t in ep.turns}.values())
        assert set(ep.final_obs) == {"player_0", "player_1"}


# -- with the tiny model: what an LLM agent's turns record ------------------------------

SYSTEM = "You walk on a frozen lake. Answer with one move."


@pytest.fixture(scope="module")
def policy(tiny_model_dir: Any) -> Any:
    """The real HF policy, remembering every generate call and what it returned."""
    from turngym.sdk.backends.hf import HFPolicy

    class CountingPolicy(HFPolicy):
        def generate(self, prompts: Any, params: SamplingParams) -> list[Generation]:
            out = super().generate(prompts, params)
            self.calls.append(len(prompts))
            self.generations.extend(out)
            return out

    counting = CountingPolicy(tiny_model_dir)
    counting.calls, counting.generations = [], []
    return counting


def _template(policy: Any, messages: list[dict[str, str]]) -> list[int]:
    """The chat template's own rendering, computed apart from the agent."""
    text = policy.tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, tokenize=False
    )
    assert text.endswith("<|im_start|>assistant\n")
    return list(policy.tokenizer(text, add_special_tokens=False)["input_ids"])


def test_mask_prompt_and_action_ids_reproduce_what_the_model_saw(policy):
    """THE MASK TEST: prompt_ids + action_ids is exactly the model's input and output."""
    agent = LLMAgent(
        policy,
        system_prompt=SYSTEM,
        sampling=SamplingParams(temperature=1.0, max_new_tokens=5, seed=3),
    )
    policy.calls.clear()
    policy.generations.clear()
    episodes = collect(
        "turngym/FrozenLake-v0", agent, episodes=16, seed=0, num_envs=16, max_turns=3
    )
    turns = [t for ep in episodes for t in ep.turns]
    # one generate call per step, every active env in it
    assert sum(policy.calls) == len(turns)
    assert policy.calls[0] == 16 and policy.calls == sorted(policy.calls, reverse=True)
    assert len(policy.calls) == max(ep.length for ep in episodes)
    # the turns' action ids and log-probs are the generations, one for one
    generated = collections.Counter(tuple(g.token_ids) for g in policy.generations)
    assert collections.Counter(tuple(t.action_ids) for t in turns) == generated
    assert sorted(tuple(t.action_logprobs) for t in turns) == sorted(
        tuple(g.logprobs) for g in policy.generations
    )
    tok = policy.tokenizer
    for turn in turns:
        system = {"role": "system", "content": SYSTEM}
        seen = _template(policy, [system, {"role": "user", "content": turn.obs}])
        assert turn.prompt_ids == seen  # the prompt is the rendering of the observation
        full = tok.decode([*turn.prompt_ids, *turn.action_ids])
        assert full.startswith(tok.decode(seen)) and turn.obs in tok.decode(turn.prompt_ids)
        assert turn.trainable and len(turn.action_logprobs) == len(turn.action_ids)
    # the env's observation lies wholly in the masked prompt, none of it in the action
    for ep in episodes:
        for sample, turn in zip(ep.samples(), ep.turns, strict=True):
            n = len(turn.prompt_ids)
            assert sample.input_ids[:n] == turn.prompt_ids
            assert [t for t, m in zip(sample.input_ids, sample.loss_mask, strict=True) if m] == (
                turn.action_ids
            )


def test_packed_chat_masks_env_tokens(policy):
    """Over a chat history, packed() unmasks exactly the generated tokens."""
    agent = LLMAgent(
        policy,
        parse=lambda text, info: text,  # the history keeps the raw generated text
        sampling=SamplingParams(temperature=1.0, max_new_tokens=1, seed=1),
    )
    envs = [History(turngym.make("turngym/FrozenLake-v0")) for _ in range(4)]
    episodes = collect(envs, agent, episodes=8, seed=0, max_turns=4)  # type: ignore[arg-type]
    tok = policy.tokenizer
    packed_any = False
    for ep in episodes:
        for k in range(ep.length):  # each prompt holds the whole conversation so far
            assert ep.turns[k].prompt_ids == _template(policy, ep.turns[k].obs)
        if not ep.is_append_only():
            with pytest.raises(ValueError, match="not append-only"):
                ep.packed()
            continue
        packed_any = True
        packed = ep.packed()
        actions = [t for t, m in zip(packed.input_ids, packed.loss_mask, strict=True) if m]
        assert actions == [i for t in ep.turns for i in t.action_ids]
        masked = tok.decode(
            [t for t, m in zip(packed.input_ids, packed.loss_mask, strict=True) if not m]
        )
        for turn in ep.turns:  # every env observation is in the masked part
            assert turn.obs[-1]["content"] in masked
    assert packed_any


def test_llm_collection_replays_under_a_seed(policy):
    def run(seed: int) -> list[dict[str, Any]]:
        agent = LLMAgent(policy, sampling=SamplingParams(temperature=3.0, max_new_tokens=4))
        eps = collect("turngym/FrozenLake-v0", agent, episodes=4, seed=seed, max_turns=3)
        return [ep.to_dict() for ep in eps]

    assert run(0) == run(0)
    assert run(0) != run(1)


class History:
    """A minimal chat-history env wrapper: the conversation so far as messages."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.spec = env.spec
        self.messages: list[dict[str, str]] = []

    def reset(self, seed: int | None = None) -> tuple[list[dict[str, str]], dict[str, Any]]:
        obs, info = self.env.reset(seed=seed)
        self.messages = [{"role": "user", "content": obs}]
        return list(self.messages), info

    def step(self, action: str) -> tuple[Any, ...]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.messages += [
            {"role": "assistant", "content": action},
            {"role": "user", "content": obs},
        ]
        return list(self.messages), reward, terminated, truncated, info

    def close(self) -> None:
        self.env.close()


def test_collect_by_agent_name(tiny_model_dir):
    episodes = collect("turngym/FrozenLake-v0", f"hf:{tiny_model_dir}", episodes=3, max_turns=2)
    assert all(ep.length <= 2 and ep.turns[0].trainable for ep in episodes)
    assert episodes[0].turns[0].action_ids  # one shared LLMAgent recorded its tokens


def test_the_guides_rollout_block_runs(capsys):
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs/guide/policies-and-agents.md").read_text()
    section = readme.split("## Agents and rollouts", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "docs/guide/policies-and-agents.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("[") and set(out[-1].strip("[]").split(", ")) == {"1"}


def test_envs_and_games_passed_as_objects_keep_their_registered_ids():
    """The expert of a registered game is found from a game object's class."""
    import turngym
    from turngym.sdk.rollout import GameCollector

    games = [turngym.make_game("turngym/TicTacToe-v0") for _ in range(2)]
    collector = GameCollector(games, {"player_0": "random", "player_1": "expert"})
    assert collector.env_id == "turngym/TicTacToe-v0"
    episodes = collector.collect(2)
    assert all(ep.env_id == "turngym/TicTacToe-v0" for ep in episodes)
    assert all(ep.returns["player_1"] >= 0 for ep in episodes)  # minimax never loses


def test_env_threads_step_envs_at_once_and_change_no_episode():
    def run(threads: int) -> list[dict[str, Any]]:
        collector = Collector(
            "turngym/Wordle-v0", RandomAgent(seed=3), num_envs=3, env_threads=threads
        )
        try:
            return [ep.to_dict() for ep in collector.collect(6, seed=0)]
        finally:
            collector.close()

    assert run(3) == run(1)
    assert Collector("turngym/Wordle-v0", "random", num_envs=3).env_threads == 1  # text envs
    with pytest.raises(ValueError, match="env_threads"):
        Collector("turngym/Wordle-v0", "random", num_envs=2, env_threads=0)


# -- self-play through the game twins of the context wrappers (issue 26, item 6) --------


def _twin(name: str, game: Any) -> Any:
    from turngym.wrappers import (
        ChatHistoryGame,
        MarkovianChunksGame,
        SlidingWindowGame,
        SummarizeContextGame,
    )

    if name == "chat_history":
        return ChatHistoryGame(game, max_turns=1)
    if name == "sliding_window":
        return SlidingWindowGame(game, keep_last=1)
    if name == "summarize":
        # room for the task (118 tokens), the summary request (69), a summary and a turn
        return SummarizeContextGame(game, budget_tokens=300)
    return MarkovianChunksGame(game, chunk_tokens=16, carry_tokens=4, max_chunks=2)


@pytest.fixture(scope="module")
def hf_policy(tiny_model_dir: Any) -> Any:
    from turngym.sdk.backends.hf import HFPolicy

    return HFPolicy(tiny_model_dir)


@pytest.mark.parametrize(
    "twin, event",
    [
        ("chat_history", "evict"),
        ("sliding_window", "evict"),
        ("summarize", "summary"),
        ("markovian_chunks", "chunk"),
    ],
)
def test_self_play_through_each_game_twin_with_the_tiny_model(hf_policy, twin, event):
    """The LLM agent reads every twin, and each seat's segments follow its context events.

    Before, the agent could not read a chat twin's ``{"messages": [...]}`` (TypeError)
    and the twins reported no segments, so a seat's ``Turn.segment`` ran 0, 0, 1, 0...
    """
    agent = LLMAgent(hf_policy, sampling=SamplingParams(max_new_tokens=8, seed=0), constrained=True)
    games = [_twin(twin, turngym.make_game("turngym/TicTacToe-v0")) for _ in range(4)]
    episodes = collect_games(games, agent, episodes=4, seed=0)
    events: collections.Counter[str | None] = collections.Counter()
    for ep in episodes:
        assert set(ep.agents) == {"player_0", "player_1"}
        for seat in ep.agents:
            turns = [t for t in ep.turns if t.agent == seat]
            for t in turns:  # the prompt is the chat template over the twin's observation
                messages = t.obs.get("messages") or [{"role": "user", "content": t.obs["text"]}]
                assert t.trainable and t.prompt_ids == _template(hf_policy, messages)
                kind = t.info.get("context_event")
                assert t.wrapper_turn == (kind in ("summary", "chunk"))
                assert t.state_key.startswith("obs:")  # the game's text, for GiGPO
            for a, b in itertools.pairwise(turns):
                if a.wrapper_turn:  # the game waited: the same game state, the same anchor
                    assert a.state_key == b.state_key
                kind = a.info["context_event"]
                assert b.segment == a.segment + (kind is not None) == a.info["segment"]
                events[kind] += 1
                if kind == "summary":  # the turn before it saw the request
                    before = turns[turns.index(a) - 1]
                    assert before.info["summary_request"] and not a.info.get("summary_request")
    assert events[event] >= 2, events


def test_markovian_self_play_in_a_free_form_game_keeps_reasoning_private(hf_policy):
    """A negotiator out of chunks says nothing: its reasoning never reaches the other seat."""
    from turngym.wrappers import MarkovianChunksGame
    from turngym.wrappers.markovian_chunks import CARRY_HEADER
    from turngym.wrappers.parse_action import ActionParser

    agent = LLMAgent(hf_policy, sampling=SamplingParams(max_new_tokens=12, seed=0))
    games = [
        MarkovianChunksGame(turngym.make_game("turngym/SimpleNegotiation-v0"), 16, 4, max_chunks=2)
        for _ in range(4)
    ]
    episodes = collect_games(games, agent, episodes=4, seed=0, max_turns=24)
    checked = 0
    for ep in episodes:
        for seat in ep.agents:
            # what the other seat read from the game (its own carried reasoning cut off)
            texts = [t.obs["text"] for t in ep.turns if t.agent != seat]
            texts += [o["text"] for s, o in ep.final_obs.items() if s != seat]
            others = [" ".join(text.split(CARRY_HEADER)[0].split()) for text in texts]
            for t in ep.turns:
                said = " ".join(t.action.split())
                if t.agent != seat or len(said) < 12 or ActionParser().parse(t.action):
                    continue
                assert all(said not in text for text in others), said
                checked += 1
            no_answer = [t for t in ep.turns if t.agent == seat and t.info.get("format_error")]
            assert all(t.info["invalid_action"] and not t.wrapper_turn for t in no_answer)
    assert checked >= 8
