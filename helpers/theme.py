"""The course's look in one place: fonts, sizes, colours, the error style and small HTML builders.

Every widget and rendered table takes its fonts and sizes from :func:`sizes` (normal
or ``large``, the projector size), its panel and text colours from the constants
below, and its error box from :func:`error_html`. Panel and text colours are
JupyterLab's CSS variables with a light fallback (for static HTML exports, Voila and
other front-ends that do not define them), so the look follows JupyterLab's theme
from this one module: in JupyterLab Dark every panel, table, trace and error box is
dark with light text. Colours that have no theme variable of their own (a tinted error
box, a readable green) are mixed from theme variables with CSS ``color-mix``.

matplotlib figures are images and cannot follow a CSS theme, so they take the other
route: :func:`figure_style` draws every figure on an opaque light "paper" with dark
text and a mid-grey border, readable on a light page and on a dark one alike (see its
docstring for why not a transparent figure or grey text).
"""

from __future__ import annotations

import html as _html
import math
import os
import re
from dataclasses import dataclass

__all__ = [
    "MONO",
    "SANS",
    "PANEL_BG",
    "PANEL_FG",
    "MUTED_FG",
    "LABEL_FG",
    "BORDER",
    "ERROR_BG",
    "ERROR_FG",
    "ERROR_BORDER",
    "OK_FG",
    "BAD_CELL_BG",
    "BAD_CELL_FG",
    "HIGHLIGHT",
    "Sizes",
    "sizes",
    "panel_style",
    "error_style",
    "error_html",
    "label_html",
    "heading_html",
    "table_html",
    "BAR_TRACK",
    "bar_style",
    "OK_BORDER",
    "verdict_html",
    "notice_html",
    "MASKED_BG",
    "MASKED_FG",
    "MASKED_FILL",
    "FIGURE_FACE",
    "FIGURE_FG",
    "FIGURE_EDGE",
    "FIGURE_MASKED",
    "FIGURE_RC",
    "figure_style",
    "new_figure",
    "add_border",
    "style_axes",
    "env_flag",
    "lecture_mode",
    "FIGURE_LECTURE_ZOOM",
    "figure_resolution",
]

MONO = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
SANS = "font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;"

# JupyterLab's theme variables, each with the light-theme colour as its fallback.
PANEL_BG = "var(--jp-layout-color1, #ffffff)"
PANEL_FG = "var(--jp-ui-font-color1, #1a1a1a)"
LABEL_FG = "var(--jp-ui-font-color1, #333333)"
MUTED_FG = "var(--jp-ui-font-color2, #595959)"
BORDER = "var(--jp-border-color1, #c8c8c8)"
ERROR_BORDER = "var(--jp-error-color1, #d62728)"
# The error box: the panel's colour tinted with the theme's red. Not --jp-error-color3, which is a light
# pink in the dark theme too (white text on it would be unreadable). Light: a pale pink; dark: a dark red.
# A browser without color-mix drops the declaration and shows the page's own background: still readable.
ERROR_BG = "color-mix(in srgb, var(--jp-error-color1, #d62728) 14%, var(--jp-layout-color1, #ffffff))"
ERROR_FG = "var(--jp-ui-font-color0, #8b0000)"
# Success text: the theme's green pulled towards the text colour, so that it is darker on a light page and
# lighter on a dark one (--jp-success-color0 alone is only 4:1 on the dark theme's panels).
OK_FG = "color-mix(in srgb, var(--jp-success-color0, #1b5e20) 70%, var(--jp-content-font-color0, #000000))"
# A masked (−∞) matrix cell: a neutral grey of the theme, outside every palette, with the theme's text on it.
MASKED_BG = "var(--jp-layout-color3, #d9d9d9)"
MASKED_FG = "var(--jp-ui-font-color1, #333333)"
# A masked cell is hatched as well as grey, so that it cannot be read as a colour of a scale: thin stripes of the
# theme's next grey (light: #eeeeee on #bdbdbd; dark: #424242 on #616161). The text on either stays readable
# (WCAG AA: about 7:1 light, 4.5:1 dark).
MASKED_FILL = ("repeating-linear-gradient(135deg,var(--jp-layout-color3, #bdbdbd) 0 5px,"
               "var(--jp-layout-color2, #eeeeee) 5px 7px)")
# A bad matrix cell: ipywidgets' Text style takes plain colours, not CSS variables.
BAD_CELL_BG = "#ffd6d6"
BAD_CELL_FG = "#8b0000"
HIGHLIGHT = "#ff2d95"  # magenta outline: distinct from every palette colour


def env_flag(name: str) -> bool | None:
    """An on/off setting from the environment: True, False, or None when it is not set."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return None
    return value not in ("0", "false", "no", "off")


def lecture_mode() -> bool:
    """True in the lecture mode (``make present``): Voila runs each kernel with ``VOILA_KERNEL_ID`` set.

    ``COURSE_LECTURE=1`` (or ``0``) in the environment says so explicitly, e.g. for another front-end on a projector.
    """
    flag = env_flag("COURSE_LECTURE")
    return flag if flag is not None else "VOILA_KERNEL_ID" in os.environ


@dataclass(frozen=True)
class Sizes:
    """Font sizes and spacings for one display size (normal or large)."""

    font: str       # body text, table cells, editor cells
    small: str      # notes, legends
    title: str      # a table's or editor's title
    heading: str    # a widget's heading
    trace: str      # monospaced traces
    cell_width: str     # a matrix table's column
    editor_width: str   # a matrix editor's cell
    pad: str        # a table cell's padding
    button: str     # button text (None keeps the front-end's size)


_NORMAL = Sizes(font="13px", small="11px", title="14px", heading="16px", trace="12.5px",
                cell_width="3.6em", editor_width="4.4em", pad="2px 6px", button="")
_LARGE = Sizes(font="20px", small="16px", title="22px", heading="24px", trace="17px",
               cell_width="4.2em", editor_width="5.2em", pad="5px 9px", button="18px")


def sizes(large: bool = False) -> Sizes:
    """The sizes for normal display, or for a projector when ``large``."""
    return _LARGE if large else _NORMAL


def panel_style(large: bool = False) -> str:
    """Inline style of a bordered panel in the theme's colours."""
    return (f"background:{PANEL_BG};color:{PANEL_FG};border:1px solid {BORDER};border-radius:4px;"
            f"font-size:{sizes(large).font};")


def error_style(large: bool = False) -> str:
    """Inline style of an error box."""
    return (f"background:{ERROR_BG};color:{ERROR_FG};border:1px solid {ERROR_BORDER};border-radius:4px;"
            f"padding:4px 8px;margin:4px 0;font-size:{sizes(large).font};line-height:1.35;")



def goal_html(goal: str, met: bool, message: str, hint: str = "", large: bool = False, note: str = "") -> str:
    """A design task's goal line: the goal, ✓ or ✗ with what is still off, a note (HTML) and, while the goal is not
    met, its hint folded."""
    sz = sizes(large)
    folded_hint = (f'<details style="font-size:{sz.small}"><summary style="cursor:pointer">Hint</summary>'
                   f"{_html.escape(hint)}</details>") if hint and not met else ""
    bar = OK_BORDER if met else BORDER
    return (f'<div role="status" style="{panel_style(large)}border-left:4px solid {bar};'
            f'padding:3px 10px;margin:4px 0;line-height:1.4;max-width:60em">'
            f"<div><b>Goal:</b> {_html.escape(goal)}</div>"
            f"<div>{'✓' if met else '✗'} {_html.escape(message)}</div>{note}{folded_hint}</div>")

def error_html(message: str, large: bool = False, note: str | None = None) -> str:
    """An error box: ``message`` (one line per ``\\n``) and an optional quieter ``note`` under it.

    Empty ``message`` gives ``''`` so that a cleared error takes no space.
    """
    if not message:
        return ""
    lines = "".join(f"<div>{_html.escape(line)}</div>" for line in str(message).split("\n"))
    tail = f'<div style="opacity:0.8">{_html.escape(note)}</div>' if note else ""
    return f'<div role="alert" style="{error_style(large)}">{lines}{tail}</div>'


def label_html(text: str, large: bool = False, align: str = "center") -> str:
    """A bold monospaced label (a matrix editor's row or column name)."""
    return (f'<div style="font-weight:600;font-size:{sizes(large).font};text-align:{align};{MONO}'
            f'padding:0 4px;white-space:nowrap">{_html.escape(str(text))}</div>')


def heading_html(text: str, large: bool = False) -> str:
    """A widget's heading."""
    return (f'<div style="font-weight:700;font-size:{sizes(large).heading};margin:4px 0">'
            f"{_html.escape(str(text))}</div>")


_SUP = re.compile(r"\^([A-Za-z0-9]+)")


def title_html(title) -> str:
    """A title as HTML: escaped, with ``^X`` raised as a superscript (``W^Q``, ``K^T``)."""
    return _SUP.sub(r"<sup>\1</sup>", _html.escape(str(title)))


def table_html(header, rows, large: bool = False, align=None, caption: str | None = None) -> str:
    """A plain table of text (already formatted), in the theme's colours.

    Parameters
    ----------
    header : sequence of str or None
        Column headings (escaped); ``None`` for no heading row.
    rows : sequence of sequences of str
        Cell texts, escaped here; a cell given as ``(text, style)`` adds an inline style,
        ``(text, style, tooltip)`` also a tooltip (shown on hover).
    align : sequence of {"left", "right", "center"}, optional
        One per column (default: left for the first, right for the rest).
    caption : str, optional
    """
    sz = sizes(large)
    ncol = len(header) if header is not None else max((len(r) for r in rows), default=0)
    align = list(align) if align is not None else ["left"] + ["right"] * (ncol - 1)
    td = f"padding:{sz.pad};border-bottom:1px solid {BORDER};"

    def cell(tag, k, value):
        style, tip = "", ""
        if isinstance(value, tuple):
            value, style, *tooltip = value
            tip = f' title="{_html.escape(str(tooltip[0]))}"' if tooltip else ""
        a = align[k] if k < len(align) else "right"
        # Headings are titles (W^Q raised); cells are data, shown as given.
        text = title_html(value) if tag == "th" else _html.escape(str(value))
        return f'<{tag} style="{td}text-align:{a};{style}"{tip}>{text}</{tag}>'

    parts = [f'<table style="border-collapse:collapse;margin:4px 0;font-size:{sz.font};color:{PANEL_FG};'
             'font-variant-numeric:tabular-nums">']
    if caption:
        parts.append(f'<caption style="text-align:left;font-weight:700;padding-bottom:2px">'
                     f"{title_html(caption)}</caption>")
    if header is not None:
        # A heading without text is a plain cell: an empty header cell names nothing (axe: empty-table-header).
        parts.append("<tr>" + "".join(cell("th" if str(h) else "td", k, h) for k, h in enumerate(header)) + "</tr>")
    for r in rows:
        parts.append("<tr>" + "".join(cell("td", k, v) for k, v in enumerate(r)) + "</tr>")
    parts.append("</table>")
    return "".join(parts)


# --------------------------------------------------------------------------- bars (weight charts)

BAR_TRACK = "var(--jp-layout-color3, #eeeeee)"  # the empty part of a bar


def bar_style(fraction: float, colour: str, width: str = "7em") -> str:
    """Inline style that draws a horizontal bar in a table cell, left of the cell's text.

    ``fraction`` (clipped to [0, 1]; not finite draws an empty bar) of ``width`` is filled
    with ``colour``. The bar is the cell's background, so a table of bars stays a table of
    text for :func:`table_html`: ``(text, bar_style(0.4, colour))``.
    """
    f = float(fraction)
    pct = 100 * min(max(f, 0.0), 1.0) if math.isfinite(f) else 0.0
    return (f"background:linear-gradient(to right,{colour} {pct:.1f}%,{BAR_TRACK} {pct:.1f}%) "
            f"no-repeat 6px center / {width} 0.9em;padding-left:calc({width} + 12px);white-space:nowrap;")


# --------------------------------------------------------------------------- verdicts (checked answers)

OK_BORDER = "var(--jp-success-color1, #1b7f3b)"


def code_block_html(text: str, large: bool = False) -> str:
    """Text whose columns line up (code, matrices written out): a fixed-width block on the panel's colours that
    keeps its spaces and wraps a line wider than the page instead of widening it, between words."""
    return (f'<pre style="{MONO}background:{PANEL_BG};color:{PANEL_FG};border:1px solid {BORDER};'
            f'border-radius:4px;padding:6px 8px;margin:4px 0;font-size:{sizes(large).trace};white-space:pre-wrap;'
            'word-break:normal;overflow-wrap:break-word">'
            f"{_html.escape(text)}</pre>")


def verdict_html(message: str, correct: bool, large: bool = False, code: str = "", more_html: str = "") -> str:
    """A checked answer's verdict: one line per ``\\n``, with a green (right) or red (not yet) bar.

    The text keeps the panel's colour so that it reads in light and dark themes alike. ``code``, a part of
    ``message`` (a failing example with its matrices), is shown as a fixed-width block (:func:`code_block_html`).
    ``more_html`` (markup, not escaped: a link) goes under the lines. Empty ``message`` gives ``''``.
    """
    if not message:
        return ""

    def divs(text: str) -> str:
        return "".join(f"<div>{_html.escape(line)}</div>" for line in text.split("\n")) if text else ""

    before, found, after = str(message).partition(code) if code else (str(message), "", "")
    if found:  # the lines around the block, without the line breaks that set it apart in the text form
        lines = divs(before.strip("\n")) + code_block_html(found, large) + divs(after.strip("\n"))
    else:
        lines = divs(str(message))
    lines += more_html
    bar = OK_BORDER if correct else ERROR_BORDER
    return (f'<div role="status" style="border-left:4px solid {bar};padding:2px 8px;margin:2px 0;'
            f'color:{PANEL_FG};font-size:{sizes(large).font};line-height:1.45">{lines}</div>')


def notice_html(message: str, large: bool = False) -> str:
    """A change the learner should know of, said as it happens (rows dropped, a value put back in range): the
    panel's text with a bar in the theme's warning colour. Empty ``message`` gives ``''``."""
    if not message:
        return ""
    bar = "var(--jp-warn-color1, #f57c00)"
    return (f'<div role="status" class="course-notice" style="border-left:4px solid {bar};padding:2px 8px;'
            f'margin:2px 0;color:{PANEL_FG};font-size:{sizes(large).small};line-height:1.4">'
            f"{_html.escape(message)}</div>")


# --------------------------------------------------------------------------- matplotlib figures

# A figure is a PNG: it cannot read CSS variables, so it cannot follow the theme. It is drawn on opaque light
# "paper" with dark text instead, and a mid-grey border that marks its edge on a white page (on a dark page the
# paper itself does). Contrast of the text on the paper: 17:1 wherever the figure is shown.
FIGURE_FACE = "#ffffff"
FIGURE_FG = "#1a1a1a"
FIGURE_EDGE = "#8c8c8c"
FIGURE_MASKED = "#d9d9d9"  # a masked (−∞) cell in a figure: light grey, clearly not on the colour scale

FIGURE_RC = {
    "figure.facecolor": FIGURE_FACE,
    "figure.edgecolor": FIGURE_EDGE,
    "savefig.facecolor": FIGURE_FACE,
    "savefig.edgecolor": FIGURE_EDGE,
    "savefig.transparent": False,
    "axes.facecolor": FIGURE_FACE,
    "axes.edgecolor": FIGURE_FG,
    "axes.labelcolor": FIGURE_FG,
    "axes.titlecolor": FIGURE_FG,
    "text.color": FIGURE_FG,
    "xtick.color": FIGURE_FG,
    "ytick.color": FIGURE_FG,
    "xtick.labelcolor": FIGURE_FG,
    "ytick.labelcolor": FIGURE_FG,
}


# In the lecture mode a figure is shown this much larger than in a notebook (its ticks and labels read from the back
# of a room), and drawn with twice as many pixels again, so that it stays sharp on a 2x (HiDPI) screen or projector.
FIGURE_LECTURE_ZOOM = 1.4
_FIGURE_DENSITY = 2.0


def figure_resolution() -> tuple[float, float]:
    """How a figure becomes an image here: (pixels per figure pixel, CSS pixels per figure pixel).

    In a notebook (1, 1): the figure at its own dpi, stored small. In the lecture mode, which runs
    live and stores nothing, (2.8, 1.4): shown 1.4 times larger and drawn at twice the pixel density
    of what is shown, crisp at a device pixel ratio of 2.
    """
    if lecture_mode():
        return FIGURE_LECTURE_ZOOM * _FIGURE_DENSITY, FIGURE_LECTURE_ZOOM
    return 1.0, 1.0


def figure_style():
    """A context in which matplotlib draws the course's figures: readable in light and dark themes.

    Every helper that draws a figure (:func:`helpers.render.heatmap`, the model views'
    thumbnails) creates and draws it inside this context, so figures look the same
    whatever the learner's matplotlib style (even ``dark_background``).

    Why an opaque light figure: a figure is an image, so it cannot follow JupyterLab's
    CSS variables. A transparent background with the default black text disappears on
    a dark page; mid-grey "theme-neutral" text reads poorly on both (about 4:1 on white
    and on JupyterLab Dark's #111) and the colour bar and masked cells would still be
    light. Dark text on white paper reads at 17:1 on any page, in an HTML export and on
    a projector; the figure's grey border (see :func:`new_figure`) shows where the
    paper ends on a white page.

    Returns
    -------
    matplotlib's ``rc_context`` with :data:`FIGURE_RC`.
    """
    import matplotlib

    return matplotlib.rc_context(FIGURE_RC)


def new_figure(**kwargs):
    """A ``matplotlib.figure.Figure`` (no pyplot state) on the course's paper, with its grey border.

    Keyword arguments go to ``Figure`` (``figsize``, ``layout``, ...). Draw into it inside
    :func:`figure_style` so that its text is dark too.
    """
    from matplotlib.figure import Figure

    with figure_style():
        fig = Figure(**kwargs)
    add_border(fig)
    return fig


def add_border(fig) -> None:
    """Give ``fig`` the course's paper (opaque :data:`FIGURE_FACE`) and a grey border round its edge.

    The border is an artist in figure coordinates, not the figure's own edge: a figure shown
    cropped to its contents (``bbox_inches="tight"``: Jupyter's default, and the course's for a
    figure without a layout engine) would lose the figure's edge, whereas an artist is part of
    the contents and stays. Adding it twice is harmless (the second call does nothing).
    """
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    from matplotlib.patches import Rectangle

    fig.set_facecolor(FIGURE_FACE)
    if any(getattr(p, "get_gid", lambda: None)() == "course-border" for p in fig.patches):
        return
    engine = fig.get_layout_engine()
    if isinstance(engine, ConstrainedLayoutEngine):
        # Room between the contents and the border, so that no tick label touches the line.
        pads = engine.get()
        engine.set(w_pad=max(pads["w_pad"], 0.09), h_pad=max(pads["h_pad"], 0.09))
    # Drawn just inside the edge (0.01 inch) so that a figure saved without cropping keeps the whole line.
    width, height = fig.get_size_inches()
    dx, dy = 0.01 / width, 0.01 / height
    fig.patches.append(Rectangle((dx, dy), 1 - 2 * dx, 1 - 2 * dy, transform=fig.transFigure,
                                 fill=False, edgecolor=FIGURE_EDGE, linewidth=1.2, gid="course-border",
                                 figure=fig))


def style_axes(ax) -> None:
    """Dark text, ticks and frame on light paper for an axes made outside :func:`figure_style`.

    A caller's own axes (``heatmap(..., ax=ax)``) keeps the colours of the style it was
    created in, white ticks under ``dark_background`` for instance, which vanish on the
    course's paper.
    """
    ax.set_facecolor(FIGURE_FACE)
    ax.tick_params(colors=FIGURE_FG, labelcolor=FIGURE_FG)
    for side in ax.spines.values():
        side.set_edgecolor(FIGURE_FG)
    for text in (ax.title, ax.xaxis.label, ax.yaxis.label):
        text.set_color(FIGURE_FG)
