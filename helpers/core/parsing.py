"""One parser for everything a learner types: numbers, counts, lists and matrices.

Every widget cell, every typed answer and :func:`helpers.exercises.check` read text
through this module, so the same forms are accepted everywhere and a mistake is
always explained in the same words.

Accepted number forms (``ACCEPTED_EXAMPLES``): ``3 -2.5 .5 1/2 1e-3 +2 −1`` (the
typographic minus ``−`` and its look-alikes are read as ``-``), with spaces around.
A count (:func:`parse_count`) also accepts thousands grouped as ``10,000``,
``10 000`` or ``10_000``. Text is matched with regular expressions and converted with
``float``: it is never evaluated as code. Every number a field takes lies within
``±MAX_MAGNITUDE`` (``1e15``); a refusal beyond it names that limit.

Every refusal is a :class:`ParseError` (a ``ValueError``) whose message quotes the
text and says what to type instead; callers put the field's name in front
(``row 'cat', column d1: '1/0' divides by zero``).
"""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = [
    "ACCEPTED_EXAMPLES",
    "MAX_MAGNITUDE",
    "MAX_TEXT",
    "ParseError",
    "parse_number",
    "parse_count",
    "parse_numbers",
    "parse_counts",
    "parse_matrix",
    "parse_names",
    "parse_shape",
    "quote",
]

ACCEPTED_EXAMPLES = "3, -2.5, 1/2, 1e-3"
MAX_NUMBER_LENGTH = 40
MAX_MATRIX_LENGTH = 4000
# The largest magnitude any field or matrix cell takes. Every whole number up to it is exact in float64, and what
# the course computes from such entries stays finite: a product of two is 1e30, a sum of such products over any d
# the widgets allow, and the scores made of them (about 1e63 with d = 16), are far below float64's 1.8e308, and the
# softmax subtracts the row's maximum first. Beyond it (1e200 in W^K) the scores overflow or every digit a view
# shows is noise; it also keeps a typo like 1e300 from becoming a huge count.
MAX_MAGNITUDE = 1e15
MAX_TEXT = "1e15"  # how the limit is written in messages (and typed: the largest number accepted)


class ParseError(ValueError):
    """Typed text that is not what the field asks for; the message says why."""


# ASCII digits only: Python's \d would also accept digits from other scripts.
_DEC = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_NUMBER = re.compile(rf"[+-]?{_DEC}(?:[eE][+-]?[0-9]+)?")
_FRACTION = re.compile(rf"({_NUMBER.pattern})\s*/\s*({_NUMBER.pattern})")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity|∞)", re.IGNORECASE)
# "2+3", "768 * 12", "100^2", "10**4", "100²": a calculation to be done, not a number.
_CALCULATION = re.compile(rf"[+-]?{_DEC}(?:\s*(?:\*\*|[-+*/×÷·^%])\s*[+-]?{_DEC}|²)+")
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+,[0-9]+")
_GROUPED = re.compile(r"[+-]?[0-9]{1,3}(?:[,\s_\u2009\u202f][0-9]{3})+")
_GROUP_SEPARATORS = re.compile(r"[,\s_\u2009\u202f]")
_MINUS_SIGNS = str.maketrans({"\u2212": "-", "\u2012": "-", "\u2013": "-", "\ufe63": "-", "\uff0d": "-"})
# Items of a list: separated by a semicolon, by spaces, or by a comma that is not
# squeezed between two digits ("1,5" is a decimal comma or a typo: refused, not guessed).
# Inside brackets ("[1,5]", Python's list syntax) every comma separates.
_LIST_SEPARATOR = re.compile(r"\s*;\s*|\s*,\s*(?![0-9])|(?<![0-9]),\s*|,\s+|\s+")
_BRACKETED_SEPARATOR = re.compile(r"\s*[;,]\s*|\s+")
_SQUEEZED_COMMAS = re.compile(r"[+-]?[0-9.]+(?:,[0-9.]+)+")
# A shape as the lesson prints it, "8×12×20×64" or "8 x 12": a × between two sizes separates them.
_TIMES_BETWEEN_SIZES = re.compile(r"(?<=[0-9])\s*[×xX]\s*(?=[0-9])")


def quote(text: str, limit: int = 20) -> str:
    """``text`` in single quotes, shortened with '...' past ``limit`` characters."""
    text = str(text)
    return "'" + (text if len(text) <= limit else text[: limit - 3] + "...") + "'"


def _normalise(text) -> tuple[str, str]:
    if not isinstance(text, str):
        raise ParseError(f"{text!r} is not text")
    return text.strip(), text.strip().translate(_MINUS_SIGNS)


def _finite(value: float, raw: str) -> float:
    if not math.isfinite(value):
        raise ParseError(f"{quote(raw)} is too large: the limit is {MAX_TEXT} (and -{MAX_TEXT})")
    return value


def _within_limit(value: float, raw: str) -> float:
    """``value`` if its magnitude is at most :data:`MAX_MAGNITUDE`; else the refusal that names the limit."""
    _finite(value, raw)
    if abs(value) > MAX_MAGNITUDE:
        raise ParseError(f"{quote(raw)} is too large: the limit is {MAX_TEXT} (and -{MAX_TEXT})")
    return value


def parse_number(text: str) -> float:
    """A finite real number from what a learner typed.

    Parameters
    ----------
    text : str
        ``3``, ``-2.5``, ``.5``, ``+2``, ``1e-3``, ``1/2``, ``−1`` (with any spaces around).

    Returns
    -------
    float, always finite, of magnitude at most :data:`MAX_MAGNITUDE` (``1e15``).

    Raises
    ------
    ParseError
        Quoting the text: empty, too long, not a number, a calculation, a decimal comma,
        not finite (``nan``, ``inf``), too large (beyond ``1e15``, saying so) or a division by zero.
    """
    raw, text = _normalise(text)
    if not text:
        raise ParseError("is empty: type a number")
    if len(text) > MAX_NUMBER_LENGTH:
        raise ParseError(f"{quote(raw)} is too long for a number")
    if _NUMBER.fullmatch(text):
        return _within_limit(float(text), raw)
    frac = _FRACTION.fullmatch(text)
    if frac:
        # Each side as a float (never Fraction: "1e999999999" would build a huge integer).
        # IEEE division is correctly rounded, so 1/3 is the closest float to one third.
        num, den = _finite(float(frac.group(1)), raw), _finite(float(frac.group(2)), raw)
        if den == 0:
            raise ParseError(f"{quote(raw)} divides by zero")
        return _within_limit(num / den, raw)
    if _NON_FINITE.fullmatch(text):
        raise ParseError(f"{quote(raw)} is not a finite number")
    if _GROUPED.fullmatch(text) and "," in text:
        plain = _GROUP_SEPARATORS.sub("", text)
        raise ParseError(f"{quote(raw)}: type a number without thousands separators ({plain}), "
                         "and decimals with a point")
    if _DECIMAL_COMMA.fullmatch(text):
        raise ParseError(f"{quote(raw)}: write decimals with a point ({text.replace(',', '.')})")
    if _CALCULATION.fullmatch(text):
        raise ParseError(f"{quote(raw)} is a calculation: type its result as one number (e.g. {ACCEPTED_EXAMPLES})")
    raise ParseError(f"{quote(raw)} is not a number (e.g. {ACCEPTED_EXAMPLES})")


def parse_count(text: str) -> int:
    """A whole number of things, where thousands may be grouped: ``10000``, ``10,000``, ``10 000``.

    Raises
    ------
    ParseError
        As :func:`parse_number`, or when the number is not whole (``2.5``).
    """
    raw, text = _normalise(text)
    if _GROUPED.fullmatch(text):
        text = _GROUP_SEPARATORS.sub("", text)
    value = parse_number(text)
    if value != int(value):
        raise ParseError(f"{quote(raw)} is not a whole number")
    return int(value)


def _split_items(text: str, bracketed: bool = False) -> list[str]:
    text = text.strip()
    bracketed = bracketed or text[:1] in "([{"
    separator = _BRACKETED_SEPARATOR if bracketed else _LIST_SEPARATOR
    return [p for p in separator.split(text.strip("()[]{}").strip()) if p]


def parse_numbers(text: str, what: str = "value") -> list[float]:
    """A list of numbers: ``"1000, 999, 998"``, ``"1 2 3"``, ``"1/2; 1/4"``.

    Each item is read by :func:`parse_number`; ``"1,5"`` is refused (a decimal comma or
    a missing space) rather than guessed.

    Raises
    ------
    ParseError
        ``"{what} 2: ..."`` naming the first bad item (counted from 1), or saying the text is empty.
    """
    raw, _ = _normalise(text)
    items = _split_items(raw)
    if not items:
        raise ParseError(f"is empty: type one or more numbers separated by commas (e.g. {ACCEPTED_EXAMPLES})")
    values = []
    for k, item in enumerate(items):
        if _SQUEEZED_COMMAS.fullmatch(item):
            parts = item.split(",")
            decimal = f"write decimals with a point ({parts[0]}.{parts[1]}), or " if len(parts) == 2 else ""
            raise ParseError(f"{what} {k + 1}: {quote(item)}: {decimal}put a space after each comma "
                             f"to type {len(parts)} numbers ({', '.join(parts)})")
        try:
            values.append(parse_number(item))
        except ParseError as err:
            raise ParseError(f"{what} {k + 1}: {err}") from None
    return values


def parse_counts(text: str, what: str = "value") -> list[int]:
    """A list of whole numbers, ``"3, 5, 2"``; as :func:`parse_numbers`, each item whole."""
    values = parse_numbers(text, what)
    for k, v in enumerate(values):
        if v != int(v):
            raise ParseError(f"{what} {k + 1}: {quote(_split_items(text)[k])} is not a whole number")
    return [int(v) for v in values]


_ROWS = re.compile(r"\]\s*,?\s*\[|;|\n")


def parse_matrix(text: str) -> np.ndarray:
    """A matrix from typed text: ``"[[2, 1], [0, 3]]"``, ``"2 1; 0 3"`` or one row per line.

    Every entry is read by :func:`parse_number`, so ``1/2`` and ``−1`` work here as in a
    matrix cell. One row of numbers gives shape (1, m).

    Returns
    -------
    ndarray (n_rows, n_cols) of float.

    Raises
    ------
    ParseError
        Naming the first bad entry by row and column (from 1), or rows of different lengths.
    """
    raw, text = _normalise(text)
    if not text:
        raise ParseError("is empty: type the matrix, e.g. [[2, 1], [0, 3]] or 2 1; 0 3")
    if len(text) > MAX_MATRIX_LENGTH:
        raise ParseError("is too long for a matrix")
    bracketed = text.startswith("[")
    body = text
    while body.startswith("[") and body.endswith("]") and body.count("[") > 1 and body[1:].lstrip().startswith("["):
        body = body[1:-1].strip()
    rows = [r.strip(" []") for r in _ROWS.split(body) if r.strip(" []")]
    if not rows:
        raise ParseError(f"{quote(raw)} holds no numbers: type the matrix, e.g. [[2, 1], [0, 3]]")
    matrix = []
    for i, row in enumerate(rows):
        items = _split_items(row, bracketed)
        entries = []
        for j, item in enumerate(items):
            try:
                entries.append(parse_number(item))
            except ParseError as err:
                raise ParseError(f"row {i + 1}, entry {j + 1}: {err}") from None
        matrix.append(entries)
    lengths = sorted({len(r) for r in matrix})
    if len(lengths) > 1:
        raise ParseError(f"is not rectangular: its rows have {', '.join(map(str, lengths))} entries")
    return np.array(matrix, dtype=float)


def parse_names(text: str, what: str = "names", max_count: int | None = None) -> list[str]:
    """Names typed as ``"the, cat, sat"``: split at commas, spaces around each name dropped.

    Raises
    ------
    ParseError
        When there is no name, or more than ``max_count``.
    """
    raw, _ = _normalise(text)
    names = [t.strip() for t in raw.split(",") if t.strip()]
    limit = f"between 1 and {max_count}" if max_count is not None else "one or more"
    if not names or (max_count is not None and len(names) > max_count):
        got = f"; got {len(names)}" if names else ""
        raise ParseError(f"{what}: type {limit} names separated by commas{got}")
    return names


def parse_shape(text: str) -> tuple[int, ...]:
    """A shape: ``"(8, 12, 20, 64)"``, ``"8,12,20,64"``, ``"8 12 20 64"`` or as printed, ``"8×12×20×64"``.

    With or without brackets every comma separates two sizes, as in Python's tuples (a size is whole, so a
    comma in a shape is never a decimal comma).

    Returns
    -------
    tuple of int, one per axis.

    Raises
    ------
    ParseError
        ``"entry 2: ..."`` naming the first entry that is not a whole number.
    """
    raw, _ = _normalise(text)
    sizes = _TIMES_BETWEEN_SIZES.sub(", ", raw)
    if sizes[:1] not in "([{":
        sizes = f"({sizes})"  # read as the bracketed form: every comma separates
    return tuple(parse_counts(sizes, "entry"))
