"""Self-play GRPO on TicTacToe: a tiny model from scratch, before vs after.

One policy plays both seats (SPIRAL's setting): ``GRPOTrainer`` with
``--advantage rae`` (an EMA baseline per seat, the default here) or any other estimator
(``grpo``, the trainer's default, compares each seat's results within groups of
``--group-size`` games from one seed) and, optionally, a pool of past checkpoints as
opponents. Each progress line and the summary count the steps whose batch had
something to learn from (``sequences`` > 0) and so changed the weights. Before and
after training it is evaluated on held-out seeds, on both seats, against a uniformly
random player and against the minimax expert: the non-loss rate (wins + draws) of the
sampled policy (as trained) and of the greedy one.
With ``--sft-episodes N`` the model first imitates N expert self-play games
(``SFTTrainer``, ``--sft-epochs`` passes) and self-play starts from that model: the
"before" evaluation is then the SFT-only figure, beside the after-RL one, so the RL
gain shows. The time budget ``--minutes`` covers both (the demonstrations, SFT and RL;
evaluations are not counted).
One JSON line per evaluation and one summary line (targets: non-loss vs random >= 0.85
and vs the expert >= 0.5 after <= 20 minutes on a 2-core CPU).

    .venv/bin/python benchmarks/selfplay_tictactoe.py --minutes 15
    .venv/bin/python benchmarks/selfplay_tictactoe.py --minutes 20 --sft-episodes 500 --sft-epochs 3
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from typing import Any


def _line(**fields: Any) -> None:
    print(json.dumps({"bench": "selfplay_tictactoe", **fields}), flush=True)


def evaluate(trainer: Any, label: str, episodes: int) -> dict[str, float]:
    """Non-loss and win rates vs random and vs the expert, sampled and greedy."""
    out: dict[str, float] = {}
    config = trainer.config
    saved = (config.eval_opponent, config.eval_greedy)
    try:
        for opponent in ("random", "expert"):
            for greedy in (False, True):
                config.eval_opponent, config.eval_greedy = opponent, greedy
                result = trainer.evaluate(episodes)
                mode = "greedy" if greedy else "sampled"
                _line(when=label, opponent=opponent, policy=mode, **result, episodes=episodes)
                out[f"{opponent}_{mode}_nonloss"] = result["nonloss"]
                out[f"{opponent}_{mode}_win"] = result["success"]
    finally:
        config.eval_opponent, config.eval_greedy = saved
    return out


def sft_warm_start(args: argparse.Namespace, run_dir: str) -> tuple[str, dict[str, Any]]:
    """Imitate expert self-play games; the SFT model's directory and what it took."""
    from turngym.sdk.trainers.sft import SFTConfig, SFTTrainer

    start = time.perf_counter()
    trainer = SFTTrainer(
        SFTConfig(
            env="turngym/TicTacToe-v0",
            model="tiny",
            output_dir=f"{run_dir}/sft",
            demos="expert",
            episodes=args.sft_episodes,
            epochs=args.sft_epochs,
            batch_size=args.sft_batch_size,
            lr=args.sft_lr,
            lr_schedule="linear",
            save_every=0,
            seed=args.seed,
            progress=False,
            tensorboard=False,
            log_every=0,
        )
    )
    steps = trainer.config.steps
    for step in range(steps):
        row = trainer.train_step(step)
        trainer.step = step + 1
        if (step + 1) % 50 == 0 or step + 1 == steps:
            minutes = round((time.perf_counter() - start) / 60, 2)
            _line(phase="sft", minutes=minutes, **row)
    final = trainer.save_final()
    trainer.close()
    return str(final), {
        "sft_episodes": args.sft_episodes,
        "sft_epochs": args.sft_epochs,
        "sft_sequences": len(trainer.sequences),
        "sft_steps": steps,
        "sft_minutes": round((time.perf_counter() - start) / 60, 2),
    }


def main() -> None:
    """Train with self-play until the step or time budget runs out; report before/after."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--minutes", type=float, default=15.0, help="training time budget (SFT included)"
    )
    parser.add_argument("--steps", type=int, default=10_000, help="most training steps")
    parser.add_argument("--games", type=int, default=32, help="self-play games per step")
    parser.add_argument("--advantage", default="rae", help="GRPOConfig.advantage")
    parser.add_argument(
        "--group-size",
        type=int,
        help="games per seed (default: 1 for rae, per_agent_norm and reinforce, else 4)",
    )
    parser.add_argument(
        "--lr",
        type=float,
        help="RL learning rate (default: 2e-3 from scratch, 5e-4 after SFT, which 2e-3 undid)",
    )
    parser.add_argument("--minibatches", type=int, default=2, help="optimiser steps per batch")
    parser.add_argument("--entropy-coef", type=float, default=0.02, help="entropy bonus")
    parser.add_argument("--pool-size", type=int, default=4, help="past checkpoints as opponents")
    parser.add_argument("--eval-episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument("--output-dir", help="run directory (default: a temporary one)")
    parser.add_argument(
        "--sft-episodes", type=int, default=0, help="expert self-play games to imitate first"
    )
    parser.add_argument("--sft-epochs", type=int, default=3, help="SFT passes over them")
    parser.add_argument("--sft-batch-size", type=int, default=32, help="SFT sequences a step")
    parser.add_argument("--sft-lr", type=float, default=3e-3, help="SFT learning rate")
    args = parser.parse_args()

    import torch

    from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer

    if args.threads:
        torch.set_num_threads(args.threads)
    run_dir = args.output_dir or tempfile.mkdtemp(prefix="selfplay-ttt-")
    group_size = args.group_size or (
        1 if args.advantage in ("rae", "per_agent_norm", "reinforce") else 4
    )
    started = time.perf_counter()
    model, sft = sft_warm_start(args, run_dir) if args.sft_episodes else ("tiny", {})
    config = GRPOConfig(
        env="turngym/TicTacToe-v0",
        model=model,
        output_dir=run_dir,
        steps=args.steps,
        groups=max(1, args.games // group_size),
        group_size=group_size,
        advantage=args.advantage,
        lr=args.lr or (5e-4 if sft else 2e-3),
        minibatches=args.minibatches,
        entropy_coef=args.entropy_coef,
        pool_size=args.pool_size,
        pool_every=10,
        pool_prob=0.5,
        eval_every=0,
        save_every=0,
        seed=args.seed,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    trainer = GRPOTrainer(config)
    setup = time.perf_counter() - started  # demonstrations, SFT and the model load
    before = evaluate(trainer, "after-sft" if sft else "before", args.eval_episodes)
    start = time.perf_counter()
    step = updated = 0
    while step < args.steps and time.perf_counter() - start + setup < args.minutes * 60:
        row = trainer.train_step(step)
        step += 1
        updated += row["sequences"] > 0
        trainer.step = step
        if step % 25 == 0:
            minutes = round((time.perf_counter() - start) / 60, 2)
            _line(minutes=minutes, steps_with_update=updated, **row)
    minutes = (time.perf_counter() - start) / 60
    after = evaluate(trainer, "after", args.eval_episodes)
    trainer.save_final()
    _line(
        summary=True,
        advantage=args.advantage,
        group_size=group_size,
        **sft,
        steps=step,
        steps_with_update=updated,
        train_minutes=round(minutes, 2),
        total_minutes=round(minutes + setup / 60, 2),
        before="the SFT model" if sft else "the initial model",
        nonloss_vs_random_before=before["random_sampled_nonloss"],
        greedy_nonloss_vs_random_before=before["random_greedy_nonloss"],
        nonloss_vs_random_after=after["random_sampled_nonloss"],
        greedy_nonloss_vs_random_after=after["random_greedy_nonloss"],
        nonloss_vs_expert_before=before["expert_sampled_nonloss"],
        greedy_nonloss_vs_expert_before=before["expert_greedy_nonloss"],
        nonloss_vs_expert_after=after["expert_sampled_nonloss"],
        greedy_nonloss_vs_expert_after=after["expert_greedy_nonloss"],
        target="non-loss vs random >= 0.85 and vs expert >= 0.5 after <= 20 minutes",
        run_dir=run_dir,
    )


if __name__ == "__main__":
    main()
