"""Names and sizes that the core's modules and the rules (dashboard/limits.py) share: the bugs' keys and names,
the checks' names, class mode's timers and the training budget. A leaf: i18n's N_ only, so that
`import dashboard.limits` loads none of the bugs, checks or training code (tests/test_imports.py)."""

from __future__ import annotations

from .i18n import N_

BUG_NAMES = {  # key (in URLs and answers) -> what a student picks from, in dashboard/bugs.py's order
    "softmax-axis": N_("softmax over the wrong axis"),
    "no-scale": N_("no 1/√d_k"),
    "scale-d": N_("1/√d instead of 1/√d_k"),
    "kq": N_("K Qᵀ instead of Q Kᵀ"),
    "reshape": N_("heads split without the transpose"),
    "no-wo": N_("W_O forgotten"),
    "mask-after": N_("causal mask after the softmax"),
}
CHECKS = {  # each name translated where it is shown (dashboard/checks.py runs them)
    "rows": N_("rows of A sum to 1"),
    "equivariance": N_("permutation equivariance"),
    "reference": N_("equals a reference loop"),
    "shapes": N_("shapes of every intermediate"),
    "learns": N_("still learns the lab's task"),
}
FAST_CHECKS = ("rows", "equivariance", "reference", "shapes")  # on the example, in milliseconds
TIMERS = (0, 30, 60, 90, 120, 180)  # seconds a class-mode vote stays open (0: until the lecturer moves on)
TRAINING_STEPS, SNAPSHOT_EVERY = 400, 20  # the learning lab's budget, and a snapshot of the weights every 20 steps
