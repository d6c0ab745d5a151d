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
the source is not at hand.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from modelcheck.diagnostics import Span, did_you_mean
from modelcheck.engines.reference.evaluator import Evaluator
from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BoolType, MapType, SeqType, render_type
from modelcheck.ir.values import sort_values
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
    lead: "Lead | None" = None


@dataclass(frozen=True)
class Lead:
    """For a quantified invariant (``not any(lost(m) for m in Msg)``,
    ``all(m in X => m in Y for m in Msg)``): the witness, the instance of the
    body that went wrong for it, and since when.  ``witness``: the bound
    names and their values (``(("m", "1"),)``); ``kind``: the domain's type
    name when it has one (``Msg``); ``body``: the instance as written;
    ``value``: what it is in the failing state; ``since``: the first step
    from which it kept that value to the failing state, with its label;
    ``parts``: the body's conditions (a conjunction's operands, an
    implication's premise and conclusion), each with its value there and the
    step since which it has had it (0: the initial state)."""
    witness: tuple[tuple[str, str], ...]
    kind: str | None
    body: str
    value: str
    since: int
    since_label: str | None
    parts: tuple[tuple[str, str, int, str | None], ...] = ()


# ------------------------------------------------------------------ source text

def source_text(span: Span | None, sources: Mapping[str, str]) -> str | None:
    """The text a span covers, on one line: comments dropped, whitespace runs
    collapsed to one space."""
    if span is None or span.file not in sources:
        return None
    lines = sources[span.file].splitlines()
    if not (1 <= span.line <= span.end_line <= len(lines)):
        return None
    if span.line == span.end_line:
        parts = [lines[span.line - 1][span.col - 1:span.end_col - 1]]
    else:
        parts = [lines[span.line - 1][span.col - 1:]]
        parts += lines[span.line:span.end_line - 1]
        parts.append(lines[span.end_line - 1][:span.end_col - 1])
    # a span over several lines may take in a comment at the end of one
    words = " ".join(p.split("#", 1)[0] for p in parts).split()
    return " ".join(words) or None


_INFIX = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.DIV: "//", Op.MOD: "%", Op.EQ: "==",
          Op.NE: "!=", Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">=", Op.IMPLIES: "=>",
          Op.IN: "in", Op.UNION: "|", Op.INTER: "&", Op.DIFF: "-", Op.SUBSET: "<=",
          Op.RANGE: "..", Op.CONCAT: "+", Op.AND: "and", Op.OR: "or"}
_CALLS = {Op.MIN: "min", Op.MAX: "max", Op.SET_MIN: "min", Op.SET_MAX: "max", Op.LEN: "len",
          Op.APPEND: "append", Op.HEAD: "head", Op.TAIL: "tail", Op.SOME: "some",
          Op.IS_SOME: "is_some", Op.IS_NONE: "is_none", Op.BAG_ADD: "put",
          Op.BAG_REMOVE: "take", Op.BAG_COUNT: "count", Op.BAG_DISTINCT: "distinct"}


def _atomic(e: ir.Expr) -> bool:
    return isinstance(e, (ir.Const, ir.Var, ir.Local, ir.FieldGet, ir.SetLit, ir.SeqLit,
                          ir.TupleLit, ir.RecordLit, ir.BagLit, ir.VariantLit,
                          ir.CasePayload)) or (
        isinstance(e, ir.Apply) and e.op not in _INFIX and e.op not in (Op.NOT, Op.NEG))


def expr_text(e: ir.Expr, sources: Mapping[str, str] | None = None) -> str:
    """The expression as written in the spec when its span and source are at
    hand, else printed from the IR in the spec language."""
    if sources:
        text = source_text(e.span, sources)
        if text:
            return text
    return _print(e, sources)


def _sub(e: ir.Expr, sources: Mapping[str, str] | None) -> str:
    text = expr_text(e, sources)
    return text if _atomic(e) else f"({text})"


def _print(e: ir.Expr, s: Mapping[str, str] | None) -> str:
    if isinstance(e, ir.Const):
        return format_value(e.value, e.type)
    if isinstance(e, ir.Var):
        return e.name + ("'" if e.primed else "")
    if isinstance(e, ir.Local):
        return e.name
    if isinstance(e, ir.Apply):
        args = e.args
        if e.op in (Op.AND, Op.OR) or (e.op in _INFIX and len(args) == 2):
            return f" {_INFIX[e.op]} ".join(_sub(a, s) for a in args)
        if e.op is Op.NOT:
            return f"not {_sub(args[0], s)}"
        if e.op is Op.NEG:
            return f"-{_sub(args[0], s)}"
        if e.op in (Op.MAP_GET, Op.SEQ_GET, Op.TUPLE_GET):
            return f"{_sub(args[0], s)}[{expr_text(args[1], s)}]"
        if e.op in (Op.MAP_SET, Op.SEQ_SET):
            return f"{_sub(args[0], s)} with [{expr_text(args[1], s)}] = {_sub(args[2], s)}"
        if e.op is Op.SLICE:
            return f"{_sub(args[0], s)}[{expr_text(args[1], s)}:{expr_text(args[2], s)}]"
        if e.op is Op.OPT_GET:
            return f"{_sub(args[0], s)}.value"
        name = _CALLS.get(e.op, e.op.value)
        return f"{name}({', '.join(expr_text(a, s) for a in args)})"
    if isinstance(e, ir.IfExpr):
        return f"if {expr_text(e.cond, s)} then {expr_text(e.then, s)} else {expr_text(e.else_, s)}"
    if isinstance(e, ir.LetExpr):
        return f"let {e.name} = {expr_text(e.value, s)}; {expr_text(e.body, s)}"
    if isinstance(e, ir.Quant):
        return f"{e.kind.value}({expr_text(e.body, s)} for {e.var} in {expr_text(e.domain, s)})"
    if isinstance(e, (ir.SetComp, ir.SumComp)):
        cond = f" if {expr_text(e.cond, s)}" if e.cond is not None else ""
        inner = f"{expr_text(e.elem, s)} for {e.var} in {expr_text(e.domain, s)}{cond}"
        return f"sum({inner})" if isinstance(e, ir.SumComp) else "{" + inner + "}"
    if isinstance(e, ir.MapComp):
        key = e.type.key if isinstance(e.type, MapType) else None
        return "{" + f"{e.var}: {expr_text(e.value, s)} for {e.var} in " \
            f"{render_type(key) if key is not None else '?'}" + "}"
    if isinstance(e, (ir.SetLit, ir.BagLit)):
        return "{" + ", ".join(expr_text(x, s) for x in e.elems) + "}"
    if isinstance(e, ir.SeqLit):
        return "[" + ", ".join(expr_text(x, s) for x in e.elems) + "]"
    if isinstance(e, ir.TupleLit):
        return "(" + ", ".join(expr_text(x, s) for x in e.elems) + ("," if len(e.elems) == 1 else "") + ")"
    if isinstance(e, ir.RecordLit):
        name = getattr(e.type, "name", None) or "record"
        return f"{name}(" + ", ".join(f"{n}={expr_text(x, s)}" for n, x in e.fields) + ")"
    if isinstance(e, ir.FieldGet):
        return f"{_sub(e.record, s)}.{e.field}"
    if isinstance(e, ir.FieldSet):
        return f"{_sub(e.record, s)} with .{e.field} = {_sub(e.value, s)}"
    if isinstance(e, ir.VariantLit):
        fields = e.payload.fields if isinstance(e.payload, ir.RecordLit) else ()
        if not fields:
            return e.case
        return f"{e.case}(" + ", ".join(f"{n}={expr_text(x, s)}" for n, x in fields) + ")"
    if isinstance(e, ir.CaseTest):
        return f"{_sub(e.subject, s)} is {e.case}"
    if isinstance(e, ir.CasePayload):
        # Only read inside its case (a match arm's `as` name, or a field every
        # case has): the subject is what the spec wrote.
        return expr_text(e.subject, s)
    return type(e).__name__


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
            return self._node(e, got, expected, bindings, "its operand is " + _word(not expected), child)
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
                              f"the condition {self.text(e.cond)} is {_word(cond)}", child)
        return self._leaf(e, got, expected, env, bindings, "is " + _word(got))

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
            return Finding(call, e.span, _word(got), expected, "holds as needed", bindings + tuple(bound))
        child = self.explain(body, expected, inner)
        args = ", ".join(f"{n} = {v}" for n, v in bound)
        return Finding(call, e.span, _word(got), expected, f"the def's body, with {args}",
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
        return Finding(self.text(e), e.span, _word(got), expected, reason, bindings, (), children)

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
                          "every operand is " + _word(got), *children)

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
            return Finding(self.text(e), e.span, _word(got), expected,
                           f"{word} {written} in {format_value(domain, e.domain.type)} satisfies "
                           f"the body{more}", bindings, (), tuple(children))
        # The instance that decides it; quantifiers of the same kind nested
        # directly inside are opened too, so one line shows the whole instance.
        inner = dict(env)
        instance: list[tuple[str, str]] = []
        body: ir.Expr = e
        while isinstance(body, ir.Quant) and body.kind is e.kind:
            witness = self._witness(body, inner, got)
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
        return Finding(self.text(e), e.span, _word(got), expected, f"{what} for {words}",
                       bindings + tuple(instance), (), (child,))

    def _witness(self, q: ir.Quant, env: dict[str, Any], got: bool) -> tuple[str, Any, Any] | None:
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
        return Finding(self.text(e), e.span, _word(got), expected, reason, bindings,
                       tuple(operands), ())


def _word(b: bool) -> str:
    return "true" if b else "false"


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
                lead = _lead(evaluator, states, i, prop.expr, sources, trace, model)
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


# ------------------------------------------------------------------ the lead

#: A condition longer than this is cut short in the lead (the tree has it whole).
LEAD_WIDTH = 70


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LEAD_WIDTH else text[:LEAD_WIDTH - 1] + "…"


def _lead(evaluator: Evaluator, states: list[tuple], i: int, expr: ir.Expr,
          sources: Mapping[str, str], trace: Trace, model: ir.Model) -> Lead | None:
    """The witness of a quantified invariant that fails in state ``i`` and
    the step that made its instance go wrong (``Lead``); None when the
    property is no quantifier over something that went wrong."""
    state = states[i]
    ex = _Explainer(evaluator, state, None, sources)
    env: dict[str, Any] = {}
    e, expected = expr, True
    while True:
        if isinstance(e, ir.LetExpr):
            env[e.name] = evaluator.eval(e.value, state, env, None)
            e = e.body
        elif isinstance(e, ir.Apply) and e.op is Op.NOT:
            e, expected = e.args[0], not expected
        elif isinstance(e, ir.Apply) and e.op in (Op.AND, Op.OR) and \
                (e.op is Op.AND) is expected:
            # all(...) and all(...) needed true: the operand that is false
            e = next(a for a in e.args if bool(evaluator.eval(a, state, env, None)) is not expected)
        else:
            break
    if not isinstance(e, ir.Quant):
        return None
    got = bool(evaluator.eval(e, state, env, None))
    if got == expected or (e.kind is ir.QuantKind.ALL) is not expected:
        return None     # all(...) needed true and false / any(...) needed false and true
    witness: list[tuple[str, str]] = []
    written = source_text(e.domain.span, sources) or ""
    kind = written if written in {n for n, _ in model.types} else _type_name(e.domain.type, model)
    body: ir.Expr = e
    domains: list[tuple[ir.Expr, dict[str, Any], Any]] = []   # where each witness is drawn from
    while isinstance(body, ir.Quant) and body.kind is e.kind:
        found = ex._witness(body, env, got)
        if found is None:
            return None
        name, value, elem_type = found
        domains.append((body.domain, dict(env), value))
        env[name] = value
        witness.append((ex.name(name, body.body), format_value(value, elem_type)))
        body = body.body
    bad = e.kind is ir.QuantKind.ANY     # the instance's value that breaks the property

    def present(k: int) -> bool:
        # the witness is one of the values quantified over in state k
        return all(_member(v, evaluator.eval(d, states[k], denv, None)) for d, denv, v in domains)

    def since(x: ir.Expr, env_x: dict[str, Any], value: bool) -> int:
        k = i
        while k > 0 and present(k - 1) and bool(evaluator.eval(x, states[k - 1], env_x, None)) is value:
            k -= 1
        return k

    def label(k: int) -> str | None:
        return step_label(trace.steps[k], model, k) if k > 0 else None

    turned = since(body, env, bad)
    parts: list[tuple[str, str, int, str | None]] = []
    inner, inner_env, want = body, dict(env), bad
    # a def call is inlined as lets of its arguments around the def's body
    while isinstance(inner, ir.LetExpr):
        inner_env[inner.name] = evaluator.eval(inner.value, state, inner_env, None)
        inner = inner.body
    while isinstance(inner, ir.Apply) and inner.op is Op.NOT:
        inner, want = inner.args[0], not want
    conds: list[tuple[ir.Expr, bool]] = []
    if isinstance(inner, ir.Apply) and inner.op is Op.AND and want:
        conds = [(a, True) for a in inner.args]
    elif isinstance(inner, ir.Apply) and inner.op is Op.OR and not want:
        conds = [(a, False) for a in inner.args]
    elif isinstance(inner, ir.Apply) and inner.op is Op.IMPLIES and not want:
        conds = [(inner.args[0], True), (inner.args[1], False)]
    for c, value in conds:
        if bool(evaluator.eval(c, state, inner_env, None)) is not value:
            return None
        k = since(c, inner_env, value)
        parts.append((_short(ex.text(c)), _word(value), k, label(k)))
    return Lead(tuple(witness), kind, _short(ex.text(body)), _word(bad), turned, label(turned), tuple(parts))


def _type_name(t: Any, model: ir.Model) -> str | None:
    """The name the spec gives a quantifier's domain (``Msg`` for 1..M)."""
    elem = getattr(t, "elem", None)
    names = [name for name, declared in model.types if declared == elem]
    return names[0] if len(names) == 1 else None


def _member(value: Any, domain: Any) -> bool:
    if isinstance(domain, Mapping):
        return value in domain and bool(domain[value])
    return value in domain
