"""Dash's `callback` and `clientside_callback`, recorded per app, so that every app built wires the same ones.

`dash.callback` hands its callbacks to the first app that starts and to no other, while tests build several
apps in one process, and the explorer and class mode are two apps on one server. Each package records its own
(`explorer/wiring.py`, `classmode/wiring.py`), keeping the decorator beside its function as in Dash's docs;
`wire(app)` registers them on an app.

Every server callback also reads its page's language (the store `LANGUAGE`, which each app's layout holds) and
runs in it (dashboard/i18n.py): a page answers in the language it was built in, whatever other pages ask for.
"""

from __future__ import annotations

import functools

from dash import ClientsideFunction, State, dcc
from dash.exceptions import PreventUpdate

from . import i18n
from .limits import Invalid

LANGUAGE = "page-language"


def language_store(lang: str) -> dcc.Store:
    """The page's language, for its callbacks (one of i18n.LANGUAGES)."""
    return dcc.Store(id=LANGUAGE, data=lang)


class Callbacks:
    """The callbacks of one app; its clientside ones live in window.dash_clientside[namespace]."""

    def __init__(self, namespace: str):
        self.namespace = namespace
        self.server: list[tuple[tuple, dict, object]] = []
        self.client: list[tuple[str, tuple, dict]] = []

    def callback(self, *dependencies, **kwargs):
        """Wire the function to `dependencies` (Outputs, Inputs, States), or to Dash's flexible signature
        (`output=…, inputs=dict(…)`, values handed over by name).
        A value no control can send (limits.Invalid) gives no update: the page keeps what it shows.
        The function runs in the page's language, which Dash passes as well and the function never sees."""
        named = isinstance(kwargs.get("inputs"), dict)
        if named:
            kwargs["state"] = {**kwargs.get("state", {}), "page_language": State(LANGUAGE, "data")}
        else:
            dependencies += (State(LANGUAGE, "data"),)

        def record(function):
            @functools.wraps(function)
            def checked(*args, **kw):
                try:
                    return function(*args, **kw)
                except Invalid:
                    raise PreventUpdate from None

            @functools.wraps(checked)  # its __wrapped__ is the function the module names
            def in_page_language(*args, **kw):
                if named:
                    lang = kw.pop("page_language")
                else:
                    *args, lang = args
                with i18n.use(i18n.parse(lang) or i18n.DEFAULT):
                    return checked(*args, **kw)
            self.server.append((dependencies, kwargs, in_page_language))
            return checked
        return record

    def clientside_callback(self, function_name: str, *dependencies, **kwargs) -> None:
        """A callback that runs in the browser: window.dash_clientside[namespace][function_name]."""
        self.client.append((function_name, dependencies, kwargs))

    def wire(self, app) -> None:
        for dependencies, kwargs, function in self.server:
            app.callback(*dependencies, **kwargs)(function)
        for name, dependencies, kwargs in self.client:
            app.clientside_callback(ClientsideFunction(self.namespace, name), *dependencies, **kwargs)
