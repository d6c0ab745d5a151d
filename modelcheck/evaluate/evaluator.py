"""The reference semantics of the IR: expressions, statements, initial states,
successors and property checks.  Every other engine is tested against it.

A state is a tuple of values, one per state variable in ``model.vars`` order.
Each IR node is turned once into a Python closure (``(state, env) -> value``
for expressions), so dispatch on the node class and on ``Op`` happens when the
model is loaded, not on every evaluation.  ``env`` maps bound names (action
parameters, let, pick, quantifier variables) to values; a few keys starting
with ``#`` (never a spec name) carry the post-state of a step invariant and the
outcome list of an action.

Statements are compiled in continuation-passing style: each statement gets the
code for the rest of its path, so ``pick`` and ``either`` simply call the rest
once per choice, in canonical order, and every complete path appends one
outcome.  Writes of a path live in a dict ``var index -> value`` that is undone
on the way back, so sibling paths never see each other's writes.

One module on purpose, though past the size the others keep to: it is one
compiler from IR nodes to closures, whose expression, statement and action
parts call each other (a statement's closure holds expressions', an
expression holds comprehensions' bodies, a ``pick`` holds the rest of the
path); the operators' own code is already apart (``ops``, ``ranges``).
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, ModelType, SeqType,
                                 SetType, Type, render_type)
from modelcheck.ir.values import FrozenDict, Variant, domain, in_type, order_key, render_value
from modelcheck.evaluate.ops import SHORT_CIRCUIT, Fault, can_fault, handler_for
from modelcheck.evaluate.ranges import range_answer, range_elements

__all__ = ["Evaluator", "Transition", "State"]

State = tuple
ExprFn = Callable[[State, dict], Any]
StmtFn = Callable[[State, dict, dict], None]

_POST = "#post"        # env key: the post-state, for primed variables
_OUT = "#out"          # env key: list collecting the outcomes of an action
_BLOCKED = "#blocked"  # env key: list collecting the requires that failed (replay)


class Transition(NamedTuple):
    """One outcome of one action instance: the action, its parameter binding
    (name, value) in declaration order, and the state it leads to."""
    action: str
    params: tuple[tuple[str, Any], ...]
    state: State


@dataclasses.dataclass(frozen=True)
class _CompiledAction:
    action: ir.Action
    names: tuple[str, ...]
    bindings: tuple[tuple[Any, ...], ...]   # every parameter binding, first parameter slowest
    params: tuple[tuple[tuple[str, Any], ...], ...]   # the same bindings as (name, value) pairs
    run: StmtFn
    explain: StmtFn                         # the same, also recording failed requires


def _error(code: str, message: str, span: Span | None, hint: str | None = None) -> EvalError:
    return EvalError(Diagnostic(code, message, span, hint=hint))


def _with_note(err: EvalError, note: str) -> EvalError:
    diag = err.diagnostic
    new = EvalError(dataclasses.replace(diag, notes=diag.notes + (note,)), err.trace)
    return new


def _label(action: str, params: tuple[tuple[str, Any], ...]) -> str:
    if not params:
        return action
    return f"{action}({', '.join(f'{n}={v}' for n, v in params)})"


def _sort_key(t: Type) -> Callable[[Any], Any]:
    """A key giving ``values.order_key`` order, fast for the atomic types."""
    if isinstance(t, (EnumType, ModelType)):
        positions = {m: i for i, m in enumerate(t.members)}
        return positions.__getitem__
    if isinstance(t, IntType):
        return lambda v: v
    if isinstance(t, BoolType):
        return int
    return lambda v: order_key(t, v)


class Evaluator:
    """The reference semantics of one model."""

    def __init__(self, model: ir.Model, heartbeat: Callable[[], None] | None = None):
        # ``heartbeat`` is called now and then during a long evaluation (a
        # quantifier over a range of millions): the explorer reports progress
        # and enforces its timeout from it, by raising.
        self.model = model
        self._heartbeat = heartbeat
        self.var_names: tuple[str, ...] = tuple(v.name for v in model.vars)
        self._var_index = {name: i for i, name in enumerate(self.var_names)}
        self._exprs: dict[int, tuple[ir.Expr, ExprFn]] = {}
        self._constants: dict[ExprFn, Any] = {}   # compiled expressions that read nothing
        # Values already found inside a variable's declared type, per variable:
        # a value written again (the common case) is not walked again, and the
        # states share one copy of it, which keeps big searches smaller.
        self._in_type_ok: list[dict] = [{} for _ in model.vars]
        # Actions and properties are compiled when first used: many
        # evaluators only evaluate constants, or replay a trace's few
        # actions, and compiling all of the quorum queue takes 0.1 s.
        self._action_by_name: dict[str, _CompiledAction] = {}
        self._props: dict[str, ExprFn] = {}

    @functools.cached_property
    def _actions(self) -> tuple[_CompiledAction, ...]:
        return tuple(self._action(a.name) for a in self.model.actions)

    def _action(self, name: str) -> _CompiledAction:
        compiled = self._action_by_name.get(name)
        if compiled is None:
            compiled = self._compile_action(self.model.action(name))
            self._action_by_name[name] = compiled
        return compiled

    @functools.cached_property
    def _terminals(self) -> tuple[ExprFn, ...]:
        return tuple(self._expr(p.expr) for p in self.model.terminals)

    @functools.cached_property
    def _constraints(self) -> tuple[ExprFn, ...]:
        return tuple(self._expr(p.expr) for p in self.model.constraints)

    # ------------------------------------------------------------ public API

    def initial_states(self) -> list[State]:
        """The initial states: the product of each variable's initial values,
        in declaration order (the first variable varies slowest)."""
        choices = []
        for i, decl in enumerate(self.model.vars):
            value = self.eval(decl.init, ())
            if decl.init_kind is ir.InitKind.IN:
                elem_type = decl.init.type.elem if isinstance(decl.init.type, (SetType, BagType)) \
                    else decl.type
                options = sorted(value, key=_sort_key(elem_type))
            else:
                options = [value]
            choices.append([self._check_write(i, v, decl.init.span or decl.span,
                                              "the initial value") for v in options])
        return [tuple(c) for c in itertools.product(*choices)]

    def successors(self, state: State) -> Iterator[Transition]:
        """Every outcome of every action instance, in canonical order: actions in
        declaration order, bindings first-parameter-slowest, picks in canonical
        order, either branches in order."""
        for compiled in self._actions:
            name, run = compiled.action.name, compiled.run
            for params in compiled.params:
                # _run inlined: this loop is where exploration spends its time.
                out: list[State] = []
                env: dict[str, Any] = dict(params)
                env[_OUT] = out
                try:
                    run(state, env, {})
                except EvalError as err:
                    raise _with_note(err, f"while taking the step {_label(name, params)}") from None
                for new in out:
                    yield Transition(name, params, new)

    def outcomes(self, action: str, params: Iterable[tuple[str, Any]], state: State,
                 blocked: list | None = None) -> list[State]:
        """The states one action instance leads to from ``state``.  With
        ``blocked``, every ``require`` found false is appended to it (to explain
        why an action is not enabled)."""
        compiled = self._action(action)
        given = dict(params)
        binding = tuple(given[n] for n in compiled.names)
        if blocked is None:
            return self._run(compiled, binding, state, compiled.run, None)
        return self._run(compiled, binding, state, compiled.explain, blocked)

    def action_bindings(self, action: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
        """Every parameter binding of an action, in canonical order."""
        return self._action(action).params

    def eval(self, expr: ir.Expr, state: State, env: dict | None = None,
             post: State | None = None) -> Any:
        """The value of ``expr`` in ``state`` (``post`` is the state after the
        step, for primed variables), with ``env`` binding local names."""
        local = dict(env) if env else {}
        if post is not None:
            local[_POST] = post
        return self._expr(expr)(state, local)

    def check_property(self, name: str, state: State, post: State | None = None) -> bool:
        """Whether the property holds in ``state`` (or on the step ``state -> post``
        for a step invariant)."""
        env = {} if post is None else {_POST: post}
        check = self._props.get(name)
        if check is None:
            check = self._props[name] = self._expr(self.model.get_property(name).expr)
        return bool(check(state, env))

    def is_terminal(self, state: State) -> bool:
        """Whether the state satisfies some ``terminal`` declaration."""
        return any(t(state, {}) for t in self._terminals)

    def in_model(self, state: State) -> bool:
        """Whether the state satisfies every ``constraint`` (TLC's isInModel):
        one that does not is checked but neither stored nor explored."""
        return all(c(state, {}) for c in self._constraints)

    def state_dict(self, state: State) -> dict[str, Any]:
        return dict(zip(self.var_names, state))

    def state_from_dict(self, values: dict[str, Any]) -> State:
        return tuple(values[name] for name in self.var_names)

    # ------------------------------------------------------------ actions

    def _run(self, compiled: _CompiledAction, binding: tuple, state: State, body: StmtFn,
             blocked: list | None) -> list[State]:
        params = tuple(zip(compiled.names, binding))
        env: dict[str, Any] = dict(params)
        out: list[State] = []
        env[_OUT] = out
        if blocked is not None:
            env[_BLOCKED] = blocked
        try:
            body(state, env, {})
        except EvalError as err:
            raise _with_note(err, f"while taking the step {_label(compiled.action.name, params)}") \
                from None
        return out

    def _compile_action(self, action: ir.Action) -> _CompiledAction:
        names = tuple(p.name for p in action.params)
        bindings = tuple(itertools.product(*(domain(p.type) for p in action.params)))
        params = tuple(tuple(zip(names, b)) for b in bindings)
        return _CompiledAction(action, names, bindings, params,
                               self._stmts(action.body, self._emit, False),
                               self._stmts(action.body, self._emit, True))

    @staticmethod
    def _emit(state: State, env: dict, writes: dict) -> None:
        if writes:
            new = list(state)
            for i, v in writes.items():
                new[i] = v
            env[_OUT].append(tuple(new))
        else:
            env[_OUT].append(state)

    def _check_write(self, i: int, value: Any, span: Span | None, what: str) -> Any:
        """``value`` (or an equal copy already stored) if it is inside the
        declared type of variable ``i``; MC5001 at ``span`` otherwise."""
        ok = self._in_type_ok[i]
        known = ok.get(value)
        if known is not None:
            return known
        decl = self.model.vars[i]
        if not in_type(decl.type, value):
            raise _error("MC5001",
                         f"{what} {render_value(decl.type, value)} of '{decl.name}' is outside "
                         f"its declared type {render_type(decl.type)}",
                         span, hint="widen the declared type, or add a require that keeps "
                                    "the value inside it")
        # None (an option's none) is never stored: get() could not tell it apart.
        if value is not None:
            ok[value] = value
        return value

    def _stmts(self, stmts: tuple[ir.Stmt, ...], rest: StmtFn, explain: bool) -> StmtFn:
        for stmt in reversed(stmts):
            rest = self._stmt(stmt, rest, explain)
        return rest

    def _stmt(self, stmt: ir.Stmt, rest: StmtFn, explain: bool) -> StmtFn:
        if isinstance(stmt, ir.Require):
            cond = self._expr(stmt.cond)
            if explain:
                def require_explained(s: State, env: dict, w: dict) -> None:
                    if cond(s, env):
                        rest(s, env, w)
                    else:
                        env[_BLOCKED].append(stmt)
                return require_explained

            def require(s: State, env: dict, w: dict) -> None:
                if cond(s, env):
                    rest(s, env, w)
            return require
        if isinstance(stmt, ir.Let):
            name, value = stmt.name, self._expr(stmt.value)

            def let(s: State, env: dict, w: dict) -> None:
                env[name] = value(s, env)
                rest(s, env, w)
            return let
        if isinstance(stmt, ir.Pick):
            name, elems = stmt.name, self._elements(stmt.domain)

            def pick(s: State, env: dict, w: dict) -> None:
                for e in elems(s, env):
                    env[name] = e
                    rest(s, env, w)
            return pick
        if isinstance(stmt, ir.Assign):
            index, value, span = self._var_index[stmt.var], self._expr(stmt.value), stmt.span
            check = self._check_write

            def assign(s: State, env: dict, w: dict) -> None:
                v = value(s, env)
                w[index] = check(index, v, span, "the new value")
                try:
                    rest(s, env, w)
                finally:
                    del w[index]
            return assign
        if isinstance(stmt, ir.If):
            cond = self._expr(stmt.cond)
            then = self._stmts(stmt.then, rest, explain)
            else_ = self._stmts(stmt.else_, rest, explain)

            def if_(s: State, env: dict, w: dict) -> None:
                (then if cond(s, env) else else_)(s, env, w)
            return if_
        if isinstance(stmt, ir.Either):
            branches = tuple(self._stmts(b, rest, explain) for b in stmt.branches)

            def either(s: State, env: dict, w: dict) -> None:
                for branch in branches:
                    branch(s, env, w)
            return either
        raise TypeError(f"unknown statement {type(stmt).__name__}")

    # ------------------------------------------------------------ expressions

    def _expr(self, expr: ir.Expr) -> ExprFn:
        # Keyed by identity, not equality: equal nodes at different places
        # must report their own span when they fail.
        key = id(expr)
        hit = self._exprs.get(key)
        if hit is not None and hit[0] is expr:
            return hit[1]
        fn = self._compile(expr)
        if (not isinstance(expr, (ir.Var, ir.Local)) and fn not in self._constants
                and all(c in self._constants for c in self._children(expr))):
            fn = self._fold(fn)
        self._exprs[key] = (expr, fn)
        return fn

    def _children(self, expr: ir.Expr) -> list[ExprFn]:
        """The compiled direct sub-expressions of a node (already compiled)."""
        out: list[ExprFn] = []
        for f in dataclasses.fields(expr):
            value = getattr(expr, f.name)
            if isinstance(value, tuple):
                for item in value:
                    if isinstance(item, tuple):   # RecordLit fields: (name, expr)
                        item = item[1]
                    out.append(self._expr(item))
            elif f.name not in ("type", "span") and dataclasses.is_dataclass(value):
                out.append(self._expr(value))
        return out

    def _fold(self, fn: ExprFn) -> ExprFn:
        """A node whose sub-expressions are all constant is computed once, now.
        If that fails (say, a division by zero in a branch never taken), it is
        left to fail at run time, where it is reached."""
        try:
            value = fn((), {})
        except EvalError:
            return fn
        return self._constant(value)

    def _constant(self, value: Any) -> ExprFn:
        def constant(s: State, env: dict) -> Any:
            return value
        self._constants[constant] = value
        return constant

    def _elements(self, expr: ir.Expr) -> Callable[[State, dict], Iterable[Any]]:
        """The elements of a set (or the distinct elements of a bag, or a
        sequence's elements) in canonical order, for pick and comprehensions."""
        t = expr.type
        if isinstance(t, SeqType):
            return self._expr(expr)
        if ir.is_range(expr):
            lo, hi = (self._expr(a) for a in expr.args)
            return range_elements(lo, hi, self._heartbeat)
        if not isinstance(t, (SetType, BagType)):
            raise TypeError(f"cannot iterate over a value of type {render_type(t)}")
        key = _sort_key(t.elem)
        fn = self._expr(expr)
        if fn in self._constants:
            fixed = tuple(sorted(self._constants[fn], key=key))
            return lambda s, env: fixed
        return lambda s, env: sorted(fn(s, env), key=key)

    def _compile(self, e: ir.Expr) -> ExprFn:
        if isinstance(e, ir.Const):
            return self._constant(e.value)
        if isinstance(e, ir.Var):
            i = self._var_index[e.name]
            if e.primed:
                return lambda s, env: env[_POST][i]
            return lambda s, env: s[i]
        if isinstance(e, ir.Local):
            name = e.name
            return lambda s, env: env[name]
        if isinstance(e, ir.Apply):
            return self._apply(e)
        if isinstance(e, ir.IfExpr):
            c, a, b = self._expr(e.cond), self._expr(e.then), self._expr(e.else_)
            return lambda s, env: a(s, env) if c(s, env) else b(s, env)
        if isinstance(e, ir.LetExpr):
            return self._let_expr(e)
        if isinstance(e, ir.Quant):
            return self._quant(e)
        if isinstance(e, (ir.SetComp, ir.SumComp)):
            return self._comprehension(e)
        if isinstance(e, ir.MapComp):
            return self._map_comp(e)
        if isinstance(e, ir.SetLit) and isinstance(e.type, BagType):
            return self._bag_lit(e.elems)
        if isinstance(e, ir.SetLit):
            elems = tuple(self._expr(x) for x in e.elems)
            return lambda s, env: frozenset([f(s, env) for f in elems])
        if isinstance(e, ir.BagLit):
            return self._bag_lit(e.elems)
        if isinstance(e, (ir.SeqLit, ir.TupleLit)):
            elems = tuple(self._expr(x) for x in e.elems)
            return lambda s, env: tuple([f(s, env) for f in elems])
        if isinstance(e, ir.RecordLit):
            names = tuple(n for n, _ in e.fields)
            fields = tuple(self._expr(x) for _, x in e.fields)
            return lambda s, env: FrozenDict(zip(names, [f(s, env) for f in fields]))
        if isinstance(e, ir.FieldGet):
            rec, name = self._expr(e.record), e.field
            return lambda s, env: rec(s, env)[name]
        if isinstance(e, ir.FieldSet):
            rec, name, value = self._expr(e.record), e.field, self._expr(e.value)
            return lambda s, env: rec(s, env).set(name, value(s, env))
        if isinstance(e, ir.VariantLit):
            return self._variant_lit(e)
        if isinstance(e, ir.CaseTest):
            subject, case = self._expr(e.subject), e.case
            return lambda s, env: subject(s, env).tag == case
        if isinstance(e, ir.CasePayload):
            # Read only where the case test holds (match lowers to if on it).
            subject = self._expr(e.subject)
            return lambda s, env: subject(s, env).value
        raise TypeError(f"unknown expression {type(e).__name__}")

    def _variant_lit(self, e: ir.VariantLit) -> ExprFn:
        """A variant's fields are checked against their declared types when it
        is built (MC5001 there), so a value of a variant type always is one:
        every engine can then hold it in its declared representation."""
        case, payload = e.case, self._expr(e.payload)
        ptype = e.type.case_type(case)
        given = dict(e.payload.fields) if isinstance(e.payload, ir.RecordLit) else {}
        checks = tuple((name, ft, given[name].span or e.span) for name, ft in ptype.fields
                       if name in given and given[name].type != ft)
        if not checks and (given or e.payload.type == ptype):
            return lambda s, env: Variant(case, payload(s, env))

        def build(s: State, env: dict) -> Variant:
            value = payload(s, env)
            for name, ft, span in checks or tuple((n, t, e.span) for n, t in ptype.fields):
                if not in_type(ft, value[name]):
                    raise _error("MC5001",
                                 f"the field {name} of {case} is {render_value(ft, value[name])}, "
                                 f"outside its declared type {render_type(ft)}",
                                 span, hint="a variant's fields are checked when it is built: "
                                            "narrow the value, or widen the field's type")
            return Variant(case, value)
        return build

    def _bag_lit(self, elems_ir: tuple[ir.Expr, ...]) -> ExprFn:
        elems = tuple(self._expr(x) for x in elems_ir)

        def bag(s: State, env: dict) -> FrozenDict:
            counts: dict[Any, int] = {}
            for f in elems:
                v = f(s, env)
                counts[v] = counts.get(v, 0) + 1
            return FrozenDict(counts)
        return bag

    def _apply(self, e: ir.Apply) -> ExprFn:
        op = e.op
        if ir.asks_a_range(e):
            lo, hi = (self._expr(a) for a in e.args[-1].args)
            x = self._expr(e.args[0]) if op is Op.IN else None
            return range_answer(op, lo, hi, x, e.span)
        args = tuple(self._expr(a) for a in e.args)
        if op in SHORT_CIRCUIT:
            return self._short_circuit(op, args)
        fn = handler_for(op, tuple(a.type for a in e.args))
        if can_fault(op):
            return self._guarded_call(fn, args, e.span)
        return self._call(fn, args)

    def _call(self, fn: Callable[..., Any], args: tuple[ExprFn, ...]) -> ExprFn:
        """``fn`` applied to the arguments' values; a constant second argument
        (``x == c``, ``m[k]`` with a fixed key...) is passed as is."""
        constants = self._constants
        if len(args) == 1:
            (a,) = args
            return lambda s, env: fn(a(s, env))
        if len(args) == 2:
            a, b = args
            if b in constants:
                cb = constants[b]
                return lambda s, env: fn(a(s, env), cb)
            return lambda s, env: fn(a(s, env), b(s, env))
        return lambda s, env: fn(*[f(s, env) for f in args])

    @staticmethod
    def _guarded_call(fn: Callable[..., Any], args: tuple[ExprFn, ...],
                      span: Span | None) -> ExprFn:
        """Like ``_call`` for an operation that may fail: its ``Fault`` becomes
        an EvalError at this expression's span.  (A fault deeper down has
        already become an EvalError at its own span.)"""
        if len(args) == 2:
            a, b = args

            def call2(s: State, env: dict) -> Any:
                try:
                    return fn(a(s, env), b(s, env))
                except Fault as fault:
                    raise _error(fault.code, fault.message, span) from None
            return call2

        def call(s: State, env: dict) -> Any:
            try:
                return fn(*[f(s, env) for f in args])
            except Fault as fault:
                raise _error(fault.code, fault.message, span) from None
        return call

    @staticmethod
    def _short_circuit(op: Op, args: tuple[ExprFn, ...]) -> ExprFn:
        if op is Op.IMPLIES:
            a, b = args
            return lambda s, env: (not a(s, env)) or bool(b(s, env))
        if op is Op.AND:
            if len(args) == 2:
                a, b = args
                return lambda s, env: bool(a(s, env)) and bool(b(s, env))
            return lambda s, env: all(f(s, env) for f in args)
        if len(args) == 2:
            a, b = args
            return lambda s, env: bool(a(s, env)) or bool(b(s, env))
        return lambda s, env: any(f(s, env) for f in args)

    def _let_expr(self, e: ir.LetExpr) -> ExprFn:
        name, value, body = e.name, self._expr(e.value), self._expr(e.body)
        missing = object()

        def let(s: State, env: dict) -> Any:
            # Restore the outer binding: an inlined def used twice in one
            # expression may bind the same name in nested scopes.
            saved = env.get(name, missing)
            env[name] = value(s, env)
            result = body(s, env)
            if saved is missing:
                del env[name]
            else:
                env[name] = saved
            return result
        return let

    def _quant(self, e: ir.Quant) -> ExprFn:
        name, elems, body = e.var, self._elements(e.domain), self._expr(e.body)
        want = e.kind is ir.QuantKind.ANY
        missing = object()

        def quant(s: State, env: dict) -> bool:
            saved = env.get(name, missing)
            result = not want
            for x in elems(s, env):
                env[name] = x
                if bool(body(s, env)) is want:
                    result = want
                    break
            if saved is missing:
                env.pop(name, None)
            else:
                env[name] = saved
            return result
        return quant

    def _comprehension(self, e: ir.SetComp | ir.SumComp) -> ExprFn:
        name, elems, elem = e.var, self._elements(e.domain), self._expr(e.elem)
        cond = self._expr(e.cond) if e.cond is not None else None
        collect: Callable[[list], Any] = sum if isinstance(e, ir.SumComp) else frozenset
        missing = object()

        def comprehension(s: State, env: dict) -> Any:
            saved = env.get(name, missing)
            out = []
            for x in elems(s, env):
                env[name] = x
                if cond is None or cond(s, env):
                    out.append(elem(s, env))
            if saved is missing:
                env.pop(name, None)
            else:
                env[name] = saved
            return collect(out)
        return comprehension

    def _map_comp(self, e: ir.MapComp) -> ExprFn:
        name, value = e.var, self._expr(e.value)
        keys = domain(e.type.key)
        missing = object()

        def map_comp(s: State, env: dict) -> FrozenDict:
            saved = env.get(name, missing)
            out = {}
            for k in keys:
                env[name] = k
                out[k] = value(s, env)
            if saved is missing:
                env.pop(name, None)
            else:
                env[name] = saved
            return FrozenDict(out)
        return map_comp
