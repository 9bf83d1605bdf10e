"""The catalogue of what a learner may type, as one table: each row is text, the parser that reads it, and
either the value it must give or the words the refusal must contain.

The expected values are written here by hand from the meaning of the text (1/2 is 0.5), not computed by the
code under test. Every widget cell and every typed answer goes through these parsers, so this table is the
course's promise about typed input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from helpers.core.parsing import (
    ParseError,
    parse_count,
    parse_counts,
    parse_matrix,
    parse_names,
    parse_number,
    parse_numbers,
    parse_shape,
)


@dataclass(frozen=True)
class Refused:
    """The text must be refused with a ParseError whose message contains each of ``words``."""

    words: tuple[str, ...]

    def __init__(self, *words: str):
        object.__setattr__(self, "words", words)


MINUS = "\u2212"  # the typographic minus a word processor or a PDF puts in "−1"
LONG_DIGITS = "1" * 10_000
LONG_WORDS = "x" * 10_000

CATALOGUE = [
    # -- numbers: the accepted forms 3 -2.5 .5 1/2 1e-3 +2 −1
    (parse_number, "3", 3.0),
    (parse_number, "-2.5", -2.5),
    (parse_number, ".5", 0.5),
    (parse_number, "1/2", 0.5),
    (parse_number, "1e-3", 0.001),
    (parse_number, "+2", 2.0),
    (parse_number, f"{MINUS}1", -1.0),
    (parse_number, f"{MINUS}2.5", -2.5),
    (parse_number, "  4  ", 4.0),
    (parse_number, "1 / 4", 0.25),
    (parse_number, "-3/4", -0.75),
    (parse_number, "2.", 2.0),
    (parse_number, "1E3", 1000.0),
    (parse_number, "0", 0.0),
    (parse_number, "1e15", 1e15),  # the limit itself
    (parse_number, "-1e15", -1e15),
    (parse_number, "1e20/1e10", 1e10),  # the limit is on the number typed, not on its parts
    # -- numbers: refused, each with the reason
    (parse_number, "", Refused("empty")),
    (parse_number, "   ", Refused("empty")),
    (parse_number, "abc", Refused("'abc'", "not a number")),
    (parse_number, "-", Refused("'-'", "not a number")),
    (parse_number, "nan", Refused("'nan'", "finite")),
    (parse_number, "NaN", Refused("'NaN'", "finite")),
    (parse_number, "inf", Refused("'inf'", "finite")),
    (parse_number, "-inf", Refused("'-inf'", "finite")),
    (parse_number, "1e999", Refused("'1e999'", "too large")),
    (parse_number, "-1e999", Refused("'-1e999'", "too large")),
    (parse_number, "1e999/2", Refused("too large")),
    (parse_number, "1e200", Refused("'1e200'", "too large", "the limit is 1e15")),
    (parse_number, "-1.5e15", Refused("'-1.5e15'", "too large", "1e15")),
    (parse_number, "1e30/1e10", Refused("too large", "1e15")),
    (parse_number, "1/0", Refused("'1/0'", "divides by zero")),
    (parse_number, "2+3", Refused("'2+3'", "calculation")),
    (parse_number, "100^2", Refused("'100^2'", "calculation")),
    (parse_number, "10**4", Refused("calculation")),
    (parse_number, "768 * 12", Refused("calculation")),
    (parse_number, "1,5", Refused("'1,5'", "point", "1.5")),
    (parse_number, "10,000", Refused("'10,000'", "without thousands separators (10000)")),
    (parse_number, "10 000", Refused("'10 000'")),
    (parse_number, "__import__('os')", Refused("not a number")),
    (parse_number, "[1]", Refused("not a number")),
    (parse_number, "\u0663", Refused("not a number")),  # an Arabic-Indic three: ASCII digits only
    (parse_number, LONG_DIGITS, Refused("too long")),
    (parse_number, LONG_WORDS, Refused("too long")),
    (parse_number, None, Refused("not text")),
    # -- counts: whole numbers, thousands may be grouped
    (parse_count, "10,000", 10_000),
    (parse_count, "10 000", 10_000),
    (parse_count, "10_000", 10_000),
    (parse_count, "10000", 10_000),
    (parse_count, "1e4", 10_000),
    (parse_count, "7", 7),
    (parse_count, "1,000,000", 1_000_000),
    (parse_count, "2.5", Refused("'2.5'", "whole")),
    (parse_count, "1,5", Refused("'1,5'", "point")),
    (parse_count, "", Refused("empty")),
    (parse_count, "ten", Refused("'ten'", "not a number")),
    (parse_count, "1e999", Refused("too large")),
    (parse_count, "100^2", Refused("calculation")),
    (parse_count, "1e300", Refused("'1e300'", "too large", "1e15")),
    (parse_count, "768/12", 64),
    # -- lists of numbers
    (parse_numbers, "1000, 999, 998", [1000.0, 999.0, 998.0]),
    (parse_numbers, "1 2 3", [1.0, 2.0, 3.0]),
    (parse_numbers, "1/2; 1/4", [0.5, 0.25]),
    (parse_numbers, "1, 5", [1.0, 5.0]),
    (parse_numbers, "[1,5]", [1.0, 5.0]),
    (parse_numbers, f"{MINUS}1, .5", [-1.0, 0.5]),
    (parse_numbers, "1,5", Refused("'1,5'", "point")),
    (parse_numbers, "", Refused("empty")),
    (parse_numbers, "1, abc", Refused("value 2", "'abc'")),
    (parse_numbers, "1, 2, 1e999", Refused("value 3", "too large")),
    (parse_numbers, "1, nan", Refused("value 2", "finite")),
    # -- lists of counts
    (parse_counts, "3, 5, 2", [3, 5, 2]),
    (parse_counts, "3 5 2", [3, 5, 2]),
    (parse_counts, "3, 2.5", Refused("value 2", "whole")),
    (parse_counts, "3, x", Refused("value 2", "'x'")),
    (parse_counts, "8,12,20,64", Refused("value 1", "space after each comma", "(8, 12, 20, 64)")),
    # -- shapes, as typed or as the lesson prints them
    (parse_shape, "(8, 12, 20, 64)", (8, 12, 20, 64)),
    (parse_shape, "8×12×20×64", (8, 12, 20, 64)),
    (parse_shape, "8 x 12", (8, 12)),
    (parse_shape, "8,20,768", (8, 20, 768)),  # without brackets, every comma separates, as with them
    (parse_shape, "(8,20,768)", (8, 20, 768)),
    (parse_shape, "8, 20, 768", (8, 20, 768)),
    (parse_shape, "8 20 768", (8, 20, 768)),
    (parse_shape, "[32, 64]", (32, 64)),
    (parse_shape, "8 x 2.5", Refused("entry 2", "whole")),
    (parse_shape, "", Refused("empty")),
    # -- names
    (parse_names, "the, cat , sat", ["the", "cat", "sat"]),
    (parse_names, " , ", Refused("names separated by commas")),
    # -- matrices
    (parse_matrix, "[[2, 1], [0, 3]]", [[2.0, 1.0], [0.0, 3.0]]),
    (parse_matrix, "2 1; 0 3", [[2.0, 1.0], [0.0, 3.0]]),
    (parse_matrix, "2 1\n0 3", [[2.0, 1.0], [0.0, 3.0]]),
    (parse_matrix, "[[1/2, \u22121]]", [[0.5, -1.0]]),
    (parse_matrix, "1 2 3", [[1.0, 2.0, 3.0]]),
    (parse_matrix, "[[1, 2], [3]]", Refused("rectangular")),
    (parse_matrix, "1 2; 3", Refused("rectangular")),
    (parse_matrix, "", Refused("empty")),
    (parse_matrix, "[[", Refused("no numbers")),
    (parse_matrix, "[[1, x]]", Refused("row 1, entry 2", "'x'")),
    (parse_matrix, "[[1, 2], [3, 1/0]]", Refused("row 2, entry 2", "divides by zero")),
    (parse_matrix, "[[1, 2], [3, 1e999]]", Refused("row 2, entry 2", "too large")),
    (parse_matrix, "[[1,5]]", [[1.0, 5.0]]),
    (parse_matrix, "__import__('os')", Refused("not a number")),
    (parse_matrix, "1 " * 5_000, Refused("too long")),
]


def row_id(row) -> str:
    fn, text, expected = row
    shown = repr(text) if text is None or len(text) <= 24 else f"'{text[:8]}...'({len(text)})"
    return f"{fn.__name__}-{shown}-{'refused' if isinstance(expected, Refused) else 'ok'}"


@pytest.mark.parametrize("fn, text, expected", CATALOGUE, ids=[row_id(r) for r in CATALOGUE])
def test_typed_input(fn, text, expected):
    if isinstance(expected, Refused):
        with pytest.raises(ParseError) as caught:
            fn(text)
        message = str(caught.value)
        for word in expected.words:
            assert word in message, f"{fn.__name__}({text!r}) said {message!r}, without {word!r}"
        # A refusal quotes at most a short piece of what was typed: 10,000 characters never come back.
        assert len(message) <= 200, message
        assert isinstance(caught.value, ValueError)
    elif fn is parse_matrix:
        got = fn(text)
        assert isinstance(got, np.ndarray) and got.dtype == float
        assert got.shape == (len(expected), len(expected[0]))
        np.testing.assert_array_equal(got, np.array(expected))
    else:
        got = fn(text)
        assert got == expected and type(got) is type(expected), f"{fn.__name__}({text!r}) gave {got!r}"
        if isinstance(got, list):
            assert all(type(v) is type(expected[0]) for v in got)


def test_the_catalogue_covers_every_parser_both_ways():
    """Each parser has rows it accepts and rows it refuses: a table that only accepts proves little."""
    for fn in (parse_number, parse_count, parse_numbers, parse_counts, parse_matrix, parse_shape, parse_names):
        kinds = {isinstance(expected, Refused) for f, _, expected in CATALOGUE if f is fn}
        assert kinds == {True, False}, fn.__name__
