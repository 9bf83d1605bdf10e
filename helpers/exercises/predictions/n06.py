"""The predictions of 06_cross_attention.

Every truth is computed from the course's data: the random first example of section 1 is
:func:`helpers.exercises.code_tasks.examples.cross_qkv` (the notebook's cell, number for number), and the toy
translation is :func:`helpers.core.translation.toy_translation` with its
:func:`~helpers.core.translation.cross_attention`. The toy's decoder rows are its input, the target shifted right
(``<s> le chat noir s' est``): the row of "chat" is the position that writes "noir", so it asks for a colour and reads
"black".
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core.attention import scaled_dot_product_attention
from helpers.core.explain import fmt
from helpers.core.translation import (
    ASKS_FOR,
    MEANINGS,
    REFERENCE_ALIGNMENT,
    cross_attention,
    input_dim,
    toy_translation,
)
from helpers.exercises.code_tasks.examples import cross_qkv
from helpers.exercises.predictions.prediction import Prediction

# --------------------------------------------------------------------------- section 1: the shape of the weights

_Q, _K, _V = cross_qkv()
_N_Q, _N_K = _Q.shape[0], _K.shape[0]


def _shape(rows: int, cols: int) -> str:
    return f"{rows} × {cols}"


def _weights_shape() -> str:
    """The shape of the weights of section 1's random cross-attention (6 target tokens ask, 4 source tokens answer)."""
    return _shape(*scaled_dot_product_attention(*cross_qkv())[1].shape)


# --------------------------------------------------------------------------- section 2: the toy translation

_TOY = toy_translation()
_CHAT, _BLACK, _SAT = _TOY.decoder_input.index("chat"), _TOY.source.index("black"), _TOY.source.index("sat")
_WRITES = dict(zip(_TOY.decoder_input, _TOY.target))  # the word each decoder position writes
_D_K = _TOY.W_q.shape[1]


def _toy_weights(W_q=None) -> np.ndarray:
    """The toy's cross-attention weights (6 decoder positions × 4 English tokens), with ``W_q`` in place of its own."""
    toy = toy_translation()
    return cross_attention(toy.X_dec, toy.X_enc, toy.W_q if W_q is None else W_q, toy.W_k, toy.W_v)[1]


_Q_TOY, _K_TOY = _TOY.X_dec @ _TOY.W_q, _TOY.X_enc @ _TOY.W_k
_SCORE = float(_Q_TOY[_CHAT] @ _K_TOY[_BLACK])          # 2 · 3 = 6
_SCALED = _SCORE / math.sqrt(_D_K)                       # 6 / 2 = 3
_OTHERS = len(_TOY.source) - 1
_Q_ENTRY = float(_TOY.W_q[input_dim("chat", "fr"), MEANINGS.index(ASKS_FOR["chat"])])
_K_ENTRY = float(_TOY.W_k[input_dim("black", "en"), MEANINGS.index("colour")])


def _chat_black_weight() -> float:
    """The weight the position whose input is "chat" gives "black" in the toy."""
    return float(_toy_weights()[_CHAT, _BLACK])


def _softmax_first(score: float) -> float:
    """The weight of a key scoring ``score`` against three keys scoring 0."""
    return math.exp(score) / (math.exp(score) + _OTHERS)


_W = _toy_weights()
_READERS_OF_SAT = [q for q, en in REFERENCE_ALIGNMENT.items() if en == "sat"]
_READERS = ", ".join(_READERS_OF_SAT[:-1]) + f" and {_READERS_OF_SAT[-1]}"  # "noir, s' and est"
_FROM_READERS = float(sum(_W[_TOY.decoder_input.index(q), _SAT] for q in _READERS_OF_SAT))
_FROM_OTHERS = float(_W[:, _SAT].sum() - _FROM_READERS)


def _sat_column_sum() -> float:
    """What the column of "sat" adds up to in the toy's weights."""
    return float(_toy_weights()[:, _SAT].sum())


# --------------------------------------------------------------------------- section 3: one row of W^Q edited


def _chat_asks_for_an_animal() -> np.ndarray:
    """The toy's W^Q with the 2 of row fr:chat moved from "colour" to "animal"."""
    W_q = toy_translation().W_q
    row = input_dim("chat", "fr")
    W_q[row] = 0.0
    W_q[row, MEANINGS.index("animal")] = _Q_ENTRY
    return W_q


def _rows_text(rows) -> str:
    """Which rows of the weights change, in words (as the options of "06-edit-chat-rows")."""
    rows = list(rows)
    if not rows:
        return "no row"
    if len(rows) == len(_TOY.decoder_input):
        return "every row"
    if len(rows) == 1:
        return f"only '{rows[0]}'"
    return " and ".join(f"'{r}'" for r in rows)


def _changed_rows() -> str:
    """The decoder positions whose rows of weights change when "chat" asks for an animal."""
    changed = ~np.isclose(_toy_weights(), _toy_weights(_chat_asks_for_an_animal())).all(axis=1)
    return _rows_text(q for q, c in zip(_TOY.decoder_input, changed) if c)


# --------------------------------------------------------------------------- section 4: the roles reversed

_STEP = 3


def _reversed_black_le() -> float:
    """Roles reversed (Q from the encoder) at step 3: the weight the source word "black" gives the decoder's "le"."""
    toy = toy_translation()
    weights = cross_attention(toy.X_enc, toy.X_dec[:_STEP], toy.W_q, toy.W_k, toy.W_v)[1]
    return float(weights[toy.source.index("black"), toy.decoder_input.index("le")])


_SO_FAR = _TOY.decoder_input[:_STEP]

PREDICTIONS = [
    Prediction(
        name="06-weights-shape",
        notebook="06_cross_attention",
        question=(f"A source sentence of {_N_K} tokens (the encoder's: keys and values) and a target of {_N_Q} tokens "
                  f"(the decoder's: queries). What shape are the cross-attention weights, rows × columns?"),
        form="choice",
        options=(_shape(_N_K, _N_K), _shape(_N_K, _N_Q), _shape(_N_Q, _N_K), _shape(_N_Q, _N_Q),
                 _shape(_N_Q + _N_K, _N_Q + _N_K)),
        truth=_weights_shape,
        why=(f"One row per query, one column per key: Q Kᵀ is ({_N_Q} × d_k)(d_k × {_N_K}) = {_N_Q} × {_N_K}, "
             "target × source, not square."),
        thought={
            _shape(_N_K, _N_Q): ("the source tokens make the rows; the rows are the queries (Queries ↓), and in "
                                 "cross-attention the queries come from the target"),
            _shape(_N_Q, _N_Q): ("attention weights are square, as in self-attention; they are n_q × n_k, square "
                                 "only when the queries and the keys come from one sequence"),
            _shape(_N_K, _N_K): ("the weights are square and sized by the source the decoder reads; there is one row "
                                 "per query, and the queries are the target's"),
            _shape(_N_Q + _N_K, _N_Q + _N_K): (
                f"the two sentences are joined into one sequence of {_N_Q + _N_K} tokens; cross-attention keeps them "
                "apart: the queries come from one, the keys from the other"),
        },
    ),
    Prediction(
        name="06-chat-black-weight",
        notebook="06_cross_attention",
        question=(f"The position whose input is 'chat' writes '{_WRITES['chat']}', so it asks for a colour (a "
                  f"{fmt(_Q_ENTRY)} in W^Q), and only 'black' offers one (a {fmt(_K_ENTRY)} in W^K); the other "
                  f"{_OTHERS} keys score 0. With d_k = {_D_K}, what weight will the position of 'chat' give 'black'?"),
        form="number",
        quantity="weight",
        # e^3 / (e^3 + 3) with e^3 taken as 20 or 27 is 0.87 or 0.9, both right.
        tolerance=0.05,
        truth=_chat_black_weight,
        why=(f"The score is {fmt(_Q_ENTRY)}·{fmt(_K_ENTRY)} = {fmt(_SCORE)}, scaled {fmt(_SCORE)} / √{_D_K} = "
             f"{fmt(_SCALED)}; the other keys score 0, so the weight is e^{fmt(_SCALED)} / (e^{fmt(_SCALED)} + "
             f"{_OTHERS}·e^0) = {fmt(_softmax_first(_SCALED), 2)}: a softmax leaves every key some weight."),
        thought={
            1.0: ("the one matching key takes all the weight; a softmax gives each key e^score, and e^0 = 1 is not "
                  "nothing"),
            _softmax_first(_SCORE): (f"the score {fmt(_SCORE)} goes into the softmax as it is; it is divided by "
                                     f"√d_k = {fmt(math.sqrt(_D_K))} first"),
            _softmax_first(_SCORE / _D_K): (f"the score is divided by d_k = {_D_K}; it is divided by √d_k = "
                                            f"{fmt(math.sqrt(_D_K))}"),
            1 / len(_TOY.source): (f"the {len(_TOY.source)} keys share the weight evenly, as they would if none "
                                   "of them matched"),
        },
    ),
    Prediction(
        name="06-sat-column-sum",
        notebook="06_cross_attention",
        question="Each row of the weights sums to 1. What does the column of 'sat' sum to?",
        form="number",
        quantity="sum of weights",
        maximum=len(_TOY.decoder_input),  # one weight of at most 1 per row
        # Three rows of 0.87 and three rows' leftovers ((1 - 0.87) / 3 each): 2.74. Reading the readers only gives
        # 2.61, 0.13 away: the tolerance keeps that thought beyond twice itself.
        tolerance=0.06,
        truth=_sat_column_sum,
        why=(f"A column adds what every row gives its key: the rows of {_READERS} (they write "
             f"{', '.join(_WRITES[q] for q in _READERS_OF_SAT)}) give 'sat' {fmt(_FROM_READERS, 2)} together and the "
             f"other rows {fmt(_FROM_OTHERS, 2)}; only the rows are normalised."),
        thought={
            1.0: ("columns sum to 1 as rows do; each row is a softmax over the keys, and a column collects whatever "
                  "the queries give its key"),
            len(_TOY.decoder_input) / len(_TOY.source): (
                f"every column gets the average share, {len(_TOY.decoder_input)} / {len(_TOY.source)}; 'sat' is read "
                f"by {len(_READERS_OF_SAT)} rows, so its column holds more"),
            _FROM_READERS: (f"only the rows of {_READERS} give 'sat' weight; the other rows give it a little "
                            "too"),
            float(len(_READERS_OF_SAT)): (f"the rows of {_READERS} give 'sat' all of their weight; each keeps "
                                          "a little for the other keys"),
        },
    ),
    Prediction(
        name="06-edit-chat-rows",
        notebook="06_cross_attention",
        question=(f"In row fr:chat of W^Q, move the {fmt(_Q_ENTRY)} from column 'colour' to column 'animal'. Which "
                  "rows (decoder positions, by their input) of the weights change?"),
        form="choice",
        options=(_rows_text(["chat"]), _rows_text(["le", "chat"]), _rows_text(_TOY.decoder_input), _rows_text([])),
        truth=_changed_rows,
        why=("X_dec is one-hot, so row fr:chat of W^Q is the query of the position whose input is 'chat' and of no "
             "other: only its scores, and so only its row of weights, move (to 'cat')."),
        thought={
            _rows_text(["le", "chat"]): ("'le' changes because 'chat' now asks for what 'le' asks for; each row is a "
                                        "softmax of its own query's scores, and the query of 'le' is as it was"),
            _rows_text(_TOY.decoder_input): ("an edit of W^Q changes every query; here each token's one-hot vector "
                                             "picks one row of W^Q, so the edit reaches only the query of 'chat'"),
            _rows_text([]): ("only the column of 'cat' changes; a weight sits in a row (its query) and a column (its "
                             "key) at once, and here a query changed"),
        },
    ),
    Prediction(
        name="06-reversed-black-le",
        notebook="06_cross_attention",
        question=(f"Roles reversed: Q from the encoder, K and V from the decoder. At step {_STEP} the decoder's input "
                  f"is {' '.join(_SO_FAR)}. What weight does the source word 'black' give '{_SO_FAR[1]}'?"),
        form="number",
        quantity="weight",
        tolerance=0.05,  # 1/3 written 0.3 or 0.35 is right
        truth=_reversed_black_le,
        why=(f"'black' asks for a colour, and none of {', '.join(repr(w) for w in _SO_FAR)} offers one: their "
             f"scores tie at 0, so they share the weight evenly, {fmt(1 / _STEP, 2)} each, until 'noir' arrives."),
        thought={
            0.0: ("'black' gives nothing to a word that does not match; a softmax gives every key e^score > 0, and "
                  "equal scores get equal weights"),
            1.0: "one of the keys must take the weight; with equal scores they share it",
            0.5: (f"the weight is shared by two keys; at step {_STEP} the decoder has {_STEP} input tokens, "
                  "'<s>' among them"),
            _chat_black_weight(): ("'black' finds its match as the query of 'chat' finds 'black'; no input so far "
                                   "offers a colour ('noir' comes next)"),
        },
    ),
]
