"""One true minus sign (U+2212) in every number the course shows, the hyphen-minus in code a learner copies, and both
read back by the parser.

What the scan of the stored notebooks covers, and why:

* checked: every rich output (``text/html``) a cell displays, which is what the course's own code shows (tables,
  legends, widgets' pictures, verdicts, traces); and a ``text/plain`` output that has no HTML form;
* not checked: what a learner's own code prints (streams: ``print(np.array(...))`` writes numpy's hyphen, and so
  does the learner's Python everywhere else), the contents of ``<pre>``, ``<code>`` and ``<textarea>`` (a learner's
  printed output shown folded until a prediction, code literals and failing examples written as nested lists,
  which a learner pastes into code and which must run), and numpy reprs (``array([...])``), which are Python's.
"""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

from helpers.core import explain
from helpers.core.numbers import MINUS, number_text
from helpers.core.parsing import parse_matrix, parse_number
from helpers.exercises.code_tasks.failing_example import array_lines
from helpers.look import render
from helpers.widgets.matrix_editor import MatrixEditor

from conftest import NOTEBOOKS

HYPHEN_NUMBER = re.compile(r"(?<![\w.\-−])-(?=\.?\d)")


def test_the_minus_sign_is_u2212():
    assert MINUS == "\u2212" == "−"


@pytest.mark.parametrize(("fmt", "x", "shown"), [
    (lambda x: number_text(x, mark_tiny=True), -1.29, "−1.29"),
    (lambda x: number_text(x, 2, trim=False), -1.29, "−1.29"),
    (lambda x: render.number_format([x, 2.5])(x), -1.29, "−1.29"),
    (explain.fmt, -1.25, "−1.25"),
    (number_text, -3e6, "−3e+06"),
    (number_text, float("-inf"), "−∞"),
])
def test_every_formatter_writes_the_true_minus(fmt, x, shown):
    assert fmt(x) == shown


@pytest.mark.parametrize("x", [-0.001, -1e-12, -0.004999])
def test_a_number_that_rounds_to_zero_has_no_sign(x):
    for text in (number_text(x, mark_tiny=True), number_text(x, 2, trim=False)):
        assert not text.startswith(("-", "−")), text


def test_a_matrix_html_table_writes_negative_entries_with_the_true_minus():
    page = render.matrix_html(np.array([[-1.29, 0.5], [2.0, -0.001]]))
    text = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", page, flags=re.S)))
    assert "−1.29" in text and not HYPHEN_NUMBER.search(text)
    assert "−0.00" not in text


def test_the_trace_lines_of_a_calculation_use_the_true_minus():
    lines = explain.matmul_lines(np.array([[1.0, -2.0]]), np.array([[3.0], [-1.0]]), "C", "A", "B")
    assert "1·3 + (−2)·(−1) = 5" in lines[1]
    assert not any(HYPHEN_NUMBER.search(line) for line in lines)


@pytest.mark.parametrize(("shown", "value"), [("−1.29", -1.29), ("−1/2", -0.5), ("−3e+06", -3e6), ("1e−3", 1e-3)])
def test_a_number_copied_from_the_page_reads_back(shown, value):
    assert parse_number(shown) == pytest.approx(value)


def test_a_shown_matrix_pasted_back_reads_as_the_same_matrix():
    shown = explain.format_matrix([[1.5, -2.0], [0.0, -0.25]], code=False)
    assert "−2" in shown
    assert np.array_equal(parse_matrix(shown),
                          [[1.5, -2.0], [0.0, -0.25]])


def test_code_a_learner_copies_keeps_the_hyphen_and_runs():
    ed = MatrixEditor(np.array([[1.0, -0.5], [-2.0, 3.0]]))
    literal = ed.as_numpy_literal()
    assert "−" not in literal and "-0.5" in literal
    assert np.array_equal(eval(literal, {"np": np}), ed.value)  # noqa: S307 - the course's own literal
    lines = array_lines(np.array([[1, -2], [3, 4]]))
    assert "−" not in "".join(lines) and eval("".join(lines)) == [[1, -2], [3, 4]]  # noqa: S307


def _shown_text(output) -> list[tuple[str, str]]:
    """The texts an output shows that the course wrote: (kind, text)."""
    data = output.get("data", {})
    if "text/html" in data:
        page = "".join(data["text/html"])
        page = re.sub(r"<(style|script|pre|code|textarea)\b.*?</\1>", " ", page, flags=re.S | re.I)
        return [("text/html", html.unescape(re.sub(r"<[^>]+>", " ", page)))]
    if "text/plain" in data:
        text = "".join(data["text/plain"])
        if not text.lstrip().startswith(("array(", "[", "(", "np.")):
            return [("text/plain", text)]
    return []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_stored_notebook_shows_no_hyphen_for_a_minus(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for k, cell in enumerate(nb["cells"]):
        for output in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            for kind, text in _shown_text(output):
                for m in HYPHEN_NUMBER.finditer(text):
                    found.append(f"cell {k} {kind}: …{text[max(0, m.start() - 40):m.end() + 10]!r}…")
    assert not found, "\n".join(found[:10])
