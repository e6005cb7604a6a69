"""ArCHer: an utterance-level off-policy critic over a token-level policy-gradient actor.

ArCHer (Zhou et al. 2024) trains a language agent at two levels: a critic that values
whole utterances, learned off-policy from replayed (s, a, r, s') turns, and an actor
that follows the critic's advantage with REINFORCE over each utterance's tokens. One
iteration of ``ArCHerTrainer.train``:

1. **collect**: ``episodes_per_step`` episodes with the current policy (an ``LLMAgent``
   that generates each action; ``constrained`` restricts decoding to the env's legal
   actions when it lists them), seeded by the iteration, into the
   ``turngym.sdk.replay.ReplayBuffer``.
2. **critic** (``critic_steps`` updates): twin Q heads read (observation, action), twin
   V heads the observation; their targets follow by Polyak averaging (``tau``).
   ``L_Q = sum_i (Q_i(s, a) - [r + gamma (1 - d) Vbar_i(s')])^2`` and
   ``L_V = sum_i (V_i(s) - Qbar_i(s, a'))^2``, a' ~ pi(.|s) for the current policy:
   ``v_action="sample"`` generates one a' per state (ArCHer's choice);
   ``v_action="candidates"`` takes the exact expectation over the legal actions
   recorded with the turn, weighted by the policy's guided-choice probabilities
   (noise-free; needs ``constrained``). Truncated (not terminated) ends bootstrap.
3. **actor** (``actor_steps`` updates, after ``warmup_steps`` critic-only iterations):
   the current policy generates a' for replayed states and ascends
   ``sum_t (A - b_t) log pi(a'_t | s, a'_<t)``, ``A = min_i Q_i(s, a') - min_i V_i(s)``
   from the online critic, ``b_t`` an optional learned token-level baseline.
4. **log / checkpoint**: JSONL (and TensorBoard) rows, held-out evaluation every
   ``eval_every`` iterations (seeds from 1e9), atomic checkpoints (weights, critic,
   target, optimisers, buffer, RNG; ``resume=True`` continues exactly), then ``final/``
   (for ``hf:DIR``) and ``curve.png``.

The critic reads the rendered prompt followed by the action's text tokens:
``critic="encoder"`` runs its own small transformer built from a config (as the paper's
separate RoBERTa), ``critic="policy"`` reads the policy LM's hidden states without
training them. V reads the hidden state at the prompt's last token (a causal model has
not seen the action there), Q the one at the action's last token: one pass gives both.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from turngym.extras import require_installed
from turngym.hf_compat import quiet
from turngym.sdk.batches import TrainSequence
from turngym.sdk.records import Episode
from turngym.sdk.replay import ReplayBuffer, ReplayTransition
from turngym.sdk.trainers.checkpoints import open_run_dir, save_checkpoint
from turngym.sdk.trainers.config import RunConfig, check_config, is_int, is_number
from turngym.sdk.trainers.envs import env_id_of, make_text_env
from turngym.sdk.trainers.learner import (
    default_lr,
    load_policy,
    make_optimizer,
    resolve_model,
    restore_weights,
    save_final_model,
)
from turngym.sdk.trainers.loop import run_training
from turngym.sdk.trainers.parallel import single_process
from turngym.sdk.trainers.run_files import record_eval_episodes
from turngym.sdk.trainers.sequences import decoder_and_head, token_logprobs

if TYPE_CHECKING:
    import torch

__all__ = ["CRITICS", "V_ACTIONS", "ArCHerConfig", "ArCHerTrainer"]

CRITICS = ("encoder", "policy")
"""Critic encoders ``ArCHerConfig.critic`` accepts."""

V_ACTIONS = ("sample", "candidates")
"""How ``ArCHerConfig.v_action`` draws a' ~ pi for the V target."""

_POSITIVE = {"steps", "episodes_per_step", "max_new_tokens", "buffer_size", "batch_size"}
_POSITIVE |= {"critic_hidden", "critic_layers", "eval_episodes", "keep_checkpoints"}

# Seed streams of the update-time generations, apart from collection's own.
_CRITIC_STREAM, _ACTOR_STREAM = 0xA3C1, 0xA3C2


@dataclass
class ArCHerConfig(RunConfig):
    """Everything an ArCHer run needs; every field is a ``turngym train archer`` flag.

    Each evaluation (before training, every ``eval_every`` steps, after) saves
    ``eval_record_episodes`` of its episodes (games: per seat) to
    ``output_dir/episodes/eval-step-NNNNNNN.jsonl`` for ``turngym view``; the run writes
    this config to ``output_dir/config.json``.
    """

    trainer: ClassVar[str] = "archer"

    env: str = "turngym/TwentyQuestions-v0"
    """registered single-agent text env id"""
    output_dir: str = "runs/archer"
    steps: int = 100
    """iterations (one collection, then critic and actor updates)"""
    episodes_per_step: int = 8
    """episodes collected per iteration (run side by side)"""
    max_new_tokens: int = 32
    """most tokens generated per action"""
    temperature: float = 1.0
    """sampling temperature; the trained policy is the tempered one"""
    constrained: bool = True
    """decode only the env's legal actions when it lists them"""
    buffer_size: int = 100_000
    """replay capacity in transitions (oldest evicted first)"""
    batch_size: int = 32
    """transitions per critic or actor update"""
    gamma: float = 0.95
    """discount"""
    tau: float = 0.1
    """Polyak rate of the target critic (1: copy every update)"""
    critic_steps: int = 50
    """critic updates per iteration"""
    actor_steps: int = 3
    """actor updates per iteration (after the warm-up)"""
    warmup_steps: int = 10
    """first iterations: critic updates only"""
    v_action: str = "sample"
    """a' of the V target: sample (generate it) or candidates (exact expectation over the legal
    actions; needs constrained)"""
    critic: str = "encoder"
    """encoder (its own small transformer) or policy (heads on the policy LM's hidden states,
    no gradient into the LM)"""
    critic_hidden: int = 64
    """width of the heads' hidden layer and of the encoder critic"""
    critic_layers: int = 2
    """encoder critic: transformer blocks"""
    critic_lr: float = 1e-3
    """Adam lr of the critic"""
    actor_lr: float | None = None
    """Adam lr of the LM (None: 1e-3 tiny, 1e-4 LoRA, else 1e-5; 0 freezes it)"""
    baseline: bool = False
    """subtract a learned token-level baseline from the advantage"""
    baseline_lr: float = 1e-3
    """Adam lr of the token-level baseline"""
    max_grad_norm: float = 1.0
    """gradient clipping norm per network (0: off)"""
    mixed_precision: bool = True
    """bfloat16 autocast for forward passes on a GPU"""
    eval_every: int = 10
    """evaluate every N iterations (0: only before and after)"""
    save_every: int = 10
    """checkpoint every N iterations (0: only at the end)"""
    seed: int = 0
    """seeds rollouts, generation, replay sampling and the critic's init"""
    log_every: int = 1
    """print a summary line every N iterations (0: never)"""

    def __post_init__(self) -> None:
        super().__post_init__()
        checks: list[tuple[str, bool, str]] = [
            ("critic", self.critic in CRITICS, f"one of {', '.join(CRITICS)}"),
            ("v_action", self.v_action in V_ACTIONS, f"one of {', '.join(V_ACTIONS)}"),
            ("temperature", is_number(self.temperature) and self.temperature > 0, "a number > 0"),
            (
                "actor_lr",
                self.actor_lr is None or (is_number(self.actor_lr) and self.actor_lr >= 0),
                "None or a number >= 0",
            ),
        ]
        ranges = {  # (low, high, low allowed, how to say it)
            "gamma": (0, 1, True, "in [0, 1]"),
            "tau": (0, 1, False, "in (0, 1]"),
            "critic_lr": (0, math.inf, False, "a number > 0"),
            "baseline_lr": (0, math.inf, False, "a number > 0"),
        }
        for name, (low, high, closed, want) in ranges.items():
            v = getattr(self, name)
            ok = is_number(v) and (v >= low if closed else v > low) and v <= high
            checks.append((name, ok, want))
        for f in dataclasses.fields(self):
            if f.type == "int":  # every int field: >= 1 where 0 means nothing, else >= 0
                low = 1 if f.name in _POSITIVE else 0
                checks.append((f.name, is_int(getattr(self, f.name), low), f"an int >= {low}"))
        check_config(self, checks)
        if self.v_action == "candidates" and not self.constrained:
            raise ValueError(
                "v_action='candidates' weighs the legal actions by the guided-choice policy; "
                "set constrained=True or use v_action='sample'"
            )


def _head(width: int, hidden: int) -> torch.nn.Module:
    import torch

    return torch.nn.Sequential(
        torch.nn.LayerNorm(width),
        torch.nn.Linear(width, hidden),
        torch.nn.Tanh(),
        torch.nn.Linear(hidden, 1),
    )


class ArCHerTrainer:
    """Trains a causal LM with ArCHer: utterance-level twin Q/V critic, token-level actor.

    Args:
        config: the run's ``ArCHerConfig``.
        env_fn: builds the env (a custom one, unregistered); ``config.env`` is then
            only its name in records and logs.

    Example:
        >>> config = ArCHerConfig(env="FrozenLake-v0", steps=20, critic_steps=10)
        >>> summary = ArCHerTrainer(config).train()  # doctest: +SKIP
        >>> summary["eval_after"]["success"]  # doctest: +SKIP

    """

    label: ClassVar[str] = "ArCHer"
    curve_panels: ClassVar[Sequence[Sequence[str]]] = (
        ("success", "eval_success"),
        ("q_loss", "v_loss"),
        ("actor_loss", "advantage"),
    )
    line_keys: ClassVar[Sequence[str]] = (
        "success",
        "q_loss",
        "v_loss",
        "actor_loss",
        "advantage",
        "eval_success",
    )
    is_main = True  # one process: it prints, logs and writes
    collective_save = False

    def __init__(self, config: ArCHerConfig, env_fn: Callable[[], Any] | None = None) -> None:
        require_installed("llm", "ArCHerTrainer", ("torch", "transformers", "safetensors", "peft"))
        import torch

        from turngym.sdk.agents.llm import LLMAgent
        from turngym.sdk.policy import SamplingParams

        single_process("ArCHer")
        self.config = c = config
        self.env_fn = env_fn
        self.run_dir = open_run_dir(c.output_dir, c.resume)  # before any slow work
        self.env_id, _ = env_id_of(c.env, env_fn, games=False, trainer="ArCHer")
        env = self._make_env()  # bad env_kwargs or wrapper options fail here, early
        _, info = env.reset(seed=0)
        env.close()
        if c.v_action == "candidates" and not info.get("legal_actions"):
            raise ValueError(
                f"v_action='candidates' needs info['legal_actions'] and {self.env_id} lists "
                "none; use v_action='sample'"
            )
        self.model_dir = resolve_model(c.model, self.run_dir, seed=c.seed)
        self.actor_lr = default_lr(
            c.actor_lr, c.model, c.lora_rank, tiny=1e-3, lora=1e-4, full=1e-5
        )
        self.model, self.policy = load_policy(
            self.model_dir, c.device, c.dtype, c.lora_rank, c.lora_alpha
        )
        self.tokenizer, model = self.policy.tokenizer, self.model
        self.device = self.policy.device
        self._parts = decoder_and_head(model)
        if self._parts is None:
            raise ValueError("ArCHer needs a causal LM with a decoder and an output head")
        self._pad_id = int(self.policy._pad_id)
        self.critic = self._build_critic().to(self.device)
        self.target = copy.deepcopy(self.critic).requires_grad_(False)
        self.actor_params = [p for p in model.parameters() if p.requires_grad]
        # foreach=False: the per-parameter loop gives the same bits on every run.
        self.actor_opt = make_optimizer(self.actor_params, self.actor_lr, foreach=False)
        named = self.critic.named_parameters()
        self.critic_params = [p for k, p in named if not k.startswith("baseline")]
        self.critic_opt = make_optimizer(self.critic_params, c.critic_lr, foreach=False)
        baseline = list(self.critic["baseline"].parameters()) if c.baseline else []
        self.baseline_opt = make_optimizer(baseline or [torch.zeros(1)], c.baseline_lr)
        self.buffer = ReplayBuffer(c.buffer_size, seed=c.seed)
        self.step = self.updates = 0  # iterations done; critic + actor updates done
        sampling = SamplingParams(
            temperature=c.temperature, max_new_tokens=c.max_new_tokens, seed=0
        )
        self.agent = LLMAgent(
            self.policy, system_prompt=c.system_prompt, sampling=sampling, constrained=c.constrained
        )
        greedy = dataclasses.replace(sampling, temperature=0.0)
        self._greedy = LLMAgent(
            self.policy, c.system_prompt, sampling=greedy, constrained=c.constrained
        )
        self._collectors: dict[str, Any] = {}
        self._ids: dict[Any, list[int]] = {}  # rendered prompts and action texts

    def _make_env(self) -> Any:
        c = self.config
        # Before the model is loaded (the early check of the options) there is no
        # tokenizer yet; every env that plays counts tokens as the policy does.
        return make_text_env(
            self.env_id,
            c.env_kwargs,
            c.wrappers,
            env_fn=self.env_fn,
            tokenizer=getattr(self, "tokenizer", None),
            system_prompt=c.system_prompt,
        )

    def _build_critic(self) -> torch.nn.ModuleDict:
        """Twin Q and V heads, the optional baseline and (``encoder``) their transformer."""
        import torch

        c = self.config
        vocab, width = self._parts[1].weight.shape  # type: ignore[index]
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(c.seed)  # the critic's init, without moving the global RNG
            parts = torch.nn.ModuleDict()
            if c.critic == "encoder":
                from transformers import AutoConfig, AutoModel

                heads = max(1, c.critic_hidden // 16)
                cfg = AutoConfig.for_model(
                    "qwen2",
                    vocab_size=int(vocab),
                    hidden_size=c.critic_hidden,
                    intermediate_size=2 * c.critic_hidden,
                    num_hidden_layers=c.critic_layers,
                    num_attention_heads=heads,
                    num_key_value_heads=heads,
                    max_position_embeddings=4096,
                )
                parts["encoder"] = AutoModel.from_config(cfg, dtype=torch.float32)
                width = c.critic_hidden
            parts["q"] = torch.nn.ModuleList(_head(int(width), c.critic_hidden) for _ in range(2))
            parts["v"] = torch.nn.ModuleList(_head(int(width), c.critic_hidden) for _ in range(2))
            if c.baseline:
                parts["baseline"] = _head(int(width), c.critic_hidden)
        return parts

    # -- token ids and the critic's pass ---------------------------------------------------

    def prompt_ids(self, obs: Any) -> list[int]:
        """The rendered prompt of an observation (cached)."""
        key = ("obs", obs if isinstance(obs, str) else json.dumps(obs, sort_keys=True))
        ids = self._ids.get(key)
        if ids is None:
            if len(self._ids) > 200_000:  # a bound, not an LRU: rebuilding is cheap
                self._ids.clear()
            ids = self._ids[key] = self.agent.render([obs])[0]
        return ids

    def action_ids(self, action: str) -> list[int]:
        """The tokens the critic reads an action's text as (no end-of-turn token)."""
        key = ("action", action)
        ids = self._ids.get(key)
        if ids is None:
            ids = list(self.tokenizer(action, add_special_tokens=False)["input_ids"])
            self._ids[key] = ids or [self._pad_id]  # an empty action still reads as a token
        return self._ids[key]

    def _hidden(self, critic: Any, rows: Sequence[list[int]]) -> torch.Tensor:
        """The critic's hidden states over right-padded ``rows``, ``[B, L, H]``."""
        import torch

        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), self._pad_id, dtype=torch.long)
        attn = torch.zeros((len(rows), width), dtype=torch.long)
        for r, row in enumerate(rows):
            ids[r, : len(row)] = torch.tensor(row)
            attn[r, : len(row)] = 1
        ids, attn = ids.to(self.device), attn.to(self.device)
        with self._autocast():
            if "encoder" in critic:
                return critic["encoder"](input_ids=ids, attention_mask=attn).last_hidden_state
            with torch.no_grad():  # critic="policy": read the LM, never train it here
                decoder = self._parts[0]  # type: ignore[index]
                return decoder(input_ids=ids, attention_mask=attn, use_cache=False)[0].detach()

    def values(
        self, critic: Any, prompts: Sequence[list[int]], actions: Sequence[list[int]] | None
    ) -> dict[str, torch.Tensor]:
        """Twin ``v`` [B, 2] of the prompts and, given actions, twin ``q`` [B, 2].

        V reads the hidden state at the prompt's last token, Q the one at the action's
        last token: one causal pass over prompt + action gives both.
        """
        import torch

        pairs = zip(prompts, actions or [], strict=bool(actions))
        rows = [list(p) + list(a) for p, a in pairs] if actions else list(prompts)
        hidden = self._hidden(critic, rows).float()
        at = torch.arange(len(rows), device=self.device)
        ends = torch.tensor([len(p) - 1 for p in prompts], device=self.device)
        out = {"v": torch.cat([h(hidden[at, ends]) for h in critic["v"]], -1)}
        if actions:
            last = torch.tensor([len(r) - 1 for r in rows], device=self.device)
            out["q"] = torch.cat([h(hidden[at, last]) for h in critic["q"]], -1)
        return out

    def _autocast(self) -> Any:
        import contextlib

        import torch

        if self.config.mixed_precision and self.device.type == "cuda":
            return torch.autocast("cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    # -- the policy's actions and log-probs ----------------------------------------------

    def _guided(self, candidates: Sequence[str]) -> list[str] | None:
        """The candidates guided decoding chooses among at a state, or None (free text)."""
        return list(candidates) if self.config.constrained and candidates else None

    def generate(
        self, prompts: Sequence[list[int]], candidates: Sequence[Sequence[str]], stream: int
    ) -> list[tuple[str, list[int]]]:
        """Sample a' ~ pi for each prompt: ``(action text, generated token ids)``.

        The seed comes from the run's seed, the update count and ``stream``, so a
        resumed run draws what an uninterrupted one would.
        """
        from turngym.sdk.policy import SamplingParams

        c = self.config
        seed = int(np.random.SeedSequence([c.seed, self.updates, stream]).generate_state(1)[0])
        params = SamplingParams(
            temperature=c.temperature, max_new_tokens=c.max_new_tokens, seed=seed
        )
        guided = [self._guided(cands) for cands in candidates]
        choices = [None if g is None else self.agent.choice_ids(g) for g in guided]
        if any(ch is not None for ch in choices):
            gens = self.policy.generate(prompts, params, choices=choices)
        else:
            gens = self.policy.generate(prompts, params)
        out = []
        for gen, g, ch in zip(gens, guided, choices, strict=True):
            text = self.agent.parse(gen.text, {})
            if g is not None and ch is not None:
                text = g[ch.index(list(gen.token_ids))]
            out.append((text, list(gen.token_ids)))
        return out

    def _sequence(
        self, prompt: list[int], action: list[int], guided: list[str] | None
    ) -> TrainSequence:
        """Prompt + action with a loss mask on the decisions (guided: tokens chosen among)."""
        from turngym.sdk.choices import ChoiceTree

        n = len(prompt)
        mask = [0] * n + [1] * len(action)
        allowed: list[tuple[int, list[int]]] = []
        if guided is not None:
            tree = ChoiceTree(self.agent.choice_ids(guided))
            for j, tokens in enumerate(tree.positions(action)):
                if len(tokens) < 2:
                    mask[n + j] = 0  # a forced token is no decision: log-prob 0
                else:
                    allowed.append((n + j, tokens))
        return TrainSequence(
            prompt + action, mask, [], [0.0] * (n + len(action)), 0, False, allowed
        )

    def _token_logprobs(self, seqs: Sequence[TrainSequence]) -> tuple[torch.Tensor, torch.Tensor]:
        t, pad = self.config.temperature, self._pad_id
        logp, mask, _ = token_logprobs(
            self.model, seqs, pad_id=pad, temperature=t, device=self.device
        )
        return logp, mask

    def candidate_logprobs(
        self, prompts: Sequence[list[int]], candidates: Sequence[list[str]]
    ) -> list[torch.Tensor]:
        """Log pi of every legal action of every state (guided decoding's distribution)."""
        seqs = [
            self._sequence(p, ids, cands)
            for p, cands in zip(prompts, candidates, strict=True)
            for ids in self.agent.choice_ids(cands)
        ]
        with self._autocast():
            logp, _ = self._token_logprobs(seqs)
        flat = logp.sum(-1)
        out, start = [], 0
        for cands in candidates:
            out.append(flat[start : start + len(cands)])
            start += len(cands)
        return out

    # -- collection --------------------------------------------------------------------

    def _collector(self, key: str, agent: Any, n: int, step: int) -> Any:
        """A collector kept across iterations (envs are made once).

        Every call tells the envs' wrappers the training ``step`` (the training-step
        protocol, ``turngym.wrappers.training_step``: ``HorizonCurriculum``...).
        """
        from turngym.sdk.rollout import Collector

        if key not in self._collectors:
            envs = [self._make_env() for _ in range(n)]
            self._collectors[key] = Collector(
                envs, agent, max_turns=self.config.max_turns, progress=False
            )
        self._collectors[key].set_training_step(step)
        return self._collectors[key]

    def collect(self, step: int) -> list[Episode]:
        """The iteration's episodes (seeds ``seed * 7919 % 100000 + step * episodes_per_step``)."""
        c = self.config
        self.agent.policy_version = step
        first = c.seed * 7919 % 100_000 + step * c.episodes_per_step
        n = min(c.episodes_per_step, 64)
        collector = self._collector("train", self.agent, n, step)
        episodes = collector.collect(c.episodes_per_step, seed=first)
        for ep in episodes:
            ep.env_id = self.env_id
        return episodes

    # -- the updates ---------------------------------------------------------------------

    def _clip_step(self, params: list[Any], opt: Any) -> float:
        import torch

        limit = self.config.max_grad_norm if self.config.max_grad_norm > 0 else float("inf")
        norm = float(torch.nn.utils.clip_grad_norm_(params, limit))
        opt.step()
        return norm

    def critic_update(self, batch: Sequence[ReplayTransition]) -> dict[str, float]:
        """One Q/V regression step on ``batch``, then the target critic's Polyak step."""
        import torch

        c = self.config
        prompts = [self.prompt_ids(t.obs) for t in batch]
        reward = torch.tensor([t.reward for t in batch], device=self.device)
        live = [i for i, t in enumerate(batch) if not t.terminated]
        with torch.no_grad():
            next_v = torch.zeros((len(batch), 2), device=self.device)
            if live:
                nxt = [self.prompt_ids(batch[i].next_obs) for i in live]
                next_v[live] = self.values(self.target, nxt, None)["v"]
            target_q = reward[:, None] + c.gamma * next_v  # [B, 2]: Vbar_i backs up Q_i
            if c.v_action == "candidates":
                cands = [list(t.candidates) for t in batch]
                pis = [lp.exp() for lp in self.candidate_logprobs(prompts, cands)]
                rows = [i for i, cs in enumerate(cands) for _ in cs]
                q_all = self.values(
                    self.target,
                    [prompts[i] for i in rows],
                    [self.action_ids(a) for cs in cands for a in cs],
                )["q"]
                weights = torch.cat(pis)[:, None].float()
                target_v = torch.zeros((len(batch), 2), device=self.device).index_add(
                    0, torch.tensor(rows, device=self.device), weights * q_all
                )
            else:
                sampled = self.generate(prompts, [t.candidates for t in batch], _CRITIC_STREAM)
                target_v = self.values(
                    self.target, prompts, [self.action_ids(a) for a, _ in sampled]
                )["q"]  # Qbar_i backs up V_i
        out = self.values(self.critic, prompts, [self.action_ids(t.action) for t in batch])
        q_loss = ((out["q"] - target_q) ** 2).sum(-1).mean()
        v_loss = ((out["v"] - target_v) ** 2).sum(-1).mean()
        self.critic_opt.zero_grad(set_to_none=True)
        (q_loss + v_loss).backward()
        norm = self._clip_step(self.critic_params, self.critic_opt)
        with torch.no_grad():
            for p, tp in zip(self.critic.parameters(), self.target.parameters(), strict=True):
                tp.lerp_(p, c.tau)
        self.updates += 1
        metrics = {"q_loss": q_loss, "v_loss": v_loss, "q": out["q"].mean(), "v": out["v"].mean()}
        return {"critic_grad_norm": norm} | {k: float(v.detach()) for k, v in metrics.items()}

    def actor_update(self, batch: Sequence[ReplayTransition]) -> dict[str, float]:
        """One token-level REINFORCE step on fresh a' ~ pi for the batch's states."""
        import torch

        prompts = [self.prompt_ids(t.obs) for t in batch]
        sampled = self.generate(prompts, [t.candidates for t in batch], _ACTOR_STREAM)
        with torch.no_grad():
            out = self.values(self.critic, prompts, [self.action_ids(a) for a, _ in sampled])
            advantage = out["q"].min(-1).values - out["v"].min(-1).values  # [B]
        seqs = [
            self._sequence(p, ids, self._guided(t.candidates))
            for p, (_, ids), t in zip(prompts, sampled, batch, strict=True)
        ]
        self.model.train()
        with self._autocast():
            logp, mask = self._token_logprobs(seqs)
        per_token = advantage[:, None].expand_as(logp)
        metrics: dict[str, float] = {}
        if self.config.baseline:
            # b_t reads the critic's state after prompt + a'_<t (the position that
            # predicts token t), detached: it only lowers the gradient's variance.
            with torch.no_grad():
                hidden = self._hidden(self.critic, [s.input_ids for s in seqs]).float()
            rows, cols = mask.nonzero(as_tuple=True)
            b = torch.zeros_like(logp)
            b[rows, cols] = self.critic["baseline"](hidden[rows, cols - 1])[:, 0]
            baseline_loss = ((b - per_token) ** 2 * mask).sum() / mask.sum().clamp(min=1)
            self.baseline_opt.zero_grad(set_to_none=True)
            baseline_loss.backward()
            self._clip_step(list(self.critic["baseline"].parameters()), self.baseline_opt)
            per_token = per_token - b.detach()
            metrics["baseline_loss"] = float(baseline_loss.detach())
        actor_loss = -(per_token * logp * mask).sum() / len(batch)
        self.actor_opt.zero_grad(set_to_none=True)
        actor_loss.backward()
        norm = self._clip_step(self.actor_params, self.actor_opt)
        self.model.eval()
        self.updates += 1
        return {
            "actor_loss": float(actor_loss.detach()),
            "advantage": float(advantage.mean()),
            "logp": float((logp.detach() * mask).sum() / len(batch)),
            "actor_grad_norm": norm,
            **metrics,
        }

    def train_step(self, step: int) -> dict[str, Any]:
        """One collection, then the critic and (after the warm-up) the actor updates."""
        c = self.config
        t0 = time.perf_counter()
        episodes = self.collect(step)
        for ep in episodes:
            self.buffer.add_episode(ep)
        t1 = time.perf_counter()
        metrics: dict[str, float] = {}
        n_actor = c.actor_steps if step >= c.warmup_steps else 0
        for n, update in ((c.critic_steps, self.critic_update), (n_actor, self.actor_update)):
            for _ in range(n):
                for k, v in update(self.buffer.sample(c.batch_size)).items():
                    metrics[k] = metrics.get(k, 0.0) + v / n
        t2 = time.perf_counter()
        returns = [ep.returns.get("agent", 0.0) for ep in episodes]
        return {
            "step": step + 1,
            "reward": sum(returns) / len(returns),
            "success": sum(ep.success for ep in episodes) / len(episodes),
            "turns": sum(ep.length for ep in episodes) / len(episodes),
            "buffer": len(self.buffer),
            "collect_s": round(t1 - t0, 3),
            "update_s": round(t2 - t1, 3),
            **metrics,
        }

    # -- evaluation --------------------------------------------------------------------

    def evaluate(self, episodes: int | None = None) -> dict[str, float]:
        """Success and return on held-out seeds (``eval_seed`` on), greedy or sampled."""
        c = self.config
        n = episodes or c.eval_episodes
        mode = "greedy" if c.eval_greedy else "sample"
        agent = self._greedy if c.eval_greedy else self.agent
        collector = self._collector(f"eval:{mode}", agent, min(n, 64), self.step)
        eps = collector.collect(n, seed=c.eval_seed)
        record_eval_episodes(self, [(eps, {"mode": "greedy" if c.eval_greedy else "sampled"})])
        return {
            "success": sum(ep.success for ep in eps) / n,
            "return": sum(ep.returns.get("agent", 0.0) for ep in eps) / n,
        }

    # -- checkpoints -------------------------------------------------------------------

    def _stateful(self) -> dict[str, Any]:
        """What a checkpoint holds besides the LM: each has state_dict/load_state_dict."""
        return {
            "critic": self.critic,
            "target": self.target,
            "actor_opt": self.actor_opt,
            "critic_opt": self.critic_opt,
            "baseline_opt": self.baseline_opt,
            "buffer": self.buffer,
        }

    def save(self) -> Path:
        """Checkpoint the run (atomically) and return its directory."""
        import torch

        def write(tmp: Path) -> None:
            with quiet():
                self.model.save_pretrained(tmp / "model")
            self.tokenizer.save_pretrained(tmp / "model")
            state = {k: v.state_dict() for k, v in self._stateful().items()}
            state.update(step=self.step, updates=self.updates, config=self.config.to_dict())
            torch.save({**state, "torch_rng": torch.get_rng_state()}, tmp / "trainer_state.pt")

        return save_checkpoint(self.run_dir, self.step, write, keep=self.config.keep_checkpoints)

    def load(self, checkpoint: Path) -> None:
        """Restore weights, critic, target, optimisers, buffer, RNG and step."""
        import torch

        state = torch.load(checkpoint / "trainer_state.pt", weights_only=False)
        restore_weights(self.model, checkpoint / "model", lora=bool(self.config.lora_rank))
        for key, part in self._stateful().items():
            part.load_state_dict(state[key])
        torch.set_rng_state(state["torch_rng"])
        self.step, self.updates = int(state["step"]), int(state["updates"])

    def save_final(self) -> Path:
        """The trained model (LoRA merged) + tokenizer in ``final/``, for ``hf:DIR``."""
        return save_final_model(self.model, self.tokenizer, self.run_dir / "final", self.config)

    # -- the loop ----------------------------------------------------------------------

    def train(self) -> dict[str, Any]:
        """Run (or resume) training; returns a summary with evaluation before and after."""
        return run_training(self)

    def close(self) -> None:
        """Close the envs the trainer made."""
        for collector in self._collectors.values():
            collector.close()
        self._collectors.clear()
