"""Agents over a language model: ``LLMAgent`` (generates its action) and ``CandidateAgent``.

Both render an observation into prompt ids with the policy's tokenizer: a ``str`` (or
a game's ``{"text": ...}``) becomes the user message of a one-turn conversation, a
``list[Message]`` (from a chat-history wrapper) or a game twin's ``{"messages": [...]}``
(``ChatHistoryGame``, ``SlidingWindowGame``, ``SummarizeContextGame``) is the
conversation itself; the system prompt, when given, comes first and the chat
template's generation prompt last. ``decide_batch`` returns each action with the agent's
``Turn`` (``Decision``): the token ids and log-probs, which become the rollout's record
of the turn; ``act_batch`` returns the actions alone, and ``last_turns`` keeps the last
call's Turns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from turngym.agents.base import BaseAgent
from turngym.sdk.policy import Policy, PolicyError, SamplingParams
from turngym.sdk.records import Decision, Turn

__all__ = ["CandidateAgent", "LLMAgent", "default_parse"]

Parse = Callable[[str, dict[str, Any]], str]
"""Maps the generated text (and the env's info) to the action sent to the env."""

# Per-call sampling seeds and the candidate sampler's RNG get streams of their own, so
# an agent seeded like the env never replays the env's randomness.
_CALL_STREAM = 0x11A6E17
_CANDIDATE_STREAM = (0xCA4D,)


def default_parse(text: str, info: dict[str, Any]) -> str:
    r"""The generated text, stripped of surrounding whitespace.

    >>> default_parse("  left\n", {})
    'left'
    """
    return text.strip()


def _is_chat(obs: Any) -> bool:
    return isinstance(obs, (list, tuple)) and all(
        isinstance(m, dict) and "role" in m and "content" in m for m in obs
    )


def _text_of(obs: Any) -> str | list[dict[str, str]]:
    """The text or chat messages an observation holds."""
    if isinstance(obs, str):
        return obs
    if isinstance(obs, dict) and isinstance(obs.get("text"), str):
        return str(obs["text"])  # games and pixel envs: {"text": ..., ...}
    if isinstance(obs, dict) and _is_chat(obs.get("messages")):
        obs = obs["messages"]  # the game twins of the chat wrappers: {"messages": [...], ...}
    if _is_chat(obs):
        return [{"role": str(m["role"]), "content": str(m["content"])} for m in obs]
    raise TypeError(
        "an LLM agent reads a str, a {'text': str} dict, a list of {'role', 'content'} "
        f"messages or a {{'messages': [...]}} dict, got {type(obs).__name__}"
    )


class _PolicyAgent(BaseAgent):
    """Prompt rendering shared by the LLM agents."""

    trainable = True
    """Its turns are the policy's own, so trainers learn from them."""

    def __init__(self, policy: Policy, system_prompt: str | None, chat: bool) -> None:
        for name in ("generate", "score", "tokenizer"):
            if not hasattr(policy, name):
                raise TypeError(
                    f"policy must implement turngym.sdk.policy.Policy (no .{name}); "
                    "build one with e.g. turngym.sdk.backends.hf.HFPolicy(model_dir)"
                )
        if system_prompt is not None and not isinstance(system_prompt, str):
            raise TypeError(f"system_prompt must be a str or None, got {system_prompt!r}")
        self.policy = policy
        self.system_prompt = system_prompt
        self.chat = chat
        self.policy_version = 0
        """Stamped on every Turn; a trainer bumps it when it updates the weights."""
        self.last_turns: list[Turn] = []
        """One Turn per observation of the last ``act``/``act_batch``/``decide_batch``."""
        if chat and not getattr(policy.tokenizer, "chat_template", None):
            raise ValueError(
                "the policy's tokenizer has no chat template; set tokenizer.chat_template "
                "or pass chat=False to prompt with plain text"
            )

    def messages(self, obs: Any) -> list[dict[str, str]]:
        """The conversation an observation stands for, system prompt first."""
        content = _text_of(obs)
        messages = [{"role": "user", "content": content}] if isinstance(content, str) else content
        if self.system_prompt is not None and (not messages or messages[0]["role"] != "system"):
            messages = [{"role": "system", "content": self.system_prompt}, *messages]
        return messages

    def render(self, obs_list: Sequence[Any]) -> list[list[int]]:
        """The prompt ids for each observation (the chat template's generation prompt last).

        Control tokens written in an observation (say ``<|im_end|>``) are encoded as plain
        text: only the template itself writes control tokens.
        """
        if not obs_list:
            return []
        conversations = [self.messages(o) for o in obs_list]
        tokenizer = self.policy.tokenizer
        if self.chat:
            ids = tokenizer.apply_chat_template(
                conversations,
                add_generation_prompt=True,
                tokenize=True,
                return_dict=False,
                sanitize_control_tokens=True,
            )
            return [list(map(int, p)) for p in ids]
        texts = ["\n\n".join(m["content"] for m in conv) for conv in conversations]
        return [list(map(int, p)) for p in tokenizer(texts)["input_ids"]]

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        """The action for one observation (``act_batch`` of one)."""
        return self.act_batch([obs], [info])[0]

    def act_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[str]:
        """One action per observation: ``decide_batch``'s, without the records."""
        return [decision.action for decision in self.decide_batch(obs, infos)]

    def decide_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[Decision]:
        """One action per observation, each with the agent's ``Turn`` of it."""
        raise NotImplementedError

    def _decided(self, actions: list[str], turns: list[Turn]) -> list[Decision]:
        self.last_turns = turns
        return [Decision(a, t) for a, t in zip(actions, turns, strict=True)]


class LLMAgent(_PolicyAgent):
    """Generates each action with a policy: one ``generate`` call per ``act_batch``.

    Args:
        policy: a ``turngym.sdk.policy.Policy`` (HF, vLLM or OpenAI-compatible backend).
        system_prompt: the system message put before every conversation.
        parse: ``parse(text, info) -> action``; default: the stripped text.
        sampling: how to sample; with a seed (here or from ``reset(seed)``) every call
            gets its own seed derived from it and the call count, so runs replay.
        chat: render with the tokenizer's chat template; False: the plain text of the
            messages joined by blank lines (base models).
        constrained: guided choice: when the env lists ``info["legal_actions"]``, decode
            only one of them (``turngym.sdk.choices``; the policy's ``generate`` must take
            ``choices=``, as ``HFPolicy`` and ``OpenAIPolicy`` do). The Turn records the
            candidates and ``constrained=True`` so trainers rebuild the same restricted
            distribution. A generation the backend says it could not guide
            (``extra["guided"] is False``: a server without guided choice) is parsed
            as free text, and its Turn is not constrained.

    Example (with a model saved by ``turngym.sdk.models.build_tiny_model``)::

        agent = LLMAgent(HFPolicy("runs/tiny"), system_prompt="Answer with one move.")
        actions = agent.act_batch(observations, infos)  # one generate call
        agent.last_turns[0].action_ids                  # the generated tokens

    """

    def __init__(
        self,
        policy: Policy,
        system_prompt: str | None = None,
        parse: Parse | None = None,
        sampling: SamplingParams | None = None,
        chat: bool = True,
        constrained: bool = False,
    ) -> None:
        super().__init__(policy, system_prompt, chat)
        self.constrained = bool(constrained)
        if self.constrained and not _takes_choices(policy):
            raise PolicyError(
                f"{type(policy).__name__}.generate does not take choices= (the Policy "
                "protocol's guided choice): constrained=True needs a backend that does, "
                "such as HFPolicy or OpenAIPolicy; or pass constrained=False"
            )
        self._choice_cache: dict[str, list[int]] = {}
        if sampling is None:
            sampling = SamplingParams()
        if not isinstance(sampling, SamplingParams):
            raise TypeError(f"sampling must be a SamplingParams, got {type(sampling).__name__}")
        if parse is not None and not callable(parse):
            raise TypeError(f"parse must be a callable (text, info) -> str, got {parse!r}")
        self.sampling = sampling
        self.parse: Parse = parse or default_parse
        self._seed = sampling.seed
        self._calls = 0

    def reset(self, seed: int | None = None) -> None:
        """Restart the per-call seeds from ``seed`` (None: keep the running sequence)."""
        if seed is not None:
            self._seed = seed
            self._calls = 0

    def _params(self) -> SamplingParams:
        if self._seed is None or self.sampling.greedy:
            return self.sampling
        seed = int(
            np.random.SeedSequence([_CALL_STREAM, self._seed, self._calls]).generate_state(1)[0]
        )
        self._calls += 1
        return replace(self.sampling, seed=seed)

    def decide_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[Decision]:
        """Generate one action per observation in ONE ``policy.generate`` call."""
        if len(obs) != len(infos):
            raise ValueError(f"{len(obs)} observations but {len(infos)} infos")
        prompts = self.render(obs)
        if not prompts:
            return self._decided([], [])
        legal = [self._legal(info) for info in infos]
        if any(cands is not None for cands in legal):
            choices = [None if c is None else self.choice_ids(c) for c in legal]
            generations = self.policy.generate(prompts, self._params(), choices=choices)
        else:
            generations = self.policy.generate(prompts, self._params())
        if len(generations) != len(prompts):
            raise PolicyError(
                f"the policy returned {len(generations)} generations for {len(prompts)} prompts"
            )
        actions = []
        turns = []
        for o, info, prompt, gen, cands in zip(
            obs, infos, prompts, generations, legal, strict=True
        ):
            if cands is not None and gen.extra.get("guided") is False:
                cands = None  # a server that cannot guide (OpenAIPolicy warned): free text
            if cands is not None:
                action = self._chosen(cands, gen.token_ids)
            else:
                action = self.parse(gen.text, info)
            if not isinstance(action, str):
                raise TypeError(f"parse must return a str, got {type(action).__name__}")
            actions.append(action)
            turns.append(
                Turn(
                    obs=o,
                    prompt_ids=prompt,
                    action_ids=list(gen.token_ids),
                    action_logprobs=list(gen.logprobs),
                    action=action,
                    trainable=self.trainable,
                    candidates=list(cands or []),
                    constrained=cands is not None,
                    policy_version=self.policy_version,
                )
            )
        return self._decided(actions, turns)

    def _legal(self, info: dict[str, Any]) -> list[str] | None:
        """The legal actions to choose among, or None for free decoding.

        A summary request (``SummarizeContext``) is answered in free text: the env's
        legal actions, still in its info, are not what the summary is chosen among.
        """
        if not self.constrained or info.get("summary_request"):
            return None
        legal = info.get("legal_actions")
        return [str(a) for a in legal] if legal else None

    def choice_ids(self, candidates: Sequence[str]) -> list[list[int]]:
        """The token sequences guided choice decodes among for ``candidates``."""
        from turngym.sdk.choices import choice_token_ids

        end = self.policy.tokenizer.eos_token_id
        if end is None:
            raise ValueError("guided choice needs the tokenizer's eos_token_id to end a choice")
        missing = [c for c in candidates if c not in self._choice_cache]
        if missing:
            for c, ids in zip(
                missing, choice_token_ids(self.policy.tokenizer, missing, end), strict=True
            ):
                self._choice_cache[c] = ids
        return [self._choice_cache[c] for c in candidates]

    def _chosen(self, candidates: list[str], token_ids: Sequence[int]) -> str:
        """The candidate whose tokens were decoded."""
        for c in candidates:
            if self._choice_cache[c] == list(token_ids):
                return c
        raise PolicyError(
            "guided choice decoded tokens that match no legal action; the backend ignored choices="
        )


def _takes_choices(policy: Any) -> bool:
    """Whether ``policy.generate`` accepts ``choices=`` (a policy written before it did not)."""
    import inspect

    try:
        params = inspect.signature(policy.generate).parameters
    except (TypeError, ValueError):  # a builtin or C callable: let the call say
        return True
    return "choices" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


class CandidateAgent(_PolicyAgent):
    """Picks among ``info["legal_actions"]`` by the policy's score of each (GLAM-style).

    Each legal action's text is scored as a continuation of the prompt (the sum of its
    tokens' log-probs); the agent samples from the softmax of the scores at
    ``temperature``, or takes the best one when ``greedy``.

    Args:
        policy: a ``turngym.sdk.policy.Policy``.
        system_prompt: the system message put before every conversation.
        temperature: softmax temperature over the summed log-probs (> 0).
        greedy: always take the highest-scoring action (first one on ties).
        seed: seeds the sampler (``reset(seed)`` reseeds it).
        chat: as in ``LLMAgent``.

    """

    def __init__(
        self,
        policy: Policy,
        system_prompt: str | None = None,
        temperature: float = 1.0,
        greedy: bool = False,
        seed: int | None = None,
        chat: bool = True,
    ) -> None:
        super().__init__(policy, system_prompt, chat)
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise ValueError(f"temperature must be a number > 0, got {temperature!r}")
        if not temperature > 0:
            raise ValueError(
                f"temperature must be > 0 (use greedy=True for argmax), got {temperature}"
            )
        self.temperature = float(temperature)
        self.greedy = bool(greedy)
        self._token_cache: dict[str, list[int]] = {}
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the sampler when a seed is given."""
        if seed is not None or not hasattr(self, "_rng"):
            self._rng = np.random.default_rng(
                np.random.SeedSequence(seed, spawn_key=_CANDIDATE_STREAM)
            )

    def tokens(self, candidate: str) -> list[int]:
        """The token ids a candidate action is scored by."""
        ids = self._token_cache.get(candidate)
        if ids is None:
            ids = list(self.policy.tokenizer(candidate, add_special_tokens=False)["input_ids"])
            if not ids:
                raise ValueError(f"the candidate action {candidate!r} has no tokens to score")
            self._token_cache[candidate] = ids
        return ids

    def probabilities(self, scores: Sequence[float]) -> np.ndarray:
        """The softmax of ``scores / temperature``."""
        z = np.asarray(scores, dtype=np.float64) / self.temperature
        z = np.exp(z - z.max())
        return np.asarray(z / z.sum())

    def decide_batch(self, obs: list[Any], infos: list[dict[str, Any]]) -> list[Decision]:
        """Score every legal action of every observation and pick one each."""
        if len(obs) != len(infos):
            raise ValueError(f"{len(obs)} observations but {len(infos)} infos")
        legal_lists = []
        for info in infos:
            legal = info.get("legal_actions")
            if not legal:
                raise ValueError(
                    "CandidateAgent needs info['legal_actions'] (a finite action set) and "
                    "this env gave none; use LLMAgent for free-form actions"
                )
            legal_lists.append([str(a) for a in legal])
        prompts = self.render(obs)
        actions, turns = [], []
        for o, prompt, legal in zip(obs, prompts, legal_lists, strict=True):
            cand_ids = [self.tokens(a) for a in legal]
            scores = [float(s) for s in self.policy.score(prompt, cand_ids)]
            if len(scores) != len(legal) or not all(math.isfinite(s) for s in scores):
                raise PolicyError(
                    f"the policy returned bad scores {scores} for {len(legal)} candidates"
                )
            if self.greedy:
                k = int(np.argmax(scores))
            else:
                k = int(self._rng.choice(len(legal), p=self.probabilities(scores)))
            actions.append(legal[k])
            turns.append(
                Turn(
                    obs=o,
                    prompt_ids=prompt,
                    action_ids=list(cand_ids[k]),
                    action=legal[k],
                    trainable=True,
                    candidates=legal,
                    candidate_logprobs=scores,
                    policy_version=self.policy_version,
                )
            )
        return self._decided(actions, turns)
