"""Nothing on screen covers a control: in every notebook, at 1400 × 900 and 1024 × 768 with the file browser open,
in JupyterLab Light and Dark, no two visible controls (buttons, text fields, check boxes, radio options, drop-downs),
their labels or a message box overlap, and no option's text spills out of the box it belongs to.

Overlap is measured on bounding boxes: each element's own box together with the box of its text (text that spills
out of a label counts where it is drawn). An element and what it contains are one thing (a radio option's label holds
its button), so only elements that are not nested are compared. Besides the notebooks as they open, two states where
a message appears next to a field: a matrix cell with junk in 02's explorer, and 09's Q5 checked with a bad cell.

Set COURSE_SCREENSHOTS=/some/folder to keep a screenshot of 09's heatmap questions at each size and theme.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from course.browser import notebook_paths
from course.widget_pages import (
    CHOICE_GROUP,
    editor,
    editor_cells,
    editor_message,
    explorer,
    projections_notebook,
    type_into_cell,
)

from .test_dark import DARK, LIGHT, set_theme

SIZES = {"1400x900": (1400, 900), "1024x768": (1024, 768)}
THEMES = {"light": LIGHT, "dark": DARK}
SHOTS = os.environ.get("COURSE_SCREENSHOTS")

# Every visible control, label and message box of the open notebook's outputs whose box overlaps another's (neither
# inside the other), and every radio option whose text reaches past its radio group. A box is the element's own,
# joined with its text's (a Range over its contents), and cut by the ancestors that clip what overflows them.
JS_OVERLAPS = """
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  const SELECTOR = ['button', 'input:not([type=hidden])', 'select', 'textarea', 'label', '.widget-label',
                    '[role=alert]', '.course-choices-option', '.widget-html-content [role=status]'].join(',');
  const cells = [...panel.querySelectorAll('.jp-Cell')];
  const clipping = (e) => ['hidden', 'clip', 'auto', 'scroll'].includes(getComputedStyle(e).overflowX)
                          || ['hidden', 'clip', 'auto', 'scroll'].includes(getComputedStyle(e).overflowY);
  const box = (el) => {
    let r = el.getBoundingClientRect();
    let b = {l: r.left, t: r.top, r: r.right, b: r.bottom};
    if (!/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(el.tagName)) {
      const range = document.createRange();
      range.selectNodeContents(el);
      const t = range.getBoundingClientRect();
      if (t.width > 0 && t.height > 0) {
        b = {l: Math.min(b.l, t.left), t: Math.min(b.t, t.top), r: Math.max(b.r, t.right), b: Math.max(b.b, t.bottom)};
      }
    }
    let cut = false;
    for (let p = el.parentElement; p && p !== panel; p = p.parentElement) {
      if (clipping(p)) {
        const c = p.getBoundingClientRect();
        // What this box cuts off of what the boxes inside it let through: cut along an axis on which it does not
        // scroll, that part can never be seen. Cut along an axis on which it scrolls, it shows when scrolled (a
        // row of editors that scrolls sideways shows its last editor when scrolled); and what an inner box that
        // scrolls hides, an outer box that holds that inner box whole does not cut again.
        const inner = b;
        b = {l: Math.max(b.l, c.left), t: Math.max(b.t, c.top), r: Math.min(b.r, c.right), b: Math.min(b.b, c.bottom)};
        const scrollsX = ['auto', 'scroll'].includes(getComputedStyle(p).overflowX);
        const scrollsY = ['auto', 'scroll'].includes(getComputedStyle(p).overflowY);
        if ((!scrollsY && (b.b < inner.b - 2 || b.t > inner.t + 2))
            || (!scrollsX && (b.r < inner.r - 2 || b.l > inner.l + 2))) cut = true;
      }
    }
    b.cut = cut;
    return b;
  };
  const describe = (el) => {
    const cls = String(el.className || '').split(' ').filter(c => c && !c.startsWith('lm-')).slice(-2).join('.');
    const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().replace(/\\s+/g, ' ');
    return `${el.tagName.toLowerCase()}${cls ? '.' + cls : ''}${text ? ' "' + text.slice(0, 40) + '"' : ''}`;
  };
  const items = [], found = [];
  for (const out of panel.querySelectorAll('.jp-OutputArea-output')) {
    const cell = cells.indexOf(out.closest('.jp-Cell'));
    for (const el of out.querySelectorAll(SELECTOR)) {
      const s = getComputedStyle(el);
      if (s.visibility === 'hidden' || s.display === 'none' || el.getClientRects().length === 0) continue;
      // Visually hidden labels (a grid cell's accessible name) are clipped to a pixel.
      const own = el.getBoundingClientRect();
      if (own.width < 3 || own.height < 3) continue;
      const b = box(el);
      if (b.cut) found.push(`cell ${cell}: ${describe(el)} is cut off by the box it sits in`);
      if (b.r - b.l < 3 || b.b - b.t < 3) continue;
      items.push({el, b, cell});
    }
  }
  items.sort((x, y) => x.b.t - y.b.t);
  for (let i = 0; i < items.length; i++) {
    const a = items[i];
    for (let j = i + 1; j < items.length && items[j].b.t < a.b.b - 1; j++) {
      const c = items[j];
      if (a.el.contains(c.el) || c.el.contains(a.el)) continue;
      const w = Math.min(a.b.r, c.b.r) - Math.max(a.b.l, c.b.l);
      const h = Math.min(a.b.b, c.b.b) - Math.max(a.b.t, c.b.t);
      if (w > 1 && h > 1) {
        found.push(`cell ${a.cell}: ${describe(a.el)} and ${describe(c.el)} overlap by ${Math.round(w)} × `
                   + `${Math.round(h)} px`);
      }
    }
  }
  // A radio option's text inside its group (text that wraps under its button or runs past the group's edge).
  for (const group of panel.querySelectorAll('.course-choices-list .course-choices-options')) {
    const g = group.getBoundingClientRect();
    if (g.width === 0) continue;
    for (const label of group.querySelectorAll('label')) {
      const b = box(label), input = label.querySelector('input');
      const cell = cells.indexOf(label.closest('.jp-Cell'));
      const range = document.createRange();
      range.selectNodeContents(label);
      const t = range.getBoundingClientRect();
      if (t.right > g.right + 1 || t.bottom > g.bottom + 1) {
        found.push(`cell ${cell}: option ${describe(label)} reaches past its radio group`);
      }
      if (input) {
        const r = input.getBoundingClientRect();
        // The text starts beside its button, not above or below it.
        const first = [...range.getClientRects()].filter(q => q.width > 0 && q.left >= r.right - 1)[0];
        if (!first || first.top > r.bottom || first.bottom < r.top) {
          found.push(`cell ${cell}: option ${describe(label)} does not start beside its button`);
        }
      }
    }
  }
  return found;
}
"""

JS_TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def run(lab, path) -> None:
    lab.run_notebook(f"notebooks/{path.name}")
    report = lab.wait_widgets_rendered()
    assert report["rendered"] == report["expected"], report


def overlaps_everywhere(lab, shoot=None) -> list[str]:
    """The overlaps found at each size and theme (Light again at the end); ``shoot(tag)`` is called at each."""
    found = []
    try:
        for theme_name, theme in THEMES.items():
            set_theme(lab.page, theme)
            for size, (width, height) in SIZES.items():
                lab.page.set_viewport_size({"width": width, "height": height})
                lab.page.evaluate(JS_TWO_FRAMES)
                found += [f"{size} {theme_name}: {p}" for p in lab.page.evaluate(JS_OVERLAPS)]
                if shoot:
                    shoot(f"{size}-{theme_name}")
    finally:
        set_theme(lab.page, LIGHT)
    return found


def keep(lab, name: str, locator=None) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        target = Path(SHOTS) / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"
        if locator is not None:
            locator.scroll_into_view_if_needed()
        lab.page.screenshot(path=str(target))


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_no_control_overlaps_another(lab, path):
    run(lab, path)
    # The widget with the most radio options (09's "Read the heatmap") is the one worth looking at.
    heatmap = lab.notebook.locator(".practice-generator").filter(has=lab.page.locator(CHOICE_GROUP)).first
    shoot = (lambda tag: keep(lab, f"overlap-{path.stem}-{tag}", heatmap)) if heatmap.count() else None
    found = overlaps_everywhere(lab, shoot)
    assert not found, "controls, labels or messages overlap:\n" + "\n".join(found[:40])


@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_a_cell_message_sits_beside_its_editor_and_covers_no_button(lab, path):
    run(lab, path)
    ex = explorer(lab.notebook, "self")
    x_editor = editor(ex, "X")
    old = editor_cells(x_editor).first.input_value()
    type_into_cell(x_editor, 0, 0, "two")
    message = editor_message(x_editor)
    expect(message.locator("[role=alert]")).to_contain_text("two")
    try:
        found = overlaps_everywhere(lab, lambda tag: keep(lab, f"cell-message-{path.stem}-{tag}", x_editor))
        # In the flow: the buttons above the grid, the message beside it (in the room kept for it), over neither.
        grid = x_editor.locator(".matrix-editor-grid").bounding_box()
        alert = message.locator("[role=alert]").bounding_box()
        buttons = x_editor.locator(".matrix-editor-buttons").bounding_box()
    finally:
        type_into_cell(x_editor, 0, 0, old)
        expect(message).to_have_text("")
    assert not found, "with a cell message shown:\n" + "\n".join(found[:40])
    assert grid["x"] + grid["width"] <= alert["x"] + 1, (grid, alert)
    if buttons and buttons["height"] > 0:
        assert buttons["y"] + buttons["height"] <= grid["y"] + 1, (buttons, grid)


@pytest.mark.parametrize("path", [p for p in notebook_paths() if p.stem.endswith("_practice")], ids=lambda p: p.stem)
def test_a_grid_message_stays_visible_when_check_is_pressed(lab, path):
    run(lab, path)
    q5 = lab.notebook.locator(".practice-q5").first
    grid = q5.locator(".matrix-editor").first
    cell = editor_cells(grid).first
    old = cell.input_value()
    type_into_cell(grid, 0, 0, "2,5")
    q5.locator(".practice-check button, button.practice-check").first.click()
    feedback = q5.locator(".practice-feedback [role=alert]")
    expect(feedback).to_contain_text("Fix the marked cells")  # the reason is said once, beside the grid
    try:
        expect(editor_message(grid).locator("[role=alert]")).to_contain_text("2,5")
        found = overlaps_everywhere(lab, lambda tag: keep(lab, f"q5-message-{path.stem}-{tag}", q5))
    finally:
        type_into_cell(grid, 0, 0, old)
    assert not found, "with Q5's messages shown:\n" + "\n".join(found[:40])
