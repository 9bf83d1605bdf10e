"""The predictions of 11_positions."""

from __future__ import annotations

import numpy as np

from helpers.core.attention import multi_head_attention, rotary_embedding, sinusoidal_positions
from helpers.core.explain import fmt
from helpers.core.multihead import rotary_example
from helpers.exercises.code_tasks.examples import X6, six_token_weights
from helpers.exercises.predictions.prediction import Prediction

H = 2  # the heads of the six-token example (10_multi_head's layer)


# --------------------------------------------------------------------------- the order of the tokens

_ORDER_OPTIONS = ("every row changes", "the rows come back reversed, each as before", "nothing changes",
                  "only the first and the last row change")


def _reversed_truth() -> str:
    W = six_token_weights()
    out = multi_head_attention(X6, *W, H)[0]
    out_reversed = multi_head_attention(X6[::-1], *W, H)[0]
    if np.allclose(out_reversed, out):
        return _ORDER_OPTIONS[2]
    if np.allclose(out_reversed, out[::-1]):
        return _ORDER_OPTIONS[1]
    changed = ~np.isclose(out_reversed, out).all(axis=1)
    if changed.all():
        return _ORDER_OPTIONS[0]
    if changed[[0, -1]].all() and not changed[1:-1].any():
        return _ORDER_OPTIONS[3]
    raise ValueError("the output of the reversed tokens matches no option")


# --------------------------------------------------------------------------- the length of a sinusoidal row

_PE_POSITIONS, _PE_WIDTH = 50, 16   # the table the notebook draws: 50 positions, d_model = 16


def _pe_row_norm() -> float:
    """The length of every row of the sinusoidal table (the notebook's 50 × 16); raises if the rows differ."""
    norms = np.linalg.norm(sinusoidal_positions(_PE_POSITIONS, _PE_WIDTH), axis=1)
    if not np.allclose(norms, norms[0]):
        raise ValueError(f"the rows of the sinusoidal table have different lengths: {norms.min()} to {norms.max()}")
    return float(norms[0])


# --------------------------------------------------------------------------- rotary positions

_ROPE_OPTIONS = ("it stays exactly the same", "it grows", "it shrinks", "it changes, up or down depending on q and k")
_ROPE_BEFORE, _ROPE_AFTER = (2, 5), (12, 15)   # (query position, key position): both moved 10 places later


def _rope_score(p: int, r: int) -> float:
    q, k = rotary_example()
    return float(rotary_embedding(q[None], [p])[0] @ rotary_embedding(k[None], [r])[0])


def _rope_truth() -> str:
    before, after = _rope_score(*_ROPE_BEFORE), _rope_score(*_ROPE_AFTER)
    if np.isclose(before, after, rtol=0, atol=1e-9):
        return _ROPE_OPTIONS[0]
    return _ROPE_OPTIONS[1] if after > before else _ROPE_OPTIONS[2]


def _rope_why() -> str:
    before, after = fmt(_rope_score(*_ROPE_BEFORE), 3), fmt(_rope_score(*_ROPE_AFTER), 3)
    return (f"In each pair of columns both vectors turn by the same extra angle (10 θ_i in pair i), so each pair's dot "
            f"product, and the score, stay as they were: {before} at positions {_ROPE_BEFORE} and {after} at "
            f"{_ROPE_AFTER}. Only the offset r − p = 3 counts.")


PREDICTIONS = [
    Prediction(
        name="11-reversed-sentence",
        notebook="11_positions",
        question=("Reverse the order of the six tokens (the rows of X) and run the same multi-head attention, with no "
                  "information about positions. What happens to the output?"),
        form="choice",
        options=_ORDER_OPTIONS,
        truth=_reversed_truth,
        why=("Reversing the rows of X reverses the rows of Q, K and V and both axes of the scores: each token gives "
             "the same weights to the same tokens, so its output is as before, in another row."),
        thought={
            _ORDER_OPTIONS[0]: ("attention reads the order of the tokens; nothing in softmax(QKᵀ/√d_k)V looks at "
                                "where a row is"),
            _ORDER_OPTIONS[2]: "each output row belongs to a position; it belongs to its token and moves with it",
            _ORDER_OPTIONS[3]: ("only the tokens whose place changes most are affected; no output depends on where "
                                "its token is"),
        },
    ),
    Prediction(
        name="11-pe-row-norm",
        notebook="11_positions",
        question=(f"The sinusoidal table for d_model = {_PE_WIDTH}: each row PE_p holds {_PE_WIDTH // 2} pairs "
                  "(sin, cos), each pair of one angle. How long is a row, ‖PE_p‖ (its Euclidean norm), at any "
                  "position p?"),
        form="number",
        tolerance=0.05,
        minimum=0.0,
        truth=_pe_row_norm,
        why=(f"Each pair adds sin² + cos² = 1 to the squared length, whatever the angle: {_PE_WIDTH // 2} pairs give "
             f"‖PE_p‖² = {_PE_WIDTH // 2}, so ‖PE_p‖ = √{_PE_WIDTH // 2} = {fmt(_pe_row_norm(), 3)} at every "
             "position."),
        thought={
            1.0: ("the table is normalised to rows of length 1; nothing divides it, and each of its pairs adds 1 to "
                  "the squared length"),
            4.0: (f"every entry is ±1, so the length is √{_PE_WIDTH}; the entries are sines and cosines of angles, "
                  "and only each pair's two squares add up to 1"),
            float(_PE_WIDTH // 2): "of the squared length, which is the number of pairs; the length is its root",
            float(_PE_WIDTH): "each entry adds 1 to the length; each pair adds 1 to the squared length",
            "higher": ("the length grows with the position or with the width; each pair's sin² + cos² is 1 at "
                       f"every angle, so the squared length is the number of pairs, {_PE_WIDTH // 2}, at every p"),
            "lower": ("some entries cancel others; squares never cancel: each pair adds exactly 1 to the squared "
                      "length"),
        },
    ),
    Prediction(
        name="11-rope-shift",
        notebook="11_positions",
        question=(f"Rotary positions: a query q rotated at position {_ROPE_BEFORE[0]} and a key k rotated at position "
                  f"{_ROPE_BEFORE[1]} have the score s = q'·k' (d_k = 8). Both tokens move 10 places later (positions "
                  f"{_ROPE_AFTER[0]} and {_ROPE_AFTER[1]}), their q and k unchanged. What happens to s?"),
        form="choice",
        options=_ROPE_OPTIONS,
        truth=_rope_truth,
        why=_rope_why(),
        thought={
            _ROPE_OPTIONS[1]: ("later positions add more to the score; a rotation adds nothing, it only turns, and "
                               "both vectors turn by the same extra angle"),
            _ROPE_OPTIONS[2]: ("later positions weaken the score; in each pair both vectors turn by the same extra "
                               "angle, so the angle between them stays"),
            _ROPE_OPTIONS[3]: ("that is what positions added to X do (their cross terms depend on where the tokens "
                               "are); rotating both by the same extra angle keeps their dot product"),
        },
    ),
]
