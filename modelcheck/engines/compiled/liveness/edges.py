"""The recorded graph's edges in the form the cycle analysis reads them.

The search records each edge as a 32-bit target id and a row of condition
bits (liveness/graph.py); past a buffer they go to temporary files.  For
the analysis they are read back once, in blocks, into one byte string: per
edge, the target's difference from the one before it (from the source
state for a state's first edge), zigzag and LEB128 coded (a new state
follows the last one: one byte), then its ``nb`` bytes of condition bits.
``off[v]`` is the byte where state ``v``'s edges start (``off[n]``: the
end); the edges of a state keep the order the search recorded them in.
Read with ``next_edge``::

    pos, end, prev = off[v], off[v + 1], v
    while pos < end:
        w, pos = next_edge(eb, pos, prev)
        prev = w
        ...  # eb[pos:pos + nb]: the conditions the step takes
        pos += nb
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["next_edge", "encoded_size", "encode"]


@njit(cache=True, nogil=True)
def next_edge(eb, pos, prev):
    """The target of the edge coded at ``pos`` (after target ``prev``) and
    the position of its condition bits."""
    x = np.int64(0)
    shift = 0
    while True:
        b = np.int64(eb[pos])
        pos += 1
        x |= (b & 0x7F) << shift
        if b < 0x80:
            break
        shift += 7
    return prev + ((x >> 1) ^ -(x & 1)), pos


@njit(cache=True, nogil=True)
def _zigzag(x):
    return (x << 1) ^ (x >> 63)


@njit(cache=True, nogil=True)
def encoded_size(dst, deg, st, nb):
    """Add the bytes of the edges ``dst`` to ``st[3]``; ``st`` carries the
    state being read (``st[0]``), its edges left (``st[1]``) and the last
    target (``st[2]``) from one block to the next."""
    s = st[0]
    left = st[1]
    prev = st[2]
    size = st[3]
    for e in range(dst.shape[0]):
        while left == 0:
            s += 1
            left = np.int64(deg[s])
            prev = s
        w = np.int64(dst[e])
        z = _zigzag(w - prev)
        size += 1 + nb
        while z >= 0x80:
            z >>= 7
            size += 1
        prev = w
        left -= 1
    st[0] = s
    st[1] = left
    st[2] = prev
    st[3] = size


@njit(cache=True, nogil=True)
def encode(dst, emask, deg, off, out, st, nb):
    """Code the edges ``dst`` (their bits ``emask``) into ``out`` from
    ``st[3]``, and each state's start into ``off`` as it is reached.
    ``off`` may be ``deg`` itself (viewed as int32): a state's degree is
    read before its offset is written."""
    s = st[0]
    left = st[1]
    prev = st[2]
    pos = st[3]
    for e in range(dst.shape[0]):
        while left == 0:
            s += 1
            left = np.int64(deg[s])
            off[s] = pos
            prev = s
        w = np.int64(dst[e])
        z = _zigzag(w - prev)
        while z >= 0x80:
            out[pos] = (z & 0x7F) | 0x80
            pos += 1
            z >>= 7
        out[pos] = z
        pos += 1
        for j in range(nb):
            out[pos] = emask[e, j]
            pos += 1
        prev = w
        left -= 1
    st[0] = s
    st[1] = left
    st[2] = prev
    st[3] = pos
