"""Parsing variants, match (expression and statement), ``is`` and set capacities."""
from __future__ import annotations

import pytest

from modelcheck.errors import CompileError
from modelcheck.syntax import ast
from modelcheck.syntax.parser import keywords, parse


def items(text: str):
    return parse("module m\n" + text, "t.mc").items


def expr(text: str):
    (prop,) = items(f"invariant P: {text}")
    return prop.expr


def test_variant_declaration():
    (decl,) = items("type Msg = variant { Req(term: 0..3, src: Node), Stop, Empty(), }")
    cases = decl.definition.cases
    assert [c.name for c in cases] == ["Req", "Stop", "Empty"]
    assert [f.name for f in cases[0].fields] == ["term", "src"]
    assert cases[1].fields == () and cases[2].fields == ()


def test_set_capacity_is_optional():
    plain, capped = (d.type for d in items("var a: set[Node] = {}\nvar b: set[Msg, N + 1] = {}"))
    assert plain == ast.SetTypeExpr(ast.NamedTypeExpr("Node"), None)
    assert capped.capacity == ast.BinOp("+", ast.NameRef("N"), ast.IntLit(1))


def test_is_binds_like_a_comparison():
    e = expr("not m is Stop and x")
    assert e == ast.BinOp("and", ast.UnaryOp("not", ast.IsTest(ast.NameRef("m"), "Stop")),
                          ast.NameRef("x"))


def test_match_expression_patterns():
    e = expr("match m { Req as r => r.term, Vote | Stop => 0, _ => 1, }")
    assert isinstance(e, ast.MatchExpr) and e.subject == ast.NameRef("m")
    req, several, rest = (a.pattern for a in e.arms)
    assert [c.name for c in req.cases] == ["Req"] and req.binder.name == "r"
    assert [c.name for c in several.cases] == ["Vote", "Stop"] and several.binder is None
    assert rest.wildcard and rest.binder is None
    # an arm's body may itself be an implication
    body = expr("match m { _ => a => b }").arms[0].body
    assert body == ast.BinOp("=>", ast.NameRef("a"), ast.NameRef("b"))


def test_match_statement():
    (action,) = items("action A() { match f(x) { Req as r { x := r.t } _ { } } }")
    (stmt,) = action.body
    assert isinstance(stmt, ast.MatchStmt) and isinstance(stmt.subject, ast.Call)
    assert [type(s) for s in stmt.arms[0].body] == [ast.AssignStmt]
    assert stmt.arms[1].pattern.wildcard and stmt.arms[1].body == ()


def test_match_is_an_atom():
    e = expr("(match m { _ => 1 }) + match m { _ => 2 }")
    assert e.op == "+" and isinstance(e.right, ast.MatchExpr)


def test_new_words_are_keywords():
    assert {"variant", "match", "is", "as"} <= keywords()


@pytest.mark.parametrize("text, message", [
    ("invariant P: match m { _ as x => 1 }", "'_ as ...' binds nothing"),
    ("invariant P: match m { A | _ => 1 }", "'_' stands alone in a match arm"),
    ("type M = variant { A, _ }", "'_' cannot name a case"),
    ("var match: 0..1 = 0", "'match' is a keyword and cannot be used as a name"),
    ("invariant P: match m { A | B as x => 1 }", "unexpected keyword 'as'"),
])
def test_syntax_errors(text, message):
    with pytest.raises(CompileError) as info:
        items(text)
    d = info.value.diagnostics[0]
    assert d.code == "MC1001" and d.message.startswith(message), d.message
