"""Code task ``"minilm_attention"`` (16_capstone): ``fn(Q, K, V) -> (output, weights)`` in every head of MiniLM.

02's ``my_attention`` (here ``my_minilm_attention``), run by the real model: ``model(text, attention=fn)`` calls it
once per head per layer (72 calls per sentence) with the head's Q, K, V, each (n, 32), and carries its outputs on
through the layers. The check runs the two "bank" sentences so, records every call, and compares each head's result
with the course's attention on the same Q, K, V, in the model's order: the first layer and head that differ are named,
with what the difference looks like and, when a wrong implementation of 02's task gives exactly the learner's result
there, its mistake.
"""

from __future__ import annotations

import numpy as np

from helpers.core.attention import scaled_dot_product_attention
from helpers.core.pretrained import AttentionFunctionError
from helpers.exercises.code_tasks import attention, engine, layer_by_layer as lbl
from helpers.exercises.code_tasks.engine import Case, CodeTask, Verdict

__all__ = ["TASK", "my_minilm_attention"]

# Columns of a head's output shown in the example (it has 32).
SHOWN_COLUMNS = 6


def my_minilm_attention(Q, K, V):
    """One head of MiniLM: Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v); here n_q = n_k = n tokens
    and d_k = d_v = 32. Returns (output (n_q, d_v), weights (n_q, n_k))."""
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)                               # (n_q, n_k)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)               # each row sums to 1
    return weights @ V, weights                                   # (n_q, d_v), (n_q, n_k)


def _cases() -> list[Case]:
    """The sentences the model runs with the learner's function in every head."""
    return [Case(lbl.repr_text(text), (text,)) for text in lbl.BANK_SENTENCES]


class _Recorder:
    """The learner's function as the model calls it, keeping each call's Q, K, V and what came back."""

    def __init__(self, fn):
        self.fn, self.calls = fn, []

    def __call__(self, Q, K, V):
        self.calls.append([Q.copy(), K.copy(), V.copy(), None])
        value = self.fn(Q, K, V)
        self.calls[-1][3] = value
        return value


def _given(Q) -> list[str]:
    return [f"Q, K, V: that head's queries, keys and values from the model, each of shape {Q.shape}"]


def _verdict(task: CodeTask, fn, model) -> Verdict:
    for case in task.cases():
        text = case.args[0]
        tokens = model.tokenize(text)
        recorder = _Recorder(fn)
        try:
            model(text, attention=recorder, time_limit=engine.TIME_LIMIT)
        except AttentionFunctionError as err:
            Q, K, V, value = recorder.calls[-1]
            where = f"{case.name}, layer {err.layer}, head {err.head}"
            learner = (("raised", lbl.raised_text(err.__cause__)) if err.__cause__ is not None
                       else lbl.outcome_of(value, 2))
            want = scaled_dot_product_attention(Q, K, V)
            rows = lbl.row_lines(f"weights, row 0 ({tokens[0]})", want[1][0], None)
            return lbl.failed(task, where, f"your function {err.problem}", learner, (Q, K, V), want,
                              lbl.WEIGHTS_TOL, _given(Q), rows)
        for index, (Q, K, V, value) in enumerate(recorder.calls):
            got = lbl.values_of(value, 2)
            want = scaled_dot_product_attention(Q, K, V)
            if all(lbl.close(g, w, lbl.WEIGHTS_TOL) for g, w in zip(got, want)):
                continue
            layer, head = divmod(index, model.n_heads)
            where = f"{case.name}, layer {layer}, head {head}"
            weights_right = lbl.close(got[1], want[1], lbl.WEIGHTS_TOL)
            if weights_right:
                at = lbl.first_difference(got[0], want[0], lbl.WEIGHTS_TOL)
                problem = "the weights are right, but " + lbl.entry_text("output", got[0], want[0], at)
            else:
                at = lbl.first_difference(got[1], want[1], lbl.WEIGHTS_TOL)
                problem = lbl.weights_symptom(got[1], want[1])
            row = at[0]
            rows = (lbl.row_lines(f"weights, row {row} ({tokens[row]})", want[1][row], got[1][row])
                    + lbl.row_lines(f"output, row {row}", want[0][row], got[0][row], SHOWN_COLUMNS))
            first = lbl.entry_text("output" if weights_right else "weights", *(
                (got[0], want[0]) if weights_right else (got[1], want[1])), at)
            return lbl.differs(task, where, problem, got, (Q, K, V), want, lbl.WEIGHTS_TOL, _given(Q), rows, first)
    return lbl.right(task.name, "attention in all 72 heads")


TASK = CodeTask(
    name="minilm_attention",
    cases=_cases,
    reference=scaled_dot_product_attention,
    solution=my_minilm_attention,
    # 02's wrong implementations but one: subtracting the largest score of the whole array instead of each row's
    # is only wrong when a row's scores lie far below it, and a head's scores in MiniLM never do.
    models=tuple((mistake.key, wrong) for mistake, wrong in attention.TASK.models if mistake.key != "global_max"),
    verdict=lbl.judged(_verdict),
)
