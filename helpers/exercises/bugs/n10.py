"""The bugs of 10_multi_head's "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # Multi-head attention for all heads at once, the heads' outputs (h, n, d_k) reshaped straight to (n, d_model):
    # it runs, every shape is right, and with h = 1 it is even right; with h heads a row of the merged output holds
    # several tokens of one head instead of one token's h heads.
    Bug(name="10-merge-without-moving-heads-back", notebook="10_multi_head", task="multi_head_attention",
        mistake="merge_no_transpose",
        idea="The merge undoes the split: row i of the result must hold token i's outputs from every head, head 0's "
             "d_k numbers first. A reshape keeps the numbers in the order they sit in memory. Ask what that order is "
             "for an array of shape (h, n, d_k), and what it must be before the reshape to (n, d_model)."),
]
