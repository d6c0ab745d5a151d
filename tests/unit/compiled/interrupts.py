"""A reporter that presses Ctrl-C at its n-th progress tick, for the tests
of interrupted searches (checkpoints, deep searches, levels on disk)."""
from __future__ import annotations

__all__ = ["InterruptAt"]


class InterruptAt:
    """A reporter that presses Ctrl-C at its n-th progress tick."""

    def __init__(self, n: int):
        self.n, self.ticks, self.notes = n, 0, []

    def progress(self, p) -> None:
        self.ticks += 1
        if self.ticks == self.n:
            raise KeyboardInterrupt

    def note(self, message: str) -> None:
        self.notes.append(message)
