"""Notebook 15's views of the learning: the loss curve, the training monitor and the learning-rate lab.

:func:`loss_curve` and :class:`TrainingMonitor` only draw numbers they are given; :class:`TrainingLab` (train
again with a typed learning rate, number of steps and seed) calls :func:`helpers.core.learning.train` and draws its
result. The task and the math are in :mod:`helpers.core.learning`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from helpers.core.arrays import whole_number
from helpers.core.learning import attention_weights, copy_task, encode, init_weights, previous_token_share, train
from helpers.core.numbers import number_text
from helpers.core.parsing import parse_count, parse_number
from helpers.look import theme
from helpers.look.render import attention_weights_html, described_figure, figure_img_html, heatmap
from helpers.widgets.layout import course_box, view_html, wrap_row
from helpers.widgets.live import LiveWidget, TextForm, animations_on
from helpers.widgets.save_buttons import SaveButtons

__all__ = ["loss_curve", "TrainingMonitor", "MAX_STEPS", "LabRun", "TrainingLab"]


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
        ax.plot(steps, L, color="#1f77b4", linewidth=2, label="loss")  # 4:1 and more on light and dark
        if baseline is not None:
            ax.axhline(float(baseline), color="#8a8779", linestyle="--", linewidth=1.2, label=baseline_label)
            ax.legend(loc="upper right", frameon=False)
        ax.set_yscale("log")
        ax.set_xlabel("step")
        ax.set_ylabel("loss (log scale)")
        ax.set_title(title)
        ax.grid(True, which="major", alpha=0.3)
    marks = sorted({0, L.size // 10, L.size // 3, L.size - 1})
    dashed = ("" if baseline is None
              else f" Dashed line: {baseline_label}, {number_text(float(baseline), 3, mark_tiny=True)}.")
    fig.alt = (f"{title}: a line of the loss over {L.size} steps, log scale. "
               + "; ".join(f"step {k + 1}: {number_text(L[k], 3, mark_tiny=True)}" for k in marks) + "." + dashed)
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
        pattern can be watched forming (0: never wait; nor where nobody watches the frames: see
        :func:`helpers.widgets.live.animations_on`)

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
        steps = whole_number(steps, "steps")
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
        step = whole_number(step, "step", 0, self.steps)
        loss = float(loss)
        if not np.isfinite(loss):
            raise ValueError(f"loss must be a finite number; got {loss!r}")
        A = np.asarray(weights, dtype=float)
        n = len(self.labels)
        if A.shape != (n, n):
            raise ValueError(f"weights must be ({n}, {n}), one row and column per label; got shape {A.shape}")
        if self.pace and self._last_frame is not None and animations_on():
            wait = self.pace - (time.perf_counter() - self._last_frame)
            if wait > 0:
                time.sleep(wait)  # slowed down so the eye can follow the pattern forming
        self.step, self.loss, self.weights = int(step), loss, A.copy()
        self._draw()
        self._last_frame = time.perf_counter()

    def _draw(self) -> None:
        with self.hold_sync():
            self.progress.value = self.step
            loss = "not yet" if self.loss is None else number_text(self.loss, 3, mark_tiny=True)
            self.status.value = (f"<span style='font-size:{theme.sizes().font};color:{theme.PANEL_FG}'>"
                                 f"step {self.step} of {self.steps} · loss {loss}</span>")
            self.view.value = attention_weights_html(self.weights, self.labels, self.labels,
                                                     title=f"{self.title}, step {self.step}")


MAX_STEPS = 2000  # the most steps the lab accepts


@dataclass
class LabRun:
    """One training run of :class:`TrainingLab`: its settings and what came out.

    Attributes
    ----------
    lr : float, the learning rate;  steps : int;  seed : int, the training data and starting weights
    W_q, W_k : ndarray (d_model, d_k), the trained weights
    losses : list of float, one per step (see :class:`helpers.core.learning.TrainingRun`)
    weights : ndarray (n, n), the lab's example sequence's attention weights after training
    previous_share : float, the mean weight on the previous token in 500 sequences not seen in training
    """

    lr: float
    steps: int
    seed: int
    W_q: np.ndarray
    W_k: np.ndarray
    losses: list[float]
    weights: np.ndarray
    previous_share: float


_WEIGHTS_TITLE = "After training"  # the lab's weights view, and the figure saved from it


def _settings(lr: float, steps: int, seed: int) -> str:
    """A run's settings as the lab's summary line says them: "learning rate 1, 300 steps, seed 0"."""
    return f"learning rate {number_text(lr, 4, mark_tiny=True)}, {steps} steps, seed {seed}"


class TrainingLab(LiveWidget, widgets.VBox):
    """Train the head again with your own learning rate, number of steps and seed; see the result.

    Each valid change trains from scratch (:func:`helpers.core.learning.train`, no waiting between steps) and shows the
    final loss, the weight on the previous token in sequences not seen in training, the example's attention weights
    and the loss curve. A value that cannot be used, or a training run that breaks down, leaves the last result on
    show with a message next to the field or above the views.

    Parameters
    ----------
    lr : float, learning rate;  steps : int, 1 … ``MAX_STEPS``;  seed : int, the training data and starting weights
    example : str, the sequence whose weights are shown;  d_k : int

    Attributes
    ----------
    fields : dict "lr", "steps", "seed" -> ipywidgets.Text
    messages : dict, the same keys -> ipywidgets.HTML, what is wrong with that field
    result : LabRun, the last run that worked
    summary, view, curve : ipywidgets.HTML
    save_weights : helpers.widgets.save_buttons.SaveButtons, "Save PNG" / "Save SVG" under the weights: the example's
    weights
        after the run on show, as a heatmap for a slide (``figures/<notebook>-training-weights.png``)
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
        self.save_weights = SaveButtons(self._weights_figure, "training-weights")
        super().__init__([
            wrap_row([widgets.VBox([field, self.messages[name]]) for name, field in self.fields.items()]),
            self.status_html,
            self.summary,
            # The save buttons under the weights: a figure for a slide.
            wrap_row([widgets.VBox([self.view, self.save_weights], layout=widgets.Layout(max_width="100%")),
                      self.curve]),
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

    def _weights_figure(self):
        """The example's weights after the run on show, as a heatmap for a slide (the "Save PNG" / "Save SVG")."""
        r = self.result
        title = f"{_WEIGHTS_TITLE}\n{_settings(r.lr, r.steps, r.seed)}"
        return heatmap(r.weights, self.labels, self.labels, title=title)

    def _train(self, lr: float, steps: int, seed: int):
        task = copy_task(64, length=len(self.example), seed=seed)
        W_q0, W_k0 = init_weights(task.X.shape[-1], self.d_k, seed=seed)
        run = train(task, W_q0, W_k0, steps=steps, lr=lr)
        weights = attention_weights(self.X_ex, run.W_q, run.W_k)[0]
        share = previous_token_share(attention_weights(self.fresh.X, run.W_q, run.W_k))
        result = LabRun(lr=lr, steps=steps, seed=seed, W_q=run.W_q, W_k=run.W_k, losses=run.losses,
                        weights=weights, previous_share=share)
        font = theme.sizes().font
        summary = (
            f"<div style='font-size:{font};color:{theme.PANEL_FG}'>{_settings(lr, steps, seed)}: "
            f"final loss <b>{number_text(run.losses[-1], 4, mark_tiny=True)}</b> · "
            f"weight on the previous token in 500 unseen sequences <b>{number_text(share, 3, trim=False)}</b></div>")
        table = attention_weights_html(weights, self.labels, self.labels, title=_WEIGHTS_TITLE)
        lr_text = number_text(lr, 4, mark_tiny=True)
        curve = figure_img_html(loss_curve(run.losses, title=f"Loss, learning rate {lr_text}"))
        return result, summary, table, curve
