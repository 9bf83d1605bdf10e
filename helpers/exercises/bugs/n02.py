"""The bugs of 02_projections' "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The softmax's max and sum taken along axis 0: it runs, the shapes are right, and each column sums to 1.
    Bug(name="02-softmax-over-queries", notebook="02_projections", task="self_attention",
        mistake="softmax_over_queries"),
    # Q @ K without the transpose: it runs whenever n = d_k (square Q and K), with weights of the right shape whose
    # rows sum to 1; the check's examples with n ≠ d_k raise, the square one gives wrong numbers.
    Bug(name="02-k-not-transposed", notebook="02_projections", task="self_attention", mistake="k_not_transposed"),
]
