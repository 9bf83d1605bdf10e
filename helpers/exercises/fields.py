"""What an exercise shows: its answer fields (:class:`Field`) and its given matrices (:class:`Given`).

Plain data that a widget builds its inputs and tables from and that a prompt prints; nothing here draws.
Row and column names follow the schemes of :data:`helpers.core.questions.LABELS` (``"token"`` -> token 1, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core import questions as text
from helpers.core.explain import fmt

__all__ = ["Field", "Given", "labels", "grid_fields", "matrix_text", "given_matrix"]


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


def labels(scheme: str, n: int) -> tuple[str, ...]:
    """``n`` row or column names by one scheme of :data:`helpers.core.questions.LABELS` (``"token"`` -> token 1,
    ...)."""
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
        fields.append(Field(name, "matrix", label=name, shape=shape, row_labels=labels(rows, shape[0]),
                            col_labels=labels(cols, shape[1])))
    return tuple(fields)


def matrix_text(name: str, M) -> str:
    """A labelled matrix (n_rows, n_cols), one row per line, numbers aligned; booleans as ✓ and ✗."""
    M = np.atleast_2d(np.asarray(M))
    if M.dtype == bool:
        cells = [["✓" if v else "✗" for v in row] for row in M]
    else:
        cells = [[fmt(v) for v in row] for row in M]
    width = max(len(c) for row in cells for c in row)
    rows = ["  [" + "  ".join(c.rjust(width) for c in row) + "]" for row in cells]
    return f"{name} ({M.shape[0]}×{M.shape[1]}) =\n" + "\n".join(rows)


def given_matrix(title: str, M, rows: str | None = None, cols: str | None = None) -> Given:
    """A given matrix with rows and columns named by the schemes of :data:`helpers.core.questions.LABELS`."""
    M = np.atleast_2d(np.asarray(M, dtype=float))
    return Given(title, M, labels(rows, M.shape[0]) if rows else None, labels(cols, M.shape[1]) if cols else None,
                 matrix_text(title, M))
