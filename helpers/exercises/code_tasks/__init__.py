"""Checking code a learner writes in a "Your turn" cell: the tasks, and :func:`check_task`, their verdict.

In a "Your turn" cell the learner fills in a function and checks it (:func:`helpers.exercises.check_code`, which
takes this package's verdict and records it)::

    def my_softmax(x):
        \"\"\"Softmax along the last axis. ...\"\"\"
        ...

    check_code("softmax", my_softmax)

:func:`check_task` runs the function on the course's own small examples and on probes built so that the
classic mistakes give results of their own (a softmax along the wrong axis, no max subtraction, no 1/√d_k,
the mask applied after the softmax, ...), and returns a :class:`~helpers.exercises.feedback.Feedback`: correct, or what
went wrong on which example and, when the wrong results are exactly those of a known mistake, the
mistake's name, what to change and where the course explains it. A function whose body is still only a
docstring and ``...`` gets the friendly "not written yet" verdict. The engine is
:mod:`helpers.exercises.code_tasks.engine`.

Each task is one module holding its cases, its reference solution as real code (its skeleton is that solution's
signature and docstring) and its wrong implementations, each under the key of the mistake it stands for; its words
(its idea, outputs and place, and the mistakes it names first, with their advice) are the TOML file beside it
(:mod:`.text`):

* ``"softmax"``: ``fn(x)``: softmax along the last axis, any shape
* ``"project_qkv"``: ``fn(X, W_q, W_k, W_v) -> (Q, K, V)``
* ``"attention"``: ``fn(Q, K, V) -> (output, weights)``, scaled by 1/√d_k; n_q may differ from n_k
* ``"causal_mask"``: ``fn(n)`` -> bool (n, n), True where the query may attend (not a "Your turn": 04's asks for
  ``"padding_causal_mask"``, which holds it)
* ``"masked_attention"``: ``fn(Q, K, V, mask) -> (output, weights)``; mask bool, True = may attend
* ``"padding_causal_mask"``: ``fn(lengths, n)`` -> bool (b, n, n), ``mask[b, i, j]`` True iff ``j <= i`` and
  ``j < lengths[b]``
* ``"kv_cache_decode"``: ``fn(X, W_q, W_k, W_v)`` -> (n, d_v): the tokens one at a time, each one's key and value
  appended to a cache; equal to causal self-attention of X
* ``"cross_attention_padded"``: ``fn(X_dec, X_enc, W_q, W_k, W_v, enc_length) -> (output, weights)``; the source's
  keys from ``enc_length`` on get weight exactly 0
* ``"multi_head_attention"``: ``fn(X, W_q, W_k, W_v, W_o, h)`` -> output (n, d_model); head i uses
  columns ``i*d_k:(i+1)*d_k`` of Q, K, V
* ``"sliding_window_mask"``: ``fn(n, window)`` -> bool (n, n), True iff ``j <= i`` and ``i - j < window``
* ``"online_softmax"``: ``fn(m, l, o, scores_block, V_block) -> (m_new, l_new, o_new)``, one
  step of FlashAttention's running softmax
* ``"softmax_backward"``: ``fn(weights, grad_weights)`` -> grad_scores (the gradient through softmax)
* ``"self_attention"``: ``fn(X, W_q, W_k, W_v) -> (output, weights)``, the whole pipeline from the token vectors
  (not a "Your turn": the "Find the bug" cells are checked as this task, see :mod:`helpers.exercises.bugs`)
* ``"split_heads"``: ``fn(X, h)`` -> (..., h, n, d_model // h), head k holding columns ``k*d_k:(k+1)*d_k``, no loop
* ``"merge_heads"``: ``fn(Xh)`` -> (..., n, h * d_k), the heads side by side in head order (the inverse of
  ``"split_heads"``)
* ``"padded_attention"``: ``fn(Q, K, V, lengths) -> (output, weights)`` over a padded batch (batch, n, d), no query
  giving a pad key any weight (not a "Your turn": 04's "Find the bug" cell is checked as this task)
* ``"minilm_attention"``: ``fn(Q, K, V) -> (output, weights)``, 02's attention, run by the real model (MiniLM) in
  every head of every layer
* ``"attention_sublayer"``: ``fn(X, layer) -> (X_out, weights (h, n, n))``, a MiniLM layer's attention sublayer from
  its weights (``model.layer(i)``): projections with biases, heads, W^O, the residual and the LayerNorm
* ``"encoder"``: ``fn(X, layers, sublayer)`` -> the states (layers + 1, n, d_model), MiniLM's stack of layers

The last three are checked against the real model, layer by layer (:mod:`.layer_by_layer`): the first layer and head
where the learner's run differs from the model's own are named.

:data:`YOUR_TURN_TASKS` names the tasks that "Your turn" cells ask for. Checking here records nothing:
:func:`helpers.exercises.check_code` records every judged check of one of them in the learner's progress
(:mod:`helpers.exercises.progress`, kind ``"your-turn"``).
"""

from __future__ import annotations

from helpers.exercises.code_tasks.engine import (
    MUTATES_INPUT,
    NOT_WRITTEN_YET,
    TIME_LIMIT,
    CodeTask,
    Mistake,
    Verdict,
    judge,
)
from helpers.exercises.feedback import NOT_WRITTEN, Feedback
from helpers.exercises.per_notebook import discover

__all__ = ["TASKS", "YOUR_TURN_TASKS", "YOUR_TURN_CELLS", "MISTAKES", "SOLUTIONS", "SKELETONS", "NOT_WRITTEN",
           "TIME_LIMIT", "Mistake", "CodeTask", "Verdict", "asked_in", "check_task", "judge_task",
           "solution_source"]

# Every module of this package that defines TASK is a task, in the course's order (its ``order``): a new task is one
# new module and its TOML file.
TASKS: dict[str, CodeTask] = {task.name: task for task in sorted(discover(__name__, "TASK"),
                                                                  key=lambda task: (task.order, task.name))}
# The tasks a "Your turn" cell asks for, in course order (tests/test_code_check.py ties them to the notebooks' cells).
YOUR_TURN_TASKS: tuple[str, ...] = tuple(name for name, task in TASKS.items() if task.your_turn)
# Which notebook's "Your turn" cells ask for which tasks, in the order of the cells (tests/test_code_check.py reads the
# notebooks and checks this table). Each task is asked once.
YOUR_TURN_CELLS: dict[str, tuple[str, ...]] = {
    "01_intuition": ("softmax",),
    "02_projections": ("project_qkv", "attention"),
    "04_masking": ("masked_attention", "padding_causal_mask"),
    "05_decoding": ("kv_cache_decode",),
    "06_cross_attention": ("cross_attention_padded",),
    "10_multi_head": ("multi_head_attention", "split_heads", "merge_heads"),
    "14_efficiency": ("sliding_window_mask", "online_softmax"),
    "15_learning": ("softmax_backward",),
    "16_capstone": ("minilm_attention", "attention_sublayer", "encoder"),
}


def _mistake_table() -> dict[str, Mistake]:
    """Every mistake a check can name, by key: the skeleton, each task's in order, a changed argument."""
    table: dict[str, Mistake] = {}
    for mistake in (NOT_WRITTEN_YET, *(m for task in TASKS.values() for m in task.mistakes), MUTATES_INPUT):
        if table.setdefault(mistake.key, mistake) != mistake:
            raise ValueError(f"two different mistakes share the key {mistake.key!r}")
    return table


MISTAKES: dict[str, Mistake] = _mistake_table()
# The reference solutions (functions; the learner is shown their source) and the skeletons (source text).
SOLUTIONS = {name: task.solution for name, task in TASKS.items()}
SKELETONS = {name: task.skeleton for name, task in TASKS.items()}


def _task(task) -> CodeTask:
    """The task named ``task``; ValueError naming the known ones otherwise."""
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}; got {task!r}")
    return TASKS[task]


def solution_source(task: str) -> str:
    """The source of ``task``'s reference solution, as the learner is shown it.

    Raises
    ------
    ValueError
        If ``task`` is not a known task.
    """
    return _task(task).solution_source


def asked_in(task: str) -> str:
    """The notebook whose "Your turn" cell first asks for ``task`` (``"01_intuition"``); '' for a task no "Your turn"
    asks for. A check of the task names a mistake's places in later notebooks as still to come."""
    return next((notebook for notebook, tasks in YOUR_TURN_CELLS.items() if task in tasks), "")


def judge_task(task: str, fn, notebook: str | None = None) -> Verdict:
    """:func:`check_task`'s verdict in parts (the header, the failing example, the mistake and what is said about
    it), recording nothing: for checkers built on a code task that word their message their own way, such as
    :func:`helpers.exercises.bugs.check_fix`.

    ``notebook`` is the notebook the check runs in (default: :func:`asked_in`); a mistake's places in later
    notebooks are said to come later.

    Raises
    ------
    ValueError
        If ``task`` is not a known task.
    """
    return judge(_task(task), fn, asked_in(task) if notebook is None else notebook)


def check_task(task: str, fn) -> Feedback:
    """Check a learner's function for ``task`` on the course's examples and on probes for classic mistakes: the
    verdict alone, recording and noting nothing (a Your turn cell's :func:`helpers.exercises.check_code` records it).

    Parameters
    ----------
    task : str
        One of :data:`TASKS` (``"softmax"``, ``"project_qkv"``, ``"attention"``, ``"masked_attention"``,
        ``"padding_causal_mask"``, ``"kv_cache_decode"``, ``"cross_attention_padded"``, ...: see the module
        docstring).
    fn : callable
        The learner's function, with the task's signature (see the module docstring).

    Returns
    -------
    Feedback
        ``.correct``; ``.message`` (what was wrong, on which example, and where the course explains it);
        ``.mistake``, the key in :data:`MISTAKES` of the mistake recognised ('' if none); ``.example``, the example
        the function failed on (its input, the results expected and its own). Never raises for a broken ``fn``.

    Raises
    ------
    ValueError
        If ``task`` is not a known task.
    """
    return judge_task(task, fn).feedback()
