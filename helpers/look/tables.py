"""Matrices as HTML tables: every number printed over its colour (:mod:`helpers.look.colour_scales`).

Rendering only: every function here draws numbers it is given and never recomputes attention. The HTML uses inline
styles only (no stylesheet, no script, nothing fetched from the network), so it looks the same in a notebook, in a
static HTML export and offline. Every cell carries its own background *and* a text colour that reads on it in both
themes; the panel, labels, legend and masked cells take JupyterLab's theme colours from :mod:`helpers.look.theme`.

Numbers: one format per table (:func:`helpers.core.numbers.number_format`): a table writes all its numbers as whole
numbers or all with the same number of decimals, and never "-0.00". Attention weights are always on the fixed [0, 1]
colour scale (:func:`attention_weights_html`), so that two views of weights compare by colour. A live view (``linked``)
can ease its changed cells from their old colours (:class:`helpers.look.colour_easing.ColourEasing`).
"""

from __future__ import annotations

import dataclasses
import html as _html
from collections.abc import Callable

import numpy as np

from helpers.core.numbers import number_format
from helpers.look import theme
from helpers.look.colour_easing import NOT_EASED, ColourEasing
from helpers.look.colour_scales import (
    MASKED_TEXT,
    SEQUENTIAL,
    WEIGHTS,
    ColourScale,
    blocked_entries,
    legend_html,
    level_colour,
    scale_of,
    shared_scale,
)
from helpers.look.mathtext import math_html

__all__ = [
    "matrix_html",
    "matrices_html",
    "show_matrix",
    "show_matrices",
    "attention_weights_html",
    "linked_matrix_html",
    "linked_weights_html",
    "labels_or_default",
    "title_html",
]

_STEPS = theme.SCALE_STEPS

# Titles of matrices: math typeset (W^Q raised, X_dec and d_k lowered: helpers.look.mathtext).
title_html = math_html


_OPENINGS: dict = {}


def _td_openings(palette: str, pad: str) -> list[str]:
    """The ``<td style=...>`` opening for each palette level, at index level + SCALE_STEPS (built once per palette
    and size)."""
    key = (palette, pad)
    if key not in _OPENINGS:
        _OPENINGS[key] = [
            '<td style="padding:{};background:{};color:{}">'.format(pad, *level_colour(palette, level, True))
            for level in range(-_STEPS, _STEPS + 1)
        ]
    return _OPENINGS[key]


def as_matrix(M) -> np.ndarray:
    try:
        A = np.asarray(M, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"M must be a matrix of numbers; got {type(M).__name__} ({err})") from None
    if A.ndim == 1:
        A = A[None, :]
    if A.ndim != 2:
        raise ValueError(f"M must be 2-D (rows × columns); got shape {A.shape}")
    return A


def labels_or_default(labels, n: int, prefix: str, name: str, first: int = 0, noun: str = "labels") -> list[str]:
    """``n`` labels as strings: the given ones, or ``prefix`` numbered from ``first`` when ``labels`` is None.

    A ValueError names the argument ``name`` when the count does not match the matrix.
    """
    if labels is None:
        return [f"{prefix}{k + first}" for k in range(n)]
    labels = [str(s) for s in labels]
    if len(labels) != n:
        raise ValueError(f"{name} has {len(labels)} {noun} but the matrix has {n}")
    return labels


def matrix_html(
    M,
    row_labels=None,
    col_labels=None,
    title=None,
    row_axis=None,
    col_axis=None,
    digits: int = 2,
    large: bool = False,
    vmin=None,
    vmax=None,
    highlight=None,
    palette: str | None = None,
    extra_column=None,
    legend: bool = True,
    note=None,
    fixed: bool | None = None,
    cell_width: str | None = None,
    scale: ColourScale | None = None,
    mask=None,
    linked: bool = False,
    focusable: bool = False,
    easing: ColourEasing | None = None,
) -> str:
    """A matrix as an HTML table: every number printed over a colour scale.

    By default a signed matrix: on the diverging scale centred on 0, from −max|x| to +max|x|
    (:func:`signed_scale`). Attention weights: ``scale=WEIGHTS`` (or :func:`attention_weights_html`).

    Parameters
    ----------
    M : array_like, shape (n_rows, n_cols) (a 1-D array is one row)
        Finite numbers and ``-inf`` (a masked score: shown as a grey hatched "—", not a number).
    row_labels, col_labels : sequence of str, optional
        One label per row / column (default ``0, 1, ...``).
    title : str, optional
        Shown above the table, followed by the shape; ``^X`` is set as a
        superscript (``"Q = X·W^Q"`` shows W with a raised Q).
    row_axis, col_axis : str, optional
        Axis captions, e.g. ``"Queries ↓"`` and ``"Keys →"``.
    digits : int
        Decimals shown. The table has one number format (:func:`number_format`): whole
        numbers when every value (and every value of ``extra_column``) is whole, else
        exactly ``digits`` decimals everywhere, the legend's two ends included.
    large : bool
        Bigger font and cells, for a projector.
    vmin, vmax : float, optional
        Ends of the colour scale: on the diverging palette (the default) the scale is ±max(|vmin|,
        |vmax|), still centred on 0; on a sequential one, from vmin to vmax (default: the finite
        minimum and maximum of ``M``).
    highlight : (int, int), optional
        Outline this cell.
    palette : {"signed", "weights"}, optional
        Default: "signed", diverging (0 in the panel's colour, orange below, blue above).
    extra_column : (str, sequence of float), optional
        A header and one value per row, shown uncoloured after the last column
        (``attention_weights_html`` uses it for the row sums).
    legend : bool
        Show the colour scale with its two end values under the table.
    note : str, optional
        A line of plain text under the table.
    fixed : bool, optional
        True: ``digits`` decimals even when every value is whole (weights: ``1.00``).
    cell_width : str, optional
        A CSS width for the number columns (default: the theme's, normal or large).
    scale : ColourScale, optional
        The colour scale, overriding ``palette``, ``vmin`` and ``vmax``: :data:`WEIGHTS`, or one
        :func:`shared_scale` for several matrices that are compared.
    mask : array_like of bool, broadcastable to the matrix's shape, optional
        True where the query may attend. A blocked entry (False) is shown as a grey hatched
        "—" (named "masked" for screen readers), not as its number, like a ``-inf`` entry; the
        legend then says what "—" means (even with ``legend=False``).
    linked : bool
        Mark each body row ``data-row="i"`` and each number and column label ``data-col="j"`` (from 0), so
        that a stylesheet can address a row or a column: the views of a live widget, whose linked highlighting
        (:mod:`helpers.look.highlight`) lights what a cell comes from and feeds. A table shown once goes without.
    focusable : bool
        Also let every number and row label take the keyboard focus (``tabindex="0"``), so that the highlighting
        follows the focus as the pointer (implies ``linked``).
    easing : ColourEasing, optional
        The colour memory of the widget that draws this live view (``linked``): the cells whose colour changed since
        its last drawing ease in from their old colour (:mod:`helpers.look.colour_easing`). Without one nothing eases.

    Returns
    -------
    str : an HTML fragment with inline styles only.
    """
    A = as_matrix(M)
    n, m = A.shape
    rows = labels_or_default(row_labels, n, "", "row_labels")
    cols = labels_or_default(col_labels, m, "", "col_labels")
    colour_scale = scale_of(A, palette, vmin, vmax, scale)
    blocked = blocked_entries(A, mask)
    lo, hi = colour_scale.lo, colour_scale.hi
    sz = theme.sizes(large)
    extra_vals = list(extra_column[1]) if extra_column is not None else None
    # The format is chosen from every number the view shows: cells, the extra column, the legend's ends.
    shown = [A[~blocked], [lo, hi] if legend else []]
    if extra_vals is not None:
        shown.append(np.asarray(extra_vals, dtype=float).ravel())
    fmt = number_format(np.concatenate(shown), digits, fixed)
    extra_header = str(extra_column[0]) if extra_column is not None else None
    turned = False
    if cell_width is None and _too_wide(rows, cols, extra_header, row_axis, sz):
        # Narrower columns, as wide as the widest number, and labels longer than that turned on their side (whole,
        # with a tooltip), rather than a table that scrolls sideways in a narrow notebook. The font stays.
        chars = max([2, *(len(fmt(x)) for x in np.concatenate(shown))])
        sz = dataclasses.replace(sz, pad=f"{sz.pad.split()[0]} {_COMPACT_PAD}", cell_width=f"{chars}ch")
        turned = any(len(c) > chars + _LABEL_SLACK for c in [*cols, extra_header or ""])

    parts = [_card_opening(title, n, m, sz)]
    # Shared cell properties live on the table (inherited) and its <col>s, so that
    # each cell carries only its padding and its two colours: a 16 × 16 table stays small.
    parts.append(
        f'<table style="{theme.TABLE_COLOURS}border-collapse:separate;border-spacing:1px;margin:0;text-align:right;'
        'font-variant-numeric:tabular-nums">'
        f'<colgroup><col><col span="{m}" style="width:{cell_width or sz.cell_width}"></colgroup>'
    )
    linked = linked or focusable
    levels = colour_scale.levels(A)
    view = (str(title), tuple(rows), tuple(cols), colour_scale.palette)
    eased = easing.eased_from(view, levels, blocked) if linked and easing is not None else None
    grid = _Grid(A, rows, cols, levels, blocked, colour_scale.palette, fmt, sz, row_axis=row_axis, col_axis=col_axis,
                 extra_header=extra_header, extra_vals=extra_vals,
                 highlight=tuple(int(v) for v in highlight) if highlight is not None else None,
                 linked=linked, focusable=focusable, turned=turned, eased=eased)
    parts += _header_rows(grid)
    parts += _body_rows(grid)
    parts.append("</table>")
    if eased is not None and eased.any():
        parts.append(f"<style>{theme.COLOUR_EASING_CSS}</style>")
    parts.append(legend_html(colour_scale, fmt, sz, colours=legend, masked=bool(blocked.any())))
    if note:
        note_style = f"margin-top:3px;font-size:{sz.small};color:{theme.MUTED_FG}"
        parts.append(f'<div style="{note_style}">{_html.escape(str(note))}</div>')
    parts.append("</div>")
    return "".join(parts)


def _from_style(palette: str, level: int) -> str:
    bg, fg = level_colour(palette, level, True)
    return f"--from-bg:{bg};--from-fg:{fg};"


def _label_style(sz: theme.Sizes) -> str:
    """The style of a row or column label cell."""
    return f"padding:{sz.pad};color:{theme.LABEL_FG};background:{theme.TABLE_PANEL};font-weight:600;"


def _card_opening(title, n: int, m: int, sz: theme.Sizes) -> str:
    """The card a matrix sits in (named after its title for screen readers), and the title with the shape."""
    esc = _html.escape
    # A table wider than the notebook (many tokens) scrolls inside its card; the 6 px are its side margins.
    # tabindex: a card that scrolls can be scrolled from the keyboard too (it is named after its title).
    opening = (
        f'<div style="display:inline-block;vertical-align:top;max-width:calc(100% - 6px);overflow-x:auto;'
        'box-sizing:border-box;'
        f'background:{theme.PANEL_BG};color:{theme.PANEL_FG};'
        f'padding:6px 10px;margin:3px;border:1px solid {theme.BORDER};border-radius:4px;font-size:{sz.font};'
        f'{theme.MONO}line-height:1.3" tabindex="0" role="group" aria-label="{esc(str(title or "matrix"))}">'
    )
    if title is None:
        return opening
    return opening + (
        f'<div style="font-weight:700;font-size:{sz.title};margin-bottom:3px;{theme.SANS}">'
        f'{title_html(title)} <span style="font-weight:400;color:{theme.MUTED_FG}">({n} × {m})</span></div>'
    )


# A table estimated wider than this (in CSS pixels, its card included) is drawn compact: the notebook's column at
# 1024 px with JupyterLab's file browser open is 573 px wide.
_COMPACT_ABOVE_PX = 560
_COMPACT_PAD = "3px"  # the side padding of a compact table's cells
_LABEL_SLACK = 1  # a column label longer than the widest number by more than this is turned (as in the editor)
_CH_EM = 0.62  # the width of a character of the tables' monospaced font, in em
_CARD_PX = 2 * 10 + 2 + 6  # a card's side padding, its border and its margins


def _px(length: str, font_px: float) -> float:
    """A CSS length in px or em, in pixels."""
    return float(length[:-2]) * (font_px if length.endswith("em") else 1.0)


def _too_wide(rows: list[str], cols: list[str], extra_header: str | None, row_axis, sz: theme.Sizes) -> bool:
    """Whether the table, at its usual column width, would be wider than :data:`_COMPACT_ABOVE_PX` (an estimate from
    the number of characters: every character of the font is as wide)."""
    font = _px(sz.font, 0)
    ch = _CH_EM * font
    side = 2 * _px(sz.pad.split()[-1], font) + 1  # a cell's side padding and the border spacing
    cell = _px(sz.cell_width, font)
    width = max(len(r) for r in [*rows, str(row_axis or "")]) * ch + side
    width += sum(max(cell, len(c) * ch) + side for c in cols)
    if extra_header is not None:
        width += max(cell, len(extra_header) * ch) + side
    return width + _CARD_PX > _COMPACT_ABOVE_PX


# Column labels turned on their side, read from bottom to top, each with its text as a tooltip too. What the cells
# inherit is said once, on their row, so that a stored table stays small (a row does not pass on its writing mode).
_TURNED_ROW = "text-align:left;vertical-align:bottom;white-space:nowrap;"
_TURNED = "writing-mode:vertical-rl;transform:rotate(180deg)"


@dataclasses.dataclass(frozen=True)
class _Grid:
    """A table as it is drawn: its numbers and labels, their colour levels and format, and how its cells are marked.

    ``levels``: each entry's colour level; ``blocked``: True where an entry is masked (drawn "—"); ``extra_header`` and
    ``extra_vals``: the uncoloured column after the last one; ``highlight``: the (i, j) cell outlined; ``linked``: rows
    marked ``data-row`` and cells ``data-col`` (``focusable``: they take the keyboard focus too); ``turned``: the
    column labels on their side; ``eased``: the level each cell eases in from (:class:`ColourEasing`), or None.
    """

    A: np.ndarray
    rows: list[str]
    cols: list[str]
    levels: np.ndarray
    blocked: np.ndarray
    palette: str
    fmt: Callable[[float], str]
    sz: theme.Sizes
    row_axis: str | None = None
    col_axis: str | None = None
    extra_header: str | None = None
    extra_vals: list | None = None
    highlight: tuple[int, int] | None = None
    linked: bool = False
    focusable: bool = False
    turned: bool = False
    eased: np.ndarray | None = None


def _header_rows(g: _Grid) -> list[str]:
    """The column axis caption (if any) and the row of column labels, with the row axis caption in its corner; the
    labels turned on their side when ``g.turned``."""
    cols, row_axis, col_axis, extra_header, sz, linked, turned = (
        g.cols, g.row_axis, g.col_axis, g.extra_header, g.sz, g.linked, g.turned)
    esc = _html.escape
    lab = _label_style(sz)
    label_style = (f"padding:{sz.pad};background:{theme.TABLE_PANEL};{_TURNED}" if turned
                   else f"{lab}text-align:center")
    turned_row = f' style="{_TURNED_ROW}color:{theme.LABEL_FG};font-weight:600"' if turned else ""
    rows = []
    if col_axis:
        span = len(cols) + (1 if extra_header is not None else 0)
        rows.append(
            f'<tr><td class="matrix-corner" style="{lab}"></td><th colspan="{span}" style="{lab}text-align:center;'
            f'font-weight:400;font-style:italic;color:{theme.MUTED_FG}">{math_html(col_axis)}</th></tr>'
        )
    # An empty corner is a data cell, not a header: a header cell without text names nothing (axe:
    # empty-table-header). The class keeps it apart from the matrix's own cells.
    corner_tag = "th" if row_axis else 'td class="matrix-corner"'
    corner = math_html(row_axis) if row_axis else ""
    head = [f'<tr{turned_row}><{corner_tag} style="{lab}text-align:left;white-space:nowrap;'
            f'font-weight:400;font-style:italic;color:{theme.MUTED_FG}">{corner}</{corner_tag.split()[0]}>']
    col_marks = [f' data-col="{j}"' if linked else "" for j in range(len(cols))]
    tips = [f' title="{esc(c)}"' if turned else "" for c in cols]
    head.extend(f'<th{col_marks[j]}{tips[j]} style="{label_style}">{esc(c)}</th>' for j, c in enumerate(cols))
    if extra_header is not None:
        tip = f' title="{esc(extra_header)}"' if turned else ""
        head.append(f'<th{tip} style="{label_style};border-left:2px solid {theme.BORDER}">'
                    f'{esc(extra_header)}</th>')
    head.append("</tr>")
    rows.append("".join(head))
    return rows


def _body_rows(g: _Grid) -> list[str]:
    """One table row per matrix row: its label, each number on its colour (a blocked entry as a grey hatched
    masked "—"), the highlighted cell outlined, and the uncoloured extra value."""
    A, rows, idx, blocked, palette, fmt, sz = g.A, g.rows, g.levels, g.blocked, g.palette, g.fmt, g.sz
    highlight, extra_vals, linked, focusable, eased = g.highlight, g.extra_vals, g.linked, g.focusable, g.eased
    lab = _label_style(sz)
    opening = _td_openings(palette, sz.pad)
    plain_td = (f'<td style="padding:{sz.pad};background:{theme.TABLE_PANEL};color:{theme.PANEL_FG};'
                f'border-left:2px solid {theme.BORDER}">')
    masked_td = (f'<td style="padding:{sz.pad};background:{theme.MASKED_FILL};color:{theme.MASKED_FG};'
                 'text-align:center" '
                 f'title="masked" aria-label="masked">{MASKED_TEXT}</td>')
    m = A.shape[1]
    out = []
    tab = ' tabindex="0"' if focusable else ""
    # The attributes that link a cell to its row and column, put into each cell's opening tag (which ends in '>').
    col_attrs = [f' data-col="{j}"{tab}' if linked else "" for j in range(m)]
    marks = [attrs + ">" for attrs in col_attrs]
    for i in range(A.shape[0]):
        row_mark = f' data-row="{i}"' if linked else ""
        row = [f'<tr{row_mark}><th{tab} style="{lab}text-align:right">{_html.escape(rows[i])}</th>']
        Ai = A[i].tolist()
        idx_i = idx[i].tolist()
        blocked_i = blocked[i].tolist()
        for j in range(m):
            if blocked_i[j]:
                row.append(masked_td.replace(" title=", col_attrs[j] + " title=", 1))
            else:
                cell = opening[idx_i[j] + _STEPS][:-1]
                if eased is not None and eased[i, j] != NOT_EASED:
                    cell = cell.replace('style="', f'style="{_from_style(palette, int(eased[i, j]))}', 1)
                row.append(cell + marks[j] + fmt(Ai[j]) + "</td>")
        if highlight is not None and highlight[0] == i and 0 <= highlight[1] < m:
            # The traced cell: the same cell with an outline added to its style.
            k = highlight[1] + 1
            row[k] = row[k].replace('style="', f'style="outline:3px solid {theme.HIGHLIGHT};outline-offset:-3px;', 1)
        if extra_vals is not None:
            row.append(plain_td + fmt(extra_vals[i]) + "</td>")
        row.append("</tr>")
        out.append("".join(row))
    return out


def show_matrix(M, *args, **kwargs):
    """:func:`matrix_html` wrapped for display as a notebook cell's result."""
    from IPython.display import HTML

    return HTML(matrix_html(M, *args, **kwargs))


def matrices_html(matrices, titles=None, row_labels=None, col_labels=None, weights: bool = False, digits: int = 2,
                  large: bool = False, legend: bool = True, **kwargs) -> str:
    """Matrices that are compared, side by side on one colour scale, with one legend under them all.

    The same number has the same colour in every one of them (:func:`shared_scale`): the signed
    scale over the largest |entry| of all, or the weights' [0, 1] with ``weights=True``. The
    cards sit in a row (it wraps only when the page is narrower than all of them).

    Parameters
    ----------
    matrices : sequence of array_like, each (n_rows, n_cols)
    titles : sequence of str, one per matrix, optional
    row_labels, col_labels : sequence of str, optional
        The same labels for every matrix (they are compared entry by entry).
    weights : bool
        Attention weights: the fixed [0, 1] scale, always two decimals.
    digits, large : as for :func:`matrix_html`; other keyword arguments (``row_axis``, ``mask``, ...) go to it.

    Returns
    -------
    str : an HTML fragment with inline styles only.
    """
    mats = [as_matrix(M) for M in matrices]
    if not mats:
        raise ValueError("matrices must hold at least one matrix; got none")
    titles = [None] * len(mats) if titles is None else list(titles)
    if len(titles) != len(mats):
        raise ValueError(f"titles has {len(titles)} titles but there are {len(mats)} matrices")
    scale = shared_scale(*mats, weights=weights)
    # One number format for them all, the legend's ends included, as in one table: decimals in every card as
    # soon as one entry needs them.
    values = np.concatenate([M.ravel() for M in mats])
    finite = values[np.isfinite(values)]
    fixed = weights or kwargs.pop("fixed", None) or not bool(np.all(finite == np.round(finite)))
    fmt = number_format(np.concatenate([values, [scale.lo, scale.hi]]), digits, fixed)
    cards = "".join(matrix_html(M, row_labels, col_labels, title=t, digits=digits, large=large, scale=scale,
                                legend=False, fixed=fixed, **kwargs) for M, t in zip(mats, titles))
    key = legend_html(scale, fmt, theme.sizes(large)) if legend else ""
    key = f'<div style="margin:0 3px 3px">{key}</div>' if key else ""
    return (f'<div role="group" aria-label="{len(mats)} matrices on one colour scale">'
            f'<div style="display:flex;flex-wrap:wrap;align-items:flex-start">{cards}</div>{key}</div>')


def show_matrices(matrices, *args, **kwargs):
    """:func:`matrices_html` wrapped for display as a notebook cell's result."""
    from IPython.display import HTML

    return HTML(matrices_html(matrices, *args, **kwargs))


def attention_weights_html(
    weights,
    q_labels,
    k_labels,
    title: str = "Attention weights",
    digits: int = 2,
    large: bool = False,
    highlight=None,
    palette: str = "weights",
    note=None,
    row_sums: bool = True,
    cell_width: str | None = None,
    mask=None,
    legend: bool = True,
    linked: bool = False,
    focusable: bool = False,
    easing: ColourEasing | None = None,
) -> str:
    """Attention weights as an HTML table, Queries ↓ by Keys →, with a "row sum" column.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k)
        Each row is one query's distribution over the keys. The colour scale is fixed
        to [0, 1] so that tables of different weights compare directly, and every
        number (weights, row sums, the legend's ends) has ``digits`` decimals.
    q_labels : sequence of str, length n_q
    k_labels : sequence of str, length n_k
    row_sums : bool
        Show the "row sum" column (leave it out where several tables share the width and the text says that
        every row sums to 1).
    cell_width : str, optional
        A CSS width for the number columns, narrower than the theme's to put several tables side by side.
    palette : {"weights"}
        A sequential palette, on [0, 1].
    mask : array_like of bool, broadcastable to (n_q, n_k), optional
        True where the query may attend: a blocked weight (exactly 0 after the softmax) is shown
        as a grey hatched "—", not as "0.00", so it is not mistaken for a tiny real weight (e⁻¹⁰
        still shows as 0.00); the legend says what "—" means.
    legend : bool
        Show the colour scale (0.00 to 1.00) under the table (the masked key shows whenever a
        cell is masked).
    linked, focusable : bool
        Row and column marks for the linked highlighting, and the keyboard focus (see :func:`matrix_html`).
    easing : ColourEasing, optional
        The drawing widget's colour memory (see :func:`matrix_html`).
    """
    if palette not in SEQUENTIAL:
        raise ValueError(f"palette of attention weights must be one of {list(SEQUENTIAL)}; got {palette!r}")
    W = as_matrix(weights)
    with np.errstate(over="ignore", invalid="ignore"):
        sums = W.sum(axis=1)
    return matrix_html(
        W,
        row_labels=q_labels,
        col_labels=k_labels,
        title=title,
        row_axis="Queries ↓",
        col_axis="Keys →",
        digits=digits,
        large=large,
        scale=WEIGHTS if palette == WEIGHTS.palette else ColourScale(palette, 0.0, 1.0),
        highlight=highlight,
        extra_column=("row sum", sums) if row_sums else None,
        legend=legend,
        note=note,
        fixed=True,
        cell_width=cell_width,
        mask=mask,
        linked=linked,
        focusable=focusable,
        easing=easing,
    )



def linked_matrix_html(M, *args, **kwargs) -> str:
    """:func:`matrix_html` with the row and column marks of the linked highlighting: a live widget's view."""
    return matrix_html(M, *args, **{"linked": True, **kwargs})


def linked_weights_html(weights, *args, **kwargs) -> str:
    """:func:`attention_weights_html` with the row and column marks of the linked highlighting: a live widget's
    view."""
    return attention_weights_html(weights, *args, **{"linked": True, **kwargs})
