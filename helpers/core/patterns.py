"""Attention patterns built from query/key weights (notebook 07's math).

Every token gets a small, readable feature vector (its row of ``X``)::

    pos0 … pos{n-1}   one-hot position: where the token is
    sink              1 on "[CLS]" only
    phrase A, B       one-hot phrase id: which phrase the token belongs to
    noun              1 on the content words ("cat", "mat")

Each pattern is a choice of ``W_q`` and ``W_k`` (shape ``(d_model, d_k)``) that reads some
of these features. The scores are ``(X W_q)(X W_k)^T / sqrt(d_k)`` and the weights their
softmax, computed by :mod:`helpers.core.attention`; nothing here is hand-set attention.

=============  =====  ===========================================================
pattern        d_k    how the weights make it
=============  =====  ===========================================================
diagonal       n      query i and key i both point along direction i
previous       n      query i points along i, key j along j + 1: i meets i - 1
vertical       1      every query asks for "sink"; only [CLS]'s key has it
block          2      query and key both carry the phrase id
long_range     1      query and key both carry "noun": cat meets mat
=============  =====  ===========================================================

The pattern builder that shows them live is in :mod:`helpers.demos.patterns`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.arrays import whole_number
from helpers.core.attention import attention_scores, project_qkv, scaled_dot_product_attention, softmax

__all__ = [
    "TOKENS",
    "PHRASES",
    "CONTENT_WORDS",
    "PATTERNS",
    "check_tokens",
    "feature_names",
    "token_features",
    "pattern_weights",
    "PatternAttention",
    "pattern_attention",
    "top_keys",
    "pattern_of",
    "bank_embeddings",
    "BANK_SENTENCES",
    "SHUFFLE_ORDER",
    "bank_attention",
]

TOKENS = ["[CLS]", "the", "cat", "sat", "on", "the", "mat"]
# Lesson section 1.6: the two sentences of the "bank" example, as the words of bank_embeddings' vocabulary.
BANK_SENTENCES = ("i went to the bank to deposit money", "i sat on the river bank")
# Phrase ids: "[CLS] the cat sat" is phrase A, "on the mat" is phrase B.
PHRASES = [0, 0, 0, 0, 1, 1, 1]
CONTENT_WORDS = ("cat", "mat")
# Notebook 07's shuffle (Q8): a new word order for TOKENS, [CLS] first; each word keeps its phrase and features.
SHUFFLE_ORDER = (0, 6, 1, 4, 2, 3, 5)

PATTERNS = {
    "diagonal": "diagonal: each token attends to itself",
    "previous": "previous token: each token attends to the one before it",
    "vertical": "vertical: every token attends to [CLS]",
    "block": "block-diagonal: tokens attend within their phrase",
    "long_range": "long-range: cat and mat find each other",
}


def check_tokens(tokens, phrases):
    """``tokens`` as a list of str and ``phrases`` as a list of phrase ids (0 or 1), one per token.

    Raises
    ------
    ValueError
        If there are no tokens, the lengths differ, or a phrase id is not 0 or 1.
    """
    tokens = [str(t) for t in tokens]
    if not tokens:
        raise ValueError("tokens must hold at least one token; got an empty list")
    phrases = list(phrases)
    if len(phrases) != len(tokens):
        raise ValueError(f"phrases has {len(phrases)} entries but tokens has {len(tokens)}: one phrase id per token")
    if any(p not in (0, 1) for p in phrases):
        raise ValueError(f"every phrase id must be 0 (phrase A) or 1 (phrase B); got {phrases}")
    return tokens, phrases


def feature_names(n: int) -> list[str]:
    """Names of the ``n + 4`` feature columns of :func:`token_features`."""
    return [f"pos{i}" for i in range(n)] + ["sink", "phrase A", "phrase B", "noun"]


def token_features(tokens=TOKENS, phrases=PHRASES) -> np.ndarray:
    """The feature matrix ``X`` for a token list.

    Parameters
    ----------
    tokens : list of str, length n
    phrases : list of int (0 or 1), length n; the phrase each token belongs to

    Returns
    -------
    X : ndarray, shape (n, n + 4); columns as in :func:`feature_names`.
    """
    tokens, phrases = check_tokens(tokens, phrases)
    n = len(tokens)
    X = np.zeros((n, n + 4))
    X[np.arange(n), np.arange(n)] = 1.0
    for i, (tok, ph) in enumerate(zip(tokens, phrases)):
        X[i, n] = 1.0 if tok == "[CLS]" else 0.0
        X[i, n + 1 + ph] = 1.0
        X[i, n + 3] = 1.0 if tok.lower() in CONTENT_WORDS else 0.0
    return X


def pattern_weights(pattern: str, n: int, strength: float = 3.0):
    """``W_q`` and ``W_k`` that make one pattern for ``n`` tokens.

    Parameters
    ----------
    pattern : one of ``PATTERNS`` ("diagonal", "previous", "vertical", "block", "long_range")
    n : int, number of tokens
    strength : float; every non-zero weight equals ``strength``, so a matching
        query/key pair scores ``strength**2`` before the division by ``sqrt(d_k)``.

    Returns
    -------
    W_q, W_k : ndarrays, shape (n + 4, d_k) with d_k as in the module table.
    """
    if pattern not in PATTERNS:
        raise ValueError(f"pattern must be one of {list(PATTERNS)}; got {pattern!r}")
    n = whole_number(n, "n (the number of tokens)")
    s = float(strength)
    if not np.isfinite(s):
        raise ValueError(f"strength must be a finite number; got {strength!r}")
    d_model = n + 4
    sink, phrase_a, noun = n, n + 1, n + 3
    if pattern in ("diagonal", "previous"):
        W_q = np.zeros((d_model, n))
        W_k = np.zeros((d_model, n))
        W_q[np.arange(n), np.arange(n)] = s
        if pattern == "diagonal":
            W_k[np.arange(n), np.arange(n)] = s
        else:
            # Key j is written in direction j + 1, where query j + 1 looks: so query i
            # meets key i - 1. The last key has no direction and matches nobody.
            W_k[np.arange(n - 1), np.arange(1, n)] = s
    elif pattern == "vertical":
        W_q = np.zeros((d_model, 1))
        W_k = np.zeros((d_model, 1))
        # Every token has exactly one position feature, so the position rows of W_q
        # give every query the same component: "I am looking for the sink".
        W_q[:n, 0] = s
        W_k[sink, 0] = s
    elif pattern == "block":
        W_q = np.zeros((d_model, 2))
        W_q[phrase_a, 0] = s
        W_q[phrase_a + 1, 1] = s
        W_k = W_q.copy()
    else:  # long_range
        W_q = np.zeros((d_model, 1))
        W_q[noun, 0] = s
        W_k = W_q.copy()
    return W_q, W_k


@dataclass
class PatternAttention:
    """One pattern head on a token list, every stage.

    Attributes
    ----------
    X : ndarray (n, n + 4), the token features (columns as in :func:`feature_names`)
    Q, K : ndarray (n, d_k), ``X W_q`` and ``X W_k``
    scores : ndarray (n, n), ``Q Kᵀ / sqrt(d_k)`` (Queries ↓, Keys →)
    weights : ndarray (n, n), the softmax of each row of ``scores``; each row sums to 1
    """

    X: np.ndarray
    Q: np.ndarray
    K: np.ndarray
    scores: np.ndarray
    weights: np.ndarray


def pattern_attention(tokens=TOKENS, phrases=PHRASES, W_q=None, W_k=None, pattern="diagonal",
                      strength=3.0) -> PatternAttention:
    """Queries, keys, scores and weights of one pattern head on a token list.

    Pass ``W_q`` and ``W_k`` (d_model, d_k) to use your own weights; otherwise they come from
    :func:`pattern_weights` (``pattern``, ``strength``).

    Returns
    -------
    PatternAttention with ``X`` (n, n+4), ``Q``, ``K`` (n, d_k), ``scores`` (n, n)
    (already divided by sqrt(d_k)) and ``weights`` (n, n), each row summing to 1.
    """
    tokens, phrases = check_tokens(tokens, phrases)
    X = token_features(tokens, phrases)
    if (W_q is None) != (W_k is None):
        raise ValueError("pass both W_q and W_k, or neither (then pattern and strength choose them)")
    if W_q is None:
        W_q, W_k = pattern_weights(pattern, len(tokens), strength)
    # The values do not shape the pattern; V = X keeps project_qkv's shape checks.
    Q, K, _ = project_qkv(X, W_q, W_k, np.eye(X.shape[1]))
    scores = attention_scores(Q, K, scale=True)
    return PatternAttention(X=X, Q=Q, K=K, scores=scores, weights=softmax(scores, axis=-1))


def top_keys(weights) -> list[frozenset]:
    """For each row of ``weights``, the keys (column indices) that get its largest weight (ties within 1e-6)."""
    W = np.asarray(weights, dtype=float)
    if W.ndim != 2:
        raise ValueError(f"weights must be a matrix (queries × keys); got shape {W.shape}")
    return [frozenset(np.flatnonzero(np.isclose(row, row.max(), rtol=1e-6, atol=1e-12))) for row in W]


def pattern_of(weights, tokens=TOKENS, phrases=PHRASES):
    """Which pattern of ``PATTERNS`` an attention weight matrix shows, or None.

    A pattern is told by where each row peaks: ``weights`` shows a pattern when every row's largest weight falls on
    the same keys as in that pattern's own weights (:func:`pattern_attention` at the default strength). A row that
    matches no key is uniform, so its largest weight is on every key. The sizes of the weights do not matter: a
    sharper or flatter head with the same peaks shows the same pattern.

    Parameters
    ----------
    weights : array_like (n, n), Queries ↓, Keys →
    tokens, phrases : the sentence and its phrase ids (as :func:`token_features`)

    Returns
    -------
    str or None
        A key of ``PATTERNS`` ("diagonal", "previous", "vertical", "block", "long_range"), or None if the peaks
        match none of them.
    """
    tokens, phrases = check_tokens(tokens, phrases)
    peaks = top_keys(weights)
    if len(peaks) != len(tokens) or np.shape(weights)[1] != len(tokens):
        raise ValueError(f"weights must have shape ({len(tokens)}, {len(tokens)}), one row and one column per "
                         f"token; got {np.shape(weights)}")
    for name in PATTERNS:
        if peaks == top_keys(pattern_attention(tokens, phrases, pattern=name).weights):
            return name
    return None


def bank_embeddings():
    """Hand-made embeddings for the two "bank" sentences of lesson section 1.6.

    Columns: ``finance``, ``nature``, ``seeks context``, ``function word``.
    "bank" carries a little of both senses and is the only word that asks for context.

    Returns
    -------
    dict with ``vocab`` (word -> ndarray (4,)), ``features`` (the 4 column names),
    ``W_q``, ``W_k`` (4, 2): the query of a context-seeking word looks for either topic,
    keys advertise their topic; ``W_v`` (4, 2): values carry the two topic features.
    """
    vocab = {
        "money": [1.0, 0.0, 0.0, 0.0],
        "deposit": [1.0, 0.0, 0.0, 0.0],
        "river": [0.0, 1.0, 0.0, 0.0],
        "bank": [0.3, 0.3, 1.0, 0.0],
    }
    for w in ("i", "went", "to", "the", "sat", "on"):
        vocab[w] = [0.0, 0.0, 0.0, 1.0]
    W_q = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 3.0], [0.0, 0.0]])
    W_k = np.array([[3.0, 0.0], [0.0, 3.0], [0.0, 0.0], [0.0, 0.0]])
    W_v = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    return {
        "vocab": {w: np.array(v) for w, v in vocab.items()},
        "features": ["finance", "nature", "seeks context", "function word"],
        "W_q": W_q,
        "W_k": W_k,
        "W_v": W_v,
    }


def bank_attention(sentence: str):
    """Self-attention over one sentence with the embeddings and weights of :func:`bank_embeddings`.

    Parameters
    ----------
    sentence : str
        Words of the vocabulary, separated by spaces (e.g. one of ``BANK_SENTENCES``).

    Returns
    -------
    weights : ndarray (n, n), Queries ↓, Keys →, scaled by 1/√d_k
    output : ndarray (n, 2), each token's output [finance, nature]
    """
    B = bank_embeddings()
    words = sentence.split()
    unknown = [w for w in words if w not in B["vocab"]]
    if not words or unknown:
        raise ValueError(f"sentence must be words of the vocabulary ({', '.join(B['vocab'])}); "
                         f"got {', '.join(map(repr, unknown)) or 'no words'}")
    X = np.array([B["vocab"][w] for w in words])
    Q, K, V = project_qkv(X, B["W_q"], B["W_k"], B["W_v"])
    output, weights = scaled_dot_product_attention(Q, K, V)
    return weights, output
