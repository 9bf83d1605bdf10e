"""The capstone (16_capstone): the learner's own attention inside MiniLM.

* ``model(text, attention=f)`` gives the model's own numbers with the course's attention and with 02's reference
  solution, and the transformers reference values to the tolerances of tests/test_pretrained.py;
* every junk function the model is given ends in one clear message naming the layer and head, shown without a
  traceback;
* ``model.layer(i)`` and ``model.embed(text)`` are what a learner needs to rebuild a layer;
* each capstone task's reference solution passes, and a catalogue of wrong implementations, written as a learner
  would, gets its diagnosis with the sentence, the layer and (for the weights) the head where it first shows;
* junk handed to the checks and to ``bank_from_your_code`` gets a verdict, never an exception;
* the notebook, its Your turns filled with the solutions, computes 0.78 for "bank" from the learner's code.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import numpy as np
import pytest

from helpers.core.attention import scaled_dot_product_attention
from helpers.core.head_analysis import cosine, word_vector
from helpers.core.pretrained import AttentionFunctionError, MiniLM
from helpers.exercises import Feedback, check_code
from helpers.exercises.capstone import bank_from_your_code
from helpers.exercises.code_tasks import MISTAKES, SKELETONS, SOLUTIONS, engine

from conftest import ROOT, run_cell

FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.npz"
MONEY, RIVER = "I deposited money at the bank", "We sat on the river bank"
CAPSTONE = ROOT / "notebooks" / "16_capstone.ipynb"


@pytest.fixture(scope="module")
def model():
    return MiniLM.load()


def define(source: str, name: str | None = None):
    """The function ``source`` defines (the last one, or ``name``), made as a learner's cell makes it: numpy only."""
    ns = {"np": np}
    exec(source, ns)
    if name is not None:
        return ns[name]
    return [v for k, v in ns.items() if callable(v) and k != "np" and not k.startswith("__")][-1]


def solution(task: str):
    return define(inspect.getsource(SOLUTIONS[task]))


# --------------------------------------------------------------------------- the hook


def reference_cases():
    with np.load(FIXTURE) as z:
        data = {k: z[k] for k in z.files}
    return data, json.loads(str(data["meta_json"]))["model_sentences"]


REFERENCE, SENTENCES = reference_cases()
ATTENTIONS = {"the course's scaled_dot_product_attention": scaled_dot_product_attention,
              "02's reference solution": solution("attention")}


@pytest.mark.parametrize("index", range(len(SENTENCES)))
@pytest.mark.parametrize("name", ATTENTIONS)
def test_the_hook_gives_the_models_own_run_and_the_reference_values(model, index, name):
    text = SENTENCES[index]
    own, mine = model(text), model(text, attention=ATTENTIONS[name])
    assert mine.tokens == own.tokens
    np.testing.assert_allclose(mine.attentions, own.attentions, rtol=0, atol=1e-6)
    np.testing.assert_allclose(mine.hidden_states, own.hidden_states, rtol=0, atol=1e-6)
    # the tolerances of tests/test_pretrained.py against transformers + torch
    assert np.abs(mine.attentions - REFERENCE[f"attentions_{index}"]).max() < 1e-4
    assert np.abs(mine.hidden - REFERENCE[f"hidden_{index}"]).max() < 1e-3


def test_the_hook_calls_the_function_once_per_head_per_layer_with_2d_arrays(model):
    calls = []

    def spy(Q, K, V):
        calls.append((Q.shape, K.shape, V.shape, Q.dtype))
        return scaled_dot_product_attention(Q, K, V)

    out = model(MONEY, attention=spy)
    n = len(out.tokens)
    assert len(calls) == 6 * 12 and set(calls) == {((n, 32), (n, 32), (n, 32), np.dtype(float))}


def test_the_models_numbers_come_from_what_the_function_returns(model):
    """Uniform weights in every head: the model records them, and its vectors follow them."""
    def uniform(Q, K, V):
        w = np.full((len(Q), len(K)), 1 / len(K))
        return w @ V, w

    out, own = model(MONEY, attention=uniform), model(MONEY)
    np.testing.assert_allclose(out.attentions, 1 / len(out.tokens), atol=1e-7)
    assert np.abs(out.hidden - own.hidden).max() > 0.1
    np.testing.assert_array_equal(out.hidden_states[0], own.hidden_states[0])  # the embeddings come before attention


def test_a_batch_with_the_hook_runs_each_sentence_alone(model):
    texts = [MONEY, "hi", RIVER]
    for text, got in zip(texts, model.batch(texts, attention=scaled_dot_product_attention)):
        alone = model(text)
        assert got.tokens == alone.tokens and got.attentions.shape == alone.attentions.shape
        np.testing.assert_allclose(got.hidden_states, alone.hidden_states, atol=1e-6)


def _raises(Q, K, V):
    raise ZeroDivisionError("oops")


def _nan_weights(Q, K, V):
    w = np.full((len(Q), len(K)), np.nan)
    return w @ V, w


def _forever(Q, K, V):
    while True:
        pass


JUNK = [
    (_raises, "raised ZeroDivisionError: oops"),
    (lambda Q, K: Q, "raised TypeError"),
    (lambda Q, K, V: None, "returned None (did you forget `return`?); expected two results: return output, weights"),
    (lambda Q, K, V: "attention", "returned the text 'attention'; expected two results"),
    (lambda Q, K, V: Q @ K.T, "returned an array of shape (8, 8); expected two results: return output, weights"),
    (lambda Q, K, V: (V, V, V), "returned a tuple of 3 items; expected two results"),
    (lambda Q, K, V: (V, None), "returned None as its weights; expected an array of numbers"),
    (lambda Q, K, V: ("out", Q @ K.T), "returned the text 'out' as its output; expected an array of numbers"),
    (lambda Q, K, V: (V, [[1.0, 2.0], [3.0]]), "returned a list of 2 items as its weights; expected an array"),
    (lambda Q, K, V: (V, {"w": 1}), "returned a dict as its weights; expected an array of numbers"),
    (lambda Q, K, V: (V.T, Q @ K.T), "returned output of shape (32, 8); expected (8, 32)"),
    (lambda Q, K, V: (V, np.ones((8, 9))), "returned weights of shape (8, 9); expected (8, 8)"),
    (_nan_weights, "returned output holding nan at entry (0, 0)"),
    (lambda Q, K, V: (V * np.inf, Q @ K.T), "returned output holding inf at entry"),
]


@pytest.mark.parametrize("fn, words", JUNK, ids=[w[:40] for _, w in JUNK])
def test_a_junk_attention_function_gets_one_clear_message_naming_layer_and_head(model, fn, words):
    with pytest.raises(AttentionFunctionError) as caught:
        model(MONEY, attention=fn)
    err = caught.value
    assert isinstance(err, ValueError) and (err.layer, err.head) == (0, 0)
    assert str(err).startswith("Your attention function, called for layer 0, head 0 with Q, K and V of shape "
                               "(8, 32), ")
    assert words in str(err), str(err)
    # IPython shows _render_traceback_ instead of a traceback: the message, and nothing of the model's code
    assert err._render_traceback_() == [f"AttentionFunctionError: {err}"]


def test_a_function_that_never_ends_is_stopped_with_the_time_limit(model):
    with pytest.raises(AttentionFunctionError, match=r"head 0 .* did not finish within 0\.05 s \(a loop that never"):
        model(MONEY, attention=_forever, time_limit=0.05)


def test_a_function_that_goes_wrong_later_is_named_where_it_does(model):
    calls = []

    def breaks_at_layer_3_head_5(Q, K, V):
        calls.append(1)
        if len(calls) == 3 * 12 + 6:
            return None
        return scaled_dot_product_attention(Q, K, V)

    with pytest.raises(AttentionFunctionError, match="called for layer 3, head 5 with"):
        model(MONEY, attention=breaks_at_layer_3_head_5)


@pytest.mark.parametrize("bad", [3, "attention", [scaled_dot_product_attention]])
def test_attention_that_is_not_a_function_is_refused_naming_the_argument(model, bad):
    with pytest.raises(ValueError, match="attention must be None or a function attention"):
        model(MONEY, attention=bad)


# --------------------------------------------------------------------------- what a learner rebuilds a layer from


def test_a_layers_weights_rebuild_the_models_run(model):
    """Q = X @ W_q + b_q ... by hand, with layer_norm and feed_forward, gives the model's hidden states."""
    own = model(MONEY)
    X = model.embed(MONEY)
    np.testing.assert_array_equal(X, own.hidden_states[0])
    for i in range(model.n_layers):
        layer = model.layer(i)
        assert (layer.index, layer.h, layer.d_k, layer.d_model) == (i, 12, 32, 384)
        assert all(getattr(layer, f"W_{m}").shape == (384, 384) for m in "qkvo")
        assert all(getattr(layer, f"b_{m}").shape == (384,) for m in "qkvo")
        Q, K, V = (X @ getattr(layer, f"W_{m}") + getattr(layer, f"b_{m}") for m in "qkv")
        heads = [scaled_dot_product_attention(Q[:, c:c + 32], K[:, c:c + 32], V[:, c:c + 32])
                 for c in range(0, 384, 32)]
        np.testing.assert_allclose(np.stack([w for _, w in heads]), own.attentions[i], atol=1e-5)
        merged = np.concatenate([o for o, _ in heads], axis=1)
        X = layer.feed_forward(layer.layer_norm(X + merged @ layer.W_o + layer.b_o))
        np.testing.assert_allclose(X, own.hidden_states[i + 1], atol=1e-4)
    assert repr(model.layer(0)) == "MiniLMLayer(0: W_q, W_k, W_v, W_o (384, 384); b_q, b_k, b_v, b_o (384,); h=12)"


def test_the_course_sublayer_with_the_feed_forward_is_a_layer_of_the_model(model):
    own = model(RIVER)
    X_out, weights = model.layer(2).attention_sublayer(own.hidden_states[2])
    np.testing.assert_array_equal(model.layer(2).feed_forward(X_out), own.hidden_states[3])
    np.testing.assert_allclose(weights, own.attentions[2], atol=1e-7)


def test_the_weights_are_read_only(model):
    layer = model.layer(0)
    for name in ("W_q", "b_k", "W_o", "b_o"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(layer, name)[0] = 1.0
    np.testing.assert_array_equal(model(MONEY).hidden_states[0], model.embed(MONEY))


@pytest.mark.parametrize("bad", [6, -1, "0", 1.0, True, None])
def test_a_layer_number_out_of_range_is_refused(model, bad):
    with pytest.raises(ValueError, match=r"i must be a layer number from 0 to 5; got"):
        model.layer(bad)


@pytest.mark.parametrize("bad", [np.zeros((3, 5)), np.zeros(384), "x"])
def test_the_sublayer_refuses_an_input_of_the_wrong_shape(model, bad):
    with pytest.raises(ValueError, match=r"X must be an array of numbers of shape \(n, 384\)"):
        model.layer(0).attention_sublayer(bad)


# --------------------------------------------------------------------------- the checks: right answers


@pytest.mark.parametrize("task", ["minilm_attention", "attention_sublayer", "encoder"])
def test_each_reference_solution_passes_and_each_skeleton_is_not_written(task):
    fb = check_code(task, solution(task))
    assert fb.correct, fb.message
    assert "MiniLM gives its own numbers in every layer, on both sentences" in fb.message
    assert f'Checked on: "{MONEY}"; "{RIVER}".' in fb.message
    pending = check_code(task, define(SKELETONS[task]))
    assert not pending.correct and pending.mistake == "not_written"


SM = """
def softmax_rows(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""

RIGHT_ANOTHER_WAY = [
    ("minilm_attention", "row by row, in float32", """
def f(Q, K, V):
    Q, K, V = (np.asarray(M, dtype=np.float32) for M in (Q, K, V))
    w = np.zeros((len(Q), len(K)), dtype=np.float32)
    for i in range(len(Q)):
        s = np.array([Q[i] @ K[j] for j in range(len(K))]) / np.sqrt(Q.shape[1])
        e = np.exp(s - s.max())
        w[i] = e / e.sum()
    return w @ V, w"""),
    ("attention_sublayer", "a loop over the heads, calling an attention function", SM + """
def attention(Q, K, V):
    w = softmax_rows(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w

def f(X, layer):
    Q, K, V = X @ layer.W_q + layer.b_q, X @ layer.W_k + layer.b_k, X @ layer.W_v + layer.b_v
    d_k = X.shape[1] // layer.h
    heads = [attention(Q[:, i*d_k:(i+1)*d_k], K[:, i*d_k:(i+1)*d_k], V[:, i*d_k:(i+1)*d_k]) for i in range(layer.h)]
    merged = np.concatenate([out for out, _ in heads], axis=1)
    return layer.layer_norm(X + merged @ layer.W_o + layer.b_o), np.stack([w for _, w in heads])"""),
    ("attention_sublayer", "without b_k, which adds one number to a whole row of scores", SM + """
def f(X, layer):
    n = len(X)
    Q, K, V = (X @ W + b for W, b in ((layer.W_q, layer.b_q), (layer.W_k, 0), (layer.W_v, layer.b_v)))
    Qh, Kh, Vh = (M.reshape(n, 12, 32).transpose(1, 0, 2) for M in (Q, K, V))
    w = softmax_rows(Qh @ Kh.transpose(0, 2, 1) / np.sqrt(32))
    return layer.layer_norm(X + (w @ Vh).transpose(1, 0, 2).reshape(n, 384) @ layer.W_o + layer.b_o), w"""),
    ("encoder", "a list of layer outputs, stacked after the loop", """
def f(X, layers, sublayer):
    outputs = []
    current = X
    for layer in layers:
        current = layer.feed_forward(sublayer(current, layer)[0])
        outputs.append(current)
    return np.stack([X] + outputs)"""),
]


@pytest.mark.parametrize("task, how, source", RIGHT_ANOTHER_WAY, ids=[h for _, h, _ in RIGHT_ANOTHER_WAY])
def test_right_answers_written_another_way_pass(task, how, source):
    fb = check_code(task, define(source, "f"))
    assert fb.correct, fb.message


# --------------------------------------------------------------------------- the checks: a catalogue of mistakes

SUBLAYER = SM + """
def f(X, layer):
    n, d = X.shape
    h = layer.h
    Q, K, V = X @ layer.W_q + layer.b_q, X @ layer.W_k + layer.b_k, X @ layer.W_v + layer.b_v
    Qh, Kh, Vh = (M.reshape(n, h, d // h).transpose(1, 0, 2) for M in (Q, K, V))
    w = softmax_rows(Qh @ Kh.transpose(0, 2, 1) / np.sqrt(d // h))
    merged = (w @ Vh).transpose(1, 0, 2).reshape(n, d)
    return layer.layer_norm(X + merged @ layer.W_o + layer.b_o), w"""


def sublayer_with(old: str, new: str) -> str:
    assert old in SUBLAYER, old
    return SUBLAYER.replace(old, new)


ATTENTION = SM + """
def f(Q, K, V):
    w = softmax_rows(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w"""


def attention_with(old: str, new: str) -> str:
    assert old in ATTENTION, old
    return ATTENTION.replace(old, new)


ENCODER = """
def f(X, layers, sublayer):
    states = [X]
    for layer in layers:
        X, _ = sublayer(X, layer)
        X = layer.feed_forward(X)
        states.append(X)
    return np.stack(states)"""


def encoder_with(old: str, new: str) -> str:
    assert old in ENCODER, old
    return ENCODER.replace(old, new)


FIRST = f'"{MONEY}"'
WEIGHTS_LOOK = "the weights' rows do not sum to 1"
RIGHT_WEIGHTS = "the weights are right in all 12 heads, but X_out entry"
# (task, the mistake's key, where and how it first shows: the start of the message's second line, the source)
WRONG = [
    ("minilm_attention", "softmax_over_queries", f"On {FIRST}, layer 0, head 0: {WEIGHTS_LOOK}",
     attention_with("Q @ K.T / np.sqrt(Q.shape[1]))", "Q @ K.T / np.sqrt(Q.shape[1]), axis=0)")),
    ("minilm_attention", "scale_dk", f"On {FIRST}, layer 0, head 0: each row sums to 1, but the weights are flatter",
     attention_with("np.sqrt(Q.shape[1])", "Q.shape[1]")),
    ("minilm_attention", "no_scale", f"On {FIRST}, layer 0, head 0: each row sums to 1, but the weights are sharper",
     attention_with("Q @ K.T / np.sqrt(Q.shape[1])", "Q @ K.T")),
    ("minilm_attention", "scale_tokens", f"On {FIRST}, layer 0, head 0: each row sums to 1, but the weights are",
     attention_with("np.sqrt(Q.shape[1])", "np.sqrt(K.shape[0])")),
    ("minilm_attention", "weights_at_K", f"On {FIRST}, layer 0, head 0: the weights are right, but output entry",
     attention_with("return w @ V, w", "return w @ K, w")),
    ("minilm_attention", "k_not_transposed", f"On {FIRST}, layer 0, head 0: your function raised ValueError: matmul",
     attention_with("Q @ K.T", "Q @ K")),
    ("minilm_attention", "order_swapped", f"On {FIRST}, layer 0, head 0: your function returned output of shape "
                                          "(8, 8); expected (8, 32)",
     attention_with("return w @ V, w", "return w, w @ V")),
    ("minilm_attention", "causal_mask_added", f"On {FIRST}, layer 0, head 0:", """
def f(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ V, w"""),
    ("minilm_attention", "softmax_mixed_axes", f"On {FIRST}, layer 0, head 0: {WEIGHTS_LOOK}", """
def f(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=0, keepdims=True)
    return w @ V, w"""),
    ("minilm_attention", "no_softmax", f"On {FIRST}, layer 0, head 0: {WEIGHTS_LOOK}", """
def f(Q, K, V):
    w = Q @ K.T / np.sqrt(Q.shape[1])
    return w @ V, w"""),
    ("minilm_attention", "no_normalise", f"On {FIRST}, layer 0, head 0: {WEIGHTS_LOOK}", """
def f(Q, K, V):
    w = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w"""),
    ("minilm_attention", "weights_transposed", f"On {FIRST}, layer 0, head 0: {WEIGHTS_LOOK}",
     attention_with("return w @ V, w", "return w @ V, w.T")),
    ("minilm_attention", "no_keepdims", f"On {FIRST}, layer 0, head 0: {WEIGHTS_LOOK}", """
def f(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1)
    return w @ V, w"""),
    ("attention_sublayer", "scale_dmodel", f"On {FIRST}, layer 0, head 0: each row sums to 1, but the weights are "
                                           "flatter", sublayer_with("np.sqrt(d // h)", "np.sqrt(d)")),
    ("attention_sublayer", "no_scale", f"On {FIRST}, layer 0, head 0: each row sums to 1, but the weights are sharper",
     sublayer_with(" / np.sqrt(d // h)", "")),
    ("attention_sublayer", "softmax_over_queries", f"On {FIRST}, layer 0, head 0: {WEIGHTS_LOOK}",
     sublayer_with("np.sqrt(d // h))", "np.sqrt(d // h), axis=-2)")),
    ("attention_sublayer", "scale_dk", f"On {FIRST}, layer 0, head 0: each row sums to 1, but the weights are "
                                       "flatter", sublayer_with("np.sqrt(d // h)", "(d // h)")),
    ("attention_sublayer", "k_not_transposed", f"On {FIRST}, layer 0: your function raised ValueError: matmul",
     sublayer_with("Qh @ Kh.transpose(0, 2, 1)", "Qh @ Kh")),
    ("attention_sublayer", "weights_transposed", f"On {FIRST}, layer 0, head 0: {WEIGHTS_LOOK}",
     sublayer_with("layer.b_o), w", "layer.b_o), w.transpose(0, 2, 1)")),
    ("attention_sublayer", "split_interleaved", f"On {FIRST}, layer 0, head 0:",
     sublayer_with("M.reshape(n, h, d // h).transpose(1, 0, 2)", "M.reshape(n, d // h, h).transpose(2, 0, 1)")),
    ("attention_sublayer", "merge_interleaved", f"On {FIRST}, layer 0: {RIGHT_WEIGHTS}",
     sublayer_with("(w @ Vh).transpose(1, 0, 2).reshape(n, d)", "(w @ Vh).transpose(1, 2, 0).reshape(n, d)")),
    ("attention_sublayer", "merge_no_transpose", f"On {FIRST}, layer 0: {RIGHT_WEIGHTS}",
     sublayer_with("(w @ Vh).transpose(1, 0, 2).reshape(n, d)", "(w @ Vh).reshape(n, d)")),
    ("attention_sublayer", "split_no_transpose", f"On {FIRST}, layer 0, head 0:",
     sublayer_with("M.reshape(n, h, d // h).transpose(1, 0, 2)", "M.reshape(h, n, d // h)")),
    ("attention_sublayer", "bias_missing", f"On {FIRST}, layer 0, head 0: each row sums to 1, but weights entry",
     sublayer_with("X @ layer.W_q + layer.b_q", "X @ layer.W_q")),
    ("attention_sublayer", "bias_missing", f"On {FIRST}, layer 0: {RIGHT_WEIGHTS}",
     sublayer_with("X @ layer.W_v + layer.b_v", "X @ layer.W_v")),
    ("attention_sublayer", "bias_missing", f"On {FIRST}, layer 0: {RIGHT_WEIGHTS}",
     sublayer_with("merged @ layer.W_o + layer.b_o", "merged @ layer.W_o")),
    ("attention_sublayer", "no_wo", f"On {FIRST}, layer 0: {RIGHT_WEIGHTS}",
     sublayer_with("merged @ layer.W_o + layer.b_o", "merged + layer.b_o")),
    ("attention_sublayer", "no_residual", f"On {FIRST}, layer 0: {RIGHT_WEIGHTS}",
     sublayer_with("layer.layer_norm(X + merged", "layer.layer_norm(merged")),
    ("attention_sublayer", "no_layer_norm", f"On {FIRST}, layer 0: {RIGHT_WEIGHTS}",
     sublayer_with("layer.layer_norm(X + merged @ layer.W_o + layer.b_o)", "X + merged @ layer.W_o + layer.b_o")),
    ("attention_sublayer", "norm_before_residual", f"On {FIRST}, layer 0: {RIGHT_WEIGHTS}",
     sublayer_with("layer.layer_norm(X + merged @ layer.W_o + layer.b_o)",
                   "X + layer.layer_norm(merged @ layer.W_o + layer.b_o)")),
    ("attention_sublayer", "wq_wk_swapped", f"On {FIRST}, layer 0, head 0: each row sums to 1",
     sublayer_with("X @ layer.W_q + layer.b_q, X @ layer.W_k + layer.b_k",
                   "X @ layer.W_k + layer.b_k, X @ layer.W_q + layer.b_q")),
    ("attention_sublayer", "mutates_input", f"Your results are right, but on {FIRST}, layer 0 your function changed "
                                            "its argument `X`", sublayer_with(
        "    return layer.layer_norm(X + merged @ layer.W_o + layer.b_o), w",
        "    X += merged @ layer.W_o + layer.b_o\n    return layer.layer_norm(X), w")),
    ("encoder", "no_feed_forward", f"On {FIRST}, layer 0 (states[1], its output): the layers before agree, but",
     encoder_with("        X = layer.feed_forward(X)\n", "")),
    ("encoder", "feed_forward_first", f"On {FIRST}, layer 0 (states[1], its output)", encoder_with(
        "        X, _ = sublayer(X, layer)\n        X = layer.feed_forward(X)\n",
        "        X = layer.feed_forward(X)\n        X, _ = sublayer(X, layer)\n")),
    ("encoder", "embeddings_every_layer", f"On {FIRST}, layer 1 (states[2], its output)", encoder_with(
        "        X, _ = sublayer(X, layer)\n        X = layer.feed_forward(X)\n        states.append(X)",
        "        out, _ = sublayer(X, layer)\n        states.append(layer.feed_forward(out))")),
    ("encoder", "layers_reversed", f"On {FIRST}, layer 0 (states[1], its output)",
     encoder_with("for layer in layers:", "for layer in reversed(layers):")),
    ("encoder", "no_embeddings_state", f"On {FIRST}: the states have shape (6, 8, 384); expected (7, 8, 384)",
     encoder_with("states = [X]", "states = []")),
    ("encoder", "last_state_only", f"On {FIRST}: the states have shape (8, 384); expected (7, 8, 384)",
     encoder_with("return np.stack(states)", "return X")),
    ("encoder", "not_unpacked", f"On {FIRST}: your function raised ValueError",
     encoder_with("X, _ = sublayer(X, layer)", "X = sublayer(X, layer)")),
]


@pytest.mark.parametrize("task, key, shows, source", WRONG, ids=[f"{t}-{k}-{i}" for i, (t, k, _, _) in
                                                                 enumerate(WRONG)])
def test_each_wrong_implementation_gets_its_diagnosis_where_it_first_shows(task, key, shows, source):
    fb = check_code(task, define(source, "f"))
    assert isinstance(fb, Feedback) and not fb.correct
    assert fb.mistake == key, fb.message
    lines = fb.message.splitlines()
    assert lines[0] == f"{task}: not right yet."
    assert lines[1].startswith(shows), lines[1]
    assert f"This looks like: {MISTAKES[key].title}." in fb.message
    if MISTAKES[key].where:
        assert f"Where the course explains it: {MISTAKES[key].where}." in fb.message
    case = re.match(r"(?:On |Your results are right, but on )(.+?)(?::| your function changed) ", lines[1])[1]
    assert fb.example.startswith(f"The example: {case}\n"), fb.example
    assert " expected" in fb.example and " yours" in fb.example or "What happened:" in fb.example


def test_the_catalogue_covers_the_mistakes_the_capstone_names():
    named = {key for _, key, _, _ in WRONG}
    assert {"scale_dk", "no_scale", "scale_dmodel", "softmax_over_queries", "merge_no_transpose", "bias_missing",
            "no_residual"} <= named
    for task in ("minilm_attention", "attention_sublayer", "encoder"):
        from helpers.exercises.code_tasks import TASKS

        missing = {m.key for m in TASKS[task].mistakes} - {k for t, k, _, _ in WRONG if t == task}
        assert not missing, f"{task}: no wrong implementation in the catalogue shows {missing}"


def test_a_mistake_in_one_head_of_one_layer_is_reported_there():
    """Right everywhere but head 7 of layer 3, whose softmax runs over the queries."""
    source = sublayer_with("    merged =", "    if layer.index == 3:\n"
                                           "        w[7] = softmax_rows(Qh[7] @ Kh[7].T / np.sqrt(d // h), axis=0)\n"
                                           "    merged =")
    fb = check_code("attention_sublayer", define(source, "f"))
    assert fb.message.splitlines()[1].startswith(f"On {FIRST}, layer 3, head 7: {WEIGHTS_LOOK}"), fb.message
    assert fb.example.startswith(f"The example: {FIRST}, layer 3, head 7\nX: the tokens' vectors entering layer 3")


def test_an_attention_wrong_in_one_call_is_reported_at_its_layer_and_head():
    calls = []

    def transposed_once(Q, K, V):
        calls.append(1)
        out, w = scaled_dot_product_attention(Q, K, V)
        return (out, w.T) if len(calls) == 2 * 12 + 6 else (out, w)

    fb = check_code("minilm_attention", transposed_once)
    assert fb.mistake == "weights_transposed", fb.message
    assert fb.message.splitlines()[1].startswith(f"On {FIRST}, layer 2, head 5: {WEIGHTS_LOOK}"), fb.message


def test_the_example_shows_the_row_that_differs_expected_beside_yours():
    fb = check_code("minilm_attention", define(attention_with("np.sqrt(Q.shape[1])", "Q.shape[1]"), "f"))
    lines = fb.example.splitlines()
    assert lines[0] == f"The example: {FIRST}, layer 0, head 0"
    assert lines[1] == "Q, K, V: that head's queries, keys and values from the model, each of shape (8, 32)"
    # 8 weights of 4 decimals each: too wide side by side, so the learner's row comes under the expected one
    assert lines[2] == "weights, row 0 ([CLS]), expected" and lines[4] == "weights, row 0 ([CLS]), yours"
    assert re.fullmatch(r"\[\d\.\d{4}(, \d\.\d{4}){7}\]", lines[3]), lines[3]
    assert lines[6] == "output, row 0, first 6 of 32 columns, expected"
    assert lines[-1].startswith("First difference: weights entry (0, ")


# --------------------------------------------------------------------------- the checks: junk


def _none(*args):
    return None


def _boom(*args):
    raise RuntimeError("boom")


def _endless(*args):
    while True:
        pass


CHECK_JUNK = [
    ("minilm_attention", _none, "your function returned None (did you forget `return`?)"),
    ("minilm_attention", _boom, "your function raised RuntimeError: boom"),
    ("minilm_attention", lambda Q, K, V: (V, Q @ K.T * np.nan), "returned weights holding nan at entry (0, 0)"),
    ("minilm_attention", lambda Q, K, V: "weights", "returned the text 'weights'"),
    ("attention_sublayer", _none, "your function returned None. Did you forget `return`?"),
    ("attention_sublayer", _boom, "your function raised RuntimeError: boom"),
    ("attention_sublayer", lambda X, layer: X, "returned one array of shape (8, 384); expected 2 results"),
    ("attention_sublayer", lambda X, layer: (X, np.ones((8, 8))), "weights has shape (8, 8); expected (12, 8, 8)"),
    ("attention_sublayer", lambda X, layer: (X.T, np.ones((12, 8, 8)) / 8), "X_out has shape (384, 8)"),
    ("attention_sublayer", lambda X, layer: (X * np.nan, layer.attention_sublayer(X)[1]),
     "the weights are right in all 12 heads, but X_out entry (0, 0) is nan; expected"),
    ("attention_sublayer", lambda X, layer: ("X", "w"), "returned the text 'X' for X_out; expected an array"),
    ("encoder", _none, "your function returned None. Did you forget `return`?"),
    ("encoder", _boom, "your function raised RuntimeError: boom"),
    ("encoder", lambda X, layers, sublayer: [X, "x"], "returned a list of 2 items for the states; expected an array"),
    ("encoder", lambda X, layers, sublayer: np.zeros((7, 8, 384)), "states[0] is not the X your function was given"),
]


@pytest.mark.parametrize("task, fn, words", CHECK_JUNK, ids=[f"{t}-{w[:30]}" for t, _, w in CHECK_JUNK])
def test_junk_gets_a_verdict_never_an_exception(task, fn, words):
    fb = check_code(task, fn)
    assert isinstance(fb, Feedback) and not fb.correct
    assert words in fb.message, fb.message


@pytest.mark.parametrize("task", ["minilm_attention", "attention_sublayer", "encoder"])
def test_a_function_that_never_ends_is_stopped(task, monkeypatch):
    monkeypatch.setattr(engine, "TIME_LIMIT", 0.05)
    fb = check_code(task, _endless)
    assert not fb.correct and "did not finish within 0.05 s (a loop that never ends?)" in fb.message


@pytest.mark.parametrize("task", ["minilm_attention", "attention_sublayer", "encoder"])
def test_something_that_is_not_a_function_gets_a_verdict(task):
    fb = check_code(task, 42)
    assert not fb.correct and "which cannot be called" in fb.message


# --------------------------------------------------------------------------- "bank" from the learner's code


def test_bank_from_your_code_gives_the_similarity_of_00(model):
    fb = bank_from_your_code(solution("encoder"), solution("attention_sublayer"))
    assert fb.correct, fb.message
    a, b = model(MONEY), model(RIVER)
    entering = cosine(word_vector(a, "bank", 0), word_vector(b, "bank", 0))
    leaving = cosine(word_vector(a, "bank", 6), word_vector(b, "bank", 6))
    assert f"{entering:.2f}" == "1.00" and f"{leaving:.2f}" == "0.78"   # 00_index's numbers
    assert fb.message.startswith("bank: from your code, 'bank' enters the two sentences with cosine similarity 1.00 "
                                 "and leaves the 6 layers with 0.78 (the model's own run: 0.78).")


def test_bank_with_skeletons_is_not_written_yet_and_names_what_is_missing():
    fb = bank_from_your_code(define(SKELETONS["encoder"]), solution("attention_sublayer"))
    assert fb.mistake == "not_written" and "write my_encoder above" in fb.message
    assert str(fb).startswith("… ")
    fb = bank_from_your_code(define(SKELETONS["encoder"]), define(SKELETONS["attention_sublayer"]))
    assert "write my_attention_sublayer and my_encoder above" in fb.message


def test_bank_with_a_wrong_sublayer_says_where_the_run_leaves_the_models():
    wrong = define(sublayer_with("merged @ layer.W_o + layer.b_o", "merged @ layer.W_o"), "f")
    fb = bank_from_your_code(solution("encoder"), wrong)
    assert not fb.correct and f'bank: on "{MONEY}", your code\'s states first differ from the model\'s at layer 0 ' \
                              "(states[1])" in fb.message


@pytest.mark.parametrize("encoder, words", [
    (_none, "my_encoder returned None; expected the states, shape (7, 8, 384)"),
    (_boom, "your code raised RuntimeError: boom"),
    (lambda X, layers, sublayer: X, "my_encoder returned states of shape (8, 384)"),
    (7, "my_encoder is an int, which cannot be called"),
])
def test_bank_with_junk_gets_a_verdict_never_an_exception(encoder, words):
    fb = bank_from_your_code(encoder, solution("attention_sublayer"))
    assert not fb.correct and words in fb.message, fb.message


def test_bank_stops_a_loop_that_never_ends(monkeypatch):
    monkeypatch.setattr(engine, "TIME_LIMIT", 0.05)
    fb = bank_from_your_code(_endless, solution("attention_sublayer"))
    assert not fb.correct and "did not finish within 0.05 s" in fb.message


# --------------------------------------------------------------------------- the notebook, done


def test_the_capstone_filled_with_the_solutions_computes_bank_from_the_learners_code():
    """Every code cell of 16_capstone run in order, each Your turn's skeleton replaced by its solution."""
    from test_code_check import _fill

    nb = json.loads(CAPSTONE.read_text(encoding="utf-8"))
    ns = {"__name__": "__main__"}
    verdicts = {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if "your-turn" in cell["metadata"].get("tags", []):
            task = re.search(r'check_code\("(\w+)"', source)[1]
            source = _fill(source, inspect.getsource(SOLUTIONS[task]))
        value = run_cell(source, ns)
        if isinstance(value, Feedback):
            verdicts[source.strip().splitlines()[-1]] = value
    checks = [v for line, v in verdicts.items() if line.startswith("check_code(")]
    assert len(checks) == 3 and all(v.correct for v in checks), [v.message for v in checks]
    bank = verdicts["bank_from_your_code(my_encoder, my_attention_sublayer)"]
    assert bank.correct and "leaves the 6 layers with 0.78 (the model's own run: 0.78)" in bank.message
    shown = verdicts['check_task("minilm_attention", unscaled)']
    assert shown.mistake == "no_scale" and "layer 0, head 0" in shown.message
