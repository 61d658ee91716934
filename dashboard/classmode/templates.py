"""Class-mode questions with their truth from the core: the form's values in, the store's question out.

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

from .. import attention as core
from .. import bugs, checks, explain, figures, limits, trainer, training
from ..i18n import N_, _
from ..state import Setting, checks_example, learned_attention, model

# Translators: the kinds of question; a key and a head are attention's (a token attended to, an attention head)
TEMPLATES = {"key": N_("Which key?"), "amount": N_("How much?"), "sharpest": N_("Which head is sharpest?"),
             "entropy": N_("If τ doubles: entropy?"), "influence": N_("Which key matters most?"),
             "bug": N_("Which bug?"), "role": N_("Which head? (learning lab)"),
             "floor": N_("Below the line? (learning lab)")}
LAB = ("role", "floor")
TIMERS = {0: N_("no timer"), 30: N_("30 s"), 60: N_("1 min"), 90: N_("1 min 30"), 120: N_("2 min"),
          180: N_("3 min")}
# Translators: the entropy question's options: the entropy of a row goes down, stays or goes up
DIRECTIONS = (N_("down"), N_("stay"), N_("up"))
FLAT = 0.05  # a row whose weights differ by less has nothing to predict
STAY_BITS = 0.05  # the entropy question: a change smaller than this "stays"
ROLE_MARGIN = 0.05  # the role question: own-cluster mass within this of the largest counts
LAST = len(limits.TRAINING_STEPS) - 1
# What a student reads, in the viewer's language (prompt_text): a template's sentence, with the setting from the
# question's columns and the numbers the question states, which the store keeps in its prompt column (as JSON).
PROMPTS = {
    # Translators: {setting} is the weights, h and the scale, as "trained weights, h = 4, the seed's scale"
    "sharpest": N_("Which head is sharpest: whose rows have the lowest mean entropy? ({setting}.) Every head within "
                   "{margin:.2f} bits of the sharpest counts."),
    # Translators: query and key are attention's tokens; {setting} as "trained weights, h = 4, τ = 2"
    "entropy": N_("In head {head} ({setting}): if τ doubles (the logits are divided by twice as much), does the "
                  "entropy of query {query}'s row go down, stay (a change under {bits} bits) or go up?"),
    "key": N_("In head {head} ({setting}): which key will query {query} attend to most? Any key within {margin:.2f} "
              "of the largest weight counts."),
    "amount": N_("In head {head} ({setting}): how large is {label}[{query}, {key}], the weight query {query} gives "
                 "key {key}? (0 to 1; within ±{tolerance:g} counts.)"),
    "influence": N_("Output {query} of the layer ({setting}): which key adds most to it, through every head, its "
                    "weight times its value through W_O? Any key within {margin:.0%} of the largest counts."),
    "bug": N_("A student's layer ({setting}) has one of the bug clinic's bugs. Which one? Its attention and the "
              "checks it fails are beside this."),
    "bug-same": N_("A student's layer ({setting}) has one of the bug clinic's bugs. Which one? Its attention and the "
                   "checks it fails are beside this. Any bug that computes exactly the same numbers here counts."),
    "floor": N_("Training one head (h = 1): will its test loss get below the dashed line at 3/8? That is the loss "
                "of the best fixed mixing, one matrix for every input; a trained head's attention changes with the "
                "input."),
    "role": N_("After training with h = {h} heads: which head carries the own-cluster mixing (puts most attention on "
               "the query's own cluster)? Every head within {margin} of the largest own-cluster mass counts: which "
               "head takes which role differs from run to run."),
}
WEIGHTS = {"trained": N_("trained weights"), "random": N_("random weights")}
SCALES = {"seed": N_("the seed's scale"), "none": N_("no scaling")}


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
        tau = f"τ = {s.temperature:g}" if s.scale == "tau" else _(SCALES[s.scale])
        words["setting"] = f"{_(WEIGHTS[s.weights])}, h = {s.h}, {tau}"
    return _(PROMPTS[template]).format(h=q["h"], query=q.get("query_index"), key=q.get("key_index"), **words)


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
    query, key, train_seed, timer}), with its truth; or (None, a message for the lecturer)."""
    try:
        template = limits.choice(form.get("template"), tuple(TEMPLATES), N_("the question"))
        timer = limits.choice(form.get("timer", 0), tuple(TIMERS), N_("the timer"))
        q = (lab if template in LAB else example)(template, form)
    except limits.Invalid as e:
        return None, _("Check the form: {error}").format(error=e)
    except Refused as e:
        return None, str(e)
    return (None, q) if isinstance(q, str) else ({**q, "template": template, "timer": timer}, "")


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
        margin = up(max(0.02, 0.1 * float(np.ptp(mean))))
        accepted = [i for i in range(s.h) if mean[i] <= mean.min() + margin]
        if len(accepted) == s.h:
            raise Refused(_("Every head's rows have a mean entropy within {margin:.2f} bits of the others: nothing "
                            "to tell apart. Try trained weights, another h or a smaller τ.").format(margin=margin))
        return {**common, "n": s.h, "truth": int(mean.argmin()), "accepted": accepted, "prompt": stated(margin=margin)}
    cell, message = limits.cell(form.get("head"), form.get("query"), form.get("key") if template == "amount" else 0,
                                s.h, n)
    if cell is None:
        raise Refused(message)
    i, r, j = cell
    if template == "influence":
        return key_that_matters_most(ex, result, r, common)
    row = A[i, r]
    spread = float(np.ptp(row))
    if template == "entropy":
        now, doubled = (entropy_bits(core.softmax(result.logits[i, r] / k)) for k in (1, 2))
        change = doubled - now
        truth = 1 if abs(change) < STAY_BITS else 2 if change > 0 else 0
        return {**common, "head": i, "query": r, "n": 3, "truth": truth, "prompt": stated(bits=STAY_BITS)}
    if template == "key":
        if spread < FLAT:
            raise Refused(_("In head {head}, query {query}'s weights differ by at most {spread:.3f}: every key is "
                            "about as likely. Try trained weights, a smaller τ, or another head or query.").format(
                                head=i + 1, query=r, spread=spread))
        margin = up(max(0.01, 0.15 * spread))
        accepted = [k for k in range(n) if row[k] >= row.max() - margin]
        return {**common, "head": i, "query": r, "n": n, "truth": int(row.argmax()), "accepted": accepted,
                "prompt": stated(margin=margin)}
    tolerance = max(0.005, up(0.1 * spread, 3))
    return {**common, "head": i, "query": r, "key": j, "truth": float(row[j]), "tolerance": tolerance,
            "lo": float(row.min()), "hi": float(row.max()), "prompt": stated(tolerance=tolerance)}


def key_that_matters_most(ex, result, r: int, common: dict) -> dict:
    """The layer's N_rj = ‖Σ_i A⁽ⁱ⁾_rj v_j⁽ⁱ⁾ W_O⁽ⁱ⁾‖: what key j adds to output r (explain.influence). Keys within
    explain.QUESTION_MARGIN of the largest count; a row where every key is, is refused."""
    asked = explain.key_that_matters_most(explain.influence(result, ex.W_O), r)
    row = asked.influence
    accepted = [k for k in range(len(row)) if row[k] >= (1 - explain.QUESTION_MARGIN) * row[asked.answer]]
    if len(accepted) == len(row):
        raise Refused(_("Every key adds about as much to output {output}: nothing to tell apart. Try trained "
                        "weights, a smaller τ or another query.").format(output=r))
    return {**common, "query": r, "n": len(row), "truth": asked.answer, "accepted": accepted,
            "prompt": stated(margin=explain.QUESTION_MARGIN)}


def which_bug(s: Setting, key, common: dict) -> dict:
    """The bug clinic's bugs as options, the lecturer's the truth; a bug that computes exactly the same layer in
    this setting counts too (checks.same_numbers: at h = 1 there are no heads to split)."""
    bug = bugs.BY_KEY[limits.choice(key, tuple(bugs.BY_KEY), "the bug")]
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
        return {**common, "h": 1, "n": 2, "truth": int(runs[1].test_loss < training.SINGLE_MIXING_FLOOR),
                "prompt": stated()}
    h = limits.heads(form.get("h"))
    if h == 1:
        raise Refused(_("Which head? needs h = 2, 4 or 8."))
    own = learned_attention(h, seed, LAST)[1]
    accepted = [i for i in range(h) if own[i] >= own.max() - ROLE_MARGIN]
    return {**common, "h": h, "n": h, "truth": int(own.argmax()), "accepted": accepted,
            "prompt": stated(margin=ROLE_MARGIN)}


def form_of(q: dict) -> dict:
    """The form's values that pose a stored question again (a lecture plan's entry)."""
    entry = {"template": q["template"], "timer": q["timer"]}
    if q["template"] in LAB:
        return {**entry, "train_seed": q["seed"], "h": q["h"]}
    entry.update({k: q[k] for k in ("weights", "h", "seed", "size", "scale", "tau")})
    if q.get("bug"):
        entry["bug"] = q["bug"]
    for name in ("head", "query", "key"):
        index = q.get(f"{name}_index")
        if index is not None:
            entry[name] = index + 1 if name == "head" else index
    return entry
