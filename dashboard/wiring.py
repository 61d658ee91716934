"""Dash's `callback` and `clientside_callback`, recorded so that every app wires the same callbacks.

`dash.callback` hands its callbacks to the first app that starts and to no other, while tests build
several apps in one process. These keep the decorator beside its function, as in Dash's docs,
and `wire(app)` registers everything on each app.
"""

from __future__ import annotations

from dash import ClientsideFunction

_SERVER: list[tuple[tuple, dict, object]] = []
_CLIENT: list[tuple[str, tuple, dict]] = []
NAMESPACE = "explorer"  # window.dash_clientside.explorer, in assets/clientside.js


def callback(*dependencies, **kwargs):
    """Wire the function to `dependencies` (Outputs, Inputs, States), and return it unchanged."""
    def record(function):
        _SERVER.append((dependencies, kwargs, function))
        return function
    return record


def clientside_callback(function_name: str, *dependencies, **kwargs) -> None:
    """A callback that runs in the browser: explorer.<function_name> in assets/clientside.js."""
    _CLIENT.append((function_name, dependencies, kwargs))


def wire(app) -> None:
    for dependencies, kwargs, function in _SERVER:
        app.callback(*dependencies, **kwargs)(function)
    for name, dependencies, kwargs in _CLIENT:
        app.clientside_callback(ClientsideFunction(NAMESPACE, name), *dependencies, **kwargs)
