"""How the explanation shows a formula: the text a span covers in the spec,
on one line, or the expression printed from the IR in the spec language when
the source is not at hand; and a truth value as a word.  Shared by
``trace.explain``, ``trace.lead``, ``trace.deadlock``, the lanes and the
scenario runner.
"""
from __future__ import annotations

from collections.abc import Mapping

from modelcheck.diagnostics import Span
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import MapType, render_type
from modelcheck.trace.view import format_value

__all__ = ["source_text", "expr_text", "bool_word"]


def bool_word(b: bool) -> str:
    return "true" if b else "false"


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
