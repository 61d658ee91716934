"""Class mode's callbacks: its clientside ones live in window.dash_clientside.classmode (assets/classmode.js)."""

from ..wiring import Callbacks

CALLBACKS = Callbacks("classmode")
callback = CALLBACKS.callback
clientside_callback = CALLBACKS.clientside_callback
