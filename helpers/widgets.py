"""Live widgets: an editable matrix and the self- and cross-attention explorers.

Data flows one way: the text in a cell is parsed into a number (never evaluated as
code), the matrices go through :mod:`helpers.attention`, and the results are drawn by
:mod:`helpers.render` into ``HTML`` widgets by setting their ``.value``. Nothing is
written into an ``Output`` widget, so a notebook that builds an explorer stores the
same outputs on every run (strict nbval).

Every update is synchronous: when :meth:`MatrixEditor.set_text` (or a control's
``.value``) returns, the editor's ``.value`` and ``.message``, the explorer's
``.result`` and every view already show the new state.
"""

from __future__ import annotations

import html as _html
import math
import re
import zlib

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLStyle, TextStyle
import numpy as np

from . import attention as att
from . import explain
from . import render

__all__ = [
    "parse_number",
    "MatrixEditor",
    "AttentionResult",
    "AttentionExplorer",
    "CrossAttentionExplorer",
]

# --------------------------------------------------------------------------- parsing

# ASCII digits only: Python's \d would also accept digits from other scripts.
_DEC = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_NUMBER = re.compile(rf"[+-]?{_DEC}(?:[eE][+-]?[0-9]+)?")
_FRACTION = re.compile(rf"({_NUMBER.pattern})\s*/\s*({_NUMBER.pattern})")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity|∞)", re.IGNORECASE)
_EXPRESSION = re.compile(rf"[+-]?{_DEC}(?:\s*[-+*/^%]+\s*[+-]?{_DEC})+")
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+,[0-9]+")
_MINUS_SIGNS = str.maketrans({"\u2212": "-", "\u2012": "-", "\u2013": "-", "\ufe63": "-", "\uff0d": "-"})
_MAX_LEN = 40


def _quote(text: str) -> str:
    shown = text if len(text) <= 20 else text[:17] + "..."
    return "'" + shown + "'"


def parse_number(text: str) -> float:
    """Parse what a learner typed into a matrix cell.

    Accepted: an integer or decimal (``3``, ``-2.5``, ``.5``, ``+2``), scientific
    notation (``1e-3``), a fraction of two such numbers (``1/2``, ``-3/4``), with
    spaces around and the typographic minus sign ``−``. The text is matched with
    regular expressions and converted with ``float``; it is never
    evaluated as code.

    Returns
    -------
    float, always finite.

    Raises
    ------
    ValueError
        With a short reason that quotes the text: empty, not a number, an expression,
        not finite (``nan``, ``inf``), too large (``1e999``), or a division by zero.
    """
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not text")
    raw = text
    text = text.strip().translate(_MINUS_SIGNS)
    if not text:
        raise ValueError("is empty: type a number")
    if len(text) > _MAX_LEN:
        raise ValueError(f"{_quote(raw.strip())} is too long for a number")
    if _NUMBER.fullmatch(text):
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"{_quote(raw.strip())} is too large")
        return value
    frac = _FRACTION.fullmatch(text)
    if frac:
        # Each side as a float (never Fraction: "1e999999999" would build a huge integer).
        # IEEE division is correctly rounded, so 1/3 is the closest float to one third.
        num, den = float(frac.group(1)), float(frac.group(2))
        if not (math.isfinite(num) and math.isfinite(den)):
            raise ValueError(f"{_quote(raw.strip())} is too large")
        if den == 0:
            raise ValueError(f"{_quote(raw.strip())} divides by zero")
        value = num / den
        if not math.isfinite(value):
            raise ValueError(f"{_quote(raw.strip())} is too large")
        return value
    if _NON_FINITE.fullmatch(text):
        raise ValueError(f"{_quote(raw.strip())} is not a finite number")
    if _DECIMAL_COMMA.fullmatch(text):
        raise ValueError(f"{_quote(raw.strip())}: write decimals with a point ({text.replace(',', '.')})")
    if _EXPRESSION.fullmatch(text):
        raise ValueError(f"{_quote(raw.strip())} is a calculation: type a single number (e.g. 3, -2.5, 1/2)")
    raise ValueError(f"{_quote(raw.strip())} is not a number (e.g. 3, -2.5, 1/2, 1e-3)")


def _cell_text(v: float) -> str:
    """The text a cell shows for a number: short, and parsed back by :func:`parse_number`."""
    v = float(v)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.6g}"


def _small_values(rng: np.random.Generator, shape) -> np.ndarray:
    """Small friendly numbers for new or randomized cells: integers -2..2."""
    return rng.integers(-2, 3, size=shape).astype(float)


def _resized(M: np.ndarray, shape: tuple[int, int], seed: int) -> np.ndarray:
    """``M`` cut or grown to ``shape``: the overlap is kept, new cells get seeded small values."""
    rng = np.random.default_rng(seed)
    out = _small_values(rng, shape)
    r, c = min(M.shape[0], shape[0]), min(M.shape[1], shape[1])
    out[:r, :c] = M[:r, :c]
    return out


# --------------------------------------------------------------------------- styles

_PANEL = "background:#ffffff;color:#1a1a1a;border:1px solid #c8c8c8;border-radius:4px;"
_ERROR = "background:#fff0f0;color:#8b0000;border:1px solid #d62728;border-radius:4px;"
_MONO = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
_BAD_CELL_BG = "#ffd6d6"
_BAD_CELL_FG = "#8b0000"


def _font(large: bool) -> str:
    return "20px" if large else "13px"


def _label_html(text: str, large: bool, align: str = "center") -> str:
    return (
        f'<div style="font-weight:600;font-size:{_font(large)};text-align:{align};{_MONO}'
        f'padding:0 4px;white-space:nowrap">{_html.escape(text)}</div>'
    )


def _close_tree(root) -> None:
    """Close ``root``, every widget below it and their layouts and styles.

    ``Widget.close`` closes one model only; a matrix editor owns hundreds, which
    otherwise stay registered in the kernel for its whole life.
    """
    seen, stack = set(), [root]
    while stack:
        w = stack.pop()
        if id(w) in seen or not isinstance(w, widgets.Widget):
            continue
        seen.add(id(w))
        stack.extend(getattr(w, "children", ()))
        stack.extend(getattr(w, "_extra_models", ()))  # models shared by cells, maybe not in use
        for attr in ("layout", "style"):
            stack.append(getattr(w, attr, None))
        widgets.Widget.close(w)


# --------------------------------------------------------------------------- MatrixEditor



def _index_within(value, count: int, name: str) -> int:
    """``value`` as a row index below ``count``, or a ValueError naming ``name`` and the range."""
    i = int(value)
    if not 0 <= i < count:
        raise ValueError(f"{name} must be between 0 and {count - 1}; got {i}")
    return i

class MatrixEditor(widgets.VBox):
    """An editable matrix: a grid of text cells with token and dimension labels.

    Parameters
    ----------
    value : array_like, shape (n_rows, n_cols)
        The starting values (what "Reset" returns to).
    row_labels : sequence of str, optional
        One per row (tokens for X); default ``r1, r2, ...``.
    col_labels : sequence of str, optional
        One per column (dimensions); default ``d1, d2, ...``.
    title : str, optional
    large : bool
        Bigger font and cells, for a projector.
    seed : int, optional
        Seeds the "Randomize" button: click k draws from ``default_rng([seed, k])``, so
        the same clicks give the same matrices on every run. By default it is derived
        from the title, so that W^Q and W^K of one explorer do not randomize alike.
    buttons : bool
        Show the Reset / Randomize / Copy as numpy buttons (default). ``False`` hides
        them, for answer grids where "Randomize" or "Reset" would only distract; the
        methods :meth:`reset`, :meth:`randomize` and :meth:`as_numpy_literal` still work.

    CSS classes (stable, for tests and custom styles): ``matrix-editor`` on the whole
    editor, ``matrix-editor-title``, ``matrix-editor-grid``, ``matrix-editor-message``
    and ``matrix-editor-buttons`` on its parts.

    Attributes
    ----------
    value : ndarray (n_rows, n_cols)
        The last valid matrix: it changes only when every cell holds a number.
    message : str
        What is wrong with the typed text, one line per bad cell naming it
        (``row 'cat', column d1: '1/0' divides by zero``); ``''`` when all cells are valid.
    """

    def __init__(self, value, row_labels=None, col_labels=None, title=None, large: bool = False, seed=None,
                 buttons: bool = True):
        A = np.array(value, dtype=float)
        if A.ndim != 2 or A.size == 0:
            raise ValueError(f"value must be a non-empty 2-D matrix; got shape {A.shape}")
        if not np.isfinite(A).all():
            raise ValueError("value must hold finite numbers only")
        self._large = bool(large)
        self._title = title
        self._start = A.copy()
        self._value = A.copy()
        self._cells_val = A.copy()
        self._errors: dict[tuple[int, int], str] = {}
        self._callbacks = []
        self._silent = False
        self._rand_clicks = 0
        self._seed = int(seed) if seed is not None else zlib.crc32(str(title).encode())
        self._rows = self._check_labels(row_labels, A.shape[0], "r", "row_labels")
        self._cols = self._check_labels(col_labels, A.shape[1], "d", "col_labels")

        self._title_html = widgets.HTML(self._title_value())
        self._grid = widgets.GridBox()
        self._message_html = widgets.HTML("")
        btn_layout = widgets.Layout(width="auto")
        self._reset_btn = widgets.Button(description="Reset", tooltip="back to the starting values", layout=btn_layout)
        self._rand_btn = widgets.Button(description="Randomize", tooltip="small integers -2..2 (seeded)",
                                        layout=btn_layout)
        self._copy_btn = widgets.Button(description="Copy as numpy", tooltip="show this matrix as a numpy literal",
                                        layout=btn_layout)
        self._literal = widgets.Textarea(
            value="", layout=widgets.Layout(display="none", width="100%", height="auto"), rows=2
        )
        if self._large:
            for b in (self._reset_btn, self._rand_btn, self._copy_btn):
                b.style.font_size = "18px"
        self._reset_btn.on_click(lambda _b: self.reset())
        self._rand_btn.on_click(self._on_randomize_click)
        self._copy_btn.on_click(self._on_copy_click)
        self._build_grid()
        self._buttons = bool(buttons)
        self._button_box = widgets.HBox([self._reset_btn, self._rand_btn, self._copy_btn])
        if not self._buttons:
            # display: none also takes the buttons out of the Tab order.
            self._button_box.layout.display = "none"
        super().__init__(
            children=[
                self._title_html,
                self._grid,
                self._message_html,
                self._button_box,
                self._literal,
            ],
            layout=widgets.Layout(margin="4px 12px 4px 0", align_items="flex-start"),
        )
        for part, cls in ((self, "matrix-editor"), (self._title_html, "matrix-editor-title"),
                          (self._grid, "matrix-editor-grid"), (self._message_html, "matrix-editor-message"),
                          (self._button_box, "matrix-editor-buttons")):
            part.add_class(cls)

    # -- construction

    @staticmethod
    def _check_labels(labels, n, prefix, name):
        return render.labels_or_default(labels, n, prefix, name, first=1)

    def _title_value(self) -> str:
        if self._title is None:
            return ""
        n, m = self._value.shape
        return (
            f'<div style="font-weight:700;font-size:{"22px" if self._large else "14px"}">'
            f"{render.title_html(self._title)} "
            f'<span style="font-weight:400;opacity:0.75">({n} × {m})</span></div>'
        )

    def _build_grid(self):
        n, m = self._cells_val.shape
        width = "5.2em" if self._large else "4.4em"
        if not hasattr(self, "_ok_layout"):
            # One Layout and one Style shared by all good cells (and one pair for bad
            # cells) instead of two extra widget models per cell: a 16 × 8 matrix builds
            # and syncs three times faster this way.
            font = _font(self._large)
            self._ok_layout = widgets.Layout(width=width, margin="1px")
            self._bad_layout = widgets.Layout(width=width, margin="1px", border="2px solid #d62728")
            self._ok_style = TextStyle(font_size=font)
            self._bad_style = TextStyle(font_size=font, background=_BAD_CELL_BG, text_color=_BAD_CELL_FG)
            self._label_layout = widgets.Layout()
            self._label_style = HTMLStyle()
            self._extra_models = [self._ok_layout, self._bad_layout, self._ok_style, self._bad_style]
        lab = dict(layout=self._label_layout, style=self._label_style)
        self._row_label_w = [widgets.HTML(_label_html(r, self._large, "right"), **lab) for r in self._rows]
        self._col_label_w = [widgets.HTML(_label_html(c, self._large), **lab) for c in self._cols]
        self._cells = []
        children = [widgets.HTML("", **lab)] + self._col_label_w
        for i in range(n):
            row = []
            children.append(self._row_label_w[i])
            for j in range(m):
                t = widgets.Text(
                    value=_cell_text(self._cells_val[i, j]),
                    continuous_update=False,
                    layout=self._ok_layout,
                    style=self._ok_style,
                )
                t.observe(self._make_handler(i, j), names="value")
                row.append(t)
                children.append(t)
            self._cells.append(row)
        old = list(self._grid.children)
        self._grid.children = children
        gl = self._grid.layout
        gl.grid_template_columns = f"max-content repeat({m}, max-content)"
        gl.align_items = "center"
        gl.grid_gap = "0px"
        for w in old:
            w.close()

    def _make_handler(self, i, j):
        def handler(change):
            if not self._silent:
                self._cell_changed(i, j, change["new"])

        return handler

    # -- public API

    @property
    def value(self) -> np.ndarray:
        """The last valid matrix (a copy), shape (n_rows, n_cols)."""
        return self._value.copy()

    @property
    def buttons(self) -> bool:
        """Whether the Reset / Randomize / Copy as numpy buttons are shown."""
        return self._buttons

    @property
    def shape(self) -> tuple[int, int]:
        return self._value.shape

    @property
    def message(self) -> str:
        if not self._errors:
            return ""
        return "\n".join(
            f"row '{self._rows[i]}', column {self._cols[j]}: {reason}" for (i, j), reason in sorted(self._errors.items())
        )

    @property
    def errors(self) -> dict[tuple[int, int], str]:
        """The cells that do not hold a number: ``{(i, j): reason}``, empty when all are valid."""
        return dict(self._errors)

    @property
    def row_labels(self) -> list[str]:
        return list(self._rows)

    @property
    def col_labels(self) -> list[str]:
        return list(self._cols)

    def cell_text(self, i: int, j: int) -> str:
        """The text currently in cell (i, j)."""
        return self._cells[i][j].value

    def set_text(self, i: int, j: int, text: str) -> None:
        """Type ``text`` into cell (i, j) and leave the cell (exactly what the learner does)."""
        n, m = self._value.shape
        if not (0 <= i < n and 0 <= j < m):
            raise IndexError(f"cell ({i}, {j}) is outside the {n} × {m} matrix")
        text = str(text)  # set_text(0, 0, 3) means typing "3"
        cell = self._cells[i][j]
        if cell.value == text:
            # Leaving a cell unchanged fires nothing in the browser either.
            return
        cell.value = text

    def on_change(self, callback) -> None:
        """Call ``callback(editor)`` after each change that leaves every cell valid."""
        self._callbacks.append(callback)

    def reset(self) -> None:
        """Back to the starting values."""
        self._load(self._start)

    def randomize(self, seed=None) -> None:
        """Fill with small integers -2..2 drawn from ``numpy.random.default_rng(seed)``."""
        self._load(_small_values(np.random.default_rng(seed), self._value.shape))

    def as_numpy_literal(self) -> str:
        """The matrix as code: ``np.array([[1, 0.5], [-2, 3]])``."""
        return "np.array(" + explain.format_matrix(self._value, digits=6) + ")"

    def set_value(self, M, row_labels=None, col_labels=None, as_start: bool = False) -> None:
        """Replace the whole matrix (its shape may change; labels then must fit).

        ``as_start=True`` also makes ``M`` the values that "Reset" returns to.
        """
        A = np.array(M, dtype=float)
        if A.ndim != 2 or A.size == 0:
            raise ValueError(f"M must be a non-empty 2-D matrix; got shape {A.shape}")
        if not np.isfinite(A).all():
            raise ValueError("M must hold finite numbers only")
        reshape = A.shape != self._cells_val.shape
        if row_labels is not None or A.shape[0] != len(self._rows):
            self._rows = self._check_labels(row_labels, A.shape[0], "r", "row_labels")
        if col_labels is not None or A.shape[1] != len(self._cols):
            self._cols = self._check_labels(col_labels, A.shape[1], "d", "col_labels")
        if as_start:
            self._start = A.copy()
        if reshape:
            self._cells_val = A.copy()
            self._value = A.copy()
            self._errors = {}
            self._build_grid()
            self._after_change(notify=True)
        else:
            self._refresh_labels()
            self._load(A)

    def set_labels(self, row_labels=None, col_labels=None) -> None:
        """Rename rows and/or columns (same counts)."""
        if row_labels is not None:
            self._rows = self._check_labels(row_labels, self._value.shape[0], "r", "row_labels")
        if col_labels is not None:
            self._cols = self._check_labels(col_labels, self._value.shape[1], "d", "col_labels")
        self._refresh_labels()
        self._show_message()

    # -- internals

    def _refresh_labels(self):
        for w, r in zip(self._row_label_w, self._rows):
            w.value = _label_html(r, self._large, "right")
        for w, c in zip(self._col_label_w, self._cols):
            w.value = _label_html(c, self._large)

    def _load(self, A: np.ndarray) -> None:
        """Put a whole valid matrix into the cells, then notify once."""
        self._silent = True
        try:
            for i, row in enumerate(self._cells):
                for j, cell in enumerate(row):
                    cell.value = _cell_text(A[i, j])
                    self._mark(cell, ok=True)
        finally:
            self._silent = False
        self._cells_val = A.copy()
        self._errors = {}
        self._value = A.copy()
        self._after_change(notify=True)

    def _cell_changed(self, i, j, text):
        cell = self._cells[i][j]
        try:
            v = parse_number(text)
        except ValueError as err:
            self._errors[(i, j)] = str(err)
            self._mark(cell, ok=False)
            self._show_message()
            return
        self._errors.pop((i, j), None)
        self._mark(cell, ok=True)
        self._cells_val[i, j] = v
        if self._errors:
            self._show_message()
            return
        self._value = self._cells_val.copy()
        self._after_change(notify=True)

    def _mark(self, cell, ok: bool):
        layout, style = (self._ok_layout, self._ok_style) if ok else (self._bad_layout, self._bad_style)
        if cell.layout is not layout:
            cell.layout = layout
            cell.style = style

    def _show_message(self):
        if not self._errors:
            self._message_html.value = ""
            return
        lines = "".join(f"<div>{_html.escape(line)}</div>" for line in self.message.split("\n"))
        self._message_html.value = (
            f'<div style="{_ERROR}padding:4px 8px;margin-top:4px;max-width:{"34em" if self._large else "30em"};'
            f'font-size:{_font(self._large)}">'
            f"{lines}<div style=\"opacity:0.8\">The matrix keeps its last valid values until "
            f"{'this cell is' if len(self._errors) == 1 else 'these cells are'} fixed.</div></div>"
        )

    def _after_change(self, notify: bool):
        self._show_message()
        self._title_html.value = self._title_value()
        if self._literal.layout.display != "none":
            self._literal.value = self.as_numpy_literal()
        if notify:
            for cb in list(self._callbacks):
                cb(self)

    def _on_randomize_click(self, _b):
        self._rand_clicks += 1
        self.randomize(seed=[self._seed, self._rand_clicks])

    def _on_copy_click(self, _b):
        if self._literal.layout.display == "none":
            self._literal.value = self.as_numpy_literal()
            self._literal.rows = min(2 + self._value.shape[0], 12)
            self._literal.layout.display = None
            self._copy_btn.description = "Hide numpy"
        else:
            self._literal.layout.display = "none"
            self._copy_btn.description = "Copy as numpy"

    def close_all(self) -> None:
        """Close this editor and every widget it is made of."""
        _close_tree(self)

    def __repr__(self) -> str:
        n, m = self._value.shape
        return f"MatrixEditor(shape=({n}, {m}))"


# --------------------------------------------------------------------------- results


class AttentionResult:
    """Every stage of one attention computation, for the last valid input.

    Attributes
    ----------
    Q : ndarray (n_q, d_k)
    K : ndarray (n_k, d_k)
    V : ndarray (n_k, d_v)
    scores : ndarray (n_q, n_k), ``Q K^T``
    scaled : ndarray (n_q, n_k), ``Q K^T / sqrt(d_k)`` (equal to ``scores`` when scaling is off)
    mask : ndarray of bool (n_q, n_k), True where the query may attend (all True when no mask)
    masked : ndarray (n_q, n_k), ``scaled`` with ``-inf`` where the mask blocks
    weights : ndarray (n_q, n_k), softmax of ``masked`` along the keys; rows sum to 1
    output : ndarray (n_q, d_v), ``weights @ V``
    """

    __slots__ = ("Q", "K", "V", "scores", "scaled", "mask", "masked", "weights", "output")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw[k])

    def __repr__(self) -> str:
        n_q, n_k = self.weights.shape
        return f"AttentionResult(n_q={n_q}, n_k={n_k}, d_k={self.Q.shape[1]}, d_v={self.V.shape[1]})"


def _compute(X_q, X_kv, W_q, W_k, W_v, causal: bool, scale: bool) -> AttentionResult:
    """All stages through :mod:`helpers.attention`; ValueError if anything is not computable."""
    with np.errstate(over="ignore", invalid="ignore"):
        Q, _, _ = att.project_qkv(X_q, W_q, W_k, W_v)
        _, K, V = att.project_qkv(X_kv, W_q, W_k, W_v)
        scores = att.attention_scores(Q, K, scale=False)
        scaled = att.attention_scores(Q, K, scale=scale)
    for name, M in (("Q", Q), ("K", K), ("V", V), ("the scores", scaled)):
        if not np.isfinite(M).all():
            raise ValueError(f"{name} overflow (numbers too large to compute with): use smaller entries")
    n_q, n_k = scores.shape
    if causal:
        if n_q != n_k:
            raise ValueError(f"a causal mask needs as many queries as keys; got {n_q} queries and {n_k} keys")
        mask = att.causal_mask(n_q)
    else:
        mask = np.ones((n_q, n_k), dtype=bool)
    masked = scaled + att.additive_mask(mask)
    output, weights = att.scaled_dot_product_attention(Q, K, V, mask=mask if causal else None, scale=scale)
    return AttentionResult(Q=Q, K=K, V=V, scores=scores, scaled=scaled, mask=mask, masked=masked,
                           weights=weights, output=output)


# --------------------------------------------------------------------------- explorers

_MAX_TOKENS = 24
_MAX_DK = 16
_SEED = 20240


def _check_tokens(tokens, name: str) -> list[str]:
    if isinstance(tokens, str):
        raise ValueError(f"{name} must be a list of strings, one per token; got the string {tokens!r}")
    tokens = [str(t) for t in tokens]
    if not 1 <= len(tokens) <= _MAX_TOKENS:
        raise ValueError(f"{name} must have between 1 and {_MAX_TOKENS} tokens; got {len(tokens)}")
    return tokens


def _parse_token_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _default_names(existing: list[str], n: int) -> list[str]:
    """``existing`` cut or extended to ``n`` names; new ones are ``t<index>``, made unique."""
    names = list(existing[:n])
    k = len(names)
    while len(names) < n:
        cand = f"t{k}"
        while cand in names:
            cand += "'"
        names.append(cand)
        k += 1
    return names


class _ExplorerBase(widgets.VBox):
    """What the self- and cross-attention explorers share: controls, views, trace."""

    _cross = False

    def _init_common(self, causal: bool, scale: bool, large: bool):
        self._large = bool(large)
        self._causal = bool(causal)
        self._scale = bool(scale)
        self._batch = 0
        self.result = None
        self.status = ""
        self._trace_q = 0
        self._trace_k = 0
        self.trace_text = ""
        self._causal_box = widgets.Checkbox(value=self._causal, description="causal mask", indent=False,
                                            layout=widgets.Layout(width="auto", margin="0 16px 0 0"))
        self._scale_box = widgets.Checkbox(value=self._scale, description="scale by 1/√d_k", indent=False,
                                           layout=widgets.Layout(width="auto", margin="0 16px 0 0"))
        self._causal_box.observe(self._on_causal_box, names="value")
        self._scale_box.observe(self._on_scale_box, names="value")
        self._dk_box = widgets.BoundedIntText(value=1, min=1, max=_MAX_DK, description="d_k",
                                              layout=widgets.Layout(width="7.5em"), style={"description_width": "initial"})
        self._dk_box.observe(self._on_dk_box, names="value")
        self._q_drop = widgets.Dropdown(description="query", style={"description_width": "initial"},
                                        layout=widgets.Layout(width="auto"))
        self._k_drop = widgets.Dropdown(description="key", style={"description_width": "initial"},
                                        layout=widgets.Layout(width="auto"))
        self._q_drop.observe(self._on_trace_drop, names="value")
        self._k_drop.observe(self._on_trace_drop, names="value")
        self._status_html = widgets.HTML("")
        names = ["Q", "K", "V", "scores", "scaled", "mask", "weights", "output", "trace"]
        self.views = {k: widgets.HTML("") for k in names}

    # -- properties shared by both explorers

    @property
    def causal(self) -> bool:
        return self._causal

    @causal.setter
    def causal(self, value) -> None:
        value = bool(value)
        if value and self._cross and self._n_q() != self._n_k():
            raise ValueError(
                f"a causal mask needs as many decoder tokens as encoder tokens; got {self._n_q()} and {self._n_k()}"
            )
        self._causal_box.value = value

    @property
    def scale(self) -> bool:
        return self._scale

    @scale.setter
    def scale(self, value) -> None:
        self._scale_box.value = bool(value)

    @property
    def trace_query(self) -> int:
        return self._trace_q

    @trace_query.setter
    def trace_query(self, i) -> None:
        self._q_drop.value = _index_within(i, self._n_q(), "trace_query")

    @property
    def trace_key(self) -> int:
        return self._trace_k

    @trace_key.setter
    def trace_key(self, j) -> None:
        self._k_drop.value = _index_within(j, self._n_k(), "trace_key")

    @property
    def d_k(self) -> int:
        return self.editors["W_q"].shape[1]

    @property
    def d_model(self) -> int:
        return self.editors["W_q"].shape[0]

    def set_d_k(self, d_k: int) -> None:
        """Change d_k: W_q and W_k gain or lose columns (the overlap is kept, new columns are seeded)."""
        if isinstance(d_k, bool) or not isinstance(d_k, (int, np.integer)) or not 1 <= d_k <= _MAX_DK:
            raise ValueError(f"d_k must be an integer between 1 and {_MAX_DK}; got {d_k!r}")
        d_k = int(d_k)
        if d_k == self.d_k:
            return
        labels_q = [f"q{k + 1}" for k in range(d_k)]
        labels_k = [f"k{k + 1}" for k in range(d_k)]
        self._batch += 1
        try:
            for name, labels, seed in (("W_q", labels_q, 1), ("W_k", labels_k, 2)):
                ed = self.editors[name]
                shape = (ed.shape[0], d_k)
                ed.set_value(_resized(ed.value, shape, _SEED + seed), col_labels=labels)
                ed._start = _resized(ed._start, shape, _SEED + seed)
            self._dk_box.value = d_k
        finally:
            self._batch -= 1
        self._update()

    # -- control handlers

    def _on_causal_box(self, change):
        new = bool(change["new"])
        if new and self._cross and self._n_q() != self._n_k():
            self._causal_box.value = False
            return
        self._causal = new
        self._update()

    def _on_scale_box(self, change):
        self._scale = bool(change["new"])
        self._update()

    def _on_dk_box(self, change):
        if change["new"] != self.d_k:
            self.set_d_k(int(change["new"]))

    def _on_trace_drop(self, change):
        if self._batch:
            return
        if self._q_drop.value is not None:
            self._trace_q = int(self._q_drop.value)
        if self._k_drop.value is not None:
            self._trace_k = int(self._k_drop.value)
        if self.result is not None:
            # The traced pair is outlined in the score tables too, so redraw them all.
            self._render()

    def _on_editor_change(self, _editor):
        if not self._batch:
            self._update()

    def _sync_dropdowns(self):
        self._batch += 1
        try:
            self._trace_q = min(self._trace_q, self._n_q() - 1)
            self._trace_k = min(self._trace_k, self._n_k() - 1)
            self._q_drop.options = [(f"{i}: {t}", i) for i, t in enumerate(self._q_tokens())]
            self._k_drop.options = [(f"{j}: {t}", j) for j, t in enumerate(self._k_tokens())]
            self._q_drop.value = self._trace_q
            self._k_drop.value = self._trace_k
        finally:
            self._batch -= 1

    # -- computing and drawing

    def _update(self):
        if self._batch:
            return
        try:
            res = self._compute()
        except ValueError as err:
            self.status = str(err)
            self._status_html.value = (
                f'<div style="{_ERROR}padding:4px 8px;margin:4px 0">Cannot compute: {_html.escape(str(err))}. '
                "The views show the last valid result.</div>"
            )
            return
        self.status = ""
        self._status_html.value = ""
        self.result = res
        self._res_q_tokens = list(self._q_tokens())
        self._res_k_tokens = list(self._k_tokens())
        self._render()

    def refresh(self) -> None:
        """Redraw every view, e.g. after renaming an editor's rows or columns with ``set_labels``."""
        self._update()

    def _column_names(self, editor: str, width: int, prefix: str) -> list[str]:
        names = list(self.editors[editor].col_labels)
        return names if len(names) == width else [f"{prefix}{k + 1}" for k in range(width)]

    def _render(self):
        res = self.result
        qt, kt = self._res_q_tokens, self._res_k_tokens
        large = self._large
        d_k = res.Q.shape[1]
        d_v = res.V.shape[1]
        # Column k of Q, K or V comes from column k of W^Q, W^K or W^V: name it the same way.
        dk_labels = self._column_names("W_q", d_k, "q")
        kk_labels = self._column_names("W_k", d_k, "k")
        v_labels = self._column_names("W_v", d_v, "v")
        hl = (min(self._trace_q, len(qt) - 1), min(self._trace_k, len(kt) - 1))
        qsrc, ksrc = ("X_dec", "X_enc") if self._cross else ("X", "X")
        v = self.views
        v["Q"].value = render.matrix_html(res.Q, qt, dk_labels, title=f"① Q = {qsrc}·W^Q", row_axis="Queries ↓",
                                          col_axis="d_k →", large=large)
        v["K"].value = render.matrix_html(res.K, kt, kk_labels, title=f"① K = {ksrc}·W^K", row_axis="Keys ↓",
                                          col_axis="d_k →", large=large)
        v["V"].value = render.matrix_html(res.V, kt, v_labels, title=f"① V = {ksrc}·W^V", row_axis="Keys ↓",
                                          col_axis="d_v →", large=large)
        v["scores"].value = render.matrix_html(res.scores, qt, kt, title="② scores = Q·K^T", row_axis="Queries ↓",
                                               col_axis="Keys →", large=large, highlight=hl)
        if self._scale:
            scaled_title = f"③ scaled = scores ÷ √d_k (÷ √{d_k} = ÷ {explain.fmt(np.sqrt(d_k), 3)})"
            note = None
        else:
            scaled_title = "③ scaled (scaling off: the scores as they are)"
            note = "scaling is off: nothing divided"
        v["scaled"].value = render.matrix_html(res.scaled, qt, kt, title=scaled_title, row_axis="Queries ↓",
                                               col_axis="Keys →", large=large, highlight=hl, note=note)
        if self._causal:
            v["mask"].value = render.matrix_html(
                res.masked, qt, kt, title="④ masked: scaled + causal mask", row_axis="Queries ↓",
                col_axis="Keys →", large=large, highlight=hl,
                note="−∞ where a query would see a later token (blocked)",
            )
            v["mask"].layout.display = None
        else:
            v["mask"].value = ""
            v["mask"].layout.display = "none"
        v["weights"].value = render.attention_weights_html(
            res.weights, qt, kt, title="⑤ weights = softmax(row by row)", large=large, highlight=hl
        )
        v["output"].value = render.matrix_html(res.output, qt, v_labels, title="⑥ output = weights·V",
                                               row_axis="Queries ↓", col_axis="d_v →", large=large)
        self._render_trace()

    def _render_trace(self):
        res = self.result
        if res is None:
            return
        qt, kt = self._res_q_tokens, self._res_k_tokens
        i = min(self._trace_q, len(qt) - 1)
        j = min(self._trace_k, len(kt) - 1)
        lines = [f"Query '{qt[i]}' (row {i}) and key '{kt[j]}' (column {j})", ""]
        lines.append("① score of this pair: q·k term by term" + (", then ÷ √d_k" if self._scale else ""))
        lines += ["   " + s for s in explain.attention_entry_lines(res.Q, res.K, i, j, scale=self._scale)]
        if not res.mask[i, j]:
            lines.append(f"   the causal mask blocks key '{kt[j]}' for query '{qt[i]}' (a later token): "
                         "score → −∞, weight 0")
        lines += ["", f"② softmax over row '{qt[i]}' (every key of this query)"]
        lines += ["   " + s for s in explain.softmax_lines(res.masked[i], labels=kt)]
        lines += ["", f"③ output row '{qt[i]}': the weighted sum of the rows of V"]
        v_names = [f"v({t})" for t in kt]
        lines += ["   " + s for s in explain.weighted_sum_lines(res.weights[i], res.V, value_labels=v_names,
                                                                 name=f"out({qt[i]})")]
        self.trace_text = "\n".join(lines)
        size = "17px" if self._large else "12.5px"
        self.views["trace"].value = (
            f'<pre style="{_PANEL}{_MONO}font-size:{size};padding:8px 10px;margin:4px 0;white-space:pre-wrap;'
            f'line-height:1.35">{_html.escape(self.trace_text)}</pre>'
        )

    def close_all(self) -> None:
        """Close the explorer and every widget it is made of (frees them in the kernel)."""
        _close_tree(self)

    def _layout(self, title: str, controls: list, editor_names: list[str]):
        def row(items):
            return widgets.Box(items, layout=widgets.Layout(display="flex", flex_flow="row wrap",
                                                            align_items="flex-start"))

        v = self.views
        size = "24px" if self._large else "16px"
        header = widgets.HTML(f'<div style="font-weight:700;font-size:{size};margin:4px 0">{_html.escape(title)}</div>')
        # Stable CSS classes: tests find the parts by them (not by on-screen titles, which may be reworded),
        # and a learner's or a lecturer's style sheet can address them.
        self.add_class("attn-explorer")
        self.add_class("attn-explorer-cross" if self._cross else "attn-explorer-self")
        header.add_class("attn-header")
        for name, ed in self.editors.items():
            ed.add_class(f"attn-editor-{name}")
        for name, view in v.items():
            view.add_class("attn-trace" if name == "trace" else f"attn-view-{name}")
        for w, cls in ((self._causal_box, "attn-causal"), (self._scale_box, "attn-scale"), (self._dk_box, "attn-dk"),
                       (self._status_html, "attn-status"), (self._q_drop, "attn-trace-query"),
                       (self._k_drop, "attn-trace-key")):
            w.add_class(cls)
        self.children = [
            header,
            row(controls),
            row([self.editors[k] for k in editor_names]),
            self._status_html,
            row([v["Q"], v["K"], v["V"]]),
            row([v["scores"], v["scaled"], v["mask"]]),
            row([v["weights"], v["output"]]),
            widgets.HTML('<div style="font-weight:700;margin-top:6px">Trace one query and one key</div>'),
            row([self._q_drop, self._k_drop]),
            v["trace"],
        ]


class AttentionExplorer(_ExplorerBase):
    """Self-attention, live: edit the tokens, X and the weight matrices, watch every stage.

    Parameters
    ----------
    tokens : list of str, length n
    X : array_like (n, d_model)
    W_q, W_k : array_like (d_model, d_k)
    W_v : array_like (d_model, d_v)
    causal : bool
        Apply the causal mask (query i sees keys 0..i).
    scale : bool
        Divide the scores by sqrt(d_k).
    large : bool
        Bigger fonts for a projector.

    Attributes
    ----------
    editors : dict "X", "W_q", "W_k", "W_v" -> MatrixEditor
    result : AttentionResult for the last valid input
    views : dict stage name -> ipywidgets.HTML ("Q", "K", "V", "scores", "scaled", "mask",
        "weights", "output", "trace")
    trace_text : str, the arithmetic for (trace_query, trace_key) with the actual numbers
    status : str, why the last input could not be computed ('' when it could)

    CSS classes (stable, for tests and custom styles): ``attn-explorer`` and ``attn-explorer-self`` on the
    explorer; ``attn-editor-X``, ``attn-editor-W_q``, ``attn-editor-W_k``, ``attn-editor-W_v`` on the
    editors; ``attn-view-<stage>`` on each view of ``views`` (``attn-view-weights``, ...) except the trace,
    which is ``attn-trace``; ``attn-causal``, ``attn-scale``, ``attn-tokens``, ``attn-dk``,
    ``attn-token-names``, ``attn-status``, ``attn-trace-query``, ``attn-trace-key`` on the controls.
    """

    def __init__(self, tokens, X, W_q, W_k, W_v, causal: bool = False, scale: bool = True, large: bool = False):
        tokens = _check_tokens(tokens, "tokens")
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[0] != len(tokens):
            raise ValueError(f"X must have shape (n, d_model) with n = {len(tokens)} tokens; got shape {X.shape}")
        W_q, W_k, W_v = (np.asarray(W, dtype=float) for W in (W_q, W_k, W_v))
        att.project_qkv(X, W_q, W_k, W_v)  # shape errors now, with the library's message
        super().__init__()
        self._init_common(causal, scale, large)
        self._tokens = tokens
        d_model, d_k, d_v = X.shape[1], W_q.shape[1], W_v.shape[1]
        dims = [f"d{k + 1}" for k in range(d_model)]
        self.editors = {
            "X": MatrixEditor(X, tokens, dims, title="X (tokens × d_model)", large=large),
            "W_q": MatrixEditor(W_q, dims, [f"q{k + 1}" for k in range(d_k)], title="W^Q", large=large),
            "W_k": MatrixEditor(W_k, dims, [f"k{k + 1}" for k in range(d_k)], title="W^K", large=large),
            "W_v": MatrixEditor(W_v, dims, [f"v{k + 1}" for k in range(d_v)], title="W^V", large=large),
        }
        for ed in self.editors.values():
            ed.on_change(self._on_editor_change)
        self._dk_box.value = d_k
        self._n_box = widgets.BoundedIntText(value=len(tokens), min=1, max=_MAX_TOKENS, description="tokens",
                                             layout=widgets.Layout(width="8.5em"),
                                             style={"description_width": "initial"})
        self._n_box.observe(self._on_n_box, names="value")
        self._tokens_text = widgets.Text(value=", ".join(tokens), continuous_update=False,
                                         description="names", style={"description_width": "initial"},
                                         layout=widgets.Layout(width="22em"))
        self._tokens_text.observe(self._on_tokens_text, names="value")
        self._n_box.add_class("attn-tokens")
        self._tokens_text.add_class("attn-token-names")
        self._sync_dropdowns()
        self._layout("Self-attention explorer",
                     [self._causal_box, self._scale_box, self._n_box, self._dk_box, self._tokens_text],
                     ["X", "W_q", "W_k", "W_v"])
        self._update()
        if self.result is None:
            raise ValueError(f"these inputs cannot be computed: {self.status}")

    @property
    def tokens(self) -> list[str]:
        return list(self._tokens)

    def _n_q(self):
        return len(self._tokens)

    _n_k = _n_q

    def _q_tokens(self):
        return self._tokens

    _k_tokens = _q_tokens

    def set_tokens(self, tokens) -> None:
        """Change the tokens; X keeps the rows it has and new rows get seeded small values."""
        tokens = _check_tokens(tokens, "tokens")
        self._batch += 1
        try:
            ed = self.editors["X"]
            n, d = len(tokens), ed.shape[1]
            if n != ed.shape[0]:
                ed.set_value(_resized(ed.value, (n, d), _SEED + n), row_labels=tokens)
                ed._start = _resized(ed._start, (n, d), _SEED + n)
            else:
                ed.set_labels(row_labels=tokens)
            self._tokens = tokens
            self._n_box.value = n
            self._tokens_text.value = ", ".join(tokens)
            self._sync_dropdowns()
        finally:
            self._batch -= 1
        self._update()

    def _on_n_box(self, change):
        if self._batch or change["new"] == len(self._tokens):
            return
        self.set_tokens(_default_names(self._tokens, int(change["new"])))

    def _on_tokens_text(self, change):
        if self._batch:
            return
        names = _parse_token_list(change["new"])
        if not names or len(names) > _MAX_TOKENS:
            self._status_html.value = (
                f'<div style="{_ERROR}padding:4px 8px;margin:4px 0">Token names: type between 1 and '
                f"{_MAX_TOKENS} names separated by commas.</div>"
            )
            return
        self.set_tokens(names)

    def _compute(self):
        e = self.editors
        X = e["X"].value
        if X.shape[0] != len(self._tokens):
            raise ValueError(f"X has {X.shape[0]} rows but there are {len(self._tokens)} tokens; "
                             "change the number of tokens with set_tokens")
        return _compute(X, X, e["W_q"].value, e["W_k"].value, e["W_v"].value, self._causal, self._scale)

    def __repr__(self) -> str:
        return f"AttentionExplorer(tokens={len(self._tokens)}, d_model={self.d_model}, d_k={self.d_k})"


class CrossAttentionExplorer(_ExplorerBase):
    """Cross-attention, live: queries from the decoder, keys and values from the encoder.

    Parameters
    ----------
    query_tokens : list of str, length n_q (decoder side)
    key_tokens : list of str, length n_k (encoder side)
    X_dec : array_like (n_q, d_model)
    X_enc : array_like (n_k, d_model)
    W_q, W_k : array_like (d_model, d_k)
    W_v : array_like (d_model, d_v)
    causal : bool
        Off by default: a decoder's cross-attention sees the whole source. It can be
        turned on only when n_q == n_k (the checkbox is disabled otherwise).
    scale, large : bool

    The weights are n_q × n_k (not square in general): rows are decoder tokens
    (queries), columns encoder tokens (keys).

    CSS classes: as :class:`AttentionExplorer`, with ``attn-explorer-cross`` instead of
    ``attn-explorer-self``, editors ``attn-editor-X_dec`` and ``attn-editor-X_enc`` instead of
    ``attn-editor-X``, and ``attn-decoder-tokens``, ``attn-encoder-tokens``, ``attn-decoder-names``,
    ``attn-encoder-names`` for the length and name boxes.
    """

    _cross = True

    def __init__(self, query_tokens, key_tokens, X_dec, X_enc, W_q, W_k, W_v, causal: bool = False,
                 scale: bool = True, large: bool = False):
        qt = _check_tokens(query_tokens, "query_tokens")
        kt = _check_tokens(key_tokens, "key_tokens")
        X_dec = np.asarray(X_dec, dtype=float)
        X_enc = np.asarray(X_enc, dtype=float)
        if X_dec.ndim != 2 or X_dec.shape[0] != len(qt):
            raise ValueError(f"X_dec must have shape (n_q, d_model) with n_q = {len(qt)}; got shape {X_dec.shape}")
        if X_enc.ndim != 2 or X_enc.shape[0] != len(kt):
            raise ValueError(f"X_enc must have shape (n_k, d_model) with n_k = {len(kt)}; got shape {X_enc.shape}")
        if X_dec.shape[1] != X_enc.shape[1]:
            raise ValueError(f"X_dec has shape {X_dec.shape} and X_enc has shape {X_enc.shape}: "
                             "both need the same d_model")
        W_q, W_k, W_v = (np.asarray(W, dtype=float) for W in (W_q, W_k, W_v))
        att.project_qkv(X_dec, W_q, W_k, W_v)
        if causal and len(qt) != len(kt):
            raise ValueError(f"causal=True needs as many decoder as encoder tokens; got {len(qt)} and {len(kt)}")
        super().__init__()
        self._init_common(causal, scale, large)
        self._qt, self._kt = qt, kt
        d_model, d_k, d_v = X_dec.shape[1], W_q.shape[1], W_v.shape[1]
        dims = [f"d{k + 1}" for k in range(d_model)]
        self.editors = {
            "X_dec": MatrixEditor(X_dec, qt, dims, title="X_dec (decoder tokens × d_model)", large=large),
            "X_enc": MatrixEditor(X_enc, kt, dims, title="X_enc (encoder tokens × d_model)", large=large),
            "W_q": MatrixEditor(W_q, dims, [f"q{k + 1}" for k in range(d_k)], title="W^Q", large=large),
            "W_k": MatrixEditor(W_k, dims, [f"k{k + 1}" for k in range(d_k)], title="W^K", large=large),
            "W_v": MatrixEditor(W_v, dims, [f"v{k + 1}" for k in range(d_v)], title="W^V", large=large),
        }
        for ed in self.editors.values():
            ed.on_change(self._on_editor_change)
        self._dk_box.value = d_k
        box = dict(min=1, max=_MAX_TOKENS, layout=widgets.Layout(width="12em"), style={"description_width": "initial"})
        self._nq_box = widgets.BoundedIntText(value=len(qt), description="decoder tokens", **box)
        self._nk_box = widgets.BoundedIntText(value=len(kt), description="encoder tokens", **box)
        self._nq_box.observe(self._on_nq_box, names="value")
        self._nk_box.observe(self._on_nk_box, names="value")
        txt = dict(continuous_update=False, style={"description_width": "initial"}, layout=widgets.Layout(width="22em"))
        self._qt_text = widgets.Text(value=", ".join(qt), description="decoder", **txt)
        self._kt_text = widgets.Text(value=", ".join(kt), description="encoder", **txt)
        self._qt_text.observe(lambda c: self._on_names_text(c, "query"), names="value")
        self._kt_text.observe(lambda c: self._on_names_text(c, "key"), names="value")
        for w, cls in ((self._nq_box, "attn-decoder-tokens"), (self._nk_box, "attn-encoder-tokens"),
                       (self._qt_text, "attn-decoder-names"), (self._kt_text, "attn-encoder-names")):
            w.add_class(cls)
        self._sync_causal_allowed()
        self._sync_dropdowns()
        self._layout("Cross-attention explorer",
                     [self._causal_box, self._scale_box, self._nq_box, self._nk_box, self._dk_box,
                      self._qt_text, self._kt_text],
                     ["X_dec", "X_enc", "W_q", "W_k", "W_v"])
        self._update()
        if self.result is None:
            raise ValueError(f"these inputs cannot be computed: {self.status}")

    @property
    def query_tokens(self) -> list[str]:
        return list(self._qt)

    @property
    def key_tokens(self) -> list[str]:
        return list(self._kt)

    def _n_q(self):
        return len(self._qt)

    def _n_k(self):
        return len(self._kt)

    def _q_tokens(self):
        return self._qt

    def _k_tokens(self):
        return self._kt

    def _sync_causal_allowed(self):
        allowed = len(self._qt) == len(self._kt)
        self._causal_box.disabled = not allowed
        self._causal_box.description = "causal mask" if allowed else "causal mask (needs n_q = n_k)"

    def _set_side(self, side: str, tokens) -> None:
        name = "query_tokens" if side == "query" else "key_tokens"
        tokens = _check_tokens(tokens, name)
        ed = self.editors["X_dec" if side == "query" else "X_enc"]
        self._batch += 1
        try:
            n, d = len(tokens), ed.shape[1]
            seed = _SEED + (100 if side == "query" else 200) + n
            if n != ed.shape[0]:
                ed.set_value(_resized(ed.value, (n, d), seed), row_labels=tokens)
                ed._start = _resized(ed._start, (n, d), seed)
            else:
                ed.set_labels(row_labels=tokens)
            if side == "query":
                self._qt = tokens
                self._nq_box.value = n
                self._qt_text.value = ", ".join(tokens)
            else:
                self._kt = tokens
                self._nk_box.value = n
                self._kt_text.value = ", ".join(tokens)
            if self._causal and len(self._qt) != len(self._kt):
                # A causal mask is only defined for equal lengths: switch it off rather than fail.
                self._causal = False
                self._causal_box.value = False
            self._sync_causal_allowed()
            self._sync_dropdowns()
        finally:
            self._batch -= 1
        self._update()

    def set_query_tokens(self, tokens) -> None:
        """Change the decoder tokens (rows of X_dec; new rows get seeded small values)."""
        self._set_side("query", tokens)

    def set_key_tokens(self, tokens) -> None:
        """Change the encoder tokens (rows of X_enc; new rows get seeded small values)."""
        self._set_side("key", tokens)

    def _on_nq_box(self, change):
        if not self._batch and change["new"] != len(self._qt):
            self.set_query_tokens(_default_names(self._qt, int(change["new"])))

    def _on_nk_box(self, change):
        if not self._batch and change["new"] != len(self._kt):
            self.set_key_tokens(_default_names(self._kt, int(change["new"])))

    def _on_names_text(self, change, side):
        if self._batch:
            return
        names = _parse_token_list(change["new"])
        if not names or len(names) > _MAX_TOKENS:
            self._status_html.value = (
                f'<div style="{_ERROR}padding:4px 8px;margin:4px 0">Token names: type between 1 and '
                f"{_MAX_TOKENS} names separated by commas.</div>"
            )
            return
        self._set_side(side, names)

    def _compute(self):
        e = self.editors
        for name, toks in (("X_dec", self._qt), ("X_enc", self._kt)):
            if e[name].shape[0] != len(toks):
                raise ValueError(f"{name} has {e[name].shape[0]} rows but there are {len(toks)} tokens; "
                                 "change the tokens with set_query_tokens / set_key_tokens")
        return _compute(e["X_dec"].value, e["X_enc"].value, e["W_q"].value, e["W_k"].value, e["W_v"].value,
                        self._causal, self._scale)

    def __repr__(self) -> str:
        return (f"CrossAttentionExplorer(query_tokens={len(self._qt)}, key_tokens={len(self._kt)}, "
                f"d_model={self.d_model}, d_k={self.d_k})")
