"""Supervised fine-tuning on demonstrations: demos -> token sequences -> cross-entropy.

One ``SFTTrainer`` run:

1. **demonstrations**: ``demos="expert"`` plays the env's scripted expert (in a game the
   expert takes every seat: expert self-play), ``demos="hf:DIR"`` a saved model's
   agent, both on ``episodes`` seeds from ``demo_seed`` with the run's wrappers; they
   are saved to ``demos.jsonl`` in the run directory, which a resumed run reads back.
   Any other value is a file (or directory) of ``Episode`` records, e.g. what
   ``turngym collect`` writes. With ``only_success`` only the episodes that succeeded
   are kept in a single-agent env; a game keeps every episode (a lost hand is still the
   expert's play, and keeping only the wins would teach the luck of the deal).
2. **tokens**: every turn is rebuilt as the trained model's ``LLMAgent`` would have
   seen and written it, whoever played it: prompt ids from ``LLMAgent.render`` (the
   system prompt, the chat template, its generation prompt), action ids the tokens of
   the action alone plus the end-of-turn token (exactly what guided choice decodes for
   that action, and what free decoding must write for the default parse to return
   it). ``training_sequences`` then gives the sequences the RL trainers train on:
   ``packed()`` for an append-only conversation, else one per turn (``samples()``),
   with the loss on action tokens only. Turns the env rejected
   (``info["invalid_action"]``) stay in the context but are not imitated.
3. **update**: ``epochs`` passes over the sequences, in an order shuffled by ``seed``
   for each epoch, ``batch_size`` sequences per optimiser step (gradients accumulate
   over micro-batches): the token-mean negative log-likelihood of the action tokens,
   the lr schedule and gradient clipping of the other trainers; LoRA via peft optional.
4. **evaluate / log / checkpoint** (``run_training``, as the other trainers):
   held-out success before and after (games: against ``eval_opponent`` on every seat,
   with the non-loss rate), ``metrics.jsonl``, ``curve.png``, checkpoints that resume
   exactly (the step alone fixes the epoch and the position in its shuffled order) and
   ``final/``, which ``--model`` of ``train grpo``, ``train sac-glam`` and
   ``train archer`` starts from.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from turngym.hf_compat import quiet
from turngym.sdk.batches import TrainSequence, training_sequences
from turngym.sdk.records import Episode
from turngym.sdk.trainers.checkpoints import open_run_dir, save_checkpoint
from turngym.sdk.trainers.config import RunConfig, check_config, is_int, is_number
from turngym.sdk.trainers.envs import env_id_of, make_game_env, make_text_env
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
from turngym.sdk.trainers.run_files import record_eval_episodes
from turngym.sdk.trainers.sequences import token_logprobs

if TYPE_CHECKING:
    from turngym.sdk.agents.llm import LLMAgent

__all__ = ["DEMO_FILE", "SFTConfig", "SFTTrainer", "demo_tokens"]

DEMO_FILE = "demos.jsonl"
"""Where a run keeps the live demonstrations it played (a resumed run reads them back)."""

_LIVE_DEMO_EPISODES = 64
"""Live demonstrations played when ``episodes`` is None."""


@dataclass
class SFTConfig(RunConfig):
    """Everything an SFT run needs; every field is a ``turngym train sft`` flag.

    Each evaluation (before training, every ``eval_every`` steps, after) saves
    ``eval_record_episodes`` of its episodes (games: per seat) to
    ``output_dir/episodes/eval-step-NNNNNNN.jsonl`` for ``turngym view``; the run writes
    this config to ``output_dir/config.json``.
    """

    trainer: ClassVar[str] = "sft"

    env: str = "turngym/FrozenLake-v0"
    """registered env or game id the demonstrations are of (and evaluation runs on)"""
    output_dir: str = "runs/sft"
    demos: str = "expert"
    """expert (play the env's scripted expert; games: on every seat), hf:DIR (play a saved
    model) or a file or directory of Episode records (turngym collect)"""
    episodes: int | None = field(
        default=None,
        metadata={
            "help": f"live demos: episodes to play (None: {_LIVE_DEMO_EPISODES}); "
            "files: use the first N (None: all)"
        },
    )
    demo_seed: int = 0
    """first seed of the live demonstration episodes (below eval_seed)"""
    only_success: bool = True
    """single-agent envs: keep only the episodes that succeeded (games keep every episode)"""
    epochs: int = 3
    """passes over the demonstration sequences"""
    steps: int = 0
    """optimiser steps (0: epochs x ceil(sequences / batch_size))"""
    batch_size: int = 16
    """sequences per optimiser step"""
    micro_batch_size: int = 16
    """sequences per forward (gradients accumulate over them)"""
    lr: float | None = None
    """AdamW learning rate (None: 3e-3 for tiny, 1e-4 with LoRA, else 1e-5)"""
    lr_schedule: str = "linear"
    """constant, linear (to 0 at the last step) or cosine"""
    weight_decay: float = 0.0
    """AdamW weight decay"""
    max_new_tokens: int = 32
    """evaluation: most tokens generated per action"""
    temperature: float = 1.0
    """evaluation: sampling temperature"""
    constrained: bool = True
    """evaluation (and the saved agent): decode only the env's legal actions when it lists them"""
    eval_every: int = 0
    eval_greedy: bool = True
    """evaluate the greedy policy (as hf:RUN/final agents play) instead of the sampled one"""
    eval_opponent: str = "random"
    """games: the opponent agent in evaluation (random, expert)"""
    save_every: int = 50
    seed: int = 0
    """seeds the shuffled order of every epoch and evaluation sampling"""
    log_every: int = 10

    def __post_init__(self) -> None:
        super().__post_init__()
        checks: list[tuple[str, bool, str]] = [
            (
                "demos",
                isinstance(self.demos, str) and bool(self.demos.strip()),
                "'expert', 'hf:DIR' or the path of a file of episodes",
            ),
            (
                "episodes",
                self.episodes is None or is_int(self.episodes, 1),
                "None or an int >= 1",
            ),
            ("lr", self.lr is None or (is_number(self.lr) and self.lr > 0), "None or a number > 0"),
            (
                "lr_schedule",
                self.lr_schedule in ("constant", "linear", "cosine"),
                "constant, linear or cosine",
            ),
            ("temperature", is_number(self.temperature) and self.temperature > 0, "a number > 0"),
            ("weight_decay", is_number(self.weight_decay) and self.weight_decay >= 0, ">= 0"),
            ("eval_opponent", self.eval_opponent in ("random", "expert"), "random or expert"),
            ("demo_seed", is_int(self.demo_seed, 0), "an int >= 0"),
        ]
        for name in ("epochs", "batch_size", "micro_batch_size", "max_new_tokens"):
            checks.append((name, is_int(getattr(self, name), 1), "an int >= 1"))
        check_config(self, checks)

    @property
    def live(self) -> bool:
        """Whether the demonstrations are played live (an agent name) rather than read."""
        return self.demos == "expert" or self.demos.startswith("hf:")


def demo_tokens(episode: Episode, agent: LLMAgent) -> Episode:
    """``episode`` with every turn's tokens as ``agent`` would have seen and written them.

    Prompt ids: ``agent.render`` of the turn's observation. Action ids: the action's
    tokens alone plus the tokenizer's EOS (the end-of-turn token generation stops on),
    the same ids guided choice decodes for that action (``LLMAgent.choice_ids``).
    Every turn becomes trainable except those the env rejected as invalid, which stay
    in the conversation with their loss masked. Behaviour log-probs and candidates of
    the player that made the demonstration are dropped: they belong to another policy.

    Raises:
        ValueError: an observation the agent cannot render, or a tokenizer without EOS.

    """
    tokenizer = agent.policy.tokenizer
    if tokenizer.eos_token_id is None:
        raise ValueError("the tokenizer has no eos_token_id to end an action with")
    try:
        prompts = agent.render([turn.obs for turn in episode.turns])
    except TypeError as error:
        raise ValueError(
            f"demonstration of {episode.env_id} seed {episode.seed}: {error}"
        ) from None
    turns = []
    for turn, prompt in zip(episode.turns, prompts, strict=True):
        text = turn.action.strip()
        words = tokenizer(text, add_special_tokens=False)["input_ids"] if text else []
        turns.append(
            dataclasses.replace(
                turn,
                prompt_ids=list(prompt),
                action_ids=[*map(int, words), int(tokenizer.eos_token_id)],
                action_logprobs=[],
                trainable=bool(words) and not turn.info.get("invalid_action", False),
                candidates=[],
                candidate_logprobs=[],
                constrained=False,
            )
        )
    return dataclasses.replace(episode, turns=turns)


def _load_demos(path: str) -> list[Episode]:
    """The episodes saved at ``path``: a JSONL or Parquet file, or a dataset folder.

    ``turngym collect`` writes such a folder; ``episode_files.load_episodes`` reads it.

    Raises:
        ValueError: no such file, or a row that is not an episode (file:line).

    """
    from turngym.sdk.episode_files import load_episodes

    where = Path(path).expanduser()
    if not where.exists():
        raise ValueError(
            f"demos must be 'expert', 'hf:DIR' or an episode file or directory; "
            f"{path!r} does not exist"
        )
    return load_episodes(where)


class SFTTrainer:
    """Fine-tunes a causal LM to imitate demonstrations on a turngym env or game.

    Args:
        config: the run's ``SFTConfig``.

    Example:
        >>> trainer = SFTTrainer(SFTConfig(env="FrozenLake-v0", episodes=16))  # doctest: +SKIP
        >>> summary = trainer.train()  # doctest: +SKIP
        >>> summary["eval_before"]["success"], summary["eval_after"]["success"]  # doctest: +SKIP

    """

    label: ClassVar[str] = "SFT"
    curve_panels: ClassVar[Sequence[Sequence[str]]] = (
        ("loss",),
        ("token_prob", "eval_success", "eval_nonloss"),
    )
    line_keys: ClassVar[Sequence[str]] = ("loss", "token_prob", "eval_success")
    is_main = True  # one process: it prints, logs and writes
    collective_save = False

    def __init__(self, config: SFTConfig) -> None:

        self.config = c = config
        self.env_id, self.is_game = env_id_of(c.env, None, games=True, trainer="SFT")
        self._check_demos()
        self._make_env().close()  # bad env_kwargs or wrapper options fail here, early
        self.run_dir = open_run_dir(c.output_dir, c.resume)  # before any slow work
        self.model_dir = resolve_model(c.model, self.run_dir, seed=c.seed)
        self.lr = default_lr(c.lr, c.model, c.lora_rank, tiny=3e-3, lora=1e-4, full=1e-5)
        self.model, self.policy = load_policy(
            self.model_dir, c.device, c.dtype, c.lora_rank, c.lora_alpha
        )
        self.tokenizer = self.policy.tokenizer
        self.device = self.policy.device
        params = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = make_optimizer(params, self.lr, weight_decay=c.weight_decay, foreach=True)
        self.step = 0
        self._collectors: dict[str, Any] = {}
        self._envs: list[Any] = []
        self._eval_agents: dict[str, Any] = {}
        self._seat_names: list[str] | None = None
        self.demo_stats: dict[str, Any] = {}
        self.demos = self.demonstrations()
        self.sequences = self.training_sequences(self.demos)
        if not self.sequences:
            raise ValueError(
                f"the {len(self.demos)} demonstration episodes hold no action to imitate "
                "(every turn was invalid or empty)"
            )
        self.demo_stats["sequences"] = len(self.sequences)
        self.demo_stats["action_tokens"] = sum(sum(s.loss_mask) for s in self.sequences)
        self.steps_per_epoch = math.ceil(len(self.sequences) / c.batch_size)
        # The effective config: run_training reads ``steps``, checkpoints save it.
        self.config = dataclasses.replace(c, steps=c.steps or c.epochs * self.steps_per_epoch)

    def _check_demos(self) -> None:
        """One-line errors for demonstrations that cannot be had, before any model loads."""
        from turngym.registry import entry

        demos = self.config.demos
        if demos == "expert" and entry(self.env_id).expert is None:
            raise ValueError(
                f"{self.env_id} has no scripted expert; pass demos=hf:DIR (a saved model "
                "plays the demonstrations) or an episode file or directory"
            )
        if demos.startswith("hf:") and not Path(demos[3:]).is_dir():
            raise ValueError(f"demos={demos!r}: no model directory {demos[3:]!r}")
        if demos in ("random", "human") or demos.startswith("openai:"):
            raise ValueError(
                f"demos must be 'expert', 'hf:DIR' or an episode file or directory, got {demos!r}"
            )

    def _make_env(self) -> Any:
        """An env, or a game with the game twins of the wrappers (every seat plays through)."""
        c = self.config
        # The policy's tokenizer once it is loaded: wrappers count tokens as it does.
        tokenizer = getattr(self, "tokenizer", None)
        if self.is_game:
            return make_game_env(self.env_id, c.env_kwargs, c.wrappers, tokenizer, c.system_prompt)
        return make_text_env(
            self.env_id,
            c.env_kwargs,
            c.wrappers,
            tokenizer=tokenizer,
            system_prompt=c.system_prompt,
        )

    def _agent(self, temperature: float) -> Any:
        """An ``LLMAgent`` over the trained model, prompted as every turngym trainer prompts."""
        from turngym.sdk.agents.llm import LLMAgent
        from turngym.sdk.policy import SamplingParams

        c = self.config
        return LLMAgent(
            self.policy,
            system_prompt=c.system_prompt,
            sampling=SamplingParams(
                temperature=temperature, max_new_tokens=c.max_new_tokens, seed=0
            ),
            constrained=c.constrained,
        )

    # -- demonstrations ----------------------------------------------------------------

    def demonstrations(self) -> list[Episode]:
        """The episodes to imitate: played live or read, then filtered by success."""
        from turngym.sdk.episode_files import load_episodes, save_episodes
        from turngym.sdk.trainers.checkpoints import latest_checkpoint

        c = self.config
        saved = self.run_dir / DEMO_FILE
        if not c.live:
            episodes = _load_demos(c.demos)
            if c.episodes is not None:
                episodes = episodes[: c.episodes]
            if not episodes:
                raise ValueError(f"demos {c.demos!r} holds no episodes")
            full = [ep.env_id if "/" in ep.env_id else f"turngym/{ep.env_id}" for ep in episodes]
            others = sorted(set(full) - {self.env_id})
            if others:
                raise ValueError(
                    f"demos {c.demos!r} holds episodes of {others}, not of {self.env_id}"
                )
        elif c.resume and saved.is_file() and latest_checkpoint(self.run_dir) is not None:
            episodes = load_episodes(saved)  # what the interrupted run trained on
        else:
            episodes = self._play_demos()
            save_episodes(episodes, saved)  # screenshots as PNG files beside it
        successes = sum(ep.success for ep in episodes)
        kept = episodes
        if c.only_success and not self.is_game:
            kept = [ep for ep in episodes if ep.success]
            if not kept:
                raise ValueError(
                    f"none of the {len(episodes)} demonstration episodes succeeded; pass "
                    "only_success=False to imitate them anyway"
                )
        self.demo_stats = {
            "episodes": len(episodes),
            "success": successes / len(episodes),
            "kept": len(kept),
            "only_success": bool(c.only_success and not self.is_game),
        }
        if c.log_every:
            what = "kept the successful ones" if self.demo_stats["only_success"] else "kept all"
            print(
                f"demonstrations: {len(episodes)} episodes ({c.demos}), {successes} succeeded; "
                f"{what}: {len(kept)}",
                flush=True,
            )
        return kept

    def _play_demos(self) -> list[Episode]:
        """``episodes`` live demonstrations from ``demo_seed``, with the run's wrappers."""
        from turngym.sdk.rollout import Collector, GameCollector

        c = self.config
        n = c.episodes or _LIVE_DEMO_EPISODES
        envs = [self._make_env() for _ in range(min(n, 16))]
        collector: Any
        try:
            if self.is_game:
                collector = GameCollector(envs, c.demos, max_turns=c.max_turns, progress=False)
            else:
                collector = Collector(envs, c.demos, max_turns=c.max_turns, progress=False)
            episodes = collector.collect(n, seed=c.demo_seed)
            collector.close()
        finally:
            for env in envs:
                env.close()
        for ep in episodes:  # the registered id, whatever the envs were built from
            ep.env_id = self.env_id
        return episodes

    def training_sequences(self, episodes: Sequence[Episode]) -> list[TrainSequence]:
        """The token sequences of ``episodes`` as the trained model's agent plays them."""
        renderer = self._agent(0.0)
        tokenized = [demo_tokens(ep, renderer) for ep in episodes]
        zeros = [[0.0] * ep.length for ep in tokenized]  # no advantages: the same views
        return [s for s in training_sequences(tokenized, zeros) if any(s.loss_mask)]

    # -- update ------------------------------------------------------------------------

    def batch_indices(self, step: int) -> list[int]:
        """The sequences of (0-based) ``step``: its slice of its epoch's shuffled order."""
        c = self.config
        epoch, k = divmod(step, self.steps_per_epoch)
        order = list(range(len(self.sequences)))
        random.Random(f"{c.seed}:sft:{epoch}").shuffle(order)
        return order[k * c.batch_size : (k + 1) * c.batch_size]

    def train_step(self, step: int) -> dict[str, Any]:
        """One optimiser step on the step's minibatch; its metrics row."""
        import contextlib

        import torch

        c = self.config
        started = time.perf_counter()
        lr = scheduled_lr(self.lr, step, c.steps, c.lr_schedule, c.warmup_steps)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        # Longest first in micro-batches of similar length: little padding.
        batch = sorted(
            (self.sequences[i] for i in self.batch_indices(step)),
            key=lambda s: len(s.input_ids),
            reverse=True,
        )
        tokens = sum(sum(s.loss_mask) for s in batch)
        autocast = (
            torch.autocast("cuda", dtype=torch.bfloat16)
            if c.mixed_precision and self.device.type == "cuda"
            else contextlib.nullcontext()
        )
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        nll = prob = 0.0
        for start in range(0, len(batch), c.micro_batch_size):
            chunk = batch[start : start + c.micro_batch_size]
            with autocast:
                logp, mask, _ = token_logprobs(
                    self.model,
                    chunk,
                    pad_id=int(self.policy._pad_id),
                    temperature=1.0,
                    device=self.device,
                )
            logp = logp.float() * mask
            loss = -logp.sum()
            (loss / tokens).backward()  # the minibatch's token mean, summed over chunks
            nll += float(loss.detach())
            prob += float((logp.detach().exp() * mask).sum())
        params = [p for p in self.model.parameters() if p.requires_grad]
        norm = torch.nn.utils.clip_grad_norm_(
            params, c.max_grad_norm if c.max_grad_norm > 0 else float("inf")
        )
        self.optimizer.step()
        self.model.eval()
        return {
            "step": step + 1,
            "epoch": round((step + 1) / self.steps_per_epoch, 4),
            "loss": nll / tokens,
            "token_prob": prob / tokens,
            "grad_norm": float(norm),
            "lr": lr,
            "sequences": len(batch),
            "tokens": tokens,
            "collect_s": 0.0,
            "update_s": round(time.perf_counter() - started, 3),
        }

    # -- evaluation --------------------------------------------------------------------

    def _collector(self, key: str, agents: Any, n: int) -> Any:
        """A collector kept across evaluations (envs are made once)."""
        from turngym.sdk.rollout import Collector, GameCollector

        if key not in self._collectors:
            c = self.config
            envs = [self._make_env() for _ in range(n)]
            kind = GameCollector if self.is_game else Collector
            self._collectors[key] = kind(envs, agents, max_turns=c.max_turns, progress=False)
            self._envs += envs  # a collector closes only the envs it made itself
        return self._collectors[key]

    def _seats(self) -> list[str]:
        """The game's seats (read once from a fresh game)."""
        if self._seat_names is None:
            game = self._make_env()
            game.reset(seed=0)
            self._seat_names = list(game.possible_agents)
            game.close()
        return self._seat_names

    def evaluate(self, episodes: int | None = None) -> dict[str, float]:
        """Success (and return) on held-out seeds; games: vs ``eval_opponent`` on each seat.

        In a game ``success`` is the win rate and ``nonloss`` the rate of games not lost
        (draws count), over both seats.
        """
        c = self.config
        n = episodes or c.eval_episodes
        mode = "greedy" if c.eval_greedy else "sampled"
        if mode not in self._eval_agents:
            self._eval_agents[mode] = self._agent(0.0 if c.eval_greedy else c.temperature)
        agent = self._eval_agents[mode]
        agent.policy_version = self.step
        if not self.is_game:
            eps = self._collector(f"eval:{mode}", agent, min(n, 64)).collect(n, seed=c.eval_seed)
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
            eps = self._collector(key, agents, min(per, 64)).collect(per, seed=c.eval_seed)
            recorded.append((eps, {"mode": mode, "seat": seat, "opponent": c.eval_opponent}))
            for ep in eps:
                mine = ep.returns.get(seat, 0.0)
                best_other = max(ep.returns.get(s, 0.0) for s in seats if s != seat)
                wins += mine > best_other
                nonloss += mine >= best_other
            total += per
        record_eval_episodes(self, recorded)
        return {"success": wins / total, "nonloss": nonloss / total}

    # -- checkpoints -------------------------------------------------------------------

    def save(self) -> Path:
        """Checkpoint the run (atomically) and return its directory."""
        import torch

        def write(tmp: Path) -> None:
            with quiet():
                self.model.save_pretrained(tmp / "model")
            self.tokenizer.save_pretrained(tmp / "model")
            torch.save(
                {
                    "step": self.step,
                    "optimizer": self.optimizer.state_dict(),
                    "torch_rng": torch.get_rng_state(),
                    "sequences": len(self.sequences),
                    "config": self.config.to_dict(),
                },
                tmp / "trainer_state.pt",
            )

        return save_checkpoint(self.run_dir, self.step, write, keep=self.config.keep_checkpoints)

    def load(self, checkpoint: Path) -> None:
        """Restore weights, optimiser, RNG and step from a checkpoint.

        Raises:
            ValueError: the demonstrations give another number of sequences than the
                checkpointed run trained on (its shuffled order would not continue).

        """
        import torch

        state = torch.load(checkpoint / "trainer_state.pt", weights_only=False)
        if state["sequences"] != len(self.sequences):
            raise ValueError(
                f"cannot resume {checkpoint}: it trained on {state['sequences']} demonstration "
                f"sequences and these demos give {len(self.sequences)}; use the same demos"
            )
        restore_weights(self.model, checkpoint / "model", bool(self.config.lora_rank))
        self.optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["torch_rng"])
        self.step = int(state["step"])

    def save_final(self) -> Path:
        """The trained model (LoRA merged) + tokenizer in ``final/``, for ``hf:DIR``.

        ``turngym train grpo --model RUN/final`` (or sac-glam, archer) continues from it.
        """
        target = self.run_dir / "final"
        return save_final_model(self.model, self.tokenizer, target, self.config)

    # -- the loop ----------------------------------------------------------------------

    def train(self) -> dict[str, Any]:
        """Run (or resume) training; the summary with evaluation before and after.

        Besides ``run_training``'s keys, ``demos`` says what was imitated: episodes,
        their success rate, how many were kept, sequences and action tokens.
        """
        summary = run_training(self)
        return {**summary, "demos": dict(self.demo_stats)}

    def close(self) -> None:
        """Close the envs the trainer made."""
        for collector in self._collectors.values():
            collector.close()
        for env in self._envs:
            env.close()
        self._collectors.clear()
        self._envs.clear()
