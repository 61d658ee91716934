"""Time one head surgery in the learning lab: a forward pass of the trained layer on the whole test set.

Run: python bench/bench_surgery.py
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard import training  # noqa: E402


def main(rounds: int = 30):
    X, Y = training.test_set(0)
    for h in (2, 8):
        weights = training.train(h, 0).snapshots[-1]
        surgeries = [training.Surgery(off=frozenset({0})), training.Surgery(uniform=frozenset({1})),
                     training.Surgery(swap=(0, 1))]
        times = []
        for k in range(rounds):
            t = time.perf_counter()
            training.loss_after_surgery(weights, h, X, Y, surgeries[k % 3])
            times.append(time.perf_counter() - t)
        times.sort()
        print(f"surgery at h = {h} on {len(X)} test examples: p50 {statistics.median(times) * 1e3:.1f} ms, "
              f"p90 {times[int(0.9 * rounds)] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
