"""Matrices as HTML tables and matplotlib figures.

Rendering only: every function here draws numbers it is given and never recomputes
attention. The HTML uses inline styles only (no stylesheet, no script, nothing
fetched from the network), so it looks the same in a notebook, in a static HTML
export and offline.

Colour says what a number means, by the rules of :class:`ColourScale` (the one place for them):

- attention weights on the fixed [0, 1] sequential scale (:data:`WEIGHTS`, one hue: teal), so that a
  weight of 0.5 has the same colour in every table and figure, whatever the other weights are;
- signed matrices (X, W^Q, Q, scores, outputs: every other matrix) on a diverging scale centred
  on 0 (:func:`signed_scale`): orange below 0, blue above, symmetric from −max|x| to +max|x| so that
  +a and −a mirror each other; an all-positive or all-negative matrix on the one-sided half it uses;
- 0 on every scale is the panel's own colour, in JupyterLab's light and dark themes alike: a cell's
  colour is its hue mixed into the panel by its strength (CSS ``color-mix``; in a figure, the hue
  with its strength as alpha over a figure without background), so a strong colour is a big number;
- masked entries (blocked before the softmax: ``-inf`` scores, weights outside a ``mask``) are not
  numbers at all: a grey hatched "—" cell, with a legend entry saying what it means;
- matrices the text compares share one scale (:func:`shared_scale`, :func:`matrices_html`).

The hues (teal, orange, blue; :mod:`helpers.theme`) stay apart for the common colour-vision
deficiencies. Every cell carries its own background *and* a text colour that reads on it in both
themes, and every cell shows its number, so nothing depends on seeing colour. Everything else (the
panel, labels, legend, masked cells) takes JupyterLab's theme colours from :mod:`helpers.theme`.

Numbers: one format per view (:func:`number_format`): a table or a figure writes all
its numbers as whole numbers or all with the same number of decimals, and never
"-0.00". Attention weights are always drawn on the fixed [0, 1] colour scale, in HTML
(:func:`attention_weights_html`) and in matplotlib (:func:`heatmap`), so that two views
of weights compare by colour.
"""

from __future__ import annotations

import dataclasses
import hashlib
import html as _html
import math
import re

import numpy as np

from . import theme
from .mathtext import math_html
from .numbers import number_text

__all__ = [
    "PALETTES",
    "SEQUENTIAL",
    "DIVERGING",
    "MASKED_TEXT",
    "MASKED_LEGEND",
    "ColourScale",
    "WEIGHTS",
    "signed_scale",
    "shared_scale",
    "colour_for",
    "format_number",
    "fixed_decimals",
    "number_format",
    "matrix_html",
    "matrices_html",
    "show_matrix",
    "show_matrices",
    "attention_weights_html",
    "heatmap",
    "heatmaps",
    "colour_map",
    "level_colour",
    "diagram_svg_html",
    "figure_svg_html",
    "draw_figure",
    "figure_png",
    "figure_img_html",
]

# The course's colour scales, one per meaning (the hues and the mixing live in helpers.theme): "weights", attention
# weights from the panel's colour (0) to teal (1); "signed", every other matrix, from the panel's colour (0) to
# orange below 0 and to blue above. Each palette names its hues (first: the one below 0 on a signed scale).
PALETTES = {
    "weights": (theme.WEIGHT_HUE,),
    "signed": (theme.NEGATIVE_HUE, theme.POSITIVE_HUE),
}
SEQUENTIAL = ("weights",)  # 0 to high: attention weights
DIVERGING = ("signed",)    # both ways from 0: signed numbers

_STEPS = theme.SCALE_STEPS  # strengths 0 .. _STEPS of a hue; a level is a signed strength (negative: below 0)

# A masked entry (blocked before the softmax) is not a number: it shows this, on a grey hatched cell, and the
# legend says what it means. A screen reader reads the cell's name, "masked".
MASKED_TEXT = "—"
MASKED_LEGEND = "masked (blocked before the softmax)"
# Masked cells: grey and hatched, clearly not part of any scale; the theme's greys in HTML and in a themed figure.
_MASKED_FG = theme.MASKED_FG
_FIG_MASKED_BG = theme.FIGURE_MASKED
_FIG_MASKED_FG = theme.FIGURE_CELL_INK
_FIG_MASKED_HATCH = theme.FIGURE_HATCH
# Panel, label and muted text colours, fonts and sizes come from helpers.theme.
_PANEL_BG = theme.PANEL_BG
_PANEL_FG = theme.PANEL_FG
_LABEL_FG = theme.LABEL_FG
_MUTED_FG = theme.MUTED_FG
_HIGHLIGHT = theme.HIGHLIGHT


def _check_palette(palette: str) -> None:
    if palette not in PALETTES:
        raise ValueError(f"palette must be one of {sorted(PALETTES)}; got {palette!r}")


def _hue(palette: str, level: int) -> str:
    """The hue of a level of the palette: the first hue below 0, the last at and above."""
    hues = PALETTES[palette]
    return hues[0] if level < 0 else hues[-1]


def level_colour(palette: str, level: int, in_table: bool = False) -> tuple[str, str]:
    """Background and text colour (CSS) of a level: strength ``|level|`` / :data:`helpers.theme.SCALE_STEPS` of the
    palette's hue over the panel; level 0 is the panel's own colour in every theme. ``in_table``: for a cell of a
    table that sets :data:`helpers.theme.TABLE_COLOURS` (the same colours, shorter)."""
    hue = _hue(palette, level)
    if in_table:
        return theme.scale_fill(hue, abs(level), theme.TABLE_PANEL), theme.scale_ink(hue, abs(level), theme.TABLE_INK)
    return theme.scale_fill(hue, abs(level)), theme.scale_ink(hue, abs(level))


def colour_for(t: float, palette: str = "weights") -> tuple[str, str]:
    """Background and text colour (CSS) for a position ``t`` in [0, 1] on the palette (a signed one has 0 at 0.5)."""
    _check_palette(palette)
    t = min(max(float(t), 0.0), 1.0)
    level = round((2 * t - 1) * _STEPS) if palette in DIVERGING else round(t * _STEPS)
    return level_colour(palette, level)


class ColourScale:
    """Which colour a number gets: a palette and the values at its two ends.

    The course's rules (one place): :data:`WEIGHTS` for attention weights, :func:`signed_scale`
    for every other matrix, :func:`shared_scale` for matrices compared side by side.

    Parameters
    ----------
    palette : {"weights", "signed"}
    lo, hi : float, the ends (``lo <= hi``); a value outside them gets the nearer end's colour.
        "weights": ``lo`` is the panel's colour and ``hi`` the full hue. "signed": 0 is the panel's colour and the
        strength is ``|x| / max(|lo|, |hi|)``, orange below 0 and blue above; ``[0, hi]`` or ``[lo, 0]`` is a
        one-sided scale (an all-positive or all-negative matrix uses one hue only).
    """

    __slots__ = ("palette", "lo", "hi")

    def __init__(self, palette: str, lo: float, hi: float):
        _check_palette(palette)
        lo, hi = float(lo), float(hi)
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi < lo:
            raise ValueError(f"a colour scale needs finite ends lo <= hi; got lo={lo}, hi={hi}")
        self.palette, self.lo, self.hi = palette, lo, hi

    def __repr__(self) -> str:
        return f"ColourScale({self.palette!r}, {self.lo:g}, {self.hi:g})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, ColourScale)
                and (self.palette, self.lo, self.hi) == (other.palette, other.lo, other.hi))

    def __hash__(self) -> int:
        return hash((self.palette, self.lo, self.hi))

    @property
    def constant(self) -> bool:
        """True when both ends are the same value (a matrix whose entries are all equal)."""
        return self.hi == self.lo

    @property
    def signed(self) -> bool:
        """True for the diverging palette (0 in the panel's colour, a hue each way)."""
        return self.palette in DIVERGING

    @property
    def sides(self) -> tuple[bool, bool]:
        """Whether the scale reaches below 0 and above 0 (a signed scale): (True, True) both ways, one-sided else."""
        return self.lo < 0, self.hi > 0

    def levels(self, values) -> np.ndarray:
        """Each value's level: its signed strength, an integer in [−SCALE_STEPS, SCALE_STEPS] (0: the panel's colour;
        a weights scale has no negative levels). ``nan``: 0."""
        A = np.clip(np.asarray(values, dtype=float), self.lo, self.hi)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if self.signed:
                top = max(abs(self.lo), abs(self.hi))
                t = A / top if top > 0 else np.zeros(A.shape)
            else:
                half = self.hi / 2 - self.lo / 2  # halves: ±1e308 has no finite span, but its half-span is finite
                t = (A / 2 - self.lo / 2) / half if half > 0 else np.full(A.shape, 1.0 if self.hi > 0 else 0.0)
        t = np.clip(np.nan_to_num(t, nan=0.0), -1.0, 1.0)
        return np.rint(t * _STEPS).astype(int)

    def colour(self, x: float) -> tuple[str, str]:
        """Background and text colour (CSS) of the value ``x``."""
        return level_colour(self.palette, int(self.levels(x)))

    def colormap(self):
        """This scale for matplotlib: ``(cmap, vmin, vmax)``, each colour the hue with its strength as alpha, so that
        on a figure without a background it lays over the panel as a table cell does."""
        from matplotlib.colors import ListedColormap

        def ramp(hue):
            return [theme.scale_rgba(hue, k) for k in range(_STEPS + 1)]

        if not self.signed:
            return ListedColormap(ramp(theme.WEIGHT_HUE), name="course-weights"), self.lo, self.hi
        below, above = self.sides
        neg, pos = PALETTES[self.palette]
        if below and above or self.constant:
            top = max(abs(self.lo), abs(self.hi)) or 1.0
            return ListedColormap(ramp(neg)[:0:-1] + ramp(pos), name="course-signed"), -top, top
        if below:
            return ListedColormap(ramp(neg)[::-1], name="course-negative"), self.lo, 0.0
        return ListedColormap(ramp(pos), name="course-positive"), 0.0, self.hi


WEIGHTS = ColourScale("weights", 0.0, 1.0)  # every attention weight, in every view


def colour_map(kind: str = "weights"):
    """The course's matplotlib colour map of a meaning, for a figure drawn by hand (``ax.imshow(A, cmap=...)``).

    ``"weights"`` (attention weights, use with ``vmin=0, vmax=1``), ``"signed"`` (centred on 0: pass ``vmin=-m,
    vmax=m``), ``"positive"`` (from 0 up) or ``"negative"`` (up to 0). Each colour is a hue with its strength as alpha,
    so 0 is the panel's own colour in the light and the dark theme.
    """
    ends = {"weights": WEIGHTS, "signed": ColourScale("signed", -1, 1), "positive": ColourScale("signed", 0, 1),
            "negative": ColourScale("signed", -1, 0)}
    if kind not in ends:
        raise ValueError(f"kind must be one of {sorted(ends)}; got {kind!r}")
    return ends[kind].colormap()[0]


def _finite_range(matrices) -> tuple[float, float]:
    lo = hi = 0.0
    for M in matrices:
        A = np.asarray(M, dtype=float)
        finite = A[np.isfinite(A)]
        if finite.size:
            lo, hi = min(lo, float(finite.min())), max(hi, float(finite.max()))
    return lo, hi


def signed_scale(*matrices, palette: str = "signed") -> ColourScale:
    """The diverging scale for signed numbers, 0 in the panel's own colour.

    Entries of both signs: from −m to +m, m the largest finite |entry|, so that ``a`` and ``−a`` have mirrored
    colours. All entries ≥ 0: the one-sided scale from 0 to the largest (blue only); all ≤ 0: from the smallest to
    0 (orange only), so no half of the scale goes unused. Every entry 0 (or none finite): the constant scale at 0.
    Several matrices: one scale for all of them.
    """
    if palette not in DIVERGING:
        raise ValueError(f"palette must be a diverging palette, one of {list(DIVERGING)}; got {palette!r}")
    lo, hi = _finite_range(matrices)
    if lo < 0 < hi:
        m = max(-lo, hi)
        return ColourScale(palette, -m, m)
    return ColourScale(palette, lo, hi)


def shared_scale(*matrices, weights: bool = False) -> ColourScale:
    """One colour scale for matrices that are compared (side by side, in the text): the same number, the same colour.

    ``weights=True``: :data:`WEIGHTS` (attention weights are always on [0, 1]); otherwise the signed
    scale over the largest finite |entry| of all of them (:func:`signed_scale`).
    """
    return WEIGHTS if weights else signed_scale(*matrices)


def format_number(x: float, digits: int = 2) -> str:
    """A number for a table cell: ``2``, ``0.5``, ``-1.25``, ``−∞``, ``1.23e+05``.

    :func:`helpers.numbers.number_text` with trailing zeros dropped, and a value that is not zero but rounds to
    zero shown as ``0.00``, whatever its sign (so it is not mistaken for an exact, masked 0, and never reads
    ``-0.00``); from 10⁵ up, significant digits and an exponent, so that the cell stays narrow.
    """
    return number_text(x, digits, mark_tiny=True)


def fixed_decimals(x: float, digits: int) -> str:
    """``x`` with exactly ``digits`` decimals (``0.50``); a value that rounds to zero loses its sign; ``±∞`` as ``∞`` /
    ``−∞``; magnitudes from 10⁵ up with significant digits and an exponent, so that a cell stays narrow."""
    return number_text(x, digits, trim=False)


def number_format(values, digits: int = 2, fixed: bool | None = None):
    """The one number format of a view (a table, a figure), as a function from a number to its text.

    Every number of one view is written the same way, so that a column of numbers lines up
    and "0.5" never stands next to "0.25":

    - whole numbers (``2``, ``-3``, ``0``) when every finite value is a whole number and
      ``fixed`` is not True (an input matrix of small integers stays easy to read);
    - otherwise exactly ``digits`` decimals for every number (``0.50``, ``1.00``, ``-1.25``).

    A value that rounds to zero is written without a sign (never ``-0.00``); ``±∞`` as
    ``∞`` / ``−∞``; magnitudes from 10⁵ up with significant digits and an exponent (``1e+200``), so a cell stays narrow.

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


# Titles of matrices: math typeset (W^Q raised, X_dec and d_k lowered: helpers.mathtext).
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


def _scale_of(A: np.ndarray, palette, vmin, vmax, scale) -> ColourScale:
    """The colour scale of one view, by the course's rules (see :class:`ColourScale`).

    ``scale`` given: that one. The signed ``palette`` (the default): from ``vmin`` to ``vmax`` when given (both of
    one sign: one-sided from 0; otherwise symmetric, ±max(|vmin|, |vmax|)), else :func:`signed_scale` of the matrix.
    The weights' one: from ``vmin`` to ``vmax``, each defaulting to the finite minimum or maximum.
    """
    if scale is not None:
        if not isinstance(scale, ColourScale):
            raise ValueError(f"scale must be a ColourScale (render.WEIGHTS, render.shared_scale(...)); "
                             f"got {type(scale).__name__}")
        return scale
    palette = DIVERGING[0] if palette is None else palette
    _check_palette(palette)  # an unknown palette is refused before any work
    if palette in DIVERGING:
        ends = [float(v) for v in (vmin, vmax) if v is not None]
        return signed_scale(ends, palette=palette) if ends else signed_scale(A, palette=palette)
    return ColourScale(palette, *_scale_limits(A, vmin, vmax))


def _blocked(A: np.ndarray, mask) -> np.ndarray:
    """True where an entry is masked: ``-inf`` (a masked score), or False in ``mask`` (True = may attend)."""
    blocked = A == -np.inf
    if mask is None:
        return blocked
    try:
        allowed = np.broadcast_to(np.asarray(mask, dtype=bool), A.shape)
    except ValueError:
        raise ValueError(f"mask must have the matrix's shape {A.shape} (True = may attend); "
                         f"got shape {np.shape(mask)}") from None
    return blocked | ~allowed


def _gradient(hue: str, rising: bool = True) -> str:
    """A CSS gradient from the panel's colour (0) to ``hue`` (full strength), or back when not ``rising``: sRGB
    interpolation, as the cells mix their colours."""
    ends = (_PANEL_BG, hue) if rising else (hue, _PANEL_BG)
    return "linear-gradient(to right, {}, {})".format(*ends)


def _swatch(background: str, width: str, text: str = "") -> str:
    return (f'<span style="display:inline-block;width:{width};height:0.9em;line-height:0.9em;text-align:center;'
            f'border:1px solid {theme.BORDER};background:{background};color:{theme.MASKED_FG}">{text}</span>')


def _legend_html(scale: ColourScale, fmt, sz: theme.Sizes, colours: bool = True, masked: bool = False) -> str:
    """The legend under a table: the colour scale's ends (and 0 in the middle of a signed one), and the masked key.

    A constant scale (every entry the same) has no range to show: one swatch and "every entry v".
    """
    esc = _html.escape
    parts = []
    if colours and scale.constant:
        parts.append(_swatch(scale.colour(scale.lo)[0], "1.6em") + f"<span>every entry {esc(fmt(scale.lo))}</span>")
    elif colours and scale.signed:
        # Only the sides the scale has: a one-sided scale shows one hue, from 0 (the panel's colour) to its end.
        below, above = scale.sides
        neg, pos = PALETTES[scale.palette]
        width = "3.5em" if below and above else "7em"
        if below:
            parts.append(f"<span>{esc(fmt(scale.lo))}</span>{_swatch(_gradient(neg, rising=False), width)}")
        parts.append(f"<span>{esc(fmt(0.0))}</span>")
        if above:
            parts.append(f"{_swatch(_gradient(pos), width)}<span>{esc(fmt(scale.hi))}</span>")
    elif colours:
        parts.append(f"<span>{esc(fmt(scale.lo))}</span>{_swatch(_gradient(PALETTES[scale.palette][0]), '7em')}"
                     f"<span>{esc(fmt(scale.hi))}</span>")
    if masked:
        gap = '<span style="width:1em"></span>' if parts else ""
        parts.append(f'{gap}{_swatch(theme.MASKED_FILL, "1.6em", MASKED_TEXT)}<span>{esc(MASKED_LEGEND)}</span>')
    if not parts:
        return ""
    return (f'<div style="display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin-top:4px;'
            f'font-size:{sz.small};color:{_MUTED_FG}">{"".join(parts)}</div>')


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
        (:mod:`helpers.highlight`) lights what a cell comes from and feeds. A table shown once goes without.
    focusable : bool
        Also let every number and row label take the keyboard focus (``tabindex="0"``), so that the highlighting
        follows the focus as the pointer (implies ``linked``).

    Returns
    -------
    str : an HTML fragment with inline styles only.
    """
    A = _as_matrix(M)
    n, m = A.shape
    rows = labels_or_default(row_labels, n, "", "row_labels")
    cols = labels_or_default(col_labels, m, "", "col_labels")
    colour_scale = _scale_of(A, palette, vmin, vmax, scale)
    blocked = _blocked(A, mask)
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
    parts += _header_rows(cols, row_axis, col_axis, extra_header, sz, linked, turned)
    hl = tuple(int(v) for v in highlight) if highlight is not None else None
    levels = colour_scale.levels(A)
    eased = _eased_from(("matrix", str(title), tuple(rows), tuple(cols), colour_scale.palette), levels, blocked) \
        if linked else None
    parts += _body_rows(A, rows, levels, blocked, colour_scale.palette, fmt, hl, extra_vals, sz,
                        linked, focusable, eased)
    parts.append("</table>")
    if eased is not None and eased.any():
        parts.append(f"<style>{theme.COLOUR_EASING_CSS}</style>")
    parts.append(_legend_html(colour_scale, fmt, sz, colours=legend, masked=bool(blocked.any())))
    if note:
        note_style = f"margin-top:3px;font-size:{sz.small};color:{_MUTED_FG}"
        parts.append(f'<div style="{note_style}">{_html.escape(str(note))}</div>')
    parts.append("</div>")
    return "".join(parts)


# Colour that eases in: a live view (``linked``) remembers the levels it showed last, per view (its title, labels and
# palette), and marks each cell whose colour changed with the colour it had (theme.COLOUR_EASING_CSS starts the new
# cell there). Only for a change made by the learner in the page: whatever a cell's run draws (what a stored notebook
# keeps) is never marked, so a stored notebook is the same with motion on or off.
_LAST_LEVELS: dict = {}
_NOT_EASED = np.iinfo(np.int64).min
_IN_CELL = {"running": False, "watching": False}


def _watch_cells() -> None:
    """Follow the kernel's cell runs (IPython's pre- and post-run events), once."""
    if _IN_CELL["watching"]:
        return
    _IN_CELL["watching"] = True
    try:
        from IPython import get_ipython
    except ImportError:
        return
    ip = get_ipython()
    if ip is None:
        return
    ip.events.register("pre_run_cell", lambda *_: _IN_CELL.update(running=True))
    ip.events.register("post_run_cell", lambda *_: _IN_CELL.update(running=False))
    _IN_CELL["running"] = True  # the first view is drawn by a cell that is running now


def _eased_from(key, levels: np.ndarray, blocked: np.ndarray) -> np.ndarray | None:
    """The level each cell of a live view eases in from (``_NOT_EASED``: none), or None when nothing eases: the first
    drawing of the view, a new shape, ``COURSE_ANIMATION=off``, or a drawing made while a cell runs."""
    _watch_cells()
    before = _LAST_LEVELS.get(key)
    now = np.where(blocked, _NOT_EASED, levels).astype(np.int64)
    _LAST_LEVELS[key] = now
    if before is None or before.shape != now.shape or _IN_CELL["running"] or not theme.motion_allowed():
        return None
    return np.where((before != now) & (before != _NOT_EASED) & (now != _NOT_EASED), before, _NOT_EASED)


def _from_style(palette: str, level: int) -> str:
    bg, fg = level_colour(palette, level, True)
    return f"--from-bg:{bg};--from-fg:{fg};"


def _label_style(sz: theme.Sizes) -> str:
    """The style of a row or column label cell."""
    return f"padding:{sz.pad};color:{_LABEL_FG};background:{theme.TABLE_PANEL};font-weight:600;"


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


def _header_rows(cols: list[str], row_axis, col_axis, extra_header: str | None, sz: theme.Sizes,
                 linked: bool = False, turned: bool = False) -> list[str]:
    """The column axis caption (if any) and the row of column labels, with the row axis caption in its corner; the
    labels turned on their side when ``turned``."""
    esc = _html.escape
    lab = _label_style(sz)
    label_style = (f"padding:{sz.pad};background:{theme.TABLE_PANEL};{_TURNED}" if turned
                   else f"{lab}text-align:center")
    turned_row = f' style="{_TURNED_ROW}color:{_LABEL_FG};font-weight:600"' if turned else ""
    rows = []
    if col_axis:
        span = len(cols) + (1 if extra_header is not None else 0)
        rows.append(
            f'<tr><td class="matrix-corner" style="{lab}"></td><th colspan="{span}" style="{lab}text-align:center;'
            f'font-weight:400;font-style:italic;color:{_MUTED_FG}">{math_html(col_axis)}</th></tr>'
        )
    # An empty corner is a data cell, not a header: a header cell without text names nothing (axe:
    # empty-table-header). The class keeps it apart from the matrix's own cells.
    corner_tag = "th" if row_axis else 'td class="matrix-corner"'
    corner = math_html(row_axis) if row_axis else ""
    head = [f'<tr{turned_row}><{corner_tag} style="{lab}text-align:left;white-space:nowrap;'
            f'font-weight:400;font-style:italic;color:{_MUTED_FG}">{corner}</{corner_tag.split()[0]}>']
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


def _body_rows(A: np.ndarray, rows: list[str], idx: np.ndarray, blocked: np.ndarray, palette: str, fmt, highlight,
               extra_vals, sz: theme.Sizes, linked: bool = False, focusable: bool = False,
               eased: np.ndarray | None = None) -> list[str]:
    """One table row per matrix row: its label, each number on its colour (a ``blocked`` entry as a grey hatched
    masked "—"), the ``highlight`` (i, j) cell outlined, and the uncoloured extra value. When ``linked``, rows are
    marked ``data-row``, cells ``data-col`` (and ``tabindex`` when ``focusable``)."""
    lab = _label_style(sz)
    opening = _td_openings(palette, sz.pad)
    plain_td = (f'<td style="padding:{sz.pad};background:{theme.TABLE_PANEL};color:{_PANEL_FG};'
                f'border-left:2px solid {theme.BORDER}">')
    masked_td = (f'<td style="padding:{sz.pad};background:{theme.MASKED_FILL};color:{_MASKED_FG};text-align:center" '
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
                if eased is not None and eased[i, j] != _NOT_EASED:
                    cell = cell.replace('style="', f'style="{_from_style(palette, int(eased[i, j]))}', 1)
                row.append(cell + marks[j] + fmt(Ai[j]) + "</td>")
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
    mats = [_as_matrix(M) for M in matrices]
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
    key = _legend_html(scale, fmt, theme.sizes(large)) if legend else ""
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
    """
    if palette not in SEQUENTIAL:
        raise ValueError(f"palette of attention weights must be one of {list(SEQUENTIAL)}; got {palette!r}")
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
    )



def linked_matrix_html(M, *args, **kwargs) -> str:
    """:func:`matrix_html` with the row and column marks of the linked highlighting: a live widget's view."""
    return matrix_html(M, *args, **{"linked": True, **kwargs})


def linked_weights_html(weights, *args, **kwargs) -> str:
    """:func:`attention_weights_html` with the row and column marks of the linked highlighting: a live widget's
    view."""
    return attention_weights_html(weights, *args, **{"linked": True, **kwargs})

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
        # True: shown as SVG (diagram_svg_html), its lines and text sharp at any size; a diagram of boxes and words is.
        vector = False

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

        if getattr(fig, "vector", False):
            return diagram_svg_html(fig, fig.alt or "a figure")
        if theme.is_themed(fig):
            return figure_svg_html(fig)
        density, zoom = theme.figure_resolution()
        # A figure laid out by its layout engine (the course's are constrained) already fits its paper, whose border
        # is drawn just inside the edge: drawn as it is (figure_png). Another is cropped to its contents, as Jupyter
        # shows figures.
        if fig.get_layout_engine() is not None:
            png = figure_png(fig, density)
        else:
            png = print_figure(fig, "png", bbox_inches="tight", dpi=fig.dpi * density)
        png = smaller_png(png)
        data = base64.b64encode(png).decode("ascii")
        alt = _html.escape(fig.alt or "a figure", quote=True)
        return f'<img alt="{alt}"{_img_width(_png_width(png), density, zoom)} src="data:image/png;base64,{data}">'

    # Most specific type wins in IPython's look-up, whatever the inline backend registers for Figure later.
    formatters["text/html"].for_type(cls, as_html)
    formatters["image/png"].for_type(cls, lambda fig: None)


def _png_width(png: bytes) -> int:
    """The width in pixels of a PNG image, from its header (IHDR: the 4 bytes after the signature and the chunk's
    length and type)."""
    return int.from_bytes(png[16:20], "big")


def _img_width(pixels: int, density: float, zoom: float) -> str:
    """The ``width`` attribute of an image drawn ``density`` times denser than its figure, shown ``zoom`` times
    larger: none at (1, 1), where the image is shown at its own size."""
    if density == 1 and zoom == 1:
        return ""
    return f' width="{round(pixels * zoom / density)}"'


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


def draw_figure(fig, target, fmt: str = "png", dpi: float | None = None, metadata: dict | None = None) -> None:
    """Draw ``fig`` once, whole (not cropped), through its own canvas of ``fmt`` ("png": Agg, or "svg") into
    ``target`` (a path or a binary file), at ``dpi`` (default: the figure's own).

    Not pyplot, so it is safe inside a widget while a cell runs. ``savefig`` and IPython's ``print_figure`` would lay
    a figure with a layout engine (the course's are constrained) out once more before drawing it (a sixth of the
    time); such a figure already fits its paper, border included.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    own_dpi = fig.dpi
    if dpi is not None:
        fig.set_dpi(dpi)  # an SVG's images (a heatmap's cells) are sampled at the figure's dpi too
    try:
        if fmt == "png":
            FigureCanvasAgg(fig).print_png(target, metadata=metadata)
        elif fmt == "svg":
            FigureCanvasSVG(fig).print_svg(target, metadata=metadata)
        else:
            raise ValueError(f"fmt must be 'png' or 'svg'; got {fmt!r}")
    finally:
        fig.set_dpi(own_dpi)


def figure_png(fig, density: float = 1.0) -> bytes:
    """A matplotlib figure as PNG bytes, with no timestamp in them (the same figure gives the same bytes).

    Drawn once by :func:`draw_figure`. ``density`` times the figure's dpi (2: twice as many pixels each way, for a
    HiDPI screen).
    """
    import io

    buffer = io.BytesIO()
    draw_figure(fig, buffer, dpi=None if density == 1 else fig.dpi * density, metadata={"Software": None})
    return buffer.getvalue()


# Ids matplotlib gives the groups of an SVG ("figure_1", "patch_3", "text_12"): the same in every figure, so two inline
# on one page would repeat them. An artist's own gid ("flow-step-QKV") becomes a class instead.
_SVG_NAMED_GROUP = re.compile(r'<g id="([^"]*)"')
_SVG_AUTO_ID = re.compile(r"[A-Za-z0-9.]+_\d+")
_SVG_LONG_NUMBER = re.compile(r"(\d\.\d)\d+")
_SVG_FONT_LIST = re.compile(r"font-family: ('[^']+')(?:, '[^']+')*(?:, sans-serif)?")
_SVG_FALLBACK_FONTS = "Verdana, Arial, sans-serif"


def figure_svg(fig) -> str:
    """A matplotlib figure as SVG markup with its text as text (``<text>``, in the figure's fonts, falling back to the
    reader's sans-serif), not drawn as outlines: sharp at any size, and as large on the screen as its font size times
    the scale the page shows it at. No date, and ids that depend on the figure alone: the same figure gives the same
    text (a stored notebook is reproducible)."""
    import io

    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "attention-course"}):
        draw_figure(fig, buffer, fmt="svg", metadata={"Date": None, "Creator": None})
    svg = buffer.getvalue().decode("utf-8")
    svg = svg[svg.index("<svg"):]                                    # no XML declaration or DOCTYPE inside HTML
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, flags=re.S)
    # Smaller with nothing lost to the eye: coordinates to a tenth of a point (a seventh of a pixel), and the fallback
    # fonts named as readers' machines have them (matplotlib lists ten, most of them nowhere).
    svg = _SVG_LONG_NUMBER.sub(r"\1", svg)
    svg = _SVG_FONT_LIST.sub(lambda m: f"font-family: {m[1]}, {_SVG_FALLBACK_FONTS}", svg)
    # Font names unquoted (CSS allows a name made of words), so that attributes can be single-quoted below; and one
    # line: the line breaks inside paths and between elements mean nothing.
    svg = re.sub(r'style="[^"]*"', lambda m: m[0].replace("'", ""), svg)
    svg = re.sub(r">\s+<", "><", re.sub(r"\s*\n\s*", " ", svg))
    svg = _SVG_NAMED_GROUP.sub(lambda m: "<g" if _SVG_AUTO_ID.fullmatch(m[1]) else f'<g class="{m[1]}"', svg)
    svg = _shared_text_style(svg)
    # Attributes in single quotes: a notebook stores the SVG in a JSON string, where every double quote takes two
    # characters (font names are unquoted above, so no value holds a single quote).
    return re.sub(r'(\s[\w:-]+)="([^"\']*)"', r"\1='\2'", svg)


def _shared_text_style(svg: str) -> str:
    """Say the font family and colour most of the text has once, in the SVG's style sheet, instead of on each text and
    each character of a formula (a formula is one ``<tspan>`` per character)."""
    from collections import Counter

    styles = re.findall(r'<(?:text|tspan)\b[^>]*style="([^"]*)"', svg)
    common = {}
    for prop in ("font-family", "fill"):
        values = Counter(m[1] for st in styles for m in re.finditer(rf"(?:^|; ){prop}: ([^;]+)", st))
        if values:
            common[prop] = values.most_common(1)[0][0]
    if not common:
        return svg

    def trim(m):
        kept = [d for d in m[2].split("; ") if d.split(": ", 1) not in ([p, v] for p, v in common.items())]
        return f'{m[1]}style="{"; ".join(kept)}"' if kept else m[1].rstrip()

    svg = re.sub(r'(<(?:text|tspan)\b[^>]*?\s)style="([^"]*)"', trim, svg)
    rule = "svg.course-svg text{" + ";".join(f"{p}:{v}" for p, v in common.items()) + "}"
    svg = re.sub(r"<svg\b", '<svg class="course-svg"', svg, count=1)
    return svg.replace("</style>", rule + "</style>", 1)


def diagram_svg_html(fig, alt: str | None = None) -> str:
    """A figure as vector graphics for a notebook's output or an HTML widget, with its alt text (``alt``, else
    ``fig.alt``).

    In the lecture mode (live, stored nowhere) the ``<svg>`` element itself, shown 1.4 times larger like every figure
    there (:func:`helpers.theme.figure_resolution`) and never wider than its column: its text is the page's text, so
    the lecture tests can measure how large it is projected. Elsewhere an ``<img>`` of the SVG, which JupyterLab shows
    even in a notebook it does not trust (its sanitizer removes inline SVG), as do the static site and GitHub.
    """
    alt = _html.escape(alt or getattr(fig, "alt", "") or "a figure", quote=True)
    svg = figure_svg(fig)
    width_pt = float(re.search(r"<svg[^>]*\bwidth='([0-9.]+)pt'", svg)[1])
    _, zoom = theme.figure_resolution()
    width = round(width_pt / 72 * fig.dpi * zoom)                    # as wide as its PNG would be (72 points an inch)
    if theme.lecture_mode():
        return re.sub(r"<svg\b[^>]*?(viewBox='[^']*')[^>]*>", lambda m: (
            f'<svg xmlns="http://www.w3.org/2000/svg" {m[1]} width="{width}" class="course-svg course-diagram" '
            f'role="img" aria-label="{alt}" style="max-width:100%;height:auto;display:block">'), svg, count=1)
    # As text, not base64 (a third larger in the stored notebook): only what a data URL or a double-quoted
    # attribute cannot hold is escaped.
    data = svg.replace("%", "%25").replace("#", "%23").replace("&", "&amp;").replace('"', "%22")
    return f'<img alt="{alt}" width="{width}" src="data:image/svg+xml,{data}" style="max-width:100%">'


def figure_img_html(fig, alt: str | None = None) -> str:
    """A figure as an ``<img>`` for an HTML widget, with its alt text: ``alt``, else ``fig.alt``.

    In the lecture mode the image is drawn denser and shown larger (:func:`helpers.theme.figure_resolution`).
    """
    import base64

    if theme.is_themed(fig):
        return figure_svg_html(fig, alt)
    density, zoom = theme.figure_resolution()
    png = figure_png(fig, density)
    data = base64.b64encode(png).decode("ascii")
    alt = _html.escape(alt or getattr(fig, "alt", "") or "a figure", quote=True)
    width = _img_width(int.from_bytes(png[16:20], "big"), density, zoom)  # a PNG's width: bytes 16-19 (IHDR)
    return f'<img alt="{alt}"{width} src="data:image/png;base64,{data}" style="max-width:100%">'


def described_figure(paper: bool = False, **kwargs):
    """A new figure as :func:`helpers.theme.new_figure` makes it, with alt text (``fig.alt``, empty until set).

    Themed by default: no background, its text in the theme's colour, shown as SVG in the page
    (:func:`figure_svg_html`). ``paper=True``: on the course's light paper with a grey border, shown as a PNG.
    """
    cls = _figure_classes()
    with theme.figure_style(paper):
        fig = cls(**kwargs)
    if paper:
        theme.add_border(fig)
    else:
        fig.course_themed = True
    return fig


_SVG_OPENING = re.compile(r"<svg [^>]*>")
_SVG_SIZE = re.compile(r'(width|height)="([0-9.]+)pt"')
_SVG_PROLOG = re.compile(r"\A.*?(?=<svg )", re.S)
_SVG_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_SVG_STYLE = re.compile(r"<defs>\s*<style[^>]*>[^<]*</style>\s*</defs>\s*")
_SVG_GROUP_ID = re.compile(r'<g id="[^"]*"')
_SVG_ID = re.compile(r'id="([^"]+)"')
_SVG_FONT = re.compile(r";? ?font-family: ?[^;\"]*")
_SVG_NUMBERS = re.compile(r'(\b(?:d|x|y|x1|x2|y1|y2|width|height|transform|viewBox|points)=")([^"]*)"')
_SVG_DECIMALS = re.compile(r"(\d+\.\d\d)\d+")
_SVG_NEWLINES = re.compile(r"\s*\n\s*")
_SVG_BETWEEN_TAGS = re.compile(r">\s+<")


_SVG_GROUP = re.compile(r"<g\b[^>]*>|</g>")


def _bare_groups_out(svg: str) -> str:
    """``svg`` without its ``<g>`` elements that have no attributes (they group nothing that shows)."""
    out, last, bare = [], 0, []
    for m in _SVG_GROUP.finditer(svg):
        tag = m.group(0)
        if tag == "</g>":
            drop = bare.pop() if bare else False
        else:
            drop = tag == "<g>"
            bare.append(drop)
        if drop:
            out.append(svg[last:m.start()])
            last = m.end()
    out.append(svg[last:])
    return "".join(out)


def figure_svg_html(fig, alt: str | None = None) -> str:
    """A themed figure (:func:`described_figure`) as an inline ``<svg>`` whose colours follow the page's theme.

    The figure is drawn once as SVG with its text kept as text and its ids salted with a fixed string (the same
    figure gives the same markup), and each colour that stands for a theme colour
    (:data:`helpers.theme.FIGURE_THEME_COLOURS`: the ink, the text on pale cells, the masked greys) becomes that
    colour's CSS variable, so that the text is dark on a light page and light on a dark one. The figure has no
    background: its colour scales (a hue with its strength as alpha) lie over the panel as a table's cells do. The
    text takes the page's sans-serif font. ``alt`` (else ``fig.alt``) names the picture for a screen reader. In the
    lecture mode it is shown larger (:data:`helpers.theme.FIGURE_LECTURE_ZOOM`).
    """
    import io

    import matplotlib

    theme.follow_theme(fig)
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "attention-course"}):
        if fig.get_layout_engine() is not None:
            draw_figure(fig, buffer, "svg", metadata={"Date": None, "Creator": None})
        else:  # cropped to its contents, as Jupyter shows figures
            fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    svg = buffer.getvalue().decode("utf-8")
    svg = _SVG_METADATA.sub("", _SVG_PROLOG.sub("", svg, count=1))
    # Its stylesheet (round line joins for every element) would style the whole page: the root says it instead.
    svg = _SVG_GROUP_ID.sub("<g", _SVG_STYLE.sub("", svg, count=1))
    # Ids left (clip paths, hatches) are referenced; made unique to this figure, as the page holds several.
    tag = hashlib.sha256(svg.encode("utf-8")).hexdigest()[:6]
    for name in set(_SVG_ID.findall(svg)):
        svg = svg.replace(f'id="{name}"', f'id="{name}-{tag}"').replace(f"#{name})", f"#{name}-{tag})")
        svg = svg.replace(f'"#{name}"', f'"#{name}-{tag}"')
    for stands_for, css in theme.FIGURE_THEME_COLOURS.items():
        svg = svg.replace(stands_for, css)
    # Smaller, the same picture: the font and the ink said once on the root (inherited), coordinates to 0.01 pt, no
    # indentation (a stored notebook holds every figure).
    svg = _SVG_FONT.sub("", svg)
    svg = _SVG_NUMBERS.sub(lambda m: m.group(1) + _SVG_DECIMALS.sub(r"\1", m.group(2)) + '"', svg)
    svg = _bare_groups_out(_SVG_BETWEEN_TAGS.sub("><", _SVG_NEWLINES.sub(" ", svg)))
    _, zoom = theme.figure_resolution()
    label = _html.escape(alt or getattr(fig, "alt", "") or "a figure", quote=True)

    def opening(m) -> str:
        tag = _SVG_SIZE.sub(lambda s: f'{s.group(1)}="{float(s.group(2)) * 4 / 3 * zoom:.0f}px"', m.group(0))
        return tag[:-1] + (f' role="img" aria-label="{label}" style="max-width:100%;height:auto;'
                           f'stroke-linejoin:round;stroke-linecap:butt;color:{theme.PANEL_FG};{theme.SANS}">')

    return '<div class="course-figure">' + _SVG_OPENING.sub(opening, svg, count=1).strip() + "</div>"


def heatmap_alt(A: np.ndarray, rows, cols, title=None, blocked=None) -> str:
    """Alt text of a heatmap: what it is, its axes, where each query puts most of its weight, and what is masked."""
    blocked = np.zeros(A.shape, dtype=bool) if blocked is None else blocked
    strongest = []
    for i, r in enumerate(rows):
        row = np.where(np.isfinite(A[i]) & ~blocked[i], A[i], -np.inf)
        if np.all(row == -np.inf):
            strongest.append(f"{r} → every key masked")
            continue
        j = int(np.argmax(row))
        strongest.append(f"{r} → {cols[j]} {format_number(float(A[i, j]))}")
    head = f"{title}: heatmap" if title else "Heatmap"
    n_blocked = int(blocked.sum())
    masked = (f" {n_blocked} {'entry' if n_blocked == 1 else 'entries'} masked (blocked before the softmax)."
              if n_blocked else "")
    return (f"{head} of {len(rows)} queries ({', '.join(rows)}) by {len(cols)} keys ({', '.join(cols)}). "
            f"Largest per query: {'; '.join(strongest)}.{masked}")


def heatmap(weights, row_labels, col_labels, title=None, ax=None, annotate: bool = True, cmap: str | None = None,
            digits: int = 2, vmin=None, vmax=None, scale: str = "weights", mask=None, colorbar: bool = True):
    """Attention weights (or, with ``scale="data"``, any matrix) as a matplotlib heatmap with token labels.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k)
        ``-inf`` entries (masked scores) are masked cells: grey, hatched, labelled "—".
    row_labels : sequence of str, length n_q (queries, down the side)
    col_labels : sequence of str, length n_k (keys, along the top)
    title : str, optional
    ax : matplotlib Axes, optional
        Draw into this axes (a plain figure gets the course's paper and border; a :func:`described_figure` stays
        themed); by default a
        new ``matplotlib.figure.Figure`` (no pyplot state, so it is safe inside widgets and
        under nbval).
    annotate : bool
        Print each number in its cell, in black or white for contrast, all in one format
        (:func:`number_format`; weights always with ``digits`` decimals).
    scale : {"weights", "data"}
        ``"weights"`` (the default): the weights' teal on the fixed [0, 1] scale (:data:`WEIGHTS`), as for
        every view of attention weights in the course, so two heatmaps compare by colour; a
        finite value outside [0, 1] raises ValueError (it is not a weight). ``"data"``: a signed
        matrix (scores, inputs) on the diverging scale centred on 0, from −max|x| to +max|x|.
    cmap : str, optional
        A matplotlib colour map instead of the scale's palette.
    vmin, vmax : float, optional
        Override the ends of the colour scale (two heatmaps compared: pass the same ends).
    mask : array_like of bool, broadcastable to (n_q, n_k), optional
        True where the query may attend. A blocked entry is drawn as a masked cell (grey, hatched,
        "—", not its 0), and a legend under the heatmap says what the hatching means.
    colorbar : bool
        Draw the colour scale beside the heatmap (False: several heatmaps of one figure share one, see
        :func:`heatmaps`).

    Returns
    -------
    matplotlib.figure.Figure
        A :func:`described_figure` (its ``alt`` says what it shows) unless ``ax`` belongs to a plain figure.
        Themed (:func:`helpers.theme.figure_style`): no background, the theme's text colour, shown as SVG
        (:func:`figure_svg_html`), so it reads in JupyterLab's light and dark themes alike; a long title wraps.
    """
    from matplotlib import colormaps

    if scale not in ("weights", "data"):
        raise ValueError(f"scale must be 'weights' or 'data'; got {scale!r}")
    A = _as_matrix(weights)
    n, m = A.shape
    rows = labels_or_default(row_labels, n, "", "row_labels")
    cols = labels_or_default(col_labels, m, "", "col_labels")
    blocked = _blocked(A, mask)
    is_weights = scale == "weights"
    if is_weights:
        finite = A[np.isfinite(A) & ~blocked]
        if finite.size and (finite.min() < -1e-9 or finite.max() > 1 + 1e-9):
            raise ValueError(
                f"heatmap draws attention weights on the fixed [0, 1] scale, but the matrix has values from "
                f"{format_number(finite.min())} to {format_number(finite.max())}; "
                "pass scale='data' to draw another matrix on its own scale"
            )
        colour_scale = WEIGHTS
        if vmin is not None or vmax is not None:
            colour_scale = ColourScale("weights", 0.0 if vmin is None else vmin, 1.0 if vmax is None else vmax)
    else:
        ends = [float(v) for v in (vmin, vmax) if v is not None]
        colour_scale = signed_scale(ends if ends else np.where(blocked, np.nan, A))
    cm, lo, hi = colour_scale.colormap()
    if cmap is not None:
        cm = colormaps[cmap]
    if hi <= lo:  # a constant matrix: its one value in the middle of a scale one unit wide
        lo, hi = lo - 0.5, hi + 0.5
    themed = ax is None or theme.is_themed(ax.figure)
    with theme.figure_style(paper=not themed):
        if ax is None:
            # Wide enough for the masked key under the heatmap, when there is one.
            fig = described_figure(figsize=(max(3.8 if blocked.any() else 3.0, 0.6 * m + 2.0),
                                            max(2.5, 0.5 * n + 1.5)), layout="constrained")
            ax = fig.add_subplot()
        else:
            fig = ax.figure
            if not themed:  # a plain figure is shown as a PNG: on the course's paper
                theme.add_border(fig)
            theme.style_axes(ax)
        # Masked cells are drawn over the image (_hatch_masked); the image leaves them clear.
        cm = cm.with_extremes(bad=(0, 0, 0, 0))
        im = ax.imshow(np.ma.masked_array(A, blocked | ~np.isfinite(A)), cmap=cm, vmin=lo, vmax=hi, aspect="auto",
                       interpolation="nearest")
        ax.set_xticks(range(m), cols, rotation=45 if max((len(c) for c in cols), default=0) > 3 else 0)
        ax.set_yticks(range(n), rows)
        ax.xaxis.set_ticks_position("top")
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("Keys →")
        ax.set_ylabel("Queries ↓")
        if title:
            ax.set_title(_wrapped_title(str(title), ax), pad=12)
        # No label on the colour bar: its ticks (0.0 to 1.0 for weights) say the scale, and a rotated label
        # would add about 4 KB to every stored figure.
        if colorbar:
            fig.colorbar(im, ax=ax)
        if blocked.any():
            _hatch_masked(ax, blocked)
        if annotate:
            fmt = number_format(A[~blocked], digits, fixed=is_weights)
            for i in range(n):
                for j in range(m):
                    v = A[i, j]
                    if blocked[i, j]:
                        text, colour = MASKED_TEXT, _FIG_MASKED_FG
                    elif np.isfinite(v):
                        text, colour = fmt(v), _figure_cell_ink(colour_scale, v) if cmap is None else "#000000"
                    else:
                        text, colour = fmt(v), _FIG_MASKED_FG
                    ax.text(j, i, text, ha="center", va="center", color=colour, fontsize=9)
    if hasattr(fig, "alt"):
        # Drawn into a described figure (one of several panels, too): the panel adds its own sentence.
        fig.alt = " ".join(filter(None, [fig.alt, heatmap_alt(A, rows, cols, title, blocked)]))
    return fig


def _figure_cell_ink(scale: ColourScale, v: float) -> str:
    """The colour of a number on a figure's cell, as in the tables: the theme's text while the cell is pale
    (:data:`helpers.theme.FIGURE_CELL_INK`), white once it is strong."""
    level = int(scale.levels(v))
    hue = _hue(scale.palette, level)
    return theme.CELL_INK_STRONG if abs(level) >= theme.ink_turns_at(hue) else theme.FIGURE_CELL_INK


def _wrapped_title(title: str, ax) -> str:
    """``title`` broken into lines no wider than its axes (a title is not laid out: a long one would be cut at the
    figure's edges)."""
    import textwrap

    width_in = ax.get_position().width * ax.figure.get_figwidth()
    # A 'large' (12 pt) title: about 0.55 em a character on average, 72 pt an inch.
    chars = max(12, int(width_in * 72 / (0.55 * 12)))
    return textwrap.fill(title, chars) if "\n" not in title else title


_PANELS_PER_ROW = 4  # more heads than this wrap to a second row: a figure stays about as wide as a slide


def heatmaps(weights, row_labels, col_labels, titles, title=None, annotate: bool = True, digits: int = 2):
    """Several matrices of attention weights (one per head) as heatmaps side by side in one figure, one colour bar.

    Each panel is drawn by :func:`heatmap` (token labels on both axes, Queries ↓ and Keys →, the numbers in the
    cells); all share the fixed [0, 1] scale of weights, so one colour bar beside them serves every panel. Up to
    four panels sit in one row; more wrap to the next rows.

    Parameters
    ----------
    weights : array_like, shape (h, n_q, n_k), or a sequence of h matrices (n_q, n_k)
    row_labels : sequence of str, length n_q;  col_labels : sequence of str, length n_k
    titles : sequence of str, length h, one per panel ("head 1", ...)
    title : str, optional, over the whole figure

    Returns
    -------
    matplotlib.figure.Figure
        A :func:`described_figure`; its ``alt`` names the figure and says, panel by panel, where each query puts
        most of its weight.
    """
    A = np.asarray(weights, dtype=float)
    if A.ndim != 3 or 0 in A.shape:
        raise ValueError(f"weights must be one matrix per panel, shape (h, n_q, n_k); got shape {A.shape}")
    h, n, m = A.shape
    titles = [str(t) for t in titles]
    if len(titles) != h:
        raise ValueError(f"titles must give one title per panel: {h} panels, {len(titles)} titles")
    cols = min(h, _PANELS_PER_ROW)
    rows = -(-h // cols)
    with theme.figure_style():
        fig = described_figure(figsize=(cols * max(2.6, 0.55 * m + 1.6) + 0.8, rows * max(2.5, 0.5 * n + 1.5)),
                               layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False).ravel()
        if title:
            fig.suptitle(title, fontsize="large")
    fig.alt = f"{title}: {h} heatmaps side by side." if title else f"{h} heatmaps side by side."
    for ax, matrix, panel_title in zip(axes, A, titles):
        heatmap(matrix, row_labels, col_labels, title=panel_title, ax=ax, annotate=annotate, digits=digits,
                colorbar=False)
    for ax in axes[h:]:
        ax.set_visible(False)  # an empty place in the last row
    with theme.figure_style():
        fig.colorbar(axes[0].images[0], ax=list(axes[:h]), shrink=0.9)
    return fig


def _hatch_masked(ax, blocked: np.ndarray) -> None:
    """Hatch the masked cells of a heatmap and say under it what the hatching means."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    from matplotlib.patches import Patch, Rectangle

    style = dict(facecolor=_FIG_MASKED_BG, edgecolor=_FIG_MASKED_HATCH, hatch="///", linewidth=0)
    for i, j in zip(*np.nonzero(blocked)):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, **style))
    key = dict(handles=[Patch(label=f"{MASKED_TEXT} {MASKED_LEGEND}", **style)], frameon=False, fontsize=9,
               handlelength=1.6)
    fig = ax.figure
    if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        # One key for the whole figure, under every panel (a figure of several masked heatmaps explains once).
        if not any(getattr(lg, "get_gid", lambda: None)() == "course-masked-key" for lg in fig.legends):
            fig.legend(loc="outside lower center", **key).set_gid("course-masked-key")
    else:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), borderaxespad=0.3, **key)
