"""Episodes to reach a success rate: off-policy trainers vs on-policy ones, same model.

Two suites, each a set of methods trained from the same tiny model (built once from a
config) on the same env, for several seeds:

- ``sac``: SAC-GLAM with hindsight relabelling, SAC-GLAM without it, and GRPO, on the
  goal-conditioned ``FrozenLake-v0`` (a goal cell drawn per episode, 12 turns);
- ``archer``: ArCHer, REINFORCE (GRPO's trainer with a batch-mean baseline) and GRPO,
  on a multi-turn task whose actions are generated text.

Every run trains until its held-out success (seeds from 1e9, evaluated every
``--eval-every`` training episodes) reaches ``--threshold`` or the episode budget runs
out. One JSON line per run (episodes to the threshold, or null), one summary line per
suite with the median per method and whether the papers' ordering holds
(SAC-GLAM+HER < SAC-GLAM < GRPO; ArCHer < REINFORCE), and a PNG of the mean curves.
Runs are independent: ``--jobs`` runs that many at once, one torch thread each.

    .venv/bin/python benchmarks/offpolicy_vs_onpolicy.py --suite sac --seeds 3 --jobs 2
"""

from __future__ import annotations

import argparse
import concurrent.futures
import itertools
import json
import multiprocessing
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

LAKE = {"goal": "random"}
"""FrozenLake 4x4 (deterministic), a goal cell drawn per episode: hindsight's setting."""
LAKE_TURNS = 12

Factory = Callable[[str, int, str], tuple[Any, int]]
"""(model dir, seed, run dir) -> (trainer, training episodes per step)."""


def _quiet() -> dict[str, Any]:
    return {"eval_every": 0, "save_every": 0, "progress": False, "tensorboard": False}


def sac_glam(relabel: str) -> Factory:
    """SAC-GLAM on the goal-conditioned lake, with ``relabel`` ("future" or "none")."""

    def make(model: str, seed: int, out: str) -> tuple[Any, int]:
        from turngym.sdk.trainers.sac_glam import SACGLAMConfig, SACGLAMTrainer

        config = SACGLAMConfig(
            env="turngym/FrozenLake-v0",
            env_kwargs=dict(LAKE),
            max_turns=LAKE_TURNS,
            model=model,
            output_dir=out,
            steps=100_000,
            relabel=relabel,
            # A directory model would default to a pretrained model's lr (1e-5); the
            # tiny one from scratch needs more, and mean scores start it near uniform.
            policy_lr=1e-3,
            score="mean",
            seed=seed,
            log_every=0,
            **_quiet(),
        )
        return SACGLAMTrainer(config), config.episodes_per_step

    return make


def archer() -> Factory:
    """ArCHer on GuessNumber: 50 critic to 3 actor updates, a token-level baseline."""

    def make(model: str, seed: int, out: str) -> tuple[Any, int]:
        from turngym.sdk.trainers.archer import ArCHerConfig, ArCHerTrainer
        from turngym.testing.toy import GuessNumber

        config = ArCHerConfig(
            env="GuessNumber",
            model=model,
            output_dir=out,
            steps=100_000,
            episodes_per_step=16,
            critic_steps=50,
            actor_steps=3,
            warmup_steps=3,
            actor_lr=1e-3,
            baseline=True,
            seed=seed,
            log_every=0,
            **_quiet(),
        )
        return ArCHerTrainer(config, env_fn=GuessNumber), config.episodes_per_step

    return make


def grpo(env: str, env_kwargs: dict[str, Any], advantage: str, **extra: Any) -> Factory:
    """GRPO's trainer on ``env`` with ``advantage`` ("grpo" or "reinforce").

    ``env="GuessNumber"`` trains on ``turngym.testing.toy.GuessNumber``.
    """

    def make(model: str, seed: int, out: str) -> tuple[Any, int]:
        from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer
        from turngym.testing.toy import GuessNumber

        fields: dict[str, Any] = {"groups": 4, "group_size": 4, "lr": 3e-3, **extra}
        if advantage == "reinforce":  # one episode per seed: no group to compare within
            fields["groups"], fields["group_size"] = fields["groups"] * fields["group_size"], 1
        config = GRPOConfig(
            env=env,
            env_kwargs=dict(env_kwargs),
            model=model,
            output_dir=out,
            steps=100_000,
            advantage=advantage,
            eval_greedy=True,  # as the off-policy trainers evaluate
            seed=seed,
            log_every=0,
            **fields,
            **_quiet(),
        )
        env_fn = GuessNumber if env == "GuessNumber" else None
        return GRPOTrainer(config, env_fn=env_fn), config.groups * config.group_size

    return make


SUITES: dict[str, dict[str, Any]] = {
    "sac": {
        "methods": {
            "sac_glam_her": sac_glam("future"),
            "sac_glam": sac_glam("none"),
            "grpo": grpo("turngym/FrozenLake-v0", LAKE, "grpo", max_turns=LAKE_TURNS),
        },
        "ordering": ["sac_glam_her", "sac_glam", "grpo"],
    },
    "archer": {
        "methods": {
            "archer": archer(),
            "reinforce": grpo("GuessNumber", {}, "reinforce"),
            "grpo": grpo("GuessNumber", {}, "grpo"),
        },
        "ordering": ["archer", "reinforce"],
    },
}


def run(suite: str, method: str, model: str, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """Train until the threshold or the budget; the eval curve and episodes needed."""
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    factory = SUITES[suite]["methods"][method]
    with tempfile.TemporaryDirectory() as out:
        trainer, per_step = factory(model, seed, out)
        curve = [(0, trainer.evaluate(args.eval_episodes)["success"])]
        started, episodes, step, next_eval = time.perf_counter(), 0, 0, args.eval_every
        reached = None
        while episodes < args.budget and reached is None:
            trainer.train_step(step)
            step += 1
            trainer.step = step
            episodes += per_step
            if episodes >= next_eval:
                next_eval += args.eval_every
                success = trainer.evaluate(args.eval_episodes)["success"]
                curve.append((episodes, success))
                if success >= args.threshold:
                    reached = episodes
        close = getattr(trainer, "close", None)
        if callable(close):
            close()
    return {
        "episodes_to_threshold": reached,
        "final_success": curve[-1][1],
        "curve": curve,
        "seconds": round(time.perf_counter() - started, 1),
    }


def mean_curve(
    runs: list[dict[str, Any]], xs: list[int] | None = None
) -> tuple[list[int], list[float]]:
    """A method's mean held-out success at ``xs`` (default: its runs' evaluation points).

    A run stops once it reaches the threshold; later points carry its last success
    forward, so every point averages all the method's seeds.
    """
    if xs is None:
        xs = sorted({episodes for r in runs for episodes, _ in r["curve"]})

    def at(curve: list[tuple[int, float]], x: int) -> float:
        return [s for e, s in curve if e <= x][-1]

    return xs, [statistics.mean(at(r["curve"], x) for r in runs) for x in xs]


def plot(results: dict[str, list[dict[str, Any]]], path: Path, title: str) -> None:
    """Mean held-out success vs training episodes, one line per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    grid = sorted({e for runs in results.values() for r in runs for e, _ in r["curve"]})
    for method, runs in results.items():
        xs, means = mean_curve(runs, grid)
        ax.plot(xs, means, marker="o", ms=3, label=method)
    ax.set_xlabel("training episodes")
    ax.set_ylabel("held-out success")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    """Run a suite for every method and seed; print the runs, the summary, save the PNG."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=sorted(SUITES), default="sac")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--budget", type=int, default=3000, help="most training episodes")
    parser.add_argument("--eval-every", type=int, default=128, help="training episodes")
    parser.add_argument("--eval-episodes", type=int, default=64)
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--methods", help="comma-separated subset of the suite's methods")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once (each 1 thread)")
    parser.add_argument("--png", default="offpolicy_vs_onpolicy.png")
    args = parser.parse_args()

    import torch

    from turngym.sdk.models import build_tiny_model

    if args.jobs > 1:
        args.threads = 1  # the jobs share the cores
    if args.threads:
        torch.set_num_threads(args.threads)
    suite = SUITES[args.suite]
    methods = list(suite["methods"])
    if args.methods:
        methods = [m for m in args.methods.split(",") if m in suite["methods"]]
    results: dict[str, list[dict[str, Any]]] = {m: [] for m in methods}
    runs = [(method, seed) for seed in range(args.seeds) for method in methods]
    with tempfile.TemporaryDirectory() as tmp:
        model = str(build_tiny_model(Path(tmp) / "tiny", logit_std=0.3))
        # spawn: a forked child would inherit torch's thread pool in an unknown state
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=context) as pool:
            futures = {pool.submit(run, args.suite, m, model, s, args): (m, s) for m, s in runs}
            for future in concurrent.futures.as_completed(futures):
                method, seed = futures[future]
                result = future.result()
                results[method].append(result)
                line = dict(result)  # the curve too: [[episodes, success], ...]
                print(json.dumps({"bench": "offpolicy_vs_onpolicy", "suite": args.suite,
                                  "method": method, "seed": seed, **line}), flush=True)  # fmt: skip
    budget = args.budget + 1  # runs that never reached the threshold count as beyond it
    medians = {
        m: statistics.median(r["episodes_to_threshold"] or budget for r in runs)
        for m, runs in results.items()
    }
    # The area under the mean curve (mean success over the evaluation points) still
    # ranks methods when several never reach the threshold and their medians tie.
    # Over the same points for every method: one that stopped early carries its last
    # success forward.
    grid = sorted({e for runs in results.values() for r in runs for e, _ in r["curve"]})
    area = {m: round(statistics.mean(mean_curve(runs, grid)[1]), 3) for m, runs in results.items()}
    order = [m for m in suite["ordering"] if m in medians]
    pairs = list(itertools.pairwise(order))
    holds = all(medians[a] < medians[b] for a, b in pairs) if pairs else None
    holds_by_area = all(area[a] > area[b] for a, b in pairs) if pairs else None
    plot(results, Path(args.png), f"{args.suite}: held-out success (mean of {args.seeds} seeds)")
    print(
        json.dumps(
            {
                "bench": "offpolicy_vs_onpolicy",
                "suite": args.suite,
                "summary": True,
                "median_episodes_to_threshold": medians,
                "reached": {
                    m: sum(r["episodes_to_threshold"] is not None for r in runs)
                    for m, runs in results.items()
                },
                "expected_ordering": " < ".join(order),
                "ordering_holds": holds,
                "mean_success_over_curve": area,
                "ordering_holds_by_mean_success": holds_by_area,
                "threshold": args.threshold,
                "budget": args.budget,
                "png": args.png,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
