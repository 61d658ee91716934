"""The keys' buttons (explorer/presenter.py) and the learning lab's play button, on the server: the rules that
moved out of the browser, checked as Dash calls them. tests/test_keys.py presses the keys in a real browser."""

import pytest
from dash import no_update
from dash.exceptions import PreventUpdate

from dashboard import limits
from dashboard.explorer import learning, presenter
from tests.util import fire

LAST = limits.TRAINING_STEPS[-1]
EVERY = limits.TRAINING_STEPS.step


@pytest.mark.parametrize("head, h, by, after", [
    (1, 4, 1, 2), (4, 4, 1, 1), (1, 4, -1, 4), (3, 8, -1, 2), (1, 1, 1, 1),
    (7, 4, 1, 2),  # a head h no longer has starts from head 1
    (None, 2, 1, 2), ("all", 4, -1, 4)])
def test_arrows_step_through_the_heads_round_the_ends(head, h, by, after):
    assert presenter.next_head(head, h, by) == after


@pytest.mark.parametrize("step, by, after", [
    (100, 1, 100 + EVERY), (LAST, 1, LAST), (0, -1, 0), (EVERY, -1, 0),
    (None, -1, LAST - EVERY), (7, 1, LAST)])  # a step the slider has not: from the last
def test_arrows_step_through_the_training_steps_within_the_slider(step, by, after):
    assert presenter.next_step(step, by) == after


def press(button, h=4, head=1, tab="example", step=LAST, hidden=True):
    return fire(presenter.shortcut, changed=[f"{button}.n_clicks"], presses=[1] * 6, h=h, head=head, tab=tab,
                step=step, hidden=hidden)


def changed(out):
    return {name: value for name, value in out.items() if value is not no_update}


@pytest.mark.parametrize("button, h", [("key-h1", 1), ("key-h2", 2), ("key-h4", 4), ("key-h8", 8)])
def test_a_number_key_chooses_h(button, h):
    assert changed(press(button, h=2 if h != 2 else 4)) == {"h": h}


def test_arrows_move_the_head_or_on_the_learning_tab_the_step():
    assert changed(press("key-next", h=4, head=4)) == {"head": 1}
    assert changed(press("key-previous", h=8, head=1)) == {"head": 8}
    assert changed(press("key-next", tab="learning", step=100)) == {"step": 100 + EVERY}
    assert changed(press("key-previous", tab="learning", step=0)) == {"step": 0}


def test_question_mark_and_the_button_show_and_hide_the_list():
    assert changed(press("key-help", hidden=True)) == {"hidden": False}
    assert changed(press("key-list", hidden=False)) == {"hidden": True}


@pytest.mark.parametrize("h", [3, "4", None, 10**30])
def test_a_forged_h_moves_no_head(h):
    with pytest.raises(PreventUpdate):
        press("key-next", h=h)


def play(button, step, paused):
    fired = learning.LEARN_PLAY if button == "play" else learning.LEARN_TIMER
    prop = "n_clicks" if button == "play" else "n_intervals"
    return changed(fire(learning.play, changed=[f"{fired}.{prop}"], clicks=1, ticks=1, step=step, paused=paused))


def test_play_steps_one_snapshot_a_tick_and_stops_at_the_last():
    assert play("play", 100, True) == {"paused": False, "label": "pause"}
    assert play("play", LAST, True) == {"step": 0, "paused": False, "label": "pause"}
    assert play("play", 100, False) == {"paused": True, "label": "play"}
    assert play("tick", 100, False) == {"step": 100 + EVERY}
    assert play("tick", LAST - EVERY, False) == {"step": LAST, "paused": True, "label": "play"}
    with pytest.raises(PreventUpdate):
        play("tick", 7, False)  # no step of the slider's
