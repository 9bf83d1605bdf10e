"""The predictions of 13_kv_cache."""

from __future__ import annotations

from functools import cache

import numpy as np

from helpers.core.attention import scaled_dot_product_attention
from helpers.core.efficiency import attention_cost, peak_memory
from helpers.core.explain import fmt
from helpers.exercises.predictions.prediction import Prediction

# --------------------------------------------------------------------------- where the n² work overtakes

_D_MODEL, _D_K = 768, 64   # one head of BERT-base's size, d_v = d_k


def _crossover() -> float:
    """The length n at which one head's n² work (scores and weighted sum) equals its projections."""
    one = attention_cost(1, _D_MODEL, _D_K)                      # every term at n = 1
    return one["projections"] / (one["scores"] + one["weighted sum"])   # n·a = n²·b at n = a / b


# --------------------------------------------------------------------------- how the peak memory grows

_PEAK_NS = (512, 1024)   # two of the lengths the notebook measures, d_k = 64


@cache
def _peak_factor() -> float:
    """How many times the peak memory of one attention call grows when n doubles (tracemalloc, float64; measured
    once: a second measurement may differ in the third digit)."""
    rng = np.random.default_rng(0)
    peaks = []
    for n in _PEAK_NS:
        Q, K, V = (rng.standard_normal((n, 64)) for _ in range(3))
        peaks.append(peak_memory(lambda Q=Q, K=K, V=V: scaled_dot_product_attention(Q, K, V)))
    return peaks[1] / peaks[0]


# --------------------------------------------------------------------------- what the cache saves

_T, _D = 1000, 64   # the 1000th token; d_model = d_k = d_v = 64


def _work_without_cache(t: int) -> int:
    """Multiply-adds of recomputing the whole prefix of t tokens: its projections, scores and weighted sums."""
    c = attention_cost(t, _D, _D)
    return c["projections"] + c["scores"] + c["weighted sum"]


def _work_with_cache(t: int) -> int:
    """Multiply-adds of the cached step: project the new token, then one query against t keys and values."""
    return attention_cost(1, _D, _D)["projections"] + 2 * t * _D


def _cache_saving() -> float:
    return _work_without_cache(_T) / _work_with_cache(_T)


PREDICTIONS = [
    Prediction(
        name="13-crossover-length",
        notebook="13_kv_cache",
        question=(f"One head with d_model = {_D_MODEL}, d_k = d_v = {_D_K}, costed as in the table above. From which "
                  "length n on do the scores and the weighted sum (the n² work) take more multiply-adds than the "
                  "projections?"),
        form="number",
        quantity="count",
        minimum=1,
        tolerance=50,
        truth=_crossover,
        why=(f"n² (d_k + d_v) = n · d_model (2 d_k + d_v) at n = d_model · 3 d_k / 2 d_k = 1.5 · {_D_MODEL} = "
             f"{fmt(_crossover())}: the projections multiply by three widths of {_D_K}, the n² work by two."),
        thought={
            float(_D_MODEL): ("the n² work wins once n reaches d_model; the projections take 3 columns of width d_k "
                              "per token and model width, the n² work only 2 (scores and weighted sum)"),
            float(_D_K): ("n must pass the head's width d_k; each projection multiplies by the model width "
                          f"d_model = {_D_MODEL}, which is what n has to beat"),
            float(2 * _D_MODEL): "the two n² terms against one projection; there are three projections, Q, K and V",
            "lower": ("the n² work wins early because n² grows fast; per token it costs n (d_k + d_v), against "
                      "d_model (2 d_k + d_v) for the projections, so n must reach 1.5 d_model"),
            "higher": ("the n² terms need a very long text to matter; they overtake at n = 1.5 d_model, shorter "
                       "than many of today's contexts"),
        },
    ),
    Prediction(
        name="13-peak-memory-factor",
        notebook="13_kv_cache",
        question=("tracemalloc measures the peak memory of one attention call, softmax(QKᵀ/√d_k)V, on n tokens "
                  "(d_k = 64, float64). By what factor does the peak grow when n doubles?"),
        form="number",
        minimum=1,
        tolerance=0.3,
        truth=_peak_factor,
        why=(f"At the peak several n × n matrices exist at once (the scores, their exponentials, the weights): "
             f"n² entries each, so doubling n multiplies the peak by about 4 ({fmt(_peak_factor(), 2)} from "
             f"n = {_PEAK_NS[0]} to {_PEAK_NS[1]}); Q, K, V and the output grow only like n."),
        thought={
            2.0: ("memory grows like the inputs, n × d_k; what fills it is the n × n score and weight matrices, "
                  "four times larger when n doubles"),
            8.0: "memory grows like n³; the matrices are n × n, so like n²",
            "higher": "several n × n matrices multiply the factor; they add up, each growing 4 times",
            "lower": ("the inputs Q, K and V weigh as much as the matrices; at d_k = 64 and n ≥ 512 the n × n "
                      "matrices are most of the peak"),
        },
    ),
    Prediction(
        name="13-cache-saving",
        notebook="13_kv_cache",
        question=(f"d_model = d_k = d_v = {_D}. Generating the {_T}th token, how many times more multiply-adds does "
                  "recomputing the whole prefix take than the cached step (project the new token only, then one "
                  "query against the cached keys and values)?"),
        form="number",
        minimum=1,
        tolerance=_T / 10,
        truth=_cache_saving,
        why=(f"Recomputing does, for each of the t tokens, what the cached step does for one: t (3d² + 2td) "
             f"against 3d² + 2td, so exactly t = {_T} times the work ({_work_without_cache(_T):,} against "
             f"{_work_with_cache(_T):,})."),
        thought={
            1.0: ("the cache saves memory, not work; it saves the projections of every old token and their scores "
                  "against each other"),
            float(_T * _T): ("the prefix costs t² times the cached step; its n² work is t² d, but the cached step "
                             "still does t · d of it (one query against t keys)"),
            3.0: "the cache saves only the key and value projections; it saves every old token's whole row of work",
            "lower": ("the cached step redoes most of the work; it computes one row of the scores instead of t rows, "
                      "and projects one token instead of t"),
            "higher": ("the saving grows like t²; the cached step's own work grows like t too (one query against t "
                       "keys), so the ratio is t"),
        },
    ),
]
