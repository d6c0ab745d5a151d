"""The types of the C backend (c/translate.py): the few that a kernel
module's numba code uses, and the signatures its entry points are called
with from Python.

The kernel code is numba's subset of Python, kept narrower still by the
generator: int64 arithmetic, bools, C-contiguous arrays of a few integer
types, tuples only as results.  A scalar local of any narrower integer type
is held as int64, which is what numba's arithmetic on it gives anyway.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np

__all__ = ["Scalar", "Array", "TupleType", "CType", "I64", "U64", "BOOL", "SCALARS",
           "NotTranslatable", "parse_signature", "dtype_scalar", "unify", "local_scalar",
           "ENTRY_SIGNATURES"]


class NotTranslatable(Exception):
    """The code uses something the C backend does not translate; the
    message names the construct and where it is."""


@dataclass(frozen=True)
class Scalar:
    name: str           # i64, i32, i8, u8, u32, u64, bool

    @property
    def c(self) -> str:
        return _C_SCALARS[self.name]

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Array:
    elem: Scalar
    ndim: int

    def __str__(self) -> str:
        return f"{self.elem}[{self.ndim}]"


@dataclass(frozen=True)
class TupleType:
    items: tuple["CType", ...]

    def __str__(self) -> str:
        return "(" + ", ".join(map(str, self.items)) + ")"


CType = Union[Scalar, Array, TupleType]

_C_SCALARS = {"i64": "int64_t", "i32": "int32_t", "i8": "int8_t", "u8": "uint8_t",
              "u32": "uint32_t", "u64": "uint64_t", "bool": "bool"}
SCALARS = {name: Scalar(name) for name in _C_SCALARS}
I64, U64, BOOL = SCALARS["i64"], SCALARS["u64"], SCALARS["bool"]

_DTYPES = {np.dtype(np.int64): "i64", np.dtype(np.int32): "i32", np.dtype(np.int8): "i8",
           np.dtype(np.uint8): "u8", np.dtype(np.uint32): "u32", np.dtype(np.uint64): "u64",
           np.dtype(np.bool_): "bool"}


def dtype_scalar(dtype: np.dtype) -> Scalar:
    """The element type of a numpy array."""
    try:
        return SCALARS[_DTYPES[np.dtype(dtype)]]
    except KeyError:
        raise NotTranslatable(f"arrays of {dtype} are not translated") from None


def parse_signature(text: str) -> tuple[CType, ...]:
    """``"i64[2] i64 u32[1] bool"``: argument types, arrays with their rank."""
    out: list[CType] = []
    for word in text.split():
        if "[" in word:
            name, rank = word.rstrip("]").split("[")
            out.append(Array(SCALARS[name], int(rank)))
        else:
            out.append(SCALARS[word])
    return tuple(out)


def local_scalar(t: Scalar) -> Scalar:
    """A scalar as a local holds it: narrower integers widen to int64."""
    return t if t.name in ("bool", "u64", "i64") else I64


def unify(a: CType | None, b: CType | None, where: str) -> CType | None:
    """The type of a variable assigned values of types a and b."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if isinstance(a, Scalar) and isinstance(b, Scalar):
        if U64 in (a, b) and (a, b) != (U64, U64):
            raise NotTranslatable(f"{where}: mixes uint64 with {a if b == U64 else b}")
        return I64
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.items) == len(b.items):
        return TupleType(tuple(unify(x, y, where) for x, y in zip(a.items, b.items)))  # type: ignore[misc]
    raise NotTranslatable(f"{where}: holds both {a} and {b}")


#: The kernel module's entry points, as the engine calls them from Python
#: (kernels.py, search/serial.py, search/parallel.py, search/claims.py, liveness/graph.py): one
#: signature each.  A call with other argument types is refused with the
#: name of the argument (c/build.py), which a test of every entry catches.
ENTRY_SIGNATURES: dict[str, str] = {
    "expand_batch": "i64[2] i64 i64[2] i64[1] i32[1] i64[1] i64[1] i64[1] i64[2] i32[1] i64[1] i64",
    "expand_owned": "i64[2] i64[1] i64 i64[1] i64[1] i64[2] i64[1] i64[1] i64[1] i64[1] "
                    "i64[1] i64[1] i64[1] i64[1] i64[1] i64[2] i32[1] i64[2] i64[1] i64[1]",
    "props_batch": "i64[2] i64[1] i64[1] i64[1] i64[1] i64[2]",
    "constraints_batch": "i64[2] i64[1] i64[1] i64[1] i64[1]",
    "terminal_batch": "i64[2] i64[1] i64[1] i64[1] i64[1]",
    "steps_batch": "i64[2] i64[2] i64[1] i64[1] i64[1] i64[1] i64[1] i64[2]",
    "canon_batch": "i64[2] i64[2] i64[2] i64[1] i64[1] bool",
    "permute_batch": "i64[2] i64[2] i64[2] i64[1] i64[1]",
    "admit": "i64[2] i64 i64[1] u32[1] i64[2] i64[1] i64[2] i64[1] i64[1] i64[1] i64[1] i64[1] "
             "i64[2] i64[1] i64[1] i64[1] i64[1] i64[1] i64[1] i64[2] i64[1]",
    "explore_chunk": "i64[2] i64 i64 i64[1] u32[1] i64[2] i64[1] i64[2] i64[1] i64[1] i64[1] "
                     "i64[1] i64[1] i64[1] i64[1] i64[1] i64[2] i64[2] i64[1] i64[1] i64[1] "
                     "i64[1] i64[1] i64[2] i32[1] i64[2] i64[1] i64[1] i64[1] i64[1] i64[1] "
                     "i64[2]",
    "live_admit": "i64[2] i64 i64[1] u32[1] i64[2] i64[1] i64[2] i64[1] i64[1] i64[1] i64[1] "
                  "i64[1] i64[2] i64[1] i64[1] i64[1] i64[1] i64[1] i64[1] i64[2] i64[1] "
                  "u32[1] u8[2]",
    "live_chunk": "i64[2] i64 i64 i64 i64[1] u32[1] i64[2] i64[1] i64[2] i64[1] i64[1] i64[1] "
                  "i64[1] i64[1] i64[1] i64[1] i64[1] i64[2] i64[2] i64[1] i64[1] i64[1] "
                  "i64[1] i64[1] i64[2] i32[1] i64[1] i64[1] i64[1] u32[1] u8[2] u8[2] i32[1] "
                  "u8[2] u8[2] i64[1]",
    "par_initial": "i64[2] i64[2] i64[1] i64[1] i64[1] i64[1]",
    "par_expand": "i64[2] i64 i64 i64[2] i64[2] i64[1] i64[1] i32[1] i64[1] i64[1] i64[1] i64 "
                  "i64[1] i64[1] i64[1] i64[1] i64[1] i64[1] i64[2] i32[1] i64[1] i64[1] "
                  "i64[1] i64[2] i64[1] i64[1] i64[1]",
    "par_insert": "i64[1] u32[1] i64[2] i64[1] i64[1] i64 i64 i64[2] i64[1] i64[1] i64[1] "
                  "i64[2] i64[1] i64[1] i64[1] i64 i64[1] i64[1] i64[1]",
    "par_settle": "i64[2] i64 i64 i64[1] i64 i64[1] i64[1] i64[1] i64[2] i64[2] i64[1] i32[1] "
                  "i64[1] i64[1] i64[1] i64[2] i64[1] i64[2] i64[1] i64[1] i64[1] i64[1] "
                  "i64[1] i64[1] i64[1] i64[2] i64[2] i64[1] i64[1] i64[1] i64[1] i64[1] "
                  "i64[2] i32[1] i64[1] i64[1] i64[1]",
    "par_admit_settle": "i64[2] i64 i64[2] i64[1] i64[1] i64[2] i64[1] i64[2] i64[1] i64[1] "
                        "i64[1] i64[1] i64[1] i64[2] i64[2] i64[1] i64[1] i64[1] i64[1] i64[1]",
    "claim_expand": "i64[2] i64 i64 i64 i64[1] u32[1] i64[1] i64[1] i64[1] i64[1] i64[1] i64[1] "
                    "i64[1] i32[1] i64[2] i64[2] i8[1] i8[1] i64 i64[1] i64[1] i64[1] i64[1] "
                    "i64[1] i64[1] i64[1] i64[1] i64[1] i64[1] i64[2] i32[1] i64[2] i64[1] "
                    "i64[1] i64[1] i64[1] i64[1] i64[1] i64[1]",
    "claim_fix": "i64[1] u32[1] i64[1] i64[1] i64[2] i64[1] i64[1] i64[1] i8[1] i64 i64 i64 "
                 "i8[1]",
    "claim_settle": "i64[2] i64[1] i64[1] i64 i64 i64[1] i64[1] i64[1] i8[1] i64[2] i64[2] "
                    "i8[1] i64[1] i32[1] i8[1] i64[2] i64[1] i64[1] i64[1] i64[1] i64[1] "
                    "i64[1] i64[2] i64[2] i64[1] i64[1] i64[1] i64[1] i64[1] i64[2] i32[1] "
                    "i64[1] i64[1]",
    "claim_count_actions": "i64[2] i64 i64 i64 i64[1] i64[1] i64[1] i64[2] i32[1] i64[1] "
                           "i64[1] i64[1]",
}
