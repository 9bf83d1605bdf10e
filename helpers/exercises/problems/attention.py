"""Generated problems of kind ``"attention"``: the weights and the output of scaled dot-product attention.

The checker and the worked solution also serve the ``"masked"`` kind (:mod:`.masked`), which adds a mask:
the weights are judged first (unscaled? unmasked? a blocked key read? rows not summing to 1?), then the
output, forgiving the rounding of the weights (:func:`output_tol`).
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core import questions as text
from helpers.core.attention import scaled_dot_product_attention
from helpers.core.explain import attention_entry_lines, fmt, format_matrix, softmax_lines, weighted_sum_lines
from helpers.exercises.answers import ROUNDED_TOL, all_close, first_wrong, read_matrix_part, read_parts, verdict_head
from helpers.exercises.feedback import Feedback
from helpers.exercises.fields import Given, given_matrix, labels
from helpers.exercises.problems.friendly import friendly_ints, nonzero_rows
from helpers.exercises.registry import Generated, Kind, Problem

__all__ = ["KIND", "random_qkv", "attention_sizes", "attention_given", "attention_solution", "output_tol",
           "check_attention", "check_generated_attention"]


def random_qkv(rng, difficulty):
    """Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v) of small integers; sizes grow with the difficulty."""
    if difficulty == "easy":
        n_q = n_k = 2
        d_k, d_v = 2, 2
        Q, K = nonzero_rows(rng, 0, 2, (n_q, d_k)), nonzero_rows(rng, 0, 2, (n_k, d_k))
        V = friendly_ints(rng, 0, 3, (n_k, d_v))
    elif difficulty == "medium":
        n_q = n_k = 3
        d_k, d_v = 2, 2
        Q, K = nonzero_rows(rng, -1, 2, (n_q, d_k)), nonzero_rows(rng, -1, 2, (n_k, d_k))
        V = friendly_ints(rng, -2, 3, (n_k, d_v))
    else:
        n_q, n_k = 3, 4
        d_k, d_v = 4, 3  # √4 = 2 keeps the scaling friendly
        Q, K = nonzero_rows(rng, -2, 2, (n_q, d_k)), nonzero_rows(rng, -2, 2, (n_k, d_k))
        V = friendly_ints(rng, -2, 3, (n_k, d_v))
    return Q, K, V


def attention_sizes(Q, K, V) -> dict:
    """n_q, n_k, d_k and d_v of Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v), for the texts."""
    return {"n_q": Q.shape[0], "n_k": K.shape[0], "d_k": Q.shape[1], "d_v": V.shape[1]}


def attention_given(Q, K, V) -> tuple[Given, ...]:
    """Q, K and V as given tables, rows named query, key and value."""
    # V's columns are the output's columns: the same names, so "column d0" means one thing.
    return (given_matrix("Q", Q, "query"), given_matrix("K", K, "key"), given_matrix("V", V, "value", "dim"))


def attention_solution(Q, K, V, mask) -> str:
    """The worked solution: every scaled score, every row's softmax, every output entry, with their numbers.

    ``mask`` is None or bool (n_q, n_k), True where the query may attend.
    """
    words, sizes = text.ATTENTION_SOLUTION, attention_sizes(Q, K, V)
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
        lines += ["   " + t for t in softmax_lines(scaled[i], labels=labels("key", n_k))]
    lines += ["", words["weights"].format(weights=format_matrix(W, 2), **sizes), "", words["output_rule"]]
    for i in range(n_q):
        lines += ["  " + t for t in weighted_sum_lines(W[i], V, list(labels("value", n_k)), name=f"out{i}")]
    lines += ["", words["output"].format(output=format_matrix(out, 2), **sizes)]
    return "\n".join(lines)


def output_tol(V: np.ndarray) -> np.ndarray:
    """Tolerance per output column (d_v,) when the weights were rounded to 2 decimals first.

    Each weight may be off by up to 0.005, so column c of an output row may be off by up to
    0.005·Σ_j |V[j, c]|, plus 0.005 for rounding the output itself.
    """
    return ROUNDED_TOL * (1.0 + np.abs(V).sum(axis=0))


def _weights_diagnosis(got, Q, K, mask, exp_w, tol) -> str | None:
    """None when the weights ``got`` (n_q, n_k) are right, else why not."""
    if all_close(got, exp_w, tol):
        return None
    words, d_k = text.WEIGHTS_MISTAKES, Q.shape[1]
    unscaled = scaled_dot_product_attention(Q, K, np.eye(K.shape[0]), mask=mask, scale=False)[1]
    if d_k > 1 and all_close(got, unscaled, tol):
        return words["unscaled"].format(d_k=d_k)
    if mask is not None:
        if all_close(got, scaled_dot_product_attention(Q, K, np.eye(K.shape[0]))[1], tol):
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
    i, j = first_wrong(got, exp_w, tol)
    return words["entry"].format(i=i, j=j, d_k=d_k)


def check_attention(answer, Q, K, V, mask, tol_w, tol_out) -> Feedback:
    """Check ``{"weights": (n_q, n_k), "output": (n_q, d_v)}`` against attention of Q, K, V under ``mask``.

    Parameters
    ----------
    answer : dict
    Q, K, V : array_like (n_q, d_k), (n_k, d_k), (n_k, d_v)
    mask : bool array (n_q, n_k) or None
        True where the query may attend.
    tol_w : float
        Largest accepted difference of a weight.
    tol_out : float or ndarray (d_v,)
        Largest accepted difference of an output entry (per column: :func:`output_tol`).
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    exp_out, exp_w = scaled_dot_product_attention(Q, K, V, mask=mask)
    answer = read_parts(answer, ("weights", "output"), "{'weights': [[...]], 'output': [[...]]}")
    words = text.OUTPUT_MISTAKES
    lines, n_right = [], 0
    w, err = read_matrix_part(answer, "weights", exp_w.shape, "(n_q, n_k)")
    weights_right = False
    if err:
        lines.append(err)
    else:
        why = _weights_diagnosis(w, Q, K, mask, exp_w, tol_w)
        weights_right = why is None
        n_right += weights_right
        lines.append(f"✓ weights: {text.VERDICTS['weights_ok']}" if weights_right else f"✗ weights: {why}")
    o, err = read_matrix_part(answer, "output", exp_out.shape, "(n_q, d_v)")
    if err:
        lines.append(err)
    elif all_close(o, exp_out, tol_out):
        n_right += 1
        lines.append(f"✓ output: {text.VERDICTS['output_ok']}")
    else:
        unscaled_out = scaled_dot_product_attention(Q, K, V, mask=mask, scale=False)[0]
        if w is not None and not weights_right and all_close(o, w @ V, tol_out):
            why = words["follows_weights"]
        elif Q.shape[1] > 1 and all_close(o, unscaled_out, tol_out):
            why = words["unscaled"].format(d_k=Q.shape[1])
        else:
            i, c = first_wrong(o, exp_out, tol_out)
            terms = " + ".join(f"{fmt(wj, 2)}·{fmt(V[j, c]) if V[j, c] >= 0 else '(' + fmt(V[j, c]) + ')'}"
                               for j, wj in enumerate(exp_w[i]))
            why = words["entry"].format(i=i, c=c, terms=terms)
        lines.append(f"✗ output: {why}")
    return Feedback(n_right == 2, "\n".join([verdict_head(n_right, 2, "attention_right"), *lines]))


def check_generated_attention(p: Problem, answer) -> Feedback:
    """The checker of the ``"attention"`` and ``"masked"`` kinds (the mask is ``p.inputs["mask"]``, if any)."""
    i = p.inputs
    return check_attention(answer, i["Q"], i["K"], i["V"], i.get("mask"), ROUNDED_TOL, output_tol(i["V"]))


def _generate(rng, difficulty) -> Generated:
    Q, K, V = random_qkv(rng, difficulty)
    out, W = scaled_dot_product_attention(Q, K, V)
    instruction = text.KINDS["attention"]["instruction"].format(rounding=text.ROUNDING, **attention_sizes(Q, K, V))
    return Generated({"Q": Q, "K": K, "V": V}, {"weights": W, "output": out}, instruction,
                     attention_solution(Q, K, V, None), attention_given(Q, K, V))


KIND = Kind("attention", _generate, check_generated_attention, order=2)
