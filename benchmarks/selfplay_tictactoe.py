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
With ``--sft-episodes N`` the model first imitates N games of a minimax demonstrator
(``SFTTrainer``, ``--sft-epochs`` passes): it breaks ties between equally good cells in
a fixed order (``--tie-break fixed``: one target move a position) and plays, on both
seats, against each of ``--demo-opponents`` (the random-tie-break expert, a random
player, an expert that plays ``--demo-epsilon`` random moves), so the demonstrations
show the positions weak and strong opponents lead to; only the demonstrator's moves
are imitated. ``--dagger-rounds R`` then rolls the model out (sampled, vs random, the
expert and itself) ``--dagger-games`` games a round, relabels every position it
reached with the demonstrator's move and trains ``--dagger-epochs`` more passes over
all the sequences (DAgger). Self-play starts from that model: the "after-sft"
evaluation is the SFT-only figure, beside the after-RL one, so the RL gain shows, and
``--eval-every`` evaluates (sampled policy) during RL. The time budget ``--minutes``
covers the demonstrations, SFT, DAgger and RL (evaluations are not counted); the
summary adds the process CPU time and the load average.
One JSON line per evaluation and one summary line (targets: non-loss vs random >= 0.85
and vs the expert >= 0.5 after <= 20 minutes on a 2-core CPU).

    .venv/bin/python benchmarks/selfplay_tictactoe.py --minutes 15
    .venv/bin/python benchmarks/selfplay_tictactoe.py --minutes 20 --sft-episodes 1000 \
        --sft-epochs 3 --eval-every 50 --threads 1
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import tempfile
import time
from typing import Any


def _line(**fields: Any) -> None:
    print(json.dumps({"bench": "selfplay_tictactoe", **fields}), flush=True)


def evaluate(
    trainer: Any, label: str, episodes: int, greedy: tuple[bool, ...] = (False, True)
) -> dict[str, float]:
    """Non-loss and win rates vs random and vs the expert, sampled and/or greedy."""
    out: dict[str, float] = {}
    config = trainer.config
    saved = (config.eval_opponent, config.eval_greedy)
    try:
        for opponent in ("random", "expert"):
            for is_greedy in greedy:
                config.eval_opponent, config.eval_greedy = opponent, is_greedy
                result = trainer.evaluate(episodes)
                mode = "greedy" if is_greedy else "sampled"
                _line(when=label, opponent=opponent, policy=mode, **result, episodes=episodes)
                out[f"{opponent}_{mode}_nonloss"] = result["nonloss"]
                out[f"{opponent}_{mode}_win"] = result["success"]
    finally:
        config.eval_opponent, config.eval_greedy = saved
    return out


_PREFERENCE = (4, 0, 2, 6, 8, 1, 3, 5, 7)
"""The fixed tie-break among equally good cells: the centre, the corners, the edges."""


class DemoPlayer:
    """Minimax play for demonstrations, or a noisy version of it for an opponent.

    ``tie_break="fixed"`` picks the first best cell in ``_PREFERENCE`` order, so a
    position has ONE target move (the env's expert breaks ties at random, which leaves
    a tiny model a many-valued target); ``epsilon`` plays a random legal cell instead
    with that probability (an opponent that blunders like a weak player).
    """

    def __init__(self, env: Any, tie_break: str = "random", epsilon: float = 0.0) -> None:
        from turngym.agents.base import game_of
        from turngym.envs.games.tictactoe import TicTacToe

        self.game = game_of(env, TicTacToe, "DemoPlayer")
        self.tie_break, self.epsilon = tie_break, epsilon
        self.reset(None)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the tie-break and blunder RNG."""
        import numpy as np

        self._rng = np.random.default_rng(seed)

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """A best cell (or, with probability ``epsilon``, a random legal one)."""
        from turngym.agents.experts.tictactoe import move_values
        from turngym.envs.games.tictactoe import CELLS

        values = move_values(tuple(self.game.board), self.game.current + 1)
        cells = sorted(values)
        if self.epsilon and self._rng.random() < self.epsilon:
            return CELLS[cells[int(self._rng.integers(len(cells)))]]
        best = [k for k in cells if values[k] == max(values.values())]
        if self.tie_break == "fixed":
            return CELLS[min(best, key=_PREFERENCE.index)]
        return CELLS[best[int(self._rng.integers(len(best)))]]

    def act_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[str]:
        """Act on each observation in turn."""
        return [self.act(o, i) for o, i in zip(obs, infos, strict=True)]


def demo_episodes(args: argparse.Namespace) -> list[Any]:
    """Games of the demonstrator against each of ``--demo-opponents`` on both seats.

    Only the demonstrator's turns are kept: each seat's observations already say what
    the other seat played, and the opponent's moves are not to be imitated.
    """
    from turngym.sdk.rollout import GameCollector

    opponents = {
        "expert": lambda env: DemoPlayer(env, "random"),
        "random": "random",
        "noisy": lambda env: DemoPlayer(env, "random", args.demo_epsilon),
    }
    names = args.demo_opponents.split(",")
    unknown = sorted(set(names) - set(opponents))
    if unknown:
        raise SystemExit(f"--demo-opponents: unknown {unknown}; allowed: {sorted(opponents)}")
    per = max(1, args.sft_episodes // (2 * len(names)))
    episodes: list[Any] = []
    seed = 100_000 * args.seed  # demonstrations of different runs differ
    for name in names:
        for seat in ("player_0", "player_1"):
            other = "player_1" if seat == "player_0" else "player_0"
            agents = {
                seat: lambda env: DemoPlayer(env, args.tie_break),
                other: opponents[name],
            }
            collector = GameCollector("turngym/TicTacToe-v0", agents, progress=False)
            for ep in collector.collect(per, seed=seed):
                ep.turns = [t for t in ep.turns if t.agent == seat]
                ep.meta["demo"] = {"seat": seat, "opponent": name}
                episodes.append(ep)
            collector.close()
            seed += per
    return episodes


def model_dir(args: argparse.Namespace, run_dir: str) -> str:
    """The starting model: the trainers' ``tiny`` or a wider/deeper one of its family."""
    if (args.hidden, args.layers) == (64, 2):
        return "tiny"
    from turngym.sdk.models import build_tiny_model

    # The same family and near-uniform start as the trainers' "tiny" (logit_std 0.3).
    path = build_tiny_model(
        f"{run_dir}/base-model",
        hidden=args.hidden,
        layers=args.layers,
        heads=args.hidden // 16,
        seed=args.seed,
        logit_std=0.3,
    )
    return str(path)


def expert_label(text: str) -> str:
    """The demonstrator's move for the position a TicTacToe observation shows.

    The board and the mark to play are read from the text (``You are X``, the three
    grid rows), so any recorded turn can be relabelled without its game.
    """
    from turngym.agents.experts.tictactoe import move_values
    from turngym.envs.games.tictactoe import CELLS

    mark = 1 if "You are X" in text else 2
    rows = [line.split()[1:] for line in text.splitlines() if line[:3] in ("1  ", "2  ", "3  ")]
    board = tuple({".": 0, "X": 1, "O": 2}[c] for row in rows[-3:] for c in row)
    values = move_values(board, mark)
    best = [k for k in sorted(values) if values[k] == max(values.values())]
    return CELLS[min(best, key=_PREFERENCE.index)]


def dagger_episodes(trainer: Any, games: int, seed: int) -> list[Any]:
    """Games of the current model (sampled) vs random, the expert and itself, relabelled.

    Every model turn keeps the position the model reached and gets the demonstrator's
    move as its action (DAgger): the positions the model's own play leads to, with the
    move it should have made there.
    """
    from turngym.sdk.agents.llm import LLMAgent
    from turngym.sdk.policy import SamplingParams
    from turngym.sdk.rollout import GameCollector

    model = LLMAgent(
        trainer.policy,
        constrained=True,
        sampling=SamplingParams(temperature=1.0, max_new_tokens=8, seed=seed),
    )
    setups: list[tuple[dict[str, Any], set[str]]] = []
    for opponent in ("random", "expert"):
        setups.append(({"player_0": model, "player_1": opponent}, {"player_0"}))
        setups.append(({"player_0": opponent, "player_1": model}, {"player_1"}))
    setups.append(({"player_0": model, "player_1": model}, {"player_0", "player_1"}))
    per = max(1, games // len(setups))
    episodes: list[Any] = []
    for k, (agents, learners) in enumerate(setups):
        collector = GameCollector("turngym/TicTacToe-v0", agents, num_games=16, progress=False)
        for ep in collector.collect(per, seed=seed + k * per):
            ep.turns = [
                dataclasses.replace(
                    t, action=expert_label(t.obs["text"] if isinstance(t.obs, dict) else t.obs)
                )
                for t in ep.turns
                if t.agent in learners and not t.info.get("invalid_action")
            ]
            episodes.append(ep)
        collector.close()
    return episodes


def sft_warm_start(
    args: argparse.Namespace, run_dir: str, model: str, deadline: float
) -> tuple[str, dict[str, Any]]:
    """Imitate the demonstrator's games, then DAgger rounds; the model's directory."""
    from turngym.sdk.episode_files import save_episodes
    from turngym.sdk.trainers.sft import SFTConfig, SFTTrainer

    start = time.perf_counter()
    demos = f"{run_dir}/demos-mix.jsonl"
    save_episodes(demo_episodes(args), demos)
    trainer = SFTTrainer(
        SFTConfig(
            env="turngym/TicTacToe-v0",
            model=model,
            output_dir=f"{run_dir}/sft",
            demos=demos,
            epochs=args.sft_epochs,
            batch_size=args.sft_batch_size,
            micro_batch_size=args.sft_batch_size,
            lr=args.sft_lr,
            lr_schedule="linear",
            save_every=0,
            seed=args.seed,
            progress=False,
            tensorboard=False,
            log_every=0,
        )
    )
    total, cut = 0, False
    for round_ in range(args.dagger_rounds + 1):
        if cut:
            break
        if round_:
            # The aggregated set: every earlier sequence plus this round's relabelled ones.
            new = dagger_episodes(
                trainer, args.dagger_games, seed=100_000 * args.seed + 50_000 + 10_000 * round_
            )
            trainer.sequences += trainer.training_sequences(new)
            epochs = args.dagger_epochs
        else:
            epochs = args.sft_epochs
        trainer.steps_per_epoch = math.ceil(len(trainer.sequences) / args.sft_batch_size)
        steps = epochs * trainer.steps_per_epoch
        trainer.config = dataclasses.replace(trainer.config, steps=steps)  # the lr schedule
        for step in range(steps):
            if time.perf_counter() > deadline:  # the budget covers SFT too
                cut = True
                break
            row = trainer.train_step(step)
            trainer.step = total = total + 1
            if (step + 1) % 50 == 0 or step + 1 == steps:
                minutes = round((time.perf_counter() - start) / 60, 2)
                _line(phase="sft", round=round_, minutes=minutes, **row)
    final = trainer.save_final()
    trainer.close()
    return str(final), {
        "sft_episodes": args.sft_episodes,
        "sft_epochs": args.sft_epochs,
        "demo_opponents": args.demo_opponents,
        "tie_break": args.tie_break,
        "dagger_rounds": args.dagger_rounds,
        "dagger_games": args.dagger_games,
        "sft_sequences": len(trainer.sequences),
        "sft_steps": total,
        "sft_cut_by_budget": cut,
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
        help="RL learning rate (default: 2e-3 from scratch, 1e-5 after SFT: 1e-4 and more "
        "undid the SFT model's draws)",
    )
    parser.add_argument("--minibatches", type=int, default=2, help="optimiser steps per batch")
    parser.add_argument(
        "--entropy-coef", type=float, help="entropy bonus (default: 0.02 from scratch, 0 after SFT)"
    )
    parser.add_argument("--pool-size", type=int, default=4, help="past checkpoints as opponents")
    parser.add_argument(
        "--pool-every", type=int, default=10, help="add the weights to the pool every N steps"
    )
    parser.add_argument("--pool-prob", type=float, default=0.5, help="share of games vs the pool")
    parser.add_argument(
        "--pool-initial",
        action="store_true",
        help="the pool starts with the starting (SFT) weights; with --pool-every larger than "
        "the run, the learner plays the frozen SFT model",
    )
    parser.add_argument(
        "--beta", type=float, default=0.0, help="KL to the starting (SFT) model, GRPOConfig.beta"
    )
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
    parser.add_argument(
        "--demo-opponents",
        default="expert,random,noisy",
        help="comma list: whom the demonstrator plays, on both seats, in equal shares "
        "(expert: minimax, ties at random; random; noisy: the expert with --demo-epsilon "
        "random moves); only the demonstrator's moves are imitated",
    )
    parser.add_argument(
        "--demo-epsilon", type=float, default=0.5, help="random-move rate of 'noisy'"
    )
    parser.add_argument(
        "--tie-break",
        choices=("fixed", "random"),
        default="fixed",
        help="the demonstrator's choice among equally good cells",
    )
    parser.add_argument(
        "--dagger-rounds", type=int, default=0, help="DAgger rounds after the first SFT"
    )
    parser.add_argument(
        "--dagger-games", type=int, default=500, help="model games relabelled a round"
    )
    parser.add_argument(
        "--dagger-epochs", type=int, default=1, help="passes over the aggregate a round"
    )
    parser.add_argument("--hidden", type=int, default=64, help="model width (tiny: 64)")
    parser.add_argument("--layers", type=int, default=2, help="model depth (tiny: 2)")
    parser.add_argument(
        "--eval-every", type=int, default=0, help="RL: evaluate every N steps (0: never)"
    )
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
    cpu_started = time.process_time()
    model = model_dir(args, run_dir)
    model, sft = (
        sft_warm_start(args, run_dir, model, started + args.minutes * 60)
        if args.sft_episodes
        else (model, {})
    )
    config = GRPOConfig(
        env="turngym/TicTacToe-v0",
        model=model,
        output_dir=run_dir,
        steps=max(1, args.steps),  # 0: SFT only (GRPOTrainer still evaluates)
        groups=max(1, args.games // group_size),
        group_size=group_size,
        advantage=args.advantage,
        lr=(1e-5 if sft else 2e-3) if args.lr is None else args.lr,
        minibatches=args.minibatches,
        entropy_coef=(0.0 if sft else 0.02) if args.entropy_coef is None else args.entropy_coef,
        pool_size=args.pool_size,
        beta=args.beta,
        pool_every=args.pool_every,
        pool_prob=args.pool_prob,
        pool_initial=args.pool_initial,
        eval_every=0,
        save_every=0,
        seed=args.seed,
        progress=False,
        tensorboard=False,
        log_every=0,
    )
    trainer = GRPOTrainer(config)
    setup = time.perf_counter() - started  # demonstrations, SFT and the model load
    cpu = time.process_time() - cpu_started
    before = evaluate(trainer, "after-sft" if sft else "before", args.eval_episodes)
    start = time.perf_counter()
    cpu_started = time.process_time()
    step = updated = 0
    while step < args.steps and time.perf_counter() - start + setup < args.minutes * 60:
        row = trainer.train_step(step)
        step += 1
        updated += row["sequences"] > 0
        trainer.step = step
        if step % 25 == 0:
            minutes = round((time.perf_counter() - start) / 60, 2)
            _line(minutes=minutes, steps_with_update=updated, **row)
        if args.eval_every and step % args.eval_every == 0:
            paused, cpu_paused = time.perf_counter(), time.process_time()
            evaluate(trainer, f"step-{step}", args.eval_episodes, (False,))
            # Evaluations are not counted in the budget.
            start += time.perf_counter() - paused
            cpu_started += time.process_time() - cpu_paused
    minutes = (time.perf_counter() - start) / 60
    cpu += time.process_time() - cpu_started
    after = evaluate(trainer, "after", args.eval_episodes) if step else before
    trainer.save_final()
    _line(
        summary=True,
        advantage=args.advantage,
        group_size=group_size,
        **sft,
        steps=step,
        steps_with_update=updated,
        rl={
            "lr": config.lr,
            "entropy_coef": config.entropy_coef,
            "beta": config.beta,
            "pool": [config.pool_size, config.pool_every, config.pool_prob, config.pool_initial],
        },
        train_minutes=round(minutes, 2),
        total_minutes=round(minutes + setup / 60, 2),
        cpu_minutes=round(cpu / 60, 2),
        load_average=[round(x, 2) for x in os.getloadavg()],
        model={"hidden": args.hidden, "layers": args.layers},
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
