"""Guided choice through `turngym serve`: `--agent openai:URL` plays the same greedy episodes
as `--agent hf:DIR` with the same trained model (issue 28, item 3).

The model dir holds the `turngym_agent.json` a trainer writes (guided choice on): the
in-process agent reads it from the dir, the remote one from the server's `/v1/models`.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("httpx", reason="OpenAIPolicy needs httpx: pip install 'turngym[serve]'")
pytest.importorskip("fastapi", reason="turngym serve needs fastapi: pip install 'turngym[serve]'")

from tests.serving import Served, build_model, start_server
from turngym.sdk.rollout import collect

SETTINGS = {"constrained": True, "system_prompt": "Answer with one of the legal actions."}


@pytest.fixture(scope="module")
def trained() -> Iterator[Served]:
    """A server of a tiny model whose dir says it was trained with guided choice."""
    root = Path(tempfile.mkdtemp(prefix="turngym-guided-"))
    model_dir = build_model(root / "tiny")
    (model_dir / "turngym_agent.json").write_text(json.dumps(SETTINGS))
    served = start_server(model_dir, "--batch-wait-ms", "20", threads=1)
    yield served
    served.stop()
    shutil.rmtree(root, ignore_errors=True)


def _turns(episodes):
    return [[(t.action, t.action_ids, t.constrained) for t in ep.turns] for ep in episodes]


@pytest.mark.parametrize(
    ("env_id", "env_kwargs", "episodes"),
    [("turngym/Bandit-v0", None, 6), ("turngym/TicTacToe-v0", {"opponent": "random"}, 2)],
    ids=["bandit", "tictactoe"],
)
def test_hf_and_openai_agents_play_the_same_greedy_episodes(trained, env_id, env_kwargs, episodes):
    local = collect(env_id, f"hf:{trained.model_dir}", episodes, seed=3, env_kwargs=env_kwargs)
    remote = collect(env_id, f"openai:{trained.url}", episodes, seed=3, env_kwargs=env_kwargs)
    assert _turns(remote) == _turns(local)
    assert [ep.returns for ep in remote] == [ep.returns for ep in local]
    turns = [t for ep in remote for t in ep.turns]
    assert all(t.constrained and t.action in t.candidates for t in turns)
    assert not any(t.info.get("invalid_action") for t in turns)
    # the behaviour log-probs are those of the same renormalised distribution
    for a, b in zip([t for ep in local for t in ep.turns], turns, strict=True):
        assert b.action_logprobs == pytest.approx(a.action_logprobs, abs=1e-4)
