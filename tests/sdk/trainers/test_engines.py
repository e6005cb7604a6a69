"""Rollout engines: GRPO sampling through a real `turngym serve` with weight sync after
each update trains exactly as sampling in the learner does; LoRA weights reach an engine
merged; bad rollout settings fail with a clear message."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import gymnasium as gym
import pytest

from tests.serving import start_server
from turngym.core import Unicode
from turngym.sdk.policy import PolicyError

torch = pytest.importorskip("torch")
pytest.importorskip("fastapi")

from turngym.sdk.backends.hf import HFPolicy  # noqa: E402
from turngym.sdk.backends.openai import OpenAIPolicy  # noqa: E402
from turngym.sdk.trainers.engines import plain_state_dict  # noqa: E402
from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer  # noqa: E402


class Vowels(gym.Env):
    """One turn of free text; the reward is the share of vowels in the answer."""

    observation_space = Unicode(64)
    action_space = Unicode(256)
    VOWELS: ClassVar[str] = "aeiou"

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        return "Answer with vowels.", {}

    def step(self, action: str):
        letters = [ch for ch in action.lower() if ch.isalpha()]
        share = sum(ch in self.VOWELS for ch in letters) / max(len(letters), 1)
        return "Done.", share, True, False, {"success": share > 0.5}


def _config(model_dir, out, **overrides) -> GRPOConfig:
    base = GRPOConfig(
        env="Vowels",
        model=str(model_dir),
        output_dir=str(out),
        steps=3,
        groups=2,
        group_size=4,
        max_new_tokens=6,
        constrained=False,
        lr=3e-3,
        eval_every=0,
        eval_episodes=4,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    return dataclasses.replace(base, **overrides)


def _rows(trainer: GRPOTrainer) -> list[dict[str, Any]]:
    rows = [trainer.train_step(step) for step in range(trainer.config.steps)]
    trainer.close()
    return rows


KEY = "engines-test-key"


def test_sampling_through_a_server_with_weight_sync_trains_like_the_learner(
    rl_model_dir, tmp_path, monkeypatch
):
    served = start_server(rl_model_dir, "--accept-weight-updates", api_key=KEY)
    monkeypatch.setenv("TURNGYM_API_KEY", KEY)  # the trainer's client sends it
    try:
        local = GRPOTrainer(_config(rl_model_dir, tmp_path / "local"), env_fn=Vowels)
        remote = GRPOTrainer(
            _config(rl_model_dir, tmp_path / "remote", rollout=f"openai:{served.url}"),
            env_fn=Vowels,
        )
        assert remote.config.tis == 2.0 and local.config.tis == 0.0
        mine, theirs = _rows(local), _rows(remote)
        # The server sampled every step's episodes with the learner's newest weights:
        # the same rewards, losses and updates as sampling in the learner.
        assert [r["reward"] for r in theirs] == [r["reward"] for r in mine]
        assert all(r["sequences"] > 0 for r in mine)
        for a, b in zip(mine, theirs, strict=True):
            assert b["loss"] == pytest.approx(a["loss"], abs=1e-5)
            # Same weights sampled and learned from: the importance weights are 1.
            assert b["tis_weight"] == pytest.approx(1.0, abs=1e-4)
        for (name, a), b in zip(
            local.model.state_dict().items(), remote.model.state_dict().values(), strict=True
        ):
            # 3 steps of lr 3e-3 move weights by ~1e-2; float noise in the importance
            # weights (exactly 1 only in exact arithmetic) leaves ~1e-5 through Adam.
            assert torch.allclose(a, b, atol=1e-4), name
        # ...and the server now holds the trained weights.
        prompt, candidates = [5, 6, 7, 8], [[9, 10], [11]]
        server = OpenAIPolicy(served.url, tokenizer=str(rl_model_dir))
        trained = HFPolicy(remote.model, tokenizer=remote.tokenizer)
        assert server.score(prompt, candidates) == pytest.approx(
            trained.score(prompt, candidates), abs=1e-4
        )
        assert server.score(prompt, candidates) != pytest.approx(
            HFPolicy(rl_model_dir).score(prompt, candidates), abs=1e-4
        )
        # Bad weight files are refused with the reason, and the server keeps serving.
        from safetensors.torch import save_file

        with pytest.raises(PolicyError, match="no weights file at that path"):
            server.update_weights(tmp_path / "missing.safetensors")
        bad = server.weights_dir() / "bad.safetensors"
        save_file({"model.embed_tokens.weight": torch.zeros(3, 3)}, str(bad))
        with pytest.raises(PolicyError, match=r"do not fit the model.*shape"):
            server.update_weights(bad)
        assert sorted(p.name for p in server.weights_dir().iterdir()) == [bad.name]
        assert server.score(prompt, candidates) == pytest.approx(
            trained.score(prompt, candidates), abs=1e-4
        )
        server.close()
    finally:
        served.stop()


def test_a_server_at_temperature_below_1_reports_the_log_probs_it_sampled_from(
    rl_model_dir, tmp_path, monkeypatch
):
    """Same weights in server and learner: the importance weights are 1 at any temperature.

    Before, the server reported log-probs of the untempered logits while it sampled from
    logits / T, so ``tis_weight`` came out near 1.05 at T = 0.5.
    """
    served = start_server(rl_model_dir, "--accept-weight-updates", api_key=KEY)
    monkeypatch.setenv("TURNGYM_API_KEY", KEY)
    try:
        for temperature in (0.5, 0.7):
            remote = GRPOTrainer(
                _config(
                    rl_model_dir,
                    tmp_path / str(temperature),
                    rollout=f"openai:{served.url}",
                    temperature=temperature,
                    steps=1,
                    minibatches=1,  # one optimiser step: the weights the server holds
                ),
                env_fn=Vowels,
            )
            row = _rows(remote)[0]
            assert row["sequences"] > 0
            assert row["tis_weight"] == pytest.approx(1.0, abs=1e-4), temperature
    finally:
        served.stop()


def test_a_server_of_other_weights_is_given_the_learners_at_the_start(
    rl_model_dir, tmp_path, monkeypatch
):
    from turngym.sdk.models import build_tiny_model

    other = build_tiny_model(tmp_path / "other", vocab=rl_model_dir, seed=7, logit_std=0.3)
    weights = tmp_path / "weights"
    weights.mkdir()
    served = start_server(
        other, "--accept-weight-updates", "--weights-dir", str(weights), api_key=KEY
    )
    monkeypatch.setenv("TURNGYM_API_KEY", KEY)
    try:
        trainer = GRPOTrainer(
            _config(rl_model_dir, tmp_path / "run", rollout=f"openai:{served.url}"),
            env_fn=Vowels,
        )
        prompt, candidates = [5, 6, 7, 8], [[9, 10], [11]]
        assert trainer.engine.policy.score(prompt, candidates) == pytest.approx(
            HFPolicy(rl_model_dir).score(prompt, candidates), abs=1e-4
        )
        assert trainer.engine.policy.weights_dir() == weights.resolve()
        assert list(weights.iterdir()) == []  # each file is removed once loaded
        trainer.close()
    finally:
        served.stop()


def test_a_server_takes_weights_only_when_started_to(rl_model_dir, tmp_path):
    served = start_server(rl_model_dir)
    try:
        with pytest.raises(PolicyError, match="--accept-weight-updates"):
            GRPOTrainer(
                _config(rl_model_dir, tmp_path, steps=1, rollout=f"openai:{served.url}"),
                env_fn=Vowels,
            )
    finally:
        served.stop()


def test_lora_weights_reach_an_engine_merged(rl_model_dir):
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    model = get_peft_model(
        AutoModelForCausalLM.from_pretrained(rl_model_dir),
        LoraConfig(r=4, target_modules="all-linear"),
    )
    with torch.no_grad():
        for name, param in model.named_parameters():
            if "lora_B" in name:
                param.normal_(std=0.1)
    ids = torch.tensor([[3, 4, 5, 6, 7]])
    with torch.no_grad():
        expected = model(ids).logits
    plain = AutoModelForCausalLM.from_pretrained(rl_model_dir)
    state = plain_state_dict(model)
    assert set(state) == set(plain.state_dict())
    plain.load_state_dict(state)
    with torch.no_grad():
        assert torch.allclose(plain(ids).logits, expected, atol=1e-5)
        assert torch.equal(model(ids).logits, expected)  # the trained model is untouched


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"rollout": "sglang"}, "rollout must be one of hf, vllm, openai:URL"),
        ({"rollout": "openai:"}, "rollout must be one of"),
        ({"rollout": "vllm", "constrained": True}, "pass constrained=False with rollout='vllm'"),
        ({"tis_cap": -1}, "tis_cap must be None or a number >= 0"),
    ],
)
def test_bad_rollout_settings_are_clear(overrides, message):
    with pytest.raises(ValueError, match=message):
        GRPOConfig(**{"constrained": False, **overrides})


def test_vllm_rollout_without_vllm_says_how_to_get_it(rl_model_dir, tmp_path):
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is installed: the missing-vllm error cannot happen")
    with pytest.raises(PolicyError, match="vllm is not installed"):
        GRPOTrainer(_config(rl_model_dir, tmp_path, rollout="vllm"), env_fn=Vowels)
