"""What class mode refuses, with a message fit to show the user (the views show str(error)),
and its rate limiter, whose refusal is one of these errors."""

from __future__ import annotations

from ... import ratelimit


class StoreError(Exception):
    """A request the store refuses; str(error) is a message for the user."""


class NotFound(StoreError):
    pass


class Forbidden(StoreError):
    pass


class Invalid(StoreError):
    pass


class Closed(StoreError):
    """The question is revealed (no more answers) or not yet (no results)."""


class Full(StoreError):
    pass


class RateLimited(StoreError, ratelimit.RateLimited):
    message = "Too many answers at once: wait a moment."


class RateLimiter(ratelimit.RateLimiter):
    """Class mode's limits on answers and new sessions: the views catch StoreError, so a refusal is one."""

    error = RateLimited
