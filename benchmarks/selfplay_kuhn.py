"""Self-play GRPO on Kuhn poker, measured by exact exploitability: a tiny model from scratch.

One LM policy plays both seats of ``turngym/KuhnPoker-v0`` (SPIRAL's setting):
``GRPOTrainer`` with ``--advantage rae`` (an EMA baseline per seat, the default here)
or any other estimator (``grpo`` compares each seat's results within groups of
``--group-size`` games from one seed, which deals the same cards). Every
``--eval-every`` steps, ``turngym.sdk.exploitability`` computes the exact
exploitability of the policy being trained: its guided-choice probability of each
legal action at each of Kuhn's 12 information states, at the sampling temperature,
against a best response over the whole game tree (no sampled games). One JSON line
per evaluation (with the policy's probability of betting or calling at each state),
one summary line, and a plot of exploitability against steps and minutes.
Defaults (the best of the settings tried, benchmarks/README.md): 32 games a step, 8
optimiser steps per step's batch (minibatches), the entropy bonus annealed 0.1 -> 0.02
and the learning rate 5e-4 -> 5e-5 over the budget.
Target: exploitability falls by >= 70% from the initial policy's within <= 10 minutes
on a 2-core CPU (the clock counts training and evaluations).

    .venv/bin/python benchmarks/selfplay_kuhn.py --minutes 10 --threads 1
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any


def _line(**fields: Any) -> None:
    print(json.dumps({"bench": "selfplay_kuhn", **fields}), flush=True)


def measure(trainer: Any) -> dict[str, Any]:
    """Exact exploitability of the trainer's sampling policy, and what it plays."""
    from turngym.sdk.exploitability import best_response, policy_table

    # The tempered, guided-choice policy GRPO trains, asked once at each state.
    table = policy_table(trainer.agent, "KuhnPoker-v0")
    result = best_response(table.__getitem__, "KuhnPoker-v0")
    aggressive = {  # the probability of betting (no bet out) or calling (facing one)
        s.key.strip(" |"): round(float(p.get("bet", p.get("call", 0.0))), 3)
        for s, p in table.items()
    }
    return {
        "exploitability": round(float(result.exploitability), 5),
        "nash_conv": round(float(result.nash_conv), 5),
        "best_response_values": [round(float(v), 5) for v in result.best_response_values],
        "value_player_0": round(float(result.policy_values[0]), 5),
        "bet_or_call": aggressive,
    }


def plot(points: list[dict[str, Any]], initial: float, path: Path) -> None:
    """Exploitability against steps and against minutes, with the target line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    values = [p["exploitability"] for p in points]
    for ax, x, label in (
        (axes[0], [p["step"] for p in points], "training step"),
        (axes[1], [p["minutes"] for p in points], "minutes (training + evaluation)"),
    ):
        ax.plot(x, values, marker=".", label="exploitability of the LM policy")
        ax.axhline(0.3 * initial, color="tab:red", ls="--", lw=1, label="target (-70%)")
        ax.axhline(0.0, color="gray", lw=0.8)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("chips per hand")
    axes[0].legend(loc="upper right", fontsize=8)
    fig.suptitle("KuhnPoker-v0 self-play: exact exploitability (0 = Nash equilibrium)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    """Train by self-play until the step or time budget runs out, measuring as it goes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="time budget")
    parser.add_argument("--steps", type=int, default=100_000, help="most training steps")
    parser.add_argument("--games", type=int, default=32, help="self-play games per step")
    parser.add_argument("--advantage", default="rae", help="GRPOConfig.advantage")
    parser.add_argument(
        "--group-size",
        type=int,
        help="games per seed (default: 1 for rae, per_agent_norm and reinforce, else 4)",
    )
    parser.add_argument("--scale", default="group", help="GRPOConfig.scale (grpo, gigpo)")
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument(
        "--lr-final",
        type=float,
        default=5e-5,
        help="anneal the learning rate linearly to this by the end of the budget",
    )
    parser.add_argument("--minibatches", type=int, default=8, help="optimiser steps per pass")
    parser.add_argument("--epochs", type=int, default=1, help="passes over each step's batch")
    parser.add_argument("--entropy-coef", type=float, default=0.1, help="entropy bonus")
    parser.add_argument(
        "--entropy-final",
        type=float,
        default=0.02,
        help="anneal the entropy bonus linearly to this by the end of the budget (steps or "
        "minutes, whichever runs out first)",
    )
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature")
    parser.add_argument("--rae-decay", type=float, default=0.95, help="GRPOConfig.rae_decay")
    parser.add_argument("--pool-size", type=int, default=0, help="past checkpoints as opponents")
    parser.add_argument("--eval-every", type=int, default=10, help="measure every N steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument("--output-dir", help="run directory (default: a temporary one)")
    args = parser.parse_args()

    import torch

    from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer

    if args.threads:
        torch.set_num_threads(args.threads)
    run_dir = Path(args.output_dir or tempfile.mkdtemp(prefix="selfplay-kuhn-"))
    group_size = args.group_size or (
        1 if args.advantage in ("rae", "per_agent_norm", "reinforce") else 4
    )
    config = GRPOConfig(
        env="turngym/KuhnPoker-v0",
        model="tiny",
        output_dir=str(run_dir),
        steps=args.steps,
        groups=max(1, args.games // group_size),
        group_size=group_size,
        advantage=args.advantage,
        scale=args.scale,
        lr=args.lr,
        minibatches=args.minibatches,
        epochs=args.epochs,
        entropy_coef=args.entropy_coef,
        temperature=args.temperature,
        rae_decay=args.rae_decay,
        pool_size=args.pool_size,
        eval_every=0,
        save_every=0,
        seed=args.seed,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    start = time.perf_counter()
    trainer = GRPOTrainer(config)
    points: list[dict[str, Any]] = []

    def evaluate(step: int, updated: int) -> None:
        minutes = round((time.perf_counter() - start) / 60, 3)
        point = {"step": step, "minutes": minutes, "steps_with_update": updated, **measure(trainer)}
        points.append(point)
        _line(**point)

    evaluate(0, 0)
    step = updated = 0
    seconds = {"collect": 0.0, "update": 0.0}
    final_coef, final_lr = args.entropy_final, args.lr_final
    while step < args.steps and time.perf_counter() - start < args.minutes * 60:
        # Annealed by the share of the budget spent (steps or minutes, whichever is
        # ahead): a time budget leaves the trainer's own step schedules no last step.
        done = max(step / args.steps, (time.perf_counter() - start) / (args.minutes * 60))
        config.entropy_coef = args.entropy_coef + (final_coef - args.entropy_coef) * done
        trainer.lr = args.lr + (final_lr - args.lr) * done  # the constant schedule's base
        row = trainer.train_step(step)
        step += 1
        updated += row["sequences"] > 0
        trainer.step = step
        seconds["collect"] += row["collect_s"]
        seconds["update"] += row["update_s"]
        if step % args.eval_every == 0:
            evaluate(step, updated)
    if not points or points[-1]["step"] != step:
        evaluate(step, updated)
    minutes = (time.perf_counter() - start) / 60
    trainer.save_final()
    initial, final = points[0]["exploitability"], points[-1]["exploitability"]
    best = min(points, key=lambda p: p["exploitability"])
    figure = run_dir / "exploitability.png"
    plot(points, initial, figure)
    _line(
        summary=True,
        advantage=args.advantage,
        group_size=group_size,
        games_per_step=config.groups * group_size,
        lr=args.lr,
        lr_final=final_lr,
        epochs=args.epochs,
        minibatches=args.minibatches,
        entropy_coef=args.entropy_coef,
        entropy_final=final_coef,
        temperature=args.temperature,
        steps=step,
        steps_with_update=updated,
        minutes=round(minutes, 2),
        collect_minutes=round(seconds["collect"] / 60, 2),
        update_minutes=round(seconds["update"] / 60, 2),
        exploitability_initial=initial,
        exploitability_final=final,
        fall_final=round(1 - final / initial, 3),
        exploitability_best=best["exploitability"],
        best_step=best["step"],
        target="exploitability falls by >= 70% from the initial policy's in <= 10 minutes",
        met=final <= 0.3 * initial and args.minutes <= 10,
        plot=str(figure),
        run_dir=str(run_dir),
    )


if __name__ == "__main__":
    main()
