"""Class mode over /class/_dash-update-component, as its pages post it: for the tests and the bench.

Bodies come from the app's own callback map, so outputs with allow_duplicate carry Dash's hashes.
`post` takes a Flask test client or a base URL with a requests.Session.
"""

from __future__ import annotations

import json

from dashboard.classmode import ids, lecturer, plan, start, student

DISPATCH = "/class/_dash-update-component"  # class mode is its own Dash app, under /class/
ORIGIN = "http://127.0.0.1:8050"
FORM = {"template": "key", "weights": "trained", "h": 4, "seed": 0, "size": 4, "scale": "seed", "tau": "0",
        "head": 2, "query": 0, "key": 1, "bug": "softmax-axis", "train_seed": 0, "timer": "0"}


def unwrapped(callback):
    """The function a class-mode module names, under Dash's wrapper and the page's language (dashboard/wiring.py)."""
    return getattr(getattr(callback, "__wrapped__", None), "__wrapped__", None)


def callback_body(app, function, values: dict, changed: str | None = None) -> dict:
    """The body that runs `function`'s callback with `values` ({"id.prop": value}; missing ones are None)."""
    key, spec = next((k, v) for k, v in app.callback_map.items()
                     if unwrapped(v.get("callback")) is function)
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


def post(client, body: dict, base: str = "", **kw) -> tuple[int, dict | None]:
    """(status, the response's {id: {prop: value}} or None). `kw` go to the client (environ_base, headers)."""
    if base:
        r = client.post(base + DISPATCH, data=json.dumps(body), headers={"Content-Type": "application/json",
                                                                         **kw.get("headers", {})}, timeout=10)
        status, text = r.status_code, r.text
    else:
        r = client.post(DISPATCH, data=json.dumps(body), content_type="application/json", **kw)
        status, text = r.status_code, r.get_data(as_text=True)
    return status, json.loads(text)["response"] if status == 200 else None


class Bodies:
    """The requests of one session's pages."""

    def __init__(self, app):
        self.app = app

    def start(self):
        return callback_body(self.app, start.start_or_end, {f"{ids.START}.n_clicks": 1,
                                                             f"{ids.PAGE}.data": page("start", "")})

    def end(self, code, token):
        return callback_body(self.app, start.start_or_end, {f"{ids.END}.submit_n_clicks": 1,
                                                             f"{ids.PAGE}.data": page("lecturer", code, token)},
                             changed=f"{ids.END}.submit_n_clicks")

    def resume(self, running):
        return callback_body(self.app, start.resume, {f"{ids.PAGE}.data": page("start", ""),
                                                       f"{ids.RUNNING}.data": running})

    def open(self, code, token, origin=ORIGIN):
        return callback_body(self.app, lecturer.open_session,
                             {f"{ids.PAGE}.data": {**page("lecturer", code, token), "origin": origin}})

    def pose(self, code, token, **form):
        values = {f"{i}.value": v for i, v in zip(ids.FORM, (FORM | form).values())}
        return callback_body(self.app, lecturer.pose, {f"{ids.POSE}.n_clicks": 1,
                                                       f"{ids.PAGE}.data": page("lecturer", code, token), **values})

    def step(self, code, token, question_id, button):
        """button: ids.DISCUSS, ids.VOTE2 or ids.REVEAL."""
        return callback_body(self.app, lecturer.step, {f"{button}.n_clicks": 1,
                                                       f"{ids.PAGE}.data": page("lecturer", code, token),
                                                       f"{ids.QUESTION}.data": {"id": question_id}},
                             changed=f"{button}.n_clicks")

    def reveal(self, code, token, question_id):
        return self.step(code, token, question_id, ids.REVEAL)

    def count(self, code, token, question_id, polls=1):
        return callback_body(self.app, lecturer.live_count, {f"{ids.POLL}.n_intervals": polls,
                                                             f"{ids.PAGE}.data": page("lecturer", code, token),
                                                             f"{ids.QUESTION}.data": {"id": question_id}})

    def export(self, code, token):
        return callback_body(self.app, plan.export, {f"{ids.EXPORT}.n_clicks": 1,
                                                     f"{ids.PAGE}.data": page("lecturer", code, token)})

    def save_plan(self, code, token):
        return callback_body(self.app, plan.save_plan, {f"{ids.SAVE_PLAN}.n_clicks": 1,
                                                        f"{ids.PAGE}.data": page("lecturer", code, token)})

    def load_plan(self, contents):
        return callback_body(self.app, plan.load_plan, {f"{ids.LOAD_PLAN}.contents": contents})

    def pose_next(self, code, token, plan_data):
        return callback_body(self.app, plan.pose_next, {f"{ids.PLAN_NEXT}.n_clicks": 1,
                                                        f"{ids.PAGE}.data": page("lecturer", code, token),
                                                        f"{ids.PLAN}.data": plan_data})

    def join(self, code, stored=None, again=None, polls=None):
        """The page's join: on opening (polls None), or at a poll after the store asked it to wait (again)."""
        return callback_body(self.app, student.join, {f"{ids.PAGE}.data": page("student", code),
                                                      f"{ids.S_POLL}.n_intervals": polls,
                                                      f"{ids.STUDENT_ID}.data": stored,
                                                      f"{ids.S_JOIN_AGAIN}.data": again},
                             changed=None if polls is None else f"{ids.S_POLL}.n_intervals")

    def roster(self, code, token, size=None, toggle=False):
        """The lecturer's class size box (size) or the open/close joining button (toggle)."""
        changed = f"{ids.JOINING}.n_clicks" if toggle else f"{ids.CLASS_SIZE}.value"
        return callback_body(self.app, lecturer.roster, {f"{ids.PAGE}.data": page("lecturer", code, token),
                                                         f"{ids.CLASS_SIZE}.value": size,
                                                         f"{ids.JOINING}.n_clicks": 1 if toggle else None},
                             changed=changed)

    def poll(self, code, student_id, seen=None, polls=1):
        return callback_body(self.app, student.poll, {f"{ids.S_POLL}.n_intervals": polls,
                                                      f"{ids.STUDENT_ID}.data": {"code": code, "id": student_id},
                                                      f"{ids.PAGE}.data": page("student", code),
                                                      f"{ids.SEEN}.data": seen})

    def answer(self, code, student_id, question_id, value, slider=False):
        return callback_body(self.app, student.answer, {
            f"{ids.CHOICES}.value": None if slider else value, f"{ids.SEND}.n_clicks": 1 if slider else None,
            f"{ids.SLIDER}.value": value if slider else 0.5, f"{ids.ASKED}.data": {"id": question_id},
            f"{ids.STUDENT_ID}.data": {"code": code, "id": student_id}, f"{ids.PAGE}.data": page("student", code)},
            changed=f"{ids.SEND if slider else ids.CHOICES}.{'n_clicks' if slider else 'value'}")


def joined(client, bodies: Bodies, code: str, base: str = "", **kw) -> str:
    """A new student of the session: the id the server issued on joining."""
    status, out = post(client, bodies.join(code), base, **kw)
    assert status == 200, status
    return out[ids.STUDENT_ID]["data"]["id"]
