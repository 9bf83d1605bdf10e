"""Code task ``"masked_attention"`` (04_masking): ``fn(Q, K, V, mask) -> (output, weights)``.

mask is bool (n_q, n_k), True = may attend. Probes: causal masks, padding (the last keys blocked for every
query), cross-attention with a padded source, and an irregular mask that no triangle explains.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask, scaled_dot_product_attention
from helpers.exercises.code_tasks.attention import NO_SCALE, ORDER_SWAPPED, OVER_QUERIES, SCALE_DK, WEIGHTS_AT_K
from helpers.exercises.code_tasks.engine import Case, CodeTask, Mistake
from helpers.exercises.code_tasks.examples import K_M, Q_M, V_M, cross_qkv, near_30, six_token_qkv, small_ints
from helpers.exercises.code_tasks.learner_math import attend, nan_softmax, scaled_scores
from helpers.exercises.code_tasks.softmax import MIXED_AXES, NO_MAX, softmax_mixed_axes

__all__ = ["TASK", "my_masked_attention", "MASK_AFTER_SOFTMAX", "MASK_AFTER_SOFTMAX_RENORMALISED", "MASK_INVERTED",
           "MASK_INVERTED_ADDITIVE", "MASK_IGNORED", "MASK_MULTIPLIED", "MASK_ADDED"]

MASK_AFTER_SOFTMAX = Mistake(
    "mask_after_softmax", "the mask applied after the softmax",
    "Blocked keys must get −inf in the scores before the softmax; zeroing weights afterwards leaves "
    "rows that no longer sum to 1.",
    '04_masking, "Worked example: masked attention, every step"')
MASK_AFTER_SOFTMAX_RENORMALISED = Mistake(
    "mask_after_softmax_renormalised",
    "the mask applied after the softmax, then each row divided by its new sum: the row's max includes blocked keys",
    "In exact arithmetic this gives the right weights, but the softmax subtracts each row's max over every key, "
    "blocked ones included. When a blocked key's score is far above the allowed ones, exp of every allowed score "
    "underflows to 0 and the row becomes 0/0 = nan. Block the scores before the softmax (−inf where the mask is "
    "False): the max is then taken over the keys the query may read.",
    '04_masking, "Worked example: masked attention, every step"; 08_pitfalls, "Numerical stability: the max trick"')
MASK_INVERTED = Mistake(
    "mask_inverted", "the mask inverted (blocking where it is True)",
    "True means 'may attend': the −inf goes where the mask is False, and the score stays where it is True.",
    '04_masking, "The causal mask in two forms"')
MASK_INVERTED_ADDITIVE = Mistake(
    "mask_inverted_additive", "the additive mask inverted: −10⁹ added where the mask is True",
    "True means 'may attend', so mask * -1e9 pushes down exactly the keys the query may read and leaves the blocked "
    "ones: the weight goes to the blocked keys (and a row where every key is allowed is shifted as a whole, so it "
    "stays as if unmasked). The −10⁹ belongs where the mask is False.",
    '04_masking, "The causal mask in two forms"; 08_pitfalls, "Masked scores: −10⁹ or −∞?"')
MASK_IGNORED = Mistake(
    "mask_ignored", "the mask ignored",
    "Use the mask: where it is False, the scaled score becomes −inf (np.where picks between the two), before the "
    "softmax.",
    '04_masking, "Worked example: masked attention, every step"')
MASK_MULTIPLIED = Mistake(
    "mask_multiplied", "the scores multiplied by the mask (blocked scores become 0, not −inf)",
    "A score of 0 still gets weight exp(0) > 0: a blocked score must be −inf (np.where picks it where the mask is "
    "False).",
    '04_masking, "Worked example: masked attention, every step"')
MASK_ADDED = Mistake(
    "mask_added", "the boolean mask added to the scores",
    "True/False add 1/0 to the scores. A blocked score must be −inf: pick between the score and −inf by the mask "
    "(np.where).",
    '04_masking, "The causal mask in two forms"')


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
    order=50,
    idea=("Attention as before, but a query shares its weights out among the keys it may see only: a blocked key "
          "ends with weight exactly 0, and each row of weights still adds up to 1. The mask has to act before the "
          "scores become weights."),
    outputs=(("output", "n_q × d_v"), ("weights", "n_q × n_k")),
    cases=_cases,
    reference=_reference,
    solution=my_masked_attention,
    models=(
        (MASK_IGNORED, lambda Q, K, V, mask: attend(scaled_scores(Q, K), V)),
        (MASK_AFTER_SOFTMAX, _after_softmax),
        (MASK_INVERTED, _inverted(-np.inf)),
        (MASK_INVERTED, _inverted(-1e9)),
        (MASK_INVERTED_ADDITIVE, lambda Q, K, V, mask: attend(scaled_scores(Q, K) + mask * -1e9, V)),
        (MASK_AFTER_SOFTMAX_RENORMALISED, _after_softmax_renormalised),
        (MASK_MULTIPLIED, lambda Q, K, V, mask: attend(scaled_scores(Q, K) * mask, V)),
        (MASK_ADDED, lambda Q, K, V, mask: attend(scaled_scores(Q, K) + mask, V)),
        (ORDER_SWAPPED, lambda Q, K, V, mask: _reference(Q, K, V, mask)[::-1]),
        (NO_SCALE, lambda Q, K, V, mask: attend(np.where(mask, Q @ K.T, -np.inf), V)),
        (SCALE_DK, lambda Q, K, V, mask: attend(np.where(mask, Q @ K.T / Q.shape[-1], -np.inf), V)),
        (OVER_QUERIES, _masked_wrong_axis),
        (MIXED_AXES, _masked_mixed_axes),
        (WEIGHTS_AT_K, _masked_weights_at_k),
    ),
    overflow_mistake=NO_MAX,
)
