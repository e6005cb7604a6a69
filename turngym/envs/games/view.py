"""``GameView``: one seat of a multi-agent game as a single-agent Gymnasium text env.

``gym.make("turngym/TicTacToe-v0", opponent="expert", seat=1)`` builds the game, seats
the agent, and lets the opponents (``"random"``, ``"expert"`` or any ``Agent``) act
inside ``step`` until it is the agent's turn again. It follows the text-env contract
(ARCHITECTURE.md section 3): string observations (what the seat reads), string
actions, ``info["legal_actions"]``, ``invalid_action``, ``success`` and ``turn``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from turngym.envs.games.base import TextGame
from turngym.spaces import Unicode

__all__ = ["GameView"]

# Opponent agents get their own seed stream, apart from the game's and the agent's.
_OPPONENT_STREAM = (0x0990,)


class _RandomMover:
    """The ``"random"`` opponent: ``game.sample_action`` with a seeded RNG of its own."""

    def __init__(self, game: TextGame[Any]) -> None:
        self.game = game
        self.rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        return self.game.sample_action(self.rng)


class GameView(gym.Env[str, str]):
    """Play one seat of a ``TextGame`` against built-in or given opponents.

    Args:
        game: the game class (or a ``module:Class`` string) to build.
        opponent: ``"random"`` (the game's ``sample_action``: uniform legal actions, or
            random well-formed ones in free-form games), ``"expert"`` (the game's
            registered expert) or an ``Agent`` with ``act(obs, info) -> str``; one
            agent plays every other seat.
        seat: the agent's seat, ``0``, ``1``, ... or ``"random"`` (drawn per episode).
        expert: ``module:Class`` of the game's expert (set by the registry).
        render_mode: ``"ansi"`` or ``"human"``: the game's full-state rendering.
        **game_kwargs: passed to the game (``invalid_action_penalty``, rules...).

    Example:
        >>> import gymnasium as gym
        >>> import turngym
        >>> env = gym.make("turngym/TicTacToe-v0", opponent="expert", seat=0)
        >>> obs, info = env.reset(seed=0)
        >>> info["legal_actions"][:3]
        ['a1', 'b1', 'c1']
        >>> obs, reward, terminated, truncated, info = env.step("b2")
        >>> "player_1 (O) marked" in obs
        True

    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        game: str | type[TextGame[Any]],
        opponent: Any = "random",
        seat: int | str = 0,
        expert: str | None = None,
        render_mode: str | None = None,
        **game_kwargs: Any,
    ) -> None:
        # gymnasium's loader of "module:attr" strings: the registry's is a layer above envs
        from gymnasium.envs.registration import load_env_creator as load

        cls = load(game) if isinstance(game, str) else game
        if not (isinstance(cls, type) and issubclass(cls, TextGame)):
            raise ValueError(f"game must be a TextGame class or 'module:Class', got {game!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported; use 'ansi' or 'human'")
        self.game: TextGame[Any] = cls(render_mode="ansi", **game_kwargs)
        n = self.game.n
        if seat != "random" and (isinstance(seat, bool) or seat not in range(n)):
            raise ValueError(f"seat must be one of {list(range(n))} or 'random', got {seat!r}")
        if isinstance(opponent, str) and opponent not in ("random", "expert"):
            raise ValueError(
                f"opponent must be 'random', 'expert' or an agent with act(obs, info), "
                f"got {opponent!r}"
            )
        if not isinstance(opponent, str) and not callable(getattr(opponent, "act", None)):
            raise ValueError(f"opponent {opponent!r} has no act(obs, info) method")
        if opponent == "expert" and expert is None:
            raise ValueError(f"{cls.__name__} has no registered expert; use opponent='random'")
        self.seat_choice = seat
        self.render_mode = render_mode
        self.observation_space = Unicode(self.game.max_obs_length)
        self.action_space = Unicode(self.game.max_action_length)
        self._opponent_kind = opponent
        self._expert_path = expert
        self.opponent: Any = None
        self.seat = 0 if seat == "random" else int(seat)
        self._started = False

    @property
    def agent(self) -> str:
        """The agent's name in the game (``player_<seat>``)."""
        return self.game.possible_agents[self.seat]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Seat the agent, start the game and play the opponents up to its first turn."""
        super().reset(seed=seed)
        if self.seat_choice == "random":
            self.seat = int(self.np_random.integers(self.game.n))
        game_seed = int(self.np_random.integers(2**63 - 1))
        self.game.reset(seed=game_seed, options=options)
        if self.opponent is None:
            self.opponent = self._build_opponent()
        opponent_seed = np.random.SeedSequence(game_seed, spawn_key=_OPPONENT_STREAM)
        self.opponent.reset(seed=int(opponent_seed.generate_state(1)[0]))
        self._started = True
        self._play_opponents()
        obs, _, _, _, info = self._last()
        self._maybe_print()
        return obs, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play the agent's action, then the opponents' turns; a bad action never raises."""
        if not self._started:
            raise gym.error.ResetNeeded("Call reset() before step().")
        game = self.game
        if not game.agents or game.terminations.get(self.agent, True):
            obs, _, terminated, truncated, info = self._last()
            info = {**info, "invalid_action": True, "invalid_reason": "the game is over"}
            return "The game is over; call reset() to play again.", 0.0, True, False, info
        game.step(action)
        self._play_opponents()
        obs, reward, terminated, truncated, info = self._last()
        self._maybe_print()
        return obs, reward, terminated, truncated, info

    def render(self) -> str | None:
        """The game's full state (all hidden information) as text."""
        if self.render_mode is None:
            return None
        text = self.game.render() if self._started else "(call reset() first)"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # -- plumbing ------------------------------------------------------------------------

    def _build_opponent(self) -> Any:
        from gymnasium.envs.registration import load_env_creator

        load: Any = load_env_creator  # it loads any "module:attr", not only env creators

        if self._opponent_kind == "random":
            return _RandomMover(self.game)
        if self._opponent_kind == "expert":
            return load(str(self._expert_path))(self.game)
        return self._opponent_kind

    def _play_opponents(self) -> None:
        """Let the other seats act until it is the agent's turn or the game ends."""
        game, me = self.game, self.agent
        while game.agents and game.agent_selection != me:
            other = game.agent_selection
            if game.terminations[other] or game.truncations[other]:
                game.step(None)
                continue
            obs = game.observe(other)
            game.step(self.opponent.act(obs["text"], game.infos[other]))

    def _last(self) -> tuple[str, float, bool, bool, dict[str, Any]]:
        game, me = self.game, self.agent
        obs = game.observe(me)["text"]
        reward = float(game._cumulative_rewards.get(me, 0.0))
        terminated = bool(game.terminations.get(me, True))
        truncated = bool(game.truncations.get(me, False))
        info = dict(game.infos.get(me, {}))
        info["success"] = game.success(me)
        info["seat"] = self.seat
        if game.over:
            info["returns"] = game.returns
        return obs, reward, terminated, truncated, info

    def _maybe_print(self) -> None:
        if self.render_mode == "human":
            print(self.game.render())
