"""An engine's ``--timeout`` held to inside Z3 as well as between its calls.

Each solver call gets the time left as its own ``timeout``; that bounds the
search, but not every step of a call (a simplification, a large formula
being bit-blasted) looks at that clock.  ``watchdog`` adds a timer thread
that interrupts the Z3 context at the deadline, whatever Z3 is doing then:
the call returns "unknown" (a simplification returns its term as far as it
got, still equivalent), and the engine, finding the deadline past, reports
UNKNOWN with the reason "timeout".  Python's own work on the encoding is
bounded by ``Syms.tick`` (``EncodingTimeout``).

An interrupt that lands between calls does nothing to the next one.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import z3

__all__ = ["watchdog", "past", "left_ms", "GRACE_S"]

#: How long after the deadline the watchdog interrupts: a call given the
#: time left as its timeout normally ends by itself first.
GRACE_S = 0.25


def past(deadline: float | None) -> bool:
    """Whether ``deadline`` (time.monotonic()) has passed."""
    return deadline is not None and time.monotonic() >= deadline


def left_ms(deadline: float | None) -> int | None:
    """The time left before ``deadline`` in whole milliseconds (at least 1),
    as Z3's ``timeout`` parameter takes it; None without a deadline."""
    if deadline is None:
        return None
    return max(1, int((deadline - time.monotonic()) * 1000))


@contextmanager
def watchdog(deadline: float | None) -> Iterator[None]:
    """Interrupt Z3 at ``deadline`` (plus ``GRACE_S``) if the block is still running."""
    if deadline is None:
        yield
        return
    done = threading.Event()

    def fire() -> None:
        if not done.is_set():
            z3.main_ctx().interrupt()

    timer = threading.Timer(max(0.0, deadline - time.monotonic()) + GRACE_S, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        done.set()
        timer.cancel()
