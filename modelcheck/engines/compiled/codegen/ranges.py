"""The 64-bit audit: which models the compiled engine can compute exactly.

The generated code holds every int in an int64 and uses numba's native
arithmetic, which wraps silently on overflow.  The type checker gives every
int expression its static range (``semantics.intervals``), and a value of an
expression always lies in that range, so where every range the generated
code computes fits in 64 bits, native arithmetic is exact.  This module
checks that, at every place the generated code computes a value: each
expression's result, the partial results of a chained ``+ - * min max``, the
running total of a ``sum`` and the bound of a range loop; and every int type
a state, a parameter or a constant is declared with (the state words store
``value - lo`` in at most 64 bits).  A model that fails is declined
(``Unsupported``): the engine then runs the reference explorer, which
computes with Python's unbounded ints.
"""
from __future__ import annotations

from typing import Iterator

from modelcheck.engines.compiled.codegen.fold import Folder
from modelcheck.engines.compiled.reps import Unsupported
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import (BagType, IntType, MapType, OptionType, RecordType, SeqType,
                                 SetType, TupleType, Type, VariantType, render_type)
from modelcheck.ir.visit import body_exprs, children
from modelcheck.semantics import intervals as I
from modelcheck.semantics.types import bounded_size

__all__ = ["INT64_MIN", "INT64_MAX", "fits_int64", "check_int64"]

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

# More iterations than this cannot run in any case; the bound keeps the
# arithmetic on counts small.
_ITERATION_CAP = 1 << 64


def fits_int64(t: IntType) -> bool:
    return INT64_MIN <= t.lo and t.hi <= INT64_MAX


def check_int64(model: ir.Model, folder: Folder) -> None:
    """Raise ``Unsupported`` (naming the place) if some int the generated
    code of ``model`` computes or stores may leave the int64 range.
    ``folder``: the generator's; what it folds is computed exactly by the
    reference evaluator, so only the folded value must fit."""
    for name, t, _ in model.consts:
        _check_type(t, f"constant {name}")
    for v in model.vars:
        _check_type(v.type, f"variable {v.name}")
        _check_ranks(v.type, f"variable {v.name}")
    for action in model.actions:
        for p in action.params:
            _check_type(p.type, f"parameter {p.name} of {action.name}")
    for e in _model_exprs(model):
        stack = [e]
        while stack:
            node = stack.pop()
            if folder.free(node) == frozenset():
                known, value = folder.constant(node)
                if known:
                    _check_value(node, value)
                    continue
            _check_node(node)
            stack.extend(children(node))


def _model_exprs(model: ir.Model) -> Iterator[ir.Expr]:
    # Initial values are computed by the reference evaluator, not by kernels.
    for action in model.actions:
        yield from body_exprs(action.body)
    for prop in model.properties + model.terminals:
        yield prop.expr


def _int_types(t: Type) -> Iterator[IntType]:
    if isinstance(t, IntType):
        yield t
    elif isinstance(t, (SetType, BagType, SeqType, OptionType)):
        yield from _int_types(t.elem)
    elif isinstance(t, MapType):
        yield from _int_types(t.key)
        yield from _int_types(t.value)
    elif isinstance(t, RecordType):
        for _, ft in t.fields:
            yield from _int_types(ft)
    elif isinstance(t, TupleType):
        for ft in t.elems:
            yield from _int_types(ft)
    elif isinstance(t, VariantType):
        for _, payload in t.cases:
            yield from _int_types(payload)


def _ranked(t: Type) -> Iterator[Type]:
    """The types whose values the generated code numbers by rank: set and bag
    elements, map keys."""
    if isinstance(t, (SetType, BagType)):
        yield t.elem
    elif isinstance(t, MapType):
        yield t.key
    if isinstance(t, (SetType, BagType, SeqType, OptionType)):
        yield from _ranked(t.elem)
    elif isinstance(t, MapType):
        yield from _ranked(t.value)
    elif isinstance(t, (RecordType, TupleType)):
        for ft in (t.elems if isinstance(t, TupleType) else [f for _, f in t.fields]):
            yield from _ranked(ft)
    elif isinstance(t, VariantType):
        for _, payload in t.cases:
            yield from _ranked(payload)


def _check_ranks(t: Type, what: str) -> None:
    # A rank lies in 0 .. domain size - 1 and is computed in an int64.
    for elem in _ranked(t):
        if bounded_size(elem, INT64_MAX) > INT64_MAX:
            raise Unsupported(f"{what} holds values of {render_type(elem)}, too many to "
                              f"number in 64-bit integers")


def _check_type(t: Type, what: str) -> None:
    for it in _int_types(t):
        if not fits_int64(it):
            raise Unsupported(f"{what} has the type {it.lo}..{it.hi}, beyond 64-bit integers")


def _where(node: ir.Expr) -> str:
    span = getattr(node, "span", None)
    line = getattr(span, "line", None)
    return f" (line {line})" if line is not None else ""


def _too_wide(node: ir.Expr, r: IntType) -> Unsupported:
    return Unsupported(f"an int expression{_where(node)} ranges over {r.lo}..{r.hi}, "
                       f"beyond 64-bit integers")


def _need(node: ir.Expr, r: IntType) -> None:
    if not fits_int64(r):
        raise _too_wide(node, r)


_CHAINS = {Op.ADD: I.add, Op.SUB: I.sub, Op.MUL: I.mul, Op.MIN: I.minimum, Op.MAX: I.maximum}


def _check_value(node: ir.Expr, value: object) -> None:
    if isinstance(node.type, IntType) and not isinstance(value, bool):
        _need(node, I.point(value))
    else:
        for it in _int_types(node.type):
            _need(node, it)


def _check_node(node: ir.Expr) -> None:
    for it in _int_types(node.type):
        _need(node, it)
    if isinstance(node, ir.Apply):
        if node.op in _CHAINS and len(node.args) > 2:
            # ``a + b + c`` is computed left to right: each partial result too.
            acc = node.args[0].type
            for arg in node.args[1:-1]:
                acc = _CHAINS[node.op](acc, arg.type)
                _need(node, acc)
        elif node.op is Op.RANGE and isinstance(node.type.elem, IntType):
            # The range loop stops at ``hi + 1``; a range's length is hi - lo + 1.
            lo, hi = node.args[0].type, node.args[1].type
            _need(node, I.add(node.type.elem, I.point(1)))
            if isinstance(lo, IntType) and isinstance(hi, IntType):
                _need(node, I.add(I.sub(hi, lo), I.point(1)))
    elif isinstance(node, ir.SumComp) and isinstance(node.elem.type, IntType):
        # The running total after k of n terms lies in sum_of(elem, k); the
        # type checker bounds n by the domain's element type, but a sequence
        # is iterated with its duplicates, so count its positions instead.
        _need(node, I.sum_of(node.elem.type, _iterations(node.domain.type)))


def _iterations(t: Type) -> int:
    """How many times a loop over a value of ``t`` may run (a bag's loop visits
    its distinct elements)."""
    if isinstance(t, SeqType):
        return t.capacity
    elem = t.elem if isinstance(t, (SetType, BagType)) else t
    return bounded_size(elem, _ITERATION_CAP)
