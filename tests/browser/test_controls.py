"""Type and controls as drawn in JupyterLab: the explorer's trace wraps between words (not a monospace block that cuts
"overflow" at 1024 px), the chosen option of a row of option buttons and the primary buttons are filled with the
theme's accent, and the real model's layer and head pickers are two framed groups, each named above its buttons.

Each test runs in JupyterLab Light and Dark. Screenshots go to $COURSE_SCREENSHOTS when it is set:
controls-02-trace-<width>-<theme>.png, controls-12-pickers-<width>-<theme>.png, controls-12-commit-<width>-<theme>.png.
"""

from __future__ import annotations

import pytest

from course.widget_pages import explorer, first_notebook_calling, projections_notebook

from .test_dark import DARK, LIGHT, parse_colour, screenshot, set_theme

# A marked term (.trace-term) is one unbreakable piece: one line box when drawn. No line of the trace breaks inside a
# term of a sum: every line box of a wrapped sum starts after " + " or " = ", or with the " = " of its result. The
# trace scrolls nowhere.
JS_TRACE = """
(el) => {
  const box = el.querySelector('.course-trace');
  const s = getComputedStyle(box);
  const terms = [...box.querySelectorAll('.trace-term')];
  // Where the browser wrapped each line: the text before every new line box.
  const cuts = [];
  for (const line of box.querySelectorAll('.trace-line')) {
    const sum = line.textContent.includes(' + ');
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    let before = '', top = null, node;
    while ((node = walker.nextNode())) {
      for (let i = 0; i < node.data.length; i++) {
        const c = node.data[i];
        if (c !== ' ') {
          const r = document.createRange();
          r.setStart(node, i);
          r.setEnd(node, i + 1);
          const t = r.getBoundingClientRect().top;
          if (top !== null && t > top + 2) {
            // A sum breaks only between its terms: after an operator or before one, never inside a term.
            const ok = before.endsWith(' ') && (!sum || /[+=]$/.test(before.trimEnd()) || c === '=' || c === '+');
            if (!ok) cuts.push(before.slice(-20) + '|' + node.data.slice(i, i + 10));
          }
          top = t;
        }
        before += c;
      }
    }
  }
  return {pre: el.querySelectorAll('pre').length, font: s.fontFamily, whiteSpace: s.whiteSpace,
          wordBreak: s.wordBreak, overflowWrap: s.overflowWrap, cuts,
          split: terms.filter(t => t.getClientRects().length > 1).map(t => t.textContent),
          overflow: box.scrollWidth - box.clientWidth, current: box.querySelectorAll('.trace-current').length};
}
"""
# The theme's accent as the browser draws it (the variable itself may be another variable or a hex code).
JS_BRAND = """
() => {
  const probe = document.createElement('div');
  probe.style.background = 'var(--jp-brand-color1)';
  document.body.appendChild(probe);
  const colour = getComputedStyle(probe).backgroundColor;
  probe.remove();
  return colour;
}
"""
JS_BACKGROUND = "(el) => getComputedStyle(el).backgroundColor"


@pytest.fixture
def themed(lab, theme):
    """JupyterLab in the theme the test names ("light" or "dark"); Light again afterwards."""
    set_theme(lab.page, DARK if theme == "dark" else LIGHT)
    try:
        yield lab
    finally:
        set_theme(lab.page, LIGHT)


def same_colour(css_a: str, css_b: str) -> bool:
    return all(abs(a - b) < 0.02 for a, b in zip(parse_colour(css_a)[:3], parse_colour(css_b)[:3]))


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
@pytest.mark.parametrize("width", [1024, 1400])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_trace_wraps_between_words_and_highlights_the_traced_key(themed, path, width, theme):
    lab = themed
    lab.page.set_viewport_size({"width": width, "height": 900 if width > 1024 else 768})
    lab.run_notebook(f"notebooks/{path.name}")
    trace = explorer(lab.notebook, "self").locator(".attn-trace").first
    trace.scroll_into_view_if_needed()
    seen = trace.evaluate(JS_TRACE)
    assert seen["pre"] == 0 and "monospace" not in seen["font"]
    assert (seen["whiteSpace"], seen["wordBreak"], seen["overflowWrap"]) == ("normal", "normal", "normal")
    assert seen["split"] == [], f"terms cut over two lines: {seen['split'][:3]}"
    assert seen["cuts"] == [], f"lines wrapped inside a word or a term: {seen['cuts'][:3]}"
    assert seen["overflow"] <= 1 and seen["current"] > 0
    screenshot(lab.page, f"controls-02-trace-{width}-{theme}.png", trace)


@pytest.mark.parametrize("path", first_notebook_calling(r"HeadExplorer\(model", prefer="12_"), ids=lambda p: p.stem)
@pytest.mark.parametrize("width", [1024, 1400])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_layer_and_head_are_two_named_groups_with_the_chosen_one_filled(themed, path, width, theme):
    lab = themed
    lab.page.set_viewport_size({"width": width, "height": 900 if width > 1024 else 768})
    lab.run_notebook(f"notebooks/{path.name}")
    layers = lab.notebook.locator(".head-explorer-layers").first
    heads = lab.notebook.locator(".head-explorer-heads").first
    layers.scroll_into_view_if_needed()
    brand = lab.page.evaluate(JS_BRAND)
    for group, name in ((layers, "Layer (0–5)"), (heads, "Head (0–11)")):
        label = group.locator(".widget-label").first
        assert label.inner_text().strip() == name
        first_button = group.locator(".widget-toggle-button").first
        assert label.bounding_box()["y"] + label.bounding_box()["height"] <= first_button.bounding_box()["y"] + 1
        chosen = group.locator(".widget-toggle-button.mod-active")
        assert chosen.count() == 1 and same_colour(chosen.evaluate(JS_BACKGROUND), brand)
        other = group.locator(".widget-toggle-button:not(.mod-active)").first
        assert not same_colour(other.evaluate(JS_BACKGROUND), brand)
    a, b = layers.bounding_box(), heads.bounding_box()
    apart = a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"] or a["y"] + a["height"] <= b["y"]
    assert apart, f"the groups overlap: {a} {b}"
    screenshot(lab.page, f"controls-12-pickers-{width}-{theme}.png", layers.locator("xpath=../.."))
    commit = lab.notebook.locator(".predict-commit").first
    commit.scroll_into_view_if_needed()
    assert same_colour(commit.evaluate(JS_BACKGROUND), brand)
    screenshot(lab.page, f"controls-12-commit-{width}-{theme}.png", commit.locator("xpath=../../.."))


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_the_trace_is_folded_in_the_lecture_mode_and_opens_on_a_click(voila, path):
    page = voila(path.name)
    page.set_viewport_size({"width": 1024, "height": 768})
    ex = explorer(page.locator("body"), "self")
    toggle = ex.locator(".attn-trace-toggle").first
    toggle.scroll_into_view_if_needed()
    trace = ex.locator(".attn-trace").first
    assert "show the calculation" in toggle.inner_text() and not trace.is_visible()
    screenshot(page, "controls-02-lecture-trace-folded-1024.png")
    toggle.click()
    trace.locator(".course-trace").wait_for(state="visible")
    seen = trace.evaluate(JS_TRACE)
    assert seen["cuts"] == [] and seen["overflow"] <= 1
    trace.scroll_into_view_if_needed()
    screenshot(page, "controls-02-lecture-trace-open-1024.png")
    toggle.click()  # folded again, as the next test of this page expects
    trace.wait_for(state="hidden")
