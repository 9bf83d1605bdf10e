"""A toy translation for notebook 06: "the black cat sat" -> "le chat noir s'est assis" (data and math).

The decoder's input is the target shifted right, ``<s> le chat noir s' est``: the position whose input is
``<s>`` writes "le", the one whose input is "le" writes "chat", and so on. Its query asks for what the *next*
word needs, so the row of "le" looks for "cat".

The embeddings are one-hot and the two languages use *different* coordinates (the four English words, then the
six French input tokens), so an English row and a French row of ``X`` have dot product 0: the embeddings alone
align nothing. The alignment comes entirely from the projections, which send words to a *meaning* (article,
colour, animal, action):

* ``W^K``: an English word offers its own meaning ("cat" offers an animal);
* ``W^Q``: a French input token asks for the meaning of the word its position writes next (after "le" an
  animal, after "chat" a colour, since French puts the adjective after the noun);
* ``W^V``: an English word's value is the French word(s) it translates to, one column per French word.

A trained decoder works its question out from the whole prefix in its own layers; here one input word decides it.
The French rows of ``W^K`` and ``W^V`` and the English rows of ``W^Q`` are used only with the roles reversed
(queries from the encoder): there a French token offers its own meaning and carries itself as its value
(``<s>`` offers and carries nothing), and an English word asks for its own meaning.

:func:`cross_attention` is the math (Q from the decoder, K and V from the encoder). The demos of notebook 06 that
show the toy (decoding step by step, the toy in a cross-attention explorer) are in :mod:`helpers.demos.translation`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.arrays import as_matrix
from helpers.core.attention import scaled_dot_product_attention
from helpers.core.decoding import BOS, TARGET as DECODED, shift_right

__all__ = [
    "SOURCE",
    "TARGET",
    "BOS",
    "DECODER_INPUT",
    "INPUT_DIMS",
    "MEANINGS",
    "MEANING_OF",
    "TRANSLATES",
    "ASKS_FOR",
    "REFERENCE_ALIGNMENT",
    "VALUE_COLUMNS",
    "ToyTranslation",
    "toy_translation",
    "input_dim",
    "cross_attention",
    "alignment",
]

SOURCE = ["the", "black", "cat", "sat"]  # English, read by the encoder
TARGET = list(DECODED)  # French, written by the decoder: 05's sentence
# The target shifted right (05): position t reads DECODER_INPUT[t] and writes TARGET[t].
DECODER_INPUT = shift_right(TARGET)
# One coordinate of the embedding per word; "en:" and "fr:" keep the languages apart.
INPUT_DIMS = [f"en:{w}" for w in SOURCE] + [f"fr:{w}" for w in DECODER_INPUT]
MEANINGS = ["article", "colour", "animal", "action"]  # the columns of W^Q, W^K
MEANING_OF = {
    "the": "article", "black": "colour", "cat": "animal", "sat": "action",
    "le": "article", "chat": "animal", "noir": "colour", "s'": "action", "est": "action", "assis": "action",
}
# Which English word each French word translates (noir/black and chat/cat cross over).
TRANSLATES = {"le": "the", "chat": "cat", "noir": "black", "s'": "sat", "est": "sat", "assis": "sat"}
# What each decoder input asks for: the meaning of the word its position writes next.
ASKS_FOR = {token: MEANING_OF[written] for token, written in zip(DECODER_INPUT, TARGET)}
# Which English word each decoder position should read: the one behind the word it writes
# ("<s>" -> "the", "le" -> "cat", "chat" -> "black", ...).
REFERENCE_ALIGNMENT = {token: TRANSLATES[written] for token, written in zip(DECODER_INPUT, TARGET)}
# The values: one column per French word of the target; an English word's value is the French word(s) it
# translates to.
VALUE_COLUMNS = list(TARGET)

Q_STRENGTH = 2.0  # entries of W^Q
K_STRENGTH = 3.0  # entries of W^K: a match scores 2·3 = 6, scaled 6 / √4 = 3


@dataclass
class ToyTranslation:
    """The toy's tokens and matrices (fresh copies, safe to edit).

    source : the 4 English tokens;  target : the 6 French words written;  decoder_input : the target shifted right
    X_enc : (4, 10) one row per English token;  X_dec : (6, 10) one row per decoder input token
    W_q, W_k : (10, 4)  (rows: INPUT_DIMS, columns: MEANINGS)
    W_v : (10, 6)  (rows: INPUT_DIMS, columns: VALUE_COLUMNS, the French words)
    """

    source: list
    target: list
    decoder_input: list
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


def _meaning_matrix(strength: float, french: dict) -> np.ndarray:
    """(10, 4): each English word's own meaning; each French input token's meaning from ``french``."""
    W = np.zeros((len(INPUT_DIMS), len(MEANINGS)))
    for r, dim in enumerate(INPUT_DIMS):
        language, word = dim.split(":", 1)
        meaning = MEANING_OF[word] if language == "en" else french.get(word)
        if meaning is not None:
            W[r, MEANINGS.index(meaning)] = strength
    return W


def _value_matrix() -> np.ndarray:
    W = np.zeros((len(INPUT_DIMS), len(VALUE_COLUMNS)))
    for fr, en in TRANSLATES.items():
        W[input_dim(en, "en"), VALUE_COLUMNS.index(fr)] = 1.0
    for token in DECODER_INPUT:
        if token in VALUE_COLUMNS:  # a French token carries itself ("<s>" nothing)
            W[input_dim(token, "fr"), VALUE_COLUMNS.index(token)] = 1.0
    return W


def toy_translation() -> ToyTranslation:
    """The hand-built toy: one-hot embeddings, meaning projections.

    ``W_q``: a French input token asks for what the next word needs (:data:`ASKS_FOR`); ``W_k``: a French token offers
    its own meaning, ``<s>`` none (used only with the roles reversed). English rows: each word's own meaning.
    """
    X = np.eye(len(INPUT_DIMS))
    own = {token: MEANING_OF[token] for token in DECODER_INPUT if token in MEANING_OF}
    return ToyTranslation(
        source=list(SOURCE),
        target=list(TARGET),
        decoder_input=list(DECODER_INPUT),
        X_enc=X[: len(SOURCE)].copy(),
        X_dec=X[len(SOURCE):].copy(),
        W_q=_meaning_matrix(Q_STRENGTH, ASKS_FOR),
        W_k=_meaning_matrix(K_STRENGTH, own),
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
