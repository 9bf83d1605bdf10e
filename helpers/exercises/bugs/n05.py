"""The bugs of 05_decoding's "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The blocked weights zeroed after the softmax: it runs, blocked keys get 0, but the rows no longer sum to 1, and
    # what is left of a row still depends on the future keys' scores.
    Bug(name="05-mask-after-softmax", notebook="05_decoding", task="masked_attention", mistake="mask_after_softmax",
        idea="A masked query attends only to the keys it may see: its weights are shared out among those keys, so "
             "the blocked ones get 0 and the row still adds up to 1, whatever the future keys' scores. Look at what "
             "each row of these weights adds up to, and at the step that makes rows add up to 1."),
]
