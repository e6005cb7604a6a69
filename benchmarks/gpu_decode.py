"""Decoding tokens/s of ``HFPolicy`` on a GPU: CUDA-graph static decoding vs the other paths.

The model is ``gpu_grpo.py``'s (random-init Qwen2.5-0.5B or 1.5B architecture, bf16,
turngym's small tokenizer). ``--rows`` prompts (one chat prompt, so the shape is
``gpu_grpo.py``'s collection: 64 x 128 new tokens) are decoded with temperature 1 by
each path of ``HFPolicy``:

- ``static+graphs``: the default on CUDA (``StaticDecoder``, one CUDA graph per row
  bucket, tokens read back every 16 steps);
- ``static-eager``: the same fixed-shape steps launched one kernel at a time;
- ``lean-dynamic``: ``LeanDecoder`` over a growing cache with a host sync per token
  (the path before the static decoder);
- ``model-forward``: transformers' forward per token;

and, as the peer, transformers' own ``generate`` (dynamic cache; ``--peer-static``
adds ``cache_implementation="static"``, which compiles first). One JSON line per path:
generated tokens, the best of ``--repeat`` timed calls after a warm-up, tokens/s, peak
GPU memory. A last line compares greedy decoding with graphs and without (rows whose
tokens are all equal; bf16 kernels of other shapes may round differently).

    python benchmarks/gpu_decode.py --size 0.5b --rows 64 --new-tokens 128
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gpu_grpo import PROMPT, build_model

PATHS = {
    "static+graphs": {"static_decoding": True, "cuda_graphs": True, "lean_decoding": True},
    "static-eager": {"static_decoding": True, "cuda_graphs": False, "lean_decoding": True},
    "lean-dynamic": {"static_decoding": False, "cuda_graphs": True, "lean_decoding": True},
    "model-forward": {"static_decoding": False, "cuda_graphs": True, "lean_decoding": False},
}


def _timed(fn: Any, repeat: int, cuda: bool) -> tuple[float, Any]:
    """The best wall time of ``repeat`` calls after one warm-up, and the last result."""
    import torch

    result = fn()
    best = float("inf")
    for _ in range(repeat):
        if cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        result = fn()
        if cuda:
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    """Build the model, time each decoding path, print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", choices=["0.5b", "1.5b", "tiny"], default="0.5b")
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--paths", default=",".join([*PATHS, "hf-generate"]))
    parser.add_argument("--peer-static", action="store_true")
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    import torch

    from turngym.sdk.backends.hf import HFPolicy
    from turngym.sdk.policy import SamplingParams

    base: dict[str, Any] = {"bench": "gpu_decode", "size": args.size, "device": args.device}
    cuda = args.device.startswith("cuda")
    if cuda and not torch.cuda.is_available():
        print(json.dumps({**base, "skipped": "no CUDA GPU here (torch sees none)"}))
        return
    if cuda:
        base["gpu"] = torch.cuda.get_device_name()
    base.update(rows=args.rows, new_tokens=args.new_tokens, torch=torch.__version__)
    wanted = [p.strip() for p in args.paths.split(",") if p.strip()]
    with tempfile.TemporaryDirectory(prefix="gpu-decode-") as tmp:
        model_dir, _ = build_model(Path(tmp), args.size)
        policy = HFPolicy(model_dir, device=args.device, dtype="bfloat16")
        tok = policy.tokenizer
        prompt = tok.apply_chat_template(
            [{"role": "user", "content": PROMPT}], add_generation_prompt=True, return_dict=False
        )
        prompts = [prompt] * args.rows
        sampled = SamplingParams(temperature=1.0, max_new_tokens=args.new_tokens, seed=0)
        for name in [p for p in wanted if p in PATHS]:
            for attr, value in PATHS[name].items():
                setattr(policy, attr, value)
            if cuda:
                torch.cuda.reset_peak_memory_stats()
            seconds, gens = _timed(lambda: policy.generate(prompts, sampled), args.repeat, cuda)
            tokens = sum(len(g.token_ids) for g in gens)
            row = {**base, "path": name, "tokens": tokens, "seconds": round(seconds, 4)}
            row["tokens_per_s"] = round(tokens / seconds, 1)
            if cuda:
                row["peak_gpu_gb"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
            print(json.dumps(row), flush=True)
        if "hf-generate" in wanted:
            _peer(policy, prompt, args, base, cuda, "dynamic")
            if args.peer_static:
                _peer(policy, prompt, args, base, cuda, "static")
        greedy = SamplingParams(temperature=0.0, max_new_tokens=args.new_tokens)
        for attr, value in PATHS["static+graphs"].items():
            setattr(policy, attr, value)
        graphed = policy.generate(prompts[:8], greedy)
        for attr, value in PATHS["lean-dynamic"].items():
            setattr(policy, attr, value)
        dynamic = policy.generate(prompts[:8], greedy)
        same = sum(a.token_ids == b.token_ids for a, b in zip(graphed, dynamic, strict=True))
        print(json.dumps({**base, "greedy_rows_equal": f"{same}/{len(graphed)}"}), flush=True)


def _peer(
    policy: Any, prompt: list[int], args: argparse.Namespace, base: dict, cuda: bool, cache: str
) -> None:
    """transformers' ``generate`` on the same rows (sampling at temperature 1, no top-k)."""
    import torch

    model = policy.model
    ids = torch.tensor([prompt] * args.rows, device=policy.device)
    kwargs: dict[str, Any] = dict(
        do_sample=True,
        temperature=1.0,
        top_k=0,
        top_p=1.0,
        max_new_tokens=args.new_tokens,
        min_new_tokens=args.new_tokens,  # every row decodes the whole budget
        pad_token_id=policy.tokenizer.pad_token_id,
    )
    if cache == "static":
        kwargs["cache_implementation"] = "static"
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    seconds, out = _timed(
        lambda: model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), **kwargs),
        args.repeat,
        cuda,
    )
    tokens = int((out.shape[1] - ids.shape[1]) * args.rows)
    row = {**base, "path": f"hf-generate-{cache}", "tokens": tokens, "seconds": round(seconds, 4)}
    row["tokens_per_s"] = round(tokens / seconds, 1)
    if cuda:
        row["peak_gpu_gb"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
