"""The bugs of 06_pitfalls' "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # d_k read as W_q.shape[0], which is d_model (W_q is d_model × d_k): the scores are divided by √d_model. It runs,
    # every shape is right, and the weights are only flatter than they should be.
    Bug(name="06-scale-by-d-model", notebook="06_pitfalls", task="self_attention", mistake="scale_dmodel"),
]
