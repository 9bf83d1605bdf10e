"""How long one edit takes to reach every view of the self-attention explorer.

An "edit" is ``editor.set_text(i, j, text)``: parse the cell, recompute every stage
through helpers.core.attention, redraw every HTML view and the trace. It is timed in this
process (the kernel side), which is what a learner waits for before the browser
repaints. Goals: at most 5 ms for 6 tokens (d = 4) and 16 ms for 16 tokens (d = 8).

Run: .venv/bin/python bench/bench_explorer.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from helpers.widgets import AttentionExplorer, CrossAttentionExplorer

GOALS_MS = {6: 5.0, 16: 16.0}


def build(n: int, d: int, causal: bool) -> AttentionExplorer:
    rng = np.random.default_rng(n * 100 + d)
    X = rng.integers(-2, 3, (n, d))
    Ws = [rng.integers(-2, 3, (d, d)) for _ in range(3)]
    return AttentionExplorer([f"t{i}" for i in range(n)], X, *Ws, causal=causal)


def time_edits(ex, editor: str, repeats: int = 200) -> list[float]:
    """Milliseconds per edit; each edit changes a different cell to a new value."""
    ed = ex.editors[editor]
    n, m = ed.shape
    times = []
    for k in range(repeats):
        i, j = k % n, (k // n) % m
        text = f"{(k % 7) - 3}.5"  # always a change, always a valid number
        t0 = time.perf_counter()
        ed.set_text(i, j, text)
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def check_updated(ex) -> None:
    """The timed path really updated the views (so the figure is not of a no-op)."""
    before = ex.views["weights"].value
    ex.editors["X"].set_text(0, 0, "1.75")
    assert ex.editors["X"].value[0, 0] == 1.75
    assert ex.views["weights"].value != before or ex.result.weights.shape == (1, 1)


MODELS_GOAL = 60  # widget models of a 6-token explorer: the page builds a view of each before it is live


def model_count(make) -> int:
    """How many widget models ``make()`` builds (each one a view for the page to build, and a comm)."""
    from ipywidgets.widgets.widget import _instances

    before = set(_instances)
    made = make()
    count = len(set(_instances) - before)
    made.close_all()
    return count


def main() -> None:
    n = model_count(lambda: build(6, 4, False))
    print(f"widget models of a 6-token explorer (d=4): {n}  (goal ≤ {MODELS_GOAL}: "
          f"{'ok' if n <= MODELS_GOAL else 'OVER GOAL'})")
    print("edit → every view updated (set_text, median over 200 edits, in-process)")
    for n, d in ((6, 4), (16, 8)):
        for causal in (False, True):
            ex = build(n, d, causal)
            check_updated(ex)
            time_edits(ex, "X", repeats=20)  # warm-up
            for editor in ("X", "W_q"):
                t = time_edits(ex, editor)
                med = statistics.median(t)
                p90 = sorted(t)[int(0.9 * len(t))]
                ok = "ok" if med <= GOALS_MS[n] else "OVER GOAL"
                print(
                    f"  {n:2d} tokens, d={d}, causal={'on ' if causal else 'off'}, edit {editor:3s}: "
                    f"median {med:5.2f} ms, p90 {p90:5.2f} ms  (goal ≤ {GOALS_MS[n]:g} ms: {ok})"
                )
            ex.close_all()

    rng = np.random.default_rng(0)
    cross = CrossAttentionExplorer(
        [f"q{i}" for i in range(8)], [f"k{j}" for j in range(12)],
        rng.integers(-2, 3, (8, 8)), rng.integers(-2, 3, (12, 8)),
        *[rng.integers(-2, 3, (8, 8)) for _ in range(3)],
    )
    t = time_edits(cross, "X_enc")
    print(f"  cross-attention 8 × 12, d=8, edit X_enc: median {statistics.median(t):5.2f} ms")

    t0 = time.perf_counter()
    ex = build(16, 8, False)
    print(f"  building a 16-token explorer (d=8): {(time.perf_counter() - t0) * 1e3:.0f} ms")
    t0 = time.perf_counter()
    ex.set_tokens([f"t{i}" for i in range(17)])
    print(f"  adding a 17th token (rebuilds the X grid): {(time.perf_counter() - t0) * 1e3:.0f} ms")


KERNEL_CODE = """
import statistics, time
from bench_explorer import build, time_edits
for n, d in ((6, 4), (16, 8)):
    ex = build(n, d, True)
    ex.views  # the explorer is not displayed: its models still serialize and send every change
    time_edits(ex, "X", repeats=20)
    t = time_edits(ex, "X", repeats=100)
    print(f"{n} {d} {statistics.median(t):.2f} {sorted(t)[90]:.2f}")
"""


def in_kernel() -> None:
    """The same edits inside a real IPython kernel, where every change is serialized and sent."""
    import os
    import subprocess

    from jupyter_client.manager import start_new_kernel

    # Started in bench/, the kernel imports this file by its name (IPython puts its working folder on the path).
    km, kc = start_new_kernel(kernel_name="python3", stderr=subprocess.DEVNULL,
                              cwd=os.path.dirname(os.path.abspath(__file__)))
    try:
        code = KERNEL_CODE
        lines = []

        def collect(msg):
            if msg["msg_type"] == "stream":
                lines.extend(msg["content"]["text"].split())
            elif msg["msg_type"] == "error":
                raise RuntimeError("\n".join(msg["content"]["traceback"]))

        kc.execute_interactive(code, timeout=120, output_hook=collect)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    print("in an IPython kernel (comm messages serialized and sent), causal on, edit X:")
    for k in range(0, len(lines), 4):
        n, d, med, p90 = lines[k:k + 4]
        ok = "ok" if float(med) <= GOALS_MS[int(n)] else "OVER GOAL"
        print(f"  {int(n):2d} tokens, d={d}: median {float(med):5.2f} ms, p90 {float(p90):5.2f} ms  "
              f"(goal ≤ {GOALS_MS[int(n)]:g} ms: {ok})")


if __name__ == "__main__":
    main()
    in_kernel()
