"""The bugs of 08_pitfalls' "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # d_k read as W_q.shape[0], which is d_model (W_q is d_model × d_k): the scores are divided by √d_model. It runs,
    # every shape is right, and the weights are only flatter than they should be.
    Bug(name="08-scale-by-d-model", notebook="08_pitfalls", task="self_attention", mistake="scale_dmodel",
        idea="The scores are divided by the square root of the number of terms in each dot product q · k, so that "
             "their spread does not grow with that number. Which width is that here, and which matrix's shape "
             "does this code read it from?"),
]
