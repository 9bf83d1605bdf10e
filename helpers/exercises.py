"""The lesson's practice questions (Q1-Q8) as self-checking exercises, and generated problems.

Two entry points:

``check(qid, answer) -> Feedback``
    Checks an answer to one of the lesson's questions ``"q1"`` ... ``"q8"``. Any answer,
    however malformed, gets a :class:`Feedback`; only an unknown question id raises.

``generate(kind, seed, difficulty="easy") -> Problem``
    A fresh problem with small, friendly numbers. The same ``(kind, seed, difficulty)``
    always gives the same problem, so "problem 42" means the same thing to everybody.

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

Sensible equivalents are accepted: lists for tuples, ints for floats, numpy arrays,
numbers typed as text (``"10,000"``), shapes typed as text (``"(8, 12, 20, 64)"``).

All reference answers are computed with :mod:`helpers.attention`; the worked solutions of
generated problems are written with :mod:`helpers.explain`.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field

import numpy as np

from helpers.attention import causal_mask, head_dim, project_qkv, scaled_dot_product_attention, softmax
from helpers.explain import (
    attention_entry_lines,
    dot_terms,
    fmt,
    format_matrix,
    matmul_lines,
    softmax_lines,
    weighted_sum_lines,
)

__all__ = [
    "Feedback",
    "Choice",
    "Question",
    "Problem",
    "QUESTIONS",
    "KINDS",
    "DIFFICULTIES",
    "check",
    "generate",
]

KINDS = ("projection", "attention", "masked", "softmax", "shapes")
DIFFICULTIES = ("easy", "medium", "hard")

# Generated problems accept answers rounded to 2 decimals: half a unit in the last place.
ROUNDED_TOL = 0.005
# The lesson's own numbers (Q5) are exact; only floating-point noise is forgiven.
EXACT_TOL = 1e-6


# --------------------------------------------------------------------------- feedback


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer.

    Attributes
    ----------
    correct : bool
    message : str
        What is right or, when wrong, *what* is wrong (one line per part of the answer).
    """

    correct: bool
    message: str

    def __str__(self) -> str:
        return ("✓ " if self.correct else "✗ ") + self.message

    def __bool__(self) -> bool:
        return self.correct


class _Unreadable(Exception):
    """An answer (or one part of it) that cannot be read; the text says why, for the learner."""


# --------------------------------------------------------------------------- parsing


def _describe(x) -> str:
    """A short description of what the learner gave, for messages."""
    if x is None:
        return "nothing (None)"
    if isinstance(x, str):
        return f"the text {x[:40]!r}" if x.strip() else "an empty text"
    return f"{repr(x)[:40]} ({type(x).__name__})"


_NUMBER_WORDS = re.compile(r"[a-zA-Z]")
# "768/12", "100 * 100", "100^2", "100²": a calculation to be done, not a number.
_CALCULATION = re.compile(r"[+-]?[\d.]+(?:\s*(?:[-+*/×÷·^]|\*\*)\s*[\d.]+|²)+")
_GROUPED = re.compile(r"^[+-]?\d{1,3}([,\s_\u2009\u202f]\d{3})+(\.\d+)?$")


def _number(x, what: str = "the answer") -> float:
    """A single finite real number from an int, float, numpy scalar, 0-d array or text.

    Text may group thousands ("10,000", "10 000", "10_000"); a comma is read as a
    thousands separator only when it is followed by exactly three digits, so "1,5" is
    refused rather than guessed.
    """
    if isinstance(x, (bool, np.bool_)):
        raise _Unreadable(f"{what} should be a number, not {x}")
    if isinstance(x, str):
        text = x.strip().replace("−", "-")
        if not text:
            raise _Unreadable(f"{what} is empty: type a number")
        if _GROUPED.match(text):
            text = re.sub(r"[,\s_\u2009\u202f]", "", text)
        if _CALCULATION.fullmatch(text):
            raise _Unreadable(f"{what}: type the result as one number, not the calculation ({x.strip()[:30]!r})")
        if _NUMBER_WORDS.search(text.replace("e", "").replace("E", "")) or "^" in text or "²" in text:
            raise _Unreadable(f"{what} should be a number, not a formula or words ({x.strip()[:30]!r})")
        try:
            value = float(text)
        except ValueError:
            raise _Unreadable(f"could not read {x.strip()[:30]!r} as a number ({what})") from None
    elif isinstance(x, (int, float, np.integer, np.floating)):
        value = float(x)
    elif isinstance(x, np.ndarray) and x.size == 1 and x.dtype.kind in "iuf":
        value = float(x.reshape(()))
    else:
        raise _Unreadable(f"{what} should be a number; got {_describe(x)}")
    if math.isnan(value):
        raise _Unreadable(f"{what} is NaN (not a number)")
    if math.isinf(value):
        raise _Unreadable(f"{what} is infinite")
    return value


def _whole(x, what: str) -> int:
    value = _number(x, what)
    if value != int(value):
        raise _Unreadable(f"{what} should be a whole number; got {fmt(value)}")
    return int(value)


def _sequence(x, what: str) -> list:
    """A flat list of items from a tuple, list, 1-d array or a text such as "(8, 12, 20, 64)"."""
    if isinstance(x, str):
        text = x.strip()
        if not text:
            raise _Unreadable(f"{what} is empty")
        text = text.strip("()[]{} ")
        # "x" separates only between numbers ("8x12x20x64", "8 x 12"), never inside a word.
        parts = [p for p in re.split(r"\s*(?:,|;|×|\*|(?<![A-Za-z_])x(?![A-Za-z_])|\band\b|\s)\s*", text) if p]
        if not parts:
            raise _Unreadable(f"{what}: could not find any numbers in {x.strip()[:30]!r}")
        return parts
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise _Unreadable(f"{what} should be a flat list of numbers; got an array of shape {x.shape}")
        return list(x)
    if isinstance(x, (tuple, list)):
        return list(x)
    raise _Unreadable(f"{what} should be a list of numbers like (32, 64); got {_describe(x)}")


def _shape(x, what: str) -> tuple[int, ...]:
    items = _sequence(x, what)
    return tuple(_whole(v, f"{what}: entry {k + 1}") for k, v in enumerate(items))


def _matrix(x, what: str) -> np.ndarray:
    """A real matrix (or vector) from an array, nested lists, or text like "[[2, 1], [0, 3]]"."""
    if x is None:
        raise _Unreadable(f"{what} is missing")
    if isinstance(x, str):
        text = x.strip()
        if not text:
            raise _Unreadable(f"{what} is empty")
        try:
            x = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            # "2 1; 0 3": rows separated by semicolons or new lines
            rows = [r for r in re.split(r"[;\n]", text.strip("[]")) if r.strip()]
            try:
                x = [[float(v) for v in re.split(r"[,\s]+", r.strip(" []")) if v] for r in rows]
            except ValueError:
                raise _Unreadable(f"could not read {what} ({text[:30]!r}) as a matrix of numbers") from None
    if isinstance(x, (bool, np.bool_)):
        raise _Unreadable(f"{what} should be a matrix of numbers, not {x}")
    if isinstance(x, np.ndarray) and x.dtype.kind == "b":
        raise _Unreadable(f"{what} should hold numbers, not True/False")
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
        raise _Unreadable(f"expected a dict with keys {', '.join(keys)} (e.g. {example}); got {_describe(answer)}")
    def blank(v) -> bool:
        return v is None or (isinstance(v, str) and not v.strip())

    if all(blank(answer.get(k)) for k in keys):
        raise _Unreadable(f"nothing to check yet: give {', '.join(keys)}")
    return answer


def _safe(checker):
    """Wrap a checker so that no answer can make it raise: unreadable input becomes Feedback."""

    def run(answer) -> Feedback:
        try:
            return checker(answer)
        except _Unreadable as err:
            return Feedback(False, str(err))
        except Exception as err:  # noqa: BLE001 - a learner's input must never produce a traceback
            return Feedback(False, f"could not check this answer ({type(err).__name__}): {_describe(answer)}")

    return run


# --------------------------------------------------------------------------- shape questions


def _fmt_shape(s) -> str:
    return "(" + ", ".join(str(int(v)) for v in s) + (",)" if len(s) == 1 else ")")


def _shape_diagnosis(got, expected, axes, mistakes) -> str:
    """Why ``got`` is not ``expected``: a known mistake, else the first axis that is off."""
    for shape, why in mistakes:
        if tuple(shape) == tuple(got) and tuple(shape) != tuple(expected):
            return why
    if len(got) != len(expected):
        return f"expected {len(expected)} numbers, ({', '.join(axes)}); you gave {len(got)}"
    wrong = [(name, g) for name, g, e in zip(axes, got, expected) if g != e]
    name, g = wrong[0]
    return f"the {name} axis is off (you wrote {g}); the order is ({', '.join(axes)})"


def _shape_params(batch, seq_len, d_model, heads):
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
    if got == d_model * heads:
        return f"d_k = d_model / h, you multiplied ({d_model}·{heads} = {d_model * heads})"
    if got == d_model:
        return f"{d_model} is d_model, the width of the whole model; each of the {heads} heads gets d_model / h"
    if got == heads:
        return f"{heads} is the number of heads h; d_k = d_model / h"
    if heads and got == heads / d_model:
        return "upside down: d_k = d_model / h, not h / d_model"
    return f"d_k = d_model / h = {d_model} / {heads}: check the division"


def _check_shapes(answer, batch, seq_len, d_model, heads) -> Feedback:
    B, n, D, h = batch, seq_len, d_model, heads
    exp = _shape_params(B, n, D, h)
    dk = exp["d_k"]
    keys = ("d_k", "Q", "K", "V", "weights", "output")
    answer = _dict(answer, keys, "{'d_k': 64, 'Q': (8, 12, 20, 64), ...}")
    qkv_axes = ("batch", "heads", "seq_len", "d_k")
    lines, n_right = [], 0
    for key in keys:
        value = answer.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            lines.append(f"✗ {key}: missing")
            continue
        try:
            if key == "d_k":
                got = _number(value, "d_k")
                if got == dk:
                    n_right += 1
                    lines.append(f"✓ d_k = {D} / {h} = {dk}")
                else:
                    lines.append(f"✗ d_k = {fmt(got)}: {_dk_diagnosis(got, D, h)}")
                continue
            got = _shape(value, key)
        except _Unreadable as err:
            # The reason usually names the field already ("d_k should be a number ..."): say it once.
            lines.append(f"✗ {err}" if str(err).startswith(key) else f"✗ {key}: {err}")
            continue
        if got == exp[key]:
            n_right += 1
            lines.append(f"✓ {key}: {_fmt_shape(got)}")
            continue
        if key in ("Q", "K", "V"):
            mistakes = [
                ((B, n, D), f"that is {key} for all heads together, before splitting into {h} heads of d_k = {dk}"),
                ((B, n, dk), f"that is the shape per head; stacking the {h} heads gives (batch, heads, seq_len, d_k)"),
                ((B, h, dk, n), "you swapped d_k and the sequence length"
                 + (" (that is Kᵀ, the transposed keys used in Q·Kᵀ)" if key == "K" else "")),
                ((B, n, h, dk), "that is after the reshape but before the transpose: the heads axis comes before "
                 "the sequence axis, (batch, heads, seq_len, d_k)"),
                ((h, B, n, dk), "batch comes first, then heads: (batch, heads, seq_len, d_k)"),
                ((B, h, n, D), f"each head has only d_k = d_model / h = {dk} columns, not d_model = {D}"),
                ((B, h, n, D * h), "d_k = d_model / h, you multiplied"),
                ((n, dk), "that is one head of one sequence; add the batch and heads axes"),
                ((n, D), "that is one sequence before splitting; add the batch axis and split into heads"),
            ]
            why = _shape_diagnosis(got, exp[key], qkv_axes, mistakes)
        elif key == "weights":
            mistakes = [
                ((B, h, n, dk), "weights are (batch, heads, n, n): one row per query, one column per key; "
                 "d_k is summed away in each q·k"),
                ((B, h, dk, dk), "d_k × d_k? the weights compare tokens with tokens: (n, n) per head"),
                ((B, n, n), f"each of the {h} heads has its own weights: (batch, heads, n, n)"),
                ((n, n), "that is one head of one sequence; add the batch and heads axes"),
                ((B, h, D, D), "weights compare tokens with tokens: (n, n) per head, not d_model × d_model"),
            ]
            why = _shape_diagnosis(got, exp[key], ("batch", "heads", "queries", "keys"), mistakes)
        else:
            mistakes = [
                ((B, h, n, dk), f"that is the per-head output before the heads are combined; concatenating the "
                 f"{h} heads of {dk} gives (batch, seq_len, d_model)"),
                ((B, n, dk), f"that is one head's output; concatenating {h} heads of {dk} gives d_model = {D}"),
                ((B, h, n, n), "that is the shape of the weights; the output is weights·V, then the heads are "
                 "combined"),
                ((B, n, n), "that is the shape of one head's weights; the output has one d_model-wide row per token"),
                ((B, n, D * h), "concatenating the heads gives h · d_k = d_model columns, not d_model · h"),
            ]
            why = _shape_diagnosis(got, exp[key], ("batch", "seq_len", "d_model"), mistakes)
        lines.append(f"✗ {key} {_fmt_shape(got)}: {why}")
    correct = n_right == len(keys)
    head = "All six right." if correct else f"{n_right} of {len(keys)} right."
    return Feedback(correct, "\n".join([head, *lines]))


def _check_pair(answer) -> Feedback:
    cases = ((256, 8), (1024, 16))
    expected = [head_dim(D, h) for D, h in cases]
    if isinstance(answer, dict):
        answer = [answer.get("case1", answer.get(1)), answer.get("case2", answer.get(2))]
    if isinstance(answer, (int, float, np.integer, np.floating)) and not isinstance(answer, bool):
        raise _Unreadable("Q2 has two cases: give both values of d_k, e.g. (32, 64)")
    items = _sequence(answer, "the answer")
    if len(items) != 2:
        raise _Unreadable(f"Q2 has two cases: give two values of d_k, e.g. (32, 64); you gave {len(items)}")
    got = [_number(v, f"d_k for case {i + 1}") for i, v in enumerate(items)]
    if got == expected:
        return Feedback(True, "Case 1: d_k = 256 / 8 = 32. Case 2: d_k = 1024 / 16 = 64.")
    if got == expected[::-1]:
        return Feedback(False, "you swapped the two cases: case 1 is d_model = 256, h = 8")
    lines = [f"{sum(g == e for g, e in zip(got, expected))} of 2 right."]
    for (D, h), g, e in zip(cases, got, expected):
        if g == e:
            lines.append(f"✓ d_model = {D}, h = {h}: d_k = {e}")
        else:
            lines.append(f"✗ d_model = {D}, h = {h}: {fmt(g)}? {_dk_diagnosis(g, D, h)}")
    return Feedback(False, "\n".join(lines))


def _check_count(answer) -> Feedback:
    n = 100
    # n as a variable ("n^2", "n*n", "n²", "n(n-1)"), not the n of a word such as "nan" or "none".
    if isinstance(answer, str) and re.search(r"(?<![A-Za-z])n(?![A-Za-z])", answer, re.I):
        raise _Unreadable(f"give the number for n = 100: evaluate your formula ({answer.strip()[:30]!r})")
    got = _number(answer, "the number of comparisons")
    if got == n * n:
        return Feedback(True, "n² = 100 · 100 = 10,000: every token (as a query) is compared with every token "
                              "(as a key), itself included.")
    known = {
        n * (n - 1): "n(n−1)? every token also compares with itself: q_i·k_i is one of the scores",
        n * (n - 1) // 2: "n(n−1)/2 counts unordered pairs without self; but q_i·k_j ≠ q_j·k_i (queries and keys "
                          "are different projections), so both orders are computed, and each token with itself",
        n * (n + 1) // 2: "n(n+1)/2 is what a causal mask keeps; plain self-attention scores every query against "
                          "every key",
        n: "that is one score per token; each of the n queries is compared with all n keys",
        2 * n: "each of the n queries is compared with all n keys: n · n, not n + n",
        n ** 3: "n³ is too many: one score per (query, key) pair",
    }
    if got in known:
        return Feedback(False, f"{fmt(got)}: {known[got]}")
    return Feedback(False, f"{fmt(got)}: count the scores: one per (query, key) pair, for n = {n} tokens")


# --------------------------------------------------------------------------- matrix questions


def _rc(name: str, i: int, j: int) -> str:
    """Both ways of naming an entry: learners count from 1, the code from 0."""
    return f"row {i + 1}, column {j + 1} of {name} ({name}[{i},{j}])"


def _close(a: np.ndarray, b: np.ndarray, tol) -> bool:
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= np.asarray(tol) + 1e-12))


def _first_wrong(a: np.ndarray, b: np.ndarray, tol) -> tuple[int, ...]:
    bad = np.abs(a - b) > np.asarray(tol) + 1e-12
    return tuple(int(i) for i in np.argwhere(bad)[0])


def _read_matrix_part(answer: dict, key: str, shape) -> tuple[np.ndarray | None, str | None]:
    value = answer.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, f"✗ {key}: missing"
    try:
        got = _matrix(value, key)
    except _Unreadable as err:
        return None, f"✗ {key}: {err}"
    if got.shape != tuple(shape):
        if got.size == int(np.prod(shape)) and got.ndim != len(shape) and max(shape) == got.size:
            got = got.reshape(shape)  # a vector written flat or as a 1×n row: the same numbers
        else:
            rows_cols = "×".join(str(s) for s in shape)
            return None, f"✗ {key}: expected shape {_fmt_shape(shape)} ({rows_cols}); got {_fmt_shape(got.shape)}"
    return got, None


def _check_projection(answer, X, W, tol, exact: bool) -> Feedback:
    """Q, K, V = X·W for each of the three W's, with specific reasons for wrong entries."""
    X = np.asarray(X, dtype=float)
    answer = _dict(answer, ("Q", "K", "V"), "{'Q': [[2, 1], [0, 3]], 'K': ..., 'V': ...}")
    names = {"Q": "W^Q", "K": "W^K", "V": "W^V"}
    exp = dict(zip(("Q", "K", "V"), project_qkv(X, W["Q"], W["K"], W["V"])))
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
        known = [(exp[key].T, f"you have {key} transposed: row i of {key} belongs to token i (row i of X)")]
        if Wk.shape[1] == X.shape[0]:
            known.append((Wk @ X, f"that is {names[key]}·X; the product is X·{names[key]} "
                                  "(tokens are the rows of X)"))
        known += [
            (X, f"that is X unchanged; {key} = X·{names[key]}"),
            (Wk, f"that is {names[key]} itself; {key} = X·{names[key]}"),
        ]
        for other in ("Q", "K", "V"):
            if other != key:
                known.append((exp[other], f"that is X·{names[other]}; {key} uses {names[key]}"))
        why = None
        for cand, text in known:
            if cand.shape == got.shape and _close(got, cand, tol) and not _close(cand, exp[key], tol):
                why = text
                break
        if why is None:
            i, j = _first_wrong(got, exp[key], tol)
            why = f"{_rc(key, i, j)}: check {dot_terms(X[i], Wk[:, j])}"
        lines.append(f"✗ {key}: {why}")
    correct = n_right == 3
    head = "Q, K and V are all right." if correct else f"{n_right} of 3 right."
    if not exact and not correct:
        head += " (Answers rounded to 2 decimals are accepted.)"
    return Feedback(correct, "\n".join([head, *lines]))


def _output_tol(V: np.ndarray) -> np.ndarray:
    """Tolerance per output column when the weights were rounded to 2 decimals first.

    Each weight may be off by up to 0.005, so column c of an output row may be off by up to
    0.005·Σ_j |V[j, c]|, plus 0.005 for rounding the output itself.
    """
    return ROUNDED_TOL * (1.0 + np.abs(V).sum(axis=0))


def _check_weights_part(got, Q, K, mask, exp_w, tol) -> str | None:
    """None when right, else why not."""
    if _close(got, exp_w, tol):
        return None
    unscaled = scaled_dot_product_attention(Q, K, np.eye(K.shape[0]), mask=mask, scale=False)[1]
    d_k = Q.shape[1]
    if d_k > 1 and _close(got, unscaled, tol):
        return f"these are the weights without dividing the scores by √d_k = √{d_k}; scale first, then softmax"
    if mask is not None:
        unmasked = scaled_dot_product_attention(Q, K, np.eye(K.shape[0]))[1]
        if _close(got, unmasked, tol):
            return "these are the weights without the mask: blocked keys get score −∞, so weight 0"
        blocked = np.argwhere(~mask & (np.abs(got) > tol))
        if blocked.size:
            i, j = (int(v) for v in blocked[0])
            return f"query q{i} may not attend to key k{j} (the mask blocks it): its weight must be 0"
    if (got < -1e-12).any():
        return "a weight is negative; softmax weights are between 0 and 1"
    rows = got.sum(axis=1)
    bad_rows = np.argwhere(np.abs(rows - 1) > max(tol * got.shape[1], 1e-6)).ravel()
    if bad_rows.size:
        cols = got.sum(axis=0)
        if got.shape[0] == got.shape[1] and np.allclose(cols, 1, atol=tol * got.shape[0]):
            return ("your columns sum to 1, not your rows: row q_i is query i, spreading 1 unit of attention "
                    "over the keys (transposed?)")
        i = int(bad_rows[0])
        return f"row q{i} sums to {fmt(rows[i], 3)}; each row of weights must sum to 1"
    i, j = _first_wrong(got, exp_w, tol)
    return (f"row q{i} is off at key k{j}: check the scores q{i}·k_j / √{d_k} of that row, "
            "then the softmax")


def _check_attention(answer, Q, K, V, mask, tol_w, tol_out) -> Feedback:
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    exp_out, exp_w = scaled_dot_product_attention(Q, K, V, mask=mask)
    answer = _dict(answer, ("weights", "output"), "{'weights': [[...]], 'output': [[...]]}")
    lines, n_right = [], 0
    w, err = _read_matrix_part(answer, "weights", exp_w.shape)
    weights_right = False
    if err:
        lines.append(err.replace("expected shape", "expected shape (n_q, n_k) ="))
    else:
        why = _check_weights_part(w, Q, K, mask, exp_w, tol_w)
        if why is None:
            n_right += 1
            weights_right = True
            lines.append("✓ weights: every row right (and sums to 1)")
        else:
            lines.append(f"✗ weights: {why}")
    o, err = _read_matrix_part(answer, "output", exp_out.shape)
    if err:
        lines.append(err.replace("expected shape", "expected shape (n_q, d_v) ="))
    elif _close(o, exp_out, tol_out):
        n_right += 1
        lines.append("✓ output: every row right")
    else:
        unscaled_out = scaled_dot_product_attention(Q, K, V, mask=mask, scale=False)[0]
        if w is not None and not weights_right and _close(o, w @ V, tol_out):
            why = "your output is your weights·V, so the step is right; fix the weights and it follows"
        elif Q.shape[1] > 1 and _close(o, unscaled_out, tol_out):
            why = f"computed with unscaled weights: divide the scores by √d_k = √{Q.shape[1]} before the softmax"
        else:
            i, c = _first_wrong(o, exp_out, tol_out)
            terms = " + ".join(f"{fmt(wj, 2)}·{fmt(V[j, c]) if V[j, c] >= 0 else '(' + fmt(V[j, c]) + ')'}"
                               for j, wj in enumerate(exp_w[i]))
            why = (f"output[{i},{c}] (row q{i}, column d{c}) is Σ_j weight[{i},j]·V[j,{c}]: check {terms} "
                   "(weights rounded to 2 decimals)")
        lines.append(f"✗ output: {why}")
    correct = n_right == 2
    head = "Weights and output are right." if correct else f"{n_right} of 2 right."
    return Feedback(correct, "\n".join([head, *lines]))


def _check_softmax(answer, scores, tol) -> Feedback:
    scores = np.asarray(scores, dtype=float)
    exp_w = softmax(scores)
    if not isinstance(answer, dict):
        answer = {"weights": answer}
    got, err = _read_matrix_part(answer, "weights", exp_w.shape)
    if err:
        return Feedback(False, err[2:])
    if _close(got, exp_w, tol):
        return Feedback(True, "The weights are right (and sum to 1).")
    total = float(got.sum())
    if _close(got, scores / scores.sum(), tol) if scores.sum() else False:
        return Feedback(False, "you divided each score by the sum of the scores; softmax divides exp(score) by the "
                               "sum of the exps")
    if _close(got, np.exp(scores), max(tol, 0.005 * float(np.exp(scores).max()))):
        return Feedback(False, "these are the exps; divide each by their sum so the weights add up to 1")
    if abs(total - 1) > tol * got.size:
        return Feedback(False, f"your weights sum to {fmt(total, 3)}; softmax weights always sum to 1")
    for j in range(scores.size):
        for k in range(scores.size):
            if scores[j] > scores[k] and got[j] < got[k] - tol:
                return Feedback(False, f"key {j} has a higher score than key {k} ({fmt(scores[j])} > "
                                       f"{fmt(scores[k])}), so it must get more weight: exp keeps the order")
    (j,) = _first_wrong(got, exp_w, tol)
    return Feedback(False, f"weight {j} is off: it is exp({fmt(scores[j])} − max) / Σ exp(score − max)")


# --------------------------------------------------------------------------- multiple choice


@dataclass(frozen=True)
class Choice:
    """One option of a multiple-choice question, with why it is right or wrong."""

    key: str
    text: str
    correct: bool
    explanation: str


def _check_choice(answer, choices: tuple[Choice, ...], synonyms: dict[str, str]) -> Feedback:
    keys = ", ".join(c.key for c in choices)
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        raise _Unreadable(f"choose one of {keys}")
    if not isinstance(answer, str):
        raise _Unreadable(f"answer with the letter of your choice ({keys}); got {_describe(answer)}")
    text = " ".join(answer.strip().lower().split())
    letter = re.fullmatch(r"\(?([a-z])\)?[.:]?", text) or re.match(r"\(?([a-z])[).:]\s", text)
    if letter:  # "b", "(b)", "b)", "b. Nothing: ..." (an option pasted with its letter)
        text = letter.group(1)
    text = synonyms.get(text.rstrip(".!"), text)
    by_key = {c.key: c for c in choices}
    if text not in by_key:
        for c in choices:  # the learner may paste the option's text
            if text == c.text.lower():
                text = c.key
                break
        else:
            raise _Unreadable(f"{answer.strip()[:30]!r} is not one of the choices; answer {keys}")
    c = by_key[text]
    return Feedback(c.correct, ("Correct. " if c.correct else "Not quite. ") + c.explanation)


# --------------------------------------------------------------------------- questions


@dataclass(frozen=True, eq=False)
class Question:
    """One of the lesson's practice questions.

    Attributes
    ----------
    id : str                     ``"q1"`` ... ``"q8"``
    title : str                  a short name
    text : str                   the question as the lesson asks it
    form : str                   ``"shapes"``, ``"pair"``, ``"matrices"``, ``"number"`` or ``"choice"``
    hint : str
    solution : str               the worked solution, including the lesson's own explanation
    lesson_note : str            where the lesson's printed answer is imprecise ('' if nowhere)
    choices : tuple of Choice    for multiple-choice questions
    expected : object            a right answer, in the form :func:`check` takes
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
    synonyms: dict = field(default_factory=dict)
    inputs: dict = field(default_factory=dict)

    def check(self, answer) -> Feedback:
        return check(self.id, answer)


_Q5_X = np.array([[2.0, 1.0], [0.0, 3.0]])
_Q5_W = {
    "Q": np.array([[1.0, 0.0], [0.0, 1.0]]),
    "K": np.array([[0.0, 1.0], [1.0, 0.0]]),
    "V": np.array([[0.5, 0.5], [0.5, 0.5]]),
}

_Q1_PARAMS = {"batch": 8, "seq_len": 20, "d_model": 768, "heads": 12}


def _q5_solution() -> str:
    lines = ["Each entry of X·W is a row of X times a column of W (rows of X are the tokens)."]
    for key, wname in (("Q", "W^Q"), ("K", "W^K"), ("V", "W^V")):
        lines.append("")
        lines += matmul_lines(_Q5_X, _Q5_W[key], key, "X", wname)
    lines += [
        "",
        "So Q = [[2, 1], [0, 3]], K = [[1, 2], [3, 0]], V = [[1.5, 1.5], [1.5, 1.5]], as the lesson says.",
        "W^Q is the identity, so Q = X; W^K swaps the two columns, so K is X with its columns swapped.",
        "Notice V: both rows are [1.5, 1.5] (2 + 1 = 0 + 3 = 3, halved). Every output row, whatever the weights, "
        "is then [1.5, 1.5]: when all values are equal, attention cannot tell the tokens apart.",
    ]
    return "\n".join(lines)


_QUESTION_LIST = [
    Question(
        id="q1",
        title="Shapes with batch and heads",
        text="What is the shape of Q, K, V for a batch of 8 sequences, each of length 20, d_model=768, and 12 heads? "
             "Give d_k, the shapes of Q, K and V after splitting into heads, of the attention weights, and of the "
             "output after the heads are combined.",
        form="shapes",
        hint="First d_k = d_model / heads. After splitting, every tensor is (batch, heads, tokens, per-head width). "
             "The weights compare every query with every key of the same sequence.",
        solution="\n".join([
            "d_k = d_model / heads = 768 / 12 = 64.",
            "Projection: (8, 20, 768) × (768, 64) = (8, 20, 64) for one head. All 12 heads are stacked on a new "
            "axis after the batch: Q is (8, 12, 20, 64) = (batch, heads, seq_len, d_k).",
            "(In code one usually multiplies by a single (768, 768) matrix, giving (8, 20, 768), reshapes to (8, "
            "20, 12, 64) and swaps axes 1 and 2: the same numbers.)",
            "K: same as Q, (8, 12, 20, 64).  V: same, (8, 12, 20, 64) (here d_v = d_k = 64).",
            "Weights: Q·Kᵀ per head is (20, 64) × (64, 20) = (20, 20), so (8, 12, 20, 20): one row per query, one "
            "column per key.",
            "Output: weights·V per head is (20, 20) × (20, 64) = (20, 64), so (8, 12, 20, 64); combining the "
            "heads (concatenating their 12 × 64 = 768 columns) gives (8, 20, 768), which the output projection "
            "W^O (768 × 768) keeps at (8, 20, 768).",
        ]),
        lesson_note="The lesson writes \"(8, 20, 768) × (768, 64) = (8, 20, 64) per head → after splitting: "
                    "(8, 12, 20, 64)\". The product is the shape for one head; the arrow then stacks the 12 heads. "
                    "Its other arrows (per-head output (8, 12, 20, 64) → combined (8, 20, 768)) are right.",
        expected={"d_k": 64, "Q": (8, 12, 20, 64), "K": (8, 12, 20, 64), "V": (8, 12, 20, 64),
                  "weights": (8, 12, 20, 20), "output": (8, 20, 768)},
        inputs=dict(_Q1_PARAMS),
    ),
    Question(
        id="q2",
        title="The per-head dimension d_k",
        text="If d_model=256, h=8, what is d_k? What if d_model=1024, h=16?",
        form="pair",
        hint="The model's width is shared out equally between the heads.",
        solution="\n".join([
            "Each head gets an equal share of the model width: d_k = d_model / h.",
            "Case 1: d_k = 256 / 8 = 32.  Case 2: d_k = 1024 / 16 = 64.",
            "The per-head dimension typically stays between 32 and 128 in most architectures: more heads on a "
            "wider model, not wider heads.",
        ]),
        expected=(32, 64),
    ),
    Question(
        id="q3",
        title="Why the decoder is causal",
        text="Why can't the decoder use bidirectional attention during training?",
        form="choice",
        hint="During training the whole target sentence is fed in at once. What could position 2 read if nothing "
             "were masked, and what is it supposed to predict?",
        solution="\n".join([
            "If the decoder could attend to future tokens during training, it would \"cheat\" by looking at the "
            "correct next token instead of learning to predict it. Training to predict the third word \"sat\" in "
            "\"The cat sat\":",
            "• without a mask, the model sees \"sat\" as a key and uses its value directly: a trivial prediction;",
            "• with the causal mask, it must predict \"sat\" from \"The\" and \"cat\" only: actual learning.",
            "During training the whole target is present at once (teacher forcing), so the future keys exist and "
            "must be masked. At generation time the future tokens do not exist yet; keeping the mask makes every "
            "position see, in training, exactly the context it will have when generating.",
        ]),
        lesson_note="The lesson says that during inference \"the mask naturally prevents looking at non-existent "
                    "tokens\". Strictly, at inference there is nothing to prevent: the future tokens have not been "
                    "generated. The mask matters in training, where the whole target is fed in at once.",
        choices=(
            Choice("a", "Bidirectional attention costs more to compute, and decoders must be fast.", False,
                   "Masked or not, the scores are an n × n matrix: the mask does not save work (usually all n² "
                   "scores are computed and the blocked ones set to −∞). The reason is what the model may see."),
            Choice("b", "Position i would see the very token it is trained to predict (and everything after it), "
                        "so it could copy instead of learning to predict; when generating, those tokens do not "
                        "exist yet.", True,
                   "Training predicts each next token from the tokens before it. Without the causal mask, "
                   "\"cat\" could read \"sat\" from its key and value, a trivial copy that is impossible at "
                   "generation time, when \"sat\" has not been produced yet."),
            Choice("c", "Without the mask the rows of the attention weights would not sum to 1.", False,
                   "Softmax makes every row sum to 1 with or without a mask; the mask only decides which keys "
                   "share that 1."),
            Choice("d", "During training the decoder has no keys for future positions, so there is nothing to "
                        "attend to.", False,
                   "It is the other way round: in training the whole target sentence is fed at once (teacher "
                   "forcing), so future keys do exist. That is exactly why they must be masked."),
        ),
        expected="b",
    ),
    Question(
        id="q4",
        title="Cross-attention: who asks, who answers",
        text="In cross-attention, why does Q come from the decoder while K and V come from the encoder?",
        form="choice",
        hint="The output of attention has one row per query. Which sequence needs one new vector per position?",
        solution="\n".join([
            "Q represents \"what the decoder needs to know next\". The decoder asks: \"given what I have generated "
            "so far, what part of the input should I look at to generate the next token?\"",
            "K and V from the encoder represent \"what the input contains\": the encoder has already processed the "
            "full input into rich representations.",
            "Shapes make the same point: the weights are (n_target × n_source) and the output (n_target × d_v), "
            "one updated vector per decoder position, which is what the decoder needs for its next prediction.",
            "If the roles were reversed (Q from the encoder, K and V from the decoder), the output would have one "
            "row per source token, and the encoder would be querying a sequence that is built incrementally.",
        ]),
        choices=(
            Choice("a", "The encoder's outputs are longer, and the longer sequence must supply the keys.", False,
                   "Lengths decide nothing: the source can be shorter or longer than the target. The weights are "
                   "simply n_target × n_source."),
            Choice("b", "It is arbitrary: attention is symmetric, so swapping the roles gives the same result.", False,
                   "Attention is not symmetric: the softmax runs over the keys, and the output has one row per "
                   "query. Swapping gives one row per source token, which is not what the decoder needs."),
            Choice("c", "So that a causal mask stops the decoder from seeing later source tokens.", False,
                   "Cross-attention has no causal mask: the source sentence is known in full, and every decoder "
                   "position may look at all of it."),
            Choice("d", "The decoder is the one looking for information: its queries are matched against the "
                        "keys of the source, and the output has one row per query, i.e. one vector per target "
                        "position, built from the source's values.", True,
                   "Q asks \"what do I need next?\", K says \"what each source token is about\", V carries its "
                   "content. The output is (n_target × d_v): one updated vector per decoder position."),
        ),
        expected="d",
    ),
    Question(
        id="q5",
        title="Compute Q, K, V by hand",
        text="Compute Q, K, V for X = [[2, 1], [0, 3]] with W^Q = [[1, 0], [0, 1]], W^K = [[0, 1], [1, 0]], "
             "W^V = [[0.5, 0.5], [0.5, 0.5]].",
        form="matrices",
        hint="Q = X·W^Q: entry (i, j) is row i of X times column j of W^Q. X is 2×2 and every W is 2×2, so Q, K "
             "and V are 2×2. Which W is the identity?",
        solution=_q5_solution(),
        expected={"Q": _Q5_X @ _Q5_W["Q"], "K": _Q5_X @ _Q5_W["K"], "V": _Q5_X @ _Q5_W["V"]},
        inputs={"X": _Q5_X, "W_q": _Q5_W["Q"], "W_k": _Q5_W["K"], "W_v": _Q5_W["V"]},
    ),
    Question(
        id="q6",
        title="Adding a constant to every score",
        text="What happens to attention weights if we add a constant C to all scores before softmax?",
        form="choice",
        hint="Write one weight as e^(x_i + C) / Σ_j e^(x_j + C) and split each exponential.",
        solution="\n".join([
            "Nothing. Adding a constant to all elements of a row before softmax does not change the result: "
            "softmax(x_i + C) = e^(x_i + C) / Σ_j e^(x_j + C) = e^(x_i)·e^C / (e^C·Σ_j e^(x_j)) = softmax(x_i).",
            "But adding a constant to a single element (keeping the others) does change the distribution.",
            "This is also why a stable softmax may subtract the row's maximum first: same weights, no overflow.",
            "Masked entries stay −∞ (−∞ + C = −∞), so masks are unaffected.",
        ]),
        lesson_note="The lesson's \"all scores\" means the same C for every score of a row (or of the whole "
                    "matrix). A different constant per key (per column) does change the weights.",
        choices=(
            Choice("a", "Every weight is multiplied by e^C.", False,
                   "e^C appears in the numerator and in the denominator (the sum), so it cancels."),
            Choice("b", "Nothing: the weights stay exactly the same.", True,
                   "softmax(x + C) = e^(x_i)·e^C / (e^C·Σ_j e^(x_j)) = softmax(x): the factor e^C cancels."),
            Choice("c", "For C > 0 the weights become more uniform.", False,
                   "That is what dividing the scores by a number greater than 1 does (like dividing by √d_k). "
                   "Adding shifts every score equally; only differences between scores matter."),
            Choice("d", "The weights no longer sum to 1.", False,
                   "Softmax divides by the sum of its exponentials, so its weights always sum to 1."),
        ),
        synonyms={"nothing": "b", "no change": "b", "unchanged": "b", "they stay the same": "b",
                  "stay the same": "b", "same": "b", "nothing happens": "b"},
        expected="b",
    ),
    Question(
        id="q7",
        title="Counting comparisons",
        text="For a sequence of length n, how many pairwise attention comparisons are made in self-attention? "
             "Give the number for n = 100.",
        form="number",
        hint="One score for every (query, key) pair. How many queries? How many keys does each one meet?",
        solution="\n".join([
            "n² comparisons: every token (as a query) compares against every token (as a key), itself included.",
            "For n = 100 that is 100 · 100 = 10,000 comparisons.",
            "This quadratic growth is the reason Transformers are computationally expensive for long sequences: "
            "doubling the length quadruples the scores.",
            "(Not n(n−1)/2: q_i·k_j and q_j·k_i differ, because queries and keys are different projections.)",
        ]),
        expected=10000,
    ),
    Question(
        id="q8",
        title="Content-based vs position-based attention",
        text="What is the difference between \"content-based\" attention and \"position-based\" attention?",
        form="choice",
        hint="Take the token \"bank\". Does its score with another token depend on what that token is, or on "
             "where it is?",
        solution="\n".join([
            "Content-based attention: the score depends on what the tokens represent (the q·k dot product "
            "measures how well one token's query matches another token's key). \"bank\" attends to \"money\" "
            "because its query matches \"money\"'s key.",
            "Position-based attention: the score depends on where the tokens are. A head may learn to always "
            "attend to the token at position i−1 (the previous token) regardless of content.",
            "Multi-head attention can capture both: some heads learn content-based patterns, others "
            "position-based ones. The learned projections decide which kind each head specializes in.",
        ]),
        lesson_note="The lesson says \"bank\" attends to \"money\" \"because their representations are similar\". "
                    "More precisely the score is q_bank·k_money, after the learned projections W^Q and W^K: the "
                    "two tokens' own vectors need not be similar, their query and key must match.",
        choices=(
            Choice("a", "Content-based attention scores with the keys K; position-based attention scores with the "
                        "values V.", False,
                   "Both compute scores from queries and keys and both mix the values. The difference is what the "
                   "scores respond to: what a token is, or where it is."),
            Choice("b", "Content-based attention happens in the encoder, position-based attention in the decoder "
                        "(because of the causal mask).", False,
                   "Both kinds appear in any layer; heads specialise. A causal mask limits which keys may be seen, "
                   "it does not make the scores depend on position."),
            Choice("c", "Content-based: the score depends on what the tokens are (e.g. \"bank\" → \"money\"); "
                        "position-based: it depends on where they are (e.g. always the previous token), "
                        "whatever the words.", True,
                   "Content-based heads match meanings through q·k; position-based heads match positions, like a "
                   "previous-token head. Different heads of one model learn different kinds."),
            Choice("d", "Position-based attention uses fixed weights that are not learned.", False,
                   "Position-based patterns are learned too: the projections pick up positional information in "
                   "the token vectors, so a head can learn \"look one to the left\"."),
        ),
        expected="c",
    ),
]

QUESTIONS: dict[str, Question] = {q.id: q for q in _QUESTION_LIST}

_CHECKERS = {
    "q1": lambda a: _check_shapes(a, **_Q1_PARAMS),
    "q2": _check_pair,
    "q5": lambda a: _check_projection(a, _Q5_X, _Q5_W, EXACT_TOL, exact=True),
    "q7": _check_count,
}
for _q in _QUESTION_LIST:
    if _q.form == "choice":
        _CHECKERS[_q.id] = (lambda q: lambda a: _check_choice(a, q.choices, q.synonyms))(_q)


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
    if key not in _CHECKERS:
        raise KeyError(f"unknown question id {qid!r}; the questions are {', '.join(QUESTIONS)}")
    return _safe(_CHECKERS[key])(answer)


# --------------------------------------------------------------------------- generated problems


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


@dataclass(frozen=True, eq=False)
class Problem:
    """A generated practice problem.

    Attributes
    ----------
    kind, seed, difficulty
        What made it; the same three always give the same problem.
    inputs : dict
        projection: X, W_q, W_k, W_v | attention: Q, K, V | masked: Q, K, V, mask (bool, True = may
        attend) | softmax: scores | shapes: batch, seq_len, d_model, heads.
    answer : dict
        projection: Q, K, V | attention, masked: weights, output (scaled) | softmax: weights |
        shapes: d_k, Q, K, V, weights, output (as in q1).
    prompt : str
        The question, with every input.
    solution : str
        The worked solution, every step with its numbers.
    """

    kind: str
    seed: int
    difficulty: str
    inputs: dict
    answer: dict
    prompt: str
    solution: str

    @property
    def title(self) -> str:
        return f"Problem {self.seed} ({self.kind}, {self.difficulty})"

    def check(self, answer) -> Feedback:
        """Check an answer; any input gives Feedback, never an exception."""
        return _safe(self._check)(answer)

    def _check(self, answer) -> Feedback:
        i = self.inputs
        if self.kind == "projection":
            W = {"Q": i["W_q"], "K": i["W_k"], "V": i["W_v"]}
            return _check_projection(answer, i["X"], W, ROUNDED_TOL, exact=False)
        if self.kind in ("attention", "masked"):
            return _check_attention(answer, i["Q"], i["K"], i["V"], i.get("mask"), ROUNDED_TOL, _output_tol(i["V"]))
        if self.kind == "softmax":
            return _check_softmax(answer, i["scores"], ROUNDED_TOL)
        return _check_shapes(answer, i["batch"], i["seq_len"], i["d_model"], i["heads"])

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


_ROUNDING = "Answers rounded to 2 decimals are accepted."


def _ints(rng, low, high, shape) -> np.ndarray:
    return rng.integers(low, high + 1, size=shape).astype(float)


def _nonzero_rows(rng, low, high, shape) -> np.ndarray:
    """Integers with no all-zero row (an all-zero token or query makes a dull problem)."""
    M = _ints(rng, low, high, shape)
    for r in range(M.shape[0]):
        while not M[r].any():
            M[r] = _ints(rng, low, high, M.shape[1])
    return M


def _gen_projection(rng, difficulty):
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
    inputs = {"X": X, "W_q": Ws[0], "W_k": Ws[1], "W_v": Ws[2]}
    Q, K, V = project_qkv(X, *Ws)
    answer = {"Q": Q, "K": K, "V": V}
    prompt = "\n\n".join([
        f"Compute Q = X·W^Q, K = X·W^K and V = X·W^V (each {n}×{d_k}). Rows of X are tokens. {_ROUNDING}",
        _matrix_text("X", X), _matrix_text("W^Q", Ws[0]), _matrix_text("W^K", Ws[1]), _matrix_text("W^V", Ws[2]),
    ])
    lines = [f"X is {n}×{d_model} and each W is {d_model}×{d_k}, so Q, K and V are {n}×{d_k}.",
             "Entry (i, j) is row i of X times column j of W."]
    for name, wname, W in (("Q", "W^Q", Ws[0]), ("K", "W^K", Ws[1]), ("V", "W^V", Ws[2])):
        lines.append("")
        lines += matmul_lines(X, W, name, "X", wname)
    return inputs, answer, prompt, "\n".join(lines)


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


def _attention_solution(Q, K, V, mask):
    n_q, n_k, d_k = Q.shape[0], K.shape[0], Q.shape[1]
    out, W = scaled_dot_product_attention(Q, K, V, mask=mask)
    lines = [f"Scores: q_i·k_j for every query i and key j, divided by √d_k = √{d_k} = {fmt(math.sqrt(d_k))}.",
             f"Q is {n_q}×{d_k}, Kᵀ is {d_k}×{n_k}: the scores are {n_q}×{n_k}."]
    scaled = np.empty((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            if mask is not None and not mask[i, j]:
                lines.append(f"  ({i},{j}): masked: query {i} may not attend to key {j}, score −∞")
                scaled[i, j] = -np.inf
                continue
            entry = attention_entry_lines(Q, K, i, j)
            lines.append(f"  ({i},{j}): " + entry[0])
            lines += [f"         {t}" for t in entry[1:]]
            scaled[i, j] = Q[i] @ K[j] / math.sqrt(d_k)
    lines.append("")
    lines.append("Softmax of each row (each row of weights sums to 1):")
    for i in range(n_q):
        lines.append(f" query {i}:")
        lines += ["   " + t for t in softmax_lines(scaled[i], labels=[f"k{j}" for j in range(n_k)])]
    lines.append("")
    lines.append(f"Weights ({n_q}×{n_k}, rounded) = {format_matrix(W, 2)}")
    lines.append("")
    lines.append("Output row i = Σ_j weight[i,j]·v_j:")
    for i in range(n_q):
        lines += ["  " + t for t in weighted_sum_lines(W[i], V, [f"v{j}" for j in range(n_k)], name=f"out{i}")]
    lines.append("")
    lines.append(f"Output ({n_q}×{V.shape[1]}, rounded) = {format_matrix(out, 2)}")
    return "\n".join(lines)


def _gen_attention(rng, difficulty):
    Q, K, V = _gen_qkv(rng, difficulty)
    out, W = scaled_dot_product_attention(Q, K, V)
    inputs = {"Q": Q, "K": K, "V": V}
    n_q, n_k, d_k = Q.shape[0], K.shape[0], Q.shape[1]
    prompt = "\n\n".join([
        f"Compute the attention weights softmax(Q·Kᵀ / √d_k) ({n_q}×{n_k}) and the output weights·V "
        f"({n_q}×{V.shape[1]}). d_k = {d_k}. {_ROUNDING}",
        _matrix_text("Q", Q), _matrix_text("K", K), _matrix_text("V", V),
    ])
    return inputs, {"weights": W, "output": out}, prompt, _attention_solution(Q, K, V, None)


def _gen_masked(rng, difficulty):
    Q, K, V = _gen_qkv(rng, "medium" if difficulty == "easy" else difficulty)
    n_q, n_k = Q.shape[0], K.shape[0]
    if difficulty == "easy" or (difficulty == "medium" and rng.random() < 0.5):
        mask, what = causal_mask(n_q), "a causal mask (query i may attend to keys 0..i)"
    elif difficulty == "medium":
        length = n_k - 1
        mask = np.ones((n_q, n_k), dtype=bool)
        mask[:, length:] = False
        what = "a padding mask (the last key is padding: no query may attend to it)"
    else:
        mask = rng.random((n_q, n_k)) < 0.6
        # Every query keeps at least one key (else its softmax is undefined); two, so that
        # no row is a trivial "all weight on the only key".
        for i in range(n_q):
            while mask[i].sum() < 2:
                mask[i, rng.integers(n_k)] = True
        what = "the mask below (✓ = may attend, ✗ = blocked)"
    out, W = scaled_dot_product_attention(Q, K, V, mask=mask)
    inputs = {"Q": Q, "K": K, "V": V, "mask": mask}
    prompt = "\n\n".join([
        f"Compute the masked attention weights ({n_q}×{n_k}) and the output ({n_q}×{V.shape[1]}) with {what}. "
        f"Blocked scores become −∞ before the softmax. Scale by √d_k, d_k = {Q.shape[1]}. {_ROUNDING}",
        _matrix_text("Q", Q), _matrix_text("K", K), _matrix_text("V", V), _matrix_text("mask", mask),
    ])
    return inputs, {"weights": W, "output": out}, prompt, _attention_solution(Q, K, V, mask)


def _gen_softmax(rng, difficulty):
    if difficulty == "easy":
        scores = _ints(rng, 0, 3, 3)
    elif difficulty == "medium":
        scores = _ints(rng, -2, 3, 4)
    else:
        scores = _ints(rng, -20, 20, 5) / 10  # one decimal
    W = softmax(scores)
    prompt = "\n\n".join([
        f"Turn this row of {scores.size} scores into attention weights with softmax. {_ROUNDING}",
        "scores = [" + ", ".join(fmt(s) for s in scores) + "]",
    ])
    lines = softmax_lines(scores, labels=[f"key {j}" for j in range(scores.size)])
    lines.append(f"weights (rounded) = {format_matrix(W, 2)[1:-1]}")
    return {"scores": scores}, {"weights": W}, prompt, "\n".join(lines)


_SHAPE_CHOICES = {
    "easy": {"heads": (2, 4, 8), "d_k": (16, 32, 64), "batch": (2, 10), "seq_len": (5, 30)},
    "medium": {"heads": (4, 6, 8, 12, 16), "d_k": (32, 48, 64, 80), "batch": (4, 32), "seq_len": (10, 128)},
    "hard": {"heads": (12, 16, 20, 32), "d_k": (64, 80, 96, 128), "batch": (1, 64), "seq_len": (50, 2048)},
}


def _gen_shapes(rng, difficulty):
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
    answer = _shape_params(batch, seq_len, d_model, heads)
    prompt = (f"A batch of {batch} sequences, each of length {seq_len}, d_model = {d_model}, {heads} heads. "
              "Give d_k, the shapes of Q, K and V after splitting into heads, of the attention weights, and of "
              "the output after the heads are combined.")
    B, n, D, h = batch, seq_len, d_model, heads
    solution = "\n".join([
        f"d_k = d_model / heads = {D} / {h} = {d_k}.",
        f"One head: ({B}, {n}, {D}) × ({D}, {d_k}) = ({B}, {n}, {d_k}); the {h} heads stacked after the batch: "
        f"Q = {_fmt_shape(answer['Q'])} (batch, heads, seq_len, d_k).",
        f"K and V: the same, {_fmt_shape(answer['K'])} (d_v = d_k = {d_k}).",
        f"Weights: per head ({n}, {d_k}) × ({d_k}, {n}) = ({n}, {n}), so {_fmt_shape(answer['weights'])}.",
        f"Output: per head ({n}, {n}) × ({n}, {d_k}) = ({n}, {d_k}), so ({B}, {h}, {n}, {d_k}); "
        f"combining {h} heads × {d_k} = {D} columns gives {_fmt_shape(answer['output'])}.",
    ])
    return inputs, answer, prompt, solution


_GENERATORS = {
    "projection": _gen_projection,
    "attention": _gen_attention,
    "masked": _gen_masked,
    "softmax": _gen_softmax,
    "shapes": _gen_shapes,
}


def generate(kind: str, seed: int, difficulty: str = "easy") -> Problem:
    """A practice problem with small, friendly numbers.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`: ``"projection"``, ``"attention"``, ``"masked"``, ``"softmax"``,
        ``"shapes"``.
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
    if kind not in _GENERATORS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}; got {difficulty!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    rng = np.random.default_rng(int(seed))
    inputs, answer, prompt, solution = _GENERATORS[kind](rng, difficulty)
    title = f"Problem {int(seed)} ({kind}, {difficulty})."
    return Problem(kind, int(seed), difficulty, inputs, answer, f"{title} {prompt}", solution)
