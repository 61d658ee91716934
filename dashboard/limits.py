"""Every value a control may take, and the parsers that check them: the rules, in one place.

A leaf: it imports only constants (the core's, and dashboard/constants.py's: the names of the bugs and the
checks, the training steps), the core's integer check, and i18n to say its messages and labels in the page's
language. The server checks each input here, once, where it enters a callback; the browser gets the same values through the page's config
(`client_config`), so assets/*.js repeat none of them. A bad value raises `Invalid`: a control's callback then
gives no update (wiring.py), and a typed value gets the message.
"""

from __future__ import annotations

import re

import numpy as np

from .attention import HEAD_CHOICES, N_CLUSTERS, N_TOKENS, SEED_PER_CLUSTER, check_int, check_permutation
from .constants import BUG_NAMES, CHECKS, FAST_CHECKS, SNAPSHOT_EVERY, TRAINING_STEPS
from .i18n import N_, _, format_list


class Invalid(ValueError):
    """A value no control can send: the page keeps what it shows."""


SEEDS = range(100)  # the worked example's random draws; class mode's questions use the same range
SIZES = range(2, 17)  # tokens per cluster: n = 6 … 48
DEFAULT_SIZE = SEED_PER_CLUSTER
MAX_TOKENS = N_CLUSTERS * SIZES[-1]
SCALES = {"seed": N_("1/√(d/h), the seed's"), "none": N_("1, no scaling"), "tau": N_("1/(τ√(d/h)), a temperature")}
DEFAULT_SCALE = "seed"
TAU_STEPS = range(-10, 11)  # slider positions k: τ = 10^(k/10), from 0.1 to 10 on a log scale
WEIGHT_CHOICES = {"random": N_("random, the seed's"), "trained": N_("trained on the learning lab's task")}
DEFAULT_WEIGHTS = "random"
EXAMPLE_TRAINING_SEED = 0  # the learning lab's run whose trained layer the worked example can show
DEFAULT_TAU_STEP = 0
TRAINING_SEEDS = range(10)
SNAPSHOT_STEPS = range(0, TRAINING_STEPS + 1, SNAPSHOT_EVERY)  # the steps with a snapshot: the slider's
DEFAULT_HEADS = 4
DEFAULT_SEED = 0
MAX_PERM_TEXT = 200  # characters; a longer typed order is refused before parsing
TABS = {  # value -> label, in the seed's order
    "example": N_("Worked example"),
    "mixing": N_("Single vs multi-head"),
    "equivariance": N_("Equivariance"),
    "learning": N_("Learning"),
    "clinic": N_("Bug clinic"),
}
DEFAULT_TAB = "example"
DEFAULT_BUG = next(iter(BUG_NAMES))  # the bug clinic's: BUG_NAMES is {key: name} of dashboard/bugs.py
MYSTERIES = range(1000)  # a mystery number 1 … 999 hides a bug (bugs.mystery); 0 is no mystery
NO_MYSTERY = 0
DEFAULT_CHECKS = list(FAST_CHECKS)  # run on the example at once; "learns" trains, so it waits to be asked
DISPLAYS = 2 * 2  # phone-width or not, lecture mode or not
THEMES = {"auto": N_("auto (the system's)"), "light": N_("light"), "dark": N_("dark")}  # value -> name
DEFAULT_THEME = "auto"  # assets/theme.js: a stored choice other than light or dark is auto
NARROW_WIDTH = 576  # px: Bootstrap's "sm" breakpoint; a page narrower than this is a phone's
ALL_HEADS = 0  # a head button's value for "all heads"; k >= 1 is head k
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # a class's join code: no 0/O, 1/I/L, read off a projector
CODE_LENGTH = 6
CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")  # the store issues these; the explorer's header links back
MAX_TYPED_CODE = 16  # a typed code may carry spaces around it


def identity_order(n: int) -> str:
    """The typed order that leaves n tokens where they are: '0 1 … n-1'."""
    return " ".join(map(str, range(n)))


DEFAULT_PERM = identity_order(N_TOKENS)


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def member(value, allowed: range, name: str = N_("value")) -> int:
    """`value` if it is an int in the range `allowed`, else Invalid. `name`: marked N_, translated if said."""
    value = check_int(name, value, allowed.start, allowed[-1], error=Invalid)
    if (value - allowed.start) % allowed.step:
        raise Invalid(_("{name} must be a multiple of {step}.").format(name=_(name), step=allowed.step))
    return value


def choice(value, allowed, name: str = N_("value")):
    """`value` if it is one of `allowed` (ints or strings, compared with their type), else Invalid. `name`: marked
    N_, translated if said."""
    if not any(type(value) is type(a) and value == a for a in allowed):
        # Translators: {choices} lists the allowed values, the language's own way: "1, 2, 4, or 8"
        raise Invalid(_("{name} must be one of {choices}.").format(name=_(name),
                                                                   choices=format_list(allowed, style="or")))
    return value


def heads(h) -> int:
    return choice(h, HEAD_CHOICES, "h")


def seed(value) -> int:
    return member(value, SEEDS, N_("the seed"))


def training_seed(value) -> int:
    return member(value, TRAINING_SEEDS, N_("the training seed"))


def size(value) -> int:
    return member(value, SIZES, N_("tokens per cluster"))


def tokens(value) -> int:
    """n, the number of tokens, for a checked number of tokens per cluster."""
    return N_CLUSTERS * size(value)


def scale(value) -> str:
    return choice(value, tuple(SCALES), N_("the scale"))


def weights(value) -> str:
    return choice(value, tuple(WEIGHT_CHOICES), N_("the weights"))


def tau(value) -> int:
    return member(value, TAU_STEPS, N_("the temperature"))


def bug(value) -> str:
    return choice(value, tuple(BUG_NAMES), N_("the bug"))


def mystery(value) -> int:
    """A mystery number; an empty box (None) is no mystery."""
    return NO_MYSTERY if value is None else member(value, MYSTERIES, N_("the mystery number"))


def flag(value) -> bool:
    """A switch: true or false, nothing else."""
    if not isinstance(value, bool):
        raise Invalid(_("a switch is on or off."))
    return value


def checks(value) -> tuple[str, ...]:
    """Checks to run: a list of distinct names of checks.CHECKS, in that order."""
    if not isinstance(value, list) or len(value) > len(CHECKS) or len(set(map(repr, value))) != len(value):
        raise Invalid(_("choose checks from the list."))
    chosen = {choice(v, tuple(CHECKS), N_("a check")) for v in value}
    return tuple(c for c in CHECKS if c in chosen)


def snapshot(step) -> int:
    """The snapshot index of a training step the slider allows."""
    return member(step, SNAPSHOT_STEPS, N_("the training step")) // SNAPSHOT_EVERY


def head_index(value, h: int) -> int | None:
    """A head button's value 1..h as a head index 0..h-1; None for 'all' or anything else."""
    return value - 1 if is_int(value) and 1 <= value <= h else None


def cell(head, query, key, h: int, n: int) -> tuple[tuple[int, int, int] | None, str]:
    """The selected cell as indices (i, r, j) with i = head - 1, or (None, message) when it is not one of
    the (h, n, n) cube's: the head buttons count from 1, tokens from 0."""
    if not all(is_int(v) for v in (head, query, key)):
        # Translators: an attention head; the query and the key are tokens (attention's query and key)
        return None, _("Choose a head 1 to {h}, a query and a key 0 to {last}, or click a cell of a heatmap.").format(
            h=h, last=n - 1)
    if not 1 <= head <= h:
        return None, _("There is no head {head} with h = {h}: choose a head 1 to {h}.").format(head=head, h=h)
    if not (0 <= query < n and 0 <= key < n):
        return None, _("Tokens are numbered 0 to {last}.").format(last=n - 1)
    return (head - 1, query, key), ""


ORDER_SEPARATORS = re.compile(r"[\s,;]+")  # assets/rules.js splits a typed order the same way


def permutation(text, n: int = N_TOKENS) -> tuple[np.ndarray | None, str]:
    """A typed order of n tokens such as '3 0 1 …' or '3,0,1,…' -> (perm, '') or (None, message)."""
    if not isinstance(text, str) or len(text) > MAX_PERM_TEXT:
        return None, _("Type the {n} numbers 0 to {last} in a new order, separated by spaces or commas.").format(
            n=n, last=n - 1)
    words = [w for w in ORDER_SEPARATORS.split(text.strip()) if w]
    bad = next((w for w in words if not (w.isascii() and w.isdigit())), None)
    if bad is not None:
        return None, _("“{word}” is not a token number: use whole numbers 0 to {last}.").format(word=bad[:20],
                                                                                             last=n - 1)
    try:
        return check_permutation([int(w) for w in words], n), ""
    except ValueError as err:
        return None, str(err)  # a whole sentence, the catalog's (attention.check_permutation)


def client_config() -> dict:
    """The values the browser needs (assets/explorer.js)."""
    return {"heads": list(HEAD_CHOICES), "narrowWidth": NARROW_WIDTH, "allHeads": ALL_HEADS}
