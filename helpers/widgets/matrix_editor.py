"""An editable matrix: a table of text cells with row and column labels, one widget model per matrix.

Each cell's text is read by :func:`helpers.core.parsing.parse_number` (never evaluated as
code). The editor keeps the last matrix in which every cell held a number; a bad cell
is marked and named in the message under the table until it is fixed. That matrix and
the row and column names are traitlets traits (``value``, ``row_labels``,
``col_labels``): ``observe`` them, assign them, or change several at once inside
``hold_trait_notifications()``. It is built on :class:`helpers.widgets.live.LiveWidget` (guarded
handlers) and styled by :mod:`helpers.look.theme`.

The page draws the editor with one small ES module shipped in this package
(``matrix_editor.js``, run by anywidget: nothing is fetched at run time): a real
``<table>`` of ``<input>``\\ s. The kernel holds the state the page shows, as synced
traits (the cells' texts ``cells``, the refused cells ``bad``, the labels, the title
and the message), and the page sends what the learner does: a cell left with new text,
a button. So a 6 × 4 matrix is one widget model, not a model per cell, label and button.
"""

from __future__ import annotations

import html as _html
import math
import re
import zlib
from importlib.resources import files

import anywidget
import numpy as np
import traitlets

from helpers.core import explain
from helpers.core.numbers import MINUS, number_text, significant
from helpers.core.parsing import ParseError, parse_number
from helpers.look import render, theme
from helpers.look.mathtext import math_words
from helpers.widgets.live import LiveWidget, Matrix, RefusedValue

__all__ = ["MatrixEditor", "Cell", "Labels", "cell_text", "small_values", "EDITOR_CSS"]


def cell_text(v: float) -> str:
    """The text a cell shows for a number: short, and read back by :func:`parse_number`.

    The shorter of the whole number and six significant digits: ``3``, ``0.5``, ``123456``, ``1e+15``
    (never 16 digits in a cell a few characters wide); a negative one with the true minus, ``−2``. Infinity and
    NaN as every view of the course writes them (:func:`helpers.core.numbers.number_text`): ``∞``, ``−∞``, ``nan``.
    """
    v = float(v)
    if not math.isfinite(v):
        return number_text(v)
    short = significant(v, 6)
    if v == int(v):
        whole = str(int(v))
        short = whole if len(whole) <= len(short) else short
    # The true minus, as every number the course shows (the parser reads it, and the numpy literal keeps "-").
    return short.replace("-", MINUS)


def small_values(seed, shape) -> np.ndarray:
    """Small friendly numbers for new or randomized cells: integers -2..2 from ``default_rng(seed)``."""
    return np.random.default_rng(seed).integers(-2, 3, size=shape).astype(float)


def _resized(M: np.ndarray, shape: tuple[int, int], seed) -> np.ndarray:
    """``M`` cut or grown to ``shape``: the overlap is kept, new cells get seeded small values."""
    out = small_values(seed, shape)
    r, c = min(M.shape[0], shape[0]), min(M.shape[1], shape[1])
    out[:r, :c] = M[:r, :c]
    return out


class Labels(traitlets.TraitType):
    """A trait holding the names of a :class:`MatrixEditor`'s rows (``axis=0``) or columns (``axis=1``).

    One name per row (column) of the editor's ``value``, so set the value first when both change
    (:meth:`MatrixEditor.set_value` does). Read as a new list each time; ``None`` assigns the default
    names ``<prefix>1, <prefix>2, ...``.
    """

    info_text = "a list of names, one per row (column) of the matrix"

    def __init__(self, axis: int, prefix: str, **kwargs):
        self.axis, self.prefix = axis, prefix
        super().__init__(default_value=(), **kwargs)

    def validate(self, obj, value):
        value_now = obj._trait_values.get("value")
        if value_now is None:
            return tuple(value or ())  # the default, read before the matrix is set (the page's first state)
        n = value_now.shape[self.axis]
        if isinstance(value, str):
            raise RefusedValue(f"{self.name} must be a list of names, one per {'row' if self.axis == 0 else 'column'}; "
                               f"got the string {value!r}")
        try:
            return tuple(render.labels_or_default(value, n, self.prefix, self.name, first=1))
        except TypeError:
            raise RefusedValue(f"{self.name} must be a list of names; got {type(value).__name__}") from None
        except ValueError as err:
            raise RefusedValue(str(err)) from None

    def get(self, obj, cls=None):
        return list(super().get(obj, cls))  # a copy: changing it does not rename anything behind the editor's back


# The look of every editor on the page, written once (anywidget puts it in the page's head). Sizes in em of the
# editor's font (13 px, 20 px in the projector size); colours are JupyterLab's theme variables (helpers.look.theme).
# The table has no scroll box of its own: it is exactly as tall and as wide as its rows and columns. Every column is as
# wide as the widest text of the matrix (--me-cell, set per editor); a column label longer than that is turned on its
# side (matrix-editor-rotated) rather than cut or widening its column. Under the table one line is kept for a message,
# so that a message about one cell moves nothing.
_CELL_H, _DENSE_H = "2.15em", "1.6em"
EDITOR_CSS = (
    ".matrix-editor{display:inline-flex;flex-direction:column;align-items:flex-start;box-sizing:border-box;"
    "width:min-content;"
    f"max-width:100%;margin:4px 12px 4px 0;font-size:{theme.sizes(False).font};line-height:1.35;"
    f"color:{theme.PANEL_FG}}}"
    f".matrix-editor.matrix-editor-large{{font-size:{theme.sizes(True).font}}}"
    ".matrix-editor-heading{display:flex;flex-wrap:wrap;align-items:baseline;gap:0 6px;width:100%;"
    "margin-bottom:1px}"
    f".matrix-editor-title{{font-weight:700;font-size:{theme.sizes(False).title}}}"
    f".matrix-editor-large .matrix-editor-title{{font-size:{theme.sizes(True).title}}}"
    # The name and the shape each stay whole (a line break between them if need be); the buttons stay on one line:
    # the editor is as wide as the widest of them and its table.
    ".matrix-editor-name,.matrix-editor-shape{white-space:nowrap}"
    ".matrix-editor-shape{font-weight:400;opacity:0.75}"
    ".matrix-editor-buttons{display:flex;gap:2px}"
    ".matrix-editor-buttons[hidden]{display:none}"
    ".matrix-editor-button{font:inherit;font-size:0.8em;line-height:1.45;padding:0 4px;margin:0;cursor:pointer;"
    f"color:{theme.PANEL_FG};background:var(--jp-layout-color2,#eeeeee);border:1px solid {theme.BORDER};"
    "border-radius:3px}"
    ".matrix-editor-button:hover{background:var(--jp-layout-color3,#dddddd)}"
    "table.matrix-editor-grid{border-collapse:separate;border-spacing:0;margin:0;table-layout:auto;width:auto}"
    f".matrix-editor-grid th{{font-weight:600;{theme.MONO}color:{theme.LABEL_FG};padding:0 4px;white-space:nowrap;"
    "border:0;background:none;line-height:1.35}"
    ".matrix-editor-grid thead th{text-align:center;vertical-align:bottom;font-size:0.92em}"
    ".matrix-editor-grid tbody th{text-align:right}"
    ".matrix-editor-grid td{padding:0;border:0;text-align:center;background:none}"
    ".matrix-editor-rotated thead th{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;"
    "padding:3px 0;vertical-align:middle}"
    ".matrix-editor-grid input{box-sizing:border-box;width:var(--me-cell,3em);height:" + _CELL_H + ";margin:0;"
    "padding:0 2px;text-align:center;font:inherit;font-variant-numeric:tabular-nums;"
    "color:var(--jp-widgets-input-color,#000000);background:var(--jp-widgets-input-background-color,#ffffff);"
    f"border:1px solid var(--jp-widgets-input-border-color,#9e9e9e);border-radius:0;outline-offset:-2px}}"
    ".matrix-editor-grid input:focus{border-color:var(--jp-widgets-input-focus-border-color,#64b5f6);"
    "outline:2px solid var(--jp-widgets-input-focus-border-color,#64b5f6)}"
    f".matrix-editor-grid input.matrix-editor-bad{{border:2px solid {theme.ERROR_BORDER};"
    f"background:{theme.BAD_CELL_BG};color:{theme.BAD_CELL_FG}}}"
    f".matrix-editor-dense .matrix-editor-grid input{{height:{_DENSE_H}}}"
    # One line of message is always kept: 1.35 em of text, its box's padding (2 × 1 px), border (2 × 1 px) and margin.
    ".matrix-editor-message{width:0;min-width:100%;min-height:calc(1.35em + 6px)}"
    ".matrix-editor-message [role=alert]{padding:0 5px;margin:1px 0 0 0;font-size:0.92em;line-height:1.35}"
    # An answer grid's message beside its table, where a line under a narrow table would wrap word by word.
    ".matrix-editor.matrix-editor-message-beside{display:inline-grid;grid-template-columns:max-content "
    "minmax(9em,1fr);column-gap:8px;align-items:start;justify-items:start}"
    ".matrix-editor-message-beside>.matrix-editor-heading,.matrix-editor-message-beside>.matrix-editor-literal"
    "{grid-column:1/3}"
    ".matrix-editor-message-beside>.matrix-editor-grid{grid-column:1;grid-row:2}"
    ".matrix-editor-message-beside>.matrix-editor-message{grid-column:2;grid-row:2;width:auto;min-width:0;"
    "max-width:24em}"
    ".matrix-editor-literal{box-sizing:border-box;width:100%;min-width:16em;font-size:0.92em;resize:vertical;"
    f"{theme.MONO}color:{theme.PANEL_FG};background:{theme.PANEL_BG};border:1px solid {theme.BORDER}}}"
    ".matrix-editor-literal[hidden]{display:none}"
)

# What the live editor adds to the page around it (not to the static picture). Each rendered Markdown cell is a
# stacking context of its own, which nothing on the page sees (it clips and moves nothing) but which Chromium paints as
# a layer of its own: a cell that takes the focus, or a number that changes, then repaints its own layer and reuses
# the typeset text of the notebook as it was, instead of walking all of it (~4 ms a frame in a lecture notebook, spent
# on every Enter in a cell, while the kernel's answer waits).
PAGE_CSS = ".jp-MarkdownOutput{isolation:isolate}"

_ESM = files(__package__).joinpath("matrix_editor.js").read_text(encoding="utf-8")

# A column label longer than the widest number by more than this many characters is turned on its side.
_LABEL_SLACK = 1
_CH_EM = 0.62  # the width of a character of the cells' font, in em (digits are narrower, letters about this)


def _cell_chars(texts, cols, rotated: bool, least: int = 2) -> float:
    # The true minus is wider than a digit: half a character more.
    widest = max((len(t) + 0.5 * t.count(MINUS) for row in texts for t in row), default=1)
    chars = min(max(widest, least), 9)
    if not rotated:
        chars = max(chars, max((len(c) for c in cols), default=1))
    return chars


class Cell:
    """One cell of a :class:`MatrixEditor`, as a text field: ``value`` is its text; assigning it is typing that text
    and leaving the cell (:meth:`MatrixEditor.set_text`). ``description`` is its accessible name."""

    disabled = False

    def __init__(self, editor: MatrixEditor, i: int, j: int):
        self.editor, self.i, self.j = editor, i, j

    @property
    def value(self) -> str:
        return self.editor.cell_text(self.i, self.j)

    @value.setter
    def value(self, text: str) -> None:
        self.editor.set_text(self.i, self.j, text)

    @property
    def description(self) -> str:
        rows, cols = self.editor.row_labels, self.editor.col_labels
        return self.editor._cell_name(rows[self.i], cols[self.j])

    def __repr__(self) -> str:
        return f"Cell({self.i}, {self.j}: {self.value!r})"


class MatrixEditor(LiveWidget, anywidget.AnyWidget):
    """An editable matrix: a table of text cells with token and dimension labels.

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
        Show the Reset / Random / numpy buttons beside the title (default; their tooltips say "Randomize" and
        "Copy as numpy"). ``False`` hides them, for answer grids where "Random" or "Reset" would only distract; the
        methods :meth:`reset`, :meth:`randomize` and :meth:`as_numpy_literal` still work.
    compact : bool
        Cells no wider than the numbers need (an explorer that must fit a small screen next to its results).
    dense : bool
        Lower rows (CSS class ``matrix-editor-dense``): a matrix of many rows and the view it drives fit one small
        screen together.
    message_beside : bool
        The message about bad cells beside the table instead of under it (CSS class
        ``matrix-editor-message-beside``): for a small answer grid, under which a line would wrap word by word.
    layout : ipywidgets.Layout, optional
        The editor's layout; several editors of one widget may share one (one model fewer for the page to build
        per editor). By default its own, no wider than the notebook.

    Every column is as wide as the widest number of the matrix (and at least two characters); a column label longer
    than that is turned on its side, whole, with its full text as a tooltip. The table is exactly as tall as its
    rows: nothing in the editor scrolls. A message about a bad cell sits under the table, in a line kept for it.

    Keyboard: Tab goes through the cells row by row; the arrow keys move between cells (left and right from the
    start or the end of the text); Enter keeps the text and moves down (Shift+Enter up); Escape puts back the text
    the cell had. Each cell's accessible name says the matrix, row and column: "X, row cat, column d1".

    CSS classes (stable, for tests and custom styles): ``matrix-editor`` on the whole editor,
    ``matrix-editor-title``, ``matrix-editor-grid`` (the ``<table>``; its body rows carry ``data-row``, its cells
    and column labels ``data-col``), ``matrix-editor-message``, ``matrix-editor-buttons`` and
    ``matrix-editor-literal`` on its parts; ``matrix-editor-bad`` on a refused cell.

    Attributes
    ----------
    value : ndarray (n_rows, n_cols) (a trait; the array read is read-only)
        The last valid matrix: it changes when every cell holds a number after an edit
        (``observe(callback, names="value")`` is told once per such edit, not for a bad
        cell). Assigning it fills the cells (a new shape rebuilds the table, and labels
        whose count no longer fits become the default names); a value that is not a
        finite 2-D matrix is refused with a ``TraitError`` (also a ``ValueError``) and
        changes nothing.
    row_labels, col_labels : list of str (traits)
        The names of the rows and columns (see :class:`Labels`); assigning them renames
        the table.
    cells : list of list of str (a trait, read-only)
        The text in each cell, as the page shows it (a refused text included).
    message : str
        What is wrong with the typed text, one line per bad cell naming it
        (``row 'cat', column d1: '1/0' divides by zero``); ``''`` when all cells are valid.
    """

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    _css = traitlets.Unicode(EDITOR_CSS + PAGE_CSS).tag(sync=True)
    static_css = EDITOR_CSS  # the look of the static picture (helpers.widgets.snapshot): the live editor's

    value = Matrix(help="the last valid matrix, read-only: it changes when every cell holds a number")
    row_labels = Labels(0, "r", help="one name per row").tag(sync=True)
    col_labels = Labels(1, "d", help="one name per column").tag(sync=True)
    # What the page draws (the kernel's state; the page never sets these).
    cells = traitlets.List(help="the text of each cell, row by row").tag(sync=True)
    bad = traitlets.List(help="the refused cells: [i, j, reason]").tag(sync=True)
    name = traitlets.Unicode("matrix", help="the matrix's name in each cell's accessible name").tag(sync=True)
    title_html = traitlets.Unicode("").tag(sync=True)
    message_html = traitlets.Unicode("").tag(sync=True)
    literal = traitlets.Unicode("", help="the numpy literal shown under the table; '' when hidden").tag(sync=True)
    show_buttons = traitlets.Bool(True).tag(sync=True)
    cell_em = traitlets.Float(2.0, help="the width of a cell, in em").tag(sync=True)
    rotated = traitlets.Bool(False, help="whether the column labels are turned on their side").tag(sync=True)

    def __init__(self, value, row_labels=None, col_labels=None, title=None, large: bool = False, seed=None,
                 buttons: bool = True, compact: bool = False, dense: bool = False, message_beside: bool = False,
                 layout=None):
        # Checked before anything is built, with the messages the traits give.
        A = type(self).value.validate(self, value)
        rows = render.labels_or_default(row_labels, A.shape[0], "r", "row_labels", first=1)
        cols = render.labels_or_default(col_labels, A.shape[1], "d", "col_labels", first=1)
        self._large = bool(large)
        self._compact = bool(compact)
        self._title = title
        self._start = A
        # What the cells hold: their texts, and each one's number (a cell's number changes here when it is typed;
        # the value follows when no cell is bad).
        self._texts: list[list[str]] = []
        self._cells_val = np.zeros((0, 0))
        self._errors: dict[tuple[int, int], str] = {}
        self._rand_clicks = 0
        self.status = ""
        self._seed = int(seed) if seed is not None else zlib.crc32(str(title).encode())
        classes = ["course-widget", "matrix-editor"] + [c for c, on in (("matrix-editor-large", large),
                                                                        ("matrix-editor-dense", dense),
                                                                        ("matrix-editor-message-beside",
                                                                         message_beside)) if on]
        # The state is set before the page is told of the editor: its first message holds every cell.
        super().__init__(value=A, row_labels=rows, col_labels=cols, _dom_classes=classes,
                         show_buttons=bool(buttons), name=self._matrix_name(),
                         layout=layout if layout is not None else {"max_width": "100%"})
        self._live_setup(large)
        self.on_msg(self.guarded(self._on_page_message))

    # -- reading

    @property
    def buttons(self) -> bool:
        """Whether the Reset / Random / numpy buttons are shown."""
        return self.show_buttons

    @property
    def shape(self) -> tuple[int, int]:
        return self.value.shape

    @property
    def message(self) -> str:
        rows, cols = self.row_labels, self.col_labels
        return "\n".join(f"row '{rows[i]}', column {cols[j]}: {reason}"
                         for (i, j), reason in sorted(self._errors.items()))

    @property
    def errors(self) -> dict[tuple[int, int], str]:
        """The cells that do not hold a number: ``{(i, j): reason}``, empty when all are valid."""
        return dict(self._errors)

    @property
    def start_value(self) -> np.ndarray:
        """What "Reset" returns to (a copy)."""
        return self._start.copy()

    def cell_text(self, i: int, j: int) -> str:
        """The text currently in cell (i, j)."""
        return self._texts[i][j]

    def cell(self, i: int, j: int) -> Cell:
        """Cell (i, j) as a text field (:class:`Cell`): read its ``value``, or assign it to type into the cell."""
        n, m = self.shape
        if not (0 <= i < n and 0 <= j < m):
            raise IndexError(f"cell ({i}, {j}) is outside the {n} × {m} matrix")
        return Cell(self, i, j)

    def as_numpy_literal(self) -> str:
        """The matrix as code: ``np.array([[1, 0.5], [-2, 3]])``."""
        return "np.array(" + explain.format_matrix(self.value, digits=6) + ")"

    # -- listening

    def on_change(self, callback) -> None:
        """Call ``callback(editor)`` after each change of :attr:`value`: ``observe(names="value")`` for a callback
        that takes the editor."""
        self.observe(lambda _change: callback(self), names="value")

    def on_labels(self, callback) -> None:
        """Call ``callback(editor)`` after the row or column labels change (renamed, or a new shape).

        Once per change, even when rows and columns are renamed together.
        """
        told = [(self.row_labels, self.col_labels)]

        def tell(_change):
            now = (self.row_labels, self.col_labels)
            if now != told[0]:
                told[0] = now
                callback(self)

        self.observe(tell, names=["row_labels", "col_labels"])

    # -- changing

    def set_text(self, i: int, j: int, text: str) -> None:
        """Type ``text`` into cell (i, j) and leave the cell (exactly what the learner does)."""
        n, m = self.shape
        if not (0 <= i < n and 0 <= j < m):
            raise IndexError(f"cell ({i}, {j}) is outside the {n} × {m} matrix")
        self._cell_changed(i, j, str(text))  # set_text(0, 0, 3) means typing "3"

    def reset(self) -> None:
        """Back to the starting values."""
        self.value = self._start

    def randomize(self, seed=None) -> None:
        """Fill with small integers -2..2 drawn from ``numpy.random.default_rng(seed)``."""
        self.value = small_values(seed, self.shape)

    def set_value(self, M, row_labels=None, col_labels=None, as_start: bool = False) -> None:
        """Replace the matrix and its labels in one step (its shape may change).

        Labels not given stay if their count still fits, else become the default names.
        ``as_start=True`` also makes ``M`` the values that "Reset" returns to. A refused
        matrix or labels change nothing.
        """
        with self.hold_trait_notifications():
            self.value = M
            if row_labels is not None:
                self.row_labels = row_labels
            if col_labels is not None:
                self.col_labels = col_labels
            self._fit_labels()
        if as_start:
            self._start = self.value

    def resize(self, shape, seed=None, row_labels=None, col_labels=None) -> None:
        """Cut or grow to ``shape`` = (n_rows, n_cols), keeping what overlaps.

        The overlap of the current value and of the values "Reset" returns to is kept;
        new cells get small integers from ``default_rng(seed)`` (the same in both, so a
        grown matrix resets to its grown start). Labels as in :meth:`set_value`.
        """
        shape = tuple(int(k) for k in shape)
        if len(shape) != 2 or min(shape) < 1:
            raise ValueError(f"shape must be two positive sizes (n_rows, n_cols); got {shape}")
        if shape == self.shape:
            self.set_labels(row_labels=row_labels, col_labels=col_labels)
            return
        start = _resized(self._start, shape, seed)
        self.set_value(_resized(self.value, shape, seed), row_labels=row_labels, col_labels=col_labels)
        self._start = type(self).value.validate(self, start)

    def set_labels(self, row_labels=None, col_labels=None) -> None:
        """Rename rows and/or columns (same counts); observers of the labels are told once."""
        with self.hold_trait_notifications():
            if row_labels is not None:
                self.row_labels = row_labels
            if col_labels is not None:
                self.col_labels = col_labels

    # -- the traits' observers

    def _fit_labels(self) -> None:
        """Labels whose count no longer fits the value become the default names."""
        n, m = self.shape
        if len(self.row_labels) != n:
            self.row_labels = None
        if len(self.col_labels) != m:
            self.col_labels = None

    @traitlets.observe("value")
    def _value_changed(self, change) -> None:
        A = change["new"]
        with self.hold_trait_notifications(), self.hold_sync():
            if A.shape != self._cells_val.shape:
                # The labels a new shape needs are told with it (at the end of this block).
                self._fit_labels()
            if A.shape != self._cells_val.shape or self._errors or not np.array_equal(A, self._cells_val):
                self._cells_val, self._errors = A.copy(), {}
                self._texts = [[cell_text(v) for v in row] for row in A]
                self._show_cells()
            self.status = ""  # a listener's earlier failure is about an earlier value
            self._show_message()
            n, m = A.shape
            title = (f'<span class="matrix-editor-name">{render.title_html(self._title)}</span> '
                     if self._title is not None else "")
            self.title_html = f'{title}<span class="matrix-editor-shape">({n} × {m})</span>'
            if self.literal:
                self.literal = self.as_numpy_literal()

    @traitlets.observe("row_labels", "col_labels")
    def _labels_changed(self, _change) -> None:
        with self.hold_sync():
            self._fit_width()
            self._show_message()  # the message names cells by their labels

    # -- internals

    def _matrix_name(self) -> str:
        """The matrix's name in what a screen reader says for a cell: its title without the shape, its math said as
        words ("W^Q" → "W Q")."""
        if not self._title:
            return "matrix"
        return math_words(re.sub(r"<[^>]+>|\$", "", str(self._title)).split(" (")[0].strip())

    def _cell_name(self, row: str, col: str) -> str:
        """What a screen reader says for a cell: the matrix and the cell's labels."""
        return f"{self.name}, row {row}, column {col}"

    def _fit_width(self) -> None:
        """The cells' width and whether the column labels turn: from the numbers the cells hold and the labels on
        show. A refused text does not count (it scrolls inside its cell): a message about a cell moves nothing."""
        cols = self.col_labels
        texts = [[cell_text(v) for v in row] for row in self._cells_val]
        longest = max((len(c) for c in cols), default=1)
        # Compact (the lecture mode): a column of one-digit numbers (a one-hot X) is one digit wide, so that two such
        # matrices sit side by side on a projector; elsewhere a cell has room for a typed "-1".
        least = 1 if self._compact else 2
        chars = _cell_chars(texts, cols, rotated=True, least=least)
        self.rotated = bool(cols) and longest > chars + _LABEL_SLACK
        chars = _cell_chars(texts, cols, self.rotated, least)
        self.cell_em = round(_CH_EM * chars + 0.5, 2)

    def _show_cells(self) -> None:
        """Send the cells' texts and the refused cells to the page (one message)."""
        with self.hold_sync():
            self.cells = [list(row) for row in self._texts]
            self.bad = [[i, j, reason] for (i, j), reason in sorted(self._errors.items())]
            self._fit_width()

    def _cell_changed(self, i: int, j: int, text: str) -> None:
        """A cell left with ``text``: refused (marked, named in the message) or taken (the value follows once no
        cell is bad)."""
        held = self._cells_val[i, j]
        was_bad = (i, j) in self._errors
        if not was_bad and text == cell_text(held):
            # The editor's own text for the number the cell holds (a value set in code may lie beyond what a
            # learner may type, 1e200: the cell shows it, and it stays).
            if self._texts[i][j] != text:
                self._texts[i][j] = text
                self._show_cells()
            return
        self._texts[i][j] = text
        try:
            v = parse_number(text)
        except ParseError as err:
            self._errors[(i, j)] = str(err)
            with self.hold_sync():
                self._show_cells()
                self._show_message()
            return
        self._errors.pop((i, j), None)
        with self.hold_sync():
            self._show_cells()
            if not was_bad and v == held:
                return  # the same number typed another way: nothing to recompute
            self._cells_val[i, j] = v
            if self._errors or np.array_equal(self._cells_val, self.value):
                # Other cells still refused; or the number the matrix holds typed back over a refused text: only the
                # message changes (nothing to recompute, so a listener redraws nothing).
                self._show_message()
                return
            self.value = self._cells_val

    def _show_status(self, message: str) -> None:
        # LiveWidget's problems (a listener that failed) share the message line with the cells' errors.
        self.status = message
        self._show_message()

    def _show_message(self) -> None:
        lines = [line for line in (self.message, self.status) if line]
        self.message_html = theme.error_html("\n".join(lines), self._large)

    def _on_page_message(self, _widget, content, _buffers) -> None:
        """What the learner did on the page: a cell left with new text, or a button."""
        if not isinstance(content, dict):
            return
        event = content.get("event")
        if event == "edit":
            i, j = int(content["i"]), int(content["j"])
            n, m = self.shape
            if 0 <= i < n and 0 <= j < m:  # a page behind a change of shape may name a cell that is gone
                self._cell_changed(i, j, str(content.get("text", "")))
        elif event == "button":
            {"reset": self.reset, "random": self._on_randomize_click,
             "numpy": self._on_copy_click}.get(content.get("name"), lambda: None)()

    def _on_randomize_click(self) -> None:
        self._rand_clicks += 1
        self.randomize(seed=[self._seed, self._rand_clicks])

    def _on_copy_click(self) -> None:
        self.literal = "" if self.literal else self.as_numpy_literal()

    def _update(self) -> None:
        # Nothing to recompute: the value changes as the cells do.
        pass

    # -- the static picture

    def static_html(self) -> str:
        """What the editor shows, as static HTML (the picture of a stored notebook, :mod:`helpers.widgets.snapshot`):
        the title, the table of disabled inputs with their accessible names, and the message; the same CSS classes as
        the live editor, styled by the same style sheet (:data:`EDITOR_CSS`, which the picture carries once per
        page); the buttons, which act on a live editor only, are left out."""
        rows, cols = self.row_labels, self.col_labels
        bad = set(self._errors)
        esc = _html.escape
        head = "".join(f'<th scope="col" title="{esc(c, quote=True)}">{esc(c)}</th>' for c in cols)
        body = []
        marked = ' class="matrix-editor-bad"'
        for i, r in enumerate(rows):
            tds = "".join(
                f'<td><input disabled{marked if (i, j) in bad else ""} '
                f'value="{esc(self._texts[i][j], quote=True)}" aria-label="{esc(self._cell_name(r, c), quote=True)}">'
                f"</td>"
                for j, c in enumerate(cols))
            body.append(f'<tr><th scope="row">{esc(r)}</th>{tds}</tr>')
        turned = " matrix-editor-rotated" if self.rotated else ""
        return (f'<div class="matrix-editor-heading"><div class="matrix-editor-title">{self.title_html}</div></div>'
                f'<table class="matrix-editor-grid{turned}" style="--me-cell:{self.cell_em}em">'
                f'<thead><tr><td></td>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
                f'<div class="matrix-editor-message">{self.message_html}</div>')

    def __repr__(self) -> str:
        n, m = self.shape
        return f"MatrixEditor(shape=({n}, {m}))"
