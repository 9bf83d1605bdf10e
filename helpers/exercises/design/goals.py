"""Pieces for the ``judge`` of a design task: the attention of a set of arrays, and goals stated on its weights.

A judge is a function ``arrays -> (met, detail)``; it is usually two lines::

    def _sat_attends_cat(arrays):
        weights = self_attention(arrays)[1]
        return attends_most(weights, TOKENS, TOKENS, "sat", "cat", at_least=0.5)

The attention is computed with :mod:`helpers.core.attention`, as the explorers compute it. Numbers in the details have
two decimals, as the explorers' weights do.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import causal_mask, project_qkv, scaled_dot_product_attention, softmax, split_heads
from helpers.core.numbers import number_text

__all__ = ["self_attention", "cross_attention", "attends_most", "hides_keys", "largest_weight_between",
           "LARGEST_SCORE", "multi_head_weights", "head_2_attends_most", "attends_previous", "attends_within_groups"]


def self_attention(arrays: dict, causal: bool = False, scale: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(output (n, d_v), weights (n, n)) of self-attention over ``arrays["X"]`` with ``W_q``, ``W_k``, ``W_v``."""
    Q, K, V = project_qkv(arrays["X"], arrays["W_q"], arrays["W_k"], arrays["W_v"])
    mask = causal_mask(Q.shape[0]) if causal else None
    return scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)


def cross_attention(arrays: dict, scale: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(output (n_q, d_v), weights (n_q, n_k)): queries from ``arrays["X_dec"]``, keys and values from ``X_enc``."""
    Q = arrays["X_dec"] @ arrays["W_q"]
    K, V = arrays["X_enc"] @ arrays["W_k"], arrays["X_enc"] @ arrays["W_v"]
    return scaled_dot_product_attention(Q, K, V, scale=scale)


def attends_most(weights, query_labels, key_labels, query: str, key: str, at_least: float = 0.5) -> tuple[bool, str]:
    """Goal: the query ``query`` gives the key ``key`` more weight than any other key, and at least ``at_least``.

    Parameters
    ----------
    weights : ndarray (n_q, n_k)
    query_labels, key_labels : sequence of str
        The rows' and columns' tokens.
    query, key : str
        The query (a row) and the key (a column) the goal is about.
    at_least : float

    Returns
    -------
    (bool, str)
        Whether the goal is met, and how things stand: ``"'sat' gives 'cat' 0.31 of its attention, and 'sat' 0.49;
        the goal is more than any other key and at least 0.5."``.
    """
    query_labels, key_labels = list(query_labels), list(key_labels)
    i, j = query_labels.index(query), key_labels.index(key)
    row = np.asarray(weights, dtype=float)[i]
    others = [(row[k], key_labels[k]) for k in range(len(row)) if k != j]
    best_other, best_name = max(others) if others else (0.0, "")
    met = row[j] > best_other and row[j] >= at_least
    now = f"'{query}' gives '{key}' {number_text(row[j], 2, trim=False)} of its attention"
    other = number_text(best_other, 2, trim=False)
    if met:
        return True, f"{now}, more than any other key (next: '{best_name}', {other})."
    return False, (f"{now}, and '{best_name}' {other}; the goal is more than any other key and at least "
                   f"{at_least:g}.")


def hides_keys(weights, reference, hidden, query_labels, key_labels, kind: str = "hidden",
               tolerance: float = 1e-9) -> tuple[bool, str]:
    """Goal: no query gives the keys ``hidden`` any weight, and the other keys keep the weights of ``reference``.

    Parameters
    ----------
    weights : ndarray (n_q, n_k)
        The weights of the learner's mask.
    reference : ndarray (n_q, n_k)
        The weights with exactly the ``hidden`` keys blocked for every query and nothing else: what the other keys
        must keep (each query shares its attention over them by their scores).
    hidden : sequence of int
        The columns (keys) no query may give any weight, e.g. the pad tokens.
    query_labels, key_labels : sequence of str
        The rows' and columns' labels.
    kind : str
        What the hidden keys are, in the messages ("hidden", "pad").
    tolerance : float
        How far a weight may be from its goal and still count as equal.

    Returns
    -------
    (bool, str)
        Whether the goal is met, and how things stand: ``"query 'birds' gives the pad key '2:<pad>' 0.08 of its
        attention; no query may give a pad key any weight."`` (``kind="pad"``).
    """
    weights, reference = np.asarray(weights, dtype=float), np.asarray(reference, dtype=float)
    hidden = sorted(int(j) for j in hidden)
    kept = [j for j in range(weights.shape[1]) if j not in hidden]
    names = ", ".join(f"'{key_labels[j]}'" for j in kept)
    on_hidden = weights[:, hidden]
    if on_hidden.size and on_hidden.max() > tolerance:
        i, k = np.unravel_index(int(np.argmax(on_hidden)), on_hidden.shape)
        return False, (f"query '{query_labels[i]}' gives the {kind} key '{key_labels[hidden[k]]}' "
                       f"{number_text(on_hidden[i, k], 2, trim=False)} of its attention; no query may give a {kind} "
                       "key any weight.")
    gap = np.abs(weights[:, kept] - reference[:, kept])
    if gap.size and gap.max() > tolerance:
        i, k = np.unravel_index(int(np.argmax(gap)), gap.shape)
        given, shared = (number_text(M[i, kept[k]], 2, trim=False) for M in (weights, reference))
        return False, (f"query '{query_labels[i]}' gives '{key_labels[kept[k]]}' {given}, where "
                       f"sharing its attention over {names} by their scores gives {shared}: one "
                       "of them is blocked for it.")
    return True, (f"no query gives a {kind} key any weight, and every query shares its attention over {names} by "
                  "their scores.")


def largest_weight_between(weights, key_labels, low: float, high: float, key: str | None = None) -> tuple[bool, str]:
    """Goal: one query's largest weight is between ``low`` and ``high`` (neither saturated nor flat), on ``key``.

    Parameters
    ----------
    weights : array_like (n_k,) or (1, n_k)
        One query's weights.
    key_labels : sequence of str
        The keys' labels.
    low, high : float
        The band the largest weight must lie in.
    key : str or None
        The key that must get it, alone (None: any key).

    Returns
    -------
    (bool, str)
        Whether the goal is met, and how things stand: ``"the largest weight is 1.00, on 'key 3'; the goal is
        between 0.25 and 0.75, on 'key 3'."``.
    """
    key_labels = list(key_labels)
    row = np.asarray(weights, dtype=float).ravel()
    top = int(np.argmax(row))
    shared = int(np.count_nonzero(np.isclose(row, row[top], rtol=0.0, atol=1e-12)))
    goal = f"between {low:g} and {high:g}" + (f", on '{key}'" if key is not None else "")
    largest = number_text(row[top], 2, trim=False)
    if shared > 1:
        return False, f"the largest weight, {largest}, is shared by {shared} keys; the goal is {goal}."
    met = low <= row[top] <= high and (key is None or key_labels[top] == key)
    now = f"the largest weight is {largest}, on '{key_labels[top]}'"
    if met:
        return True, f"{now}: {goal}, as the goal asks."
    return False, f"{now}; the goal is {goal}."


# Beyond this size float64 rounds a score by more than 1e-4, so the differences between scores that set the weights
# would be rounding noise.
LARGEST_SCORE = 1e12


def multi_head_weights(arrays: dict, h: int) -> np.ndarray:
    """The weights (h, n, n) of multi-head self-attention over ``arrays["X"]`` with ``W_q`` and ``W_k`` (each
    d_model × d_model): head i reads columns ``i*d_k:(i+1)*d_k`` of Q and K (:func:`helpers.core.attention.split_heads`)
    and is scaled by 1/√d_k, d_k = d_model / h.

    Raises
    ------
    ArithmeticError
        If a scaled score exceeds :data:`LARGEST_SCORE` in size (or is not finite): the weights would say nothing.
    """
    Q = split_heads(arrays["X"] @ arrays["W_q"], h)
    K = split_heads(arrays["X"] @ arrays["W_k"], h)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    largest = float(np.max(np.abs(scores)))
    if not largest <= LARGEST_SCORE:
        raise ArithmeticError(f"a score reaches {number_text(largest, None, sig=2)}, and at that size float64 cannot "
                              "tell scores that differ by less than 1e-4 apart")
    return softmax(scores)


def head_2_attends_most(tokens, query: str, key: str, head_1, changed: str, at_least: float = 0.5):
    """The judge of a two-head task: in head 2, ``query`` gives ``key`` more weight than any other key, and at least
    ``at_least`` (:func:`attends_most`), while head 1's weights stay ``head_1``.

    Parameters
    ----------
    tokens : sequence of str
        The tokens, the rows of ``arrays["X"]``.
    query, key : str
    head_1 : ndarray (n, n)
        Head 1's weights as the task starts.
    changed : str
        The matrix the learner changes, as the detail names it (``"W^K"``): when head 1's weights moved, the detail
        says that its columns of that matrix are head 1's.
    at_least : float

    Returns
    -------
    callable
        ``arrays -> (met, detail)``, with ``h = 2`` heads over ``arrays["X"]``, ``W_q`` and ``W_k``.
    """
    def judge(arrays) -> tuple[bool, str]:
        weights = multi_head_weights(arrays, 2)
        met, detail = attends_most(weights[1], tokens, tokens, query, key, at_least=at_least)
        if not np.allclose(weights[0], head_1):
            d_k = np.shape(arrays["W_q"])[1] // 2
            columns = ", ".join(str(c) for c in range(d_k - 1)) + f" and {d_k - 1}"
            return False, (f"head 1's weights changed (columns {columns} of {changed} are head 1's: put them back); "
                           "in head 2, " + detail)
        return met, "in head 2, " + detail + " Head 1's weights are as they were."
    return judge


def _token(labels: list, i: int) -> str:
    """Token ``i`` as the messages name it: its label, and its position when another token has the same label."""
    return f"'{labels[i]}'" if labels.count(labels[i]) == 1 else f"'{labels[i]}' (position {i})"


def _other(labels: list, k: int, i: int) -> str:
    """Key ``k`` as query ``i``'s message names it: "itself" when it is the query's own token."""
    return "itself" if k == i else _token(labels, k)


def attends_previous(weights, labels, at_least: float = 0.5) -> tuple[bool, str]:
    """Goal: every query but the first gives the key just before it more weight than any other key, and at least
    ``at_least`` (a previous-token head).

    Parameters
    ----------
    weights : ndarray (n, n)
        Self-attention weights, Queries ↓, Keys → (query i's previous token is key i - 1).
    labels : sequence of str
        The tokens, in order (a label may repeat: the messages then add its position).
    at_least : float

    Returns
    -------
    (bool, str)
        Whether the goal is met, and how things stand, naming the query furthest from it: ``"5 of 6 tokens do;
        'on' gives 'sat' (the token before it) 0.20 of its attention, and 'on' 0.45; the goal is ..."``.
    """
    labels = list(labels)
    W = np.asarray(weights, dtype=float)
    n = W.shape[0]
    if n < 2:
        raise ValueError("a previous-token head needs at least two tokens")
    rows = []  # (margin, query, its weight on the token before it, the largest other weight, that key)
    for i in range(1, n):
        row = W[i]
        best_other, k = max((row[j], -j) for j in range(n) if j != i - 1)
        k = -k  # the first of equal weights
        rows.append((min(row[i - 1] - best_other, row[i - 1] - at_least), i, row[i - 1], best_other, k))
    met = [w > other and w >= at_least for _m, _i, w, other, _k in rows]
    _margin, i, w, other, k = min(rows)
    w, other = number_text(w, 2, trim=False), number_text(other, 2, trim=False)
    if all(met):
        return True, (f"every token after the first gives the token before it the most attention; the least is "
                      f"{_token(labels, i)}, {w} on {_token(labels, i - 1)} (next: {_other(labels, k, i)}, "
                      f"{other}).")
    return False, (f"{sum(met)} of {n - 1} tokens after the first do; {_token(labels, i)} gives "
                   f"{_token(labels, i - 1)} (the token before it) {w} of its attention, and "
                   f"{_other(labels, k, i)} {other}; the goal is, for every token after the first, more than any "
                   f"other key and at least {at_least:g} on the token before it.")


def attends_within_groups(weights, labels, groups, each_at_least: float = 0.2, outside_below: float = 0.1,
                          word: str = "group") -> tuple[bool, str]:
    """Goal: every query gives each key of its own group at least ``each_at_least``, and the keys of the other
    groups less than ``outside_below`` in all (a block-diagonal pattern).

    Parameters
    ----------
    weights : ndarray (n, n)
        Self-attention weights, Queries ↓, Keys →.
    labels : sequence of str
        The tokens, in order.
    groups : sequence, length n
        Each token's group (any comparable ids): a block is a group of tokens.
    each_at_least, outside_below : float
    word : str
        What a group is called in the messages ("phrase").

    Returns
    -------
    (bool, str)
        Whether the goal is met, and how things stand, naming the query furthest from it: ``"'cat' gives 'the'
        0.03 (the least within its phrase) and the other phrase 0.43 in all; the goal is ..."``.
    """
    labels, groups = list(labels), list(groups)
    others = f"the other {word}" if len(set(groups)) == 2 else f"the other {word}s"
    W = np.asarray(weights, dtype=float)
    rows = []
    for i, row in enumerate(W):
        own = [j for j in range(len(row)) if groups[j] == groups[i]]
        least = min(own, key=lambda j: row[j])
        outside = float(sum(row[j] for j in range(len(row)) if groups[j] != groups[i]))
        margin = min(row[least] - each_at_least, outside_below - outside)
        rows.append((margin, i, least, row[least], outside))
    goal = (f"the goal is at least {each_at_least:g} on each token of its own {word} and under {outside_below:g} on "
            f"{others} in all, for every token")
    margin, i, least, w, outside = min(rows)
    now = (f"{_token(labels, i)} gives {_other(labels, least, i)} {number_text(w, 2, trim=False)} (the least within "
           f"its {word}) and {others} {number_text(outside, 2, trim=False)} in all")
    met = all(r[3] >= each_at_least and r[4] < outside_below for r in rows)
    if met:
        return True, f"every token attends within its {word}; the closest to the limits: {now}."
    return False, f"{now}; {goal}."
