"""Client-side request and token rate limiting for remote judges.

A sliding one-minute window: :meth:`RateLimiter.acquire` waits until sending one more request
of ``tokens`` estimated tokens keeps both the requests-per-minute and tokens-per-minute totals
of the last 60 seconds within their limits. Either limit may be None (unlimited).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque


class RateLimiter:
    """Sliding-window limiter for requests/minute and tokens/minute.

    Args:
        rpm: maximum requests per 60 s, or None.
        tpm: maximum (estimated) tokens per 60 s, or None.
        window_s: window length in seconds (60; shorter in tests).

    Raises:
        ValueError: a limit < 1.
    """

    def __init__(self, rpm: int | None = None, tpm: int | None = None,
                 window_s: float = 60.0) -> None:
        for name, v in (("rpm", rpm), ("tpm", tpm)):
            if v is not None and v < 1:
                raise ValueError(f"{name}: must be >= 1, got {v}")
        self.rpm, self.tpm, self.window_s = rpm, tpm, window_s
        self._events: deque[tuple[float, int]] = deque()
        self._tokens = 0
        self._lock = asyncio.Lock()

    def _expire(self, now: float) -> None:
        while self._events and now - self._events[0][0] >= self.window_s:
            _, t = self._events.popleft()
            self._tokens -= t

    async def acquire(self, tokens: int = 0) -> None:
        """Wait until one request of ``tokens`` tokens fits, then record it."""
        if self.rpm is None and self.tpm is None:
            return
        if self.tpm is not None:
            tokens = min(tokens, self.tpm)  # a request larger than the limit still goes alone
        async with self._lock:
            while True:
                now = time.monotonic()
                self._expire(now)
                ok_r = self.rpm is None or len(self._events) < self.rpm
                ok_t = self.tpm is None or self._tokens + tokens <= self.tpm
                if ok_r and ok_t:
                    self._events.append((now, tokens))
                    self._tokens += tokens
                    return
                wait = self.window_s - (now - self._events[0][0]) if self._events else 0.01
                await asyncio.sleep(max(wait, 0.001))
