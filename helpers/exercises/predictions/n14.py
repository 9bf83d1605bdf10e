"""The predictions of 14_efficiency."""

from __future__ import annotations

from functools import cache

import numpy as np

from helpers.core.attention import softmax
from helpers.core.efficiency import (
    kept_fraction,
    linear_attention_weights,
    lora_parameters,
    sliding_window_mask,
    strided_mask,
)
from helpers.core.explain import fmt
from helpers.exercises.predictions.prediction import Prediction

# --------------------------------------------------------------------------- sparse attention at length 4096

_N, _W, _S = 4096, 64, 64   # tokens, window, stride


@cache  # two n × n masks of constants: computed once per kernel, not at every judgement
def _sparse_kept() -> float:
    """The fraction of the n × n pairs a sliding window and a stride keep together (either mask lets a pair in)."""
    return kept_fraction(sliding_window_mask(_N, _W) | strided_mask(_N, _S))


# --------------------------------------------------------------------------- linear against softmax weights

_LINEAR_OPTIONS = ("the same weights", "different weights, sharper than softmax's",
                   "different weights, flatter than softmax's")


def _example_qk():
    """The notebook's Q and K for linear attention: 6 × 4 each, drawn from seed 2 (V is drawn after them)."""
    rng = np.random.default_rng(2)
    return rng.normal(size=(6, 4)), rng.normal(size=(6, 4))


def _weights():
    """(softmax weights, linear attention's weights), each (6, 6), on the notebook's Q and K."""
    Q, K = _example_qk()
    return softmax(Q @ K.T / np.sqrt(Q.shape[1])), linear_attention_weights(Q, K)


def _linear_truth() -> str:
    soft, lin = _weights()
    if np.allclose(soft, lin):
        return _LINEAR_OPTIONS[0]
    # Flatter: a smaller largest weight per row, on average.
    return _LINEAR_OPTIONS[2] if lin.max(axis=1).mean() < soft.max(axis=1).mean() else _LINEAR_OPTIONS[1]


def _linear_why() -> str:
    soft, lin = _weights()
    return (f"φ(q)·φ(k) is not e^(q·k/√d): the weights differ by up to {fmt(np.abs(soft - lin).max(), 2)}, and a "
            f"row's largest weight averages {fmt(lin.max(axis=1).mean(), 2)} against softmax's "
            f"{fmt(soft.max(axis=1).mean(), 2)}: linear attention is another model, not a faster route to the "
            "same numbers.")


# --------------------------------------------------------------------------- LoRA's share of the numbers

_D, _RANK = 768, 8


def _lora_percent() -> float:
    """The percentage of W^Q's and W^V's numbers (d × d each) that a rank-r LoRA update of both trains."""
    return 100 * 2 * lora_parameters(_D, _D, _RANK) / (2 * _D * _D)


PREDICTIONS = [
    Prediction(
        name="14-sparse-kept",
        notebook="14_efficiency",
        question=(f"n = {_N:,} tokens, a sliding window of w = {_W} keys together with a stride of s = {_S} (a query "
                  f"sees a key if either mask lets it). About what fraction of the {_N:,}² query-key pairs do the "
                  "two keep?"),
        form="number",
        minimum=0,
        maximum=1,
        tolerance=0.003,
        truth=_sparse_kept,
        why=(f"Query i keeps its {_W} window keys and every {_S}th key further back, about i / {_S} of them: "
             f"{_W} + {_N // (2 * _S)} on average, of {_N:,} keys: {fmt(_sparse_kept(), 3)}. The work grows like "
             f"n (w + n / 2s) instead of n²."),
        thought={
            _W / _N: (f"only the window counts, w / n; the stride adds every {_S}th key behind the window, about "
                      f"{_N // (2 * _S)} more per query on average"),
            2 * _W / _N: (f"the stride keeps s = {_S} keys per query, like the window; it keeps every {_S}th key "
                          f"back, so query i keeps about i / {_S}: {_N // (2 * _S)} on average"),
            0.5: "sparse masks keep the causal half; they keep a few keys per query, however long the text",
            "higher": ("sparse attention keeps a fixed share of the pairs; each query keeps about w + i / s keys, a "
                       "share that falls as n grows"),
        },
    ),
    Prediction(
        name="14-linear-weights",
        notebook="14_efficiency",
        question=("Linear attention replaces e^(q·k) by φ(q)·φ(k), φ = elu + 1, and divides each row by its sum. On "
                  "the Q and K above, what are its weights, compared with softmax attention's?"),
        form="choice",
        options=_LINEAR_OPTIONS,
        truth=_linear_truth,
        why=_linear_why(),
        thought={
            _LINEAR_OPTIONS[0]: ("regrouping the products only changes the cost; it does, but the regrouping needs "
                                 "the feature product φ(q)·φ(k) in place of e^(q·k), and that changes the weights"),
            _LINEAR_OPTIONS[1]: ("φ(x) = elu(x) + 1 grows like x, e^x much faster: a feature product cannot "
                                 "sharpen the weights the way the exponential does"),
        },
    ),
    Prediction(
        name="14-lora-share",
        notebook="14_efficiency",
        question=(f"W^Q and W^V, {_D} × {_D} each, get LoRA updates of rank r = {_RANK}: B ({_D} × {_RANK}) times A "
                  f"({_RANK} × {_D}) for each. What percentage of their {2 * _D * _D:,} numbers is trained?"),
        form="number",
        minimum=0,
        maximum=100,
        tolerance=0.2,
        truth=_lora_percent,
        why=(f"Each update trains 2 r d = {lora_parameters(_D, _D, _RANK):,} numbers instead of d² = {_D * _D:,}: "
             f"2 r / d = {2 * _RANK} / {_D} = {fmt(_lora_percent(), 3)} %."),
        thought={
            100 * _RANK / _D: (f"one factor per matrix, r / d; the update B A has two, {_D} × {_RANK} and "
                               f"{_RANK} × {_D}"),
            100 * _RANK * _RANK / (_D * _D): "r² of d² numbers; B and A are r wide but d long",
            "higher": "a low-rank update trains a sizeable share; 2 r d numbers are a small part of d² when r ≪ d",
        },
    ),
]
