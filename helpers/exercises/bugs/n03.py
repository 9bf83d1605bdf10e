"""The bugs of 03_masking's "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The blocked weights zeroed after the softmax: it runs, blocked keys get 0, but the rows no longer sum to 1.
    Bug(name="03-mask-after-softmax", notebook="03_masking", task="masked_attention", mistake="mask_after_softmax"),
]
