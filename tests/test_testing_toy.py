"""turngym.testing.toy: the tiny envs trainer tests and benchmarks use."""

from __future__ import annotations

from turngym.testing.toy import GuessNumber


def test_bisection_always_wins_and_bad_guesses_are_invalid_not_errors():
    for seed in range(20):
        env = GuessNumber()
        _, info = env.reset(seed=seed)
        low, high, reward, done = 1, 5, 0.0, False
        while not done:
            guess = (low + high) // 2
            obs, reward, done, _, info = env.step(str(guess))
            low, high = env.low, env.high
        assert reward == 1.0 and info["success"], seed
    env = GuessNumber()
    env.reset(seed=0)
    obs, reward, done, truncated, info = env.step("seven")
    assert info["invalid_action"] and reward == 0.0 and not done and not truncated
    assert "2 guesses left" in obs and info["legal_actions"] == ["1", "2", "3", "4", "5"]
    env.step("x")
    assert env.step("y")[2]  # the third guess ends the episode, valid or not
