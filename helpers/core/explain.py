"""Step-by-step arithmetic traces with the actual numbers.

Each function returns plain strings (one line per step) so that notebooks can print
them, widgets can put them in HTML, and worked solutions can quote them. Nothing here
decides *what* is computed: the numbers come from :mod:`helpers.core.attention` or from
plain numpy on the caller's inputs.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core.numbers import MINUS, number_text

__all__ = [
    "fmt",
    "format_matrix",
    "dot_terms",
    "matmul_entry",
    "shape_text",
    "matmul_lines",
    "softmax_lines",
    "weighted_sum_lines",
    "attention_entry_lines",
]


def fmt(x, digits: int = 4, *, code: bool = False) -> str:
    """A number as a learner would write it: ``2`` not ``2.0``, ``0.5``, ``−1.25`` (the true minus sign), ``−∞``;
    from 10⁵ up with significant digits, ``1e+200`` (:func:`helpers.core.numbers.number_text`), never a run of dozens of
    digits. With ``code``, a negative number has the hyphen-minus that Python reads (``-1.25``)."""
    return number_text(x, digits, minus="-" if code else MINUS)


def shape_text(shape) -> str:
    """A shape as Python writes it: ``(8, 20, 768)``, ``(5,)``, ``()``."""
    return "(" + ", ".join(str(int(v)) for v in shape) + (",)" if len(shape) == 1 else ")")


def format_matrix(M, digits: int = 4, *, code: bool = True) -> str:
    """A matrix as nested brackets, ``[[2, -1], [0, 3]]``: Python code (hyphen-minus) unless ``code`` is False
    (``[[2, −1], [0, 3]]``, a matrix shown in a calculation)."""
    M = np.atleast_2d(np.asarray(M, dtype=float))
    return "[" + ", ".join("[" + ", ".join(fmt(v, digits, code=code) for v in row) + "]" for row in M) + "]"


def _paren(x, digits: int = 4) -> str:
    """Negative factors in parentheses so ``2·(−1)`` reads unambiguously."""
    text = fmt(x, digits)
    # Decided on the text, not the value: -0.00001 prints as "0" and needs no parentheses.
    return f"({text})" if text.startswith(("-", "−")) else text


def dot_terms(a, b, digits: int = 4) -> str:
    """``a·b`` written term by term: ``2·1 + 1·0``."""
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"a has shape {a.shape} and b has shape {b.shape}; a dot product needs equal lengths")
    return " + ".join(f"{_paren(x, digits)}·{_paren(y, digits)}" for x, y in zip(a, b))


def matmul_entry(A, B, i: int, j: int, digits: int = 4) -> str:
    """Entry (i, j) of ``A @ B`` with its arithmetic: ``2·1 + 1·0 = 2``."""
    A = np.atleast_2d(np.asarray(A, dtype=float))
    B = np.atleast_2d(np.asarray(B, dtype=float))
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"A has shape {A.shape} and B has shape {B.shape}: A's columns must equal B's rows")
    value = float(A[i] @ B[:, j])
    return f"{dot_terms(A[i], B[:, j], digits)} = {fmt(value, digits)}"


def matmul_lines(A, B, name: str = "C", a_name: str = "A", b_name: str = "B", digits: int = 4) -> list[str]:
    """Every entry of ``name = a_name · b_name`` with its arithmetic, then the result."""
    A = np.atleast_2d(np.asarray(A, dtype=float))
    B = np.atleast_2d(np.asarray(B, dtype=float))
    lines = [f"{name} = {a_name}·{b_name}, shape {A.shape} × {B.shape} → ({A.shape[0]}, {B.shape[1]})"]
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            lines.append(f"  {name}[{i},{j}] = {matmul_entry(A, B, i, j, digits)}")
    lines.append(f"  {name} = {format_matrix(A @ B, digits, code=False)}")
    return lines


def softmax_lines(row, labels=None, digits: int = 4) -> list[str]:
    """The softmax of one row of scores: subtract the max, exp, sum, divide.

    ``-inf`` entries (masked keys) are shown as contributing ``exp(−∞) = 0``.
    """
    row = np.asarray(row, dtype=float).ravel()
    labels = list(labels) if labels is not None else [str(j) for j in range(row.size)]
    finite = row[np.isfinite(row)]
    if finite.size == 0:
        return ["every score in this row is −∞: nothing to attend to, softmax undefined"]
    m = float(finite.max())
    exps = np.where(np.isfinite(row), np.exp(row - m), 0.0)
    total = float(exps.sum())
    lines = [f"max of the row = {fmt(m, digits)} (subtracting it changes nothing and avoids overflow)"]
    for lab, s, e in zip(labels, row, exps):
        if np.isfinite(s):
            lines.append(f"  {lab}: exp({fmt(s, digits)} − {_paren(m, digits)}) = {fmt(e, digits)}")
        else:
            lines.append(f"  {lab}: masked, exp(−∞) = 0")
    lines.append(f"sum = {' + '.join(fmt(e, digits) for e in exps)} = {fmt(total, digits)}")
    for lab, e in zip(labels, exps):
        lines.append(f"  weight {lab} = {fmt(e, digits)} / {fmt(total, digits)} = {fmt(e / total, digits)}")
    return lines


def weighted_sum_lines(weights, V, value_labels=None, name: str = "output", digits: int = 4) -> list[str]:
    """An output row as the weighted sum of the rows of V: ``0.5·[1, 2] + 0.5·[3, 0] = [2, 1]``."""
    w = np.asarray(weights, dtype=float).ravel()
    V = np.atleast_2d(np.asarray(V, dtype=float))
    if V.shape[0] != w.size:
        raise ValueError(f"weights has {w.size} entries but V has shape {V.shape}: one weight per row of V")
    labels = list(value_labels) if value_labels is not None else [f"v{j}" for j in range(w.size)]
    terms = " + ".join(f"{fmt(wj, digits)}·{lab}" for wj, lab in zip(w, labels))
    lines = [f"{name} = {terms}"]
    for lab, row in zip(labels, V):
        lines.append(f"  {lab} = {format_matrix(row, digits, code=False)[1:-1]}")
    out = w @ V
    for c in range(V.shape[1]):
        col = " + ".join(f"{fmt(wj, digits)}·{_paren(V[j, c], digits)}" for j, wj in enumerate(w))
        lines.append(f"  {name}[{c}] = {col} = {fmt(out[c], digits)}")
    lines.append(f"{name} = {format_matrix(out, digits, code=False)[1:-1]}")
    return lines


def attention_entry_lines(Q, K, i: int, j: int, scale: bool = True, digits: int = 4) -> list[str]:
    """Score of query i against key j: q_i·k_j term by term, then the division by √d_k."""
    Q = np.atleast_2d(np.asarray(Q, dtype=float))
    K = np.atleast_2d(np.asarray(K, dtype=float))
    d_k = Q.shape[1]
    raw = float(Q[i] @ K[j])
    lines = [f"score = q{i}·k{j} = {dot_terms(Q[i], K[j], digits)} = {fmt(raw, digits)}"]
    if scale:
        lines.append(
            f"scaled = {fmt(raw, digits)} / √{d_k} = {fmt(raw, digits)} / {fmt(math.sqrt(d_k), digits)} "
            f"= {fmt(raw / math.sqrt(d_k), digits)}"
        )
    return lines
