"""One number format everywhere: significant digits from 10⁵ up, never a run of dozens of digits; and one limit for
what a learner may type, which keeps everything computed from it finite."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from helpers.core import explain
from helpers.core.attention import attention_stages
from helpers.core.numbers import number_text
from helpers.core.parsing import MAX_MAGNITUDE, ParseError, parse_number
from helpers.widgets.matrix_editor import MatrixEditor, cell_text

import junk


@pytest.mark.parametrize(("x", "shown"), [
    (1e200, "1e+200"), (-1e200, "−1e+200"), (1e15, "1e+15"), (123456.0, "1.235e+05"), (99999.0, "99999"),
    (0.5, "0.5"), (2.0, "2"), (-0.00001, "0"), (float("inf"), "∞"), (-float("inf"), "−∞"),
])
def test_the_trace_format_writes_huge_numbers_with_significant_digits(x, shown):
    assert explain.fmt(x, 3) == shown


@pytest.mark.parametrize(("x", "cell", "fixed"), [
    (1e200, "1e+200", "1e+200"), (123456.0, "1.23e+05", "1.23e+05"), (0.001, "0.00", "0.00"), (-0.001, "0.00", "0.00"),
    (0.25, "0.25", "0.25"), (1.0, "1", "1.00"), (0.0, "0", "0.00"),
])
def test_table_cells_use_the_same_format(x, cell, fixed):
    assert number_text(x, mark_tiny=True) == cell
    assert number_text(x, 2, trim=False) == fixed


@pytest.mark.parametrize("x", [0.0, 3.0, -2.5, 1 / 3, 123456.0, 1e15, -1e15, 1e-7, 1e200])
def test_a_cell_shows_a_short_text_that_reads_back_as_the_number(x):
    text = cell_text(x)
    assert len(text) <= 9, text
    if abs(x) <= MAX_MAGNITUDE:
        assert parse_number(text) == pytest.approx(x, rel=1e-5)


@pytest.mark.parametrize("x", [np.inf, -np.inf, np.nan])
def test_a_cell_shows_infinity_and_nan_as_every_view_does(x):
    # An editor given a value that is not finite shows it (no error) in the words of the tables and traces.
    assert cell_text(x) == number_text(x) == number_text(x, mark_tiny=True)
    assert cell_text(x) == {np.inf: "∞", -np.inf: "−∞"}.get(x, "nan")


def test_no_formatter_writes_a_run_of_digits():
    for x in [1e15 + 1, 1e100, 1e300, 123456789012.5]:
        for text in (explain.fmt(x), number_text(x, mark_tiny=True), number_text(x, 2, trim=False), cell_text(x),
                     number_text(x, 6)):
            assert not re.search(r"[0-9]{10}", text), text


def test_the_limit_is_typed_as_junk_knows_it_and_one_more_order_is_refused():
    assert parse_number(junk.LARGEST) == MAX_MAGNITUDE
    with pytest.raises(ParseError, match=r"'1e16' is too large: the limit is 1e15"):
        parse_number("1e16")
    refused = dict(junk.REFUSED_AS_NUMBER)
    assert refused["1e200"] == "too large"


def test_entries_at_the_limit_keep_every_stage_finite():
    # The largest entries the course's widgets take: d_model and d_k up to 16, every entry at the limit.
    X = np.full((24, 16), MAX_MAGNITUDE)
    W = np.full((16, 16), -MAX_MAGNITUDE)
    res = attention_stages(X, X, W, W, W, mask="causal", scale=False)
    for stage in (res.Q, res.scores, res.weights, res.output):
        assert np.isfinite(stage).all()


def test_an_editor_refuses_1e200_naming_the_limit_and_keeps_its_value():
    ed = MatrixEditor(np.eye(2))
    ed.set_text(0, 1, "1e200")
    assert "'1e200' is too large: the limit is 1e15" in ed.message
    np.testing.assert_array_equal(ed.value, np.eye(2))
    ed.set_text(0, 1, "1e15")
    assert ed.message == "" and ed.value[0, 1] == 1e15


# A format spec on a number in the source of helpers/ (`{x:.2f}`, `%.2f`, `format(x, ".2f")`, `{round(x, 2)}`): a
# number shown that way escapes the one formatter (its minus sign, its ∞, its exponent for large magnitudes).
AD_HOC_FORMAT = re.compile(r"\{[^}]*:[-+ ]?[0-9]*\.[0-9]+[fge%]\}|%\.[0-9]f|format\([^)]*\.[0-9]f|\{round\(")
# What is not a number the course shows, each with why.
NOT_SHOWN_NUMBERS = {
    ("theme.py", "SCALE_STEPS:.1f}%"): "a CSS colour-mix percentage",
    ("theme.py", "{pct:.1f}%"): "a CSS gradient stop",
    ("class_report.py", "width:{width:.1f}%"): "a CSS width of a bar",
    ("class_report.py", "{value:.1f}"): "a CSV cell for a spreadsheet, which reads the hyphen-minus",
    ("class_report.py", "{g.gain:.3f}"): "a CSV cell for a spreadsheet, which reads the hyphen-minus",
    ("trace.py", "{pad:.1f}em"): "a CSS indent",
    ("figure_output.py", "zoom:.0f}px"): "an SVG's size in CSS pixels",
    ("figure_output.py", "{round(pixels * zoom / density)}"): "an image's width attribute in pixels",
    ("layout.py", "{label_em:.1f}em"): "a CSS width",
    ("layout.py", "field_em:.1f}em"): "a CSS width",
}


def test_every_number_the_course_shows_goes_through_the_one_formatter():
    root = Path(__file__).resolve().parent.parent / "helpers"
    found, allowed = [], set()
    for path in sorted(root.rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not AD_HOC_FORMAT.search(line):
                continue
            reason = [key for key in NOT_SHOWN_NUMBERS if key[0] == path.name and key[1] in line]
            if reason:
                allowed.update(reason)
            else:
                found.append(f"{path.relative_to(root.parent)}:{n}: {line.strip()}")
    assert not found, "write these with helpers.core.numbers.number_text:\n" + "\n".join(found)
    assert allowed == set(NOT_SHOWN_NUMBERS), f"allowed but gone: {set(NOT_SHOWN_NUMBERS) - allowed}"


@pytest.mark.parametrize(("x", "kwargs", "text"), [
    (12.345, dict(decimals=1, trim=False, unit=" %"), "12.3 %"),
    (40.0, dict(decimals=0, unit="%"), "40%"),
    (3.25, dict(unit=" ms"), "3.25 ms"),
    (1.3e-9, dict(decimals=None), "1.3e−09"),
    (-2.5e6, dict(decimals=None, sig=2), "−2.5e+06"),
    (0.0, dict(decimals=None), "0"),
])
def test_the_formatter_writes_units_and_significant_digits(x, kwargs, text):
    assert number_text(x, **kwargs) == text
