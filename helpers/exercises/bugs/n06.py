"""The bugs of 06_cross_attention's "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The softmax taken over the queries (axis 0) of the n_q × n_k scores: with n_q ≠ n_k it still runs and the
    # weights keep their shape, but each source token's column sums to 1 instead of each target token's row.
    Bug(name="06-softmax-over-target", notebook="06_cross_attention", task="attention",
        mistake="softmax_over_queries",
        idea="Each target token (a query, a row of the weights) shares out its attention over the source tokens "
             "(the keys, the columns), so each of the n_q rows must add up to 1, whatever n_q and n_k are. Look "
             "at what this function's rows add up to, and its columns."),
]
