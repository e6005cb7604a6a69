"""Collect ``Episode`` records from N envs or N games, batching every step's actions.

``collect`` runs N single-agent envs in lockstep: at each step every active env's
observation goes to the agent in ONE ``act_batch`` call (so an ``LLMAgent`` makes one
``generate`` call per step), and an env starts its next episode as soon as one ends,
until the requested number of episodes is done. ``collect_games`` does the same for
PettingZoo games, with every seat mapped to an agent: all games' current players that
share an agent act in one call. Episodes come in groups of ``group_size`` that share a
seed (one task, for group baselines such as GRPO).

Agents are given as an ``Agent`` (shared by every env: it must not read one env's
private state), a factory ``env -> Agent`` (one agent per env, e.g. a scripted expert
that reads its env's state) or a name for ``turngym.sdk.agents.make_agent`` (``"random"``,
``"expert"``, ``"hf:DIR"``...).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from turngym.agents.base import Agent
from turngym.progress import progress
from turngym.sdk.records import Decision, Episode, Turn

__all__ = [
    "AgentSpec",
    "Collector",
    "GameCollector",
    "GameProgress",
    "collect",
    "collect_games",
    "decide",
    "make_turn",
]

AgentSpec = Agent | Callable[[Any], Agent] | str
"""An ``Agent`` shared by all envs, a factory ``env -> Agent`` or a ``make_agent`` name."""

# Per-env agents (factories) are reseeded for every episode; this keeps their seeds
# apart from the env seeds, which group members share.
_AGENT_SEED_MIX = 0x9E3779B1


# A game twin reports a seat's context change when the seat next observes; like a
# single-agent step's info, the seat's previous Turn.info gets it (ARCHITECTURE.md s. 5).
_CONTEXT_NEWS = ("context_event", "segment", "summary_request")


def _episode_agent_seed(seed: int, k: int) -> int:
    return (seed * _AGENT_SEED_MIX + k + 1) % 2**63


def _is_agent(spec: Any) -> bool:
    return not isinstance(spec, type) and callable(getattr(spec, "act_batch", None))


def _resolve(
    spec: AgentSpec, env: Any, env_id: str | None, shared: dict[str, Agent]
) -> tuple[Agent, bool]:
    """The agent ``spec`` gives for ``env``, and whether it was built for this env only.

    Agents built for one env are reseeded at each of its episodes; shared ones once per
    collection (their stream then runs through every env in a fixed order).
    """
    if isinstance(spec, str):
        from turngym.sdk.agents import make_agent

        if spec.startswith(("hf:", "openai:")):  # one model serves every env
            if spec not in shared:
                shared[spec] = make_agent(spec, env)
            return shared[spec], False
        if spec == "expert" and env_id:
            return make_agent(spec, env, env_id=env_id), True
        return make_agent(spec, env), True
    if _is_agent(spec):
        return spec, False  # type: ignore[return-value]
    if callable(spec):
        agent = spec(env)
        if not _is_agent(agent):
            raise TypeError(f"the agent factory returned {type(agent).__name__}, not an Agent")
        return agent, True
    raise TypeError(
        f"expected an Agent, a factory env -> Agent or an agent name, got {type(spec).__name__}"
    )


def make_turn(obs: Any, seen: dict[str, Any], decision: Decision, agent: Any, who: str) -> Turn:
    """The Turn of ``who``'s decision (reward and outcome are filled in after the step).

    ``seen`` is the info the action answered. An agent that records its turns
    (``decide_batch``: an LLM agent's tokens and log-probs) gave its own Turn with the
    action; that Turn is the record, completed here with what the env knows.
    """
    turn = decision.turn if decision.turn is not None else Turn()
    turn.obs = obs
    turn.action = decision.action
    turn.agent = who
    turn.segment = int(seen.get("segment", 0) or 0)
    turn.state_key = seen.get("state_key")
    turn.trainable = bool(getattr(agent, "trainable", False)) or turn.trainable
    return turn


def decide(agent: Agent, obs: list[Any], infos: list[dict[str, Any]]) -> list[Decision]:
    """``agent``'s decisions for a batch: its ``decide_batch``, else its bare actions.

    Raises:
        ValueError: the agent answered with another number of actions than observations.

    """
    recording = getattr(agent, "decide_batch", None)
    if callable(recording):
        decisions = list(recording(obs, infos))
    else:
        batch = getattr(agent, "act_batch", None)
        if callable(batch):
            actions = batch(obs, infos)
        else:  # an agent of act alone (the viewer's seats may be)
            actions = [agent.act(o, i) for o, i in zip(obs, infos, strict=True)]
        decisions = [Decision(a) for a in actions]
        turns = getattr(agent, "last_turns", None)
        if isinstance(turns, list) and len(turns) == len(decisions) and turns:
            warnings.warn(
                f"{type(agent).__name__} leaves its records on last_turns; return them with "
                "the actions from decide_batch (a list of turngym.sdk.records.Decision): "
                "last_turns is read for one more release",
                DeprecationWarning,
                stacklevel=2,
            )
            decisions = [Decision(d.action, t) for d, t in zip(decisions, turns, strict=True)]
    if len(decisions) != len(obs):
        raise ValueError(
            f"{type(agent).__name__} returned {len(decisions)} actions for {len(obs)} observations"
        )
    return decisions


def _act(agents: list[Agent], obs: list[Any], infos: list[dict[str, Any]]) -> list[Decision]:
    """Each slot's decision: one batch per distinct agent."""
    by_agent: dict[int, list[int]] = {}
    for i, agent in enumerate(agents):
        by_agent.setdefault(id(agent), []).append(i)
    out: list[Decision] = [Decision("")] * len(agents)
    for slots in by_agent.values():
        decisions = decide(agents[slots[0]], [obs[i] for i in slots], [infos[i] for i in slots])
        for j, i in enumerate(slots):
            out[i] = decisions[j]
    return out


def _check_counts(episodes: int, group_size: int) -> None:
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 0:
        raise ValueError(f"episodes must be an int >= 0, got {episodes!r}")
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError(f"group_size must be an int >= 1, got {group_size!r}")
    if episodes % group_size:
        raise ValueError(
            f"episodes ({episodes}) must be a multiple of group_size ({group_size}): "
            "every group shares one seed and needs all its members"
        )


def _env_id(env: Any) -> str:
    """The registered id of an env or game object (its class name when unregistered)."""
    spec = getattr(env, "spec", None)
    if spec is not None:
        return str(spec.id)
    inner = getattr(env, "unwrapped", env)
    target = f"{type(inner).__module__}:{type(inner).__name__}"
    from turngym.registry import ENVS

    for row in ENVS:  # a game made with make_game, or an env built from its class
        if target == (row.game or row.entry_point):
            return row.id
    return type(inner).__name__


@dataclass
class GameProgress:
    """A game's episode in progress: its turns, and who is to move with what they see.

    The one place a game's rewards are credited to turns and a finished seat's last turn
    learns how it ended; ``GameCollector`` and the viewer's play page both use it.
    """

    obs: Any = None
    info: dict[str, Any] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)
    last_turn: dict[str, Turn] = field(default_factory=dict)
    early: dict[str, float] = field(default_factory=dict)
    returns: dict[str, float] = field(default_factory=dict)
    final_obs: dict[str, Any] = field(default_factory=dict)
    seat: str = "agent"

    def credit(self, seat: str, reward: float) -> None:
        """Add ``reward`` to ``seat``'s return and last turn (before its first: kept for it)."""
        self.returns[seat] = self.returns.get(seat, 0.0) + reward
        last = self.last_turn.get(seat)
        if last is not None:
            last.reward += reward
        else:
            self.early[seat] = self.early.get(seat, 0.0) + reward

    def play(self, game: Any, turn: Turn, action: Any) -> None:
        """Step ``game`` with the current seat's ``action`` and record ``turn`` for it."""
        seat = self.seat
        if seat not in self.last_turn:  # rewards it got before its first turn
            turn.reward = self.early.pop(seat, 0.0)
        game.step(action)
        turn.info = dict(game.infos.get(seat, {}))
        self.turns.append(turn)
        self.last_turn[seat] = turn

    def settle(self, game: Any, max_turns: int | None) -> bool:
        """Run ``game`` to its next live seat (``seat``, ``obs``, ``info``); True when over.

        Rewards are credited as they come; a seat that is done gets its final
        observation and its last turn's ending; past ``max_turns`` every seat is truncated.
        """
        while True:
            if not game.agents:
                return True
            seat = game.agent_selection
            obs, reward, terminated, truncated, info = game.last()
            self.credit(seat, float(reward))
            if terminated or truncated:
                last = self.last_turn.get(seat)
                if last is not None:
                    last.terminated = last.terminated or bool(terminated)
                    last.truncated = last.truncated or bool(truncated)
                    last.info = {**last.info, **info}
                self.final_obs[seat] = obs
                game.step(None)
                continue
            if max_turns is not None and len(self.turns) >= max_turns:
                for s, last in self.last_turn.items():
                    last.truncated = True
                    self.final_obs.setdefault(s, game.observe(s))
                return True
            last = self.last_turn.get(seat)
            if last is not None:  # what became of its context since that turn
                news = {k: info[k] for k in _CONTEXT_NEWS if k in info}
                last.info = {**last.info, **news}
            self.seat, self.obs, self.info = seat, obs, info
            return False


@dataclass
class _Live(GameProgress):
    """One env's (or game's) episode in progress."""

    index: int = 0
    group: int = 0
    seed: int = 0


class Collector:
    """Runs ``num_envs`` single-agent envs in lockstep and returns finished Episodes.

    Args:
        env: a registered env id (``num_envs`` copies are made), a list of envs or a
            ``gymnasium.vector.SyncVectorEnv`` (its sub-envs are driven one by one so
            every episode gets its own seed).
        agent: an ``Agent`` shared by every env, a factory ``env -> Agent`` or a
            ``make_agent`` name (``"random"``, ``"expert"``, ``"hf:DIR"``).
        num_envs: how many envs to make from an id.
        env_kwargs: passed to ``turngym.make`` with an id.
        wrappers: wrapper specs (``turngym.wrappers.specs``, innermost first) put around
            each env made from an id.
        max_turns: cut an episode after this many turns (truncated); None: the env's
            own time limit only.
        desc: the progress bar's label.
        progress: show a progress bar (on a terminal); trainers turn it off.
        env_threads: step the envs of a turn at once on this many threads (envs that
            wait on a browser or a sandbox overlap their waiting); None: one per env
            when the envs say they gain from it (``concurrent_steps``, e.g. the web
            envs), else 1. Episodes are the same either way.

    Example:
        >>> from turngym.agents import RandomAgent
        >>> collector = Collector("turngym/Bandit-v0", RandomAgent(seed=0), num_envs=2)
        >>> episodes = collector.collect(4, seed=0, group_size=2)
        >>> [(ep.group, ep.seed) for ep in episodes]
        [(0, 0), (0, 0), (1, 1), (1, 1)]

    """

    def __init__(
        self,
        env: str | Sequence[gym.Env] | gym.vector.SyncVectorEnv,
        agent: AgentSpec,
        num_envs: int = 8,
        env_kwargs: dict[str, Any] | None = None,
        max_turns: int | None = None,
        desc: str | None = None,
        progress: bool = True,
        env_threads: int | None = None,
        wrappers: Sequence[str] = (),
    ) -> None:
        if env_threads is not None and (
            isinstance(env_threads, bool) or not isinstance(env_threads, int) or env_threads < 1
        ):
            raise ValueError(f"env_threads must be an int >= 1 or None, got {env_threads!r}")
        if max_turns is not None and (not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"max_turns must be an int >= 1 or None, got {max_turns!r}")
        self._owned = isinstance(env, str)
        if isinstance(env, str):
            if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
                raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
            import turngym
            from turngym.wrappers.specs import wrap_env

            self.env_id = env if "/" in env else f"turngym/{env}"
            self.envs: list[gym.Env] = [
                wrap_env(turngym.make(self.env_id, **(env_kwargs or {})), wrappers)
                for _ in range(num_envs)
            ]
        elif isinstance(env, gym.vector.SyncVectorEnv):
            self.envs = list(env.envs)
            self.env_id = _env_id(self.envs[0])
        elif isinstance(env, gym.vector.VectorEnv):
            raise ValueError(
                f"{type(env).__name__} resets its envs itself, so episodes cannot get their "
                "own seeds; pass a SyncVectorEnv, a list of envs or an env id"
            )
        else:
            self.envs = list(env)
            if not self.envs:
                raise ValueError("no envs given")
            self.env_id = _env_id(self.envs[0])
        self.max_turns = max_turns
        self.desc = desc or self.env_id
        self.progress = progress
        shared: dict[str, Agent] = {}
        resolved = [_resolve(agent, e, self.env_id, shared) for e in self.envs]
        self.agents = [a for a, _ in resolved]
        self._per_env = {id(a) for a, own in resolved if own}
        if env_threads is None:
            gains = all(
                getattr(getattr(e, "unwrapped", e), "concurrent_steps", False) for e in self.envs
            )
            env_threads = len(self.envs) if gains else 1
        self.env_threads = min(env_threads, len(self.envs))
        self._pool = (
            ThreadPoolExecutor(self.env_threads, thread_name_prefix="turngym-collect")
            if self.env_threads > 1
            else None
        )

    def collect(self, episodes: int, seed: int = 0, group_size: int = 1) -> list[Episode]:
        """Play ``episodes`` episodes, returned in the order they started.

        Episode ``k`` is in group ``k // group_size`` and resets its env with seed
        ``seed + group``.
        """
        _check_counts(episodes, group_size)
        run = self._run(episodes, seed, group_size)
        done = list(progress(run, total=episodes, desc=self.desc) if self.progress else run)
        done.sort(key=lambda ep: ep.index)
        return done

    def _run(self, episodes: int, seed: int, group_size: int) -> Iterator[Episode]:
        for agent in {id(a): a for a in self.agents if id(a) not in self._per_env}.values():
            agent.reset(seed=seed)
        slots: list[_Live | None] = [None] * len(self.envs)
        started = 0

        def start(i: int) -> None:
            nonlocal started
            if started >= episodes:
                slots[i] = None
                return
            k, started = started, started + 1
            group = k // group_size
            live = _Live(index=k, group=group, seed=seed + group)
            agent = self.agents[i]
            if id(agent) in self._per_env:
                agent.reset(seed=_episode_agent_seed(seed, k))
            live.obs, live.info = self.envs[i].reset(seed=live.seed)
            slots[i] = live

        for i in range(len(self.envs)):
            start(i)
        while True:
            active = [i for i, s in enumerate(slots) if s is not None]
            if not active:
                return
            lives = [slots[i] for i in active]
            acted = _act(
                [self.agents[i] for i in active],
                [s.obs for s in lives if s is not None],
                [s.info for s in lives if s is not None],
            )
            actions = [decision.action for decision in acted]
            if self._pool is not None:
                results = list(self._pool.map(lambda i, a: self.envs[i].step(a), active, actions))
            else:
                results = [self.envs[i].step(a) for i, a in zip(active, actions, strict=True)]
            for i, decision, result in zip(active, acted, results, strict=True):
                live = slots[i]
                assert live is not None
                turn = make_turn(live.obs, live.info, decision, self.agents[i], "agent")
                obs, reward, terminated, truncated, info = result
                turn.reward = float(reward)
                turn.terminated = bool(terminated)
                turn.truncated = bool(truncated) or (
                    self.max_turns is not None and len(live.turns) + 1 >= self.max_turns
                )
                turn.info = dict(info)
                live.turns.append(turn)
                live.obs, live.info = obs, info
                if turn.terminated or turn.truncated:
                    yield Episode(
                        env_id=self.env_id,
                        seed=live.seed,
                        group=live.group,
                        turns=live.turns,
                        returns={"agent": sum(t.reward for t in live.turns)},
                        success=bool(info.get("success", False)),
                        final_obs={"agent": obs},
                        index=live.index,
                    )
                    start(i)

    def set_training_step(self, step: int) -> int:
        """Tell every env's wrappers the training step (``turngym.wrappers.training_step``).

        Trainers call it before each collection; returns how many wrappers took it.
        """
        from turngym.wrappers.training_step import set_training_step

        return sum(set_training_step(env, step) for env in self.envs)

    def close(self) -> None:
        """Close the envs this collector made (envs passed in are the caller's)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        if self._owned:
            for env in self.envs:
                env.close()


def collect(
    env: str | Sequence[gym.Env] | gym.vector.SyncVectorEnv,
    agent: AgentSpec,
    episodes: int,
    seed: int = 0,
    group_size: int = 1,
    num_envs: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
    max_turns: int | None = None,
    wrappers: Sequence[str] = (),
) -> list[Episode]:
    """Play ``episodes`` episodes of a single-agent env with batched actions.

    ``num_envs`` envs run in lockstep (default: up to 16), each under ``wrappers``; see
    ``Collector``.

    >>> from turngym.agents import RandomAgent
    >>> eps = collect("turngym/Bandit-v0", RandomAgent(seed=0), episodes=3, seed=7)
    >>> [ep.seed for ep in eps]
    [7, 8, 9]
    """
    n = num_envs if num_envs is not None else max(1, min(episodes, 16))
    collector = Collector(
        env, agent, num_envs=n, env_kwargs=env_kwargs, max_turns=max_turns, wrappers=wrappers
    )
    try:
        return collector.collect(episodes, seed=seed, group_size=group_size)
    finally:
        collector.close()


class GameCollector:
    """Runs ``num_games`` PettingZoo games in lockstep, every seat played by an agent.

    Each round, every game's player to move acts; the players that share an agent
    (self-play: one agent on every seat) act in ONE ``act_batch`` call. Turns are
    recorded per seat: a turn's reward is everything its seat received until its next
    turn or the end of the game (rewards before a seat's first turn go to that turn),
    so each seat's turn rewards sum to its return. A turn's ``info`` is the seat's
    ``infos`` after its move, with what a context wrapper (``ChatHistoryGame``...) said
    of the seat's next observation (``context_event``, ``segment``,
    ``summary_request``), as a single-agent step's info says of its observation.

    Args:
        game: a registered game id (``num_games`` copies via ``turngym.make_game``) or
            a list of AEC envs.
        agents: one ``AgentSpec`` for every seat (self-play) or a dict seat -> spec.
        num_games: how many games to make from an id.
        game_kwargs: passed to ``turngym.make_game`` with an id.
        wrappers: wrapper specs whose game twins (``turngym.wrappers.specs.wrap_game``)
            go around each game made from an id.
        max_turns: end a game after this many turns (all seats truncated); default:
            the registered ``max_episode_steps`` with an id, else unlimited.
        desc: the progress bar's label.
        progress: show a progress bar (on a terminal); trainers turn it off.

    Example:
        >>> from turngym.agents import RandomAgent
        >>> episodes = GameCollector("turngym/TicTacToe-v0", RandomAgent(seed=0)).collect(2)
        >>> sorted(episodes[0].returns)
        ['player_0', 'player_1']

    """

    def __init__(
        self,
        game: str | Sequence[Any],
        agents: AgentSpec | dict[str, AgentSpec],
        num_games: int = 8,
        game_kwargs: dict[str, Any] | None = None,
        max_turns: int | None = None,
        desc: str | None = None,
        progress: bool = True,
        wrappers: Sequence[str] = (),
    ) -> None:
        if max_turns is not None and (not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"max_turns must be an int >= 1 or None, got {max_turns!r}")
        self._owned = isinstance(game, str)
        if isinstance(game, str):
            if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
                raise ValueError(f"num_games must be an int >= 1, got {num_games!r}")
            import turngym
            from turngym.registry import entry
            from turngym.wrappers.specs import wrap_game

            self.env_id = game if "/" in game else f"turngym/{game}"
            self.games = [
                wrap_game(turngym.make_game(self.env_id, **(game_kwargs or {})), wrappers)
                for _ in range(num_games)
            ]
            if max_turns is None:
                max_turns = entry(self.env_id).max_episode_steps
        else:
            self.games = list(game)
            if not self.games:
                raise ValueError("no games given")
            self.env_id = _env_id(self.games[0])
        self.max_turns = max_turns
        self.desc = desc or self.env_id
        self.progress = progress
        seats = list(self.games[0].possible_agents)
        if isinstance(agents, dict):
            missing = [s for s in seats if s not in agents]
            extra = [s for s in agents if s not in seats]
            if missing or extra:
                raise ValueError(
                    f"agents must map every seat {seats} to an agent; missing {missing}, "
                    f"unknown {extra}"
                )
            specs: dict[str, AgentSpec] = dict(agents)
        else:
            specs = dict.fromkeys(seats, agents)
        shared: dict[str, Agent] = {}
        self.seat_agents: list[dict[str, Agent]] = []
        self._per_env: set[int] = set()
        for g in self.games:
            resolved = {s: _resolve(specs[s], g, self.env_id, shared) for s in seats}
            self.seat_agents.append({s: a for s, (a, _) in resolved.items()})
            self._per_env.update(id(a) for a, own in resolved.values() if own)

    def collect(self, episodes: int, seed: int = 0, group_size: int = 1) -> list[Episode]:
        """Play ``episodes`` games, returned in the order they started.

        Game ``k`` is in group ``k // group_size`` and is reset with seed ``seed + group``.
        """
        _check_counts(episodes, group_size)
        run = self._run(episodes, seed, group_size)
        done = list(progress(run, total=episodes, desc=self.desc) if self.progress else run)
        done.sort(key=lambda ep: ep.index)
        return done

    def _run(self, episodes: int, seed: int, group_size: int) -> Iterator[Episode]:
        every = {id(a): a for seats in self.seat_agents for a in seats.values()}
        for key, agent in every.items():
            if key not in self._per_env:
                agent.reset(seed=seed)
        slots: list[_Live | None] = [None] * len(self.games)
        started = 0

        def start(i: int) -> None:
            nonlocal started
            if started >= episodes:
                slots[i] = None
                return
            k, started = started, started + 1
            group = k // group_size
            live = _Live(index=k, group=group, seed=seed + group)
            for n, agent in enumerate(self.seat_agents[i].values()):
                if id(agent) in self._per_env:
                    agent.reset(seed=_episode_agent_seed(seed, k) + n)
            self.games[i].reset(seed=live.seed)
            slots[i] = live

        def settle(i: int) -> Episode | None:
            """Run the game to its next live player; the Episode when it is over."""
            live = slots[i]
            assert live is not None
            return self._episode(i, live) if live.settle(self.games[i], self.max_turns) else None

        for i in range(len(self.games)):
            start(i)
        while True:
            for i in range(len(self.games)):
                while slots[i] is not None:
                    ep = settle(i)
                    if ep is None:
                        break
                    yield ep
                    start(i)
            active = [i for i, s in enumerate(slots) if s is not None]
            if not active:
                return
            lives = [s for s in slots if s is not None]
            agents = [self.seat_agents[i][s.seat] for i, s in zip(active, lives, strict=True)]
            acted = _act(agents, [s.obs for s in lives], [s.info for s in lives])
            for i, live, agent, decision in zip(active, lives, agents, acted, strict=True):
                turn = make_turn(live.obs, live.info, decision, agent, live.seat)
                live.play(self.games[i], turn, decision.action)

    def _episode(self, i: int, live: _Live) -> Episode:
        game = self.games[i]
        seats = self.seat_agents[i]
        inner = getattr(game, "unwrapped", game)
        won = getattr(inner, "success", None)
        learners = [s for s, a in seats.items() if getattr(a, "trainable", False)] or list(seats)

        def success(seat: str) -> bool:
            if callable(won):
                return bool(won(seat))
            return live.returns.get(seat, 0.0) > 0

        for seat in seats:
            live.returns.setdefault(seat, 0.0)
        return Episode(
            env_id=self.env_id,
            seed=live.seed,
            group=live.group,
            turns=live.turns,
            returns=dict(live.returns),
            success=any(success(s) for s in learners),
            final_obs=live.final_obs,
            index=live.index,
            meta={"seats": {s: type(a).__name__ for s, a in seats.items()}},
        )

    def set_training_step(self, step: int) -> int:
        """Tell every game's wrappers the training step (``turngym.wrappers.training_step``)."""
        from turngym.wrappers.training_step import set_training_step

        return sum(set_training_step(game, step) for game in self.games)

    def close(self) -> None:
        """Close the games this collector made."""
        if self._owned:
            for game in self.games:
                game.close()


def collect_games(
    game: str | Sequence[Any],
    agents: AgentSpec | dict[str, AgentSpec],
    episodes: int,
    seed: int = 0,
    group_size: int = 1,
    num_games: int | None = None,
    game_kwargs: dict[str, Any] | None = None,
    max_turns: int | None = None,
) -> list[Episode]:
    """Play ``episodes`` games with batched actions; see ``GameCollector``.

    >>> from turngym.agents import RandomAgent
    >>> eps = collect_games("turngym/KuhnPoker-v0", RandomAgent(seed=0), episodes=2)
    >>> all(sum(ep.returns.values()) == 0 for ep in eps)
    True
    """
    n = num_games if num_games is not None else max(1, min(episodes, 16))
    collector = GameCollector(
        game, agents, num_games=n, game_kwargs=game_kwargs, max_turns=max_turns
    )
    try:
        return collector.collect(episodes, seed=seed, group_size=group_size)
    finally:
        collector.close()
