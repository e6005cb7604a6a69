"""Guided choice: the prefix tree, HFPolicy decoding restricted to candidates, LLMAgent."""

from __future__ import annotations

import math

import pytest

from turngym.sdk.choices import ChoiceTree, choice_token_ids


def test_tree_allows_the_continuations_of_a_prefix():
    tree = ChoiceTree([[1, 2, 0], [1, 3, 0], [4, 0], [1, 2, 5, 0]])
    assert tree.allowed([]) == [1, 4]
    assert tree.allowed([1]) == [2, 3]
    assert tree.allowed([1, 2]) == [0, 5]  # one candidate is a prefix of another
    assert tree.allowed([1, 2, 0]) == []
    assert tree.allowed([7]) == []
    assert tree.positions([1, 2, 5, 0]) == [[1, 4], [2, 3], [0, 5], [0]]


def test_tree_rejects_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        ChoiceTree([])
    with pytest.raises(ValueError, match="empty"):
        ChoiceTree([[1], []])
    with pytest.raises(ValueError, match="not one of the candidates"):
        ChoiceTree([[1, 0]]).positions([2, 0])


def test_choice_token_ids_end_with_the_end_token(tiny_model_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    ids = choice_token_ids(tok, ["left", "up"], tok.eos_token_id)
    assert all(seq[-1] == tok.eos_token_id for seq in ids)
    assert tok.decode(ids[0][:-1]) == "left"
    with pytest.raises(ValueError, match="no tokens"):
        choice_token_ids(tok, [""], tok.eos_token_id)


@pytest.fixture(scope="module")
def policy(tiny_model_dir):
    from turngym.sdk.backends.hf import HFPolicy

    return HFPolicy(tiny_model_dir)


def test_generate_with_choices_only_produces_candidates(policy):
    from turngym.sdk.policy import SamplingParams

    tok = policy.tokenizer
    cands = choice_token_ids(tok, ["left", "down", "right", "up", "stay here"], tok.eos_token_id)
    prompt = tok("You are on a frozen lake.")["input_ids"]
    seen = set()
    gens = policy.generate(
        [prompt] * 40,
        SamplingParams(temperature=1.0, seed=3, max_new_tokens=1),
        choices=[cands] * 40,
    )
    for gen in gens:
        assert gen.token_ids in cands  # whole candidates, even past max_new_tokens=1
        assert gen.finish_reason == "stop"
        seen.add(gen.text)
    assert len(seen) >= 2


def test_guided_log_probs_are_a_distribution_over_the_candidates(policy):
    """Summed over every candidate, the probabilities of the guided decoding are 1."""
    from turngym.sdk.policy import SamplingParams

    tok = policy.tokenizer
    cands = choice_token_ids(tok, ["left", "down", "right", "up"], tok.eos_token_id)
    prompt = tok("Pick a direction.")["input_ids"]
    gens = policy.generate(
        [prompt] * 200, SamplingParams(temperature=1.0, seed=0), choices=[cands] * 200
    )
    prob = {tuple(g.token_ids): math.exp(g.logprob) for g in gens}
    assert len(prob) == 4  # with 200 draws from the renormalised distribution
    assert sum(prob.values()) == pytest.approx(1.0, abs=1e-4)
    for g in gens:  # the forced end token has no alternative: log-prob 0
        assert g.logprobs[-1] == 0.0


def test_greedy_choice_is_the_best_candidate_and_free_rows_mix_in(policy):
    from turngym.sdk.policy import SamplingParams

    tok = policy.tokenizer
    cands = choice_token_ids(tok, ["left", "right"], tok.eos_token_id)
    prompt = tok("Go.")["input_ids"]
    guided, free = policy.generate(
        [prompt, prompt], SamplingParams(temperature=0, max_new_tokens=3), choices=[cands, None]
    )
    assert guided.token_ids in cands
    first = [c[0] for c in cands]
    scores = policy.score(prompt, [[t] for t in first])
    assert guided.token_ids[0] == first[max(range(2), key=lambda i: scores[i])]
    assert (
        free.token_ids
        == policy.generate([prompt], SamplingParams(temperature=0, max_new_tokens=3))[0].token_ids
    )


def test_bad_choices_are_clear_errors(policy):
    from turngym.sdk.policy import SamplingParams

    params = SamplingParams(temperature=0)
    with pytest.raises(ValueError, match="one entry"):
        policy.generate([[1, 2]], params, choices=[None, None])
    with pytest.raises(ValueError, match="non-empty"):
        policy.generate([[1, 2]], params, choices=[[]])


def test_constrained_agent_plays_legal_actions_and_records_them(policy):
    from turngym.sdk.agents import LLMAgent
    from turngym.sdk.policy import SamplingParams
    from turngym.sdk.rollout import collect

    agent = LLMAgent(policy, sampling=SamplingParams(seed=0, max_new_tokens=2), constrained=True)
    episodes = collect("turngym/FrozenLake-v0", agent, episodes=4, max_turns=5)
    for ep in episodes:
        for turn in ep.turns:
            assert turn.constrained and turn.candidates == ["left", "down", "right", "up"]
            assert turn.action in turn.candidates
            assert turn.action_ids == agent.choice_ids([turn.action])[0]
            assert not turn.info["invalid_action"]
    agent.act("Say anything.", {})  # no legal_actions: free decoding
    assert not agent.last_turns[0].constrained and not agent.last_turns[0].candidates


def test_a_backend_without_choices_is_a_clear_error(policy):
    from turngym.sdk.agents import LLMAgent
    from turngym.sdk.policy import PolicyError

    class NoChoices:
        tokenizer = policy.tokenizer

        def generate(self, prompts, params):
            return policy.generate(prompts, params)

        def score(self, prompt_ids, candidates):
            return policy.score(prompt_ids, candidates)

    # refused when the agent is built, before any episode starts
    with pytest.raises(PolicyError, match=r"NoChoices\.generate does not take choices="):
        LLMAgent(NoChoices(), constrained=True)
    free = LLMAgent(NoChoices(), constrained=False)  # free text needs no choices
    assert isinstance(free.act("Go.", {"legal_actions": ["left", "right"]}), str)
