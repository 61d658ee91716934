"""What class mode refuses, with a message fit to show the user (the views show str(error)),
and its rate limiter, whose refusal is one of these errors."""

from __future__ import annotations

from ... import ratelimit
from ...i18n import N_, _


class StoreError(Exception):
    """A request the store refuses; str(error) is a message for the user."""


class NotFound(StoreError):
    pass


class Forbidden(StoreError):
    pass


class BadRequest(StoreError):
    pass


class Closed(StoreError):
    """The question takes no answers now (discussion, time up, revealed), or shows no results yet."""


class Full(StoreError):
    pass


class Unavailable(StoreError):
    """The database cannot be reached or cannot write (full disk, read-only folder, server down)."""

    MESSAGE = N_("The class server cannot save answers right now (its database is not answering). "
                 "Nothing was saved: try again in a moment.")

    def __init__(self):
        super().__init__(_(self.MESSAGE))


class RateLimited(StoreError, ratelimit.RateLimited):
    message = N_("Too many answers at once: wait a moment.")

    def __str__(self) -> str:
        return _(self.message)  # in the language of the page it is shown on


class RateLimiter(ratelimit.RateLimiter):
    """Class mode's limits on answers and joins: the views catch StoreError, so a refusal is one."""

    error = RateLimited


class JoinsLimited(RateLimited):
    message = N_("Too many students joined from this address just now: wait a moment and reload the page.")


class JoinLimiter(RateLimiter):
    error = JoinsLimited


class JoinWait(RateLimited):
    """Joins from one address come at a human pace (Store.join): the student's page tries again by itself."""

    message = N_("Many students are joining from this address just now: this page joins by itself in a moment.")

    def __init__(self, retry_after: float, ticket: str):
        super().__init__(retry_after)
        self.ticket = ticket  # the page's place in its address's queue: it sends it back when it tries again


class PlacesHeld(RateLimited):
    """Every place left is held by a page waiting its turn (Store.join): this page tries again, with no ticket, in
    case one lapses."""

    message = N_("Every place left in this class is held by a student who is joining: this page joins by itself "
                 "if one is freed.")


class TicketTooSoon(RateLimited):
    """A ticket sent back sooner than a page polls: the page keeps its place and tries again at its next poll."""

    message = JoinWait.message


class TicketLimiter(RateLimiter):
    error = TicketTooSoon
