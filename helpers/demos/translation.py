"""A toy translation for notebook 04: "the black cat sat" -> "le chat noir s'est assis".

The embeddings are one-hot and the two languages use *different* coordinates
(English words the first four, French words the last six), so an English row and
a French row of ``X`` have dot product 0: the embeddings alone align nothing. The
alignment comes entirely from the projections: ``W^Q`` and ``W^K`` send every word
to its *meaning* (article, colour, animal, action), and a query scores high on a
key with the same meaning. To change who attends to whom, change the row of
``W^Q`` for the French word (what it asks for) or the row of ``W^K`` for the
English word (what it offers). The values (``W^V``) carry, for each English word,
the French word(s) it suggests.

Convention: a decoder row stands for the position that *produces* its French word, and
its input is that word's one-hot vector, so the row "noir" asks for a colour directly.
A trained decoder predicts the next token from the words before it (the position that
produces "noir" reads ``<s> le chat``) and works the question out in its own layers;
the toy skips that step so the alignment can be read off.

:func:`cross_attention` is the math (Q from the decoder, K and V from the
encoder). :class:`DecodingStepsDemo` steps through decoding one target token at a
time and shows, next to it, what reversing the roles would produce.
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from helpers.arrays import as_matrix
from helpers.attention import scaled_dot_product_attention
from helpers.layout import choice_buttons, course_box, view_html
from helpers.live import LiveWidget
from helpers.render import attention_weights_html, matrix_html

__all__ = [
    "SOURCE",
    "TARGET",
    "INPUT_DIMS",
    "MEANINGS",
    "MEANING_OF",
    "REFERENCE_ALIGNMENT",
    "VALUE_COLUMNS",
    "ToyTranslation",
    "toy_translation",
    "input_dim",
    "cross_attention",
    "alignment",
    "DecodingStepsDemo",
    "translation_explorer",
]

SOURCE = ["the", "black", "cat", "sat"]  # English, read by the encoder
TARGET = ["le", "chat", "noir", "s'", "est", "assis"]  # French, produced by the decoder
# One coordinate of the embedding per word; "en:" and "fr:" keep the languages apart.
INPUT_DIMS = [f"en:{w}" for w in SOURCE] + [f"fr:{w}" for w in TARGET]
MEANINGS = ["article", "colour", "animal", "action"]  # the columns of W^Q, W^K, W^V
MEANING_OF = {
    "the": "article", "black": "colour", "cat": "animal", "sat": "action",
    "le": "article", "chat": "animal", "noir": "colour", "s'": "action", "est": "action", "assis": "action",
}
# Which English word each French word translates (noir/black and chat/cat cross over).
REFERENCE_ALIGNMENT = {"le": "the", "chat": "cat", "noir": "black", "s'": "sat", "est": "sat", "assis": "sat"}
# The values: what each English word contributes is the French word(s) it suggests,
# one column per French word. (A French word's value is itself.)
VALUE_COLUMNS = list(TARGET)

Q_STRENGTH = 2.0  # entries of W^Q
K_STRENGTH = 3.0  # entries of W^K: a match scores 2·3 = 6, scaled 6 / √4 = 3


@dataclass
class ToyTranslation:
    """The toy's tokens and matrices (fresh copies, safe to edit).

    X_enc : (4, 10) one row per English token;  X_dec : (6, 10) one row per French token
    W_q, W_k : (10, 4)  (rows: INPUT_DIMS, columns: MEANINGS)
    W_v : (10, 6)  (rows: INPUT_DIMS, columns: VALUE_COLUMNS, the French words)
    """

    source: list
    target: list
    X_enc: np.ndarray
    X_dec: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    W_v: np.ndarray
    input_dims: list
    meanings: list
    value_columns: list


def input_dim(word: str, language: str) -> int:
    """Row of ``W`` (coordinate of ``X``) that holds ``word``; language "en" or "fr"."""
    name = f"{language}:{word}"
    if name not in INPUT_DIMS:
        raise ValueError(f"{name!r} is not one of the input dimensions {INPUT_DIMS}")
    return INPUT_DIMS.index(name)


def _meaning_matrix(strength: float) -> np.ndarray:
    W = np.zeros((len(INPUT_DIMS), len(MEANINGS)))
    for r, dim in enumerate(INPUT_DIMS):
        W[r, MEANINGS.index(MEANING_OF[dim.split(":", 1)[1]])] = strength
    return W


def _value_matrix() -> np.ndarray:
    W = np.zeros((len(INPUT_DIMS), len(VALUE_COLUMNS)))
    for fr, en in REFERENCE_ALIGNMENT.items():
        W[input_dim(en, "en"), VALUE_COLUMNS.index(fr)] = 1.0
        W[input_dim(fr, "fr"), VALUE_COLUMNS.index(fr)] = 1.0
    return W


def toy_translation() -> ToyTranslation:
    """The hand-built toy: one-hot embeddings, meaning projections."""
    X = np.eye(len(INPUT_DIMS))
    return ToyTranslation(
        source=list(SOURCE),
        target=list(TARGET),
        X_enc=X[: len(SOURCE)].copy(),
        X_dec=X[len(SOURCE):].copy(),
        W_q=_meaning_matrix(Q_STRENGTH),
        W_k=_meaning_matrix(K_STRENGTH),
        W_v=_value_matrix(),
        input_dims=list(INPUT_DIMS),
        meanings=list(MEANINGS),
        value_columns=list(VALUE_COLUMNS),
    )


def cross_attention(X_dec, X_enc, W_q, W_k, W_v, scale: bool = True):
    """Cross-attention: queries from the decoder, keys and values from the encoder.

    Parameters
    ----------
    X_dec : array_like (n_q, d_model), the decoder's token vectors (target side)
    X_enc : array_like (n_k, d_model), the encoder's token vectors (source side)
    W_q, W_k : array_like (d_model, d_k);  W_v : array_like (d_model, d_v)

    Returns
    -------
    output : ndarray (n_q, d_v): one row per *target* position
    weights : ndarray (n_q, n_k): target length × source length, rows sum to 1
    """
    X_dec = as_matrix(X_dec, "X_dec", "(n_q, d_model)")
    X_enc = as_matrix(X_enc, "X_enc", "(n_k, d_model)")
    if X_dec.shape[1] != X_enc.shape[1]:
        raise ValueError(
            f"X_dec has shape {X_dec.shape} and X_enc has shape {X_enc.shape}: both need the same d_model"
        )
    W_q = as_matrix(W_q, "W_q", "(d_model, d_k)")
    W_k = as_matrix(W_k, "W_k", "(d_model, d_k)")
    W_v = as_matrix(W_v, "W_v", "(d_model, d_v)")
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.shape[0] != X_dec.shape[1]:
            raise ValueError(f"{name} has shape {W.shape} but d_model = {X_dec.shape[1]}: it needs that many rows")
    Q = X_dec @ W_q  # (n_q, d_k)
    K = X_enc @ W_k  # (n_k, d_k)
    V = X_enc @ W_v  # (n_k, d_v)
    return scaled_dot_product_attention(Q, K, V, scale=scale)


def alignment(weights, query_tokens, key_tokens) -> list[tuple[str, str, float]]:
    """For each query row, the key with the largest weight: (query, key, weight)."""
    W = as_matrix(weights, "weights", "(n_q, n_k)")
    if W.shape != (len(query_tokens), len(key_tokens)):
        raise ValueError(
            f"weights has shape {W.shape} but there are {len(query_tokens)} query tokens "
            f"and {len(key_tokens)} key tokens"
        )
    best = np.argmax(W, axis=1)
    return [(q, key_tokens[int(j)], float(W[i, j])) for i, (q, j) in enumerate(zip(query_tokens, best))]


class DecodingStepsDemo(LiveWidget, widgets.VBox):
    """Decode one French token at a time; compare cross-attention with the roles reversed.

    At step t the decoder has t rows: those that produce the first t target words (it has read <s> and the
    first t - 1).

    * As built (Q from the decoder, K and V from the encoder): weights (t, 4), one
      output row per target token; rows already computed never change.
    * Reversed (Q from the encoder, K and V from the decoder): weights (4, t), one
      output row per *source* token, and every row changes as the decoder grows.

    Attributes
    ----------
    step_picker : ipywidgets.ToggleButtons (1..6);  views : dict of ipywidgets.HTML "cross", "reversed"
    step : int (settable);  cross_weights (t, 4), cross_output (t, 6),
    reversed_weights (4, t), reversed_output (4, 6)
    status, status_html : what could not be computed ('' when all is well), and where it shows
        (an edited ``toy`` can hold weights too large to compute)
    """

    def __init__(self, step: int = 3, toy: ToyTranslation | None = None):
        self._live_setup()
        self.toy = toy_translation() if toy is None else toy
        n = len(self.toy.target)
        target = list(self.toy.target)
        self.step_picker = choice_buttons(
            "decoder step t", list(range(1, n + 1)), self._check_step(step, n),
            tooltips=[f"rows: {' '.join(target[:t])} (read: {' '.join(['<s>', *target[:t - 1]])})"
                      for t in range(1, n + 1)],
        )
        self.step_picker.style.description_width = "8em"
        self.views = {k: view_html() for k in ("cross", "reversed")}
        super().__init__([
            self.step_picker,
            self.status_html,
            self.views["cross"],  # top: as built
            self.views["reversed"],  # below it: roles reversed
        ])
        course_box(self)  # normal line height for wrapped text
        self._update()  # the toy is the caller's: a failure here is theirs, raise it
        self.watch(self.step_picker, lambda _c: self.request_update())

    @staticmethod
    def _check_step(step, n: int) -> int:
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or not 1 <= step <= n:
            raise ValueError(f"step must be an integer from 1 to {n}; got {step!r}")
        return int(step)

    @property
    def step(self) -> int:
        return int(self.step_picker.value)

    @step.setter
    def step(self, value: int) -> None:
        self.step_picker.value = self._check_step(value, len(self.toy.target))

    def _update(self) -> None:
        t, toy = self.step, self.toy
        so_far = toy.target[:t]
        cross = cross_attention(toy.X_dec[:t], toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
        # Reversed roles: the encoder asks, the decoder's tokens so far answer.
        reverse = cross_attention(toy.X_enc, toy.X_dec[:t], toy.W_q, toy.W_k, toy.W_v)
        # Assigned together once both succeeded: a failure keeps the last valid step.
        (self.cross_output, self.cross_weights), (self.reversed_output, self.reversed_weights) = cross, reverse
        self.views["cross"].value = attention_weights_html(
            self.cross_weights, so_far, toy.source,
            title="As built: Q from the decoder, K, V from the encoder",
            note=f"{t} rows, one per French token so far; output shape {self.cross_output.shape}",
        ) + matrix_html(self.cross_output, row_labels=so_far, col_labels=toy.value_columns,
                        title="Output (one row per target token)", legend=False)
        self.views["reversed"].value = attention_weights_html(
            self.reversed_weights, toy.source, so_far,
            title="Reversed: Q from the encoder, K, V from the decoder",
            note=f"{len(toy.source)} rows, one per English token, whatever t is; output shape "
                 f"{self.reversed_output.shape}",
        ) + matrix_html(self.reversed_output, row_labels=toy.source, col_labels=toy.value_columns,
                        title="Output (one row per source token)", legend=False)

    def __repr__(self) -> str:
        return f"DecodingStepsDemo(step={self.step}, target={len(self.toy.target)}, source={len(self.toy.source)})"


def translation_explorer(toy: ToyTranslation | None = None, large: bool = False, compact: bool | None = None):
    """The toy in a :class:`helpers.widgets.CrossAttentionExplorer`, rows and columns named.

    The rows of ``W^Q``, ``W^K``, ``W^V`` are labelled with the input dimensions
    ("en:black", "fr:noir", ...) and their columns with the meanings / French words,
    so the learner can find the entry to edit: to make "noir" look at "cat", move the
    2 in row "fr:noir" of ``W^Q`` from column "colour" to column "animal".
    """
    from helpers.widgets import CrossAttentionExplorer

    toy = toy_translation() if toy is None else toy
    ex = CrossAttentionExplorer(toy.target, toy.source, toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v,
                                large=large, compact=compact)
    dims = toy.input_dims
    ex.editors["X_dec"].set_labels(row_labels=toy.target, col_labels=dims)
    ex.editors["X_enc"].set_labels(row_labels=toy.source, col_labels=dims)
    ex.editors["W_q"].set_labels(row_labels=dims, col_labels=toy.meanings)
    ex.editors["W_k"].set_labels(row_labels=dims, col_labels=toy.meanings)
    ex.editors["W_v"].set_labels(row_labels=dims, col_labels=toy.value_columns)
    ex.refresh()  # the views take their column names from the weight editors
    return ex
