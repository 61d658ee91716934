"""The most memory the view caches can take in one server process: every cache filled to its bound with the
largest settings the controls allow (h = 8, 16 tokens a cluster: n = 48), every display.

Run: python bench/bench_cache_memory.py
"""

import gc
import sys
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard import limits  # noqa: E402
from dashboard.figures import Display  # noqa: E402
from dashboard import state  # noqa: E402
from dashboard.explorer import example, forms, forward, mixing  # noqa: E402


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def main():
    displays = [Display(narrow, lecture) for narrow, lecture in product((False, True), repeat=2)]
    settings = [state.Setting(8, seed, 16, "tau", tau) for seed in range(10) for tau in limits.TAU_STEPS]
    before = rss_mib()
    for k, s in enumerate(settings[:state.SETTINGS_CACHED]):
        display = displays[k % len(displays)]
        example.block_figure(s, display), example.heatmap_figure(s, display), example.cube_data(s), forms.forms_figures(s, display)
        forward.forward_view(s, display), mixing.mixing_figures(s, display)
        mixing.feature_mixing_figure(s, k % s.n, display)
    gc.collect()
    caches = [state.model, example.block_figure, example.heatmap_figure, example.cube_data, forms.forms_figures, forward.forward_view,
              mixing.mixing_figures, mixing.feature_mixing_figure]
    assert all(c.cache_info().currsize == state.SETTINGS_CACHED for c in caches)
    print(f"{len(caches)} caches x {state.SETTINGS_CACHED} entries at n = 48, h = 8: "
          f"{rss_mib() - before:.0f} MiB more resident memory ({before:.0f} -> {rss_mib():.0f} MiB)")


if __name__ == "__main__":
    main()
