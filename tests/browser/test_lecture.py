"""The lecture mode as a class sees it on a 1920×1080 projector: prose at a readable measure, no printed check whose
code the audience cannot see, no instruction to run a cell nobody can run."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import expect

from course.browser import LECTURE_VIEWPORT, notebook_paths
from course.widget_pages import notebooks_calling

SHOTS = os.environ.get("COURSE_SCREENSHOTS")  # a folder to keep screenshots in, when set
MAX_MEASURE_EM = 50
# Tags whose cells show nothing in the lecture mode: the notebook's exercises (the audience has no code to write
# in), their instructions, and the outputs or prints an author hides.
EXERCISE_TAGS = ("lecture-hide", "your-turn", "find-the-bug", "solution")
HIDDEN_TAGS = ("lecture-hide-output", "lecture-hide-prints", *EXERCISE_TAGS)
RUN_THE_CELL = re.compile(r"run the (next )?cells?\b", re.IGNORECASE)

# Width of each visible prose paragraph in em of its own font (computed style: CSS zoom scales both alike).
JS_MEASURES = """
() => [...document.querySelectorAll('#rendered_cells .jp-MarkdownOutput p')]
  .filter(p => p.offsetParent !== null && p.textContent.trim().length > 0)
  .map(p => parseFloat(getComputedStyle(p).width) / parseFloat(getComputedStyle(p).fontSize))
"""


def lecture_notebooks() -> list[Path]:
    """Every notebook but the index (which is read alone): the ones a lecture shows."""
    return [p for p in notebook_paths() if not p.name.startswith("00")]


def tagged_prints(path) -> list[str]:
    """The stored printed text of every cell tagged to hide it in the lecture mode, line by line."""
    nb = nbformat.read(path, as_version=4)
    lines = []
    for cell in nb.cells:
        if cell.cell_type == "code" and set(cell.metadata.get("tags", [])) & set(HIDDEN_TAGS):
            for out in cell.get("outputs", []):
                text = out.get("text", "") if out.get("output_type") == "stream" else ""
                lines += [ln.strip() for ln in text.splitlines() if len(ln.strip()) >= 12]
    return lines


@pytest.fixture
def projector(voila):
    """A notebook's lecture page at 1920 × 1080: the session's lecture pages, one Voila run per notebook."""
    return voila


@pytest.mark.parametrize("path", lecture_notebooks(), ids=lambda p: p.stem)
def test_lecture_page_reads_well_on_a_projector(projector, jupyter_home, path):
    page = projector(path.name)
    expect(page.get_by_text("Loading widget...")).to_have_count(0)
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"lecture-{path.stem}-1920.png"))

    measures = page.evaluate(JS_MEASURES)
    assert measures, "no prose paragraph found on the lecture page"
    assert max(measures) <= MAX_MEASURE_EM, f"prose {max(measures):.0f} em wide (at most {MAX_MEASURE_EM})"

    text = page.locator("body").inner_text()
    found = RUN_THE_CELL.findall(text)
    assert not found, f"'run the cell' wording on the lecture page: {RUN_THE_CELL.search(text).group(0)!r}"

    copy = jupyter_home.root / "notebooks" / path.name
    # A tagged cell's printed check is not on the page (a line printed by an untagged cell as well does not count).
    untagged = "\n".join(
        out.get("text", "")
        for cell in nbformat.read(copy, as_version=4).cells
        if cell.cell_type == "code" and not set(cell.metadata.get("tags", [])) & set(HIDDEN_TAGS)
        for out in cell.get("outputs", [])
    )
    showing = [line for line in tagged_prints(copy) if line in text and line not in untagged]
    assert not showing, f"output of a cell tagged to hide it is visible: {showing[:3]}"
    # A markdown cell for the notebook alone (an exercise's instructions) is not on the page.
    notebook_only = [cell.source.splitlines()[0].lstrip("#* ").rstrip("*. ")
                     for cell in nbformat.read(copy, as_version=4).cells
                     if cell.cell_type == "markdown" and set(cell.metadata.get("tags", [])) & set(EXERCISE_TAGS)]
    shown = [line for line in notebook_only if line and line in text]
    assert not shown, f"a cell tagged as an exercise is on the lecture page: {shown[:3]}"


# The formulas of the page's prose: how many MathJax drew, those it could not typeset, and the markdown cells still
# showing TeX ($...$ or \(...\) outside code and outside MathJax's output).
JS_FORMULAS = r"""
() => {
  const prose = [...document.querySelectorAll('#rendered_cells .jp-MarkdownOutput')];
  const left = prose.map(cell => {
    const copy = cell.cloneNode(true);
    copy.querySelectorAll('code, pre, mjx-container').forEach(n => n.remove());
    return copy.textContent;
  }).filter(text => /\$[^$\s][^$]*\$|\\\(/.test(text));
  return {typeset: document.querySelectorAll('#rendered_cells mjx-container').length,
          errors: [...document.querySelectorAll('#rendered_cells mjx-merror')].map(n => n.textContent),
          left: left.map(text => text.trim().slice(0, 80))};
}
"""


@pytest.mark.parametrize("path", lecture_notebooks(), ids=lambda p: p.stem)
def test_every_formula_of_the_lecture_page_is_typeset(projector, path):
    """The page typesets its formulas after its widgets are live, not before: all of them all the same."""
    page = projector(path.name)
    found = page.evaluate(JS_FORMULAS)
    assert found["left"] == [], f"formulas left as TeX on the lecture page: {found['left'][:3]}"
    assert found["errors"] == [], f"formulas MathJax could not typeset: {found['errors'][:3]}"
    prose = [cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown"]
    if any("$" in source for source in prose):
        assert found["typeset"] > 0, "no formula typeset on the lecture page"


@pytest.mark.parametrize("path", [p for p in notebook_paths() if p.name.startswith("02_")], ids=lambda p: p.stem)
def test_a_tagged_print_is_hidden_and_an_untagged_one_shown(projector, path):
    """The check above can fail: 02 prints 'same as project_qkv' from a tagged cell and its arithmetic trace
    from an untagged one."""
    page = projector(path.name)
    text = page.locator("body").inner_text()
    assert "same as project_qkv" not in text
    assert "Q[0,0] = 1·0 + 0·1 + 0·1 + 2·(\u22121) = \u22122" in text


# The explorers, compact in the lecture mode on a 1024 x 768 projector (test_layout.py checks JupyterLab).
EXPLORER_NOTEBOOKS = notebooks_calling(r"AttentionExplorer\(")


@pytest.mark.parametrize("path", EXPLORER_NOTEBOOKS, ids=lambda p: p.stem)
def test_an_edit_and_its_effect_fit_on_the_projector_in_the_lecture_mode(projector, path):
    """The lecture mode (Voila, text zoomed for the back of the room) on a 1024 × 768 projector: the explorer is
    compact there, and X and the weights are on the screen together. (The notebook's lecture page, made smaller: the
    explorer is compact because the kernel runs in the lecture mode, whatever the window's size.)"""
    page = projector(path.name)
    page.set_viewport_size({"width": 1024, "height": 768})
    try:
        kind = "attn-explorer-cross" if "cross" in path.stem else "attn-explorer-self"
        ex = page.locator(f".{kind}, .attn-explorer").first
        ex.locator(".attn-view-weights table").first.wait_for()
        box = ex.evaluate("""(ex) => {
          const x = ex.querySelector('.attn-editor-X, .attn-editor-X_dec');
          x.scrollIntoView({block: 'start'});
          const r = x.getBoundingClientRect(), w = ex.querySelector('.attn-view-weights').getBoundingClientRect();
          return {x_top: r.top, weights_bottom: w.bottom, height: window.innerHeight,
                  editors: ex.querySelectorAll('.matrix-editor').length,
                  // A compact explorer's editors have no Reset / Random / numpy buttons to show.
                  shown_buttons: [...ex.querySelectorAll('.matrix-editor button')]
                    .filter(b => b.getClientRects().length > 0).length};
        }""")
        assert box["editors"] > 0 and box["shown_buttons"] == 0, f"not compact in the lecture mode: {box}"
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(SHOTS) / f"lecture-{path.stem}-1024x768.png"))
        # Chromium gives the rectangles of the zoomed page in screen pixels, as the window's height.
        assert box["x_top"] >= -1 and box["weights_bottom"] <= box["height"] + 1, (
            f"X starts at {box['x_top']:.0f} px and the weights end at {box['weights_bottom']:.0f} px of a "
            f"{box['height']} px screen ({box})")
    finally:
        page.set_viewport_size(LECTURE_VIEWPORT)


# A projector of 1024 × 768, the smallest the lecture mode supports: nothing cut at the right edge, one scrollbar, the
# diagrams' text large enough, and no printed check without the code that asked it.
PROJECTOR = {"width": 1024, "height": 768}
MIN_DIAGRAM_TEXT_PX = 18
# The notebooks that show a data-flow diagram as it is (not folded until a prediction is committed, as 06's is).
FLOW_NOTEBOOKS = {p.name for p in notebook_paths() for cell in nbformat.read(p, as_version=4).cells
                  for out in cell.get("outputs", ())
                  if str(out.get("data", {}).get("text/html", "")).startswith('<img alt="Data flow')}
# A printed verdict: a line ending in ": True" or ": False" (print("loop == Q @ K.T:", ...)). On a page without code
# it answers a question nobody sees; a cell shows the results it compared instead, and checks them with an assert.
PRINTED_VERDICT = re.compile(r"^.*:\s*(True|False)\s*$", re.MULTILINE)

# What is cut at the right edge and which vertical scrollbars the page has (a box that scrolls and has more to show
# than its height; the window, when the document is taller than it and may scroll). Rectangles are in screen pixels
# (the page is zoomed).
JS_CUT_AND_SCROLLBARS = r"""
() => {
  const W = document.documentElement.clientWidth;
  const name = e => `${e.tagName.toLowerCase()}${[...e.classList].slice(0, 3).map(c => '.' + c).join('')} `
    + JSON.stringify((e.textContent || '').trim().slice(0, 40));
  const cut = [], scrollbars = [];
  const hidden = e => /(hidden|clip)/.test(getComputedStyle(e).overflowY);
  const doc = document.documentElement;
  if (doc.scrollHeight > doc.clientHeight + 1 && !hidden(doc) && !hidden(document.body)) scrollbars.push('the window');
  for (const e of document.body.querySelectorAll('*')) {
    // MathJax's own parts (stretchy glyphs clip on purpose) and SVG's insides are not boxes of the page.
    if (e.getClientRects().length === 0 || e.tagName.startsWith('MJX-') || e.closest('svg')) continue;
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (r.width > 1 && r.right > W + 1) {
      cut.push(`${name(e)} ends at ${r.right.toFixed(0)} px of ${W}`);
      continue;
    }
    // Content wider than a box that clips it or scrolls it sideways (a box 1 px wide is a screen reader's label,
    // hidden on purpose).
    if (e.clientWidth > 1 && cs.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1) {
      cut.push(`${name(e)}: ${e.scrollWidth} px of content in ${e.clientWidth} px`);
    }
    // A vertical scrollbar of the page's layout. (A widget's own inner scrollbars are test_layout.py's, in JupyterLab
    // and here alike.)
    if (/(auto|scroll)/.test(cs.overflowY) && e.scrollHeight > e.clientHeight + 1 && !e.closest('.jupyter-widgets')) {
      scrollbars.push(name(e));
    }
  }
  return {cut, scrollbars};
}
"""
# Each diagram's text as projected: the font size of each text element (its largest: a sub- or superscript is
# smaller by design) times the scale the SVG is shown at, in screen pixels; for the diagrams on the page (one folded
# until a prediction is committed has no size yet), and how many there are in all.
JS_DIAGRAM_TEXT = r"""
() => ({
  count: document.querySelectorAll('#rendered_cells svg.course-diagram').length,
  shown: [...document.querySelectorAll('#rendered_cells svg.course-diagram')]
    .filter(svg => svg.getClientRects().length > 0)
    .map(svg => {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return [...svg.querySelectorAll('text')].map(t => {
        const sizes = [t, ...t.querySelectorAll('tspan')].map(x => parseFloat(x.style.fontSize))
          .filter(Number.isFinite);
        return {text: t.textContent.replace(/\s+/g, ''), px: Math.max(...sizes) * scale};
      });
    }),
})
"""
JS_LAID_OUT = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


@pytest.mark.parametrize("path", lecture_notebooks(), ids=lambda p: p.stem)
def test_the_page_holds_on_a_1024_projector(projector, path):
    """At 1024 × 768: nothing past the right edge or clipped there ("does tc"), one vertical scrollbar (the page's),
    prose at a readable measure, the data-flow diagrams as SVG with text of at least 18 px, and no printed check
    ("loop == Q @ K.T: True") without the code that asked it."""
    page = projector(path.name)
    # The session's Chromium shows its scrollbars (tests/browser/conftest.py), as a presenter's does: the page's takes
    # its width from the column here too.
    page.set_viewport_size(PROJECTOR)
    try:
        expect(page.get_by_text("Loading widget...")).to_have_count(0)
        page.evaluate(JS_LAID_OUT)
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(SHOTS) / f"lecture-{path.stem}-1024x768-top.png"))
        check_the_projected_page(page, path)
    finally:
        page.set_viewport_size(LECTURE_VIEWPORT)


def check_the_projected_page(page, path) -> None:
    """The assertions of test_the_page_holds_on_a_1024_projector, on the page as laid out now."""
    found = page.evaluate(JS_CUT_AND_SCROLLBARS)
    assert not found["cut"], f"cut at the right edge at 1024 px: {found['cut'][:5]}"
    assert len(found["scrollbars"]) == 1, f"vertical scrollbars at 1024 × 768: {found['scrollbars']}"

    measures = page.evaluate(JS_MEASURES)
    assert max(measures) <= MAX_MEASURE_EM, f"prose {max(measures):.0f} em wide at 1024 px"

    diagrams = page.evaluate(JS_DIAGRAM_TEXT)
    if path.name in FLOW_NOTEBOOKS:
        assert diagrams["count"], "no data-flow diagram drawn as SVG on the lecture page"
    small = [f"{t['text']!r} {t['px']:.1f} px" for texts in diagrams["shown"] for t in texts
             if t["px"] < MIN_DIAGRAM_TEXT_PX]
    assert not small, f"diagram text under {MIN_DIAGRAM_TEXT_PX} px as projected: {small[:5]}"

    shown = [m.group(0).strip() for m in PRINTED_VERDICT.finditer(page.locator("#rendered_cells").inner_text())]
    assert not shown, f"a printed check without its code on the lecture page: {shown[:3]}"
