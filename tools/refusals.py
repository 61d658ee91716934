"""Where class mode refuses each template, and why: every question template over a grid of settings (h, example
seed, size, scale, weights; the learning lab's over h and training seed), the refusals counted by their reason.

A refusal is class mode's own message (dashboard/questions.py) with its numbers taken out, so refusals for the
same reason count together. For issue 36's note; run: python tools/refusals.py [--seeds 20]
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard import bugs, limits, questions, trainer  # noqa: E402

SCALES = (("seed", 0), ("none", 0), ("tau", -10), ("tau", 10))  # τ = 0.1 and τ = 10
NUMBER = re.compile(r"[-+]?\d+(\.\d+)?|[⁰¹²³⁴⁵⁶⁷⁸⁹]+")


def reason(message: str) -> str:
    """The refusal's reason: its first sentence, numbers as #, without the suggestion that follows."""
    return NUMBER.sub("#", message.split(". ")[0].split(": try")[0]).rstrip(".")[:110]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    for template in questions.TEMPLATE_TITLES:
        if template in questions.LAB:
            for seed in limits.TRAINING_SEEDS:  # the lab's questions are posed on trained runs only
                trainer.training_runs(seed)
            forms = [dict(template=template, timer=0, h=h, train_seed=t)
                     for h, t in itertools.product((1, 2, 4, 8), limits.TRAINING_SEEDS)]
        else:
            forms = [dict(template=template, timer=0, weights=w, h=h, seed=seed, size=size, scale=scale, tau=tau,
                          head=1, query=0, key=1, bug=next(iter(bugs.BUGS_BY_KEY)))
                     for w, h, seed, size, (scale, tau) in itertools.product(
                         ("random", "trained"), (1, 2, 4, 8), range(args.seeds), (2, 4, 16), SCALES)]
        reasons, by_h = Counter(), Counter()
        for form in forms:
            q, message = questions.question(form)
            if q is None:
                reasons[reason(message)] += 1
                by_h[form["h"]] += 1
        refused = sum(reasons.values())
        print(f"\n{template} ({questions.TEMPLATE_TITLES[template]}): refused {refused} of {len(forms)} settings "
              f"({100 * refused / len(forms):.0f}%); by h: " + ", ".join(f"h={h}: {by_h[h]}" for h in (1, 2, 4, 8)),
              flush=True)
        for why, count in reasons.most_common(6):
            print(f"  {count:5d}  {why}")


if __name__ == "__main__":
    main()
