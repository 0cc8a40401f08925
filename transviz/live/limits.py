"""The server's two brakes, pure logic with the clock passed in (the tests drive the time): a token
bucket per connection, and the count of wrong join codes per address."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from .protocol import FAILED_JOIN_WINDOW_S, MAX_FAILED_JOINS_PER_ADDRESS, RATE_BURST, RATE_PER_S


@dataclass
class TokenBucket:
    """``rate`` messages a second on average, ``burst`` at once."""

    rate: float = RATE_PER_S
    burst: float = RATE_BURST
    tokens: float = field(default=-1.0)
    last: float | None = None

    def __post_init__(self) -> None:
        if self.tokens < 0:
            self.tokens = self.burst

    def take(self, now: float) -> bool:
        """Whether one more message may pass at time ``now`` (seconds, monotonic)."""
        if self.last is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class FailedJoins:
    """Wrong join codes per address over the last ``window`` seconds. An address with ``limit`` of
    them is blocked until the oldest leaves the window: guessing a code of
    :data:`~transviz.live.protocol.CODE_LENGTH` characters takes years at that pace. Only the
    addresses that failed are kept, and at most ``limit`` times each."""

    MAX_ADDRESSES = 4096

    def __init__(self, limit: int = MAX_FAILED_JOINS_PER_ADDRESS, window: float = FAILED_JOIN_WINDOW_S) -> None:
        self.limit, self.window = limit, window
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, address: str, now: float) -> deque[float]:
        times = self._failures.get(address, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            self._failures.pop(address, None)
        return times

    def blocked(self, address: str, now: float) -> bool:
        return len(self._recent(address, now)) >= self.limit

    def fail(self, address: str, now: float) -> None:
        if len(self._failures) >= self.MAX_ADDRESSES:  # many addresses guessing: forget those whose window passed
            for other in list(self._failures):
                self._recent(other, now)
        times = self._recent(address, now)
        times.append(now)
        while len(times) > self.limit:
            times.popleft()
        self._failures[address] = times
