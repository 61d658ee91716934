"""Class mode over /class/_dash-update-component, as its pages post it: for the tests and the bench.

Bodies come from the app's own callback map, so outputs with allow_duplicate carry Dash's hashes.
`post` takes a Flask test client or a base URL with a requests.Session.
"""

from __future__ import annotations

import json

from dashboard.classmode import lecturer, student

DISPATCH = "/class/_dash-update-component"  # class mode is its own Dash app, under /class/
ORIGIN = "http://127.0.0.1:8050"


def callback_body(app, function, values: dict, changed: str | None = None) -> dict:
    """The body that runs `function`'s callback with `values` ({"id.prop": value}; missing ones are None)."""
    key, spec = next((k, v) for k, v in app.callback_map.items()
                     if getattr(v.get("callback"), "__wrapped__", None) is function)
    multi = key.startswith("..")
    outputs = [dict(zip(("id", "property"), name.split(".", 1))) for name in key.strip(".").split("...")]

    def ports(dependencies):
        return [{"id": d["id"], "property": d["property"], "value": values.get(f"{d['id']}.{d['property']}")}
                for d in dependencies]

    inputs = ports(spec["inputs"])
    return {"output": key, "outputs": outputs if multi else outputs[0], "inputs": inputs,
            "state": ports(spec["state"]), "changedPropIds": [changed or f"{inputs[0]['id']}.{inputs[0]['property']}"]}


def page(mode: str, code, token=None) -> dict:
    """What the browser's classPage puts in the PAGE store."""
    return {"mode": mode, "code": code, "token": token, "origin": ORIGIN}


def post(client, body: dict, base: str = "") -> tuple[int, dict | None]:
    """(status, the response's {id: {prop: value}} or None)."""
    if base:
        r = client.post(base + DISPATCH, data=json.dumps(body), headers={"Content-Type": "application/json"},
                        timeout=10)
        status, text = r.status_code, r.text
    else:
        r = client.post(DISPATCH, data=json.dumps(body), content_type="application/json")
        status, text = r.status_code, r.get_data(as_text=True)
    return status, json.loads(text)["response"] if status == 200 else None


class Bodies:
    """The requests of one session's pages."""

    def __init__(self, app):
        self.app = app

    def start(self):
        return callback_body(self.app, lecturer.start_or_end, {f"{lecturer.START}.n_clicks": 1,
                                                                f"{lecturer.PAGE}.data": page("start", "")})

    def end(self, code, token):
        return callback_body(self.app, lecturer.start_or_end, {f"{lecturer.END}.submit_n_clicks": 1,
                                                                f"{lecturer.PAGE}.data": page("lecturer", code, token)},
                             changed=f"{lecturer.END}.submit_n_clicks")

    def open(self, code, token):
        return callback_body(self.app, lecturer.open_session, {f"{lecturer.PAGE}.data": page("lecturer", code, token)})

    def pose(self, code, token, kind="key", h=4, seed=0, head=1, query=0, key=1, train_seed=0):
        c = lecturer
        return callback_body(self.app, c.pose, {
            f"{c.POSE}.n_clicks": 1, f"{c.PAGE}.data": page("lecturer", code, token), f"{c.KIND}.value": kind,
            f"{c.HEADS}.value": h, f"{c.SEED}.value": seed, f"{c.HEAD}.value": head, f"{c.QUERY}.value": query,
            f"{c.KEY}.value": key, f"{c.TRAIN_SEED}.value": train_seed})

    def count(self, code, question_id, polls=1):
        c = lecturer
        return callback_body(self.app, c.live_count, {f"{c.POLL}.n_intervals": polls,
                                                      f"{c.PAGE}.data": page("lecturer", code, "unused"),
                                                      f"{c.QUESTION}.data": {"id": question_id}})

    def reveal(self, code, token, question_id):
        c = lecturer
        return callback_body(self.app, c.reveal, {f"{c.REVEAL}.n_clicks": 1, f"{c.PAGE}.data": page("lecturer", code, token),
                                                  f"{c.QUESTION}.data": {"id": question_id}})

    def export(self, code, token):
        c = lecturer
        return callback_body(self.app, c.export, {f"{c.EXPORT}.n_clicks": 1,
                                                  f"{c.PAGE}.data": page("lecturer", code, token)})

    def poll(self, code, student_id, seen=None, polls=1):
        s = student
        return callback_body(self.app, s.poll, {f"{s.S_POLL}.n_intervals": polls, f"{s.STUDENT_ID}.data": student_id,
                                                f"{lecturer.PAGE}.data": page("student", code), f"{s.SEEN}.data": seen})

    def answer(self, code, student_id, question_id, value, slider=False):
        s = student
        return callback_body(self.app, s.answer, {
            f"{s.CHOICES}.value": None if slider else value, f"{s.SEND}.n_clicks": 1 if slider else None,
            f"{s.SLIDER}.value": value if slider else 0.5, f"{s.ASKED}.data": {"id": question_id},
            f"{s.STUDENT_ID}.data": student_id, f"{lecturer.PAGE}.data": page("student", code)},
            changed=f"{s.SEND if slider else s.CHOICES}.{'n_clicks' if slider else 'value'}")
