"""The predictions of 08_pitfalls."""

from __future__ import annotations

import functools
import math

import numpy as np

from helpers.core.attention import softmax, split_heads
from helpers.core.explain import fmt
from helpers.core.numbers import MINUS
from helpers.core.pitfalls import (
    LARGE_SCORES,
    MAX_D_K,
    SHIFT,
    naive_softmax,
    running_example,
    saturation,
    saturation_table,
)
from helpers.exercises.predictions.prediction import Prediction


def _fixed(x: float, digits: int) -> str:
    """``x`` with exactly ``digits`` decimals, as the notebook prints it (never "−0.000"), with the true minus sign of
    the course's prose."""
    text = f"{float(x):.{digits}f}"
    return (text[1:] if text.startswith("-") and not text.strip("-0.") else text).replace("-", MINUS)


def _row(values, digits: int = 3) -> str:
    return "[" + ", ".join(_fixed(v, digits) for v in values) + "]"


# --------------------------------------------------------------------------- Pitfall 1: W^Q and W^K swapped


def _running_weights():
    """(A, A_swap): the running example's weights, and those with W^Q and W^K swapped (both scaled by √d_k)."""
    _tokens, X, W_q, W_k, _W_v = running_example()
    d_k = W_q.shape[1]
    A = softmax((X @ W_q) @ (X @ W_k).T / math.sqrt(d_k))
    A_swap = softmax((X @ W_k) @ (X @ W_q).T / math.sqrt(d_k))
    return A, A_swap


def _swap_gives_transpose() -> str:
    A, A_swap = _running_weights()
    return "yes, Aᵀ" if np.allclose(A_swap, A.T) else "no"


_A, _ = _running_weights()

# --------------------------------------------------------------------------- √d_k: saturation as d_k grows

_PEAKED, _FLATTER, _SAME = "more peaked", "flatter", "about the same"


def _unscaled_trend() -> str:
    """How the mean largest unscaled weight moves from the smallest d_k to the largest (the notebook's table)."""
    table = saturation_table()
    first, last = table[0]["max_raw"], table[-1]["max_raw"]
    if last > first + 0.05:
        return _PEAKED
    return _FLATTER if last < first - 0.05 else _SAME


_TABLE = saturation_table()
_RAW, _SCALED = saturation(MAX_D_K, scale=False), saturation(MAX_D_K, scale=True)
_TOP = int(np.argmax(_RAW.weights))
_STILL, _OTHER, _NONE = f"key {_TOP} still", "another key", "none: all equal"


def _scaled_winner() -> str:
    """Which key the demo's query puts first at d_k = 512 once its scores are divided by √512."""
    w = saturation(MAX_D_K, scale=True).weights
    top = int(np.argmax(w))
    if np.count_nonzero(np.isclose(w, w[top], rtol=0.0, atol=1e-12)) > 1:
        return _NONE
    return _STILL if top == int(np.argmax(saturation(MAX_D_K, scale=False).weights)) else _OTHER


# --------------------------------------------------------------------------- shift invariance and overflow


def _row0_scores() -> np.ndarray:
    """Row 0 of the running example's scaled scores, QKᵀ/√d_k."""
    _tokens, X, W_q, W_k, _W_v = running_example()
    return ((X @ W_q) @ (X @ W_k).T / math.sqrt(W_q.shape[1]))[0]


_SAME_WEIGHTS, _ALL_ON_TOP, _EQUAL, _NAN_OVERFLOW = "the same weights", "all on the largest", "equal weights", \
    "nan (overflow)"


def _describe_weights(w, reference) -> str:
    """A row of weights in the words of the shift prediction's options."""
    w = np.asarray(w, dtype=float)
    if np.isnan(w).any():
        return _NAN_OVERFLOW
    if np.allclose(w, reference):
        return _SAME_WEIGHTS
    if np.allclose(w, 1 / w.size):
        return _EQUAL
    if w.max() > 0.999:
        return _ALL_ON_TOP
    raise ValueError(f"the weights {w} are none of the options")


def _shifted() -> str:
    row = _row0_scores()
    return _describe_weights(softmax(row + SHIFT), softmax(row))


# --------------------------------------------------------------------------- Pitfall 2: dividing by √d_model

_Q1_BATCH, _Q1_N, _Q1_D_MODEL, _Q1_H = 8, 20, 768, 12   # lesson Q1's sizes, as the notebook draws them
_SHARPER, _FLATTER_THAN_RIGHT, _UNCHANGED = ("sharper: closer to one weight of 1", "flatter: closer to 0.05 each",
                                             "the same: softmax ignores the scale")


@functools.cache  # seeded, so always the same two numbers; three places ask, each time a truth is worked out
def _largest_weights() -> tuple[float, float]:
    """The mean largest weight of each query's row, divided by √d_k (right) and by √d_model (wrong): the notebook's
    seeded batch of lesson Q1's sizes."""
    d_k = _Q1_D_MODEL // _Q1_H
    rng = np.random.default_rng(0)
    X = rng.standard_normal((_Q1_BATCH, _Q1_N, _Q1_D_MODEL))
    W_q, W_k = (rng.standard_normal((_Q1_D_MODEL, _Q1_H * d_k)) / np.sqrt(_Q1_D_MODEL) for _ in range(2))
    raw = split_heads(X @ W_q, _Q1_H) @ np.swapaxes(split_heads(X @ W_k, _Q1_H), -1, -2)
    right = softmax(raw / np.sqrt(d_k)).max(axis=-1).mean()
    wrong = softmax(raw / np.sqrt(_Q1_D_MODEL)).max(axis=-1).mean()
    return float(right), float(wrong)


def _wrong_divisor() -> str:
    right, wrong = _largest_weights()
    if abs(wrong - right) < 0.01:
        return _UNCHANGED
    return _FLATTER_THAN_RIGHT if wrong < right else _SHARPER


# --------------------------------------------------------------------------- Pitfall 3: what a key receives


def _column_sums() -> np.ndarray:
    return _A.sum(axis=0)


def _most_received() -> str:
    tokens = running_example()[0]
    return tokens[int(np.argmax(_column_sums()))]


_PEAK = int(np.argmax(_A.max(axis=0)))   # the key of the largest single weight
_PEAK_TOKEN = running_example()[0][_PEAK]


def _most_received_why() -> str:
    tokens = running_example()[0]
    sums = ", ".join(f"'{t}' {fmt(v, 2)}" for t, v in zip(tokens, _column_sums()))
    return (f"A key receives its column's sum, the weights every query gives it: {sums}. The largest single weight "
            f"({fmt(_A.max(), 2)}) is not the largest total.")


# --------------------------------------------------------------------------- a bias on every key

KEY_BIAS = (5.0, -3.0)
_NOTHING, _EVERY_ROW, _SOME_ROWS = "nothing: the weights stay", "every row changes", "only some rows change"


def _key_bias() -> str:
    _tokens, X, W_q, W_k, _W_v = running_example()
    Q, K = X @ W_q, X @ W_k
    biased = softmax(Q @ (K + np.array(KEY_BIAS)).T / math.sqrt(Q.shape[1]))
    changed = ~np.isclose(biased, _A).all(axis=1)
    return _NOTHING if not changed.any() else _EVERY_ROW if changed.all() else _SOME_ROWS


_LARGE = np.array(LARGE_SCORES)
_TRUE_SOFTMAX = _row(softmax(_LARGE))
_ONE_HOT, _INFS, _NANS = "[1, 0, 0]", "[inf, inf, inf]", "[nan, nan, nan]"


def _naive_large() -> str:
    """What the textbook formula exp(s) / Σ exp(s) gives for LARGE_SCORES in float64, as one of the options."""
    out = naive_softmax(_LARGE)
    if np.isnan(out).all():
        return _NANS
    if np.isinf(out).all():
        return _INFS
    if np.allclose(out, softmax(_LARGE)):
        return _TRUE_SOFTMAX
    if np.allclose(out, np.eye(out.size)[0]):
        return _ONE_HOT
    raise ValueError(f"the naive softmax gives {out}, none of the options")


_SQRT = math.sqrt(MAX_D_K)

PREDICTIONS = [
    Prediction(
        name="08-swap-transposes",
        notebook="08_pitfalls",
        question=("Swap W^Q and W^K in the running example: the new scores are the old ones transposed, "
                  "KQᵀ = (QKᵀ)ᵀ. Are the new weights the old weights transposed, Aᵀ?"),
        form="choice",
        options=("yes, Aᵀ", "no"),
        truth=_swap_gives_transpose,
        why=("The transpose comes before the softmax, which then normalises each new row, an old column: Aᵀ's rows "
             f"sum to {_row(_A.sum(axis=0), 2)}, not 1, so Aᵀ is not even a weight matrix."),
        thought={"yes, Aᵀ": ("the softmax and the transpose can be done in either order; the softmax normalises rows, "
                             "so after the transpose it normalises what used to be columns")},
    ),
    Prediction(
        name="08-wrong-divisor",
        notebook="08_pitfalls",
        question=(f"Lesson Q1's sizes, d_model = {_Q1_D_MODEL} and h = {_Q1_H}, so d_k = {_Q1_D_MODEL // _Q1_H}. "
                  f"Divide each head's scores by √{_Q1_D_MODEL} ≈ 27.7 instead of √{_Q1_D_MODEL // _Q1_H} = 8. "
                  f"Compared with the right weights, each query's weights over {_Q1_N} keys are …"),
        form="choice",
        options=(_SHARPER, _FLATTER_THAN_RIGHT, _UNCHANGED),
        truth=_wrong_divisor,
        why=(f"Dividing by √d_model shrinks every score √{_Q1_H} ≈ 3.5 times more, and smaller gaps between scores "
             f"give flatter weights: the largest weight of a row averages {fmt(_largest_weights()[1], 3)} instead of "
             f"{fmt(_largest_weights()[0], 3)} (uniform is {fmt(1 / _Q1_N, 2)})."),
        thought={
            _SHARPER: ("a larger divisor makes the differences larger; it shrinks every score, and the gaps "
                       "between them with it"),
            _UNCHANGED: ("the softmax sees only the order of the scores; it sees their gaps, and a larger divisor "
                         "shrinks them"),
        },
    ),
    Prediction(
        name="08-most-attention",
        notebook="08_pitfalls",
        question=("In the running example's weights A (above), which token receives the most attention in total, "
                  "summed over all four queries?"),
        form="choice",
        options=running_example()[0],
        truth=_most_received,
        why=_most_received_why(),
        thought={
            _PEAK_TOKEN: (f"the token with the largest single weight receives the most; a key receives its whole "
                          f"column: '{_PEAK_TOKEN}' {fmt(_column_sums()[_PEAK], 2)} against '{_most_received()}' "
                          f"{fmt(_column_sums().max(), 2)}"),
            "*": "every key receives about the same, as every query hands out 1; the columns need not sum to 1",
        },
    ),
    Prediction(
        name="08-unscaled-peaked",
        notebook="08_pitfalls",
        question=("One query against 8 keys, every entry of q and of the keys drawn from N(0, 1), the scores q·k_j "
                  f"not scaled. As d_k grows from 1 to {MAX_D_K}, the query's weights become …"),
        form="choice",
        options=(_PEAKED, _FLATTER, _SAME),
        truth=_unscaled_trend,
        why=(f"Var(q·k) = d_k, so the scores spread like √d_k ({_fixed(_TABLE[-1]['std_raw'], 1)} at d_k = {MAX_D_K}), "
             "and the softmax of widely spread scores puts nearly all the weight on the largest: the mean largest "
             f"weight goes from {_fixed(_TABLE[0]['max_raw'], 2)} at d_k = 1 to {_fixed(_TABLE[-1]['max_raw'], 2)}."),
        thought={
            _FLATTER: ("with more dimensions the terms of q·k average out, so the scores come closer together; a "
                       "mean of d_k terms would, but a sum of d_k terms spreads like √d_k"),
            _SAME: ("the weights depend on which key matches best, not on the width of the vectors; but each extra "
                    "dimension adds a term to every score, and the gaps between scores grow like √d_k"),
        },
    ),
    Prediction(
        name="08-scaled-winner",
        notebook="08_pitfalls",
        question=(f"In the demo below at d_k = {MAX_D_K}, unscaled, key {_TOP} takes {_fixed(_RAW.max_weight, 3)} "
                  f"of the query's weight. Once every score is divided by √{MAX_D_K} ≈ {fmt(_SQRT, 1)}, which key "
                  "gets the largest weight?"),
        form="choice",
        options=(_STILL, _OTHER, _NONE),
        truth=_scaled_winner,
        why=("Dividing every score by the same positive number keeps their order, so the same key has the largest "
             f"score and the largest weight; only its share changes ({_fixed(_RAW.max_weight, 3)} → "
             f"{_fixed(_SCALED.max_weight, 3)})."),
        thought={
            _OTHER: "scaling changes which key matches best; it changes how sharply the softmax prefers it, not whom",
            _NONE: (f"scaling removes the preferences; it shrinks the gaps between the scores {fmt(_SQRT, 1)} times, "
                    "but they stay gaps"),
        },
    ),
    Prediction(
        name="08-shift-1000",
        notebook="08_pitfalls",
        question=(f"Row 0 of the running example's scores is {_row(_row0_scores(), 2)}, and its weights are "
                  f"{_row(softmax(_row0_scores()))}. What does softmax give for the same row plus {fmt(SHIFT)} in "
                  "every entry?"),
        form="choice",
        options=(_SAME_WEIGHTS, _ALL_ON_TOP, _EQUAL, _NAN_OVERFLOW),
        truth=_shifted,
        why=("softmax(s + C)_i = e^C e^(s_i) / (e^C Σ_j e^(s_j)) = softmax(s)_i: the factor e^C cancels, and a "
             "careful softmax never computes e^1000 (it subtracts the row's maximum first)."),
        thought={
            _ALL_ON_TOP: ("larger scores make the softmax sharper; multiplying the scores does, adding the same "
                          "number to all of them does not"),
            _EQUAL: ("next to 1000 the differences between the scores vanish; the softmax sees only the differences, "
                     "and they are unchanged"),
            _NAN_OVERFLOW: ("e^1000 overflows float64; it does, in the textbook formula (next section), but the "
                            "weights themselves do not change, and a softmax that subtracts the maximum never "
                            "forms e^1000"),
        },
    ),
    Prediction(
        name="08-key-bias",
        notebook="08_pitfalls",
        question=(f"Add the same vector b = [{fmt(KEY_BIAS[0])}, {fmt(KEY_BIAS[1])}] to every key of the running "
                  "example, k_j → k_j + b. What happens to the weights A?"),
        form="choice",
        options=(_NOTHING, _EVERY_ROW, _SOME_ROWS),
        truth=_key_bias,
        why=("Score i, j becomes q_i · k_j + q_i · b, and the extra q_i · b is the same for every key of row i: a "
             "constant per row, which the softmax ignores (shift invariance)."),
        thought={
            _EVERY_ROW: ("a change to every key changes every score, so every weight; it adds q_i · b, one "
                         "constant for the whole of row i, and a constant added to a row changes nothing"),
            _SOME_ROWS: ("rows whose query points along b change; each row gets its own constant q_i · b, and the "
                         "softmax ignores each"),
        },
    ),
    Prediction(
        name="08-naive-overflow",
        notebook="08_pitfalls",
        question=(f"The scores are {_row(LARGE_SCORES, 0)}, in float64 (NumPy). What does the textbook formula "
                  "e^(s_i) / Σ_j e^(s_j) give, computed as written?"),
        form="choice",
        options=(_TRUE_SOFTMAX, _ONE_HOT, _INFS, _NANS),
        truth=_naive_large,
        why=("e^1000 is beyond float64's largest number (about e^709.78 ≈ 1.8 × 10^308), so every e^(s_i) is inf, "
             "and inf / inf is nan."),
        thought={
            _TRUE_SOFTMAX: ("a correct formula gives correct numbers; it does in exact arithmetic, but float64 "
                            "cannot hold e^1000"),
            _ONE_HOT: ("the largest score takes everything; in exact arithmetic it gets "
                       f"{_fixed(softmax(_LARGE)[0], 3)}, and in float64 nothing is left but inf / inf"),
            _INFS: "the overflow stays inf; but then inf is divided by the sum, inf, which is nan",
        },
    ),
]
