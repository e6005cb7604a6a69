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
``--ema-decay`` also keeps a Polyak (exponential moving) average of the weights, a
model one can ship, and measures it beside the last iterate; ``--beta`` adds a KL
penalty towards a magnet (the average, or the initial weights): magnetic mirror
descent's regularised step (Sokota et al. 2022), whose entropy half the entropy bonus
already is (a KL towards the uniform policy). Each line also gives the exploitability of
the average strategy of the policies measured so far (``IterateAverage``: what
fictitious play and CFR report, a table rather than a model).
Defaults (the best of the settings tried, benchmarks/README.md): 16 games a step, 8
optimiser steps per step's batch (minibatches), the entropy bonus annealed 0.1 -> 0.02
and the learning rate 1e-3 -> 5e-5 over the budget, a weight average with decay 0.9.
Target: exploitability falls by >= 70% from the initial policy's within <= 10 minutes
on a 2-core CPU (the clock counts training and evaluations).

    .venv/bin/python benchmarks/selfplay_kuhn.py --minutes 10 --threads 1
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def _line(**fields: Any) -> None:
    print(json.dumps({"bench": "selfplay_kuhn", **fields}), flush=True)


def measure(trainer: Any, average: IterateAverage | None = None) -> dict[str, Any]:
    """Exact exploitability of the trainer's sampling policy, and what it plays.

    ``average``, when given, takes this policy in (see ``IterateAverage``).
    """
    from turngym.sdk.exploitability import policy_table

    # The tempered, guided-choice policy GRPO trains, asked once at each state.
    table = policy_table(trainer.agent, "KuhnPoker-v0")
    if average is not None:
        average.add(table)
    return describe(table)


def describe(table: Mapping[Any, Mapping[str, Any]]) -> dict[str, Any]:
    """A Kuhn policy table's exploitability, values and bet-or-call probabilities."""
    from turngym.sdk.exploitability import best_response

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


class IterateAverage:
    """The average strategy of the policies measured so far, as fictitious play keeps it.

    Each state's action probabilities are averaged over the measured policies, each
    weighted by how often that policy's own earlier choices lead to the state (its own
    reach: 1 at a seat's first decision in Kuhn) and by ``weight`` (later policies count
    more with ``linear``). This is the policy whose exploitability falls to 0 for
    no-regret self-play in a two-player zero-sum game, and what CFR and NFSP report; it
    is a table over the 12 information states, not a model.
    """

    def __init__(self, linear: bool = True) -> None:
        self.linear = linear
        self.count = 0
        self.sums: dict[Any, dict[str, float]] = {}
        self.reach: dict[Any, float] = {}

    def add(self, table: Mapping[Any, Mapping[str, Any]]) -> None:
        """Take one measured policy (``policy_table``'s result) into the average."""
        self.count += 1
        weight = float(self.count) if self.linear else 1.0
        by_betting = {(s.player, s.card, s.betting): p for s, p in table.items()}
        for state, probs in table.items():
            moves = state.betting[0] if state.betting else ()
            reach = 1.0  # Kuhn: seats alternate from player_0, one betting round
            for k in range(state.player, len(moves), 2):
                earlier = by_betting[(state.player, state.card, (moves[:k],))]
                reach *= float(earlier[moves[k]])
            self.reach[state] = self.reach.get(state, 0.0) + weight * reach
            row = self.sums.setdefault(state, {})
            for action, p in probs.items():
                row[action] = row.get(action, 0.0) + weight * reach * float(p)

    def table(self) -> dict[Any, dict[str, float]]:
        """The average policy at every state (uniform where no policy reached it)."""
        out = {}
        for state, row in self.sums.items():
            total = self.reach[state]
            if total > 0:
                out[state] = {a: v / total for a, v in row.items()}
            else:
                out[state] = {a: 1 / len(row) for a in row}
        return out


class WeightAverage:
    """A Polyak (exponential moving) average of the model's weights: a model one can ship.

    ``model`` is the copy that holds the average (the trainer's KL reference when the
    magnet is this average). ``measure_with`` loads the average into the trainer's
    model for one measurement and puts the trained weights back.
    """

    def __init__(self, trainer: Any, decay: float, model: Any = None) -> None:
        self.trainer, self.decay = trainer, decay
        self.model = model if model is not None else copy.deepcopy(trainer.model)
        self.model.eval().requires_grad_(False)

    def update(self) -> None:
        """Move the average towards the trained weights by ``1 - decay``."""
        import torch

        with torch.no_grad():
            for avg, cur in zip(
                self.model.parameters(), self.trainer.model.parameters(), strict=True
            ):
                avg.lerp_(cur.detach(), 1.0 - self.decay)

    def measure_with(self) -> dict[str, Any]:
        """``measure`` of the averaged weights (the trained ones are restored after)."""
        import torch

        params = list(self.trainer.model.parameters())
        saved = [p.detach().clone() for p in params]
        with torch.no_grad():
            for p, avg in zip(params, self.model.parameters(), strict=True):
                p.copy_(avg)
        try:
            return measure(self.trainer)
        finally:
            with torch.no_grad():
                for p, keep in zip(params, saved, strict=True):
                    p.copy_(keep)


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
        ax.plot(x, values, marker=".", label="last iterate (the trained weights)")
        if "ema" in points[0]:
            ema = [p["ema"]["exploitability"] for p in points]
            ax.plot(x, ema, marker=".", label="Polyak average of the weights")
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
    parser.add_argument("--games", type=int, default=16, help="self-play games per step")
    parser.add_argument("--advantage", default="rae", help="GRPOConfig.advantage")
    parser.add_argument(
        "--group-size",
        type=int,
        help="games per seed (default: 1 for rae, per_agent_norm and reinforce, else 4)",
    )
    parser.add_argument("--scale", default="group", help="GRPOConfig.scale (grpo, gigpo)")
    parser.add_argument("--lr", type=float, default=1e-3)
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
    parser.add_argument(
        "--ema-decay",
        type=float,
        default=0.9,
        help="keep a Polyak average of the weights with this decay per step and measure it "
        "too (0: none)",
    )
    parser.add_argument(
        "--beta",
        type=float,
        default=0.0,
        help="KL penalty towards the magnet (GRPOConfig.beta; 0: none)",
    )
    parser.add_argument(
        "--magnet",
        choices=("initial", "ema"),
        default="ema",
        help="the KL reference: the initial weights, or the Polyak average (needs --ema-decay)",
    )
    parser.add_argument(
        "--iterate-average",
        choices=("linear", "uniform"),
        default="linear",
        help="weights of the measured policies in the average strategy (later ones count "
        "more with linear)",
    )
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
        beta=args.beta,
        pool_size=args.pool_size,
        eval_every=0,
        save_every=0,
        seed=args.seed,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    if args.beta > 0 and args.magnet == "ema" and not args.ema_decay:
        parser.error("--magnet ema needs --ema-decay > 0 (or use --magnet initial)")
    load_start = os.getloadavg()
    start, cpu_start = time.perf_counter(), time.process_time()
    trainer = GRPOTrainer(config)
    average = None
    if args.ema_decay:
        # Magnetic mirror descent with a moving magnet: the KL reference is the average.
        magnet = trainer.ref_model if args.beta > 0 and args.magnet == "ema" else None
        average = WeightAverage(trainer, args.ema_decay, magnet)
    points: list[dict[str, Any]] = []

    iterates = IterateAverage(linear=args.iterate_average == "linear")

    def evaluate(step: int, updated: int) -> None:
        minutes = round((time.perf_counter() - start) / 60, 3)
        point = {
            "step": step,
            "minutes": minutes,
            "steps_with_update": updated,
            **measure(trainer, iterates),
        }
        point["iterate_average"] = describe(iterates.table())
        if average is not None:
            point["ema"] = average.measure_with()
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
        if average is not None:
            average.update()
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
    cpu_minutes = (time.process_time() - cpu_start) / 60
    trainer.save_final()
    initial, final = points[0]["exploitability"], points[-1]["exploitability"]
    best = min(points, key=lambda p: p["exploitability"])
    extra: dict[str, Any] = {}
    if average is not None:
        ema_final = points[-1]["ema"]["exploitability"]
        ema_best = min(points, key=lambda p: p["ema"]["exploitability"])
        extra = {
            "ema_decay": args.ema_decay,
            "ema_exploitability_final": ema_final,
            "ema_fall_final": round(1 - ema_final / initial, 3),
            "ema_exploitability_best": ema_best["ema"]["exploitability"],
            "ema_best_step": ema_best["step"],
            "ema_met": ema_final <= 0.3 * initial and args.minutes <= 10,
        }
    avg_final = points[-1]["iterate_average"]["exploitability"]
    extra.update(
        iterate_average=args.iterate_average,
        average_strategy_exploitability_final=avg_final,
        average_strategy_fall_final=round(1 - avg_final / initial, 3),
    )
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
        beta=args.beta,
        magnet=args.magnet if args.beta > 0 else None,
        steps=step,
        steps_with_update=updated,
        minutes=round(minutes, 2),
        cpu_minutes=round(cpu_minutes, 2),
        load_average_start=[round(x, 2) for x in load_start],
        load_average_end=[round(x, 2) for x in os.getloadavg()],
        collect_minutes=round(seconds["collect"] / 60, 2),
        update_minutes=round(seconds["update"] / 60, 2),
        exploitability_initial=initial,
        exploitability_final=final,
        fall_final=round(1 - final / initial, 3),
        exploitability_best=best["exploitability"],
        best_step=best["step"],
        target="exploitability falls by >= 70% from the initial policy's in <= 10 minutes",
        met=final <= 0.3 * initial and args.minutes <= 10,
        **extra,
        plot=str(figure),
        run_dir=str(run_dir),
    )


if __name__ == "__main__":
    main()
