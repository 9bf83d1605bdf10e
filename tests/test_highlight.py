"""Linked highlighting: the tables mark their rows and columns, and the stylesheet ties the marks of linked views."""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.look import highlight
from helpers.look.render import attention_weights_html, matrix_html


def cells(html: str) -> list[list[tuple[str, str]]]:
    """Per body row (its data-row), the (data-col, text) of each number cell, in page order."""
    out = []
    for row, body in re.findall(r'<tr data-row="(\d+)">(.*?)</tr>', html):
        out.append((int(row), re.findall(r'<td [^>]*data-col="(\d+)"[^>]*>([^<]*)</td>', body)))
    return out


def test_every_row_and_number_of_a_linked_table_is_marked_with_its_index():
    M = np.array([[1.0, 2.0, -np.inf], [4.0, 5.0, 6.0]])
    rows = cells(matrix_html(M, ["a", "b"], ["x", "y", "z"], highlight=(1, 2), linked=True))
    assert [r for r, _ in rows] == [0, 1]
    assert [[int(j) for j, _ in c] for _, c in rows] == [[0, 1, 2], [0, 1, 2]]
    assert [t for _, t in rows[0][1]] == ["1", "2", "—"]  # the masked cell is marked too
    html = matrix_html(M, ["a", "b"], ["x", "y", "z"], highlight=(1, 2), linked=True)
    assert re.findall(r'<th data-col="(\d)"[^>]*>([xyz])</th>', html) == [("0", "x"), ("1", "y"), ("2", "z")]
    # The traced cell keeps its outline, and the marks do not make anything focusable unless asked.
    assert re.search(r'<td style="outline:3px solid [^"]*" data-col="2">6</td>', html)
    assert "tabindex" not in html.split("<table", 1)[1]
    # A table shown once, outside a live widget, goes without the marks: nothing highlights there.
    plain = matrix_html(M, ["a", "b"], ["x", "y", "z"], highlight=(1, 2))
    assert "data-row" not in plain and "data-col" not in plain and plain.count("<td") == html.count("<td")


def test_focusable_tables_let_the_keyboard_reach_every_weight_and_query_label():
    W = np.full((3, 3), 1 / 3)
    html = attention_weights_html(W, list("abc"), list("abc"), focusable=True)
    table = html.split("<table", 1)[1]
    assert len(re.findall(r'<td [^>]*data-col="\d"[^>]*tabindex="0"', table)) == 9
    assert len(re.findall(r'<th tabindex="0"', table)) == 3
    assert table.count('tabindex="0"') == 12  # not the row sums, not the column labels


def test_a_link_outlines_the_same_index_of_its_targets_only():
    css = highlight.link_css("box", [([highlight.rows("src")], [highlight.rows("dst"), highlight.cols("grid")])], 3)
    rules = css.splitlines()
    assert len(rules) == 3
    for k, rule in enumerate(rules):
        sources, targets = rule.split(") :is(", 1)
        assert rule.startswith(".box:has(")
        assert set(re.findall(r'data-(?:row|col)="(\d+)"', rule)) == {str(k)}
        assert f'.src tr[data-row="{k}"]>:is(td,th):is(:hover,:focus)' in sources
        assert f'.dst tr[data-row="{k}"]>*' in targets and f'.grid [data-col="{k}"]' in targets
        assert rule.endswith("{" + highlight.LINKED_STYLE + "}")
    assert highlight.link_css("box", [([highlight.rows("a")], [highlight.rows("b")])], 0) == ""
    with pytest.raises(ValueError, match="n must be"):
        highlight.link_css("box", [], -1)


def test_the_legend_draws_each_mark_with_the_style_it_explains():
    html = highlight.legend_html([(highlight.TRACED_STYLE, "traced"), (highlight.LINKED_STYLE, "linked")])
    assert html.index(highlight.TRACED_STYLE) < html.index("traced") < html.index(highlight.LINKED_STYLE)
    assert html.index(highlight.LINKED_STYLE) < html.index("linked")
