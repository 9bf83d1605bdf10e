"""One design task: a goal for the attention, the arrays the learner may change, and the check of any attempt.

A :class:`DesignTask` is data: the goal in one sentence, the arrays the learner changes (``start``, and one
``solution`` that meets the goal), the arrays that stay fixed (``given``), and a ``judge`` function that looks at the
attention those arrays give (its weights or its output) and says whether the goal is met and what is still off.
Because the goal is judged on the attention, not compared with one expected matrix, every design that meets it
counts.

:meth:`DesignTask.check` takes the learner's arrays by name. An array the learner does not pass is the task's own:
a changeable one its ``start``, a fixed one its ``given`` value, so ``check_design(name, X=my_X)`` checks a task in
which only X was changed. Whatever is passed (a wrong shape, NaN, text, an unknown name, a fixed array changed), the
answer is a :class:`~helpers.exercises.feedback.Feedback` saying what is wrong, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from helpers.core.explain import shape_text
from helpers.core.parsing import ParseError, parse_matrix
from helpers.exercises.feedback import Feedback
from helpers.exercises.per_notebook import check_names

__all__ = ["LAYOUTS", "DesignTask"]

# What the axes of the arrays a task may name are, for the messages about shapes.
LAYOUTS = {
    "X": "tokens × d_model",
    "X_dec": "decoder tokens × d_model",
    "X_enc": "encoder tokens × d_model",
    "W_q": "d_model × d_k",
    "W_k": "d_model × d_k",
    "W_v": "d_model × d_v",
    "W_o": "d_model × d_model",
    "mask": "queries × keys",
}


def _as_array(value) -> np.ndarray:
    """``value`` as an array: text is read by :func:`helpers.core.parsing.parse_matrix`; ValueError saying why not."""
    if isinstance(value, str):
        try:
            return parse_matrix(value)
        except ParseError as err:
            raise ValueError(f"the text could not be read as a matrix: {err}") from None
    if value is None:
        raise ValueError("got None")
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - ragged lists and odd objects
        raise ValueError(f"got {type(value).__name__}, not a matrix of numbers") from None
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"got {type(value).__name__} holding {arr.dtype}, not a matrix of numbers")
    return arr


@dataclass(frozen=True)
class DesignTask:
    """A goal the learner reaches by changing arrays (see the module docstring).

    Parameters
    ----------
    name : str
        ``"01-sat-attends-cat"``: the notebook's number, then lower-case words joined by ``-``.
    notebook : str
        ``"01_intuition"``: where the task is set.
    goal : str
        One sentence: what the attention should do, and what may be changed.
    start : dict str -> ndarray
        The arrays the learner changes, as the task starts (an explorer with ``goal=`` starts from its own arrays).
    solution : dict str -> ndarray
        One design that meets the goal (same names and shapes as ``start``).
    judge : callable (dict str -> ndarray) -> (bool, str)
        Looks at the attention of a complete set of arrays (``start``'s and ``given``'s names, each checked to have
        the right shape and finite entries) and says whether the goal is met and, in one sentence, how things stand:
        ``"'sat' gives 'cat' 0.31 of its attention; the goal is more than any other key and at least 0.5"``.
        :mod:`helpers.exercises.design.goals` has the pieces.
    given : dict str -> ndarray
        Arrays that stay fixed (may be empty).
    settings : dict str -> bool
        The explorer settings the goal assumes (``{"causal": False, "scale": True}``): an explorer with ``goal=``
        says when its own differ.
    hint : str
        One line that helps a learner who is stuck ('' for none).

    Names of arrays: those of the explorers (``X``, ``X_dec``, ``X_enc``, ``W_q``, ``W_k``, ``W_v``) where the task
    is done in one, else any (``W_o``, ``mask``, ...). A boolean ``start`` array (a mask) takes True/False.
    """

    name: str
    notebook: str
    goal: str
    start: Mapping[str, np.ndarray]
    solution: Mapping[str, np.ndarray]
    judge: Callable[[dict], tuple[bool, str]]
    given: Mapping[str, np.ndarray] = field(default_factory=dict)
    settings: Mapping[str, bool] = field(default_factory=dict)
    hint: str = ""

    def __post_init__(self) -> None:
        check_names(self.name, self.notebook, "design task")
        what = f"design task {self.name!r}"
        if not isinstance(self.goal, str) or not self.goal.strip():
            raise ValueError(f"{what}: goal must be a non-empty sentence")
        if not callable(self.judge):
            raise ValueError(f"{what}: judge must be a function of the arrays")
        frozen = {}
        for part in ("start", "solution", "given"):
            arrays = {}
            for key, value in dict(getattr(self, part)).items():
                arr = np.array(value, dtype=bool if np.asarray(value).dtype == bool else float)
                if arr.ndim != 2 or not np.isfinite(arr.astype(float)).all():
                    raise ValueError(f"{what}: {part}[{key!r}] must be a finite 2-D matrix; got shape {arr.shape}")
                arr.flags.writeable = False
                arrays[key] = arr
            frozen[part] = arrays
        if not frozen["start"]:
            raise ValueError(f"{what}: start names at least one array the learner changes")
        if frozen["start"].keys() & frozen["given"].keys():
            raise ValueError(f"{what}: an array is either changed (start) or fixed (given), not both")
        if frozen["solution"].keys() != frozen["start"].keys() or any(
                frozen["solution"][k].shape != frozen["start"][k].shape for k in frozen["start"]):
            raise ValueError(f"{what}: solution must have the arrays of start, with their shapes")
        for part, arrays in frozen.items():
            object.__setattr__(self, part, arrays)
        object.__setattr__(self, "settings", {k: bool(v) for k, v in dict(self.settings).items()})

    @property
    def changeable(self) -> tuple[str, ...]:
        """The names of the arrays the learner changes."""
        return tuple(self.start)

    @property
    def names(self) -> tuple[str, ...]:
        """Every array the goal is judged on: the changeable ones, then the fixed ones."""
        return (*self.start, *self.given)

    def _expected(self, key: str) -> np.ndarray:
        return self.start[key] if key in self.start else self.given[key]

    def _read(self, key: str, value) -> np.ndarray:
        """The learner's ``value`` for ``key`` as the task's kind of array; ValueError naming what is wrong."""
        want = self._expected(key)
        layout = f" ({LAYOUTS[key]})" if key in LAYOUTS else ""
        try:
            arr = _as_array(value)
        except ValueError as err:
            raise ValueError(f"{key} must be a matrix of shape {shape_text(want.shape)}{layout}; {err}") from None
        if arr.shape != want.shape:
            raise ValueError(f"{key} must have shape {shape_text(want.shape)}{layout}; got {shape_text(arr.shape)}")
        if want.dtype == bool:
            if arr.dtype != bool and not np.isin(arr, (0, 1)).all():
                raise ValueError(f"{key} is a mask: True (may attend) or False (blocked) in every entry")
            return arr.astype(bool)
        arr = arr.astype(float)
        if not np.isfinite(arr).all():
            where = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
            raise ValueError(f"{key} must hold finite numbers; entry {where} is {arr[where]}")
        return arr

    def arrays(self, **arrays) -> dict[str, np.ndarray]:
        """The complete set of arrays the goal is judged on: the ones passed, the task's own for the others.

        Raises
        ------
        ValueError
            Naming the argument: an unknown name, a wrong shape, NaN or ±inf, not numbers, a fixed array changed.
        """
        unknown = [k for k in arrays if k not in self.names]
        if unknown:
            fixed = f"; fixed: {', '.join(self.given)}" if self.given else ""
            plural = "s" if len(self.changeable) > 1 else ""
            raise ValueError(f"this task takes {', '.join(self.changeable)} (the array{plural} you change){fixed}; "
                             f"got {', '.join(repr(k) for k in unknown)}")
        complete = {}
        for key in self.names:
            if key not in arrays:
                complete[key] = self._expected(key).copy()
                continue
            complete[key] = self._read(key, arrays[key])
            if key in self.given and not np.array_equal(complete[key], self.given[key]):
                raise ValueError(f"{key} is fixed in this task, and yours differs from the one given: put {key} "
                                 f"back and change only {', '.join(self.changeable)}")
        return complete

    def check(self, **arrays) -> Feedback:
        """Is the goal met by these arrays? (See :func:`helpers.exercises.design.check_design`.)"""
        try:
            complete = self.arrays(**arrays)
        except ValueError as err:
            return Feedback(False, str(err))
        try:
            with np.errstate(all="ignore"):  # huge entries overflow: said below, not warned about
                met, detail = self.judge(complete)
        except (ValueError, ArithmeticError) as err:
            return Feedback(False, f"the attention of these arrays cannot be computed, so the goal cannot be judged "
                                   f"(smaller numbers will do): {err}")
        return Feedback(bool(met), ("Goal met: " if met else "Not yet: ") + detail)
