"""A stored notebook opened in JupyterLab before any cell runs: every widget shows its static picture.

The notebooks keep no widget state, so until Run All a page can only show what each widget output stored beside its
text form: a picture (``text/html``, helpers/widgets/snapshot.py). Opened as ``make lab`` opens them (trusted, so that
the pictures keep their look), 09_practice shows its eight questions and 02_projections its explorer with the weights,
both readable in JupyterLab Light and Dark, every control of a picture named for a screen reader. Opened untrusted (a
notebook downloaded from elsewhere), JupyterLab strips the pictures' styles but still shows their words and numbers.

Screenshots go to $COURSE_SCREENSHOTS when it is set: stored-NN-light.png, stored-NN-dark.png, stored-NN-untrusted.png.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from course.browser import notebook_paths
from course.widget_pages import SHOWN_ATOL, editor, editor_values

from .test_a11y import BLOCKING, axe_violations, describe
from .test_dark import DARK, LIGHT, SHOTS, seen, set_theme

PICTURE = ".course-snapshot"
PRACTICE, PROJECTIONS = "09_practice", "02_projections"
# The controls of a picture (args[0]) without an accessible name (as a browser computes it for the markup a picture
# uses); with args[1], the cells of a grid left out.
JS_NAMELESS = """
(args) => [...args[0].querySelectorAll('input, button, select, textarea')].filter(el => {
  if (args[1] && el.closest('.cs-grid, .matrix-editor-grid')) return false;
  const labels = el.labels ? [...el.labels].map(l => l.textContent).join(' ') : '';
  return !((el.getAttribute('aria-label') || '').trim() || labels.trim()
           || (el.tagName === 'BUTTON' && el.textContent.trim()) || (el.getAttribute('title') || '').trim());
}).map(el => el.outerHTML.slice(0, 160))
"""
# What a picture's controls can do: nothing (every one disabled).
JS_ENABLED = """
(root) => [...root.querySelectorAll('input, button, select, textarea')].filter(el => !el.disabled)
  .map(el => el.outerHTML.slice(0, 160))
"""


def stored(names):
    return [p for p in notebook_paths() if p.stem in names]


def open_stored(lab, jupyter_home, name: str, trusted: bool):
    """The stored notebook ``name`` open in JupyterLab, no cell run: signed as trusted (``make lab``), or a copy that
    nobody signed (a notebook's signature is of its content: the copy differs in one metadata entry)."""
    path = jupyter_home.root / "notebooks" / f"{name}.ipynb"
    if trusted:
        jupyter = Path(sys.executable).parent / "jupyter"
        # The signatures live in the server's data folder, which the server's environment names.
        subprocess.run([str(jupyter), "trust", str(path)], env=jupyter_home.env, check=True, capture_output=True)
    else:
        nb = json.loads(path.read_text())
        nb["metadata"]["course_copy"] = "not signed"
        path = path.with_name(f"{name}-unsigned.ipynb")
        path.write_text(json.dumps(nb))
    lab.close_all()
    lab.open(f"notebooks/{path.name}")
    pictures = lab.notebook.locator(PICTURE)
    pictures.first.wait_for(state="visible")
    return pictures


def screenshot(lab, locator, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        locator.scroll_into_view_if_needed()
        lab.page.screenshot(path=str(Path(SHOTS) / name))


def question_texts() -> dict[str, str]:
    """Each practice question's words as a page shows them: its math typeset ("d_k" reads "dk")."""
    from helpers.demos.practice import question_text
    from helpers.exercises import QUESTIONS
    from helpers.look.mathtext import math_html

    def shown(text: str) -> str:
        return " ".join(html.unescape(re.sub(r"<[^>]+>", "", math_html(text))).split())

    return {qid: shown(question_text(q)) for qid, q in QUESTIONS.items()}


def shown_weights(view) -> tuple[list[str], np.ndarray]:
    """The query tokens and the weights of the table in ``view`` (the row sums left out)."""
    rows = view.locator("table tr").evaluate_all(
        "trs => trs.map(tr => [tr.querySelector('th') ? tr.querySelector('th').textContent.trim() : '',"
        " [...tr.querySelectorAll('td')].map(td => td.textContent.trim())])")
    body = [(token, [float(x) for x in cells]) for token, cells in rows
            if cells and all(x.replace(".", "", 1).lstrip("-").isdigit() for x in cells)]
    return [t for t, _ in body], np.array([cells[:-1] for _, cells in body])


def softmax_rows(S: np.ndarray) -> np.ndarray:
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def check_readable(lab, pictures, what: str, trusted: bool = True) -> None:
    """Every picture visible, its controls named and inert, no serious axe finding in it; untrusted, the cells of a
    grid are left out of the names (JupyterLab drops their aria-label; the grid's row and column labels stay)."""
    assert pictures.count() > 0
    problems = []
    for k in range(pictures.count()):
        picture = pictures.nth(k)
        nameless = lab.page.evaluate(JS_NAMELESS, [picture.element_handle(), not trusted])
        enabled = picture.evaluate(JS_ENABLED)
        if nameless:
            problems.append(f"picture {k}: controls without a name: {nameless[:2]}")
        if enabled:
            problems.append(f"picture {k}: controls that are not disabled: {enabled[:2]}")
    assert not problems, f"{what}:\n" + "\n".join(problems)
    if not trusted:
        return  # axe would find the grid cells without a name
    violations = [v for v in axe_violations(lab.page, f".jp-NotebookPanel:not(.lm-mod-hidden) {PICTURE}")
                  if v["impact"] in BLOCKING]
    assert not violations, f"{what}: serious or critical axe findings in the pictures:\n{describe(violations)}"


@pytest.mark.parametrize("path", stored([PRACTICE]), ids=lambda p: p.stem)
def test_stored_practice_shows_its_questions_before_anything_runs(lab, jupyter_home, path):
    pictures = open_stored(lab, jupyter_home, PRACTICE, trusted=True)
    texts = question_texts()
    shown = lab.notebook.locator(f"{PICTURE} .practice-question-text")
    assert shown.count() == len(texts), f"{shown.count()} questions shown, {len(texts)} in the lesson"
    assert [" ".join(t.split()) for t in shown.all_inner_texts()] == list(texts.values())
    for k in range(shown.count()):
        assert shown.nth(k).is_visible()
    # Nothing ran: the questions are the pictures, not live widgets.
    assert lab.notebook.locator(".jupyter-widgets.widget-box").count() == 0
    for theme in (LIGHT, DARK):
        set_theme(lab.page, theme)
        try:
            check_readable(lab, pictures, f"09 stored, {theme}")
            for k in range(shown.count()):
                background, text, ratio = seen(shown.nth(k))
                assert ratio >= 4.5, f"question {k + 1}, {theme}: contrast {ratio:.1f}:1"
                assert (text > background) == (theme == DARK), f"question {k + 1} does not follow {theme}"
            screenshot(lab, shown.first, f"stored-09-{'dark' if theme == DARK else 'light'}.png")
        finally:
            set_theme(lab.page, LIGHT)


@pytest.mark.parametrize("path", stored([PROJECTIONS]), ids=lambda p: p.stem)
def test_stored_projections_shows_its_explorers_weights_before_anything_runs(lab, jupyter_home, path):
    pictures = open_stored(lab, jupyter_home, PROJECTIONS, trusted=True)
    ex = lab.notebook.locator(f"{PICTURE} .attn-explorer-self").first
    view = ex.locator(".attn-view-weights")
    view.wait_for(state="visible")
    # The weights shown are those of the matrices the picture shows (computed here from them, scaled by √d_k).
    X, W_q, W_k = (editor_values(editor(ex, name)) for name in ("X", "W_q", "W_k"))
    Q, K = X @ W_q, X @ W_k
    tokens, weights = shown_weights(view)
    assert len(tokens) == X.shape[0] and all(tokens)
    np.testing.assert_allclose(weights, softmax_rows(Q @ K.T / np.sqrt(K.shape[1])), atol=SHOWN_ATOL)
    # A cell of X is named by its matrix, row and column, as in the live editor: found by that name, as a screen
    # reader would find it.
    assert ex.get_by_role("textbox", name=f"X, row {tokens[0]}, column ").first.is_visible()
    for theme in (LIGHT, DARK):
        set_theme(lab.page, theme)
        try:
            check_readable(lab, pictures, f"02 stored, {theme}")
            cell = view.locator("td").first
            background, text, ratio = seen(view.locator("table th").nth(1))
            assert ratio >= 4.5, f"weights' header, {theme}: contrast {ratio:.1f}:1"
            assert (text > background) == (theme == DARK), f"the weights' header does not follow {theme}"
            assert seen(cell)[2] >= 4.5, f"a weight, {theme}: contrast below 4.5:1"
            screenshot(lab, view, f"stored-02-{'dark' if theme == DARK else 'light'}.png")
        finally:
            set_theme(lab.page, LIGHT)


@pytest.mark.parametrize("path", stored([PRACTICE]), ids=lambda p: p.stem)
def test_an_untrusted_stored_notebook_still_shows_the_words_of_its_pictures(lab, jupyter_home, path):
    open_stored(lab, jupyter_home, PRACTICE, trusted=False)
    shown = lab.notebook.locator(f"{PICTURE} .practice-question-text")
    assert [" ".join(t.split()) for t in shown.all_inner_texts()] == list(question_texts().values())
    # JupyterLab's sanitizer keeps the controls, disabled, and the labels that name the fields (it drops aria-label).
    check_readable(lab, lab.notebook.locator(PICTURE), "09 stored, untrusted", trusted=False)
    screenshot(lab, shown.first, "stored-09-untrusted.png")
