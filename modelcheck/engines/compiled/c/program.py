"""A kernel module as one C program: every entry point the engine calls
(c_types.ENTRY_SIGNATURES), every function they reach, one instance per
tuple of argument types, and the module's constant arrays.

The functions are read from their Python source (the kernel module's file,
kernel/runtime.py, kernel/table.py), as numba reads them; globals are frozen at
translation, as numba freezes them at compile time.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modelcheck.engines.compiled.kernel import runtime
from modelcheck.engines.compiled.c.infer import Val, literal
from modelcheck.engines.compiled.c.translate import FunctionTranslator
from modelcheck.engines.compiled.c.types import (BOOL, I64, SCALARS, Array, CType,
                                                 NotTranslatable, Scalar, TupleType,
                                                 dtype_scalar, parse_signature)

__all__ = ["Program", "Instance", "Entry", "PRELUDE"]

PRELUDE = r"""#include <stdint.h>
#include <stdbool.h>
/* Python's floor division and modulo; 0 for a zero divisor (numba's
   "numpy" error model), and for INT64_MIN // -1, as numba gives. */
static inline int64_t mc_floordiv(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return a == INT64_MIN ? 0 : -a;
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
static inline int64_t mc_mod(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline int64_t mc_min(int64_t a, int64_t b) { return b < a ? b : a; }
static inline int64_t mc_max(int64_t a, int64_t b) { return b > a ? b : a; }
/* a slice bound as Python reads it: from the end when negative, clipped */
static inline int64_t mc_slice_at(int64_t i, int64_t n) {
    if (i < 0) i += n;
    return i < 0 ? 0 : (i > n ? n : i);
}
static inline int64_t mc_abs(int64_t a) { return a < 0 ? (int64_t)(0ULL - (uint64_t)a) : a; }
"""

_CASTS = {np.int64: "i64", np.int32: "i32", np.int8: "i8", np.uint8: "u8", np.uint32: "u32",
          np.uint64: "u64", np.bool_: "bool"}
_INTRINSICS = {"prefetch", "atomic_cas", "atomic_load", "atomic_store"}
#: Runtime functions whose C is the compiler's builtin: the same value for
#: every int64 (the bit pattern's count of ones), one instruction with
#: -march=native where the translated bit tricks took a dozen (Raft's
#: invariants count set members for every new state).
_BUILTIN_BODIES = {"popcount": "    return (int64_t)__builtin_popcountll((uint64_t)v_x);"}


@dataclass
class Instance:
    """One translated function: its C name, result type and definition."""
    cname: str
    ret: CType | None
    inline: bool
    translator: FunctionTranslator | None = None
    #: C written in place of the translated body (``_BUILTIN_BODIES``).
    body: str | None = None

    def prototype(self, program: "Program") -> str:
        ret = _c_type(self.ret, program)
        params = ", ".join(self.translator.params_c()) if self.translator else ""
        head = "static inline __attribute__((always_inline))" if self.inline else "static"
        return f"{head} {ret} {self.cname}({params or 'void'})"


@dataclass
class Entry:
    """An entry point: its types, as Python passes them, and its instance."""
    name: str
    argtypes: tuple[CType, ...]
    instance: Instance


@dataclass
class Program:
    """Collects the instances reached from the entries (``add_entry``), then
    writes the C source (``source``)."""
    instances: dict[tuple, Instance] = field(default_factory=dict)
    order: list[Instance] = field(default_factory=list)
    arrays: dict[int, tuple[str, np.ndarray]] = field(default_factory=dict)
    tuples: dict[TupleType, str] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)
    _asts: dict[Any, ast.FunctionDef] = field(default_factory=dict)
    _names: dict[str, int] = field(default_factory=dict)

    # ------------------------------------------------------------ resolution

    def callable_of(self, obj: Any) -> tuple[str, Any] | None:
        if hasattr(obj, "py_func") and hasattr(obj, "targetoptions"):
            return "jit", obj
        for cls, name in _CASTS.items():
            if obj is cls:
                return "cast", SCALARS[name]
        for name in _INTRINSICS:
            if obj is getattr(runtime, name):
                return "intrinsic", name
        return None

    def parameters(self, target: Any) -> list[inspect.Parameter]:
        return list(inspect.signature(target.py_func).parameters.values())

    def global_value(self, obj: Any, name: str) -> Val:
        if isinstance(obj, (bool, np.bool_)):
            return Val("1" if obj else "0", BOOL)
        if isinstance(obj, (int, np.integer)):
            v = int(obj)
            t = dtype_scalar(obj.dtype) if isinstance(obj, np.integer) else I64
            if t.name == "u64" or not -(1 << 63) <= v < (1 << 63):
                raise NotTranslatable(f"the constant {name} = {v}")
            return Val(literal(v), t if t.name != "u64" else I64)
        if isinstance(obj, np.ndarray):
            if obj.ndim not in (1, 2):
                raise NotTranslatable(f"the {obj.ndim}-dimensional array {name}")
            t = Array(dtype_scalar(obj.dtype), obj.ndim)
            if id(obj) not in self.arrays:
                self.arrays[id(obj)] = (f"g_{len(self.arrays)}_{_ident(name)}", obj)
            return Val(self.arrays[id(obj)][0], t, tuple(f"{n}LL" for n in obj.shape))
        raise NotTranslatable(f"the global {name} ({type(obj).__name__})")

    def tuple_name(self, t: CType) -> str:
        assert isinstance(t, TupleType)
        if t not in self.tuples:
            self.tuples[t] = f"mc_tuple{len(self.tuples)}"
        return self.tuples[t]

    def _ast(self, target: Any) -> ast.FunctionDef:
        fn = self._asts.get(target)
        if fn is None:
            try:
                text = textwrap.dedent(inspect.getsource(target.py_func))
            except (OSError, TypeError) as why:
                raise NotTranslatable(f"no source for {target.py_func.__name__}: {why}") from None
            tree = ast.parse(text)
            fn = tree.body[0]
            if not isinstance(fn, ast.FunctionDef):
                raise NotTranslatable(f"{target.py_func.__name__} is not a plain function")
            ast.increment_lineno(fn, target.py_func.__code__.co_firstlineno - 1)
            self._asts[target] = fn
        return fn

    # ------------------------------------------------------------ instances

    def instance(self, target: Any, types: tuple[CType, ...]) -> Instance:
        key = (id(target), types)
        found = self.instances.get(key)
        if found is not None:
            if found.translator is None:
                raise NotTranslatable(f"{target.py_func.__name__} calls itself")
            return found
        py = target.py_func
        base = _ident(py.__name__)
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        inline = target.targetoptions.get("inline") == "always"
        inst = Instance(f"f_{base}_{n}", None, inline)
        self.instances[key] = inst
        g = py.__globals__

        def resolve(name: str) -> Any:
            if name in g:
                return g[name]
            if hasattr(builtins, name):
                return getattr(builtins, name)
            raise NameError(name)

        where = f"{py.__module__}.{py.__name__}"
        translator = FunctionTranslator(self, self._ast(target), types, resolve, where)
        inst.translator, inst.ret = translator, translator.ret
        if py.__module__ == runtime.__name__ and py.__name__ in _BUILTIN_BODIES:
            inst.body = _BUILTIN_BODIES[py.__name__]
        self.order.append(inst)
        return inst

    def add_entry(self, name: str, module: Any, signature: str) -> Entry:
        target = getattr(module, name)
        if self.callable_of(target) != ("jit", target):
            raise NotTranslatable(f"{name} is not a jitted function")
        types = parse_signature(signature)
        entry = Entry(name, types, self.instance(target, types))
        self.entries.append(entry)
        return entry

    # ------------------------------------------------------------ output

    def source(self) -> str:
        bodies = [(inst, inst.body if inst.body is not None
                   else inst.translator.emit())  # type: ignore[union-attr]
                  for inst in self.order]
        out = [PRELUDE]
        for t, name in self.tuples.items():
            fields = " ".join(f"{_c_type(it, self)} f{k};" for k, it in enumerate(t.items))
            out.append(f"typedef struct {{ {fields} }} {name};")
        for cname, arr in self.arrays.values():
            flat = arr.reshape(-1)
            vals = ", ".join(str(int(x)) + ("LL" if arr.dtype.itemsize == 8 else "")
                             for x in flat) or "0"
            out.append(f"static {dtype_scalar(arr.dtype).c} {cname}[{max(1, flat.size)}] = "
                       f"{{{vals}}};")
        out.extend(inst.prototype(self) + ";" for inst in self.order)
        for inst, body in bodies:
            out.append(inst.prototype(self) + " {\n" + body + "\n}")
        out.extend(_entry_wrapper(e) for e in self.entries)
        return "\n".join(out) + "\n"


def _entry_wrapper(e: Entry) -> str:
    """``void mcx_NAME(int64_t *ret, ...)``: arrays as pointer and shape,
    scalars as int64, results written to ret."""
    params, args = ["int64_t *ret"], []
    for k, t in enumerate(e.argtypes):
        if isinstance(t, Array):
            params.append(f"{t.elem.c} *a{k}")
            params.extend(f"int64_t a{k}_s{d}" for d in range(t.ndim))
            args.append(f"a{k}")
            args.extend(f"a{k}_s{d}" for d in range(t.ndim))
        else:
            params.append(f"int64_t a{k}")
            args.append(f"(a{k} != 0)" if t == BOOL else f"({t.c})a{k}")  # type: ignore[union-attr]
    call = f"{e.instance.cname}({', '.join(args)})"
    ret = e.instance.ret
    if ret is None:
        body = f"    {call};"
    elif isinstance(ret, TupleType):
        body = f"    __auto_type r = {call};\n" + "\n".join(
            f"    ret[{k}] = (int64_t)r.f{k};" for k in range(len(ret.items)))
    else:
        body = f"    ret[0] = (int64_t){call};"
    return f"void mcx_{e.name}({', '.join(params)}) {{\n{body}\n}}"


def _c_type(t: CType | None, program: Program) -> str:
    if t is None:
        return "void"
    if isinstance(t, Scalar):
        return t.c
    if isinstance(t, TupleType):
        return program.tuple_name(t)
    raise NotTranslatable(f"a value of type {t} where a scalar or tuple is wanted")


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)
