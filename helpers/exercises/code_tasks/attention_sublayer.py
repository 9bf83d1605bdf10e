"""Code task ``"attention_sublayer"`` (16_capstone): ``fn(X, layer) -> (X_out, weights)``, a layer of MiniLM's
attention sublayer from the learner's own pieces.

``X`` (n, 384) is what enters the layer, ``layer`` is ``model.layer(i)`` (:class:`helpers.core.pretrained.MiniLMLayer`:
``W_q, b_q, ..., W_o, b_o``, ``h`` and ``layer_norm``). The learner projects with the biases, splits the 12 heads,
attends in each, merges them, applies W^O and b^O, adds the residual and normalises. The check runs the two "bank"
sentences through the model with the learner's sublayer in every layer (the model's own feed-forward after it) and
compares each layer with the model's sublayer on the same input: the weights head by head, then ``X_out``. Wrong
implementations tell apart a wrong scale or softmax axis, heads split or merged without moving the head axis, a bias,
W^O, the residual or the LayerNorm left out, and the LayerNorm taken before the residual (GPT-2's order, not BERT's).
"""

from __future__ import annotations

import numpy as np

from helpers.core.explain import shape_text
from helpers.exercises.code_tasks import layer_by_layer as lbl
from helpers.exercises.code_tasks.engine import Case, CodeTask, Verdict
from helpers.exercises.code_tasks.learner_math import nan_softmax

__all__ = ["TASK", "my_attention_sublayer", "course_sublayer"]


# Columns of X_out shown in the example (it has 384).
SHOWN_COLUMNS = 6


def my_attention_sublayer(X, layer):
    """X (n, d_model): the tokens' vectors entering the layer.
    layer: model.layer(i), with W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o (Q is X @ W_q + b_q),
    layer.h heads and layer.layer_norm(x). Returns (X_out (n, d_model), weights (h, n, n))."""
    n, d_model = X.shape
    h = layer.h
    d_k = d_model // h
    Q = X @ layer.W_q + layer.b_q                                  # (n, d_model), every head's columns
    K = X @ layer.W_k + layer.b_k
    V = X @ layer.W_v + layer.b_v
    Qh, Kh, Vh = (M.reshape(n, h, d_k).swapaxes(0, 1) for M in (Q, K, V))   # (h, n, d_k): head i's block
    scores = Qh @ Kh.swapaxes(1, 2) / np.sqrt(d_k)                 # (h, n, n)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)                    # each head's rows sum to 1
    heads = weights @ Vh                                           # (h, n, d_k)
    merged = heads.swapaxes(0, 1).reshape(n, d_model)              # each token's heads side by side
    return layer.layer_norm(X + merged @ layer.W_o + layer.b_o), weights


def course_sublayer(X, layer):
    """The model's own attention sublayer, as a function of (X, layer): what the check compares with."""
    return layer.attention_sublayer(X)


def _cases() -> list[Case]:
    """The sentences the model runs with the learner's sublayer in every layer."""
    return [Case(lbl.repr_text(text), (text,)) for text in lbl.BANK_SENTENCES]


# --------------------------------------------------------------------------- the wrong implementations

def _variant(X, layer, *, scale=None, axis=-1, split="blocks", merge="swap", biases="qkvo", w_o=True,
             order="residual, norm", transposed_k=True, swapped_qk=False, weights_t=False):
    """The attention sublayer with one step changed: each wrong implementation is one keyword away from right."""
    n, d = X.shape
    h, d_k = layer.h, d // layer.h

    def bias(name):
        return getattr(layer, f"b_{name}") if name in biases else 0.0

    W_q, W_k = (layer.W_k, layer.W_q) if swapped_qk else (layer.W_q, layer.W_k)
    b_q, b_k = (bias("k"), bias("q")) if swapped_qk else (bias("q"), bias("k"))
    Q, K, V = X @ W_q + b_q, X @ W_k + b_k, X @ layer.W_v + bias("v")
    cut = {"blocks": lambda M: M.reshape(n, h, d_k).swapaxes(0, 1),
           "reshape": lambda M: M.reshape(h, n, d_k),
           "interleaved": lambda M: M.reshape(n, d_k, h).transpose(2, 0, 1)}[split]
    Qh, Kh, Vh = cut(Q), cut(K), cut(V)
    scores = Qh @ (Kh.swapaxes(1, 2) if transposed_k else Kh) / (np.sqrt(d_k) if scale is None else scale)
    weights = nan_softmax(scores, axis=axis)
    heads = weights @ Vh
    merged = {"swap": lambda H: H.swapaxes(0, 1).reshape(n, d),
              "reshape": lambda H: H.reshape(n, d),
              "interleaved": lambda H: H.transpose(1, 2, 0).reshape(n, d)}[merge](heads)
    attended = (merged @ layer.W_o if w_o else merged) + bias("o")
    out = {"residual, norm": lambda: layer.layer_norm(X + attended),
           "norm, residual": lambda: X + layer.layer_norm(attended),
           "no residual": lambda: layer.layer_norm(attended),
           "no norm": lambda: X + attended}[order]()
    return out, (weights.swapaxes(1, 2) if weights_t else weights)


def _model(**change):
    return lambda X, layer: _variant(X, layer, **change)


MODELS = (
    ("scale_dmodel", lambda X, layer: _variant(X, layer, scale=np.sqrt(X.shape[1]))),
    ("no_scale", _model(scale=1.0)),
    ("scale_dk", lambda X, layer: _variant(X, layer, scale=X.shape[1] / layer.h)),
    ("softmax_over_queries", _model(axis=-2)),
    ("weights_transposed", _model(weights_t=True)),
    ("k_not_transposed", _model(transposed_k=False)),
    ("wq_wk_swapped", _model(swapped_qk=True)),
    ("split_no_transpose", _model(split="reshape")),
    ("split_interleaved", _model(split="interleaved")),
    ("merge_no_transpose", _model(merge="reshape")),
    ("merge_interleaved", _model(merge="interleaved")),
    ("no_wo", _model(w_o=False)),
    ("no_wo", _model(w_o=False, biases="qkv")),
    ("bias_missing", _model(biases="kvo")),
    ("bias_missing", _model(biases="qko")),
    ("bias_missing", _model(biases="qkv")),
    ("bias_missing", _model(biases="o")),
    ("bias_missing", _model(biases="")),
    ("no_residual", _model(order="no residual")),
    ("no_layer_norm", _model(order="no norm")),
    ("norm_before_residual", _model(order="norm, residual")),
)


# --------------------------------------------------------------------------- the check

def _given(layer: int, X) -> list[str]:
    return [f"X: the tokens' vectors entering layer {layer}, shape {X.shape}; layer = model.layer({layer})"]


def _verdict(task: CodeTask, fn, model) -> Verdict:
    for case in task.cases():
        tokens = model.tokenize(case.args[0])
        X = model.embed(case.args[0])
        for layer in model.layers:
            want = layer.attention_sublayer(X)
            where, given = f"{case.name}, layer {layer.index}", _given(layer.index, X)
            argument = X.copy()
            got, problem, learner = lbl.call_for_results(task, fn, (argument, layer))
            if not problem and any(g.shape != w.shape for g, w in zip(got, want)):
                problem = "; ".join(f"{name} has shape {shape_text(g.shape)}; expected {shape_text(w.shape)} ({words})"
                                    for (name, words), g, w in zip(task.outputs, got, want) if g.shape != w.shape)
                learner = ("value", got)
            if problem:
                rows = lbl.row_lines(f"X_out, row 0 ({tokens[0]})", want[0][0], None, SHOWN_COLUMNS)
                return lbl.failed(task, where, problem, learner, (X, layer), want, lbl.STATES_TOL, given, rows)
            wrong = _difference(task, got, want, where, tokens, given, (X, layer))
            if wrong is not None:
                return wrong
            if not np.array_equal(argument, X):
                return lbl.changed_argument(task.name, where, "X", given)
            X = layer.feed_forward(got[0])          # the learner's sublayer carries the sentence on
    return lbl.right(task.name, "attention sublayer in all 6 layers")


def _difference(task, got, want, where, tokens, given, args) -> Verdict | None:
    """The verdict on one layer whose results have the right shapes: None when they are the model's."""
    (x_out, weights), (x_want, w_want) = got, want
    if not lbl.close(weights, w_want, lbl.WEIGHTS_TOL):
        head = next(i for i in range(len(w_want)) if not lbl.close(weights[i], w_want[i], lbl.WEIGHTS_TOL))
        at = lbl.first_difference(weights[head], w_want[head], lbl.WEIGHTS_TOL)
        where = f"{where}, head {head}"
        problem = lbl.weights_symptom(weights[head], w_want[head])
        rows = lbl.row_lines(f"weights of head {head}, row {at[0]} ({tokens[at[0]]})", w_want[head][at[0]],
                             weights[head][at[0]])
        first = lbl.entry_text("weights", weights, w_want, (head, *at))
    elif not lbl.close(x_out, x_want, lbl.STATES_TOL):
        at = lbl.first_difference(x_out, x_want, lbl.STATES_TOL)
        problem = (f"the weights are right in all {len(w_want)} heads, but "
                   + lbl.entry_text("X_out", x_out, x_want, at))
        rows = lbl.row_lines(f"X_out, row {at[0]} ({tokens[at[0]]})", x_want[at[0]], x_out[at[0]], SHOWN_COLUMNS)
        first = lbl.entry_text("X_out", x_out, x_want, at)
    else:
        return None
    return lbl.differs(task, where, problem, got, args, want, lbl.STATES_TOL, given, rows, first)


TASK = CodeTask(
    name="attention_sublayer",
    cases=_cases,
    reference=course_sublayer,
    solution=my_attention_sublayer,
    models=MODELS,
    verdict=lbl.judged(_verdict),
)
