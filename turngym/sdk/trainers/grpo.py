"""Multi-turn GRPO: collect -> advantages -> loss -> update -> log -> checkpoint.

One step of ``GRPOTrainer.train``:

1. **collect**: ``groups`` tasks x ``group_size`` episodes with the current policy (an
   ``LLMAgent`` over an ``HFPolicy`` that shares the trained model), seeded by the step
   so a run replays exactly. In a PettingZoo game every seat is the learner (self-play),
   or, with an opponent pool, some games put a frozen past checkpoint on one seat.
   Every env's wrappers are first told the step (``set_training_step``, e.g. a
   ``horizon_curriculum`` in ``wrappers``); evaluation envs get it too.
2. **advantages**: ``grpo`` (StarPO / Dr. GRPO), ``gigpo``, ``turn_level`` (MT-GRPO),
   ``rae`` (SPIRAL, per (game, seat) baselines) or ``per_agent_norm`` (MARS), from
   ``turngym.sdk.advantages``; zero-advantage groups are dropped and StarPO-S keeps the
   groups whose returns vary most. An overlong episode (``info["overlong"]``: a context
   wrapper ran out of room) is masked whole and left out of every baseline (SUPO). In
   games every estimator scores a turn by the return of the seat that took it (the sum
   over seats of a zero-sum game is always 0).
3. **loss**: the token-level clipped ratio of ``turngym.sdk.losses.policy_loss`` over
   training sequences (``packed()`` for append-only conversations, one per turn when a
   wrapper rebuilt the context), action tokens only; guided-choice turns renormalise
   over the tokens that were allowed.
   Rollouts sampled by another engine (``rollout="vllm"`` or a server) are corrected
   for the engines' log-prob mismatch by truncated importance sampling (``tis_cap``).
4. **update**: ``epochs`` passes of ``minibatches`` optimiser steps each, gradient
   accumulation over micro-batches, gradient clipping; LoRA via peft optional. Then the
   rollout engine, if any, gets the new weights (``turngym.sdk.trainers.engines``).
5. **log**: a JSONL row (and TensorBoard) per step, held-out evaluation every
   ``eval_every`` steps on seeds no training episode uses.
6. **checkpoint**: weights, optimiser, RAE baselines, opponent pool and step, written
   atomically; ``resume=True`` continues exactly where the last one stopped.

At the end: ``final/`` (a merged model + tokenizer that ``hf:DIR`` agents load) and
``curve.png``.

Under ``torchrun`` the processes split each step's groups and minibatches and train one
model with DDP (``turngym.sdk.trainers.parallel``).
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from turngym.extras import require_installed
from turngym.hf_compat import quiet
from turngym.sdk import advantages as adv_fns
from turngym.sdk.batches import (
    TrainSequence,
    select_groups,
    training_sequences,
    without_overlong,
)
from turngym.sdk.losses import policy_loss, truncated_is_weights
from turngym.sdk.records import Episode
from turngym.sdk.trainers.checkpoints import open_run_dir, save_checkpoint
from turngym.sdk.trainers.engines import make_rollout_engine
from turngym.sdk.trainers.envs import env_id_of, make_game_env, make_text_env
from turngym.sdk.trainers.grpo_config import ADVANTAGES, GRPOConfig
from turngym.sdk.trainers.learner import (
    default_lr,
    load_policy,
    make_optimizer,
    resolve_model,
    restore_weights,
    save_final_model,
    scheduled_lr,
)
from turngym.sdk.trainers.loop import run_training
from turngym.sdk.trainers.parallel import DataParallel
from turngym.sdk.trainers.run_files import record_eval_episodes
from turngym.sdk.trainers.sequences import pad_values, stack_rows, token_logprobs
from turngym.wrappers.specs import WRAPPERS

if TYPE_CHECKING:
    import torch

__all__ = ["ADVANTAGES", "WRAPPERS", "GRPOConfig", "GRPOTrainer"]


class GRPOTrainer:
    """Trains a causal LM with multi-turn GRPO on a turngym env or game.

    Args:
        config: the run's ``GRPOConfig``.
        env_fn: builds a single-agent env (a custom one, unregistered); ``config.env``
            is then only its name in records and logs.

    Example:
        >>> trainer = GRPOTrainer(GRPOConfig(env="Bandit-v0", steps=20))  # doctest: +SKIP
        >>> summary = trainer.train()  # doctest: +SKIP
        >>> summary["eval_after"]["success"]  # doctest: +SKIP

    """

    label: ClassVar[str] = "GRPO"
    curve_panels: ClassVar[Sequence[Sequence[str]]] = (
        ("reward", "success", "eval_success"),
        ("loss", "clip_fraction"),
    )
    line_keys: ClassVar[Sequence[str]] = ("reward", "success", "loss", "eval_success")

    def __init__(self, config: GRPOConfig, env_fn: Callable[[], Any] | None = None) -> None:
        require_installed("llm", "GRPOTrainer", ("torch", "transformers", "safetensors", "peft"))
        self.config = c = config
        self.env_fn = env_fn
        self.run_dir = open_run_dir(c.output_dir, c.resume)  # before any slow work
        self.env_id, self.is_game = env_id_of(c.env, env_fn, games=True, trainer="GRPO")
        if c.advantage == "rae" and not self.is_game:
            raise ValueError("advantage='rae' is for games (per-seat baselines); use grpo")
        self._make_env().close()  # bad env_kwargs or wrapper options fail here, early
        self.dp = DataParallel.start()
        self.is_main = self.dp is None or self.dp.is_main
        # "tiny" builds the model into the run dir: process 0 writes it, the rest read it.
        build = partial(resolve_model, c.model, self.run_dir, seed=c.seed)
        self.model_dir = self.dp.main_first(build) if self.dp is not None else build()
        self.lr = default_lr(c.lr, c.model, c.lora_rank, tiny=1e-3, lora=1e-4, full=1e-6)
        self.fsdp = self.dp is not None and c.data_parallel == "fsdp"
        self.collective_save = self.fsdp  # run_training: every process calls save()
        if self.fsdp:
            _check_fsdp(c)
        device = self.dp.device(c.device) if self.dp is not None else c.device
        model, self.policy = load_policy(self.model_dir, device, c.dtype, c.lora_rank, c.lora_alpha)
        self.model = model
        self.tokenizer = self.policy.tokenizer
        self.device = self.policy.device
        self.ref_model = None
        if c.beta > 0 and not c.lora_rank:
            self.ref_model = copy.deepcopy(model).eval().requires_grad_(False)
        if self.fsdp:
            assert self.dp is not None
            self.dp.shard(model)
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = make_optimizer(params, self.lr, weight_decay=c.weight_decay, foreach=True)
        self.ddp = self.dp.wrap(model) if self.dp is not None and not self.fsdp else None
        self.engine = make_rollout_engine(c.rollout, self.model_dir, c.rollout_options)
        if self.engine is not None and self.engine.spec != "vllm":
            # A server serves whatever it loaded: it starts from the learner's weights.
            self._sync()
        rollout_policy = self.engine.policy if self.engine is not None else None
        self.agent = self._agent(c.temperature, c.top_p, rollout_policy)
        self.rae = adv_fns.RAEBaseline(decay=c.rae_decay)
        self.pool: list[dict[str, torch.Tensor]] = []
        if c.pool_initial and self.is_game:  # a resumed run's pool replaces it on load
            self.pool = [self._snapshot()]
        self.step = 0
        self._collectors: dict[str, Any] = {}
        self._eval_agents: dict[str, Any] = {}
        self._opponent: Any = None
        self._seat_names: list[str] | None = None

    # -- one step ------------------------------------------------------------------

    def train_step(self, step: int) -> dict[str, Any]:
        """One step; the step's metrics row (``run_training`` logs it, evaluates, saves).

        The sections below follow its order: collect, advantages and sequences, the
        log-probs, the update (loss and optimiser steps), the rollout engine's weights.
        """
        t0 = time.perf_counter()
        episodes = self.collect(step)
        t1 = time.perf_counter()
        advantages = self.advantages(episodes)
        seqs = self.sequences(episodes, advantages)
        metrics = self.update(seqs, step)
        t2 = time.perf_counter()
        if self.engine is not None:
            metrics["sync_s"] = round(self._sync(), 3)
        if self.is_game and self.config.pool_size and (step + 1) % self.config.pool_every == 0:
            self.pool = [*self.pool, self._snapshot()][-self.config.pool_size :]
        rewards = [sum(float(t.reward) for t in ep.turns if t.trainable) for ep in episodes]
        return {
            "step": step + 1,
            "reward": sum(rewards) / len(rewards),
            "success": sum(ep.success for ep in episodes) / len(episodes),
            "turns": sum(ep.length for ep in episodes) / len(episodes),
            "sequences": len(seqs),
            "collect_s": round(t1 - t0, 3),
            "update_s": round(t2 - t1, 3),
            **metrics,
        }

    # -- agents and collection -----------------------------------------------------

    def _agent(self, temperature: float, top_p: float = 1.0, policy: Any = None) -> Any:
        from turngym.sdk.agents.llm import LLMAgent
        from turngym.sdk.policy import SamplingParams

        return LLMAgent(
            policy or self.policy,
            system_prompt=self.config.system_prompt,
            sampling=SamplingParams(
                temperature=temperature,
                top_p=top_p if temperature > 0 else 1.0,
                max_new_tokens=self.config.max_new_tokens,
                seed=0,
            ),
            constrained=self.config.constrained,
        )

    def _make_env(self) -> Any:
        """An env, or a game with the game twins of the wrappers (every seat plays through)."""
        c = self.config
        # Before the model is loaded (the early check of the options) there is no
        # tokenizer yet; every env that plays counts tokens as the policy does.
        tokenizer = getattr(self, "tokenizer", None)
        if self.is_game:
            return make_game_env(self.env_id, c.env_kwargs, c.wrappers, tokenizer, c.system_prompt)
        return make_text_env(
            self.env_id,
            c.env_kwargs,
            c.wrappers,
            env_fn=self.env_fn,
            tokenizer=tokenizer,
            system_prompt=c.system_prompt,
        )

    def _collector(self, key: str, agents: Any, n: int, step: int) -> Any:
        """A collector kept across steps (envs are made once).

        Every call tells the envs' wrappers the training ``step`` (the training-step
        protocol, ``turngym.wrappers.training_step``: ``HorizonCurriculum``...).
        """
        from turngym.sdk.rollout import Collector, GameCollector

        if key not in self._collectors:
            if self.is_game:
                games = [self._make_env() for _ in range(n)]
                self._collectors[key] = GameCollector(
                    games, agents, max_turns=self.config.max_turns, progress=False
                )
            else:
                envs = [self._make_env() for _ in range(n)]
                self._collectors[key] = Collector(
                    envs, agents, max_turns=self.config.max_turns, progress=False
                )
        self._collectors[key].set_training_step(step)
        return self._collectors[key]

    def collect(self, step: int) -> list[Episode]:
        """The step's training episodes (seeds ``seed + step * groups + g``)."""
        episodes = self._collect(step)
        for ep in episodes:  # the registered id, whatever the envs were built from
            ep.env_id = self.env_id
        return episodes

    def _collect(self, step: int) -> list[Episode]:
        c = self.config
        self.agent.policy_version = step
        first = c.seed * 7919 % 100_000 + step * c.groups
        # Under torchrun each process plays its own block of the groups.
        lo, hi = self.dp.block(c.groups) if self.dp is not None else (0, c.groups)
        episodes: list[Episode] = []
        for g0, size, agents, key in self._runs(step):
            start, stop = max(g0, lo), min(g0 + size, hi)
            if start >= stop:
                continue
            n = (stop - start) * c.group_size
            part = self._collector(key, agents, min(n, 64), step).collect(
                n, seed=first + start, group_size=c.group_size
            )
            for ep in part:
                ep.group += start
                ep.index += start * c.group_size
            episodes += part
        return self.dp.gather(episodes) if self.dp is not None else episodes

    def _runs(self, step: int) -> list[tuple[int, int, Any, str]]:
        """The step's runs of groups: (first group, groups, agents, collector key)."""
        c = self.config
        if not self.is_game or not self.pool:
            return [(0, c.groups, self.agent, "train")]
        # Self-play against the pool: the first pool_prob share of the groups put a
        # frozen past checkpoint on one seat (the seats taking turns, in contiguous runs
        # so each run is one batched collection), the rest are pure self-play.
        rng = random.Random(f"{c.seed}:pool:{step}")
        opponent = self._pool_opponent(rng.randrange(len(self.pool)))
        vs_pool = round(c.pool_prob * c.groups)
        seats = self._seats()
        runs: list[tuple[int, int, Any, str]] = []
        begin = 0
        for k, seat in enumerate(seats):
            size = vs_pool // len(seats) + (k < vs_pool % len(seats))
            if size:
                agents = {s: (opponent if s == seat else self.agent) for s in seats}
                runs.append((begin, size, agents, f"pool:{seat}"))
            begin += size
        if c.groups > vs_pool:
            runs.append((vs_pool, c.groups - vs_pool, self.agent, "train"))
        return runs

    def _seats(self) -> list[str]:
        """The game's seats (read once from a fresh game)."""
        if self._seat_names is None:
            import turngym

            game = turngym.make_game(self.env_id, **self.config.env_kwargs)
            game.reset(seed=0)
            self._seat_names = list(game.possible_agents)
            game.close()
        return self._seat_names

    def _snapshot(self) -> dict[str, Any]:
        """The weights a pool keeps: only what training changes (the adapters, with LoRA)."""
        return {
            k: v.detach().cpu().clone() for k, v in self.model.named_parameters() if v.requires_grad
        }

    def _pool_opponent(self, index: int) -> Any:
        from turngym.sdk.backends.hf import HFPolicy

        if self._opponent is None:
            frozen = copy.deepcopy(self.model).eval().requires_grad_(False)
            self._opponent = self._agent(
                self.config.temperature, self.config.top_p, HFPolicy(frozen, self.tokenizer)
            )
            self._opponent.trainable = False
        self._opponent.policy.model.load_state_dict(self.pool[index], strict=False)
        return self._opponent

    # -- advantages and sequences --------------------------------------------------

    def advantages(self, episodes: Sequence[Episode]) -> list[list[float]]:
        """One advantage per turn from the configured estimator.

        An overlong episode (a context wrapper ran out of summaries or chunks) is masked
        whole, as SUPO does: it gets 0 on every turn and counts in no baseline.
        """
        return without_overlong(self._estimate, episodes)

    def _estimate(self, episodes: Sequence[Episode]) -> list[list[float]]:
        c = self.config
        if c.advantage == "grpo":
            return adv_fns.grpo(episodes, scale=c.scale)  # type: ignore[arg-type]
        if c.advantage == "reinforce":
            return adv_fns.reinforce(episodes)
        if c.advantage == "gigpo":
            return adv_fns.gigpo(
                episodes,
                gamma=c.gamma,
                weight=c.gigpo_weight,
                scale=c.scale,  # type: ignore[arg-type]
            )
        if c.advantage == "turn_level":
            return adv_fns.turn_level(episodes)
        if c.advantage == "rae":
            return self.rae.advantages(episodes)
        return adv_fns.per_agent_norm(episodes)

    def sequences(
        self, episodes: Sequence[Episode], advantages: Sequence[Sequence[float]]
    ) -> list[TrainSequence]:
        """The training sequences of the episodes worth learning from."""
        keep = select_groups(episodes, advantages, keep_fraction=self.config.keep_fraction)
        if self.config.advantage in ("rae", "per_agent_norm"):
            # Per-seat baselines: a group's episodes need not differ to teach something.
            keep = [k for k, row in enumerate(advantages) if any(a != 0 for a in row)]
        seqs = training_sequences(episodes, advantages, keep, choices=self.agent.choice_ids)
        return [s for s in seqs if any(s.loss_mask)]

    # -- log-probs -----------------------------------------------------------------

    def _token_logprobs(
        self, model: Any, batch: Sequence[TrainSequence], want_entropy: bool
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """``token_logprobs`` of ``batch`` under ``model`` at the sampling temperature."""
        return token_logprobs(model, batch, **self._logprob_options(want_entropy))

    def _logprob_options(self, want_entropy: bool) -> dict[str, Any]:
        """``token_logprobs``'s settings (an FSDP model runs whole, at its root)."""
        return {
            "pad_id": int(self.policy._pad_id),
            "temperature": self.config.temperature,
            "device": self.device,
            "want_entropy": want_entropy,
            "split": not self.fsdp,
        }

    def _old_logprobs(self, seqs: Sequence[TrainSequence], model: Any) -> list[torch.Tensor]:
        """Per-sequence log-probs under ``model`` before any update (no gradients)."""
        import torch

        out: list[torch.Tensor] = []
        mb = self.config.micro_batch_size
        with torch.no_grad(), self._autocast():
            for start in range(0, len(seqs), mb):
                chunk = seqs[start : start + mb]
                logp, _, _ = self._token_logprobs(model, chunk, want_entropy=False)
                out += [logp[r, : len(s.input_ids)].float() for r, s in enumerate(chunk)]
        return out

    def _autocast(self) -> Any:
        import contextlib

        import torch

        if self.config.mixed_precision and self.device.type == "cuda":
            return torch.autocast("cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    # -- update --------------------------------------------------------------------

    def lr_at(self, step: int) -> float:
        """The learning rate of (0-based) ``step`` under the schedule and warm-up."""
        c = self.config
        return scheduled_lr(self.lr, step, c.steps, c.lr_schedule, c.warmup_steps)

    def update(self, seqs: list[TrainSequence], step: int) -> dict[str, float]:
        """``epochs`` x ``minibatches`` optimiser steps over ``seqs``; the mean metrics."""
        c = self.config
        lr = self.lr_at(step)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        if not seqs:
            return {"loss": 0.0, "grad_norm": 0.0, "clip_fraction": 0.0, "lr": lr}
        updates = c.epochs * c.minibatches
        # Before train(): dropout in these passes would make two runs over the same
        # tokens disagree, and the ratios and KL would measure that noise.
        self.model.eval()
        old = self._old_logprobs(seqs, self.model) if updates > 1 else None
        ref = self._ref_logprobs(seqs) if c.beta > 0 else None
        self.model.train()
        # dr_grpo's divisor: Dr. GRPO's constant, the generation budget of a turn, never a
        # batch's longest answer (that would move the step size with every batch).
        max_tokens = c.max_new_tokens
        rng = random.Random(f"{c.seed}:minibatch:{step}")
        totals: dict[str, float] = {}
        count = 0
        for _ in range(c.epochs):
            order = list(range(len(seqs)))
            rng.shuffle(order)
            size = math.ceil(len(order) / c.minibatches)
            for start in range(0, len(order), size):
                mini = order[start : start + size]
                metrics = self._minibatch(seqs, mini, old, ref, max_tokens)
                for k, v in metrics.items():
                    totals[k] = totals.get(k, 0.0) + v
                count += 1
        self.model.eval()
        return {**{k: v / count for k, v in totals.items()}, "lr": lr}

    def _ref_logprobs(self, seqs: Sequence[TrainSequence]) -> list[torch.Tensor]:
        if self.ref_model is not None:
            return self._old_logprobs(seqs, self.ref_model)
        with self.model.disable_adapter():  # LoRA: the base weights are the reference
            return self._old_logprobs(seqs, self.model)

    def _minibatch(
        self,
        seqs: Sequence[TrainSequence],
        mini: list[int],
        old: list[torch.Tensor] | None,
        ref: list[torch.Tensor] | None,
        max_tokens: int,
    ) -> dict[str, float]:
        import torch

        c = self.config
        tokens = sum(sum(seqs[i].loss_mask) for i in mini)
        self.optimizer.zero_grad(set_to_none=True)
        sums = {"loss": 0.0, "clip_fraction": 0.0}
        want_entropy = c.entropy_coef > 0
        # A metric that was not computed stays out of the log (a 0.0 would read as measured).
        if c.beta > 0:
            sums["kl"] = 0.0
        if want_entropy:
            sums["entropy"] = 0.0
        # Longest first in micro-batches of similar length: little padding.
        mini = sorted(mini, key=lambda i: len(seqs[i].input_ids), reverse=True)
        world = self.dp.world if self.dp is not None else 1
        # Every world-th sequence is this process's; DDP and FSDP average, so x world.
        mine, scale = mini[self.dp.rank :: world] if self.dp is not None else mini, float(world)
        mbs = c.micro_batch_size
        chunks = [(mine[k : k + mbs], 1.0) for k in range(0, len(mine), mbs)]
        # Every process makes as many passes (each joins the gradient sum, and under FSDP
        # each gathers weights): a shorter share ends with zero-weight passes.
        most = max(1, math.ceil(math.ceil(len(mini) / world) / mbs))
        chunks += [(mini[:1], 0.0)] * (most - len(chunks))
        for k, (part, counts) in enumerate(chunks):
            last = k == len(chunks) - 1
            with self.ddp.no_sync() if self.ddp is not None and not last else nullcontext():
                batch = [seqs[i] for i in part]
                with self._autocast():
                    logp, mask, entropy = self._loss_logprobs(batch, want_entropy)
                logp = logp.float()
                width = logp.shape[1]
                old_t = logp.detach() if old is None else stack_rows([old[i] for i in part], width)
                ref_t = None if ref is None else stack_rows([ref[i] for i in part], width)
                adv = pad_values([s.advantages for s in batch], self.device)
                is_w = self._tis_weights(batch, old_t, mask) if c.tis > 0 else None
                loss, metrics = policy_loss(
                    logp,
                    old_t,
                    adv,
                    mask,
                    clip_low=c.clip_low,
                    clip_high=c.clip_high,
                    aggregation=c.aggregation,  # type: ignore[arg-type]
                    ref_logprobs=ref_t,
                    beta=c.beta,
                    entropy=entropy,
                    entropy_coef=c.entropy_coef,
                    max_tokens=max_tokens,
                    is_weights=is_w,
                )
                # Each micro-batch's mean, weighted so the sum is the minibatch's mean.
                share = (
                    float(mask.sum()) / max(tokens, 1)
                    if c.aggregation == "token_mean"
                    else len(part) / len(mini)
                ) * counts
                (loss * (share * scale)).backward()
            sums["loss"] += float(loss.detach()) * share
            sums["clip_fraction"] += metrics["clip_fraction"] * share
            if c.beta > 0:
                sums["kl"] += metrics["kl"] * share
            per_token = counts / max(tokens, 1)
            if want_entropy and entropy is not None:
                sums["entropy"] += float((entropy.detach() * mask).sum()) * per_token
            if is_w is not None:
                sums["tis_weight"] = (
                    sums.get("tis_weight", 0.0) + float((is_w * mask).sum()) * per_token
                )
        if self.dp is not None:  # the whole minibatch's metrics
            sums = self.dp.sum(sums)
        params = [p for p in self.model.parameters() if p.requires_grad]
        norm = torch.nn.utils.clip_grad_norm_(
            params, c.max_grad_norm if c.max_grad_norm > 0 else float("inf")
        )
        self.optimizer.step()
        # FSDP: the norm of sharded gradients is itself sharded (a DTensor).
        sums["grad_norm"] = float(norm.full_tensor() if hasattr(norm, "full_tensor") else norm)
        return sums

    def _loss_logprobs(
        self, batch: Sequence[TrainSequence], want_entropy: bool
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """The training forward: through DDP under torchrun (it syncs the gradients)."""
        if self.ddp is None:
            return self._token_logprobs(self.model, batch, want_entropy)
        return self.ddp(batch, self._logprob_options(want_entropy))

    def _sync(self) -> float:
        """Send the new weights to the rollout engine; the seconds it took.

        Under torchrun each process's vLLM engine gets them; a shared server gets them
        once, from process 0, before any process samples again.
        """
        assert self.engine is not None
        every = self.dp is None or self.engine.spec == "vllm"
        state = None
        if self.fsdp:  # gathered by all; on process 0 only unless every engine needs it
            assert self.dp is not None
            state = self.dp.full_state(self.model, everywhere=every)
        if every:
            return self.engine.sync(self.model, state)
        assert self.dp is not None
        seconds = self.engine.sync(self.model, state) if self.dp.is_main else 0.0
        self.dp.barrier()
        return seconds

    def _tis_weights(
        self, batch: Sequence[TrainSequence], old: torch.Tensor, mask: torch.Tensor
    ) -> torch.Tensor:
        """Truncated-IS weights from the sampled tokens' behaviour log-probs.

        A sequence whose engine reported no log-probs is taken as on-policy (weight 1).
        """
        import torch

        rows = [
            torch.tensor(s.old_logprobs, dtype=old.dtype, device=old.device)
            if len(s.old_logprobs) == len(s.input_ids)
            else old[r, : len(s.input_ids)].detach()
            for r, s in enumerate(batch)
        ]
        return truncated_is_weights(old, stack_rows(rows, old.shape[1]), mask, self.config.tis)

    # -- evaluation ----------------------------------------------------------------

    def evaluate(self, episodes: int | None = None) -> dict[str, float]:
        """Success (and return) on held-out seeds; games: vs ``eval_opponent`` on each seat.

        Under torchrun process 0 evaluates and the others get its result.
        """
        if self.dp is not None:
            return self.dp.broadcast(lambda: self._evaluate(episodes))
        return self._evaluate(episodes)

    def _evaluate(self, episodes: int | None) -> dict[str, float]:
        c = self.config
        n = episodes or c.eval_episodes
        mode = "greedy" if c.eval_greedy else "sampled"
        # Collectors (and the agents they hold) are kept per evaluation setting.
        if mode not in self._eval_agents:
            # An FSDP shard cannot generate alone: process 0 evaluates through the engine.
            policy = self.engine.policy if self.fsdp and self.engine is not None else None
            self._eval_agents[mode] = self._agent(
                0.0 if c.eval_greedy else c.temperature, policy=policy
            )
        agent = self._eval_agents[mode]
        agent.policy_version = self.step
        if not self.is_game:
            eps = self._collector(f"eval:{mode}", agent, min(n, 64), self.step).collect(
                n, seed=c.eval_seed
            )
            record_eval_episodes(self, [(eps, {"mode": mode})])
            return {
                "success": sum(ep.success for ep in eps) / n,
                "return": sum(ep.returns.get("agent", 0.0) for ep in eps) / n,
            }
        seats = self._seats()
        wins = nonloss = 0.0
        total = 0
        recorded = []
        for seat in seats:
            per = max(1, n // len(seats))
            agents = {s: (agent if s == seat else c.eval_opponent) for s in seats}
            key = f"eval:{mode}:{c.eval_opponent}:{seat}"
            eps = self._collector(key, agents, min(per, 64), self.step).collect(
                per, seed=c.eval_seed
            )
            recorded.append((eps, {"mode": mode, "seat": seat, "opponent": c.eval_opponent}))
            for ep in eps:
                mine = ep.returns.get(seat, 0.0)
                best_other = max(ep.returns.get(s, 0.0) for s in seats if s != seat)
                wins += mine > best_other
                nonloss += mine >= best_other
            total += per
        record_eval_episodes(self, recorded)
        return {"success": wins / total, "nonloss": nonloss / total}

    # -- checkpoints ---------------------------------------------------------------

    def save(self) -> Path:
        """Checkpoint the run (atomically) and return its directory."""
        import torch

        model = self._writable_model()
        if model is None:  # FSDP: process 0 writes what every process gathered
            return self.run_dir

        def write(tmp: Path) -> None:
            with quiet():
                model.save_pretrained(tmp / "model")
            self.tokenizer.save_pretrained(tmp / "model")
            torch.save(
                {
                    "step": self.step,
                    # a sharded optimiser's state stays out: FSDP runs do not resume yet
                    "optimizer": None if self.fsdp else self.optimizer.state_dict(),
                    "rae": self.rae.state_dict(),
                    "pool": self.pool,
                    "config": self.config.to_dict(),
                },
                tmp / "trainer_state.pt",
            )

        return save_checkpoint(self.run_dir, self.step, write, keep=self.config.keep_checkpoints)

    def load(self, checkpoint: Path) -> None:
        """Restore weights, optimiser, baselines, pool and step from a checkpoint."""
        import torch

        state = torch.load(checkpoint / "trainer_state.pt", weights_only=False)
        restore_weights(self.model, checkpoint / "model", bool(self.config.lora_rank))
        self.optimizer.load_state_dict(state["optimizer"])
        self.rae.load_state_dict(state["rae"])
        self.pool = state["pool"]
        self.step = int(state["step"])
        if self.engine is not None:  # the engine samples with the restored weights
            self._sync()

    def save_final(self) -> Path:
        """The trained model (LoRA merged) + tokenizer in ``final/``, for ``hf:DIR``."""
        c = self.config
        target = self.run_dir / "final"
        model = self._writable_model()
        if model is None:
            return target
        return save_final_model(model, self.tokenizer, target, c)

    def _writable_model(self) -> Any:
        """The model to save: itself, or under FSDP a whole copy on process 0.

        Under FSDP every process must call this (it gathers the shards); the others get
        None.
        """
        if not self.fsdp:
            return self.model
        from transformers import AutoModelForCausalLM

        assert self.dp is not None
        state = self.dp.full_state(self.model)
        if not self.is_main:
            return None
        whole = AutoModelForCausalLM.from_config(self.model.config)
        whole.load_state_dict(state)
        return whole

    # -- the loop ------------------------------------------------------------------

    def train(self) -> dict[str, Any]:
        """Run (or resume) training; returns a summary with evaluation before and after."""
        return run_training(self)

    def close(self) -> None:
        """Close the envs the trainer made."""
        for collector in self._collectors.values():
            collector.close()
        self._collectors.clear()
        if self.engine is not None:
            self.engine.close()
        if self.dp is not None:
            self.dp.close()


def _check_fsdp(config: GRPOConfig) -> None:
    """What FSDP training does not do yet, as one-line errors."""
    unsupported = [
        (config.rollout == "hf", "rollout='hf' (a shard cannot generate): use vllm or openai:URL"),
        (config.lora_rank > 0, "LoRA"),
        (config.beta > 0, "a KL reference (beta > 0)"),
        (config.pool_size > 0, "an opponent pool"),
        (config.resume, "resume"),
    ]
    for found, what in unsupported:
        if found:
            raise ValueError(f"data_parallel='fsdp' does not support {what} yet")
