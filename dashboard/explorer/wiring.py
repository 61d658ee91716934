"""The explorer's callbacks: its clientside ones live in window.dash_clientside.explorer (assets/explorer.js)."""

from ..wiring import Callbacks

CALLBACKS = Callbacks("explorer")
callback = CALLBACKS.callback
clientside_callback = CALLBACKS.clientside_callback
