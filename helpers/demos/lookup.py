"""Notebook 01's live soft look-up: number fields for the query and the temperature, and a hard/soft switch.

The documents, their keys and values and the look-up itself are in :mod:`helpers.core.lookup`.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import traitlets

from helpers.core.arrays import as_matrix
from helpers.core.lookup import KEY_FEATURES, KEYS, TITLES, VALUE_FEATURES, VALUES, check_temperature, lookup
from helpers.core.numbers import number_text
from helpers.look import theme
from helpers.look.render import colour_for, labels_or_default, matrix_html
from helpers.widgets.layout import course_box, number_box, view_html, wrap_row
from helpers.widgets.live import LiveWidget, Vector, validates

__all__ = ["LookupDemo"]


def _interval(lo: float, hi: float) -> str:
    """The range a field takes, as its messages write it: ``[−2, 2]``."""
    return f"[{number_text(lo, mark_tiny=True)}, {number_text(hi, mark_tiny=True)}]"


class LookupDemo(LiveWidget, widgets.VBox):
    """Live soft look-up: move the query, switch hard/soft, change the temperature.

    Parameters
    ----------
    titles : list of str, length n (default :data:`helpers.core.lookup.TITLES`)
    keys : array_like (n, d_k) (default :data:`helpers.core.lookup.KEYS`)
    values : array_like (n, d_v) (default :data:`helpers.core.lookup.VALUES`)
    key_features, value_features : list of str, names of the key / value columns
    query : array_like (d_k,), the starting query (default all zeros)
    temperature : float > 0
    hard : bool
    query_range : (float, float), the range of each query entry
    large : bool, bigger text for a projector

    Attributes
    ----------
    query : ndarray (d_k,) (a trait), linked to ``query_boxes`` (one field per entry); each entry within
        ``query_range``
    temperature : float (a trait), linked to ``temperature_box``; within the field's range (0.1 to 5)
    hard : bool (a trait), linked to ``mode`` ("hard" or "soft")
    query_boxes : list of number fields (ipywidgets.BoundedFloatText), one per key feature
    temperature_box : number field (ipywidgets.BoundedFloatText)
    mode : ipywidgets.ToggleButtons, value "soft" or "hard"
    table, summary : ipywidgets.HTML, the documents with their scores and weights,
        and the retrieved value
    status, status_html : what could not be computed ('' when all is well), and where it shows
    scores, weights, retrieved : ndarray, for the current settings (see :func:`helpers.core.lookup.lookup`)

    Everything updates synchronously: when a field's value is set, ``.weights`` and
    the HTML already show the new state. A value the traits refuse raises a ``TraitError`` (also a
    ``ValueError``) saying why.
    """

    query = Vector(help="the query vector, one entry per key feature")
    temperature = traitlets.Float(1.0, help="the softmax temperature T")
    hard = traitlets.Bool(False, help="all weight on the best-scoring document (argmax) instead of softmax")

    def __init__(
        self,
        titles=None,
        keys=None,
        values=None,
        key_features=None,
        value_features=None,
        query=None,
        temperature: float = 1.0,
        hard: bool = False,
        query_range=(-2.0, 2.0),
        large: bool = False,
    ):
        self._large = bool(large)
        self._keys = as_matrix(KEYS if keys is None else keys, "keys", "(n, d_k)", finite=True)
        self._values = as_matrix(VALUES if values is None else values, "values", "(n, d_v)", finite=True)
        n, d_k = self._keys.shape
        if self._values.shape[0] != n:
            raise ValueError(
                f"keys has shape {self._keys.shape} and values has shape {self._values.shape}: "
                "one key and one value per document"
            )
        self._titles = self._names(TITLES if titles is None and keys is None else titles, n, "titles", "doc ")
        default_kf = KEY_FEATURES if key_features is None and keys is None else key_features
        default_vf = VALUE_FEATURES if value_features is None and values is None else value_features
        self._key_features = self._names(default_kf, d_k, "key_features", "k")
        self._value_features = self._names(default_vf, self._values.shape[1], "value_features", "v")
        lo, hi = (float(v) for v in query_range)
        if not lo < hi:
            raise ValueError(f"query_range must be (low, high) with low < high; got {query_range!r}")
        self._range = (lo, hi)
        self._temperature_range = (0.1, 5.0)
        # The starting state, checked by the traits (before the widget is built: nothing to redraw yet).
        self.query = np.zeros(d_k) if query is None else query
        self.temperature, self.hard = temperature, bool(hard)
        self._live_setup(large)

        self.query_boxes = [
            number_box(name, float(v), lo, hi, 0.1, label_width="5em", width="12em")
            for v, name in zip(self.query, self._key_features)
        ]
        self.temperature_box = number_box("temperature T", self.temperature, *self._temperature_range, 0.1,
                                          label_width="8em", width="15em")
        self.mode = widgets.ToggleButtons(
            options=[("soft (softmax)", "soft"), ("hard (argmax)", "hard")],
            value="hard" if self.hard else "soft",
            tooltips=["every document contributes, weighted by softmax(score / T)",
                      "all weight on the best-scoring document"],
        )
        self.table = view_html()
        self.summary = widgets.HTML()
        controls = wrap_row([
            widgets.VBox([widgets.HTML("<b>Query</b> (what you are looking for)"), *self.query_boxes]),
            widgets.VBox([widgets.HTML("<b>Retrieval</b>"), self.mode, self.temperature_box]),
        ])
        super().__init__([controls, self.status_html, self.table, self.summary])
        course_box(self)  # normal line height for wrapped text
        self._update()  # the starting values were checked above: a failure here is a bug, raise it
        for i, box in enumerate(self.query_boxes):
            self.watch(box, self._entry_reader(i))
        self.bind(self.temperature_box, "temperature")
        self.bind(self.mode, "hard", to_control=lambda hard: "hard" if hard else "soft",
                  to_trait=lambda mode: mode == "hard")

    # -- input checking -------------------------------------------------------------
    @staticmethod
    def _names(names, n: int, arg: str, prefix: str) -> list[str]:
        return labels_or_default(names, n, prefix, arg, noun="names")

    def _check_query(self, query) -> np.ndarray:
        try:
            q = np.asarray(query, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"query must be {self._keys.shape[1]} numbers; got {query!r}") from None
        if q.shape != (self._keys.shape[1],):
            raise ValueError(f"query must have shape ({self._keys.shape[1]},) like a key; got shape {q.shape}")
        lo, hi = self._range
        if not np.isfinite(q).all() or (q < lo).any() or (q > hi).any():
            raise ValueError(f"every query entry must lie in {_interval(lo, hi)}; got {q.tolist()}")
        return q

    # -- state --------------------------------------------------------------------------
    @validates("query")
    def _valid_query(self, value) -> np.ndarray:
        return self._check_query(value)

    @validates("temperature")
    def _valid_temperature(self, value) -> float:
        t = check_temperature(value)
        lo, hi = self._temperature_range
        if not lo <= t <= hi:
            raise ValueError(f"temperature must lie in {_interval(lo, hi)}; got {value!r}")
        return t

    @traitlets.observe("query")
    def _query_changed(self, change) -> None:
        if self._live_ready:
            # One redraw for the whole vector, not one per field: the fields' readers find the query they show.
            with self.hold_trait_notifications():
                for box, v in zip(self.query_boxes, change["new"]):
                    box.value = float(v)
        self.request_update()

    @traitlets.observe("temperature", "hard")
    def _setting_changed(self, _change) -> None:
        self.request_update()

    def _entry_reader(self, i: int):
        """What a query field does: entry ``i`` of the query takes the field's value."""

        def read(change) -> None:
            if float(change["new"]) != self.query[i]:
                q = self.query.copy()
                q[i] = change["new"]
                self.query = q

        return read

    @property
    def titles(self) -> list[str]:
        return list(self._titles)

    def _update(self) -> None:
        # Assigned together, after lookup succeeded: a failure keeps the last valid state.
        self.scores, self.weights, self.retrieved = lookup(
            self.query, self._keys, self._values, self.temperature, self.hard
        )
        self.temperature_box.disabled = self.hard
        self.table.value = self._table_html()
        self.summary.value = self._summary_html()

    # -- rendering ----------------------------------------------------------------------
    def _table_html(self) -> str:
        q = self.query
        best = int(np.argmax(self.weights))
        rule = "argmax(score)" if self.hard else f"softmax(score / {number_text(self.temperature, mark_tiny=True)})"
        # Each heading on two lines: what the column is, then how it is made.
        head = "white-space:pre-line;text-align:center;vertical-align:bottom;"
        header = [
            ("document", head + "text-align:left;"),
            (f"key k\n{', '.join(self._key_features)}", head),
            ("score\nq·k", head),
            (f"weight\n{rule}", head),
            (f"value v\n{', '.join(self._value_features)}", head),
        ]
        rows = []
        for j, title in enumerate(self._titles):
            k = self._keys[j]
            terms = " + ".join(f"{_paren(a)}·{_paren(b)}" for a, b in zip(q, k))
            w = float(self.weights[j])
            rows.append([
                (title, "font-weight:700;" if j == best else ""),
                f"[{_vec(k)}]",
                (number_text(self.scores[j], 2, mark_tiny=True), "", terms),  # hover: the dot product written out
                (number_text(w, 3, mark_tiny=True), theme.bar_style(w, colour_for(w)[0])),
                f"[{_vec(self._values[j])}]",
            ])
        rows.append(["sum of weights", "", "", number_text(self.weights.sum(), 3, mark_tiny=True), ""])
        table = theme.table_html(header, rows, large=self._large,
                                 align=["left", "right", "right", "left", "right"])
        return f'<div style="{theme.MONO}white-space:nowrap">{table}</div>'

    def _summary_html(self) -> str:
        blend = " + ".join(
            f"{number_text(w, 2, mark_tiny=True)}·{t}" for w, t in zip(self.weights, self._titles) if w >= 0.005
        )
        return matrix_html(
            self.retrieved,
            row_labels=["retrieved"],
            col_labels=self._value_features,
            title="Retrieved value = Σ weight · value",
            digits=2,
            legend=False,
            large=self._large,
            note=f"= {blend}",
        )

    def retrieved_text(self) -> str:
        """The retrieved value as text: ``cat 1.46, dog 0.54, ...``."""
        return ", ".join(f"{f} {number_text(v, 2, mark_tiny=True)}"
                         for f, v in zip(self._value_features, self.retrieved))

    def __repr__(self) -> str:
        return f"LookupDemo(documents={len(self._titles)}, d_k={self._keys.shape[1]}, d_v={self._values.shape[1]})"


def _paren(x) -> str:
    text = number_text(x, 2, mark_tiny=True)
    return f"({text})" if float(x) < 0 else text


def _vec(v) -> str:
    return ", ".join(number_text(x, 2, mark_tiny=True) for x in v)
