"""Checking a learner's piece of a real model, layer by layer: what the three capstone tasks share.

The capstone (16_capstone) plugs the learner's code into all-MiniLM-L6-v2 (:mod:`helpers.core.pretrained`) and runs it
on the two "bank" sentences of 00_index. Each task compares the learner's run with the model's own, layer by layer (and,
for the weights, head by head), stops at the first layer where they differ, and reports:

* where: the sentence, the layer and the head (``On "We sat on the river bank", layer 0, head 3: ...``);
* what the difference looks like, in words: weights whose rows do not sum to 1, weights that are sharper or flatter
  than the model's, weights right but the output not (:func:`weights_symptom`);
* which mistake it is, when one of the task's wrong implementations, run on the same input there, gives exactly the
  learner's result (:func:`name_mistake`);
* the example: that layer's input and one row of the results, expected beside the learner's (:func:`example`).

A task module (``minilm_attention``, ``attention_sublayer``, ``encoder``) supplies its own run and its wrong
implementations; the verdict is built here (:func:`wrong`, :func:`right`). The model is loaded once per process; if
it is not installed, the check says so instead of judging.
"""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np

from helpers.core.explain import fmt
from helpers.core.learner_calls import TimeUp, call_limited
from helpers.core.pretrained import MiniLM, ModelUnavailableError, single_threaded_blas
from helpers.exercises.code_tasks import engine
from helpers.exercises.code_tasks.engine import MUTATES_INPUT, CodeTask, Mistake, Verdict
from helpers.exercises.code_tasks.failing_example import array_lines, side_by_side

__all__ = ["BANK_SENTENCES", "WEIGHTS_TOL", "STATES_TOL", "model", "judged", "unavailable", "close",
           "first_difference", "entry_text", "weights_symptom", "values_of", "call", "call_for_results", "outcome_of",
           "failed", "differs", "name_mistake", "row_lines", "example",
           "right", "wrong", "changed_argument", "raised_text", "repr_text"]

# The two sentences of 00_index: "bank" enters both as the same vector and leaves them different.
BANK_SENTENCES = ("I deposited money at the bank", "We sat on the river bank")
# How close a learner's numbers must be to the model's own: the model computes in float32 (its attention in float64),
# and a learner's code may round differently in either; a mistake moves the numbers by far more.
WEIGHTS_TOL = 1e-5
STATES_TOL = 1e-4
# A row's weights sum to 1 within this.
ROW_SUM_TOL = 1e-3
# Weights sharper (or flatter) than the model's by this much, in the largest weight of a row on average, are said so.
SHARPER = 0.02


@cache
def model() -> MiniLM:
    """all-MiniLM-L6-v2, loaded once per process."""
    return MiniLM.load()


def judged(verdict):
    """A task's check ``verdict(task, fn, model)``, given the model, as the engine calls it (``(task, fn)``): the
    verdict saying the model is not installed when it does not load (:func:`unavailable`); else ``verdict`` run with
    numpy's matrix products on one thread, as the model runs them (the products are small: on a busy machine, threads
    that wait for each other make a check ten times slower)."""
    def run(task, fn):
        missing = unavailable(task.name)
        if missing is not None:
            return missing
        with single_threaded_blas():
            return verdict(task, fn, model())
    return run


def unavailable(task: str) -> Verdict | None:
    """A verdict saying that the model is not installed (and how to install it), or None when it loads."""
    try:
        model()
    except ModelUnavailableError as err:
        return Verdict(False, f"{task}: this check runs the pretrained model, which could not be loaded: {err}")
    return None


def close(got: np.ndarray, want: np.ndarray, tol: float) -> bool:
    """Same shape and every entry within ``tol`` (absolute, and relative to the entry)."""
    if got.shape != want.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(got.astype(float), want.astype(float), rtol=tol, atol=tol))


def first_difference(got: np.ndarray, want: np.ndarray, tol: float) -> tuple[int, ...]:
    """The index of the first entry of ``got`` not within ``tol`` of ``want`` (same shapes), or () if none."""
    with np.errstate(all="ignore"):
        bad = ~np.isclose(got.astype(float), want.astype(float), rtol=tol, atol=tol)
    return tuple(int(i) for i in np.argwhere(bad)[0]) if bad.any() else ()


def entry_text(name: str, got: np.ndarray, want: np.ndarray, where: tuple[int, ...]) -> str:
    """``weights entry (0, 1) is 0.31; expected 0.11``."""
    return f"{name} entry {where} is {fmt(got[where])}; expected {fmt(want[where])}"


def weights_symptom(got: np.ndarray, want: np.ndarray) -> str:
    """What differs between a head's weights ``got`` and the model's ``want`` (both (n, n)), in words.

    The rows first (each must sum to 1: if the columns do instead, it says so), then how sharp the weights are (the
    largest weight of each row, on average: the scale of the scores shows there), then the first entry that differs.
    """
    sums = got.sum(axis=-1)
    bad_row = int(np.argmax(np.abs(sums - 1)))
    if abs(sums[bad_row] - 1) > ROW_SUM_TOL:
        text = f"the weights' rows do not sum to 1 (row {bad_row} sums to {fmt(sums[bad_row])})"
        if np.allclose(got.sum(axis=-2), 1, atol=ROW_SUM_TOL):
            text += ", but their columns do"
        return text
    where = first_difference(got, want, WEIGHTS_TOL)
    mine, theirs = float(got.max(axis=-1).mean()), float(want.max(axis=-1).mean())
    if mine > theirs + SHARPER or mine < theirs - SHARPER:
        return (f"each row sums to 1, but the weights are {'sharper' if mine > theirs else 'flatter'} than the "
                f"model's (a row's largest weight is {fmt(mine)} on average; the model's {fmt(theirs)}): "
                + entry_text("weights", got, want, where))
    return "each row sums to 1, but " + entry_text("weights", got, want, where)


def values_of(value, k: int) -> tuple | None:
    """A returned value as ``k`` float arrays (a tuple of ``k`` items, or one array when ``k`` is 1), or None."""
    parts = value if k > 1 else (value,)
    if k > 1 and (not isinstance(parts, (tuple, list)) or len(parts) != k):
        return None
    if any(p is None or isinstance(p, str) for p in parts):
        return None
    try:
        return tuple(np.asarray(p, dtype=float) for p in parts)
    except (TypeError, ValueError):
        return None


def raised_text(err: BaseException) -> str:
    """How an exception is compared and shown: ``ValueError: matmul: ...``."""
    text = str(err).strip()
    return type(err).__name__ + (f": {text}" if text else "")


def call(fn, args):
    """``fn(*args)`` stopped after the engine's time limit: ``(value, problem, outcome)``.

    ``problem`` is '' when the function returned, else what happened in words; ``outcome`` is then ``("raised",
    text)`` (compared with the wrong implementations' own failures) or ``("other", None)`` (a loop that never ended).
    """
    try:
        return call_limited(fn, args, engine.TIME_LIMIT), "", None
    except TimeUp:
        return None, f"your function did not finish within {engine.TIME_LIMIT:g} s (a loop that never ends?)", \
            ("other", None)
    except Exception as err:  # noqa: BLE001 - the learner's code may raise anything: it becomes the verdict
        return None, f"your function raised {raised_text(err)}", ("raised", raised_text(err))


def call_for_results(task: CodeTask, fn, args) -> tuple[tuple | None, str, tuple | None]:
    """``fn(*args)`` as :func:`call` runs it, its value read as ``task``'s results: ``(results, problem, outcome)``.

    ``results`` is one float array per output of the task when they can be read (``problem`` is then ''); else None,
    ``problem`` says what happened in words (it raised, ran too long, returned None or what is not the task's
    results) and ``outcome`` is the learner's, to compare with the wrong implementations' (:func:`name_mistake`).
    """
    value, problem, outcome = call(fn, args)
    if problem:
        return None, problem, outcome
    results = engine.results_of(value, task) if value is not None else "returned None. Did you forget `return`?"
    if isinstance(results, str):
        return None, f"your function {results.rstrip('.')}", outcome_of(value, len(task.outputs))
    return results, "", None


def outcome_of(value, k: int):
    """A returned value as an outcome to compare with the wrong implementations': ``("value", arrays)`` or
    ``("other", None)`` when it cannot be read as ``k`` arrays of numbers."""
    arrays = values_of(value, k)
    return ("value", arrays) if arrays is not None else ("other", None)


def failed(task: CodeTask, where: str, problem: str, learner, args, reference, tol: float, given: list[str],
           rows: list[str]) -> Verdict:
    """The verdict on a call that could not be compared entry by entry (it raised, ran too long, or returned what
    cannot be read or has the wrong shape): the mistake whose wrong implementation does the same on ``args``."""
    mistake = name_mistake(task.models, args, learner, reference, len(task.outputs), tol)
    return wrong(task.name, where, problem, mistake, example(where, given, rows, f"What happened: {problem}."))


def differs(task: CodeTask, where: str, problem: str, got: tuple, args, reference, tol: float, given: list[str],
            rows: list[str], first: str) -> Verdict:
    """The verdict on results ``got`` that could be compared and first differ at ``where`` (``first``: that entry,
    as :func:`entry_text` says it): the mistake whose wrong implementation gives ``got`` on ``args``."""
    mistake = name_mistake(task.models, args, ("value", got), reference, len(task.outputs), tol)
    return wrong(task.name, where, problem, mistake, example(where, given, rows, f"First difference: {first}."))


def _outcome(fn, args, k: int):
    """What ``fn(*args)`` gives: ``("value", arrays)``, ``("raised", text)``, or ``("other", None)``."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = fn(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    except Exception as err:  # noqa: BLE001 - a wrong implementation may fail on shapes, exactly as the learner's
        return "raised", raised_text(err)
    arrays = values_of(value, k)
    return ("value", arrays) if arrays is not None else ("other", None)


def _same_outcome(a, b, tol: float) -> bool:
    if a[0] != b[0] or a[0] == "other":
        return False
    if a[0] == "raised":
        return a[1] == b[1]
    return len(a[1]) == len(b[1]) and all(close(x, y, tol) for x, y in zip(a[1], b[1]))


def name_mistake(models, args, learner, reference, k: int, tol: float) -> Mistake | None:
    """The mistake of the first wrong implementation that, run on ``args``, gives the learner's outcome and not the
    reference's.

    Parameters
    ----------
    models : sequence of (Mistake, callable)
    args : tuple
        The input where the learner's result first differs (copied for every call).
    learner : tuple
        The learner's outcome there: ``("value", arrays)`` or ``("raised", text)``.
    reference : tuple
        The right arrays there.
    """
    if learner[0] == "other":
        return None
    want = ("value", reference)
    for mistake, wrong_fn in models:
        outcome = _outcome(wrong_fn, args, k)
        if _same_outcome(outcome, learner, tol) and not _same_outcome(outcome, want, tol):
            return mistake
    return None


def row_lines(label: str, expected, yours, columns: int | None = None) -> list[str]:
    """One row of a result, expected beside the learner's (its first ``columns`` entries if given)."""
    cut = (lambda r: r) if columns is None else (lambda r: r[:columns])
    suffix = "" if columns is None else f", first {columns} of {len(expected)} columns"
    left = [f"{label}{suffix}, expected"] + array_lines(cut(np.asarray(expected)))
    if yours is None:
        return left
    return side_by_side(left, [f"{label}{suffix}, yours"] + array_lines(cut(np.asarray(yours))))


def example(case: str, given: list[str], rows: list[str], last: str) -> str:
    """The failing example as text: what the function was given there, rows of the results, what went wrong (a
    ``last`` that ends in a full stop keeps just that one)."""
    return "\n".join([f"The example: {case}", *given, *rows, last.replace("..", ".")])


def changed_argument(task: str, case: str, name: str, given: list[str]) -> Verdict:
    """The verdict on a piece whose results are right but that wrote into its argument ``name`` on ``case``."""
    header = f"{task}: not right yet."
    lines = [header, f"Your results are right, but on {case} your function changed its argument `{name}`.",
             MUTATES_INPUT.explained()]
    last = f"What happened: your results are right, but your function changed its argument `{name}`."
    return Verdict(False, "\n".join(lines), header, example(case, given, [], last), MUTATES_INPUT, lines[2])


def right(task: str, piece: str) -> Verdict:
    """The verdict on a piece that gave the model's own numbers in every layer of both sentences."""
    return Verdict(True, f"{task}: correct: with your {piece}, MiniLM gives its own numbers in every layer, on both "
                         f"sentences.\nChecked on: {'; '.join(repr_text(t) for t in BANK_SENTENCES)}.")


def repr_text(text: str) -> str:
    return f'"{text}"'


def wrong(task: str, case: str, problem: str, mistake: Mistake | None, example_text: str) -> Verdict:
    """The verdict on a piece whose run first differs at ``case`` (the sentence, the layer and maybe the head).

    ``problem`` says what differs there; ``mistake`` is the one recognised (or None); ``example_text`` is
    :func:`example`'s.
    """
    header = f"{task}: not right yet."
    lines = [header, f"On {case}: {problem.rstrip('.')}."]
    if mistake is not None:
        lines.append(mistake.explained())
    return Verdict(False, "\n".join(lines), header, example_text, mistake, "\n".join(lines[2:]))
