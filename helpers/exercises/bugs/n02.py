"""The bugs of 02_projections' "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The softmax's max and sum taken along axis 0: it runs, the shapes are right, and each column sums to 1.
    Bug(name="02-softmax-over-queries", notebook="02_projections", task="self_attention",
        mistake="softmax_over_queries",
        idea="Each query shares out its attention over the keys: row i of the weights holds query i's shares, one "
             "per key, so every row must add up to 1. Look at what the rows of this function's weights add up to, "
             "and what its columns add up to."),
    # Q @ K without the transpose: it runs whenever n = d_k (square Q and K), with weights of the right shape whose
    # rows sum to 1; the check's examples with n ≠ d_k raise, the square one gives wrong numbers.
    Bug(name="02-k-not-transposed", notebook="02_projections", task="self_attention", mistake="k_not_transposed",
        idea="Score (i, j) compares query i with key j: the dot product of row i of Q with row j of K. A matrix "
             "product A @ B pairs the rows of A with the columns of B, so ask which factor holds the keys as "
             "columns; the shapes of the two factors tell you."),
]
