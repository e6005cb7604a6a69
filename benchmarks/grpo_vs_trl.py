"""GRPO training throughput: turngym's GRPOTrainer vs TRL's GRPOTrainer, same workload.

Both train the same saved tiny Qwen2 model (hidden 64, 2 layers, built from a config:
nothing is downloaded) on the same two-prompt-per-step workload: 8 completions per
step (2 prompts x 4), at most 16 new tokens, sampling at temperature 1, fp32 on CPU,
beta 0 (no reference model), no gradient checkpointing, one optimiser step per batch,
and the same single-turn toy reward (distinct characters in the reply / 16). Prompts
are rendered with the model's chat template by both.

Each run is its own process (so peak RSS is that trainer's own), runs alternate
(turngym, TRL, turngym, TRL, ...) so machine noise hits both alike, the first
``--warmup`` steps are not timed, and each trainer's best run is compared (the ratio of
medians is printed too). One JSON line per run, then one with the ratios (target:
turngym >= 1.5x TRL steps/s, peak RSS not higher).

TRL is a peer, not a dependency: install it beside turngym (``pip install
torch==2.13.0`` first, then ``pip install -e '.[llm,bench]'``) and run

    python benchmarks/grpo_vs_trl.py --steps 20 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROMPTS = [
    "Write a short word.",
    "Name a colour.",
    "Say something about the sea.",
    "Give me a number.",
    "Describe a cat in three words.",
    "What is your favourite fruit?",
    "Tell me a direction.",
    "Greet me.",
]
GROUPS, GROUP_SIZE, MAX_NEW = 2, 4, 16


def toy_reward(text: str) -> float:
    """Distinct characters in the reply, over 16: cheap and varied."""
    return min(len(set(text)), 16) / 16


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_turngym(model: str, steps: int, warmup: int, out: str) -> dict[str, Any]:
    """Time ``steps`` steps of turngym's GRPOTrainer after ``warmup`` untimed ones."""
    import gymnasium as gym

    from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer

    class ToyEnv(gym.Env):  # type: ignore[type-arg]
        """One prompt, one reply, the toy reward."""

        observation_space = gym.spaces.Text(4096)
        action_space = gym.spaces.Text(4096)

        def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[str, dict]:
            super().reset(seed=seed)
            return PROMPTS[(seed or 0) % len(PROMPTS)], {}

        def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
            return "", toy_reward(action), True, False, {}

    config = GRPOConfig(
        env="toy",
        model=model,
        output_dir=out,
        steps=warmup + steps,
        groups=GROUPS,
        group_size=GROUP_SIZE,
        max_new_tokens=MAX_NEW,
        temperature=1.0,
        constrained=False,
        beta=0.0,
        epochs=1,
        minibatches=1,
        micro_batch_size=GROUPS * GROUP_SIZE,
        lr=1e-6,
        dtype="float32",
        tensorboard=False,
        progress=False,
        log_every=0,
    )
    trainer = GRPOTrainer(config, env_fn=ToyEnv)
    for step in range(warmup):
        trainer.train_step(step)
    tokens0 = trainer.policy.stats["new_tokens"]
    start = time.perf_counter()
    for step in range(warmup, warmup + steps):
        trainer.train_step(step)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "tokens": trainer.policy.stats["new_tokens"] - tokens0}


def run_trl(model: str, steps: int, warmup: int, out: str) -> dict[str, Any]:
    """Time ``steps`` steps of TRL's GRPOTrainer after ``warmup`` untimed ones."""
    from datasets import Dataset
    from transformers import AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    marks: list[float] = []
    lengths: list[float] = []

    class Clock(TrainerCallback):  # type: ignore[misc]
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            marks.append(time.perf_counter())

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kw: Any) -> None:
            if logs and "completions/mean_length" in logs:
                lengths.append(float(logs["completions/mean_length"]))

    def reward(completions: list[Any], **kwargs: Any) -> list[float]:
        return [toy_reward(c[0]["content"] if isinstance(c, list) else c) for c in completions]

    total = warmup + steps
    rows = [{"prompt": [{"role": "user", "content": p}]} for p in PROMPTS]
    dataset = Dataset.from_list(rows * (total * GROUPS // len(PROMPTS) + 2))
    args = GRPOConfig(
        output_dir=out,
        per_device_train_batch_size=GROUPS * GROUP_SIZE,
        num_generations=GROUP_SIZE,
        max_completion_length=MAX_NEW,
        temperature=1.0,
        beta=0.0,
        num_iterations=1,
        gradient_checkpointing=False,
        bf16=False,
        fp16=False,
        use_cpu=True,
        learning_rate=1e-6,
        max_steps=total,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        disable_tqdm=True,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=reward,
        args=args,
        train_dataset=dataset,
        processing_class=AutoTokenizer.from_pretrained(model),
        callbacks=[Clock()],
    )
    trainer.train()
    seconds = marks[-1] - marks[warmup - 1] if warmup else marks[-1] - marks[0]
    timed = lengths[warmup:] if len(lengths) >= total else lengths
    mean_length = sum(timed) / max(len(timed), 1)
    return {"seconds": seconds, "tokens": mean_length * GROUPS * GROUP_SIZE * steps}


def child(impl: str, model: str, steps: int, warmup: int, threads: int) -> None:
    """One timed run in this process; prints its JSON line."""
    import torch

    torch.set_num_threads(threads)
    with tempfile.TemporaryDirectory() as out:
        fn = run_turngym if impl == "turngym" else run_trl
        result = fn(model, steps, warmup, out)
    sps = steps / result["seconds"]
    print(
        json.dumps(
            {
                "bench": "grpo_vs_trl",
                "impl": impl,
                "steps": steps,
                "steps_per_s": round(sps, 3),
                "completions_per_s": round(sps * GROUPS * GROUP_SIZE, 2),
                "tokens_per_s": round(result["tokens"] / result["seconds"], 1),
                "peak_rss_mb": round(_peak_rss_mb(), 1),
                "threads": threads,
            }
        ),
        flush=True,
    )


def main() -> None:
    """Build the model, run both trainers in alternation, print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="timed steps per run")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each trainer")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--model", help="a saved model dir (default: build the tiny one)")
    parser.add_argument("--child", choices=["turngym", "trl"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.model, args.steps, args.warmup, args.threads)
        return
    try:
        import trl  # noqa: F401
    except ImportError:
        sys.exit("TRL is not installed: pip install -e '.[llm,bench]' (see the docstring)")
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if model is None:
            from turngym.sdk.models import build_tiny_model

            model = str(build_tiny_model(Path(tmp) / "tiny-qwen2", hidden=64, layers=2))
        runs: dict[str, list[dict[str, Any]]] = {"turngym": [], "trl": []}
        for _ in range(args.rounds):
            for impl in ("turngym", "trl"):
                cmd = [sys.executable, __file__, "--child", impl, "--model", model]
                cmd += ["--steps", str(args.steps), "--warmup", str(args.warmup)]
                cmd += ["--threads", str(args.threads)]
                done = subprocess.run(cmd, capture_output=True, text=True, check=False)
                lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
                if done.returncode or not lines:
                    sys.exit(f"{impl} run failed:\n{done.stderr[-3000:]}")
                print(lines[-1], flush=True)
                runs[impl].append(json.loads(lines[-1]))
    best = {k: max(v, key=lambda r: r["steps_per_s"]) for k, v in runs.items()}
    ours, peer = best["turngym"], best["trl"]
    print(
        json.dumps(
            {
                "bench": "grpo_vs_trl",
                "summary": True,
                "turngym_steps_per_s": ours["steps_per_s"],
                "trl_steps_per_s": peer["steps_per_s"],
                "steps_per_s_ratio": round(ours["steps_per_s"] / peer["steps_per_s"], 2),
                "median_steps_per_s_ratio": round(
                    statistics.median(r["steps_per_s"] for r in runs["turngym"])
                    / statistics.median(r["steps_per_s"] for r in runs["trl"]),
                    2,
                ),
                "tokens_per_s_ratio": round(ours["tokens_per_s"] / peer["tokens_per_s"], 2),
                "turngym_peak_rss_mb": max(r["peak_rss_mb"] for r in runs["turngym"]),
                "trl_peak_rss_mb": max(r["peak_rss_mb"] for r in runs["trl"]),
                "target": ">= 1.5x steps/s, peak RSS not higher",
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
