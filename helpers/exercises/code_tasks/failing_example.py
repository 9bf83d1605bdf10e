"""The example a learner's function fails on, as text: the input, what was expected, what came back.

A check that finds something wrong keeps the first example it went wrong on (``Feedback.example``): a Find the bug
cell shows it before it names any mistake, and a hint ladder shows it as its second step. The text reads like code:
each argument as a nested list (``X = [[1, 0, 0, 2], ...]``, columns aligned), then each result expected beside the
learner's, then the first entry that differs. It says nothing about *why* the result is wrong.
"""

from __future__ import annotations

import numpy as np

from helpers.core.explain import fmt, shape_text
from helpers.core.numbers import number_text

__all__ = ["MAX_ENTRIES", "MAX_WIDTH", "DECIMALS", "array_lines", "side_by_side", "example_text"]

# An array with more entries than this (or more than three axes) is described by its shape: a learner reads a
# 6 × 6 matrix at a glance, not a 4-axis batch.
MAX_ENTRIES = 40
# Two columns (expected, yours) wider than this are put one under the other instead.
MAX_WIDTH = 96
# Decimals of an array that holds more than whole numbers.
DECIMALS = 4
_GAP = "    "


def _entry(x, decimals: int | None = None) -> str:
    """One entry: ``True``, ``2``, or with ``decimals`` fixed decimals so that a column's points line up."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    # Code, which the learner may paste into a cell: Python's hyphen-minus, not the minus sign of shown numbers.
    return fmt(x, code=True) if decimals is None else number_text(x, decimals, trim=False, minus="-")


def array_lines(value) -> list[str]:
    """``value`` as nested-list text, one line per row, columns aligned (``[[1, 0], [2, 1]]`` on two lines).

    A scalar or a list of scalars is one line; an array of more than :data:`MAX_ENTRIES` entries or three axes is
    ``an array of shape (2, 3, 4, 2)``; something that is not an array of numbers is said in words.
    """
    if isinstance(value, (int, float, np.integer, np.floating, bool, np.bool_)):
        return [_entry(value)]
    try:
        a = np.asarray(value)
    except Exception:  # noqa: BLE001 - a ragged list or an odd object: said in words
        return [f"a {type(value).__name__}"]
    if a.dtype.kind not in "biuf":
        return [f"a {type(value).__name__}"]
    if a.ndim == 0:
        return [_entry(a[()])]
    if a.size > MAX_ENTRIES or a.ndim > 3 or a.size == 0:
        return [f"an array of shape {shape_text(a.shape)}"]
    # Whole numbers as they are typed (1, -2); any other number makes every entry show DECIMALS decimals.
    whole = a.dtype.kind in "biu" or bool(np.all(np.isfinite(a) & (a == np.round(a))))
    texts = np.vectorize(lambda x: _entry(x, None if whole else DECIMALS), otypes=[object])(a)
    width = max(len(t) for t in texts.flat)
    return _nested(texts, width)


def _nested(texts: np.ndarray, width: int) -> list[str]:
    """The lines of ``texts`` (an object array of entry texts) in brackets, every entry ``width`` wide."""
    if texts.ndim == 1:
        return ["[" + ", ".join(t.rjust(width) for t in texts) + "]"]
    blocks = [_nested(sub, width) for sub in texts]
    lines = []
    for k, block in enumerate(blocks):
        for j, line in enumerate(block):
            lead = "[" if k == 0 and j == 0 else " "
            comma = "," if j == len(block) - 1 and k < len(blocks) - 1 else ""
            lines.append(lead + line + comma)
    lines[-1] += "]"
    return lines


def side_by_side(left: list[str], right: list[str]) -> list[str]:
    """Two blocks of lines as two columns (the left one padded), or one under the other if too wide."""
    width = max(len(line) for line in left)
    if width + len(_GAP) + max(len(line) for line in right) > MAX_WIDTH:
        return left + right
    rows = max(len(left), len(right))
    left, right = left + [""] * (rows - len(left)), right + [""] * (rows - len(right))
    return [(a.ljust(width) + _GAP + b).rstrip() for a, b in zip(left, right)]


def _assignment(name: str, value, width: int) -> list[str]:
    lines = array_lines(value)
    lead = f"{name.ljust(width)} = "
    return [lead + lines[0]] + [" " * len(lead) + line for line in lines[1:]]


def example_text(case_name: str, arg_names, args, outputs, expected, got, last_line: str) -> str:
    """The failing example as text.

    Parameters
    ----------
    case_name : str
        What the example is (``'"The cat sat" (02), X 3×4, W 4×2'``).
    arg_names, args : sequences
        The function's parameter names and the arguments it was called with (as they were before the call).
    outputs : tuple of (name, shape in words)
        The task's results.
    expected : tuple of arrays
        The right results.
    got : tuple of arrays or None
        The learner's results, one per output, or None if there are none to show (the function raised, returned
        something else, or ran too long): ``last_line`` then says what happened.
    last_line : str
        What went wrong, in one sentence ("First difference: weights entry (0, 0) is 0.014; expected 0.1636.").
    """
    width = max(len(n) for n in arg_names)
    lines = [f"The example: {case_name}"]
    for name, value in zip(arg_names, args):
        lines += _assignment(name, value, width)
    for k, (name, _) in enumerate(outputs):
        want = [f"{name}, expected"] + array_lines(expected[k])
        if got is None:
            lines += want
        else:
            lines += side_by_side(want, [f"{name}, yours"] + array_lines(got[k]))
    lines.append(last_line)
    return "\n".join(lines)
