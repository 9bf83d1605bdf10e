"""The capstone's last step: the two "bank" sentences of 00_index through the learner's own code.

``bank_from_your_code(my_encoder, my_attention_sublayer)`` runs both sentences through the learner's stack of layers
with the learner's attention sublayer (which may call the learner's ``my_minilm_attention`` in every head), compares
every layer with the model's own run, and says how similar the two "bank" vectors are entering the model and after its
6 layers: 1.00 and 0.78, as 00 showed, when the learner's code is right. It returns a
:class:`~helpers.exercises.feedback.Feedback` and never raises, whatever the functions do; the checks of the two
functions themselves are ``check_code("attention_sublayer", ...)`` and ``check_code("encoder", ...)``.
"""

from __future__ import annotations

import numpy as np

from helpers.core.head_analysis import cosine
from helpers.core.learner_calls import TimeUp, call_limited, describe
from helpers.core.numbers import number_text
from helpers.core.pretrained import ModelUnavailableError, single_threaded_blas
from helpers.exercises.code_tasks import engine, layer_by_layer as lbl
from helpers.exercises.code_tasks.engine import is_unfilled
from helpers.exercises.feedback import NOT_WRITTEN, Feedback

__all__ = ["bank_from_your_code", "WORD"]

WORD = "bank"
NAME = "bank"


def bank_from_your_code(encoder, sublayer) -> Feedback:
    """The cosine similarity of "bank" in the two sentences of 00, computed by the learner's own functions.

    Parameters
    ----------
    encoder : callable
        The learner's ``my_encoder(X, layers, sublayer)`` -> states (layers + 1, n, d_model).
    sublayer : callable
        The learner's ``my_attention_sublayer(X, layer)`` -> (X_out, weights).

    Returns
    -------
    Feedback
        Correct, with the similarity entering the model and after its last layer (and the model's own); or the
        first sentence and layer where the learner's run differs from the model's; "not written yet" (a neutral
        verdict) while either function is still a skeleton. Never raises.
    """
    for name, fn in (("my_encoder", encoder), ("my_attention_sublayer", sublayer)):
        if not callable(fn):
            return Feedback(False, f"{NAME}: pass your functions themselves, bank_from_your_code(my_encoder, "
                                   f"my_attention_sublayer); {name} is {describe(fn)}, which cannot be called.")
    unwritten = [name for name, fn in (("my_attention_sublayer", sublayer), ("my_encoder", encoder))
                 if is_unfilled(fn)]
    if unwritten:
        return Feedback(False, f"{NAME}: not yet: write {' and '.join(unwritten)} above, then run this cell again; "
                               "it sends the two sentences through your code.", NOT_WRITTEN)
    try:
        model = lbl.model()
    except ModelUnavailableError as err:
        return Feedback(False, f"{NAME}: the pretrained model could not be loaded: {err}")
    with single_threaded_blas():
        runs = [_run(model, text, encoder, sublayer) for text in lbl.BANK_SENTENCES]
    problem = next((run for run in runs if isinstance(run, str)), None)
    if problem is not None:
        return Feedback(False, problem)
    (mine, theirs) = zip(*runs)
    entering = cosine(mine[0][0], mine[1][0])
    leaving, model_leaving = cosine(mine[0][-1], mine[1][-1]), cosine(theirs[0][-1], theirs[1][-1])
    entering, leaving, model_leaving = (number_text(c, 2, trim=False) for c in (entering, leaving, model_leaving))
    return Feedback(True, f"{NAME}: from your code, '{WORD}' enters the two sentences with cosine similarity "
                          f"{entering} and leaves the {model.n_layers} layers with {leaving} (the model's own "
                          f"run: {model_leaving}).\nYour attention sublayer and your stack of layers ran both "
                          f"sentences: {'; '.join(lbl.repr_text(t) for t in lbl.BANK_SENTENCES)}.")


def _run(model, text: str, encoder, sublayer):
    """``(your vectors of the word, the model's)``, each (layers + 1, d_model), or what went wrong, as text."""
    index = model.tokenize(text).index(WORD)
    want = model(text).hidden_states
    where = f"{NAME}: on {lbl.repr_text(text)}"
    try:
        value = call_limited(encoder, (model.embed(text), list(model.layers), sublayer), engine.TIME_LIMIT)
    except TimeUp:
        return f"{where}, your code did not finish within {engine.TIME_LIMIT:g} s (a loop that never ends?)."
    except Exception as err:  # noqa: BLE001 - the learner's code may raise anything: it becomes the verdict
        return f"{where}, your code raised {lbl.raised_text(err)}. The checks above say more."
    states = lbl.values_of(value, 1)
    if states is None or states[0].shape != want.shape:
        got = describe(value) if states is None else f"states of shape {states[0].shape}"
        return (f"{where}, my_encoder returned {got}; expected the states, shape {want.shape}. The check of "
                "my_encoder above says more.")
    states = states[0]
    for k in range(len(want)):
        if not lbl.close(states[k], want[k], lbl.STATES_TOL):
            place = "the embeddings" if k == 0 else f"layer {k - 1}"
            return (f"{where}, your code's states first differ from the model's at {place} (states[{k}]). The "
                    "checks of my_attention_sublayer and my_encoder above say where and why.")
    return states[:, index], np.asarray(want)[:, index]
