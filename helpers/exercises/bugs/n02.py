"""The bugs of 02_projections' "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The softmax's max and sum taken along axis 0: it runs, the shapes are right, and each column sums to 1.
    Bug(name="02-softmax-over-queries", notebook="02_projections", task="self_attention",
        mistake="softmax_over_queries"),
]
