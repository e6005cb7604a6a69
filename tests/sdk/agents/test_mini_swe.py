"""The bash-only SWE agent: its reply parser, and a real (tiny) model driving the env."""

from __future__ import annotations

import pytest

from tests import system_deps
from turngym.calls import parse_call
from turngym.envs.swe.tools import TOOLS
from turngym.sdk.agents.mini_swe import MINI_SWE_SYSTEM_PROMPT, MiniSWEAgent, parse_bash


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("THOUGHT: list.\n```bash\nls -la\n```", 'bash("ls -la")'),
        ("```sh\ngrep -n 'x' a.py\n```", "bash(\"grep -n 'x' a.py\")"),
        ("first\n```bash\nls\n```\nthen\n```bash\ncat a.py\n```", 'bash("cat a.py")'),
        ("All done.\n```bash\nsubmit\n```", "submit()"),
        ("no block here", "no block here"),
    ],
)
def test_the_last_bash_block_becomes_the_action(reply, action):
    assert parse_bash(reply, {}) == action


def test_a_multi_line_heredoc_survives_the_round_trip_to_the_env_parser():
    command = "cat <<'EOF' > a.py\nprint(\"hi\")\n\tindented\\n literal\nEOF"
    parsed = parse_call(parse_bash(f"```bash\n{command}\n```", {}), TOOLS, max_chars=10_000)
    assert parsed == ("bash", {"command": command})


def test_the_prompt_asks_for_one_bash_block_and_submit():
    assert "```bash" in MINI_SWE_SYSTEM_PROMPT and "submit" in MINI_SWE_SYSTEM_PROMPT


@pytest.mark.sandbox
@system_deps.bubblewrap()
def test_a_tiny_model_plays_a_bash_only_episode(tmp_path):
    pytest.importorskip("transformers", reason="the LLM agents need transformers")
    from tests.envs.swe.toy_task import toy_task
    from turngym.envs.swe.env import SWEEnv
    from turngym.sdk.backends.hf import HFPolicy
    from turngym.sdk.models import build_tiny_model
    from turngym.sdk.policy import SamplingParams

    policy = HFPolicy(build_tiny_model(tmp_path / "tiny", hidden=32, layers=1))
    agent = MiniSWEAgent(policy, SamplingParams(max_new_tokens=16, seed=0))
    env = SWEEnv(tasks=[toy_task(tmp_path / "task")], sandbox="bwrap", tools=["bash"], max_turns=3)
    try:
        obs, info = env.reset(seed=0)
        for _ in range(3):
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            assert isinstance(obs, str) and reward == 0.0
            if terminated or truncated:
                break
        assert truncated or terminated
        assert agent.last_turns[0].action_ids  # the agent recorded what it generated
    finally:
        env.close()
