"""Per-lane defs: values a spec derives for each node, shown beside its
variables in the trace views.

Some of what a reader needs at a step is no variable of the spec but a def
of one node: a Raft server's membership configuration is read off its log
(``def config(n: Node) -> set[Node]``).  A def with exactly one parameter,
whose type is written as a lane type (a model-value type or a named int or
enum type, ``Node``), and whose result is no ``bool``, is such a view: the
trace views evaluate it at every state, for every value of the type, and
show it as a map keyed by the type named ``config(n)`` (the def's name and
its parameter).  So ``trace show --by Node`` gives it a row of the table,
one column per node, and ``trace html`` a row of the state panel.  (A
``bool`` def of one node, ``is_leader(n)``, is a test rather than a value
of the node; a spec that wants one shown writes a def of another result
type.)

The defs are compiled once with the spec's own consts, each wrapped in an
invariant added to the spec's text (``all(d(x) == d(x) for x in T)``) whose
left side is then evaluated by the reference evaluator.  Anything that fails
(a spec whose text is not at hand, a def that does not compile on its own,
an evaluation error) leaves the views without it: they are an aid, never a
reason a trace cannot be shown.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from modelcheck.ir import nodes as ir
from modelcheck.ir.types import BoolType, EnumType, IntType, MapType, ModelType, Type
from modelcheck.ir.values import FrozenDict, domain
from modelcheck.trace.trace import Step, Trace

__all__ = ["LaneDef", "lane_defs", "with_lane_defs"]

_PREFIX = "__trace_view_"


@dataclass(frozen=True)
class LaneDef:
    """``name``: how the views show it (``config(n)``); ``key``: the lane
    type; ``result``: the def's result type."""
    name: str
    def_name: str
    key: Type
    result: Type
    var: str
    expr: ir.Expr
    compiled: ir.Model = field(compare=False, repr=False)


def _type_name(texpr: Any) -> str | None:
    """The name a parameter's type is written with, when it is a plain name."""
    name = getattr(texpr, "name", None)
    args = getattr(texpr, "args", None)
    return name if isinstance(name, str) and not args else None


def lane_defs(model: ir.Model | None) -> list[LaneDef]:
    """The spec's defs of one lane-typed parameter with a non-bool result
    (module doc), compiled; [] when there are none or they cannot be had."""
    if model is None:
        return []
    try:
        return _lane_defs(model)
    except Exception:       # an aid only: never a reason the trace is not shown
        return []


def _lane_defs(model: ir.Model) -> list[LaneDef]:
    from modelcheck import pipeline
    from modelcheck.syntax import ast
    from modelcheck.syntax.parser import parse
    sources = dict(model.sources)
    text = sources.get(model.path)
    if text is None:
        return []
    lane_types = {name: t for name, t in model.types if isinstance(t, (ModelType, IntType, EnumType))}
    module = parse(text, model.path)
    wanted: list[tuple[str, str, str]] = []
    for item in module.items:
        if not isinstance(item, ast.DefDecl) or len(item.params) != 1:
            continue
        tname = _type_name(item.params[0].type)
        result = _type_name(item.result) if item.result is not None else None
        if tname in lane_types and result != "bool":
            wanted.append((item.name, item.params[0].name, tname))
    if not wanted:
        return []
    extra = "".join(f"\ninvariant {_PREFIX}{d}: all({d}(__x) == {d}(__x) for __x in {t})\n"
                    for d, _, t in wanted)
    consts = {n: (v if isinstance(v, (bool, int)) else str(v)) for n, _, v in model.consts}
    compiled = pipeline.load_source(text + extra, path=model.path, consts=consts)
    out = []
    for d, param, tname in wanted:
        prop = compiled.get_property(_PREFIX + d)
        quant = prop.expr
        if not isinstance(quant, ir.Quant) or not isinstance(quant.body, ir.Apply):
            continue
        lhs = quant.body.args[0]
        if isinstance(lhs.type, BoolType):
            continue
        out.append(LaneDef(f"{d}({param})", d, lane_types[tname], lhs.type, quant.var, lhs, compiled))
    return out


def with_lane_defs(trace: Trace, model: ir.Model | None) -> Trace:
    """``trace`` with each state holding the per-lane defs' values (module
    doc) and ``meta["var_types"]`` their types; ``trace`` itself when there
    are none."""
    defs = lane_defs(model)
    if not defs:
        return trace
    from modelcheck.evaluate.evaluator import Evaluator
    from modelcheck.trace.explain import state_tuple
    evaluator = Evaluator(defs[0].compiled)
    values: list[dict[str, Any]] = []
    try:
        for i, step in enumerate(trace.steps):
            state = state_tuple(evaluator, step.state, i)
            values.append({ld.name: FrozenDict({k: evaluator.eval(ld.expr, state, {ld.var: k}, None)
                                                for k in domain(ld.key)})
                           for ld in defs})
        back = trace.loop_back   # its state is steps[loop]'s
    except Exception:
        return trace
    steps = [Step(s.action, s.params, {**s.state, **extra}) for s, extra in zip(trace.steps, values)]
    if back is not None and trace.loop is not None:
        back = Step(back.action, back.params, {**back.state, **values[trace.loop]})
    meta = dict(trace.meta)
    types = dict(meta.get("var_types") or {}) if isinstance(meta.get("var_types"), Mapping) else {}
    types.update({ld.name: MapType(ld.key, ld.result) for ld in defs})
    meta["var_types"] = types
    return replace(trace, steps=steps, meta=meta, loop_back=back, verified=None)
