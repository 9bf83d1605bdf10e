"""One picture of the attention step: the data flow from X to the output, with every shape, one step highlighted.

The course draws the same diagram wherever a notebook computes part of the step, with the part it computes
highlighted::

    from helpers.look.flow import attention_flow
    attention_flow("scores")                                   # one head, symbolic shapes: (n, d_k), (n, n), ...
    attention_flow("QKV", n=3, d_model=4, d_k=2)               # the shapes of an example: (3, 4), (3, 2), ...
    attention_flow("masked", masked=True)                      # with the mask step (a causal or padding mask)
    attention_flow("QKV", cross=True, n_q=6, n_k=4)            # cross-attention: Q from X_dec, K and V from X_enc
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

With ``cross=True`` the step is cross-attention: the queries come from the decoder's tokens ``X_dec`` (n_q, d_model),
the keys and values from the encoder's ``X_enc`` (n_k, d_model). The steps keep their names; ``X`` holds both
inputs, ``QKV`` is Q = X_dec W^Q (n_q, d_k), K = X_enc W^K (n_k, d_k), V = X_enc W^V (n_k, d_v), the scores, the
mask and the weights are (n_q, n_k), the output (n_q, d_v), and with ``heads=True`` the residual adds ``X_dec``.
Self-attention has one length, ``n``; cross-attention two, ``n_q`` and ``n_k`` (see :func:`flow_steps`).

:func:`flow_steps` returns the steps as data (their formulas and shapes, as text); :func:`attention_flow` draws
them as a :func:`helpers.look.render.described_figure` whose alt text reads the whole flow and names the highlighted
step. Like every course figure it is drawn on light paper with dark text (:func:`helpers.look.theme.figure_style`), so
it reads in JupyterLab's light and dark themes alike; the highlight is the theme's :data:`helpers.look.theme.HIGHLIGHT`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from helpers.look import theme
from helpers.look.render import described_figure

__all__ = ["STEP_NAMES", "FlowStep", "flow_steps", "flow_alt", "attention_flow"]

STEP_NAMES = ("X", "QKV", "split", "scores", "scaled", "masked", "weights", "output", "concat", "W_O", "residual")
_HEADS_ONLY = ("split", "concat", "W_O", "residual")
_PER_HEAD = ("scores", "scaled", "masked", "weights", "output")

# Each dimension's symbol, as plain text (alt text, flow_steps) and as matplotlib mathtext (the figure).
_PLAIN = {"n": "n", "n_q": "n_q", "n_k": "n_k", "d_model": "d_model", "d_k": "d_k", "d_v": "d_v", "h": "h"}
_MATH = {"n": r"n", "n_q": r"n_q", "n_k": r"n_k", "d_model": r"d_{model}", "d_k": r"d_k", "d_v": r"d_v", "h": r"h"}


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


def _lengths(cross: bool, sizes: dict) -> None:
    """Refuse a length of the other kind of attention: ``n`` is self-attention's, ``n_q`` and ``n_k`` cross's."""
    if cross and sizes["n"] is not None:
        raise ValueError(f"n = {sizes['n']} is the one length of self-attention; with cross=True give n_q (the "
                         "decoder's tokens X_dec, the queries) and n_k (the encoder's tokens X_enc, the keys and "
                         "values) instead")
    given = [name for name in ("n_q", "n_k") if sizes[name] is not None]
    if not cross and given:
        raise ValueError(f"{' and '.join(given)} {'is an argument' if len(given) == 1 else 'are arguments'} only "
                         "with cross=True (queries from X_dec, keys and values from X_enc); self-attention has one "
                         "length, n")


def _sizes(heads: bool, n, d_model, d_k, d_v, h, cross: bool = False, n_q=None, n_k=None) -> dict:
    """Each dimension as a number, or None where it stays a symbol; checked for agreement."""
    sizes = {"n": _whole(n, "n"), "n_q": _whole(n_q, "n_q"), "n_k": _whole(n_k, "n_k"),
             "d_model": _whole(d_model, "d_model"), "d_k": _whole(d_k, "d_k"), "d_v": _whole(d_v, "d_v"),
             "h": _whole(h, "h")}
    _lengths(cross, sizes)
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


def _qkv_shape(sizes: dict, heads: bool, cross: bool = False) -> tuple[str, str]:
    """The shapes of Q, K and V: one when they agree ("(3, 2) each"), each group's otherwise. In cross-attention Q
    has the decoder's n_q rows, K and V the encoder's n_k ("Q (6, 2); K, V (4, 2)")."""
    q, k = ("n_q", "n_k") if cross else ("n", "n")
    width_k, width_v = ("d_model", "d_model") if heads else ("d_k", "d_v")
    (qs, qs_m), (ks, ks_m), (vs, vs_m) = _both(sizes, q, width_k), _both(sizes, k, width_k), _both(sizes, k, width_v)
    if qs == ks == vs:
        return qs + " each", qs_m + " each"
    if not cross:
        return f"Q, K {qs}; V {vs}", f"Q, K {qs_m}\nV {vs_m}"
    if ks == vs:
        return f"Q {qs}; K, V {ks}", f"$Q$ {qs_m}\n$K, V$ {ks_m}"
    return f"Q {qs}; K {ks}; V {vs}", f"$Q$ {qs_m}\n$K$ {ks_m}, $V$ {vs_m}"


def flow_steps(masked: bool = False, heads: bool = False, *, cross: bool = False, n=None, n_q=None, n_k=None,
               d_model=None, d_k=None, d_v=None, h=None) -> list[FlowStep]:
    """The steps of one attention step, in order, each with its formula and shape.

    Parameters
    ----------
    masked : bool
        Include the mask step (the scores of blocked keys set to −∞) between the scaling and the softmax.
    heads : bool
        Multi-head: Q, K, V split into ``h`` heads, each head's steps, the concatenation, ``W^O`` and the residual
        ``X + output``. Without it: one head, from ``X`` to ``AV``.
    cross : bool
        Cross-attention: the queries from the decoder's tokens ``X_dec`` (n_q, d_model), the keys and values from the
        encoder's ``X_enc`` (n_k, d_model); the scores and the weights are (n_q, n_k), the output has n_q rows. With
        ``heads=True`` the residual adds ``X_dec``. Without it: self-attention, one sequence ``X`` of n tokens.
    n : int or None
        Self-attention's one length: the tokens of ``X``, its queries and its keys alike.
    n_q, n_k : int or None
        Cross-attention's two lengths (only with ``cross=True``, which does not take ``n``): the decoder's tokens
        (the queries) and the encoder's (the keys and values).
    d_model, d_k, d_v, h : int or None
        Sizes to write into the shapes; each one left ``None`` stays a symbol, as do the lengths. With
        ``heads=True``, ``d_k`` follows from ``d_model`` and ``h`` (and each head's values are ``d_k`` wide, so
        ``d_v`` is not taken); with one head, ``d_v`` is ``d_k`` unless given.

    Returns
    -------
    list of FlowStep

    Raises
    ------
    ValueError
        For a size that is not a whole number ≥ 1, ``h`` that does not divide ``d_model``, sizes that disagree, or
        a size given where it does not apply: ``h`` with one head, ``d_v`` with heads, ``n`` with ``cross=True``,
        ``n_q`` or ``n_k`` without it. Each message names the arguments.
    """
    heads, cross = bool(heads), bool(cross)
    s = _sizes(heads, n, d_model, d_k, d_v, h, cross, n_q, n_k)
    q, k = ("n_q", "n_k") if cross else ("n", "n")    # the rows (queries) and the columns (keys) of the scores
    i, mi = ("_i", "_i") if heads else ("", "")
    # (name, title, title as mathtext, formula, formula as mathtext, (shape, shape as mathtext))
    if cross:
        (dec, dec_m), (enc, enc_m) = _both(s, "n_q", "d_model"), _both(s, "n_k", "d_model")
        rows = [("X", "tokens X_dec, X_enc", "tokens", "X_dec the decoder's tokens (queries), X_enc the encoder's "
                 "(keys and values)", "decoder: asks\nencoder: answers",
                 (f"X_dec {dec}; X_enc {enc}", f"$X_{{dec}}$ {dec_m}\n$X_{{enc}}$ {enc_m}"))]
        rows.append(("QKV", "Q, K, V", "$Q$, $K$, $V$", "Q = X_dec W^Q, K = X_enc W^K, V = X_enc W^V",
                     r"$Q = X_{dec}W^Q$" + "\n" + r"$K = X_{enc}W^K$" + "\n" + r"$V = X_{enc}W^V$",
                     _qkv_shape(s, heads, cross)))
    else:
        rows = [("X", "tokens X", "tokens $X$", "one row per token", "one row\nper token", _both(s, "n", "d_model"))]
        rows.append(("QKV", "Q, K, V", "$Q$, $K$, $V$", "Q = XW^Q, K = XW^K, V = XW^V",
                     r"$Q = XW^Q,\ K = XW^K$" + "\n" + r"$V = XW^V$", _qkv_shape(s, heads)))
    if heads:
        hh, hh_m = _dim(s, "h", False), f"${_dim(s, 'h', True)}$"
        if cross:
            split = (f"Q {hh} × {_shape(s, (q, 'd_k'), False)}; K, V {hh} × {_shape(s, (k, 'd_k'), False)}",
                     f"$Q$ {hh_m} × {_shape(s, (q, 'd_k'), True)}\n$K, V$ {hh_m} × {_shape(s, (k, 'd_k'), True)}")
        else:
            split = f"{hh} × {_shape(s, ('n', 'd_k'), False)}", f"{hh_m} × {_shape(s, ('n', 'd_k'), True)}"
        rows.append(("split", "split into heads", "split into heads", "head i: columns i·d_k to (i+1)·d_k − 1",
                     r"head $i$: columns" + "\n" + r"$i\,d_k$ to $(i{+}1)\,d_k - 1$", split))
    rows.append(("scores", "scores", "scores", f"S{i} = Q{i}K{i}ᵀ", rf"$S{mi} = Q{mi}K{mi}^\top$",
                 _both(s, q, k)))
    # √ as a character, not mathtext's \sqrt: the figure is SVG with its text as text, and \sqrt draws its sign in
    # matplotlib's own STIX size font, which a browser does not have.
    rows.append(("scaled", "scaled", "scaled", f"S{i} / √d_k", rf"$S{mi}\,/\,$√$d_k$", _both(s, q, k)))
    if masked:
        rows.append(("masked", "masked", "masked", "+ M, −∞ where a key is blocked",
                     r"$+\,M$" + "\n" + r"($-\infty$ where blocked)", _both(s, q, k)))
    rows.append(("weights", "weights", "weights", f"A{i} = softmax of each row",
                 rf"$A{mi}$ = softmax" + "\n" + "of each row", _both(s, q, k)))
    if heads:
        x, x_m = ("X_dec", "$X_{dec}$") if cross else ("X", "$X$")
        rows.append(("output", "head output", "head output", "head_i = A_i V_i", r"$\mathrm{head}_i = A_i V_i$",
                     _both(s, q, "d_k")))
        rows.append(("concat", "concatenate", "concatenate", "Concat(head_1, …, head_h)",
                     r"Concat$(\mathrm{head}_1,$" + "\n" + r"$\ldots, \mathrm{head}_h)$", _both(s, q, "d_model")))
        rows.append(("W_O", "× W^O", r"$\times\ W^O$", f"Concat · W^O, W^O {_shape(s, ('d_model', 'd_model'), False)}",
                     r"Concat $\cdot\ W^O$" + "\n" + rf"$W^O$: {_shape(s, ('d_model', 'd_model'), True)}",
                     _both(s, q, "d_model")))
        rows.append(("residual", f"+ {x} (residual)", rf"$+\ ${x_m} (residual)", f"{x} + output, the next layer's "
                     "input", f"{x_m} + output:" + "\n" + "next layer's input", _both(s, q, "d_model")))
    else:
        rows.append(("output", "output", "output", "AV", "$AV$", _both(s, q, "d_v")))
    return [FlowStep(name=name, title=title, formula=formula, shape=plain, per_head=heads and name in _PER_HEAD,
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


def flow_alt(steps: list[FlowStep], highlight: tuple[str, ...] = (), heads: bool = False, cross: bool = False) -> str:
    """The diagram in words: every step with its formula and shape, in order, then what is highlighted."""
    kind = "cross-attention" if cross else "attention"
    def words(step: FlowStep) -> str:
        return f"{step.title}: {step.formula}, shape {step.shape}"

    if heads:
        before = [s for s in steps if s.name in ("X", "QKV", "split")]
        each = [s for s in steps if s.per_head]
        after = [s for s in steps if s.name in ("concat", "W_O", "residual")]
        flow = (" → ".join(map(words, before)) + " → in each head: " + " → ".join(map(words, each)) + " → "
                + " → ".join(map(words, after)))
        text = f"Data flow of multi-head {kind}. {flow}."
    else:
        text = f"Data flow of one {kind} step. {' → '.join(map(words, steps))}."
    lit = [s for s in steps if s.name in highlight]
    if lit:
        text += " Highlighted: " + "; ".join(f"{s.title} ({s.formula}, shape {s.shape})" for s in lit) + "."
    return text


# --------------------------------------------------------------------------- drawing

# Sizes in inches: a box, the gap an arrow crosses, the gap between rows (where the arrow turns), the margin, the
# title's line; the offset of each card behind a per-head box; the frame round the per-head row and its label.
_BOX_W, _BOX_H, _GAP, _ROW_GAP, _MARGIN, _TITLE_H = 1.4, 1.2, 0.36, 0.5, 0.2, 0.42
_BOX_H_CROSS = 1.55    # cross-attention's boxes: room for the two inputs and the three projections
_CARD = 0.07
_FRAME_PAD, _FRAME_LABEL = 0.16, 0.3
_ROUND = "round,pad=0,rounding_size=0.08"


def _mix(colour: str, into: str, share: float) -> tuple[float, float, float]:
    """``share`` of ``colour`` mixed into ``into`` (both matplotlib colours): a tint of the theme's colours."""
    from matplotlib.colors import to_rgb

    a, b = to_rgb(colour), to_rgb(into)
    return tuple(share * x + (1 - share) * y for x, y in zip(a, b))


def _chunks(items: list, size: int | None) -> list[list]:
    """``items`` in consecutive groups of at most ``size`` (one group when ``size`` is None)."""
    if size is None or len(items) <= size:
        return [items]
    return [items[k:k + size] for k in range(0, len(items), size)]


def _rows(steps: list[FlowStep], heads: bool, per_row: int | None = None) -> tuple[list[list[FlowStep]], list[int]]:
    """The steps in rows, read left to right, top to bottom, and which rows hold the per-head steps (in the dashed
    frame). One head: one row (two when masked); heads: three (up to the split; each head's steps; after the heads).
    ``per_row``: at most that many boxes in a row (the lecture mode's projector: fewer, larger boxes)."""
    if heads:
        groups = [[s for s in steps if s.name in ("X", "QKV", "split")], [s for s in steps if s.per_head],
                  [s for s in steps if s.name in ("concat", "W_O", "residual")]]
        rows, framed = [], []
        for g, group in enumerate(groups):
            for chunk in _chunks(group, per_row):
                if g == 1:
                    framed.append(len(rows))
                rows.append(chunk)
        return rows, framed
    if per_row is not None:
        return _chunks(steps, per_row), []
    if len(steps) <= 6:
        return [steps], []
    return [steps[:4], steps[4:]], []


# On a projector (the lecture mode) a diagram is at most this many boxes wide: it then fills the column at a scale where
# its smallest text is about 20 px on a 1024 px wide screen, not 12 px as six boxes in a row were; and its text is
# a tenth larger for the back of the room.
_LECTURE_PER_ROW = 3
_LECTURE_TEXT = 1.1


def attention_flow(highlight=None, *, masked: bool = False, heads: bool = False, cross: bool = False, n=None,
                   n_q=None, n_k=None, d_model=None, d_k=None, d_v=None, h=None, title: str | None = None):
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
    cross : bool
        Draw cross-attention: Q from the decoder's tokens ``X_dec``, K and V from the encoder's ``X_enc``, scores
        and weights ``(n_q, n_k)`` (with ``heads=True`` too: multi-head cross-attention).
    n, n_q, n_k, d_model, d_k, d_v, h : int or None
        Sizes written into the shapes (``None`` keeps the symbol): ``n`` for self-attention, ``n_q`` and ``n_k``
        for cross-attention; see :func:`flow_steps`.
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
        without ``heads=True``), or sizes :func:`flow_steps` refuses (``n`` with ``cross=True``, ``n_q`` or ``n_k``
        without it, sizes that disagree).
    """
    from matplotlib.patches import FancyBboxPatch, Rectangle

    heads, masked, cross = bool(heads), bool(masked), bool(cross)
    steps = flow_steps(masked, heads, cross=cross, n=n, n_q=n_q, n_k=n_k, d_model=d_model, d_k=d_k, d_v=d_v, h=h)
    lit = _highlighted(highlight, steps)
    lecture = theme.lecture_mode()
    rows, framed = _rows(steps, heads, _LECTURE_PER_ROW if lecture else None)   # framed: the rows of per-head steps
    text = _LECTURE_TEXT if lecture else 1.0   # font sizes' factor
    heads_h = _sizes(heads, None, d_model, d_k, None, h)["h"] if heads else 1   # h, or None while it is a symbol
    count = str(heads_h) if heads_h else "h"
    behind = 2 if heads_h is None else min(heads_h, 3) - 1   # cards behind each per-head box
    box_h = _BOX_H_CROSS if cross else _BOX_H  # cross-attention's inputs and projections take a line more
    inset = _FRAME_PAD if heads else 0.0
    cards = 2 * _CARD if heads else 0.0
    widest = max(len(r) for r in rows)
    width = 2 * _MARGIN + 2 * inset + widest * _BOX_W + (widest - 1) * _GAP + cards

    # Top down: each row's room above its boxes (the frame's label and pad above its first row, the cards), the
    # boxes, the room below (the frame's pad below its last row), then the gap where the arrow to the next row turns.
    above = [(_FRAME_LABEL + _FRAME_PAD if framed and r == framed[0] else 0.0) + (cards if r in framed else 0.0)
             for r in range(len(rows))]
    below = [_FRAME_PAD if framed and r == framed[-1] else 0.0 for r in range(len(rows))]
    height = _TITLE_H + 2 * _MARGIN + sum(above) + sum(below) + len(rows) * box_h + (len(rows) - 1) * _ROW_GAP
    bottoms, y = [], height - _MARGIN - _TITLE_H
    for r in range(len(rows)):
        y -= above[r] + box_h
        bottoms.append(y)
        y -= below[r] + _ROW_GAP

    fig = described_figure(paper=True, figsize=(width, height))
    with theme.figure_style(paper=True):
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, width)
        ax.set_ylim(0, height)
        ax.axis("off")
        faces = {False: _mix(theme.FIGURE_EDGE, theme.FIGURE_FACE, 0.12),
                 True: _mix(theme.HIGHLIGHT, theme.FIGURE_FACE, 0.16)}
        edges = {False: theme.FIGURE_EDGE, True: theme.HIGHLIGHT}
        if title is None:
            names = ", ".join(s.title_math for s in steps if s.name in lit)
            kind = ("Multi-head cross-attention" if cross else "Multi-head attention") if heads else (
                "Cross-attention" if cross else "One attention step")
            title = kind + (f": {names}" if names else "")
        ax.text(_MARGIN, height - _MARGIN, title, ha="left", va="top", fontsize=11 * text, fontweight="bold",
                color=theme.FIGURE_FG)

        corner = {}                            # step name -> the lower left corner of its box
        x0 = _MARGIN + inset
        for r, row in enumerate(rows):
            y = bottoms[r]
            for c, step in enumerate(row):
                x = x0 + c * (_BOX_W + _GAP)
                on = step.name in lit
                if r in framed:                # the other heads: cards behind, offset up and to the right
                    for k in range(behind, 0, -1):
                        ax.add_patch(FancyBboxPatch((x + k * _CARD, y + k * _CARD), _BOX_W, box_h, boxstyle=_ROUND,
                                                    facecolor=faces[on], edgecolor=edges[on], linewidth=1.0,
                                                    zorder=3 - k))
                ax.add_patch(FancyBboxPatch((x, y), _BOX_W, box_h, boxstyle=_ROUND, facecolor=faces[on],
                                            edgecolor=edges[on], linewidth=3.0 if on else 1.2, zorder=4,
                                            gid=f"flow-step-{step.name}"))
                cx = x + _BOX_W / 2
                ax.text(cx, y + box_h - 0.09, step.title_math, ha="center", va="top", fontsize=10 * text,
                        fontweight="bold", color=theme.FIGURE_FG, zorder=5)
                ax.text(cx, y + box_h * 0.56, step.formula_math, ha="center", va="center", fontsize=8.5 * text,
                        color=theme.FIGURE_FG, zorder=5, linespacing=1.3)
                ax.text(cx, y + 0.09, step.shape_math, ha="center", va="bottom", fontsize=9.5 * text,
                        color=theme.FIGURE_FG, zorder=5, linespacing=1.25)
                corner[step.name] = (x, y)
            if framed and r == framed[-1]:   # the dashed frame round the rows of per-head steps
                width_of = [len(rows[f]) * _BOX_W + (len(rows[f]) - 1) * _GAP for f in framed]
                fx, fy = x0 - inset, y - _FRAME_PAD
                fw = max(width_of) + cards + 2 * inset
                fh = bottoms[framed[0]] + box_h + cards + _FRAME_PAD - fy
                ax.add_patch(Rectangle((fx, fy), fw, fh, fill=False, edgecolor=theme.FIGURE_FG, linewidth=1.0,
                                       linestyle=(0, (4, 3)), zorder=0))
                ax.text(fx + fw - 0.06, fy + fh + 0.05, f"in each of the {count} heads, on its own columns of Q, K, V",
                        ha="right", va="bottom", fontsize=9 * text, fontstyle="italic", color=theme.FIGURE_FG)

        arrow = dict(arrowstyle="-|>", color=theme.FIGURE_FG, linewidth=1.3, shrinkA=0, shrinkB=0,
                     mutation_scale=12)
        for r, row in enumerate(rows):
            for a, b in zip(row, row[1:]):     # along a row: a straight arrow from box to box
                (xa, ya), (xb, yb) = corner[a.name], corner[b.name]
                ax.annotate("", xy=(xb, yb + box_h / 2), xytext=(xa + _BOX_W, ya + box_h / 2), arrowprops=arrow)
            if r + 1 < len(rows):              # to the next row: down, back to its first box, down into it
                (xa, ya), (xb, yb) = corner[row[-1].name], corner[rows[r + 1][0].name]
                x1, x2 = xa + _BOX_W / 2, xb + _BOX_W / 2
                turn = ya - below[r] - _ROW_GAP / 2
                top = yb + box_h + (cards if r + 1 in framed else 0.0)
                ax.plot([x1, x1, x2], [ya, turn, turn], color=theme.FIGURE_FG, linewidth=1.3, zorder=0.5)
                ax.annotate("", xy=(x2, top), xytext=(x2, turn), arrowprops=arrow)
    fig.alt = flow_alt(steps, lit, heads, cross)
    fig.vector = True                          # boxes and words: sharp at any size, text as text (SVG)
    return fig
