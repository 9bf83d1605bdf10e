"""Layout as a learner sees it in JupyterLab with the file browser open: an edit and its effect on one screen, nothing
wider than the notebook, and error messages that do not move the grid being typed into or the weights.

Two window sizes: 1400 × 900 (a laptop) and 1024 × 768 (a small screen or a projector). Each size has its own page,
opened once for this module, with the file browser showing, as a learner's JupyterLab usually has it. Set
COURSE_SCREENSHOTS=/some/folder to keep a screenshot of each measurement there.
"""

from __future__ import annotations

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
    editor_shape,
    editor_values,
    explorer,
    notebooks_calling,
    projections_notebook,
    show_folded,
    type_into_cell,
    view_table,
)

SIZES = {"1400x900": (1400, 900), "1024x768": (1024, 768)}
SHOTS = os.environ.get("COURSE_SCREENSHOTS")  # a folder to keep screenshots in, when set

# The notebook's scrolling area (what the learner sees of the notebook) and, for an explorer, the rectangles of one
# of its editors (by default the first X editor) and of its weights view, after the higher of the two has been
# scrolled to the top of that area: as a learner scrolls to see the editor they type into and the weights together.
JS_EDIT_AND_EFFECT = """
(ex, which) => {
  const scroller = ex.closest('.jp-WindowedPanel-outer') || ex.closest('.jp-Notebook');
  const x = ex.querySelector(which || '.attn-editor-X, .attn-editor-X_dec, .mh-editor-X');
  // The weights: one view in the attention explorers and the pattern builder, one heatmap per head in the heads
  // explorer.
  const weights = () => {
    const heads = [...ex.querySelectorAll('.mh-view-head')].map(v => v.getBoundingClientRect());
    return heads.length ? {top: Math.min(...heads.map(b => b.top)), bottom: Math.max(...heads.map(b => b.bottom))}
                        : ex.querySelector('.attn-view-weights, .pattern-view-weights').getBoundingClientRect();
  };
  x.scrollIntoView({block: 'start'});
  if (weights().top < x.getBoundingClientRect().top) {
    ex.querySelector('.mh-view-head, .attn-view-weights, .pattern-view-weights').scrollIntoView({block: 'start'});
  }
  const area = scroller.getBoundingClientRect();
  const r = x.getBoundingClientRect();
  const w = weights();
  return {area_top: area.top, area_bottom: area.bottom, x_top: r.top, x_bottom: r.bottom,
          weights_top: w.top, weights_bottom: w.bottom};
}
"""

# Each editor's columns have one width and each column label is centred over its column: the problems found.
JS_UNEVEN_COLUMNS = """
(ex) => {
  const problems = [];
  ex.querySelectorAll('.matrix-editor').forEach((ed) => {
    const grid = ed.querySelector('.matrix-editor-grid');
    const name = [...ed.classList].find(c => c.startsWith('attn-editor-')) || 'editor';
    const inputs = [...grid.querySelectorAll('input')];
    const widths = inputs.map(i => i.getBoundingClientRect().width);
    if (Math.max(...widths) - Math.min(...widths) > 1) problems.push(`${name}: cell widths ${Math.min(...widths)}`
                                                                        + `-${Math.max(...widths)} px`);
    const labels = [...grid.querySelectorAll('thead th')];
    labels.forEach((label, j) => {
      const l = label.getBoundingClientRect(), c = inputs[j].getBoundingClientRect();
      const off = (l.left + l.right) / 2 - (c.left + c.right) / 2;
      if (Math.abs(off) > 2) problems.push(`${name}: column ${j} label ${Math.round(off)} px off centre`);
    });
  });
  return problems;
}
"""

# Every output area of the notebook in front that is wider than the notebook: its own content scrolls sideways
# (scrollWidth > clientWidth), its widget root does, or an element inside reaches past its right edge (content that a
# box cuts off counts too). Tables inside a view that scrolls on its own (a view of many tokens) are allowed.
JS_TOO_WIDE = """
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  const found = [];
  panel.querySelectorAll('.jp-OutputArea-output').forEach((out) => {
    const cell = out.closest('.jp-Cell');
    const index = [...panel.querySelectorAll('.jp-Cell')].indexOf(cell);
    const right = out.getBoundingClientRect().right;
    const root = out.querySelector(':scope > .jupyter-widgets') || out;
    for (const el of [out, root]) {
      if (el.scrollWidth > el.clientWidth + 1) {
        found.push(`cell ${index}: ${el.className.split(' ').slice(-2).join(' ')} scrolls sideways `
                   + `(${el.scrollWidth} px of content in ${el.clientWidth} px)`);
        return;
      }
    }
    const scrolls = (e) => { const o = getComputedStyle(e).overflowX; return o === 'auto' || o === 'scroll'; };
    for (const el of out.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= right + 1) continue;
      let inside = false;
      for (let p = el.parentElement; p && p !== out; p = p.parentElement) {
        if (scrolls(p) && p.getBoundingClientRect().right <= right + 1) { inside = true; break; }
      }
      if (!inside) {
        found.push(`cell ${index}: ${el.tagName.toLowerCase()}.${String(el.className).split(' ').slice(-1)} `
                   + `ends ${Math.round(r.right - right)} px past the notebook`);
        return;
      }
    }
  });
  return found;
}
"""


@pytest.fixture
def pages(lab):
    """The session's JupyterLab page (file browser open) at a window size: ``pages("1400x900")``. Resizing the one
    page keeps every notebook's single Run All; the ``lab`` fixture sets 1024 × 768 again before the next test."""

    def at(size: str):
        width, height = SIZES[size]
        lab.page.set_viewport_size({"width": width, "height": height})
        return lab

    return at


def run(lab, path) -> None:
    lab.run_notebook(f"notebooks/{path.name}")
    problems = lab.output_problems()
    assert not problems, "error output after Run All:\n" + "\n".join(problems)
    report = lab.wait_widgets_rendered()
    assert report["rendered"] == report["expected"], report


def shot(lab, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        lab.page.screenshot(path=str(Path(SHOTS) / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"))


EXPLORER_NOTEBOOKS = notebooks_calling(r"AttentionExplorer\(")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", EXPLORER_NOTEBOOKS, ids=lambda p: p.stem)
def test_an_edit_and_its_effect_fit_on_one_screen(pages, path, size):
    lab = pages(size)
    run(lab, path)
    kind = "cross" if lab.notebook.locator(".attn-explorer-cross").count() and not lab.notebook.locator(
        ".attn-explorer-self").count() else "self"
    ex = explorer(lab.notebook, kind)
    box = ex.evaluate(JS_EDIT_AND_EFFECT, None)
    shot(lab, f"layout-{path.stem}-{size}")
    visible = box["area_bottom"] - box["area_top"]
    span = max(box["x_bottom"], box["weights_bottom"]) - min(box["x_top"], box["weights_top"])
    assert box["x_top"] >= box["area_top"] - 1 and box["weights_bottom"] <= box["area_bottom"] + 1, (
        f"from the top of X to the bottom of the weights is {span:.0f} px; the notebook shows {visible:.0f} px "
        f"({box})")
    uneven = ex.evaluate(JS_UNEVEN_COLUMNS)
    assert not uneven, "editor columns not even, or labels not centred over their columns:\n" + "\n".join(uneven)


# Where the weights are now, without scrolling (after an edit).
JS_WEIGHTS_NOW = """
(ex) => {
  const scroller = ex.closest('.jp-WindowedPanel-outer') || ex.closest('.jp-Notebook');
  const area = scroller.getBoundingClientRect();
  const w = ex.querySelector('.attn-view-weights, .pattern-view-weights').getBoundingClientRect();
  return {area_top: area.top, area_bottom: area.bottom, weights_top: w.top, weights_bottom: w.bottom};
}
"""

# Each editor of the explorer's or the builder's strip that is not whole on screen without scrolling sideways: a
# strip that scrolls, or an editor that reaches past the strip's edge or the notebook's.
JS_EDITORS_CUT = """
(ex) => {
  const strip = ex.querySelector('.attn-inputs, .pattern-inputs');
  const out = ex.closest('.jp-OutputArea-output').getBoundingClientRect();
  const s = strip.getBoundingClientRect();
  const found = [];
  if (strip.scrollWidth > strip.clientWidth + 1) {
    found.push(`the strip scrolls sideways (${strip.scrollWidth} px of editors in ${strip.clientWidth} px)`);
  }
  strip.querySelectorAll('.matrix-editor').forEach((ed) => {
    const r = ed.getBoundingClientRect();
    const name = [...ed.classList].find(c => /^(attn|pattern)-editor-/.test(c)) || 'editor';
    const right = Math.min(s.right, out.right);
    if (r.left < s.left - 1 || r.right > right + 1) {
      found.push(`${name} spans ${Math.round(r.left)}-${Math.round(r.right)} px; the strip shows `
                 + `${Math.round(s.left)}-${Math.round(right)} px`);
    }
  });
  return found;
}
"""


def fully_shown(box) -> bool:
    return box["weights_top"] >= box["area_top"] - 1 and box["weights_bottom"] <= box["area_bottom"] + 1


def check_each_editor_with_the_weights(ex, editors: dict, size: str, whole: bool = True) -> None:
    """Each editor (name -> CSS selector) fits on one screen with the weights; with ``whole``, every editor is whole
    on screen without scrolling sideways."""
    cut = ex.evaluate(JS_EDITORS_CUT) if whole else []
    assert not cut, f"at {size} some editors are not whole on screen:\n" + "\n".join(cut)
    for name, selector in editors.items():
        box = ex.evaluate(JS_EDIT_AND_EFFECT, selector)
        assert box["x_top"] >= box["area_top"] - 1 and box["x_bottom"] <= box["area_bottom"] + 1 and fully_shown(
            box), f"{name} and the weights do not fit on one screen at {size}: {box}"


def type_and_watch_the_weights(ex, ed, weights, size: str, row: int = 0) -> None:
    """Type into the first cell of row ``row`` of ``ed`` (the editor scrolled into view with the weights): the
    weights change and stay whole on screen; the old value typed back brings the old weights back."""
    before = weights.inner_text()
    old = editor_cells(ed).nth(row * editor_shape(ed)[1]).input_value()
    type_into_cell(ed, row, 0, "3" if old.strip() != "3" else "-2")
    expect(weights).not_to_have_text(before, use_inner_text=True)
    box = ex.evaluate(JS_WEIGHTS_NOW)
    assert fully_shown(box), f"typing at {size} left the weights out of view: {box}"
    type_into_cell(ed, row, 0, old)
    expect(weights).to_have_text(before, use_inner_text=True)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", notebooks_calling(r"(?<!Cross)AttentionExplorer\("), ids=lambda p: p.stem)
def test_typing_into_any_editor_keeps_the_weights_in_view(pages, path, size):
    """Every editor of the explorer is whole on screen (the strip does not scroll sideways), and fits on one screen
    with the weights, W^Q, W^K and W^V as well as X; after typing into W^K, the weights, changed, are still all in
    view."""
    lab = pages(size)
    run(lab, path)
    ex = explorer(lab.notebook, "self")
    check_each_editor_with_the_weights(ex, {n: f".attn-editor-{n}" for n in ("X", "W_q", "W_k", "W_v")}, size)
    ex.evaluate(JS_EDIT_AND_EFFECT, ".attn-editor-W_k")
    shot(lab, f"layout-wk-{path.stem}-{size}")
    type_and_watch_the_weights(ex, editor(ex, "W_k"), view_table(ex, "weights"), size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", notebooks_calling(r"CrossAttentionExplorer\("), ids=lambda p: p.stem)
def test_typing_into_the_cross_explorer_keeps_the_weights_in_view(pages, path, size):
    """The same for the cross-attention explorer: X_dec, X_enc and the W's each whole on screen (X_dec and X_enc in
    one row, the W's in the next: nothing scrolls sideways) and on one screen with the weights, and the weights in
    view while typing into W^Q."""
    lab = pages(size)
    run(lab, path)
    ex = explorer(lab.notebook, "cross")
    names = ("X_dec", "X_enc", "W_q", "W_k", "W_v")
    check_each_editor_with_the_weights(ex, {n: f".attn-editor-{n}" for n in names}, size)
    ex.evaluate(JS_EDIT_AND_EFFECT, ".attn-editor-W_q")
    shot(lab, f"layout-cross-wq-{path.stem}-{size}")
    # A row of W^Q that some decoder token's features reach (a feature no token has changes nothing).
    row = int(np.flatnonzero(np.abs(editor_values(editor(ex, "X_dec"))).sum(axis=0))[0])
    type_and_watch_the_weights(ex, editor(ex, "W_q"), view_table(ex, "weights"), size, row)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", notebooks_calling(r"PatternBuilder\("), ids=lambda p: p.stem)
def test_the_pattern_builders_weights_stay_in_view_while_editing_w(pages, path, size):
    lab = pages(size)
    run(lab, path)
    builder = lab.notebook.locator(".pattern-builder").first
    check_each_editor_with_the_weights(builder, {n: f".pattern-editor-{n}" for n in ("W_q", "W_k")}, size)
    builder.evaluate(JS_EDIT_AND_EFFECT, ".pattern-editor-W_k")
    shot(lab, f"layout-pattern-{path.stem}-{size}")
    weights = builder.locator(".pattern-view-weights table").first
    for name in ("W_q", "W_k"):
        builder.evaluate(JS_EDIT_AND_EFFECT, f".pattern-editor-{name}")
        type_and_watch_the_weights(builder, builder.locator(f".pattern-editor-{name}").first, weights, size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", notebooks_calling(r"MultiHeadExplorer\("), ids=lambda p: p.stem)
def test_the_heads_explorer_shows_x_and_every_heads_weights_on_one_screen(pages, path, size):
    lab = pages(size)
    run(lab, path)
    show_folded(lab.notebook)  # the explorer waits for a prediction
    ex = lab.notebook.locator(".mh-explorer").first
    box = ex.evaluate(JS_EDIT_AND_EFFECT, None)
    shot(lab, f"layout-{path.stem}-heads-{size}")
    assert box["x_top"] >= box["area_top"] - 1 and box["weights_bottom"] <= box["area_bottom"] + 1, (
        f"X starts at {box['x_top']:.0f} px and the heads' weights end at {box['weights_bottom']:.0f} px; the "
        f"notebook shows {box['area_top']:.0f}-{box['area_bottom']:.0f} px")


# The LoRA demo's two heads, with the rank field scrolled to the top of the notebook (as while a learner types a
# rank): each panel's box and its table's, whether a panel scrolls or cuts its table, the room the output area gives,
# the background colour of each weight cell with its shown text, and the notebook's visible area.
JS_LORA_PANELS = """
(demo) => {
  demo.querySelector('.lora-rank').scrollIntoView({block: 'start'});
  const area = (demo.closest('.jp-WindowedPanel-outer') || demo.closest('.jp-Notebook')).getBoundingClientRect();
  const field = demo.querySelector('.lora-rank').getBoundingClientRect();
  const out = demo.closest('.jp-OutputArea-output').getBoundingClientRect();
  // A computed colour as rgb(r, g, b) in 0..255, whatever form the browser gives it (a color-mix() is computed as
  // color(srgb ...)): drawn on a pixel of a canvas and read back.
  const ctx = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
  const rgb = (c) => {
    ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = c; ctx.fillRect(0, 0, 1, 1);
    return `rgb(${[...ctx.getImageData(0, 0, 1, 1).data].slice(0, 3).join(', ')})`;
  };
  const panel = (cls) => {
    const v = demo.querySelector(cls), t = v.querySelector('table');
    const r = v.getBoundingClientRect(), tr = t.getBoundingClientRect();
    const cells = [...t.querySelectorAll('td:not(.matrix-corner)')]
      .filter(c => /^\\s*[0-9.]+\\s*$/.test(c.textContent))
      .map(c => [c.textContent.trim(), rgb(getComputedStyle(c).backgroundColor)]);
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, table_right: tr.right,
            table_width: tr.width, cut: v.scrollWidth > v.clientWidth + 1, cells};
  };
  return {area_top: area.top, area_bottom: area.bottom, field_top: field.top,
          out_left: out.left, out_right: out.right, frozen: panel('.lora-view-frozen'),
          adapted: panel('.lora-view-adapted')};
}
"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", notebooks_calling(r"LoraDemo\("), ids=lambda p: p.stem)
def test_the_lora_heads_sit_side_by_side_or_stack_whole(pages, path, size):
    """The frozen and the adapted head: side by side when both fit the notebook's width, one under the other
    otherwise, each table whole (no panel cuts or scrolls it), on screen with the rank field that changes the
    adapted one, on one colour scale (a weight shown alike in both has the same colour, within the 0.01 that two
    weights shown alike may differ by)."""
    lab = pages(size)
    run(lab, path)
    demo = lab.notebook.locator(".lora-demo").first
    box = demo.evaluate(JS_LORA_PANELS)
    shot(lab, f"layout-lora-{path.stem}-{size}")
    frozen, adapted = box["frozen"], box["adapted"]
    for name, p in (("frozen", frozen), ("adapted", adapted)):
        assert not p["cut"] and p["table_right"] <= box["out_right"] + 1, f"the {name} head's table is cut: {box}"
    beside = adapted["left"] >= frozen["right"] - 1 and abs(adapted["top"] - frozen["top"]) <= 1
    under = adapted["top"] >= frozen["bottom"] - 1 and abs(adapted["left"] - frozen["left"]) <= 1
    assert beside or under, f"at {size} the heads are neither side by side nor one under the other: {box}"
    panels = (frozen["right"] - frozen["left"]) + (adapted["right"] - adapted["left"])
    if panels <= box["out_right"] - box["out_left"] - 16:
        assert beside, f"at {size} both heads fit side by side, yet they are stacked: {box}"
    assert box["field_top"] >= box["area_top"] - 1 and max(frozen["bottom"], adapted["bottom"]) <= box[
        "area_bottom"] + 1, f"at {size} the rank field and the two heads are not on one screen: {box}"
    colours = {}
    for text, colour in frozen["cells"] + adapted["cells"]:
        colours.setdefault(text, []).append([int(c) for c in re.findall(r"\d+", colour)[:3]])
    # A weight shown as 0.47 lies in [0.465, 0.475): on the weights' scale its colour channels vary by a few units.
    mixed = {t: c for t, c in colours.items() if np.ptp(np.array(c), axis=0).max() > 8}
    assert len(colours) > 3 and not mixed, f"a weight shown alike has far apart colours in the two heads: {mixed}"


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_no_output_is_wider_than_the_notebook_at_1024(pages, path):
    lab = pages("1024x768")
    run(lab, path)
    too_wide = lab.page.evaluate(JS_TOO_WIDE)
    assert not too_wide, "wider than the notebook at 1024 px with the file browser open:\n" + "\n".join(too_wide)


JS_NOTEBOOK_AREA = """
(ex) => { const s = ex.closest('.jp-WindowedPanel-outer') || ex.closest('.jp-Notebook');
          const r = s.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; }
"""

JS_BOXES = """
(ex) => [...ex.querySelectorAll('.attn-editor-X .matrix-editor-grid, .attn-view-weights')].map(e => {
  const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(v => Math.round(v));
})
"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", projections_notebook(), ids=lambda p: p.stem)
def test_an_error_message_keeps_the_grid_in_place_and_the_weights_on_screen(pages, path, size):
    """The message sits in the flow under the grid it concerns (it covers no button: test_overlap.py): it moves what
    lies below that editor, never the grid being typed into, and the weights stay on screen (beside X they do not
    move at all; under X, on a narrow page, they move down by the message's height)."""
    lab = pages(size)
    run(lab, path)
    ex = explorer(lab.notebook, "self")
    ex.evaluate(JS_EDIT_AND_EFFECT, None)  # the X editor at the top of the notebook, as while typing into it
    x_editor = editor(ex, "X")
    before = ex.evaluate(JS_BOXES)
    old = x_editor.locator(".matrix-editor-grid input").first.input_value()

    type_into_cell(x_editor, 0, 0, "two")
    expect(editor_message(x_editor)).to_contain_text("two")
    expect(editor_message(x_editor).locator("[role=alert]")).to_be_visible()
    shot(lab, f"error-message-{path.stem}-{size}")
    (grid, weights), (grid_before, weights_before) = ex.evaluate(JS_BOXES), before
    assert grid == grid_before, "the X grid moved when the message appeared"
    beside = weights_before[1] < grid_before[1] + grid_before[3]
    assert weights == weights_before or not beside, "the weights beside X moved when the message appeared"
    area = ex.evaluate(JS_NOTEBOOK_AREA)
    assert weights[1] + weights[3] <= area["bottom"] + 1, (
        f"with the message shown the weights end at {weights[1] + weights[3]} px, below the notebook's "
        f"{area['bottom']:.0f} px")

    type_into_cell(x_editor, 0, 0, old)
    expect(editor_message(x_editor)).to_have_text("")
    assert ex.evaluate(JS_BOXES) == before, "the X grid or the weights did not come back when the message went away"


# Every element of a widget output in the notebook in front that shows a scrollbar of its own (overflow auto or scroll
# with more content than room, either way), and whether the notebook itself scrolls sideways.
JS_INNER_SCROLLBARS = """
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  const cells = [...panel.querySelectorAll('.jp-Cell')];
  const found = [];
  panel.querySelectorAll('.jp-OutputArea-output').forEach((out) => {
    if (!out.querySelector('.jupyter-widgets')) return;
    const index = cells.indexOf(out.closest('.jp-Cell'));
    for (const e of [out, ...out.querySelectorAll('*')]) {
      if (e.getClientRects().length === 0) continue;  // not shown (a folded part)
      const s = getComputedStyle(e);
      const y = /(auto|scroll)/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1;
      const x = /(auto|scroll)/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1;
      if (x || y) {
        found.push(`cell ${index}: ${e.tagName.toLowerCase()}.${[...e.classList].slice(-2).join('.')} scrolls `
                   + (x ? `sideways (${e.scrollWidth} px of content in ${e.clientWidth} px)` : '')
                   + (x && y ? ' and ' : '') + (y ? `down (${e.scrollHeight} px in ${e.clientHeight} px)` : ''));
      }
    }
  });
  const scroller = panel.closest('.jp-WindowedPanel-outer') || panel;
  if (scroller.scrollWidth > scroller.clientWidth + 1) {
    found.push(`the notebook scrolls sideways (${scroller.scrollWidth} px in ${scroller.clientWidth} px)`);
  }
  return found;
}
"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_no_widget_shows_an_inner_scrollbar_or_scrolls_sideways(pages, path, size):
    """After Run All, with the file browser open, no part of any widget has a scrollbar of its own (a grid exactly as
    tall and as wide as its rows and columns, views that fit), and the notebook does not scroll sideways."""
    lab = pages(size)
    run(lab, path)
    found = lab.page.evaluate(JS_INNER_SCROLLBARS)
    shot(lab, f"scrollbars-{path.stem}-{size}")
    assert not found, f"at {size} with the file browser open:\n" + "\n".join(found)
