"""Class mode's start page, /class: a box for a student's join code, "start a session" for the lecturer, and,
when this browser runs a session, the way back to it (so a second one is not started by mistake). Also the end
of a session, which comes back here."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, State, ctx, dcc, html, no_update

from ..i18n import _
from . import ids
from .lecturer import control
from .store import StoreError, schema
from .wiring import callback, clientside_callback


def layout() -> html.Div:
    join = html.Section([
        html.H3(_("Join a class"), className="h5"),
        html.P(_("Type the code on the projector."), className="mb-1"),
        html.Div([dbc.Label(_("join code"), html_for=ids.JOIN_CODE, className="visually-hidden"),
                   dbc.Input(id=ids.JOIN_CODE, placeholder="ABC234", maxLength=schema.MAX_TYPED_CODE,
                             autoComplete="off", className="join-code-input"),
                   dbc.Button(_("join"), id=ids.JOIN, color="primary", type="button")],
                  className="d-flex gap-2 align-items-center", role="search", **{"aria-label": _("join a class")}),
        html.P(id=ids.JOIN_STATUS, className="small mt-1", role="status"),
    ], className="mb-4")
    run = html.Section([
        html.H3(_("Run a class"), className="h5"),
        html.P(_("Ask the room a question about the example on the projector: every student answers on a phone or "
                 "laptop, with no name and no account; they vote, discuss with a neighbour, vote again, and then the "
                 "class's answers appear beside the truth.")),
        html.Div(id=ids.RESUME, className="mb-2"),
        dbc.Button(_("start a session"), id=ids.START, color="primary", outline=True),
        html.A(_("back to the explorer"), href="/", className="ms-3"),
        html.P(id=ids.START_STATUS, className="small mt-2", role="status"),
    ])
    return html.Div([html.H2(_("Class mode"), className="h3"), join, run,
                     dcc.Store(id=ids.RUNNING, storage_type="local")],
                    id=ids.START_SECTION, hidden=True)


@callback(Output(ids.CONTROL, "data", allow_duplicate=True), Output(ids.RUNNING, "data", allow_duplicate=True),
          Output(ids.RUNNING, "clear_data", allow_duplicate=True), Output(ids.URL, "pathname"),
          Output(ids.START_STATUS, "children"),
          Input(ids.START, "n_clicks"), Input(ids.END, "submit_n_clicks"), State(ids.PAGE, "data"),
          prevent_initial_call=True)
def start_or_end(starts, ends, page):
    """Start a session (this tab then holds its control token, and this browser remembers it), or end this
    tab's session: its token leaves this tab and this browser's localStorage (a lecture hall's shared PC)."""
    try:
        if ctx.triggered_id == ids.END:
            ids.store().end_session(*control(page))
            return None, None, True, ids.PATH, _("The session has ended: its answers are deleted.")
        code, token = ids.store().create_session(ids.address())
    except StoreError as e:
        return no_update, no_update, no_update, no_update, str(e)
    return {"code": code, "token": token}, {"code": code, "token": token}, no_update, f"{ids.PATH}/{code}", ""


@callback(Output(ids.RESUME, "children"), Output(ids.RUNNING, "clear_data", allow_duplicate=True),
          Input(ids.PAGE, "data"), State(ids.RUNNING, "data"), prevent_initial_call="initial_duplicate")
def resume(page, running):
    """On the start page, a link back to the session this browser runs, while it runs; once the store says it has
    ended (ended elsewhere, or idle), its token leaves this browser's localStorage."""
    if not (isinstance(page, dict) and page.get("mode") == "start" and isinstance(running, dict)):
        return "", no_update
    code, token = running.get("code"), running.get("token")
    try:
        if not ids.store().running(code, token):
            return "", True
    except StoreError:
        return "", no_update
    link = html.A(_("Back to session {code}").format(code=code), href=f"{ids.PATH}/{code}#control={token}",
                  className="alert-link")
    return dbc.Alert([_("This browser runs session {code}.").format(code=code), " ", link, " ",
                      # Translators: after the link back to the session this browser runs ("it")
                      _("(starting another leaves it running).")], color="info", className="py-2 mb-0"), no_update


# A typed code opens its session's page; the server checks the code when the page joins.
clientside_callback("joinByCode", Output(ids.URL, "pathname", allow_duplicate=True),
                    Output(ids.JOIN_STATUS, "children"), Input(ids.JOIN, "n_clicks"), Input(ids.JOIN_CODE, "n_submit"),
                    State(ids.JOIN_CODE, "value"), State(ids.RULES, "data"), prevent_initial_call=True)
