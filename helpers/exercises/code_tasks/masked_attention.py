"""Code task ``"masked_attention"`` (04_masking): ``fn(Q, K, V, mask) -> (output, weights)``.

mask is bool (n_q, n_k), True = may attend. Probes: causal masks, padding (the last keys blocked for every
query), cross-attention with a padded source, and an irregular mask that no triangle explains.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask, scaled_dot_product_attention
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import K_M, Q_M, V_M, cross_qkv, near_30, six_token_qkv, small_ints
from helpers.exercises.code_tasks.learner_math import attend, nan_softmax, scaled_scores
from helpers.exercises.code_tasks.softmax import softmax_mixed_axes

__all__ = ["TASK", "my_masked_attention"]


def my_masked_attention(Q, K, V, mask):
    """Like my_attention; mask (n_q, n_k) bool, True = may attend. Returns (output, weights)."""
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    scores = np.where(mask, scores, -np.inf)                      # blocked keys: -inf, before the softmax
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))   # exp(-inf) = 0
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ V, weights


def _cases() -> list[Case]:
    Q, K, V = six_token_qkv()
    pad = np.ones((6, 6), dtype=bool)
    pad[:, 4:] = False  # the last two keys are padding
    Qc, Kc, Vc = cross_qkv()
    src_pad = np.ones((6, 4), dtype=bool)
    src_pad[:, 3] = False
    irregular = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]], dtype=bool)
    return [
        Case("the masked example (04), Q 3×4, K 3×4, V 3×2, causal mask", (Q_M, K_M, V_M, causal_mask(3))),
        Case("the six-token example (02), causal mask", (Q, K, V, causal_mask(6))),
        Case("the six-token example, the last two keys padding", (Q, K, V, pad)),
        Case("cross-attention (06), 6 queries × 4 keys, the last key padding", (Qc, Kc, Vc, src_pad)),
        Case("the masked example (04) with the mask [[1,0,1],[1,1,0],[0,1,1]]", (Q_M, K_M, V_M, irregular)),
        Case("large scores, causal mask",
             (near_30(31, (3, 4)), near_30(32, (3, 4)), small_ints(33, (3, 2)),
              causal_mask(3)),
             large=True),
    ]


def _reference(Q, K, V, mask):
    return scaled_dot_product_attention(Q, K, V, mask=mask)


def _after_softmax(Q, K, V, mask):
    w = nan_softmax(scaled_scores(Q, K)) * mask
    return w @ V, w


def _after_softmax_renormalised(Q, K, V, mask):
    """The blocked weights zeroed after the softmax, each row then divided by its new sum."""
    with np.errstate(all="ignore"):
        w = nan_softmax(scaled_scores(Q, K)) * mask
        w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w


def _inverted(blocked):
    """The mask read the wrong way round: ``blocked`` (−inf or −1e9) put where it is True."""
    def model(Q, K, V, mask):
        return attend(np.where(mask, blocked, scaled_scores(Q, K)), V)
    return model


def _masked_wrong_axis(Q, K, V, mask):
    w = nan_softmax(np.where(mask, scaled_scores(Q, K), -np.inf), axis=0)
    return w @ V, w


def _masked_mixed_axes(Q, K, V, mask):
    with np.errstate(all="ignore"):
        w = softmax_mixed_axes(np.where(mask, scaled_scores(Q, K), -np.inf))
    return w @ V, w


def _masked_weights_at_k(Q, K, V, mask):
    w = _reference(Q, K, V, mask)[1]
    return w @ K, w


TASK = CodeTask(
    name="masked_attention",
    cases=_cases,
    reference=_reference,
    solution=my_masked_attention,
    models=(
        ("mask_ignored", lambda Q, K, V, mask: attend(scaled_scores(Q, K), V)),
        ("mask_after_softmax", _after_softmax),
        ("mask_inverted", _inverted(-np.inf)),
        ("mask_inverted", _inverted(-1e9)),
        ("mask_inverted_additive", lambda Q, K, V, mask: attend(scaled_scores(Q, K) + mask * -1e9, V)),
        ("mask_after_softmax_renormalised", _after_softmax_renormalised),
        ("mask_multiplied", lambda Q, K, V, mask: attend(scaled_scores(Q, K) * mask, V)),
        ("mask_added", lambda Q, K, V, mask: attend(scaled_scores(Q, K) + mask, V)),
        ("order_swapped", lambda Q, K, V, mask: _reference(Q, K, V, mask)[::-1]),
        ("no_scale", lambda Q, K, V, mask: attend(np.where(mask, Q @ K.T, -np.inf), V)),
        ("scale_dk", lambda Q, K, V, mask: attend(np.where(mask, Q @ K.T / Q.shape[-1], -np.inf), V)),
        ("softmax_over_queries", _masked_wrong_axis),
        ("softmax_mixed_axes", _masked_mixed_axes),
        ("weights_at_K", _masked_weights_at_k),
    ),
    overflow_mistake="no_max",
)
