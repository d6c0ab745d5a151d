"""The fingerprint's width (``--fingerprint-bits``): what a table slot keeps
beside its 64-bit key, and what the width buys.

Pure Python, apart from kernel/table.py so that file stays one module's
size; its bytes key every kernel all the same (cache/kcache.py), since the
``MODE_*`` values are frozen into the kernels that read ``meta``.
"""
from __future__ import annotations

__all__ = ["FINGERPRINT_BITS", "MODE_FP", "MODE_EXACT", "MODE_FP96", "MODE_FP128",
           "table_mode", "side_words", "collision_probability", "bits_error"]

#: The widths ``--fingerprint-bits`` takes.
FINGERPRINT_BITS = (64, 96, 128)
#: meta[M_EXACT]: what a slot holds beside its key.  Non-zero means "more
#: than the key", which is what the drivers' caches of recent keys test
#: (they then compare whole rows, never weaker than the table's test).
MODE_FP, MODE_EXACT, MODE_FP96, MODE_FP128 = 0, 1, 2, 3


def bits_error(bits: object) -> str | None:
    """Why ``bits`` is not a fingerprint width, or None."""
    if isinstance(bits, bool) or bits not in FINGERPRINT_BITS:
        return f"a fingerprint is 64, 96 or 128 bits, not {bits!r}"
    return None


def table_mode(exact: bool, bits: int) -> int:
    """``meta[M_EXACT]`` of a table: --exact wins (it compares whole states)."""
    why = bits_error(bits)
    if why:
        raise ValueError(why)
    if exact:
        return MODE_EXACT
    return {64: MODE_FP, 96: MODE_FP96, 128: MODE_FP128}[bits]


def side_words(words: int, exact: bool, bits: int) -> int:
    """The int64 columns a slot keeps beside its key: the state's words
    (exact), one for the second word of a wide fingerprint (96 bits keep 32
    of its bits in it: the kernels' ``states`` is an int64 array), none."""
    if exact:
        return words
    return 1 if bits > 64 else 0


def collision_probability(n: int, bits: int) -> float:
    """The birthday bound: the probability that two of ``n`` distinct states
    share a ``bits``-bit fingerprint, n(n-1) / 2^(bits+1)."""
    return n * (n - 1) / 2.0 ** (bits + 1)
