"""Text -> ``ast.Module``: the Lark LALR parser and the tree-to-AST transformer.

Syntax errors become diagnostics (MC1001 unexpected token, MC1002 unexpected
character, MC1003 unexpected end of file) that say in plain words what was
found and what could have come instead.  After an error the parser skips to
the next top-level declaration and goes on, so one run reports the syntax
errors of several declarations (recovery.py; a missing '}' is one error,
naming the block left open).  A keyword used as a name is MC1001, a
declaration nested deeper than MAX_NESTING levels is MC1004, as are brackets
nested deeper than MAX_BRACKETS, and an integer literal above MAX_INT_LITERAL
is MC1005.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedInput

from modelcheck.diagnostics import Diagnostic, Span
from modelcheck.errors import CompileError
from modelcheck.syntax import ast
from modelcheck.syntax.habits import TYPE_WORDS, type_as_value
from modelcheck.syntax.lark_tables import grammar_text, lark_parser
from modelcheck.syntax.nesting import (MAX_BRACKETS, MAX_NESTING, brackets_too_deep,
                                       tree_too_deep)
from modelcheck.syntax.recovery import MAX_SYNTAX_ERRORS, collect_syntax_errors

__all__ = ["parse", "grammar_text", "lark_parser", "keywords", "MAX_SYNTAX_ERRORS",
           "MAX_NESTING", "MAX_BRACKETS", "MAX_INT_LITERAL"]

#: The largest integer literal (MC1005): far beyond any int64 or bit-vector an
#: engine uses, yet small enough that interval arithmetic on it stays cheap.
MAX_INT_LITERAL = 2 ** 128 - 1


def parse(source: str, path: str) -> ast.Module:
    """Parse one spec file.  Raises CompileError with every syntax error found.
    The AST is immutable, so a text parsed before is not parsed again (a
    verdict file loads one spec for each of its rows and mutants, and the
    quorum queue takes 0.4-0.7 s to parse)."""
    return _parse_once(source, path)


@lru_cache(maxsize=16)
def _parse_once(source: str, path: str) -> ast.Module:
    deep_brackets = brackets_too_deep(source, path)
    if deep_brackets is not None:
        raise CompileError([deep_brackets], {path: source})
    parser = lark_parser()
    try:
        tree = parser.parse(source)
    except UnexpectedInput as first:
        diagnostics = collect_syntax_errors(parser, source, path, first)
        raise CompileError(diagnostics, {path: source}) from None
    deep = tree_too_deep(tree, path)
    if deep is not None:
        raise CompileError([deep], {path: source})
    builder = _ToAst(path, keywords())
    module = builder.transform(tree)
    if builder.errors:
        raise CompileError(builder.errors, {path: source})
    return module


@lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """The words of the grammar (``var``, ``in``, ``set``...): reserved as names,
    allowed as record field names (``msg.type``)."""
    return frozenset(t.pattern.value for t in lark_parser().terminals
                     if t.pattern.type == "str" and t.pattern.value.isalpha())


def _tok_span(path: str, tok: Token) -> Span:
    return Span(path, tok.line, tok.column, tok.end_line, tok.end_column)


def _no_none(items: list[Any]) -> tuple[Any, ...]:
    return tuple(i for i in items if i is not None)


@v_args(meta=True)
class _ToAst(Transformer):
    """Lark tree -> AST.  One instance per parse (it knows the file's path)."""

    def __init__(self, path: str, reserved: frozenset[str]) -> None:
        super().__init__()
        self.path = path
        self.reserved = reserved
        self.errors: list[Diagnostic] = []

    def _n(self, tok: Token) -> str:
        """A name that declares or refers to something: keywords are refused.
        (Lark's contextual lexer reads a keyword as a NAME where no keyword fits.)"""
        name = str(tok)
        if name in self.reserved:
            self.errors.append(Diagnostic(
                "MC1001", f"'{name}' is a keyword and cannot be used as a name",
                self._tsp(tok), hint=f"choose another name, e.g. '{name}_'"))
        return name

    def _sp(self, meta: Any) -> Span | None:
        if getattr(meta, "empty", True):
            return None
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tsp(self, tok: Token) -> Span:
        return _tok_span(self.path, tok)

    # ------------------------------------------------------------ module & items

    def start(self, meta, ch):
        header = ch[0]
        return ast.Module(self._n(header), tuple(ch[1:]), self.path, self._sp(meta))

    def module_header(self, meta, ch):
        return ch[0]

    def import_decl(self, meta, ch):
        return ast.ImportDecl(self._n(ch[0]), self._sp(meta))

    def const_decl(self, meta, ch):
        name, typ, value = ch
        return ast.ConstDecl(self._n(name), typ, value, self._sp(meta), self._tsp(name))

    def type_decl(self, meta, ch):
        symmetric = len(ch) == 3
        name, definition = ch[-2], ch[-1]
        return ast.TypeDecl(self._n(name), symmetric, definition, self._sp(meta), self._tsp(name))

    def name_list(self, meta, ch):
        return tuple(ast.Ident(self._n(t), self._tsp(t)) for t in ch)

    def enum_def(self, meta, ch):
        return ast.EnumDef(ch[0], self._sp(meta))

    def model_def(self, meta, ch):
        return ast.ModelDef(ch[0], self._sp(meta))

    def model_count_def(self, meta, ch):
        return ast.ModelCountDef(ch[0], self._sp(meta))

    def variant_def(self, meta, ch):
        return ast.VariantDef(ch[0], self._sp(meta))

    def variant_cases(self, meta, ch):
        return tuple(ch)

    def variant_case(self, meta, ch):
        name, fields = ch
        if str(name) == "_":
            self.errors.append(Diagnostic(
                "MC1001", "'_' cannot name a case: in a match it stands for every other case",
                self._tsp(name), hint="choose a name, e.g. Other"))
        return ast.VariantCase(self._n(name), fields or (), self._sp(meta))

    def var_init_eq(self, meta, ch):
        name, typ, init = ch
        return ast.VarDecl(self._n(name), typ, "=", init, self._sp(meta), self._tsp(name))

    def var_init_in(self, meta, ch):
        name, typ, init = ch
        return ast.VarDecl(self._n(name), typ, "in", init, self._sp(meta), self._tsp(name))

    def def_decl(self, meta, ch):
        name, params, result, body = ch
        return ast.DefDecl(self._n(name), params or (), result, body, self._sp(meta),
                           self._tsp(name))

    def action_decl(self, meta, ch):
        name, params, body = ch
        return ast.ActionDecl(self._n(name), params or (), body, self._sp(meta), self._tsp(name))

    def params(self, meta, ch):
        return tuple(ch)

    def param(self, meta, ch):
        return ast.Param(self._n(ch[0]), ch[1], self._sp(meta))

    def _prop(self, kind, meta, ch):
        name, expr = ch
        return ast.PropertyDecl(kind, self._n(name), expr, self._sp(meta), self._tsp(name))

    def invariant_decl(self, meta, ch):
        return self._prop("invariant", meta, ch)

    def constraint_decl(self, meta, ch):
        return self._prop("constraint", meta, ch)

    def step_invariant_decl(self, meta, ch):
        return self._prop("step invariant", meta, ch)

    def sometimes_decl(self, meta, ch):
        return self._prop("sometimes", meta, ch)

    def terminal_decl(self, meta, ch):
        return self._prop("terminal", meta, ch)

    def liveness_decl(self, meta, ch):
        name, params, (kind, p, q) = ch
        return ast.LivenessDecl(self._n(name), params or (), kind, p, q, self._sp(meta),
                                self._tsp(name))

    def eventually(self, meta, ch):
        return ("eventually", None, ch[-1])

    def eventually_always(self, meta, ch):
        return ("eventually always", None, ch[-1])

    def always_eventually(self, meta, ch):
        return ("always eventually", None, ch[-1])

    def leads_to(self, meta, ch):
        return ("leads to", ch[0], ch[2])

    def always_only(self, meta, ch):
        self.errors.append(Diagnostic(
            "MC1007", "'always P' alone is a safety property: write it as an invariant",
            self._sp(meta), hint="invariant Name: P   (liveness takes eventually P, "
                                 "P leads to Q, always eventually P or eventually always P)"))
        return ("always eventually", None, ch[-1])

    def fair_also(self, meta, ch):
        action, args = ch
        return ast.FairDecl("", self._n(action), args, (), self._sp(meta), self._tsp(action))

    def fair_decl(self, meta, ch):
        kind_tok, action, args, *rest = ch
        also = tuple(r for r in rest if isinstance(r, ast.FairDecl))
        fors = [r for r in rest if not isinstance(r, ast.FairDecl)]
        if action is None:
            # `fair Up`: the kind is missing (the one name read is the action)
            self.errors.append(Diagnostic(
                "MC1007", f"'fair {kind_tok}': say whether the fairness is weak or strong",
                self._tsp(kind_tok), hint=f"fair weak {kind_tok}   (weak: TLA+ WF, "
                                          "strong: TLA+ SF)"))
            return ast.FairDecl("weak", self._n(kind_tok), args, tuple(fors), self._sp(meta),
                                self._tsp(kind_tok))
        kind = str(kind_tok)
        if kind not in ("weak", "strong"):
            self.errors.append(Diagnostic(
                "MC1007", f"'fair {kind}': fairness is 'weak' or 'strong'", self._tsp(kind_tok),
                hint=f"fair weak {kind}   (weak: TLA+ WF, strong: TLA+ SF)"))
        also = tuple(dataclasses.replace(a, kind=kind) for a in also)
        return ast.FairDecl(kind, self._n(action), args, tuple(fors), self._sp(meta),
                            self._tsp(action), also)

    def fair_args(self, meta, ch):
        out = []
        for arg in ch:
            if isinstance(arg, ast.FairArg):
                out.append(arg)
            elif isinstance(arg, ast.NameRef) and arg.name == "_":
                out.append(ast.FairArg("any", None, arg.span))
            else:
                out.append(ast.FairArg("value", arg, getattr(arg, "span", None)))
        return tuple(out)

    def each_arg(self, meta, ch):
        return ast.FairArg("each", None, self._sp(meta))

    # ------------------------------------------------------------ types

    def bool_type(self, meta, ch):
        return ast.BoolTypeExpr(self._sp(meta))

    def int_type(self, meta, ch):
        return ast.IntTypeExpr(self._sp(meta))

    def range_type(self, meta, ch):
        return ast.RangeTypeExpr(ch[0], ch[1], self._sp(meta))

    def named_type(self, meta, ch):
        return ast.NamedTypeExpr(self._n(ch[0]), self._sp(meta))

    def set_type(self, meta, ch):
        return ast.SetTypeExpr(ch[0], ch[1], self._sp(meta))

    def map_type(self, meta, ch):
        return ast.MapTypeExpr(ch[0], ch[1], self._sp(meta))

    def seq_type(self, meta, ch):
        return ast.SeqTypeExpr(ch[0], ch[1], self._sp(meta))

    def bag_type(self, meta, ch):
        return ast.BagTypeExpr(ch[0], ch[1], self._sp(meta))

    def option_type(self, meta, ch):
        return ast.OptionTypeExpr(ch[0], self._sp(meta))

    def tuple_type(self, meta, ch):
        return ast.TupleTypeExpr(tuple(ch), self._sp(meta))

    def record_type(self, meta, ch):
        return ast.RecordTypeExpr(ch[0], self._sp(meta))

    def field_decls(self, meta, ch):
        return tuple(ch)

    def field_decl(self, meta, ch):
        return ast.FieldDecl(str(ch[0]), ch[1], self._sp(meta))

    # ------------------------------------------------------------ statements

    def block(self, meta, ch):
        return tuple(ch)

    def require_stmt(self, meta, ch):
        return ast.RequireStmt(ch[0], self._sp(meta))

    def let_stmt(self, meta, ch):
        return ast.LetStmt(self._n(ch[0]), ch[1], self._sp(meta), self._tsp(ch[0]))

    def pick_stmt(self, meta, ch):
        return ast.PickStmt(self._n(ch[0]), ch[1], self._sp(meta), self._tsp(ch[0]))

    def pick_case_stmt(self, meta, ch):
        return ast.PickStmt(self._n(ch[0]), ch[2], self._sp(meta), self._tsp(ch[0]),
                            case=self._n(ch[1]), case_span=self._tsp(ch[1]))

    def pick_each_stmt(self, meta, ch):
        _, var, domain, witness, witness_domain, cond = ch
        return ast.PickEachStmt(self._n(var), domain, self._n(witness), witness_domain, cond,
                                self._sp(meta), self._tsp(var), self._tsp(witness))

    def assign_stmt(self, meta, ch):
        return ast.AssignStmt(ch[0], ch[1], self._sp(meta))

    def if_stmt(self, meta, ch):
        cond, then, else_ = ch
        if else_ is None:
            else_ = ()
        elif isinstance(else_, ast.IfStmt):
            else_ = (else_,)
        return ast.IfStmt(cond, then, else_, self._sp(meta))

    def either_stmt(self, meta, ch):
        return ast.EitherStmt(tuple(ch), self._sp(meta))

    def match_stmt(self, meta, ch):
        return ast.MatchStmt(ch[0], tuple(ch[1:]), self._sp(meta))

    def match_stmt_arm(self, meta, ch):
        return ast.MatchStmtArm(ch[0], ch[1], self._sp(meta))

    def case_pattern(self, meta, ch):
        case, binder = ch
        if str(case) == "_":
            if binder is not None:
                self.errors.append(Diagnostic(
                    "MC1001", "'_ as ...' binds nothing: '_' stands for several cases",
                    self._tsp(binder), hint="name one case to bind its fields: Case as x"))
            return ast.Pattern((), None, self._sp(meta))
        bound = None if binder is None else ast.Ident(self._n(binder), self._tsp(binder))
        return ast.Pattern((ast.Ident(self._n(case), self._tsp(case)),), bound, self._sp(meta))

    def cases_pattern(self, meta, ch):
        for tok in ch:
            if str(tok) == "_":
                self.errors.append(Diagnostic(
                    "MC1001", "'_' stands alone in a match arm, not beside other cases",
                    self._tsp(tok), hint="write '_' as an arm of its own, last"))
        return ast.Pattern(tuple(ast.Ident(self._n(t), self._tsp(t)) for t in ch), None,
                           self._sp(meta))

    def lvalue(self, meta, ch):
        name = ch[0]
        return ast.LValue(self._n(name), tuple(ch[1:]), self._sp(meta), self._tsp(name))

    def lv_index(self, meta, ch):
        return ast.LvIndex(ch[0], self._sp(meta))

    def lv_field(self, meta, ch):
        return ast.LvField(str(ch[0]), self._sp(meta))

    # ------------------------------------------------------------ expressions

    def let_expr(self, meta, ch):
        name, value, body = ch
        return ast.LetExpr(self._n(name), value, body, self._sp(meta), self._tsp(name))

    def if_expr(self, meta, ch):
        return ast.IfExpr(ch[0], ch[1], ch[2], self._sp(meta))

    def with_index(self, meta, ch):
        return ast.WithIndex(ch[0], ch[1], ch[2], self._sp(meta))

    def with_field(self, meta, ch):
        return ast.WithField(ch[0], str(ch[1]), ch[2], self._sp(meta))

    def _bin(self, op, meta, ch):
        return ast.BinOp(op, ch[0], ch[-1], self._sp(meta))

    def implies_op(self, meta, ch):
        return self._bin("=>", meta, ch)

    def or_op(self, meta, ch):
        return self._bin("or", meta, ch)

    def and_op(self, meta, ch):
        return self._bin("and", meta, ch)

    def not_op(self, meta, ch):
        return ast.UnaryOp("not", ch[0], self._sp(meta))

    def compare(self, meta, ch):
        return self._bin(str(ch[1]), meta, ch)

    def in_op(self, meta, ch):
        return self._bin("in", meta, ch)

    def not_in_op(self, meta, ch):
        return self._bin("not in", meta, ch)

    def is_op(self, meta, ch):
        binder = ch[2] if len(ch) > 2 else None
        return ast.IsTest(ch[0], self._n(ch[1]), self._sp(meta), self._tsp(ch[1]),
                          binder=None if binder is None else self._n(binder),
                          binder_span=None if binder is None else self._tsp(binder))

    def range_op(self, meta, ch):
        return self._bin("..", meta, ch)

    def union_op(self, meta, ch):
        return self._bin("|", meta, ch)

    def inter_op(self, meta, ch):
        return self._bin("&", meta, ch)

    def add_op(self, meta, ch):
        return self._bin("+", meta, ch)

    def sub_op(self, meta, ch):
        return self._bin("-", meta, ch)

    def mul_op(self, meta, ch):
        return self._bin("*", meta, ch)

    def div_op(self, meta, ch):
        return self._bin("//", meta, ch)

    def mod_op(self, meta, ch):
        return self._bin("%", meta, ch)

    def neg_op(self, meta, ch):
        return ast.UnaryOp("-", ch[0], self._sp(meta))

    def index_op(self, meta, ch):
        return ast.Index(ch[0], ch[1], self._sp(meta))

    def slice_op(self, meta, ch):
        return ast.Slice(ch[0], ch[1], ch[2], self._sp(meta))

    def field_op(self, meta, ch):
        return ast.FieldAccess(ch[0], str(ch[1]), self._sp(meta))

    def int_lit(self, meta, ch):
        # Digits are counted before int() runs: Python refuses to convert
        # more than 4,300 digits, and a huge value would only fail later.
        digits = str(ch[0]).lstrip("0") or "0"
        if len(digits) > len(str(MAX_INT_LITERAL)) or int(digits) > MAX_INT_LITERAL:
            self.errors.append(Diagnostic(
                "MC1005", f"this integer literal has {len(digits):,} digits; literals may be "
                f"at most 2^128 - 1 ({len(str(MAX_INT_LITERAL))} digits)", self._sp(meta),
                hint="no engine can hold such a value; use a smaller number, or scale "
                     "the quantity down"))
            return ast.IntLit(0, self._sp(meta))
        return ast.IntLit(int(digits), self._sp(meta))

    def true_lit(self, meta, ch):
        return ast.BoolLit(True, self._sp(meta))

    def false_lit(self, meta, ch):
        return ast.BoolLit(False, self._sp(meta))

    def none_lit(self, meta, ch):
        return ast.NoneLit(self._sp(meta))

    def name_ref(self, meta, ch):
        if str(ch[0]) in TYPE_WORDS:
            self.errors.append(type_as_value(str(ch[0]), self._tsp(ch[0])))
            return ast.NameRef(str(ch[0]), self._sp(meta))
        return ast.NameRef(self._n(ch[0]), self._sp(meta))

    def primed_ref(self, meta, ch):
        return ast.PrimedRef(self._n(ch[0]), self._sp(meta))

    def tuple_lit(self, meta, ch):
        return ast.TupleLit(_no_none(ch), self._sp(meta))

    def call(self, meta, ch):
        name, args = ch
        return ast.Call(self._n(name), args or (), self._sp(meta), self._tsp(name))

    def gen_call(self, meta, ch):
        name, elem, *fors = ch
        return ast.GenCall(self._n(name), elem, tuple(fors), self._sp(meta), self._tsp(name))

    def seq_lit(self, meta, ch):
        return ast.SeqLit(_no_none(ch), self._sp(meta))

    def set_lit(self, meta, ch):
        return ast.SetLit(_no_none(ch), self._sp(meta))

    def seq_comp(self, meta, ch):
        elem, *fors = ch
        return ast.SeqComp(elem, tuple(fors), self._sp(meta))

    def set_comp(self, meta, ch):
        elem, *fors = ch
        return ast.SetComp(elem, tuple(fors), self._sp(meta))

    def map_comp(self, meta, ch):
        key, value, *fors = ch
        return ast.MapComp(key, value, tuple(fors), self._sp(meta))

    def match_expr(self, meta, ch):
        return ast.MatchExpr(ch[0], ch[1] or (), self._sp(meta))

    def match_arms(self, meta, ch):
        return tuple(ch)

    def match_arm(self, meta, ch):
        return ast.MatchArm(ch[0], ch[1], self._sp(meta))

    def comp_for(self, meta, ch):
        var, case, domain, cond = ch
        return ast.CompFor(self._n(var), domain, cond, self._sp(meta), self._tsp(var),
                           case=None if case is None else self._n(case),
                           case_span=None if case is None else self._tsp(case))

    def args(self, meta, ch):
        return tuple(ch)

    def pos_arg(self, meta, ch):
        return ast.Arg(None, ch[0], self._sp(meta))

    def kw_arg(self, meta, ch):
        return ast.Arg(str(ch[0]), ch[1], self._sp(meta))
