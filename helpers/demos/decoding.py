"""Notebook 05's live demo: a decoder that cheats without the causal mask.

:class:`CheatingDemo`: the learner types a sentence (and can plant a wrong "future" word) and sees what the causal and
the unmasked model predict at each position. The corpus and the models are in :mod:`helpers.core.decoding`; this class
draws them.
"""

from __future__ import annotations

import html as _html
from functools import lru_cache

import ipywidgets as widgets

from helpers.core.decoding import parse_sentence, train
from helpers.core.numbers import MINUS
from helpers.look import theme
from helpers.widgets.layout import course_box, view_html, wrap_row
from helpers.widgets.live import LiveWidget

__all__ = ["CheatingDemo"]


@lru_cache(maxsize=1)  # trained once: every CheatingDemo shows the same two models
def _trained_models():
    return train(causal=True), train(causal=False)


class CheatingDemo(LiveWidget, widgets.VBox):
    """Type a sentence; see what the causal and the unmasked model predict at each position.

    Parameters
    ----------
    sentence : str, words from :data:`helpers.core.decoding.VOCAB` separated by spaces; ``<s>`` is added
        at the front when missing.

    Attributes
    ----------
    field : ipywidgets.Text;  table : ipywidgets.HTML
    message_html : ipywidgets.HTML, next to the field: what is wrong with the typed sentence
        (the field is the only input, so this is the widget's status line)
    tokens : list of str
    predictions : dict "causal", "no_mask_full", "no_mask_past" -> list of str, the
        prediction made at each position (the last position predicts past the end)
    message : str, '' when the sentence is valid (the last valid one stays shown)
    """

    def __init__(self, sentence: str = "the cat barked ."):
        self.message_html = widgets.HTML()
        self._live_setup(status_html=self.message_html)
        self.causal_model, self.cheating_model = _trained_models()
        self.field = widgets.Text(
            value=sentence, description="sentence", continuous_update=False,
            style={"description_width": "6em"}, layout=widgets.Layout(width="26em"),
        )
        self.table = view_html()
        super().__init__([wrap_row([self.field, self.message_html]), self.table])
        course_box(self)  # normal line height for wrapped text
        self._update()  # a bad starting sentence is a programming error: raise
        self.watch(self.field, lambda _c: self.request_update())

    @property
    def message(self) -> str:
        return self.status

    def set_sentence(self, text: str) -> None:
        """Exactly what typing ``text`` into the field and pressing Enter does."""
        self.field.value = text

    def _update(self) -> None:
        tokens = parse_sentence(self.field.value)
        predictions = {
            "causal": self.causal_model.predict(tokens),
            "no_mask_full": self.cheating_model.predict(tokens),
            "no_mask_past": [self.cheating_model.predict(tokens[: t + 1])[-1] for t in range(len(tokens))],
        }
        self.tokens, self.predictions = tokens, predictions
        self.table.value = self._table_html()

    def _table_html(self) -> str:
        # nowrap, with the header's line breaks chosen here: left to the browser, a
        # narrow notebook column split "token t" and "(none typed)" mid-phrase.
        head = "white-space:pre-line;vertical-align:bottom;"
        cols = [
            ("causal", "causal model\npredicts"),
            ("no_mask_full", "no mask, whole\nsentence given"),
            ("no_mask_past", "no mask, only the\npast (generating)"),
        ]
        header = [(h, head) for h in ("t", "token t", "token t+1\nas typed", *(h for _, h in cols))]
        rows = []
        n = len(self.tokens)
        for t in range(n):
            nxt = self.tokens[t + 1] if t + 1 < n else "(none typed)"
            row = [t, self.tokens[t], nxt]
            for key, _ in cols:
                p = self.predictions[key][t]
                same = t + 1 < n and p == nxt
                row.append((f"{p} ✓", "font-weight:700;") if same else p)
            rows.append(row)
        table = theme.table_html(header, rows, align=["left"] * len(header))
        note = (
            f"Heads chosen in training: causal model looks δ = {_signed(self.causal_model.delta)}, "
            f"unmasked model looks δ = {_signed(self.cheating_model.delta)}. The last three columns are each "
            "model's prediction of token t+1; ✓ marks one that equals the typed token."
        )
        return (f'<div style="{theme.MONO}white-space:nowrap">{table}</div>'
                f'<div style="font-size:{theme.sizes().small};margin:2px 0 6px">{_html.escape(note)}</div>')

    def __repr__(self) -> str:
        return f"CheatingDemo(sentence={' '.join(self.tokens)!r})"


def _signed(delta: int) -> str:
    """An offset with its sign, the true minus sign for a negative one: ``+1``, ``−1``."""
    return f"{delta:+d}".replace("-", MINUS)
