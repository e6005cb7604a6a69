"""GRPO on a GPU: steps/s, generated tokens/s and peak GPU memory of GRPOTrainer.

The model has the Qwen2.5-0.5B architecture (24 layers, hidden 896, 14 heads with 2
key/value heads, MLP 4864, vocabulary 151,936, tied embeddings), randomly initialised
from the config: nothing is downloaded. Its tokenizer is turngym's small BPE tokenizer
(token ids stay far below the vocabulary; the compute per token is the real model's).
The workload is single-turn free text: ``groups`` x ``group_size`` completions per
step of up to ``--max-new-tokens`` tokens (an untrained model rarely stops early), a
toy reward (distinct characters / 16), bf16 weights, AdamW, one optimiser step.

Each rollout engine asked for (``--rollouts hf,vllm``) trains the same model for
``--warmup`` untimed steps and ``--steps`` timed ones and prints one JSON line:
``steps_per_s``, ``gen_tokens_per_s`` (completion tokens over collection time),
``collect_s`` / ``update_s`` / ``sync_s`` per step and ``peak_gpu_gb`` (the largest
``torch.cuda.max_memory_allocated`` of the timed steps). vLLM runs colocated on the
same GPU (``gpu_memory_utilization`` 0.3) and gets the weights after every update.
There is no peer in this run: TRL's trainer is single-turn (see ``grpo_vs_trl.py`` for
that comparison on CPU).

Without a CUDA GPU it prints one line saying so and exits 0; ``--device cpu --size
tiny`` runs the same code on a tiny model (the smoke test does that).

    python benchmarks/gpu_grpo.py --steps 5 --rollouts hf,vllm
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import tempfile
import time
from pathlib import Path
from typing import Any

QWEN25_05B = dict(
    hidden_size=896,
    intermediate_size=4864,
    num_hidden_layers=24,
    num_attention_heads=14,
    num_key_value_heads=2,
    vocab_size=151_936,
    max_position_embeddings=32_768,
    rope_theta=1_000_000.0,
    rms_norm_eps=1e-6,
    tie_word_embeddings=True,
)
TINY = dict(QWEN25_05B, hidden_size=64, intermediate_size=128, num_hidden_layers=2)
TINY.update(num_attention_heads=4, num_key_value_heads=2, vocab_size=2048)


def _toy_env() -> Any:
    import gymnasium as gym

    from turngym.spaces import Unicode

    class Distinct(gym.Env):  # type: ignore[type-arg]
        """One turn of free text; reward: distinct characters / 16."""

        observation_space = Unicode(64)
        action_space = Unicode(4096)

        def reset(self, *, seed: int | None = None, options: Any = None) -> Any:
            super().reset(seed=seed)
            return "Say something about the sea.", {}

        def step(self, action: str) -> Any:
            reward = min(len(set(action)), 16) / 16
            return "Done.", reward, True, False, {"success": reward > 0.5}

    return Distinct


def build_model(root: Path, size: str) -> tuple[Path, int]:
    """A random-init Qwen2 model of ``size`` with turngym's tokenizer; (dir, parameters)."""
    import torch
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    from turngym.sdk.models import build_tiny_model

    tokenizer = AutoTokenizer.from_pretrained(build_tiny_model(root / "tokenizer", vocab_size=1024))
    config = Qwen2Config(
        **(QWEN25_05B if size == "0.5b" else TINY),
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(config).to(torch.bfloat16)
    target = root / f"qwen2-{size}"
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target, sum(p.numel() for p in model.parameters())


def run(model_dir: Path, rollout: str, args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """Train ``warmup + steps`` steps with ``rollout``; the timed steps' figures."""
    import torch

    from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer

    config = GRPOConfig(
        env="SeaText",
        model=str(model_dir),
        output_dir=str(out / rollout),
        steps=args.warmup + args.steps,
        groups=args.groups,
        group_size=args.group_size,
        max_new_tokens=args.max_new_tokens,
        constrained=False,
        rollout=rollout,
        lr=1e-6,
        micro_batch_size=args.micro_batch_size,
        device=args.device,
        dtype="bfloat16",
        eval_every=0,
        save_every=0,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    trainer = GRPOTrainer(config, env_fn=_toy_env())
    tokens = [0]
    collect = trainer.collect

    def counted(step: int) -> Any:
        episodes = collect(step)
        tokens[0] += sum(len(t.action_ids) for ep in episodes for t in ep.turns)
        return episodes

    trainer.collect = counted  # type: ignore[method-assign]
    cuda = torch.device(trainer.device).type == "cuda"
    for step in range(args.warmup):
        trainer.train_step(step)
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    tokens[0] = 0
    rows = []
    started = time.perf_counter()
    for step in range(args.warmup, args.warmup + args.steps):
        rows.append(trainer.train_step(step))
    if cuda:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    trainer.close()
    collect_s = sum(r["collect_s"] for r in rows)
    return {
        "steps_per_s": round(args.steps / seconds, 4),
        "gen_tokens_per_s": round(tokens[0] / collect_s, 1),
        "collect_s": round(collect_s / args.steps, 3),
        "update_s": round(sum(r["update_s"] for r in rows) / args.steps, 3),
        "sync_s": round(sum(r.get("sync_s", 0.0) for r in rows) / args.steps, 3),
        "completion_tokens_per_step": round(tokens[0] / args.steps, 1),
        "peak_gpu_gb": round(torch.cuda.max_memory_allocated() / 2**30, 2) if cuda else None,
    }


def main() -> None:
    """Parse flags, build the model, print one JSON line per rollout engine."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--micro-batch-size", type=int, default=16)
    parser.add_argument("--rollouts", default="hf,vllm", help="engines to run: hf, vllm")
    parser.add_argument("--size", choices=["0.5b", "tiny"], default="0.5b")
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    import torch

    base = {"bench": "gpu_grpo", "size": args.size, "device": args.device}
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print(json.dumps({**base, "skipped": "no CUDA GPU here (torch sees none)"}))
        return
    if torch.cuda.is_available():
        base["gpu"] = torch.cuda.get_device_name()
    with tempfile.TemporaryDirectory(prefix="gpu-grpo-") as tmp:
        model_dir, params = build_model(Path(tmp), args.size)
        base["parameters"] = params
        shape = {"groups": args.groups, "group_size": args.group_size}
        shape["max_new_tokens"] = args.max_new_tokens
        for rollout in [r.strip() for r in args.rollouts.split(",") if r.strip()]:
            line = {**base, **shape, "rollout": rollout}
            if rollout == "vllm" and importlib.util.find_spec("vllm") is None:
                print(json.dumps({**line, "skipped": "vllm is not installed"}), flush=True)
                continue
            print(json.dumps({**line, **run(model_dir, rollout, args, Path(tmp))}), flush=True)


if __name__ == "__main__":
    main()
