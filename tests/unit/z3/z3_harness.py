"""Differential helpers: ask the Z3 encoding the questions the reference
evaluator answers directly (successors of a state, run-time errors, property
values), on concrete states fixed by constraints, so the symbolic code paths
of the encoding are the ones exercised."""
from __future__ import annotations

import random
from typing import Any

import z3

from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.engines.z3.encoding import Encoding, EncodingOptions, StateCopy
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type)
from modelcheck.ir.values import FrozenDict, domain

__all__ = ["random_value", "random_states", "Probe", "ENCODINGS"]

#: Encoding choices every differential test runs under.
ENCODINGS = [
    EncodingOptions(),
    EncodingOptions(ints="int", sets="bools"),
    EncodingOptions(ints="bv", sets="bools", params="choice"),
    EncodingOptions(ints="int", sets="bv", params="choice"),
]


def random_value(t: Type, rng: random.Random) -> Any:
    """A random value of ``t`` (without enumerating big domains)."""
    if isinstance(t, BoolType):
        return rng.random() < 0.5
    if isinstance(t, IntType):
        return rng.randint(t.lo, t.hi)
    if isinstance(t, (EnumType, ModelType)):
        return rng.choice(t.members)
    if isinstance(t, SetType):
        return frozenset(x for x in domain(t.elem) if rng.random() < 0.4)
    if isinstance(t, MapType):
        return FrozenDict({k: random_value(t.value, rng) for k in domain(t.key)})
    if isinstance(t, SeqType):
        return tuple(random_value(t.elem, rng) for _ in range(rng.randint(0, t.capacity)))
    if isinstance(t, BagType):
        counts: dict[Any, int] = {}
        for _ in range(rng.randint(0, t.capacity)):
            x = random_value(t.elem, rng)
            counts[x] = counts.get(x, 0) + 1
        return FrozenDict(counts)
    if isinstance(t, OptionType):
        return None if rng.random() < 0.3 else random_value(t.elem, rng)
    if isinstance(t, RecordType):
        return FrozenDict({n: random_value(ft, rng) for n, ft in t.fields})
    if isinstance(t, TupleType):
        return tuple(random_value(e, rng) for e in t.elems)
    raise TypeError(t)


def random_states(model: ir.Model, rng: random.Random, n: int) -> list[dict[str, Any]]:
    return [{v.name: random_value(v.type, rng) for v in model.vars} for _ in range(n)]


class Probe:
    """One model under one encoding, with the reference evaluator beside it."""

    def __init__(self, model: ir.Model, options: EncodingOptions | None = None):
        self.model = model
        self.enc = Encoding(model, options)
        self.ev = Evaluator(model)
        self.pre = self.enc.state("pre:")
        self.post = self.enc.state("post:")
        self.step = self.enc.step(self.pre, self.post, 0)

    def fix(self, copy: StateCopy, values: dict[str, Any]) -> z3.BoolRef:
        sy = self.enc.sy
        return z3.And([sy.same(copy.vars[v.name], sy.const(values[v.name], v.type))
                       for v in self.model.vars] + [copy.wf])

    def solver(self, *facts: z3.BoolRef) -> z3.Solver:
        s = self.enc.solver()
        s.add(*facts)
        return s

    # ---------------------------------------------------------------- the encoding's answers

    def z3_successors(self, values: dict[str, Any]) -> set:
        """Every (action, params, next state) the transition relation allows."""
        s = self.solver(self.fix(self.pre, values), self.post.wf, self.step.formula)
        out = set()
        while s.check() == z3.sat:
            m = s.model()
            action, params = self.enc.decode_step(m, self.step)
            nxt = self.enc.decode_state(m, self.post)
            out.add((action, params, self.ev.state_from_dict(nxt)))
            block = [self.enc.sy.same(self.post.vars[v.name],
                                      self.enc.sy.const(nxt[v.name], v.type))
                     for v in self.model.vars]
            block.append(self.step.selector.term == m.eval(self.step.selector.term,
                                                           model_completion=True))
            inst = self.enc.instances[self.enc.sy.nums.decode(m, self.step.selector)]
            for c in inst.choices:
                if any(c.value is v for _, v in inst.params):
                    renamed = self.step.choices[c.name]
                    block.append(self.enc.sy.same(renamed, self.enc.sy.const(
                        self.enc.sy.decode(m, renamed), c.type)))
            s.add(z3.Not(z3.And(block)))
        return out

    def z3_faults(self, values: dict[str, Any]) -> bool:
        return self.solver(self.fix(self.pre, values), self.step.faults).check() == z3.sat

    def z3_enabled(self, values: dict[str, Any]) -> bool:
        f = self.enc.enabled(self.pre)
        return self.solver(self.fix(self.pre, values), f).check() == z3.sat

    def z3_props(self, values: dict[str, Any]) -> dict[str, str]:
        """Each (state) property's outcome in one state: "error", "true" or
        "false".  The state is fixed, so one model decides every formula."""
        s = self.solver(self.fix(self.pre, values))
        assert s.check() == z3.sat
        m = s.model()
        out = {}
        for prop in self.model.properties:
            if prop.kind is ir.PropertyKind.STEP:
                continue
            holds, faults = self.enc.prop(prop, self.pre)
            if z3.is_true(m.eval(faults, model_completion=True)):
                out[prop.name] = "error"
            else:
                out[prop.name] = "true" if z3.is_true(m.eval(holds, model_completion=True)) \
                    else "false"
        return out

    def z3_initial(self) -> set:
        s0 = self.enc.state("init:")
        init, faults = self.enc.init(s0)
        if self.solver(faults).check() == z3.sat:
            return {"error"}
        s = self.solver(init, s0.wf)
        out = set()
        while s.check() == z3.sat:
            values = self.enc.decode_state(s.model(), s0)
            out.add(self.ev.state_from_dict(values))
            s.add(z3.Not(self.fix(s0, values)))
        return out

    # ---------------------------------------------------------------- the reference's answers

    def ref_successors(self, values: dict[str, Any]) -> set | str:
        try:
            return {(t.action, tuple(t.params), t.state)
                    for t in self.ev.successors(self.ev.state_from_dict(values))}
        except EvalError:
            return "error"

    def ref_prop(self, prop: ir.Property, values: dict[str, Any],
                 post: dict[str, Any] | None = None) -> str:
        st = self.ev.state_from_dict(values)
        try:
            if post is None:
                return "true" if self.ev.check_property(prop.name, st) else "false"
            return "true" if self.ev.check_property(prop.name, st,
                                                    self.ev.state_from_dict(post)) else "false"
        except EvalError:
            return "error"

    def ref_initial(self) -> set:
        try:
            return set(self.ev.initial_states())
        except EvalError:
            return {"error"}
