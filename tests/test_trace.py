"""The explorer's trace as a person sees it: a stepped calculation in prose (not a monospace block that cuts words),
the traced key's parts highlighted, and folded by default in the lecture mode only."""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.look.mathtext import math_html
from helpers.widgets import AttentionExplorer

from conftest import html_text

TOKENS = ["the", "cat", "sat", "down"]
X0 = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
WQ = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]])
WK = np.array([[0.0, 1.0], [1.0, 0.0], [-1.0, 1.0]])
WV = np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 1.0], [2.0, 1.0, 0.0]])


def below(root, cls):
    out, stack = [], [root]
    while stack:
        w = stack.pop()
        if cls in getattr(w, "_dom_classes", ()):
            out.append(w)
        stack.extend(getattr(w, "children", ()))
    assert len(out) == 1, f"{len(out)} widgets with class {cls}"
    return out[0]


def explorer(monkeypatch, lecture: bool) -> AttentionExplorer:
    monkeypatch.setenv("COURSE_LECTURE", "1" if lecture else "0")
    return AttentionExplorer(TOKENS, X0, WQ, WK, WV)


def shown(w, ex) -> bool:
    """What a person sees: ``w`` is on the page (in the explorer's tree of children) and not hidden."""
    def holds(box) -> bool:
        return any(c is w or holds(c) for c in getattr(box, "children", ()))
    return holds(ex) and w.layout.display != "none"


def test_the_trace_is_prose_that_wraps_between_words_not_a_monospace_block(monkeypatch):
    ex = explorer(monkeypatch, lecture=False)
    html = ex.views["trace"].value
    assert "<pre" not in html and "monospace" not in html
    # Wraps at spaces only: nothing lets the browser cut a word ("overfl ow") or a number.
    assert "white-space:normal" in html and "overflow-wrap:normal" in html and "word-break:normal" in html
    assert "break-all" not in html and "anywhere" not in html and "pre-wrap" not in html
    # The words of the text form, all of them, in the picture (its math typeset: "√d_k" is √d<sub>k</sub>).
    def words(markup):
        return html_text(re.sub(r"</?su[bp]>", "", re.sub(r"<style>.*?</style>", "", markup)))

    assert words(math_html(ex.trace_text)) == re.sub(r" \(the parts of key \w+ highlighted\)", "", words(html))


def test_the_trace_is_three_numbered_steps_with_the_traced_key_highlighted(monkeypatch):
    ex = explorer(monkeypatch, lecture=False)
    below(ex, "attn-trace-query").value, below(ex, "attn-trace-key").value = 2, 1
    html = ex.views["trace"].value
    steps = re.findall(r'<li class="trace-step"[^>]*><div class="trace-step-title"[^>]*>(.*?)</div>', html)
    assert len(steps) == 3
    assert [s.split()[0] for s in steps] == ["④⑤", "⑦", "⑧"]
    current = [html_text(m) for m in re.findall(r'<span class="trace-term trace-current"[^>]*>(.*?)</span>', html)]
    # Key 'cat' (column 1): its term of the softmax's sum and of the output's sums, nothing of the other keys.
    assert current and all("the" not in c and "sat" not in c and "down" not in c for c in current)
    assert any("v(cat)" in c for c in current)
    assert not any(" = " in c for c in current)  # a term, not the name of the sum or its result
    lines = [html_text(m) for m in re.findall(r'<div class="trace-line"[^>]*><span class="trace-current"[^>]*>(.*?)'
                                              r'</span></div>', html)]
    assert any(line.startswith("cat: exp(") for line in lines)
    assert any(line.startswith("weight cat = ") for line in lines)
    assert not any(line.startswith(("the:", "sat:", "down:", "weight the", "weight sat")) for line in lines)


def test_every_number_of_the_trace_has_the_true_minus_sign(monkeypatch):
    ex = explorer(monkeypatch, lecture=False)
    assert "\u2212" in ex.trace_text
    assert not re.search(r"-\d", ex.trace_text)
    assert not re.search(r"-\d", html_text(re.sub(r"<style>.*?</style>", "", ex.views["trace"].value)))


@pytest.mark.parametrize("lecture", [False, True])
def test_the_trace_is_folded_in_the_lecture_mode_only_and_a_redraw_keeps_the_fold(monkeypatch, lecture):
    ex = explorer(monkeypatch, lecture)
    toggle = below(ex, "attn-trace-toggle")
    assert shown(ex.views["trace"], ex) is (not lecture)
    assert ("show the calculation" in toggle.description) is lecture
    toggle.click()
    assert shown(ex.views["trace"], ex) is lecture
    ex.editors["X"].set_text(0, 0, "2")  # the trace is drawn again: the fold stays as the button left it
    assert shown(ex.views["trace"], ex) is lecture
    assert ("hide the calculation" in toggle.description) is lecture
    # Folding the calculation hides it alone: the weights and the output stay in view.
    toggle.click()
    assert shown(ex.views["weights"], ex) and shown(ex.views["output"], ex)
