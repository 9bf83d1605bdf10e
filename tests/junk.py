"""The one catalogue of junk: what a learner might type, paste or pass, for every test that feeds a widget or a
checker bad input.

Each kind says what the text is and what the course's number parser (:func:`helpers.core.parsing.parse_number`) answers
for it (a few words of its message; ``None`` where it reads a number). The tests take what fits their input:

* :data:`TEXT`: every text, for fields that are cheap to try (a demo's text box, a practice answer);
* :func:`sample`: the first texts of each kind, for the junk sweep of every field of every notebook widget;
* :data:`CELL`: the parser's main refusals, for every number cell of a grid;
* :data:`REFUSED_AS_NUMBER`: (text, the words of the parser's reason), for a matrix cell;
* :data:`BOX_NUMBERS`: what a browser can send a numeric box (it sends numbers only);
* :data:`ANSWERS`: malformed answers given in code (``check(qid, answer)``): objects, ragged lists, NaN, texts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.parsing import MAX_TEXT

LONG_NUMBER = "1" * 10_000
LARGEST = MAX_TEXT  # the largest number a field or cell takes; one more order of magnitude is refused


@dataclass(frozen=True)
class Kind:
    """A kind of junk: its name, what the number parser says of it (None: a number), and examples, most telling
    first (:func:`sample` takes the first ones)."""

    name: str
    number_reason: str | None
    texts: tuple[str, ...]


KINDS = (
    Kind("empty", "empty", ("", "\n", " ", "   ", "\t")),
    Kind("words", "not a number", ("abc", "None", "banana", "True")),
    Kind("not finite", "not a finite number", ("nan", "inf", "-inf", "NaN", "Infinity", "∞")),
    # Past the one limit of every field (helpers.core.parsing.MAX_MAGNITUDE): just past it, far past it, not even a
    # float.
    Kind("too large", "too large", ("1e999", "1e200", "-1e16", "1e308/1e-308", "1e300", "-1e300")),
    Kind("division by zero", "divides by zero", ("1/0", "3 / 0", "0/0")),
    Kind("calculation", "calculation", ("2+3", "100^2", "2**3", "2*3", "2^3", "1/2/3")),
    Kind("decimal comma", "decimals with a point", ("1,5", "10,00", "10,000")),
    Kind("signs", "not a number", ("-", "−", "- 1", "--2")),
    Kind("open brackets", "not a number", ("(8, 12", "[[", "((", "(1)")),
    Kind("lists", "not a number", ("1 2 3", "1e300, 1e300", "1 2", "1 2 3 4 5 6 7 8 9")),
    Kind("ragged matrices", "not a number", ("[[1,2],[3]]", "[[1, 2]")),
    Kind("code and markup", "not a number", ("__import__('os')", "<script>alert(1)</script>", "eval('1')",
                                             "<b>bold</b>", "'; DROP TABLE x; --")),
    Kind("other scripts and symbols", "not a number", ("٣", "\x00", "🙂", "１", "💥", "\u202e1")),
    Kind("almost a number", "not a number", ("0x10", "1_000", "3.4.5", "e5", "1e", ".", "1j")),
    Kind("too long", "too long", (LONG_NUMBER, "x" * 10_000, "1" * 400, "word " * 600, "9" * 60)),
    # Numbers, but extreme: the limit itself (the largest a field takes), and one too small for a float (read as 0).
    Kind("extreme numbers", None, (LARGEST, f"-{LARGEST}", "1e-400")),
)

TEXT = [text for kind in KINDS for text in kind.texts]
REFUSED_AS_NUMBER = [(text, kind.number_reason) for kind in KINDS if kind.number_reason for text in kind.texts]
# The parser's main refusals: the sweep gives one of them, in turn, to each number cell between the first and the
# last of a grid (those get every kind); the cells share their handler and their parser.
CELL = ["", "abc", "1e999", "1,5"]
# The browser sends numeric text boxes numbers only, clamped into [min, max] by the bounded ones.
BOX_NUMBERS = [0, -1, 1, 10**9, -(10**9), 1e300, -1e300, 0.5]
# Answers given in code: anything at all, however malformed.
ANSWERS = [
    None, "", "   ", "banana", "[[1, 2], [3]]", [[1, 2], [3]], [1, [2, 3]], 3.7, -1, 0, True,
    {"a": 1}, {}, float("nan"), float("inf"), np.array([[np.nan, 1.0]]), 1j, b"bytes", ["a", "b"], [], (),
    {"Q": None}, {"Q": [[1, 2], [3]], "K": "x", "V": float("nan")}, {"d_k": "x", "Q": [1.5, 2]},
    {"weights": None}, object(), np.array([True, False]), "(8, 12, 20, 64", "10000.5.1", [None, None],
    {"d_k": float("nan"), "Q": [float("nan")] * 4}, "b c", "e",
]


def sample(per_kind: int = 2) -> list[str]:
    """The first ``per_kind`` texts of every kind: each kind of junk, at a fraction of the cost of :data:`TEXT`."""
    return [text for kind in KINDS for text in kind.texts[:per_kind]]


def label(text: str) -> str:
    """A short, printable name for a junk text in a test id or a report."""
    return repr(text if len(text) <= 30 else f"{text[:10]}... ({len(text)} chars)")
