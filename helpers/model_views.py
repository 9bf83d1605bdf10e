"""Reading the attention of a real pretrained model (all-MiniLM-L6-v2, see helpers.pretrained).

Two kinds of tools:

* measurements, pure numpy on a :class:`~helpers.pretrained.MiniLMOutput`: which keys one
  token attends to, how much attention every head gives from one token to others, how
  "previous-token", "[CLS]-parking" or position-bound each head is, and how similar the
  last-layer vectors of a word are across sentences;
* :class:`HeadExplorer`, the widget of notebook 09: type a sentence, pick a layer and a
  head, read the weights between the tokens, and see all 6 × 12 heads at a glance.

A claim about one head needs a control. The head that always looks at the previous
token sends "bank" to "river" in "the river bank" without knowing what either word
means; moving "river" after "bank" (a positional shift) or swapping it for another word
(a minimal pair) tells position from content.

The model is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0).
"""

from __future__ import annotations

import html as _html

import ipywidgets as widgets
import numpy as np
import traitlets

from helpers import theme
from helpers.layout import choice_buttons, course_box, view_html, wrap_row
from helpers.live import LiveWidget
from helpers.parsing import quote
from helpers.pretrained import CLS, SEP, MiniLMOutput
from helpers.render import attention_weights_html, figure_png

__all__ = [
    "token_index",
    "attention_from",
    "attention_to",
    "rank_heads",
    "previous_token_score",
    "special_token_share",
    "mean_distance",
    "within_group_share",
    "content_following",
    "word_vector",
    "cosine",
    "similarity_matrix",
    "thumbnails_figure",
    "HeadExplorer",
]


# ---------------------------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------------------------

def token_index(out: MiniLMOutput, token: str, occurrence: int = 0) -> int:
    """Position of ``token`` in ``out.tokens`` (the ``occurrence``-th one, 0-based).

    Raises
    ------
    ValueError
        If the token is not there, listing the tokens that are.
    """
    hits = [i for i, t in enumerate(out.tokens) if t == token]
    if occurrence < 0 or occurrence >= len(hits):
        found = f"{len(hits)} time(s)" if hits else "not at all"
        raise ValueError(
            f"token {token!r} (occurrence {occurrence}) is not in the sentence: it occurs {found}; "
            f"tokens are {out.tokens}"
        )
    return hits[occurrence]


def _check_layer_head(out: MiniLMOutput, layer: int, head: int) -> None:
    L, H = out.attentions.shape[:2]
    if not (isinstance(layer, (int, np.integer)) and 0 <= layer < L):
        raise ValueError(f"layer must be an integer in 0..{L - 1}; got {layer!r}")
    if not (isinstance(head, (int, np.integer)) and 0 <= head < H):
        raise ValueError(f"head must be an integer in 0..{H - 1}; got {head!r}")


def attention_from(out: MiniLMOutput, token: str, layer: int, head: int, occurrence: int = 0):
    """Where one token looks: ``[(key token, weight), ...]`` in sentence order.

    This is row ``token_index(out, token)`` of ``out.attentions[layer, head]``; the weights
    are Python floats and sum to 1.
    """
    _check_layer_head(out, layer, head)
    i = token_index(out, token, occurrence)
    return [(t, float(w)) for t, w in zip(out.tokens, out.attentions[layer, head, i])]


def attention_to(out: MiniLMOutput, query: str, keys, occurrence: int = 0) -> np.ndarray:
    """For every head, the total weight the ``query`` token gives to the ``keys`` tokens.

    Parameters
    ----------
    out : MiniLMOutput
    query : str
        A token of the sentence (its ``occurrence``-th appearance).
    keys : str or sequence of str
        Key tokens; every appearance of each is counted. Each must occur at least once.

    Returns
    -------
    ndarray (layers, heads): values in [0, 1].
    """
    keys = [keys] if isinstance(keys, str) else list(keys)
    if not keys:
        raise ValueError("keys must name at least one token")
    i = token_index(out, query, occurrence)
    cols = []
    for k in keys:
        token_index(out, k)  # raises a clear error if the key is missing
        cols.extend(j for j, t in enumerate(out.tokens) if t == k)
    return out.attentions[:, :, i, cols].sum(axis=-1)


def rank_heads(scores, k: int = 5):
    """The ``k`` largest entries of a (layers, heads) score array: ``[(layer, head, score), ...]``.

    Ties are broken by (layer, head) order, so the ranking is deterministic.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2:
        raise ValueError(f"scores must have shape (layers, heads); got shape {scores.shape}")
    flat = scores.ravel()
    order = np.argsort(-flat, kind="stable")[: max(int(k), 0)]
    H = scores.shape[1]
    return [(int(f // H), int(f % H), float(flat[f])) for f in order]


def _inner_rows(out: MiniLMOutput) -> slice:
    if len(out.tokens) < 3:
        raise ValueError(f"the sentence has no word tokens (tokens {out.tokens}); type a sentence")
    return slice(1, len(out.tokens) - 1)


def previous_token_score(out: MiniLMOutput) -> np.ndarray:
    """(layers, heads): mean weight each token after ``[CLS]`` gives to the token just before it.

    1 means a pure previous-token head (position-based: it ignores what the words are).
    """
    A = out.attentions
    n = A.shape[-1]
    if n < 2:
        raise ValueError("need at least two tokens")
    i = np.arange(1, n)
    return A[:, :, i, i - 1].mean(axis=-1)


def special_token_share(out: MiniLMOutput, token: str = CLS) -> np.ndarray:
    """(layers, heads): mean weight the word tokens (not [CLS]/[SEP]) give to ``token``.

    A head whose word tokens all send most of their attention to ``[CLS]`` draws a vertical
    stripe in the heatmap: attention "parked" on a token that carries little content.
    """
    if token not in (CLS, SEP):
        raise ValueError(f"token must be {CLS!r} or {SEP!r}; got {token!r}")
    rows = _inner_rows(out)
    j = 0 if token == CLS else len(out.tokens) - 1
    return out.attentions[:, :, rows, j].mean(axis=-1)


def mean_distance(out: MiniLMOutput) -> np.ndarray:
    """(layers, heads): average |i − j| over the attention word tokens give to word tokens.

    ``[CLS]`` and ``[SEP]`` are left out as queries and as keys, so parking on [CLS] counts
    as neither short- nor long-range: the result is Σ A_ij |i − j| / Σ A_ij over word
    tokens i, j. Near 1 means local (neighbours); larger means the head reaches across
    the sentence.
    """
    rows = _inner_rows(out)
    A = out.attentions[:, :, rows, rows].astype(float)
    idx = np.arange(A.shape[-1])
    D = np.abs(idx[:, None] - idx[None, :])
    return (A * D).sum(axis=(-1, -2)) / A.sum(axis=(-1, -2))


def within_group_share(out: MiniLMOutput, groups, min_distance: int = 1):
    """How much attention stays inside a group of tokens (a clause, a phrase): the block pattern.

    Parameters
    ----------
    out : MiniLMOutput
    groups : sequence of int, length n
        A group number per token; 0 leaves the token out (as query and as key), e.g. for
        ``[CLS]``, ``[SEP]`` and a conjunction between two clauses.
    min_distance : int
        Only pairs of tokens at least this far apart count. 1 leaves out attention to oneself;
        a larger value is the control for locality: a head that looks only at its neighbours
        keeps its attention inside the clause without knowing where the clause ends.

    Returns
    -------
    share : ndarray (layers, heads)
        Of the attention between counted pairs, the fraction that stays in the same group
        (NaN for a head that gives the counted pairs no attention at all).
    chance : float
        The fraction of counted pairs that are in the same group: what a head spreading its
        attention evenly would score.
    """
    g = np.asarray(groups)
    n = len(out.tokens)
    if g.shape != (n,):
        raise ValueError(f"groups must give one number per token ({n} tokens); got shape {g.shape}")
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    counted = (g[i] > 0) & (g[j] > 0) & (np.abs(i - j) >= min_distance)
    if not counted.any():
        raise ValueError(f"no pair of grouped tokens is at least min_distance = {min_distance} apart")
    same = counted & (g[i] == g[j])
    A = out.attentions.astype(float)
    with np.errstate(invalid="ignore"):  # NaN for a head that gives counted pairs no attention at all
        share = (A * same).sum(axis=(-1, -2)) / (A * counted).sum(axis=(-1, -2))
    return share, float(same.sum() / counted.sum())


def content_following(model, text: str, trials: int = 5, seed: int = 0) -> np.ndarray:
    """(layers, heads): does a head follow the words or stay at positions when words are shuffled?

    The words of ``text`` (each must be a single token) are shuffled ``trials`` times, keeping
    ``[CLS]`` first and ``[SEP]`` last. For each head, with A the weights on the original
    sentence and A' on a shuffled one (P the permutation):

    * a position-based head keeps its pattern in place: A' ≈ A;
    * a content-based head moves with the words: A' ≈ P A Pᵀ.

    The score is d_pos / (d_pos + d_content), with d_pos = Σ|A' − A| and
    d_content = Σ|A' − P A Pᵀ|, averaged over the shuffles: near 0 for position-based heads,
    near 1 for content-based ones. Every layer-0 head mixes both, since its queries and keys
    are built from word embeddings plus position embeddings.
    """
    base = model(text)
    words = base.tokens[1:-1]
    if len(words) < 3:
        raise ValueError(f"text needs at least 3 word tokens to shuffle; got {words}")
    rng = np.random.default_rng(seed)
    n = len(base.tokens)
    L, H = base.attentions.shape[:2]
    total = np.zeros((L, H))
    for _ in range(trials):
        perm = rng.permutation(len(words))
        shuffled = model(" ".join(words[p] for p in perm))
        if shuffled.tokens[1:-1] != [words[p] for p in perm]:
            raise ValueError(
                "every word of text must be a single token (no '##' pieces, no punctuation glued on); "
                f"tokens are {base.tokens}"
            )
        P = np.concatenate([[0], perm + 1, [n - 1]])  # shuffled position k holds original token P[k]
        A = base.attentions
        As = shuffled.attentions
        follow = A[:, :, P][:, :, :, P]
        d_pos = np.abs(As - A).sum(axis=(-1, -2))
        d_con = np.abs(As - follow).sum(axis=(-1, -2))
        total += d_pos / (d_pos + d_con)
    return total / trials


def word_vector(out: MiniLMOutput, token: str, layer: int = -1, occurrence: int = 0) -> np.ndarray:
    """(384,): the vector of ``token`` after ``layer`` (-1: the last layer; 0: the embeddings)."""
    L = out.hidden_states.shape[0]
    if not (isinstance(layer, (int, np.integer)) and -L <= layer < L):
        raise ValueError(f"layer must be an integer in {-L}..{L - 1} (0 = embeddings); got {layer!r}")
    return out.hidden_states[layer, token_index(out, token, occurrence)]


def cosine(a, b) -> float:
    """Cosine similarity a·b / (|a| |b|) of two vectors of the same shape, as a float."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a and b must be 1-D of the same length; got shapes {a.shape} and {b.shape}")
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        raise ValueError("cosine similarity is undefined for a zero vector")
    return float(a @ b / (na * nb))


def similarity_matrix(model, sentences, word: str = "bank", layer: int = -1) -> np.ndarray:
    """(s, s): cosine similarities of ``word``'s vectors after ``layer`` across ``s`` sentences."""
    vecs = [word_vector(model(s), word, layer) for s in sentences]
    return np.array([[cosine(a, b) for b in vecs] for a in vecs])


# ---------------------------------------------------------------------------------------------
# All heads at a glance
# ---------------------------------------------------------------------------------------------

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
    :func:`helpers.theme.figure_style` (light paper, dark text, grey border), so the image
    reads in JupyterLab's light and dark themes alike.
    """
    with theme.figure_style():  # light paper, dark text: readable in light and dark themes (see theme)
        return _thumbnails_figure(out, selected, width)


def _thumbnails_figure(out: MiniLMOutput, selected, width: float):
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    A = out.attentions
    L, H, n, _ = A.shape
    gap = max(1, n // 4)
    step = n + gap
    img = _tile(A, gap)
    height = width * img.shape[0] / img.shape[1] + 0.9
    fig = theme.new_figure(figsize=(width, height))
    # Fixed margins instead of a layout engine: laying out the tick labels again on every
    # redraw would double the time it takes.
    ax = fig.add_axes((0.4 / width, 0.1 / height, 1 - 0.5 / width, 1 - 0.9 / height))
    cmap = colormaps["viridis"].with_extremes(bad="white")
    ax.imshow(np.ma.masked_invalid(img), cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
    centres = (n - 1) / 2
    ax.set_xticks([h * step + centres for h in range(H)], [str(h) for h in range(H)])
    ax.set_yticks([l * step + centres for l in range(L)], [str(l) for l in range(L)])
    ax.xaxis.set_ticks_position("top")
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    if selected is not None:
        l, h = selected
        ax.add_patch(Rectangle((h * step - 1.0, l * step - 1.0), n + 1.0, n + 1.0,
                               fill=False, edgecolor=theme.HIGHLIGHT, linewidth=2.5))
    ax.set_title(f"All {L * H} heads: each square is one head's {n} × {n} weights "
                 "(queries ↓, keys →; colour 0 to 1)", fontsize=10)
    return fig


_GRID_CACHE = 8  # thumbnail images kept per explorer (about 50 KB each)


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
    model : helpers.pretrained.MiniLM
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
    layer_picker, head_picker : ipywidgets.ToggleButtons (one button per layer, per head)
    query_picker : ipywidgets.Dropdown, the token whose row is traced
    message_html : ipywidgets.HTML, next to the field: what is wrong with the typed text
    status_html : ipywidgets.HTML, what else could not be done ('' when all is well)
    table : ipywidgets.HTML, the weights of the selected head as a table
    trace_html : ipywidgets.HTML, the traced row in words
    grid : ipywidgets.Image, all heads (PNG)
    output : MiniLMOutput for the last valid sentence
    weights : ndarray (n, n), the selected head's weights

    Updates are synchronous: after ``set_text`` (or setting ``layer``/``head``) returns,
    every view shows the new state. Invalid text shows a message and leaves the last
    valid view in place.
    """

    def __init__(self, model, text: str = "I went to the bank to deposit money", layer: int = 0, head: int = 4,
                 query=None, show_grid: bool = True):
        self._live_setup()
        self.model = model
        self._show_grid = bool(show_grid)
        self._grid_drawn = None  # (output, layer, head) the thumbnails show
        self._grid_pngs: dict[tuple, bytes] = {}  # (sentence, layer, head) -> thumbnails drawn for it
        self.output = self._run(text)  # a bad starting sentence is a programming error: raise
        L, H = self.output.attentions.shape[:2]
        _check_layer_head(self.output, layer, head)

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
        # The tooltip is the image's title, which is also its text alternative for a screen reader.
        self.grid = _TitledImage(format="png", layout=widgets.Layout(max_width="100%"),
                                  tooltip=f"Thumbnails of all {L * H} heads' attention weights ({L} layers × {H} "
                                          "heads) for this sentence; the selected head is outlined.")
        children = [
            wrap_row([self.text_box, self.message_html]),
            wrap_row([self.layer_picker, self.head_picker, self.query_picker]),
            self.status_html,
            self.table,
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
        self.watch(self.query_picker, self._on_query_pick)
        for w in (self.layer_picker, self.head_picker):
            self.watch(w, lambda _c: self.request_update())

    # -- state ---------------------------------------------------------------------------------
    @property
    def tokens(self) -> list[str]:
        return list(self.output.tokens)

    @property
    def layer(self) -> int:
        return int(self.layer_picker.value)

    @layer.setter
    def layer(self, value: int) -> None:
        _check_layer_head(self.output, value, self.head)
        self.layer_picker.value = int(value)

    @property
    def head(self) -> int:
        return int(self.head_picker.value)

    @head.setter
    def head(self, value: int) -> None:
        _check_layer_head(self.output, self.layer, value)
        self.head_picker.value = int(value)

    @property
    def query(self) -> int:
        """Index of the traced query token in ``tokens``."""
        return int(self.query_picker.value)

    @query.setter
    def query(self, value) -> None:
        i = token_index(self.output, value) if isinstance(value, str) else int(value)
        if not 0 <= i < len(self.output.tokens):
            raise ValueError(f"query must be a token or an index in 0..{len(self.output.tokens) - 1}; got {value!r}")
        self.query_picker.value = i

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
        try:
            out = self._run(change["new"])
        except ValueError as err:  # shown next to the field; the views stay
            raise ValueError(f"{err} (still showing: {quote(self.output.text, 40)})") from None
        self.clear_problem(self.message_html)
        if out.tokens == self.output.tokens:
            # The sentence on show typed again (e.g. after a refused one): keep the traced row.
            return
        keep = self._chosen_query if self._chosen_query in out.tokens else None
        with self.paused():  # new tokens in the trace menu and new weights: one redraw
            self.output = out
            self._set_query_options(keep)
            self.request_update()

    def _on_query_pick(self, _change) -> None:
        self._chosen_query = self.output.tokens[self.query]
        self.request_update()

    def _set_query_options(self, query) -> None:
        toks = self.output.tokens
        with self.paused():  # the menu's own events while its options change
            self.query_picker.options = [(f"{i}: {t}", i) for i, t in enumerate(toks)]
            if query is None:
                self.query_picker.value = 1 if len(toks) > 2 else 0
            else:
                self.query_picker.value = token_index(self.output, query) if isinstance(query, str) else int(query)

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
        parts = " · ".join(f"{_html.escape(out.tokens[k])} {W[i, k]:.2f}" for k in order)
        self.trace_html.value = (
            f"<div style='font-size:{theme.sizes().font}'>Row <b>{_html.escape(out.tokens[i])}</b> "
            f"(layer {l}, head {h}) attends most to: {parts}</div>"
        )
        # The thumbnails are the slow part: redraw them only when the sentence or the head changed.
        drawn = self._grid_drawn
        if self._show_grid and (drawn is None or drawn[0] is not out or drawn[1:] != (l, h)):
            key = (out.text, l, h)
            if key not in self._grid_pngs:
                # A sentence typed back, or a head picked again, draws nothing new: a few recent images are kept.
                if len(self._grid_pngs) >= _GRID_CACHE:
                    self._grid_pngs.pop(next(iter(self._grid_pngs)))
                self._grid_pngs[key] = figure_png(thumbnails_figure(out, selected=(l, h)))
            self.grid.value = self._grid_pngs[key]
            self._grid_drawn = (out, l, h)
