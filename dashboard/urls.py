"""The URL schema: which state a link holds (?h=4&seed=0&tab=…) and the rule the browser reads each piece by.

assets/rules.js reads and writes these parameters (readParam, writeParam); a missing or bad one means the
default. The server checks every value again where it enters a callback (limits.py).
"""

from __future__ import annotations


def url_param(key: str, component_id: str, default, *, choices=None, count: int | None = None,
              order: int | None = None, items: int | None = None, flag: bool = False, tab: str | None = None,
              when: tuple[str, object] | None = None, prop: str = "value") -> dict:
    """One piece of state the URL holds (?key=value) and its rule: one of `choices`, an integer 0..count-1,
    an order of at most `order` tokens (commas in the URL; a bad one is never written and reads as the
    default), a list of at most `items` integers (commas in the URL), or a flag ('1'). With `tab`, the URL
    holds it only while that tab is shown; with `when` = (key, value), only while parameter `key` has that
    value (or one of a list of values). `prop` is the component's property that holds it (a dcc.Store's "data")."""
    rules = {"choices": None if choices is None else list(choices), "count": count, "order": order,
             "items": items, "flag": flag or None}
    given = {name: value for name, value in rules.items() if value is not None}
    assert len(given) == 1, "a url_param takes one rule"
    return {"key": key, "id": component_id, "default": default, "rule": given, "tab": tab, "when": when, "prop": prop}
