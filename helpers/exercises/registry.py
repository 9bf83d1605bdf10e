"""The registry of generated-problem kinds and :func:`generate`, which makes a problem of any of them.

A kind is one :class:`Kind` entry: a generator, its checker and its answer fields (matrix grids and an
entry-by-entry check by default). :func:`generate` and the practice widget know nothing else about a
kind, so a new kind of problem is one module in :mod:`helpers.exercises.problems` that defines ``KIND``, found there
as every entry of the course is (:func:`helpers.exercises.per_notebook.discover`), never a new branch here.
:func:`register_kind` adds a kind from outside the package (a notebook's own), after the built-in ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from helpers.core import questions as text
from helpers.core.arrays import whole_number
from helpers.exercises.answers import check_entries, safe_check
from helpers.exercises.feedback import Feedback
from helpers.exercises.fields import Field, grid_fields
from helpers.exercises.per_notebook import discover

__all__ = ["DIFFICULTIES", "Generated", "Kind", "Problem", "register_kind", "unregister_kind", "kinds", "generate"]

DIFFICULTIES = ("easy", "medium", "hard")


@dataclass(frozen=True, eq=False)
class Generated:
    """What a kind's generator returns.

    Attributes
    ----------
    inputs : dict         the problem's numbers
    answer : dict         the right answer, part name -> value
    instruction : str     what to do (without the title)
    solution : str        the worked solution
    given : tuple of Given  the given matrices, as tables and as text in the prompt
    """

    inputs: dict
    answer: dict
    instruction: str
    solution: str
    given: tuple = ()


@dataclass(frozen=True)
class Kind:
    """One kind of generated problem: everything :func:`generate` and the practice widget need.

    Attributes
    ----------
    name : str
    generate : callable(rng, difficulty) -> Generated
        ``rng`` is a ``numpy.random.Generator`` seeded with the problem number.
    check : callable(problem, answer) -> Feedback
        May raise on unreadable answers (:meth:`Problem.check` turns that into Feedback).
        Default: :func:`~helpers.exercises.answers.check_entries` against ``problem.answer``.
    fields : callable(problem) -> tuple of Field
        Default: one matrix grid per part of ``problem.answer`` (:func:`~helpers.exercises.fields.grid_fields`).
    order : int
        Where a built-in kind comes in :func:`kinds` and the practice widget's list: lower first (then by name).
    """

    name: str
    generate: Callable
    check: Callable = lambda problem, answer: check_entries(answer, problem.answer)
    fields: Callable = lambda problem: grid_fields(problem.answer)
    order: int = 0


@dataclass(frozen=True, eq=False)
class Problem:
    """A generated practice problem.

    Attributes
    ----------
    kind, seed, difficulty
        What made it; the same three always give the same problem.
    inputs : dict
        projection: X, W_q, W_k, W_v | attention: Q, K, V | masked: Q, K, V, mask (bool, True = may
        attend) | softmax: scores | shapes: batch, seq_len, d_model, heads | heatmap: weights (n_q, n_k),
        queries, keys (token labels), query (the token of the last question), groups (of a block pattern).
    answer : dict
        projection: Q, K, V | attention, masked: weights, output (scaled) | softmax: weights |
        shapes: d_k, Q, K, V, weights, output (as in q1) | heatmap: pattern, mask, attention, strongest.
    title : str
        ``"Problem 42 (attention, easy)"``.
    instruction : str
        What to do.
    given : tuple of Given
        The given matrices.
    solution : str
        The worked solution, every step with its numbers.
    fields : tuple of Field
        The answer fields.
    entry : Kind
        The registry entry that made it (and checks it).
    """

    kind: str
    seed: int
    difficulty: str
    inputs: dict
    answer: dict
    title: str
    instruction: str
    solution: str
    given: tuple = ()
    entry: Kind | None = field(default=None, repr=False)

    @property
    def fields(self) -> tuple[Field, ...]:
        """The answer fields (from the kind: they may depend on the answer's shapes)."""
        return tuple(self.entry.fields(self))

    @property
    def prompt(self) -> str:
        """The whole problem as text: title, instruction and every given matrix."""
        return "\n\n".join([f"{self.title}. {self.instruction}", *(g.text for g in self.given)])

    def check(self, answer) -> Feedback:
        """Check an answer; any input gives Feedback, never an exception."""
        return safe_check(lambda a: self.entry.check(self, a), answer)

    def answer_from(self, values: dict) -> dict:
        """The answer :meth:`check` takes, from ``{field name: what the field holds}``."""
        return dict(values)

    def __repr__(self) -> str:
        return f"Problem(kind={self.kind!r}, seed={self.seed}, difficulty={self.difficulty!r})"

    # (kind, seed, difficulty) decides everything else, and comparing the arrays field by field
    # would raise ("truth value of an array is ambiguous").
    def __eq__(self, other) -> bool:
        if not isinstance(other, Problem):
            return NotImplemented
        return (self.kind, self.seed, self.difficulty) == (other.kind, other.seed, other.difficulty)

    def __hash__(self) -> int:
        return hash((self.kind, self.seed, self.difficulty))


# The package whose modules define the built-in kinds (each a ``KIND``).
BUILT_IN = "helpers.exercises.problems"
_KINDS: dict[str, Kind] = {}


def _kinds() -> dict[str, Kind]:
    """Every kind by name: the built-in ones, found in :data:`BUILT_IN` when first asked for, then those added by
    :func:`register_kind`."""
    if not _KINDS:
        found = sorted(discover(BUILT_IN, "KIND"), key=lambda kind: (kind.order, kind.name))
        _KINDS.update((kind.name, kind) for kind in found)
    return _KINDS


def register_kind(kind: Kind) -> None:
    """Add a kind of generated problem: :func:`generate` and the practice widget offer it from now on.

    Raises
    ------
    ValueError
        If ``kind`` is not a :class:`Kind` or its name is taken.
    """
    if not isinstance(kind, Kind):
        raise ValueError(f"kind must be a Kind; got {type(kind).__name__}")
    if kind.name in _kinds():
        raise ValueError(f"a kind named {kind.name!r} is registered already")
    _KINDS[kind.name] = kind


def unregister_kind(name: str) -> None:
    """Remove a kind added by :func:`register_kind` (KeyError if there is none of that name)."""
    del _kinds()[name]


def kinds() -> tuple[str, ...]:
    """The names of every registered kind, the built-in ones (:data:`helpers.exercises.KINDS`) first."""
    return tuple(_kinds())


def generate(kind: str, seed: int, difficulty: str = "easy") -> Problem:
    """A practice problem with small, friendly numbers.

    Parameters
    ----------
    kind : str
        One of :func:`kinds`: ``"projection"``, ``"attention"``, ``"masked"``, ``"softmax"``,
        ``"shapes"``, ``"heatmap"`` and any added by :func:`register_kind`.
    seed : int
        Non-negative; the same (kind, seed, difficulty) always gives the same problem.
    difficulty : str
        ``"easy"``, ``"medium"`` or ``"hard"``: sizes and numbers grow.

    Returns
    -------
    Problem

    Raises
    ------
    ValueError
        For an unknown kind or difficulty, or a seed that is not a non-negative integer.
    """
    if kind not in _kinds():
        raise ValueError(f"kind must be one of {', '.join(_KINDS)}; got {kind!r}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}; got {difficulty!r}")
    seed = whole_number(seed, "seed", 0)
    entry = _KINDS[kind]
    made = entry.generate(np.random.default_rng(int(seed)), difficulty)
    if not isinstance(made, Generated):
        raise ValueError(f"the generator of kind {kind!r} must return a Generated; got {type(made).__name__}")
    title = text.TITLE.format(seed=int(seed), kind=kind, difficulty=difficulty)
    return Problem(kind, int(seed), difficulty, made.inputs, made.answer, title, made.instruction, made.solution,
                   tuple(made.given), entry=entry)
