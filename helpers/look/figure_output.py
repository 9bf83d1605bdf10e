"""A matplotlib figure as the page shows it: PNG bytes, SVG markup, and HTML for a notebook's output or a widget.

Every figure is drawn once through its own canvas (:func:`draw_figure`, no pyplot state: safe inside a widget while
a cell runs), with no date or random id, so that the same figure gives the same bytes and a stored notebook is
reproducible. Two kinds of SVG share one drawing (:func:`_drawn_svg`): a diagram's (:func:`diagram_svg_html`, an
``<img>`` of it) and a themed figure's (:func:`figure_svg_html`, inline, its colours following the page's theme).
"""

from __future__ import annotations

import hashlib
import html as _html
import re

from helpers.look import theme

__all__ = [
    "draw_figure",
    "figure_png",
    "smaller_png",
    "figure_svg",
    "diagram_svg_html",
    "figure_svg_html",
    "figure_img_html",
    "notebook_figure_html",
]


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


# What the SVG of every figure leaves out: the XML declaration and DOCTYPE (not inside HTML), and its metadata.
_SVG_PROLOG = re.compile(r"\A.*?(?=<svg )", re.S)
_SVG_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_SVG_NEWLINES = re.compile(r"\s*\n\s*")
_SVG_BETWEEN_TAGS = re.compile(r">\s+<")


def _drawn_svg(fig, cropped: bool = False) -> str:
    """``fig`` drawn once as SVG markup for a page: its text kept as text (``<text>``, not outlines), its ids salted
    with a fixed string, no date, no XML prolog, no metadata; whole (:func:`draw_figure`), or ``cropped`` to its
    contents."""
    import io

    import matplotlib

    buffer = io.BytesIO()
    metadata = {"Date": None, "Creator": None}
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "attention-course"}):
        if cropped:
            fig.savefig(buffer, format="svg", bbox_inches="tight", metadata=metadata)
        else:
            draw_figure(fig, buffer, "svg", metadata=metadata)
    svg = buffer.getvalue().decode("utf-8")
    return _SVG_METADATA.sub("", _SVG_PROLOG.sub("", svg, count=1))


def _one_line(svg: str) -> str:
    """``svg`` on one line: the line breaks inside paths and between elements mean nothing."""
    return _SVG_BETWEEN_TAGS.sub("><", _SVG_NEWLINES.sub(" ", svg))


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
    svg = _drawn_svg(fig)
    # Smaller with nothing lost to the eye: coordinates to a tenth of a point (a seventh of a pixel), and the fallback
    # fonts named as readers' machines have them (matplotlib lists ten, most of them nowhere).
    svg = _SVG_LONG_NUMBER.sub(r"\1", svg)
    svg = _SVG_FONT_LIST.sub(lambda m: f"font-family: {m[1]}, {_SVG_FALLBACK_FONTS}", svg)
    # Font names unquoted (CSS allows a name made of words), so that attributes can be single-quoted below; and one
    # line: the line breaks inside paths and between elements mean nothing.
    svg = re.sub(r'style="[^"]*"', lambda m: m[0].replace("'", ""), svg)
    svg = _one_line(svg)
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
    there (:func:`helpers.look.theme.figure_resolution`) and never wider than its column: its text is the page's text,
    so the lecture tests can measure how large it is projected. Elsewhere an ``<img>`` of the SVG, which JupyterLab
    shows even in a notebook it does not trust (its sanitizer removes inline SVG), as do the static site and GitHub.
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

    In the lecture mode the image is drawn denser and shown larger (:func:`helpers.look.theme.figure_resolution`).
    """
    import base64

    if theme.is_themed(fig):
        return figure_svg_html(fig, alt)
    density, zoom = theme.figure_resolution()
    png = figure_png(fig, density)
    data = base64.b64encode(png).decode("ascii")
    alt = _html.escape(alt or getattr(fig, "alt", "") or "a figure", quote=True)
    width = _img_width(_png_width(png), density, zoom)
    return f'<img alt="{alt}"{width} src="data:image/png;base64,{data}" style="max-width:100%">'

_SVG_OPENING = re.compile(r"<svg [^>]*>")
_SVG_SIZE = re.compile(r'(width|height)="([0-9.]+)pt"')
_SVG_STYLE = re.compile(r"<defs>\s*<style[^>]*>[^<]*</style>\s*</defs>\s*")
_SVG_GROUP_ID = re.compile(r'<g id="[^"]*"')
_SVG_ID = re.compile(r'id="([^"]+)"')
_SVG_FONT = re.compile(r";? ?font-family: ?[^;\"]*")
_SVG_NUMBERS = re.compile(r'(\b(?:d|x|y|x1|x2|y1|y2|width|height|transform|viewBox|points)=")([^"]*)"')
_SVG_DECIMALS = re.compile(r"(\d+\.\d\d)\d+")


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
    (:data:`helpers.look.theme.FIGURE_THEME_COLOURS`: the ink, the text on pale cells, the masked greys) becomes that
    colour's CSS variable, so that the text is dark on a light page and light on a dark one. The figure has no
    background: its colour scales (a hue with its strength as alpha) lie over the panel as a table's cells do. The
    text takes the page's sans-serif font. ``alt`` (else ``fig.alt``) names the picture for a screen reader. In the
    lecture mode it is shown larger (:data:`helpers.look.theme.FIGURE_LECTURE_ZOOM`).
    """
    theme.follow_theme(fig)
    # A figure without a layout engine is cropped to its contents, as Jupyter shows figures.
    svg = _drawn_svg(fig, cropped=fig.get_layout_engine() is None)
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
    svg = _bare_groups_out(_one_line(svg))
    _, zoom = theme.figure_resolution()
    label = _html.escape(alt or getattr(fig, "alt", "") or "a figure", quote=True)

    def opening(m) -> str:
        tag = _SVG_SIZE.sub(lambda s: f'{s.group(1)}="{float(s.group(2)) * 4 / 3 * zoom:.0f}px"', m.group(0))
        return tag[:-1] + (f' role="img" aria-label="{label}" style="max-width:100%;height:auto;'
                           f'stroke-linejoin:round;stroke-linecap:butt;color:{theme.PANEL_FG};{theme.SANS}">')

    return '<div class="course-figure">' + _SVG_OPENING.sub(opening, svg, count=1).strip() + "</div>"


def notebook_figure_html(fig) -> str:
    """How a notebook cell shows a described figure (:mod:`helpers.look.display_hooks`): a diagram (``fig.vector``) as
    SVG (:func:`diagram_svg_html`), a themed figure as inline SVG (:func:`figure_svg_html`), any other as an ``<img>``
    of its PNG with its alt text (``fig.alt``), denser and larger in the lecture mode."""
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
