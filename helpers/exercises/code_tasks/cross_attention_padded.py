"""Code task ``"cross_attention_padded"`` (06_cross_attention): cross-attention over a padded source.

``fn(X_dec, X_enc, W_q, W_k, W_v, enc_length) -> (output, weights)``: queries from the decoder's tokens, keys and
values from the source's, scaled by 1/√d_k; the source rows from ``enc_length`` on are padding, and their keys get
weight exactly 0. Probes: 06's first example with its last two source tokens as padding and with none, the toy
translation with two zero pad rows, a source of one real token, n_k = d_k (so that ``Q @ K`` without the transpose
runs) and large scores.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import scaled_dot_product_attention
from helpers.core.numbers import number_text
from helpers.core.translation import toy_translation
from helpers.exercises.code_tasks.engine import Case, CodeTask
from helpers.exercises.code_tasks.examples import cross_example, near_30, small_ints
from helpers.exercises.code_tasks.learner_math import attend, nan_softmax, scaled_scores

__all__ = ["TASK", "my_cross_attention_padded"]

_PADDING = '04_masking, "Padding masks for a batch"'
_ROLES = '06_cross_attention, "Self-attention vs cross-attention"'


def my_cross_attention_padded(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    """X_dec (n_q, d_model): the decoder's tokens; X_enc (n_k, d_model): the source, whose rows from enc_length on
    are padding; W_q, W_k (d_model, d_k); W_v (d_model, d_v).
    Returns (output (n_q, d_v), weights (n_q, n_k)); a padding key gets weight exactly 0."""
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v        # the decoder asks, the source answers
    scores = Q @ K.T / np.sqrt(Q.shape[-1])                # (n_q, n_k)
    real = np.arange(len(X_enc)) < enc_length              # (n_k,): True for a real source token
    scores = np.where(real, scores, -np.inf)               # pad keys: -inf, before the softmax
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)        # each row sums to 1 over the real keys
    return weights @ V, weights


def _toy_padded():
    """06's toy translation, its source padded with two rows of zeros (the pad token's vector): X_enc (6, 10)."""
    toy = toy_translation()
    X_enc = np.vstack([toy.X_enc, np.zeros((2, toy.X_enc.shape[1]))])
    return toy.X_dec, X_enc, toy.W_q, toy.W_k, toy.W_v, len(toy.X_enc)


def _cases() -> list[Case]:
    X_dec, X_enc, W_q, W_k, W_v = cross_example()
    return [
        Case("06's first example, X_dec 6×4, X_enc 4×4, W 4×2, enc_length 2: the last two source tokens are padding",
             (X_dec, X_enc, W_q, W_k, W_v, 2)),
        Case("06's first example, enc_length 4: no padding", (X_dec, X_enc, W_q, W_k, W_v, 4)),
        Case("06's toy translation, its source padded with two zero rows: X_enc 6×10, enc_length 4", _toy_padded()),
        Case("one real source token: X_dec 3×4, X_enc 3×4, W 4×2, enc_length 1",
             (small_ints(101, (3, 4)), small_ints(102, (3, 4)), small_ints(103, (4, 2), -1, 2),
              small_ints(104, (4, 2), -1, 2), small_ints(105, (4, 2), -1, 2), 1)),
        Case("n_k = d_k: X_dec 2×5, X_enc 3×5, W_q, W_k 5×3, W_v 5×2, enc_length 2",
             (small_ints(116, (2, 5), -1, 2), small_ints(117, (3, 5), -1, 2), small_ints(118, (5, 3), -1, 2),
              small_ints(119, (5, 3), -1, 2), small_ints(120, (5, 2), -1, 2), 2)),
        Case("large scores: X_dec 2×4, X_enc 3×4 with entries near 30, enc_length 2",
             (near_30(111, (2, 4)), near_30(112, (3, 4)), small_ints(113, (4, 2), 1, 3),
              small_ints(114, (4, 2), 1, 3), small_ints(115, (4, 2)), 2), large=True),
    ]


def _real(n_k, enc_length, shift: int = 0):
    """(n_k,): True for the first ``enc_length + shift`` keys."""
    return np.arange(n_k) < enc_length + shift


def _reference(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    return scaled_dot_product_attention(Q, K, V, mask=_real(len(X_enc), enc_length))


def _exact_zeros(args, results) -> str:
    """'' if every pad key's weight is exactly 0, else the first entry that is not."""
    weights, enc_length = results[1], args[-1]
    pad = weights[:, enc_length:]
    if not pad.any():
        return ""
    i, j = (int(k) for k in np.argwhere(pad != 0)[0])
    # As numpy prints it in the learner's own cell (5.9e-15), where they look for it: the hyphen-minus of code.
    weight = number_text(float(pad[i, j]), None, sig=2, minus="-")
    return (f"weights entry ({i}, {j + enc_length}) is {weight}, not exactly 0: key {j + enc_length} is "
            f"padding (enc_length = {enc_length}), and a pad key must get weight exactly 0, not just a small one.")


def _model(scores_of=None, weights_of=None, output_of=lambda w, K, V: w @ V, order=1):
    """Cross-attention with one step changed: the masked, scaled scores ``scores_of(Q, K, real)``, the weights
    ``weights_of(scores, real)``, the output ``output_of(weights, K, V)``; ``order=-1`` returns (weights, output)."""
    scores_of = scores_of or (lambda Q, K, real: np.where(real, scaled_scores(Q, K), -np.inf))
    weights_of = weights_of or (lambda s, real: nan_softmax(s))

    def model(X_dec, X_enc, W_q, W_k, W_v, enc_length):
        Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
        real = _real(len(X_enc), enc_length)
        w = weights_of(scores_of(Q, K, real), real)
        return (output_of(w, K, V), w)[::order]
    return model


def _masked(real_of, scale=lambda Q: np.sqrt(Q.shape[-1])):
    """Scores scaled by ``scale(Q)``, the keys where ``real_of(n_q, n_k, enc_length)`` is False blocked."""
    def model(X_dec, X_enc, W_q, W_k, W_v, enc_length):
        Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
        return attend(np.where(real_of(len(Q), len(K), enc_length), Q @ K.T / scale(Q), -np.inf), V)
    return model


def _reversed(padded: bool):
    """Q from the source and K, V from the decoder, the keys from enc_length on blocked if ``padded``."""
    def model(X_dec, X_enc, W_q, W_k, W_v, enc_length):
        Q, K, V = X_enc @ W_q, X_dec @ W_k, X_dec @ W_v
        scores = scaled_scores(Q, K)
        return attend(np.where(_real(len(K), enc_length), scores, -np.inf) if padded else scores, V)
    return model


def _rows_blocked(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    """The queries from enc_length on blocked: their rows all −∞, a softmax of nan."""
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    return attend(np.where(_real(len(Q), enc_length)[:, None], scaled_scores(Q, K), -np.inf), V)


def _scale_dmodel(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    """Scores divided by √d_model, the width of the token vectors, instead of √d_k."""
    return _masked(lambda n_q, n_k, L: _real(n_k, L), scale=lambda Q: np.sqrt(X_dec.shape[-1]))(
        X_dec, X_enc, W_q, W_k, W_v, enc_length)


def _rows_zeroed(X_dec, X_enc, W_q, W_k, W_v, enc_length):
    """The queries from enc_length on given weights 0 after the softmax."""
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    w = nan_softmax(scaled_scores(Q, K)) * _real(len(Q), enc_length)[:, None]
    return w @ V, w


TASK = CodeTask(
    name="cross_attention_padded",
    cases=_cases,
    reference=_reference,
    solution=my_cross_attention_padded,
    models=(
        ("order_swapped", _model(order=-1)),
        ("source_padding_ignored", _model(scores_of=lambda Q, K, real: scaled_scores(Q, K))),
        ("mask_after_softmax", _model(scores_of=lambda Q, K, real: scaled_scores(Q, K),
                                      weights_of=lambda s, real: nan_softmax(s) * real)),
        ("source_padding_off_by_one", _masked(lambda n_q, n_k, L: _real(n_k, L, 1))),
        ("source_padding_off_by_one", _masked(lambda n_q, n_k, L: _real(n_k, L, -1))),
        ("source_padding_on_queries", _rows_blocked),
        ("source_padding_on_queries", _rows_zeroed),
        ("source_padding_inverted", _masked(lambda n_q, n_k, L: ~_real(n_k, L))),
        ("source_keys_causal", _masked(lambda n_q, n_k, L: np.tril(np.ones((n_q, n_k), dtype=bool)) & _real(n_k, L))),
        ("source_keys_causal", _masked(lambda n_q, n_k, L: np.tril(np.ones((n_q, n_k), dtype=bool)))),
        ("cross_roles_reversed", _reversed(padded=True)),
        ("cross_roles_reversed", _reversed(padded=False)),
        ("mask_multiplied", _model(scores_of=lambda Q, K, real: scaled_scores(Q, K) * real)),
        ("mask_added", _model(scores_of=lambda Q, K, real: scaled_scores(Q, K) + real)),
        ("no_scale", _masked(lambda n_q, n_k, L: _real(n_k, L), scale=lambda Q: 1.0)),
        ("scale_dk", _masked(lambda n_q, n_k, L: _real(n_k, L), scale=lambda Q: Q.shape[-1])),
        ("scale_dmodel", _scale_dmodel),
        ("softmax_over_queries", _model(weights_of=lambda s, real: nan_softmax(s, axis=0))),
        ("weights_transposed", lambda *args: (_reference(*args)[0], _reference(*args)[1].T)),
        ("weights_at_K", _model(output_of=lambda w, K, V: w @ K)),
        ("k_not_transposed", _model(scores_of=lambda Q, K, real: np.where(real, Q @ K / np.sqrt(Q.shape[-1]),
                                                                            -np.inf))),
        ("wq_wk_swapped", lambda X_dec, X_enc, W_q, W_k, W_v, L: _reference(X_dec, X_enc, W_k, W_q, W_v, L)),
    ),
    overflow_mistake="no_max",
    requirement=_exact_zeros,
)
