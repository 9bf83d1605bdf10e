"""Notebook 10's multi-head widgets: every tensor's shape, and each head's weights, live.

* :class:`HeadShapes` lets the learner type the four sizes of the lesson's Q1 and watch the shapes.
* :class:`MultiHeadExplorer` splits one example into h heads (a heads control over the divisors of
  d_model), shows each head's weights on the fixed [0, 1] scale, the concatenation, the output after
  W^O and the cost; X is editable.

The shapes, the stages and the cost are computed in :mod:`helpers.core.multihead`; these widgets show them.
"""

from __future__ import annotations

import ipywidgets as widgets
import traitlets

from helpers.core.explain import shape_text
from helpers.core.multihead import (
    MAX_SIZE,
    check_layer,
    check_sizes,
    divisors,
    multi_head_cost,
    multi_head_shapes,
    multi_head_stages,
)
from helpers.core.parsing import ParseError, parse_count
from helpers.look import highlight, theme
from helpers.look.colour_easing import ColourEasing
from helpers.look.mathtext import math_html
from helpers.look.render import heatmaps, labels_or_default, linked_matrix_html, linked_weights_html
from helpers.widgets.layout import course_box, view_html, wrap_row
from helpers.widgets.live import LiveWidget, Whole, validates
from helpers.widgets.matrix_editor import MatrixEditor
from helpers.widgets.save_buttons import SaveButtons

__all__ = ["HeadShapes", "MultiHeadExplorer"]

# Linked highlighting: a weight (i, j) of a head lights query i's row in every head, the concatenation and the output,
# and key j's column in every head; a token's label lights its row and its column everywhere.
_QUERIES, _KEYS = highlight.rows("mh-query-rows"), highlight.cols("mh-key-cols")
_LINKS = [([_QUERIES], [_QUERIES]), ([_KEYS], [_KEYS]), ([highlight.labels("mh-query-rows")], [_QUERIES, _KEYS])]


class HeadShapes(LiveWidget, widgets.VBox):
    """Type batch, heads, sequence length and d_model; see the shape of every tensor of the layer.

    Parameters
    ----------
    batch, heads, seq, d_model : int, the starting sizes (default: the lesson's Q1, 8, 12, 20, 768)
    large : bool, bigger text for a projector

    Attributes
    ----------
    fields : dict "batch", "heads", "seq", "d_model" -> ipywidgets.Text; typed sizes are read with
        :func:`helpers.core.parsing.parse_count` (``768``, ``1,024``)
    messages : dict, same keys -> ipywidgets.HTML, what is wrong with that field's text
    sizes : dict, the last valid sizes
    shapes : list of (name, how, shape) for :attr:`sizes` (see :func:`helpers.core.multihead.multi_head_shapes`)
    table : ipywidgets.HTML, the shapes as a table (CSS class ``mh-shapes-table``)

    A field that is not a whole number, or heads that do not divide d_model, gets a message next to
    it; the table keeps the last valid sizes.
    """

    LABELS = {"batch": "batch", "heads": "heads h", "seq": "sequence n", "d_model": "d_model"}

    def __init__(self, batch: int = 8, heads: int = 12, seq: int = 20, d_model: int = 768, large: bool = False):
        check_sizes(batch, heads, seq, d_model)
        self._live_setup(large)
        self.sizes = {"batch": int(batch), "heads": int(heads), "seq": int(seq), "d_model": int(d_model)}
        self._typed = dict(self.sizes)
        self.fields, self.messages, boxes = {}, {}, []
        for name, value in self.sizes.items():
            field = widgets.Text(value=str(value), description=self.LABELS[name], continuous_update=False,
                                 style={"description_width": "6.5em"}, layout=widgets.Layout(width="14em"))
            field.add_class(f"mh-shapes-{name}")
            msg = widgets.HTML()
            msg.add_class("mh-shapes-message")
            self.fields[name], self.messages[name] = field, msg
            boxes.append(widgets.VBox([field, msg], layout=widgets.Layout(max_width="22em")))
        self.table = view_html()
        self.table.add_class("mh-shapes-table")
        super().__init__([wrap_row(boxes), self.status_html, self.table])
        self.add_class("mh-shapes")
        course_box(self)
        self._update()
        for name, field in self.fields.items():
            self.watch(field, self._reader(name), where=self.messages[name])

    def _reader(self, name):
        def read(change):
            text = change["new"]
            if not text.strip():
                raise ValueError(f"{self.LABELS[name]}: is empty; type a whole number such as 12")
            try:
                value = parse_count(text)
            except ParseError as err:
                raise ValueError(f"{self.LABELS[name]}: {err}") from None
            if not 1 <= value <= MAX_SIZE:
                raise ValueError(f"{self.LABELS[name]}: must be from 1 to {MAX_SIZE:,}; got {value:,}")
            self.clear_problem(self.messages[name])
            self._typed[name] = value
            self.request_update()
        read.__name__ = f"read_{name}"
        return read

    def _update(self):
        # The last readable value of every field: heads typed before d_model is fixed still counts.
        shapes = multi_head_shapes(**self._typed)   # ValueError (heads not dividing d_model) keeps the last table
        self.sizes = dict(self._typed)
        self.shapes = shapes
        sizes = self.sizes
        d_k = sizes["d_model"] // sizes["heads"]
        rows = [(name, how, (shape_text(shape), f"{theme.MONO}font-weight:600")) for name, how, shape in shapes]
        self.table.value = theme.table_html(
            ["tensor", "how it is made", "shape"], rows, large=self._live_large,
            align=["left", "left", "left"],
            caption=f"d_k = d_model / h = {sizes['d_model']:,} / {sizes['heads']:,} = {d_k:,}")

    def __repr__(self) -> str:
        s = self.sizes
        return f"HeadShapes(batch={s['batch']}, heads={s['heads']}, seq={s['seq']}, d_model={s['d_model']})"


class MultiHeadExplorer(LiveWidget, widgets.VBox):
    """Multi-head self-attention of one example, live: pick the number of heads, edit X.

    Parameters
    ----------
    tokens : list of str, length n
    X : array_like (n, d_model)
    W_q, W_k, W_v, W_o : array_like (d_model, d_model)
    h : int, the starting number of heads (a divisor of d_model)
    large : bool, bigger text for a projector

    Attributes
    ----------
    h : int (a trait), linked to ``heads_picker``, which offers every divisor of d_model (another number is refused:
        a ``TraitError``, also a ``ValueError``)
    heads_picker : ipywidgets.ToggleButtons, the heads control
    editors : dict "X" -> MatrixEditor; edit a cell and leave it: every view follows
    result : helpers.core.multihead.MultiHeadStages for the last valid input: ``Q, K, V`` (n, d_model), ``weights``
        (h, n, n), ``heads`` (h, n, d_k), ``concat`` (n, d_model), ``output`` (n, d_model), ``cost``
    views : dict "heads" (a row of per-head heatmaps), "concat", "output", "cost" -> widgets
    head_views : list of ipywidgets.HTML, one heatmap per head currently shown
    save_weights : helpers.widgets.save_buttons.SaveButtons, "Save PNG" / "Save SVG" under the heads: every head's
    weights
        on show, side by side in one figure for a slide (``figures/<notebook>-multihead-weights.png``)

    CSS classes: ``mh-explorer`` on the whole, ``mh-heads`` on the heads control, ``mh-editor-X``,
    ``mh-view-heads`` on the row of heatmaps and ``mh-view-head`` on each, ``mh-view-concat``,
    ``mh-view-output``, ``mh-view-cost``.
    """

    h = Whole(2, help="the number of heads, a divisor of d_model")

    def __init__(self, tokens, X, W_q, W_k, W_v, W_o, h: int = 2, large: bool = False):
        X, mats = check_layer(X, W_q, W_k, W_v, W_o, h)
        n, d_model = X.shape
        self.tokens = labels_or_default(tokens, n, "t", "tokens", noun="tokens")
        self._d_model = d_model
        self.h = h
        self._live_setup(large)
        self.W = mats
        self._dims = [f"d{c + 1}" for c in range(d_model)]
        self.heads_picker = widgets.ToggleButtons(
            options=[(f"h = {k}", k) for k in divisors(d_model)], value=h, description="heads",
            tooltips=[f"{k} head{'s' if k > 1 else ''} of width d_k = {d_model // k}" for k in divisors(d_model)],
            style={"button_width": "5em"})
        self.heads_picker.add_class("mh-heads")
        self.editors = {"X": MatrixEditor(X, row_labels=self.tokens, col_labels=self._dims,
                                          title="X (n × d_model)", large=large, compact=True)}
        self.editors["X"].add_class("mh-editor-X")
        self.editors["X"].layout.width = "min-content"  # as wide as its grid, so a head's weights fit beside it
        self.explain = widgets.HTML()
        self._head_pool = []
        self.head_views = []
        # The heads wrap in a column of their own beside X (under X where even one head does not fit beside it),
        # with the buttons that save them right under them, where they say what they save.
        heads_row = wrap_row([])
        heads_row.add_class("mh-view-heads")
        self.views = {"heads": heads_row, "concat": view_html(), "output": view_html(), "cost": widgets.HTML()}
        self._easing = ColourEasing()  # the colour each live view showed last
        for name in ("concat", "output", "cost"):
            self.views[name].add_class(f"mh-view-{name}")
        for name in ("concat", "output"):
            self.views[name].add_class("mh-query-rows")
        self._links = widgets.HTML("", layout=widgets.Layout(display="none"))
        self.save_weights = SaveButtons(self._weights_figure, "multihead-weights")
        legend = widgets.HTML(highlight.legend_html([(highlight.LINKED_STYLE, (
            "the rows and columns linked to the weight under the pointer or the keyboard focus: its query's row in "
            "every head, the concatenation and the output, its key's column in every head"))], large))
        super().__init__([
            self.heads_picker,
            self.explain,
            self.status_html,
            wrap_row([self.editors["X"], widgets.VBox([heads_row, self.save_weights], layout=widgets.Layout(
                flex="1 1 0", min_width="min-content", max_width="100%"))]),
            legend,
            wrap_row([self.views["concat"], self.views["output"]]),
            self.views["cost"],
            self._links,
        ])
        self.add_class("mh-explorer")
        course_box(self)
        self._update()  # the starting values were checked above: a failure here is a bug, raise it
        self.editors["X"].on_change(self.guarded(lambda _ed: self.request_update()))
        self.bind(self.heads_picker, "h")

    @validates("h")
    def _valid_h(self, value) -> int:
        allowed = divisors(self._d_model)
        if value not in allowed:
            raise ValueError(f"h = {value!r} does not divide d_model = {allowed[-1]}; choose one of {allowed}")
        return value

    @traitlets.observe("h")
    def _h_changed(self, _change) -> None:
        self.request_update()

    def _head_view(self, i: int) -> widgets.HTML:
        while len(self._head_pool) <= i:
            v = view_html()
            for cls in ("mh-view-head", "mh-query-rows", "mh-key-cols"):
                v.add_class(cls)
            self._head_pool.append(v)
        return self._head_pool[i]

    def _update(self):
        X, h = self.editors["X"].value, self.h
        d_model = X.shape[1]
        d_k = d_model // h
        # Every stage once: the views show them all; values too large to compute are refused with a message.
        stages = multi_head_stages(X, self.W["W_q"], self.W["W_k"], self.W["W_v"], self.W["W_o"], h)
        self.result = stages
        weights, concat, output, cost = stages.weights, stages.concat, stages.output, stages.cost
        large = self._live_large
        size = theme.sizes(large).font
        self.explain.value = (
            f"<div style='max-width:50em;font-size:{size}'><b>{h} head{'s' if h > 1 else ''} of width "
            f"d<sub>k</sub> = {d_model} / {h} = {d_k}.</b> {self._columns_sentence(h, d_k)} Each head computes "
            f"softmax(Q<sub>i</sub> K<sub>i</sub>ᵀ / √{d_k}) V<sub>i</sub> on its own columns; each row of its "
            "weights sums to 1. "
            "Edit X and leave the cell: every view follows.</div>")
        self.head_views = []
        for i, title in enumerate(self._head_titles(h, d_k)):
            view = self._head_view(i)
            # Narrow columns and no row-sum column: two heads fit side by side under X at 1024 px with the
            # file browser open, so an edit of X and every head's weights are on one screen.
            view.value = linked_weights_html(weights[i], self.tokens, self.tokens, large=large, title=title,
                                             row_sums=False, cell_width=None if large else "2.7em", focusable=True,
                                             easing=self._easing)
            self.head_views.append(view)
        self.views["heads"].children = tuple(self.head_views)
        head_cols = [f"h{i + 1}·{c + 1}" for i in range(h) for c in range(d_k)]
        n = X.shape[0]
        self.views["concat"].value = linked_matrix_html(concat, self.tokens, head_cols, large=large,
                                                 title=f"Concat(head 1 … head {h})  (n × h·d_k = {n} × {d_model})",
                                                 easing=self._easing)
        self.views["output"].value = linked_matrix_html(output, self.tokens, self._dims, large=large,
                                                 title=f"output = Concat · W^O  ({X.shape[0]} × {d_model})",
                                                 easing=self._easing)
        self.views["cost"].value = self._cost_html(X.shape[0], d_model, h, cost)
        self._links.value = highlight.link_style_html("mh-explorer", _LINKS, n)

    @staticmethod
    def _head_columns(i: int, d_k: int) -> str:
        """The columns of Q, K and V that head ``i`` (from 0) reads, counted from 0 as numpy indexes them."""
        return f"column {i * d_k}" if d_k == 1 else f"columns {i * d_k}–{(i + 1) * d_k - 1}"

    @classmethod
    def _head_titles(cls, h: int, d_k: int) -> list[str]:
        """Each head's title, with the columns of Q, K and V it reads."""
        return [f"head {i + 1} ({cls._head_columns(i, d_k)} of Q, K, V)" for i in range(h)]

    def _weights_figure(self):
        """Every head's weights on show, side by side, as one figure for a slide (the "Save PNG" / "Save SVG")."""
        weights = self.result.weights  # the last valid input's, as the views show them
        h, d_model = weights.shape[0], self.result.concat.shape[1]
        d_k = d_model // h
        return heatmaps(weights, self.tokens, self.tokens, self._head_titles(h, d_k),
                        title=f"Multi-head attention weights: {h} head{'s' if h > 1 else ''} of width "
                              f"d_k = {d_model} / {h} = {d_k}")

    @classmethod
    def _columns_sentence(cls, h: int, d_k: int) -> str:
        """Which columns of Q, K and V each head reads, counted from 0 as numpy indexes them."""
        if h == 1:
            return "The one head uses every column of Q, K and V."
        return f"Head 1 uses {cls._head_columns(0, d_k)} of Q, K and V, head 2 the next {d_k}, and so on."

    def _cost_html(self, n, d_model, h, cost) -> str:
        d_k = d_model // h
        one = multi_head_cost(n, d_model, 1)
        rows = [
            ("projections X W^Q, X W^K, X W^V", f"3 · {n} · {d_model} · {d_model}", f"{cost['projections']:,}"),
            ("scores Q_i K_iᵀ, all heads", f"{h} · {n} · {n} · {d_k}", f"{cost['scores']:,}"),
            ("weighted sums weights · V_i, all heads", f"{h} · {n} · {n} · {d_k}", f"{cost['weighted sums']:,}"),
            ("Concat · W^O", f"{n} · {d_model} · {d_model}", f"{cost['W^O']:,}"),
            (("total", "font-weight:700"), "", (f"{cost['total']:,}", "font-weight:700")),
            ("one head of width d_model (h = 1)", f"3·{n}·{d_model}² + 2·{n}²·{d_model} + {n}·{d_model}²",
             f"{one['total']:,}"),
        ]
        table = theme.table_html(["step", "multiply-adds", "count"], rows, large=self._live_large,
                                 align=["left", "left", "right"], caption=f"Cost with h = {h}")
        note = ("h · d_k = d_model, so splitting into heads changes how the work is grouped, not how much "
                "there is.")
        return f'{table}<div style="font-size:{theme.sizes(self._live_large).small}">{math_html(note)}</div>'

    def __repr__(self) -> str:
        return f"MultiHeadExplorer(tokens={len(self.tokens)}, d_model={len(self._dims)}, h={self.h})"
