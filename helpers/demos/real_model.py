"""Notebook 12's views of the real model: the head explorer and every head at a glance.

:class:`HeadExplorer`: type a sentence, pick a layer and a head, read the weights between the tokens, and see all
6 × 12 heads as thumbnails (:func:`thumbnails_figure`; :func:`thumbnails_png` draws them as PNG, fast). The
measurements of the heads are in :mod:`helpers.core.head_analysis`, the model itself in :mod:`helpers.core.pretrained`.

The model is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0).
"""

from __future__ import annotations

import html as _html

import ipywidgets as widgets
import numpy as np
import traitlets

from helpers.core.head_analysis import check_layer_head, token_index
from helpers.core.numbers import number_text
from helpers.core.parsing import quote
from helpers.core.pretrained import MiniLMOutput
from helpers.core.recent import Recent
from helpers.look import theme
from helpers.look.render import WEIGHTS, attention_weights_html, heatmap
from helpers.widgets.layout import choice_buttons, course_box, picker_group, view_html, wrap_row
from helpers.widgets.live import LiveWidget, Whole, validates
from helpers.widgets.save_buttons import SaveButtons

__all__ = ["thumbnails_figure", "thumbnails_png", "HeadExplorer"]


# ---------------------------------------------------------------------------------------------
# All heads at a glance
# ---------------------------------------------------------------------------------------------

def _gap(n: int) -> int:
    """Blank pixels between two thumbnails of n × n weights."""
    return max(1, n // 4)


def _tile(attentions: np.ndarray, gap: int) -> np.ndarray:
    """Lay the (L, H, n, n) weights out as one (L·(n+gap)−gap, H·(n+gap)−gap) image, NaN in the gaps."""
    L, H, n, _ = attentions.shape
    step = n + gap
    img = np.full((L * step - gap, H * step - gap), np.nan)
    for l in range(L):
        for h in range(H):
            img[l * step : l * step + n, h * step : h * step + n] = attentions[l, h]
    return img


def thumbnails_figure(out: MiniLMOutput, selected=None, width: float = 11.0):
    """Every head's weights as a small heatmap: a grid of layers (rows) × heads (columns).

    Parameters
    ----------
    out : MiniLMOutput
    selected : (layer, head), optional
        Outline this thumbnail.
    width : float
        Figure width in inches.

    Returns
    -------
    matplotlib.figure.Figure (not pyplot; safe inside widgets). Each thumbnail has the
    queries down and the keys across, like the big heatmap, with the colour scale fixed to
    [0, 1]. All thumbnails are drawn in one image, which keeps redrawing fast. Drawn in
    :func:`helpers.look.theme.figure_style` (light paper, dark text, grey border), so the image
    reads in JupyterLab's light and dark themes alike. :func:`thumbnails_png` gives the same
    picture as PNG bytes, faster.
    """
    with theme.figure_style(paper=True):  # light paper, dark text: readable in light and dark themes (see theme)
        fig, _image, outline = _thumbnails_parts(out.attentions, width)
        _place_outline(outline, selected, out.attentions.shape[2])
        return fig


def thumbnails_png(out: MiniLMOutput, selected=None, width: float = 11.0) -> bytes:
    """:func:`thumbnails_figure` as PNG bytes: exactly ``figure_png(thumbnails_figure(out, selected, width))``.

    The parameters are :func:`thumbnails_figure`'s. Only the weights and the outline are drawn
    for each call: the rest (paper, ticks, labels, title), which depends only on the number of
    layers, heads and tokens and on the width, is drawn once and kept (a full draw spends most of
    its time on that text).

    Returns
    -------
    bytes, a PNG (the same bytes as :func:`helpers.look.render.figure_png` of the figure).
    """
    import io

    import matplotlib.image

    A = out.attentions
    with theme.figure_style(paper=True):
        # matplotlib's settings (figure.dpi, fonts, ...) shape the frame too: one drawn under others is not reused.
        key = (A.shape, float(width), repr(list(dict.items(matplotlib.rcParams))))
        frame = _FRAMES.get(key, lambda: _Frame(A, width))
        rgba = frame.draw(A, selected)
        # What matplotlib's print_png (which figure_png calls) does with the pixels it drew: the same bytes.
        buffer = io.BytesIO()
        matplotlib.image.imsave(buffer, rgba, format="png", origin="upper", dpi=frame.dpi,
                                metadata={"Software": None})
    return buffer.getvalue()


def _thumbnails_parts(A: np.ndarray, width: float):
    """The thumbnails of the (L, H, n, n) weights ``A``: (figure, its image of the weights, the selection outline).

    The outline is hidden; :func:`_place_outline` shows it. Call inside :func:`helpers.look.theme.figure_style`.
    """
    from matplotlib.patches import Rectangle

    L, H, n, _ = A.shape
    gap = _gap(n)
    img = _tile(A, gap)
    height = width * img.shape[0] / img.shape[1] + 0.9
    fig = theme.new_figure(paper=True, figsize=(width, height))
    # Fixed margins instead of a layout engine: laying out the tick labels again on every
    # redraw would double the time it takes.
    ax = fig.add_axes((0.4 / width, 0.1 / height, 1 - 0.5 / width, 1 - 0.9 / height))
    # The course's weights colours (the hue with its strength as alpha), over the paper's white.
    cmap = WEIGHTS.colormap()[0].with_extremes(bad="white")
    image = ax.imshow(np.ma.masked_invalid(img), cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
    centres = (n - 1) / 2
    ax.set_xticks([h * (n + gap) + centres for h in range(H)], [str(h) for h in range(H)])
    ax.set_yticks([l * (n + gap) + centres for l in range(L)], [str(l) for l in range(L)])
    ax.xaxis.set_ticks_position("top")
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    outline = ax.add_patch(Rectangle((0.0, 0.0), n + 1.0, n + 1.0, fill=False, edgecolor=theme.HIGHLIGHT,
                                     linewidth=2.5, visible=False))
    ax.set_title(f"All {L * H} heads: each square is one head's {n} × {n} weights "
                 "(queries ↓, keys →; colour 0 to 1)", fontsize=10)
    return fig, image, outline


def _place_outline(outline, selected, n: int) -> None:
    """Put the outline round the (layer, head) thumbnail ``selected`` of n × n weights; hide it if None."""
    outline.set_visible(selected is not None)
    if selected is not None:
        l, h = selected
        step = n + _gap(n)
        outline.set_xy((h * step - 1.0, l * step - 1.0))


class _Frame:
    """The thumbnails of one shape drawn once without the weights and the outline; each call draws only those.

    matplotlib's blitting: the frame's pixels are kept (``copy_from_bbox``) and put back before each
    drawing (``restore_region``). Nothing of the frame overlaps the weights and the outline except the
    axes' paper, which lies under them in a full draw too (the ticks have no length, the labels and
    the title are outside the axes), so the pixels are those of a full draw.
    """

    def __init__(self, A: np.ndarray, width: float):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig, self.image, self.outline = _thumbnails_parts(A, width)
        self.canvas = FigureCanvasAgg(fig)
        self.dpi = fig.dpi
        self.image.set_visible(False)
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(fig.bbox)
        self.image.set_visible(True)

    def draw(self, A: np.ndarray, selected):
        """The pixels (height, width, 4) of the thumbnails of ``A`` with ``selected`` outlined (a view, valid
        until the next call)."""
        n = A.shape[2]
        self.canvas.restore_region(self.background)
        self.image.set_data(np.ma.masked_invalid(_tile(A, _gap(n))))
        ax = self.image.axes
        ax.draw_artist(self.image)
        _place_outline(self.outline, selected, n)
        ax.draw_artist(self.outline)  # draws nothing when hidden
        return self.canvas.buffer_rgba()


# Frames kept, one per shape (number of tokens) and width: a few sentence lengths a learner goes back and forth
# between. Each holds two full RGBA images of the figure (the canvas and its saved frame), about 3 MB each.
_FRAMES = Recent(4)


_GRID_CACHE = 8  # thumbnail images kept per explorer (about 50 KB each)
_PREVIOUS_BYTES = 4_000_000  # the model's reading of the sentence shown before is kept up to this size (n ≈ 80)


# ---------------------------------------------------------------------------------------------
# The widget
# ---------------------------------------------------------------------------------------------

class _TitledImage(widgets.Image):
    """``widgets.Image`` whose tooltip (its title, the image's text alternative) can be set.

    ipywidgets 8.1.9's view reads the model's ``description`` when it applies a tooltip, and an Image has none: the
    view fails to render ("Cannot read properties of undefined"). An empty ``description`` avoids that.
    """

    description = traitlets.Unicode("").tag(sync=True)


class HeadExplorer(LiveWidget, widgets.VBox):
    """Type a sentence, pick a layer and a head, read the real model's attention weights.

    Parameters
    ----------
    model : helpers.core.pretrained.MiniLM
    text : str
        The starting sentence.
    layer, head : int
        The starting head (0-based).
    query : str, optional
        A token whose row is traced in words under the table (default: the first word token).
    show_grid : bool
        Draw the 6 × 12 thumbnails (one PNG, redrawn when the sentence or the head changes).

    Attributes
    ----------
    text_box : ipywidgets.Text
        The sentence; the model runs when the learner presses Enter or leaves the field.
    layer_picker, head_picker : ipywidgets.ToggleButtons (one button per layer, per head), each in a framed group
        named above its buttons (classes ``course-picker`` and ``head-explorer-layers`` / ``head-explorer-heads``)
    layer, head : int (traits), linked to ``layer_picker`` and ``head_picker``
    query : int (a trait), the index in ``tokens`` of the token whose row is traced, linked to ``query_picker``;
        a token may be assigned (``explorer.query = "bank"``: its first occurrence)
    query_picker : ipywidgets.Dropdown, the token whose row is traced
    message_html : ipywidgets.HTML, next to the field: what is wrong with the typed text
    status_html : ipywidgets.HTML, what else could not be done ('' when all is well)
    table : ipywidgets.HTML, the weights of the selected head as a table
    save_weights : helpers.widgets.save_buttons.SaveButtons, "Save PNG" / "Save SVG" of those weights for a slide
    trace_html : ipywidgets.HTML, the traced row in words
    grid : ipywidgets.Image, all heads (PNG)
    output : MiniLMOutput for the last valid sentence
    weights : ndarray (n, n), the selected head's weights

    Updates are synchronous: after ``set_text`` (or setting ``layer``/``head``) returns,
    every view shows the new state. Invalid text shows a message and leaves the last
    valid view in place.
    """

    layer = Whole(0, help="the layer shown (0-based)")
    head = Whole(4, help="the head shown (0-based)")
    query = traitlets.Union([Whole(), traitlets.Unicode()], default_value=1,
                            help="the traced token's index in tokens (a token may be assigned)")

    def __init__(self, model, text: str = "I went to the bank to deposit money", layer: int = 0, head: int = 4,
                 query=None, show_grid: bool = True):
        self.model = model
        self._show_grid = bool(show_grid)
        self._grid_drawn = None  # (output, layer, head) the thumbnails show
        self._grid_pngs = Recent(_GRID_CACHE)  # (sentence, layer, head) -> thumbnails drawn for it
        self.output = self._run(text)  # a bad starting sentence is a programming error: raise
        self._previous = None  # the sentence shown before this one (see _on_text)
        L, H = self.output.attentions.shape[:2]
        check_layer_head(self.output, layer, head)
        self.layer, self.head = layer, head
        self._live_setup()

        self.text_box = widgets.Text(
            value=text, description="Sentence", continuous_update=False,
            placeholder="type a sentence, then press Enter",
            style={"description_width": "5em"}, layout=widgets.Layout(width="46em", max_width="100%"),
        )
        self.message_html = widgets.HTML()
        self.layer_picker = choice_buttons("layer", list(range(L)), layer)
        self.head_picker = choice_buttons("head", list(range(H)), head)
        self.query_picker = widgets.Dropdown(description="trace row", style={"description_width": "5em"},
                                             layout=widgets.Layout(width="18em"))
        self.table = view_html()
        self.trace_html = widgets.HTML()
        self.save_weights = SaveButtons(self._weights_figure, lambda: f"layer{self.layer}-head{self.head}")
        # The tooltip is the image's title, which is also its text alternative for a screen reader.
        self.grid = _TitledImage(format="png", layout=widgets.Layout(max_width="100%"),
                                  tooltip=f"Thumbnails of all {L * H} heads' attention weights ({L} layers × {H} "
                                          "heads) for this sentence; the selected head is outlined.")
        children = [
            wrap_row([self.text_box, self.message_html]),
            # Layer and head as two framed, named groups: side by side they read as two choices, not one strip.
            wrap_row([picker_group(f"Layer (0–{L - 1})", self.layer_picker, "head-explorer-layers"),
                      picker_group(f"Head (0–{H - 1})", self.head_picker, "head-explorer-heads"),
                      self.query_picker], align_items="flex-end"),
            self.status_html,
            self.table,
            self.save_weights,
            self.trace_html,
        ]
        if self._show_grid:
            children.append(self.grid)
        super().__init__(children)
        course_box(self)  # normal line height for wrapped text
        self._set_query_options(query)
        # The token the learner chose to trace: traced again in a later sentence that has it.
        self._chosen_query = self.output.tokens[self.query] if query is not None else None
        self._update()  # the starting values were checked: a failure here is a bug, raise it
        self.watch(self.text_box, self._on_text, where=self.message_html)
        self._query_handler = self.bind(self.query_picker, "query", to_trait=self._picked)
        self.bind(self.layer_picker, "layer")
        self.bind(self.head_picker, "head")

    # -- state ---------------------------------------------------------------------------------
    @property
    def tokens(self) -> list[str]:
        return list(self.output.tokens)

    @validates("layer")
    def _valid_layer(self, value) -> int:
        check_layer_head(self.output, value, 0)
        return value

    @validates("head")
    def _valid_head(self, value) -> int:
        check_layer_head(self.output, 0, value)
        return value

    @validates("query")
    def _valid_query(self, value) -> int:
        return self._row_of(value)

    def _row_of(self, value) -> int:
        """The row of the sentence on show that ``value`` (a token or an index) names, or a ValueError."""
        i = token_index(self.output, value) if isinstance(value, str) else int(value)
        if not 0 <= i < len(self.output.tokens):
            raise ValueError(f"query must be a token or an index in 0..{len(self.output.tokens) - 1}; got {value!r}")
        return i

    @traitlets.observe("layer", "head", "query")
    def _setting_changed(self, _change) -> None:
        self.request_update()

    @property
    def weights(self) -> np.ndarray:
        return self.output.attentions[self.layer, self.head]

    @property
    def message(self) -> str:
        """What is wrong with the typed sentence, as plain text ('' when it was accepted)."""
        return self.problem(self.message_html)

    @property
    def text(self) -> str:
        """The sentence on show (the last valid one)."""
        return self.output.text

    def set_text(self, text: str) -> None:
        """Exactly what typing ``text`` into the field and pressing Enter does."""
        self.text_box.value = text

    def __repr__(self) -> str:
        return f"HeadExplorer(tokens={len(self.output.tokens)}, layer={self.layer}, head={self.head})"

    def _weights_figure(self):
        """The selected head's weights as a heatmap for a slide (the "Save PNG" / "Save SVG" buttons)."""
        return heatmap(self.weights, self.tokens, self.tokens,
                       title=f"all-MiniLM-L6-v2, layer {self.layer}, head {self.head}: attention weights")

    # -- events --------------------------------------------------------------------------------
    def _run(self, text):
        if not isinstance(text, str):
            raise ValueError(f"sentence: {text!r} is not text")
        if not text.strip():
            raise ValueError("sentence: is empty: type a few words")
        try:
            return self.model(text)
        except ValueError as err:  # e.g. more tokens than the model has positions
            raise ValueError(f"sentence: {err}") from None

    def _on_text(self, change) -> None:
        text, previous = change["new"], self._previous
        if text == self.output.text:
            # The sentence on show typed again (after a refused one, say): the model has read it already.
            self.clear_problem(self.message_html)
            return
        try:
            # The sentence shown before this one, typed back (a learner tries a sentence and returns): read already.
            out = previous if previous is not None and previous.text == text else self._run(text)
        except ValueError as err:  # shown next to the field; the views stay
            raise ValueError(f"{err} (still showing: {quote(self.output.text, 40)})") from None
        self.clear_problem(self.message_html)
        if out.tokens == self.output.tokens:
            # The sentence on show typed again (e.g. after a refused one): keep the traced row.
            return
        keep = self._chosen_query if self._chosen_query in out.tokens else None
        # Kept unless long: the weights of a sentence of n tokens take 6 · 12 · n² numbers (n = 512: 75 MB).
        self._previous = self.output if self.output.attentions.nbytes <= _PREVIOUS_BYTES else None
        self.output = out
        # The menu passes through other rows while its options change: they are not the learner's picks.
        with self.hold_trait_notifications():  # one redraw, for the new sentence and its traced row
            self.query_picker.unobserve(self._query_handler, names="value")
            try:
                self._set_query_options(keep)
            finally:
                self.query_picker.observe(self._query_handler, names="value")
            self.request_update()

    def _picked(self, i: int) -> int:
        """A row picked in the menu (by the learner, or by assigning ``query``): the token to trace from now on."""
        self._chosen_query = self.output.tokens[int(i)]
        return i

    def _set_query_options(self, query) -> None:
        """The trace menu for the tokens on show, on ``query`` (default: the first word).

        Called before the menu's handler is registered, or with it detached (see :meth:`_on_text`).
        """
        toks = self.output.tokens
        self.query_picker.options = [(f"{i}: {t}", i) for i, t in enumerate(toks)]
        # The row found now: inside a hold_trait_notifications block the trait keeps what it is given until the end.
        self.query = self.query_picker.value = (1 if len(toks) > 2 else 0) if query is None else self._row_of(query)

    # -- drawing -------------------------------------------------------------------------------
    def _update(self) -> None:
        out, l, h, i = self.output, self.layer, self.head, self.query
        W = out.attentions[l, h]
        j = int(np.argmax(W[i]))
        self.table.value = attention_weights_html(
            W, out.tokens, out.tokens, title=f"all-MiniLM-L6-v2, layer {l}, head {h}",
            highlight=(i, j),
            note="Each row is one query token's attention over the keys; rows sum to 1.",
        )
        order = np.argsort(-W[i], kind="stable")[:3]
        parts = " · ".join(f"{_html.escape(out.tokens[k])} {number_text(W[i, k], 2, trim=False)}" for k in order)
        self.trace_html.value = (
            f"<div style='font-size:{theme.sizes().font}'>Row <b>{_html.escape(out.tokens[i])}</b> "
            f"(layer {l}, head {h}) attends most to: {parts}</div>"
        )
        # The thumbnails are the slow part: redraw them only when the sentence or the head changed.
        drawn = self._grid_drawn
        if self._show_grid and (drawn is None or drawn[0] is not out or drawn[1:] != (l, h)):
            # A sentence typed back, or a head picked again, draws nothing new: the images used last are kept (the
            # sentence a learner keeps coming back to stays).
            self.grid.value = self._grid_pngs.get((out.text, l, h), lambda: thumbnails_png(out, selected=(l, h)))
            self._grid_drawn = (out, l, h)
