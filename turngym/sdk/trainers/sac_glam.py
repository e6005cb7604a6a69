"""SAC-GLAM: discrete soft actor-critic over an LLM that scores candidate actions.

The policy is GLAM's (Carta et al. 2023): the LM scores every legal action
(``info["legal_actions"]``) as a continuation of the prompt, by the sum of its tokens'
log-probs (``score="mean"``: their mean, so that an untrained LM does not favour the
shortest candidates), and pi(a|s) is the softmax of those scores over the candidates.
SAC-GLAM (Gaven et al. 2024) trains it off-policy with soft actor-critic from a replay
buffer, with hindsight relabelling for goal-conditioned envs. One step of
``SACGLAMTrainer.train``:

1. **collect**: ``episodes_per_step`` episodes with the current policy (uniformly random
   candidates during the first ``warmup_steps`` steps), seeded by the step so a run
   replays exactly; they go to the ``turngym.sdk.replay.ReplayBuffer``, failed ones a
   second time relabelled with goals they achieved.
2. **targets**: for a sampled batch, exactly over the candidate set of s' (no sampling):
   ``y = r + gamma (1 - terminated) sum_a' pi(a'|s') [min_j Qbar_j(s', a') - alpha log pi(a'|s')]``
   with the target critic Qbar; time-limit ends still bootstrap.
3. **update**: the twin critics regress ``Q_j(s, a)`` on ``y``; the actor minimises
   ``sum_a pi(a|s) [alpha log pi(a|s) - min_j Q_j(s, a)]``; the temperature alpha
   follows a target entropy (``target_entropy_ratio * log |A(s)|``); the target critic
   follows by Polyak averaging (``tau``). ``utd_ratio`` updates per new transition.
4. **log / checkpoint**: a JSONL row (and TensorBoard) per step, held-out evaluation
   every ``eval_every`` steps (seeds from 1e9), atomic checkpoints of weights, critics,
   optimisers, temperature, replay buffer and step; ``resume=True`` continues exactly.

The critic reads (observation, goal, candidate) as the prompt + candidate row the
policy scores: ``critic="shared"`` puts two MLP heads on the policy LM's last hidden
state (``critic_detach`` keeps the critic's gradient out of the LM), ``critic="encoder"``
a separate small transformer built from a config. At the end: ``final/`` (a merged model
+ tokenizer) and ``curve.png``.
"""

from __future__ import annotations

import copy
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from turngym.extras import require_installed
from turngym.hf_compat import quiet
from turngym.sdk.agents.llm import CandidateAgent
from turngym.sdk.records import Decision, Episode, Turn
from turngym.sdk.replay import RELABEL_STRATEGIES, ReplayBuffer, ReplayTransition, state_text
from turngym.sdk.trainers.candidates import SCORES, candidate_scores, shared_prompt_forward
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
from turngym.sdk.trainers.sequences import decoder_and_head

if TYPE_CHECKING:
    import torch

__all__ = ["CRITICS", "SACGLAMConfig", "SACGLAMTrainer", "state_text"]

CRITICS = ("shared", "encoder")
"""Critic architectures ``SACGLAMConfig.critic`` accepts."""

State = tuple[list[int], list[list[int]]]
"""A state as the LM reads it: prompt ids and the token ids of each candidate."""


@dataclass
class SACGLAMConfig(RunConfig):
    """Everything a SAC-GLAM run needs; every field is a ``turngym train sac-glam`` flag.

    Each evaluation (before training, every ``eval_every`` steps, after) saves
    ``eval_record_episodes`` of its episodes (games: per seat) to
    ``output_dir/episodes/eval-step-NNNNNNN.jsonl`` for ``turngym view``; the run writes
    this config to ``output_dir/config.json``.
    """

    trainer: ClassVar[str] = "sac-glam"

    env: str = "turngym/BabyAIText-v0"
    """registered single-agent env id with a finite action set (info['legal_actions'])"""
    output_dir: str = "runs/sac-glam"
    score: str = "sum"
    """a candidate's score: sum (GLAM: log p(candidate)) or mean (per token, no bias toward
    short candidates)"""
    steps: int = 100
    """training steps (one collection + updates each)"""
    episodes_per_step: int = 8
    """episodes collected per step (run side by side)"""
    warmup_steps: int = 2
    """first steps: uniformly random candidates and no update"""
    buffer_size: int = 100_000
    """replay capacity in transitions (oldest evicted first)"""
    batch_size: int = 32
    """transitions per gradient update"""
    utd_ratio: float = 0.5
    """update-to-data ratio: gradient updates per new transition"""
    gamma: float = 0.9
    """discount"""
    tau: float = 0.05
    """Polyak rate of the target critic (1: copy every update)"""
    critic: str = "shared"
    """shared (Q heads on the policy LM's last hidden state) or encoder (a separate small
    transformer)"""
    critic_detach: bool = False
    """shared critic: keep the critic's gradient out of the LM trunk"""
    critic_hidden: int = 64
    """width of the Q heads' hidden layer and of the encoder critic"""
    critic_layers: int = 2
    """encoder critic: transformer blocks"""
    policy_lr: float | None = None
    """Adam lr of the LM (None: 1e-3 tiny, 1e-4 LoRA, else 1e-5; 0 freezes it)"""
    critic_lr: float = 1e-3
    """Adam lr of the critic (heads, and the encoder)"""
    alpha: float = 0.05
    """entropy temperature (the initial one when autotuned)"""
    autotune_alpha: bool = True
    """adapt alpha toward the target entropy"""
    alpha_lr: float = 3e-3
    """Adam lr of log alpha"""
    target_entropy_ratio: float = 0.3
    """target entropy as a share of log |A(s)| (0..1)"""
    relabel: str = field(
        default="future",
        metadata={
            "help": f"hindsight relabelling of failed episodes: {', '.join(RELABEL_STRATEGIES)}"
        },
    )
    relabel_k: int = 1
    """future: relabelled copies per transition (more crowd out the real goals: 1 learnt
    goal-conditioned FrozenLake faster than HER's 4)"""
    relabel_ratio: float = 1.0
    """share of failed episodes relabelled"""
    max_grad_norm: float = 1.0
    """gradient clipping norm per network (0: off)"""
    mixed_precision: bool = True
    """bfloat16 autocast for forward passes on a GPU"""
    eval_greedy: bool = True
    """evaluate the greedy policy (argmax candidate) instead of sampling"""
    seed: int = 0
    """seeds rollouts, action sampling, replay sampling and the critic's init"""

    def __post_init__(self) -> None:
        super().__post_init__()
        checks: list[tuple[str, bool, str]] = [
            ("critic", self.critic in CRITICS, f"one of {', '.join(CRITICS)}"),
            ("score", self.score in SCORES, f"one of {', '.join(SCORES)}"),
            (
                "relabel",
                self.relabel in RELABEL_STRATEGIES,
                f"one of {', '.join(RELABEL_STRATEGIES)}",
            ),
            (
                "policy_lr",
                self.policy_lr is None or (is_number(self.policy_lr) and self.policy_lr >= 0),
                "None or a number >= 0",
            ),
        ]
        # (low, high, low is allowed, how to say it): numbers in a range
        ranges = {
            "utd_ratio": (0, math.inf, False, "a number > 0"),
            "gamma": (0, 1, True, "in [0, 1]"),
            "tau": (0, 1, False, "in (0, 1]"),
            "critic_lr": (0, math.inf, False, "a number > 0"),
            "alpha": (0, math.inf, False, "a number > 0"),
            "alpha_lr": (0, math.inf, False, "a number > 0"),
            "target_entropy_ratio": (0, 1, True, "in [0, 1]"),
            "relabel_ratio": (0, 1, True, "in [0, 1]"),
        }
        for name, (low, high, closed, want) in ranges.items():
            v = getattr(self, name)
            ok = is_number(v) and (v >= low if closed else v > low) and v <= high
            checks.append((name, ok, want))
        for name in ("steps", "episodes_per_step", "buffer_size", "batch_size", "critic_hidden"):
            checks.append((name, is_int(getattr(self, name), 1), "an int >= 1"))
        for name in ("critic_layers", "relabel_k"):
            checks.append((name, is_int(getattr(self, name), 1), "an int >= 1"))
        check_config(self, checks)


class _GLAMAgent(CandidateAgent):
    """Acts for the trainer: one batched LM pass scores every env's candidates.

    ``mode`` is ``"sample"`` (from pi), ``"greedy"`` (argmax) or ``"random"`` (uniform,
    the warm-up). The Turn records the candidates and their log pi.
    """

    def __init__(self, trainer: SACGLAMTrainer, mode: str) -> None:
        super().__init__(trainer.policy, system_prompt=trainer.config.system_prompt)
        self.trainer = trainer
        self.mode = mode

    def decide_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[Decision]:
        """Score every legal action of every observation in one pass and pick one each."""
        states, legal_lists = [], []
        for o, info in zip(obs, infos, strict=True):
            legal = [str(a) for a in info.get("legal_actions") or []]
            if not legal:
                raise ValueError("SAC-GLAM needs info['legal_actions'] at every step")
            legal_lists.append(legal)
            states.append(self.trainer.state(o, info.get("goal"), legal))
        if self.mode == "random":
            logps = [np.full(len(c), -math.log(len(c))) for c in legal_lists]
        else:
            logps = self.trainer.policy_logprobs(states)
        actions, turns = [], []
        for o, (prompt, cand_ids), legal, logp in zip(obs, states, legal_lists, logps, strict=True):
            if self.mode == "greedy":
                k = int(np.argmax(logp))
            else:
                p = np.exp(logp - logp.max())
                k = int(self._rng.choice(len(legal), p=p / p.sum()))
            actions.append(legal[k])
            scores = [float(x) for x in logp]
            turn = Turn(obs=o, prompt_ids=prompt, action_ids=list(cand_ids[k]), action=legal[k])
            turn.trainable, turn.candidates, turn.candidate_logprobs = True, legal, scores
            turn.policy_version = self.policy_version
            turns.append(turn)
        return self._decided(actions, turns)


class SACGLAMTrainer:
    """Trains a causal LM as a GLAM candidate-scoring policy with discrete SAC.

    Args:
        config: the run's ``SACGLAMConfig``.
        env_fn: builds the env (a custom one, unregistered); ``config.env`` is then
            only its name in records and logs.

    Example:
        >>> config = SACGLAMConfig(env="BabyAIText-v0", env_kwargs={"mission": "goto"})
        >>> summary = SACGLAMTrainer(config).train()  # doctest: +SKIP
        >>> summary["eval_after"]["success"]  # doctest: +SKIP

    """

    label: ClassVar[str] = "SAC-GLAM"
    curve_panels: ClassVar[Sequence[Sequence[str]]] = (
        ("success", "eval_success"),
        ("critic_loss", "actor_loss"),
        ("alpha", "entropy"),
    )
    line_keys: ClassVar[Sequence[str]] = (
        "success",
        "critic_loss",
        "actor_loss",
        "alpha",
        "eval_success",
    )
    is_main = True  # one process: it prints, logs and writes
    collective_save = False

    def __init__(self, config: SACGLAMConfig, env_fn: Callable[[], Any] | None = None) -> None:
        require_installed("llm", "SACGLAMTrainer", ("torch", "transformers", "safetensors", "peft"))
        import torch

        single_process("SAC-GLAM")
        self.config = c = config
        self.env_fn = env_fn
        self.run_dir = open_run_dir(c.output_dir, c.resume)  # before any slow work
        self.env_id, _ = env_id_of(c.env, env_fn, games=False, trainer="SAC-GLAM")
        self._goal_env = self._make_env()  # bad env_kwargs or wrapper options fail here
        _, info = self._goal_env.reset(seed=0)
        if not info.get("legal_actions"):
            raise ValueError(
                f"SAC-GLAM scores the candidates in info['legal_actions'] and {self.env_id} "
                "lists none; use GRPO for free-form actions"
            )
        compute_reward = getattr(self._goal_env.unwrapped, "compute_reward", None)
        if c.relabel != "none" and (compute_reward is None or "goal" not in info):
            raise ValueError(
                f"relabel={c.relabel!r} needs a goal-conditioned env (info['goal'] and "
                f"env.unwrapped.compute_reward); {self.env_id} is not one: use relabel='none'"
            )
        self.model_dir = resolve_model(c.model, self.run_dir, seed=c.seed)
        self.policy_lr = default_lr(
            c.policy_lr, c.model, c.lora_rank, tiny=1e-3, lora=1e-4, full=1e-5
        )
        model, self.policy = load_policy(
            self.model_dir, c.device, c.dtype, c.lora_rank, c.lora_alpha
        )
        self.model = model
        self.tokenizer = self.policy.tokenizer
        self.device = self.policy.device
        self._parts = decoder_and_head(model)
        if self._parts is None:
            raise ValueError("SAC-GLAM needs a causal LM with a decoder and an output head")
        self._pad_id = int(self.policy._pad_id)
        self.critic = self._build_critic().to(self.device)
        self.target = copy.deepcopy(self.critic).requires_grad_(False)
        self.log_alpha = torch.tensor(math.log(c.alpha), device=self.device, requires_grad=True)
        self.policy_params = [p for p in model.parameters() if p.requires_grad]
        # foreach=False: the per-parameter loop gives the same bits on every run.
        self.policy_opt = make_optimizer(self.policy_params, self.policy_lr, foreach=False)
        self.critic_opt = make_optimizer(self.critic.parameters(), c.critic_lr, foreach=False)
        self.alpha_opt = make_optimizer([self.log_alpha], c.alpha_lr, foreach=False)
        self.buffer = ReplayBuffer(
            c.buffer_size,
            seed=c.seed,
            relabel=c.relabel,
            relabel_k=c.relabel_k,
            relabel_ratio=c.relabel_ratio,
            compute_reward=compute_reward,
        )
        self.step = 0
        self.updates = 0
        self._credit = 0.0  # fractional updates owed by the update-to-data ratio
        self._agents = {m: _GLAMAgent(self, m) for m in ("sample", "greedy", "random")}
        self._collectors: dict[str, Any] = {}
        self._prompts: dict[Any, list[int]] = {}

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

    def _build_critic(self) -> torch.nn.Module:
        """Twin Q heads (and, for ``critic="encoder"``, their own small transformer)."""
        import torch

        c = self.config
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(c.seed)  # the critic's init, without moving the global RNG
            parts = torch.nn.ModuleDict()
            if c.critic == "encoder":
                from transformers import AutoConfig, AutoModel

                heads = max(1, c.critic_hidden // 16)
                cfg = AutoConfig.for_model(
                    "qwen2",
                    vocab_size=int(self._parts[1].weight.shape[0]),  # type: ignore[index]
                    hidden_size=c.critic_hidden,
                    intermediate_size=2 * c.critic_hidden,
                    num_hidden_layers=c.critic_layers,
                    num_attention_heads=heads,
                    num_key_value_heads=heads,
                    max_position_embeddings=4096,
                )
                parts["encoder"] = AutoModel.from_config(cfg, dtype=torch.float32)
                width = c.critic_hidden
            else:
                width = int(self._parts[1].weight.shape[1])  # type: ignore[index]
            parts["q"] = torch.nn.ModuleList(
                torch.nn.Sequential(
                    torch.nn.LayerNorm(width),
                    torch.nn.Linear(width, c.critic_hidden),
                    torch.nn.Tanh(),
                    torch.nn.Linear(c.critic_hidden, 1),
                )
                for _ in range(2)
            )
        return parts

    # -- states and the batched pass ---------------------------------------------------

    def state(self, obs: Any, goal: str | None, candidates: Sequence[str]) -> State:
        """The prompt ids of (obs, goal) and the token ids of each candidate."""
        text = state_text(obs, goal)
        key = text if isinstance(text, str) else json.dumps(text, sort_keys=True)
        prompt = self._prompts.get(key)
        if prompt is None:
            if len(self._prompts) > 200_000:  # a bound, not an LRU: rebuilding is cheap
                self._prompts.clear()
            prompt = self._prompts[key] = self._agents["sample"].render([text])[0]
        return prompt, [self._agents["sample"].tokens(a) for a in candidates]

    def _pass(self, states: Sequence[State], critic: Any, need_q: bool) -> dict[str, Any]:
        """Score every candidate of ``states`` (and, with ``need_q``, its twin Q values).

        Returns ``logp`` [S, A] (log pi over each state's candidates, -inf on padding),
        ``mask`` [S, A] and, with ``need_q``, ``q`` [S, A, 2] from ``critic``.
        """
        import torch

        s_idx = torch.tensor(
            [s for s, (_, cands) in enumerate(states) for _ in cands], device=self.device
        )
        a_idx = torch.tensor(
            [a for _, cands in states for a in range(len(cands))], device=self.device
        )
        cands = [cand for _, cs in states for cand in cs]
        decoder, head = self._parts  # type: ignore[misc]
        with self._autocast():
            pred, last = shared_prompt_forward(decoder, [p for p, _ in states], cands, s_idx)
            scores = candidate_scores(head, pred, cands, self.config.score)
        width = max(len(cs) for _, cs in states)
        mask = torch.zeros((len(states), width), dtype=torch.bool, device=self.device)
        mask[s_idx, a_idx] = True
        grid = torch.full((len(states), width), float("-inf"), device=self.device)
        grid = grid.index_put((s_idx, a_idx), scores)
        out: dict[str, Any] = {"logp": torch.log_softmax(grid, -1), "mask": mask}
        if need_q:
            if "encoder" in critic:
                with self._autocast():
                    _, feats = shared_prompt_forward(
                        critic["encoder"], [p for p, _ in states], cands, s_idx
                    )
            else:
                feats = last.detach() if self.config.critic_detach else last
            q_rows = torch.cat([q(feats.float()) for q in critic["q"]], dim=-1)  # [R, 2]
            q = torch.zeros((len(states), width, 2), device=self.device)
            out["q"] = q.index_put((s_idx, a_idx), q_rows)
        return out

    def policy_logprobs(self, states: Sequence[State]) -> list[np.ndarray]:
        """Log pi over each state's candidates (no gradients)."""
        import torch

        with torch.no_grad():
            logp = self._pass(states, self.critic, need_q=False)["logp"].cpu().double().numpy()
        return [logp[s, : len(cands)] for s, (_, cands) in enumerate(states)]

    def q_values(self, states: Sequence[State]) -> list[np.ndarray]:
        """``[|A|, 2]`` twin Q values of each state's candidates (no gradients)."""
        import torch

        with torch.no_grad():
            q = self._pass(states, self.critic, need_q=True)["q"].cpu().double().numpy()
        return [q[s, : len(cands)] for s, (_, cands) in enumerate(states)]

    def _autocast(self) -> Any:
        import contextlib

        import torch

        if self.config.mixed_precision and self.device.type == "cuda":
            return torch.autocast("cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    # -- collection --------------------------------------------------------------------

    def _collector(self, key: str, agent: Any, n: int, step: int) -> Any:
        """A collector kept across steps (envs are made once).

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
        """The step's episodes (seeds ``seed * 7919 % 100000 + step * episodes_per_step``)."""
        c = self.config
        mode = "random" if step < c.warmup_steps else "sample"
        agent = self._agents[mode]
        agent.policy_version = step
        first = c.seed * 7919 % 100_000 + step * c.episodes_per_step
        n = min(c.episodes_per_step, 64)
        episodes = self._collector(mode, agent, n, step).collect(c.episodes_per_step, seed=first)
        for ep in episodes:
            ep.env_id = self.env_id
        return episodes

    # -- the update --------------------------------------------------------------------

    @property
    def alpha(self) -> float:
        """The current entropy temperature."""
        return float(self.log_alpha.detach().exp())

    def update(self, batch: Sequence[ReplayTransition]) -> dict[str, float]:
        """One critic + actor + temperature update on ``batch``, then the target's step."""
        import torch

        c = self.config
        alpha = self.log_alpha.detach().exp()
        states = [self.state(t.obs, t.goal, t.candidates) for t in batch]
        taken = torch.tensor(
            [t.candidates.index(t.action) for t in batch], device=self.device
        )  # candidates always hold the action: the agent picked among them
        reward = torch.tensor([t.reward for t in batch], device=self.device)
        live = [i for i, t in enumerate(batch) if not t.terminated and t.next_candidates]
        next_v = torch.zeros(len(batch), device=self.device)
        with torch.no_grad():
            if live:
                nxt = [
                    self.state(batch[i].next_obs, batch[i].goal, batch[i].next_candidates)
                    for i in live
                ]
                out = self._pass(nxt, self.target, need_q=True)
                pi = out["logp"].exp()  # exactly 0 on padding
                soft = out["q"].min(-1).values - alpha * out["logp"].nan_to_num(neginf=0.0)
                next_v[live] = (pi * soft).sum(-1)
            target = reward + c.gamma * next_v
        out = self._pass(states, self.critic, need_q=True)
        logp, q, mask = out["logp"], out["q"], out["mask"]
        q_taken = q[torch.arange(len(batch)), taken]  # [B, 2]
        critic_loss = 0.5 * ((q_taken - target[:, None]) ** 2).sum(-1).mean()
        pi = logp.exp()
        logp0 = logp.nan_to_num(neginf=0.0)  # 0 * -inf would be NaN on padding
        min_q = q.min(-1).values.detach().masked_fill(~mask, 0.0)
        actor_loss = (pi * (alpha * logp0 - min_q)).sum(-1).mean()
        self.policy_opt.zero_grad(set_to_none=True)
        self.critic_opt.zero_grad(set_to_none=True)
        (critic_loss + actor_loss).backward()
        norms = {}
        for name, params, opt in (
            ("policy", self.policy_params, self.policy_opt),
            ("critic", list(self.critic.parameters()), self.critic_opt),
        ):
            limit = c.max_grad_norm if c.max_grad_norm > 0 else float("inf")
            norms[name] = float(torch.nn.utils.clip_grad_norm_(params, limit))
            opt.step()
        entropy = -(pi * logp0).sum(-1).detach()
        target_entropy = c.target_entropy_ratio * mask.sum(-1).float().log()
        if c.autotune_alpha:
            alpha_loss = (self.log_alpha * (entropy - target_entropy)).mean()
            self.alpha_opt.zero_grad(set_to_none=True)
            alpha_loss.backward()
            self.alpha_opt.step()
        with torch.no_grad():
            for p, tp in zip(self.critic.parameters(), self.target.parameters(), strict=True):
                tp.lerp_(p, c.tau)
        self.updates += 1
        return {
            "critic_loss": float(critic_loss.detach()),
            "actor_loss": float(actor_loss.detach()),
            "q": float(q_taken.detach().mean()),
            "target_q": float(target.mean()),
            "entropy": float(entropy.mean()),
            "alpha": self.alpha,
            "policy_grad_norm": norms["policy"],
            "critic_grad_norm": norms["critic"],
        }

    def train_step(self, step: int) -> dict[str, Any]:
        """One collection + the updates the update-to-data ratio allows; the metrics row."""
        c = self.config
        t0 = time.perf_counter()
        episodes = self.collect(step)
        added = sum(self.buffer.add_episode(ep) for ep in episodes)
        new = sum(ep.length for ep in episodes)
        t1 = time.perf_counter()
        metrics: dict[str, float] = {}
        n_updates = 0
        if step >= c.warmup_steps:
            self._credit += c.utd_ratio * new
            n_updates, self._credit = int(self._credit), self._credit - int(self._credit)
            self.model.train()
            for _ in range(n_updates):
                for k, v in self.update(self.buffer.sample(c.batch_size)).items():
                    metrics[k] = metrics.get(k, 0.0) + v / n_updates
            self.model.eval()
        t2 = time.perf_counter()
        returns = [ep.returns.get("agent", 0.0) for ep in episodes]
        return {
            "step": step + 1,
            "reward": sum(returns) / len(returns),
            "success": sum(ep.success for ep in episodes) / len(episodes),
            "turns": new / len(episodes),
            "buffer": len(self.buffer),
            "added": added,
            "updates": n_updates,
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
        agent = self._agents[mode]
        collector = self._collector(f"eval:{mode}", agent, min(n, 64), self.step)
        eps = collector.collect(n, seed=c.eval_seed)
        record_eval_episodes(self, [(eps, {"mode": "greedy" if c.eval_greedy else "sampled"})])
        return {
            "success": sum(ep.success for ep in eps) / n,
            "return": sum(ep.returns.get("agent", 0.0) for ep in eps) / n,
        }

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
                    "updates": self.updates,
                    "credit": self._credit,
                    "critic": self.critic.state_dict(),
                    "target": self.target.state_dict(),
                    "log_alpha": self.log_alpha.detach().clone(),
                    "policy_opt": self.policy_opt.state_dict(),
                    "critic_opt": self.critic_opt.state_dict(),
                    "alpha_opt": self.alpha_opt.state_dict(),
                    "buffer": self.buffer.state_dict(),
                    "torch_rng": torch.get_rng_state(),
                    "config": self.config.to_dict(),
                },
                tmp / "trainer_state.pt",
            )

        return save_checkpoint(self.run_dir, self.step, write, keep=self.config.keep_checkpoints)

    def load(self, checkpoint: Path) -> None:
        """Restore weights, critics, optimisers, temperature, buffer, RNG and step."""
        import torch

        state = torch.load(checkpoint / "trainer_state.pt", weights_only=False)
        restore_weights(self.model, checkpoint / "model", bool(self.config.lora_rank))
        self.critic.load_state_dict(state["critic"])
        self.target.load_state_dict(state["target"])
        with torch.no_grad():
            self.log_alpha.copy_(state["log_alpha"])
        self.policy_opt.load_state_dict(state["policy_opt"])
        self.critic_opt.load_state_dict(state["critic_opt"])
        self.alpha_opt.load_state_dict(state["alpha_opt"])
        self.buffer.load_state_dict(state["buffer"])
        torch.set_rng_state(state["torch_rng"])
        self.step, self.updates = int(state["step"]), int(state["updates"])
        self._credit = float(state["credit"])

    def save_final(self) -> Path:
        """The trained model (LoRA merged) + tokenizer in ``final/``, for ``hf:DIR``."""
        # hf:DIR agents pick among the legal actions by guided choice, the nearest
        # LLMAgent setting to scoring each candidate.
        return save_final_model(
            self.model, self.tokenizer, self.run_dir / "final", self.config, constrained=True
        )

    # -- the loop ----------------------------------------------------------------------

    def train(self) -> dict[str, Any]:
        """Run (or resume) training; returns a summary with evaluation before and after."""
        return run_training(self)

    def close(self) -> None:
        """Close the envs the trainer made."""
        for collector in self._collectors.values():
            collector.close()
        self._collectors.clear()
        self._goal_env.close()
