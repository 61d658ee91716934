"""The learning lab's training seed as its views read it: the one the page asks for, shown only once the server
has said its runs are ready (learning.poll_training), so that no view draws one seed's runs under another's number."""

from __future__ import annotations

from typing import NamedTuple

from dash import Input

from .. import limits
from ..attention import HEAD_CHOICES
from ..i18n import _, format_list
from .ids import LEARN_READY, LEARN_REQUESTED

TRAINED = {"seed": Input(LEARN_REQUESTED, "data"), "ready": Input(LEARN_READY, "data")}


def bad_training_seed() -> str:
    return _("Choose a training seed {first} to {last}.").format(first=limits.TRAINING_SEEDS[0],
                                                                  last=limits.TRAINING_SEEDS[-1])


def training_message(seed: int) -> str:
    # Translators: a status while the learning lab trains; {heads}: the numbers of heads, as "1, 2, 4, and 8"
    return _("training seed {seed} for h = {heads} …").format(seed=seed, heads=format_list(HEAD_CHOICES))


class Shown(NamedTuple):
    """What the learning lab draws: the runs of training seed `seed`, or, when it is None, `message` instead."""

    seed: int | None
    message: str

    @classmethod
    def parse(cls, seed, ready) -> Shown:
        """The seed asked for once the page has heard its runs are ready; a check only: the views that draw its
        runs ask the trainer for them (another worker may have trained it: the runs are deterministic, so this one
        trains them too and waits, once per seed)."""
        try:
            seed = limits.training_seed(seed)
        except limits.Invalid:
            return cls(None, bad_training_seed())
        if not (limits.is_int(ready) and ready == seed):
            return cls(None, training_message(seed))
        return cls(seed, "")
