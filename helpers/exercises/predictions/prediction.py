"""One prediction: its question, the form of its answer, its truth (computed), why, and what a wrong answer suggests.

A :class:`Prediction` is data. Its ``truth`` is a function that computes the right answer from the course's own data
(the helpers' modules), so a prediction never disagrees with the numbers a notebook shows. :meth:`Prediction.judge`
reads any answer in the prediction's form and returns a :class:`Judgement`: right or not, both answers as text, why,
and, when wrong, "You probably thought …" from the prediction's ``thought`` table. Junk answers get a Judgement that
says what could not be read, never an exception.

Forms
-----
``"number"``
    A number, right within ``tolerance``. Typed text is read by :func:`helpers.parsing.parse_number` (``0.3``,
    ``1/3``, ``.25``). ``thought`` keys: a number (a wrong answer within ``tolerance`` of it gets its thought),
    ``"higher"`` or ``"lower"`` (than the truth), ``"*"``.
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

from helpers.exercises.per_notebook import check_names
from helpers.explain import fmt
from helpers.parsing import ParseError, parse_number, quote

__all__ = ["FORMS", "KINDS_OF_ANSWER", "Prediction", "Judgement", "region_of", "region_options", "region_kind"]

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
        The learner's answer as text ('' if it could not be read).
    truth : str
        The right answer as text ('' if the answer could not be read: nothing is revealed for junk).
    why : str
        One line: why the truth is what it is.
    thought : str
        When wrong, "You probably thought …" for this answer ('' when right, or when the table has nothing for it).
    problem : str
        Why the answer could not be read ('' when it could).
    """

    name: str
    correct: bool
    answer: str
    truth: str
    why: str
    thought: str = ""
    problem: str = ""

    @property
    def readable(self) -> bool:
        """True if the answer could be read (then :attr:`truth` is given)."""
        return not self.problem

    @property
    def message(self) -> str:
        """The whole verdict in words, one line per part."""
        if self.problem:
            return f"Your prediction could not be read: {self.problem}"
        head = f"You predicted {self.answer}; the result is {self.truth}."
        lines = [head + (" Right." if self.correct else ""), self.why]
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
        to follow "You probably thought" (e.g. ``"the weights are shared evenly"``).
    tolerance : float
        ``"number"``: how far from the truth an answer may be and still be right.
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
                return parse_number(answer)
            except ParseError as err:
                raise ValueError(f"the prediction {err}" if str(err).startswith("is ") else str(err)) from None
        if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
            raise ValueError(f"a prediction here is a number, e.g. 0.3; got {_describe(answer)}")
        value = float(answer)
        if not math.isfinite(value):
            raise ValueError(f"a prediction here is a finite number; got {fmt(value)}")
        return value

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
            parts = [p.strip(" '\"") for p in re.split(r"[,/]", answer.strip().strip("()[]"))]
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

    def thought_for(self, answer) -> str:
        """What a wrong canonical ``answer`` suggests, as "You probably thought …." ('' if the table is silent)."""
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
        """The verdict on ``answer`` (any value: junk gets a Judgement saying what could not be read)."""
        try:
            read = self.read(answer)
        except ValueError as err:
            return Judgement(self.name, False, "", "", self.why, problem=str(err))
        correct = self.is_right(read)
        return Judgement(self.name, correct, self.text(read), self.text(self.truth_value()), self.why,
                         "" if correct else self.thought_for(read))


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
