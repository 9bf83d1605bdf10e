"""The course's look in one place: fonts, sizes, colours, the error style and small HTML builders.

Every widget and rendered table takes its fonts and sizes from :func:`sizes` (normal
or ``large``, the projector size), its panel and text colours from the constants
below, and its error box from :func:`error_html`. Panel and text colours are
JupyterLab's CSS variables with a light fallback (for static HTML exports, Voila and
other front-ends that do not define them), so the look follows JupyterLab's theme
from this one module: in JupyterLab Dark every panel, table, trace and error box is
dark with light text. Colours that have no theme variable of their own (a tinted error
box, a readable green) are mixed from theme variables with CSS ``color-mix``.

Colour scales (what a number's colour says) are here too: every scale runs from the panel's
own background (0: no colour, in the light and the dark theme alike) to one hue at full
strength (:data:`WEIGHT_HUE`, :data:`NEGATIVE_HUE`, :data:`POSITIVE_HUE`);
:func:`scale_fill` and :func:`scale_ink` give a cell's background and text as CSS,
:func:`scale_rgba` the same colour for a figure, which lays it over the same panel.
A colour that changes in a live view eases in over :data:`COLOUR_EASE_MS`
(:data:`COLOUR_EASING_CSS`), unless the reader asks for reduced motion or
``COURSE_ANIMATION=off``.

matplotlib figures are images and cannot read CSS, so they take one of two routes. A
*themed* figure (:func:`figure_style`, every heatmap) has no background of its own and
draws its text in :data:`FIGURE_INK`, a colour that :func:`helpers.look.render.figure_svg_html`
turns into the theme's text colour when it shows the figure as SVG in the page. A *paper*
figure (:func:`add_border`: the data-flow diagrams, the model's thumbnails) is a PNG on an
opaque light paper with dark text and a mid-grey border, readable on a light page and on a
dark one alike.
"""

from __future__ import annotations

import html as _html
import math
import os
from dataclasses import dataclass

from helpers.look.mathtext import math_html

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
    "FIGURE_INK",
    "FIGURE_CELL_INK",
    "FIGURE_HATCH",
    "FIGURE_THEME_COLOURS",
    "FIGURE_RC",
    "PAPER_RC",
    "WEIGHT_HUE",
    "NEGATIVE_HUE",
    "POSITIVE_HUE",
    "SCALE_STEPS",
    "CELL_INK",
    "CELL_INK_STRONG",
    "scale_fill",
    "scale_ink",
    "scale_rgba",
    "ink_turns_at",
    "COLOUR_EASE_MS",
    "COLOUR_EASING_CSS",
    "motion_allowed",
    "is_themed",
    "follow_theme",
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


# --------------------------------------------------------------------------- colour scales

# Each scale runs from the panel's background (strength 0: no colour at all) to one hue at full strength, mixed in
# sRGB: a cell of strength t is t of the hue over 1 − t of the panel, in the light theme and the dark one alike. The
# three hues differ from each other, from the highlight and from the masked grey, and stay apart for the common
# colour-vision deficiencies (teal, orange, blue). All three are equally dark (WCAG luminance 0.15), so a strength
# looks as strong in every scale, white text reads on each at 5:1, and in the dark theme the full hue stands 3:1
# from the panel.
WEIGHT_HUE = "#007a74"    # teal: attention weights, 0 to 1
NEGATIVE_HUE = "#a8550a"  # orange: below 0 on the signed scale
POSITIVE_HUE = "#1f6fb4"  # blue: above 0 on the signed scale
# Strengths 0, 1/255, ..., 1: one per level of an 8-bit alpha channel, so that a figure's pixel (the hue with that
# alpha, over the same panel) is exactly the table cell's colour.
SCALE_STEPS = 255
# The text on a cell: the theme's strongest text colour (black on a light panel, white on a dark one) while the cell
# is pale, white once it is strong (from :func:`ink_turns_at`).
CELL_INK = "var(--jp-ui-font-color0, #000000)"
CELL_INK_STRONG = "#ffffff"
# The light panel the fallbacks describe (JupyterLab Light's --jp-layout-color1), where the text turns white.
_LIGHT_PANEL = "#ffffff"


def hex_rgb(colour: str) -> tuple[float, float, float]:
    """A ``#rrggbb`` colour as (r, g, b) in [0, 1]."""
    return tuple(int(colour[k:k + 2], 16) / 255 for k in (1, 3, 5))


def luminance(rgb) -> float:
    """WCAG relative luminance of an sRGB colour with components in [0, 1]."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    """WCAG contrast ratio of two sRGB colours (components in [0, 1])."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def mix(hue: str, step: int, panel: str = _LIGHT_PANEL) -> tuple[float, float, float]:
    """The colour a cell of strength ``step`` / :data:`SCALE_STEPS` shows over ``panel`` (both ``#rrggbb``)."""
    t = step / SCALE_STEPS
    return tuple(t * h + (1 - t) * p for h, p in zip(hex_rgb(hue), hex_rgb(panel)))


def _ink_turns_at(hue: str) -> int:
    black, white = (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    return next((k for k in range(SCALE_STEPS + 1)
                 if contrast(white, mix(hue, k)) >= contrast(black, mix(hue, k))), SCALE_STEPS + 1)


_INK_TURNS: dict[str, int] = {}


def ink_turns_at(hue: str) -> int:
    """The first strength step whose cell takes white text: on the light panel, from there on white contrasts more
    than black. On the dark panel every step is at most as light as the hue, so the theme's (white) text and the
    white after the turn both read."""
    if hue not in _INK_TURNS:
        _INK_TURNS[hue] = _ink_turns_at(hue)
    return _INK_TURNS[hue]


def scale_fill(hue: str, step: int, panel: str = PANEL_BG) -> str:
    """A cell's background as CSS: strength ``step`` / :data:`SCALE_STEPS` of ``hue`` over the panel; step 0 is the
    panel's own colour (:data:`PANEL_BG`). ``panel``: the panel's colour as CSS (a table names it once, as a custom
    property of its own: :data:`TABLE_COLOURS`)."""
    if step <= 0:
        return panel
    if step >= SCALE_STEPS:
        return hue
    return f"color-mix(in srgb,{hue} {100 * step / SCALE_STEPS:.1f}%,{panel})"


def scale_ink(hue: str, step: int, ink: str = CELL_INK) -> str:
    """The text colour (CSS) on a cell of strength ``step``: :data:`CELL_INK` (or ``ink``) while pale, then white."""
    return CELL_INK_STRONG if step >= ink_turns_at(hue) else ink


# A table of many cells names the panel's colour and the pale cells' ink once, as custom properties on the <table>
# (inherited by its cells), so that each cell's style stays short: a stored notebook holds many tables.
TABLE_PANEL = "var(--cz)"
TABLE_INK = "var(--ck)"
TABLE_COLOURS = f"--cz:{PANEL_BG};--ck:{CELL_INK};"


def scale_rgba(hue: str, step: int) -> tuple[float, float, float, float]:
    """A cell's colour for a figure: ``hue`` with alpha ``step`` / :data:`SCALE_STEPS`, laid over the panel."""
    return (*hex_rgb(hue), step / SCALE_STEPS)


# A colour that changes in a live view eases from its old value to the new one: the view marks each cell whose colour
# changed with its old colours (``--from-bg``, ``--from-fg``: helpers.look.render's live views, which carry this rule
# with them). The view's HTML is replaced as a whole, so the cell is a new element: ``@starting-style`` gives it the old
# colour to start from, and the transition runs to the new one. None when the reader's system asks for reduced motion;
# none marked with ``COURSE_ANIMATION=off`` (:func:`motion_allowed`).
COLOUR_EASE_MS = 150
COLOUR_EASING_CSS = (
    "@media (prefers-reduced-motion:no-preference){"
    f"td[style*='--from-bg']{{transition:background-color {COLOUR_EASE_MS}ms ease-out,"
    f"color {COLOUR_EASE_MS}ms ease-out}}"
    "@starting-style{td[style*='--from-bg']{background-color:var(--from-bg)!important;"
    "color:var(--from-fg)!important}}}"
)


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


def motion_allowed() -> bool:
    """False with ``COURSE_ANIMATION=off`` in the environment (less motion; the test runs set it): no colour eases in
    and no widget paces frames for the eye. The reader's own wish (``prefers-reduced-motion``) is the page's to
    honour (:data:`COLOUR_EASING_CSS`)."""
    return env_flag("COURSE_ANIMATION") is not False


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
                   f"{math_html(hint)}</details>") if hint and not met else ""
    bar = OK_BORDER if met else BORDER
    return (f'<div role="status" style="{panel_style(large)}border-left:4px solid {bar};'
            f'padding:3px 10px;margin:4px 0;line-height:1.4;max-width:60em">'
            f"<div><b>Goal:</b> {math_html(goal)}</div>"
            f"<div>{'✓' if met else '✗'} {math_html(message)}</div>{note}{folded_hint}</div>")

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




def title_html(title) -> str:
    """A title as HTML: escaped, with ``^X`` raised as a superscript (``W^Q``, ``K^T``)."""
    return math_html(title)


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
        text = title_html(value) if tag == "th" else math_html(str(value))
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
        return "".join(f"<div>{math_html(line)}</div>" for line in text.split("\n")) if text else ""

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

# A paper figure is a PNG: it cannot read CSS variables, so it is drawn on opaque light "paper" with dark text, and a
# mid-grey border that marks its edge on a white page (on a dark page the paper itself does). Contrast of the text on
# the paper: 17:1 wherever the figure is shown.
FIGURE_FACE = "#ffffff"
FIGURE_FG = "#1a1a1a"
FIGURE_EDGE = "#8c8c8c"

# A themed figure has no background and draws with these colours, each of which stands for a theme colour: shown as
# SVG in the page (helpers.look.render.figure_svg_html), each becomes its CSS value in FIGURE_THEME_COLOURS, so the text
# follows the theme. Drawn anywhere else (a PNG, a saved file) they are what they look like: near-black text, the
# light theme's greys. Each differs from every colour a figure draws otherwise, so that only they are replaced.
FIGURE_INK = "#0a0b0c"        # text, ticks and frames: the panel's text colour
FIGURE_CELL_INK = "#0c0b0a"   # a number on a pale cell of a scale: CELL_INK, as in the tables
FIGURE_MASKED = "#bdbdbe"     # a masked cell, and ...
FIGURE_HATCH = "#eeeeef"      # ... its stripes: the theme's greys, as MASKED_FILL
FIGURE_THEME_COLOURS = {
    FIGURE_INK: "currentColor",  # the root's colour, PANEL_FG
    FIGURE_CELL_INK: CELL_INK,
    FIGURE_MASKED: "var(--jp-layout-color3, #bdbdbd)",
    FIGURE_HATCH: "var(--jp-layout-color2, #eeeeee)",
}

_INK_RC = ("axes.edgecolor", "axes.labelcolor", "axes.titlecolor", "text.color", "xtick.color", "ytick.color",
           "xtick.labelcolor", "ytick.labelcolor")
FIGURE_RC = {  # a themed figure: no background anywhere, text in FIGURE_INK
    "figure.facecolor": "none",
    "figure.edgecolor": "none",
    "savefig.facecolor": "none",
    "savefig.edgecolor": "none",
    "savefig.transparent": True,
    "axes.facecolor": "none",
    "legend.frameon": False,
    **dict.fromkeys(_INK_RC, FIGURE_INK),
}
PAPER_RC = {  # a paper figure: opaque light paper, dark text
    "figure.facecolor": FIGURE_FACE,
    "figure.edgecolor": FIGURE_EDGE,
    "savefig.facecolor": FIGURE_FACE,
    "savefig.edgecolor": FIGURE_EDGE,
    "savefig.transparent": False,
    "axes.facecolor": FIGURE_FACE,
    **dict.fromkeys(_INK_RC, FIGURE_FG),
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


def figure_style(paper: bool = False):
    """A context in which matplotlib draws the course's figures, whatever the learner's matplotlib style (even
    ``dark_background``).

    Every helper that draws a figure (:func:`helpers.look.render.heatmap`, the model views'
    thumbnails) creates and draws it inside this context.

    By default a *themed* figure (:data:`FIGURE_RC`): no background, text in :data:`FIGURE_INK`, which the page shows
    in the theme's text colour (:func:`helpers.look.render.figure_svg_html`); its colour scales are laid over the panel
    as the tables' are. ``paper=True`` (:data:`PAPER_RC`): dark text on an opaque light paper, for a figure that is
    shown as a PNG (a diagram with light boxes of its own, an image redrawn on every click): 17:1 on any page, in an
    HTML export and on a projector; its grey border (:func:`add_border`) shows where the paper ends on a white page.

    Returns
    -------
    matplotlib's ``rc_context``.
    """
    import matplotlib

    return matplotlib.rc_context(PAPER_RC if paper else FIGURE_RC)


def is_themed(fig) -> bool:
    """True for a themed figure (:func:`new_figure`, :func:`helpers.look.render.described_figure`): shown as SVG whose
    text follows the theme, on the panel's colour."""
    return bool(getattr(fig, "course_themed", False))


def new_figure(paper: bool = False, **kwargs):
    """A ``matplotlib.figure.Figure`` (no pyplot state): themed, or on the course's paper with its grey border.

    Keyword arguments go to ``Figure`` (``figsize``, ``layout``, ...). Draw into it inside
    :func:`figure_style` (with the same ``paper``) so that its text has the matching colour.
    """
    from matplotlib.figure import Figure

    with figure_style(paper):
        fig = Figure(**kwargs)
    if paper:
        add_border(fig)
    else:
        fig.course_themed = True
    return fig


def add_border(fig) -> None:
    """Put ``fig`` on the course's paper (opaque :data:`FIGURE_FACE`) with a grey border round its edge.

    The border is an artist in figure coordinates, not the figure's own edge: a figure shown
    cropped to its contents (``bbox_inches="tight"``: Jupyter's default, and the course's for a
    figure without a layout engine) would lose the figure's edge, whereas an artist is part of
    the contents and stays. Adding it twice is harmless (the second call does nothing).
    """
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    from matplotlib.patches import Rectangle

    fig.course_themed = False
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


def follow_theme(fig) -> None:
    """Give a themed figure's parts that were drawn outside :func:`figure_style` (a notebook's own
    ``ax.imshow``, ``ax.set_title``, ``fig.colorbar`` on a described figure) the themed colours: no background, and
    text, ticks and frames in :data:`FIGURE_INK` wherever they were left in matplotlib's default black."""
    from matplotlib.colors import to_rgba

    def inked(artist) -> None:
        if to_rgba(artist.get_color()) == (0.0, 0.0, 0.0, 1.0):
            artist.set_color(FIGURE_INK)

    fig.set_facecolor("none")
    for ax in fig.axes:
        ticks = [*ax.get_xticklabels(), *ax.get_yticklabels()]
        if all(to_rgba(t.get_color()) == (0.0, 0.0, 0.0, 1.0) for t in ticks):
            style_axes(ax)
        if to_rgba(ax.get_facecolor()) == (1.0, 1.0, 1.0, 1.0):
            ax.set_facecolor("none")
        for text in [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label, *ax.texts]:
            inked(text)
        legend = ax.get_legend()
        for text in legend.get_texts() if legend else ():
            inked(text)
    for text in [*fig.texts, *(lg_text for lg in fig.legends for lg_text in lg.get_texts())]:
        inked(text)
    if fig._suptitle is not None:
        inked(fig._suptitle)


def style_axes(ax) -> None:
    """The figure's own text colours for an axes made outside :func:`figure_style`: themed ink on no background, or
    dark text, ticks and frame on light paper.

    A caller's own axes (``heatmap(..., ax=ax)``) keeps the colours of the style it was
    created in, white ticks under ``dark_background`` for instance, which vanish on the
    course's paper.
    """
    themed = is_themed(ax.figure)
    ink = FIGURE_INK if themed else FIGURE_FG
    ax.set_facecolor("none" if themed else FIGURE_FACE)
    ax.tick_params(colors=ink, labelcolor=ink)
    for side in ax.spines.values():
        side.set_edgecolor(ink)
    for text in (ax.title, ax.xaxis.label, ax.yaxis.label):
        text.set_color(ink)
