"""Constant folding for the code generator.

Specs are full of expressions that read no state and no bound name: constant
configuration (``commit_rule == any_term``), inlined ``def`` bodies applied to
constants, whole-type sets.  They are computed once at generation time with
the reference evaluator (so with exactly its semantics) and emitted as
constants: the generated code is smaller, and numba, whose compile time grows
with the size of the code, compiles it sooner.  An expression whose
evaluation fails is left alone, to fail at run time where it is reached, as
the reference evaluator does.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from modelcheck.engines.compiled.codegen.params import is_runtime
from modelcheck.engines.compiled.reps import MAX_BITSET_RANKS
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import BagType, MapType, SetType
from modelcheck.ir.visit import children
from modelcheck.semantics.types import bounded_size

__all__ = ["Folder"]

class Folder:
    def __init__(self, model: ir.Model):
        self.ev = Evaluator(model)
        # id(node) -> (node, free names or None when the node reads the state);
        # the node is kept so that its id is not reused while the memo lives.
        self._free: dict[int, tuple[Any, frozenset[str] | None]] = {}
        self._values: dict[int, tuple[Any, bool, Any]] = {}
        self._large: dict[int, tuple[Any, bool]] = {}

    def free(self, e: ir.Expr) -> frozenset[str] | None:
        """The bound names ``e`` reads, or None if it reads a state variable."""
        hit = self._free.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        result: frozenset[str] | None
        if isinstance(e, ir.Var) or is_runtime(e):
            # A constant read at run time is folded no more than the state.
            result = None
        elif isinstance(e, ir.Local):
            result = frozenset({e.name})
        else:
            result = frozenset()
            bound = e.var if isinstance(e, (ir.Quant, ir.SetComp, ir.SumComp, ir.MapComp)) \
                else e.name if isinstance(e, ir.LetExpr) else None
            for child in children(e):
                inner = self.free(child)
                if inner is None:
                    result = None
                    break
                if bound is not None and not (isinstance(e, ir.LetExpr) and child is e.value) \
                        and not (isinstance(e, (ir.Quant, ir.SetComp, ir.SumComp))
                                 and child is e.domain):
                    inner = inner - {bound}
                result |= inner
        self._free[id(e)] = (e, result)
        return result

    def large(self, e: ir.Expr) -> bool:
        """Whether ``e`` builds a collection too large for a bitset (such as
        ``0..1000000000``): the evaluator would enumerate it, in time and memory
        that grow with its size, so the generated code computes it instead
        (a loop, a length by arithmetic) or the engine declines."""
        hit = self._large.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        result = _too_many_elements(e.type) or any(self.large(c) for c in children(e))
        self._large[id(e)] = (e, result)
        return result

    def shape(self, e: ir.Expr) -> tuple[tuple, frozenset[str]]:
        """``e`` up to the names of its own binders (two inlined calls of one
        def bind their parameters under different names), and the bound names
        it reads from outside."""
        free: set[str] = set()
        return _shape(e, (), free), frozenset(free)

    def constant(self, e: ir.Expr) -> tuple[bool, Any]:
        """(True, value) when ``e`` reads nothing and evaluates without error."""
        if isinstance(e, ir.Const):
            return (False, None) if is_runtime(e) else (True, e.value)
        hit = self._values.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1], hit[2]
        ok, value = False, None
        if self.free(e) == frozenset() and not self.large(e):
            try:
                value = self.ev.eval(e, ())
                ok = True
            except EvalError:
                ok = False
        self._values[id(e)] = (e, ok, value)
        return ok, value


def _too_many_elements(t: Any) -> bool:
    if isinstance(t, (SetType, BagType)):
        return bounded_size(t.elem, MAX_BITSET_RANKS) > MAX_BITSET_RANKS
    if isinstance(t, MapType):
        return bounded_size(t.key, MAX_BITSET_RANKS) > MAX_BITSET_RANKS
    return False


def _shape(e: Any, bound: tuple[str, ...], free: set[str]) -> Any:
    if isinstance(e, ir.Local):
        for depth, name in enumerate(reversed(bound)):
            if name == e.name:
                return ("bound", depth)
        free.add(e.name)
        return ("free", e.name)
    if isinstance(e, ir.Const):
        # Two flags equal in this run are not in the next: keep them apart.
        return ("param", e.name) if is_runtime(e) else ("const", e.type, e.value)
    if isinstance(e, ir.Var):
        return ("var", e.name, e.primed)
    if isinstance(e, ir.LetExpr):
        return ("let", e.type, _shape(e.value, bound, free),
                _shape(e.body, bound + (e.name,), free))
    if isinstance(e, ir.Quant):
        inner = bound + (e.var,)
        return ("quant", e.kind, _shape(e.domain, bound, free), _shape(e.body, inner, free))
    if isinstance(e, (ir.SetComp, ir.SumComp)):
        inner = bound + (e.var,)
        cond = None if e.cond is None else _shape(e.cond, inner, free)
        return (type(e).__name__, e.type, _shape(e.domain, bound, free), cond,
                _shape(e.elem, inner, free))
    if isinstance(e, ir.MapComp):
        return ("mapcomp", e.type, _shape(e.value, bound + (e.var,), free))
    if isinstance(e, ir.RecordLit):
        return ("record", e.type, tuple((n, _shape(x, bound, free)) for n, x in e.fields))
    parts: list[Any] = [type(e).__name__]
    for f in dataclasses.fields(e):
        if f.name == "span":
            continue
        value = getattr(e, f.name)
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            parts.append(tuple(_shape(x, bound, free) for x in value))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type) \
                and f.name != "type":
            parts.append(_shape(value, bound, free))
        else:
            parts.append(value)
    return tuple(parts)
