"""Generated problems of kind ``"heatmap"``: read an attention heatmap.

The learner sees a weights matrix drawn as a heatmap (token labels on both axes, the fixed [0, 1] scale) and
names its pattern (diagonal, previous-token, vertical, block, long-range), its mask (none, causal, padding),
self- or cross-attention, and the key one query reads most. Every decision is taken on the numbers the
learner reads (rounded to 2 decimals), and a problem is only shown when exactly one pattern fits it; a
wrong pick is answered with the row or entry of the heatmap that rules it out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core import questions as text
from helpers.core.attention import causal_mask, softmax
from helpers.core.numbers import number_text
from helpers.exercises.answers import Unreadable, is_blank, read_parts
from helpers.exercises.feedback import Feedback
from helpers.exercises.fields import Field, Given
from helpers.exercises.registry import Generated, Kind, Problem

__all__ = ["KIND", "HeatmapGiven", "HEATMAP_MARGIN"]


@dataclass(frozen=True, eq=False)
class HeatmapGiven(Given):
    """A given weights matrix that the practice widget draws as a heatmap (Queries ↓, Keys →, on the fixed
    [0, 1] scale, token labels on both axes) rather than as a table; ``text`` is how the prompt prints it."""


_WORDS = text.HEATMAP
# What a learner reads is the heatmap's numbers, rounded to 2 decimals, so every decision is taken on them:
# a row's largest weight beats the others by at least HEATMAP_MARGIN, and a weight that no mask blocked
# shows as 0.01 or more, so that only a mask writes 0.00.
HEATMAP_MARGIN = 0.1
_MIN_WEIGHT = 0.01
# A "block" row keeps this share of its weight inside its group and reads each token of it with at least
# _BLOCK_EACH (so the square is filled, not one bright cell); a looser version rules block out elsewhere.
_BLOCK_MASS, _BLOCK_EACH = 0.8, 0.15
_BLOCK_MASS_LOOSE, _BLOCK_EACH_LOOSE = 0.6, 0.08
# Per difficulty: sentence length, noise on the scores, the pattern's score boost, and how often a problem is
# cross-attention or padded.
_LEVELS = {
    "easy": {"n": 5, "noise": 0.25, "strength": 3.0, "cross": 0.0, "padding": 0.0},
    "medium": {"n": 6, "noise": 0.4, "strength": 2.7, "cross": 0.25, "padding": 0.3},
    "hard": {"n": 7, "noise": 0.55, "strength": 2.5, "cross": 0.3, "padding": 0.35},
}
# The patterns each situation can show: a causal mask leaves the first rows no distant or grouped keys, and a
# cross-attention "previous token" or "block" would mean nothing.
_PATTERNS = {
    ("self", "none"): ("diagonal", "previous-token", "vertical", "block", "long-range"),
    ("self", "padding"): ("diagonal", "previous-token", "vertical", "block", "long-range"),
    ("self", "causal"): ("diagonal", "previous-token", "vertical"),
    ("cross", "none"): ("diagonal", "vertical"),
    ("cross", "padding"): ("diagonal", "vertical"),
}


def _compositions(n: int):
    """Every way to cut ``n`` tokens into at least two contiguous groups of 2 or more: tuples of (start, stop)."""
    def cuts(start):
        if start == n:
            yield ()
            return
        for stop in range(start + 2, n + 1):
            for rest in cuts(stop):
                yield ((start, stop),) + rest

    return [c for c in cuts(0) if len(c) >= 2]


def _peaks(S: np.ndarray, counted) -> dict:
    """For each counted row of the shown weights: (largest key, its weight, runner-up key, its weight)."""
    peaks = {}
    for i in counted:
        order = np.argsort(-S[i], kind="stable")
        peaks[i] = (int(order[0]), float(S[i, order[0]]), int(order[1]), float(S[i, order[1]]))
    return peaks


def _block_groups(S: np.ndarray, counted, mass: float, each: float):
    """The grouping that makes the shown weights a block pattern, or None."""
    n = len(counted)
    if n < 4 or list(counted) != list(range(n)):
        return None
    for groups in _compositions(n):
        if all(S[i, a:b].sum() >= mass - 1e-9 and S[i, a:b].min() >= each - 1e-9
               for a, b in groups for i in range(a, b)):
            return groups
    return None


def _target_key(pattern: str, i: int) -> int:
    """The key query ``i`` reads most in a diagonal (itself) or previous-token (the one before) pattern."""
    return i if pattern == "diagonal" else max(i - 1, 0)


def _pattern_misfit(pattern: str, S: np.ndarray, counted, strict: bool):
    """None when the shown weights ``S`` fit ``pattern``, else ``(row, fields)``: the first row that does not.

    ``strict`` (the pattern a problem shows) also asks every row's largest weight to be clear by
    :data:`HEATMAP_MARGIN`; the loose test (every other pattern) only asks where the largest weights are,
    so that a matrix fitting two patterns even loosely is never shown.
    """
    peaks = _peaks(S, counted)
    unclear = next((i for i in counted if peaks[i][1] - peaks[i][3] < HEATMAP_MARGIN - 1e-9), None)
    if pattern in ("diagonal", "previous-token"):
        for i in counted:
            t = _target_key(pattern, i)
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
        mass, each = (_BLOCK_MASS, _BLOCK_EACH) if strict else (_BLOCK_MASS_LOOSE, _BLOCK_EACH_LOOSE)
        if _block_groups(S, counted, mass, each) is not None:
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


def _mask_of(W: np.ndarray) -> str | None:
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


def _strongest_rows(S: np.ndarray, counted, mask_kind: str) -> list[int]:
    """Rows whose largest weight is clear by the margin and that read more than one key."""
    peaks = _peaks(S, counted)
    return [i for i in counted if peaks[i][1] - peaks[i][3] >= HEATMAP_MARGIN - 1e-9
            and not (mask_kind == "causal" and i == 0)]


def _pattern_scores(rng, pattern: str, n_q: int, n_k: int, counted, level: dict, cross: bool, mask_kind: str,
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
            S[i, _target_key(pattern, i)] += s
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


def _table_text(W: np.ndarray, queries, keys) -> str:
    """The weights as a labelled table, 2 decimals: how the prompt prints the heatmap."""
    width = max(5, *(len(k) for k in keys))
    lead = max(len(q) for q in queries)
    lines = [f"{_WORDS['title']} (Queries ↓, Keys →):", " " * (lead + 2) + "".join(k.rjust(width + 1) for k in keys)]
    for q, row in zip(queries, W):
        lines.append("  " + q.ljust(lead) + "".join(number_text(v, 2, trim=False).rjust(width + 1) for v in row))
    return "\n".join(lines)


def _generate(rng, difficulty) -> Generated:
    level = _LEVELS[difficulty]
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
    pattern = str(rng.choice(_PATTERNS[("cross" if cross else "self", mask_kind)]))
    allowed = np.ones((n_q, n_k), dtype=bool)
    if mask_kind == "causal":
        allowed = causal_mask(n_q)
    elif mask_kind == "padding":
        allowed[:, len(words_k):] = False
    others = [p for p in _WORDS["options"]["pattern"] if p != pattern]
    for _attempt in range(1000):
        S, groups = _pattern_scores(rng, pattern, n_q, n_k, counted, level, cross, mask_kind, len(words_k))
        W = softmax(np.where(allowed, S, -np.inf), axis=-1)
        shown = np.round(W, 2)
        if (W[allowed] < _MIN_WEIGHT).any() or _mask_of(W) != mask_kind:
            continue
        if _pattern_misfit(pattern, shown, counted, strict=True) is not None:
            continue
        if any(_pattern_misfit(p, shown, counted, strict=False) is None for p in others):
            continue
        rows = _strongest_rows(shown, counted, mask_kind)
        if rows:
            break
    else:  # pragma: no cover - the constructions above fit within a few attempts
        raise RuntimeError(f"no readable {pattern} heatmap found")
    if pattern == "block":
        groups = _block_groups(shown, counted, _BLOCK_MASS, _BLOCK_EACH)
    query = int(rng.choice(rows))
    strongest = keys[int(np.argmax(shown[query]))]
    answer = {"pattern": pattern, "mask": mask_kind, "attention": "cross" if cross else "self",
              "strongest": strongest}
    inputs = {"weights": W, "queries": queries, "keys": keys, "query": queries[query], "groups": groups}
    instruction = _WORDS["instruction"].format(n_q=n_q, n_k=n_k)
    if n_pad and not cross:
        instruction += " " + _WORDS["pad_rows"]
    # The prompt (text) asks the four questions with their options; the widget asks them with its buttons.
    options = {**_WORDS["options"], "strongest": tuple(k for k in keys if k != text.PAD)}
    asked = [f"{k}. {label.format(token=queries[query])} ({', '.join(options[name])})"
             for k, (name, label) in enumerate(_WORDS["fields"], start=1)]
    given = HeatmapGiven(_WORDS["title"], W, queries, keys, "\n".join([_table_text(W, queries, keys), "", *asked]),
                         row_axis="Queries ↓", col_axis="Keys →")
    return Generated(inputs, answer, instruction, _solution(inputs, answer), (given,))


def _real_query_rows(p_inputs) -> tuple[int, ...]:
    """The rows of the queries that are not [PAD] (only they are read)."""
    queries = p_inputs["queries"]
    return tuple(i for i, q in enumerate(queries) if q != text.PAD)


def _how_shown(field_name: str, value: str, inputs: dict) -> str:
    """How the heatmap shows ``value`` of ``field_name``, with its numbers."""
    W, queries, keys = inputs["weights"], inputs["queries"], inputs["keys"]
    shown = np.round(W, 2)
    if field_name == "pattern":
        if value == "vertical":
            col = int(np.bincount([int(np.argmax(shown[i])) for i in _real_query_rows(inputs)]).argmax())
            return _WORDS["patterns"]["vertical"].format(key=keys[col])
        if value == "block":
            groups = inputs.get("groups") or ()
            named = "; ".join(" ".join(keys[a:b]) for a, b in groups)
            return _WORDS["patterns"]["block"].format(groups=named)
        if value == "diagonal" and queries != keys[:len(queries)]:
            return _WORDS["patterns"]["diagonal_cross"]
        return _WORDS["patterns"][value]
    if field_name == "mask":
        pads = [k for k in keys if k == text.PAD]
        return _WORDS["masks"][value].format(keys=", ".join(pads), s="s" if len(pads) > 1 else "",
                                          are="are" if len(pads) > 1 else "is")
    words_q = [q for q in queries if q != text.PAD]
    shape = "" if len(queries) == len(keys) else _WORDS["attention_shape"].format(n_q=len(queries), n_k=len(keys))
    return _WORDS["attention"][value].format(n=len(keys), queries=" ".join(words_q),
                                          keys=" ".join(k for k in keys if k != text.PAD), shape=shape)


def _why_not(field_name: str, chosen: str, inputs: dict) -> str:
    """Why the heatmap does not show ``chosen``: the row or entry that contradicts it."""
    W, queries, keys = inputs["weights"], inputs["queries"], inputs["keys"]
    shown = np.round(W, 2)
    if field_name == "pattern":
        misfit = _pattern_misfit(chosen, shown, _real_query_rows(inputs), strict=True)
        if misfit is None:  # pragma: no cover - generated problems fit one pattern only
            return ""
        i, f = misfit
        fields = {"row": queries[i], "key": keys[f["key"]], "best": number_text(f["best"], 2, trim=False)}
        if "target" in f:
            fields.update(own=number_text(f["own"], 2, trim=False),
                          target=keys[f["target"]] if f["target"] < len(keys) else "")
        if "row2" in f:
            fields.update(row2=queries[f["row2"]], key2=keys[f["key2"]])
        if chosen == "long-range":
            d = f["distance"]
            fields["where"] = (_WORDS["patterns_not"]["long-range_self"] if d == 0 else
                               _WORDS["patterns_not"]["long-range_near"].format(key=fields["key"], distance=d,
                                                                             s="s" if d > 1 else ""))
        return _WORDS["patterns_not"][chosen].format(**fields)
    if field_name == "mask":
        zero = W == 0
        if chosen == "none":
            i, j = (int(v) for v in np.argwhere(zero)[0])
            return _WORDS["masks_not"]["none"].format(row=queries[i], key=keys[j])
        if chosen == "causal":
            if queries != keys:
                return _WORDS["masks_not"]["causal_cross"]
            i, j = (int(v) for v in np.argwhere(np.triu(~zero, 1))[0])
            return _WORDS["masks_not"]["causal"].format(row=queries[i], key=keys[j],
                                                        weight=number_text(shown[i, j], 2, trim=False))
        # padding: the last column is read by somebody
        j = W.shape[1] - 1
        i = int(np.argmax(W[:, j]))
        return _WORDS["masks_not"]["padding"].format(row=queries[i], key=keys[j],
                                                     weight=number_text(shown[i, j], 2, trim=False))
    shape = "" if len(queries) == len(keys) else _WORDS["attention_shape"].format(n_q=len(queries), n_k=len(keys))
    return _WORDS["attention_not"][chosen].format(shape=shape)


def _strongest_line(inputs: dict, template: str, chosen: str | None = None) -> str:
    W, queries, keys = inputs["weights"], inputs["queries"], inputs["keys"]
    shown = np.round(W, 2)
    i = queries.index(inputs["query"])
    order = np.argsort(-shown[i], kind="stable")
    fields = {"query": queries[i], "key": keys[order[0]], "best": number_text(shown[i, order[0]], 2, trim=False),
              "key2": keys[order[1]], "second": number_text(shown[i, order[1]], 2, trim=False)}
    if chosen is not None:
        j = keys.index(chosen)
        fields.update(chosen=chosen, chosen_weight=number_text(shown[i, j], 2, trim=False))
    return template.format(**fields)


def _option_name(field_name: str, value: str) -> str:
    names = _WORDS["names"][field_name]
    return names.format(value) if isinstance(names, str) else names[value]


def _solution(inputs: dict, answer: dict) -> str:
    words = _WORDS["solution"]
    W, queries, keys = inputs["weights"], inputs["queries"], inputs["keys"]
    shown = np.round(W, 2)
    lines = [words["rows"]]
    for i in _real_query_rows(inputs):
        j = int(np.argmax(shown[i]))
        lines.append(words["row"].format(query=queries[i], key=keys[j], weight=number_text(shown[i, j], 2, trim=False)))
    lines.append("")
    for name in ("pattern", "mask", "attention"):
        lines.append(words[name].format(what=_how_shown(name, answer[name], inputs), option=answer[name]))
    lines.append(words["strongest"].format(query=inputs["query"],
                                           what=_strongest_line(inputs, _WORDS["strongest"])))
    return "\n".join(lines)


def _fields(p: Problem) -> tuple[Field, ...]:
    labels = dict(_WORDS["fields"])
    options = {**_WORDS["options"], "strongest": tuple(k for k in p.inputs["keys"] if k != text.PAD)}
    return tuple(Field(name, "choice", label=labels[name].format(token=p.inputs["query"]),
                       options=tuple((o, o) for o in options[name])) for name in labels)


def _read_option(value, options) -> str:
    """The option a typed or picked value names (case, spaces, quotes and synonyms forgiven)."""
    if not isinstance(value, str):
        raise Unreadable(text.VERDICTS["choose"].format(keys=", ".join(options)))
    typed = " ".join(value.strip().strip("«»\"'").split())
    typed = _WORDS["synonyms"].get(typed.lower(), typed)
    match = next((o for o in options if o.lower() == typed.lower()), None)
    if match is None:
        raise Unreadable(_WORDS["not_option"].format(got=repr(value.strip()[:30]), options=", ".join(options)))
    return match


def _check(p: Problem, answer) -> Feedback:
    fields = p.fields
    answer = read_parts(answer, tuple(f.name for f in fields), "{'pattern': 'diagonal', 'mask': 'none', ...}")
    lines, n_right = [], 0
    for f in fields:
        value = answer.get(f.name)
        if is_blank(value):
            lines.append(f"✗ {f.name}: {text.VERDICTS['missing']}")
            continue
        try:
            chosen = _read_option(value, [key for key, _ in f.options])
        except Unreadable as err:
            lines.append(f"✗ {f.name}: {err}")
            continue
        right = p.answer[f.name]
        if f.name == "strongest":
            if chosen == right:
                n_right += 1
                lines.append(f"✓ strongest: «{chosen}»: " + _strongest_line(p.inputs, _WORDS["strongest"]))
            else:
                lines.append(f"✗ strongest: not «{chosen}»: "
                             + _strongest_line(p.inputs, _WORDS["strongest_not"], chosen))
            continue
        what = _how_shown(f.name, right, p.inputs)
        if chosen == right:
            n_right += 1
            lines.append(f"✓ {f.name}: " + _WORDS["right"].format(chosen=chosen, what=what))
        else:
            lines.append(f"✗ {f.name}: " + _WORDS["wrong"].format(chosen=chosen, actual=_option_name(f.name, right),
                                                               what=what, why=_why_not(f.name, chosen, p.inputs)))
    total = len(fields)
    head = _WORDS["all_right"] if n_right == total else text.VERDICTS["some_right"].format(right=n_right, total=total)
    return Feedback(n_right == total, "\n".join([head, *lines]))


KIND = Kind("heatmap", _generate, _check, _fields, order=6)
