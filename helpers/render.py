"""Matrices as HTML tables and matplotlib figures.

Rendering only: every function here draws numbers it is given and never recomputes
attention. The HTML uses inline styles only (no stylesheet, no script, nothing
fetched from the network), so it looks the same in a notebook, in a static HTML
export and offline.

Colours come from a colour-blind-safe sequential palette (viridis or cividis),
interpolated here from a few stops. Every cell carries its own background *and*
text colour, so the tables read the same in light and dark themes, and every cell
shows its number, so nothing depends on seeing colour. Everything else (the panel,
labels, legend, masked cells) takes JupyterLab's theme colours from :mod:`helpers.theme`.

Numbers: one format per view (:func:`number_format`): a table or a figure writes all
its numbers as whole numbers or all with the same number of decimals, and never
"-0.00". Attention weights are always drawn on the fixed [0, 1] colour scale, in HTML
(:func:`attention_weights_html`) and in matplotlib (:func:`heatmap`), so that two views
of weights compare by colour.
"""

from __future__ import annotations

import html as _html
import math

import numpy as np

from . import theme

__all__ = [
    "PALETTES",
    "colour_for",
    "format_number",
    "fixed_decimals",
    "number_format",
    "matrix_html",
    "show_matrix",
    "attention_weights_html",
    "heatmap",
    "figure_png",
    "figure_img_html",
]

# Stops sampled from matplotlib's viridis and cividis at 0, 1/8, ..., 1. Both are
# perceptually uniform and readable with the common colour-vision deficiencies.
PALETTES = {
    "viridis": [
        "#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c",
        "#28ae80", "#5ec962", "#addc30", "#fde725",
    ],
    "cividis": [
        "#00224e", "#123570", "#3b496c", "#575d6d", "#707173",
        "#8a8779", "#a69d75", "#c4b56c", "#fee838",
    ],
}

_LEVELS = 256  # colours per palette; quantising the scale keeps rendering a table lookup

# Masked (-inf) cells: neutral grey, clearly not part of the scale; the theme's grey in HTML, a light
# grey on a figure's light paper.
_MASKED_BG = theme.MASKED_BG
_MASKED_FG = theme.MASKED_FG
_FIG_MASKED_BG = theme.FIGURE_MASKED
_FIG_MASKED_FG = "#4d4d4d"
# Panel, label and muted text colours, fonts and sizes come from helpers.theme.
_PANEL_BG = theme.PANEL_BG
_PANEL_FG = theme.PANEL_FG
_LABEL_FG = theme.LABEL_FG
_MUTED_FG = theme.MUTED_FG
_HIGHLIGHT = theme.HIGHLIGHT


def _hex_to_rgb(h: str) -> tuple[float, float, float]:
    return tuple(int(h[k:k + 2], 16) / 255 for k in (1, 3, 5))


def _luminance(rgb) -> float:
    """WCAG relative luminance of an sRGB colour with components in [0, 1]."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _text_for(rgb) -> str:
    """Black or white, whichever contrasts more with the background ``rgb``."""
    lum = _luminance(rgb)
    on_black = (lum + 0.05) / 0.05
    on_white = 1.05 / (lum + 0.05)
    return "#000000" if on_black >= on_white else "#ffffff"


def _build_table(stops: list[str]) -> list[tuple[str, str]]:
    rgb = np.array([_hex_to_rgb(s) for s in stops])
    xs = np.linspace(0.0, 1.0, len(stops))
    out = []
    for t in np.linspace(0.0, 1.0, _LEVELS):
        c = tuple(float(np.interp(t, xs, rgb[:, k])) for k in range(3))
        hexc = "#" + "".join(f"{round(v * 255):02x}" for v in c)
        out.append((hexc, _text_for(c)))
    return out


_TABLES = {name: _build_table(stops) for name, stops in PALETTES.items()}


def colour_for(t: float, palette: str = "viridis") -> tuple[str, str]:
    """Background and text colour for a position ``t`` in [0, 1] on the palette."""
    table = _palette_table(palette)
    k = int(round(min(max(float(t), 0.0), 1.0) * (_LEVELS - 1)))
    return table[k]


def _palette_table(palette: str):
    try:
        return _TABLES[palette]
    except KeyError:
        raise ValueError(f"palette must be one of {sorted(_TABLES)}; got {palette!r}") from None


def format_number(x: float, digits: int = 2) -> str:
    """A number for a table cell: ``2``, ``0.5``, ``-1.25``, ``−∞``.

    Like :func:`helpers.explain.fmt` (trailing zeros dropped) with two differences that
    matter in a table: a value that is not zero but rounds to zero shows as ``0.00``,
    whatever its sign (so it is not mistaken for an exact, masked 0, and never reads
    ``-0.00``), and very large or very small
    magnitudes switch to exponent notation so that the cell stays narrow.
    """
    x = float(x)
    if -1e5 < x < 1e5:
        # Fast path (most cells): format once, then drop trailing zeros. f-string
        # rounding is the same correctly rounded decimal conversion as round().
        if x == 0:
            return "0"
        text = f"{x:.{digits}f}"
        if digits > 0:
            short = text.rstrip("0").rstrip(".")
            if short not in ("0", "-0"):
                return short
            # Not zero but rounds to zero: "0.00" says so; a sign in front ("-0.00") would only puzzle.
            return text.lstrip("-")
        return "0" if text in ("0", "-0") else text
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{max(digits, 1)}e}"


def fixed_decimals(x: float, digits: int) -> str:
    """``x`` with exactly ``digits`` decimals (``0.50``); a value that rounds to zero loses its sign; ``±∞`` as ``∞`` /
    ``−∞``; magnitudes from 10⁵ up in exponent notation, so that a cell stays narrow."""
    if -1e5 < x < 1e5:
        text = f"{x:.{digits}f}"
        if text[0] == "-" and not text.strip("-0."):
            return text[1:]  # "-0.00" would only puzzle
        return text
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{max(digits, 1)}e}"


def number_format(values, digits: int = 2, fixed: bool | None = None):
    """The one number format of a view (a table, a figure), as a function from a number to its text.

    Every number of one view is written the same way, so that a column of numbers lines up
    and "0.5" never stands next to "0.25":

    - whole numbers (``2``, ``-3``, ``0``) when every finite value is a whole number and
      ``fixed`` is not True (an input matrix of small integers stays easy to read);
    - otherwise exactly ``digits`` decimals for every number (``0.50``, ``1.00``, ``-1.25``).

    A value that rounds to zero is written without a sign (never ``-0.00``); ``±∞`` as
    ``∞`` / ``−∞``; magnitudes from 10⁵ up in exponent notation, so a cell stays narrow.

    Parameters
    ----------
    values : array_like
        Every number the view shows (the format is chosen from all of them).
    digits : int
        Decimals of the decimal format.
    fixed : bool, optional
        True: always ``digits`` decimals (attention weights: ``1.00`` next to ``0.25``).

    Returns
    -------
    callable : ``fmt(x) -> str``
    """
    v = np.asarray(values, dtype=float).ravel()
    finite = v[np.isfinite(v)]
    whole = not fixed and bool(np.all(finite == np.round(finite)))
    places = 0 if whole else int(digits)

    def fmt(x) -> str:
        return fixed_decimals(float(x), places)

    return fmt


title_html = theme.title_html  # kept here too: titles of matrices are rendered with it


_OPENINGS: dict = {}


def _td_openings(palette: str, pad: str) -> list[str]:
    """The ``<td style=...>`` opening for each palette level (built once per palette and size)."""
    key = (palette, pad)
    if key not in _OPENINGS:
        _OPENINGS[key] = [
            f'<td style="padding:{pad};background:{bg};color:{fg}">' for bg, fg in _palette_table(palette)
        ]
    return _OPENINGS[key]


def _as_matrix(M) -> np.ndarray:
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


def _scale_limits(A: np.ndarray, vmin, vmax) -> tuple[float, float]:
    finite = A[np.isfinite(A)]
    lo = float(vmin) if vmin is not None else (float(finite.min()) if finite.size else 0.0)
    hi = float(vmax) if vmax is not None else (float(finite.max()) if finite.size else 1.0)
    return lo, hi


def _colour_indices(A: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Palette index per cell (vectorised: one numpy pass instead of a call per cell)."""
    span = hi - lo
    with np.errstate(invalid="ignore", over="ignore"):
        if not np.isfinite(span) or span <= 0:
            t = np.full(A.shape, 0.5)
        else:
            t = (A - lo) / span
    t = np.nan_to_num(t, nan=0.5, posinf=1.0, neginf=0.0)
    return np.rint(np.clip(t, 0.0, 1.0) * (_LEVELS - 1)).astype(int)


def _legend_html(lo: float, hi: float, palette: str, fmt, sz: theme.Sizes) -> str:
    stops = ", ".join(PALETTES[palette])
    return (
        f'<div style="display:flex;align-items:center;gap:6px;margin-top:4px;font-size:{sz.small};'
        f'color:{_MUTED_FG}">'
        f"<span>{_html.escape(fmt(lo))}</span>"
        f'<span style="display:inline-block;width:7em;height:0.8em;border:1px solid {theme.BORDER};'
        f'background:linear-gradient(to right, {stops})"></span>'
        f"<span>{_html.escape(fmt(hi))}</span>"
        "</div>"
    )


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
    palette: str = "viridis",
    extra_column=None,
    legend: bool = True,
    note=None,
    fixed: bool | None = None,
    cell_width: str | None = None,
) -> str:
    """A matrix as an HTML table: every number printed over a colour scale.

    Parameters
    ----------
    M : array_like, shape (n_rows, n_cols) (a 1-D array is one row)
        Finite numbers and ``-inf`` (shown as a grey ``−∞``, a masked entry).
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
        Ends of the colour scale (default: the finite minimum and maximum of ``M``).
    highlight : (int, int), optional
        Outline this cell.
    palette : {"viridis", "cividis"}
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

    Returns
    -------
    str : an HTML fragment with inline styles only.
    """
    A = _as_matrix(M)
    n, m = A.shape
    rows = labels_or_default(row_labels, n, "", "row_labels")
    cols = labels_or_default(col_labels, m, "", "col_labels")
    _palette_table(palette)  # an unknown palette is refused before any work
    lo, hi = _scale_limits(A, vmin, vmax)
    sz = theme.sizes(large)
    extra_vals = list(extra_column[1]) if extra_column is not None else None
    # The format is chosen from every number the view shows: cells, the extra column, the legend's ends.
    shown = [A.ravel(), [lo, hi] if legend else []]
    if extra_vals is not None:
        shown.append(np.asarray(extra_vals, dtype=float).ravel())
    fmt = number_format(np.concatenate(shown), digits, fixed)

    parts = [_card_opening(title, n, m, sz)]
    # Shared cell properties live on the table (inherited) and its <col>s, so that
    # each cell carries only its padding and its two colours: a 16 × 16 table stays small.
    parts.append(
        '<table style="border-collapse:separate;border-spacing:1px;margin:0;text-align:right;'
        'font-variant-numeric:tabular-nums">'
        f'<colgroup><col><col span="{m}" style="width:{cell_width or sz.cell_width}"></colgroup>'
    )
    extra_header = str(extra_column[0]) if extra_column is not None else None
    parts += _header_rows(cols, row_axis, col_axis, extra_header, sz)
    hl = tuple(int(v) for v in highlight) if highlight is not None else None
    parts += _body_rows(A, rows, _colour_indices(A, lo, hi), palette, fmt, hl, extra_vals, sz)
    parts.append("</table>")
    if legend:
        parts.append(_legend_html(lo, hi, palette, fmt, sz))
    if note:
        note_style = f"margin-top:3px;font-size:{sz.small};color:{_MUTED_FG}"
        parts.append(f'<div style="{note_style}">{_html.escape(str(note))}</div>')
    parts.append("</div>")
    return "".join(parts)


def _label_style(sz: theme.Sizes) -> str:
    """The style of a row or column label cell."""
    return f"padding:{sz.pad};color:{_LABEL_FG};background:{_PANEL_BG};font-weight:600;"


def _card_opening(title, n: int, m: int, sz: theme.Sizes) -> str:
    """The card a matrix sits in (named after its title for screen readers), and the title with the shape."""
    esc = _html.escape
    # A table wider than the notebook (many tokens) scrolls inside its card; the 6 px are its side margins.
    # tabindex: a card that scrolls can be scrolled from the keyboard too (it is named after its title).
    opening = (
        f'<div style="display:inline-block;vertical-align:top;max-width:calc(100% - 6px);overflow-x:auto;'
        'box-sizing:border-box;'
        f'background:{_PANEL_BG};color:{_PANEL_FG};'
        f'padding:6px 10px;margin:3px;border:1px solid {theme.BORDER};border-radius:4px;font-size:{sz.font};'
        f'{theme.MONO}line-height:1.3" tabindex="0" role="group" aria-label="{esc(str(title or "matrix"))}">'
    )
    if title is None:
        return opening
    return opening + (
        f'<div style="font-weight:700;font-size:{sz.title};margin-bottom:3px;{theme.SANS}">'
        f'{title_html(title)} <span style="font-weight:400;color:{_MUTED_FG}">({n} × {m})</span></div>'
    )


def _header_rows(cols: list[str], row_axis, col_axis, extra_header: str | None, sz: theme.Sizes) -> list[str]:
    """The column axis caption (if any) and the row of column labels, with the row axis caption in its corner."""
    esc = _html.escape
    lab = _label_style(sz)
    rows = []
    if col_axis:
        span = len(cols) + (1 if extra_header is not None else 0)
        rows.append(
            f'<tr><td class="matrix-corner" style="{lab}"></td><th colspan="{span}" style="{lab}text-align:center;'
            f'font-weight:400;font-style:italic;color:{_MUTED_FG}">{esc(str(col_axis))}</th></tr>'
        )
    # An empty corner is a data cell, not a header: a header cell without text names nothing (axe:
    # empty-table-header). The class keeps it apart from the matrix's own cells.
    corner_tag = "th" if row_axis else 'td class="matrix-corner"'
    corner = esc(str(row_axis)) if row_axis else ""
    head = [f'<tr><{corner_tag} style="{lab}text-align:left;white-space:nowrap;font-weight:400;font-style:italic;'
            f'color:{_MUTED_FG}">{corner}</{corner_tag.split()[0]}>']
    head.extend(f'<th style="{lab}text-align:center">{esc(c)}</th>' for c in cols)
    if extra_header is not None:
        head.append(f'<th style="{lab}text-align:center;border-left:2px solid {theme.BORDER}">'
                    f'{esc(extra_header)}</th>')
    head.append("</tr>")
    rows.append("".join(head))
    return rows


def _body_rows(A: np.ndarray, rows: list[str], idx: np.ndarray, palette: str, fmt, highlight, extra_vals,
               sz: theme.Sizes) -> list[str]:
    """One table row per matrix row: its label, each number on its colour (``-inf`` as a grey masked ``−∞``), the
    ``highlight`` (i, j) cell outlined, and the uncoloured extra value."""
    lab = _label_style(sz)
    opening = _td_openings(palette, sz.pad)
    plain_td = (f'<td style="padding:{sz.pad};background:{_PANEL_BG};color:{_PANEL_FG};'
                f'border-left:2px solid {theme.BORDER}">')
    masked_td = f'<td style="padding:{sz.pad};background:{_MASKED_BG};color:{_MASKED_FG}" title="masked">'
    neg_inf = -math.inf
    m = A.shape[1]
    out = []
    for i in range(A.shape[0]):
        row = [f'<tr><th style="{lab}text-align:right">{_html.escape(rows[i])}</th>']
        Ai = A[i].tolist()
        idx_i = idx[i].tolist()
        for j in range(m):
            v = Ai[j]
            if v == neg_inf:
                row.append(masked_td + "−∞</td>")
            else:
                row.append(opening[idx_i[j]] + fmt(v) + "</td>")
        if highlight is not None and highlight[0] == i and 0 <= highlight[1] < m:
            # The traced cell: the same cell with an outline added to its style.
            k = highlight[1] + 1
            row[k] = row[k].replace('style="', f'style="outline:3px solid {_HIGHLIGHT};outline-offset:-3px;', 1)
        if extra_vals is not None:
            row.append(plain_td + fmt(extra_vals[i]) + "</td>")
        row.append("</tr>")
        out.append("".join(row))
    return out


def show_matrix(M, *args, **kwargs):
    """:func:`matrix_html` wrapped for display as a notebook cell's result."""
    from IPython.display import HTML

    return HTML(matrix_html(M, *args, **kwargs))


def attention_weights_html(
    weights,
    q_labels,
    k_labels,
    title: str = "Attention weights",
    digits: int = 2,
    large: bool = False,
    highlight=None,
    palette: str = "viridis",
    note=None,
    row_sums: bool = True,
    cell_width: str | None = None,
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
    """
    W = _as_matrix(weights)
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
        vmin=0.0,
        vmax=1.0,
        highlight=highlight,
        palette=palette,
        extra_column=("row sum", sums) if row_sums else None,
        note=note,
        fixed=True,
        cell_width=cell_width,
    )


def _figure_classes():
    """``DescribedFigure`` is made on first use, so that importing helpers.render does not import matplotlib."""
    global DescribedFigure
    if DescribedFigure is not None:
        return DescribedFigure
    from matplotlib.figure import Figure

    class _DescribedFigure(Figure):
        """A ``matplotlib.figure.Figure`` with alt text: ``fig.alt`` says in words what the figure shows.

        JupyterLab draws an ``image/png`` output as an ``<img>`` without any alt text (its image renderer has no
        place for one), so a screen reader announces nothing. A described figure is shown as ``text/html``, the
        same PNG in an ``<img alt="...">``, instead of the ``image/png`` output (not both: the notebook would
        store the picture twice).
        """

        alt = ""

    _DescribedFigure.__name__ = _DescribedFigure.__qualname__ = "DescribedFigure"
    DescribedFigure = _DescribedFigure
    _register_described_figure(_DescribedFigure)
    return _DescribedFigure


DescribedFigure = None


def _register_described_figure(cls) -> None:
    """Tell IPython (if running) to show ``cls`` figures as an ``<img>`` with alt text and no separate PNG."""
    try:
        from IPython import get_ipython
    except ImportError:  # no IPython: nothing displays figures, nothing to register
        return
    ip = get_ipython()
    if ip is None:
        return
    formatters = ip.display_formatter.formatters

    def as_html(fig):
        import base64

        from IPython.core.pylabtools import print_figure

        png = print_figure(fig, "png", bbox_inches="tight")
        data = base64.b64encode(smaller_png(png)).decode("ascii")
        alt = _html.escape(fig.alt or "a figure", quote=True)
        return f'<img alt="{alt}" src="data:image/png;base64,{data}">'

    # Most specific type wins in IPython's look-up, whatever the inline backend registers for Figure later.
    formatters["text/html"].for_type(cls, as_html)
    formatters["image/png"].for_type(cls, lambda fig: None)


def smaller_png(png: bytes) -> bytes:
    """``png`` as a 256-colour PNG if that is smaller: it looks the same at about a third of the size.

    Median cut without dithering, so the same image gives the same bytes (a stored notebook is reproducible); how
    ``scripts/run_notebooks.py`` stores figures, and how a stored widget's picture holds its images.
    """
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    buffer = io.BytesIO()
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        buffer, format="PNG", optimize=True)
    smaller = buffer.getvalue()
    return smaller if len(smaller) < len(png) else png


def figure_png(fig) -> bytes:
    """A matplotlib figure as PNG bytes, with no timestamp in them (the same figure gives the same bytes).

    Drawn through its own Agg canvas, not pyplot, so it is safe inside a widget while a cell runs.
    """
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    buffer = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buffer, metadata={"Software": None})
    return buffer.getvalue()


def figure_img_html(fig, alt: str | None = None) -> str:
    """A figure as an ``<img>`` for an HTML widget, with its alt text: ``alt``, else ``fig.alt``."""
    import base64

    data = base64.b64encode(figure_png(fig)).decode("ascii")
    alt = _html.escape(alt or getattr(fig, "alt", "") or "a figure", quote=True)
    return f'<img alt="{alt}" src="data:image/png;base64,{data}" style="max-width:100%">'


def described_figure(**kwargs):
    """A new figure as :func:`helpers.theme.new_figure` makes it, with alt text (``fig.alt``, empty until set)."""
    cls = _figure_classes()
    with theme.figure_style():
        fig = cls(**kwargs)
    theme.add_border(fig)
    return fig


def heatmap_alt(A: np.ndarray, rows, cols, title=None) -> str:
    """Alt text of a heatmap: what it is, its axes, and where each query puts most of its weight."""
    strongest = []
    for i, r in enumerate(rows):
        row = np.where(np.isfinite(A[i]), A[i], -np.inf)
        j = int(np.argmax(row))
        strongest.append(f"{r} → {cols[j]} {format_number(float(A[i, j]))}")
    head = f"{title}: heatmap" if title else "Heatmap"
    return (f"{head} of {len(rows)} queries ({', '.join(rows)}) by {len(cols)} keys ({', '.join(cols)}). "
            f"Largest per query: {'; '.join(strongest)}.")


def heatmap(weights, row_labels, col_labels, title=None, ax=None, annotate: bool = True, cmap: str = "viridis",
            digits: int = 2, vmin=None, vmax=None, scale: str = "weights"):
    """Attention weights (or, with ``scale="data"``, any matrix) as a matplotlib heatmap with token labels.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k); ``-inf`` cells are drawn grey and labelled ``−∞``.
    row_labels : sequence of str, length n_q (queries, down the side)
    col_labels : sequence of str, length n_k (keys, along the top)
    title : str, optional
    ax : matplotlib Axes, optional
        Draw into this axes (its figure gets the course's paper and border); by default a
        new ``matplotlib.figure.Figure`` (no pyplot state, so it is safe inside widgets and
        under nbval).
    annotate : bool
        Print each number in its cell, in black or white for contrast, all in one format
        (:func:`number_format`; weights always with ``digits`` decimals).
    scale : {"weights", "data"}
        ``"weights"`` (the default): the colour scale is fixed to [0, 1], as for every
        view of attention weights in the course, so two heatmaps compare by colour; a
        finite value outside [0, 1] raises ValueError (it is not a weight). ``"data"``:
        the scale runs from the matrix's finite minimum to its maximum (scores, inputs).
    vmin, vmax : float, optional
        Override the ends of the colour scale.

    Returns
    -------
    matplotlib.figure.Figure
        A :func:`described_figure` (its ``alt`` says what it shows) unless ``ax`` belongs to a plain figure.
        Drawn in :func:`helpers.theme.figure_style`: opaque light paper, dark text, a grey
        border, so it reads in JupyterLab's light and dark themes alike.
    """
    from matplotlib import colormaps

    if scale not in ("weights", "data"):
        raise ValueError(f"scale must be 'weights' or 'data'; got {scale!r}")
    A = _as_matrix(weights)
    n, m = A.shape
    rows = labels_or_default(row_labels, n, "", "row_labels")
    cols = labels_or_default(col_labels, m, "", "col_labels")
    is_weights = scale == "weights"
    if is_weights:
        finite = A[np.isfinite(A)]
        if finite.size and (finite.min() < -1e-9 or finite.max() > 1 + 1e-9):
            raise ValueError(
                f"heatmap draws attention weights on the fixed [0, 1] scale, but the matrix has values from "
                f"{format_number(finite.min())} to {format_number(finite.max())}; "
                "pass scale='data' to draw another matrix on its own scale"
            )
        vmin = 0.0 if vmin is None else vmin
        vmax = 1.0 if vmax is None else vmax
    with theme.figure_style():
        if ax is None:
            fig = described_figure(figsize=(max(3.0, 0.6 * m + 2.0), max(2.5, 0.5 * n + 1.5)),
                                   layout="constrained")
            ax = fig.add_subplot()
        else:
            fig = ax.figure
            theme.add_border(fig)
            theme.style_axes(ax)
        cm = colormaps[cmap].with_extremes(bad=_FIG_MASKED_BG)
        masked = np.ma.masked_invalid(A)
        lo, hi = _scale_limits(A, vmin, vmax)
        if hi <= lo:
            lo, hi = lo - 0.5, hi + 0.5
        im = ax.imshow(masked, cmap=cm, vmin=lo, vmax=hi, aspect="auto")
        ax.set_xticks(range(m), cols, rotation=45 if max((len(c) for c in cols), default=0) > 3 else 0)
        ax.set_yticks(range(n), rows)
        ax.xaxis.set_ticks_position("top")
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("Keys →")
        ax.set_ylabel("Queries ↓")
        if title:
            ax.set_title(title, pad=12)
        # No label on the colour bar: its ticks (0.0 to 1.0 for weights) say the scale, and a rotated label
        # would add about 4 KB to every stored figure.
        fig.colorbar(im, ax=ax)
        if annotate:
            fmt = number_format(A, digits, fixed=is_weights)
            for i in range(n):
                for j in range(m):
                    v = A[i, j]
                    if np.isfinite(v):
                        t = 0.5 if hi == lo else (v - lo) / (hi - lo)
                        colour = _text_for(cm(float(np.clip(t, 0, 1)))[:3])
                    else:
                        colour = _FIG_MASKED_FG
                    ax.text(j, i, fmt(v), ha="center", va="center", color=colour, fontsize=9)
    if hasattr(fig, "alt"):
        # Drawn into a described figure (one of several panels, too): the panel adds its own sentence.
        fig.alt = " ".join(filter(None, [fig.alt, heatmap_alt(A, rows, cols, title)]))
    return fig
