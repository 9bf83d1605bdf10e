"""The bugs of 04_masking's "Find the bug" cells."""

from __future__ import annotations

from helpers.exercises.bugs import Bug

BUGS = [
    # The real-token mask of a padded batch shaped (batch, n, 1) instead of (batch, 1, n): it broadcasts along the keys,
    # so it blocks the pad queries' rows and leaves the pad keys open. It runs and every shape is right; a sentence
    # without padding comes out right; the real queries read the pad keys, and the pad queries' rows are nan.
    Bug(name="04-padding-on-queries", notebook="04_masking", task="padded_attention", mistake="pad_mask_on_queries",
        idea="No query may read a pad token: in the weights of sentence b (Queries ↓, Keys →), which entries must be "
             "0, rows or columns? A pad query still attends, to the real tokens. Then look at the shape the mask is "
             "given, and at which axis of the scores each of its axes lines up with."),
]
