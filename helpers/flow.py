"""One picture of the attention step: the data flow from X to the output, with every shape, one step highlighted.

The course draws the same diagram wherever a notebook computes part of the step, with the part it computes
highlighted::

    from helpers.flow import attention_flow
    attention_flow("scores")                                   # one head, symbolic shapes: (n, d_k), (n, n), ...
    attention_flow("QKV", n=3, d_model=4, d_k=2)               # the shapes of an example: (3, 4), (3, 2), ...
    attention_flow("masked", masked=True)                      # with the mask step (a causal or padding mask)
    attention_flow(["concat", "W_O"], heads=True, n=3, d_model=4, h=2)   # multi-head: split, per head, concat, W^O, + X
    attention_flow(None)                                       # nothing highlighted

The steps, in order (:data:`STEP_NAMES`; ``masked`` only with ``masked=True``; ``split``, ``concat``, ``W_O`` and
``residual`` only with ``heads=True``):

==========  =======================================  ===================================================
step        one head                                 ``heads=True`` (h heads of width d_k = d_model / h)
==========  =======================================  ===================================================
X           the tokens, (n, d_model)                 the same
QKV         Q = XW^Q, K = XW^K (n, d_k), V (n, d_v)  Q, K, V (n, d_model): all heads' columns
split       -                                        head i takes columns i·d_k to (i+1)·d_k: h × (n, d_k)
scores      S = QKᵀ, (n, n)                          per head
scaled      S / √d_k, (n, n)                         per head
masked      + M (−∞ where blocked), (n, n)           per head
weights     A = softmax of each row, (n, n)          per head
output      AV, (n, d_v)                             head_i = A_i V_i, (n, d_k), per head
concat      -                                        Concat(head_1, ..., head_h), (n, d_model)
W_O         -                                        Concat · W^O, (n, d_model)
residual    -                                        X + output, (n, d_model): the next layer's input
==========  =======================================  ===================================================

:func:`flow_steps` returns the steps as data (their formulas and shapes, as text); :func:`attention_flow` draws
them as a :func:`helpers.render.described_figure` whose alt text reads the whole flow and names the highlighted
step. Like every course figure it is drawn on light paper with dark text (:func:`helpers.theme.figure_style`), so
it reads in JupyterLab's light and dark themes alike; the highlight is the theme's :data:`helpers.theme.HIGHLIGHT`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from helpers import theme
from helpers.render import described_figure

__all__ = ["STEP_NAMES", "FlowStep", "flow_steps", "flow_alt", "attention_flow"]

STEP_NAMES = ("X", "QKV", "split", "scores", "scaled", "masked", "weights", "output", "concat", "W_O", "residual")
_HEADS_ONLY = ("split", "concat", "W_O", "residual")
_PER_HEAD = ("scores", "scaled", "masked", "weights", "output")

# Each dimension's symbol, as plain text (alt text, flow_steps) and as matplotlib mathtext (the figure).
_PLAIN = {"n": "n", "d_model": "d_model", "d_k": "d_k", "d_v": "d_v", "h": "h"}
_MATH = {"n": r"n", "d_model": r"d_{model}", "d_k": r"d_k", "d_v": r"d_v", "h": r"h"}


@dataclass(frozen=True)
class FlowStep:
    """One step of the diagram.

    Attributes
    ----------
    name : str
        The step's key, one of :data:`STEP_NAMES` (what ``highlight`` takes).
    title : str
        Its heading ("scores").
    formula : str
        How it is made, plain text ("S = QKᵀ").
    shape : str
        Its shape, plain text: ``"(n, n)"``, or with sizes ``"(3, 3)"``; ``"Q, K (n, d_k); V (n, d_v)"`` when the
        step makes matrices of two shapes.
    per_head : bool
        True for the steps each head runs on its own columns (only with ``heads=True``).
    title_math, formula_math, shape_math : str
        The same as matplotlib mathtext, as the figure draws them (long formulas on two lines).
    """

    name: str
    title: str
    formula: str
    shape: str
    per_head: bool
    title_math: str
    formula_math: str
    shape_math: str


def _whole(value, name: str) -> int | None:
    """``value`` as an int ≥ 1, or None; a ValueError naming ``name`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ValueError(f"{name} must be a whole number ≥ 1 or None; got {value!r}")
    number = int(value.__index__())
    if number < 1:
        raise ValueError(f"{name} must be a whole number ≥ 1 or None; got {number}")
    return number


def _sizes(heads: bool, n, d_model, d_k, d_v, h) -> dict:
    """Each dimension as a number, or None where it stays a symbol; checked for agreement."""
    sizes = {"n": _whole(n, "n"), "d_model": _whole(d_model, "d_model"), "d_k": _whole(d_k, "d_k"),
             "d_v": _whole(d_v, "d_v"), "h": _whole(h, "h")}
    if not heads:
        if sizes["h"] is not None:
            raise ValueError("h is an argument only with heads=True")
        if sizes["d_v"] is None:
            sizes["d_v"] = sizes["d_k"]   # d_v = d_k, as in the original Transformer, unless given
        return sizes
    if sizes["d_v"] is not None:
        raise ValueError("d_v is not an argument with heads=True: each head's values are d_k = d_model / h wide, so "
                         "that the heads concatenate back to d_model")
    dm, hh, dk = sizes["d_model"], sizes["h"], sizes["d_k"]
    if dm is not None and hh is not None:
        if dm % hh:
            raise ValueError(f"h = {hh} does not divide d_model = {dm}: each head gets d_k = d_model / h columns")
        if dk is not None and dk != dm // hh:
            raise ValueError(f"d_k = {dk}, but d_model / h = {dm} / {hh} = {dm // hh}")
        sizes["d_k"] = dm // hh
    elif dm is not None and dk is not None:
        if dm % dk:
            raise ValueError(f"d_k = {dk} does not divide d_model = {dm}")
        sizes["h"] = dm // dk
    elif hh is not None and dk is not None:
        sizes["d_model"] = hh * dk
    sizes["d_v"] = sizes["d_k"]
    return sizes


def _dim(sizes: dict, name: str, math: bool) -> str:
    value = sizes[name]
    if value is not None:
        return str(value)
    return _MATH[name] if math else _PLAIN[name]


def _shape(sizes: dict, dims: tuple[str, ...], math: bool) -> str:
    text = "(" + ", ".join(_dim(sizes, d, math) for d in dims) + ")"
    return f"${text}$" if math else text


def _both(sizes: dict, *dims: str) -> tuple[str, str]:
    """A shape as (plain text, mathtext)."""
    return _shape(sizes, dims, False), _shape(sizes, dims, True)


def _qkv_shape(sizes: dict, heads: bool) -> tuple[str, str]:
    """The shapes of Q, K and V: one when they agree ("(3, 2) each"), both otherwise."""
    if heads:
        plain, math = _both(sizes, "n", "d_model")
        return plain + " each", math + " each"
    (qk, qk_m), (v, v_m) = _both(sizes, "n", "d_k"), _both(sizes, "n", "d_v")
    if qk == v:
        return qk + " each", qk_m + " each"
    return f"Q, K {qk}; V {v}", f"Q, K {qk_m}\nV {v_m}"


def flow_steps(masked: bool = False, heads: bool = False, *, n=None, d_model=None, d_k=None, d_v=None,
               h=None) -> list[FlowStep]:
    """The steps of one attention step, in order, each with its formula and shape.

    Parameters
    ----------
    masked : bool
        Include the mask step (the scores of blocked keys set to −∞) between the scaling and the softmax.
    heads : bool
        Multi-head: Q, K, V split into ``h`` heads, each head's steps, the concatenation, ``W^O`` and the residual
        ``X + output``. Without it: one head, from ``X`` to ``AV``.
    n, d_model, d_k, d_v, h : int or None
        Sizes to write into the shapes; each one left ``None`` stays a symbol. With ``heads=True``, ``d_k`` follows
        from ``d_model`` and ``h`` (and each head's values are ``d_k`` wide, so ``d_v`` is not taken); with one head,
        ``d_v`` is ``d_k`` unless given.

    Returns
    -------
    list of FlowStep

    Raises
    ------
    ValueError
        For a size that is not a whole number ≥ 1, ``h`` that does not divide ``d_model``, sizes that disagree, or
        ``h`` (one head) or ``d_v`` (heads) given where it does not apply.
    """
    s = _sizes(bool(heads), n, d_model, d_k, d_v, h)
    i, mi = ("_i", "_i") if heads else ("", "")
    # (name, title, title as mathtext, formula, formula as mathtext, (shape, shape as mathtext))
    rows = [("X", "tokens X", "tokens $X$", "one row per token", "one row\nper token", _both(s, "n", "d_model"))]
    rows.append(("QKV", "Q, K, V", "$Q$, $K$, $V$", "Q = XW^Q, K = XW^K, V = XW^V",
                 r"$Q = XW^Q,\ K = XW^K$" + "\n" + r"$V = XW^V$", _qkv_shape(s, bool(heads))))
    if heads:
        split = (f"{_dim(s, 'h', False)} × {_shape(s, ('n', 'd_k'), False)}",
                 f"${_dim(s, 'h', True)}$ × {_shape(s, ('n', 'd_k'), True)}")
        rows.append(("split", "split into heads", "split into heads", "head i: columns i·d_k to (i+1)·d_k − 1",
                     r"head $i$: columns" + "\n" + r"$i\,d_k$ to $(i{+}1)\,d_k - 1$", split))
    rows.append(("scores", "scores", "scores", f"S{i} = Q{i}K{i}ᵀ", rf"$S{mi} = Q{mi}K{mi}^\top$",
                 _both(s, "n", "n")))
    rows.append(("scaled", "scaled", "scaled", f"S{i} / √d_k", rf"$S{mi}\,/\sqrt{{d_k}}$", _both(s, "n", "n")))
    if masked:
        rows.append(("masked", "masked", "masked", "+ M, −∞ where a key is blocked",
                     r"$+\,M$" + "\n" + r"($-\infty$ where blocked)", _both(s, "n", "n")))
    rows.append(("weights", "weights", "weights", f"A{i} = softmax of each row",
                 rf"$A{mi}$ = softmax" + "\n" + "of each row", _both(s, "n", "n")))
    if heads:
        rows.append(("output", "head output", "head output", "head_i = A_i V_i", r"$\mathrm{head}_i = A_i V_i$",
                     _both(s, "n", "d_k")))
        rows.append(("concat", "concatenate", "concatenate", "Concat(head_1, …, head_h)",
                     r"Concat$(\mathrm{head}_1,$" + "\n" + r"$\ldots, \mathrm{head}_h)$", _both(s, "n", "d_model")))
        rows.append(("W_O", "× W^O", r"$\times\ W^O$", f"Concat · W^O, W^O {_shape(s, ('d_model', 'd_model'), False)}",
                     r"Concat $\cdot\ W^O$" + "\n" + rf"$W^O$: {_shape(s, ('d_model', 'd_model'), True)}",
                     _both(s, "n", "d_model")))
        rows.append(("residual", "+ X (residual)", r"$+\ X$ (residual)", "X + output, the next layer's input",
                     "$X$ + output:" + "\n" + "next layer's input", _both(s, "n", "d_model")))
    else:
        rows.append(("output", "output", "output", "AV", "$AV$", _both(s, "n", "d_v")))
    return [FlowStep(name=name, title=title, formula=formula, shape=plain, per_head=bool(heads) and name in _PER_HEAD,
                     title_math=title_math, formula_math=formula_math, shape_math=shape_math)
            for name, title, title_math, formula, formula_math, (plain, shape_math) in rows]


def _highlighted(highlight, steps: list[FlowStep]) -> tuple[str, ...]:
    """``highlight`` as a tuple of step names, each checked against the steps drawn."""
    if highlight is None:
        return ()
    names = (highlight,) if isinstance(highlight, str) else highlight
    if not isinstance(names, Iterable):
        raise ValueError(f"highlight must be a step's name, a list of them, or None; got {highlight!r}")
    names = tuple(names)
    drawn = [s.name for s in steps]
    for name in names:
        if not isinstance(name, str) or name not in STEP_NAMES:
            raise ValueError(f"highlight: no step is called {name!r}; the steps are {', '.join(drawn)}")
        if name not in drawn:
            why = "masked=True" if name == "masked" else "heads=True"
            raise ValueError(f"highlight: the step {name!r} is drawn only with {why}; "
                             f"the steps drawn are {', '.join(drawn)}")
    return tuple(n for n in drawn if n in names)


def flow_alt(steps: list[FlowStep], highlight: tuple[str, ...] = (), heads: bool = False) -> str:
    """The diagram in words: every step with its formula and shape, in order, then what is highlighted."""
    def words(step: FlowStep) -> str:
        return f"{step.title}: {step.formula}, shape {step.shape}"

    if heads:
        before = [s for s in steps if s.name in ("X", "QKV", "split")]
        each = [s for s in steps if s.per_head]
        after = [s for s in steps if s.name in ("concat", "W_O", "residual")]
        flow = (" → ".join(map(words, before)) + " → in each head: " + " → ".join(map(words, each)) + " → "
                + " → ".join(map(words, after)))
        text = f"Data flow of multi-head attention. {flow}."
    else:
        text = f"Data flow of one attention step. {' → '.join(map(words, steps))}."
    lit = [s for s in steps if s.name in highlight]
    if lit:
        text += " Highlighted: " + "; ".join(f"{s.title} ({s.formula}, shape {s.shape})" for s in lit) + "."
    return text


# --------------------------------------------------------------------------- drawing

# Sizes in inches: a box, the gap an arrow crosses, the gap between rows (where the arrow turns), the margin, the
# title's line; the offset of each card behind a per-head box; the frame round the per-head row and its label.
_BOX_W, _BOX_H, _GAP, _ROW_GAP, _MARGIN, _TITLE_H = 1.4, 1.2, 0.36, 0.5, 0.2, 0.42
_CARD = 0.07
_FRAME_PAD, _FRAME_LABEL = 0.16, 0.3
_ROUND = "round,pad=0,rounding_size=0.08"


def _mix(colour: str, into: str, share: float) -> tuple[float, float, float]:
    """``share`` of ``colour`` mixed into ``into`` (both matplotlib colours): a tint of the theme's colours."""
    from matplotlib.colors import to_rgb

    a, b = to_rgb(colour), to_rgb(into)
    return tuple(share * x + (1 - share) * y for x, y in zip(a, b))


def _rows(steps: list[FlowStep], heads: bool) -> list[list[FlowStep]]:
    """The steps in rows, read left to right, top to bottom: one head in one row (two when masked); heads in three
    (up to the split; each head's steps; after the heads)."""
    if heads:
        return [[s for s in steps if s.name in ("X", "QKV", "split")], [s for s in steps if s.per_head],
                [s for s in steps if s.name in ("concat", "W_O", "residual")]]
    if len(steps) <= 6:
        return [steps]
    return [steps[:4], steps[4:]]


def attention_flow(highlight=None, *, masked: bool = False, heads: bool = False, n=None, d_model=None, d_k=None,
                   d_v=None, h=None, title: str | None = None):
    """The data-flow diagram of the attention step, with ``highlight`` marked: a figure with alt text.

    Parameters
    ----------
    highlight : str, list of str, or None
        The step (or steps) to mark, by name: ``"X"``, ``"QKV"``, ``"scores"``, ``"scaled"``, ``"masked"`` (with
        ``masked=True``), ``"weights"``, ``"output"``, and with ``heads=True`` also ``"split"``, ``"concat"``,
        ``"W_O"``, ``"residual"`` (see :data:`STEP_NAMES`). ``None``: nothing marked.
    masked : bool
        Draw the mask step between the scaling and the softmax.
    heads : bool
        Draw multi-head attention: the split into heads, each head's steps (a stack of cards, one per head, in a
        dashed frame: three cards, or h when h is 1 or 2), the concatenation, ``W^O`` and the residual ``X + output``.
    n, d_model, d_k, d_v, h : int or None
        Sizes written into the shapes (``None`` keeps the symbol): see :func:`flow_steps`.
    title : str, optional
        The figure's title; by default it names the diagram and the highlighted steps.

    Returns
    -------
    DescribedFigure
        A ``matplotlib.figure.Figure`` (no pyplot state) whose ``alt`` reads the flow in words and names the
        highlighted steps; a notebook cell shows it as an image with that alt text. Each step's box is a patch
        with gid ``"flow-step-<name>"``.

    Raises
    ------
    ValueError
        For an unknown step, a step not drawn with these settings (``"masked"`` without ``masked=True``, ``"split"``
        without ``heads=True``), or sizes :func:`flow_steps` refuses.
    """
    from matplotlib.patches import FancyBboxPatch, Rectangle

    heads, masked = bool(heads), bool(masked)
    steps = flow_steps(masked, heads, n=n, d_model=d_model, d_k=d_k, d_v=d_v, h=h)
    lit = _highlighted(highlight, steps)
    rows = _rows(steps, heads)
    framed = 1 if heads else None              # the row of per-head steps
    count = steps[2].shape.split(" × ")[0] if heads else "1"   # the split's "h × (n, d_k)": h, or its number
    behind = 2 if not count.isdigit() else min(int(count), 3) - 1   # cards behind each per-head box
    inset = _FRAME_PAD if heads else 0.0
    cards = 2 * _CARD if heads else 0.0
    widest = max(len(r) for r in rows)
    width = 2 * _MARGIN + 2 * inset + widest * _BOX_W + (widest - 1) * _GAP + cards

    # Top down: each row's room above its boxes (the frame's label and pad, the cards), the boxes, the room below
    # (the frame's pad), then the gap where the arrow to the next row turns.
    above = [_FRAME_LABEL + _FRAME_PAD + cards if r == framed else 0.0 for r in range(len(rows))]
    below = [_FRAME_PAD if r == framed else 0.0 for r in range(len(rows))]
    height = _TITLE_H + 2 * _MARGIN + sum(above) + sum(below) + len(rows) * _BOX_H + (len(rows) - 1) * _ROW_GAP
    bottoms, y = [], height - _MARGIN - _TITLE_H
    for r in range(len(rows)):
        y -= above[r] + _BOX_H
        bottoms.append(y)
        y -= below[r] + _ROW_GAP

    fig = described_figure(figsize=(width, height))
    with theme.figure_style():
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, width)
        ax.set_ylim(0, height)
        ax.axis("off")
        faces = {False: _mix(theme.FIGURE_EDGE, theme.FIGURE_FACE, 0.12),
                 True: _mix(theme.HIGHLIGHT, theme.FIGURE_FACE, 0.16)}
        edges = {False: theme.FIGURE_EDGE, True: theme.HIGHLIGHT}
        if title is None:
            names = ", ".join(s.title_math for s in steps if s.name in lit)
            title = ("Multi-head attention" if heads else "One attention step") + (f": {names}" if names else "")
        ax.text(_MARGIN, height - _MARGIN, title, ha="left", va="top", fontsize=11, fontweight="bold",
                color=theme.FIGURE_FG)

        corner = {}                            # step name -> the lower left corner of its box
        x0 = _MARGIN + inset
        for r, row in enumerate(rows):
            y = bottoms[r]
            for c, step in enumerate(row):
                x = x0 + c * (_BOX_W + _GAP)
                on = step.name in lit
                if r == framed:                # the other heads: cards behind, offset up and to the right
                    for k in range(behind, 0, -1):
                        ax.add_patch(FancyBboxPatch((x + k * _CARD, y + k * _CARD), _BOX_W, _BOX_H, boxstyle=_ROUND,
                                                    facecolor=faces[on], edgecolor=edges[on], linewidth=1.0,
                                                    zorder=3 - k))
                ax.add_patch(FancyBboxPatch((x, y), _BOX_W, _BOX_H, boxstyle=_ROUND, facecolor=faces[on],
                                            edgecolor=edges[on], linewidth=3.0 if on else 1.2, zorder=4,
                                            gid=f"flow-step-{step.name}"))
                cx = x + _BOX_W / 2
                ax.text(cx, y + _BOX_H - 0.09, step.title_math, ha="center", va="top", fontsize=10,
                        fontweight="bold", color=theme.FIGURE_FG, zorder=5)
                ax.text(cx, y + _BOX_H * 0.56, step.formula_math, ha="center", va="center", fontsize=8.5,
                        color=theme.FIGURE_FG, zorder=5, linespacing=1.3)
                ax.text(cx, y + 0.09, step.shape_math, ha="center", va="bottom", fontsize=9.5,
                        color=theme.FIGURE_FG, zorder=5, linespacing=1.25)
                corner[step.name] = (x, y)
            if r == framed:
                fx, fy = x0 - inset, y - _FRAME_PAD
                fw, fh = len(row) * _BOX_W + (len(row) - 1) * _GAP + cards + 2 * inset, _BOX_H + cards + 2 * _FRAME_PAD
                ax.add_patch(Rectangle((fx, fy), fw, fh, fill=False, edgecolor=theme.FIGURE_FG, linewidth=1.0,
                                       linestyle=(0, (4, 3)), zorder=0))
                ax.text(fx + fw - 0.06, fy + fh + 0.05, f"in each of the {count} heads, on its own columns of Q, K, V",
                        ha="right", va="bottom", fontsize=9, fontstyle="italic", color=theme.FIGURE_FG)

        arrow = dict(arrowstyle="-|>", color=theme.FIGURE_FG, linewidth=1.3, shrinkA=0, shrinkB=0,
                     mutation_scale=12)
        for r, row in enumerate(rows):
            for a, b in zip(row, row[1:]):     # along a row: a straight arrow from box to box
                (xa, ya), (xb, yb) = corner[a.name], corner[b.name]
                ax.annotate("", xy=(xb, yb + _BOX_H / 2), xytext=(xa + _BOX_W, ya + _BOX_H / 2), arrowprops=arrow)
            if r + 1 < len(rows):              # to the next row: down, back to its first box, down into it
                (xa, ya), (xb, yb) = corner[row[-1].name], corner[rows[r + 1][0].name]
                x1, x2 = xa + _BOX_W / 2, xb + _BOX_W / 2
                turn = ya - below[r] - _ROW_GAP / 2
                top = yb + _BOX_H + (cards if r + 1 == framed else 0.0)
                ax.plot([x1, x1, x2], [ya, turn, turn], color=theme.FIGURE_FG, linewidth=1.3, zorder=0.5)
                ax.annotate("", xy=(x2, top), xytext=(x2, turn), arrowprops=arrow)
    fig.alt = flow_alt(steps, lit, heads)
    return fig
