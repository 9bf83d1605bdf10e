"""Learning W^Q and W^K by gradient descent on the copy-the-previous-token task (notebook 11).

The task: a sequence of ``LENGTH`` letters drawn at random from ``VOCAB``. At every position ``i >= 1`` the head
must output the letter at position ``i - 1``. Each token's row of ``X`` is readable::

    pos0 … pos{n-1}   one-hot position: where the token is
    A … E             one-hot letter: what the token is

The values are fixed, ``V`` = the letter one-hot (``W^V`` reads the letter columns and is not trained), so the
head's output row ``o_i = sum_j A_ij v_j`` is a probability distribution over the letters: the share of attention
that lands on each letter. The loss is the cross-entropy of the right letter, averaged over positions 1 … n-1:

    L = -mean_{b, i >= 1} log o_{b, i, y_{b, i}},   y_{b, i} = letter at position i - 1.

Only ``W^Q`` and ``W^K`` learn. The position columns come first, as in :mod:`helpers.demos.patterns`, so a learned
``W^Q W^K^T`` can be laid next to the hand-built previous-token head of notebook 05.

The math (:func:`attention_weights`, :func:`loss_and_gradients`, :func:`softmax_backward`, :func:`train`) is plain
numpy; :class:`TrainingMonitor` and :func:`loss_curve` only draw numbers they are given, and :class:`TrainingLab`
(train again with a typed learning rate, number of steps and seed) calls :func:`train` and draws its result.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import ipywidgets as widgets
import numpy as np

from helpers import theme
from helpers.attention import softmax
from helpers.layout import course_box, view_html, wrap_row
from helpers.live import LiveWidget, TextForm
from helpers.parsing import parse_count, parse_number
from helpers.render import attention_weights_html, described_figure, figure_img_html, format_number

__all__ = [
    "VOCAB",
    "LENGTH",
    "feature_names",
    "encode",
    "copy_task",
    "init_weights",
    "attention_weights",
    "softmax_backward",
    "loss_and_gradients",
    "train",
    "previous_token_share",
    "loss_curve",
    "TrainingMonitor",
    "TrainingLab",
    "MAX_STEPS",
]

VOCAB = ("A", "B", "C", "D", "E")
LENGTH = 6


def feature_names(length: int = LENGTH, vocab=VOCAB) -> list[str]:
    """Names of the ``length + len(vocab)`` columns of ``X``: ``pos0`` … then the letters."""
    return [f"pos{i}" for i in range(length)] + [str(v) for v in vocab]


def encode(sequences, vocab=VOCAB):
    """Features and values of equally long letter sequences.

    Parameters
    ----------
    sequences : sequence of str (or of sequences of letters), ``m`` of them, each of length ``n``
    vocab : sequence of str, the letters

    Returns
    -------
    X : ndarray (m, n, n + len(vocab)), one-hot position then one-hot letter
    V : ndarray (m, n, len(vocab)), the letter one-hot (the fixed values)
    letters : ndarray of int (m, n), each letter's index in ``vocab``
    """
    vocab = [str(v) for v in vocab]
    seqs = [list(s) for s in sequences]
    if not seqs or not seqs[0]:
        raise ValueError("sequences must hold at least one non-empty sequence")
    n = len(seqs[0])
    lengths = sorted({len(s) for s in seqs})
    if len(lengths) > 1:
        raise ValueError(f"every sequence must have the same length; got lengths {lengths}")
    unknown = sorted({str(t) for s in seqs for t in s} - set(vocab))
    if unknown:
        raise ValueError(f"sequences contain letters not in vocab {vocab}: {unknown}")
    index = {v: k for k, v in enumerate(vocab)}
    letters = np.array([[index[str(t)] for t in s] for s in seqs], dtype=int)
    m = len(seqs)
    V = np.zeros((m, n, len(vocab)))
    V[np.arange(m)[:, None], np.arange(n)[None, :], letters] = 1.0
    X = np.concatenate([np.broadcast_to(np.eye(n), (m, n, n)), V], axis=-1)
    return X, V, letters


def copy_task(count: int = 64, length: int = LENGTH, vocab=VOCAB, seed: int = 0) -> SimpleNamespace:
    """``count`` random sequences for the copy-the-previous-token task.

    Returns
    -------
    SimpleNamespace with ``sequences`` (list of str), ``X`` (count, n, d_model), ``V`` (count, n, |vocab|),
    ``targets`` (count, n - 1) int: the letter each position 1 … n-1 must copy (the one before it),
    ``vocab`` and ``features`` (the column names of ``X``).
    """
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"count must be a positive integer; got {count!r}")
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 2:
        raise ValueError(f"length must be an integer of at least 2 (a token and the one before it); got {length!r}")
    vocab = tuple(str(v) for v in vocab)
    rng = np.random.default_rng(seed)
    letters = rng.integers(0, len(vocab), size=(count, length))
    sequences = ["".join(vocab[k] for k in row) for row in letters]
    X, V, letters = encode(sequences, vocab)
    return SimpleNamespace(sequences=sequences, X=X, V=V, targets=letters[:, :-1].copy(), vocab=vocab,
                           features=feature_names(length, vocab))


def init_weights(d_model: int, d_k: int, seed: int = 0, scale: float = 0.1):
    """Small random ``W_q``, ``W_k`` of shape (d_model, d_k): every score starts near 0, every row near uniform."""
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, scale, (d_model, d_k)), rng.normal(0.0, scale, (d_model, d_k))


def _check_weights(X, W_q, W_k):
    X, W_q, W_k = (np.asarray(a, dtype=float) for a in (X, W_q, W_k))
    if W_q.ndim != 2 or W_k.shape != W_q.shape:
        raise ValueError(f"W_q and W_k must be matrices of one shape (d_model, d_k); got W_q {W_q.shape}, "
                         f"W_k {W_k.shape}")
    if X.ndim < 2 or X.shape[-1] != W_q.shape[0]:
        raise ValueError(f"X (..., n, d_model) must have as many columns as W_q has rows; got X {X.shape}, "
                         f"W_q {W_q.shape}")
    return X, W_q, W_k


def attention_weights(X, W_q, W_k) -> np.ndarray:
    """``softmax(X W_q (X W_k)^T / sqrt(d_k))``: X (..., n, d_model), W_q and W_k (d_model, d_k) -> (..., n, n)."""
    X, W_q, W_k = _check_weights(X, W_q, W_k)
    Q, K = X @ W_q, X @ W_k
    return softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(W_q.shape[1]))


def softmax_backward(weights, grad_weights) -> np.ndarray:
    """dL/dscores from dL/dweights, where ``weights = softmax(scores)`` along the last axis.

    Parameters
    ----------
    weights : array_like (..., n), rows summing to 1
    grad_weights : array_like, same shape, dL/dweights

    Returns
    -------
    ndarray, same shape: ``weights * (grad_weights - sum(grad_weights * weights, axis=-1, keepdims=True))``
    """
    A = np.asarray(weights, dtype=float)
    G = np.asarray(grad_weights, dtype=float)
    if A.shape != G.shape or A.ndim == 0:
        raise ValueError(f"weights and grad_weights must be arrays of one shape (..., n); got weights {A.shape}, "
                         f"grad_weights {G.shape}")
    return A * (G - (G * A).sum(axis=-1, keepdims=True))


def loss_and_gradients(W_q, W_k, X, V, targets):
    """The copy task's loss and its gradients with respect to ``W_q`` and ``W_k``.

    Parameters
    ----------
    W_q, W_k : (d_model, d_k)
    X : (m, n, d_model);  V : (m, n, n_letters);  targets : int (m, n - 1), the letter position i must output

    Returns
    -------
    loss : float;  dW_q, dW_k : (d_model, d_k)
    """
    X, W_q, W_k = _check_weights(X, W_q, W_k)
    V = np.asarray(V, dtype=float)
    targets = np.asarray(targets)
    m, n = X.shape[0], X.shape[-2]
    if X.ndim != 3 or V.shape[:2] != (m, n) or V.ndim != 3 or targets.shape != (m, n - 1):
        raise ValueError(f"X (m, n, d_model), V (m, n, n_letters) and targets (m, n - 1) do not fit; got X {X.shape}, "
                         f"V {V.shape}, targets {targets.shape}")
    d_k = W_q.shape[1]
    Q, K = X @ W_q, X @ W_k
    A = softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k))
    O = A @ V
    picked = np.take_along_axis(O[:, 1:], targets[..., None], axis=-1)[..., 0]  # (m, n - 1)
    loss = float(-np.log(picked).mean())
    dO = np.zeros_like(O)
    np.put_along_axis(dO[:, 1:], targets[..., None], (-1.0 / (picked.size * picked))[..., None], axis=-1)
    dA = dO @ np.swapaxes(V, -1, -2)
    dS = softmax_backward(A, dA) / np.sqrt(d_k)
    dQ, dK = dS @ K, np.swapaxes(dS, -1, -2) @ Q
    dW_q = np.einsum("mnd,mnk->dk", X, dQ)
    dW_k = np.einsum("mnd,mnk->dk", X, dK)
    return loss, dW_q, dW_k


def train(task, W_q, W_k, steps: int = 300, lr: float = 1.0, callback=None) -> SimpleNamespace:
    """Plain gradient descent on the copy task, from copies of ``W_q`` and ``W_k``.

    ``callback(step, loss, W_q, W_k)``, if given, is called after every update (step counts from 1).

    Returns
    -------
    SimpleNamespace with the trained ``W_q``, ``W_k`` and ``losses`` (list of float, one per step, before its update)

    Raises
    ------
    ValueError
        If ``steps`` is not a non-negative integer or ``lr`` not a positive finite number, or if training breaks
        down (a step so large that a score or the loss stops being a finite number), saying at which step.
    """
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"steps must be a non-negative integer; got {steps!r}")
    lr = float(lr)
    if not (np.isfinite(lr) and lr > 0):
        raise ValueError(f"lr (the learning rate) must be a positive number; got {lr!r}")
    W_q, W_k = np.array(W_q, dtype=float), np.array(W_k, dtype=float)
    losses = []
    for step in range(1, steps + 1):
        # Too large a learning rate overshoots until a weight of the right letter rounds to 0 (log 0 = -inf)
        # or a score overflows: say so instead of letting numpy's warnings or softmax's NaN message out.
        with np.errstate(all="ignore"):
            try:
                loss, dW_q, dW_k = loss_and_gradients(W_q, W_k, task.X, task.V, task.targets)
            except ValueError:
                loss = float("nan")
            if not (np.isfinite(loss) and np.isfinite(dW_q).all() and np.isfinite(dW_k).all()):
                raise ValueError(f"training broke down at step {step} of {steps}: with learning rate {lr:g} the steps "
                                 "overshoot until the loss is no longer a finite number; try a smaller learning rate")
        W_q -= lr * dW_q
        W_k -= lr * dW_k
        losses.append(loss)
        if callback is not None:
            callback(step, loss, W_q, W_k)
    return SimpleNamespace(W_q=W_q, W_k=W_k, losses=losses)


def previous_token_share(weights) -> float:
    """The mean weight that positions 1 … n-1 give the position just before them: 1.0 for a perfect head."""
    A = np.asarray(weights, dtype=float)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2] or A.shape[-1] < 2:
        raise ValueError(f"weights must be square self-attention weights (..., n, n) with n >= 2; got {A.shape}")
    n = A.shape[-1]
    return float(A[..., np.arange(1, n), np.arange(n - 1)].mean())


def loss_curve(losses, title: str = "Training loss", baseline: float | None = None,
               baseline_label: str = "uniform attention"):
    """The loss per step as a line on a log scale; a figure with alt text (``fig.alt``).

    Parameters
    ----------
    losses : sequence of positive float, one per step
    baseline : float, optional; drawn as a dashed line, named ``baseline_label`` in the legend and the alt text
        (e.g. the loss of a head that attends uniformly)
    """
    L = np.asarray(losses, dtype=float).ravel()
    if L.size == 0 or not np.all(np.isfinite(L)) or np.any(L <= 0):
        raise ValueError(f"losses must be a non-empty sequence of positive finite numbers; got {L.size} values")
    with theme.figure_style():
        fig = described_figure(figsize=(6.0, 3.2), layout="constrained")
        ax = fig.add_subplot()
        steps = np.arange(1, L.size + 1)
        ax.plot(steps, L, color="#3b528b", linewidth=2, label="loss")
        if baseline is not None:
            ax.axhline(float(baseline), color="#8a8779", linestyle="--", linewidth=1.2, label=baseline_label)
            ax.legend(loc="upper right", frameon=False)
        ax.set_yscale("log")
        ax.set_xlabel("step")
        ax.set_ylabel("loss (log scale)")
        ax.set_title(title)
        ax.grid(True, which="major", alpha=0.3)
    marks = sorted({0, L.size // 10, L.size // 3, L.size - 1})
    dashed = "" if baseline is None else f" Dashed line: {baseline_label}, {format_number(float(baseline), 3)}."
    fig.alt = (f"{title}: a line of the loss over {L.size} steps, log scale. "
               + "; ".join(f"step {k + 1}: {format_number(L[k], 3)}" for k in marks) + "." + dashed)
    return fig


class TrainingMonitor(TextForm, widgets.VBox):
    """A progress bar, the current loss and a heatmap of one example's attention weights, updated while a loop runs.

    The loop calls :meth:`show`; every view changes through its widget properties (no printing into an
    ``Output``), so a stored notebook's text stays the same on every run.

    Parameters
    ----------
    labels : sequence of str, the example's tokens (queries and keys)
    steps : int, the number of training steps (the progress bar's end)
    pace : float, the shortest time in seconds between two frames: :meth:`show` waits so that the
        pattern can be watched forming (0: never wait)

    Attributes
    ----------
    progress : ipywidgets.IntProgress, ``value`` = the last step shown
    status : ipywidgets.HTML, "step 120 of 300 · loss 0.052"
    view : ipywidgets.HTML, the attention weights table (fixed [0, 1] colour scale)
    step, loss : the last step and loss shown (0 and None before the first frame)
    weights : ndarray (n, n) shown last
    """

    def __init__(self, labels, steps: int, pace: float = 0.04, title: str = "The head's attention"):
        self.labels = [str(s) for s in labels]
        if not self.labels:
            raise ValueError("labels must name at least one token")
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
            raise ValueError(f"steps must be a positive integer; got {steps!r}")
        if not (isinstance(pace, (int, float)) and 0 <= pace <= 5):
            raise ValueError(f"pace must be a number of seconds between 0 and 5; got {pace!r}")
        self.steps = int(steps)
        self.pace = float(pace)
        self.title = str(title)
        self.step = 0
        self.loss = None
        self._last_frame = None
        n = len(self.labels)
        self.weights = np.full((n, n), 1.0 / n)
        self.progress = widgets.IntProgress(value=0, min=0, max=self.steps, description="training",
                                            layout=widgets.Layout(width="420px", max_width="100%"))
        self.status = widgets.HTML()
        self.view = view_html()
        super().__init__([self.progress, self.status, self.view])
        course_box(self)
        self._draw()

    def __repr__(self):
        return f"TrainingMonitor(tokens={len(self.labels)}, steps={self.steps})"

    def show(self, step: int, loss: float, weights) -> None:
        """Show training step ``step`` (1 … steps), its ``loss`` and the example's ``weights`` (n, n)."""
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or not 0 <= step <= self.steps:
            raise ValueError(f"step must be an integer from 0 to {self.steps}; got {step!r}")
        loss = float(loss)
        if not np.isfinite(loss):
            raise ValueError(f"loss must be a finite number; got {loss!r}")
        A = np.asarray(weights, dtype=float)
        n = len(self.labels)
        if A.shape != (n, n):
            raise ValueError(f"weights must be ({n}, {n}), one row and column per label; got shape {A.shape}")
        if self.pace and self._last_frame is not None:
            wait = self.pace - (time.perf_counter() - self._last_frame)
            if wait > 0:
                time.sleep(wait)  # slowed down so the eye can follow the pattern forming
        self.step, self.loss, self.weights = int(step), loss, A.copy()
        self._draw()
        self._last_frame = time.perf_counter()

    def _draw(self) -> None:
        with self.hold_sync():
            self.progress.value = self.step
            loss = "not yet" if self.loss is None else format_number(self.loss, 3)
            self.status.value = (f"<span style='font-size:{theme.sizes().font};color:{theme.PANEL_FG}'>"
                                 f"step {self.step} of {self.steps} · loss {loss}</span>")
            self.view.value = attention_weights_html(self.weights, self.labels, self.labels,
                                                     title=f"{self.title}, step {self.step}")


MAX_STEPS = 2000


class TrainingLab(LiveWidget, widgets.VBox):
    """Train the head again with your own learning rate, number of steps and seed; see the result.

    Each valid change trains from scratch (:func:`train`, no waiting between steps) and shows the final loss, the
    weight on the previous token in sequences not seen in training, the example's attention weights and the loss
    curve. A value that cannot be used, or a training run that breaks down, leaves the last result on show with a
    message next to the field or above the views.

    Parameters
    ----------
    lr : float, learning rate;  steps : int, 1 … ``MAX_STEPS``;  seed : int, the training data and starting weights
    example : str, the sequence whose weights are shown;  d_k : int

    Attributes
    ----------
    fields : dict "lr", "steps", "seed" -> ipywidgets.Text
    messages : dict, the same keys -> ipywidgets.HTML, what is wrong with that field
    result : SimpleNamespace ``lr``, ``steps``, ``seed``, ``W_q``, ``W_k``, ``losses``, ``weights`` (the example's,
        n × n) and ``previous_share`` (on unseen sequences), of the last run that worked
    summary, view, curve : ipywidgets.HTML
    """

    def __init__(self, lr: float = 1.0, steps: int = 300, seed: int = 0, example: str = "BADCAB", d_k: int = 4):
        self._live_setup()
        self.example = str(example)
        self.d_k = int(d_k)
        self.X_ex, _, _ = encode([self.example])
        self.labels = [f"{i} {t}" for i, t in enumerate(self.example)]
        self.fresh = copy_task(500, length=len(self.example), seed=123)
        layout = widgets.Layout(width="230px")
        self.fields = {
            "lr": widgets.Text(value=f"{lr:g}", description="learning rate", continuous_update=False, layout=layout,
                               style={"description_width": "90px"}),
            "steps": widgets.Text(value=str(steps), description="steps", continuous_update=False, layout=layout,
                                  style={"description_width": "90px"}),
            "seed": widgets.Text(value=str(seed), description="seed", continuous_update=False, layout=layout,
                                 style={"description_width": "90px"}),
        }
        self.messages = {name: widgets.HTML() for name in self.fields}
        self.summary = widgets.HTML()
        self.view = view_html()
        self.curve = widgets.HTML()
        self._runs = {}  # (lr, steps, seed) -> (result, summary, table, curve), the most recent last
        super().__init__([
            wrap_row([widgets.VBox([field, self.messages[name]]) for name, field in self.fields.items()]),
            self.status_html,
            self.summary,
            wrap_row([self.view, self.curve]),
        ])
        course_box(self)
        self._update()  # the starting values are the caller's: a failure here is theirs, raise it
        for name, field in self.fields.items():
            self.watch(field, lambda _c, name=name: self._on_field(name), where=self.messages[name])

    def __repr__(self):
        return f"TrainingLab(lr={self.fields['lr'].value}, steps={self.fields['steps'].value}, " \
               f"seed={self.fields['seed'].value})"

    def set_text(self, name: str, text: str) -> None:
        """Exactly what typing ``text`` into the field ``name`` ("lr", "steps" or "seed") and leaving it does."""
        if name not in self.fields:
            raise ValueError(f"name must be one of {list(self.fields)}; got {name!r}")
        self.fields[name].value = str(text)

    def _parsed(self, name: str):
        text = self.fields[name].value
        try:
            if name == "lr":
                value = parse_number(text)
                if value <= 0:
                    raise ValueError(f"{text.strip()!r} is not above 0: the learning rate must be positive")
                return value
            value = parse_count(text)
        except ValueError as err:
            raise ValueError(f"{self.fields[name].description}: {err}") from None
        if name == "steps" and not 1 <= value <= MAX_STEPS:
            raise ValueError(f"steps: {value} is outside 1 to {MAX_STEPS}")
        if name == "seed" and not 0 <= value < 2**32:
            raise ValueError(f"seed: {value} is outside 0 to {2**32 - 1}")
        return value

    def _on_field(self, name: str) -> None:
        try:
            self._parsed(name)
        except ValueError:
            self._show_status("")  # the field's own message says what is wrong now, not an older run's
            raise  # shown next to this field
        self.clear_problem(self.messages[name])
        self.request_update()

    def _update(self) -> None:
        key = tuple(self._parsed(name) for name in ("lr", "steps", "seed"))
        if key not in self._runs:
            self._runs[key] = self._train(*key)
            while len(self._runs) > 4:  # a few recent runs: going back to one of them redraws at once
                self._runs.pop(next(iter(self._runs)))
        self.result, summary, table, curve = self._runs[key]
        with self.hold_sync():
            self.summary.value, self.view.value, self.curve.value = summary, table, curve

    def _train(self, lr: float, steps: int, seed: int):
        task = copy_task(64, length=len(self.example), seed=seed)
        W_q0, W_k0 = init_weights(task.X.shape[-1], self.d_k, seed=seed)
        run = train(task, W_q0, W_k0, steps=steps, lr=lr)
        weights = attention_weights(self.X_ex, run.W_q, run.W_k)[0]
        share = previous_token_share(attention_weights(self.fresh.X, run.W_q, run.W_k))
        result = SimpleNamespace(lr=lr, steps=steps, seed=seed, W_q=run.W_q, W_k=run.W_k, losses=run.losses,
                                 weights=weights, previous_share=share)
        font = theme.sizes().font
        summary = (
            f"<div style='font-size:{font};color:{theme.PANEL_FG}'>learning rate {format_number(lr, 4)}, "
            f"{steps} steps, seed {seed}: final loss <b>{format_number(run.losses[-1], 4)}</b> · "
            f"weight on the previous token in 500 unseen sequences <b>{share:.3f}</b></div>")
        table = attention_weights_html(weights, self.labels, self.labels, title="After training")
        curve = figure_img_html(loss_curve(run.losses, title=f"Loss, learning rate {format_number(lr, 4)}"))
        return result, summary, table, curve
