"""GRPO on a GPU: turngym's GRPOTrainer vs TRL's GRPOTrainer, steps/s, tokens/s, memory.

The model has the Qwen2.5-0.5B architecture (24 layers, hidden 896, 14 heads with 2
key/value heads, MLP 4864, vocabulary 151,936, tied embeddings) or, with ``--size
1.5b``, Qwen2.5-1.5B's (28 layers, hidden 1536, 12 heads with 2 key/value heads, MLP
8960), randomly initialised from the config: nothing is downloaded. Its tokenizer is
turngym's small BPE tokenizer (token ids stay far below the vocabulary; the compute per
token is the real model's). The workload is single-turn free text: ``groups`` x
``group_size`` completions per step of up to ``--max-new-tokens`` tokens (an untrained
model rarely stops early), a toy reward (distinct characters / 16), bf16 weights,
AdamW, one optimiser step, beta 0, lr 1e-6, temperature 1.

Each trainer runs in its own process (so its peak GPU memory is its own) for
``--warmup`` untimed steps and ``--steps`` timed ones and prints one JSON line:
``steps_per_s``, ``completion_tokens_per_step``, ``peak_gpu_gb`` (the largest
``torch.cuda.max_memory_allocated`` of the timed steps) and, for turngym,
``gen_tokens_per_s`` (completion tokens over collection time) and ``collect_s`` /
``update_s`` / ``sync_s`` per step. turngym runs once per rollout engine asked for
(``--rollouts hf,vllm``: ``hf`` samples with the learner's own model through
``HFPolicy``, which decodes with CUDA graphs on a GPU; ``vllm`` is a colocated
``vllm.LLM``). The peer (``--peer trl``) is TRL's ``GRPOTrainer`` with the same
model, prompt, reward and settings (its own generation with transformers); a last
line gives turngym's ``hf`` run over TRL's (target: >= 1.5x steps/s, peak memory not
above TRL's).

Without a CUDA GPU it prints one line saying so and exits 0; ``--device cpu --size
tiny`` runs the same code on a tiny model (the smoke test does that).

    python benchmarks/gpu_grpo.py --steps 5 --rollouts hf --peer trl
    python benchmarks/gpu_grpo.py --steps 5 --size 1.5b
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
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
QWEN25_15B = dict(
    QWEN25_05B,
    hidden_size=1536,
    intermediate_size=8960,
    num_hidden_layers=28,
    num_attention_heads=12,
    num_key_value_heads=2,
)
PROMPT = "Say something about the sea."
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
            return PROMPT, {}

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
        **{"0.5b": QWEN25_05B, "1.5b": QWEN25_15B, "tiny": TINY}[size],
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
    """Train ``warmup + steps`` steps with turngym and ``rollout``; the timed steps' figures."""
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
        temperature=1.0,
        constrained=False,
        rollout=rollout,
        lr=1e-6,
        beta=0.0,
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


def run_trl(model_dir: Path, args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """TRL's GRPOTrainer on the same model, prompt, reward and settings; the timed steps."""
    import torch
    from datasets import Dataset
    from transformers import AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    cuda = args.device.startswith("cuda")
    marks: list[float] = []
    lengths: list[float] = []
    total = args.warmup + args.steps

    class Clock(TrainerCallback):  # type: ignore[misc]
        def on_step_end(self, a: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if cuda:
                torch.cuda.synchronize()
                if len(marks) == args.warmup - 1 or (args.warmup == 0 and not marks):
                    torch.cuda.reset_peak_memory_stats()
            marks.append(time.perf_counter())

        def on_log(self, a: Any, state: Any, control: Any, logs: Any = None, **kw: Any) -> None:
            if logs and "completions/mean_length" in logs:
                lengths.append(float(logs["completions/mean_length"]))

    def reward(completions: list[Any], **kwargs: Any) -> list[float]:
        texts = [c[0]["content"] if isinstance(c, list) else c for c in completions]
        return [min(len(set(t)), 16) / 16 for t in texts]

    batch = args.groups * args.group_size
    rows = [{"prompt": [{"role": "user", "content": PROMPT}]}] * (total * args.groups + 2)
    config = GRPOConfig(
        output_dir=str(out / "trl"),
        per_device_train_batch_size=batch,
        gradient_accumulation_steps=1,
        num_generations=args.group_size,
        max_completion_length=args.max_new_tokens,
        temperature=1.0,
        beta=0.0,
        num_iterations=1,
        learning_rate=1e-6,
        gradient_checkpointing=False,
        bf16=cuda,
        use_cpu=not cuda,
        model_init_kwargs={"dtype": "bfloat16"},
        max_steps=total,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        disable_tqdm=True,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=str(model_dir),
        reward_funcs=reward,
        args=config,
        train_dataset=Dataset.from_list(rows),
        processing_class=AutoTokenizer.from_pretrained(model_dir),
        callbacks=[Clock()],
    )
    trainer.train()
    start = marks[args.warmup - 1] if args.warmup else marks[0]
    timed = len(marks) - args.warmup if args.warmup else len(marks) - 1
    seconds = marks[-1] - start
    mean_length = sum(lengths[args.warmup :]) / max(len(lengths[args.warmup :]), 1)
    return {
        "steps_per_s": round(timed / seconds, 4),
        "completion_tokens_per_step": round(mean_length * batch, 1),
        "peak_gpu_gb": round(torch.cuda.max_memory_allocated() / 2**30, 2) if cuda else None,
    }


def child(args: argparse.Namespace) -> None:
    """One trainer's run in this process: print its JSON line."""
    with tempfile.TemporaryDirectory(prefix="gpu-grpo-run-") as tmp:
        model_dir = Path(args.model_dir)
        if args.child == "trl":
            result = run_trl(model_dir, args, Path(tmp))
        else:
            result = run(model_dir, args.child.split(":", 1)[1], args, Path(tmp))
    print("RESULT " + json.dumps(result), flush=True)


def _in_child(job: str, model_dir: Path, argv: list[str]) -> dict[str, Any]:
    """Run ``job`` (``turngym:<rollout>`` or ``trl``) in a fresh process; its figures."""
    cmd = [sys.executable, __file__, *argv, "--child", job, "--model-dir", str(model_dir)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    if done.returncode or not lines:
        tail = " ".join(done.stderr.strip().splitlines()[-3:])[-600:]
        return {"error": f"exit {done.returncode}: {tail}"}
    return dict(json.loads(lines[-1][len("RESULT ") :]))


def main() -> None:
    """Parse flags, build the model, print one JSON line per trainer and a comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--micro-batch-size", type=int, default=16)
    parser.add_argument("--rollouts", default="hf", help="turngym's engines: hf, vllm")
    parser.add_argument("--peer", choices=["trl", "none"], default="trl")
    parser.add_argument("--size", choices=["0.5b", "1.5b", "tiny"], default="0.5b")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--model-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    import torch

    base = {"bench": "gpu_grpo", "size": args.size, "device": args.device}
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print(json.dumps({**base, "skipped": "no CUDA GPU here (torch sees none)"}))
        return
    if torch.cuda.is_available():
        base["gpu"] = torch.cuda.get_device_name()
        base["torch"] = torch.__version__
    argv = [a for a in sys.argv[1:]]
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="gpu-grpo-") as tmp:
        model_dir, params = build_model(Path(tmp), args.size)
        base["parameters"] = params
        shape = {"groups": args.groups, "group_size": args.group_size}
        shape["max_new_tokens"] = args.max_new_tokens
        jobs = [f"turngym:{r.strip()}" for r in args.rollouts.split(",") if r.strip()]
        jobs += ["trl"] if args.peer == "trl" else []
        for job in jobs:
            line = {**base, **shape, "impl": job.split(":")[0]}
            if job != "trl":
                line["rollout"] = job.split(":")[1]
            missing = {"turngym:vllm": "vllm", "trl": "trl"}.get(job)
            if missing and importlib.util.find_spec(missing) is None:
                print(json.dumps({**line, "skipped": f"{missing} is not installed"}), flush=True)
                continue
            results[job] = _in_child(job, model_dir, argv)
            print(json.dumps({**line, **results[job]}), flush=True)
    ours, peer = results.get("turngym:hf", {}), results.get("trl", {})
    if "steps_per_s" in ours and "steps_per_s" in peer:
        summary = {**base, **shape, "summary": True}
        summary["steps_per_s_ratio"] = round(ours["steps_per_s"] / peer["steps_per_s"], 2)
        summary["turngym_peak_gpu_gb"] = ours["peak_gpu_gb"]
        summary["trl_peak_gpu_gb"] = peer["peak_gpu_gb"]
        summary["target"] = ">= 1.5x TRL steps/s, peak memory not above TRL's"
        print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
