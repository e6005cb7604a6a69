"""Rollout overhead and generation speed of the HF backend, in one run.

Two measurements, one JSON line each:

1. ``rollout``: ``--envs`` (default 16) FrozenLake text envs played in lockstep by an
   ``LLMAgent`` over ``HFPolicy`` through the batched ``Collector`` (one ``generate`` call
   per step for every active env). The share of wall time spent OUTSIDE the model's
   forward passes (env steps, chat-template rendering, tokenisation, sampling, record
   keeping) is the collector's overhead; target <= 5%.
2. ``generate``: one batch of prompts decoded greedily for ``--new-tokens`` tokens by
   ``HFPolicy.generate`` and by plain ``model.generate`` of transformers (the peer),
   passes interleaved, the best kept; tokens/s of each and their ratio (target >= 1.0x,
   stretch 1.5x). Two batches: the 16 envs' first observations (equal lengths), and
   conversations of 0-7 earlier turns (lengths as mixed as in the middle of multi-turn
   rollouts), both rendered with the chat template and left-padded. ``HFPolicy`` also
   returns per-token log-probs; the peer does not. Both decode the same tokens (greedy,
   same model), so they do the same work; rows that end early (EOS) are counted up to
   their EOS in both.

The model is built from a config with ``build_tiny_model`` (nothing is downloaded); its
size is set with ``--hidden/--layers/--heads``, or pass ``--model DIR`` (any local
checkpoint, e.g. a Qwen2.5).

    .venv/bin/python benchmarks/rollout_overhead.py
    .venv/bin/python benchmarks/rollout_overhead.py --model ~/models/Qwen2.5-0.5B-Instruct
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SYSTEM = "Answer with one move: left, right, up or down."


def _line(**fields: Any) -> None:
    print(json.dumps({"bench": "rollout_overhead", **fields}), flush=True)


def measure_rollout(policy: Any, envs: int, episodes: int, new_tokens: int) -> dict[str, Any]:
    """Collect ``episodes`` FrozenLake episodes over ``envs`` envs; time in/out of forwards."""
    from turngym.sdk.agents.llm import LLMAgent
    from turngym.sdk.policy import SamplingParams
    from turngym.sdk.rollout import Collector

    agent = LLMAgent(
        policy,
        system_prompt=SYSTEM,
        sampling=SamplingParams(temperature=1.0, max_new_tokens=new_tokens, seed=0),
    )
    collector = Collector("turngym/FrozenLake-v0", agent, num_envs=envs, desc="rollout")
    try:
        collector.collect(envs, seed=10_000)  # warm-up: allocator, kernels, caches
        policy.stats.update(forward_s=0.0, forwards=0, new_tokens=0)
        start = time.perf_counter()
        done = collector.collect(episodes, seed=0)
        wall = time.perf_counter() - start
    finally:
        collector.close()
    forward = policy.stats["forward_s"]
    turns = sum(ep.length for ep in done)
    return {
        "episodes": len(done),
        "turns": turns,
        "wall_s": round(wall, 3),
        "forward_s": round(forward, 3),
        "forwards": int(policy.stats["forwards"]),
        "new_tokens": int(policy.stats["new_tokens"]),
        "outside_forward_share": round(1 - forward / wall, 4),
        "target_share": 0.05,
        "turns_per_s": round(turns / wall, 1),
    }


def first_prompts(policy: Any, envs: int, mixed: bool = False) -> list[list[int]]:
    """Chat-rendered FrozenLake prompts of ``envs`` envs (seeds 0..).

    ``mixed=False``: each env's first observation (prompts of one length). ``mixed=True``:
    env ``i``'s conversation after ``i % 8`` moves (user observations and assistant
    moves), the mix of lengths a batch has in the middle of multi-turn rollouts.
    """
    import turngym
    from turngym.sdk.agents.llm import LLMAgent

    agent = LLMAgent(policy, system_prompt=SYSTEM)
    obs: list[Any] = []
    for seed in range(envs):
        env = turngym.make("turngym/FrozenLake-v0")
        text, info = env.reset(seed=seed)
        chat = [{"role": "user", "content": text}]
        for _ in range(seed % 8 if mixed else 0):
            move = info["legal_actions"][0]
            text, _, terminated, truncated, info = env.step(move)
            chat += [{"role": "assistant", "content": move}, {"role": "user", "content": text}]
            if terminated or truncated:
                break
        obs.append(chat)
        env.close()
    return agent.render(obs)


def measure_generate(
    policy: Any, prompts: list[list[int]], new_tokens: int, repeat: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Greedy decoding of ``prompts``: HFPolicy.generate vs plain model.generate."""
    import torch

    from turngym.sdk.policy import SamplingParams

    model, tok = policy.model, policy.tokenizer
    width = max(len(p) for p in prompts)
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    ids = torch.full((len(prompts), width), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for r, p in enumerate(prompts):
        ids[r, width - len(p) :] = torch.tensor(p)
        mask[r, width - len(p) :] = 1
    ids, mask = ids.to(policy.device), mask.to(policy.device)
    params = SamplingParams(temperature=0, max_new_tokens=new_tokens)
    eos = list(policy.eos_token_ids)

    def ours() -> int:
        return sum(len(g.token_ids) for g in policy.generate(prompts, params))

    def peer() -> int:
        with torch.inference_mode():
            out = model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=new_tokens,
                do_sample=False,
                eos_token_id=eos,
                pad_token_id=pad,
            )
        new = out[:, width:]
        # Tokens up to and including each row's first EOS, as HFPolicy counts them.
        count = 0
        for row in new.tolist():
            for k, t in enumerate(row):
                if t in eos:
                    count += k + 1
                    break
            else:
                count += len(row)
        return count

    best = {"ours": float("inf"), "peer": float("inf")}
    tokens = {"ours": 0, "peer": 0}
    ours(), peer()  # warm-up
    for _ in range(repeat):
        for name, fn in (("ours", ours), ("peer", peer)):
            start = time.perf_counter()
            tokens[name] = fn()
            best[name] = min(best[name], time.perf_counter() - start)
    rate = {k: tokens[k] / best[k] for k in best}
    common = {
        "prompts": len(prompts),
        "prompt_tokens": [min(len(p) for p in prompts), width],
        "max_new_tokens": new_tokens,
    }
    mine = {
        **common,
        "impl": "turngym HFPolicy.generate",
        "tokens": tokens["ours"],
        "seconds": round(best["ours"], 4),
        "tokens_per_s": round(rate["ours"], 1),
        "ratio_vs": {"transformers model.generate": round(rate["ours"] / rate["peer"], 2)},
        "note": "greedy, KV cache, per-token log-probs included",
    }
    theirs = {
        **common,
        "impl": "transformers model.generate",
        "tokens": tokens["peer"],
        "seconds": round(best["peer"], 4),
        "tokens_per_s": round(rate["peer"], 1),
        "note": "greedy, KV cache, no log-probs",
    }
    return mine, theirs


def main(argv: list[str] | None = None) -> int:
    """Run both measurements and print their JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a saved model dir (default: build a tiny one)")
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--episodes", type=int, default=48, help="rollout episodes")
    parser.add_argument("--new-tokens", type=int, default=32)
    parser.add_argument("--action-tokens", type=int, default=8, help="max tokens per action")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", help="cpu, cuda, ... (default: cuda when available)")
    args = parser.parse_args(argv)

    import torch
    import transformers

    from turngym.sdk.backends.hf import HFPolicy
    from turngym.sdk.models import build_tiny_model

    torch.set_num_threads(max(1, torch.get_num_threads()))
    with tempfile.TemporaryDirectory() as tmp:
        if args.model:
            model_dir = Path(args.model).expanduser()
            size = "given"
        else:
            model_dir = build_tiny_model(
                Path(tmp) / "tiny", hidden=args.hidden, layers=args.layers, heads=args.heads
            )
            size = f"qwen2 hidden={args.hidden} layers={args.layers} heads={args.heads}"
        policy = HFPolicy(model_dir, device=args.device)
        params = sum(p.numel() for p in policy.model.parameters())
        env = {
            "model": size,
            "parameters": params,
            "device": str(policy.device),
            "dtype": str(policy.model.dtype),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "python": platform.python_version(),
        }
        rollout = measure_rollout(policy, args.envs, args.episodes, args.action_tokens)
        _line(measure="rollout", envs=args.envs, env="turngym/FrozenLake-v0", **rollout, **env)
        for mixed in (False, True):
            prompts = first_prompts(policy, args.envs, mixed=mixed)
            mine, theirs = measure_generate(policy, prompts, args.new_tokens, args.repeat)
            lengths = "mixed (0-7 earlier turns)" if mixed else "equal (first observations)"
            _line(measure="generate", prompt_lengths=lengths, **mine, **env)
            _line(measure="generate", prompt_lengths=lengths, **theirs, **env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
