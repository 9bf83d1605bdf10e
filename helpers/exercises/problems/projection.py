"""Generated problems of kind ``"projection"``: compute Q = X W^Q, K = X W^K, V = X W^V.

The checker names the classic slips (the product transposed, W·X instead of X·W, X or W copied, another
W used) and otherwise the first wrong entry with its dot product written out. The lesson's Q5 is checked
by the same function, with exact numbers instead of answers rounded to 2 decimals.
"""

from __future__ import annotations

import numpy as np

from helpers.core import questions as text
from helpers.core.attention import project_qkv
from helpers.core.explain import dot_terms, format_matrix, matmul_lines
from helpers.exercises.answers import (
    ROUNDED_TOL,
    all_close,
    entry_name,
    first_wrong,
    read_matrix_part,
    read_parts,
    verdict_head,
)
from helpers.exercises.feedback import Feedback
from helpers.exercises.fields import Given, given_matrix
from helpers.exercises.problems.friendly import nonzero_rows
from helpers.exercises.registry import Generated, Kind, Problem

__all__ = ["KIND", "projection_given", "check_projection"]


def projection_given(X, W_q, W_k, W_v) -> tuple[Given, ...]:
    """X (n, d_model; rows are tokens) and the three weight matrices (d_model, d_k), columns counted from 1 like
    the answer grids."""
    return (given_matrix("X", X, "token", "col"), given_matrix("W^Q", W_q, "row", "col"),
            given_matrix("W^K", W_k, "row", "col"), given_matrix("W^V", W_v, "row", "col"))


def check_projection(answer, X, W: dict, tol, exact: bool) -> Feedback:
    """Q, K, V = X·W for each of the three W's, with specific reasons for wrong entries.

    Parameters
    ----------
    answer : dict
        ``{"Q": ..., "K": ..., "V": ...}``, each (n, d_k) or (n, d_v), in any form :mod:`answers` reads.
    X : array_like (n, d_model)
    W : dict
        ``{"Q": W_q, "K": W_k, "V": W_v}``, each (d_model, d_k) or (d_model, d_v).
    tol : float
        Largest accepted difference of an entry.
    exact : bool
        False when the answers are rounded: a wrong verdict then reminds the learner of the rounding.
    """
    X = np.asarray(X, dtype=float)
    answer = read_parts(answer, ("Q", "K", "V"), "{'Q': [[2, 1], [0, 3]], 'K': ..., 'V': ...}")
    names = {"Q": "W^Q", "K": "W^K", "V": "W^V"}
    exp = dict(zip(("Q", "K", "V"), project_qkv(X, W["Q"], W["K"], W["V"])))
    words = text.PROJECTION_MISTAKES
    lines, n_right = [], 0
    for key in ("Q", "K", "V"):
        got, err = read_matrix_part(answer, key, exp[key].shape)
        if err:
            lines.append(err)
            continue
        if all_close(got, exp[key], tol):
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
                    if cand.shape == got.shape and all_close(got, cand, tol) and not all_close(cand, exp[key], tol)),
                   None)
        if why is None:
            i, j = first_wrong(got, exp[key], tol)
            why = words["entry"].format(where=entry_name(key, i, j), terms=dot_terms(X[i], Wk[:, j]))
        lines.append(f"✗ {key}: {why}")
    correct = n_right == 3
    head = verdict_head(n_right, 3, "projection_right")
    if not exact and not correct:
        head += f" ({text.ROUNDING})"
    return Feedback(correct, "\n".join([head, *lines]))


def _generate(rng, difficulty) -> Generated:
    if difficulty == "easy":
        n, d_model, d_k = 2, 2, 2
        X = nonzero_rows(rng, 0, 3, (n, d_model))
        Ws = [nonzero_rows(rng, 0, 2, (d_model, d_k)) for _ in range(3)]
    elif difficulty == "medium":
        n, d_model, d_k = 3, 3, 2
        X = nonzero_rows(rng, -2, 3, (n, d_model))
        Ws = [nonzero_rows(rng, -1, 2, (d_model, d_k)) for _ in range(3)]
    else:
        n, d_model, d_k = 3, 4, 3
        X = nonzero_rows(rng, -4, 6, (n, d_model)) / 2  # halves: one decimal
        Ws = [nonzero_rows(rng, -2, 2, (d_model, d_k)) for _ in range(3)]
    Q, K, V = project_qkv(X, *Ws)
    words = text.KINDS["projection"]
    sizes = {"n": n, "d_model": d_model, "d_k": d_k}
    lines = [line.format(**sizes) for line in words["solution"]]
    for name, wname, W in (("Q", "W^Q", Ws[0]), ("K", "W^K", Ws[1]), ("V", "W^V", Ws[2])):
        lines += ["", *matmul_lines(X, W, name, "X", wname)]
    return Generated({"X": X, "W_q": Ws[0], "W_k": Ws[1], "W_v": Ws[2]}, {"Q": Q, "K": K, "V": V},
                     words["instruction"].format(rounding=text.ROUNDING, **sizes), "\n".join(lines),
                     projection_given(X, *Ws))


def _check(p: Problem, answer) -> Feedback:
    i = p.inputs
    return check_projection(answer, i["X"], {"Q": i["W_q"], "K": i["W_k"], "V": i["W_v"]}, ROUNDED_TOL, exact=False)


KIND = Kind("projection", _generate, _check, order=1)
