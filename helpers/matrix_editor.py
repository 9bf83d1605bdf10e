"""An editable matrix: a grid of text cells with row and column labels.

Each cell's text is read by :func:`helpers.parsing.parse_number` (never evaluated as
code). The editor keeps the last matrix in which every cell held a number; a bad cell
is marked and named in the message under the grid until it is fixed. That matrix and
the row and column names are traitlets traits (``value``, ``row_labels``,
``col_labels``): ``observe`` them, assign them, or change several at once inside
``hold_trait_notifications()``. It is built on :class:`helpers.live.LiveWidget` (guarded
handlers) and styled by :mod:`helpers.theme`.
"""

from __future__ import annotations

import html as _html
import re
import zlib

import ipywidgets as widgets
import numpy as np
import traitlets
from ipywidgets.widgets.widget_string import HTMLStyle, TextStyle

from . import explain, render, theme
from .layout import text_style_widget
from .live import LiveWidget, Matrix, RefusedValue
from .numbers import significant
from .parsing import ParseError, parse_number
from .snapshot import OMIT_CLASS

__all__ = ["MatrixEditor", "Labels", "cell_text", "small_values"]

def cell_text(v: float) -> str:
    """The text a cell shows for a number: short, and read back by :func:`parse_number`.

    The shorter of the whole number and six significant digits: ``3``, ``0.5``, ``123456``, ``1e+15``
    (never 16 digits in a cell a few characters wide).
    """
    v = float(v)
    short = significant(v, 6)
    if v == int(v):
        whole = str(int(v))
        return whole if len(whole) <= len(short) else short
    return short


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
        n = obj.value.shape[self.axis]
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


# Each cell's <label> ("X, row cat, column d1") is for screen readers only: hidden the standard way (clipped to
# nothing, out of the flow), which keeps it in the accessibility tree, unlike display: none.
# A cell's number is centred with 2 px of padding each side (ipywidgets gives an input 8 px): a column narrowed to
# its least width still shows three characters ("0.5", "-1"), so that four editors share a 600 px strip.
# A dense editor's rows are 22 px high instead of 28, and its message box is tighter: a tall matrix (or one narrowed
# in a strip of editors) and what it drives fit one small screen, a message shown too.
_CELL_LABEL_CSS = (
    "<style>.matrix-editor-grid .widget-text > .widget-label {position:absolute !important;width:1px !important;"
    "min-width:0 !important;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);"
    "white-space:nowrap;border:0}"
    ".matrix-editor-grid .widget-text > input{padding-left:2px !important;padding-right:2px !important}"
    ".matrix-editor-dense .matrix-editor-grid .widget-text,"
    ".matrix-editor-dense .matrix-editor-grid .widget-text > input{height:22px !important;min-height:0}"
    ".matrix-editor-dense .matrix-editor-message [role=alert]{padding:3px 5px;margin:2px 0}</style>"
)


# The copy button's label is short (the three buttons fit on one row under a small grid); its tooltip says it all.
_COPY, _HIDE = "numpy", "Hide numpy"
_COPY_TIP = "Copy as numpy: show this matrix as a numpy literal, to copy into code"


class MatrixEditor(LiveWidget, widgets.VBox):
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
        Show the Reset / Random / numpy buttons (default; their tooltips say "Randomize" and
        "Copy as numpy"). ``False`` hides them, for answer grids where "Random" or "Reset"
        would only distract; the
        methods :meth:`reset`, :meth:`randomize` and :meth:`as_numpy_literal` still work.
    compact : bool
        Narrower cells (for an explorer that must fit a small screen next to its results).
    dense : bool
        Lower rows (22 px instead of 28; CSS class ``matrix-editor-dense``): a matrix of many rows and the view it
        drives fit one small screen together.

    The columns share one width, which shrinks (down to about three characters) when the
    notebook is narrow, so a wide matrix fits the page instead of being cut off. A message
    about a bad cell sits under the grid, above the buttons (it never covers them).

    CSS classes (stable, for tests and custom styles): ``matrix-editor`` on the whole
    editor, ``matrix-editor-title``, ``matrix-editor-grid``, ``matrix-editor-message``,
    ``matrix-editor-buttons`` and ``matrix-editor-literal`` on its parts.

    Attributes
    ----------
    value : ndarray (n_rows, n_cols) (a trait; the array read is read-only)
        The last valid matrix: it changes when every cell holds a number after an edit
        (``observe(callback, names="value")`` is told once per such edit, not for a bad
        cell). Assigning it fills the cells (a new shape rebuilds the grid, and labels
        whose count no longer fits become the default names); a value that is not a
        finite 2-D matrix is refused with a ``TraitError`` (also a ``ValueError``) and
        changes nothing.
    row_labels, col_labels : list of str (traits)
        The names of the rows and columns (see :class:`Labels`); assigning them renames
        the grid.
    message : str
        What is wrong with the typed text, one line per bad cell naming it
        (``row 'cat', column d1: '1/0' divides by zero``); ``''`` when all cells are valid.
    """

    value = Matrix(help="the last valid matrix, read-only: it changes when every cell holds a number")
    row_labels = Labels(0, "r", help="one name per row")
    col_labels = Labels(1, "d", help="one name per column")

    def __init__(self, value, row_labels=None, col_labels=None, title=None, large: bool = False, seed=None,
                 buttons: bool = True, compact: bool = False, dense: bool = False):
        # Checked before any part is built, with the messages the traits give.
        A = type(self).value.validate(self, value)
        rows = render.labels_or_default(row_labels, A.shape[0], "r", "row_labels", first=1)
        cols = render.labels_or_default(col_labels, A.shape[1], "d", "col_labels", first=1)
        self._large = bool(large)
        self._compact = bool(compact)
        self._title = title
        self._start = A
        # What the cells hold, read: a cell's number changes here when it is typed; the value follows when
        # no cell is bad. The grid is built for its shape (none yet).
        self._cells_val = np.zeros((0, 0))
        self._cells: list[list[widgets.Text]] = []
        self._row_label_w: list[widgets.HTML] = []
        self._col_label_w: list[widgets.HTML] = []
        self._errors: dict[tuple[int, int], str] = {}
        self._rand_clicks = 0
        self._seed = int(seed) if seed is not None else zlib.crc32(str(title).encode())
        sz = theme.sizes(self._large)

        self._title_html = widgets.HTML("")
        self._grid = widgets.GridBox()
        # In the flow, between the grid and the buttons: a message pushes the buttons down rather than cover them.
        # As wide as the editor and no wider (width 0, at least 100%): a long message wraps under its grid
        # instead of widening the editor and pushing its neighbours aside.
        self._message_html = widgets.HTML("", layout=widgets.Layout(width="0px", min_width="100%"))
        # Cells and labels by position, kept when the shape changes (see _build_grid); the look of a bad cell is made
        # when a cell is first refused; the numpy literal when it is first asked for.
        self._cell_pool: dict[tuple[int, int], widgets.Text] = {}
        self._row_label_pool: list[widgets.HTML] = []
        self._col_label_pool: list[widgets.HTML] = []
        self._bad_look: tuple | None = None
        self._literal: widgets.Textarea | None = None
        # The cells fill their grid column (the columns set the width, see _build_grid). A good cell's border
        # is as wide as a bad cell's red one, so that marking a cell does not move the grid by a pixel.
        # One Layout and one Style shared by all good cells (and one pair for bad cells) instead of two extra widget
        # models per cell: a 16 × 8 matrix builds and syncs three times faster this way.
        self._ok_layout = widgets.Layout(width="auto", min_width="0", margin="0px", border="2px solid transparent")
        self._ok_style = TextStyle(font_size=sz.font)
        self._label_layout = widgets.Layout(min_width="0", overflow="hidden")
        self._label_style = HTMLStyle()
        self._buttons = bool(buttons)
        # An answer grid (no buttons) builds none: fewer models for the page to make.
        self._button_box = self._make_buttons(sz) if self._buttons else None
        super().__init__(
            children=[self._title_html, self._grid, self._message_html,
                      *([self._button_box] if self._buttons else []),
                      # One hidden model for the course's text CSS and the cells' own.
                      text_style_widget(_CELL_LABEL_CSS)],
            # May shrink below its natural width (the columns narrow) rather than overflow the page.
            layout=widgets.Layout(margin="4px 12px 4px 0", align_items="flex-start", flex="0 1 auto",
                                  min_width="0", max_width="100%", overflow="visible"),
        )
        self._live_setup(large, status_html=self._message_html)
        if self._buttons:
            self.on_click(self._reset_btn, lambda _b: self.reset())
            self.on_click(self._rand_btn, self._on_randomize_click)
            self.on_click(self._copy_btn, self._on_copy_click)
        for part, cls in ((self, "course-widget"), (self, "matrix-editor"), (self._title_html, "matrix-editor-title"),
                          (self._grid, "matrix-editor-grid"), (self._message_html, "matrix-editor-message")):
            part.add_class(cls)
        if dense:
            self.add_class("matrix-editor-dense")
        # The state comes last: its observers build the grid and fill the cells.
        with self.hold_trait_notifications():
            self.value = A
            self.row_labels = rows
            self.col_labels = cols

    # -- construction

    def _make_buttons(self, sz) -> widgets.HBox:
        """Reset / Random / numpy: buttons of one text line, tightly padded, on one row as wide as a small grid (an
        editor in a row of editors, an explorer's inputs, stays one button high and about its grid's width); one
        layout and one style for the three."""
        layout = widgets.Layout(width="auto", padding="0 5px", margin="2px 4px 2px 0")
        style = widgets.ButtonStyle(**({"font_size": sz.button} if sz.button else {}))
        self._reset_btn, self._rand_btn, self._copy_btn = (
            widgets.Button(description=description, tooltip=tooltip, layout=layout, style=style)
            for description, tooltip in (("Reset", "back to the starting values"),
                                         ("Random", "Randomize: small integers -2..2 (seeded)"),
                                         (_COPY, _COPY_TIP)))
        # One row, never wrapped: a second row of buttons would make the editor (and a row of editors) taller
        # (see :meth:`fit_strip`).
        box = widgets.HBox([self._reset_btn, self._rand_btn, self._copy_btn],
                           layout=widgets.Layout(flex_flow="row nowrap"))
        box.add_class("matrix-editor-buttons")
        box.add_class(OMIT_CLASS)  # the buttons act on a live editor only: a stored notebook's picture shows the matrix
        return box

    @property
    def _extra_models(self) -> list:
        """Models this editor owns that may be on no screen (for :func:`helpers.live.close_tree`): the shared looks of
        the cells, and the cells and labels kept for shapes not on show."""
        shown = {id(w) for w in self._grid.children}
        kept = [*self._cell_pool.values(), *self._row_label_pool, *self._col_label_pool]
        return [self._ok_layout, self._ok_style, *(self._bad_look or ()), *(w for w in kept if id(w) not in shown)]

    def _title_value(self) -> str:
        if self._title is None:
            return ""
        n, m = self.shape
        return (
            f'<div style="font-weight:700;font-size:{theme.sizes(self._large).title}">'
            f"{render.title_html(self._title)} "
            f'<span style="font-weight:400;opacity:0.75">({n} × {m})</span></div>'
        )

    def _label(self, text: str, align: str) -> str:
        """A row or column label; a long one is cut with "…" when the column narrows (the full name on hover)."""
        html = theme.label_html(text, self._large, align)
        return html.replace("white-space:nowrap", "white-space:nowrap;overflow:hidden;text-overflow:ellipsis", 1) \
            .replace("<div ", f'<div title="{_html.escape(str(text), quote=True)}" ', 1)

    def _column_width(self, cols: list[str]) -> tuple[str, str]:
        """The narrowest and the widest a column may be, in px of this editor's font.

        Widest: the normal cell width, or more if a column label needs it; every column gets the same
        width (even columns). Narrowest: three characters (2.1 em with the cells' 2 px padding), so that a wide
        matrix, or four editors side by side, still fit.
        """
        font = float(theme.sizes(self._large).font.rstrip("px"))
        cell_em = 3.4 if self._compact else 4.0
        label_em = 0.62 * max((len(c) for c in cols), default=1) + 0.8  # bold monospace + padding
        widest = max(cell_em, label_em) * font
        return f"{2.1 * font:.0f}px", f"{widest:.0f}px"

    def _set_columns(self, cols: list[str]) -> None:
        narrow, wide = self._column_width(cols)  # longer column names may need wider columns
        self._grid.layout.grid_template_columns = f"max-content repeat({len(cols)}, minmax({narrow}, {wide}))"

    def _build_grid(self) -> None:
        """The grid for the shape of ``_cells_val``, showing its numbers and the current labels.

        Cells and labels are kept by position: a shape shown before (a token added, then removed; a size typed, then
        changed back) reuses them, so only positions never shown get new widgets (the browser builds a view for each
        new model, and a resize would otherwise rebuild every cell).
        """
        n, m = self._cells_val.shape
        rows, cols = self.row_labels, self.col_labels
        self._row_label_w = self._labels_from(self._row_label_pool, [self._label(r, "right") for r in rows])
        self._col_label_w = self._labels_from(self._col_label_pool, [self._label(c, "center") for c in cols])
        if not self._grid.children:
            self._corner = widgets.HTML("", layout=self._label_layout, style=self._label_style)
        reused = [(i, j) for i in range(n) for j in range(m) if (i, j) in self._cell_pool]
        for i in range(n):
            for j in range(m):
                if (i, j) not in self._cell_pool:
                    # The description becomes the input's <label>, its accessible name ("X, row cat, column d1"); the
                    # row and column labels already show it on screen, so the label is visually hidden
                    # (_CELL_LABEL_CSS).
                    cell = widgets.Text(value=cell_text(self._cells_val[i, j]), continuous_update=False,
                                        layout=self._ok_layout, style=self._ok_style,
                                        description=self._cell_name(rows[i], cols[j]))
                    self.watch(cell, self._cell_handler(i, j))
                    self._cell_pool[(i, j)] = cell
        self._cells = [[self._cell_pool[(i, j)] for j in range(m)] for i in range(n)]
        # The grid is complete before a kept cell gets its text: its handler then finds the number it shows.
        for i, j in reused:
            cell = self._cell_pool[(i, j)]
            self._mark(cell, ok=True)
            cell.description = self._cell_name(rows[i], cols[j])
            cell.value = cell_text(self._cells_val[i, j])
        children = [self._corner, *self._col_label_w]
        for i in range(n):
            children += [self._row_label_w[i], *self._cells[i]]
        self._grid.children = children
        gl = self._grid.layout
        self._set_columns(cols)
        gl.max_width = "100%"
        gl.align_items = "center"
        gl.grid_gap = "0px"

    def _labels_from(self, pool: list, texts: list[str]) -> list:
        """One label widget per text, from ``pool`` (kept by position), new ones made for positions never shown."""
        for k in range(len(pool), len(texts)):
            pool.append(widgets.HTML(texts[k], layout=self._label_layout, style=self._label_style))
        for w, text in zip(pool, texts):
            w.value = text
        return pool[:len(texts)]

    def fit_strip(self) -> None:
        """Fit a strip of editors side by side on a small screen: the editor may narrow to its grid (the buttons wrap
        onto a second row when it is narrower than they are) and its rows are dense (see ``dense``), so that the
        strip neither scrolls sideways nor grows much taller."""
        if self._button_box is not None:
            self._button_box.layout.flex_flow = "row wrap"
        self.add_class("matrix-editor-dense")

    def _cell_name(self, row: str, col: str) -> str:
        """What a screen reader says for a cell: the matrix (its title without the shape) and the cell's labels."""
        name = re.sub(r"<[^>]+>|\$", "", str(self._title)).split(" (")[0].strip() if self._title else "matrix"
        return f"{name}, row {row}, column {col}"

    def _cell_handler(self, i, j):
        return lambda change: self._cell_changed(i, j, change["new"])

    # -- reading

    @property
    def buttons(self) -> bool:
        """Whether the Reset / Random / numpy buttons are shown."""
        return self._buttons

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
        return self._cells[i][j].value

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
        text = str(text)  # set_text(0, 0, 3) means typing "3"
        # Leaving a cell unchanged fires nothing in the browser either: Text does the same.
        self._cells[i][j].value = text

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
        # The labels a new shape needs are told after the grid that shows them is built.
        with self.hold_trait_notifications():
            if A.shape != self._cells_val.shape:
                self._fit_labels()
                self._cells_val, self._errors = A.copy(), {}
                self._build_grid()
            elif self._errors or not np.array_equal(A, self._cells_val):
                self._fill_cells(A)
        self.status = ""  # a listener's earlier failure is about an earlier value
        self._show_message()
        self._title_html.value = self._title_value()
        if self._literal is not None and self._literal.layout.display != "none":
            self._literal.value = self.as_numpy_literal()

    @traitlets.observe("row_labels", "col_labels")
    def _labels_changed(self, _change) -> None:
        rows, cols = self.row_labels, self.col_labels
        if (len(rows), len(cols)) != (len(self._row_label_w), len(self._col_label_w)):
            return  # a new shape: the value's observer builds a grid with these labels
        for w, r in zip(self._row_label_w, rows):
            w.value = self._label(r, "right")
        for w, c in zip(self._col_label_w, cols):
            w.value = self._label(c, "center")
        for i, row in enumerate(self._cells):
            for j, cell in enumerate(row):
                cell.description = self._cell_name(rows[i], cols[j])
        self._set_columns(cols)
        self._show_message()  # the message names cells by their labels

    # -- internals

    def _fill_cells(self, A: np.ndarray) -> None:
        """Show a whole valid matrix in the cells of the grid (same shape)."""
        # Recorded first: the cells' handlers then see text that says what the cell holds, and do nothing.
        self._cells_val, self._errors = A.copy(), {}
        for i, row in enumerate(self._cells):
            for j, cell in enumerate(row):
                self._mark(cell, ok=True)
                cell.value = cell_text(A[i, j])

    def _cell_changed(self, i, j, text):
        cell = self._cells[i][j]
        if (i, j) not in self._errors and text == cell_text(self._cells_val[i, j]):
            # The editor's own text for the number the cell holds (a value set in code may lie beyond what a
            # learner may type, 1e200: the cell shows it, and it stays).
            return
        try:
            v = parse_number(text)
        except ParseError as err:
            self._errors[(i, j)] = str(err)
            self._mark(cell, ok=False)
            self._show_message()
            return
        was_bad = self._errors.pop((i, j), None) is not None
        held = self._cells_val[i, j]
        if not was_bad and (v == held or text == cell_text(held)):
            # The number the cell held (the editor's own text, or the same number typed another way).
            return
        self._mark(cell, ok=True)
        self._cells_val[i, j] = v
        if self._errors or np.array_equal(self._cells_val, self.value):
            # Other cells still refused; or the number the matrix holds typed back over a refused text: only the
            # message changes (nothing to recompute, so a listener redraws nothing).
            self._show_message()
            return
        self.value = self._cells_val

    def _mark(self, cell, ok: bool):
        if ok:
            layout, style = self._ok_layout, self._ok_style
        else:
            if self._bad_look is None:
                sz = theme.sizes(self._large)
                self._bad_look = (widgets.Layout(width="auto", min_width="0", margin="0px",
                                                 border=f"2px solid {theme.ERROR_BORDER}"),
                                  TextStyle(font_size=sz.font, background=theme.BAD_CELL_BG,
                                            text_color=theme.BAD_CELL_FG))
            layout, style = self._bad_look
        if cell.layout is not layout:
            cell.layout = layout
            cell.style = style

    def _show_status(self, message: str) -> None:
        # LiveWidget's problems (a listener that failed) share the message line with the cells' errors.
        self.status = message
        self._show_message()

    def _show_message(self):
        lines = [line for line in (self.message, self.status) if line]
        # Short: in a row of editors the message wraps under a narrow grid, and every line pushes down the results.
        note = (f"The last valid values stay until {'it is' if len(self._errors) == 1 else 'they are'} fixed."
                if self._errors else None)
        self._message_html.value = theme.error_html("\n".join(lines), self._large, note=note)

    def _on_randomize_click(self, _b):
        self._rand_clicks += 1
        self.randomize(seed=[self._seed, self._rand_clicks])

    def _on_copy_click(self, _b):
        if self._literal is None:
            # Under the buttons, made on the first click.
            self._literal = widgets.Textarea(value="", layout=widgets.Layout(display="none", width="100%",
                                                                             height="auto"), rows=2)
            self._literal.add_class("matrix-editor-literal")
            k = self.children.index(self._button_box) + 1
            self.children = (*self.children[:k], self._literal, *self.children[k:])
        if self._literal.layout.display == "none":
            self._literal.value = self.as_numpy_literal()
            self._literal.rows = min(2 + self.shape[0], 12)
            self._literal.layout.display = None
            self._copy_btn.description, self._copy_btn.tooltip = _HIDE, "hide the numpy literal"
        else:
            self._literal.layout.display = "none"
            self._copy_btn.description, self._copy_btn.tooltip = _COPY, _COPY_TIP

    def _update(self) -> None:
        # Nothing to recompute: the value changes as the cells do.
        pass

    def __repr__(self) -> str:
        n, m = self.shape
        return f"MatrixEditor(shape=({n}, {m}))"
