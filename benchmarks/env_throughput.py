"""Env throughput under random legal play: turngym next to its peers, one JSON line each.

For every row of ``turngym.registry.ENVS`` (made with ``gym.make``, standard wrappers
included) and for every peer implementation of the same game in ``PEERS`` (raw
Gymnasium toy_text envs, TextArena, GEM), the same loop plays uniformly random legal
actions from consecutive reset seeds for a time budget (or a number of episodes) and
prints one JSON line: episodes/s and steps/s over wall time, and steps/s over the time
spent inside the env's own reset/step calls only (``env_steps_per_s``), so the random
agent's cost is left out. A peer that is not installed, or lacks the env, gets a
``{"skipped": reason}`` line instead.

    python benchmarks/env_throughput.py --seconds 3
    .venv-peers/bin/python benchmarks/env_throughput.py --envs Wordle,FrozenLake

See ``benchmarks/README.md`` for the peer virtualenv.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import platform
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

import turngym
from turngym.agents import RandomAgent
from turngym.registry import ENVS, EnvEntry

# Episodes that never end (a bug, or a peer without a turn limit) must not hang a run.
MAX_EPISODE_STEPS = 10_000

# The env seeds its RNG from SeedSequence(seed); an agent RNG seeded with the same
# integer would replay that stream and mirror the env's hidden choices.
_AGENT_SPAWN_KEY = (0xBE7C4,)

_DIST = {"turngym": "turngym", "gymnasium": "gymnasium", "textarena": "textarena", "gem": "gem-llm"}


class PeerUnavailable(Exception):
    """The implementation cannot be measured here (not installed, no such env, no data)."""


class PeerEnv(Protocol):
    """What the benchmark loop needs from one implementation of one env."""

    def reset(self, seed: int) -> None:
        """Start an episode from ``seed``; keep whatever the next step needs."""

    def legal_actions(self) -> Sequence[Any] | None:
        """Actions to draw from uniformly now; None when the action set is open text."""

    def step(self, action: Any) -> bool:
        """Play ``action`` (and read the next observation); True when the episode ended."""


# -- adapters --------------------------------------------------------------------------


class TurngymEnv:
    """A turngym id through ``gym.make``; actions from ``info["legal_actions"]``."""

    def __init__(self, env_id: str, **kwargs: Any) -> None:
        self.env = gym.make(env_id, **kwargs)
        self.id = env_id
        self._info: dict[str, Any] = {}

    def reset(self, seed: int) -> None:
        _, self._info = self.env.reset(seed=seed)

    def legal_actions(self) -> Sequence[Any] | None:
        return self._info.get("legal_actions") or None

    def step(self, action: Any) -> bool:
        _, _, terminated, truncated, self._info = self.env.step(action)
        return bool(terminated or truncated)


class GymnasiumEnv:
    """A raw Gymnasium env with a Discrete action space; any action index is legal."""

    def __init__(self, name: str) -> None:
        from gymnasium.envs.registration import find_highest_version

        version = find_highest_version(None, name)
        if version is None:
            raise PeerUnavailable(f"gymnasium {gym.__version__} registers no {name} env")
        self.id = f"{name}-v{version}"
        self.env = gym.make(self.id)
        space = self.env.action_space
        if not isinstance(space, gym.spaces.Discrete):
            raise PeerUnavailable(f"{self.id} has a {type(space).__name__} action space")
        self._actions = list(range(int(space.n)))

    def reset(self, seed: int) -> None:
        self.env.reset(seed=seed)

    def legal_actions(self) -> Sequence[Any] | None:
        return self._actions

    def step(self, action: Any) -> bool:
        _, _, terminated, truncated, _ = self.env.step(action)
        return bool(terminated or truncated)


class TextArenaEnv:
    """A TextArena single-player env, played as ``reset``/``get_observation``/``step``.

    TextArena's default ``LLMObservationWrapper`` never clears its message list on
    reset, so one env reused across episodes hands every earlier episode's text to
    the next and slows down episode after episode. The raw env is built once and
    the id's own default wrappers are put on afresh for each episode: the cost of a
    fresh ``ta.make(id)`` per game minus the constructor (Wordle's loads a dictionary).
    """

    def __init__(self, env_id: str, actions: Callable[[Any], list[str]]) -> None:
        try:
            import textarena as ta
            from textarena.envs.registration import ENV_REGISTRY
        except ImportError as exc:
            raise PeerUnavailable(f"textarena is not importable ({exc})") from exc
        if env_id not in ENV_REGISTRY:
            raise PeerUnavailable(f"textarena has no env {env_id!r}")
        self.id = env_id
        try:
            self._raw = ta.make(f"{env_id}-raw")
        except LookupError as exc:  # nltk corpora missing (no network to fetch them)
            raise PeerUnavailable(_missing_data(exc)) from exc
        self._wrappers = list(ENV_REGISTRY[env_id].default_wrappers or [])
        self._actions = actions(self._raw)
        self._env: Any = None

    num_players = 1

    def reset(self, seed: int) -> None:
        env = self._raw
        for wrapper in self._wrappers:
            env = wrapper(env)
        self._env = env
        env.reset(num_players=self.num_players, seed=seed)
        env.get_observation()

    def legal_actions(self) -> Sequence[Any] | None:
        return self._actions

    def step(self, action: Any) -> bool:
        done, _ = self._env.step(action)
        if done:
            self._env.close()  # returns the rewards; part of finishing a game
        else:
            self._env.get_observation()
        return bool(done)


class TextArenaSelfPlayEnv(TextArenaEnv):
    """A TextArena two-player game, both seats played by the benchmark's random agent.

    One step is one player's move; the legal actions are read afresh before each.
    """

    num_players = 2

    def __init__(self, env_id: str, actions: Callable[[Any], list[str]]) -> None:
        super().__init__(env_id, lambda env: [])  # no game state before the first reset
        self._pick = actions

    def legal_actions(self) -> Sequence[Any] | None:
        return self._pick(self._raw)


class GemEnv:
    """A GEM env from ``gem.make`` (no observation wrapper): gymnasium-style 5-tuples."""

    def __init__(self, env_id: str, actions: Callable[[Any], list[str]]) -> None:
        try:
            import gem
            from gem.envs.registration import ENV_REGISTRY
        except ImportError as exc:
            raise PeerUnavailable(f"gem is not importable ({exc})") from exc
        if env_id not in ENV_REGISTRY:
            raise PeerUnavailable(f"gem has no env {env_id!r}")
        self.id = env_id
        try:
            self.env = gem.make(env_id)
        except LookupError as exc:  # nltk corpora missing (no network to fetch them)
            raise PeerUnavailable(_missing_data(exc)) from exc
        self._pick = actions
        self._actions: list[str] = []

    def reset(self, seed: int) -> None:
        self.env.reset(seed=seed)
        self._actions = self._pick(self.env)

    def legal_actions(self) -> Sequence[Any] | None:
        return self._actions

    def step(self, action: Any) -> bool:
        _, _, terminated, truncated, _ = self.env.step(action)
        return bool(terminated or truncated)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _missing_data(exc: LookupError) -> str:
    text = _ANSI.sub("", str(exc))
    found = re.search(r"Resource (\S+) not found", text)
    if found is None:
        return f"LookupError: {text.strip()[:200]}"
    return (
        f"nltk data {found.group(1)!r} is not installed and could not be downloaded; "
        "see benchmarks/README.md (python -m nltk.downloader ...)"
    )


# -- the peer table ----------------------------------------------------------------------


@dataclass(frozen=True)
class Peer:
    """One implementation of a logical env that turngym also has (or will have)."""

    impl: str
    """``gymnasium``, ``textarena`` or ``gem``"""
    id: str
    """the env id in that implementation (Gymnasium: the name; its newest version is used)"""
    make: Callable[[], PeerEnv]
    note: str = ""
    """how its actions were generated, and how its task differs from turngym's"""


def _brackets(words: Sequence[str]) -> list[str]:
    return [f"[{w}]" for w in words]


def _boxed(words: Sequence[str]) -> list[str]:
    return [f"\\boxed{{{w}}}" for w in words]


_TEXT_NOTE = "random 1-32 char text (RandomAgent): the env lists no legal actions"
_MOVES = ("up", "down", "left", "right")
_DIRECTIONS_NOTE = "uniform over the 4 directions; moving into a wall counts as invalid there"


def _ta(env_id: str, actions: Callable[[Any], list[str]], note: str) -> Peer:
    return Peer("textarena", env_id, lambda: TextArenaEnv(env_id, actions), note)


def _gem(env_id: str, actions: Callable[[Any], list[str]], note: str) -> Peer:
    return Peer("gem", env_id, lambda: GemEnv(env_id, actions), note)


def _gym(name: str, note: str = "uniform over the Discrete action space") -> Peer:
    return Peer("gymnasium", name, lambda: GymnasiumEnv(name), note)


PEERS: dict[str, tuple[Peer, ...]] = {
    "Bandit": (
        _ta(
            "Bandit-v0",
            lambda env: _brackets(env.buttons),
            "uniform over its buttons; a different task: 5 buttons, 20 pulls, then a guess",
        ),
    ),
    "Blackjack": (
        _gym("Blackjack"),
        _ta(
            "Blackjack-v0",
            lambda env: ["[Hit]", "[Stand]"],
            "uniform over [Hit]/[Stand]; one episode is 5 hands",
        ),
    ),
    "CliffWalking": (_gym("CliffWalking"),),
    "Chess": (
        Peer(
            "turngym",
            "turngym/Chess-v0",
            lambda: TurngymEnv("turngym/Chess-v0", opponent=_random_chess_mover()),
            "opponent= hook playing random legal moves instead of Stockfish, to compare the "
            "env itself with TextArena's: one step is two plies",
        ),
        Peer(
            "textarena",
            "Chess-v0",
            lambda: TextArenaSelfPlayEnv(
                "Chess-v0",
                lambda env: [f"[{m.uci()}]" for m in env.state.game_state["board"].legal_moves],
            ),
            "two random players, no engine: one step is one ply, while turngym's step is the "
            "agent's ply plus the opponent's reply",
        ),
    ),
    "Countdown": (
        _ta(
            "Countdown-v0",
            lambda env: [
                f"[{i} {j} {op}]" for i in range(6) for j in range(6) if i != j for op in "+-*/"
            ],
            "random [i j op] steps from a fixed list (its pool shrinks, so many are invalid "
            "there); multi-turn, while turngym's default is one expression",
        ),
        _gem("rg:countdown", lambda env: [], f"{_TEXT_NOTE}; one answer per episode"),
    ),
    "FrozenLake": (
        _gym("FrozenLake"),
        _ta("FrozenLake-v0", lambda env: _brackets(_MOVES), _DIRECTIONS_NOTE),
    ),
    "Sokoban": (
        _ta("Sokoban-v0", lambda env: _brackets(_MOVES), f"{_DIRECTIONS_NOTE}; 6x6, 3 boxes"),
        _gem(
            "game:Sokoban-v0-easy",
            lambda env: _boxed(_MOVES),
            f"{_DIRECTIONS_NOTE}; 6x6, 2 boxes, 20 turns",
        ),
    ),
    "Taxi": (_gym("Taxi"),),
    "Wordle": (
        _ta(
            "Wordle-v0",
            lambda env: _brackets(env.word_list),
            "random words from its own secret-word list (env.word_list)",
        ),
        _gem(
            "game:Wordle-v0-hard",
            lambda env: _boxed([w.upper() for w in env.available_words]),
            "random words from its own list (env.available_words); 5 letters, 25 turns",
        ),
    ),
}


def _random_chess_mover() -> Callable[[Any], Any]:
    """An ``opponent=`` hook for Chess-v0 that plays uniformly random legal moves."""
    rng = np.random.default_rng(np.random.SeedSequence(0, spawn_key=_AGENT_SPAWN_KEY))

    def move(board: Any) -> Any:
        moves = list(board.legal_moves)
        return moves[int(rng.integers(len(moves)))]

    return move


def logical_name(e: EnvEntry) -> str:
    """``turngym/Wordle-v0`` -> ``Wordle``: the name peers are filed under."""
    return e.name.rsplit("-v", 1)[0]


# -- measuring ---------------------------------------------------------------------------


def measure(
    env: PeerEnv, seed: int, seconds: float, episodes: int | None
) -> dict[str, float | int]:
    """Play random legal actions from seeds ``seed, seed+1, ...``; time the env calls.

    One warm-up episode (on ``seed``) is played first and not counted, so lazy imports
    and first-call caches do not land in the numbers.
    """
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=_AGENT_SPAWN_KEY))
    text_agent = RandomAgent(seed=seed)  # random text where an env lists no actions

    def episode(ep_seed: int) -> tuple[int, float, float]:
        """Steps, seconds in reset, seconds in reset + steps."""
        clock = time.perf_counter
        t0 = clock()
        env.reset(ep_seed)
        in_reset = spent = clock() - t0
        for n in range(1, MAX_EPISODE_STEPS + 1):
            legal = env.legal_actions()
            action = legal[int(rng.integers(len(legal)))] if legal else text_agent.act("", {})
            t0 = clock()
            done = env.step(action)
            spent += clock() - t0
            if done:
                return n, in_reset, spent
        return MAX_EPISODE_STEPS, in_reset, spent

    episode(seed)
    n_episodes = n_steps = 0
    env_seconds = reset_seconds = 0.0
    start = time.perf_counter()

    def more() -> bool:
        if episodes is not None:
            return n_episodes < episodes
        return time.perf_counter() - start < seconds

    while more():
        steps, in_reset, spent = episode(seed + n_episodes)
        n_episodes += 1
        n_steps += steps
        reset_seconds += in_reset
        env_seconds += spent
    wall = time.perf_counter() - start
    return {
        "episodes": n_episodes,
        "steps": n_steps,
        "seconds": round(wall, 4),
        "env_seconds": round(env_seconds, 4),
        "episodes_per_s": round(n_episodes / wall, 2),
        "steps_per_s": round(n_steps / wall, 1),
        "env_steps_per_s": round(n_steps / env_seconds, 1),
        "mean_episode_len": round(n_steps / n_episodes, 3),
        "mean_reset_ms": round(1000 * reset_seconds / n_episodes, 4),
    }


def _version(impl: str) -> str | None:
    try:
        return importlib.metadata.version(_DIST[impl])
    except importlib.metadata.PackageNotFoundError:
        return turngym.__version__ if impl == "turngym" else None


def run_one(
    logical: str, impl: str, env_id: str, make: Callable[[], PeerEnv], args: argparse.Namespace
) -> dict[str, Any]:
    """Build and measure one implementation; a line to print either way."""
    head: dict[str, Any] = {"bench": "env_throughput", "env": logical, "impl": impl, "id": env_id}
    # Peers print warnings and download notices to stdout; stdout is for JSON only.
    with contextlib.redirect_stdout(sys.stderr):
        try:
            env = make()
        except PeerUnavailable as exc:
            return {**head, "skipped": str(exc)}
        except Exception as exc:
            # A broken peer release is not our failure; a turngym env that cannot be made is.
            key = "error" if impl == "turngym" else "skipped"
            return {**head, key: f"could not build it: {type(exc).__name__}: {exc}"}
        head["id"] = getattr(env, "id", env_id)
        try:
            stats = measure(env, args.seed, args.seconds, args.episodes)
        except Exception as exc:
            return {**head, "error": f"{type(exc).__name__}: {exc}"}
    return {**head, **stats, "python": platform.python_version(), "version": _version(impl)}


MINIWOB_SAMPLE = "miniwob.click-test-v0"


def stands_in(e: EnvEntry, seen: set[str]) -> bool:
    """Whether a default run measures row ``e`` (``seen``: the adapter groups met so far).

    The 108 MiniWoB rows share one env class: click-test stands for them
    (benchmarks/web_throughput.py measures the browser layer). An adapter suite's rows
    (``openspiel.*``, ``minihack.*``, ...) share one class each: the first row of each
    group stands for it (benchmarks/adapter_overhead.py times the adapters).
    """
    if e.name.startswith("miniwob."):
        return e.name == MINIWOB_SAMPLE
    if e.suite is None:
        return True
    if e.suite == "textworld":  # a game is made per new seed (seconds each): when named only
        return False
    group = e.name.split(".", 1)[0] if "." in e.name else e.name
    if group in seen:
        return False
    seen.add(group)
    return True


def _wanted(filters: set[str] | None, *names: str) -> bool:
    return filters is None or any(n.lower() in filters for n in names)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print one JSON line per measurement; 1 if any run failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget per env")
    parser.add_argument("--episodes", type=int, default=None, help="episodes per env instead")
    parser.add_argument("--envs", default=None, help="comma list, e.g. Wordle,Bandit-v0")
    parser.add_argument("--no-peers", action="store_true", help="measure turngym only")
    parser.add_argument("--seed", type=int, default=0, help="first reset seed")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or (args.episodes is not None and args.episodes < 1):
        parser.error("--seconds must be > 0 and --episodes >= 1")
    filters = {s.strip().lower() for s in args.envs.split(",")} if args.envs else None

    runs: list[tuple[str, str, str, Callable[[], PeerEnv], str]] = []
    groups: set[str] = set()
    for e in ENVS:
        if filters is None and not stands_in(e, groups):  # --envs names any row
            continue
        if _wanted(filters, logical_name(e), e.name, e.id):
            note = "uniform over info['legal_actions']" if e.finite_actions else _TEXT_NOTE
            runs.append((logical_name(e), "turngym", e.id, _turngym_factory(e.id), note))
    if not args.no_peers:
        for logical, peers in PEERS.items():
            for p in peers:
                if _wanted(filters, logical, p.id):
                    runs.append((logical, p.impl, p.id, p.make, p.note))

    failed = False
    for logical, impl, env_id, make, note in runs:
        line = run_one(logical, impl, env_id, make, args)
        if note and "skipped" not in line:
            line["note"] = note
        failed = failed or "error" in line
        print(json.dumps(line), flush=True)
    return 1 if failed else 0


def _turngym_factory(env_id: str) -> Callable[[], PeerEnv]:
    def make() -> PeerEnv:
        try:
            return TurngymEnv(env_id)
        except ImportError as exc:  # an optional extra (browser, docker, ...) is missing
            raise PeerUnavailable(f"{type(exc).__name__}: {exc}") from exc

    return make


if __name__ == "__main__":
    sys.exit(main())
