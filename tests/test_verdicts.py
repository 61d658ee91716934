"""Issue 36: no claim stronger than its numbers. The margin rule, class questions posed only when decided."""

import numpy as np
import pytest

from dashboard import margins, questions
from dashboard.classmode import results


def test_compare_names_a_winner_only_past_its_margin():
    c = margins.compare([2.742, 2.791, 3.0], margins.BITS, lower_is_better=True)  # issue 36's trained h = 8 heads
    assert (c.best, c.runner_up, c.clear, c.winner, c.close) == (0, 1, False, None, (0, 1))
    c = margins.compare([0.1, 0.3, 0.25], 0.02)
    assert (c.best, c.runner_up, c.winner) == (1, 2, 1) and c.gap == pytest.approx(0.05)
    assert margins.beats(0.352, 0.375, margins.LOSS, lower_is_better=True) is True
    assert margins.beats(0.379, 0.375, margins.LOSS, lower_is_better=True) is None
    assert margins.beats(0.55, 0.375, margins.LOSS, lower_is_better=True) is False



def test_rank_range_ranks_a_value_only_past_the_margin():
    """The influence table's ranks use the same rule: another key ranks above (below) this one only when it beats
    it (is beaten) by more than the margin; the ones between leave the rank open."""
    x = [0.30, 0.29, 0.20, 0.05, 0.01]
    assert margins.rank_range(x, 0, 0.02) == (1, 2)  # 0.29 is within 0.02 of 0.30
    assert margins.rank_range(x, 2, 0.02) == (3, 3)
    assert margins.rank_range(x, 3, 0.05) == (4, 5)  # three beat 0.05 by more than 0.05; 0.01 is 0.04 below
    assert margins.rank_range(x, 1, 0) == (2, 2) and margins.rank_range([0.5, 0.5], 1, 0) == (1, 2)
    with pytest.raises(ValueError):
        margins.rank_range(x, 0, -0.1)

def form(**kw):
    return dict(dict(weights="random", h=4, seed=0, size=4, scale="seed", tau=0, head=1, query=5, key=3), **kw)


@pytest.mark.parametrize("weights, h", [("random", 4), ("trained", 8), ("trained", 4)])
def test_sharpest_is_refused_within_the_margin_with_a_setting_where_it_is_posed(weights, h):
    q, message = questions.question(form(template="sharpest", weights=weights, h=h))
    assert q is None and "too close to tell" in message and "It can be posed with" in message


def test_sharpest_posed_has_one_clear_winner():
    q, _ = questions.question(form(template="sharpest", weights="trained", h=8, scale="tau", tau=-5))
    assert q is not None and q["accepted"] == [q["truth"]]


@pytest.mark.parametrize("query", range(12))
def test_entropy_question_is_decided_by_more_than_its_margin(query):
    q, message = questions.question(form(template="entropy", query=query))
    if q is None:
        assert "too close to tell" in message
    else:
        from dashboard.state import model
        logits = model(questions.setting_of(form())).result.logits[0, query]
        p = [np.exp(logits / k - (logits / k).max()) for k in (1, 2)]
        change = np.subtract(*[questions.entropy_bits(x / x.sum()) for x in p[::-1]])
        assert abs(abs(change) - questions.STAY_BITS) > questions.STAY_BITS / 2
        assert q["truth"] == (1 if abs(change) < questions.STAY_BITS else 2 if change > 0 else 0)


def test_amount_is_graded_against_the_truth_as_shown_and_the_reveal_marks_exactly_the_accepted_bin():
    q, _ = questions.question(form(template="amount"))
    assert q["truth"] == round(q["truth"], 3)
    q = dict(truth=0.230, tolerance=0.025, lo=0.01, hi=0.3, votes=[dict(values=[0.204, 0.205, 0.255, 0.256, 0.0])])
    labels, counts, marked = results.amount_rows(q)
    assert counts[0][marked.index(True)] == 2 and sum(marked) == 1  # 0.205 and 0.255, not 0.204 or 0.256
    assert labels[marked.index(True)] == "0.205–0.255"
    edges, _k = results.amount_edges(q)
    assert edges[0] >= 0 and edges[-1] <= 1 and not labels[0].startswith("under")  # no negative weights


def row_entropy(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(A > 0, A * np.log2(A), 0.0).sum(-1)


@pytest.mark.parametrize("scale, tau", [("seed", 0), ("none", 0), ("tau", -10), ("tau", -5), ("tau", 10)])
@pytest.mark.parametrize("h", [1, 2, 4, 8])
def test_each_scale_bug_keeps_tau_and_its_text_holds_for_every_scale(scale, tau, h):
    """Issue 36, finding 9: 'no 1/√d_k' is sharper (never flatter) unless d_k = 1 or there is no scaling, when it
    changes nothing; '1/√d' is flatter unless h = 1 or no scaling. Both keep τ."""
    from dashboard import bugs, checks
    from dashboard.state import Setting, checks_example

    for causal in (False, True):
        ex = checks_example(Setting(h, 0, 4, scale, tau), causal)
        right = checks.run(ex, None)
        for key, sign, same in (("no-scale", -1, h == 8 or scale == "none"), ("scale-d", 1, h == 1 or scale == "none")):
            wrong = checks.run(ex, bugs.BUGS_BY_KEY[key])
            if same:
                assert np.allclose(wrong.A, right.A, atol=1e-12)
            else:
                assert (sign * (row_entropy(wrong.A) - row_entropy(right.A)) >= -1e-9).all()
                assert wrong.scale * right.scale > 0 and not np.isclose(wrong.scale, right.scale)
                ratio = (8 / h) ** 0.5 if key == "no-scale" else h ** -0.5  # √d_k too large, or √h too small
                assert wrong.scale == pytest.approx(right.scale * ratio)


def test_training_check_cannot_tell_where_the_correct_layer_cannot_learn():
    """Finding 8: the correct causal layer (0.55-0.57) and one head (0.356) cannot judge a bug; h = 4 can."""
    from dashboard import checks

    assert not checks.can_learn(0.573) and not checks.can_learn(0.356) and checks.can_learn(0.0096)
    losses = {(None, True): 0.573, ("mask-after", True): 0.455}
    from dashboard import bugs
    correct = checks.check_learns(None, 4, True, losses)
    assert not correct.passed and checks.catches(correct, checks.check_learns(bugs.BUGS_BY_KEY["mask-after"], 4, True,
                                                                             losses)) is None


def test_the_three_measures_are_compared_with_each_other():
    """Finding 7: a rank-agreement table of N, leave one out and gradient × input, with the key each names."""
    from dashboard import explain
    from dashboard.explorer import influence_tables
    from dashboard.state import Setting, model

    ex, result = model(Setting(2, 0, 4, "seed", 0, "trained"))
    q = explain.query_ranking(result, explain.influence(result, ex.W_O), 1, 5)
    a = explain.agreement(q)
    values = q.values[[3, 4, 5]]
    assert np.allclose(np.diag(a.rho), 1) and a.rho[0, 1] == pytest.approx(explain.spearman(values[0], values[1]))
    assert list(a.top) == [int(np.argmax(v)) for v in values]
    table = influence_tables.agreement_table(q)
    assert "not one truth" in table.children[0].children
    assert "Σⱼ N⁽ⁱ⁾_rj, is an upper bound" in influence_tables.head_effect_intro()


def test_a_mystery_gives_no_bug_away():
    """Finding 11: with the causal switch off no mystery needs a mask (every layer stays square-shaped), and the
    mystery headline carries no gap that could identify the bug."""
    from dashboard import bugs

    assert all(not bugs.mystery(k).causal for k in range(1, 1000))
    assert {bugs.mystery(k, causal=True).key for k in range(1, 1000)} == set(bugs.BUGS_BY_KEY)
    import re

    from dashboard.explorer import clinic_text
    from dashboard.state import Setting
    for causal in (False, True):
        words = clinic_text.mystery_headline(Setting(4, 0), causal)
        assert re.findall(r"\d+", words) == ["4", "0", "12"] and ("causal" in words) == causal


def test_tau_reads_the_same_on_the_form_in_a_refusal_and_in_the_students_question():
    """τ = 10^(-7/10) = 0.1995… is 0.2 wherever class mode shows it (the phones read 0.199526 while the form
    said 0.2)."""
    from dashboard.classmode import form as class_form
    from dashboard.classmode import ids

    entry = {"template": "entropy", "weights": "trained", "h": 2, "seed": 0, "size": 4, "scale": "tau", "tau": -7,
             "head": 2, "query": 0, "key": 0, "bug": "kq", "train_seed": 0, "timer": 0}
    q, message = questions.question(entry)
    assert q is not None, message
    text = questions.prompt_text({**q, "head_index": q.get("head"), "query_index": q.get("query"),
                                  "key_index": q.get("key")})
    assert "τ = 0.2)" in text and "0.19" not in text
    def components(c):
        yield c
        for child in (c if isinstance(c, list) else [getattr(c, "children", None)]):
            if child is not None and not isinstance(child, str):
                yield from components(child)

    select = next(c for c in components(class_form.question_form()) if getattr(c, "id", None) == ids.TAU)
    labels = [o["label"] for o in select.options]
    assert labels == ["τ = 0.1", "τ = 0.2", "τ = 0.5", "τ = 1", "τ = 2", "τ = 5", "τ = 10"]
    _, refused = questions.question({**entry, "head": 1, "scale": "tau", "tau": -7})  # the other head: too close
    assert refused.endswith("It can be posed with trained weights, h = 2, the temperature scale with τ = 0.2, "
                            "head 2, query 0.")
