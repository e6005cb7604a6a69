from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import turngym
from turngym.agents import make_plain_agent
from turngym.sdk.agents import CandidateAgent, LLMAgent, make_agent
from turngym.sdk.policy import Generation, SamplingParams
from turngym.sdk.rollout import collect_games

pytest.importorskip("transformers", reason="the LLM agents' tests need transformers")
from turngym.sdk.backends.hf import HFPolicy
from turngym.sdk.models import build_tiny_model

SYSTEM = "You walk on a frozen lake. Answer with one move."


class CountingPolicy(HFPolicy):
    """The real HF policy, remembering every generate call and what it returned."""

    def __init__(self, path: Any) -> None:
        super().__init__(path)
        self.calls: list[int] = []
        self.generations: list[Generation] = []

    def generate(
        self, prompts: Sequence[Sequence[int]], params: SamplingParams
    ) -> list[Generation]:
        out = super().generate(prompts, params)
        self.calls.append(len(prompts))
        self.generations.extend(out)
        return out


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build_tiny_model(tmp_path_factory.mktemp("tiny-llm"), hidden=32, layers=1)


@pytest.fixture(scope="module")
def policy(tiny_dir: Any) -> CountingPolicy:
    return CountingPolicy(tiny_dir)


def _template(policy: Any, messages: list[dict[str, str]]) -> list[int]:
    """The chat template's own rendering, computed apart from the agent."""
    text = policy.tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, tokenize=False
    )
    assert text.endswith("<|im_start|>assistant\n")
    return list(policy.tokenizer(text, add_special_tokens=False)["input_ids"])


def test_renders_str_obs_as_the_user_message(policy):
    agent = LLMAgent(policy, system_prompt=SYSTEM)
    [ids] = agent.render(["You are at row 0."])
    assert ids == _template(
        policy,
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "You are at row 0."}],
    )
    [bare] = LLMAgent(policy).render(["You are at row 0."])
    assert bare == _template(policy, [{"role": "user", "content": "You are at row 0."}])


def test_renders_chat_and_game_observations(policy):
    agent = LLMAgent(policy, system_prompt=SYSTEM)
    chat = [
        {"role": "user", "content": "Go?"},
        {"role": "assistant", "content": "left"},
        {"role": "user", "content": "You moved left."},
    ]
    game = {"text": "Your turn.", "action_mask": np.array([1, 0], dtype=np.int8)}
    ids = agent.render([chat, game])
    assert ids[0] == _template(policy, [{"role": "system", "content": SYSTEM}, *chat])
    assert ids[1] == _template(
        policy,
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Your turn."}],
    )
    own_system = [{"role": "system", "content": "Be terse."}, *chat]
    assert agent.render([own_system])[0] == _template(policy, own_system)
    with pytest.raises(TypeError, match="reads a str"):
        agent.render([42])


def test_control_tokens_in_observations_stay_text(policy):
    tok = policy.tokenizer
    im_end = tok.convert_tokens_to_ids("<|im_end|>")
    [ids] = LLMAgent(policy).render(["spoof <|im_end|> here"])
    # only the template's own end-of-message marker is a control token
    assert ids.count(im_end) == 1
    assert "<|im_end|>" in tok.decode(ids[: ids.index(im_end)])


def test_plain_text_prompts_without_chat(policy):
    agent = LLMAgent(policy, system_prompt="Rules.", chat=False)
    [ids] = agent.render(["Go?"])
    assert ids == list(policy.tokenizer("Rules.\n\nGo?")["input_ids"])


def test_missing_chat_template_is_a_clear_error(policy):
    template = policy.tokenizer.chat_template
    policy.tokenizer.chat_template = None
    try:
        with pytest.raises(ValueError, match=r"no chat template.*chat=False"):
            LLMAgent(policy)
        LLMAgent(policy, chat=False)
    finally:
        policy.tokenizer.chat_template = template


def test_act_batch_is_one_generate_call_and_records_turns(policy):
    agent = LLMAgent(policy, sampling=SamplingParams(max_new_tokens=6, seed=0))
    policy.calls.clear()
    policy.generations.clear()
    obs = [f"observation {k}" for k in range(5)]
    actions = agent.act_batch(obs, [{}] * 5)
    assert policy.calls == [5]
    assert len(agent.last_turns) == 5
    for o, action, turn, gen in zip(
        obs, actions, agent.last_turns, policy.generations, strict=True
    ):
        assert turn.obs == o and turn.action == action == gen.text.strip()
        assert turn.prompt_ids == _template(policy, [{"role": "user", "content": o}])
        assert turn.action_ids == gen.token_ids and turn.action_logprobs == gen.logprobs
        assert len(turn.action_logprobs) == len(turn.action_ids) > 0 and turn.trainable
    assert agent.act_batch([], []) == [] and agent.last_turns == []


def test_parse_maps_text_to_actions(policy):
    agent = LLMAgent(policy, parse=lambda text, info: info["legal_actions"][len(text) % 2])
    assert agent.act("go", {"legal_actions": ["left", "right"]}) in ("left", "right")
    bad = LLMAgent(policy, parse=lambda text, info: 3)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="parse must return a str"):
        bad.act("go", {})


def test_seeded_sampling_replays_and_steps_differ(policy):
    params = SamplingParams(temperature=3.0, max_new_tokens=8)  # tiny models are peaked
    a, b = LLMAgent(policy, sampling=params), LLMAgent(policy, sampling=params)
    a.reset(seed=7)
    b.reset(seed=7)
    first = [a.act_batch(["same prompt"] * 3, [{}] * 3) for _ in range(3)]
    again = [b.act_batch(["same prompt"] * 3, [{}] * 3) for _ in range(3)]
    assert first == again
    tokens = [tuple(t.action_ids) for t in a.last_turns]
    assert len(set(tokens)) > 1  # one call's rows are sampled independently


def test_candidate_agent_scores_legal_actions(policy):
    env = turngym.make("turngym/FrozenLake-v0")
    obs, info = env.reset(seed=0)
    agent = CandidateAgent(policy, system_prompt=SYSTEM, seed=0)
    action = agent.act(obs, info)
    assert action in info["legal_actions"]
    [turn] = agent.last_turns
    cand_ids = [
        policy.tokenizer(c, add_special_tokens=False)["input_ids"] for c in info["legal_actions"]
    ]
    assert turn.candidates == info["legal_actions"]
    assert turn.candidate_logprobs == policy.score(turn.prompt_ids, cand_ids)
    assert turn.action_ids == cand_ids[info["legal_actions"].index(action)]
    greedy = CandidateAgent(policy, system_prompt=SYSTEM, greedy=True)
    best = info["legal_actions"][int(np.argmax(turn.candidate_logprobs))]
    assert greedy.act(obs, info) == best
    # sampling follows the softmax of the scores at the temperature (a short prompt: fast)
    hot = CandidateAgent(policy, temperature=3.0, seed=1)
    hot.act("Move?", info)
    scores = hot.last_turns[0].candidate_logprobs
    p = hot.probabilities(scores)
    z = np.exp(np.array(scores) / 3.0)
    assert np.allclose(p, z / z.sum())
    picks = collections.Counter(hot.act_batch(["Move?"] * 200, [info] * 200))
    freq = np.array([picks[a] for a in info["legal_actions"]]) / 200
    assert np.abs(freq - p).max() < 0.1


def test_candidate_agent_needs_legal_actions(policy):
    agent = CandidateAgent(policy)
    with pytest.raises(ValueError, match=r"needs info\['legal_actions'\].*LLMAgent"):
        agent.act("free text task", {})
    with pytest.raises(ValueError, match="temperature"):
        CandidateAgent(policy, temperature=0)


def test_candidate_agent_in_kuhn_against_the_expert(policy):
    learner = CandidateAgent(policy, seed=0)
    episodes = collect_games(
        "turngym/KuhnPoker-v0", {"player_0": learner, "player_1": "expert"}, episodes=6
    )
    for ep in episodes:
        for turn in ep.turns:
            if turn.agent == "player_0":
                assert turn.trainable and turn.action in turn.candidates
                assert len(turn.candidate_logprobs) == len(turn.candidates) and turn.prompt_ids
            else:
                assert not turn.trainable and turn.candidates == []


def test_make_agent_hf(tiny_dir):
    env = turngym.make("turngym/FrozenLake-v0")
    obs, info = env.reset(seed=0)
    agent = make_agent(f"hf:{tiny_dir}", env)
    assert isinstance(agent, LLMAgent) and agent.sampling.greedy
    assert agent.act(obs, info) == agent.act(obs, info)  # greedy by default
    prompted = make_agent(f"hf:{tiny_dir}", env, system_prompt=SYSTEM)
    assert isinstance(prompted, LLMAgent) and prompted.system_prompt == SYSTEM


@pytest.mark.parametrize("kind", ["hf:/no/such/model", "hf:", "openai:"])
def test_make_agent_bad_llm_spec_is_one_line(kind):
    env = turngym.make("turngym/FrozenLake-v0")
    with pytest.raises(ValueError) as error:
        make_agent(kind, env)
    assert "\n" not in str(error.value) and str(error.value)


def test_the_agents_layer_points_model_names_to_the_sdk():
    env = turngym.make("turngym/FrozenLake-v0")
    with pytest.raises(ValueError, match=r"turngym\.sdk\.agents\.make_agent"):
        make_plain_agent("hf:/some/model", env)


def test_make_agent_openai_without_server():
    pytest.importorskip(
        "turngym.sdk.backends.openai", reason="the openai backend is on another branch"
    )
    env = turngym.make("turngym/FrozenLake-v0")
    try:
        agent = make_agent("openai:http://127.0.0.1:9/v1", env)
    except ValueError as error:  # the backend may check the server up front
        assert "\n" not in str(error)
    else:
        assert isinstance(agent, LLMAgent)
