"""Code task ``"padding_causal_mask"`` (04_masking): ``fn(lengths, n)`` -> bool (b, n, n), a decoder's batch mask.

``mask[b, i, j]`` is True where query i of sentence b may attend to key j: key j is a real token of sentence b
(``j < lengths[b]``) and not after the query (``j <= i``). A pad query still attends, to the real tokens before it.
Probes: a batch of one sentence and a batch of as many sentences as tokens (so that a padding mask without its query
axis broadcasts and gives its own wrong numbers), ``lengths`` as a list (as 04 writes it) and as an array.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask, padding_mask
from helpers.exercises.code_tasks.engine import Case, CodeTask

__all__ = ["TASK", "my_padding_causal_mask"]


def my_padding_causal_mask(lengths, n):
    """lengths: the real length of each of b sentences (a list or an array), each padded to n tokens.
    Returns bool (b, n, n): entry [b, i, j] is True where query i of sentence b may attend to key j."""
    positions = np.arange(n)
    real = positions[None, :] < np.asarray(lengths)[:, None]     # (b, n): key j is a real token of sentence b
    not_later = positions[None, :] <= positions[:, None]         # (n, n): key j is not after query i
    return real[:, None, :] & not_later                          # (b, 1, n) & (n, n) -> (b, n, n)


def _cases() -> list[Case]:
    return [
        Case("two sentences, lengths [2, 3], padded to n = 3", ([2, 3], 3)),
        Case("04's batch: lengths [3, 5, 2], n = 5", ([3, 5, 2], 5)),
        Case("a batch of one sentence: lengths [2], n = 4", ([2], 4)),
        Case("as many sentences as tokens: lengths [3, 1, 2], n = 3", ([3, 1, 2], 3)),
        Case("lengths as an array, np.array([4, 1]), n = 6", (np.array([4, 1]), 6)),
    ]


def _reference(lengths, n):
    return causal_mask(n) & padding_mask(np.asarray(lengths), n)


def _real(lengths, n, extra: int = 0):
    """(b, n): True where key j is one of the first ``lengths[b] + extra`` tokens."""
    return np.arange(n)[None, :] < np.asarray(lengths)[:, None] + extra


def _with_causal(triangle):
    """The padding right, its causal part ``triangle(n)`` (bool (n, n)) instead of the lower triangle."""
    return lambda lengths, n: _real(lengths, n)[:, None, :] & triangle(n)


def _list_refused(lengths, n):
    """Right for an array of lengths; a list raises, as indexing it with [:, None] does."""
    if isinstance(lengths, list):
        raise TypeError("list indices must be integers or slices, not tuple")
    return _reference(lengths, n)


def _per_sentence(lengths, n, block):
    """(b, n, n): ``block(n)`` for every sentence."""
    return np.broadcast_to(block(n), (len(np.asarray(lengths)), n, n)).copy()


TASK = CodeTask(
    name="padding_causal_mask",
    cases=_cases,
    reference=_reference,
    solution=my_padding_causal_mask,
    models=(
        ("lengths_as_array", _list_refused),
        ("padding_left_out", lambda lengths, n: _per_sentence(lengths, n, causal_mask)),
        ("padding_left_out", lambda lengths, n: causal_mask(n)),
        ("causal_left_out", lambda lengths, n: _per_sentence(lengths, n, lambda m: np.ones((m, m), dtype=bool))
         & _real(lengths, n)[:, None, :]),
        ("pad_rows_not_keys", lambda lengths, n: _real(lengths, n)[:, :, None] & causal_mask(n)),
        # With the causal mask, blocking the pad rows alone or the pad rows and the pad keys is the same mask.
        ("pad_off_by_one", lambda lengths, n: _real(lengths, n, 1)[:, None, :] & causal_mask(n)),
        ("pad_off_by_one", lambda lengths, n: _real(lengths, n, -1)[:, None, :] & causal_mask(n)),
        ("masks_or", lambda lengths, n: _real(lengths, n)[:, None, :] | causal_mask(n)),
        ("causal_upper", _with_causal(lambda n: np.triu(np.ones((n, n), dtype=bool)))),
        ("causal_no_diagonal", _with_causal(lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1))),
        ("causal_blocked", _with_causal(lambda n: np.triu(np.ones((n, n), dtype=bool), k=1))),
        ("mask_all_inverted", lambda lengths, n: ~_reference(lengths, n)),
        ("causal_additive", lambda lengths, n: np.where(_reference(lengths, n), 0.0, -np.inf)),
        ("mask_not_bool", lambda lengths, n: _reference(lengths, n).astype(int)),
        ("mask_not_bool", lambda lengths, n: _reference(lengths, n).astype(float)),
        # (b, n) & (n, n): runs when b is 1 or n, and gives an (n, n) mask lining sentences up with queries.
        ("pad_no_query_axis", lambda lengths, n: _real(lengths, n) & causal_mask(n)),
    ),
)
