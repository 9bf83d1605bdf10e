"""Generated problems of kind ``"shapes"``: d_k and every array's shape in multi-head attention (as the lesson's Q1).

The catalogues of wrong shapes and wrong d_k values are data (:data:`helpers.core.questions.SHAPE_MISTAKES`,
:data:`helpers.core.questions.DK_MISTAKES`); their sizes are expressions such as ``"d_model*heads"``, evaluated
here for the sizes of the problem. The lesson's Q1 and Q2 are checked with the same functions.
"""

from __future__ import annotations

import re

from helpers.core import questions as text
from helpers.core.explain import fmt, shape_text
from helpers.exercises.answers import (
    Unreadable,
    is_blank,
    read_number,
    read_parts,
    read_shape,
    verdict_head,
)
from helpers.exercises.feedback import Feedback
from helpers.exercises.fields import Field
from helpers.exercises.registry import Generated, Kind

__all__ = ["KIND", "shape_params", "dk_diagnosis", "check_shapes", "shape_fields"]


def _size(expr: str, sizes: dict) -> float:
    """A size expression of the data (``"d_model*heads"``, ``"heads/d_model"``) for these sizes."""
    tokens = re.split(r"\s*([*/])\s*", expr.strip())
    value = float(sizes[tokens[0]])
    for op, name in zip(tokens[1::2], tokens[2::2]):
        value = value * sizes[name] if op == "*" else value / sizes[name]
    return value


def _shape_of(expr: str, sizes: dict) -> tuple[int, ...]:
    """A shape expression of the data (``"batch, heads, seq_len, d_k"``) for these sizes."""
    return tuple(int(_size(axis, sizes)) for axis in expr.split(","))


def shape_params(batch, seq_len, d_model, heads) -> dict:
    """The right answer: d_k and the shapes of Q, K, V (split into heads), the weights and the output."""
    d_k = d_model // heads
    return {
        "d_k": d_k,
        "Q": (batch, heads, seq_len, d_k),
        "K": (batch, heads, seq_len, d_k),
        "V": (batch, heads, seq_len, d_k),
        "weights": (batch, heads, seq_len, seq_len),
        "output": (batch, seq_len, d_model),
    }


def dk_diagnosis(got: float, d_model: int, heads: int) -> str:
    """Why ``got`` is not d_k = d_model / heads: a known mistake of the data, else the general advice."""
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


def check_shapes(answer, batch, seq_len, d_model, heads) -> Feedback:
    """Check ``{"d_k": ..., "Q": shape, "K": ..., "V": ..., "weights": ..., "output": ...}`` part by part."""
    exp = shape_params(batch, seq_len, d_model, heads)
    sizes = {"batch": batch, "seq_len": seq_len, "d_model": d_model, "heads": heads, "d_k": exp["d_k"]}
    keys = tuple(exp)
    answer = read_parts(answer, keys, "{'d_k': 64, 'Q': (8, 12, 20, 64), ...}")
    lines, n_right = [], 0
    for key in keys:
        value = answer.get(key)
        if is_blank(value):
            lines.append(f"✗ {key}: {text.VERDICTS['missing']}")
            continue
        try:
            got = read_number(value, key) if key == "d_k" else read_shape(value, key)
        except Unreadable as err:
            lines.append(f"✗ {err}")
            continue
        if key == "d_k":
            if got == exp["d_k"]:
                n_right += 1
                lines.append(f"✓ d_k = {d_model} / {heads} = {exp['d_k']}")
            else:
                lines.append(f"✗ d_k = {fmt(got)}: {dk_diagnosis(got, d_model, heads)}")
        elif got == exp[key]:
            n_right += 1
            lines.append(f"✓ {key}: {shape_text(got)}")
        else:
            lines.append(f"✗ {key} {shape_text(got)}: {_shape_diagnosis(key, got, exp[key], sizes)}")
    return Feedback(n_right == len(keys), "\n".join([verdict_head(n_right, len(keys), "shapes_right"), *lines]))


def shape_fields(_spec=None) -> tuple[Field, ...]:
    """The typed fields of a shapes answer (d_k and one shape per array), from the data."""
    return tuple(Field(*field) for field in text.SHAPE_FIELDS)


_SHAPE_CHOICES = {
    "easy": {"heads": (2, 4, 8), "d_k": (16, 32, 64), "batch": (2, 10), "seq_len": (5, 30)},
    "medium": {"heads": (4, 6, 8, 12, 16), "d_k": (32, 48, 64, 80), "batch": (4, 32), "seq_len": (10, 128)},
    "hard": {"heads": (12, 16, 20, 32), "d_k": (64, 80, 96, 128), "batch": (1, 64), "seq_len": (50, 2048)},
}


def _generate(rng, difficulty) -> Generated:
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
    answer = shape_params(**inputs)
    words = text.KINDS["shapes"]
    shapes = {k: shape_text(v) for k, v in answer.items() if k != "d_k"}
    shapes["per_head_output"] = shape_text((batch, heads, seq_len, d_k))
    solution = "\n".join(line.format(d_k=d_k, **inputs, **shapes) for line in words["solution"])
    return Generated(inputs, answer, words["instruction"].format(**inputs), solution)


KIND = Kind("shapes", _generate, lambda p, a: check_shapes(a, **p.inputs), shape_fields,
            order=5)
