"""Class questions with their truth from the core: the form's values in, the store's question out. Class mode
poses them; the explorer's lecture plan holds them (explorer and class mode share this module, not each other).

Questions on the worked example take the whole setting the lecturer chose (weights, h, seed, size, scale, τ),
so that a question can be asked on weights with structure (the learning lab's trained layer); the
learning-lab questions take a training seed. Every answer that is right counts: a role or a key within a
stated margin of the best, an amount within a tolerance that follows the spread of the row. A question
whose answer would be a coin toss (a nearly uniform row, every head alike) is refused with a hint.
"""

from __future__ import annotations

import json
import math

import numpy as np

from . import attention as core
from . import bugs, checks, explain, figures, limits, margins, trainer, training
from .constants import TIMERS
from .i18n import N_, _, format_list
from .state import Setting, checks_example, learned_attention, model

# Translators: the kinds of question; a key and a head are attention's (a token attended to, an attention head)
TEMPLATE_TITLES = {"key": N_("Which key?"), "amount": N_("How much?"), "sharpest": N_("Which head is sharpest?"),
                   "entropy": N_("If τ doubles: entropy?"), "influence": N_("Which key matters most?"),
                   "bug": N_("Which bug?"), "role": N_("Which head? (learning lab)"),
                   "floor": N_("Below the line? (learning lab)")}
LAB = ("role", "floor")
TIMER_LABELS = dict(zip(TIMERS, (N_("no timer"), N_("30 s"), N_("1 min"), N_("1 min 30"), N_("2 min"), N_("3 min")),
                        strict=True))
# Translators: the entropy question's options: the entropy of a row goes down, stays or goes up
DIRECTIONS = (N_("down"), N_("stays about the same"), N_("up"))
STAY_BITS = margins.BITS  # the entropy question: a change smaller than this "stays"
ROLE_MARGIN = margins.WEIGHT  # the role question: a head's own-cluster mass must beat the next by more than this
LAST = len(limits.SNAPSHOT_STEPS) - 1
# What a student reads, in the viewer's language (prompt_text): a template's sentence, with the setting from the
# question's columns and the numbers the question states, which the store keeps in its prompt column (as JSON).
PROMPTS = {
    # Translators: {setting} is the weights, h and the scale, as "trained weights, h = 4, the seed's scale"
    "sharpest": N_("Which head is sharpest: whose rows have the lowest mean entropy? ({setting}.) The sharpest "
                   "beats every other head by more than {margin:.2f} bits."),
    # Translators: query and key are attention's tokens; {setting} as "trained weights, h = 4, τ = 2"
    "entropy": N_("In head {head} ({setting}): if τ doubles (the logits are divided by twice as much), does the "
                  "entropy of query {query}'s row go down, stay about the same (a change under {bits} bits) or go up?"),
    "key": N_("In head {head} ({setting}): which key will query {query} attend to most? Its weight beats every other "
              "key's by more than {margin:.2f}."),
    "amount": N_("In head {head} ({setting}): how large is {label}[{query}, {key}], the weight query {query} gives "
                 "key {key}? (0 to 1; within ±{tolerance:g} counts.)"),
    "influence": N_("Output {query} of the layer ({setting}): which key adds most to it, through every head, its "
                    "weight times its value through W_O? The table gives each key's weights and value lengths; "
                    "summed over the heads, their products only bound it. The top key beats every other by more "
                    "than {margin:.0%} of the row's total."),
    "bug": N_("A student's layer ({setting}) has one of the bug clinic's bugs. Which one? Its attention and what "
              "each check finds are beside this."),
    "bug-same": N_("A student's layer ({setting}) has one of the bug clinic's bugs. Which one? Its attention and what "
                   "each check finds are beside this. Any bug that computes exactly the same numbers here counts."),
    "floor": N_("Training one head (h = 1): will its test loss get below the dashed line at 3/8? The line is a "
                "bound for input-independent mixings: no single matrix used for every input does better, whatever "
                "the training seed. A head's attention changes with the input, so the line does not bind it, but "
                "whether training finds a better mixing differs from seed to seed."),
    "role": N_("After training with h = {h} heads: which head carries the own-cluster mixing (puts most attention on "
               "the query's own cluster)? Every head within {margin} of the largest own-cluster mass counts: which "
               "head takes which role differs from run to run."),
}
WEIGHT_WORDS = {"trained": N_("trained weights"), "random": N_("random weights")}
SCALE_WORDS = {"seed": N_("the seed's scale"), "none": N_("no scaling")}


def option_label(template: str, k) -> str:
    """How answer k of a question reads: key k, head k + 1, no/yes, down/stay/up, or an amount."""
    if template == "amount":
        return f"{k:.3f}"
    if template == "floor":
        return (_("no"), _("yes"))[k]
    if template == "entropy":
        return _(DIRECTIONS[k])
    if template == "bug":
        return _(bugs.BUGS[k].name)
    if template in ("sharpest", "role"):
        # Translators: an attention head, as an answer
        return _("head {number}").format(number=k + 1)
    # Translators: an attention key (a token attended to), as an answer
    return _("key {number}").format(number=k)


def prompt_text(q: dict) -> str:
    """A stored question's prompt in the request's language (a prompt stored in words, by an earlier version, as
    it is)."""
    if not q["prompt"].startswith("{"):
        return q["prompt"]
    words = json.loads(q["prompt"])
    template = "bug-same" if words.pop("same", False) else q["template"]
    i = q.get("head_index")
    if i is not None:
        words.update(head=i + 1, label=figures.head_label(i))
    if q["template"] not in LAB:
        s = Setting(q["h"], q["seed"], q["size"], q["scale"], q["tau"], q["weights"])
        tau = tau_text(s.temperature) if s.scale == "tau" else _(SCALE_WORDS[s.scale])
        # Translators: a question's setting: the weights, the number of heads, the scale ("trained weights, h = 4,
        # τ = 2"); Chinese with its own comma: "{weights}，h = {h}，{scale}"
        words["setting"] = _("{weights}, h = {h}, {scale}").format(weights=_(WEIGHT_WORDS[s.weights]), h=s.h, scale=tau)
    return _(PROMPTS[template]).format(h=q["h"], query=q.get("query_index"), key=q.get("key_index"), **words)


def tau_text(temperature: float) -> str:
    """τ as class mode shows it, on the form and in a question: two significant digits (10^(-7/10) is 0.2)."""
    return _("τ = {tau:.2g}").format(tau=temperature)


def stated(**numbers) -> str:
    """The numbers a prompt states, as the store keeps them (prompt_text)."""
    return json.dumps(numbers)


def up(x: float, digits: int = 2) -> float:
    """x rounded up: a stated margin is never smaller than the one applied."""
    return math.ceil(x * 10**digits - 1e-9) / 10**digits


def entropy_bits(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def setting_of(form: dict) -> Setting:
    return Setting.parse(form.get("h"), form.get("seed"), form.get("size"), form.get("scale"), form.get("tau"),
                         form.get("weights"))


def stored_setting(s: Setting) -> dict:
    return {"h": s.h, "seed": s.seed, "size": s.size, "scale": s.scale, "tau": s.tau, "weights": s.weights}


def question(form: dict) -> tuple[dict | None, str]:
    """The store's question for the form's values ({template, weights, h, seed, size, scale, tau, head (from 1),
    query, key, train_seed, timer}), with its truth; or (None, a message for the lecturer). Every value is checked
    with limits before anything is computed (checked_form)."""
    try:
        template = limits.choice(form.get("template"), tuple(TEMPLATE_TITLES), N_("the question"))
        timer = limits.choice(form.get("timer", 0), TIMERS, N_("the timer"))
        if template not in LAB:
            form = checked_form(template, form)
        q = (lab if template in LAB else example)(template, form)
    except limits.Invalid as e:
        return None, _("Check the form: {error}").format(error=e)
    except Refused as e:
        return None, with_suggestion(str(e), template, form)
    except OutOfRange as e:
        return None, str(e)
    return (None, q) if isinstance(q, str) else ({**q, "template": template, "timer": timer}, "")


class OutOfRange(Exception):
    """A head, query or key the setting does not have; str(error) says which ones it has."""


def checked_form(template: str, form: dict) -> dict:
    """The form with its setting checked (limits.Invalid) and its head, query and key as ints within the setting
    (OutOfRange): what example() and the suggestions compute with."""
    s = setting_of(form)
    checked = {**form, **stored_setting(s), "tau": s.tau}
    if template in ("sharpest", "bug"):
        return checked
    key = form.get("key") if template == "amount" else 0
    head = form.get("head") if template != "influence" else 1
    cell, message = limits.cell(head, form.get("query"), key, s.h, s.n)
    if cell is None:
        raise OutOfRange(message)
    i, r, j = cell
    return {**checked, "head": i + 1, "query": r, "key": j}


def variants(template: str, form: dict):
    """Checked forms near the refused one to try, nearest first: the same query on other heads, then other
    queries, then another temperature, other weights and h."""
    scales = dict.fromkeys(((form["scale"], form["tau"]), ("tau", -7), ("tau", -10)))  # τ = 0.2, 0.1: on the form
    for weights in dict.fromkeys((form["weights"], "trained", "random")):
        for scale, tau in scales:
            for h in dict.fromkeys((form["h"], 4, 2, 8, 1)):
                cell = template not in ("sharpest", "bug")
                queries = range(core.N_CLUSTERS * form["size"]) if cell else ()
                heads = range(1, h + 1) if cell and template != "influence" else ()
                for query in dict.fromkeys((form.get("query"), *queries)):
                    for head in dict.fromkeys((form.get("head") if form.get("head", 0) <= h else 1, *heads)):
                        yield {**form, "weights": weights, "scale": scale, "tau": tau, "h": h, "head": head,
                               "query": query}


def with_suggestion(why: str, template: str, form: dict, tries: int = 200) -> str:
    """The refusal, and the nearest setting (of at most `tries`) where the template is posed."""
    if template in LAB:  # another trained seed; lab() itself, so that a refusal never asks for more suggestions
        for seed in limits.TRAINING_SEEDS:
            if seed != form.get("train_seed") and trainer.training_runs(seed, wait=False) is not None:
                try:
                    lab(template, {**form, "train_seed": seed})
                except (Refused, limits.Invalid):
                    continue
                # Translators: a refused question, and the training seed where it would be posed
                return _("{why} It can be posed with training seed {seed}.").format(why=why, seed=seed)
        return why
    for k, other in enumerate(variants(template, form)):
        if k >= tries:
            break
        try:
            example(template, checked_form(template, other))
        except (Refused, OutOfRange, limits.Invalid):
            continue
        where = _("{weights}, h = {h}, {scale}, head {head}, query {query}") if template in ("key", "entropy") \
            else _("{weights}, h = {h}, {scale}, query {query}") if template == "influence" else \
            _("{weights}, h = {h}, {scale}")
        scale = setting_of(other)
        # Translators: the scale to choose on the form: the temperature's, with this τ
        scale = (_("the temperature scale with τ = {tau:.2g}").format(tau=scale.temperature) if scale.scale == "tau"
                 else _(SCALE_WORDS[scale.scale]))
        # Translators: a refused question, and a setting near the form's where it would be posed
        return _("{why} It can be posed with {setting}.").format(why=why, setting=where.format(
            weights=_(WEIGHT_WORDS[other["weights"]]), h=other["h"], scale=scale, head=other["head"],
            query=other["query"]))
    return why


class Refused(Exception):
    """A question with nothing to reason about; str(error) says why and what to change."""


def example(template: str, form: dict) -> dict:
    s = setting_of(form)
    ex, result = model(s)
    A, n, common = result.A, s.n, stored_setting(s)
    if template == "bug":
        return which_bug(s, form.get("bug"), common)
    if template == "sharpest":
        if s.h == 1:
            raise Refused(_("Which head is sharpest? needs h = 2, 4 or 8."))
        mean = explain.head_summaries(A, ex.cluster).entropy
        c = margins.compare(mean, margins.BITS, lower_is_better=True)
        if not c.clear:
            raise Refused(_("The sharpest head, {best}, has {bits:.3f} bits a row, and {runner} {other:.3f}: within "
                            "{margin} bits, too close to tell."
                            ).format(best=figures.head_label(c.best), bits=mean[c.best],
                                     runner=figures.head_label(c.runner_up), other=mean[c.runner_up],
                                     margin=margins.BITS))
        return {**common, "n": s.h, "truth": c.best, "accepted": [c.best], "prompt": stated(margin=margins.BITS)}
    i, r, j = form["head"] - 1, form["query"], form["key"]  # checked (checked_form)
    if template == "influence":
        return key_that_matters_most(ex, result, r, common)
    row = A[i, r]
    if template == "entropy":
        return entropy_question(result.logits[i, r], common, i, r)
    if template == "key":
        c = margins.compare(row, margins.WEIGHT)
        if not c.clear:
            raise Refused(_("In head {head}, query {query}'s largest weight is {best:.3f} (key {key}) and the next "
                            "{other:.3f} (key {runner}): within {margin}, too close to tell.").format(
                                head=i + 1, query=r, best=row[c.best], key=c.best, other=row[c.runner_up],
                                runner=c.runner_up, margin=margins.WEIGHT))
        return {**common, "head": i, "query": r, "n": n, "truth": c.best, "accepted": [c.best],
                "prompt": stated(margin=margins.WEIGHT)}
    return amount_question(row, j, common, i, r)


def entropy_question(logits: np.ndarray, common: dict, i: int, r: int) -> dict:
    """Down, stay (a change under STAY_BITS) or up when τ doubles: posed only when the change is more than
    margins.BITS / 2 from the line at STAY_BITS, so that the answer is not decided by rounding."""
    now, doubled = (entropy_bits(core.softmax(logits / k)) for k in (1, 2))
    change = doubled - now
    outside = margins.beats(abs(change), STAY_BITS, STAY_BITS / 2)
    if outside is None:
        raise Refused(_("In head {head}, query {query}'s entropy changes by {change:+.3f} bits when τ doubles: "
                        "within {margin} bits of the line at {bits} between “stays about the same” and a change, too close to tell.").format(
                            head=i + 1, query=r, change=change, margin=STAY_BITS / 2, bits=STAY_BITS))
    truth = 1 if not outside else 2 if change > 0 else 0
    return {**common, "head": i, "query": r, "n": 3, "truth": truth, "prompt": stated(bits=STAY_BITS)}


def amount_question(row: np.ndarray, j: int, common: dict, i: int, r: int) -> dict:
    """The weight as shown (3 decimals) is the truth an answer is graded against, within the tolerance."""
    tolerance = max(0.005, up(0.1 * float(np.ptp(row)), 3))
    shown = round(float(row[j]), 3)
    return {**common, "head": i, "query": r, "key": j, "truth": shown, "tolerance": tolerance,
            "lo": round(float(row.min()), 3), "hi": round(float(row.max()), 3), "prompt": stated(tolerance=tolerance)}


def key_that_matters_most(ex, result, r: int, common: dict) -> dict:
    """The layer's N_rj = ‖Σ_i A⁽ⁱ⁾_rj v_j⁽ⁱ⁾ W_O⁽ⁱ⁾‖: what key j adds to output r (explain.influence), as a share
    of the row's ΣⱼN_rj. Posed only when the largest share beats the next by more than margins.SHARE."""
    row = explain.influence(result, ex.W_O).layer[r]
    share = row / row.sum()
    c = margins.compare(share, margins.SHARE)
    if not c.clear:
        raise Refused(_("Key {key} carries {best:.0%} of what the keys add to output {output}, and key {runner} "
                        "{other:.0%}: within {margin:.0%}, too close to tell."
                        ).format(key=c.best, best=share[c.best], output=r, runner=c.runner_up,
                                 other=share[c.runner_up], margin=margins.SHARE))
    return {**common, "query": r, "n": len(row), "truth": c.best, "accepted": [c.best],
            "prompt": stated(margin=margins.SHARE)}


def which_bug(s: Setting, key, common: dict) -> dict:
    """The bug clinic's bugs as options, the lecturer's the truth; a bug that computes exactly the same layer in
    this setting counts too (checks.same_numbers: at h = 1 there are no heads to split)."""
    bug = bugs.BUGS_BY_KEY[limits.choice(key, tuple(bugs.BUGS_BY_KEY), "the bug")]
    ex = checks_example(s, causal=False)
    accepted = [k for k, other in enumerate(bugs.BUGS) if checks.same_numbers(ex, other, bug)]
    return {**common, "bug": bug.key, "n": len(bugs.BUGS), "truth": bugs.BUGS.index(bug), "accepted": accepted,
            "prompt": stated(same=len(accepted) > 1)}


def lab(template: str, form: dict) -> dict | str:
    seed = limits.training_seed(form.get("train_seed"))
    runs = trainer.training_runs(seed, wait=False)
    if runs is None:
        return _("Training seed {seed} is training: pose again in a moment.").format(seed=seed)
    common = {"seed": seed, "weights": "trained"}
    if template == "floor":
        below = margins.beats(runs[1].test_loss, training.SINGLE_MIXING_FLOOR, margins.LOSS, lower_is_better=True)
        if below is None:
            raise Refused(_("With training seed {seed}, one head ends at a test loss of {loss:.3f}: within {margin} "
                            "of the line at 3/8, too close to tell.").format(
                                seed=seed, loss=runs[1].test_loss, margin=margins.LOSS))
        return {**common, "h": 1, "n": 2, "truth": int(below), "prompt": stated()}
    h = limits.heads(form.get("h"))
    if h == 1:
        raise Refused(_("Which head? needs h = 2, 4 or 8."))
    own = learned_attention(h, seed, LAST)[1]
    c = margins.compare(own, ROLE_MARGIN)  # every head within the margin of the most own-cluster one counts
    return {**common, "h": h, "n": h, "truth": c.best, "accepted": sorted(c.close),
            "prompt": stated(margin=ROLE_MARGIN)}


# a lecture plan's entry
CELL_WORDS = {"head": N_("head {number}"), "query": N_("query {number}"), "key": N_("key {number}")}


def entry_text(entry: dict) -> str:
    """A lecture plan's question in one line, in the page's language: its kind, setting and cell."""
    kind, h, weights = entry["template"], entry.get("h"), entry.get("weights")
    template = _(TEMPLATE_TITLES[kind])
    if kind in LAB:
        return _("{question}, training seed {seed}, h = {h}").format(question=template, seed=entry.get("train_seed"),
                                                                     h=h)
    weights = _(WEIGHT_WORDS[weights]) if weights in WEIGHT_WORDS else weights  # any other is refused when posed
    cell = format_list([_(CELL_WORDS[k]).format(number=entry[k]) for k in CELL_WORDS if k in entry])
    # Translators: a lecture plan's next question: its kind, weights, h, example seed and the cell it asks about
    text = _("{question} ({weights}, h = {h}, seed {seed}; {cell})") if cell else \
        _("{question} ({weights}, h = {h}, seed {seed})")
    return text.format(question=template, weights=weights, h=h, seed=entry.get("seed"), cell=cell)
