"""How the course writes a number: one formatter for table cells, traces, editor cells and messages.

Below :data:`EXPONENT_FROM` a number is written with a fixed number of decimals (``0.25``, ``−1.5``, ``3``);
from there up it is written with significant digits and an exponent (``1.23e+05``, ``1e+200``), so that no view
ever shows a run of dozens of digits. ``±∞`` is written ``∞`` / ``−∞``, and a value that rounds to zero never
carries a sign (``−0.00`` would only puzzle). A negative number carries the true minus sign :data:`MINUS` (U+2212),
as ``−∞`` does, never the hyphen-minus of code: the hyphen is shorter and sits lower, so ``-1.29`` beside ``−∞`` reads
as two different signs. Text a learner copies into code (a numpy literal, a failing example written as nested lists)
asks for ``minus="-"``; :func:`helpers.core.parsing.parse_number` reads both signs back.

A view that shows many numbers (a table, a figure) writes them all one way: :func:`number_format` chooses that way
from all of them. :func:`helpers.core.explain.fmt` writes a number in a sentence, with up to four decimals. An editor's
cell (:func:`helpers.widgets.matrix_editor.cell_text`) shows the same signs, ``∞`` and ``nan`` as every other view.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["EXPONENT_FROM", "MINUS", "number_format", "number_text", "significant"]

# From this magnitude up, significant digits and an exponent: 99999 still reads at a glance, 100000 in a narrow
# table cell already does not.
EXPONENT_FROM = 1e5

# The minus sign of every number the course shows.
MINUS = "\u2212"


def significant(x: float, digits: int) -> str:
    """``x`` with at most ``digits`` significant digits, trailing zeros dropped: ``1e+200``, ``1.23e+05``, ``0.333``."""
    return f"{float(x):.{max(int(digits), 1)}g}"


def number_text(x, decimals: int | None = 2, *, trim: bool = True, sig: int | None = None,
                mark_tiny: bool = False, minus: str = MINUS, unit: str = "") -> str:
    """A number as the course writes it.

    Parameters
    ----------
    x : float
    decimals : int or None
        Decimals below :data:`EXPONENT_FROM`. None: ``sig`` significant digits at every magnitude, with an exponent
        where Python's ``g`` format puts one (``1.3e-09``, ``2.5e+06``, ``0.25``): a number whose size is the point
        (a difference that should be 0, a score beyond a limit).
    trim : bool
        Drop trailing zeros (``0.5``, ``2``); False keeps exactly ``decimals`` (``0.50``, ``2.00``), so that a
        column of numbers lines up.
    sig : int, optional
        Significant digits from :data:`EXPONENT_FROM` up; default ``decimals + 1`` (at least 2).
    mark_tiny : bool
        A value that is not zero but rounds to zero shows as ``0.00`` (``decimals`` zeros, no sign) rather than
        ``0``, so that it is not mistaken for an exact zero; with ``trim`` only.
    minus : str
        The sign of a negative number (and of a negative exponent): :data:`MINUS`, or ``"-"`` for text that is code.
    unit : str
        Written right after the number, with the space the view puts before it, if any: ``" %"`` gives ``12.5 %``,
        ``"%"`` gives ``40%`` (a count's share in a narrow cell), ``" ms"`` gives ``3.25 ms``.

    Returns
    -------
    str
    """
    text = _signed(_ascii_number_text(x, decimals, trim, sig, mark_tiny), minus)
    return text + unit


def _signed(text: str, minus: str) -> str:
    """``text`` (written by Python, with hyphen-minus signs) with ``minus`` for each sign."""
    return text if minus == "-" else text.replace("-", minus)


def _ascii_number_text(x, decimals: int | None, trim: bool, sig: int | None, mark_tiny: bool) -> str:
    """:func:`number_text` with the hyphen-minus that Python writes."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"  # not code in any case: written as the lesson writes it
    if decimals is None:
        return "0" if x == 0 else significant(x, sig if sig is not None else 2)
    if abs(x) >= EXPONENT_FROM:
        return significant(x, sig if sig is not None else max(decimals + 1, 2))
    if x == 0:
        return "0" if trim else f"{0:.{decimals}f}"
    # f-string rounding is the same correctly rounded decimal conversion as round().
    text = f"{x:.{max(decimals, 0)}f}"
    if text[0] == "-" and not text.strip("-0."):
        text = text[1:]  # rounds to zero: no sign
    if not trim or decimals <= 0:
        return text
    short = text.rstrip("0").rstrip(".")
    if short == "0" and mark_tiny:
        return text  # "0.00": not zero, too small to show
    return short


def number_format(values, digits: int = 2, fixed: bool | None = None):
    """The one number format of a view (a table, a figure), as a function from a number to its text.

    Every number of one view is written the same way, so that a column of numbers lines up
    and "0.5" never stands next to "0.25":

    - whole numbers (``2``, ``−3``, ``0``) when every finite value is a whole number and
      ``fixed`` is not True (an input matrix of small integers stays easy to read);
    - otherwise exactly ``digits`` decimals for every number (``0.50``, ``1.00``, ``−1.25``).

    A value that rounds to zero is written without a sign (never ``−0.00``); ``±∞`` as
    ``∞`` / ``−∞``; magnitudes from 10⁵ up with significant digits and an exponent (``1e+200``), so a cell stays narrow.

    Parameters
    ----------
    values : array_like
        Every number the view shows (the format is chosen from all of them).
    digits : int
        Decimals of the decimal format.
    fixed : bool, optional
        True: always ``digits`` decimals (attention weights: ``1.00`` next to ``0.25``).

    Returns
    -------
    callable : ``fmt(x) -> str``
    """
    v = np.asarray(values, dtype=float).ravel()
    finite = v[np.isfinite(v)]
    whole = not fixed and bool(np.all(finite == np.round(finite)))
    places = 0 if whole else int(digits)

    def fmt(x) -> str:
        return number_text(float(x), places, trim=False)

    return fmt
