"""Attention weights (or any matrix) as matplotlib heatmaps: the cells in the course's colours, the numbers in them.

A heatmap is a :func:`helpers.look.display_hooks.described_figure` with alt text that says where each query puts most of
its weight. Weights are on the fixed [0, 1] scale (:data:`helpers.look.colour_scales.WEIGHTS`) as in every table, masked
cells grey, hatched and labelled "—", and every number in one format (:func:`helpers.core.numbers.number_format`).
"""

from __future__ import annotations

import numpy as np

from helpers.core.numbers import number_format, number_text
from helpers.look import theme
from helpers.look.colour_scales import (
    MASKED_LEGEND,
    MASKED_TEXT,
    WEIGHTS,
    ColourScale,
    blocked_entries,
    level_hue,
    signed_scale,
)
from helpers.look.display_hooks import described_figure
from helpers.look.tables import as_matrix, labels_or_default

__all__ = ["heatmap", "heatmaps", "heatmap_alt"]

# Masked cells of a themed figure: the theme's greys.
_FIG_MASKED_BG = theme.FIGURE_MASKED
_FIG_MASKED_FG = theme.FIGURE_CELL_INK
_FIG_MASKED_HATCH = theme.FIGURE_HATCH


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
        strongest.append(f"{r} → {cols[j]} {number_text(float(A[i, j]), mark_tiny=True)}")
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
        Themed (:func:`helpers.look.theme.figure_style`): no background, the theme's text colour, shown as SVG
        (:func:`figure_svg_html`), so it reads in JupyterLab's light and dark themes alike; a long title wraps.
    """
    from matplotlib import colormaps

    if scale not in ("weights", "data"):
        raise ValueError(f"scale must be 'weights' or 'data'; got {scale!r}")
    A = as_matrix(weights)
    n, m = A.shape
    rows = labels_or_default(row_labels, n, "", "row_labels")
    cols = labels_or_default(col_labels, m, "", "col_labels")
    blocked = blocked_entries(A, mask)
    is_weights = scale == "weights"
    if is_weights:
        finite = A[np.isfinite(A) & ~blocked]
        if finite.size and (finite.min() < -1e-9 or finite.max() > 1 + 1e-9):
            raise ValueError(
                f"heatmap draws attention weights on the fixed [0, 1] scale, but the matrix has values from "
                f"{number_text(finite.min(), mark_tiny=True)} to {number_text(finite.max(), mark_tiny=True)}; "
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
    (:data:`helpers.look.theme.FIGURE_CELL_INK`), white once it is strong."""
    level = int(scale.levels(v))
    hue = level_hue(scale.palette, level)
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
