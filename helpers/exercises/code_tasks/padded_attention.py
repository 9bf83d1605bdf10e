"""Code task ``"padded_attention"`` (04_masking, "Find the bug"): ``fn(Q, K, V, lengths) -> (output, weights)``.

Self-attention over a padded batch, as an encoder such as BERT runs it: Q, K (batch, n, d_k) and V (batch, n, d_v),
sentence b's real tokens the first ``lengths[b]``, the rest ``<pad>``. No query gives a pad key any weight; a pad
query still attends, to the real tokens. The cases hold sentences with and without padding, one of a single real
token, and 04's own batch, so that a padding mask on the queries (rows) instead of the keys (columns), which changes
nothing for a sentence without padding, gives results of its own. Not a "Your turn": 04's find-the-bug cell is checked
as this task.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import padding_mask, scaled_dot_product_attention
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import near_30, padded_batch_qkv, small_ints
from helpers.exercises.code_tasks.learner_math import nan_softmax

__all__ = ["TASK", "my_padded_attention"]


def my_padded_attention(Q, K, V, lengths):
    """Q, K (batch, n, d_k), V (batch, n, d_v): a batch padded to n tokens, sentence b's real tokens its first
    lengths[b]. Returns (output (batch, n, d_v), weights (batch, n, n)); no query gives a pad key any weight."""
    n = Q.shape[-2]
    real = np.arange(n)[None, :] < np.asarray(lengths)[:, None]     # (batch, n): True = a real token
    mask = real[:, None, :]                                          # (batch, 1, n): the keys, the same for every query
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])       # (batch, n, n)
    scores = np.where(mask, scores, -np.inf)                         # pad keys: -inf, before the softmax
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)                  # each row sums to 1
    return weights @ V, weights                                      # (batch, n, d_v), (batch, n, n)


def _cases() -> list[Case]:
    Qb, Kb, Vb, lengths = padded_batch_qkv()
    return [
        Case("two sentences padded to 3 tokens, lengths 3 and 2, Q, K, V 2×3×2",
             (small_ints(101, (2, 3, 2)), small_ints(102, (2, 3, 2)), small_ints(103, (2, 3, 2)), np.array([3, 2]))),
        Case('the padded batch of 04 ("the cat sat", "a dog ran home fast", "birds sing"), lengths 3, 5, 2',
             (Qb, Kb, Vb, lengths)),
        Case("no padding: two sentences of 4 tokens, lengths 4 and 4",
             (small_ints(104, (2, 4, 3)), small_ints(105, (2, 4, 3)), small_ints(106, (2, 4, 2)), np.array([4, 4]))),
        Case("one real token: lengths 1 and 3, Q, K, V 2×3×2",
             (small_ints(107, (2, 3, 2)), small_ints(108, (2, 3, 2)), small_ints(109, (2, 3, 2)), np.array([1, 3]))),
        Case("large scores: lengths 2 and 3, Q, K with entries near 30",
             (near_30(110, (2, 3, 4)), near_30(111, (2, 3, 4)), small_ints(112, (2, 3, 2)),
              np.array([2, 3])), large=True),
    ]


def _reference(Q, K, V, lengths):
    return scaled_dot_product_attention(Q, K, V, mask=padding_mask(lengths, Q.shape[-2]))


def _real(lengths, n, strict=True):
    """(batch, n): True where position j of sentence b is a real token (``strict``: j < lengths[b], else <=)."""
    positions, lengths = np.arange(n)[None, :], np.asarray(lengths)[:, None]
    return positions < lengths if strict else positions <= lengths


def _attend(Q, K, V, mask=None, blocked=-np.inf, scale=None, axis=-1):
    """Batched attention with ``mask`` (broadcast against the scores; True = may attend) filled with ``blocked``
    before a softmax along ``axis``: each wrong version changes one of these."""
    with np.errstate(all="ignore"):
        scores = Q @ np.swapaxes(K, -1, -2) / (np.sqrt(Q.shape[-1]) if scale is None else scale)
        if mask is not None:
            scores = np.where(mask, scores, blocked)
        w = nan_softmax(scores, axis=axis)
        return w @ V, w


def _on_queries(blocked):
    """The padding mask shaped (batch, n, 1): whole rows (the pad queries) blocked, the pad keys left open."""
    return lambda Q, K, V, lengths: _attend(Q, K, V, _real(lengths, Q.shape[-2])[:, :, None], blocked)


def _on_keys(**change):
    """The padding mask on the keys, as it should be, with ``change`` made to :func:`_attend`'s other defaults."""
    return lambda Q, K, V, lengths: _attend(Q, K, V, _real(lengths, Q.shape[-2])[:, None, :], **change)


def _after_softmax(Q, K, V, lengths):
    w = _attend(Q, K, V)[1] * _real(lengths, Q.shape[-2])[:, None, :]
    return w @ V, w


TASK = CodeTask(
    name="padded_attention",
    cases=_cases,
    reference=_reference,
    solution=my_padded_attention,
    models=(
        ("pad_mask_on_queries", _on_queries(-np.inf)),
        ("pad_mask_on_queries", _on_queries(-1e9)),
        ("mask_ignored", lambda Q, K, V, lengths: _attend(Q, K, V)),
        ("mask_after_softmax", _after_softmax),
        ("mask_inverted", lambda Q, K, V, lengths: _attend(Q, K, V, ~_real(lengths, Q.shape[-2])[:, None, :])),
        ("pad_off_by_one", lambda Q, K, V, lengths: _attend(Q, K, V,
                                                            _real(lengths, Q.shape[-2], strict=False)[:, None, :])),
        ("no_scale", _on_keys(scale=1.0)),
        ("scale_dk", lambda Q, K, V, lengths: _on_keys(scale=Q.shape[-1])(Q, K, V, lengths)),
        ("softmax_over_queries", _on_keys(axis=-2)),
        ("order_swapped", lambda Q, K, V, lengths: _reference(Q, K, V, lengths)[::-1]),
    ),
    overflow_mistake="no_max",
)
