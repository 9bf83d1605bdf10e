"""Notebook 15's learning of W^Q and W^K: the gradients, the training, the monitor and the loss curve."""

import time

import numpy as np
import pytest

from helpers.core.learning import (
    VOCAB,
    attention_weights,
    copy_task,
    encode,
    feature_names,
    init_weights,
    loss_and_gradients,
    previous_token_share,
    softmax_backward,
    train,
)
from helpers.demos.learning import TrainingLab, TrainingMonitor, loss_curve

from conftest import html_text


def finite_differences(f, W, eps=1e-6):
    """Central differences, written here so that the check does not lean on the module under test."""
    W = W.copy()
    g = np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        keep = W[idx]
        W[idx] = keep + eps
        up = f(W)
        W[idx] = keep - eps
        down = f(W)
        W[idx] = keep
        g[idx] = (up - down) / (2 * eps)
    return g


def relative_error(a, b) -> float:
    """||a - b|| / max(||a||, ||b||) over the whole array (an entry near 0 in both would divide noise by nothing)."""
    return float(np.linalg.norm(a - b)) / max(float(np.linalg.norm(a)), float(np.linalg.norm(b)))


def softmax_by_hand(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


# -- the data


def test_encode_lays_out_position_then_letter():
    X, V, letters = encode(["BAC", "CCA"], vocab=("A", "B", "C"))
    assert X.shape == (2, 3, 6) and V.shape == (2, 3, 3)
    np.testing.assert_array_equal(X[1, :, :3], np.eye(3))
    assert letters.tolist() == [[1, 0, 2], [2, 2, 0]]
    assert X[0, 0].tolist() == [1, 0, 0, 0, 1, 0]  # pos0, letter B
    np.testing.assert_array_equal(X[..., 3:], V)
    assert feature_names(3, ("A", "B", "C")) == ["pos0", "pos1", "pos2", "A", "B", "C"]


@pytest.mark.parametrize("sequences, words", [
    (["AB", "ABC"], "same length"),
    (["AZ"], "not in vocab"),
    ([], "at least one"),
])
def test_encode_refuses_bad_sequences_with_a_message(sequences, words):
    with pytest.raises(ValueError, match=words):
        encode(sequences)


def test_copy_task_targets_are_the_previous_letters():
    task = copy_task(5, seed=3)
    for seq, target in zip(task.sequences, task.targets):
        assert [VOCAB[k] for k in target] == list(seq[:-1])
    assert copy_task(5, seed=3).sequences == task.sequences  # seeded
    assert copy_task(5, seed=4).sequences != task.sequences
    with pytest.raises(ValueError, match="count"):
        copy_task(0)
    with pytest.raises(ValueError, match="length"):
        copy_task(3, length=1)


# -- the math


def test_attention_weights_are_the_softmax_of_scaled_scores():
    task = copy_task(2, seed=1)
    W_q, W_k = init_weights(task.X.shape[-1], 3, seed=2, scale=1.0)
    Q, K = task.X[0] @ W_q, task.X[0] @ W_k
    expected = softmax_by_hand(Q @ K.T / np.sqrt(3))
    np.testing.assert_allclose(attention_weights(task.X, W_q, W_k)[0], expected)
    with pytest.raises(ValueError, match=r"W_q \(11, 3\)"):
        attention_weights(task.X[..., :5], W_q, W_k)
    with pytest.raises(ValueError, match="W_k"):
        attention_weights(task.X, W_q, W_k[:, :2])


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_softmax_backward_matches_finite_differences(shape):
    rng = np.random.default_rng(0)
    S = rng.normal(size=shape)
    C = rng.normal(size=shape)  # L = sum(C * softmax(S)), so dL/dweights = C

    def loss(S_):
        return float((C * softmax_by_hand(S_)).sum())

    expected = finite_differences(loss, S)
    got = softmax_backward(softmax_by_hand(S), C)
    np.testing.assert_allclose(got, expected, atol=1e-8)
    # Adding the same number to every grad of a row changes nothing: the weights always sum to 1.
    np.testing.assert_allclose(softmax_backward(softmax_by_hand(S), C + 3.0), got, atol=1e-12)


def test_softmax_backward_refuses_mismatched_shapes():
    with pytest.raises(ValueError, match=r"weights \(2, 3\), grad_weights \(3, 2\)"):
        softmax_backward(np.full((2, 3), 1 / 3), np.zeros((3, 2)))


def test_loss_at_zero_weights_is_the_share_of_the_right_letter():
    # W = 0: every row is uniform, so position i outputs the letter counts of its sequence divided by n.
    task = copy_task(3, seed=5)
    d = task.X.shape[-1]
    loss, _, _ = loss_and_gradients(np.zeros((d, 2)), np.zeros((d, 2)), task.X, task.V, task.targets)
    n = len(task.sequences[0])
    by_hand = [-np.log(seq.count(seq[i - 1]) / n) for seq in task.sequences for i in range(1, n)]
    assert loss == pytest.approx(np.mean(by_hand))


@pytest.mark.parametrize("seed", [0, 1])
def test_loss_gradients_match_finite_differences(seed):
    task = copy_task(4, seed=seed)
    W_q, W_k = init_weights(task.X.shape[-1], 4, seed=seed, scale=0.7)
    _, dW_q, dW_k = loss_and_gradients(W_q, W_k, task.X, task.V, task.targets)

    def loss_q(W):
        return loss_and_gradients(W, W_k, task.X, task.V, task.targets)[0]

    def loss_k(W):
        return loss_and_gradients(W_q, W, task.X, task.V, task.targets)[0]

    assert relative_error(dW_q, finite_differences(loss_q, W_q)) < 1e-7
    assert relative_error(dW_k, finite_differences(loss_k, W_k)) < 1e-7


def test_leaving_out_the_row_sum_gives_notebook_11s_relative_error_of_057(monkeypatch):
    # 15's check: 4 sequences (seed 1), weights of scale 0.7, d_k = 4; the softmax's backward without its row sum.
    task = copy_task(4, seed=1)
    W_q, W_k = init_weights(task.X.shape[-1], 4, seed=1, scale=0.7)
    reference = finite_differences(lambda W: loss_and_gradients(W, W_k, task.X, task.V, task.targets)[0], W_q)
    monkeypatch.setattr("helpers.core.learning.softmax_backward", lambda A, G: A * G)
    _, wrong, _ = loss_and_gradients(W_q, W_k, task.X, task.V, task.targets)
    error = relative_error(wrong, reference)
    assert round(error, 2) == 0.57  # "a gap more than half the size of the larger gradient", not as large as it
    assert np.linalg.norm(wrong) > np.linalg.norm(reference)  # the larger one is the wrong gradient


def test_the_finite_differences_used_as_reference_are_right():
    W = np.array([[1.0, -2.0], [0.5, 3.0]])
    np.testing.assert_allclose(finite_differences(lambda A: float((A ** 3).sum()), W), 3 * W ** 2, rtol=1e-8)
    assert W.tolist() == [[1.0, -2.0], [0.5, 3.0]]  # not changed


def test_previous_token_share():
    n = 4
    perfect = np.zeros((n, n))
    perfect[np.arange(1, n), np.arange(n - 1)] = 1.0
    perfect[0, 0] = 1.0
    assert previous_token_share(perfect) == 1.0
    assert previous_token_share(np.full((n, n), 1 / n)) == pytest.approx(1 / n)
    with pytest.raises(ValueError, match="square"):
        previous_token_share(np.ones((2, 3)))


# -- training


@pytest.mark.parametrize("seed", [0, 7])
def test_training_learns_the_previous_token_head(seed):
    task = copy_task(64, seed=seed)
    d = task.X.shape[-1]
    W_q0, W_k0 = init_weights(d, 4, seed=seed)
    result = train(task, W_q0, W_k0, steps=300, lr=1.0)
    assert result.losses[-1] < 0.02 < 0.8 < result.losses[0]
    assert all(b <= a + 1e-9 for a, b in zip(result.losses[50:], result.losses[51:]))  # settles, then only falls
    # On sequences never seen in training, each position puts almost all its weight on the one before it.
    fresh = copy_task(200, seed=seed + 1000)
    A = attention_weights(fresh.X, result.W_q, result.W_k)
    assert previous_token_share(A) > 0.95
    n = len(task.sequences[0])
    assert (A[:, 1:].argmax(axis=-1) == np.arange(n - 1)).all()
    # W_q W_k^T reads positions: in its position block, row pos_i peaks at column pos_{i-1}.
    M = result.W_q @ result.W_k.T
    assert M[np.arange(1, n), :n].argmax(axis=1).tolist() == list(range(n - 1))
    # The inputs are not changed.
    np.testing.assert_array_equal(W_q0, init_weights(d, 4, seed=seed)[0])


def test_training_calls_back_after_every_step():
    task = copy_task(8, seed=2)
    W_q, W_k = init_weights(task.X.shape[-1], 2, seed=2)
    seen = []
    result = train(task, W_q, W_k, steps=5, lr=0.5, callback=lambda step, loss, *_: seen.append((step, loss)))
    assert [s for s, _ in seen] == [1, 2, 3, 4, 5]
    assert [loss for _, loss in seen] == result.losses
    with pytest.raises(ValueError, match="steps"):
        train(task, W_q, W_k, steps=-1)


# -- the monitor and the loss curve


LABELS = ["0 B", "1 A", "2 D"]


def test_monitor_shows_each_step_through_its_widgets():
    monitor = TrainingMonitor(LABELS, steps=10, pace=0)
    assert monitor.progress.value == 0 and monitor.progress.max == 10
    assert "step 0 of 10" in html_text(monitor.status)
    W = np.array([[1.0, 0.0, 0.0], [0.9, 0.05, 0.05], [0.0, 0.75, 0.25]])
    monitor.show(4, 0.123456, W)
    assert monitor.progress.value == 4
    assert "step 4 of 10 · loss 0.123" in html_text(monitor.status)
    text = html_text(monitor.view)
    assert "step 4" in text and "0.90" in text and "0.75" in text and "Queries ↓" in text
    assert monitor.step == 4 and monitor.loss == pytest.approx(0.123456)


@pytest.mark.parametrize("args, words", [
    ((11, 0.1, np.eye(3)), "step must be a whole number from 0 to 10"),
    ((2, float("nan"), np.eye(3)), "loss must be a finite number"),
    ((2, 0.1, np.eye(2)), r"weights must be \(3, 3\)"),
])
def test_monitor_refuses_a_bad_frame_and_keeps_the_last(args, words):
    monitor = TrainingMonitor(LABELS, steps=10, pace=0)
    monitor.show(3, 0.5, np.full((3, 3), 1 / 3))
    before = (monitor.progress.value, monitor.status.value, monitor.view.value)
    with pytest.raises(ValueError, match=words):
        monitor.show(*args)
    assert (monitor.progress.value, monitor.status.value, monitor.view.value) == before


def test_monitor_paces_its_frames_and_says_what_it_is(monkeypatch):
    monkeypatch.setenv("COURSE_ANIMATION", "on")
    monkeypatch.delenv("VOILA_KERNEL_ID", raising=False)
    monkeypatch.delenv("COURSE_LECTURE", raising=False)
    monitor = TrainingMonitor(LABELS, steps=3, pace=0.05)
    start = time.perf_counter()
    for step in (1, 2, 3):
        monitor.show(step, 1.0, np.full((3, 3), 1 / 3))
    assert time.perf_counter() - start >= 0.1  # two waits between three frames
    assert "run this cell" in monitor._repr_mimebundle_()["text/plain"]
    with pytest.raises(ValueError, match="steps"):
        TrainingMonitor(LABELS, steps=0)


@pytest.mark.parametrize("setting", [("COURSE_ANIMATION", "off"), ("VOILA_KERNEL_ID", "k")],
                         ids=["less motion", "lecture mode"])
def test_monitor_does_not_pace_where_nobody_watches_the_frames(monkeypatch, setting):
    """With less motion asked for, and in the lecture mode (the page appears when every cell has run), the frames
    follow each other at once: pacing would only delay the page."""
    monkeypatch.delenv("COURSE_ANIMATION", raising=False)
    monkeypatch.delenv("COURSE_LECTURE", raising=False)
    monkeypatch.setenv(*setting)
    waits = []
    monkeypatch.setattr(time, "sleep", waits.append)
    monitor = TrainingMonitor(LABELS, steps=3, pace=5)
    for step in (1, 2, 3):
        monitor.show(step, 1.0, np.full((3, 3), 1 / 3))
    assert waits == [] and monitor.step == 3


def test_loss_curve_has_alt_text_with_its_numbers():
    losses = list(np.geomspace(1.2, 0.004, 300))
    fig = loss_curve(losses, title="Training loss", baseline=1.1, baseline_label="uniform attention")
    assert fig.alt.startswith("Training loss: a line of the loss over 300 steps")
    assert "step 1: 1.2" in fig.alt and "step 300: 0.004" in fig.alt
    assert "Dashed line: uniform attention, 1.1." in fig.alt
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and len(ax.lines) == 2
    with pytest.raises(ValueError, match="losses"):
        loss_curve([0.5, -1.0])


# -- the lab: train again with your own settings


@pytest.fixture(scope="module")
def lab():
    return TrainingLab(lr=1.0, steps=300, seed=0)


def lab_views(lab):
    return lab.summary.value, lab.view.value, lab.curve.value


def test_lab_shows_the_trained_head(lab):
    assert lab.result.previous_share > 0.95
    summary = html_text(lab.summary)
    assert "learning rate 1, 300 steps, seed 0" in summary
    assert f"final loss {lab.result.losses[-1]:.4f}".rstrip("0") in summary
    table = html_text(lab.view)
    assert "After training" in table and "Queries ↓" in table and "1 A" in table
    assert 'aria-label="Loss, learning rate 1: a line of the loss over 300 steps' in lab.curve.value
    assert "run this cell" in lab._repr_mimebundle_()["text/plain"]


def test_lab_trains_again_when_a_field_changes(lab):
    before = lab_views(lab)
    lab.set_text("lr", "0.1")
    assert lab.status == "" and lab.result.lr == 0.1
    assert lab.result.previous_share < 0.5  # too small a step: the pattern has not formed in 300 steps
    assert "learning rate 0.1" in html_text(lab.summary)
    lab.set_text("lr", "1")  # back: the same views as before
    assert lab_views(lab) == before


def test_lab_says_when_training_breaks_down_and_keeps_the_last_run(lab):
    before = lab_views(lab)
    lab.set_text("lr", "100")
    assert "broke down" in lab.status and "smaller learning rate" in lab.status
    assert "broke down" in html_text(lab.status_html)
    assert lab_views(lab) == before and lab.result.lr == 1.0
    lab.set_text("lr", "1")
    assert lab.status == "" and lab_views(lab) == before


@pytest.mark.parametrize("name, text, words", [
    ("lr", "abc", "learning rate: 'abc' is not a number"),
    ("lr", "-1", "must be positive"),
    ("steps", "5000", "steps: 5000 is outside 1 to 2000"),
    ("steps", "2.5", "not a whole number"),
    ("seed", "-3", "seed: -3 is outside"),
])
def test_lab_answers_bad_input_next_to_the_field(lab, name, text, words):
    before, original = lab_views(lab), lab.fields[name].value
    lab.set_text(name, text)
    assert words in lab.problem(lab.messages[name])
    assert words in html_text(lab.messages[name])
    assert lab_views(lab) == before and lab.last_unexpected is None
    lab.set_text(name, original)
    assert lab.problem(lab.messages[name]) == "" and lab_views(lab) == before
    with pytest.raises(ValueError, match="name must be one of"):
        lab.set_text("speed", "1")


def test_training_refuses_a_learning_rate_that_is_not_positive():
    task = copy_task(4, seed=0)
    W_q, W_k = init_weights(task.X.shape[-1], 2)
    with pytest.raises(ValueError, match="lr"):
        train(task, W_q, W_k, steps=3, lr=0)
    with pytest.raises(ValueError, match="broke down at step"):
        train(task, W_q, W_k, steps=50, lr=1e6)
