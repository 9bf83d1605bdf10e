"""The lesson's practice questions (Q1-Q8) as self-checking exercises, and generated problems.

Two entry points:

``check(qid, answer) -> Feedback``
    Checks an answer to one of the lesson's questions ``"q1"`` ... ``"q8"``. Any answer,
    however malformed, gets a :class:`Feedback`; only an unknown question id raises.

``generate(kind, seed, difficulty="easy") -> Problem``
    A fresh problem with small, friendly numbers. The same ``(kind, seed, difficulty)``
    always gives the same problem, so "problem 42" means the same thing to everybody.

Every word a learner reads (questions, options, hints, worked solutions, the catalogues
of mistakes, the texts of generated problems) is data in :mod:`helpers.questions`. This
module holds two registries: :data:`FORMS`, the answer forms of the lesson's questions,
and the problem kinds (:func:`register_kind`, :func:`kinds`), so that a new kind of
generated problem is one :class:`Kind` entry: a generator, its answer fields (matrix grids
by default), its given matrices and its checker (entry by entry by default).

Answer forms
------------
* q1 and ``"shapes"`` problems: ``{"d_k": 64, "Q": (8, 12, 20, 64), "K": ..., "V": ...,
  "weights": (8, 12, 20, 20), "output": (8, 20, 768)}``
* q2: ``(32, 64)``
* q5 and ``"projection"`` problems: ``{"Q": array, "K": array, "V": array}``
* q7: ``10000``
* q3, q4, q6, q8: a choice key such as ``"b"`` (see ``QUESTIONS[qid].choices``)
* ``"attention"`` and ``"masked"`` problems: ``{"weights": array, "output": array}``
* ``"softmax"`` problems: ``{"weights": array}``
* ``"heatmap"`` problems: ``{"pattern": "diagonal", "mask": "causal", "attention": "self", "strongest": "cat"}``
  (options in ``p.fields``)

Sensible equivalents are accepted: lists for tuples, ints for floats, numpy arrays, and
text read by :mod:`helpers.parsing` (numbers such as ``1/2``, counts such as ``10,000``,
shapes such as ``(8, 12, 20, 64)`` or ``8×12×20×64``, matrices such as ``[[2, 1], [0, 3]]``).

All reference answers are computed with :mod:`helpers.attention`; the worked solutions of
generated problems are written with :mod:`helpers.explain`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from helpers import questions as text, theme
from helpers.attention import (
    additive_mask,
    causal_mask,
    head_dim,
    project_qkv,
    scaled_dot_product_attention,
    softmax,
)
from helpers.explain import (
    attention_entry_lines,
    dot_terms,
    fmt,
    format_matrix,
    matmul_lines,
    softmax_lines,
    weighted_sum_lines,
)
from helpers.parsing import ParseError, parse_count, parse_matrix, parse_number, parse_numbers, parse_shape

__all__ = [
    "Feedback",
    "Field",
    "Given",
    "Choice",
    "Question",
    "AnswerForm",
    "Generated",
    "Kind",
    "Problem",
    "QUESTIONS",
    "FORMS",
    "KINDS",
    "DIFFICULTIES",
    "check",
    "generate",
    "kinds",
    "register_kind",
    "unregister_kind",
    "check_entries",
    "grid_fields",
    "given_matrix",
    "check_code",
    "show_solution",
]

DIFFICULTIES = ("easy", "medium", "hard")

# Generated problems accept answers rounded to 2 decimals: half a unit in the last place.
ROUNDED_TOL = 0.005
# The lesson's own numbers (Q5) are exact; only floating-point noise is forgiven.
EXACT_TOL = 1e-6


# --------------------------------------------------------------------------- what a widget shows

_NOT_WRITTEN = "not_written"  # helpers.code_check.NOT_WRITTEN: a "Your turn" skeleton not filled in yet


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer.

    Attributes
    ----------
    correct : bool
    message : str
        What is right or, when wrong, *what* is wrong (one line per part of the answer).
    mistake : str
        For checked code (:func:`check_code`): the key in :data:`helpers.code_check.MISTAKES` of the
        mistake recognised, ``"not_written"`` for an unfilled skeleton; '' otherwise.

    In a notebook a Feedback shows as its verdict: a green (right) or red (not yet) bar with the
    message, in the theme's colours; its text form is :meth:`__str__`.
    """

    correct: bool
    message: str
    mistake: str = ""

    def __str__(self) -> str:
        if self.mistake == _NOT_WRITTEN:
            return "… " + self.message
        return ("✓ " if self.correct else "✗ ") + self.message

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        if self.mistake == _NOT_WRITTEN:  # nothing is wrong yet: a neutral bar, not a red one
            return theme.verdict_html(str(self), False).replace(theme.ERROR_BORDER, theme.BORDER, 1)
        return theme.verdict_html(str(self), self.correct)

    def __bool__(self) -> bool:
        return self.correct


@dataclass(frozen=True)
class Field:
    """One answer field, as a widget builds it.

    Attributes
    ----------
    name : str
        The key of this part of the answer (``"d_k"``, ``"Q"``, ``"case1"``, ``"choice"``).
    widget : str
        ``"number"`` (a typed number or count), ``"shape"`` (a typed shape), ``"matrix"``
        (a grid of cells) or ``"choice"`` (one of ``options``).
    label : str
        What the field is called on screen.
    placeholder : str
    shape : tuple of int
        The grid's shape (``"matrix"`` only).
    row_labels, col_labels : tuple of str
        The grid's row and column names (``"matrix"`` only).
    options : tuple of (key, text)
        The options (``"choice"`` only).
    """

    name: str
    widget: str
    label: str = ""
    placeholder: str = ""
    shape: tuple = ()
    row_labels: tuple = ()
    col_labels: tuple = ()
    options: tuple = ()


@dataclass(frozen=True, eq=False)
class Given:
    """A matrix the problem gives: as a widget shows it (a table) and as the prompt prints it.

    Attributes
    ----------
    title : str or None
        The table's title (``"W^Q"``).
    value : ndarray (n_rows, n_cols)
        The numbers the table shows (``-inf`` for a blocked entry of a mask).
    row_labels, col_labels : tuple of str or None
        None lets the table number them.
    row_axis, col_axis : str or None
        Axis captions (``"Queries ↓"``, ``"Keys →"``).
    text : str
        How the prompt prints it.
    """

    title: str | None
    value: np.ndarray
    row_labels: tuple | None
    col_labels: tuple | None
    text: str
    row_axis: str | None = None
    col_axis: str | None = None


def _labels(scheme: str, n: int) -> tuple[str, ...]:
    """``n`` row or column names by one scheme of :data:`helpers.questions.LABELS` (``"token"`` -> token 1, ...)."""
    template, first = text.LABELS[scheme]
    return tuple(template.format(k + first) for k in range(n))


# How the answer grids of each part are named: (rows, columns).
_GRID_LABELS = {
    "Q": ("token", "col"), "K": ("token", "col"), "V": ("token", "col"),
    "weights": ("query", "key"), "output": ("query", "dim"),
}


def grid_fields(answer: dict) -> tuple[Field, ...]:
    """One matrix field per part of ``answer``, shaped like it and named as the grids of the course."""
    fields = []
    for name, value in answer.items():
        shape = np.atleast_2d(np.asarray(value, dtype=float)).shape
        rows, cols = _GRID_LABELS.get(name, ("row", "col"))
        fields.append(Field(name, "matrix", label=name, shape=shape, row_labels=_labels(rows, shape[0]),
                            col_labels=_labels(cols, shape[1])))
    return tuple(fields)


def _shape_fields(_spec=None) -> tuple[Field, ...]:
    return tuple(Field(*field) for field in text.SHAPE_FIELDS)


def _matrix_text(name: str, M) -> str:
    """A labelled matrix, one row per line, numbers aligned."""
    M = np.atleast_2d(np.asarray(M))
    if M.dtype == bool:
        cells = [["✓" if v else "✗" for v in row] for row in M]
    else:
        cells = [[fmt(v) for v in row] for row in M]
    width = max(len(c) for row in cells for c in row)
    rows = ["  [" + "  ".join(c.rjust(width) for c in row) + "]" for row in cells]
    return f"{name} ({M.shape[0]}×{M.shape[1]}) =\n" + "\n".join(rows)


def given_matrix(title: str, M, rows: str | None = None, cols: str | None = None) -> Given:
    """A given matrix with rows and columns named by the schemes of :data:`helpers.questions.LABELS`."""
    M = np.atleast_2d(np.asarray(M, dtype=float))
    return Given(title, M, _labels(rows, M.shape[0]) if rows else None, _labels(cols, M.shape[1]) if cols else None,
                 _matrix_text(title, M))


def _projection_given(X, W_q, W_k, W_v) -> tuple[Given, ...]:
    """X (rows are tokens) and the three weight matrices, columns counted from 1 like the answer grids."""
    return (given_matrix("X", X, "token", "col"), given_matrix("W^Q", W_q, "row", "col"),
            given_matrix("W^K", W_k, "row", "col"), given_matrix("W^V", W_v, "row", "col"))


# --------------------------------------------------------------------------- reading answers


class _Unreadable(Exception):
    """An answer (or one part of it) that cannot be read; the text says why, for the learner."""


def _describe(x) -> str:
    """A short description of what the learner gave, for messages."""
    if x is None:
        return "nothing (None)"
    if isinstance(x, str):
        return f"the text {x[:40]!r}" if x.strip() else "an empty text"
    return f"{repr(x)[:40]} ({type(x).__name__})"


def _named(what: str, err: ParseError) -> _Unreadable:
    """A parse error with the field's name in front: ``d_k: '6 4' is not a number``, ``d_k is empty``."""
    message = str(err)
    return _Unreadable(f"{what} {message}" if message.startswith("is ") else f"{what}: {message}")


def _blank(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def _number(x, what: str) -> float:
    """A finite real number from text (:func:`helpers.parsing.parse_number`), a number or a 0-d array."""
    if isinstance(x, str):
        try:
            return parse_number(x)
        except ParseError as err:
            raise _named(what, err) from None
    if isinstance(x, (bool, np.bool_)):
        raise _Unreadable(f"{what} should be a number, not {x}")
    if isinstance(x, (int, float, np.integer, np.floating)):
        value = float(x)
    elif isinstance(x, np.ndarray) and x.size == 1 and x.dtype.kind in "iuf":
        value = float(x.reshape(()))
    else:
        raise _Unreadable(f"{what} should be a number; got {_describe(x)}")
    if math.isnan(value):
        raise _Unreadable(f"{what} is NaN, not a finite number")
    if math.isinf(value):
        raise _Unreadable(f"{what} is infinite, not a finite number")
    return value


def _count(x, what: str) -> int:
    """A whole number; typed text may group thousands (:func:`helpers.parsing.parse_count`)."""
    if isinstance(x, str):
        try:
            return parse_count(x)
        except ParseError as err:
            raise _named(what, err) from None
    value = _number(x, what)
    if value != int(value):
        raise _Unreadable(f"{what}: {fmt(value)} is not a whole number")
    return int(value)




def _shape(x, what: str) -> tuple[int, ...]:
    """A shape from a tuple, list or 1-d array of counts, or text (:func:`helpers.parsing.parse_shape`)."""
    if isinstance(x, str):
        try:
            return parse_shape(x)
        except ParseError as err:
            raise _named(what, err) from None
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise _Unreadable(f"{what} should be a flat list of numbers; got an array of shape {x.shape}")
        x = list(x)
    if not isinstance(x, (tuple, list)):
        raise _Unreadable(f"{what} should be a list of numbers like (32, 64); got {_describe(x)}")
    return tuple(_count(v, f"{what}: entry {k + 1}") for k, v in enumerate(x))


def _typed_entries(x, what: str):
    """Nested lists with every text entry read by :func:`helpers.parsing.parse_number`."""
    if isinstance(x, str):
        try:
            return parse_number(x)
        except ParseError as err:
            raise _named(what, err) from None
    if isinstance(x, (list, tuple)):
        return [_typed_entries(v, what) for v in x]
    return x


def _matrix(x, what: str) -> np.ndarray:
    """A real matrix (or vector) from an array, nested lists, or text (:func:`helpers.parsing.parse_matrix`)."""
    if x is None:
        raise _Unreadable(f"{what} is missing")
    if isinstance(x, str):
        try:
            return parse_matrix(x)
        except ParseError as err:
            raise _named(what, err) from None
    if isinstance(x, (bool, np.bool_)):
        raise _Unreadable(f"{what} should be a matrix of numbers, not {x}")
    if isinstance(x, np.ndarray) and x.dtype.kind == "b":
        raise _Unreadable(f"{what} should hold numbers, not True/False")
    x = _typed_entries(x, what)
    try:
        arr = np.asarray(x, dtype=float)
    except (ValueError, TypeError):
        if isinstance(x, (list, tuple)) and len({len(r) if isinstance(r, (list, tuple)) else -1 for r in x}) > 1:
            raise _Unreadable(f"{what} is not rectangular: its rows have different lengths") from None
        raise _Unreadable(f"{what} should be a matrix of numbers; got {_describe(x)}") from None
    if np.iscomplexobj(arr):
        raise _Unreadable(f"{what} should hold real numbers")
    if np.isnan(arr).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(arr))[0])
        raise _Unreadable(f"{what} contains NaN at {where}: fill in every entry")
    if np.isinf(arr).any():
        raise _Unreadable(f"{what} contains an infinite entry")
    return arr


def _dict(answer, keys, example: str) -> dict:
    if not isinstance(answer, dict):
        raise _Unreadable(text.VERDICTS["expected_dict"].format(keys=", ".join(keys), example=example,
                                                                got=_describe(answer)))
    if all(_blank(answer.get(k)) for k in keys):
        raise _Unreadable(text.VERDICTS["nothing_yet"].format(keys=", ".join(keys)))
    return answer


def _safe(checker, answer) -> Feedback:
    """``checker(answer)``, except that no answer can make it raise: unreadable input becomes Feedback."""
    try:
        return checker(answer)
    except _Unreadable as err:
        return Feedback(False, str(err))
    except Exception as err:  # noqa: BLE001 - a learner's input must never produce a traceback
        return Feedback(False, text.VERDICTS["unforeseen"].format(error=type(err).__name__, got=_describe(answer)))


def _head(n_right: int, total: int, all_right: str) -> str:
    """The first line of a verdict: ``text.VERDICTS[all_right]`` or "2 of 3 right."."""
    if n_right == total:
        return text.VERDICTS[all_right]
    return text.VERDICTS["some_right"].format(right=n_right, total=total)


# --------------------------------------------------------------------------- sizes named in the data


def _size(expr: str, sizes: dict) -> float:
    """A size expression of the data (``"d_model*heads"``, ``"heads/d_model"``) for these sizes."""
    tokens = re.split(r"\s*([*/])\s*", expr.strip())
    value = float(sizes[tokens[0]])
    for op, name in zip(tokens[1::2], tokens[2::2]):
        value = value * sizes[name] if op == "*" else value / sizes[name]
    return value


def _shape_of(expr: str, sizes: dict) -> tuple[int, ...]:
    return tuple(int(_size(axis, sizes)) for axis in expr.split(","))


def _fmt_shape(s) -> str:
    return "(" + ", ".join(str(int(v)) for v in s) + (",)" if len(s) == 1 else ")")


# --------------------------------------------------------------------------- shape answers


def _shape_params(batch, seq_len, d_model, heads) -> dict:
    d_k = d_model // heads
    return {
        "d_k": d_k,
        "Q": (batch, heads, seq_len, d_k),
        "K": (batch, heads, seq_len, d_k),
        "V": (batch, heads, seq_len, d_k),
        "weights": (batch, heads, seq_len, seq_len),
        "output": (batch, seq_len, d_model),
    }


def _dk_diagnosis(got: float, d_model: int, heads: int) -> str:
    sizes = {"d_model": d_model, "heads": heads}
    fields = {**sizes, "product": d_model * heads}
    for mistake in text.DK_MISTAKES:
        if got == _size(mistake["value"], sizes):
            return mistake["why"].format(**fields)
    return text.DK_OTHERWISE.format(**fields)


def _shape_diagnosis(key: str, got, expected, sizes: dict) -> str:
    """Why ``got`` is not ``expected``: a known mistake of the data, else the first axis that is off."""
    catalogue = text.SHAPE_MISTAKES["Q, K, V" if key in ("Q", "K", "V") else key]
    for mistake in catalogue:
        if key not in mistake.get("only", (key,)):
            continue
        shape = _shape_of(mistake["shape"], sizes)
        if shape == tuple(got) and shape != tuple(expected):
            return mistake["why"].format(key=key, **sizes)
    axes = text.SHAPE_AXES[key]
    if len(got) != len(expected):
        return text.SHAPE_GENERIC["count"].format(expected=len(expected), axes=", ".join(axes), got=len(got))
    axis, value = next((a, g) for a, g, e in zip(axes, got, expected) if g != e)
    return text.SHAPE_GENERIC["axis"].format(axis=axis, value=value, axes=", ".join(axes))


def _check_shapes(answer, batch, seq_len, d_model, heads) -> Feedback:
    exp = _shape_params(batch, seq_len, d_model, heads)
    sizes = {"batch": batch, "seq_len": seq_len, "d_model": d_model, "heads": heads, "d_k": exp["d_k"]}
    keys = tuple(exp)
    answer = _dict(answer, keys, "{'d_k': 64, 'Q': (8, 12, 20, 64), ...}")
    lines, n_right = [], 0
    for key in keys:
        value = answer.get(key)
        if _blank(value):
            lines.append(f"✗ {key}: {text.VERDICTS['missing']}")
            continue
        try:
            got = _number(value, key) if key == "d_k" else _shape(value, key)
        except _Unreadable as err:
            lines.append(f"✗ {err}")
            continue
        if key == "d_k":
            if got == exp["d_k"]:
                n_right += 1
                lines.append(f"✓ d_k = {d_model} / {heads} = {exp['d_k']}")
            else:
                lines.append(f"✗ d_k = {fmt(got)}: {_dk_diagnosis(got, d_model, heads)}")
        elif got == exp[key]:
            n_right += 1
            lines.append(f"✓ {key}: {_fmt_shape(got)}")
        else:
            lines.append(f"✗ {key} {_fmt_shape(got)}: {_shape_diagnosis(key, got, exp[key], sizes)}")
    return Feedback(n_right == len(keys), "\n".join([_head(n_right, len(keys), "shapes_right"), *lines]))


# --------------------------------------------------------------------------- number answers


def _check_dk_pair(answer, spec) -> Feedback:
    cases, words = spec["cases"], spec["messages"]
    expected = [head_dim(c["d_model"], c["heads"]) for c in cases]
    if isinstance(answer, dict):
        answer = [answer.get(c["name"], answer.get(k + 1)) for k, c in enumerate(cases)]
    if isinstance(answer, (int, float, np.integer, np.floating)) and not isinstance(answer, bool):
        raise _Unreadable(words["one_number"])
    if isinstance(answer, str):
        try:
            items = parse_numbers(answer, "case")
        except ParseError as err:
            raise _named("the answer", err) from None
    elif isinstance(answer, np.ndarray) and answer.ndim == 1:
        items = list(answer)
    elif isinstance(answer, (list, tuple)):
        items = list(answer)
    else:
        raise _Unreadable(words["one_number"] + f"; got {_describe(answer)}")
    if len(items) != len(cases):
        raise _Unreadable(words["how_many"].format(count=len(items)))
    got = [_number(v, f"d_k for case {k + 1}") for k, v in enumerate(items)]
    if got == expected:
        return Feedback(True, words["right"])
    if got == expected[::-1]:
        return Feedback(False, words["swapped"])
    lines = [text.VERDICTS["some_right"].format(right=sum(g == e for g, e in zip(got, expected)), total=len(cases))]
    for c, g, e in zip(cases, got, expected):
        D, h = c["d_model"], c["heads"]
        if g == e:
            lines.append(f"✓ d_model = {D}, h = {h}: d_k = {e}")
        else:
            lines.append(f"✗ d_model = {D}, h = {h}: {fmt(g)}? {_dk_diagnosis(g, D, h)}")
    return Feedback(False, "\n".join(lines))


# n as a variable ("n^2", "n*n", "n²", "n(n-1)"), not the n of a word such as "nan" or "none".
_FORMULA_IN_N = re.compile(r"(?<![A-Za-z])n(?![A-Za-z])", re.I)


def _check_count(answer, spec) -> Feedback:
    words = spec["messages"]
    if isinstance(answer, str) and _FORMULA_IN_N.search(answer):
        raise _Unreadable(words["formula"].format(text=repr(answer.strip()[:30])))
    got = _count(answer, spec["field"]["what"])
    if got == spec["expected"]:
        return Feedback(True, words["right"])
    return Feedback(False, f"{fmt(got)}: {spec['mistakes'].get(got, words['otherwise'])}")


# --------------------------------------------------------------------------- matrix answers


def _entry(name: str, i: int, j: int) -> str:
    return text.ENTRY.format(name=name, row=i + 1, col=j + 1, i=i, j=j)


def _close(a: np.ndarray, b: np.ndarray, tol) -> bool:
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= np.asarray(tol) + 1e-12))


def _first_wrong(a: np.ndarray, b: np.ndarray, tol) -> tuple[int, ...]:
    bad = np.abs(a - b) > np.asarray(tol) + 1e-12
    return tuple(int(i) for i in np.argwhere(bad)[0])


def _read_matrix_part(answer: dict, key: str, shape, axes: str = "") -> tuple[np.ndarray | None, str | None]:
    """Part ``key`` of ``answer`` as a matrix of ``shape``, or why it cannot be (a ✗ line)."""
    value = answer.get(key)
    if _blank(value):
        return None, f"✗ {key}: {text.VERDICTS['missing']}"
    try:
        got = _matrix(value, key)
    except _Unreadable as err:
        return None, f"✗ {err}"
    if got.shape != tuple(shape):
        if got.size == int(np.prod(shape)) and got.ndim != len(shape) and max(shape) == got.size:
            got = got.reshape(shape)  # a vector written flat or as a 1×n row: the same numbers
        else:
            why = text.MATRIX_SHAPE.format(axes=f"{axes} = " if axes else "", expected=_fmt_shape(shape),
                                           sizes="×".join(str(s) for s in shape), got=_fmt_shape(got.shape))
            return None, f"✗ {key}: {why}"
    return got, None


def _check_projection(answer, X, W: dict, tol, exact: bool) -> Feedback:
    """Q, K, V = X·W for each of the three W's, with specific reasons for wrong entries."""
    X = np.asarray(X, dtype=float)
    answer = _dict(answer, ("Q", "K", "V"), "{'Q': [[2, 1], [0, 3]], 'K': ..., 'V': ...}")
    names = {"Q": "W^Q", "K": "W^K", "V": "W^V"}
    exp = dict(zip(("Q", "K", "V"), project_qkv(X, W["Q"], W["K"], W["V"])))
    words = text.PROJECTION_MISTAKES
    lines, n_right = [], 0
    for key in ("Q", "K", "V"):
        got, err = _read_matrix_part(answer, key, exp[key].shape)
        if err:
            lines.append(err)
            continue
        if _close(got, exp[key], tol):
            n_right += 1
            lines.append(f"✓ {key} = X·{names[key]} = {format_matrix(exp[key])}")
            continue
        Wk = np.asarray(W[key], dtype=float)
        fields = {"key": key, "w": names[key]}
        known = [(exp[key].T, words["transposed"].format(**fields))]
        if Wk.shape[1] == X.shape[0]:
            known.append((Wk @ X, words["w_times_x"].format(**fields)))
        known += [(X, words["x_unchanged"].format(**fields)), (Wk, words["w_itself"].format(**fields))]
        known += [(exp[other], words["other_weight"].format(other_w=names[other], **fields))
                  for other in ("Q", "K", "V") if other != key]
        why = next((reason for cand, reason in known
                    if cand.shape == got.shape and _close(got, cand, tol) and not _close(cand, exp[key], tol)), None)
        if why is None:
            i, j = _first_wrong(got, exp[key], tol)
            why = words["entry"].format(where=_entry(key, i, j), terms=dot_terms(X[i], Wk[:, j]))
        lines.append(f"✗ {key}: {why}")
    correct = n_right == 3
    head = _head(n_right, 3, "projection_right")
    if not exact and not correct:
        head += f" ({text.ROUNDING})"
    return Feedback(correct, "\n".join([head, *lines]))


def _output_tol(V: np.ndarray) -> np.ndarray:
    """Tolerance per output column when the weights were rounded to 2 decimals first.

    Each weight may be off by up to 0.005, so column c of an output row may be off by up to
    0.005·Σ_j |V[j, c]|, plus 0.005 for rounding the output itself.
    """
    return ROUNDED_TOL * (1.0 + np.abs(V).sum(axis=0))


def _weights_diagnosis(got, Q, K, mask, exp_w, tol) -> str | None:
    """None when right, else why not."""
    if _close(got, exp_w, tol):
        return None
    words, d_k = text.WEIGHTS_MISTAKES, Q.shape[1]
    unscaled = scaled_dot_product_attention(Q, K, np.eye(K.shape[0]), mask=mask, scale=False)[1]
    if d_k > 1 and _close(got, unscaled, tol):
        return words["unscaled"].format(d_k=d_k)
    if mask is not None:
        if _close(got, scaled_dot_product_attention(Q, K, np.eye(K.shape[0]))[1], tol):
            return words["unmasked"]
        blocked = np.argwhere(~mask & (np.abs(got) > tol))
        if blocked.size:
            return words["blocked"].format(i=int(blocked[0][0]), j=int(blocked[0][1]))
    if (got < -1e-12).any():
        return words["negative"]
    rows = got.sum(axis=1)
    bad_rows = np.argwhere(np.abs(rows - 1) > max(tol * got.shape[1], 1e-6)).ravel()
    if bad_rows.size:
        if got.shape[0] == got.shape[1] and np.allclose(got.sum(axis=0), 1, atol=tol * got.shape[0]):
            return words["columns"]
        i = int(bad_rows[0])
        return words["row_sum"].format(i=i, total=fmt(rows[i], 3))
    i, j = _first_wrong(got, exp_w, tol)
    return words["entry"].format(i=i, j=j, d_k=d_k)


def _check_attention(answer, Q, K, V, mask, tol_w, tol_out) -> Feedback:
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    exp_out, exp_w = scaled_dot_product_attention(Q, K, V, mask=mask)
    answer = _dict(answer, ("weights", "output"), "{'weights': [[...]], 'output': [[...]]}")
    words = text.OUTPUT_MISTAKES
    lines, n_right = [], 0
    w, err = _read_matrix_part(answer, "weights", exp_w.shape, "(n_q, n_k)")
    weights_right = False
    if err:
        lines.append(err)
    else:
        why = _weights_diagnosis(w, Q, K, mask, exp_w, tol_w)
        weights_right = why is None
        n_right += weights_right
        lines.append(f"✓ weights: {text.VERDICTS['weights_ok']}" if weights_right else f"✗ weights: {why}")
    o, err = _read_matrix_part(answer, "output", exp_out.shape, "(n_q, d_v)")
    if err:
        lines.append(err)
    elif _close(o, exp_out, tol_out):
        n_right += 1
        lines.append(f"✓ output: {text.VERDICTS['output_ok']}")
    else:
        unscaled_out = scaled_dot_product_attention(Q, K, V, mask=mask, scale=False)[0]
        if w is not None and not weights_right and _close(o, w @ V, tol_out):
            why = words["follows_weights"]
        elif Q.shape[1] > 1 and _close(o, unscaled_out, tol_out):
            why = words["unscaled"].format(d_k=Q.shape[1])
        else:
            i, c = _first_wrong(o, exp_out, tol_out)
            terms = " + ".join(f"{fmt(wj, 2)}·{fmt(V[j, c]) if V[j, c] >= 0 else '(' + fmt(V[j, c]) + ')'}"
                               for j, wj in enumerate(exp_w[i]))
            why = words["entry"].format(i=i, c=c, terms=terms)
        lines.append(f"✗ output: {why}")
    return Feedback(n_right == 2, "\n".join([_head(n_right, 2, "attention_right"), *lines]))


def _check_softmax(answer, scores, tol) -> Feedback:
    scores = np.asarray(scores, dtype=float)
    exp_w = softmax(scores)
    words = text.SOFTMAX_MISTAKES
    if not isinstance(answer, dict):
        answer = {"weights": answer}
    got, err = _read_matrix_part(answer, "weights", exp_w.shape)
    if err:
        return Feedback(False, err[2:])
    if _close(got, exp_w, tol):
        return Feedback(True, text.VERDICTS["softmax_right"])
    total = float(got.sum())
    if scores.sum() and _close(got, scores / scores.sum(), tol):
        return Feedback(False, words["divided_by_sum"])
    if _close(got, np.exp(scores), max(tol, 0.005 * float(np.exp(scores).max()))):
        return Feedback(False, words["exps"])
    if abs(total - 1) > tol * got.size:
        return Feedback(False, words["sum"].format(total=fmt(total, 3)))
    for j in range(scores.size):
        for k in range(scores.size):
            if scores[j] > scores[k] and got[j] < got[k] - tol:
                return Feedback(False, words["order"].format(j=j, k=k, score_j=fmt(scores[j]),
                                                             score_k=fmt(scores[k])))
    (j,) = _first_wrong(got, exp_w, tol)
    return Feedback(False, words["entry"].format(j=j, score_j=fmt(scores[j])))


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
    answer = _dict(answer, tuple(expected), "{" + ", ".join(f"'{k}': [[...]]" for k in expected) + "}")
    lines, n_right = [], 0
    for key, value in expected.items():
        want = np.atleast_2d(np.asarray(value, dtype=float))
        got, err = _read_matrix_part(answer, key, want.shape)
        if err:
            lines.append(err)
        elif _close(got, want, tol):
            n_right += 1
            lines.append(f"✓ {key} = {format_matrix(want)}")
        else:
            i, j = _first_wrong(got, want, tol)
            lines.append(f"✗ {key}: {_entry(key, i, j)} is off")
    return Feedback(n_right == len(expected), "\n".join([_head(n_right, len(expected), "entries_right"), *lines]))


# --------------------------------------------------------------------------- multiple choice


@dataclass(frozen=True)
class Choice:
    """One option of a multiple-choice question, with why it is right or wrong."""

    key: str
    text: str
    correct: bool
    explanation: str


def _check_choice(answer, spec) -> Feedback:
    choices = spec["choices"]
    keys = ", ".join(c.key for c in choices)
    if _blank(answer):
        raise _Unreadable(text.VERDICTS["choose"].format(keys=keys))
    if not isinstance(answer, str):
        raise _Unreadable(text.VERDICTS["choose_letter"].format(keys=keys, got=_describe(answer)))
    typed = " ".join(answer.strip().lower().split())
    letter = re.fullmatch(r"\(?([a-z])\)?[.:]?", typed) or re.match(r"\(?([a-z])[).:]\s", typed)
    if letter:  # "b", "(b)", "b)", "b. Nothing: ..." (an option pasted with its letter)
        typed = letter.group(1)
    typed = spec.get("synonyms", {}).get(typed.rstrip(".!"), typed)
    # The learner may paste the option's text instead of its letter.
    by_text = {c.text.lower(): c for c in choices}
    chosen = next((c for c in choices if c.key == typed), None) or by_text.get(typed)
    if chosen is None:
        raise _Unreadable(text.VERDICTS["not_a_choice"].format(text=repr(answer.strip()[:30]), keys=keys))
    verdict = text.VERDICTS["choice_right" if chosen.correct else "choice_wrong"]
    return Feedback(chosen.correct, verdict + chosen.explanation)


# --------------------------------------------------------------------------- the lesson's questions


@dataclass(frozen=True)
class AnswerForm:
    """How one form of lesson question is answered and checked.

    Attributes
    ----------
    fields : callable(spec) -> tuple of Field
        The answer fields for the question's data ``spec`` (a dict of :data:`helpers.questions.QUESTIONS`).
    collect : callable(values) -> answer
        From ``{field name: value}`` to the answer :func:`check` takes.
    check : callable(answer, spec) -> Feedback
        May raise on unreadable answers; :func:`check` turns that into Feedback.
    expected : callable(spec) -> answer
        A right answer.
    given : callable(spec) -> tuple of Given
        The matrices the question gives (none by default).
    """

    fields: Callable
    collect: Callable
    check: Callable
    expected: Callable
    given: Callable = lambda spec: ()


def _one_value(values: dict):
    (value,) = values.values()
    return value


def _projection_weights(spec) -> dict:
    i = spec["inputs"]
    return {"Q": i["W_q"], "K": i["W_k"], "V": i["W_v"]}


def _projection_expected(spec) -> dict:
    X = np.array(spec["inputs"]["X"], dtype=float)
    Q, K, V = project_qkv(X, *(np.array(w, dtype=float) for w in _projection_weights(spec).values()))
    return {"Q": Q, "K": K, "V": V}


FORMS: dict[str, AnswerForm] = {
    "shapes": AnswerForm(
        fields=_shape_fields, collect=dict,
        check=lambda a, spec: _check_shapes(a, **spec["params"]),
        expected=lambda spec: _shape_params(**spec["params"]),
    ),
    "d_k pair": AnswerForm(
        fields=lambda spec: tuple(Field(c["name"], "number", c["label"]) for c in spec["cases"]),
        collect=lambda values: tuple(values.values()),
        check=_check_dk_pair,
        expected=lambda spec: tuple(head_dim(c["d_model"], c["heads"]) for c in spec["cases"]),
    ),
    "projection": AnswerForm(
        fields=lambda spec: grid_fields(_projection_expected(spec)), collect=dict,
        check=lambda a, spec: _check_projection(a, spec["inputs"]["X"], _projection_weights(spec), EXACT_TOL,
                                                exact=True),
        expected=_projection_expected,
        given=lambda spec: _projection_given(*(spec["inputs"][k] for k in ("X", "W_q", "W_k", "W_v"))),
    ),
    "count": AnswerForm(
        fields=lambda spec: (Field(spec["field"]["name"], "number", spec["field"]["label"]),),
        collect=_one_value, check=_check_count, expected=lambda spec: spec["expected"],
    ),
    "choice": AnswerForm(
        fields=lambda spec: (Field("choice", "choice", options=tuple((c.key, c.text) for c in spec["choices"])),),
        collect=_one_value, check=_check_choice,
        expected=lambda spec: next(c.key for c in spec["choices"] if c.correct),
    ),
}


@dataclass(frozen=True, eq=False)
class Question:
    """One of the lesson's practice questions, read from :data:`helpers.questions.QUESTIONS`.

    Attributes
    ----------
    id : str                     ``"q1"`` ... ``"q8"``
    title : str                  a short name
    text : str                   the question as the lesson asks it
    form : str                   a key of :data:`FORMS`
    hint : str
    solution : str               the worked solution, including the lesson's own explanation
    lesson_note : str            where the lesson's printed answer is imprecise ('' if nowhere)
    choices : tuple of Choice    for multiple-choice questions
    expected : object            a right answer, in the form :func:`check` takes
    fields : tuple of Field      the answer fields
    given : tuple of Given       the matrices the question gives
    """

    id: str
    title: str
    text: str
    form: str
    hint: str
    solution: str
    expected: object
    lesson_note: str = ""
    choices: tuple[Choice, ...] = ()
    fields: tuple[Field, ...] = ()
    given: tuple[Given, ...] = ()
    spec: dict = field(default_factory=dict, repr=False)

    def check(self, answer) -> Feedback:
        return _safe(lambda a: FORMS[self.form].check(a, self.spec), answer)

    def answer_from(self, values: dict):
        """The answer :meth:`check` takes, from ``{field name: what the field holds}``."""
        return FORMS[self.form].collect(values)


def _question(qid: str, data: dict) -> Question:
    spec = dict(data)
    spec["choices"] = tuple(Choice(c["key"], c["text"], c["correct"], c["explanation"])
                            for c in data.get("choices", ()))
    form = FORMS[data["form"]]
    return Question(id=qid, title=data["title"], text=data["text"], form=data["form"], hint=data["hint"],
                    solution="\n".join(data["solution"]), expected=form.expected(spec),
                    lesson_note=data.get("lesson_note", ""), choices=spec["choices"], fields=form.fields(spec),
                    given=form.given(spec), spec=spec)


QUESTIONS: dict[str, Question] = {qid: _question(qid, data) for qid, data in text.QUESTIONS.items()}


def check(qid: str, answer) -> Feedback:
    """Check an answer to one of the lesson's questions.

    Parameters
    ----------
    qid : str
        ``"q1"`` ... ``"q8"`` (case-insensitive).
    answer : object
        In the form described in the module docstring. Anything else gets a Feedback
        saying what could not be read.

    Returns
    -------
    Feedback

    Raises
    ------
    KeyError
        If ``qid`` is not a question id.
    """
    key = qid.strip().lower() if isinstance(qid, str) else qid
    if key not in QUESTIONS:
        raise KeyError(f"unknown question id {qid!r}; the questions are {', '.join(QUESTIONS)}")
    return QUESTIONS[key].check(answer)


# --------------------------------------------------------------------------- generated problems


@dataclass(frozen=True, eq=False)
class Generated:
    """What a kind's generator returns.

    Attributes
    ----------
    inputs : dict         the problem's numbers
    answer : dict         the right answer, part name -> value
    instruction : str     what to do (without the title)
    solution : str        the worked solution
    given : tuple of Given  the given matrices, as tables and as text in the prompt
    """

    inputs: dict
    answer: dict
    instruction: str
    solution: str
    given: tuple = ()


@dataclass(frozen=True)
class Kind:
    """One kind of generated problem: everything :func:`generate` and the practice widget need.

    Attributes
    ----------
    name : str
    generate : callable(rng, difficulty) -> Generated
        ``rng`` is a ``numpy.random.Generator`` seeded with the problem number.
    check : callable(problem, answer) -> Feedback
        May raise on unreadable answers (:meth:`Problem.check` turns that into Feedback).
        Default: :func:`check_entries` against ``problem.answer``.
    fields : callable(problem) -> tuple of Field
        Default: one matrix grid per part of ``problem.answer`` (:func:`grid_fields`).
    """

    name: str
    generate: Callable
    check: Callable = lambda problem, answer: check_entries(answer, problem.answer)
    fields: Callable = lambda problem: grid_fields(problem.answer)


@dataclass(frozen=True, eq=False)
class Problem:
    """A generated practice problem.

    Attributes
    ----------
    kind, seed, difficulty
        What made it; the same three always give the same problem.
    inputs : dict
        projection: X, W_q, W_k, W_v | attention: Q, K, V | masked: Q, K, V, mask (bool, True = may
        attend) | softmax: scores | shapes: batch, seq_len, d_model, heads | heatmap: weights (n_q, n_k),
        queries, keys (token labels), query (the token of the last question), groups (of a block pattern).
    answer : dict
        projection: Q, K, V | attention, masked: weights, output (scaled) | softmax: weights |
        shapes: d_k, Q, K, V, weights, output (as in q1) | heatmap: pattern, mask, attention, strongest.
    title : str
        ``"Problem 42 (attention, easy)"``.
    instruction : str
        What to do.
    given : tuple of Given
        The given matrices.
    solution : str
        The worked solution, every step with its numbers.
    fields : tuple of Field
        The answer fields.
    entry : Kind
        The registry entry that made it (and checks it).
    """

    kind: str
    seed: int
    difficulty: str
    inputs: dict
    answer: dict
    title: str
    instruction: str
    solution: str
    given: tuple = ()
    entry: Kind | None = field(default=None, repr=False)

    @property
    def fields(self) -> tuple[Field, ...]:
        """The answer fields (from the kind: they may depend on the answer's shapes)."""
        return tuple(self.entry.fields(self))

    @property
    def prompt(self) -> str:
        """The whole problem as text: title, instruction and every given matrix."""
        return "\n\n".join([f"{self.title}. {self.instruction}", *(g.text for g in self.given)])

    def check(self, answer) -> Feedback:
        """Check an answer; any input gives Feedback, never an exception."""
        return _safe(lambda a: self.entry.check(self, a), answer)

    def answer_from(self, values: dict) -> dict:
        """The answer :meth:`check` takes, from ``{field name: what the field holds}``."""
        return dict(values)

    def __repr__(self) -> str:
        return f"Problem(kind={self.kind!r}, seed={self.seed}, difficulty={self.difficulty!r})"

    # (kind, seed, difficulty) decides everything else, and comparing the arrays field by field
    # would raise ("truth value of an array is ambiguous").
    def __eq__(self, other) -> bool:
        if not isinstance(other, Problem):
            return NotImplemented
        return (self.kind, self.seed, self.difficulty) == (other.kind, other.seed, other.difficulty)

    def __hash__(self) -> int:
        return hash((self.kind, self.seed, self.difficulty))


def _ints(rng, low, high, shape) -> np.ndarray:
    return rng.integers(low, high + 1, size=shape).astype(float)


def _nonzero_rows(rng, low, high, shape) -> np.ndarray:
    """Integers with no all-zero row (an all-zero token or query makes a dull problem)."""
    M = _ints(rng, low, high, shape)
    for r in range(M.shape[0]):
        while not M[r].any():
            M[r] = _ints(rng, low, high, M.shape[1])
    return M


def _gen_projection(rng, difficulty) -> Generated:
    if difficulty == "easy":
        n, d_model, d_k = 2, 2, 2
        X = _nonzero_rows(rng, 0, 3, (n, d_model))
        Ws = [_nonzero_rows(rng, 0, 2, (d_model, d_k)) for _ in range(3)]
    elif difficulty == "medium":
        n, d_model, d_k = 3, 3, 2
        X = _nonzero_rows(rng, -2, 3, (n, d_model))
        Ws = [_nonzero_rows(rng, -1, 2, (d_model, d_k)) for _ in range(3)]
    else:
        n, d_model, d_k = 3, 4, 3
        X = _nonzero_rows(rng, -4, 6, (n, d_model)) / 2  # halves: one decimal
        Ws = [_nonzero_rows(rng, -2, 2, (d_model, d_k)) for _ in range(3)]
    Q, K, V = project_qkv(X, *Ws)
    words = text.KINDS["projection"]
    sizes = {"n": n, "d_model": d_model, "d_k": d_k}
    lines = [line.format(**sizes) for line in words["solution"]]
    for name, wname, W in (("Q", "W^Q", Ws[0]), ("K", "W^K", Ws[1]), ("V", "W^V", Ws[2])):
        lines += ["", *matmul_lines(X, W, name, "X", wname)]
    return Generated({"X": X, "W_q": Ws[0], "W_k": Ws[1], "W_v": Ws[2]}, {"Q": Q, "K": K, "V": V},
                     words["instruction"].format(rounding=text.ROUNDING, **sizes), "\n".join(lines),
                     _projection_given(X, *Ws))


def _gen_qkv(rng, difficulty):
    if difficulty == "easy":
        n_q = n_k = 2
        d_k, d_v = 2, 2
        Q, K = _nonzero_rows(rng, 0, 2, (n_q, d_k)), _nonzero_rows(rng, 0, 2, (n_k, d_k))
        V = _ints(rng, 0, 3, (n_k, d_v))
    elif difficulty == "medium":
        n_q = n_k = 3
        d_k, d_v = 2, 2
        Q, K = _nonzero_rows(rng, -1, 2, (n_q, d_k)), _nonzero_rows(rng, -1, 2, (n_k, d_k))
        V = _ints(rng, -2, 3, (n_k, d_v))
    else:
        n_q, n_k = 3, 4
        d_k, d_v = 4, 3  # √4 = 2 keeps the scaling friendly
        Q, K = _nonzero_rows(rng, -2, 2, (n_q, d_k)), _nonzero_rows(rng, -2, 2, (n_k, d_k))
        V = _ints(rng, -2, 3, (n_k, d_v))
    return Q, K, V


def _attention_sizes(Q, K, V) -> dict:
    return {"n_q": Q.shape[0], "n_k": K.shape[0], "d_k": Q.shape[1], "d_v": V.shape[1]}


def _attention_given(Q, K, V) -> tuple[Given, ...]:
    # V's columns are the output's columns: the same names, so "column d0" means one thing.
    return (given_matrix("Q", Q, "query"), given_matrix("K", K, "key"), given_matrix("V", V, "value", "dim"))


def _attention_solution(Q, K, V, mask) -> str:
    words, sizes = text.ATTENTION_SOLUTION, _attention_sizes(Q, K, V)
    n_q, n_k, d_k = sizes["n_q"], sizes["n_k"], sizes["d_k"]
    out, W = scaled_dot_product_attention(Q, K, V, mask=mask)
    lines = [words["scores"].format(sqrt_d_k=fmt(math.sqrt(d_k)), **sizes), words["shapes"].format(**sizes)]
    scaled = np.empty((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            if mask is not None and not mask[i, j]:
                lines.append(words["masked"].format(i=i, j=j))
                scaled[i, j] = -np.inf
                continue
            entry = attention_entry_lines(Q, K, i, j)
            lines.append(f"  ({i},{j}): " + entry[0])
            lines += [f"         {t}" for t in entry[1:]]
            scaled[i, j] = Q[i] @ K[j] / math.sqrt(d_k)
    lines += ["", words["softmax"]]
    for i in range(n_q):
        lines.append(words["query"].format(i=i))
        lines += ["   " + t for t in softmax_lines(scaled[i], labels=_labels("key", n_k))]
    lines += ["", words["weights"].format(weights=format_matrix(W, 2), **sizes), "", words["output_rule"]]
    for i in range(n_q):
        lines += ["  " + t for t in weighted_sum_lines(W[i], V, list(_labels("value", n_k)), name=f"out{i}")]
    lines += ["", words["output"].format(output=format_matrix(out, 2), **sizes)]
    return "\n".join(lines)


def _gen_attention(rng, difficulty) -> Generated:
    Q, K, V = _gen_qkv(rng, difficulty)
    out, W = scaled_dot_product_attention(Q, K, V)
    instruction = text.KINDS["attention"]["instruction"].format(rounding=text.ROUNDING, **_attention_sizes(Q, K, V))
    return Generated({"Q": Q, "K": K, "V": V}, {"weights": W, "output": out}, instruction,
                     _attention_solution(Q, K, V, None), _attention_given(Q, K, V))


def _gen_masked(rng, difficulty) -> Generated:
    Q, K, V = _gen_qkv(rng, "medium" if difficulty == "easy" else difficulty)
    n_q, n_k = Q.shape[0], K.shape[0]
    if difficulty == "easy" or (difficulty == "medium" and rng.random() < 0.5):
        mask, which = causal_mask(n_q), "causal"
    elif difficulty == "medium":
        mask = np.ones((n_q, n_k), dtype=bool)
        mask[:, n_k - 1:] = False
        which = "padding"
    else:
        mask = rng.random((n_q, n_k)) < 0.6
        # Every query keeps at least one key (else its softmax is undefined); two, so that
        # no row is a trivial "all weight on the only key".
        for i in range(n_q):
            while mask[i].sum() < 2:
                mask[i, rng.integers(n_k)] = True
        which = "random"
    out, W = scaled_dot_product_attention(Q, K, V, mask=mask)
    words = text.KINDS["masked"]
    instruction = words["instruction"].format(mask=words["masks"][which], rounding=text.ROUNDING,
                                              **_attention_sizes(Q, K, V))
    shown_mask = Given(words["mask_title"], additive_mask(mask), _labels("query", n_q), _labels("key", n_k),
                       _matrix_text("mask", mask), row_axis="Queries ↓", col_axis="Keys →")
    return Generated({"Q": Q, "K": K, "V": V, "mask": mask}, {"weights": W, "output": out}, instruction,
                     _attention_solution(Q, K, V, mask), (*_attention_given(Q, K, V), shown_mask))


def _gen_softmax(rng, difficulty) -> Generated:
    if difficulty == "easy":
        scores = _ints(rng, 0, 3, 3)
    elif difficulty == "medium":
        scores = _ints(rng, -2, 3, 4)
    else:
        scores = _ints(rng, -20, 20, 5) / 10  # one decimal
    W = softmax(scores)
    words = text.KINDS["softmax"]
    lines = softmax_lines(scores, labels=[f"key {j}" for j in range(scores.size)])
    lines.append(words["solution_end"].format(weights=format_matrix(W, 2)[1:-1]))
    shown = Given(None, scores.reshape(1, -1), (text.SCORES_ROW,), _labels("key", scores.size),
                  "scores = [" + ", ".join(fmt(s) for s in scores) + "]")
    return Generated({"scores": scores}, {"weights": W}, words["instruction"].format(n=scores.size,
                                                                                     rounding=text.ROUNDING),
                     "\n".join(lines), (shown,))


_SHAPE_CHOICES = {
    "easy": {"heads": (2, 4, 8), "d_k": (16, 32, 64), "batch": (2, 10), "seq_len": (5, 30)},
    "medium": {"heads": (4, 6, 8, 12, 16), "d_k": (32, 48, 64, 80), "batch": (4, 32), "seq_len": (10, 128)},
    "hard": {"heads": (12, 16, 20, 32), "d_k": (64, 80, 96, 128), "batch": (1, 64), "seq_len": (50, 2048)},
}


def _gen_shapes(rng, difficulty) -> Generated:
    c = _SHAPE_CHOICES[difficulty]
    # Distinct sizes keep every diagnosis unambiguous ("you swapped d_k and seq_len" must mean just that).
    while True:
        heads = int(rng.choice(c["heads"]))
        d_k = int(rng.choice(c["d_k"]))
        batch = int(rng.integers(c["batch"][0], c["batch"][1] + 1))
        seq_len = int(rng.integers(c["seq_len"][0], c["seq_len"][1] + 1))
        d_model = heads * d_k
        if len({heads, d_k, batch, seq_len, d_model}) == 5:
            break
    inputs = {"batch": batch, "seq_len": seq_len, "d_model": d_model, "heads": heads}
    answer = _shape_params(**inputs)
    words = text.KINDS["shapes"]
    shapes = {k: _fmt_shape(v) for k, v in answer.items() if k != "d_k"}
    shapes["per_head_output"] = _fmt_shape((batch, heads, seq_len, d_k))
    solution = "\n".join(line.format(d_k=d_k, **inputs, **shapes) for line in words["solution"])
    return Generated(inputs, answer, words["instruction"].format(**inputs), solution)


def _check_generated_projection(p: Problem, answer) -> Feedback:
    i = p.inputs
    return _check_projection(answer, i["X"], {"Q": i["W_q"], "K": i["W_k"], "V": i["W_v"]}, ROUNDED_TOL, exact=False)


def _check_generated_attention(p: Problem, answer) -> Feedback:
    i = p.inputs
    return _check_attention(answer, i["Q"], i["K"], i["V"], i.get("mask"), ROUNDED_TOL, _output_tol(i["V"]))


def _softmax_fields(p: Problem) -> tuple[Field, ...]:
    n = p.inputs["scores"].size
    return (Field("weights", "matrix", label="weights", shape=(1, n), row_labels=(text.WEIGHTS_ROW,),
                  col_labels=_labels("key", n)),)


# --------------------------------------------------------------------------- reading a heatmap


@dataclass(frozen=True, eq=False)
class HeatmapGiven(Given):
    """A given weights matrix that the practice widget draws as a heatmap (Queries ↓, Keys →, on the fixed
    [0, 1] scale, token labels on both axes) rather than as a table; ``text`` is how the prompt prints it."""


_HM = text.HEATMAP
# What a learner reads is the heatmap's numbers, rounded to 2 decimals, so every decision is taken on them:
# a row's largest weight beats the others by at least HEATMAP_MARGIN, and a weight that no mask blocked
# shows as 0.01 or more, so that only a mask writes 0.00.
HEATMAP_MARGIN = 0.1
_HM_MIN_WEIGHT = 0.01
# A "block" row keeps this share of its weight inside its group and reads each token of it with at least
# _HM_BLOCK_EACH (so the square is filled, not one bright cell); a looser version rules block out elsewhere.
_HM_BLOCK_MASS, _HM_BLOCK_EACH = 0.8, 0.15
_HM_BLOCK_MASS_LOOSE, _HM_BLOCK_EACH_LOOSE = 0.6, 0.08
# Per difficulty: sentence length, noise on the scores, the pattern's score boost, and how often a problem is
# cross-attention or padded.
_HM_LEVELS = {
    "easy": {"n": 5, "noise": 0.25, "strength": 3.0, "cross": 0.0, "padding": 0.0},
    "medium": {"n": 6, "noise": 0.4, "strength": 2.7, "cross": 0.25, "padding": 0.3},
    "hard": {"n": 7, "noise": 0.55, "strength": 2.5, "cross": 0.3, "padding": 0.35},
}
# The patterns each situation can show: a causal mask leaves the first rows no distant or grouped keys, and a
# cross-attention "previous token" or "block" would mean nothing.
_HM_PATTERNS = {
    ("self", "none"): ("diagonal", "previous-token", "vertical", "block", "long-range"),
    ("self", "padding"): ("diagonal", "previous-token", "vertical", "block", "long-range"),
    ("self", "causal"): ("diagonal", "previous-token", "vertical"),
    ("cross", "none"): ("diagonal", "vertical"),
    ("cross", "padding"): ("diagonal", "vertical"),
}


def _hm_compositions(n: int):
    """Every way to cut ``n`` tokens into at least two contiguous groups of 2 or more: tuples of (start, stop)."""
    def cuts(start):
        if start == n:
            yield ()
            return
        for stop in range(start + 2, n + 1):
            for rest in cuts(stop):
                yield ((start, stop),) + rest

    return [c for c in cuts(0) if len(c) >= 2]


def _hm_peaks(S: np.ndarray, counted) -> dict:
    """For each counted row of the shown weights: (largest key, its weight, runner-up key, its weight)."""
    peaks = {}
    for i in counted:
        order = np.argsort(-S[i], kind="stable")
        peaks[i] = (int(order[0]), float(S[i, order[0]]), int(order[1]), float(S[i, order[1]]))
    return peaks


def _hm_block_groups(S: np.ndarray, counted, mass: float, each: float):
    """The grouping that makes the shown weights a block pattern, or None."""
    n = len(counted)
    if n < 4 or list(counted) != list(range(n)):
        return None
    for groups in _hm_compositions(n):
        if all(S[i, a:b].sum() >= mass - 1e-9 and S[i, a:b].min() >= each - 1e-9
               for a, b in groups for i in range(a, b)):
            return groups
    return None


def _hm_target(pattern: str, i: int) -> int:
    return i if pattern == "diagonal" else max(i - 1, 0)


def _hm_pattern_misfit(pattern: str, S: np.ndarray, counted, strict: bool):
    """None when the shown weights ``S`` fit ``pattern``, else ``(row, fields)``: the first row that does not.

    ``strict`` (the pattern a problem shows) also asks every row's largest weight to be clear by
    :data:`HEATMAP_MARGIN`; the loose test (every other pattern) only asks where the largest weights are,
    so that a matrix fitting two patterns even loosely is never shown.
    """
    peaks = _hm_peaks(S, counted)
    unclear = next((i for i in counted if peaks[i][1] - peaks[i][3] < HEATMAP_MARGIN - 1e-9), None)
    if pattern in ("diagonal", "previous-token"):
        for i in counted:
            t = _hm_target(pattern, i)
            j, best = peaks[i][:2]
            if j != t or (strict and i == unclear):
                own = float(S[i, t]) if t < S.shape[1] else 0.0
                return i, {"own": own, "best": best, "key": j, "target": t}
        return None
    if pattern == "vertical":
        cols = {peaks[i][0] for i in counted}
        if len(cols) > 1:
            i = next(iter(counted))
            i2 = next(k for k in counted if peaks[k][0] != peaks[i][0])
            return i, {"key": peaks[i][0], "row2": i2, "key2": peaks[i2][0], "best": peaks[i][1]}
        if strict and unclear is not None:
            return unclear, {"key": peaks[unclear][0], "row2": unclear, "key2": peaks[unclear][2],
                             "best": peaks[unclear][1]}
        return None
    if pattern == "block":
        mass, each = (_HM_BLOCK_MASS, _HM_BLOCK_EACH) if strict else (_HM_BLOCK_MASS_LOOSE, _HM_BLOCK_EACH_LOOSE)
        if _hm_block_groups(S, counted, mass, each) is not None:
            return None
        i = max(counted, key=lambda k: peaks[k][1])  # the row with the most weight on one key
        return i, {"key": peaks[i][0], "best": peaks[i][1]}
    # long-range
    for i in counted:
        j, best = peaks[i][:2]
        if abs(j - i) < 2 or (strict and i == unclear):
            return i, {"key": j, "best": best, "distance": abs(j - i)}
    if len({peaks[i][0] for i in counted}) == 1:
        i = next(iter(counted))
        return i, {"key": peaks[i][0], "best": peaks[i][1], "distance": abs(peaks[i][0] - i)}
    return None


def _hm_mask_of(W: np.ndarray) -> str | None:
    """Which mask the exact zeros of ``W`` show: "none", "causal", "padding", or None (no mask makes them)."""
    zero = W == 0
    n_q, n_k = W.shape
    if not zero.any():
        return "none"
    if n_q == n_k and np.array_equal(zero, ~causal_mask(n_q)):
        return "causal"
    cols = zero.all(axis=0)
    first = n_k - int(np.argmin(cols[::-1])) if not cols.all() else 0
    if cols[first:].all() and first < n_k and not zero[:, :first].any():
        return "padding"
    return None


def _hm_strongest_rows(S: np.ndarray, counted, mask_kind: str) -> list[int]:
    """Rows whose largest weight is clear by the margin and that read more than one key."""
    peaks = _hm_peaks(S, counted)
    return [i for i in counted if peaks[i][1] - peaks[i][3] >= HEATMAP_MARGIN - 1e-9
            and not (mask_kind == "causal" and i == 0)]


def _hm_scores(rng, pattern: str, n_q: int, n_k: int, counted, level: dict, cross: bool, mask_kind: str,
               n_real_k: int):
    """Constructed scores for ``pattern`` plus seeded noise; also the groups of a block pattern.

    Rows ``counted`` (the queries that are not [PAD]) get the pattern; keys from ``n_real_k`` on are padding.
    """
    s = level["strength"]
    # A block must keep most of each row inside its group and still leave every other key 0.01 or more:
    # that needs a fixed boost and quieter noise, whatever the difficulty.
    noise = min(level["noise"], 0.3) if pattern == "block" else level["noise"]
    S = np.clip(rng.normal(0.0, noise, (n_q, n_k)), -2 * noise, 2 * noise)
    n = len(counted)
    groups = None
    if pattern in ("diagonal", "previous-token"):
        for i in counted:
            S[i, _hm_target(pattern, i)] += s
    elif pattern == "vertical":
        if mask_kind == "causal":
            c = 0  # the only key every query of a causal mask may read
        elif cross:
            last = n_real_k - 1  # the source's final "."
            c = int(rng.choice([last, int(rng.integers(0, last))]))  # the "." or a word
        else:
            c = int(rng.integers(0, n))
        S[list(counted), c] += s
    elif pattern == "block":
        sizes = []
        while sum(sizes) < n:
            sizes.append(int(rng.integers(2, 4)))
        if sum(sizes) > n:  # the last group takes what is left, merged into the one before if it is too small
            sizes[-1] -= sum(sizes) - n
            if sizes[-1] < 2:
                last = sizes.pop()
                sizes[-1] += last
        if len(sizes) < 2:
            sizes = [n // 2, n - n // 2]
        starts = np.cumsum([0, *sizes])
        groups = tuple(zip(starts[:-1].tolist(), starts[1:].tolist()))
        for a, b in groups:
            S[a:b, a:b] += 2.7
            for i in range(a, b):
                S[i, int(rng.integers(a, b))] += 0.5  # a favourite in the group, as real heads have
    else:  # long-range: a partner at least 2 positions away, not all rows the same one
        while True:
            partner = rng.permutation(n)
            if all(abs(int(p) - i) >= 2 for i, p in enumerate(partner)):
                break
        for i in counted:
            S[i, int(partner[i])] += s
    return S, groups


def _hm_table_text(W: np.ndarray, queries, keys) -> str:
    """The weights as a labelled table, 2 decimals: how the prompt prints the heatmap."""
    width = max(5, *(len(k) for k in keys))
    lead = max(len(q) for q in queries)
    lines = [f"{_HM['title']} (Queries ↓, Keys →):", " " * (lead + 2) + "".join(k.rjust(width + 1) for k in keys)]
    for q, row in zip(queries, W):
        lines.append("  " + q.ljust(lead) + "".join(f"{v:.2f}".rjust(width + 1) for v in row))
    return "\n".join(lines)


def _gen_heatmap(rng, difficulty) -> Generated:
    level = _HM_LEVELS[difficulty]
    cross = bool(rng.random() < level["cross"])
    if cross:
        target, source = text.HEATMAP_TRANSLATIONS[int(rng.integers(len(text.HEATMAP_TRANSLATIONS)))]
        words_q, words_k = target.split(), source.split()
        mask_kind = "padding" if rng.random() < level["padding"] else "none"
    else:
        sentences = text.HEATMAP_SENTENCES[level["n"]]
        words_q = words_k = sentences[int(rng.integers(len(sentences)))].split()
        if rng.random() < level["padding"]:
            mask_kind = "padding"
        else:
            mask_kind = "causal" if rng.random() < 0.4 else "none"
    n_pad = int(rng.integers(1, 3)) if mask_kind == "padding" else 0
    keys = tuple(words_k) + (text.PAD,) * n_pad
    queries = tuple(words_q) + (() if cross else (text.PAD,) * n_pad)
    n_q, n_k = len(queries), len(keys)
    counted = tuple(range(len(words_q)))  # [PAD] queries do not count: their outputs are thrown away
    pattern = str(rng.choice(_HM_PATTERNS[("cross" if cross else "self", mask_kind)]))
    allowed = np.ones((n_q, n_k), dtype=bool)
    if mask_kind == "causal":
        allowed = causal_mask(n_q)
    elif mask_kind == "padding":
        allowed[:, len(words_k):] = False
    others = [p for p in _HM["options"]["pattern"] if p != pattern]
    for _attempt in range(1000):
        S, groups = _hm_scores(rng, pattern, n_q, n_k, counted, level, cross, mask_kind, len(words_k))
        W = softmax(np.where(allowed, S, -np.inf), axis=-1)
        shown = np.round(W, 2)
        if (W[allowed] < _HM_MIN_WEIGHT).any() or _hm_mask_of(W) != mask_kind:
            continue
        if _hm_pattern_misfit(pattern, shown, counted, strict=True) is not None:
            continue
        if any(_hm_pattern_misfit(p, shown, counted, strict=False) is None for p in others):
            continue
        rows = _hm_strongest_rows(shown, counted, mask_kind)
        if rows:
            break
    else:  # pragma: no cover - the constructions above fit within a few attempts
        raise RuntimeError(f"no readable {pattern} heatmap found")
    if pattern == "block":
        groups = _hm_block_groups(shown, counted, _HM_BLOCK_MASS, _HM_BLOCK_EACH)
    query = int(rng.choice(rows))
    strongest = keys[int(np.argmax(shown[query]))]
    answer = {"pattern": pattern, "mask": mask_kind, "attention": "cross" if cross else "self",
              "strongest": strongest}
    inputs = {"weights": W, "queries": queries, "keys": keys, "query": queries[query], "groups": groups}
    instruction = _HM["instruction"].format(n_q=n_q, n_k=n_k)
    if n_pad and not cross:
        instruction += " " + _HM["pad_rows"]
    # The prompt (text) asks the four questions with their options; the widget asks them with its buttons.
    options = {**_HM["options"], "strongest": tuple(k for k in keys if k != text.PAD)}
    asked = [f"{k}. {label.format(token=queries[query])} ({', '.join(options[name])})"
             for k, (name, label) in enumerate(_HM["fields"], start=1)]
    given = HeatmapGiven(_HM["title"], W, queries, keys, "\n".join([_hm_table_text(W, queries, keys), "", *asked]),
                         row_axis="Queries ↓", col_axis="Keys →")
    return Generated(inputs, answer, instruction, _hm_solution(inputs, answer), (given,))


def _hm_counted(p_inputs) -> tuple[int, ...]:
    queries = p_inputs["queries"]
    return tuple(i for i, q in enumerate(queries) if q != text.PAD)


def _hm_what(field_name: str, value: str, inputs: dict) -> str:
    """How the heatmap shows ``value`` of ``field_name``, with its numbers."""
    W, queries, keys = inputs["weights"], inputs["queries"], inputs["keys"]
    shown = np.round(W, 2)
    if field_name == "pattern":
        if value == "vertical":
            col = int(np.bincount([int(np.argmax(shown[i])) for i in _hm_counted(inputs)]).argmax())
            return _HM["patterns"]["vertical"].format(key=keys[col])
        if value == "block":
            groups = inputs.get("groups") or ()
            named = "; ".join(" ".join(keys[a:b]) for a, b in groups)
            return _HM["patterns"]["block"].format(groups=named)
        if value == "diagonal" and queries != keys[:len(queries)]:
            return _HM["patterns"]["diagonal_cross"]
        return _HM["patterns"][value]
    if field_name == "mask":
        pads = [k for k in keys if k == text.PAD]
        return _HM["masks"][value].format(keys=", ".join(pads), s="s" if len(pads) > 1 else "",
                                          are="are" if len(pads) > 1 else "is")
    words_q = [q for q in queries if q != text.PAD]
    shape = "" if len(queries) == len(keys) else _HM["attention_shape"].format(n_q=len(queries), n_k=len(keys))
    return _HM["attention"][value].format(n=len(keys), queries=" ".join(words_q),
                                          keys=" ".join(k for k in keys if k != text.PAD), shape=shape)


def _hm_why_not(field_name: str, chosen: str, inputs: dict) -> str:
    """Why the heatmap does not show ``chosen``: the row or entry that contradicts it."""
    W, queries, keys = inputs["weights"], inputs["queries"], inputs["keys"]
    shown = np.round(W, 2)
    if field_name == "pattern":
        misfit = _hm_pattern_misfit(chosen, shown, _hm_counted(inputs), strict=True)
        if misfit is None:  # pragma: no cover - generated problems fit one pattern only
            return ""
        i, f = misfit
        fields = {"row": queries[i], "key": keys[f["key"]], "best": f"{f['best']:.2f}"}
        if "target" in f:
            fields.update(own=f"{f['own']:.2f}", target=keys[f["target"]] if f["target"] < len(keys) else "")
        if "row2" in f:
            fields.update(row2=queries[f["row2"]], key2=keys[f["key2"]])
        if chosen == "long-range":
            d = f["distance"]
            fields["where"] = (_HM["patterns_not"]["long-range_self"] if d == 0 else
                               _HM["patterns_not"]["long-range_near"].format(key=fields["key"], distance=d,
                                                                             s="s" if d > 1 else ""))
        return _HM["patterns_not"][chosen].format(**fields)
    if field_name == "mask":
        zero = W == 0
        if chosen == "none":
            i, j = (int(v) for v in np.argwhere(zero)[0])
            return _HM["masks_not"]["none"].format(row=queries[i], key=keys[j])
        if chosen == "causal":
            if queries != keys:
                return _HM["masks_not"]["causal_cross"]
            i, j = (int(v) for v in np.argwhere(np.triu(~zero, 1))[0])
            return _HM["masks_not"]["causal"].format(row=queries[i], key=keys[j], weight=f"{shown[i, j]:.2f}")
        # padding: the last column is read by somebody
        j = W.shape[1] - 1
        i = int(np.argmax(W[:, j]))
        return _HM["masks_not"]["padding"].format(row=queries[i], key=keys[j], weight=f"{shown[i, j]:.2f}")
    shape = "" if len(queries) == len(keys) else _HM["attention_shape"].format(n_q=len(queries), n_k=len(keys))
    return _HM["attention_not"][chosen].format(shape=shape)


def _hm_strongest_line(inputs: dict, template: str, chosen: str | None = None) -> str:
    W, queries, keys = inputs["weights"], inputs["queries"], inputs["keys"]
    shown = np.round(W, 2)
    i = queries.index(inputs["query"])
    order = np.argsort(-shown[i], kind="stable")
    fields = {"query": queries[i], "key": keys[order[0]], "best": f"{shown[i, order[0]]:.2f}",
              "key2": keys[order[1]], "second": f"{shown[i, order[1]]:.2f}"}
    if chosen is not None:
        j = keys.index(chosen)
        fields.update(chosen=chosen, chosen_weight=f"{shown[i, j]:.2f}")
    return template.format(**fields)


def _hm_name(field_name: str, value: str) -> str:
    names = _HM["names"][field_name]
    return names.format(value) if isinstance(names, str) else names[value]


def _hm_solution(inputs: dict, answer: dict) -> str:
    words = _HM["solution"]
    W, queries, keys = inputs["weights"], inputs["queries"], inputs["keys"]
    shown = np.round(W, 2)
    lines = [words["rows"]]
    for i in _hm_counted(inputs):
        j = int(np.argmax(shown[i]))
        lines.append(words["row"].format(query=queries[i], key=keys[j], weight=f"{shown[i, j]:.2f}"))
    lines.append("")
    for name in ("pattern", "mask", "attention"):
        lines.append(words[name].format(what=_hm_what(name, answer[name], inputs), option=answer[name]))
    lines.append(words["strongest"].format(query=inputs["query"],
                                           what=_hm_strongest_line(inputs, _HM["strongest"])))
    return "\n".join(lines)


def _hm_fields(p: Problem) -> tuple[Field, ...]:
    labels = dict(_HM["fields"])
    options = {**_HM["options"], "strongest": tuple(k for k in p.inputs["keys"] if k != text.PAD)}
    return tuple(Field(name, "choice", label=labels[name].format(token=p.inputs["query"]),
                       options=tuple((o, o) for o in options[name])) for name in labels)


def _hm_read(value, options) -> str:
    """The option a typed or picked value names (case, spaces, quotes and synonyms forgiven)."""
    if not isinstance(value, str):
        raise _Unreadable(text.VERDICTS["choose"].format(keys=", ".join(options)))
    typed = " ".join(value.strip().strip("«»\"'").split())
    typed = _HM["synonyms"].get(typed.lower(), typed)
    match = next((o for o in options if o.lower() == typed.lower()), None)
    if match is None:
        raise _Unreadable(_HM["not_option"].format(got=repr(value.strip()[:30]), options=", ".join(options)))
    return match


def _check_heatmap(p: Problem, answer) -> Feedback:
    fields = p.fields
    answer = _dict(answer, tuple(f.name for f in fields), "{'pattern': 'diagonal', 'mask': 'none', ...}")
    lines, n_right = [], 0
    for f in fields:
        value = answer.get(f.name)
        if _blank(value):
            lines.append(f"✗ {f.name}: {text.VERDICTS['missing']}")
            continue
        try:
            chosen = _hm_read(value, [key for key, _ in f.options])
        except _Unreadable as err:
            lines.append(f"✗ {f.name}: {err}")
            continue
        right = p.answer[f.name]
        if f.name == "strongest":
            if chosen == right:
                n_right += 1
                lines.append(f"✓ strongest: «{chosen}»: " + _hm_strongest_line(p.inputs, _HM["strongest"]))
            else:
                lines.append(f"✗ strongest: not «{chosen}»: "
                             + _hm_strongest_line(p.inputs, _HM["strongest_not"], chosen))
            continue
        what = _hm_what(f.name, right, p.inputs)
        if chosen == right:
            n_right += 1
            lines.append(f"✓ {f.name}: " + _HM["right"].format(chosen=chosen, what=what))
        else:
            lines.append(f"✗ {f.name}: " + _HM["wrong"].format(chosen=chosen, actual=_hm_name(f.name, right),
                                                               what=what, why=_hm_why_not(f.name, chosen, p.inputs)))
    total = len(fields)
    head = _HM["all_right"] if n_right == total else text.VERDICTS["some_right"].format(right=n_right, total=total)
    return Feedback(n_right == total, "\n".join([head, *lines]))


_KINDS: dict[str, Kind] = {}


def register_kind(kind: Kind) -> None:
    """Add a kind of generated problem: :func:`generate` and the practice widget offer it from now on.

    Raises
    ------
    ValueError
        If ``kind`` is not a :class:`Kind` or its name is taken.
    """
    if not isinstance(kind, Kind):
        raise ValueError(f"kind must be a Kind; got {type(kind).__name__}")
    if kind.name in _KINDS:
        raise ValueError(f"a kind named {kind.name!r} is registered already")
    _KINDS[kind.name] = kind


def unregister_kind(name: str) -> None:
    """Remove a kind added by :func:`register_kind` (KeyError if there is none of that name)."""
    del _KINDS[name]


def kinds() -> tuple[str, ...]:
    """The names of every registered kind, the built-in ones (:data:`KINDS`) first."""
    return tuple(_KINDS)


for _kind in (
    Kind("projection", _gen_projection, _check_generated_projection),
    Kind("attention", _gen_attention, _check_generated_attention),
    Kind("masked", _gen_masked, _check_generated_attention),
    Kind("softmax", _gen_softmax, lambda p, a: _check_softmax(a, p.inputs["scores"], ROUNDED_TOL), _softmax_fields),
    Kind("shapes", _gen_shapes, lambda p, a: _check_shapes(a, **p.inputs), _shape_fields),
    Kind("heatmap", _gen_heatmap, _check_heatmap, _hm_fields),
):
    register_kind(_kind)

KINDS = kinds()  # the built-in kinds


def generate(kind: str, seed: int, difficulty: str = "easy") -> Problem:
    """A practice problem with small, friendly numbers.

    Parameters
    ----------
    kind : str
        One of :func:`kinds`: ``"projection"``, ``"attention"``, ``"masked"``, ``"softmax"``,
        ``"shapes"``, ``"heatmap"`` and any added by :func:`register_kind`.
    seed : int
        Non-negative; the same (kind, seed, difficulty) always gives the same problem.
    difficulty : str
        ``"easy"``, ``"medium"`` or ``"hard"``: sizes and numbers grow.

    Returns
    -------
    Problem

    Raises
    ------
    ValueError
        For an unknown kind or difficulty, or a seed that is not a non-negative integer.
    """
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {', '.join(_KINDS)}; got {kind!r}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}; got {difficulty!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    entry = _KINDS[kind]
    made = entry.generate(np.random.default_rng(int(seed)), difficulty)
    if not isinstance(made, Generated):
        raise ValueError(f"the generator of kind {kind!r} must return a Generated; got {type(made).__name__}")
    title = text.TITLE.format(seed=int(seed), kind=kind, difficulty=difficulty)
    return Problem(kind, int(seed), difficulty, made.inputs, made.answer, title, made.instruction, made.solution,
                   tuple(made.given), entry=entry)


# Code the learner writes ("Your turn" cells): the checker and the reference solutions live in helpers.code_check.
from helpers.code_check import check_code, show_solution  # noqa: E402 - code_check builds on Feedback above
