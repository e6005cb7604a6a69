"""Single-agent text tasks (FrozenLake, Sokoban, Bandit, Wordle, ...)."""
