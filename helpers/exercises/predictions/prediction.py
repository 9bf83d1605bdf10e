"""One prediction: its question, the form of its answer, its truth (computed), why, and what a wrong answer suggests.

A :class:`Prediction` is data. Its ``truth`` is a function that computes the right answer from the course's own data
(the helpers' modules), so a prediction never disagrees with the numbers a notebook shows. :meth:`Prediction.judge`
reads any answer in the prediction's form and returns a :class:`Judgement`: right or not, both answers as text, why,
and, when wrong, "You probably thought …" from the prediction's ``thought`` table. Junk answers get a Judgement that
says what could not be read (or, for a number, that it is not possible), never an exception.

Forms
-----
``"number"``
    A number, right within ``tolerance``. Typed text is read by :func:`helpers.core.parsing.parse_number` (``0.3``,
    ``1/3``, ``.25``). ``thought`` keys: a number (a wrong answer within ``tolerance`` of it gets its thought),
    ``"higher"`` or ``"lower"`` (than the truth), ``"*"``.

    What is possible is data too: ``quantity`` names the kind of number (:data:`QUANTITIES`: a weight is between 0
    and 1, a count is a whole number ≥ 0, ...), and ``minimum`` / ``maximum`` narrow its bounds for one prediction.
    An answer outside them, or a fraction where a whole number is asked, is refused like junk: the Judgement's
    ``.problem`` says why ("a weight is between 0 and 1; 1.5 is not") and nothing is revealed. The box states the
    precision it accepts (:attr:`Prediction.precision`, derived from ``tolerance``: "to within ±0.05", or "a whole
    number"). A wrong answer within twice the tolerance is **close** (:attr:`Judgement.close`): a matter of
    rounding, so it gets no "You probably thought"; it still counts as not right (``.correct`` is False, so the first
    try's verdict in progress stays honest), and a review list may leave close ones out (re-judging the recorded
    answer gives ``.close`` again). A ``thought`` key must therefore lie more than twice the tolerance from the truth,
    and within the bounds.
``"choice"``
    One of ``options`` (text, e.g. tokens or document titles; case and spaces around it do not matter).
    ``thought`` keys: an option, ``"*"``.
``"cell"``
    One entry of a labelled matrix: ``(row label, column label)`` (or their 0-based indices, or the text
    ``"sat, cat"``). ``row_labels``, ``col_labels`` name the rows and columns; ``row_axis``, ``col_axis`` say what
    they are ("Queries ↓", "Keys →"). ``thought`` keys: a cell, ``"transposed"`` (row and column swapped),
    ``"diagonal"`` (a row's own column), ``"same row"``, ``"same column"``, ``"*"``.
``"region"``
    Which part of a labelled matrix changes: one of ``options``, written as :func:`region_of` writes regions
    (``"row 'cat'"``, ``"column 'cat'"``, ``"rows 'cat', 'sat'"``, ``"one entry: row 'sat', column 'cat'"``,
    ``"some entries"``, ``"the whole matrix"``, ``"nothing"``); by default every row, every column, the whole matrix
    and nothing (:func:`region_options`). The truth is usually ``region_of(changed, rows, cols)`` of a boolean
    matrix computed from the data. ``thought`` keys: an option, a kind of region (``"row"``, ``"rows"``,
    ``"column"``, ``"columns"``, ``"entry"``, ``"some"``, ``"whole"``, ``"nothing"``), ``"*"``.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from helpers.core.explain import fmt
from helpers.core.parsing import ParseError, parse_number, quote
from helpers.exercises.per_notebook import check_names

__all__ = ["FORMS", "KINDS_OF_ANSWER", "QUANTITIES", "Quantity", "Prediction", "Judgement", "region_of",
           "region_options", "region_kind"]

FORMS = ("number", "choice", "cell", "region")
ANY = "*"
# The kinds of a wrong answer that a ``thought`` table may name instead of the answer itself, per form.
KINDS_OF_ANSWER = {
    "number": ("higher", "lower"),
    "choice": (),
    "cell": ("transposed", "diagonal", "same row", "same column"),
    "region": ("row", "rows", "column", "columns", "entry", "some", "whole", "nothing"),
}
_SPACE = re.compile(r"\s+")
_CELL_TEXT = re.compile(r"row '(.+)', column '(.+)'")
# An answer this far from the truth, in tolerances, is close: a matter of rounding, not a misconception.
CLOSE = 2.0


@dataclass(frozen=True)
class Quantity:
    """A kind of number a ``"number"`` prediction asks for, and what is possible for it.

    Attributes
    ----------
    words : str
        The quantity in the refusal "<words> is between 0 and 1; 1.5 is not"; ``{minimum}`` and ``{maximum}`` in it
        are replaced by the prediction's bounds ("a sum of {maximum} weights").
    minimum, maximum : float or None
        The bounds (None: unbounded on that side); a prediction's own ``minimum`` / ``maximum`` override them.
    whole : bool
        Only whole numbers are possible (a count, a width).
    """

    words: str
    minimum: float | None = None
    maximum: float | None = None
    whole: bool = False


QUANTITIES = {
    "number": Quantity("the answer"),
    "weight": Quantity("a weight", 0.0, 1.0),
    "count": Quantity("a count", 0.0, None, whole=True),
    "width": Quantity("a width (a number of columns)", 1.0, None, whole=True),
    "sum of weights": Quantity("a sum of {maximum} weights", 0.0, None),
}


def _plain(text: str) -> str:
    """Text compared as a learner means it: spaces collapsed, case ignored, straight quotes."""
    return _SPACE.sub(" ", text.replace("’", "'").replace("‘", "'")).strip().casefold()


def _quoted(labels) -> str:
    return ", ".join(f"'{label}'" for label in labels)


# --------------------------------------------------------------------------- regions of a matrix


def region_of(changed, row_labels, col_labels) -> str:
    """The part of a matrix where ``changed`` is True, in words: as the options of a ``"region"`` prediction.

    Parameters
    ----------
    changed : array_like of bool, shape (n_rows, n_cols)
        True where an entry changes (e.g. ``~np.isclose(before, after)``).
    row_labels, col_labels : sequence of str
        The matrix's row and column labels.

    Returns
    -------
    str
        ``"nothing"``, ``"the whole matrix"``, ``"row 'r'"``, ``"rows 'a', 'b'"``, ``"column 'c'"``,
        ``"columns 'a', 'b'"``, ``"one entry: row 'r', column 'c'"`` or ``"some entries"``.
    """
    changed = np.asarray(changed, dtype=bool)
    if changed.shape != (len(row_labels), len(col_labels)):
        raise ValueError(f"changed has shape {changed.shape}; the labels say ({len(row_labels)}, {len(col_labels)})")
    if not changed.any():
        return "nothing"
    if changed.all():
        return "the whole matrix"
    rows = [r for r, row in zip(row_labels, changed) if row.any()]
    cols = [c for c, col in zip(col_labels, changed.T) if col.any()]
    if changed.sum() == 1:
        return f"one entry: row '{rows[0]}', column '{cols[0]}'"
    if all(changed[i].all() for i in range(len(row_labels)) if changed[i].any()):
        return (f"row '{rows[0]}'" if len(rows) == 1 else f"rows {_quoted(rows)}")
    if all(changed[:, j].all() for j in range(len(col_labels)) if changed[:, j].any()):
        return (f"column '{cols[0]}'" if len(cols) == 1 else f"columns {_quoted(cols)}")
    return "some entries"


def region_options(row_labels, col_labels) -> tuple[str, ...]:
    """The default options of a ``"region"`` prediction: every row, every column, the whole matrix, nothing."""
    return (*(f"row '{r}'" for r in row_labels), *(f"column '{c}'" for c in col_labels), "the whole matrix",
            "nothing")


def region_kind(region: str) -> str:
    """The kind of a region written as :func:`region_of` writes it: ``"row"``, ``"rows"``, ``"column"``,
    ``"columns"``, ``"entry"``, ``"some"``, ``"whole"`` or ``"nothing"``."""
    for prefix, kind in (("rows ", "rows"), ("row ", "row"), ("columns ", "columns"), ("column ", "column"),
                         ("one entry", "entry"), ("some entries", "some"), ("the whole matrix", "whole"),
                         ("nothing", "nothing")):
        if region.startswith(prefix):
            return kind
    raise ValueError(f"{region!r} is not a region as region_of writes one (\"row 'cat'\", \"the whole matrix\", ...)")


# --------------------------------------------------------------------------- the verdict


@dataclass(frozen=True)
class Judgement:
    """The verdict on one prediction, shown beside the truth when it is revealed.

    Attributes
    ----------
    name : str
        The prediction's name.
    correct : bool
    answer : str
        The learner's answer as text ('' if it is not judged: see :attr:`problem`).
    truth : str
        The right answer as text ('' if the answer is not judged: nothing is revealed for junk or the impossible).
    why : str
        One line: why the truth is what it is.
    thought : str
        When wrong, "You probably thought …" for this answer ('' when right, or when the table has nothing for it).
    problem : str
        Why the answer could not be read or is not possible ('' when it could): junk, or a number outside what the
        prediction's quantity can be. Nothing is judged then.
    close : bool
        ``"number"``: wrong, but within twice the tolerance, a matter of rounding (no :attr:`thought` then). Not
        right: :attr:`correct` stays False.
    precision : str
        ``"number"``: the precision the prediction accepts, "to within ±0.05" ('' for the other forms).
    """

    name: str
    correct: bool
    answer: str
    truth: str
    why: str
    thought: str = ""
    problem: str = ""
    close: bool = False
    precision: str = ""

    @property
    def readable(self) -> bool:
        """True if the answer could be read (then :attr:`truth` is given)."""
        return not self.problem

    @property
    def message(self) -> str:
        """The whole verdict in words, one line per part."""
        if self.problem:
            return f"Your prediction is not judged: {self.problem}"
        head = f"You predicted {self.answer}; the result is {self.truth}."
        lines = [head + (" Right." if self.correct else "")]
        if self.close:
            lines.append(f"Close: a matter of rounding (the box asks for the result {self.precision}).")
        lines.append(self.why)
        if self.thought:
            lines.append(self.thought)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.message

    def __bool__(self) -> bool:
        return self.correct


# --------------------------------------------------------------------------- the prediction


@dataclass(frozen=True)
class Prediction:
    """A prediction the learner commits before a result is shown (see the module docstring for the forms).

    Parameters
    ----------
    name : str
        ``"01-pasta-weight"``: the notebook's number, then lower-case words joined by ``-``.
    notebook : str
        ``"01_intuition"``: the notebook whose ``predict-commit`` cell shows it.
    question : str
        What the learner predicts, in one or two sentences.
    form : str
        ``"number"``, ``"choice"``, ``"cell"`` or ``"region"``.
    truth : callable () -> answer
        Computes the right answer from the course's data: a float (number), an option (choice, region) or
        ``(row label, column label)`` (cell).
    why : str
        One line: why the truth is what it is.
    thought : mapping
        Wrong answer (or kind of answer, or ``"*"`` for any other) -> what the learner probably thought, written
        to follow "You probably thought" (e.g. ``"the weights are shared evenly"``). Answers that suggest the
        same thing share one text: ``**dict.fromkeys(("[CLS]", "[SEP]"), "...")``.
    tolerance : float
        ``"number"``: how far from the truth an answer may be and still be right; set it so that a learner
        estimating in their head can meet it. Twice as far is close (see :class:`Judgement`).
    quantity : str
        ``"number"``: what kind of number it is, a key of :data:`QUANTITIES` (``"weight"``, ``"count"``, ...): its
        bounds and whether it is whole. Default ``"number"``: any finite number.
    minimum, maximum : float or None
        ``"number"``: the bounds of a possible answer, when they differ from the quantity's (a column of 6 weights
        sums to at most 6).
    options : tuple of str
        ``"choice"``: the options, in the order shown; ``"region"``: the regions offered (default:
        :func:`region_options` of the labels).
    row_labels, col_labels : tuple of str
        ``"cell"`` and ``"region"``: the matrix's labels (each unique).
    row_axis, col_axis : str
        ``"cell"`` and ``"region"``: what the rows and columns are, shown with the grid.
    """

    name: str
    notebook: str
    question: str
    form: str
    truth: Callable[[], object]
    why: str
    thought: Mapping = field(default_factory=dict)
    tolerance: float = 0.0
    quantity: str = "number"
    minimum: float | None = None
    maximum: float | None = None
    options: tuple[str, ...] = ()
    row_labels: tuple[str, ...] = ()
    col_labels: tuple[str, ...] = ()
    row_axis: str = "Queries ↓"
    col_axis: str = "Keys →"

    def __post_init__(self) -> None:
        check_names(self.name, self.notebook, "prediction")
        what = f"prediction {self.name!r}"
        if self.form not in FORMS:
            raise ValueError(f"{what}: form must be one of {', '.join(FORMS)}; got {self.form!r}")
        if not callable(self.truth):
            raise ValueError(f"{what}: truth must be a function that computes the answer")
        for attr in ("question", "why"):
            text = getattr(self, attr)
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{what}: {attr} must be a non-empty text")
        if "\n" in self.why.strip():
            raise ValueError(f"{what}: why is one line")
        object.__setattr__(self, "options", tuple(str(o) for o in self.options))
        object.__setattr__(self, "row_labels", tuple(str(r) for r in self.row_labels))
        object.__setattr__(self, "col_labels", tuple(str(c) for c in self.col_labels))
        if self.form == "number":
            if not isinstance(self.tolerance, numbers.Real) or not math.isfinite(self.tolerance) \
                    or self.tolerance < 0:
                raise ValueError(f"{what}: tolerance must be a number ≥ 0; got {self.tolerance!r}")
            self._check_bounds(what)
        elif (self.quantity, self.minimum, self.maximum) != ("number", None, None):
            raise ValueError(f"{what}: quantity, minimum and maximum are for the \"number\" form only")
        if self.form in ("cell", "region"):
            for attr in ("row_labels", "col_labels"):
                labels = getattr(self, attr)
                if not labels or len({_plain(x) for x in labels}) != len(labels):
                    raise ValueError(f"{what}: {attr} must be non-empty and unique (ignoring case)")
        if self.form == "region" and not self.options:
            object.__setattr__(self, "options", region_options(self.row_labels, self.col_labels))
        if self.form in ("choice", "region"):
            if len(self.options) < 2 or len({_plain(o) for o in self.options}) != len(self.options):
                raise ValueError(f"{what}: options must be at least two different texts")
        if self.form == "region":
            for option in self.options:
                region_kind(option)
        thought = dict(self.thought)
        for key, text in thought.items():
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{what}: thought[{key!r}] must be a non-empty text")
            if re.match(r"\s*you probably thought", text, re.I):
                raise ValueError(f"{what}: thought[{key!r}] is what follows 'You probably thought'; leave those "
                                 "words out")
            if key == ANY or key in KINDS_OF_ANSWER[self.form]:
                continue
            try:
                self.read(key)
            except ValueError as err:
                raise ValueError(f"{what}: thought key {key!r} is neither an answer of this form nor one of "
                                 f"{', '.join((*KINDS_OF_ANSWER[self.form], ANY))} ({err})") from None
        object.__setattr__(self, "thought", thought)

    def _check_bounds(self, what: str) -> None:
        if not isinstance(self.quantity, str) or self.quantity not in QUANTITIES:
            raise ValueError(f"{what}: quantity must be one of {', '.join(QUANTITIES)}; got {self.quantity!r}")
        for attr in ("minimum", "maximum"):
            bound = getattr(self, attr)
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, numbers.Real)
                                      or not math.isfinite(bound)):
                raise ValueError(f"{what}: {attr} must be a finite number or None; got {bound!r}")
        low, high = self.bounds
        if low is not None and high is not None and low >= high:
            raise ValueError(f"{what}: minimum ({fmt(low)}) must be below maximum ({fmt(high)})")

    # -- what is possible, and how precise to be (``"number"``)

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        """``"number"``: (minimum, maximum) of a possible answer; None where unbounded."""
        kind = QUANTITIES[self.quantity]
        return (kind.minimum if self.minimum is None else float(self.minimum),
                kind.maximum if self.maximum is None else float(self.maximum))

    @property
    def whole(self) -> bool:
        """``"number"``: only whole numbers are possible (a count, a width)."""
        return QUANTITIES[self.quantity].whole

    @property
    def precision(self) -> str:
        """``"number"``: the precision accepted, in words, from the tolerance: ``"to within ±0.05"``, ``"as a whole
        number"`` (a whole quantity asked exactly) or ``"exactly"``; '' for the other forms."""
        if self.form != "number":
            return ""
        if self.whole and self.tolerance < 1:
            return "as a whole number"
        if self.tolerance == 0:
            return "exactly"
        return f"to within ±{fmt(self.tolerance, 6)}"

    @property
    def answer_form(self) -> str:
        """``"number"``: what the box asks for, one sentence: "A number from 0 to 1, to within ±0.05." or "A whole
        number, 1 or more."; '' for the other forms."""
        if self.form != "number":
            return ""
        low, high = self.bounds
        if low is not None and high is not None:
            span = f" from {fmt(low)} to {fmt(high)}"
        elif low is not None:
            span = f", {fmt(low)} or more"
        elif high is not None:
            span = f", at most {fmt(high)}"
        else:
            span = ""
        if self.whole and self.tolerance < 1:
            return f"A whole number{span}."
        return f"A number{span}, {self.precision}."

    def _refuse_impossible(self, value: float) -> float:
        """``value`` if the quantity can be it; else a ValueError saying what is possible."""
        kind = QUANTITIES[self.quantity]
        low, high = self.bounds
        words = kind.words.format(minimum=fmt(low) if low is not None else "",
                                  maximum=fmt(high) if high is not None else "")
        shown = fmt(value)
        if low is not None and high is not None and not low <= value <= high:
            raise ValueError(f"{words} is between {fmt(low)} and {fmt(high)}; {shown} is not")
        if low is not None and value < low:
            raise ValueError(f"{words} is {fmt(low)} or more; {shown} is not")
        if high is not None and value > high:
            raise ValueError(f"{words} is at most {fmt(high)}; {shown} is not")
        if kind.whole and value != round(value):
            raise ValueError(f"{words} is a whole number; {shown} is not")
        return value

    # -- reading answers

    def read(self, answer):
        """``answer`` in its canonical form: a float, an option, ``(row label, column label)``.

        Raises
        ------
        ValueError
            Saying what is wrong with it (empty, not a number, not one of the options, ...).
        """
        return getattr(self, f"_read_{self.form}")(answer)

    def _read_number(self, answer) -> float:
        if isinstance(answer, str):
            try:
                return self._refuse_impossible(parse_number(answer))
            except ParseError as err:
                raise ValueError(f"the prediction {err}" if str(err).startswith("is ") else str(err)) from None
        if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
            raise ValueError(f"a prediction here is a number, e.g. 0.3; got {_describe(answer)}")
        value = float(answer)
        if not math.isfinite(value):
            raise ValueError(f"a prediction here is a finite number; got {fmt(value)}")
        return self._refuse_impossible(value)

    def _read_option(self, answer) -> str:
        if not isinstance(answer, str):
            raise ValueError(f"a prediction here is one of the options ({', '.join(self.options)}); "
                             f"got {_describe(answer)}")
        for option in self.options:
            if _plain(option) == _plain(answer):
                return option
        if not answer.strip():
            raise ValueError(f"pick one of the options: {', '.join(self.options)}")
        raise ValueError(f"{quote(answer.strip(), 40)} is not one of the options: {', '.join(self.options)}")

    _read_choice = _read_option
    _read_region = _read_option

    def _read_cell(self, answer) -> tuple[str, str]:
        if isinstance(answer, str):
            written = _CELL_TEXT.fullmatch(answer.strip())  # as :meth:`text` writes it (and progress keeps it)
            parts = list(written.groups()) if written else \
                [p.strip(" '\"") for p in re.split(r"[,/]", answer.strip().strip("()[]"))]
            if len(parts) != 2 or not all(parts):
                raise ValueError(f"a prediction here is one entry: a row and a column, e.g. "
                                 f"'{self.row_labels[0]}, {self.col_labels[-1]}'; got {quote(answer.strip(), 40)}")
        elif isinstance(answer, (tuple, list)) and len(answer) == 2:
            parts = list(answer)
        else:
            raise ValueError(f"a prediction here is one entry, (row, column); got {_describe(answer)}")
        return (_label(parts[0], self.row_labels, "row"), _label(parts[1], self.col_labels, "column"))

    def text(self, answer) -> str:
        """A canonical answer (as :meth:`read` returns it) as the learner reads it."""
        if self.form == "number":
            return fmt(answer, self.digits)
        if self.form == "cell":
            return f"row '{answer[0]}', column '{answer[1]}'"
        return answer

    @property
    def digits(self) -> int:
        """``"number"``: the decimals shown, one more than the tolerance has (at least 2)."""
        if self.tolerance <= 0:
            return 4
        return max(2, 1 - math.floor(math.log10(self.tolerance)))

    # -- the truth and the verdict

    def truth_value(self):
        """The right answer, computed now from the course's data, in canonical form."""
        return self.read(self.truth())

    def is_right(self, answer) -> bool:
        """Whether a canonical ``answer`` is the truth."""
        truth = self.truth_value()
        if self.form == "number":
            return abs(answer - truth) <= self.tolerance + 1e-12
        return answer == truth

    def answer_kinds(self, answer) -> list[str]:
        """The kinds of a wrong canonical ``answer`` that a ``thought`` table may name (most specific first)."""
        truth = self.truth_value()
        if self.form == "number":
            return ["higher" if answer > truth else "lower"]
        if self.form == "region":
            return [region_kind(answer)]
        if self.form == "cell":
            kinds = []
            if answer == (truth[1], truth[0]):
                kinds.append("transposed")
            if _plain(answer[0]) == _plain(answer[1]):
                kinds.append("diagonal")
            if answer[0] == truth[0]:
                kinds.append("same row")
            if answer[1] == truth[1]:
                kinds.append("same column")
            return kinds
        return []

    def is_close(self, answer) -> bool:
        """``"number"``: whether a wrong canonical ``answer`` is within twice the tolerance, a matter of rounding."""
        if self.form != "number" or self.tolerance <= 0 or self.is_right(answer):
            return False
        return abs(answer - self.truth_value()) <= CLOSE * self.tolerance + 1e-12

    def thought_for(self, answer) -> str:
        """What a wrong canonical ``answer`` suggests, as "You probably thought …." ('' if the table is silent, and
        for a close answer: rounding is not a misconception)."""
        if self.is_close(answer):
            return ""
        clause = None
        if self.form == "number":
            values = [k for k in self.thought if isinstance(k, numbers.Real) and not isinstance(k, bool)]
            near = [(abs(answer - k), k) for k in values if abs(answer - k) <= self.tolerance + 1e-12]
            if near:
                clause = self.thought[min(near)[1]]
        else:
            for key, text in self.thought.items():
                if key != ANY and key not in KINDS_OF_ANSWER[self.form] and self.read(key) == answer:
                    clause = text
                    break
        if clause is None:
            clause = next((self.thought[k] for k in self.answer_kinds(answer) if k in self.thought),
                          self.thought.get(ANY))
        if not clause:
            return ""
        return f"You probably thought {clause.strip().rstrip('.')}."

    def judge(self, answer) -> Judgement:
        """The verdict on ``answer`` (any value: junk, or a number that is not possible, gets a Judgement whose
        ``.problem`` says why, revealing nothing)."""
        try:
            read = self.read(answer)
        except ValueError as err:
            return Judgement(self.name, False, "", "", self.why, problem=str(err))
        correct = self.is_right(read)
        return Judgement(self.name, correct, self.text(read), self.text(self.truth_value()), self.why,
                         "" if correct else self.thought_for(read), close=self.is_close(read),
                         precision=self.precision)


def _describe(value) -> str:
    if value is None:
        return "nothing (None)"
    if isinstance(value, str):
        return f"the text {quote(value, 30)}"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _label(part, labels: tuple[str, ...], what: str) -> str:
    """A row or column given by its label (any case) or its 0-based index, as the label."""
    if isinstance(part, numbers.Integral) and not isinstance(part, bool):
        if 0 <= int(part) < len(labels):
            return labels[int(part)]
        raise ValueError(f"{what} {int(part)} does not exist: the {what}s are 0 to {len(labels) - 1}")
    if isinstance(part, str):
        for label in labels:
            if _plain(label) == _plain(part):
                return label
        raise ValueError(f"{quote(part.strip(), 30)} is not a {what}: the {what}s are {_quoted(labels)}")
    raise ValueError(f"a {what} is a label or a 0-based index; got {_describe(part)}")
