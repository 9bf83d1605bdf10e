"""Notebook 07's pattern builder: pick a pattern, set its strength, edit W^Q and W^K, watch the weights.

The token features, the weights of each pattern and the attention they give are in :mod:`helpers.core.patterns`;
:class:`PatternBuilder` shows them and lets the learner change them. With ``goal=`` (a design task of
:mod:`helpers.exercises.design`) it starts from the task's weights and a goal line above the weights says, after
every valid edit, whether the goal is met and what is still off.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import traitlets

from helpers.core.arrays import one_of
from helpers.core.patterns import (
    PATTERNS,
    PHRASES,
    TOKENS,
    check_tokens,
    feature_names,
    pattern_attention,
    pattern_weights,
    token_features,
)
from helpers.exercises.design import design_task
from helpers.exercises.feedback import Feedback
from helpers.look import highlight, theme
from helpers.look.colour_easing import ColourEasing
from helpers.look.render import heatmap, linked_matrix_html, linked_weights_html
from helpers.widgets import MatrixEditor
from helpers.widgets.goal_line import GoalLine
from helpers.widgets.layout import course_box, number_box, view_html, wrap_row
from helpers.widgets.live import LiveWidget, validates
from helpers.widgets.save_buttons import SaveButtons
from helpers.widgets.snapshot import OMIT_CLASS

__all__ = ["PatternBuilder", "START"]

# Linked highlighting: a weight (i, j) lights query i's row in Q and in X, key j's row in K and in X; a token's row
# in X lights everything of that token.
_QUERIES, _KEYS = highlight.rows("pattern-query-rows"), highlight.rows("pattern-key-rows")
_KEY_COLS, _TOKENS = highlight.cols("pattern-key-cols"), highlight.rows("pattern-token-rows")
_LINKS = [([_QUERIES], [_QUERIES, _TOKENS]), ([_KEY_COLS, _KEYS], [_KEYS, _KEY_COLS, _TOKENS]),
          ([_TOKENS], [_QUERIES, _KEYS, _KEY_COLS, _TOKENS])]

START = "start"  # the pattern menu's entry for a design task's own starting weights
_STRENGTH_RANGE = (0.0, 6.0)
_STRENGTHS = np.arange(0.0, 6.0 + 0.25, 0.5)  # every strength the strength field can take


class PatternBuilder(LiveWidget, widgets.VBox):
    """A live pattern builder: pick a pattern, set its strength, edit ``W_q`` / ``W_k``.

    Parameters
    ----------
    pattern : str or None, one of ``PATTERNS`` (or ``START`` with a goal); None: ``"diagonal"``, or with a goal the
        task's starting weights
    strength : float, the value of every non-zero weight (0 to 6)
    tokens, phrases : the sentence and its phrase ids (see :func:`helpers.core.patterns.token_features`)
    goal : str or None
        A design task's name whose arrays are ``W_q`` and ``W_k`` (and ``X``, given, equal to these tokens'
        features). The editors start from the task's weights (``START`` in the menu brings them back); the menu
        leaves out the patterns whose weights meet the goal at some strength; a goal line above the weights (CSS
        class ``attn-goal``) states the goal and, after every valid edit, ✓ or ✗ with what is still off.

    Attributes
    ----------
    pattern : str (a trait), linked to ``pattern_picker``; choosing a pattern loads its weights
    strength : float (a trait), linked to ``strength_box``; reloads the current pattern's weights at this strength
    editors : dict "W_q", "W_k" -> MatrixEditor; edit a cell and the views follow
    result : helpers.core.patterns.PatternAttention (X, Q, K, scores, weights) for the current (last valid) weights
    views : dict "weights", "Q", "K", "X" -> ipywidgets.HTML
    status : str, why the weights in the editors cannot be used ('' when they can), e.g.
        scores too large for floating point; shown in ``status_html`` above the views,
        which keep the last valid result.
    goal : DesignTask or None, the task of ``goal=``
    goal_feedback : Feedback or None, the verdict on the current weights, as the goal line shows it
    goal_met : bool, whether the goal is met now (False without a goal)
    goal_html : helpers.widgets.goal_line.GoalLine (an ipywidgets.HTML), the goal line (hidden without a goal)
    save_weights : helpers.widgets.save_buttons.SaveButtons, "Save PNG" / "Save SVG" under the weights: the weights on
    show
        as a heatmap for a slide, titled with the pattern (``figures/<notebook>-pattern-weights.png``)

    Layout, the data flow down the page: X, then W^Q and W^K side by side with the weights beside them (under them
    on a narrow page), then Q and K, then the explanation of the pattern on show. CSS classes:
    ``pattern-builder`` on the whole, ``pattern-editor-W_q`` and ``pattern-editor-W_k``, ``pattern-view-<name>`` on
    each view, ``pattern-inputs`` on the strip.
    """

    pattern = traitlets.Unicode("diagonal", help="the menu entry whose weights the editors were loaded with")
    strength = traitlets.Float(3.0, help="the value of every non-zero weight of a pattern")

    def __init__(self, pattern: str | None = None, strength: float = 3.0, tokens=TOKENS, phrases=PHRASES,
                 goal: str | None = None):
        task = design_task(goal) if goal is not None else None  # an unknown name raises here
        self.tokens, self.phrases = check_tokens(tokens, phrases)
        self.X = token_features(self.tokens, self.phrases)
        self._features = feature_names(len(self.tokens))
        self.goal = task
        self.goal_feedback: Feedback | None = None
        options = [(label, key) for key, label in PATTERNS.items()]
        if task is not None:
            self._check_goal(task)
            options = [("design task: its starting weights", START)] + [
                (label, key) for label, key in options if not self._meets_at_some_strength(key)]
        if pattern is None:
            pattern = START if task is not None else "diagonal"
        self._pattern_keys = [key for _label, key in options]
        self.pattern, self.strength = pattern, strength  # checked by the traits
        self._live_setup()
        self.pattern_picker = widgets.Dropdown(
            options=options,
            value=pattern,
            description="pattern",
            layout=widgets.Layout(width="460px", max_width="100%"),
        )
        self.strength_box = number_box("strength", self.strength, *_STRENGTH_RANGE, 0.5, label_width="6em",
                                       width="13em")
        self.strength_box.disabled = pattern == START
        self.explain = widgets.HTML()
        self.goal_html = GoalLine(task)
        self.views = {name: view_html() for name in ("weights", "Q", "K", "X")}
        self._easing = ColourEasing()  # the colour each live view showed last
        for name in ("Q", "K", "X"):
            # The picture a stored notebook shows (helpers.widgets.snapshot) leaves the stages out: the weights and the
            # editors are what the builder is about, and notebook 07 stays small (it shows X above the builder).
            self.views[name].add_class(OMIT_CLASS)
        W_q, W_k = self._weights_for(pattern)
        # No Reset / Randomize buttons: the pattern menu reloads a pattern's weights (the task's start too), and the
        # editors stay short enough for the weights to fit under them on a small screen.
        self.editors = {
            name: MatrixEditor(W, row_labels=self._features, col_labels=self._dims(W), title=f"{title} (d_model × d_k)",
                               buttons=False, dense=True)
            for name, title, W in (("W_q", "W^Q", W_q), ("W_k", "W^K", W_k))
        }
        self._links = widgets.HTML(highlight.link_style_html("pattern-builder", _LINKS, len(self.tokens)),
                                   layout=widgets.Layout(display="none"))
        # The data flow: X (the tokens' features, given), then W^Q and W^K (dense rows: their 11 rows and the weights
        # fit a 1024 × 768 screen together) with the weights beside them where the page is wide enough, right under
        # them otherwise, so that the weights stay in view while either editor is edited; then the Q and K they make,
        # and the explanation. Nothing scrolls sideways: the editors are narrow, and the rows wrap.
        strip = widgets.Box([self.editors["W_q"], self.editors["W_k"]],
                            layout=widgets.Layout(display="flex", flex_flow="row nowrap", align_items="flex-end",
                                                  max_width="100%"))
        strip.add_class("pattern-inputs")
        for ed in strip.children:
            ed.layout.flex = "0 0 auto"
            ed.layout.margin = "4px 12px 4px 0"
        # The status (weights too large) right above the weights it keeps as they were; the save row right under them.
        self.save_weights = SaveButtons(self._weights_figure, "pattern-weights")
        weights = widgets.VBox([self.status_html, self.views["weights"], self.save_weights],
                               layout=widgets.Layout(max_width="100%"))
        linked = ("the rows linked to the cell under the pointer or the keyboard focus: its query's row in X and Q, "
                  "its key's row in X and K")
        legend = widgets.HTML(highlight.legend_html([(highlight.LINKED_STYLE, linked)]))
        super().__init__(
            [
                wrap_row([self.pattern_picker, self.strength_box]),
                self.goal_html,
                self.views["X"],
                wrap_row([strip, weights], align_items="flex-end"),
                legend,
                wrap_row([self.views["Q"], self.views["K"]]),
                self.explain,
                self._links,
            ]
        )
        self.add_class("pattern-builder")
        for name, part in (*self.editors.items(), *self.views.items()):
            part.add_class(f"pattern-{'editor' if name.startswith('W') else 'view'}-{name}")
        for name, cls in (("weights", "pattern-query-rows"), ("Q", "pattern-query-rows"), ("K", "pattern-key-rows"),
                          ("weights", "pattern-key-cols"), ("X", "pattern-token-rows")):
            self.views[name].add_class(cls)
        course_box(self)  # normal line height for wrapped text
        self._update()  # the starting weights were checked: a failure here is a bug, raise it
        for ed in self.editors.values():
            # guarded: an editor calls this from its own cell handler, which must not raise
            ed.on_change(self.guarded(lambda _ed: self.request_update()))
        self.bind(self.pattern_picker, "pattern")
        self.bind(self.strength_box, "strength")

    def __repr__(self):
        goal = f", goal={self.goal.name!r}" if self.goal is not None else ""
        return (f"PatternBuilder(pattern={self.pattern!r}, strength={self.strength:g}, tokens={len(self.tokens)}"
                f"{goal})")

    # -- the goal of a design task

    def _check_goal(self, task) -> None:
        """Refuse a task this builder cannot show: arrays other than W_q, W_k and X, or an X of other tokens."""
        if not {"W_q", "W_k"} <= set(task.changeable) or not set(task.names) <= {"W_q", "W_k", "X"}:
            raise ValueError(f"goal {task.name!r} changes {', '.join(task.changeable)}; the pattern builder "
                             "changes W_q and W_k (with X fixed)")
        if "X" in task.given and (task.given["X"].shape != self.X.shape or not np.allclose(task.given["X"], self.X)):
            raise ValueError(f"goal {task.name!r} is set on other tokens: its X is not the features of "
                             f"{' '.join(self.tokens)}")

    def _arrays(self, W_q, W_k) -> dict:
        arrays = {"W_q": W_q, "W_k": W_k}
        if "X" in self.goal.names:
            arrays["X"] = self.X
        return arrays

    def _meets_at_some_strength(self, pattern: str) -> bool:
        """Whether a pattern's own weights meet the goal at some strength of the field (not recorded as met)."""
        n = len(self.tokens)
        return any(self.goal.check(**self._arrays(*pattern_weights(pattern, n, s))).correct for s in _STRENGTHS)

    @property
    def goal_met(self) -> bool:
        """Whether the current weights meet the goal of ``goal=`` now (False without a goal)."""
        return self.goal_feedback is not None and self.goal_feedback.correct

    def _judge_goal(self) -> None:
        """Check the goal on the current weights and show the verdict in the goal line."""
        W_q, W_k = (self.editors[k].value for k in ("W_q", "W_k"))
        d_k = self._weights_for(START)[0].shape[1]
        if W_q.shape[1] != d_k:
            # A pattern of another width loaded from the menu, to look at: say so rather than "wrong shape".
            self.goal_feedback = self.goal_html.judge(feedback=Feedback(
                False, f"Not yet: this pattern has d_k = {W_q.shape[1]}; the goal is judged on weights with d_k = "
                       f"{d_k}, the task's (the menu's first entry brings them back)."))
        else:
            self.goal_feedback = self.goal_html.judge(self._arrays(W_q, W_k))

    def _weights_for(self, pattern: str):
        """``W_q``, ``W_k`` that the menu entry ``pattern`` loads: a pattern's at the strength, or the task's start."""
        if pattern == START:
            task = self.goal
            return tuple(np.array(task.start[k] if k in task.start else task.given[k]) for k in ("W_q", "W_k"))
        return pattern_weights(pattern, len(self.tokens), self.strength)

    @staticmethod
    def _dims(W):
        return [f"d{c + 1}" for c in range(W.shape[1])]

    @validates("pattern")
    def _valid_pattern(self, value) -> str:
        return one_of(value, self._pattern_keys, "pattern")

    @validates("strength")
    def _valid_strength(self, value) -> float:
        value = float(value)
        lo, hi = _STRENGTH_RANGE
        if not lo <= value <= hi:
            raise ValueError(f"strength must be between {lo:g} and {hi:g}; got {value:g}")
        return value

    @traitlets.observe("pattern", "strength")
    def _on_controls(self, _change=None):
        if not self._live_ready:
            return  # the starting weights are loaded when the editors are made
        self.strength_box.disabled = self.pattern == START  # the task's start has no strength
        W_q, W_k = self._weights_for(self.pattern)
        # Both editors change shape together: recompute once, after both are loaded,
        # so that no update sees a W_q and a W_k of different widths.
        with self.hold_trait_notifications():
            self.editors["W_q"].set_value(W_q, col_labels=self._dims(W_q), as_start=True)
            self.editors["W_k"].set_value(W_k, col_labels=self._dims(W_k), as_start=True)
            self.request_update()

    def _weights_figure(self):
        """The weights on show as a heatmap for a slide (the "Save PNG" / "Save SVG" buttons under them)."""
        return heatmap(self.result.weights, self.tokens, self.tokens, title=self._figure_title)

    def _compute(self):
        W_q, W_k = self.editors["W_q"].value, self.editors["W_k"].value
        # Every cell is a finite number, but products of huge ones are not: check the
        # scores first, quietly, and say what to do instead of letting softmax refuse inf.
        with np.errstate(over="ignore", invalid="ignore"):
            scores = (self.X @ W_q) @ (self.X @ W_k).T
        if not np.isfinite(scores).all():
            raise ValueError("W^Q and W^K: these weights make the scores Q·K too large to compute "
                             "(beyond about 1e308); make some weights smaller")
        return pattern_attention(self.tokens, self.phrases, W_q=W_q, W_k=W_k)

    def _update(self):
        r = self._compute()
        self.result = r
        d_k = r.Q.shape[1]
        cols = self._dims(r.Q)
        W_q0, W_k0 = self._weights_for(self.pattern)
        edited = not (
            W_q0.shape == self.editors["W_q"].value.shape
            and np.array_equal(W_q0, self.editors["W_q"].value)
            and np.array_equal(W_k0, self.editors["W_k"].value)
        )
        name = "design task: your weights" if self.pattern == START else PATTERNS[self.pattern]
        reload = ("The pattern menu loads a pattern's weights to compare (those that already meet the goal are left "
                  "out); its first entry brings back the task's start." if self.goal is not None
                  else "The strength field and the pattern menu reload that pattern's weights.")
        # The words of the line above the weights, kept with the weights they name for a saved figure.
        self._figure_title = f"Attention weights\n{name}{' (weights edited)' if edited else ''}"
        self.explain.value = (
            f"<div style='max-width:900px;font-size:{theme.sizes().font}'><b>{name}</b>"
            f"{' (weights edited)' if edited else ''}. "
            f"d<sub>model</sub> = {r.X.shape[1]}, d<sub>k</sub> = {d_k}: weights = softmax(Q K<sup>T</sup> / √{d_k}). "
            "Edit a weight in W<sup>Q</sup> or W<sup>K</sup> above and leave the cell: the views follow. "
            f"{reload}</div>"
        )
        self.views["weights"].value = linked_weights_html(r.weights, self.tokens, self.tokens, focusable=True,
                                                          easing=self._easing)
        self.views["Q"].value = linked_matrix_html(r.Q, row_labels=self.tokens, col_labels=cols, title="Q = X W^Q",
                                            row_axis="Queries ↓", easing=self._easing)
        self.views["K"].value = linked_matrix_html(r.K, row_labels=self.tokens, col_labels=cols, title="K = X W^K",
                                            row_axis="Keys ↓", easing=self._easing)
        self.views["X"].value = linked_matrix_html(
            r.X, row_labels=self.tokens, col_labels=self._features, title="X: token features (n × d_model)", digits=0,
            easing=self._easing)
        if self.goal is not None:
            self._judge_goal()
