"""JupyterLab Dark: the course's panels turn dark with light text, and its figures stay readable.

Colours are read the way the learner sees them: the computed style of the element (its background, or the first
ancestor's that is not transparent) and of its text, with the text's transparency laid over that background. Each
test switches the theme itself and puts JupyterLab Light back afterwards, so the tests run in any order.

Screenshots go to $COURSE_SCREENSHOTS when it is set: dark-02-explorer.png,
dark-02-error.png, dark-05-figures.png, dark-05-block-diagonal.png and light-05-figures.png.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

from course.browser import notebook_paths
from course.widget_pages import (
    editor,
    editor_cells,
    editor_message,
    explorer,
    projections_notebook,
    show_folded,
    type_into_cell,
)

SHOTS = os.environ.get("COURSE_SCREENSHOTS")  # a folder to keep screenshots in, when set
DARK, LIGHT = "JupyterLab Dark", "JupyterLab Light"

JS_SET_THEME = """
async (theme) => {
  await window.jupyterapp.commands.execute('apputils:change-theme', {theme});
}
"""
# The theme is in place once the body says so and the theme's own variables have reached the page.
JS_THEME_IS = """
(light) => document.body.dataset.jpThemeLight === String(light)
  && getComputedStyle(document.body).getPropertyValue('--jp-layout-color1').trim() !== ''
"""
# The colours the learner sees at an element: its own background or the nearest ancestor's that is not
# transparent, and its text colour (possibly with an alpha, laid over that background in Python).
JS_COLOURS = """
(el) => {
  const text = getComputedStyle(el).color;
  let node = el, background = null;
  while (node && node.nodeType === 1) {
    const bg = getComputedStyle(node).backgroundColor;
    if (bg && !/^rgba\\(\\s*0,\\s*0,\\s*0,\\s*0\\s*\\)$|^transparent$/.test(bg)
        && !/\\/\\s*0\\s*\\)$/.test(bg)) { background = bg; break; }
    node = node.parentElement;
  }
  return {text, background: background || getComputedStyle(document.body).backgroundColor};
}
"""


def parse_colour(css: str) -> tuple[float, float, float, float]:
    """A computed CSS colour as (r, g, b, alpha) in [0, 1]: ``rgb(…)``, ``rgba(…)`` or ``color(srgb …)``
    (what Chromium gives for ``color-mix``)."""
    nums = [float(x) for x in re.findall(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?", css.split("(", 1)[1])]
    if css.startswith("color("):
        r, g, b, *a = nums
        return r, g, b, (a[0] if a else 1.0)
    r, g, b, *a = nums
    return r / 255, g / 255, b / 255, (a[0] if a else 1.0)


def luminance(rgb) -> float:
    """WCAG relative luminance of an sRGB colour with components in [0, 1]."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def seen(locator) -> tuple[float, float, float]:
    """(background luminance, text luminance, contrast ratio) of what ``locator`` shows."""
    colours = locator.evaluate(JS_COLOURS)
    bg = parse_colour(colours["background"])
    fg = parse_colour(colours["text"])
    a = fg[3]
    text = tuple(a * f + (1 - a) * b for f, b in zip(fg[:3], bg[:3]))
    lb, lt = luminance(bg), luminance(text)
    hi, lo = max(lb, lt), min(lb, lt)
    return lb, lt, (hi + 0.05) / (lo + 0.05)


def assert_dark_panel(locator, what: str, min_text: float = 0.5) -> None:
    lb, lt, ratio = seen(locator)
    # JupyterLab Dark's panels are #212121 (luminance 0.015) with text at 87 % white (0.75); muted text at 54 %
    # white (0.3); white would be 1.0.
    assert lb < 0.06, f"{what}: background luminance {lb:.3f}, not dark"
    assert lt > min_text, f"{what}: text luminance {lt:.3f}, not light"
    assert ratio >= 4.5, f"{what}: contrast {ratio:.1f}:1, below WCAG AA"


def set_theme(page, theme: str) -> None:
    page.evaluate(JS_SET_THEME, theme)
    page.wait_for_function(JS_THEME_IS, arg=theme != DARK)


@pytest.fixture
def dark(lab):
    """JupyterLab in its Dark theme for one test, Light again afterwards."""
    set_theme(lab.page, DARK)
    try:
        yield lab
    finally:
        set_theme(lab.page, LIGHT)


def screenshot(page, name: str, locator=None) -> None:
    """Keep a screenshot in $COURSE_SCREENSHOTS, if set (to look at what the test saw)."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        (locator or page).screenshot(path=str(Path(SHOTS) / name))


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_explorer_panels_are_dark_with_light_text(dark, path):
    lab = dark
    lab.run_notebook(f"notebooks/{path.name}")
    ex = explorer(lab.notebook, "self")
    ex.scroll_into_view_if_needed()

    # The weights view: its card, a token label, the row-sum cell and the legend's numbers.
    weights = ex.locator(".attn-view-weights")
    card = weights.locator("table").first.locator("xpath=..")  # the card itself, not a transparent wrapper
    assert_dark_panel(card, "weights card")
    rows = weights.locator("tr")  # the "Keys →" caption, the key labels, then one row per query
    assert_dark_panel(rows.nth(0).locator("th").last, "axis caption (muted)", min_text=0.25)
    assert_dark_panel(rows.nth(1).locator("th").nth(1), "key label")
    assert_dark_panel(rows.nth(2).locator("th").first, "query label")
    assert_dark_panel(rows.nth(2).locator("td").last, "row sum cell")
    assert_dark_panel(card.locator(":scope > div").last.locator("span").first, "legend number", min_text=0.25)
    # Heatmap cells keep their palette colours, each with the text colour that contrasts with it.
    for cell in weights.locator("td:not(.matrix-corner)").all()[:6]:
        lb, lt, ratio = seen(cell)
        assert ratio >= 4.5, f"weight cell {cell.inner_text()!r}: contrast {ratio:.1f}:1"

    # The trace box (the arithmetic of one query and one key).
    trace = ex.locator(".attn-trace .course-trace").first
    assert_dark_panel(trace, "trace box")
    screenshot(lab.page, "dark-02-explorer.png")

    # An editor's error box after typing junk, then the valid value back.
    x_editor = editor(ex, "X")
    before = editor_cells(x_editor).first.input_value()
    type_into_cell(x_editor, 0, 0, "1..2x")
    box = editor_message(x_editor).locator("[role=alert]")
    box.wait_for(state="visible")
    lb, lt, ratio = seen(box)
    assert lb < 0.08, f"error box: background luminance {lb:.3f}, not dark"
    assert lt > 0.5 and ratio >= 4.5, f"error box: text luminance {lt:.3f}, contrast {ratio:.1f}:1"
    x_editor.scroll_into_view_if_needed()
    screenshot(lab.page, "dark-02-error.png")
    type_into_cell(x_editor, 0, 0, before)
    box.wait_for(state="detached")


def figure_outputs(lab):
    """The matplotlib figures in the notebook's outputs, in order: themed figures (inline SVG) and paper ones (PNG)."""
    return lab.notebook.locator(".jp-OutputArea-output svg[role=img], .jp-OutputArea-output img")


def light_fraction(png: bytes) -> float:
    """The fraction of a screenshot's pixels that are light (luminance > 0.8)."""
    from PIL import Image

    px = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float) / 255
    lin = np.where(px <= 0.04045, px / 12.92, ((px + 0.055) / 1.055) ** 2.4)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])
    return float((lum > 0.8).mean())


# The colours of a themed figure's text, as the browser computes them (matplotlib's <text> elements).
JS_FIGURE_TEXT = """
(svg) => [...svg.querySelectorAll('text')].slice(0, 12).map(t => getComputedStyle(t).fill)
"""


@pytest.mark.parametrize("path", [p.name for p in notebook_paths() if p.stem.endswith("_patterns")])
def test_figures_follow_the_theme_in_dark_and_light(lab, path):
    """A course figure follows the theme: no background of its own (the page's panel shows through, dark in the dark
    theme) and its text in the theme's text colour, so it reads in both themes; a paper figure (an image) stays
    opaque light paper."""
    lab.run_notebook(f"notebooks/{path}")
    show_folded(lab.notebook)  # several figures wait for a prediction
    figures = figure_outputs(lab)
    # The opened folds draw their figures after the click returns: wait for them (a busy machine takes a while).
    expect(figures.first, "no figure in the notebook").to_be_attached()
    themed = lab.notebook.locator(".jp-OutputArea-output svg[role=img]")
    expect(themed.first, "no themed figure in the notebook").to_be_attached()
    first_cell = figures.first.locator("xpath=ancestor::div[contains(@class, 'jp-Cell')][1]")
    shares = {}
    try:
        for theme, dark in ((DARK, True), (LIGHT, False)):
            set_theme(lab.page, theme)
            for k in range(themed.count()):
                fig = themed.nth(k)
                fig.scroll_into_view_if_needed()
                assert fig.get_attribute("aria-label"), f"figure {k} has no name"
                lb, _, _ = seen(fig)
                assert (lb < 0.06) == dark, f"figure {k}: background luminance {lb:.3f} in {theme}"
                background = parse_colour(fig.evaluate(JS_COLOURS)["background"])
                for fill in fig.evaluate(JS_FIGURE_TEXT):
                    text = parse_colour(fill)
                    if text[:3] == (1.0, 1.0, 1.0) and not dark:
                        continue  # a number on a strong cell: white in both themes
                    hi, lo = sorted((luminance(text), luminance(background)), reverse=True)
                    assert (hi + 0.05) / (lo + 0.05) >= 4.5, f"figure {k}: text {fill} on the page in {theme}"
                if k == 0:
                    shares[theme] = light_fraction(fig.screenshot())
            figures.first.scroll_into_view_if_needed()
            screenshot(lab.page, f"{'dark' if dark else 'light'}-07-figures.png", first_cell)
    finally:
        set_theme(lab.page, LIGHT)
    # The same figure is mostly light on the light page and mostly dark on the dark one.
    assert shares[LIGHT] > 0.5 > shares[DARK], shares
