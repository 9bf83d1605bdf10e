"""Reading a learner's answer, whatever its form, and comparing it with the right one.

Every checker of a lesson question or a generated problem reads the answer's parts through this module:
numbers, counts, shapes and matrices given as Python values, numpy arrays or typed text (read by
:mod:`helpers.core.parsing`, so the forms and messages are the course's everywhere). A part that cannot be
read raises :class:`Unreadable`, whose text says why; :func:`safe_check` turns it, and anything else a
checker did not foresee, into :class:`~helpers.exercises.feedback.Feedback`, so no answer ever gives a traceback.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core import questions as text
from helpers.core.explain import fmt, format_matrix, shape_text
from helpers.core.parsing import ParseError, parse_count, parse_matrix, parse_number, parse_shape
from helpers.exercises.feedback import Feedback

__all__ = [
    "ROUNDED_TOL",
    "EXACT_TOL",
    "Unreadable",
    "describe",
    "is_blank",
    "named_error",
    "parsed",
    "read_number",
    "read_count",
    "read_shape",
    "read_matrix",
    "read_parts",
    "read_matrix_part",
    "safe_check",
    "verdict_head",
    "entry_name",
    "all_close",
    "first_wrong",
    "check_entries",
]

# Generated problems accept answers rounded to 2 decimals: half a unit in the last place.
ROUNDED_TOL = 0.005
# The lesson's own numbers (Q5) are exact; only floating-point noise is forgiven.
EXACT_TOL = 1e-6


class Unreadable(Exception):
    """An answer (or one part of it) that cannot be read; the text says why, for the learner."""


def describe(x) -> str:
    """A short description of what the learner gave, for messages."""
    if x is None:
        return "nothing (None)"
    if isinstance(x, str):
        return f"the text {x[:40]!r}" if x.strip() else "an empty text"
    return f"{repr(x)[:40]} ({type(x).__name__})"


def named_error(what: str, err: ParseError) -> Unreadable:
    """A parse error with the field's name in front: ``d_k: '6 4' is not a number``, ``d_k is empty``."""
    message = str(err)
    return Unreadable(f"{what} {message}" if message.startswith("is ") else f"{what}: {message}")


def parsed(parse, text: str, what: str, *args):
    """``parse(text, *args)`` (a reader of :mod:`helpers.core.parsing`), its ParseError raised as :func:`named_error`'s
    Unreadable for the field ``what``."""
    try:
        return parse(text, *args)
    except ParseError as err:
        raise named_error(what, err) from None


def is_blank(v) -> bool:
    """True for a part the learner left empty (None or only spaces)."""
    return v is None or (isinstance(v, str) and not v.strip())


def read_number(x, what: str) -> float:
    """A finite real number from text (:func:`helpers.core.parsing.parse_number`), a number or a 0-d array."""
    if isinstance(x, str):
        return parsed(parse_number, x, what)
    if isinstance(x, (bool, np.bool_)):
        raise Unreadable(f"{what} should be a number, not {x}")
    if isinstance(x, (int, float, np.integer, np.floating)):
        value = float(x)
    elif isinstance(x, np.ndarray) and x.size == 1 and x.dtype.kind in "iuf":
        value = float(x.reshape(()))
    else:
        raise Unreadable(f"{what} should be a number; got {describe(x)}")
    if math.isnan(value):
        raise Unreadable(f"{what} is NaN, not a finite number")
    if math.isinf(value):
        raise Unreadable(f"{what} is infinite, not a finite number")
    return value


def read_count(x, what: str) -> int:
    """A whole number; typed text may group thousands (:func:`helpers.core.parsing.parse_count`)."""
    if isinstance(x, str):
        return parsed(parse_count, x, what)
    value = read_number(x, what)
    if value != int(value):
        raise Unreadable(f"{what}: {fmt(value)} is not a whole number")
    return int(value)


def read_shape(x, what: str) -> tuple[int, ...]:
    """A shape from a tuple, list or 1-d array of counts, or text (:func:`helpers.core.parsing.parse_shape`)."""
    if isinstance(x, str):
        return parsed(parse_shape, x, what)
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise Unreadable(f"{what} should be a flat list of numbers; got an array of shape {x.shape}")
        x = list(x)
    if not isinstance(x, (tuple, list)):
        raise Unreadable(f"{what} should be a list of numbers like (32, 64); got {describe(x)}")
    return tuple(read_count(v, f"{what}: entry {k + 1}") for k, v in enumerate(x))


def _typed_entries(x, what: str):
    """Nested lists with every text entry read by :func:`helpers.core.parsing.parse_number`."""
    if isinstance(x, str):
        return parsed(parse_number, x, what)
    if isinstance(x, (list, tuple)):
        return [_typed_entries(v, what) for v in x]
    return x


def read_matrix(x, what: str) -> np.ndarray:
    """A real matrix (or vector) from an array, nested lists, or text (:func:`helpers.core.parsing.parse_matrix`)."""
    if x is None:
        raise Unreadable(f"{what} is missing")
    if isinstance(x, str):
        return parsed(parse_matrix, x, what)
    if isinstance(x, (bool, np.bool_)):
        raise Unreadable(f"{what} should be a matrix of numbers, not {x}")
    if isinstance(x, np.ndarray) and x.dtype.kind == "b":
        raise Unreadable(f"{what} should hold numbers, not True/False")
    x = _typed_entries(x, what)
    try:
        arr = np.asarray(x, dtype=float)
    except (ValueError, TypeError):
        if isinstance(x, (list, tuple)) and len({len(r) if isinstance(r, (list, tuple)) else -1 for r in x}) > 1:
            raise Unreadable(f"{what} is not rectangular: its rows have different lengths") from None
        raise Unreadable(f"{what} should be a matrix of numbers; got {describe(x)}") from None
    if np.iscomplexobj(arr):
        raise Unreadable(f"{what} should hold real numbers")
    if np.isnan(arr).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(arr))[0])
        raise Unreadable(f"{what} contains NaN at {where}: fill in every entry")
    if np.isinf(arr).any():
        raise Unreadable(f"{what} contains an infinite entry")
    return arr


def read_parts(answer, keys, example: str) -> dict:
    """``answer`` if it is a dict with at least one of ``keys`` filled in; else Unreadable, showing ``example``."""
    if not isinstance(answer, dict):
        raise Unreadable(text.VERDICTS["expected_dict"].format(keys=", ".join(keys), example=example,
                                                               got=describe(answer)))
    if all(is_blank(answer.get(k)) for k in keys):
        raise Unreadable(text.VERDICTS["nothing_yet"].format(keys=", ".join(keys)))
    return answer


def safe_check(checker, answer) -> Feedback:
    """``checker(answer)``, except that no answer can make it raise: unreadable input becomes Feedback."""
    try:
        return checker(answer)
    except Unreadable as err:
        return Feedback(False, str(err))
    except Exception as err:  # noqa: BLE001 - a learner's input must never produce a traceback
        return Feedback(False, text.VERDICTS["unforeseen"].format(error=type(err).__name__, got=describe(answer)))


def verdict_head(n_right: int, total: int, all_right: str) -> str:
    """The first line of a verdict: ``text.VERDICTS[all_right]`` or "2 of 3 right."."""
    if n_right == total:
        return text.VERDICTS[all_right]
    return text.VERDICTS["some_right"].format(right=n_right, total=total)


def entry_name(name: str, i: int, j: int) -> str:
    """How the course names entry (i, j) of matrix ``name`` (row and column counted from 1 and from 0)."""
    return text.ENTRY.format(name=name, row=i + 1, col=j + 1, i=i, j=j)


def all_close(a: np.ndarray, b: np.ndarray, tol) -> bool:
    """True if ``a`` and ``b`` have one shape and every entry differs by at most ``tol`` (a number or per column)."""
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= np.asarray(tol) + 1e-12))


def first_wrong(a: np.ndarray, b: np.ndarray, tol) -> tuple[int, ...]:
    """The index of the first entry where ``a`` and ``b`` (one shape) differ by more than ``tol``."""
    bad = np.abs(a - b) > np.asarray(tol) + 1e-12
    return tuple(int(i) for i in np.argwhere(bad)[0])


def read_matrix_part(answer: dict, key: str, shape, axes: str = "") -> tuple[np.ndarray | None, str | None]:
    """Part ``key`` of ``answer`` as a matrix of ``shape``, or why it cannot be (a ✗ line).

    ``axes`` names the shape's axes in the message (``"(n_q, n_k)"``).
    """
    value = answer.get(key)
    if is_blank(value):
        return None, f"✗ {key}: {text.VERDICTS['missing']}"
    try:
        got = read_matrix(value, key)
    except Unreadable as err:
        return None, f"✗ {err}"
    if got.shape != tuple(shape):
        if got.size == int(np.prod(shape)) and got.ndim != len(shape) and max(shape) == got.size:
            got = got.reshape(shape)  # a vector written flat or as a 1×n row: the same numbers
        else:
            why = text.MATRIX_SHAPE.format(axes=f"{axes} = " if axes else "", expected=shape_text(shape),
                                           sizes="×".join(str(s) for s in shape), got=shape_text(got.shape))
            return None, f"✗ {key}: {why}"
    return got, None


def check_entries(answer, expected: dict, tol: float = ROUNDED_TOL) -> Feedback:
    """The default checker of a generated kind: every part of ``expected`` entry by entry.

    Parameters
    ----------
    answer : dict
        Part name -> matrix (array, nested lists or typed text); anything else gets Feedback.
    expected : dict
        Part name -> the right matrix.
    tol : float
        Largest accepted difference of an entry (default: answers rounded to 2 decimals).
    """
    answer = read_parts(answer, tuple(expected), "{" + ", ".join(f"'{k}': [[...]]" for k in expected) + "}")
    lines, n_right = [], 0
    for key, value in expected.items():
        want = np.atleast_2d(np.asarray(value, dtype=float))
        got, err = read_matrix_part(answer, key, want.shape)
        if err:
            lines.append(err)
        elif all_close(got, want, tol):
            n_right += 1
            lines.append(f"✓ {key} = {format_matrix(want, code=False)}")
        else:
            i, j = first_wrong(got, want, tol)
            lines.append(f"✗ {key}: {entry_name(key, i, j)} is off")
    return Feedback(n_right == len(expected), "\n".join([verdict_head(n_right, len(expected), "entries_right"),
                                                         *lines]))
