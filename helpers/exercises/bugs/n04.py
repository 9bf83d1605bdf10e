"""The bugs of 04_cross_attention's "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The softmax taken over the queries (axis 0) of the n_q × n_k scores: with n_q ≠ n_k it still runs and the
    # weights keep their shape, but each source token's column sums to 1 instead of each target token's row.
    Bug(name="04-softmax-over-target", notebook="04_cross_attention", task="attention",
        mistake="softmax_over_queries"),
]
