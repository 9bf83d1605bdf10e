"""Plain attention against FlashAttention in numpy: time and peak extra memory as the sequence grows.

Plain attention holds the n × n score and weight matrices, so its memory grows like n²; the tiled
version holds one n × block tile at a time, so its memory grows like n · block. Both do the same
n² · d multiply-adds; on a CPU the tiled one is often a little faster too, because its tiles stay
in the cache while the plain version streams several n × n temporaries through memory.

Run: .venv/bin/python bench/bench_flash.py
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np

from helpers.core.attention import flash_attention, scaled_dot_product_attention
from helpers.core.efficiency import peak_memory

D = 64
BLOCK = 64
SIZES = (256, 512, 1024, 2048, 4096)


def best_ms(fn, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1000 * min(times)


def main() -> None:
    print(f"d_k = d_v = {D}, block = {BLOCK}; time: best of 3; memory: tracemalloc peak beyond the inputs")
    print(f"{'n':>6} {'plain ms':>10} {'flash ms':>10} {'plain MB':>10} {'flash MB':>10} {'n×n float64 MB':>15}")
    for n in SIZES:
        rng = np.random.default_rng(n)
        Q, K, V = (rng.standard_normal((n, D)) for _ in range(3))
        plain = partial(scaled_dot_product_attention, Q, K, V)
        flash = partial(flash_attention, Q, K, V, block_size=BLOCK)
        print(f"{n:6d} {best_ms(plain):10.1f} {best_ms(flash):10.1f} {peak_memory(plain) / 1e6:10.1f} "
              f"{peak_memory(flash) / 1e6:10.1f} {n * n * 8 / 1e6:15.1f}")


if __name__ == "__main__":
    main()
