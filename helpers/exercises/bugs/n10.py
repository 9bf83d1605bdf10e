"""The bugs of 10_multi_head's "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # Multi-head attention for all heads at once, the scores divided by √d_model: it runs, every shape is right, and
    # with h = 1 it is even right (d_k = d_model); with h heads each score is √h times too small.
    Bug(name="10-scale-by-d-model", notebook="10_multi_head", task="multi_head_attention", mistake="scale_dmodel",
        idea="Each head attends with its own block of d_k = d_model / h columns: each of its scores is a dot "
             "product of d_k numbers, and the scale follows from that count. Compare the numbers this code "
             "divides by with the widths it works with."),
]
