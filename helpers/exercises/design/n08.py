"""The design tasks of 08_pitfalls."""

from __future__ import annotations

import math

import numpy as np

from helpers.core.attention import softmax
from helpers.core.numbers import number_text
from helpers.core.pitfalls import MAX_D_K, saturated_query
from helpers.exercises.design.goals import largest_weight_between
from helpers.exercises.design.task import DesignTask

_Q, _K = saturated_query(MAX_D_K)  # the saturation demo's query (1, 512) and its 8 keys (8, 512)
KEYS = tuple(f"key {j}" for j in range(_K.shape[0]))
TOP = KEYS[int(np.argmax(_Q @ _K.T))]  # the key the unscaled scores put first
LOW, HIGH = 0.25, 0.75  # twice the uniform weight 1/8 at least (a preference kept), 0.75 at most (not saturated)


def _unsaturated(arrays) -> tuple[bool, str]:
    """The softmax of q·k_j (not scaled again): its largest weight in [LOW, HIGH], on the unscaled winner."""
    scores = (arrays["q"] @ arrays["K"].T)[0]
    spread = float(scores.std())
    if not math.isfinite(spread):
        raise ValueError("the scores are too large for float64 (their spread overflows)")
    met, detail = largest_weight_between(softmax(scores), KEYS, LOW, HIGH, key=TOP)
    return met, f"the scores spread {number_text(spread, 2, trim=False)} (standard deviation); {detail}"


TASKS = [
    DesignTask(
        name="08-unsaturate",
        notebook="08_pitfalls",
        goal=(f"Bring the saturation demo's query at d_k = {MAX_D_K} back from saturation: its largest weight between "
              f"{LOW:g} and {HIGH:g}, still on {TOP}, by multiplying q by one factor (K stays as it is)."),
        start={"q": _Q},
        solution={"q": _Q / math.sqrt(MAX_D_K)},
        given={"K": _K},
        judge=_unsaturated,
        hint=("Multiplying q by c multiplies every score by c: pick c so that the scores spread about 1, as the "
              "variance argument says."),
    ),
]
