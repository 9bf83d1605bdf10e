"""One attention explorer for self- and cross-attention: edit the inputs, watch every stage.

The explorer is made of *token sides*: a side is a list of tokens with its matrix
editor (one row per token), a count box and a names box. Cross-attention has two
sides (the decoder's tokens ask, the encoder's are looked at); self-attention has one
side used for both queries and keys. Every rule about tokens (how many, their names,
growing and cutting the matrix, "a causal mask needs as many queries as keys") is
written once here.

Data flows one way: the editors' valid matrices (their ``value`` traits) go through
:func:`helpers.core.attention.attention_stages`, and its result is drawn by
:mod:`helpers.look.render` into ``HTML`` widgets by setting their ``.value`` (nothing is
written into an ``Output`` widget, so a notebook stores the same outputs on every run).
The explorer's settings (``mask``, its alias ``causal``, and ``scale``) and its results
(``weights``, ``output``) are traitlets traits, its checkboxes are linked to the settings, and a
change of several inputs inside ``hold_trait_notifications()`` is computed once, at
the end. Controls are watched through :class:`helpers.widgets.live.LiveWidget`: no exception
leaves a handler.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
import traitlets

from helpers.core import attention as att, explain, masks
from helpers.core.arrays import whole_number
from helpers.core.parsing import parse_names
from helpers.exercises.design import design_task
from helpers.exercises.feedback import Feedback
from helpers.look import highlight, render, theme
from helpers.look.colour_easing import ColourEasing
from helpers.look.mathtext import math_html
from helpers.look.render import linked_matrix_html, linked_weights_html
from helpers.widgets import trace
from helpers.widgets.goal_line import GoalLine
from helpers.widgets.layout import TEXT_CSS, SharedLooks
from helpers.widgets.live import LiveWidget, Matrix, RefusedValue, lecture_mode
from helpers.widgets.matrix_editor import MatrixEditor
from helpers.widgets.save_buttons import SaveButtons

__all__ = ["MAX_TOKENS", "MAX_DK", "SideSpec", "TokenSide", "StageViews", "Explorer", "AttentionExplorer",
           "CrossAttentionExplorer"]

MAX_TOKENS = 24
MAX_DK = 16
_NARROWING_COLUMNS = 16  # the most columns the explorer's editors have in all for them to narrow to one strip
_SEED = 20240  # seeds the values of new rows and columns, so growing is reproducible
_STAGES = ("Q", "K", "V", "scores", "scaled", "mask", "weights", "output", "trace")
# The intermediate stages, folded behind "show the steps" by default: their views are built when first shown.
_STEPS = ("Q", "K", "V", "scores", "scaled", "mask")
# Each stage's number, in the order the views are laid out (the data flow: X and the W's, then Q, K, V, the scores,
# the weights, the output); the trace's steps name the stages they compute.
STEP = dict(zip(_STAGES[:-1], "①②③④⑤⑥⑦⑧"))
# How the goal line names a setting a design task's goal assumes: (the words for False, for True).
_SETTING_WORDS = {"causal": ("without the causal mask", "with the causal mask"),
                  "scale": ("without the 1/√d_k scaling", "with the scores scaled by 1/√d_k")}


class MaskTrait(traitlets.Any):
    """The explorer's ``mask``: ``None``, ``"causal"`` or a read-only boolean (n_q, n_k) array, True = may attend.

    What needs no sizes (a string, a dtype, two dimensions) is checked when the value is assigned; its shape and its
    rows are checked against the tokens by the explorer (``@validate("mask")``). A refused value is said beside the
    explorer's mask control as well as raised. Setting the mask sets ``causal`` at once (inside a
    ``hold_trait_notifications`` block too, so that the last of several assignments wins), before either change is
    told: True exactly when the mask is the causal one.
    """

    def validate(self, obj, value):
        try:
            return masks.mask_value(value, self.name)
        except ValueError as err:
            obj._mask_refused(str(err))
            raise RefusedValue(str(err)) from None

    def set(self, obj, value):
        # Both set before anyone is told (and both put back if either is refused): observers see them agree.
        with obj.hold_trait_notifications():
            super().set(obj, value)
            causal = masks.is_causal(obj.mask)
            if obj.causal != causal:
                obj.causal = causal


class CausalTrait(traitlets.Bool):
    """The explorer's ``causal``, an alias of its mask: True sets the mask to ``"causal"``; False takes the causal mask
    off (``None``) and leaves any other mask as it is."""

    def set(self, obj, value):
        with obj.hold_trait_notifications():  # as MaskTrait.set
            super().set(obj, value)
            if bool(obj.causal) != masks.is_causal(obj.mask):
                obj.mask = "causal" if obj.causal else None


def _editor_width(editor: MatrixEditor) -> int:
    """About how narrow ``editor`` can be on the page, in px (generous: a row of editors wider than this wraps): its
    table, or its name or its buttons where they are wider, and the room kept for a message beside the table."""
    font = float(theme.sizes(editor._large).font.rstrip("px"))
    labels = max(len(r) for r in editor.row_labels) * 0.62 * font + 10
    table = labels + editor.shape[1] * editor.cell_em * font
    name = len(re.sub(r"<[^>]+>", "", render.title_html(editor._title or ""))) * 0.62 * (font + 1)
    buttons = 10.5 * font if editor.show_buttons else 0
    beside = 9 * font + 8 if "matrix-editor-message-beside" in editor._dom_classes else 0
    return int(max(table + beside, name, buttons) + 16)


@dataclass(frozen=True)
class SideSpec:
    """What one token side is called and how it looks (data, so that each explorer is a table row)."""

    editor: str         # the editor's key in ``explorer.editors`` ("X", "X_dec", "X_enc")
    tokens_arg: str     # the constructor argument named in errors ("tokens", "query_tokens")
    rows: str           # the row count's symbol in errors ("n", "n_q")
    title: str          # the editor's title
    count_label: str    # the count box's description
    names_label: str    # the names box's description
    count_class: str    # CSS class of the count box
    names_class: str    # CSS class of the names box
    seed_offset: int    # new rows of this side are seeded with _SEED + seed_offset + n
    count_width: str = "8.5em"
    narrow: bool = False  # cells as narrow as their numbers (one digit for a one-hot X), as in the lecture mode


SELF_SIDE = SideSpec("X", "tokens", "n", "X (tokens × d_model)", "tokens", "names", "attn-tokens",
                     "attn-token-names", 0)
DECODER_SIDE = SideSpec("X_dec", "query_tokens", "n_q", "X_dec (decoder tokens × d_model)", "decoder tokens",
                        "decoder", "attn-decoder-tokens", "attn-decoder-names", 100, "12em", narrow=True)
ENCODER_SIDE = SideSpec("X_enc", "key_tokens", "n_k", "X_enc (encoder tokens × d_model)", "encoder tokens",
                        "encoder", "attn-encoder-tokens", "attn-encoder-names", 200, "12em", narrow=True)


def check_tokens(tokens, name: str) -> list[str]:
    """``tokens`` as a list of 1..MAX_TOKENS strings, or a ValueError naming the argument ``name``."""
    if isinstance(tokens, str):
        raise ValueError(f"{name} must be a list of strings, one per token; got the string {tokens!r}")
    tokens = [str(t) for t in tokens]
    if not 1 <= len(tokens) <= MAX_TOKENS:
        raise ValueError(f"{name} must have between 1 and {MAX_TOKENS} tokens; got {len(tokens)}")
    return tokens


def parse_token_names(text: str) -> list[str]:
    """Token names typed as ``"the, cat, sat"``; a ValueError when there are none or too many."""
    return parse_names(text, "Token names", MAX_TOKENS)


def default_names(existing: list[str], n: int) -> list[str]:
    """``existing`` cut or extended to ``n`` names; new ones are ``t<index>``, made unique."""
    names = list(existing[:n])
    k = len(names)
    while len(names) < n:
        cand = f"t{k}"
        while cand in names:
            cand += "'"
        names.append(cand)
        k += 1
    return names


class TokenSide:
    """Tokens, the matrix with one row per token, and the boxes that change them.

    The tokens *are* the editor's row labels: renaming the rows renames the tokens.

    Attributes
    ----------
    spec : SideSpec
    editor : MatrixEditor (n, d_model)
    count_box : ipywidgets.BoundedIntText, the number of tokens
    names_box : ipywidgets.Text, the names separated by commas
    names_message : ipywidgets.HTML, what is wrong with the typed names (next to the box)
    """

    def __init__(self, explorer: Explorer, spec: SideSpec, tokens: list[str], X: np.ndarray, large: bool,
                 compact: bool = False):
        self.explorer = explorer
        self.spec = spec
        dims = [f"d{k + 1}" for k in range(X.shape[1])]
        looks = explorer._looks
        # Cross-attention's one-hot X_dec and X_enc have cells one digit wide, so that the two sit side by side above
        # the weights they feed.
        self.editor = MatrixEditor(X, tokens, dims, title=spec.title, large=large, compact=compact or spec.narrow,
                                   buttons=not compact, dense=True, message_beside=explorer._message_beside,
                                   layout=explorer._editor_layout)
        self.count_box = widgets.BoundedIntText(value=len(tokens), min=1, max=MAX_TOKENS,
                                                description=spec.count_label, style=explorer._described,
                                                layout=looks.layout(width=spec.count_width))
        self.names_box = widgets.Text(value=", ".join(tokens), continuous_update=False,
                                      description=spec.names_label,
                                      style=looks.style(widgets.Text, description_width="initial"),
                                      layout=looks.layout(width="22em"))
        self.names_message = widgets.HTML("", layout=looks.layout(width="22em"), style=explorer._html_style)
        self._names_where = self.names_message  # under the box, in the flow: it covers nothing
        self.count_box.add_class(spec.count_class)
        self.names_box.add_class(spec.names_class)
        self.names_message.add_class(f"{spec.names_class}-message")
        self.names_field = widgets.VBox([self.names_box, self.names_message], layout=looks.layout())
        explorer.watch(self.count_box, self._on_count)
        explorer.watch(self.names_box, self._on_names, where=self._names_where)
        # Rows renamed or added on the editor itself (its labels or its value's shape): the side follows.
        self.editor.on_labels(explorer.guarded(lambda _ed: self._changed()))

    @property
    def tokens(self) -> list[str]:
        return self.editor.row_labels

    def set_tokens(self, tokens, say_dropped: bool = False) -> None:
        """New tokens: the matrix keeps the rows it has, new rows get seeded small values.

        Fewer tokens drop the last rows of the matrix; with ``say_dropped`` (names typed into the names box, where
        that is a side effect, unlike lowering the count) the note under the names box says which, as it happens.
        """
        tokens = check_tokens(tokens, self.spec.tokens_arg)
        n, d = len(tokens), self.editor.shape[1]
        dropped = self.tokens[n:]
        with self.explorer.hold_trait_notifications():
            self.editor.resize((n, d), seed=_SEED + self.spec.seed_offset + n, row_labels=tokens)
            self._changed()
        if dropped and say_dropped:
            rows = ", ".join(f"'{t}'" for t in dropped)
            self.names_message.value = theme.notice_html(
                f"{n} token{'s' if n > 1 else ''}: {self.spec.editor} dropped its last {len(dropped)} "
                f"row{'s' if len(dropped) > 1 else ''} ({rows}). More names add rows back, with new values.",
                self.explorer._large)

    def _changed(self) -> None:
        """Bring the boxes and the explorer in line with the editor's rows, and redraw once."""
        with self.explorer.hold_trait_notifications():
            tokens = self.tokens
            # The boxes' handlers see the tokens they describe, and change nothing.
            self.count_box.value = min(len(tokens), MAX_TOKENS)
            self.names_box.value = ", ".join(tokens)
            self.explorer.clear_problem(self._names_where)
            self.explorer._lengths_changed()

    def _on_count(self, change) -> None:
        n = int(change["new"])
        if n != len(self.tokens):
            self.set_tokens(default_names(self.tokens, n))

    def _on_names(self, change) -> None:
        tokens = parse_token_names(change["new"])
        if tokens == self.tokens:
            # The names on show, typed again (after refused ones, or spaced differently): the box and its
            # message come back in line, the matrix stays.
            self.names_box.value = ", ".join(tokens)
            self.explorer.clear_problem(self._names_where)
            return
        self.set_tokens(tokens, say_dropped=True)

    def matrix(self) -> np.ndarray:
        """The editor's last valid matrix, checked against the explorer's token limit."""
        X = self.editor.value
        if X.shape[0] > MAX_TOKENS:
            raise ValueError(f"{self.spec.editor} has {X.shape[0]} rows: the explorer takes at most "
                             f"{MAX_TOKENS} tokens")
        return X


class StageViews(Mapping):
    """An explorer's views, by stage name ("Q", ..., "weights", "output", "trace"): each an ``ipywidgets.HTML``.

    The views of the folded steps (Q, K, V, scores, scaled, mask) are built the first time one of them is asked for or
    the steps are shown, so that an explorer whose steps stay folded builds six views fewer for the page to draw.
    """

    def __init__(self, explorer: Explorer):
        self._explorer = explorer
        self._built: dict[str, widgets.HTML] = {}

    def __getitem__(self, stage: str) -> widgets.HTML:
        if stage not in _STAGES:
            raise KeyError(stage)
        if stage not in self._built:
            self._explorer._build_steps()
        return self._built[stage]

    def __iter__(self):
        return iter(_STAGES)

    def __len__(self) -> int:
        return len(_STAGES)

    @property
    def built(self) -> dict[str, widgets.HTML]:
        """The views built so far, by stage (the steps' only once shown or asked for)."""
        return dict(self._built)


@dataclass
class _Shown:
    """What the views were drawn from: a result and the labels at the time it was computed."""

    result: att.AttentionResult
    q_tokens: list[str]
    k_tokens: list[str]
    q_cols: list[str]
    k_cols: list[str]
    v_cols: list[str]
    causal: bool
    scale: bool
    given: bool = False  # the mask was given as data (an array that is not the causal mask)


class Explorer(LiveWidget, widgets.VBox):
    """Attention, live, between a query side and a key side of tokens (the same side for self-attention).

    Use :class:`AttentionExplorer` or :class:`CrossAttentionExplorer`; this class holds
    everything they share.

    Parameters
    ----------
    sides : list of (SideSpec, tokens, X)
        One side (self-attention: queries and keys from the same tokens) or two (queries
        from the first, keys and values from the second). ``X`` has shape (n, d_model).
    W_q, W_k : array_like (d_model, d_k)
    W_v : array_like (d_model, d_v)
    causal, scale, large : bool
    mask : None, "causal" or array_like of bool (n_q, n_k)
        The mask to start with (True = may attend; see the trait ``mask``); not with ``causal=True``.
    compact : bool or None
        Narrower editor cells and no Reset / Randomize buttons under the editors, so that an edit and
        its effect fit a small screen (a projector at 1024 × 768). None (the default): compact in the
        lecture mode (:func:`helpers.widgets.live.lecture_mode`), not elsewhere.
    steps : bool
        Show the intermediate stages (Q, K, V, scores, scaled, mask) from the start; by default they are
        folded behind the "show the steps" button, and the weights and the output sit right under the editors.
    title : str
    kind : str, "self" or "cross" (the CSS class ``attn-explorer-<kind>``)
    goal : str or None
        A design task's name (:func:`helpers.exercises.design.design_tasks`): a goal line above the weights
        (CSS class ``attn-goal``) states the goal and says, on every valid change, whether the explorer's arrays
        meet it (✓) or what is still off (✗). The task's arrays are the explorer's, by name (``X`` or ``X_dec``
        and ``X_enc``, ``W_q``, ``W_k``, ``W_v``).

    Changes made inside ``with explorer.hold_trait_notifications():`` (cells of several editors,
    the settings) are computed and drawn once, at the end of the block.

    Attributes
    ----------
    mask : None, "causal" or ndarray of bool (n_q, n_k) (a trait)
        Which keys each query may attend to (True = may attend): none blocked, the causal mask, or any mask given
        as data (a sliding window, padding, one drawn by hand). Blocked weights are 0 and shown as the hatched
        "—". A mask of another shape, not boolean, or blocking every key of a query is refused (a ``TraitError``,
        also a ``ValueError``, naming the shapes or the query), with the reason beside the causal checkbox too;
        the last valid mask stays. Beside the checkbox a note says what a mask given as data blocks; when the
        tokens change and it no longer fits, it is taken off, and the note says so.
    causal : bool (a trait)
        Whether the mask is the causal one: setting it True sets ``mask = "causal"``, False takes the causal
        mask off. Refused (a ``TraitError``, also a ``ValueError``, saying why) while
        there are not as many queries as keys; the explorer's own checkbox shows the refusal next to
        it instead. ``widgets.link((checkbox, "value"), (explorer, "causal"))`` links another one.
    scale : bool (a trait)
        Divide the scores by √d_k.
    weights : ndarray (n_q, n_k) (a read-only trait)
        The attention weights for the last valid input; every valid change sets it (``observe`` it).
    output : ndarray (n_q, d_v) (a read-only trait)
        The output for the last valid input, set together with ``weights``.
    editors : dict name -> MatrixEditor (the sides' X editors, then "W_q", "W_k", "W_v")
    result : AttentionResult for the last valid input
    views : dict stage name -> ipywidgets.HTML ("Q", "K", "V", "scores", "scaled", "mask",
        "weights", "output", "trace")
    save_weights : SaveButtons, "Save PNG" / "Save SVG" under the weights: the weights as a heatmap for a slide,
        saved as ``figures/<notebook>-weights.png`` (``cross-weights`` in a cross-attention explorer)
    trace_text : str, the arithmetic for the query and key picked under "Trace one query and one key",
        with the actual numbers
    status : str, why the last input could not be computed ('' when it could)
    goal : DesignTask or None, the task of ``goal=``
    goal_feedback : Feedback or None, the verdict on the explorer's arrays, as the goal line shows it
    goal_met : bool, whether the goal is met now (False without a goal)
    """

    mask = MaskTrait(None, allow_none=True, help='None, "causal" or a boolean (n_q, n_k) array, True = may attend')
    causal = CausalTrait(False, help="apply the causal mask (query i sees keys 0..i); an alias of mask")
    scale = traitlets.Bool(True, help="divide the scores by sqrt(d_k)")
    weights = Matrix(finite=False, allow_none=True, read_only=True, help="the weights for the last valid input")
    output = Matrix(finite=False, allow_none=True, read_only=True, help="the output for the last valid input")

    def __init__(self, sides, W_q, W_k, W_v, causal: bool, scale: bool, large: bool, title: str, kind: str,
                 compact: bool | None = None, steps: bool = False, goal: str | None = None, mask=None):
        task = design_task(goal) if goal is not None else None  # an unknown name raises here
        checked = []
        for spec, tokens, X in sides:
            tokens = check_tokens(tokens, spec.tokens_arg)
            X = np.asarray(X, dtype=float)
            if X.ndim != 2 or X.shape[0] != len(tokens):
                noun = " tokens" if spec.rows == "n" else ""
                raise ValueError(f"{spec.editor} must have shape ({spec.rows}, d_model) with {spec.rows} = "
                                 f"{len(tokens)}{noun}; got shape {X.shape}")
            checked.append((spec, tokens, X))
        if len(checked) == 2 and checked[0][2].shape[1] != checked[1][2].shape[1]:
            (a, _, Xa), (b, _, Xb) = checked
            raise ValueError(f"{a.editor} has shape {Xa.shape} and {b.editor} has shape {Xb.shape}: "
                             "both need the same d_model")
        W_q, W_k, W_v = (np.asarray(W, dtype=float) for W in (W_q, W_k, W_v))
        att.project_qkv(checked[0][2], W_q, W_k, W_v)  # shape errors now, with the library's message
        if causal and len(checked) == 2 and len(checked[0][1]) != len(checked[1][1]):
            raise ValueError(f"causal=True needs as many decoder as encoder tokens; "
                             f"got {len(checked[0][1])} and {len(checked[1][1])}")
        if causal and mask is not None and not masks.is_causal(mask):
            raise ValueError("give causal=True or a mask, not both: causal=True is mask='causal'")
        # Parts that look alike share their layout and style: fewer models for the page to build.
        looks = SharedLooks()
        super().__init__(layout=looks.layout())
        self._looks = looks
        self._easing = ColourEasing()  # the colour each live view showed last
        self._large = bool(large)
        self._compact = lecture_mode() if compact is None else bool(compact)
        self._shown: _Shown | None = None
        self._computed_from: list[np.ndarray] = []  # the editors' values (these very arrays) of the last result
        self.result = None
        self.trace_text = ""
        # A message about a cell beside its grid: the grid it is about and the weights under it never move. Not in
        # cross-attention, whose one-hot X_dec and X_enc are wide already (there one line under the grid is kept).
        self._message_beside = kind != "cross"
        self._html_style = looks.style(widgets.HTML)
        self._described = looks.style(widgets.BoundedIntText, description_width="initial")
        self._editor_layout = looks.layout(max_width="100%")
        self._live_setup(large, status_html=widgets.HTML("", layout=looks.layout(), style=self._html_style))
        self.views = StageViews(self)
        for stage in ("weights", "output", "trace"):
            self.views._built[stage] = self._new_view(stage)
        # The stylesheet of the linked highlighting, for the number of tokens shown (redrawn with the views), and the
        # explorer's own rules (the text's line height, the editors' rows).
        self._links = widgets.HTML("", layout=looks.layout(display="none"), style=self._html_style)
        self._links.add_class("attn-links")
        self.save_weights = SaveButtons(self._weights_figure, "cross-weights" if kind == "cross" else "weights",
                                        looks=looks)
        self.goal = task
        self.goal_feedback: Feedback | None = None
        self.goal_html = GoalLine(task, large, style=self._html_style)

        side_list = [TokenSide(self, spec, tokens, X, large, self._compact) for spec, tokens, X in checked]
        self._query_side, self._key_side = side_list[0], side_list[-1]
        d_k, d_v = W_q.shape[1], W_v.shape[1]
        dims = side_list[0].editor.col_labels
        self.editors = {s.spec.editor: s.editor for s in side_list}
        ed = dict(large=large, compact=self._compact, buttons=not self._compact, dense=True,
                  message_beside=self._message_beside, layout=self._editor_layout)
        self.editors.update({
            "W_q": MatrixEditor(W_q, dims, [f"q{k + 1}" for k in range(d_k)], title="W^Q", **ed),
            "W_k": MatrixEditor(W_k, dims, [f"k{k + 1}" for k in range(d_k)], title="W^K", **ed),
            "W_v": MatrixEditor(W_v, dims, [f"v{k + 1}" for k in range(d_v)], title="W^V", **ed),
        })
        if task is not None:
            missing = [k for k in task.names if k not in self.editors]
            if missing:
                raise ValueError(f"goal {task.name!r} needs {', '.join(missing)}, which this explorer does not have "
                                 f"(it has {', '.join(self.editors)})")
            # Judged again on every valid change (the weights trait is set on each) and when a setting changes.
            self.observe(self._judge_goal, names=["weights", "causal", "scale"])
        for name, ed in self.editors.items():
            ed.observe(self._input_changed, names="value")
            if name in ("W_q", "W_k", "W_v"):
                # The views name the columns of Q, K, V after these editors' columns (each side
                # follows its own editor's rows, see TokenSide).
                ed.on_labels(lambda _ed: self.request_update())

        box = dict(indent=False, layout=looks.layout(width="auto", margin="0 16px 0 0"),
                   style=looks.style(widgets.Checkbox))
        self._causal_box = widgets.Checkbox(value=bool(causal), description="causal mask", description_allow_html=True,
                                            **box)
        # Why ticking it (or a mask) was refused, under the box, in the flow; else what a mask given as data blocks.
        self._causal_message = widgets.HTML("", layout=looks.layout(width="22em"), style=self._html_style)
        self._causal_where = self._causal_message
        self._mask_dropped = ""  # the note that a mask given as data was taken off, shown with the change
        self._scale_box = widgets.Checkbox(value=bool(scale), description=math_html("scale by 1/√d_k"),
                                           description_allow_html=True, **box)
        self._dk_box = widgets.BoundedIntText(value=d_k, min=1, max=MAX_DK, description=math_html("d_k"),
                                              description_allow_html=True,
                                              layout=looks.layout(width="7.5em"), style=self._described)
        drop = dict(style=self._described, layout=looks.layout(width="auto"))
        self._q_drop = widgets.Dropdown(description="query", **drop)
        self._k_drop = widgets.Dropdown(description="key", **drop)
        self.watch(self._dk_box, lambda change: self._set_d_k(int(change["new"])))
        # The picked pair is outlined in the score tables too, so everything is redrawn.
        self.watch(self._q_drop, lambda _change: self.request_update())
        self.watch(self._k_drop, lambda _change: self.request_update())

        self._steps_button = widgets.ToggleButton(value=bool(steps), tooltip="Q, K, V, scores, scaled, mask",
                                                  layout=looks.layout(width="auto", align_self="flex-start",
                                                                      margin="6px 0 2px 0"))
        self._steps_box = widgets.VBox([])  # its views are built when first shown (StageViews)
        self.watch(self._steps_button, lambda change: self._show_steps(change["new"]))
        self._layout(title, kind, side_list)
        self._show_steps(bool(steps))
        with self.hold_trait_notifications():  # the first drawing, once, at the end
            self.causal, self.scale = bool(causal), bool(scale)
            # Linked both ways; a refused tick goes back, with the reason next to the box and in the status line.
            self.bind(self._causal_box, "causal", where=(self._causal_where, None))
            self.bind(self._scale_box, "scale")
            self._lengths_changed()
            if mask is not None:  # after the tokens are in: checked against them when the block ends
                self.mask = mask
        if self.result is None:
            raise ValueError(f"these inputs cannot be computed: {self.status}")

    # -- the goal of a design task

    @property
    def goal_met(self) -> bool:
        """Whether the explorer's arrays meet the goal of ``goal=`` now (False without a goal)."""
        return self.goal_feedback is not None and self.goal_feedback.correct

    def _judge_goal(self, _change=None) -> None:
        """Check the task's goal on the explorer's current arrays and show the verdict in the goal line."""
        task = self.goal
        notes = [words[bool(want)] for setting, want in task.settings.items()
                 if setting in _SETTING_WORDS and getattr(self, setting) != want
                 for words in (_SETTING_WORDS[setting],)]
        self.goal_feedback = self.goal_html.judge({k: self.editors[k].value for k in task.names}, settings=notes)

    # -- the steps

    @property
    def steps(self) -> bool:
        """Whether the intermediate stages (Q, K, V, scores, scaled, mask) are shown (the "show the steps" button)."""
        return self._steps_button.value

    def _new_view(self, stage: str) -> widgets.HTML:
        """The view of ``stage``: a table wider than the page (many tokens) scrolls inside its view instead of
        widening the page; CSS classes as the explorer documents them."""
        view = widgets.HTML("", layout=self._looks.layout(max_width="100%", overflow="auto"), style=self._html_style)
        view.add_class("attn-trace" if stage == "trace" else f"attn-view-{stage}")
        for names, cls in ((self._QUERY_ROWS, "attn-query-rows"), (self._KEY_ROWS, "attn-key-rows"),
                           (self._KEY_COLS, "attn-key-cols")):
            if stage in names:
                view.add_class(cls)
        return view

    def _build_steps(self) -> None:
        """Build the views of the folded steps (once), put them in the steps' box and draw them."""
        built = self.views._built
        if "Q" in built:
            return
        built.update({stage: self._new_view(stage) for stage in _STEPS})
        row = self._looks.layout(display="flex", flex_flow="row wrap", align_items="flex-start", max_width="100%")
        self._steps_box.children = [widgets.Box([built[k] for k in ("Q", "K", "V")], layout=row),
                                    widgets.Box([built[k] for k in ("scores", "scaled", "mask")], layout=row)]
        if self._shown is not None:
            self._draw_steps()

    def _show_steps(self, shown: bool) -> None:
        if shown:
            self._build_steps()
        first, last = STEP["Q"], STEP["mask"]
        self._steps_button.description = (f"▾ hide the steps {first}–{last}" if shown
                                          else f"▸ show the steps {first}–{last} (Q, K, V, scores, scaled, mask)")
        self._steps_box.layout.display = None if shown else "none"

    # -- the two sides

    @property
    def query_tokens(self) -> list[str]:
        return self._query_side.tokens

    @property
    def key_tokens(self) -> list[str]:
        return self._key_side.tokens

    def _equal_lengths_problem(self) -> str:
        """Why a causal mask cannot be used now ('' when it can: as many queries as keys)."""
        n_q, n_k = len(self.query_tokens), len(self.key_tokens)
        if n_q == n_k:
            return ""
        return f"a causal mask needs as many decoder tokens as encoder tokens; got {n_q} and {n_k}"

    def _lengths_changed(self) -> None:
        """After tokens changed: the causal mask, the trace pickers and the views follow (one redraw, at the end)."""
        with self.hold_trait_notifications():
            allowed = not self._equal_lengths_problem()
            if self.causal and not allowed:
                # A causal mask is only defined for equal lengths: switch it off rather than fail.
                self.causal = False
            self._fit_mask()
            self.clear_problem(self._causal_where)  # a refusal was about the lengths before
            self._show_mask_note()
            self._causal_box.disabled = not allowed
            self._causal_box.description = "causal mask" if allowed else math_html("causal mask (needs n_q = n_k)")
            q, k = self.query_tokens, self.key_tokens
            # The pickers keep their pair where it still exists (new options first select the first one).
            picked = (min(self._q_drop.value or 0, len(q) - 1), min(self._k_drop.value or 0, len(k) - 1))
            self._q_drop.options = [(f"{i}: {t}", i) for i, t in enumerate(q)]
            self._k_drop.options = [(f"{j}: {t}", j) for j, t in enumerate(k)]
            self._q_drop.value, self._k_drop.value = picked
            self.request_update()

    def _fit_mask(self) -> None:
        """A mask given as data that no longer fits the tokens comes off (the causal one becomes ``"causal"``, which
        fits any length), and the note beside the box says so."""
        mask = self.mask
        n_q, n_k = len(self.query_tokens), len(self.key_tokens)
        if mask is None or isinstance(mask, str) or mask.shape == (n_q, n_k):
            return
        if masks.is_causal(mask) and n_q == n_k:
            self.mask = "causal"
            return
        self._mask_dropped = (f"The mask given as data is {mask.shape[0]} × {mask.shape[1]}; with {n_q} queries and "
                              f"{n_k} keys now it no longer fits, so it is off. Set a mask of shape ({n_q}, {n_k}) "
                              "to mask again.")
        self.mask = None

    def _mask_refused(self, message: str) -> None:
        """Say beside the mask's control why a mask was refused (the views keep the last valid one)."""
        if self._live_ready and hasattr(self, "_causal_message"):
            self.show_problem(message, self._causal_where)

    def _show_mask_note(self, dropped: bool = False) -> None:
        """Under the box, unless a refusal is shown there: what a mask given as data blocks, or (``dropped``, with the
        change that took it off) that one no longer fitted the tokens; nothing for no mask or the causal one."""
        text = ""
        if dropped:
            text, self._mask_dropped = self._mask_dropped, ""
        mask = self.mask
        if not text and mask is not None and not isinstance(mask, str) and not masks.is_causal(mask):
            blocked = int((~mask).sum())
            text = (f"A mask given as data: {blocked} of {mask.size} weights blocked (—). Ticking the causal mask "
                    "replaces it.")
        if not self.problem(self._causal_where):
            self._causal_message.value = theme.notice_html(text, self._large) if text else ""

    # -- settings

    @traitlets.validate("mask")
    def _mask_allowed(self, proposal):
        mask = proposal["value"]
        if isinstance(mask, str):  # "causal": as for causal = True
            problem = self._equal_lengths_problem()
            if problem:
                raise RefusedValue(problem)
        elif mask is not None:
            try:
                masks.as_mask(mask, len(self.query_tokens), len(self.key_tokens), "mask", self.query_tokens)
            except ValueError as err:
                self._mask_refused(str(err))
                raise RefusedValue(str(err)) from None
        return mask

    @traitlets.validate("causal")
    def _causal_allowed(self, proposal) -> bool:
        causal = bool(proposal["value"])
        problem = self._equal_lengths_problem() if causal else ""
        if problem:
            raise RefusedValue(problem)
        return causal

    @traitlets.observe("causal", "scale", "mask")
    def _setting_changed(self, change) -> None:
        if change["name"] in ("causal", "mask"):
            self.clear_problem(self._causal_where)
            self._show_mask_note(dropped=change["name"] == "mask")
        self.request_update()

    def _input_changed(self, change) -> None:
        # An editor's value changed: recompute (at the end of a hold_trait_notifications block, if in one),
        # unless the views already show it. A new shape renames the rows, and the tokens that follow them
        # have the explorer recompute before this observer's turn comes.
        if any(change["new"] is used for used in self._computed_from):
            return
        self.request_update()

    @property
    def d_k(self) -> int:
        return self.editors["W_q"].shape[1]

    @property
    def d_model(self) -> int:
        return self.editors["W_q"].shape[0]

    def _set_d_k(self, d_k: int) -> None:
        """Change d_k: W_q and W_k gain or lose columns (the overlap is kept, new columns are seeded)."""
        d_k = whole_number(d_k, "d_k", 1, MAX_DK)
        if d_k == self.d_k:
            return  # nothing to resize, and the columns keep their names
        with self.hold_trait_notifications():  # W_q and W_k are resized together: one recompute
            for name, prefix, seed in (("W_q", "q", 1), ("W_k", "k", 2)):
                ed = self.editors[name]
                ed.resize((ed.shape[0], d_k), seed=_SEED + seed, col_labels=[f"{prefix}{k + 1}" for k in range(d_k)])
            self._dk_box.value = d_k
            self.request_update()

    def refresh(self) -> None:
        """Recompute and redraw every view (label changes on the editors already do this)."""
        self.request_update()

    # -- computing and drawing

    def _checked_update(self) -> None:
        super()._checked_update()
        # Set last and together: an observer of either trait finds the views, .result and both traits new.
        with self.hold_trait_notifications():
            self.set_trait("weights", self.result.weights)
            self.set_trait("output", self.result.output)

    def _update(self) -> None:
        q, k = self._query_side, self._key_side
        X_q = q.matrix()
        X_kv = X_q if k is q else k.matrix()
        e = self.editors
        result = att.attention_stages(X_q, X_kv, e["W_q"].value, e["W_k"].value, e["W_v"].value,
                                      mask="causal" if self.causal else self.mask, scale=self.scale)
        d_k, d_v = result.Q.shape[1], result.V.shape[1]
        self.result = result
        self._computed_from = [ed.value for ed in e.values()]
        self._shown = _Shown(result, q.tokens, k.tokens, self._column_names("W_q", d_k, "q"),
                             self._column_names("W_k", d_k, "k"), self._column_names("W_v", d_v, "v"),
                             self.causal, self.scale, given=self.mask is not None and not self.causal)
        self._draw()

    def _column_names(self, editor: str, width: int, prefix: str) -> list[str]:
        # Column k of Q, K or V comes from column k of W^Q, W^K or W^V: name it the same way.
        names = self.editors[editor].col_labels
        return names if len(names) == width else [f"{prefix}{k + 1}" for k in range(width)]

    def _traced(self) -> tuple[int, int]:
        """The query and key picked under "Trace one query and one key" (kept within the tokens shown)."""
        s = self._shown
        return (min(self._q_drop.value or 0, len(s.q_tokens) - 1), min(self._k_drop.value or 0, len(s.k_tokens) - 1))

    def _draw(self) -> None:
        s = self._shown
        res, qt, kt, large = s.result, s.q_tokens, s.k_tokens, self._large
        hl = self._traced()
        v = self.views
        if "Q" in v.built:
            self._draw_steps()
        weights_title = f"{STEP['weights']} weights = softmax(row by row)"
        if self._compact:
            # As attention_weights_html (fixed [0, 1] scale, row sums) without the colour legend: in a compact
            # explorer every line counts for keeping X and the weights on one screen.
            v["weights"].value = linked_matrix_html(
                res.weights, qt, kt, title=weights_title, row_axis="Queries ↓",
                col_axis="Keys →", large=large, scale=render.WEIGHTS, highlight=hl, legend=False, focusable=True,
                extra_column=("row sum", res.weights.sum(axis=1)), mask=res.mask, easing=self._easing)
        else:
            v["weights"].value = linked_weights_html(res.weights, qt, kt, title=weights_title, large=large,
                                                     highlight=hl, focusable=True, mask=res.mask, easing=self._easing)
        v["output"].value = linked_matrix_html(res.output, qt, s.v_cols, title=f"{STEP['output']} output = weights·V",
                                               col_axis="d_v →", row_axis="Queries ↓", large=large,
                                               easing=self._easing)
        self._links.value = (self._page_css + "<style>"
                             + highlight.link_css("attn-explorer", self._link_parts(), max(len(qt), len(kt)))
                             + "</style>")
        self._draw_trace(hl)

    def _draw_steps(self) -> None:
        """Draw the intermediate stages ①–⑥ (their views are built: see :class:`StageViews`)."""
        s = self._shown
        res, qt, kt, large = s.result, s.q_tokens, s.k_tokens, self._large
        d_k = res.Q.shape[1]
        hl = self._traced()
        qsrc, ksrc = self._query_side.spec.editor, self._key_side.spec.editor
        v = self.views.built
        queries = dict(row_axis="Queries ↓", large=large, easing=self._easing)
        keys = dict(row_axis="Keys ↓", large=large, easing=self._easing)
        v["Q"].value = linked_matrix_html(res.Q, qt, s.q_cols, title=f"{STEP['Q']} Q = {qsrc}·W^Q",
                                          col_axis="d_k →", **queries)
        v["K"].value = linked_matrix_html(res.K, kt, s.k_cols, title=f"{STEP['K']} K = {ksrc}·W^K", col_axis="d_k →",
                                          **keys)
        v["V"].value = linked_matrix_html(res.V, kt, s.v_cols, title=f"{STEP['V']} V = {ksrc}·W^V", col_axis="d_v →",
                                          **keys)
        v["scores"].value = linked_matrix_html(res.scores, qt, kt, title=f"{STEP['scores']} scores = Q·K^T",
                                               col_axis="Keys →", highlight=hl, **queries)
        if s.scale:
            scaled_title = (f"{STEP['scaled']} scaled = scores ÷ √d_k "
                            f"(÷ √{d_k} = ÷ {explain.fmt(np.sqrt(d_k), 3)})")
            note = None
        else:
            scaled_title = f"{STEP['scaled']} scaled (scaling off: the scores as they are)"
            note = "scaling is off: nothing divided"
        v["scaled"].value = linked_matrix_html(res.scaled, qt, kt, title=scaled_title, col_axis="Keys →",
                                               highlight=hl, note=note, **queries)
        # The mask is a step whether it is on or off, so that the numbers never jump.
        if s.causal:
            v["mask"].value = linked_matrix_html(
                res.masked, qt, kt, title=f"{STEP['mask']} masked: scaled + causal mask", col_axis="Keys →",
                highlight=hl, note="— where a query would see a later token: −∞ added, blocked", **queries)
        elif s.given and not res.mask.all():
            v["mask"].value = linked_matrix_html(
                res.masked, qt, kt, title=f"{STEP['mask']} masked: scaled + mask", col_axis="Keys →",
                highlight=hl, note="— where the mask blocks a key: −∞ added, blocked", **queries)
        else:
            v["mask"].value = self._mask_off_html(s.given)

    # The views by what their rows and columns are: a query's rows, a key's rows, a key's columns (CSS classes given
    # in _layout), for the linked highlighting.
    _QUERY_ROWS = ("Q", "scores", "scaled", "mask", "weights", "output")
    _KEY_ROWS = ("K", "V")
    _KEY_COLS = ("scores", "scaled", "mask", "weights")

    def _link_parts(self):
        """What lights up with what: a query's row in every view of queries; a key's row in K and V and its column
        in the score tables; in self-attention a token's label lights all of that token's rows and columns."""
        queries, key_rows = highlight.rows("attn-query-rows"), highlight.rows("attn-key-rows")
        key_cols = highlight.cols("attn-key-cols")
        links = [([queries], [queries]), ([key_cols, key_rows], [key_rows, key_cols])]
        if self._key_side is self._query_side:
            links.append(([highlight.labels("attn-query-rows", "attn-key-rows")], [queries, key_rows, key_cols]))
        # And, lighter, the rows of X they come from: the query's token in the query side's X, the key's in the key
        # side's (in self-attention both are rows of the one X).
        links += [([queries], [highlight.rows("attn-query-source")], highlight.SOURCE_STYLE),
                  ([key_cols, key_rows], [highlight.rows("attn-key-source")], highlight.SOURCE_STYLE)]
        return links

    def _legend_html(self) -> str:
        return highlight.legend_html([
            (highlight.TRACED_STYLE, "the query and key traced below"),
            (highlight.LINKED_STYLE, "what the cell under the pointer or the keyboard focus comes from and feeds: "
                                     "its query's row, its key's row, its row of the output"),
            (highlight.SOURCE_STYLE, "the rows of X they come from"),
        ], self._large)

    def _weights_figure(self):
        """The weights on show as a heatmap for a slide (the "Save PNG" / "Save SVG" buttons under them)."""
        s = self._shown
        masked = ", causal mask" if s.causal else ", masked" if not s.result.mask.all() else ""
        title = "Attention weights" + masked + ("" if s.scale else ", not scaled")
        return render.heatmap(s.result.weights, s.q_tokens, s.k_tokens, title=title)

    def _mask_off_html(self, given: bool = False) -> str:
        sz = theme.sizes(self._large)
        state = "blocks nothing" if given else "off"  # a mask given as data may be all True
        return (f'<div style="{theme.panel_style(self._large)}padding:6px 10px;margin:3px;max-width:16em">'
                f'<div style="font-weight:700;font-size:{sz.title}">{STEP["mask"]} mask: {state}</div>'
                f'<div style="font-size:{sz.small}">nothing is blocked: the scaled scores {STEP["scaled"]} go to the '
                f'softmax {STEP["weights"]} as they are</div></div>')

    def _draw_trace(self, pair) -> None:
        s = self._shown
        i, j = pair
        steps = trace.trace_steps(s.result, s.q_tokens, s.k_tokens, i, j, scale=s.scale, step_numbers=STEP,
                                  causal=s.causal)
        self.trace_text = trace.trace_text(steps, s.q_tokens, s.k_tokens, i, j)
        self.views["trace"].value = trace.trace_html(steps, s.q_tokens, s.k_tokens, i, j, self._large)

    # -- layout

    def _layout(self, title: str, kind: str, sides: list[TokenSide]) -> None:
        looks = self._looks

        def row(items, **extra):
            # Rows wrap and never grow wider than the notebook.
            style = dict(display="flex", flex_flow="row wrap", align_items="flex-start", max_width="100%")
            return widgets.Box(items, layout=looks.layout(**{**style, **extra}))

        v = self.views
        header = widgets.HTML(theme.heading_html(title, self._large), layout=looks.layout(), style=self._html_style)
        # Stable CSS classes: tests find the parts by them (not by on-screen titles, which may be reworded),
        # and a learner's or a lecturer's style sheet can address them.
        self.add_class("course-widget")
        self.add_class("attn-explorer")
        self.add_class(f"attn-explorer-{kind}")
        header.add_class("attn-header")
        for name, ed in self.editors.items():
            ed.add_class(f"attn-editor-{name}")
        # The rows of X that a weight's query and key come from (lit, lighter, with the weight: _link_parts).
        self._query_side.editor.add_class("attn-query-source")
        self._key_side.editor.add_class("attn-key-source")
        for w, cls in ((self._causal_box, "attn-causal"), (self._causal_message, "attn-causal-message"),
                       (self._scale_box, "attn-scale"), (self._dk_box, "attn-dk"),
                       (self.status_html, "attn-status"), (self._q_drop, "attn-trace-query"),
                       (self._k_drop, "attn-trace-key"), (self._steps_button, "attn-steps-toggle"),
                       (self._steps_box, "attn-steps")):
            w.add_class(cls)
        causal_field = widgets.VBox([self._causal_box, self._causal_message], layout=looks.layout())
        controls = ([causal_field, self._scale_box] + [s.count_box for s in sides] + [self._dk_box]
                    + [s.names_field for s in sides] + [self._steps_button])
        # The data flow, down the page: the inputs (X and the W's), the steps (folded), the weights and the output.
        # Edit and effect on one screen: the inputs sit right above the weights, aligned at the top. They wrap, never
        # scroll: four editors in one row where they fit (page_css), else two rows of two. Cross-attention's X_dec and
        # X_enc (one-hot, ten features wide) fill a row, and its W's (ten rows tall) a second row, which goes beside
        # the weights, or under them on a narrow page (before the output): X_dec, X_enc, the W's and the weights never
        # fit one screen together at 1400 × 900, but each row fits with the weights it changes. The folded steps
        # open between the inputs and the weights.
        editors = [s.editor for s in sides] + [self.editors[k] for k in ("W_q", "W_k", "W_v")]
        w_row = None
        if kind == "cross":
            inputs = row(editors[:len(sides)])
            w_row = row(editors[len(sides):])
            w_row.add_class("attn-inputs")
            w_row.add_class("attn-inputs-w")
        else:
            inputs = row(editors)
        inputs.add_class("attn-inputs")
        legend = widgets.HTML(self._legend_html() + self._trace_heading_html(), layout=looks.layout(),
                              style=self._html_style)
        legend.add_class("attn-legend")
        weights = widgets.VBox([v["weights"], self.save_weights], layout=looks.layout(max_width="100%"))
        results = row([weights] + ([w_row] if w_row is not None else []) + [v["output"]], overflow="visible")
        results.add_class("attn-results")
        self._page_css = TEXT_CSS + self._inputs_css(kind, editors)
        self.children = [
            header,
            row(controls, overflow="visible", align_items="center"),
            self.goal_html,
            inputs,
            self._steps_box,
            results,
            self.status_html,
            legend,
            row([self._q_drop, self._k_drop]),
            trace.trace_fold(v["trace"], self._large, looks=self._looks),
            self._links,
        ]

    def _trace_heading_html(self) -> str:
        return (f'<div style="font-weight:700;margin-top:6px;font-size:{theme.sizes(self._large).font}">'
                "Trace one query and one key</div>")

    def _inputs_css(self, kind: str, editors: list[MatrixEditor]) -> str:
        """The rules that lay the editors out: rows of editors that wrap, aligned at the top, each editor taking a
        share of the row's spare width (so that a message under a narrow grid has room and wraps little); a
        self-attention explorer's four editors in one row where the explorer is wide enough for them (a container
        query on its width), else two rows of two. Scoped to a class that names the width (a page may show explorers
        of several sizes). A cross-attention explorer's rows are two boxes already (see _layout)."""
        gap = 10
        # Room under the goal line for its folded hint's text, which the browser counts in the goal's extent.
        rules = (".attn-explorer{container-type:inline-size}.attn-goal{margin-bottom:24px}"
                 f".attn-inputs{{column-gap:{gap - 2}px}}"
                 ".attn-inputs>.matrix-editor{margin:2px 2px 2px 0;flex:1 1 auto;max-width:max-content}")
        if kind != "cross":
            width = sum(_editor_width(ed) + gap for ed in editors)
            scope = f"attn-wrap-{width}"
            self.add_class(scope)
            # A flex row breaks where a whole-width item stands: the ::before of the row, ordered between the rows.
            split = (f".{scope} .attn-inputs::before{{content:'';flex-basis:100%;order:2}}"
                     + ",".join(f".{scope} .attn-inputs>.attn-editor-{k}" for k in ("W_k", "W_v")) + "{order:3}")
            rules += f"@container (max-width:{width}px){{{split}}}"
        return f"<style>{rules}</style>"

class AttentionExplorer(Explorer):
    """Self-attention, live: edit the tokens, X and the weight matrices, watch every stage.

    Parameters
    ----------
    tokens : list of str, length n
    X : array_like (n, d_model)
    W_q, W_k : array_like (d_model, d_k)
    W_v : array_like (d_model, d_v)
    causal : bool
        Apply the causal mask (query i sees keys 0..i): the same as ``mask="causal"``.
    scale : bool
        Divide the scores by sqrt(d_k).
    large : bool
        Bigger fonts for a projector.
    compact : bool or None
        Narrower editor cells, no Reset / Randomize buttons, so that an edit and its effect fit a
        projector at 1024 × 768. None (the default): compact in the lecture mode (``make present``) only.
    steps : bool
        Show the intermediate stages (① Q, ② K, ③ V, ④ scores, ⑤ scaled, ⑥ mask) from the start; by default
        they are folded behind the "show the steps" button (:attr:`steps` says which).
    goal : str or None
        A design task's name (``"01-sat-attends-cat"``, see :func:`helpers.exercises.design.design_tasks`): a
        goal line above the weights states the goal and, on every valid change, ✓ or ✗ with what is still off
        (the task's arrays are the explorer's X, W_q, W_k, W_v, by name).
    mask : None, "causal" or array_like of bool (n, n)
        True where query i may attend to key j: a sliding window, a padding mask, any mask given as data
        (:mod:`helpers.core.masks` makes the usual ones). Not together with ``causal=True``.

    Layout, the data flow down the page: the inputs X, W^Q, W^K, W^V in one strip (CSS class ``attn-inputs``), the
    folded steps ①–⑥, the weights ⑦ and the output ⑧ right under the strip, so that any editor and the weights are
    on one screen; then the legend of the outlines (``attn-legend``) and the trace, whose steps carry the numbers of
    the views they compute. The stages keep their numbers whether the mask is on or off. Pointing at a weight or
    focusing it (each weight takes the keyboard focus) outlines its query's row in Q, the scores and the output and
    its key's row in K and V (a stylesheet, CSS class ``attn-links``).

    Attributes
    ----------
    mask : None, "causal" or ndarray of bool (n, n) (a trait)
        The mask (True = may attend); a refused one raises ``TraitError`` and is said beside the causal checkbox.
    causal, scale : bool (traits)
        The settings; the checkboxes are linked to them (``widgets.link`` works on them too). ``causal`` is an
        alias of ``mask``: True exactly when the mask is the causal one.
    weights, output : ndarray (n, n) and (n, d_v) (read-only traits)
        The results for the last valid input, set on every valid change (``observe`` them).
    editors : dict "X", "W_q", "W_k", "W_v" -> MatrixEditor
    result : AttentionResult for the last valid input
    views : dict stage name -> ipywidgets.HTML ("Q", "K", "V", "scores", "scaled", "mask",
        "weights", "output", "trace")
    trace_text : str, the arithmetic for the picked query and key with the actual numbers
    status : str, why the last input could not be computed ('' when it could)
    goal_met : bool, whether the goal of ``goal=`` is met now; goal_feedback : Feedback or None, its verdict

    CSS classes (stable, for tests and custom styles): ``attn-explorer`` and ``attn-explorer-self`` on the
    explorer; ``attn-editor-X``, ``attn-editor-W_q``, ``attn-editor-W_k``, ``attn-editor-W_v`` on the
    editors; ``attn-view-<stage>`` on each view of ``views`` (``attn-view-weights``, ...) except the trace,
    which is ``attn-trace``; ``attn-causal`` (its message, or what a mask given as data blocks:
    ``attn-causal-message``), ``attn-scale``,
    ``attn-tokens``, ``attn-dk``, ``attn-token-names`` (its message: ``attn-token-names-message``),
    ``attn-status``, ``attn-trace-query``, ``attn-trace-key`` on the controls; ``attn-goal`` on the goal line.
    """

    def __init__(self, tokens, X, W_q, W_k, W_v, causal: bool = False, scale: bool = True, large: bool = False,
                 compact: bool | None = None, steps: bool = False, goal: str | None = None, mask=None):
        super().__init__([(SELF_SIDE, tokens, X)], W_q, W_k, W_v, causal, scale, large,
                         title="Self-attention explorer", kind="self", compact=compact, steps=steps, goal=goal,
                         mask=mask)

    @property
    def tokens(self) -> list[str]:
        return self.query_tokens

    def set_tokens(self, tokens) -> None:
        """Change the tokens; X keeps the rows it has and new rows get seeded small values."""
        self._query_side.set_tokens(tokens)

    def __repr__(self) -> str:
        return f"AttentionExplorer(tokens={len(self.tokens)}, d_model={self.d_model}, d_k={self.d_k})"


class CrossAttentionExplorer(Explorer):
    """Cross-attention, live: queries from the decoder, keys and values from the encoder.

    Parameters
    ----------
    query_tokens : list of str, length n_q (decoder side)
    key_tokens : list of str, length n_k (encoder side)
    X_dec : array_like (n_q, d_model)
    X_enc : array_like (n_k, d_model)
    W_q, W_k : array_like (d_model, d_k)
    W_v : array_like (d_model, d_v)
    causal : bool
        Off by default: a decoder's cross-attention sees the whole source. It can be
        turned on only when n_q == n_k (the checkbox is disabled otherwise, and assigning
        ``causal = True`` is refused with the reason).
    scale, large, compact, steps : bool
        As for :class:`AttentionExplorer`.
    goal : str or None
        A design task's name, as for :class:`AttentionExplorer`; its arrays are X_dec, X_enc, W_q, W_k, W_v.
    mask : None, "causal" or array_like of bool (n_q, n_k)
        As for :class:`AttentionExplorer`: rows are decoder tokens, columns encoder tokens (a padded source:
        False in the columns of its padding).

    The weights are n_q × n_k (not square in general): rows are decoder tokens
    (queries), columns encoder tokens (keys).

    CSS classes: as :class:`AttentionExplorer`, with ``attn-explorer-cross`` instead of
    ``attn-explorer-self``, editors ``attn-editor-X_dec`` and ``attn-editor-X_enc`` instead of
    ``attn-editor-X``, and ``attn-decoder-tokens``, ``attn-encoder-tokens``, ``attn-decoder-names``,
    ``attn-encoder-names`` (messages ``attn-decoder-names-message``, ``attn-encoder-names-message``) for
    the length and name boxes.
    """

    def __init__(self, query_tokens, key_tokens, X_dec, X_enc, W_q, W_k, W_v, causal: bool = False,
                 scale: bool = True, large: bool = False, compact: bool | None = None, steps: bool = False,
                 goal: str | None = None, mask=None):
        super().__init__([(DECODER_SIDE, query_tokens, X_dec), (ENCODER_SIDE, key_tokens, X_enc)],
                         W_q, W_k, W_v, causal, scale, large, title="Cross-attention explorer", kind="cross",
                         compact=compact, steps=steps, goal=goal, mask=mask)

    def __repr__(self) -> str:
        return (f"CrossAttentionExplorer(query_tokens={len(self.query_tokens)}, key_tokens={len(self.key_tokens)}, "
                f"d_model={self.d_model}, d_k={self.d_k})")
