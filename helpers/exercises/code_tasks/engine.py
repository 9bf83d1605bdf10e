"""The engine that checks a learner's function: run it with a time limit, compare, diagnose.

A :class:`CodeTask` is data: the shapes of its results, its cases (:class:`Case`), its reference, its
reference solution (real Python, shown to the learner with :func:`inspect.getsource`) and the wrong
implementations it tells apart, each paired with the :class:`Mistake` it stands for. :func:`check_function`
runs the learner's function on every case (in a copy of the arguments, stopped after :data:`TIME_LIMIT`),
compares each result with the reference's and, when something is wrong, looks for the one wrong
implementation that explains every result: its mistake's name, advice and place in the course go into the
:class:`~helpers.exercises.feedback.Feedback`. Whatever the function does (raises, returns None or a text, loops
forever, changes its input), the learner gets a Feedback, never a traceback.
"""

from __future__ import annotations

import ast
import dis
import inspect
import textwrap
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property

import numpy as np

from helpers.core.explain import fmt, shape_text
from helpers.core.learner_calls import (
    TIME_LIMIT,
    TimeUp as _TimeUp,
    call_limited as _call_limited,
    describe as _describe,
)
from helpers.exercises.code_tasks.failing_example import example_text
from helpers.exercises.code_tasks.text import mistake_text, task_text
from helpers.exercises.feedback import NOT_WRITTEN, Feedback

__all__ = ["TIME_LIMIT", "Mistake", "NOT_WRITTEN_YET", "MUTATES_INPUT", "Case", "CodeTask", "Verdict", "is_unfilled",
           "judge", "check_function", "results_of", "mistake"]


@dataclass(frozen=True)
class Mistake:
    """A classic mistake: its key (``Feedback.mistake``), what it is, what to change, where the course explains it.

    ``where`` is ``'02_projections, "Step 3: softmax, row by row"'`` (notebook, then a heading of it; several
    places separated by ``"; "``), or '' for a mistake no section is about.
    """

    key: str
    title: str
    advice: str
    where: str

    def explained(self, asked_in: str = "") -> str:
        """What a check says about this mistake: its name, what to change and where the course explains it.

        ``asked_in`` is the notebook the check runs in (``"01_intuition"``). A place in a later notebook is one the
        learner has not read yet, so it is said to come later instead of being offered as the explanation; the
        advice before it is what the task needs now.
        """
        text = f"This looks like: {self.title}.\n{self.advice}"
        places = [place for place in self.where.split("; ") if place]
        later = [place for place in places if asked_in and place[:2] > asked_in[:2]]
        read = [place for place in places if place not in later]
        if read:
            text += f"\nWhere the course explains it: {'; '.join(read)}."
        if later:
            text += f"\n{'More on it' if read else 'The course explains it'} later, in {'; '.join(later)}."
        return text


@cache
def mistake(key: str) -> Mistake:
    """The mistake ``key``, made once from the words its task's TOML file gives it (:mod:`.text`): every task that
    names it holds the same object."""
    return Mistake(key, **mistake_text(key))


# The two mistakes of any task: the skeleton as given, and right results bought by writing into an argument.
NOT_WRITTEN_YET = mistake(NOT_WRITTEN)
MUTATES_INPUT = mistake("mutates_input")


@dataclass(frozen=True)
class Case:
    """One input the learner's function is run on. ``large``: a probe with huge scores (overflow)."""

    name: str
    args: tuple
    large: bool = False


@dataclass(frozen=True)
class CodeTask:
    """One "Your turn" task: how its answer looks, its examples, its reference and the wrong versions it recognises.

    The module of a task gives its code (the arguments below); its words come from ``<name>.toml`` beside it
    (:mod:`.text`): ``outputs``, ``idea``, ``order`` and ``your_turn``, and the mistakes its models name by key.

    Attributes
    ----------
    name : str
        What ``check_code`` is called with (``"softmax"``).
    outputs : tuple of (name, shape in words)
        One entry per returned array; one entry means a bare array is returned.
    cases : callable() -> list of Case
        The examples and probes, made fresh for every check (a learner's function may write into them).
    reference : callable
        The right result for a case's arguments (the course's library function wherever one exists).
    solution : function
        The reference solution as a learner would write it: signature, the skeleton's docstring, the body.
    models : tuple of (Mistake, callable)
        Wrong implementations, in the order they are tried; each stands for its mistake. Given as (mistake key,
        callable) pairs: ``("wrong_axis", lambda x: ...)``.
    overflow_mistake : Mistake or None
        The mistake named when a function is right on every case but the large-score probes (the max
        subtraction left out); None for a task without such probes. Given as its key.
    your_turn : bool
        True for a task a "Your turn" cell asks the learner to write (its skeleton is shown); False for a task
        only checked otherwise, e.g. as the function of a "Find the bug" cell.
    idea : str
        The first step of the task's hint ladder: what the function must do, in words (no line of the solution).
    requirement : callable or None
        A condition results equal to the reference's (to rounding) must meet as well, ``requirement(args, results)``
        -> '' or what is wrong, in the words of a check ("weights entry (0, 3) is 3.7e-44, not exactly 0: ..."); None
        for a task whose results only have to equal the reference's.
    verdict : callable(task, fn) -> Verdict, or None
        For a task checked its own way instead of case by case (the real model, layer by layer:
        :mod:`~helpers.exercises.code_tasks.layer_by_layer`): it gets a function already known to be callable and
        written, and its models are the wrong implementations it names. None: the cases, reference and models above.
    order : int
        Where the task comes among :data:`~helpers.exercises.code_tasks.TASKS` (the course's order): lower first.
    """

    name: str
    cases: Callable[[], list]
    reference: Callable
    solution: Callable
    models: tuple = ()
    overflow_mistake: Mistake | None = None
    requirement: Callable | None = None
    verdict: Callable | None = None
    outputs: tuple = field(init=False)
    your_turn: bool = field(init=False)
    idea: str = field(init=False)
    order: int = field(init=False)

    def __post_init__(self):
        # The words from the task's TOML file; the mistakes' keys made into the mistakes they name.
        for name, value in task_text(self.name).items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "models", tuple((mistake(key), model) for key, model in self.models))
        if self.overflow_mistake is not None:
            object.__setattr__(self, "overflow_mistake", mistake(self.overflow_mistake))

    @cached_property
    def solution_source(self) -> str:
        """The reference solution's source, as the learner is shown it (read once: every hint ladder and solution fold
        of a kernel shows it again when the instructor switch turns)."""
        return inspect.getsource(self.solution)

    @property
    def skeleton(self) -> str:
        """What a "Your turn" cell starts from: the solution's signature and docstring, and ``...`` as its body."""
        source = self.solution_source
        docstring = ast.parse(source).body[0].body[0]
        return "\n".join(source.splitlines()[:docstring.end_lineno]) + "\n    ...\n"

    @property
    def mistakes(self) -> tuple[Mistake, ...]:
        """Every mistake this task can name, each once, in the order they are tried."""
        named = [m for m, _ in self.models] + [m for m in (self.overflow_mistake,) if m is not None]
        return tuple(dict.fromkeys(named))


# --------------------------------------------------------------------------- running the learner's function


@dataclass
class _Run:
    """What one call did: its results (a tuple of arrays) or why there are none."""

    case: Case
    value: object = None
    error: BaseException | None = None
    timed_out: bool = False
    overflow: bool = False
    changed: str = ""   # the name of an argument the function wrote into


def _copy(a):
    return a.copy() if isinstance(a, np.ndarray) else a


def _run(fn, case: Case, arg_names) -> _Run:
    run = _Run(case)
    args = tuple(_copy(a) for a in case.args)
    try:
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
            warnings.simplefilter("always")
            run.value = _call_limited(fn, args, TIME_LIMIT)
        run.overflow = any("overflow" in str(w.message) or "invalid value" in str(w.message) for w in caught)
    except _TimeUp:
        run.timed_out = True
    except Exception as err:  # noqa: BLE001 - the learner's code may raise anything: it becomes Feedback
        run.error = err
    for name, before, after in zip(arg_names, case.args, args):
        if isinstance(before, np.ndarray) and not np.array_equal(before, after, equal_nan=True):
            run.changed = name
            break
    return run


def _arg_names(fn, n: int) -> list[str]:
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    return (names + [f"argument {k + 1}" for k in range(len(names), n)])[:n]


def is_unfilled(fn) -> bool:
    """True if ``fn``'s body is only a docstring and ``...`` (or ``pass``): the skeleton as given."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        node = tree.body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        node = None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == getattr(fn, "__name__", None):
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                               and s.value.value is Ellipsis) for s in body)
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    # No source (made by exec): the skeleton compiles to "return None" and nothing else.
    ops = [(i.opname, i.argval) for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP")]
    return ops in ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)])


# --------------------------------------------------------------------------- reading and comparing results


def results_of(value, task: CodeTask):
    """The returned value as a tuple of arrays, one per output, or a text saying why it cannot be read."""
    k = len(task.outputs)
    names = " and ".join(n for n, _ in task.outputs)
    if k > 1:
        if isinstance(value, np.ndarray):
            return (f"returned one array of shape {shape_text(value.shape)}; expected {k} results ({names}): "
                    f"return {names.replace(' and ', ', ')}")
        if not isinstance(value, (tuple, list)) or len(value) != k:
            return f"returned {_describe(value)}; expected {k} results ({names})"
        parts = value
    else:
        parts = (value,)
    arrays = []
    for (name, _), part in zip(task.outputs, parts):
        if part is None:
            return f"returned None for {name}"
        if isinstance(part, str):
            return f"returned the text {part[:30]!r} for {name}; expected an array"
        try:
            arr = np.asarray(part)
        except Exception:  # noqa: BLE001 - ragged lists and odd objects
            return f"returned {_describe(part)} for {name}; expected an array"
        if arr.dtype.kind not in "biuf":
            return f"returned {_describe(part)} for {name}; expected an array of numbers"
        arrays.append(arr)
    return tuple(arrays)


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    if got.shape != want.shape:
        return False
    if want.dtype == bool or got.dtype == bool:
        return got.dtype == want.dtype and bool(np.array_equal(got, want))
    tol = 1e-4 if got.dtype.itemsize < 8 else 1e-7
    with np.errstate(all="ignore"):
        return bool(np.allclose(got.astype(float), want, rtol=tol, atol=tol, equal_nan=True))


def _all_same(got: tuple, want: tuple) -> bool:
    return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))


def _outputs(value, k: int) -> tuple:
    return tuple(np.asarray(v) for v in (value if k > 1 else (value,)))


def _model_value(model, case: Case, k: int):
    """A wrong implementation's result on ``case``, or None where it cannot run (e.g. Q @ K with d_k ≠ n_k)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _outputs(model(*(_copy(a) for a in case.args)), k)
    except Exception:  # noqa: BLE001 - a wrong implementation may fail on shapes, exactly as the learner's did
        return None


def _diagnose(task: CodeTask, runs: list[_Run], got: dict) -> Mistake | None:
    """The mistake of the first wrong implementation that explains every run, or None.

    It explains a run if both ran and agree, or both failed; it must differ from the reference somewhere.
    """
    k = len(task.outputs)
    for mistake, model in task.models:
        explains, differs, agreed = True, False, 0
        for run in runs:
            if run.timed_out:
                explains = False
                break
            value = _model_value(model, run.case, k)
            if run.case.large and run.case.name in got and not all(
                    np.isfinite(g.astype(float)).all() for g in got[run.case.name]) \
                    and (value is None or not _all_same(got[run.case.name], value)):
                continue  # an overflow of its own (no max subtraction) may come with this mistake: judge the others
            if run.error is not None or run.case.name not in got:
                if value is not None:
                    explains = False
                    break
                differs = True
                continue
            if value is None or not _all_same(got[run.case.name], value):
                explains = False
                break
            agreed += 1
            if not _all_same(value, _outputs(task.reference(*run.case.args), k)):
                differs = True
        if explains and differs and agreed:
            return mistake
    return None


def _first_difference(got: np.ndarray, want: np.ndarray) -> str:
    if want.dtype == bool and got.dtype != bool:
        return f"holds numbers ({got.dtype}); expected True/False (dtype bool)"
    with np.errstate(all="ignore"):
        bad = ~np.isclose(got.astype(float), want.astype(float), rtol=1e-6, atol=1e-6, equal_nan=True)
    where = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.any() else ()
    if not where and got.ndim:
        return "differs"
    g, w = (got[where], want[where]) if got.ndim else (got, want)
    if want.dtype == bool:
        return f"entry {where} is {bool(g)}; expected {bool(w)}"
    place = f"entry {where}" if got.ndim else "it"
    return f"{place} is {fmt(g)}; expected {fmt(w)}"


def _problem(task: CodeTask, run: _Run, got: dict) -> str:
    """What is wrong with one run, without the example's name ('' if nothing); records its readable results in
    ``got``."""
    case, k = run.case, len(task.outputs)
    if run.timed_out:
        return f"your function did not finish within {TIME_LIMIT:g} s (a loop that never ends?)."
    if run.error is not None:
        text = str(run.error).strip()
        return f"your function raised {type(run.error).__name__}" + (f": {text}" if text else "") + "."
    if run.value is None:
        return "your function returned None. Did you forget `return`?"
    arrays = results_of(run.value, task)
    if isinstance(arrays, str):
        return f"your function {arrays}."
    got[case.name] = arrays
    want = _outputs(task.reference(*case.args), k)
    # Shapes first: a result of the wrong shape cannot be compared entry by entry.
    shapes = [(name, words, g.shape, w.shape) for (name, words), g, w in zip(task.outputs, arrays, want)
              if g.shape != w.shape]
    if shapes:
        return "; ".join(f"{name} has shape {shape_text(gs)}; expected {shape_text(ws)} ({words})"
                         for name, words, gs, ws in shapes) + "."
    if _all_same(arrays, want):
        return task.requirement(case.args, arrays) if task.requirement is not None else ""
    if case.large and (run.overflow or any(not np.isfinite(g.astype(float)).all() for g in arrays)):
        return "your result has inf or nan (exp overflowed, or every exp underflowed to 0 and 0/0 gave nan)."
    parts = [f"{name} {_first_difference(g, w)}" for (name, _), g, w in zip(task.outputs, arrays, want)
             if not _same(g, w)]
    return "; ".join(parts) + "."


@dataclass(frozen=True)
class Verdict:
    """What a check found, in parts: a Find the bug check shows them in two stages.

    Attributes
    ----------
    correct : bool
    message : str
        The whole verdict as :func:`check_function` gives it.
    header : str
        Its first line (``"attention: not right yet."``).
    example : str
        The example the function failed on (:func:`~.failing_example.example_text`); '' when right, or when the
        function could not be run at all.
    mistake : Mistake or None
        The mistake recognised.
    diagnosis : str
        The message's lines about the mistake (``"This looks like: ..."``, its advice, where the course explains
        it); '' when none was recognised.
    """

    correct: bool
    message: str
    header: str = ""
    example: str = ""
    mistake: Mistake | None = None
    diagnosis: str = ""

    def feedback(self, message: str | None = None, named: bool = True) -> Feedback:
        """This verdict as a :class:`~helpers.exercises.feedback.Feedback`: with ``message`` instead of its own if
        given, and without the mistake's key unless ``named``."""
        key = self.mistake.key if self.mistake is not None and named else ""
        return Feedback(self.correct, self.message if message is None else message, key, self.example)


def _example(task: CodeTask, run: _Run, got: dict, detail: str) -> str:
    """The failing example of ``run``: its arguments (named as in the skeleton), the results expected beside the
    learner's, and what went wrong."""
    case, k = run.case, len(task.outputs)
    names = _arg_names(task.solution, len(case.args))
    want = _outputs(task.reference(*case.args), k)
    mine = got.get(case.name)
    if mine is None:
        last = f"What happened: {detail}"
    elif _all_same(mine, want):
        last = detail
    else:
        last = f"First difference: {detail}"
    return example_text(case.name, names, case.args, task.outputs, want, mine, last)


def judge(task: CodeTask, fn, asked_in: str = "") -> Verdict:
    """Check ``fn`` for ``task``: the verdict in parts. Never raises, whatever ``fn`` is or does.

    ``asked_in``: the notebook the check runs in, so that a mistake's places in later notebooks are said to come
    later (:meth:`Mistake.explained`); '' names every place as the explanation.
    """
    if not callable(fn):
        return Verdict(False, f"{task.name}: check_code needs your function itself, e.g. "
                              f"check_code({task.name!r}, my_{task.name}); got {_describe(fn)}, which cannot be "
                              "called.")
    if is_unfilled(fn):
        return Verdict(False, f"{task.name}: not written yet: {NOT_WRITTEN_YET.advice}", mistake=NOT_WRITTEN_YET)
    try:
        if task.verdict is not None:
            return task.verdict(task, fn)
        return _verdict(task, fn, asked_in)
    except Exception as err:  # noqa: BLE001 - whatever the function returned, the learner gets a verdict
        return Verdict(False, f"{task.name}: your function's result could not be checked "
                              f"({type(err).__name__}: {err}).")


def _verdict(task: CodeTask, fn, asked_in: str) -> Verdict:
    cases = task.cases()
    names = _arg_names(fn, len(cases[0].args))
    runs, got = [], {}
    problem, failed = "", None
    passed = set()  # the cases the function is right on
    for case in cases:
        run = _run(fn, case, names)
        runs.append(run)
        found = _problem(task, run, got)
        if found and not problem:
            problem, failed = f"On {case.name}: {found}", (run, found)
        elif not found:
            passed.add(case.name)
        if run.timed_out:
            break  # one endless loop is enough to report; the others would only make the learner wait
    mistake = _diagnose(task, runs, got) if problem else None
    if problem and mistake is None and task.overflow_mistake is not None and all(
            r.case.name in got and (r.case.large or r.case.name in passed) for r in runs):
        mistake = task.overflow_mistake  # right everywhere except on the large scores
    changed = next((r for r in runs if r.changed), None)
    if not problem and changed is None:
        return Verdict(True, f"{task.name}: correct on all {len(cases)} examples.\n"
                             f"Checked on: {'; '.join(c.name for c in cases)}.")
    header = f"{task.name}: not right yet."
    if not problem:
        problem = (f"Your results are right, but on {changed.case.name} your function changed its argument "
                   f"`{changed.changed}`.")
        failed = (changed, f"Your results are right, but your function changed its argument `{changed.changed}`.")
        mistake = MUTATES_INPUT
    lines = [header, problem]
    if mistake is not None:
        lines.append(mistake.explained(asked_in))
    elif changed is not None:
        lines.append(f"Also, on {changed.case.name} your function changed its argument `{changed.changed}`: "
                     "compute a new array instead of writing into it.")
    return Verdict(False, "\n".join(lines), header, _example(task, failed[0], got, failed[1]), mistake,
                   "\n".join(lines[2:]))


def check_function(task: CodeTask, fn) -> Feedback:
    """Check a learner's function ``fn`` for ``task``; never raises, whatever ``fn`` is or does.

    Returns
    -------
    Feedback
        ``.correct``; ``.message`` (what was wrong, on which example, and where the course explains it);
        ``.mistake``, the key of the mistake recognised ('' if none; ``"not_written"`` for the skeleton);
        ``.example``, the example it failed on (its input, the results expected and the function's own; '' if none).
    """
    return judge(task, fn).feedback()
