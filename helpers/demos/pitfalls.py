"""Notebook 08's demos: softmax saturation as d_k grows, and the naive softmax's overflow.

* :class:`SaturationDemo`: a d_k field (1 to 512) and a scale switch, showing one
  query's weights over 8 keys as bars with the largest weight, the entropy and the size
  of the softmax gradient.
* :class:`OverflowDemo`: type a row of scores; see the textbook softmax overflow to
  ``nan`` while the max-subtracted softmax stays exact.

The numbers come from :mod:`helpers.core.pitfalls`; these widgets only display them.
"""

from __future__ import annotations

import html
import math

import ipywidgets as widgets
import numpy as np
import traitlets

from helpers.core.attention import softmax
from helpers.core.explain import fmt
from helpers.core.numbers import number_text
from helpers.core.pitfalls import MAX_D_K, check_d_k, naive_softmax, parse_scores, saturation
from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.look.render import colour_for
from helpers.widgets.layout import course_box, number_box, view_html, wrap_row
from helpers.widgets.live import LiveWidget, Whole, validates

__all__ = ["bar_chart_html", "SaturationDemo", "OverflowDemo"]


def bar_chart_html(values, labels, title: str = "", digits: int = 3) -> str:
    """Horizontal bars for values in [0, 1] (attention weights), coloured on the fixed [0, 1] scale.

    ``nan`` values are drawn as an empty bar labelled "nan" so that a broken softmax
    is visible rather than hidden.
    """
    values = np.asarray(values, dtype=float).ravel()
    labels = [str(lab) for lab in labels]
    if len(labels) != values.size:
        raise ValueError(f"labels has {len(labels)} entries but values has {values.size}")
    rows = [
        [(lab, theme.MONO),
         (number_text(v, digits, trim=False),
          theme.MONO + theme.bar_style(v, colour_for(v)[0] if math.isfinite(v) else theme.BAR_TRACK, width="260px"))]
        for lab, v in zip(labels, values)
    ]
    return theme.table_html(None, rows, align=["right", "left"], caption=title or None)


class SaturationDemo(LiveWidget, widgets.VBox):
    """d_k field (1 to 512) and a "divide by √d_k" switch for one random query row.

    Attributes
    ----------
    d_k : int (a trait), linked to ``d_k_box``; 1 to 512
    scale : bool (a trait), linked to ``scale_box``
    result : helpers.core.pitfalls.Saturation for the current settings
    view : ipywidgets.HTML with the bars and the numbers
    status, status_html : what could not be computed ('' when all is well), and where it shows
    """

    d_k = Whole(64, help="the width of the query and the keys")
    scale = traitlets.Bool(False, help="divide the scores by sqrt(d_k)")

    def __init__(self, d_k: int = 64, scale: bool = False, n_keys: int = 8, seed: int = 0):
        self.d_k, self.scale = d_k, bool(scale)  # checked by the traits
        self._live_setup()
        self.n_keys = n_keys
        self.seed = seed
        self.d_k_box = number_box("d_k", self.d_k, 1, MAX_D_K, 1, integer=True, label_width="3em", width="10em")
        # The labels' d_k typeset, as in the prose (their words for a screen reader: "dk").
        self.d_k_box.description = math_html(self.d_k_box.description)
        self.d_k_box.description_allow_html = True
        self.scale_box = widgets.Checkbox(value=scale, description=math_html("divide scores by √d_k"),
                                          description_allow_html=True)
        self.view = view_html()
        super().__init__([wrap_row([self.d_k_box, self.scale_box]), self.status_html, self.view])
        course_box(self)  # normal line height for wrapped text
        self._update()  # the starting values are the caller's: a failure here is theirs, raise it
        self.bind(self.d_k_box, "d_k")
        self.bind(self.scale_box, "scale")

    def __repr__(self):
        return f"SaturationDemo(d_k={self.d_k}, scale={self.scale})"

    @validates("d_k")
    def _valid_d_k(self, value) -> int:
        value = check_d_k(value)
        if value > MAX_D_K:
            raise ValueError(f"d_k must be at most {MAX_D_K}; got {value}")
        return value

    @traitlets.observe("d_k", "scale")
    def _setting_changed(self, _change) -> None:
        self.request_update()

    def _update(self):
        r = saturation(self.d_k, self.scale, self.n_keys, self.seed)
        self.result = r
        labels = [f"key {j}" for j in range(self.n_keys)]
        how = f"q·k / √{self.d_k}" if self.scale else "q·k (not scaled)"
        stats = theme.table_html(None, [
            ["score spread (std)", (number_text(float(r.scores.std()), 2, trim=False), theme.MONO)],
            ["largest weight", (number_text(r.max_weight, 3, trim=False), theme.MONO)],
            [f"entropy (uniform = {number_text(math.log(self.n_keys), 2, trim=False)})",
             (number_text(r.entropy, 3, trim=False), theme.MONO)],
            ["softmax gradient size ‖diag(p) − ppᵀ‖", (number_text(r.grad_norm, 4, trim=False), theme.MONO)],
        ], align=["left", "right"])
        bars = bar_chart_html(r.weights, labels, title=f"weights of one query, scores = {how}")
        self.view.value = f"<div style='display:flex;align-items:flex-start;gap:16px'>{bars}{stats}</div>"


class OverflowDemo(LiveWidget, widgets.VBox):
    """Type a row of scores; compare the naive softmax with the max-subtracted one.

    Attributes
    ----------
    text : str (a trait), linked to ``field``: setting it is exactly what typing into the field does
    scores : ndarray, the last valid row
    message : str, '' when the field is valid, else what is wrong (shown next to it,
        in ``message_html``, which is this widget's status line)
    naive, stable : ndarrays, the two softmax results for ``scores``
    view : ipywidgets.HTML
    """

    text = traitlets.Unicode("1000, 999, 998", help="the row of scores as typed")

    def __init__(self, text: str = "1000, 999, 998"):
        self.text = str(text)
        self.message_html = widgets.HTML()
        self._live_setup(status_html=self.message_html)  # the field is the only input
        self.field = widgets.Text(value=self.text, description="scores", layout=widgets.Layout(width="420px"))
        self.view = view_html()
        super().__init__([wrap_row([self.field, self.message_html]), self.view])
        course_box(self)  # normal line height for wrapped text
        self._update()  # a bad starting row is a programming error: raise
        self.bind(self.field, "text")

    def __repr__(self):
        return f"OverflowDemo(scores={self.text!r})"

    @traitlets.observe("text")
    def _text_changed(self, _change) -> None:
        self.request_update()

    @property
    def message(self) -> str:
        return self.status

    def _update(self):
        x = parse_scores(self.text)  # a ValueError keeps the last valid row on show
        naive, stable = naive_softmax(x), softmax(x)
        self.scores, self.naive, self.stable = x, naive, stable
        m = float(x.max())
        with np.errstate(over="ignore"):
            exps = np.exp(x)
        labels = [f"s={fmt(v, 2)}" for v in x]
        # "s + 1000" rather than "s − -1000" when the maximum is negative.
        shifted = f"s − {fmt(m, 2)}" if m >= 0 else f"s + {fmt(-m, 2)}"
        top = float(exps.max())
        if not math.isfinite(top):
            top_text = "∞ (overflow)"
        elif top == 0.0:
            # Every exp is 0, so the naive softmax divides 0 by 0.
            top_text = "0 (underflow: every exp is 0)"
        else:
            top_text = number_text(top, 4, trim=False)
        naive_note = f"exp of the largest score = {top_text}"
        self.view.value = (
            "<div style='display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap'>"
            + bar_chart_html(self.naive, labels, title="naive: exp(s) / Σ exp(s)")
            + bar_chart_html(self.stable, labels, title=f"stable: exp({shifted}) / Σ exp({shifted})")
            + "</div>"
            + f"<div style='margin-top:4px;font-size:{theme.sizes().font}'>{html.escape(naive_note)}; "
            f"naive sum = {number_text(float(np.sum(self.naive)), 4, trim=False)}, "
            f"stable sum = {number_text(float(np.sum(self.stable)), 4, trim=False)}</div>"
        )
