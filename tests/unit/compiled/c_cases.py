"""Small numba functions, each on a point where C and Python (numba) differ,
for test_c_backend.py: the C backend must give numba's answers."""
from __future__ import annotations

import numpy as np
from numba import njit

from modelcheck.engines.compiled.kernel.runtime import (atomic_cas, atomic_load, atomic_store, popcount,
                                                      prefetch)

jit = njit(cache=False, nogil=True, _nrt=False, error_model="numpy")
jit_inline = njit(cache=False, nogil=True, _nrt=False, error_model="numpy", inline="always")

ROW = np.array([5, -7, 11], dtype=np.int64)
GRID = np.array([[1, 2], [3, 4]], dtype=np.int64)
BIG = np.int64(-9223372036854775808)
FLAG = True


@jit
def divmod_(a, b):
    return a // b, a % b


@jit
def shifts(a, n):
    return a << n, a >> n, (a << n) >> n


@jit
def wraps(a, b):
    return a * b, a + b, -a, a - b


@jit
def and_or(a, b):
    return (a and b), (a or b), (not a), (a > 0 and b > 0)


@jit
def last_of_loop(n):
    i = -1
    for i in range(n):
        pass
    return i


@jit
def down(n, out):
    k = 0
    for i in range(n, 0, -2):
        out[k] = i
        k += 1
    return k


@jit
def swap(a, i, j):
    a[i], a[j] = a[j], a[i]


@jit_inline
def row_sum(row):
    s = 0
    for w in range(row.shape[0]):
        s += row[w]
    return s


@jit
def rows_sum(rows, pick):
    s = 0
    for i in range(rows.shape[0]):
        r = rows[i] if pick else GRID[i % 2]
        s += row_sum(r) * (i + 1)
    return s + row_sum(ROW) + GRID[1, 0]


@jit
def loops(n):
    total = 0
    k = 0
    while True:
        k += 1
        if k % 3 == 0:
            continue
        if k > n:
            break
        total += k
    return total


@jit
def with_default(a, b=7, flag=False):
    return a * b + (1 if flag else 0)


@jit
def calls(a):
    return with_default(a) + with_default(a, 2) + with_default(a, flag=True)


@jit
def casts(a):
    return np.uint32(a), np.int64(np.uint8(a)), min(a, 3, 2 * a), max(a, -a), int(a > 0)


@jit
def constants(a):
    return (a ^ BIG) < 0, FLAG and a > 0


@jit
def tags(t, i, v):
    t[i] = np.uint32(v & 0xFFFFFFFF)
    return t[i] + 1


@jit
def atomics(a, i, want, new):
    prefetch(a, i)
    old = atomic_cas(a, i, want, new)
    atomic_store(a, i + 1, atomic_load(a, i) + 1)
    return old


@jit
def tuple_result(a):
    if a < 0:
        return 0, False
    return a, True


@jit
def bool_result(a):
    if a < 0:
        return False
    return a > 10


@jit
def bits(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@jit
def sliced(a, lo, hi):
    v = a[lo:hi]
    s = 0
    for i in range(v.shape[0]):
        s += v[i] * (i + 1)
    w = a[lo:]
    w[0] = 100
    return s, v.shape[0], a[:hi].shape[0]


@jit
def sliced_rows(a, lo, hi):
    v = a[lo:hi]
    s = 0
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            s += v[i, j] * (i + 1) * (j + 3)
    w = a[lo:]
    w[0, 1] = 100
    return s, v.shape[0], v.shape[1], a[:hi].shape[0]


@jit
def pop(x):
    return popcount(x)


SIGNATURES = {
    "divmod_": "i64 i64", "shifts": "i64 i64", "wraps": "i64 i64", "and_or": "i64 i64",
    "last_of_loop": "i64", "down": "i64 i64[1]", "swap": "i64[1] i64 i64",
    "rows_sum": "i64[2] bool", "loops": "i64", "calls": "i64", "casts": "i64",
    "constants": "i64", "tags": "u32[1] i64 i64", "atomics": "i64[1] i64 i64 i64",
    "tuple_result": "i64", "bool_result": "i64", "bits": "i64", "sliced": "i64[1] i64 i64",
    "sliced_rows": "i64[2] i64 i64", "pop": "i64",
}


@jit
def divides(a, b):
    return a / b


@jit
def floats(a):
    return a * 0.5
