"""Colour scales: which colour a number gets, the legends that say it, and the masked key.

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
- matrices the text compares share one scale (:func:`shared_scale`).

The hues (teal, orange, blue; :mod:`helpers.look.theme`) stay apart for the common colour-vision
deficiencies. Every cell carries its own background *and* a text colour that reads on it in both
themes, and every cell shows its number, so nothing depends on seeing colour.
"""

from __future__ import annotations

import html as _html
import math

import numpy as np

from helpers.look import theme

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
    "colour_map",
    "level_colour",
    "blocked_entries",
    "scale_of",
    "legend_html",
    "level_hue",
]

# The course's colour scales, one per meaning (the hues and the mixing live in helpers.look.theme): "weights", attention
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
# The panel's colour (0 on every scale) and the legend's muted text, from helpers.look.theme.
_PANEL_BG = theme.PANEL_BG
_MUTED_FG = theme.MUTED_FG


def _check_palette(palette: str) -> None:
    if palette not in PALETTES:
        raise ValueError(f"palette must be one of {sorted(PALETTES)}; got {palette!r}")


def level_hue(palette: str, level: int) -> str:
    """The hue of a level of the palette: the first hue below 0, the last at and above."""
    hues = PALETTES[palette]
    return hues[0] if level < 0 else hues[-1]


def level_colour(palette: str, level: int, in_table: bool = False) -> tuple[str, str]:
    """Background and text colour (CSS) of a level: strength ``|level|`` / :data:`helpers.look.theme.SCALE_STEPS` of the
    palette's hue over the panel; level 0 is the panel's own colour in every theme. ``in_table``: for a cell of a
    table that sets :data:`helpers.look.theme.TABLE_COLOURS` (the same colours, shorter)."""
    hue = level_hue(palette, level)
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


def _scale_limits(A: np.ndarray, vmin, vmax) -> tuple[float, float]:
    finite = A[np.isfinite(A)]
    lo = float(vmin) if vmin is not None else (float(finite.min()) if finite.size else 0.0)
    hi = float(vmax) if vmax is not None else (float(finite.max()) if finite.size else 1.0)
    return lo, hi


def scale_of(A: np.ndarray, palette, vmin, vmax, scale) -> ColourScale:
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


def blocked_entries(A: np.ndarray, mask) -> np.ndarray:
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


def legend_html(scale: ColourScale, fmt, sz: theme.Sizes, colours: bool = True, masked: bool = False) -> str:
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

