"""Attention patterns built from query/key weights (notebook 05).

Every token gets a small, readable feature vector (its row of ``X``)::

    pos0 … pos{n-1}   one-hot position: where the token is
    sink              1 on "[CLS]" only
    phrase A, B       one-hot phrase id: which phrase the token belongs to
    noun              1 on the content words ("cat", "mat")

Each pattern is a choice of ``W_q`` and ``W_k`` (shape ``(d_model, d_k)``) that reads some
of these features. The scores are ``(X W_q)(X W_k)^T / sqrt(d_k)`` and the weights their
softmax, computed by :mod:`helpers.attention`; nothing here is hand-set attention.

=============  =====  ===========================================================
pattern        d_k    how the weights make it
=============  =====  ===========================================================
diagonal       n      query i and key i both point along direction i
previous       n      query i points along i, key j along j + 1: i meets i - 1
vertical       1      every query asks for "sink"; only [CLS]'s key has it
block          2      query and key both carry the phrase id
long_range     1      query and key both carry "noun": cat meets mat
=============  =====  ===========================================================
"""

from __future__ import annotations

from types import SimpleNamespace

import ipywidgets as widgets
import numpy as np

from helpers import theme
from helpers.attention import attention_scores, project_qkv, softmax
from helpers.layout import course_box, number_box, view_html, wrap_row
from helpers.live import LiveWidget
from helpers.render import attention_weights_html, matrix_html
from helpers.widgets import MatrixEditor

__all__ = [
    "TOKENS",
    "PHRASES",
    "CONTENT_WORDS",
    "PATTERNS",
    "feature_names",
    "token_features",
    "pattern_weights",
    "pattern_attention",
    "bank_embeddings",
    "PatternBuilder",
]

TOKENS = ["[CLS]", "the", "cat", "sat", "on", "the", "mat"]
# Phrase ids: "[CLS] the cat sat" is phrase A, "on the mat" is phrase B.
PHRASES = [0, 0, 0, 0, 1, 1, 1]
CONTENT_WORDS = ("cat", "mat")

PATTERNS = {
    "diagonal": "diagonal: each token attends to itself",
    "previous": "previous token: each token attends to the one before it",
    "vertical": "vertical: every token attends to [CLS]",
    "block": "block-diagonal: tokens attend within their phrase",
    "long_range": "long-range: cat and mat find each other",
}


def _check_tokens(tokens, phrases):
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
    tokens, phrases = _check_tokens(tokens, phrases)
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
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (the number of tokens) must be a positive integer; got {n!r}")
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


def pattern_attention(tokens=TOKENS, phrases=PHRASES, W_q=None, W_k=None, pattern="diagonal", strength=3.0):
    """Queries, keys, scores and weights of one pattern head on a token list.

    Pass ``W_q`` and ``W_k`` to use your own weights; otherwise they come from
    :func:`pattern_weights` (``pattern``, ``strength``).

    Returns
    -------
    SimpleNamespace with ``X`` (n, n+4), ``Q``, ``K`` (n, d_k), ``scores`` (n, n)
    (already divided by sqrt(d_k)) and ``weights`` (n, n), each row summing to 1.
    """
    tokens, phrases = _check_tokens(tokens, phrases)
    X = token_features(tokens, phrases)
    if (W_q is None) != (W_k is None):
        raise ValueError("pass both W_q and W_k, or neither (then pattern and strength choose them)")
    if W_q is None:
        W_q, W_k = pattern_weights(pattern, len(tokens), strength)
    # The values do not shape the pattern; V = X keeps project_qkv's shape checks.
    Q, K, _ = project_qkv(X, W_q, W_k, np.eye(X.shape[1]))
    scores = attention_scores(Q, K, scale=True)
    return SimpleNamespace(X=X, Q=Q, K=K, scores=scores, weights=softmax(scores, axis=-1))


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


class PatternBuilder(LiveWidget, widgets.VBox):
    """A live pattern builder: pick a pattern, set its strength, edit ``W_q`` / ``W_k``.

    Parameters
    ----------
    pattern : str, one of ``PATTERNS``
    strength : float, the value of every non-zero weight (0 to 6)
    tokens, phrases : the sentence and its phrase ids (see :func:`token_features`)

    Attributes
    ----------
    pattern : str, settable; choosing a pattern loads its weights
    strength : float, settable; reloads the current pattern's weights at this strength
    editors : dict "W_q", "W_k" -> MatrixEditor; edit a cell and the views follow
    result : SimpleNamespace X, Q, K, scores, weights for the current (last valid) weights
    views : dict "weights", "Q", "K", "X" -> ipywidgets.HTML
    status : str, why the weights in the editors cannot be used ('' when they can), e.g.
        scores too large for floating point; shown in ``status_html`` above the views,
        which keep the last valid result.
    """

    def __init__(self, pattern: str = "diagonal", strength: float = 3.0, tokens=TOKENS, phrases=PHRASES):
        if pattern not in PATTERNS:
            raise ValueError(f"pattern must be one of {list(PATTERNS)}; got {pattern!r}")
        self._live_setup()
        self.tokens, self.phrases = _check_tokens(tokens, phrases)
        self.X = token_features(self.tokens, self.phrases)
        self._features = feature_names(len(self.tokens))
        self.pattern_picker = widgets.Dropdown(
            options=[(label, key) for key, label in PATTERNS.items()],
            value=pattern,
            description="pattern",
            layout=widgets.Layout(width="460px", max_width="100%"),
        )
        self.strength_box = number_box("strength", strength, 0.0, 6.0, 0.5, label_width="6em", width="13em")
        self.explain = widgets.HTML()
        self.views = {name: view_html() for name in ("weights", "Q", "K", "X")}
        W_q, W_k = pattern_weights(pattern, len(self.tokens), strength)
        self.editors = {
            name: MatrixEditor(W, row_labels=self._features, col_labels=self._dims(W), title=f"{title} (d_model × d_k)")
            for name, title, W in (("W_q", "W^Q", W_q), ("W_k", "W^K", W_k))
        }
        super().__init__(
            [
                wrap_row([self.pattern_picker, self.strength_box]),
                self.explain,
                self.status_html,
                wrap_row([self.views["weights"], self.views["Q"], self.views["K"]]),
                wrap_row([self.editors["W_q"], self.editors["W_k"]]),
                self.views["X"],
            ]
        )
        course_box(self)  # normal line height for wrapped text
        self._update()  # the starting weights were checked: a failure here is a bug, raise it
        for ed in self.editors.values():
            # guarded: an editor calls this from its own cell handler, which must not raise
            ed.on_change(self.guarded(lambda _ed: self.request_update()))
        self.watch(self.pattern_picker, self._on_controls)
        self.watch(self.strength_box, self._on_controls)

    def __repr__(self):
        return f"PatternBuilder(pattern={self.pattern!r}, strength={self.strength:g}, tokens={len(self.tokens)})"

    @staticmethod
    def _dims(W):
        return [f"d{c + 1}" for c in range(W.shape[1])]

    @property
    def pattern(self) -> str:
        return self.pattern_picker.value

    @pattern.setter
    def pattern(self, value: str) -> None:
        if value not in PATTERNS:
            raise ValueError(f"pattern must be one of {list(PATTERNS)}; got {value!r}")
        self.pattern_picker.value = value

    @property
    def strength(self) -> float:
        return float(self.strength_box.value)

    @strength.setter
    def strength(self, value: float) -> None:
        value = float(value)
        lo, hi = self.strength_box.min, self.strength_box.max
        if not lo <= value <= hi:
            raise ValueError(f"strength must be between {lo:g} and {hi:g}; got {value:g}")
        self.strength_box.value = value

    def _on_controls(self, _change=None):
        W_q, W_k = pattern_weights(self.pattern, len(self.tokens), self.strength)
        # Both editors change shape together: recompute once, after both are loaded,
        # so that no update sees a W_q and a W_k of different widths.
        with self.paused():
            self.editors["W_q"].set_value(W_q, col_labels=self._dims(W_q), as_start=True)
            self.editors["W_k"].set_value(W_k, col_labels=self._dims(W_k), as_start=True)
            self.request_update()

    def _compute(self):
        W_q, W_k = self.editors["W_q"].value, self.editors["W_k"].value
        # Every cell is a finite number, but products of huge ones are not: check the
        # scores first, quietly, and say what to do instead of letting softmax refuse inf.
        with np.errstate(over="ignore", invalid="ignore"):
            scores = (self.X @ W_q) @ (self.X @ W_k).T
        if not np.isfinite(scores).all():
            raise ValueError("W^Q and W^K: these weights make the scores Q·K too large to compute "
                             "(beyond about 1e308); make some weights smaller")
        return pattern_attention(self.tokens, self.phrases, W_q=W_q, W_k=W_k)

    def _update(self):
        r = self._compute()
        self.result = r
        d_k = r.Q.shape[1]
        cols = self._dims(r.Q)
        W_q0, W_k0 = pattern_weights(self.pattern, len(self.tokens), self.strength)
        edited = not (
            W_q0.shape == self.editors["W_q"].value.shape
            and np.array_equal(W_q0, self.editors["W_q"].value)
            and np.array_equal(W_k0, self.editors["W_k"].value)
        )
        self.explain.value = (
            f"<div style='max-width:900px;font-size:{theme.sizes().font}'><b>{PATTERNS[self.pattern]}</b>"
            f"{' (weights edited)' if edited else ''}. "
            f"d_model = {r.X.shape[1]}, d_k = {d_k}: weights = softmax(Q K<sup>T</sup> / √{d_k}). "
            "Edit a weight in W<sup>Q</sup> or W<sup>K</sup> below and leave the cell: the views follow. "
            "The strength field and the pattern menu reload that pattern's weights.</div>"
        )
        self.views["weights"].value = attention_weights_html(r.weights, self.tokens, self.tokens)
        self.views["Q"].value = matrix_html(r.Q, row_labels=self.tokens, col_labels=cols, title="Q = X W^Q")
        self.views["K"].value = matrix_html(r.K, row_labels=self.tokens, col_labels=cols, title="K = X W^K")
        self.views["X"].value = matrix_html(
            r.X, row_labels=self.tokens, col_labels=self._features, title="X: token features (n × d_model)", digits=0
        )
