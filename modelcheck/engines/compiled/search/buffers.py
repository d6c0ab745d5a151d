"""The arrays of the search on several cores (parallel.py): each worker's
own scratch, and the candidates of one chunk, by worker, as the phases of
par_driver.py write and read them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modelcheck.engines.compiled.kernel.runtime import SIGN
from modelcheck.engines.compiled.kernel.table import own_line
from modelcheck.engines.compiled.kernels import CompiledModel
from modelcheck.engines.compiled.search.serial import RECENT

__all__ = ["Candidates", "Scratch"]


@dataclass
class Scratch:
    """One worker's own arrays: a kernel writes into its scratch as it goes
    (``S`` also holds the spec's flags, copied from the model's)."""
    U: np.ndarray
    P: np.ndarray
    V: np.ndarray
    S: np.ndarray
    err: np.ndarray
    sflags: np.ndarray
    buf: np.ndarray
    bufaid: np.ndarray
    rkeys: np.ndarray
    rrows: np.ndarray
    wact: np.ndarray        # successors per action in the current chunk
    flags: np.ndarray       # the invariants of a state (claims)
    cbuf: np.ndarray        # canonical successors (claims)
    skeys: np.ndarray       # their keys (claims)

    @classmethod
    def like(cls, k: CompiledModel, nstep: int, exact: bool, nact: int,
             nstate: int) -> "Scratch":
        w = k.layout.words
        return cls(own_line(k.U), own_line(k.P), own_line(k.V), own_line(k.S),
                   own_line(k.err), own_line(np.zeros(max(1, nstep), dtype=np.int64)),
                   own_line(k.buf), own_line(k.bufaid), np.full(RECENT, SIGN, dtype=np.int64),
                   own_line(np.zeros((RECENT if exact else 1, w), dtype=np.int64)),
                   own_line(np.zeros(nact, dtype=np.int64)),
                   own_line(np.zeros(max(1, nstate), dtype=np.int64)),
                   own_line(np.zeros(k.buf.shape, dtype=np.int64)),
                   own_line(np.zeros(k.buf.shape[0], dtype=np.int64)))

    def grow_buffer(self) -> None:
        """Twice the room for one state's successors."""
        n, words = self.buf.shape
        self.buf = own_line(np.zeros((2 * n, words), dtype=np.int64))
        self.bufaid = own_line(np.zeros(2 * n, dtype=np.int32))
        self.cbuf = own_line(np.zeros((2 * n, words), dtype=np.int64))
        self.skeys = own_line(np.zeros(2 * n, dtype=np.int64))


class Candidates:
    """The successors of one chunk: worker w writes rows w*cap .. w*cap + counts[w]."""

    def __init__(self, workers: int, cap: int, words: int, nstate: int, symmetric: bool):
        self.workers, self.cap, self.words = workers, cap, words
        self.symmetric = symmetric
        n = workers * cap
        self.out = np.zeros((n, words), dtype=np.int64)
        self.post = np.zeros((n, words), dtype=np.int64) if symmetric else self.out
        self.okeys = np.zeros(n, dtype=np.int64)
        self.optag = np.zeros(n, dtype=np.int64)
        self.oaid = np.zeros(n, dtype=np.int32)
        self.osbits = np.zeros(n, dtype=np.int64)
        self.ostate = np.zeros(n, dtype=np.int64)
        self.pflags = np.zeros((n, max(1, nstate)), dtype=np.int64)
        self.pstat = np.zeros(n, dtype=np.int64)
        self.counts = np.zeros(workers, dtype=np.int64)
        self.idx = np.zeros(n, dtype=np.int64)
        self.pos = np.zeros(n, dtype=np.int64)

    def grown(self) -> "Candidates":
        """Twice the room per worker, each worker's candidates kept."""
        new = Candidates(self.workers, 2 * self.cap, self.words, self.pflags.shape[1],
                          self.symmetric)
        for w in range(self.workers):
            m, a, b = int(self.counts[w]), w * self.cap, w * new.cap
            for name in ("out", "okeys", "optag", "oaid", "osbits"):
                getattr(new, name)[b:b + m] = getattr(self, name)[a:a + m]
            if self.symmetric:
                new.post[b:b + m] = self.post[a:a + m]
        new.counts[:] = self.counts
        return new
