"""Adapters that expose other projects' environments under turngym's contract.

One module per library (OpenSpiel, minigrid's BabyAI, Crafter, NLE/MiniHack, TextWorld,
Reasoning Gym); each imports its library lazily, inside the env, so ``import turngym``
and registration import none of them. The registry rows are in ``turngym.registry``,
one module per suite (``turngym/registry/openspiel.py``...).
"""
