"""Making attention cheaper: what n² costs, and four ways round it (notebook 10).

The math (pure numpy, tested directly):

* :func:`attention_cost` counts the multiply-adds of one head and the bytes of its n × n matrix;
  :func:`time_attention` measures the time; :func:`fit_exponent` reads the power of n off a log-log line.
* Sparse attention as masks: :func:`sliding_window_mask`, :func:`strided_mask`, :func:`global_mask`
  (each a boolean "may attend" mask like :func:`helpers.attention.causal_mask`) and :func:`kept_fraction`.
* Linear attention: :func:`elu_plus_one`, :func:`linear_attention` (the O(n) order of the products) and
  :func:`linear_attention_weights` (the n × n weights it implies, for comparison only).
* FlashAttention, step by step: :func:`flash_trace` records the state after every tile of keys.
* LoRA: :func:`lora_parameters`, :func:`best_low_rank` and the seeded head of :func:`lora_example`.

The widgets (:class:`TimingPanel`, :class:`FlashStepper`, :class:`LoraDemo`) are
:class:`helpers.live.LiveWidget` s: they update through properties and never print.
"""

from __future__ import annotations

import html as _html
import time
import tracemalloc
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from . import theme
from .arrays import as_matrix
from .attention import (
    _check_qkv,
    causal_mask,
    online_softmax_step,
    scaled_dot_product_attention,
    softmax,
)
from .layout import course_box, view_html, wrap_row
from .live import LiveWidget
from .render import attention_weights_html, figure_img_html, number_format

__all__ = [
    "attention_cost",
    "fit_exponent",
    "time_attention",
    "peak_memory",
    "sliding_window_mask",
    "strided_mask",
    "global_mask",
    "kept_fraction",
    "elu_plus_one",
    "linear_attention",
    "linear_attention_weights",
    "FlashStep",
    "flash_trace",
    "lora_parameters",
    "best_low_rank",
    "LoraExample",
    "lora_example",
    "TimingPanel",
    "FlashStepper",
    "LoraDemo",
]


def _positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


# ---------------------------------------------------------------------------------
# The n² cost
# ---------------------------------------------------------------------------------

def attention_cost(n: int, d_model: int, d_k: int, d_v: int | None = None) -> dict:
    """Multiply-adds of one self-attention head on ``n`` tokens, and the size of its n × n matrix.

    Returns
    -------
    dict with
        ``"projections"``: n · d_model · (2 d_k + d_v), for Q = XW^Q, K = XW^K, V = XW^V;
        ``"scores"``: n² · d_k, for Q Kᵀ;
        ``"weighted sum"``: n² · d_v, for weights · V;
        ``"matrix bytes"``: n² · 8, one float64 n × n matrix (the scores; the weights are another).
    """
    n, d_model, d_k = (_positive_int(v, k) for v, k in ((n, "n"), (d_model, "d_model"), (d_k, "d_k")))
    d_v = d_k if d_v is None else _positive_int(d_v, "d_v")
    return {"projections": n * d_model * (2 * d_k + d_v), "scores": n * n * d_k,
            "weighted sum": n * n * d_v, "matrix bytes": n * n * 8}


def fit_exponent(ns, values) -> float:
    """The slope of log(values) against log(ns) (least squares): values ≈ c · n^slope."""
    ns, values = np.asarray(ns, dtype=float), np.asarray(values, dtype=float)
    if ns.shape != values.shape or ns.ndim != 1 or ns.size < 2:
        raise ValueError(f"ns and values need the same 1-D shape with at least 2 points; got {ns.shape} and "
                         f"{values.shape}")
    if (ns <= 0).any() or (values <= 0).any():
        raise ValueError("ns and values must be positive to take their logarithms")
    return float(np.polyfit(np.log(ns), np.log(values), 1)[0])


def time_attention(ns, d_model: int = 128, repeats: int = 3, seed: int = 0) -> dict:
    """Seconds (best of ``repeats``) for the projections and for the attention itself, per ``n``.

    Returns
    -------
    dict: ``"n"`` list of int; ``"projections"``, ``"attention"`` lists of seconds, one per n.
    """
    d_model = _positive_int(d_model, "d_model")
    repeats = _positive_int(repeats, "repeats")
    rng = np.random.default_rng(seed)
    W_q, W_k, W_v = (rng.standard_normal((d_model, d_model)) / np.sqrt(d_model) for _ in range(3))
    out = {"n": [], "projections": [], "attention": []}

    def project(X):
        return X @ W_q, X @ W_k, X @ W_v

    def attend(QKV):
        return scaled_dot_product_attention(*QKV)

    ns = [_positive_int(n, "n") for n in ns]
    warm = rng.standard_normal((min(ns), d_model))
    attend(project(warm))  # the first call starts the BLAS threads: not part of any measurement
    for n in ns:
        X = rng.standard_normal((n, d_model))
        QKV = project(X)
        out["n"].append(n)
        out["projections"].append(_best_time(project, X, repeats))
        out["attention"].append(_best_time(attend, QKV, repeats))
    return out


def _best_time(fn, arg, repeats: int, at_least: float = 2e-3) -> float:
    """Seconds per call of ``fn(arg)``: the best of ``repeats`` runs, each long enough (``at_least``) to time."""
    t0 = time.perf_counter()
    fn(arg)
    once = max(time.perf_counter() - t0, 1e-7)
    number = max(1, min(1000, int(at_least / once)))  # short calls are timed in loops
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn(arg)
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def peak_memory(fn) -> int:
    """Peak bytes allocated while ``fn()`` runs, beyond what was allocated before it started (``tracemalloc``, which
    sees numpy's arrays); ``fn``'s result is dropped."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


# ---------------------------------------------------------------------------------
# Sparse attention as masks
# ---------------------------------------------------------------------------------

def _offsets(n: int) -> np.ndarray:
    """(n, n) integer matrix of i - j: how far back key j is from query i."""
    idx = np.arange(n)
    return idx[:, None] - idx[None, :]


def sliding_window_mask(n: int, window: int, causal: bool = True) -> np.ndarray:
    """Local attention: query i sees the ``window`` keys ending at itself (causal) or within
    ``window - 1`` on either side (not causal). Bool (n, n), True = may attend."""
    n = _positive_int(n, "n")
    window = _positive_int(window, "window")
    near = np.abs(_offsets(n)) < window
    return near & causal_mask(n) if causal else near


def strided_mask(n: int, stride: int) -> np.ndarray:
    """Strided attention (Child et al. 2019): query i sees the past keys j with i - j a multiple of ``stride``.

    Bool (n, n), causal. Combined with a sliding window of width ``stride`` (logical or), every key
    can reach every query in two steps.
    """
    n = _positive_int(n, "n")
    stride = _positive_int(stride, "stride")
    return causal_mask(n) & (_offsets(n) % stride == 0)


def global_mask(n: int, global_tokens) -> np.ndarray:
    """Global tokens (Longformer style): every query sees them, and they see every key. Bool (n, n), not causal."""
    n = _positive_int(n, "n")
    g = np.asarray(list(global_tokens), dtype=int)
    if g.size and (g.min() < 0 or g.max() >= n):
        raise ValueError(f"global_tokens must be positions 0..{n - 1}; got {g.tolist()}")
    mask = np.zeros((n, n), dtype=bool)
    mask[:, g] = True
    mask[g, :] = True
    return mask


def kept_fraction(mask) -> float:
    """The fraction of the n_q × n_k query-key pairs a mask keeps (the fraction of the score work done)."""
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.ndim != 2:
        raise ValueError(f"mask must be a 2-D boolean array; got dtype {mask.dtype} and shape {mask.shape}")
    return float(mask.mean())


# ---------------------------------------------------------------------------------
# Linear attention
# ---------------------------------------------------------------------------------

def elu_plus_one(x) -> np.ndarray:
    """φ(x) = elu(x) + 1: x + 1 for x > 0, exp(x) otherwise. Always positive, so weights stay positive."""
    x = np.asarray(x, dtype=float)
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def linear_attention(Q, K, V, phi=elu_plus_one) -> np.ndarray:
    """Linear attention (Katharopoulos et al. 2020), computed in the O(n) order.

    output_i = φ(q_i)ᵀ S / φ(q_i)ᵀ z with S = Σ_j φ(k_j) v_jᵀ (d_k × d_v) and z = Σ_j φ(k_j) (d_k):
    by associativity, (φ(Q) φ(K)ᵀ) V = φ(Q) (φ(K)ᵀ V), and the right-hand side never forms an n × n matrix.

    Parameters
    ----------
    Q : array_like (n_q, d_k);  K : array_like (n_k, d_k);  V : array_like (n_k, d_v)
    phi : callable, a positive feature map applied entrywise

    Returns
    -------
    ndarray (n_q, d_v)
    """
    Q, K, V = _qkv(Q, K, V)
    fQ, fK = phi(Q), phi(K)
    S = fK.T @ V            # (d_k, d_v): all keys and values summarised once
    z = fK.sum(axis=0)      # (d_k,)
    return (fQ @ S) / (fQ @ z)[:, None]


def linear_attention_weights(Q, K, phi=elu_plus_one) -> np.ndarray:
    """The (n_q, n_k) weights linear attention implies: φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j'). For comparison only."""
    Q, K, _ = _qkv(Q, K, K)
    sims = phi(Q) @ phi(K).T
    return sims / sims.sum(axis=1, keepdims=True)


def _qkv(Q, K, V):
    """Q, K, V as finite 2-D float arrays (one head, no batch) whose shapes fit, as attention checks them."""
    return _check_qkv(as_matrix(Q, "Q", "(n_q, d_k)", finite=True), as_matrix(K, "K", "(n_k, d_k)", finite=True),
                      as_matrix(V, "V", "(n_k, d_v)", finite=True))


# ---------------------------------------------------------------------------------
# FlashAttention, one tile at a time
# ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class FlashStep:
    """The running state after ``tile`` tiles of keys (tile 0: before any).

    keys : range of the key indices of this tile (empty for tile 0)
    scores : (n_q, len(keys)) this tile's scaled scores
    m, l : (n_q,) running max and running sum;  o : (n_q, d_v) running unnormalised output
    rescale : (n_q,) exp(m_old - m_new), the factor the old l and o were multiplied by
    """

    tile: int
    keys: range
    scores: np.ndarray
    m: np.ndarray
    l: np.ndarray  # noqa: E741 - the paper's name
    o: np.ndarray
    rescale: np.ndarray

    @property
    def output(self) -> np.ndarray:
        """o / l: the output if the keys seen so far were all the keys (nan before the first tile)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.o / self.l[:, None]


def flash_trace(Q, K, V, block_size: int) -> list[FlashStep]:
    """Every state of :func:`helpers.attention.flash_attention` (no mask): tile 0 (empty) then one per tile."""
    Q, K, V = _qkv(Q, K, V)
    b = _positive_int(block_size, "block_size")
    n_q, d_v = Q.shape[0], V.shape[1]
    m, l, o = np.full(n_q, -np.inf), np.zeros(n_q), np.zeros((n_q, d_v))
    steps = [FlashStep(0, range(0), np.zeros((n_q, 0)), m, l, o, np.ones(n_q))]
    for t, start in enumerate(range(0, K.shape[0], b), start=1):
        keys = range(start, min(start + b, K.shape[0]))
        S = Q @ K[keys.start:keys.stop].T / np.sqrt(Q.shape[1])
        m_new, l, o = online_softmax_step(m, l, o, S, V[keys.start:keys.stop])
        rescale = np.exp(m - m_new)
        m = m_new
        steps.append(FlashStep(t, keys, S, m, l, o, rescale))
    return steps


# ---------------------------------------------------------------------------------
# LoRA
# ---------------------------------------------------------------------------------

def lora_parameters(d_in: int, d_out: int, rank: int) -> int:
    """Trainable numbers of a rank-``rank`` update ΔW = B A of a (d_in, d_out) matrix: B (d_in, r), A (r, d_out)."""
    d_in, d_out = _positive_int(d_in, "d_in"), _positive_int(d_out, "d_out")
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or rank < 0:
        raise ValueError(f"rank must be a whole number >= 0; got {rank!r}")
    return int(rank) * (d_in + d_out)


def best_low_rank(delta, rank: int):
    """The rank-``rank`` matrices B (d_in, r), A (r, d_out) whose product B A is closest to ``delta``
    (truncated SVD, Eckart–Young). Returns (B, A)."""
    delta = as_matrix(delta, "delta", "(d_in, d_out)", finite=True)
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 0 <= rank <= min(delta.shape):
        raise ValueError(f"rank must be a whole number from 0 to {min(delta.shape)} for delta of shape "
                         f"{delta.shape}; got {rank!r}")
    U, s, Vt = np.linalg.svd(delta, full_matrices=False)
    return U[:, :rank] * s[:rank], Vt[:rank]


@dataclass(frozen=True)
class LoraExample:
    """A frozen head and the full update of W^Q that would make it a previous-token head.

    tokens : list of str (n);  X : (n, d) token vectors with positions added
    W_q, W_k : (d, d) frozen;  delta_q : (d, d) the full update;  target : (n, n) the scores it aims for
    """

    tokens: list
    X: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    delta_q: np.ndarray

    def weights(self, rank: int) -> np.ndarray:
        """The head's (n, n) weights with the best rank-``rank`` part of ``delta_q`` added to W^Q."""
        B, A = best_low_rank(self.delta_q, rank)
        Q, K = self.X @ (self.W_q + B @ A), self.X @ self.W_k
        return softmax(Q @ K.T / np.sqrt(K.shape[1]))


def _positions(n: int, d: int) -> np.ndarray:
    p = np.arange(n)[:, None]
    freq = 10000.0 ** (-2 * np.arange(d // 2)[None, :] / d)
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(p * freq), np.cos(p * freq)
    return P


def lora_example(seed: int = 3) -> LoraExample:
    """Eight tokens, d = 16, a random frozen head, and the least-squares update of W^Q whose scores
    are +4 on the previous token (on itself for the first) and -4 elsewhere (times √d)."""
    tokens = "the cat sat on the mat and slept".split()
    n, d = len(tokens), 16
    rng = np.random.default_rng(seed)
    X = rng.normal(0.0, 1.0, (n, d)) + _positions(n, d)
    W_q, W_k = rng.normal(0.0, 0.4, (d, d)), rng.normal(0.0, 0.4, (d, d))
    target = np.full((n, n), -4.0)
    target[np.arange(1, n), np.arange(n - 1)] = 4.0
    target[0, 0] = 4.0
    Q, K = X @ W_q, X @ W_k
    # X ΔW Kᵀ = √d·target - Q Kᵀ, solved by least squares (X has full row rank: an exact solution).
    delta = np.linalg.pinv(X) @ (np.sqrt(d) * target - Q @ K.T) @ np.linalg.pinv(K.T)
    return LoraExample(tokens, X, W_q, W_k, delta)


# ---------------------------------------------------------------------------------
# Widgets
# ---------------------------------------------------------------------------------


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
    result : dict from :func:`time_attention` for the last measurement
    exponents : dict "projections", "attention" -> fitted power of n
    button : ipywidgets.Button "Measure again"
    view : ipywidgets.HTML, the log-log figure and the text
    """

    def __init__(self, ns=(64, 128, 256, 512, 1024, 2048), d_model: int = 128):
        self._live_setup()
        self.ns = [_positive_int(n, "n") for n in ns]
        if len(self.ns) < 2:
            raise ValueError(f"ns needs at least 2 lengths to fit a line; got {list(ns)}")
        self.d_model = _positive_int(d_model, "d_model")
        self.button = widgets.Button(description="Measure again", tooltip="time every n again")
        self.view = view_html()
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
        with theme.figure_style():
            fig = theme.new_figure(figsize=(5.2, 3.4), layout="constrained")
            ax = fig.add_subplot()
            for key, marker in (("projections", "s"), ("attention", "o")):
                ax.loglog(r["n"], [1000 * t for t in r[key]], marker=marker,
                          label=f"{key}: time ∝ n^{exps[key]:.2f}")
            ax.set_xlabel("sequence length n")
            ax.set_ylabel("milliseconds per call (best of 3)")
            ax.set_title(f"one head, d_model = d_k = {self.d_model}")
            ax.legend()
        cross = next((n for n, p, a in zip(r["n"], r["projections"], r["attention"]) if a > p), None)
        alt = (f"Log-log plot of time against n: projections grow like n^{exps['projections']:.2f}, "
               f"attention like n^{exps['attention']:.2f}.")
        rows = [[str(n), f"{1000 * p:.2f}", f"{1000 * a:.2f}"]
                for n, p, a in zip(r["n"], r["projections"], r["attention"])]
        table = theme.table_html(["n", "projections ms", "attention ms"], rows)
        where = (f"Attention takes longer than the projections from n = {cross} on." if cross is not None
                 else "The projections took longer at every n measured.")
        text = (f"<div style='max-width:50em'>Fitted slopes on this machine, now: projections "
                f"n^{exps['projections']:.2f}, attention n^{exps['attention']:.2f}. {where}</div>")
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
    step : int, settable, 0 (before any tile) .. n_steps
    """

    BLOCK_SIZES = (1, 2, 3, 4, 8)

    def __init__(self, Q, K, V, block_size: int = 2, tokens=None):
        self._live_setup()
        self.Q, self.K, self.V = _qkv(Q, K, V)
        n_k = self.K.shape[0]
        self.tokens = [f"k{j}" for j in range(n_k)] if tokens is None else [str(t) for t in tokens]
        if len(self.tokens) != n_k:
            raise ValueError(f"tokens has {len(self.tokens)} names for {n_k} keys")
        self.plain = scaled_dot_product_attention(self.Q, self.K, self.V)[0]
        if block_size not in self.BLOCK_SIZES:
            raise ValueError(f"block_size must be one of {self.BLOCK_SIZES}; got {block_size!r}")
        self.block_picker = widgets.Dropdown(options=list(self.BLOCK_SIZES), value=block_size,
                                             description="keys per tile", style={"description_width": "initial"},
                                             layout=widgets.Layout(width="12em"))
        self.prev_button = widgets.Button(description="◀ Previous tile", tooltip="go back one tile")
        self.next_button = widgets.Button(description="Next tile ▶", tooltip="read the next tile of keys")
        self.views = {k: view_html() for k in ("where", "scores", "state", "check")}
        self._step = 0
        self._trace = flash_trace(self.Q, self.K, self.V, block_size)
        controls = wrap_row([self.block_picker, self.prev_button, self.next_button])
        super().__init__([controls, self.status_html, self.views["where"],
                          wrap_row([self.views["scores"], self.views["state"]]), self.views["check"]])
        course_box(self)
        self._update()
        self.watch(self.block_picker, self._on_block)
        self.on_click(self.prev_button, lambda _b: self.previous())
        self.on_click(self.next_button, lambda _b: self.next())

    def __repr__(self):
        return f"FlashStepper(n_q={self.Q.shape[0]}, n_k={self.K.shape[0]}, block_size={self.block_size})"

    # -- public state
    @property
    def block_size(self) -> int:
        return int(self.block_picker.value)

    @block_size.setter
    def block_size(self, value: int) -> None:
        if value not in self.BLOCK_SIZES:
            raise ValueError(f"block_size must be one of {self.BLOCK_SIZES}; got {value!r}")
        self.block_picker.value = value

    @property
    def n_steps(self) -> int:
        """The number of tiles: ceil(n_k / block_size)."""
        return len(self._trace) - 1

    @property
    def step(self) -> int:
        return self._step

    @step.setter
    def step(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= self.n_steps:
            raise ValueError(f"step must be a whole number from 0 to {self.n_steps}; got {value!r}")
        self._step = int(value)
        self.request_update()

    @property
    def state(self) -> FlashStep:
        """The running state after the current step's tile."""
        return self._trace[self._step]

    @property
    def done(self) -> bool:
        return self._step == self.n_steps

    @property
    def matches_plain(self) -> bool:
        """True when every tile has been read and o / l equals plain attention's output (to 1e-12)."""
        return self.done and bool(np.allclose(self.state.output, self.plain, rtol=0, atol=1e-12))

    def next(self) -> None:
        """Read the next tile (nothing after the last one)."""
        if self._step < self.n_steps:
            self.step = self._step + 1

    def previous(self) -> None:
        """Go back one tile (nothing before the start)."""
        if self._step > 0:
            self.step = self._step - 1

    # -- handlers
    def _on_block(self, _change) -> None:
        self._trace = flash_trace(self.Q, self.K, self.V, self.block_size)
        self._step = 0
        self.request_update()

    # -- drawing
    def _update(self) -> None:
        s = self.state
        n_q = self.Q.shape[0]
        self.prev_button.disabled = self._step == 0
        self.next_button.disabled = self.done
        if s.tile == 0:
            where = (f"Start: no key read yet. Every query has m = −∞, l = 0, o = 0. "
                     f"{self.K.shape[0]} keys in {self.n_steps} tiles of {self.block_size}.")
        elif s.tile == 1:
            where = (f"Tile 1 of {self.n_steps}: keys {s.keys.start}–{s.keys.stop - 1}. First tile: m is each "
                     "query's largest score in it, l and o are sums over these keys only.")
        else:
            grew = [i for i in range(n_q) if s.rescale[i] < 1]
            resc = ", ".join(f"q{i} × {s.rescale[i]:.3f}" for i in grew) if grew else "none"
            where = (f"Tile {s.tile} of {self.n_steps}: keys {s.keys.start}–{s.keys.stop - 1}. "
                     f"Queries whose running max grew, old l and o rescaled by exp(m_old − m_new): {resc}.")
        self.views["where"].value = f"<div style='max-width:50em;margin:4px 0'>{_html.escape(where)}</div>"
        # The scores read so far: this tile highlighted, later tiles not computed yet.
        seen = {}
        for step in self._trace[1:self._step + 1]:
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
                f"All {self.n_steps} tiles read. {verdict}: largest difference {diff:.1e}.", self.matches_plain)
        else:
            self.views["check"].value = ""


class LoraDemo(LiveWidget, widgets.VBox):
    """A frozen head plus a rank-r update of W^Q (the best rank-r part of a full update): pick r, see the pattern.

    Attributes
    ----------
    rank_picker : ipywidgets.BoundedIntText, the rank r (0 to :attr:`max_rank`; 8 here: eight tokens, so the
        full update has rank 8)
    rank : int, settable
    weights : (n, n) the adapted head's weights;  frozen_weights : (n, n) with r = 0
    previous_token_weight : float, the adapted head's mean weight on the previous token
    views : dict of ipywidgets.HTML: "params", "frozen", "adapted"
    """

    RANKS = (0, 1, 2, 4, 8)  # the ranks the notebook tabulates

    def __init__(self, rank: int = 1, example: LoraExample | None = None):
        self._live_setup()
        self.example = lora_example() if example is None else example
        self.max_rank = min(self.example.delta_q.shape[0], len(self.example.tokens))
        rank = self._check_rank(rank)
        self.rank_picker = widgets.BoundedIntText(value=rank, min=0, max=self.max_rank, description="rank r",
                                                  layout=widgets.Layout(width="10em"))
        self.views = {k: view_html() for k in ("params", "frozen", "adapted")}
        self.frozen_weights = self.example.weights(0)
        tokens = self.example.tokens
        self.views["frozen"].value = attention_weights_html(self.frozen_weights, tokens, tokens,
                                                            title="frozen head (r = 0)")
        super().__init__([self.rank_picker, self.status_html, self.views["params"],
                          wrap_row([self.views["frozen"], self.views["adapted"]])])
        course_box(self)
        self._update()
        self.watch(self.rank_picker, lambda _c: self.request_update())

    def __repr__(self):
        return f"LoraDemo(rank={self.rank})"

    @property
    def rank(self) -> int:
        return int(self.rank_picker.value)

    @rank.setter
    def rank(self, value: int) -> None:
        self.rank_picker.value = self._check_rank(value)

    def _check_rank(self, value) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= self.max_rank:
            raise ValueError(f"rank must be a whole number from 0 to {self.max_rank}; got {value!r}")
        return int(value)

    @property
    def previous_token_weight(self) -> float:
        return _previous_token_weight(self.weights)

    def _update(self) -> None:
        r = self.rank
        self.weights = self.example.weights(r)
        d = self.example.W_q.shape[0]
        toy = 2 * lora_parameters(d, d, r)
        big = 2 * lora_parameters(768, 768, r)
        rows = [[f"this head, d = {d}", f"{2 * d * d:,}", f"{toy:,}", f"{100 * toy / (2 * d * d):.1f} %"],
                ["one layer of BERT-base, d_model = 768", f"{2 * 768 * 768:,}", f"{big:,}",
                 f"{100 * big / (2 * 768 * 768):.1f} %"]]
        self.views["params"].value = theme.table_html(
            ["matrices W^Q and W^V", "frozen numbers", f"trained numbers at r = {r}", "share"], rows,
            caption=f"ΔW = B A for W^Q and W^V: B is d × {r}, A is {r} × d")
        tokens = self.example.tokens
        self.views["adapted"].value = attention_weights_html(
            self.weights, tokens, tokens, title=f"adapted head (r = {r})",
            note=f"mean weight on the previous token: {self.previous_token_weight:.2f} "
                 f"(frozen: {_previous_token_weight(self.frozen_weights):.2f})")


def _previous_token_weight(weights) -> float:
    n = weights.shape[0]
    return float(np.mean([weights[i, i - 1] for i in range(1, n)]))
