"""Small numba functions every generated kernel module imports: bit counting,
the 64-bit state fingerprint, helpers for symmetry.

They are compiled without numba's reference counting (``_nrt=False``): they
never allocate, and the increments and decrements of every array argument
would otherwise cost more than the work in the hot loop.

All arithmetic is on int64 (numba turns int64/uint64 mixtures into floats);
shifts that must not drag the sign bit along are masked, and multiplications
wrap, as the hash needs.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["popcount", "fingerprint", "fingerprint_at", "fingerprint_rows", "tag_of", "SIGN", "TAG_SHIFT",
           "TAG_MASK", "hmix", "sort_members", "tie_count", "next_tie_order", "invert",
           "copy_ints", "less", "prefetch", "bit", "setbit", "clearbit", "fail", "copy_slots",
           "zero_slots", "same_slots", "sp_count", "sp_add", "sp_remove", "sp_distinct",
           "sp_sort", "sp_within", "FRESH", "atomic_cas", "atomic_load", "atomic_store"]

#: The sign bit: a table key is ``fingerprint ^ SIGN``, so that signed order is
#: the unsigned order of fingerprints.  No fingerprint is 0, so no key is SIGN
#: (the table's empty marker).
SIGN = np.int64(-9223372036854775808)
#: A state's tag is its fingerprint's top 32 bits; a table entry stores its
#: parent's tag (0 for an initial state: no fingerprint has a zero tag).
#: Tags are not unique past a few million states; counterexamples resolve a
#: shared tag by re-executing (see rebuild.py).
TAG_SHIFT = 32
TAG_MASK = (1 << 32) - 1
#: Bit 31 of every fingerprint is 0 (63 bits of hash: it is in neither the
#: tag nor the home slot).  The search on several cores marks a key stored
#: during the current chunk with it, so that a worker that meets the key can
#: tell it from one stored earlier (claim_driver.py).
FRESH = np.int64(1 << 31)
_NOT_FRESH = np.int64(~(1 << 31))

_M1 = np.int64(0x5555555555555555)
_M2 = np.int64(0x3333333333333333)
_M4 = np.int64(0x0F0F0F0F0F0F0F0F)
_H01 = np.int64(0x0101010101010101)
_C1 = np.int64(-8663945395140668459)        # 0x87c37b91114253d5
_C2 = np.int64(5545529020109919103)         # 0x4cf5ad432745937f
_F1 = np.int64(-49064778989728563)          # 0xff51afd7ed558ccd
_F2 = np.int64(-4265267296055464877)        # 0xc4ceb9fe1a85ec53
_SEED = np.int64(0x2545F4914F6CDD1D)


@njit("int64(int64)", cache=True, nogil=True, _nrt=False)  # one copy: see _sigs
def popcount(x: np.int64) -> np.int64:
    x = x - ((x >> 1) & _M1)
    x = (x & _M2) + ((x >> 2) & _M2)
    x = (x + (x >> 4)) & _M4
    return ((x * _H01) >> 56) & 0xFF


@njit("int64(int64, int64)", cache=True, nogil=True, _nrt=False)  # one copy: see _sigs
def _rotl(x: np.int64, r: int) -> np.int64:
    return (x << r) | ((x >> (64 - r)) & ((np.int64(1) << r) - 1))


@njit("int64(int64)", cache=True, nogil=True, _nrt=False)  # one copy: see _sigs
def _fmix(k: np.int64) -> np.int64:
    k ^= (k >> 33) & 0x7FFFFFFF
    k *= _F1
    k ^= (k >> 33) & 0x7FFFFFFF
    k *= _F2
    k ^= (k >> 33) & 0x7FFFFFFF
    return k


@njit(cache=True, nogil=True, _nrt=False)
def fingerprint(row: np.ndarray) -> np.int64:
    """MurmurHash3-style 64-bit hash of a packed state, never 0 and with a
    non-zero tag.  The bits are an unsigned fingerprint held in an int64."""
    h = _SEED ^ row.shape[0]
    for i in range(row.shape[0]):
        k = row[i] * _C1
        k = _rotl(k, 31)
        k *= _C2
        h ^= k
        h = _rotl(h, 27) * 5 + 0x52DCE729
    h = _fmix(h ^ (row.shape[0] * 8)) & _NOT_FRESH
    if ((h >> TAG_SHIFT) & TAG_MASK) == 0:
        h |= np.int64(1) << TAG_SHIFT
    return h


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def fingerprint_at(rows: np.ndarray, i: int) -> np.int64:
    """``fingerprint(rows[i])`` without making a view of the row."""
    n = rows.shape[1]
    h = _SEED ^ n
    for w in range(n):
        k = rows[i, w] * _C1
        k = _rotl(k, 31)
        k *= _C2
        h ^= k
        h = _rotl(h, 27) * 5 + 0x52DCE729
    h = _fmix(h ^ (n * 8)) & _NOT_FRESH
    if ((h >> TAG_SHIFT) & TAG_MASK) == 0:
        h |= np.int64(1) << TAG_SHIFT
    return h


@njit(cache=True, nogil=True, _nrt=False)
def tag_of(fp: np.int64) -> np.int64:
    return (fp >> TAG_SHIFT) & TAG_MASK


@njit(cache=True, nogil=True)
def fingerprint_rows(rows: np.ndarray, out: np.ndarray) -> None:
    for i in range(rows.shape[0]):
        out[i] = fingerprint_at(rows, i)


# ---------------------------------------------------------------- symmetry helpers

@njit("int64(int64, int64)", cache=True, nogil=True, _nrt=False)  # one copy: see _sigs
def hmix(h: np.int64, x: np.int64) -> np.int64:
    """Order-dependent combination of a hash and a value."""
    return _fmix((h * _C1) ^ _rotl(np.int64(x) * _C2 + 0x165667B1, 29))


@njit(cache=True, nogil=True, _nrt=False)
def sort_members(sig: np.ndarray, order: np.ndarray) -> None:
    """order := member indices sorted by (signature, index)."""
    n = sig.shape[0]
    for i in range(n):
        order[i] = i
    for i in range(1, n):
        x = order[i]
        j = i - 1
        while j >= 0 and sig[order[j]] > sig[x]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = x


@njit(cache=True, nogil=True, _nrt=False)
def tie_count(sig: np.ndarray, order: np.ndarray, limit: int) -> np.int64:
    """How many orderings of tied members there are, or ``limit + 1`` past it."""
    total = 1
    i = 0
    n = order.shape[0]
    while i < n:
        j = i
        while j + 1 < n and sig[order[j + 1]] == sig[order[i]]:
            j += 1
        for f in range(2, j - i + 2):
            total *= f
            if total > limit:
                return limit + 1
        i = j + 1
    return total


@njit(cache=True, nogil=True, _nrt=False)
def _next_permutation(a: np.ndarray, lo: int, hi: int) -> bool:
    """Next lexicographic order of a[lo:hi]; False (and sorted) after the last."""
    i = hi - 2
    while i >= lo and a[i] >= a[i + 1]:
        i -= 1
    if i >= lo:
        j = hi - 1
        while a[j] <= a[i]:
            j -= 1
        a[i], a[j] = a[j], a[i]
    # The suffix is descending: reversing it gives the smallest order (the
    # whole segment sorted again after the last permutation).
    x, y = i + 1, hi - 1
    while x < y:
        a[x], a[y] = a[y], a[x]
        x += 1
        y -= 1
    return i >= lo


@njit(cache=True, nogil=True, _nrt=False)
def next_tie_order(sig: np.ndarray, order: np.ndarray) -> bool:
    """The next ordering of tied members (an odometer over the tie groups)."""
    n = order.shape[0]
    hi = n
    while hi > 0:
        lo = hi - 1
        while lo > 0 and sig[order[lo - 1]] == sig[order[hi - 1]]:
            lo -= 1
        if hi - lo > 1 and _next_permutation(order, lo, hi):
            return True
        hi = lo
    return False


@njit(cache=True, nogil=True, _nrt=False)
def invert(order: np.ndarray, pi: np.ndarray) -> None:
    for pos in range(order.shape[0]):
        pi[order[pos]] = pos


@njit(cache=True, nogil=True, _nrt=False)
def copy_ints(a: np.ndarray, b: np.ndarray) -> None:
    for i in range(a.shape[0]):
        b[i] = a[i]


@njit(cache=True, nogil=True, _nrt=False)
def less(a: np.ndarray, b: np.ndarray) -> bool:
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return a[i] < b[i]
    return False


@intrinsic
def prefetch(typingctx, arr, index):
    """Hint the CPU to fetch ``arr[index]`` (LLVM's prefetch, for a read)."""
    sig = types.void(arr, index)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p = llvm_ir.IntType(8).as_pointer()
        i32 = llvm_ir.IntType(32)
        fnty = llvm_ir.FunctionType(llvm_ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return sig, codegen


def _item_pointer(context, builder, aryty, array, index):
    ary = context.make_array(aryty)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [index], wraparound=False)


# The search on several cores shares one table between threads
# (claim_driver.py): its slots are read, written and swapped with these, so
# that neither LLVM nor the CPU reorders them across one another.

@intrinsic
def atomic_cas(typingctx, arr, index, expected, new):
    """Compare-and-swap ``arr[index]`` from ``expected`` to ``new`` in one
    atomic step; returns the value it held (``expected`` when it swapped)."""
    dtype = arr.dtype
    sig = dtype(arr, index, expected, new)

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        want = context.cast(builder, args[2], signature.args[2], dtype)
        put = context.cast(builder, args[3], signature.args[3], dtype)
        pair = builder.cmpxchg(ptr, want, put, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)
    return sig, codegen


@intrinsic
def atomic_load(typingctx, arr, index):
    """``arr[index]`` read with acquire order: reads after it are not moved
    before it."""
    dtype = arr.dtype
    sig = dtype(arr, index)

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(ptr, "acquire", dtype.bitwidth // 8)
    return sig, codegen


@intrinsic
def atomic_store(typingctx, arr, index, value):
    """``arr[index] = value`` with release order: writes before it are seen
    before it."""
    dtype = arr.dtype
    sig = types.void(arr, index, value)

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        val = context.cast(builder, args[2], signature.args[2], dtype)
        builder.store_atomic(val, ptr, "release", dtype.bitwidth // 8)
        return context.get_dummy_value()
    return sig, codegen


# ---------------------------------------------------------------- compact code
# The generated code calls these instead of spelling them out: numba's compile
# time grows with every statement of a function, and LLVM inlines them back.
#
# Their signatures are explicit.  The generated code passes constants (slot
# offsets, widths), and numba compiles a dispatcher once per combination of
# *literal* argument values it is called with: dozens of copies per kernel,
# each one a full compile, and each one a new entry in numba's on-disk index,
# which the parallel precompile workers then rewrite concurrently (two
# processes give the same file number to different specialisations, and a
# later run loads the wrong one).  With fixed signatures a literal converts
# to int64 and there is one compiled copy, made at import.


def _sigs(ret: str, *args: str) -> list:
    """The signature for every mix of array layouts the generated code passes:
    C-contiguous or not, and (for arrays only read, "ro") read-only constants."""
    from numba import types
    layouts = {"arr": [types.Array(types.int64, 1, lay) for lay in "CA"],
               "ro": [types.Array(types.int64, 1, lay, readonly=ro)
                      for lay in "CA" for ro in (False, True)],
               "int64": [types.int64]}
    combos: list[tuple] = [()]
    for a in args:
        combos = [c + (t,) for c in combos for t in layouts[a]]
    result = {"boolean": types.boolean, "void": types.void, "int64": types.int64}[ret]
    return [result(*c) for c in combos]


@njit(_sigs("boolean", "ro", "int64", "int64"), cache=True, nogil=True, _nrt=False)
def bit(arr: np.ndarray, base: int, r: int) -> bool:
    """Whether rank ``r`` is in the bitset starting at ``arr[base]``."""
    return ((arr[base + (r >> 6)] >> (r & 63)) & 1) != 0


@njit(_sigs("void", "arr", "int64", "int64"), cache=True, nogil=True, _nrt=False)
def setbit(arr: np.ndarray, base: int, r: int) -> None:
    arr[base + (r >> 6)] |= np.int64(1) << (r & 63)


@njit(_sigs("void", "arr", "int64", "int64"), cache=True, nogil=True, _nrt=False)
def clearbit(arr: np.ndarray, base: int, r: int) -> None:
    arr[base + (r >> 6)] &= ~(np.int64(1) << (r & 63))


@njit(_sigs("int64", "arr", "int64", "int64"), cache=True, nogil=True, _nrt=False)
def fail(err: np.ndarray, code: int, node: int) -> int:
    """Record a run-time error (code, IR node id); the kernel returns -1."""
    err[0] = code
    err[1] = node
    return -1


@njit(_sigs("void", "arr", "int64", "ro", "int64", "int64"), cache=True, nogil=True, _nrt=False)
def copy_slots(dst: np.ndarray, doff: int, src: np.ndarray, soff: int, n: int) -> None:
    for i in range(n):
        dst[doff + i] = src[soff + i]


@njit(_sigs("void", "arr", "int64", "int64"), cache=True, nogil=True, _nrt=False)
def zero_slots(dst: np.ndarray, doff: int, n: int) -> None:
    for i in range(n):
        dst[doff + i] = 0


@njit(_sigs("boolean", "ro", "int64", "ro", "int64", "int64"), cache=True, nogil=True, _nrt=False)
def same_slots(a: np.ndarray, aoff: int, b: np.ndarray, boff: int, n: int) -> bool:
    for i in range(n):
        if a[aoff + i] != b[boff + i]:
            return False
    return True


# ---------------------------------------------------------------- sparse sets and bags
# A sparse collection at arr[off]: the number of entries n, then the entries
# (element ranks) in ascending order, then zeros up to the capacity.  The
# capacities are a few elements, so a linear scan beats a binary search.

@njit(_sigs("int64", "ro", "int64", "int64"), cache=True, nogil=True, _nrt=False)
def sp_count(arr: np.ndarray, off: int, r: int) -> int:
    """How many entries of the sparse collection equal ``r``."""
    c = 0
    for k in range(arr[off]):
        x = arr[off + 1 + k]
        if x == r:
            c += 1
        elif x > r:
            break
    return c


@njit(_sigs("boolean", "arr", "int64", "int64", "int64", "int64"), cache=True, nogil=True,
      _nrt=False)
def sp_add(arr: np.ndarray, off: int, cap: int, r: int, multi: int) -> bool:
    """Insert ``r`` in order (a set ignores a rank it holds); True when the
    collection is full and ``r`` did not fit."""
    n = arr[off]
    k = 0
    while k < n and arr[off + 1 + k] < r:
        k += 1
    if multi == 0 and k < n and arr[off + 1 + k] == r:
        return False
    if n >= cap:
        return True
    for j in range(n, k, -1):
        arr[off + 1 + j] = arr[off + j]
    arr[off + 1 + k] = r
    arr[off] = n + 1
    return False


@njit(_sigs("boolean", "arr", "int64", "int64"), cache=True, nogil=True, _nrt=False)
def sp_remove(arr: np.ndarray, off: int, r: int) -> bool:
    """Remove one entry equal to ``r``; False when there is none."""
    n = arr[off]
    for k in range(n):
        if arr[off + 1 + k] == r:
            for j in range(k, n - 1):
                arr[off + 1 + j] = arr[off + 2 + j]
            arr[off + n] = 0
            arr[off] = n - 1
            return True
    return False


@njit(_sigs("int64", "ro", "int64"), cache=True, nogil=True, _nrt=False)
def sp_distinct(arr: np.ndarray, off: int) -> int:
    """The number of distinct entries."""
    n = arr[off]
    c = 0
    for k in range(n):
        if k == 0 or arr[off + 1 + k] != arr[off + k]:
            c += 1
    return c


@njit(_sigs("void", "arr", "int64"), cache=True, nogil=True, _nrt=False)
def sp_sort(arr: np.ndarray, off: int) -> None:
    """Put the entries back in ascending order (after renaming them)."""
    n = arr[off]
    for i in range(1, n):
        x = arr[off + 1 + i]
        j = i - 1
        while j >= 0 and arr[off + 1 + j] > x:
            arr[off + 2 + j] = arr[off + 1 + j]
            j -= 1
        arr[off + 2 + j] = x


@njit(_sigs("boolean", "ro", "int64", "ro", "int64"), cache=True, nogil=True, _nrt=False)
def sp_within(a: np.ndarray, aoff: int, b: np.ndarray, boff: int) -> bool:
    """Whether every entry of sparse set ``a`` is an entry of sparse set ``b``."""
    j = 0
    nb = b[boff]
    for k in range(a[aoff]):
        x = a[aoff + 1 + k]
        while j < nb and b[boff + 1 + j] < x:
            j += 1
        if j >= nb or b[boff + 1 + j] != x:
            return False
    return True
