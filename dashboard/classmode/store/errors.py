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
    """The question takes no answers now (discussion, time up, revealed), or shows no results yet."""


class Full(StoreError):
    pass


class Unavailable(StoreError):
    """The database cannot be reached or cannot write (full disk, read-only folder, server down)."""

    MESSAGE = ("The class server cannot save answers right now (its database is not answering). "
               "Nothing was saved: try again in a moment.")

    def __init__(self, message: str = MESSAGE):
        super().__init__(message)


class RateLimited(StoreError, ratelimit.RateLimited):
    message = "Too many answers at once: wait a moment."


class RateLimiter(ratelimit.RateLimiter):
    """Class mode's limits on answers and joins: the views catch StoreError, so a refusal is one."""

    error = RateLimited


class JoinsLimited(RateLimited):
    message = "Too many students joined from this address just now: wait a moment and reload the page."


class JoinLimiter(RateLimiter):
    error = JoinsLimited
