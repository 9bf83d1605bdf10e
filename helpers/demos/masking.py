"""Notebook 04's live demo: a padded batch with its masks.

:class:`PaddingDemo`: the learner types the lengths and sees the mask and the weights of every sequence in the batch.
The batch and the masks are in :mod:`helpers.core.masking`; this class draws them.
"""

from __future__ import annotations

import ipywidgets as widgets
import traitlets

from helpers.core.arrays import whole_number
from helpers.core.attention import additive_mask
from helpers.core.masking import SENTENCE_POOL, pad_batch, padded_batch_attention, parse_lengths
from helpers.look import theme
from helpers.look.render import attention_weights_html, matrix_html
from helpers.widgets.layout import course_box, view_html, wrap_row
from helpers.widgets.live import LiveWidget, Whole, validates

__all__ = ["PaddingDemo"]


class PaddingDemo(LiveWidget, widgets.VBox):
    """A padded batch, live: type the lengths, switch the causal mask, pick a sequence.

    Parameters
    ----------
    lengths : sequence of int, one per sentence (1 to 4 sentences, each 1 to 8 tokens)
    causal : bool, combine the padding mask with the causal mask
    selected : int, the sequence whose mask and weights are shown

    Attributes
    ----------
    lengths : list of int (a trait), one per sentence, shown in ``lengths_field`` (typed lengths that are read
        set it; setting it rewrites the field); refused (a ``TraitError``, also a ``ValueError``) as the field refuses
        them
    causal : bool (a trait), linked to ``causal_box``
    selected : int (a trait), linked to ``picker``; refused (a ``TraitError``, also a ``ValueError``) outside
        the batch
    lengths_field : ipywidgets.Text, the lengths as typed ("3, 5, 2")
    message_html : ipywidgets.HTML, next to the field: what is wrong with the typed lengths
    causal_box : ipywidgets.Checkbox
    picker : ipywidgets.ToggleButtons, one button per sequence
    views : dict of ipywidgets.HTML: "batch", "mask", "weights"
    tokens : list of lists of str (batch, n)
    mask : bool (batch, n, n); weights : (batch, n, n); output : (batch, n, 4)
    message : str, '' when the typed lengths are valid

    Invalid lengths leave the last valid batch on screen, with the message next to
    the field; the causal switch and the picker keep working on that batch. Updates
    are synchronous.
    """

    lengths = traitlets.List(Whole(), help="the sentences' lengths, one per sentence")
    causal = traitlets.Bool(False, help="combine the padding mask with the causal mask")
    selected = Whole(0, help="the sequence whose mask and weights are shown")

    def __init__(self, lengths=(3, 5, 2), causal: bool = False, selected: int = 0):
        text = ", ".join(str(int(v)) for v in lengths)
        self.lengths = parse_lengths(text)
        self.causal, self.selected = bool(causal), selected  # checked by the traits
        self._live_setup()
        self.lengths_field = widgets.Text(
            value=text, description="lengths", continuous_update=False,
            style={"description_width": "5em"}, layout=widgets.Layout(width="18em"),
        )
        self.message_html = widgets.HTML()
        self.causal_box = widgets.Checkbox(value=bool(causal), description="causal mask too (decoder)", indent=False)
        self.picker = widgets.ToggleButtons(options=[], description="show sentence",
                                            style={"button_width": "3em", "description_width": "7em"})
        self.views = {name: view_html() for name in ("batch", "mask", "weights")}
        controls = wrap_row([self.lengths_field, self.message_html, self.causal_box])
        # wrap: at 8 tokens the two grids together are wider than a notebook column
        masks = wrap_row([self.views["mask"], self.views["weights"]])
        super().__init__([controls, self.status_html, self.views["batch"], self.picker, masks])
        course_box(self)  # normal line height for wrapped text
        self._set_picker(self.selected)
        self._update()  # the starting values were checked: a failure here is a bug, raise it
        self.watch(self.lengths_field, self._on_lengths, where=self.message_html)
        self.bind(self.causal_box, "causal")
        self.bind(self.picker, "selected")

    # -- state --------------------------------------------------------------------------
    @property
    def message(self) -> str:
        return self.problem(self.message_html)

    @validates("selected")
    def _check_selected(self, b) -> int:
        return int(whole_number(b, "selected", 0, len(self.lengths) - 1))

    @validates("lengths")
    def _check_lengths(self, lengths) -> list[int]:
        return parse_lengths(", ".join(map(str, lengths)))  # the field's rules and messages

    @traitlets.observe("causal", "selected")
    def _setting_changed(self, _change) -> None:
        self.request_update()

    def set_lengths_text(self, text: str) -> None:
        """Exactly what typing ``text`` into the lengths field and pressing Enter does."""
        self.lengths_field.value = text

    # -- events -------------------------------------------------------------------------
    def _on_lengths(self, change) -> None:
        lengths = parse_lengths(change["new"])  # a ValueError is shown next to the field; the batch stays
        self.clear_problem(self.message_html)
        self.lengths = lengths

    @traitlets.observe("lengths")
    def _lengths_changed(self, change) -> None:
        if not self._live_ready:
            return  # the starting batch: drawn once the widget is built
        lengths = change["new"]
        try:
            typed = parse_lengths(self.lengths_field.value)
        except ValueError:
            typed = None
        # New buttons and a new batch: one redraw, at the end, when the picker is on the sentence shown again.
        with self.hold_trait_notifications():
            if typed != lengths:  # set from code: the field shows the lengths (and its handler clears a message)
                self.lengths_field.value = ", ".join(map(str, lengths))
            self._set_picker(min(self.selected, len(lengths) - 1))
            self.request_update()

    def _set_picker(self, selected: int) -> None:
        """One button per sequence, on ``selected`` (new options select button 0 first, which ``selected`` follows
        for a moment: inside a ``hold_trait_notifications`` block nothing is redrawn meanwhile)."""
        self.picker.options = [(str(b), b) for b in range(len(self.lengths))]
        self.picker.value = selected
        self.selected = selected

    def _update(self) -> None:
        sentences = [SENTENCE_POOL[b][:L] for b, L in enumerate(self.lengths)]
        tokens, _ = pad_batch(sentences)
        X, mask, weights, output = padded_batch_attention(tokens, self.lengths, self.causal)
        self.tokens, self.X, self.mask, self.weights, self.output = tokens, X, mask, weights, output
        self._draw()

    # -- rendering ----------------------------------------------------------------------
    def _draw(self) -> None:
        b = self.selected
        n = len(self.tokens[0])
        self.views["batch"].value = self._batch_html()
        labels = [f"{j}:{t}" for j, t in enumerate(self.tokens[b])]
        kind = "padding + causal" if self.causal else "padding only"
        self.views["mask"].value = matrix_html(
            additive_mask(self.mask[b]), row_labels=labels, col_labels=labels,
            title=f"Additive mask of sentence {b} ({kind})", row_axis="Queries ↓", col_axis="Keys →",
            legend=False, note="0 = may attend, — = −∞, blocked",
        )
        blocked = int((~self.mask[b]).sum())
        self.views["weights"].value = attention_weights_html(
            self.weights[b], labels, labels, title=f"Attention weights of sentence {b}", mask=self.mask[b],
            note=f"{blocked} of {n * n} entries blocked (—); every blocked weight is exactly 0",
        )

    def _batch_html(self) -> str:
        n = len(self.tokens[0])
        # A pad token: greyed out by its background; its text keeps the main text colour, readable on that grey.
        pad = f"background:{theme.BORDER};color:{theme.MASKED_FG};"
        rows = [
            [(b, "font-weight:700;" if b == self.selected else "")]
            + [(t, pad) if j >= self.lengths[b] else t for j, t in enumerate(row)]
            + [self.lengths[b]]
            for b, row in enumerate(self.tokens)
        ]
        table = theme.table_html(["sentence", *map(str, range(n)), "length"], rows, align=["center"] * (n + 2),
                                 caption=f"Padded batch, shape ({len(self.tokens)}, {n}): positions →")
        return f'<div style="{theme.MONO}">{table}</div>'

    def __repr__(self) -> str:
        return f"PaddingDemo(lengths={self.lengths}, causal={self.causal})"
