"""Why a property failed on a trace: the first step where it is false, and the
smallest sub-formula that made it false, with the values that did it.

The property's IR expression is evaluated with the reference evaluator and
the explanation descends through the connectives, keeping track of the value
each sub-formula needed (its polarity flips under ``not``):

* ``a and b`` needed true: the first conjunct that is false;
  needed false: every conjunct held, so each one is shown;
* ``a or b`` the mirror image; ``a => b`` needed true: ``a`` held and ``b`` is
  false; ``not a``: ``a`` with the opposite need;
* ``all(p for x in S)`` needed true: the first ``x`` for which ``p`` is false
  (nested quantifiers are merged, so one instance shows every bound
  variable); ``any`` the mirror image; ``let`` and ``if`` are walked through.

Anything else is a leaf, shown with the values of its operands.  Sub-formulas
are shown as written in the spec (their spans), or printed from the IR when
the source is not at hand (``trace.exprtext``).  For a quantified invariant
the explanation leads with the witness and the step that made it go wrong
(``trace.lead``).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from modelcheck.diagnostics import Span, did_you_mean
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BoolType, SeqType
from modelcheck.ir.values import sort_values
from modelcheck.trace.exprtext import bool_word, expr_text, source_text
from modelcheck.trace.lead import Lead, find_lead
from modelcheck.trace.trace import Trace
from modelcheck.trace.view import format_value, step_label

__all__ = ["Finding", "Explanation", "Lead", "explain", "expr_text", "source_text", "state_tuple", "vars_of",
           "MAX_INSTANCES"]

#: How many instances of a quantifier that failed for every value are shown.
MAX_INSTANCES = 8


@dataclass(frozen=True)
class Finding:
    """One sub-formula on the way down.  ``value``: what it evaluated to;
    ``expected``: what the property needed of it.  ``bindings``: names bound
    on the way to it (a quantifier instance, a let, a def's arguments).
    ``operands``: at a leaf, its sub-expressions and their values."""
    text: str
    span: Span | None
    value: str
    expected: bool
    reason: str
    bindings: tuple[tuple[str, str], ...] = ()
    operands: tuple[tuple[str, str], ...] = ()
    children: tuple["Finding", ...] = ()

    @property
    def failed(self) -> bool:
        return self.value != ("true" if self.expected else "false")


@dataclass(frozen=True)
class Explanation:
    """``step``: the index (into ``trace.steps``) of the first state where the
    property fails (for a step invariant: of the state the failing step
    reached; for ``sometimes``: the first state where it holds), None when
    that never happens on the trace.  ``variables``: the state variables the
    failure reads, with their values there, in declaration order: those of
    the failing leaves and of a premise that held, read through the defs'
    arguments and the lets they use, and the domains of the quantifiers on
    the way down."""
    property_name: str
    kind: ir.PropertyKind
    step: int | None
    label: str | None
    root: Finding | None
    variables: tuple[tuple[str, str], ...] = ()
    lead: Lead | None = None


# ------------------------------------------------------------------ the descent

class _Explainer:
    def __init__(self, evaluator: Evaluator, state: tuple, post: tuple | None,
                 sources: Mapping[str, str]):
        self.ev = evaluator
        self.state = state
        self.post = post
        self.sources = sources
        self.leaf_vars: list[str] = []
        # What each bound name reads (a def's argument, a let, a quantifier's
        # variable), so a leaf that reads `k` is known to read what `k` came from.
        self.local_reads: dict[str, list[str]] = {}

    def reads(self, e: ir.Expr) -> list[str]:
        """The state variables ``e`` reads, through the bound names it uses."""
        out = vars_of(e)
        for name in _local_names(e):
            out.extend(v for v in self.local_reads.get(name, ()) if v not in out)
        return out

    def note(self, e: ir.Expr) -> None:
        """Count what ``e`` reads among the variables the failure reads."""
        self.leaf_vars.extend(v for v in self.reads(e) if v not in self.leaf_vars)

    def bind(self, name: str, source: ir.Expr) -> None:
        self.local_reads[name] = self.reads(source)

    def value(self, e: ir.Expr, env: dict[str, Any]) -> Any:
        return self.ev.eval(e, self.state, env, self.post)

    def text(self, e: ir.Expr) -> str:
        return expr_text(e, self.sources)

    def explain(self, e: ir.Expr, expected: bool, env: dict[str, Any],
                bindings: tuple[tuple[str, str], ...] = ()) -> Finding:
        got = bool(self.value(e, env))
        if isinstance(e, ir.LetExpr):
            return self._let(e, got, expected, env, bindings)
        if got == expected:
            return self._leaf(e, got, expected, env, bindings, "holds as needed")
        if isinstance(e, ir.Apply) and e.op is Op.NOT:
            child = self.explain(e.args[0], not expected, env)
            return self._node(e, got, expected, bindings, "its operand is " + bool_word(not expected), child)
        if isinstance(e, ir.Apply) and e.op in (Op.AND, Op.OR):
            return self._junction(e, got, expected, env, bindings)
        if isinstance(e, ir.Apply) and e.op is Op.IMPLIES:
            return self._implies(e, got, expected, env, bindings)
        if isinstance(e, ir.Quant):
            return self._quant(e, got, expected, env, bindings)
        if isinstance(e, ir.IfExpr) and isinstance(e.type, BoolType):
            cond = bool(self.value(e.cond, env))
            branch = e.then if cond else e.else_
            child = self.explain(branch, expected, env)
            return self._node(e, got, expected, bindings,
                              f"the condition {self.text(e.cond)} is {bool_word(cond)}", child)
        return self._leaf(e, got, expected, env, bindings, "is " + bool_word(got))

    def _let(self, e: ir.LetExpr, got: bool, expected: bool, env: dict[str, Any],
             bindings: tuple[tuple[str, str], ...]) -> Finding:
        # A def call is inlined as lets of its arguments (all with the call's
        # span) around the def's body; a spec's own let is a single one.
        inner = dict(env)
        bound: list[tuple[str, str]] = []
        body: ir.Expr = e
        while isinstance(body, ir.LetExpr) and (body is e or body.span == e.span):
            value = self.ev.eval(body.value, self.state, inner, self.post)
            inner[body.name] = value
            self.bind(body.name, body.value)
            bound.append((self.name(body.name, body.body), format_value(value, body.value.type)))
            body = body.body
        call = source_text(e.span, self.sources)
        if call is None or call.startswith("let ") or e.span == body.span:
            return self.explain(body, expected, inner, bindings + tuple(bound))
        if got == expected:
            return Finding(call, e.span, bool_word(got), expected, "holds as needed", bindings + tuple(bound))
        child = self.explain(body, expected, inner)
        args = ", ".join(f"{n} = {v}" for n, v in bound)
        return Finding(call, e.span, bool_word(got), expected, f"the def's body, with {args}",
                       bindings + tuple(bound), (), (child,))

    def name(self, bound: str, scope: ir.Expr) -> str:
        """A bound name as the spec writes it: the front end may rename a
        def's parameters apart (``m`` -> ``m_2``); a use of it in the body
        still has the written name at its span."""
        for local in _locals(scope, bound):
            text = source_text(local.span, self.sources)
            if text and text.isidentifier():
                return text
        return bound

    def _node(self, e: ir.Expr, got: bool, expected: bool, bindings: tuple[tuple[str, str], ...],
              reason: str, *children: Finding) -> Finding:
        return Finding(self.text(e), e.span, bool_word(got), expected, reason, bindings, (), children)

    def _junction(self, e: ir.Apply, got: bool, expected: bool, env: dict[str, Any],
                  bindings: tuple[tuple[str, str], ...]) -> Finding:
        is_and = e.op is Op.AND
        if got is not is_and:
            # and -> false / or -> true: one operand decided it (evaluation order)
            for arg in e.args:
                if bool(self.value(arg, env)) is got:
                    which = "false" if is_and else "true"
                    return self._node(e, got, expected, bindings,
                                      f"the first operand that is {which}",
                                      self.explain(arg, expected, env))
        children = tuple(self.explain(arg, expected, env) for arg in e.args)
        return self._node(e, got, expected, bindings,
                          "every operand is " + bool_word(got), *children)

    def _implies(self, e: ir.Apply, got: bool, expected: bool, env: dict[str, Any],
                 bindings: tuple[tuple[str, str], ...]) -> Finding:
        premise, conclusion = e.args
        if not got:
            self.note(premise)   # the premise holding is half of the failure
            held = self._leaf(premise, True, True, env, (), "the premise holds")
            return self._node(e, got, expected, bindings, "the premise holds and the conclusion is false",
                              held, self.explain(conclusion, True, env))
        if not bool(self.value(premise, env)):
            return self._node(e, got, expected, bindings, "the premise is false",
                              self.explain(premise, True, env))
        return self._node(e, got, expected, bindings, "the conclusion holds",
                          self.explain(conclusion, False, env))

    def _quant(self, e: ir.Quant, got: bool, expected: bool, env: dict[str, Any],
               bindings: tuple[tuple[str, str], ...]) -> Finding:
        decisive = e.kind is ir.QuantKind.ALL and not got or e.kind is ir.QuantKind.ANY and got
        self.bind(e.var, e.domain)
        self.note(e.domain)
        if not decisive:
            # Every instance went the wrong way: show each (a few at most).
            domain = self.value(e.domain, env)
            elems = _canonical(domain, e.domain.type)
            elem_type = getattr(e.domain.type, "elem", None)
            word = "every" if e.kind is ir.QuantKind.ALL else "no"
            written = self.name(e.var, e.body)
            children = []
            for x in elems[:MAX_INSTANCES]:
                inner = dict(env)
                inner[e.var] = x
                children.append(self.explain(e.body, expected, inner,
                                             ((written, format_value(x, elem_type)),)))
            more = f" ({len(elems) - MAX_INSTANCES} more not shown)" if len(elems) > MAX_INSTANCES else ""
            return Finding(self.text(e), e.span, bool_word(got), expected,
                           f"{word} {written} in {format_value(domain, e.domain.type)} satisfies "
                           f"the body{more}", bindings, (), tuple(children))
        # The instance that decides it; quantifiers of the same kind nested
        # directly inside are opened too, so one line shows the whole instance.
        inner = dict(env)
        instance: list[tuple[str, str]] = []
        body: ir.Expr = e
        while isinstance(body, ir.Quant) and body.kind is e.kind:
            witness = self.witness(body, inner, got)
            if witness is None:
                break
            name, value, elem_type = witness
            if body is not e:
                self.bind(body.var, body.domain)
                self.note(body.domain)
            inner[name] = value
            instance.append((self.name(name, body.body), format_value(value, elem_type)))
            body = body.body
        what = "fails" if e.kind is ir.QuantKind.ALL else "holds"
        words = ", ".join(f"{n} = {v}" for n, v in instance)
        # all(...) false: the instance's body should have held; any(...) true:
        # it should not have.
        child = self.explain(body, e.kind is ir.QuantKind.ALL, inner)
        return Finding(self.text(e), e.span, bool_word(got), expected, f"{what} for {words}",
                       bindings + tuple(instance), (), (child,))

    def witness(self, q: ir.Quant, env: dict[str, Any], got: bool) -> tuple[str, Any, Any] | None:
        want_body = q.kind is ir.QuantKind.ANY   # ANY true: a body that holds; ALL false: one that fails
        for x in _canonical(self.value(q.domain, env), q.domain.type):
            trial = dict(env)
            trial[q.var] = x
            if bool(self.value(q.body, trial)) is want_body:
                return q.var, x, getattr(q.domain.type, "elem", None)
        return None

    def _leaf(self, e: ir.Expr, got: bool, expected: bool, env: dict[str, Any],
              bindings: tuple[tuple[str, str], ...], reason: str) -> Finding:
        operands: list[tuple[str, str]] = []
        for sub in _operands(e):
            if isinstance(sub, ir.Const):
                continue
            operands.append((self.text(sub), format_value(self.value(sub, env), sub.type)))
        if got != expected:
            self.note(e)
        return Finding(self.text(e), e.span, bool_word(got), expected, reason, bindings,
                       tuple(operands), ())


def _canonical(value: Any, t: Any) -> list[Any]:
    """The elements in the order the evaluator visits them: a sequence in its
    order, a set or a bag's distinct elements in canonical order."""
    if isinstance(t, SeqType):
        return list(value)
    items = list(value.keys()) if isinstance(value, Mapping) else list(value)
    elem = getattr(t, "elem", None)
    return sort_values(elem, items) if elem is not None else items


def _operands(e: ir.Expr) -> tuple[ir.Expr, ...]:
    if isinstance(e, ir.Apply):
        return e.args
    if isinstance(e, ir.FieldGet):
        return (e.record,)
    if isinstance(e, (ir.Var, ir.Local)):
        return (e,) if isinstance(e, ir.Local) else ()
    return ()


def _nodes(e: Any, cls: type) -> list[Any]:
    """The nodes of class ``cls`` inside ``e``, in the order written."""
    out: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, cls):
            out.append(node)
            return
        if isinstance(node, tuple):
            for item in node:
                walk(item)
            return
        if hasattr(node, "__dataclass_fields__"):
            for f in node.__dataclass_fields__:
                if f not in ("type", "span"):
                    walk(getattr(node, f))
    walk(e)
    return out


def _locals(e: Any, name: str) -> list[ir.Local]:
    """The uses of the bound name ``name`` inside ``e``."""
    return [local for local in _nodes(e, ir.Local) if local.name == name]


def _local_names(e: Any) -> list[str]:
    """The bound names ``e`` uses."""
    return list(dict.fromkeys(local.name for local in _nodes(e, ir.Local)))


def vars_of(e: Any) -> list[str]:
    return list(dict.fromkeys(var.name for var in _nodes(e, ir.Var)))


# ------------------------------------------------------------------ the entry point

def explain(trace: Trace, model: ir.Model, name: str) -> Explanation:
    """Explain property ``name`` of ``model`` on ``trace``.  Raises
    ``UsageError`` for an unknown property or a trace whose states do not
    have the spec's variables."""
    try:
        prop = model.get_property(name)
    except KeyError:
        known = [p.name for p in model.properties]
        hint = (did_you_mean(name, known, "the spec declares", most_listed=len(known))
                or "the spec declares no properties")
        raise UsageError(f"no property '{name}' in {model.name}", hint=hint) from None
    evaluator = Evaluator(model)
    states = [state_tuple(evaluator, step.state, i) for i, step in enumerate(trace.steps)]
    sources = dict(model.sources)
    want = prop.kind is not ir.PropertyKind.SOMETIMES
    for i in range(len(states)):
        if prop.kind is ir.PropertyKind.STEP:
            if i == 0:
                continue
            state, post = states[i - 1], states[i]
        else:
            state, post = states[i], None
        if bool(evaluator.eval(prop.expr, state, {}, post)) == want:
            continue
        explainer = _Explainer(evaluator, state, post, sources)
        root = explainer.explain(prop.expr, want, {})
        shown_state = trace.steps[i].state if post is None else trace.steps[i - 1].state
        variables = []
        read = set(explainer.leaf_vars)
        for var in (v.name for v in model.vars if v.name in read):
            decl_type = model.var(var).type
            variables.append((var, format_value(shown_state[var], decl_type)))
            if post is not None:
                variables.append((var + "'", format_value(trace.steps[i].state[var], decl_type)))
        lead = None
        if prop.kind is ir.PropertyKind.INVARIANT:
            try:
                lead = find_lead(evaluator, states, i, prop.expr, sources, trace, model,
                                 _Explainer(evaluator, states[i], None, sources))
            except Exception:   # the lead is a summary: the tree below says it all anyway
                lead = None
        return Explanation(prop.name, prop.kind, i, step_label(trace.steps[i], model, i), root,
                           tuple(variables), lead)
    return Explanation(prop.name, prop.kind, None, None, None)


def state_tuple(evaluator: Evaluator, state: Mapping[str, Any], index: int) -> tuple:
    missing = [n for n in evaluator.var_names if n not in state]
    if missing:
        raise UsageError(f"state {index} of the trace has no value for {', '.join(missing)}",
                         hint="is the trace from this spec? give the spec it was made with (--spec)")
    return evaluator.state_from_dict(dict(state))
