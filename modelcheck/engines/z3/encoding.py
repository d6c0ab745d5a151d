"""The spec as Z3 formulas: the one place where encoding choices are made.

``EncodingOptions`` names every choice (measured by bench/z3_encoding.py):

* ``ints``: ``"bv"`` (a signed bit-vector sized by interval arithmetic) or
  ``"int"`` (Z3 integers; what Spacer and lemma printing prefer);
* ``sets``: ``"bv"`` (one bit-vector per set) or ``"bools"`` (one boolean per
  element);
* ``params``: ``"expand"`` (one disjunct per parameter binding: constants
  fold; an action of more than ``stmts.EXPAND_BINDINGS`` bindings still has
  its parameters as unknowns) or ``"choice"`` (one disjunct per action,
  parameters as unknowns);
* ``solver``: ``"incremental"`` (one solver, one step added per depth) or
  ``"fresh"`` (BMC builds a new solver for each depth).

An ``Encoding`` translates the model once, over a *template* copy of the
state, into: the initial-state predicate, the transition relation (a selector
unknown picks the action instance; each instance constrains the next state
fully: written variables get their new value, the others keep theirs), the
run-time error flag of a step, each property, and the enabledness predicate
used for deadlock.  ``state``/``step`` make further copies by substitution,
so deepening a BMC run or unrolling k-induction never re-translates the spec.

State constraints (docs/design.md, "State constraints") restrict the
transition relation to source states *in the model* (every constraint true,
none raising a run-time error): a state outside it is reached and checked,
never expanded.  So a path's states before its last are in the model, and
the reachable states of the relation are exactly the reference explorer's
stored states plus the successors it checks and drops.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import z3

from modelcheck.engines.z3.containers import Containers
from modelcheck.engines.z3.exprs import Exprs, Fault, Scope
from modelcheck.engines.z3.logic import TRUE, conj, disj, implies, neg
from modelcheck.engines.z3.scalars import NUM_MODES, SNum
from modelcheck.engines.z3.sparse import sparse_families
from modelcheck.engines.z3.stmts import EXPAND_BINDINGS, PARAM_MODES, Actions, Choice, Instance
from modelcheck.engines.z3.symbolic import SET_MODES, EncodingUnsupported, Leaf, Sym, Syms
from modelcheck.ir import nodes as ir
from modelcheck.ir.values import domain_size

__all__ = ["EncodingOptions", "Encoding", "StateCopy", "StepCopy", "EncodingUnsupported",
           "SOLVER_MODES"]

#: How BMC deepens: a new solver per depth, or one solver growing.
SOLVER_MODES = ("fresh", "incremental")

#: Above this many choice combinations, "some choice enables the action" is
#: left to Z3 as an existential quantifier instead of being expanded.
_EXPAND_LIMIT = 4096
#: Above this many, the choices the guard does not read are not expanded
#: (finding them walks the guard's formula).
_FEW_CHOICES = 256

_TEMPLATE = "@:"
_TEMPLATE_NEXT = "@':"


@dataclass(frozen=True)
class EncodingOptions:
    ints: str = "bv"
    sets: str = "bv"
    params: str = "expand"
    solver: str = "incremental"

    def __post_init__(self) -> None:
        for name, allowed in (("ints", NUM_MODES), ("sets", SET_MODES), ("params", PARAM_MODES),
                              ("solver", SOLVER_MODES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"encoding option {name}={getattr(self, name)!r}: "
                                 f"choose one of {', '.join(allowed)}")

    @classmethod
    def from_extra(cls, extra: dict[str, Any], **defaults: str) -> "EncodingOptions":
        """Options from ``CheckOptions.extra["z3_encoding"]`` (a dict or an
        ``EncodingOptions``), over ``defaults``."""
        given = extra.get("z3_encoding")
        if isinstance(given, EncodingOptions):
            return given
        return cls(**{**defaults, **(given or {})})


@dataclass
class StateCopy:
    """One copy of the state: each variable's symbolic value, the constraint
    that makes them well-formed (in their types, canonical), their fields."""
    tag: str
    vars: dict[str, Sym]
    wf: z3.BoolRef
    leaves: list[Leaf]
    terms: list[z3.ExprRef]


@dataclass
class StepCopy:
    """One step between two state copies: the transition formula, the error
    flag (some action instance raises a run-time error from the first state),
    the selector naming the instance taken, and this step's choice unknowns."""
    index: int
    formula: z3.BoolRef
    faults: z3.BoolRef
    selector: SNum
    choices: dict[str, Sym] = field(default_factory=dict)


class Encoding:
    """One model translated to Z3 under one set of encoding choices."""

    def __init__(self, model: ir.Model, options: EncodingOptions | None = None,
                 deadline: float | None = None):
        self.model = model
        self.options = options or EncodingOptions()
        # Past ``deadline`` (time.monotonic()), building raises EncodingTimeout.
        self.sy = Syms(self.options.ints, self.options.sets, deadline, sparse_families(model))
        self.co = Containers(self.sy)
        self._t = self.state(_TEMPLATE)
        self._tn = self.state(_TEMPLATE_NEXT)
        actions = Actions(model, self.sy, self.exprs, self.options.params)
        self.instances: list[Instance] = list(actions.instances(self._t.vars, _TEMPLATE))
        n = len(self.instances)
        self._selector, selector_ok = self.sy.nums.var(_TEMPLATE + "action", 0, max(0, n - 1))
        self._in_model = self._constraints_template()
        self._trans, self._faults = self._transition(selector_ok)
        self._init: tuple[z3.BoolRef, list[Fault]] | None = None
        self._props: dict[tuple[str, str], tuple[z3.BoolRef, z3.BoolRef]] = {}
        self._enabled: z3.BoolRef | None = None
        # Set by ``enabled`` when it needs a quantifier: ask for enabledness
        # before making a solver, which is chosen by it.
        self.quantified = False

    def solver(self) -> z3.Solver:
        """A solver for this encoding's formulas: the bit-vector solver when
        everything is bits (measured: 10-25x faster than the default solver
        on two_phase), the linear-arithmetic one when everything is ints."""
        o = self.options
        if o.ints == "bv":
            return z3.SolverFor("BV" if self.quantified else "QF_BV")
        if o.sets == "bools" and not self.quantified:
            return z3.SolverFor("QF_LIA")
        return z3.Solver()

    def exprs(self, faults: list[Fault]) -> Exprs:
        return Exprs(self.sy, self.co, faults)

    # ---------------------------------------------------------------- copies

    def state(self, tag: str) -> StateCopy:
        wf: list[z3.BoolRef] = []
        leaves: list[Leaf] = []
        vars_ = {v.name: self.sy.fresh(v.type, v.name, wf, leaves, None, tag) for v in self.model.vars}
        terms = [x for v in self.model.vars for x in self.sy.terms(vars_[v.name])]
        return StateCopy(tag, vars_, conj(wf), leaves, terms)

    def _pairs(self, template: StateCopy, copy: StateCopy) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
        return list(zip(template.terms, copy.terms))

    def _subst(self, f: z3.ExprRef, pairs: list) -> z3.ExprRef:
        self.sy.tick()
        return z3.substitute(f, *pairs) if pairs else f

    def step(self, pre: StateCopy, post: StateCopy, index: int) -> StepCopy:
        """The step from ``pre`` to ``post``; ``index`` names its unknowns."""
        tag = f"{index}:"
        pairs = self._pairs(self._t, pre) + self._pairs(self._tn, post)
        selector, _ = self.sy.nums.var(tag + "action", self._selector.lo, self._selector.hi)
        pairs.append((self._selector.term, selector.term))
        choices: dict[str, Sym] = {}
        for inst in self.instances:
            for c in inst.choices:
                renamed = self.sy.fresh(c.type, tag + c.name[len(_TEMPLATE):], [])
                choices[c.name] = renamed
                pairs.extend(zip(self.sy.terms(c.value), self.sy.terms(renamed)))
        return StepCopy(index, self._subst(self._trans, pairs), self._subst(self._faults, pairs),
                        selector, choices)

    # ---------------------------------------------------------------- transition

    def _transition(self, selector_ok: z3.BoolRef) -> tuple[z3.BoolRef, z3.BoolRef]:
        t, tn, sy = self._t, self._tn, self.sy
        parts = [selector_ok]
        faults = []
        if not self.instances:
            parts.append(z3.BoolVal(False))
        for i, inst in enumerate(self.instances):
            wf = conj(w for c in inst.choices for w in c.wf)
            fails = disj(f.cond for f in inst.faults)
            frame = conj(sy.same(tn.vars[v.name], inst.writes.get(v.name, t.vars[v.name]))
                         for v in self.model.vars)
            chosen = sy.nums.eq_const(self._selector, i)
            parts.append(implies(chosen, conj([wf, inst.alive, neg(fails), frame])))
            faults.append(conj([wf, fails]))
        # Only a state in the model is expanded (its steps, and their errors).
        inside, _ = self._in_model
        return conj([inside] + parts), conj([inside, disj(faults)])

    def _constraints_template(self) -> tuple[z3.BoolRef, z3.BoolRef]:
        """On the template state: "in the model" (every constraint holds and
        none raises), and the flag of a run-time error evaluating them.  The
        reference evaluates them in order and stops at the first false one
        (``all``), so a later constraint's error counts only past it."""
        faults: list[Fault] = []
        ex = self.exprs(faults)
        scope = Scope(self._t.vars, None, {})
        holds: list[z3.BoolRef] = []
        for c in self.model.constraints:
            holds.append(ex.boolean(c.expr, scope, conj(holds)))
        bad = disj(f.cond for f in faults)
        return conj(holds + [neg(bad)]), bad

    def in_model(self, s: StateCopy) -> tuple[z3.BoolRef, z3.BoolRef]:
        """``s`` is in the model (satisfies every constraint without a
        run-time error), and the flag of a run-time error evaluating them."""
        pairs = self._pairs(self._t, s)
        inside, bad = self._in_model
        return self._subst(inside, pairs), self._subst(bad, pairs)

    # ---------------------------------------------------------------- predicates

    def init(self, s: StateCopy) -> tuple[z3.BoolRef, z3.BoolRef]:
        """The initial-state predicate on ``s``, and the flag of a run-time
        error in computing the initial values (MC5001 included)."""
        if self._init is None:
            self._init = self._init_template()
        formula, faults = self._init
        pairs = self._pairs(self._t, s)
        return self._subst(formula, pairs), disj(self._subst(f.cond, pairs) for f in faults)

    def _init_template(self) -> tuple[z3.BoolRef, list[Fault]]:
        faults: list[Fault] = []
        ex = self.exprs(faults)
        scope = Scope({}, None, {})
        parts = []
        for decl in self.model.vars:
            target = self._t.vars[decl.name]
            value = ex.tr(decl.init, scope, TRUE)
            if decl.init_kind is ir.InitKind.EQ:
                choices = [(TRUE, value)]
            else:
                choices = self.co.elements(value)
            bad = disj(conj([g, neg(self.sy.in_type(x, decl.type))]) for g, x in choices)
            ex.fault(TRUE, bad, "MC5001", f"initial value of '{decl.name}' outside its type",
                     decl.init.span or decl.span)
            parts.append(disj(conj([g, self.sy.same(target, self.sy.convert(x, decl.type))])
                              for g, x in choices))
        return conj(parts), faults

    def prop(self, p: ir.Property, s: StateCopy,
             post: StateCopy | None = None) -> tuple[z3.BoolRef, z3.BoolRef]:
        """The property's expression in ``s`` (and ``post``, for a step
        invariant) and the flag of a run-time error in evaluating it."""
        return self.expr(p.expr, s, post, key=("prop", p.name))

    def expr(self, e: ir.Expr, s: StateCopy, post: StateCopy | None = None,
             key: tuple[str, str] | None = None) -> tuple[z3.BoolRef, z3.BoolRef]:
        cached = self._props.get(key) if key is not None else None
        if cached is None:
            faults: list[Fault] = []
            scope = Scope(self._t.vars, self._tn.vars, {})
            formula = self.exprs(faults).boolean(e, scope, TRUE)
            # One substitution of the faults' disjunction, not one per fault.
            cached = (formula, disj(f.cond for f in faults))
            if key is not None:
                self._props[key] = cached
        formula, fault = cached
        pairs = self._pairs(self._t, s) + (self._pairs(self._tn, post) if post is not None else [])
        return self._subst(formula, pairs), self._subst(fault, pairs)

    def enabled(self, s: StateCopy) -> z3.BoolRef:
        """Some action instance has an outcome from ``s``."""
        if self._enabled is None:
            self._enabled = disj(self._some_choice(inst) for inst in self.instances)
        return self._subst(self._enabled, self._pairs(self._t, s))

    def _some_choice(self, inst: Instance) -> z3.BoolRef:
        choices = inst.choices
        if _choices(choices) > _FEW_CHOICES:
            # A choice the instance's guard never reads (``v`` in
            # ``Send(n, v)`` whose guard is ``len(msgs) < 3``) has some value
            # whatever the state: expanding it would repeat the same formula
            # once per value.
            read = _constants(inst.alive)
            choices = [c for c in choices
                       if any(t.get_id() in read for t in self.sy.terms(c.value))]
        body = conj([inst.alive] + [w for c in choices for w in c.wf])
        if not choices:
            return body
        # Parameters left as unknowns because they have too many bindings to
        # expand (``stmts.EXPAND_BINDINGS``) are not expanded here either: as
        # a quantifier, "some message in the set can be dropped" took 0.1 s
        # where 3,000 disjuncts took 3 s (BMC, depth 3).
        as_params = self.options.params == "expand" and any(
            c.value is v for _, v in inst.params for c in choices)
        if _choices(choices) > (EXPAND_BINDINGS if as_params else _EXPAND_LIMIT):
            self.quantified = True
            unknowns = [x for c in choices for x in self.sy.terms(c.value)]
            return z3.Exists(unknowns, body)
        options = []
        domains = [self.sy.domain(c.type) for c in choices]
        for combo in itertools.product(*domains):
            pairs = []
            for c, v in zip(choices, combo):
                pairs.extend(zip(self.sy.terms(c.value), self.sy.terms(self.sy.const(v, c.type))))
            options.append(z3.simplify(self._subst(body, pairs)))
        return disj(options)

    def terminal(self, s: StateCopy) -> tuple[z3.BoolRef, z3.BoolRef]:
        """``s`` satisfies some ``terminal`` declaration; the error flag of evaluating them."""
        forms, faults = [], []
        for p in self.model.terminals:
            f, bad = self.expr(p.expr, s, None, key=("terminal", p.name))
            forms.append(f)
            faults.append(bad)
        return disj(forms), disj(faults)

    # ---------------------------------------------------------------- reading models

    def decode_state(self, m: z3.ModelRef, s: StateCopy) -> dict[str, Any]:
        return {v.name: self.sy.decode(m, s.vars[v.name]) for v in self.model.vars}

    def decode_step(self, m: z3.ModelRef, step: StepCopy) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """The action instance a step took, with its parameter values."""
        i = self.sy.nums.decode(m, step.selector)
        inst = self.instances[i]
        params = []
        for name, value in inst.params:
            for c in inst.choices:
                if c.value is value:
                    value = step.choices[c.name]
                    break
            params.append((name, self.sy.decode(m, value)))
        return inst.action, tuple(params)


def _choices(choices: list[Choice]) -> int:
    """How many combinations of values the choice unknowns have."""
    total = 1
    for c in choices:
        total *= domain_size(c.type)
    return total


def _constants(f: z3.ExprRef) -> set[int]:
    """The ids of the uninterpreted constants ``f`` reads."""
    seen: set[int] = set()
    found: set[int] = set()
    todo = [f]
    while todo:
        e = todo.pop()
        i = e.get_id()
        if i in seen:
            continue
        seen.add(i)
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.add(i)
        elif z3.is_app(e):
            todo.extend(e.children())
    return found
