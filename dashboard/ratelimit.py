"""The server's one rate limit: a token bucket per client (an address, a browser's id).

It limits class mode's answers and new sessions, and wrong class passwords. Each gunicorn worker
keeps its own buckets, so a client gets at most workers x the limit.
"""

from __future__ import annotations

import threading
import time


class RateLimited(Exception):
    """A client over its limit; it may try again in `retry_after` seconds. str(error) is for the user."""

    message = "Too many requests at once: wait a moment."

    def __init__(self, retry_after: float):
        super().__init__(self.message)
        self.retry_after = retry_after


class RateLimiter:
    """A bucket of `burst` tries per client, refilled at `rate` tries a second."""

    MAX_CLIENTS = 10_000  # bounds memory, whatever clients send
    error = RateLimited  # what check() raises: a subclass may raise the error its callers catch

    def __init__(self, rate: float, burst: int, clock=time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client: (tries left, when)
        self._lock = threading.Lock()

    def check(self, client: str) -> None:
        """Take one try from the client's bucket, or raise `error` if it holds less than one."""
        now = self.clock()
        with self._lock:
            if len(self._buckets) >= self.MAX_CLIENTS:  # forget clients whose buckets are full again
                self._buckets = {c: (t, s) for c, (t, s) in self._buckets.items()
                                 if t + (now - s) * self.rate < self.burst}
                if len(self._buckets) >= self.MAX_CLIENTS:  # that many busy clients: start afresh
                    self._buckets.clear()
            tries, since = self._buckets.get(client, (self.burst, now))
            tries = min(self.burst, tries + (now - since) * self.rate)
            if tries < 1:
                self._buckets[client] = (tries, now)
                raise self.error((1 - tries) / self.rate)
            self._buckets[client] = (tries - 1, now)
