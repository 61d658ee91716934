"""The learning lab's play button, on the server, checked as Dash calls it. The keys' buttons change h, the head
and the step in the browser (rules.js keyChange, tests/node/rules.test.js); tests/test_keys.py presses the keys in
a real browser."""

import pytest
from dash import no_update
from dash.exceptions import PreventUpdate

from dashboard import limits
from dashboard.explorer import learning
from tests.util import fire

LAST = limits.SNAPSHOT_STEPS[-1]
EVERY = limits.SNAPSHOT_STEPS.step


def changed(out):
    return {name: value for name, value in out.items() if value is not no_update}


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
