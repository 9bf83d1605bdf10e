"""The bugs of 04_masking's "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The blocked weights zeroed after the softmax: it runs, blocked keys get 0, but the rows no longer sum to 1.
    Bug(name="04-mask-after-softmax", notebook="04_masking", task="masked_attention", mistake="mask_after_softmax",
        idea="A masked query attends only to the keys it may see: its weights are shared out among those keys, so "
             "the blocked ones get 0 and the row still adds up to 1. Look at what each row of these weights adds "
             "up to, and at the step that makes rows add up to 1."),
]
