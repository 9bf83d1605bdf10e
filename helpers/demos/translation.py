"""Notebook 06's demos of the toy translation: decoding step by step, and the toy in a cross-attention explorer.

The toy's words, matrices and cross-attention are in :mod:`helpers.core.translation`.
"""

from __future__ import annotations

from dataclasses import replace

import ipywidgets as widgets
import numpy as np
import traitlets

from helpers.core.arrays import whole_number
from helpers.core.translation import ToyTranslation, cross_attention, toy_translation
from helpers.look.render import attention_weights_html, matrix_html
from helpers.widgets.layout import choice_buttons, course_box, view_html
from helpers.widgets.live import LiveWidget, Whole, validates

__all__ = ["DecodingStepsDemo", "translation_explorer"]


class DecodingStepsDemo(LiveWidget, widgets.VBox):
    """Decode one French token at a time; compare cross-attention with the roles reversed.

    At step t the decoder's input is its first t tokens, ``<s>`` and the t - 1 French words written so far (the
    target shifted right): t rows, the last of which writes word t.

    * As built (Q from the decoder, K and V from the encoder): weights (t, 4), one
      output row per decoder position; rows already computed never change.
    * Reversed (Q from the encoder, K and V from the decoder): weights (4, t), one
      output row per *source* token, and every row changes as the decoder grows.

    Attributes
    ----------
    step_picker : ipywidgets.ToggleButtons (1..6);  views : dict of ipywidgets.HTML "cross", "reversed"
    step : int (a trait, linked to ``step_picker``);  cross_weights (t, 4), cross_output (t, 6),
    reversed_weights (4, t), reversed_output (4, 6)
    status, status_html : what could not be computed ('' when all is well), and where it shows
        (an edited ``toy`` can hold weights too large to compute)
    """

    step = Whole(3, help="the decoder's step t: its first t input tokens")

    def __init__(self, step: int = 3, toy: ToyTranslation | None = None):
        self.toy = toy_translation() if toy is None else toy
        self.step = step  # checked by the trait
        self._live_setup()
        n = len(self.toy.decoder_input)
        inputs, target = list(self.toy.decoder_input), list(self.toy.target)
        self.step_picker = choice_buttons(
            "decoder step t", list(range(1, n + 1)), self.step,
            tooltips=[f"input: {' '.join(inputs[:t])} (the last row writes '{target[t - 1]}')"
                      for t in range(1, n + 1)],
        )
        self.step_picker.style.description_width = "8em"
        self.views = {k: view_html() for k in ("cross", "reversed")}
        super().__init__([
            self.step_picker,
            self.status_html,
            self.views["cross"],  # top: as built
            self.views["reversed"],  # below it: roles reversed
        ])
        course_box(self)  # normal line height for wrapped text
        self._update()  # the toy is the caller's: a failure here is theirs, raise it
        self.bind(self.step_picker, "step")

    @validates("step")
    def _valid_step(self, value) -> int:
        return int(whole_number(value, "step", 1, len(self.toy.decoder_input)))

    @traitlets.observe("step")
    def _step_changed(self, _change) -> None:
        self.request_update()

    def _update(self) -> None:
        t, toy = self.step, self.toy
        so_far = toy.decoder_input[:t]
        cross = cross_attention(toy.X_dec[:t], toy.X_enc, toy.W_q, toy.W_k, toy.W_v)
        # Reversed roles: the encoder asks, the decoder's tokens so far answer.
        reverse = cross_attention(toy.X_enc, toy.X_dec[:t], toy.W_q, toy.W_k, toy.W_v)
        # Assigned together once both succeeded: a failure keeps the last valid step.
        (self.cross_output, self.cross_weights), (self.reversed_output, self.reversed_weights) = cross, reverse
        self.views["cross"].value = attention_weights_html(
            self.cross_weights, so_far, toy.source,
            title="As built: Q from the decoder, K, V from the encoder",
            note=f"{t} rows, one per decoder input token so far; output shape {self.cross_output.shape}",
        ) + matrix_html(self.cross_output, row_labels=so_far, col_labels=toy.value_columns,
                        title="Output (one row per decoder position)", legend=False)
        self.views["reversed"].value = attention_weights_html(
            self.reversed_weights, toy.source, so_far,
            title="Reversed: Q from the encoder, K, V from the decoder",
            note=f"{len(toy.source)} rows, one per English token, whatever t is; output shape "
                 f"{self.reversed_output.shape}",
        ) + matrix_html(self.reversed_output, row_labels=toy.source, col_labels=toy.value_columns,
                        title="Output (one row per source token)", legend=False)

    def __repr__(self) -> str:
        return (f"DecodingStepsDemo(step={self.step}, decoder_input={len(self.toy.decoder_input)}, "
                f"source={len(self.toy.source)})")


def translation_explorer(toy: ToyTranslation | None = None, large: bool = False, compact: bool | None = None,
                         goal: str | None = None):
    """The toy in a :class:`helpers.widgets.CrossAttentionExplorer`, rows and columns named.

    The decoder's rows are its input tokens (``<s> le chat noir s' est``, the target shifted right). The rows of
    ``W^Q``, ``W^K``, ``W^V`` are labelled with the input dimensions ("en:black", "fr:chat", ...) and their columns
    with the meanings / French words, so the learner can find the entry to edit: to make the position whose input is
    "chat" look at "cat", move the 2 in row "fr:chat" of ``W^Q`` from column "colour" to column "animal".

    ``goal`` names a design task of notebook 06 (:mod:`helpers.exercises.design`): the explorer starts from the
    task's arrays (its start, and its fixed arrays) in place of the toy's own, and shows the goal line.
    """
    from helpers.exercises.design import design_task
    from helpers.widgets import CrossAttentionExplorer

    toy = toy_translation() if toy is None else toy
    if goal is not None:
        task = design_task(goal)  # an unknown name raises here
        toy = replace(toy, **{name: np.array(value) for name, value in {**task.start, **task.given}.items()})
    ex = CrossAttentionExplorer(toy.decoder_input, toy.source, toy.X_dec, toy.X_enc, toy.W_q, toy.W_k, toy.W_v,
                                large=large, compact=compact, goal=goal)
    dims = toy.input_dims
    ex.editors["X_dec"].set_labels(row_labels=toy.decoder_input, col_labels=dims)
    ex.editors["X_enc"].set_labels(row_labels=toy.source, col_labels=dims)
    ex.editors["W_q"].set_labels(row_labels=dims, col_labels=toy.meanings)
    ex.editors["W_k"].set_labels(row_labels=dims, col_labels=toy.meanings)
    ex.editors["W_v"].set_labels(row_labels=dims, col_labels=toy.value_columns)
    ex.refresh()  # the views take their column names from the weight editors
    return ex
