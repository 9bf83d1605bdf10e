"""Notebook 05's pattern builder: pick a pattern, set its strength, edit W^Q and W^K, watch the weights.

The token features, the weights of each pattern and the attention they give are in :mod:`helpers.patterns`;
:class:`PatternBuilder` shows them and lets the learner change them.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from helpers import theme
from helpers.layout import course_box, number_box, view_html, wrap_row
from helpers.live import LiveWidget
from helpers.patterns import (
    PATTERNS,
    PHRASES,
    TOKENS,
    check_tokens,
    feature_names,
    pattern_attention,
    pattern_weights,
    token_features,
)
from helpers.render import attention_weights_html, matrix_html
from helpers.widgets import MatrixEditor

__all__ = ["PatternBuilder"]


class PatternBuilder(LiveWidget, widgets.VBox):
    """A live pattern builder: pick a pattern, set its strength, edit ``W_q`` / ``W_k``.

    Parameters
    ----------
    pattern : str, one of ``PATTERNS``
    strength : float, the value of every non-zero weight (0 to 6)
    tokens, phrases : the sentence and its phrase ids (see :func:`helpers.patterns.token_features`)

    Attributes
    ----------
    pattern : str, settable; choosing a pattern loads its weights
    strength : float, settable; reloads the current pattern's weights at this strength
    editors : dict "W_q", "W_k" -> MatrixEditor; edit a cell and the views follow
    result : helpers.patterns.PatternAttention (X, Q, K, scores, weights) for the current (last valid) weights
    views : dict "weights", "Q", "K", "X" -> ipywidgets.HTML
    status : str, why the weights in the editors cannot be used ('' when they can), e.g.
        scores too large for floating point; shown in ``status_html`` above the views,
        which keep the last valid result.
    """

    def __init__(self, pattern: str = "diagonal", strength: float = 3.0, tokens=TOKENS, phrases=PHRASES):
        if pattern not in PATTERNS:
            raise ValueError(f"pattern must be one of {list(PATTERNS)}; got {pattern!r}")
        self._live_setup()
        self.tokens, self.phrases = check_tokens(tokens, phrases)
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
        with self.hold_trait_notifications():
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
