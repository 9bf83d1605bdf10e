"""Code task ``"encoder"`` (16_capstone): ``fn(X, layers, sublayer)`` -> the states (layers + 1, n, d_model).

The stack of MiniLM's layers: from the embeddings ``X`` (``model.embed(text)``), each layer runs an attention
sublayer, ``sublayer(X, layer) -> (X_out, weights)``, then its own feed-forward step, ``layer.feed_forward``; the
states are the embeddings, then every layer's output (``hidden_states`` of the model's run). The check hands the
learner's function the model's layers and the course's own sublayer, on the two "bank" sentences, and compares the
states layer by layer with the model's run: the first state that differs is named, and so are the feed-forward step
left out or taken first, every layer fed the embeddings, the layers reversed, the states without the embeddings and the
sublayer's two results not unpacked.
"""

from __future__ import annotations

import numpy as np

from helpers.core.explain import shape_text
from helpers.exercises.code_tasks import layer_by_layer as lbl
from helpers.exercises.code_tasks.attention_sublayer import course_sublayer
from helpers.exercises.code_tasks.engine import Case, CodeTask, Verdict

__all__ = ["TASK", "my_encoder"]


# Columns of a state shown in the example (it has 384).
SHOWN_COLUMNS = 6


def my_encoder(X, layers, sublayer):
    """X (n, d_model): the embeddings, model.embed(text). layers: the model's layers in order,
    each with layer.feed_forward(x). sublayer(X, layer) -> (X_out, weights), such as yours.
    Returns the states (len(layers) + 1, n, d_model): X, then the output of each layer."""
    states = [X]
    for layer in layers:
        X, _weights = sublayer(X, layer)        # each token reads the others
        X = layer.feed_forward(X)               # then each token alone
        states.append(X)
    return np.stack(states)


def course_encoder(X, layers, sublayer):
    """The right states, computed as the model computes them (what the check compares with)."""
    states = [np.asarray(X)]
    for layer in layers:
        states.append(layer.feed_forward(sublayer(states[-1], layer)[0]))
    return np.stack(states)


def _cases() -> list[Case]:
    """The sentences whose embeddings the learner's stack of layers runs."""
    return [Case(lbl.repr_text(text), (text,)) for text in lbl.BANK_SENTENCES]


# --------------------------------------------------------------------------- the wrong implementations

def _stack(X, layers, sublayer, *, feed_forward="after", carry=True, order=1, first=True, last_only=False,
           unpack=True):
    """The stack of layers with one step changed: each wrong implementation is one keyword away from right."""
    states, current = [X], X
    for layer in list(layers)[::order]:
        start = current if carry else X
        if feed_forward == "before":
            start = layer.feed_forward(start)
        out = sublayer(start, layer)
        out = out[0] if unpack else out
        if feed_forward == "after":
            out = layer.feed_forward(out)
        current = out
        states.append(current)
    if last_only:
        return current
    return np.stack(states if first else states[1:])


def _model(**change):
    return lambda X, layers, sublayer: _stack(X, layers, sublayer, **change)


MODELS = (
    ("no_feed_forward", _model(feed_forward="none")),
    ("feed_forward_first", _model(feed_forward="before")),
    ("embeddings_every_layer", _model(carry=False)),
    ("layers_reversed", _model(order=-1)),
    ("no_embeddings_state", _model(first=False)),
    ("last_state_only", _model(last_only=True)),
    ("not_unpacked", _model(unpack=False)),
)


# --------------------------------------------------------------------------- the check

def _verdict(task: CodeTask, fn, model) -> Verdict:
    for case in task.cases():
        tokens = model.tokenize(case.args[0])
        X = model.embed(case.args[0])
        want = model(case.args[0]).hidden_states
        given = [f"X = model.embed({case.name}), shape {X.shape}; layers = the model's {model.n_layers} layers; "
                 "sublayer = the course's attention sublayer"]
        args = (X, list(model.layers), course_sublayer)
        argument = X.copy()
        got, problem, learner = lbl.call_for_results(task, fn, (argument, list(model.layers), course_sublayer))
        if not problem and got[0].shape != want.shape:
            problem = (f"the states have shape {shape_text(got[0].shape)}; expected {shape_text(want.shape)} "
                       f"(the embeddings, then the output of each of the {model.n_layers} layers)")
            learner = ("value", got)
        if problem:
            rows = lbl.row_lines(f"states[1], row 0 ({tokens[0]})", want[1][0], None, SHOWN_COLUMNS)
            return lbl.failed(task, case.name, problem, learner, args, (want,), lbl.STATES_TOL, given, rows)
        states = got[0]
        for k in range(len(want)):
            if lbl.close(states[k], want[k], lbl.STATES_TOL):
                continue
            where = (f"{case.name}, the embeddings (states[0])" if k == 0 else
                     f"{case.name}, layer {k - 1} (states[{k}], its output)")
            at = lbl.first_difference(states[k], want[k], lbl.STATES_TOL)
            problem = ("states[0] is not the X your function was given: "
                       if k == 0 else "the layers before agree, but ") + lbl.entry_text(
                f"states[{k}]", states[k], want[k], at)
            rows = lbl.row_lines(f"states[{k}], row {at[0]} ({tokens[at[0]]})", want[k][at[0]], states[k][at[0]],
                                 SHOWN_COLUMNS)
            return lbl.differs(task, where, problem, got, args, (want,), lbl.STATES_TOL, given, rows,
                               lbl.entry_text("states", states, want, (k, *at)))
        if not np.array_equal(argument, X):
            return lbl.changed_argument(task.name, case.name, "X", given)
    return lbl.right(task.name, "stack of layers")


TASK = CodeTask(
    name="encoder",
    cases=_cases,
    reference=course_encoder,
    solution=my_encoder,
    models=MODELS,
    verdict=lbl.judged(_verdict),
)
