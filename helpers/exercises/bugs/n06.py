"""The bugs of 06_cross_attention's "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The scores divided by d_k, not √d_k: it runs, every shape is right, each row sums to 1; the weights are only
    # flatter than they should be (with d_k = 2, each score is √2 times too small).
    Bug(name="06-scale-by-d-k", notebook="06_cross_attention", task="attention", mistake="scale_dk",
        idea="The scores are scaled so that their spread does not grow with the width d_k of a query and a key: a "
             "dot product of d_k terms has a spread that grows like the square root of d_k. Compare the number this "
             "code divides by with the formula at the top of this notebook."),
]
