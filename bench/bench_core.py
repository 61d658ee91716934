"""Time the batched multi_head_attention against the seed notebook's loop over heads.

Run: python bench/bench_core.py
"""

import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard.attention import multi_head_attention  # noqa: E402
from tests.seed_reference import seed_multi_head_attention  # noqa: E402


def best_of(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=7)) / number


def main():
    print(f"{'n':>5} {'d':>4} {'h':>3} {'batched':>12} {'seed loop':>12} {'speed-up':>9}")
    sizes = [(12, 8, 1, 2000), (12, 8, 8, 2000), (128, 64, 8, 200), (1024, 512, 8, 3), (1024, 512, 64, 3)]
    for n, d, h, number in sizes:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, d))
        W = rng.normal(size=(4, d, d)) / np.sqrt(d)
        ours = best_of(lambda: multi_head_attention(X, *W, h), number)
        seed = best_of(lambda: seed_multi_head_attention(X, *W, h), number)
        print(f"{n:>5} {d:>4} {h:>3} {ours * 1e6:>9.1f} us {seed * 1e6:>9.1f} us {seed / ours:>8.2f}x")


if __name__ == "__main__":
    main()
