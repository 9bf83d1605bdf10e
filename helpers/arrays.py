"""Turning a caller's argument into a float array or a positive count, or a ValueError that names it.

Shared by the math (helpers.attention) and the demos, so every function refuses bad
input with the same kind of message: the argument's name, the expected layout and
what was given.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_float_array", "require_ndim", "as_matrix", "positive_int"]


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


def positive_int(value, name: str) -> int:
    """``value`` as an int if it is a whole number of at least 1 (a bool is not), or a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)
