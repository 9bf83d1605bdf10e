"""Speed of the numpy all-MiniLM-L6-v2: loading, hashing, one forward pass, the explorer.

Run: .venv/bin/python bench/bench_pretrained.py   (or `make bench`)

Goals: load <= 100 ms, forward pass of a 12-token sentence <= 20 ms. Loading is timed in
fresh processes, since the sha256 check of the 90 MB weights runs once per process.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SENTENCE = "The old man fed the cat and it ran."  # 12 tokens with [CLS] and [SEP]
RUNS = 5

FRESH = """
import json, time
t0 = time.perf_counter()
from helpers.core import pretrained
t1 = time.perf_counter()
model = pretrained.MiniLM.load()
t2 = time.perf_counter()
pretrained.MiniLM.load()
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first_load": t2 - t1, "hash": pretrained.HASH_SECONDS["total"],
                  "later_load": t3 - t2}))
"""


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> None:
    fresh = []
    for _ in range(RUNS):
        res = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, cwd=ROOT, check=True)
        fresh.append(json.loads(res.stdout))
    med = {k: statistics.median(r[k] for r in fresh) for k in fresh[0]}
    print(f"all-MiniLM-L6-v2 in numpy, medians of {RUNS} fresh processes:")
    print(f"  import helpers.core.pretrained            {ms(med['import'])}")
    print(f"  MiniLM.load(), first in the process  {ms(med['first_load'])}  (goal <= 100 ms)")
    print(f"    of which sha256 of the weights     {ms(med['hash'])}  (once per process)")
    print(f"  MiniLM.load(), later (hash cached)   {ms(med['later_load'])}")

    from helpers.core.pretrained import MiniLM

    model = MiniLM.load()
    n = len(model.tokenize(SENTENCE))
    for _ in range(3):
        model(SENTENCE)  # warm-up: first touches of the memory-mapped weights
    times = []
    for _ in range(50):
        t = time.perf_counter()
        model(SENTENCE)
        times.append(time.perf_counter() - t)
    print(f"  forward pass, {n} tokens, all 6 x 12 attentions: median {ms(statistics.median(times))}, "
          f"best {ms(min(times))}  (goal <= 20 ms)")
    long_text = "a " * 510
    t = time.perf_counter()
    model(long_text)
    print(f"  forward pass, 512 tokens (the limit): {ms(time.perf_counter() - t)}")

    from helpers.demos.real_model import HeadExplorer

    ex = HeadExplorer(model)
    redraw = []
    for h in range(12):
        t = time.perf_counter()
        ex.head = h
        redraw.append(time.perf_counter() - t)
    retype = []
    for text in ("I sat on the river bank", SENTENCE, "the bank of the river was muddy"):
        t = time.perf_counter()
        ex.set_text(text)
        retype.append(time.perf_counter() - t)
    print(f"  HeadExplorer: pick a head {ms(statistics.median(redraw))}, "
          f"type a sentence {ms(statistics.median(retype))} (medians; both redraw the 72-head PNG)")


if __name__ == "__main__":
    main()
