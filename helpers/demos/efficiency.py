"""Notebooks 13 and 14's widgets: the timing panel (13), the FlashAttention stepper and the LoRA demo (14).

Each is a :class:`helpers.widgets.live.LiveWidget`: its settings are traits linked to its controls, and it never prints.
The numbers they show come from :mod:`helpers.core.efficiency` (the math); these classes only draw them.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import traitlets

from helpers.core.arrays import one_of, positive_int, whole_number
from helpers.core.attention import scaled_dot_product_attention
from helpers.core.efficiency import (
    FlashStep,
    LoraExample,
    fit_exponent,
    flash_trace,
    lora_example,
    lora_parameters,
    one_head_qkv,
    time_attention,
)
from helpers.core.learning import previous_token_share
from helpers.core.numbers import number_text
from helpers.look import theme
from helpers.look.mathtext import math_html
from helpers.look.render import attention_weights_html, figure_img_html, number_format
from helpers.widgets.layout import course_box, view_html, wrap_row
from helpers.widgets.live import LiveWidget, Whole, validates
from helpers.widgets.snapshot import OMIT_CLASS

__all__ = ["TimingPanel", "FlashStepper", "LoraDemo"]

class TimingPanel(LiveWidget, widgets.VBox):
    """Time the projections and the attention of one head as n grows, on this machine, when the cell runs.

    Nothing measured is stored in the notebook: the figure and the fitted exponents live only in this
    widget's views (a stored notebook keeps no widget state), so a re-run changes no stored byte.

    Parameters
    ----------
    ns : sequence of int, the sequence lengths (at least 2)
    d_model : int, d_model = d_k = d_v

    Attributes
    ----------
    result : dict from :func:`helpers.core.efficiency.time_attention` for the last measurement
    exponents : dict "projections", "attention" -> fitted power of n
    button : ipywidgets.Button "Measure again"
    view : ipywidgets.HTML, the log-log figure and the text
    """

    def __init__(self, ns=(64, 128, 256, 512, 1024, 2048), d_model: int = 128):
        self._live_setup()
        self.ns = [positive_int(n, "n") for n in ns]
        if len(self.ns) < 2:
            raise ValueError(f"ns needs at least 2 lengths to fit a line; got {list(ns)}")
        self.d_model = positive_int(d_model, "d_model")
        self.button = widgets.Button(description="Measure again", tooltip="time every n again")
        self.view = view_html()
        # measured: left out of a stored notebook's picture too (helpers.widgets.snapshot)
        self.view.add_class(OMIT_CLASS)
        super().__init__([self.button, self.status_html, self.view])
        course_box(self)
        self._update()
        self.on_click(self.button, lambda _b: self.request_update())

    def __repr__(self):
        return f"TimingPanel(ns={self.ns}, d_model={self.d_model})"

    def measure(self) -> None:
        """Time again and redraw (what the button does)."""
        self.request_update()

    def _update(self) -> None:
        r = time_attention(self.ns, self.d_model)
        exps = {k: fit_exponent(r["n"], r[k]) for k in ("projections", "attention")}
        self.result, self.exponents = r, exps
        slope = {k: number_text(e, 2, trim=False) for k, e in exps.items()}
        with theme.figure_style():
            fig = theme.new_figure(figsize=(5.2, 3.4), layout="constrained")
            ax = fig.add_subplot()
            for key, marker in (("projections", "s"), ("attention", "o")):
                ax.loglog(r["n"], [1000 * t for t in r[key]], marker=marker,
                          label=f"{key}: time ∝ $n^{{{slope[key]}}}$")
            ax.set_xlabel("sequence length n")
            ax.set_ylabel("milliseconds per call (best of 3)")
            ax.set_title(f"one head, $d_{{model}} = d_k$ = {self.d_model}")
            ax.legend()
        cross = next((n for n, p, a in zip(r["n"], r["projections"], r["attention"]) if a > p), None)
        alt = (f"Log-log plot of time against n: projections grow like n^{slope['projections']}, "
               f"attention like n^{slope['attention']}.")
        rows = [[str(n), number_text(1000 * p, 2, trim=False), number_text(1000 * a, 2, trim=False)]
                for n, p, a in zip(r["n"], r["projections"], r["attention"])]
        table = theme.table_html(["n", "projections ms", "attention ms"], rows)
        where = (f"Attention takes longer than the projections from n = {cross} on." if cross is not None
                 else "The projections took longer at every n measured.")
        text = (f"<div style='max-width:50em'>Fitted slopes on this machine, now: projections "
                f"n<sup>{slope['projections']}</sup>, attention n<sup>{slope['attention']}</sup>. "
                f"{math_html(where)}</div>")
        self.view.value = f"<div>{figure_img_html(fig, alt)}{text}{table}</div>"


class FlashStepper(LiveWidget, widgets.VBox):
    """Step through FlashAttention's tiles on a small example: the running max, sum and output after each tile.

    Parameters
    ----------
    Q : (n_q, d_k), K : (n_k, d_k), V : (n_k, d_v); small (a dozen keys at most reads well)
    block_size : int, one of :attr:`BLOCK_SIZES` (keys per tile)

    Attributes
    ----------
    block_picker : ipywidgets.Dropdown, keys per tile
    prev_button, next_button : ipywidgets.Button
    views : dict of ipywidgets.HTML: "where" (which tile, what happened), "scores" (the tiles read so far),
        "state" (m, l, o and o / l per query), "check" (the comparison with plain attention at the end)
    block_size : int (a trait), linked to ``block_picker``; one of :attr:`BLOCK_SIZES`; a new size starts again at
        step 0
    step : int (a trait), 0 (before any tile) .. n_steps
    """

    BLOCK_SIZES = (1, 2, 3, 4, 8)

    block_size = Whole(2, help="keys per tile")
    step = Whole(0, help="the tiles read so far")

    def __init__(self, Q, K, V, block_size: int = 2, tokens=None):
        self._live_setup()
        self.Q, self.K, self.V = one_head_qkv(Q, K, V)
        n_k = self.K.shape[0]
        self.tokens = [f"k{j}" for j in range(n_k)] if tokens is None else [str(t) for t in tokens]
        if len(self.tokens) != n_k:
            raise ValueError(f"tokens has {len(self.tokens)} names for {n_k} keys")
        self.plain = scaled_dot_product_attention(self.Q, self.K, self.V)[0]
        self.block_size = block_size  # checked by the trait
        self._trace = flash_trace(self.Q, self.K, self.V, self.block_size)
        self.block_picker = widgets.Dropdown(options=list(self.BLOCK_SIZES), value=self.block_size,
                                             description="keys per tile", style={"description_width": "initial"},
                                             layout=widgets.Layout(width="12em"))
        self.prev_button = widgets.Button(description="◀ Previous tile", tooltip="go back one tile")
        self.next_button = widgets.Button(description="Next tile ▶", tooltip="read the next tile of keys")
        self.views = {k: view_html() for k in ("where", "scores", "state", "check")}
        controls = wrap_row([self.block_picker, self.prev_button, self.next_button])
        super().__init__([controls, self.status_html, self.views["where"],
                          wrap_row([self.views["scores"], self.views["state"]]), self.views["check"]])
        course_box(self)
        self._update()
        self.bind(self.block_picker, "block_size")
        self.on_click(self.prev_button, lambda _b: self.previous())
        self.on_click(self.next_button, lambda _b: self.next())

    def __repr__(self):
        return f"FlashStepper(n_q={self.Q.shape[0]}, n_k={self.K.shape[0]}, block_size={self.block_size})"

    # -- public state
    @validates("block_size")
    def _valid_block_size(self, value) -> int:
        return one_of(value, self.BLOCK_SIZES, "block_size")

    @validates("step")
    def _valid_step(self, value) -> int:
        return int(whole_number(value, "step", 0, self.n_steps))

    @traitlets.observe("block_size")
    def _block_changed(self, change) -> None:
        # The tiles of the new size, read from the start: one redraw for both.
        with self.hold_trait_notifications():
            self._trace = flash_trace(self.Q, self.K, self.V, change["new"])
            self.step = 0
            self.request_update()

    @traitlets.observe("step")
    def _step_changed(self, _change) -> None:
        self.request_update()

    @property
    def n_steps(self) -> int:
        """The number of tiles: ceil(n_k / block_size)."""
        return len(self._trace) - 1

    @property
    def state(self) -> FlashStep:
        """The running state after the current step's tile."""
        return self._trace[self.step]

    @property
    def done(self) -> bool:
        return self.step == self.n_steps

    @property
    def matches_plain(self) -> bool:
        """True when every tile has been read and o / l equals plain attention's output (to 1e-12)."""
        return self.done and bool(np.allclose(self.state.output, self.plain, rtol=0, atol=1e-12))

    def next(self) -> None:
        """Read the next tile (nothing after the last one)."""
        if self.step < self.n_steps:
            self.step += 1

    def previous(self) -> None:
        """Go back one tile (nothing before the start)."""
        if self.step > 0:
            self.step -= 1

    # -- drawing
    def _update(self) -> None:
        s = self.state
        n_q = self.Q.shape[0]
        self.prev_button.disabled = self.step == 0
        self.next_button.disabled = self.done
        if s.tile == 0:
            where = (f"Start: no key read yet. Every query has m = −∞, l = 0, o = 0. "
                     f"{self.K.shape[0]} keys in {self.n_steps} tiles of {self.block_size}.")
        elif s.tile == 1:
            where = (f"Tile 1 of {self.n_steps}: keys {s.keys.start}–{s.keys.stop - 1}. First tile: m is each "
                     "query's largest score in it, l and o are sums over these keys only.")
        else:
            grew = [i for i in range(n_q) if s.rescale[i] < 1]
            resc = ", ".join(f"q{i} × {number_text(s.rescale[i], 3, trim=False)}" for i in grew) if grew else "none"
            where = (f"Tile {s.tile} of {self.n_steps}: keys {s.keys.start}–{s.keys.stop - 1}. "
                     f"Queries whose running max grew, old l and o rescaled by exp(m_old − m_new): {resc}.")
        self.views["where"].value = f"<div style='max-width:50em;margin:4px 0'>{math_html(where)}</div>"
        # The scores read so far: this tile highlighted, later tiles not computed yet.
        seen = {}
        for step in self._trace[1:self.step + 1]:
            for c, j in enumerate(step.keys):
                seen[j] = (step.scores[:, c], step.tile == s.tile)
        f2, f3 = number_format([], 2, fixed=True), number_format([], 3, fixed=True)  # never "-0.00"
        rows = []
        for i in range(n_q):
            row = [f"q{i}"]
            for j in range(self.K.shape[0]):
                if j in seen:
                    col, current = seen[j]
                    style = f"outline:2px solid {theme.HIGHLIGHT};outline-offset:-2px;" if current else ""
                    row.append((f2(col[i]), style))
                else:
                    row.append(("·", f"color:{theme.MUTED_FG}"))
            rows.append(row)
        self.views["scores"].value = theme.table_html(
            ["Queries ↓ / Keys →", *self.tokens], rows, align=["left"] + ["right"] * len(self.tokens),
            caption="scaled scores read so far (outlined: this tile; ·: not computed yet)")
        out = s.output
        d_v = self.V.shape[1]
        state_rows = []
        for i in range(n_q):
            fmt = (lambda v: "—") if s.tile == 0 else f3
            state_rows.append([f"q{i}", f2(s.m[i]), f3(s.l[i]),
                               "[" + ", ".join(f3(v) for v in s.o[i]) + "]",
                               "[" + ", ".join(fmt(out[i, c]) for c in range(d_v)) + "]"])
        self.views["state"].value = theme.table_html(
            ["query", "m (max)", "l (sum)", "o (unnormalised)", "o / l"], state_rows,
            caption="running state per query")
        if self.done:
            diff = float(np.max(np.abs(out - self.plain)))
            verdict = ("o / l equals plain softmax(QKᵀ/√d_k)V" if self.matches_plain else "o / l differs from plain")
            self.views["check"].value = theme.verdict_html(
                f"All {self.n_steps} tiles read. {verdict}: largest difference {number_text(diff, None, sig=2)}.",
                self.matches_plain)
        else:
            self.views["check"].value = ""


_SIDE_BY_SIDE = dict(row_sums=False, cell_width="3em")


class LoraDemo(LiveWidget, widgets.VBox):
    """A frozen head plus a rank-r update of W^Q (the best rank-r part of a full update): pick r, see the pattern.

    Attributes
    ----------
    rank_picker : ipywidgets.BoundedIntText, the rank r (0 to :attr:`max_rank`; 8 here: eight tokens, so the
        full update has rank 8)
    rank : int (a trait), linked to ``rank_picker``
    weights : (n, n) the adapted head's weights;  frozen_weights : (n, n) with r = 0
    previous_token_weight : float, the adapted head's mean weight on the previous token
    views : dict of ipywidgets.HTML: "params", "frozen", "adapted"
    """

    RANKS = (0, 1, 2, 4, 8)  # the ranks the notebook tabulates

    rank = Whole(1, help="the rank r of the update of W^Q")

    def __init__(self, rank: int = 1, example: LoraExample | None = None):
        self._live_setup()
        self.example = lora_example() if example is None else example
        self.max_rank = min(self.example.delta_q.shape[0], len(self.example.tokens))
        self.rank = rank  # checked by the trait
        self.rank_picker = widgets.BoundedIntText(value=self.rank, min=0, max=self.max_rank, description="rank r",
                                                  layout=widgets.Layout(width="10em"))
        self.views = {k: view_html() for k in ("params", "frozen", "adapted")}
        self.frozen_weights = self.example.weights(0)
        tokens = self.example.tokens
        # The two heads are compared on the weights' one fixed scale, drawn once, under the adapted head: side by side
        # where the notebook is wide enough (narrow cells, no row sums: every row sums to 1), one under the other
        # otherwise. The rank field sits right above them and the count of numbers below, so that the field and the
        # head it changes are on one screen at 1024 × 768 too.
        self.views["frozen"].value = attention_weights_html(self.frozen_weights, tokens, tokens,
                                                            title="frozen head (r = 0)", legend=False,
                                                            **_SIDE_BY_SIDE)
        heads = wrap_row([self.views["frozen"], self.views["adapted"]])
        heads.add_class("lora-heads")
        super().__init__([self.rank_picker, self.status_html, heads, self.views["params"]])
        self.add_class("lora-demo")
        self.rank_picker.add_class("lora-rank")
        for name, view in self.views.items():
            view.add_class(f"lora-view-{name}")
        course_box(self)
        self._update()
        self.bind(self.rank_picker, "rank")

    def __repr__(self):
        return f"LoraDemo(rank={self.rank})"

    @validates("rank")
    def _valid_rank(self, value) -> int:
        return int(whole_number(value, "rank", 0, self.max_rank))

    @traitlets.observe("rank")
    def _rank_changed(self, _change) -> None:
        self.request_update()

    @property
    def previous_token_weight(self) -> float:
        return previous_token_share(self.weights)

    def _update(self) -> None:
        r = self.rank
        self.weights = self.example.weights(r)
        d = self.example.W_q.shape[0]
        toy = 2 * lora_parameters(d, d, r)
        big = 2 * lora_parameters(768, 768, r)
        rows = [[f"this head, d = {d}", f"{2 * d * d:,}", f"{toy:,}",
                 number_text(100 * toy / (2 * d * d), 1, trim=False, unit=" %")],
                ["one layer of BERT-base, d_model = 768", f"{2 * 768 * 768:,}", f"{big:,}",
                 number_text(100 * big / (2 * 768 * 768), 1, trim=False, unit=" %")]]
        self.views["params"].value = theme.table_html(
            ["matrices W^Q and W^V", "frozen numbers", f"trained numbers at r = {r}", "share"], rows,
            caption=f"ΔW = B A for W^Q and W^V: B is d × {r}, A is {r} × d")
        tokens = self.example.tokens
        self.views["adapted"].value = attention_weights_html(
            self.weights, tokens, tokens, title=f"adapted head (r = {r})", **_SIDE_BY_SIDE,
            note=f"mean weight on the previous token: {number_text(self.previous_token_weight, 2, trim=False)} "
                 f"(frozen: {number_text(previous_token_share(self.frozen_weights), 2, trim=False)})")

