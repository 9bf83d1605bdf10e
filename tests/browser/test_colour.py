"""Colour that says what a number means, as the learner sees it in 04_masking, in JupyterLab Light and Dark.

Masked weights are dashes on a grey hatching, not numbers, in the static tables and in the live explorer's weights,
with a key that says what the dash means; the dash reads on both stripes of the hatching in both themes; signed
matrices put 0 on the neutral middle colour. Screenshots go to $COURSE_SCREENSHOTS when it is set:
light-04-masked.png, dark-04-masked.png, light-04-explorer-weights.png and dark-04-explorer-weights.png.
"""

from __future__ import annotations

import pytest

from .jupyter_servers import notebook_paths
from .test_dark import DARK, LIGHT, luminance, parse_colour, screenshot, set_theme
from .widget_pages import explorer, show_folded

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
