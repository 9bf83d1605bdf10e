"""Colour that says what a number means, as the learner sees it in 04_masking, in JupyterLab Light and Dark.

Masked weights are dashes on a grey hatching, not numbers, in the static tables and in the live explorer's weights,
with a key that says what the dash means; the dash reads on both stripes of the hatching in both themes; a weight of
0 and a signed 0 are the panel's own colour in both themes; a weight whose colour changes eases to it over 150 ms,
unless the reader's system asks for less motion. Screenshots go to $COURSE_SCREENSHOTS when it is set:
light-04-masked.png, dark-04-masked.png, light-04-explorer-weights.png, dark-04-explorer-weights.png,
light-04-zeros.png and dark-04-zeros.png.
"""

from __future__ import annotations

import pytest

from course.browser import notebook_paths
from course.widget_pages import explorer, show_folded

from .test_dark import DARK, LIGHT, luminance, parse_colour, screenshot, set_theme

MASKING = [p.name for p in notebook_paths() if p.stem.endswith("_masking")]

# The two stripes of the hatching (the theme's variables) and the dash's colour, as the browser computes them.
JS_MASKED_COLOURS = """
(cell) => {
  const probe = document.createElement('span');
  document.body.appendChild(probe);
  const colour = (v) => { probe.style.color = `var(${v})`; return getComputedStyle(probe).color; };
  const stripes = [colour('--jp-layout-color3'), colour('--jp-layout-color2')];
  probe.remove();
  return {text: getComputedStyle(cell).color, stripes, image: getComputedStyle(cell).backgroundImage};
}
"""


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def check_masked_cells(cells, what: str, dark: bool) -> None:
    assert cells.count() > 0, f"{what}: no masked cell"
    for k in range(min(cells.count(), 4)):
        cell = cells.nth(k)
        assert cell.inner_text().strip() == "—", f"{what}: a masked cell reads {cell.inner_text()!r}"
        seen = cell.evaluate(JS_MASKED_COLOURS)
        assert "repeating-linear-gradient" in seen["image"], f"{what}: a masked cell is not hatched"
        text = parse_colour(seen["text"])
        for stripe in map(parse_colour, seen["stripes"]):
            # The dash's colour (with its alpha laid over the stripe) against each stripe of the hatching.
            a = text[3]
            shown = tuple(a * f + (1 - a) * b for f, b in zip(text[:3], stripe[:3]))
            assert contrast(shown, stripe) >= 4.5, f"{what}: the dash reads at {contrast(shown, stripe):.1f}:1"
            assert (luminance(stripe) < 0.2) == dark, f"{what}: a stripe of luminance {luminance(stripe):.2f}"


@pytest.mark.parametrize("path", MASKING)
def test_masked_weights_are_dashes_on_hatching_in_light_and_dark(lab, path):
    lab.run_notebook(f"notebooks/{path}")
    show_folded(lab.notebook)  # the decoder's weights wait for a prediction
    decoder = lab.notebook.locator("[role=group][aria-label='Decoder: causal mask']").first
    ex = explorer(lab.notebook, "self")
    live_weights = ex.locator(".attn-view-weights")
    try:
        for theme, dark in ((LIGHT, False), (DARK, True)):
            set_theme(lab.page, theme)
            decoder.scroll_into_view_if_needed()
            # The causal decoder's six blocked weights (4 tokens): six dashes, no "0.00" above the diagonal.
            cells = decoder.locator("td[aria-label=masked]")
            assert cells.count() == 6
            check_masked_cells(cells, f"decoder table, {theme}", dark)
            assert "— masked (blocked before the softmax)" in decoder.inner_text().replace("\n", " ")
            screenshot(lab.page, f"{'dark' if dark else 'light'}-04-masked.png", decoder)
            # The live explorer, causal: the same in its weights panel.
            live_weights.scroll_into_view_if_needed()
            check_masked_cells(live_weights.locator("td[aria-label=masked]"), f"explorer weights, {theme}", dark)
            assert "masked (blocked before the softmax)" in live_weights.inner_text()
            screenshot(lab.page, f"{'dark' if dark else 'light'}-04-explorer-weights.png", live_weights)
    finally:
        set_theme(lab.page, LIGHT)


# Zero on every scale: the cells whose colour is the panel's own (level 0, helpers.look.theme.TABLE_PANEL), in the
# weights tables (those with a row sum) and in the signed ones, with the colour the browser computes for them and for
# the panel they sit on (the card's background, and JupyterLab's --jp-layout-color1 itself).
JS_ZEROS = """
(root) => {
  const probe = document.createElement('span');
  document.body.appendChild(probe);
  probe.style.color = 'var(--jp-layout-color1)';
  const themePanel = getComputedStyle(probe).color;
  probe.remove();
  const found = {weights: [], signed: []};
  for (const table of root.querySelectorAll('table')) {
    const kind = /row sum/.test(table.textContent) ? 'weights' : 'signed';
    const card = table.closest('[role=group]') || table.parentElement;
    for (const td of table.querySelectorAll('td[style*="background:var(--cz)"]')) {
      if (td.getAttribute('aria-label') === 'masked' || td.classList.contains('matrix-corner')) continue;
      if (!/^\\s*-?\\d/.test(td.textContent)) continue;
      if (found[kind].length >= 6) break;
      found[kind].push({text: td.textContent.trim(), cell: getComputedStyle(td).backgroundColor,
                        card: getComputedStyle(card).backgroundColor});
    }
  }
  return {themePanel, ...found};
}
"""


def same_colour(a: str, b: str) -> bool:
    return all(abs(x - y) < 1.5 / 255 for x, y in zip(parse_colour(a), parse_colour(b)))


@pytest.mark.parametrize("path", MASKING)
def test_zero_is_the_panels_own_colour_in_light_and_dark(lab, path):
    """A weight of 0 and a signed 0 show the panel's background, in JupyterLab Light and Dark alike (no white zero on
    a dark page); a full-strength cell does not."""
    lab.run_notebook(f"notebooks/{path}")
    show_folded(lab.notebook)
    try:
        for theme, dark in ((LIGHT, False), (DARK, True)):
            set_theme(lab.page, theme)
            seen = lab.notebook.evaluate(JS_ZEROS)
            panel = seen["themePanel"]
            assert (luminance(parse_colour(panel)) < 0.06) == dark, f"{theme}: the panel is {panel}"
            for kind in ("weights", "signed"):
                assert seen[kind], f"{theme}: no {kind} cell of 0 in {path}"
                for zero in seen[kind]:
                    assert same_colour(zero["cell"], panel), f"{theme}: a {kind} {zero['text']} is {zero['cell']}"
                    assert same_colour(zero["cell"], zero["card"]), f"{theme}: {zero} differs from its card"
            screenshot(lab.page, f"{'dark' if dark else 'light'}-04-zeros.png")
    finally:
        set_theme(lab.page, LIGHT)


# Replace a live view's HTML as ipywidgets does (innerHTML), then read, in the same task (no time passes), the
# transitions the browser started on the first weight's cell: property, duration and the colours it runs between.
JS_EASES = """
([before, after]) => {
  const host = document.getElementById('view');
  host.innerHTML = before;
  getComputedStyle(host.querySelector('td[data-col="0"]')).backgroundColor;
  host.innerHTML = after;
  const cell = host.querySelector('td[data-col="0"]');
  const now = getComputedStyle(cell).backgroundColor;
  const eased = cell.getAnimations().filter(a => a.transitionProperty === 'background-color');
  return {now, eased: eased.map(a => ({duration: a.effect.getTiming().duration,
                                      from: a.effect.getKeyframes()[0].backgroundColor,
                                      to: a.effect.getKeyframes().slice(-1)[0].backgroundColor}))};
}
"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_changed_weight_eases_to_its_new_colour_unless_the_reader_asks_for_less_motion(browser, monkeypatch,
                                                                                       motion):
    import numpy as np

    from helpers.look.colour_easing import ColourEasing
    from helpers.look.render import linked_weights_html

    monkeypatch.setenv("COURSE_ANIMATION", "on")
    easing = ColourEasing()  # the colour memory of the widget that draws the view
    views = [linked_weights_html(np.array(w), ["a", "b"], ["x", "y"], title=f"eases {motion}", easing=easing)
             for w in ([[0.2, 0.8], [0.5, 0.5]], [[0.9, 0.1], [0.5, 0.5]])]
    page = browser.new_page(reduced_motion=motion)
    try:
        page.set_content('<body style="--jp-layout-color1:#ffffff"><div id="view"></div></body>')
        seen = page.evaluate(JS_EASES, views)
    finally:
        page.close()
    if motion == "reduce":
        assert seen["eased"] == [], seen  # the new colour at once
        return
    (eased,) = seen["eased"]
    assert eased["duration"] == 150
    # From the colour 0.2 had to the colour 0.9 has (more teal: less red and green over the white panel).
    start, end = parse_colour(eased["from"]), parse_colour(eased["to"])
    assert start[0] > end[0] and start[1] > end[1], eased
