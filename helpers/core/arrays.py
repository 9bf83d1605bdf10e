"""Turning a caller's argument into a float array or a positive count, or a ValueError that names it.

Shared by the math (helpers.core.attention) and the demos, so every function refuses bad
input with the same kind of message: the argument's name, the expected layout and
what was given.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_float_array", "require_ndim", "as_matrix", "one_of", "positive_int", "whole_number"]


def as_float_array(x, name: str) -> np.ndarray:
    """``x`` as a float64 array, or a ValueError naming the argument."""
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be an array of numbers; got {type(x).__name__} ({err})") from None


def require_ndim(arr: np.ndarray, name: str, at_least: int, layout: str) -> None:
    """A ValueError unless ``arr`` has at least ``at_least`` dimensions (``layout`` says which, e.g. "(n, d)")."""
    if arr.ndim < at_least:
        raise ValueError(f"{name} must have shape {layout}; got shape {arr.shape}")


def as_matrix(x, name: str, layout: str, finite: bool = False) -> np.ndarray:
    """``x`` as a 2-D float array of shape ``layout`` (e.g. "(n, d_k)"); with ``finite``, NaN and ±inf are refused."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be numbers with shape {layout}; got {type(x).__name__} ({err})") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape {layout}; got shape {arr.shape}")
    if finite and not np.isfinite(arr).all():
        raise ValueError(f"{name} must hold finite numbers; got {arr.tolist()}")
    return arr


def whole_number(value, name: str, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int if it is a whole number from ``low`` to ``high`` (no upper end if None), else a ValueError.

    A bool is not a number here (``True`` would pass as 1), nor is a float, even ``2.0``: a count or an index the
    caller wrote as ``2.5`` or ``2.0`` is told so rather than silently cut. The message names ``name`` (which may
    say what the number is, e.g. "n (the sequence length)") and the range.
    """
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer))
            or value < low or (high is not None and value > high)):
        wanted = f"from {low} to {high:,}" if high is not None else f"of at least {low}"
        raise ValueError(f"{name} must be a whole number {wanted}; got {value!r}")
    return int(value)


def one_of(value, choices, name: str):
    """``value`` if it is one of ``choices``, else a ValueError naming ``name`` and the choices."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}; got {value!r}")
    return value


def positive_int(value, name: str) -> int:
    """``value`` as an int if it is a whole number of at least 1 (see :func:`whole_number`)."""
    return whole_number(value, name)
