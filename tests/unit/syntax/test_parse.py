"""The parser: text -> AST, spans, and grammar loading."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.diagnostics import Span
from modelcheck.syntax import ast
from modelcheck.syntax.parser import grammar_text, lark_parser, parse

ROOT = Path(__file__).resolve().parents[3]


def parse_expr(text: str) -> ast.Expr:
    module = parse(f"module m\ninvariant P: {text}\n", "t.mc")
    return module.items[0].expr


def test_grammar_is_the_repository_copy_in_a_checkout():
    assert grammar_text() == (ROOT / "grammar" / "modelcheck.lark").read_text(encoding="utf-8")


def test_parser_is_built_once_per_process():
    assert lark_parser() is lark_parser()


@pytest.mark.parametrize("name", ["die_hard", "two_phase"])
def test_example_specs_parse(name):
    path = ROOT / "specs" / "examples" / f"{name}.mc"
    module = parse(path.read_text(encoding="utf-8"), str(path))
    assert module.name == name
    assert module.items


def test_die_hard_structure():
    path = ROOT / "specs" / "examples" / "die_hard.mc"
    module = parse(path.read_text(encoding="utf-8"), "die_hard.mc")
    kinds = [type(i).__name__ for i in module.items]
    assert kinds == ["VarDecl"] * 2 + ["ActionDecl"] * 6 + ["PropertyDecl"]
    small = module.items[0]
    assert small == ast.VarDecl("small", ast.RangeTypeExpr(ast.IntLit(0), ast.IntLit(3)), "=",
                                ast.IntLit(0))
    pour = module.items[6]
    assert pour.name == "SmallToBig" and pour.params == ()
    assert pour.body[0] == ast.LetStmt("poured", ast.Call("min", (
        ast.Arg(None, ast.NameRef("small")),
        ast.Arg(None, ast.BinOp("-", ast.IntLit(5), ast.NameRef("big"))))))


def test_spans_are_one_based_and_end_exclusive():
    module = parse("module m\nvar x: 0..3 = 0\n", "f.mc")
    var = module.items[0]
    assert var.span == Span("f.mc", 2, 1, 2, 16)
    assert var.name_span == Span("f.mc", 2, 5, 2, 6)


def test_spans_are_out_of_equality():
    a = parse("module m\ninvariant P: x == 1", "a.mc")
    b = parse("module m\n\n\n   invariant   P:\n x   ==   1  # note", "b.mc")
    assert a == b
    assert a.items[0].span != b.items[0].span


@pytest.mark.parametrize("text, expected", [
    ("1 + 2 * 3", ast.BinOp("+", ast.IntLit(1), ast.BinOp("*", ast.IntLit(2), ast.IntLit(3)))),
    ("a - b - c", ast.BinOp("-", ast.BinOp("-", ast.NameRef("a"), ast.NameRef("b")),
                            ast.NameRef("c"))),
    ("not a and b", ast.BinOp("and", ast.UnaryOp("not", ast.NameRef("a")), ast.NameRef("b"))),
    ("a => b => c", ast.BinOp("=>", ast.NameRef("a"),
                              ast.BinOp("=>", ast.NameRef("b"), ast.NameRef("c")))),
    ("x not in S", ast.BinOp("not in", ast.NameRef("x"), ast.NameRef("S"))),
    ("a | b & c", ast.BinOp("|", ast.NameRef("a"), ast.BinOp("&", ast.NameRef("b"),
                                                             ast.NameRef("c")))),
    ("-x // 2", ast.BinOp("//", ast.UnaryOp("-", ast.NameRef("x")), ast.IntLit(2))),
    ("x'", ast.PrimedRef("x")),
    ("m[k].f", ast.FieldAccess(ast.Index(ast.NameRef("m"), ast.NameRef("k")), "f")),
    ("s[1:]", ast.Slice(ast.NameRef("s"), ast.IntLit(1), None)),
    ("s[:j]", ast.Slice(ast.NameRef("s"), None, ast.NameRef("j"))),
    ("(1,)", ast.TupleLit((ast.IntLit(1),))),
    ("(1, 2)", ast.TupleLit((ast.IntLit(1), ast.IntLit(2)))),
    ("(1)", ast.IntLit(1)),
    ("[]", ast.SeqLit(())),
    ("{}", ast.SetLit(())),
    ("{a, b,}", ast.SetLit((ast.NameRef("a"), ast.NameRef("b")))),
    ("m with [k] = v", ast.WithIndex(ast.NameRef("m"), ast.NameRef("k"), ast.NameRef("v"))),
    ("r with .f = 1", ast.WithField(ast.NameRef("r"), "f", ast.IntLit(1))),
    ("if c then 1 else 2", ast.IfExpr(ast.NameRef("c"), ast.IntLit(1), ast.IntLit(2))),
    ("let y = 1; y", ast.LetExpr("y", ast.IntLit(1), ast.NameRef("y"))),
    ("none", ast.NoneLit()),
    ("true", ast.BoolLit(True)),
    ("Msg(a=1)", ast.Call("Msg", (ast.Arg("a", ast.IntLit(1)),))),
    ("all(p for x in S if q)", ast.GenCall("all", ast.NameRef("p"), (
        ast.CompFor("x", ast.NameRef("S"), ast.NameRef("q")),))),
    ("{x for x in S}", ast.SetComp(ast.NameRef("x"), (ast.CompFor("x", ast.NameRef("S"), None),))),
    ("{k: 0 for k in K}", ast.MapComp(ast.NameRef("k"), ast.IntLit(0),
                                      (ast.CompFor("k", ast.NameRef("K"), None),))),
    ("a <= b", ast.BinOp("<=", ast.NameRef("a"), ast.NameRef("b"))),
    ("0..N", ast.BinOp("..", ast.IntLit(0), ast.NameRef("N"))),
])
def test_expressions(text, expected):
    assert parse_expr(text) == expected


def test_statements_and_else_if():
    module = parse("""module m
action A(n: Node, t: 0..2) {
    require n in S
    let y = 1
    pick z in S
    x[n].f := y
    if a { x := 1 } else if b { x := 2 } else { x := 3 }
    either { x := 1 } or { x := 2 } or { x := 3 }
}
""", "t.mc")
    action = module.items[0]
    assert [p.name for p in action.params] == ["n", "t"]
    require, let, pick, assign, if_, either = action.body
    assert isinstance(require, ast.RequireStmt)
    assert let == ast.LetStmt("y", ast.IntLit(1))
    assert pick == ast.PickStmt("z", ast.NameRef("S"))
    assert assign.target == ast.LValue("x", (ast.LvIndex(ast.NameRef("n")), ast.LvField("f")))
    assert isinstance(if_.else_[0], ast.IfStmt) and len(if_.else_[0].else_) == 1
    assert len(either.branches) == 3


def test_declarations():
    module = parse("""module m
import common
const N: 1..3 = 2
symmetric type Node = model(N)
type Ids = model {a, b}
type Color = enum {red, green,}
type R = record {x: bool, y: option[0..1]}
var v: set[Node] in {{}}
def f(x: bool) -> bool = not x
def g() = 1
invariant I: true
step invariant S: v' == v
sometimes W: true
terminal T: true
constraint C: true
""", "t.mc")
    items = module.items
    assert items[0] == ast.ImportDecl("common")
    assert items[2].symmetric and isinstance(items[2].definition, ast.ModelCountDef)
    assert [m.name for m in items[3].definition.members] == ["a", "b"]
    assert [m.name for m in items[4].definition.members] == ["red", "green"]
    assert items[6].init_kind == "in"
    assert items[7].result == ast.BoolTypeExpr() and items[8].params == ()
    assert [i.kind for i in items[9:]] == list(ast.PROPERTY_KINDS)


def test_installed_package_reads_its_packaged_grammar(tmp_path, monkeypatch):
    from modelcheck.syntax import lark_tables
    (tmp_path / "_grammar").mkdir()
    (tmp_path / "_grammar" / "modelcheck.lark").write_text("start: NAME\n", encoding="utf-8")
    monkeypatch.setattr(lark_tables.resources, "files", lambda package: tmp_path)
    assert lark_tables.grammar_text() == "start: NAME\n"


def test_len_of_a_large_range_keeps_a_sound_bound():
    from modelcheck.pipeline import load_source
    model = load_source("module m\ninvariant P: len(0..100000) > 0", "t.mc")
    assert model.properties[0].expr.args[0].type.hi == 100001


def test_an_implication_is_a_whole_comprehension_filter():
    e = parse_expr("all(p => q for x in S if a => b for y in T if c)")
    assert e.elem == ast.BinOp("=>", ast.NameRef("p"), ast.NameRef("q"))
    assert e.fors[0].cond == ast.BinOp("=>", ast.NameRef("a"), ast.NameRef("b"))
    assert e.fors[1].cond == ast.NameRef("c")
    s = parse_expr("{x for x in S if x > 0 => flag}")
    assert s.fors[0].cond == ast.BinOp("=>", ast.BinOp(">", ast.NameRef("x"), ast.IntLit(0)),
                                       ast.NameRef("flag"))
