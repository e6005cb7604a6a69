"""The names of Reasoning Gym's datasets that turngym registers, as static data.

Registration reads these tuples without importing ``reasoning_gym`` (``import turngym``
stays light); ``tests/envs/adapters/test_reasoning_gym.py`` checks them against the
installed ``reasoning_gym.factory.DATASETS``.
"""

from __future__ import annotations

__all__ = ["LEFT_OUT", "NO_ORACLE", "REDRAWN", "TASKS"]

TASKS: tuple[str, ...] = (
    "ab",
    "acre",
    "advanced_geometry",
    "aiw",
    "arc_1d",
    "arc_agi",
    "base_conversion",
    "basic_arithmetic",
    "bf",
    "binary_alternation",
    "binary_matrix",
    "bitwise_arithmetic",
    "boxnet",
    "caesar_cipher",
    "calendar_arithmetic",
    "chain_sum",
    "circuit_logic",
    "codeio",
    "coin_flip",
    "color_cube_rotation",
    "complex_arithmetic",
    "count_bits",
    "count_primes",
    "countdown",
    "course_schedule",
    "cryptarithm",
    "decimal_arithmetic",
    "decimal_chain_sum",
    "dice",
    "emoji_mystery",
    "family_relationships",
    "figlet_font",
    "fraction_simplification",
    "futoshiki",
    "game_of_life",
    "gcd",
    "graph_color",
    "group_anagrams",
    "gsm_symbolic",
    "intermediate_integration",
    "isomorphic_strings",
    "jugs",
    "kakurasu",
    "knight_swap",
    "knights_knaves",
    "largest_island",
    "lcm",
    "leg_counting",
    "letter_counting",
    "letter_jumble",
    "list_functions",
    "mahjong_puzzle",
    "manipulate_matrix",
    "maze",
    "mini_sudoku",
    "modulo_grid",
    "n_queens",
    "needle_haystack",
    "number_filtering",
    "number_format",
    "number_sequence",
    "number_sorting",
    "palindrome_generation",
    "palindrome_partitioning",
    "path_star",
    "polynomial_equations",
    "polynomial_multiplication",
    "pool_matrix",
    "power_function",
    "prime_factorization",
    "products",
    "propositional_logic",
    "puzzle24",
    "quantum_lock",
    "ransom_note",
    "rearc",
    "rectangle_count",
    "rotate_matrix",
    "rotten_oranges",
    "rubiks_cube",
    "rush_hour",
    "self_reference",
    "sentence_reordering",
    "shortest_path",
    "simple_equations",
    "simple_geometry",
    "simple_integration",
    "sokoban",
    "spell_backward",
    "spiral_matrix",
    "string_insertion",
    "string_manipulation",
    "string_splitting",
    "string_synthesis",
    "sudoku",
    "survo",
    "syllogism",
    "time_intervals",
    "tower_of_hanoi",
    "tsumego",
    "word_ladder",
    "word_sequence_reversal",
    "word_sorting",
    "zebra_puzzles",
)
"""Every dataset of reasoning-gym 0.1.25 but those in ``LEFT_OUT``, in name order."""

LEFT_OUT: dict[str, str] = {
    "composite": "a mixture of the other datasets that needs a list of them as config; "
    "register the datasets themselves instead",
    "game_of_life_halting": "its score_answer gives 1.0 to any non-empty answer "
    "(bool('False') is True), so the reward would pay for any text",
}
"""Datasets not registered, and why."""

NO_ORACLE: frozenset[str] = frozenset(
    {"boxnet", "graph_color", "propositional_logic", "rubiks_cube", "rush_hour"}
)
"""Datasets whose entries carry no answer (``entry["answer"] is None``): many answers are
right and the scorer checks them, so there is no oracle expert for these ids."""

REDRAWN: dict[str, str] = {
    "string_insertion": "the answer was the question's string unchanged in 95 of 100 "
    "questions (no pattern in it): copying it back won",
    "rotate_matrix": "a quarter of the rotations are by a multiple of 360 degrees: "
    "copying the matrix back won",
    "string_manipulation": "in a quarter of the questions no rule applies: copying the "
    "string back won",
    "pool_matrix": "in about 12 of 100 questions the pooled matrix is the matrix given "
    "(a 1x1 kernel): copying it back won",
    "binary_matrix": "in about 5 of 100 questions every 1 is next to a 0, so the distance "
    "matrix is the matrix given: copying it back won",
    "rearc": "in 14 of 100 questions the output grid is the test input: copying it won "
    "(and 30 of 100 answers stand in the question)",
    "arc_1d": "in about 8 of 100 questions the answer stands in the question (4 of 100 "
    "won by copying its last line)",
    "word_sorting": "in about 3 of 100 questions the words come sorted: copying them won",
    "sentence_reordering": "in about 3 of 100 questions the words come in order: copying "
    "them won",
}
"""Datasets whose questions are redrawn (from the env's RNG) while the answer stands in
the question as written (``answer_guard.copies_input``), and why."""
