"""Variants in the front end: declarations, constructors, ``is``, ``match``
(lowered to if chains on CaseTest), field reads, and their diagnostics
(MC2001, MC2002, MC3002, MC3009, MC3013, MC3014, MC3015)."""
from __future__ import annotations

import pytest

from modelcheck.errors import CompileError
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir import visit
from modelcheck.ir.ops import Op
from modelcheck.ir.values import FrozenDict, Variant
from modelcheck.pipeline import load_source

MSG = """module m
type Node = model { n1, n2 }
type Msg = variant {
    Req(term: 0..3, src: Node),
    Vote(term: 0..3, granted: bool),
    Timeout,
}
var net: set[Msg, 2] = {}
var x: 0..3 = 0
"""

REQ = T.RecordType("Req", (("term", T.IntType(0, 3)),
                           ("src", T.ModelType("Node", ("n1", "n2")))))
VOTE = T.RecordType("Vote", (("term", T.IntType(0, 3)), ("granted", T.BOOL)))
TIMEOUT = T.RecordType("Timeout", ())
MSG_T = T.VariantType("Msg", (("Req", REQ), ("Vote", VOTE), ("Timeout", TIMEOUT)))
NET = ir.Var("net", T.SetType(MSG_T, 2))


def _var(m, name):
    return next(v for v in m.vars if v.name == name)


def _action(m, name):
    return next(a for a in m.actions if a.name == name)


def model(body: str):
    return load_source(MSG + body, "t.mc")


def errors(body: str):
    with pytest.raises(CompileError) as info:
        model(body)
    return info.value.diagnostics


def one_error(body: str):
    (d,) = errors(body)
    return d


def prop(body: str, name: str = "P"):
    return model(body).get_property(name).expr


# ------------------------------------------------------------------ types and values

def test_variant_declaration_is_one_variant_type_with_record_cases():
    m = model("")
    assert dict(m.types)["Msg"] == MSG_T
    assert _var(m, "net").type == NET.type


def test_constructors_build_variant_literals_of_the_declared_case_type():
    expr = prop("invariant P: Vote(term=1, granted=true) in net or Timeout in net")
    vote, timeout = (a.args[0] for a in expr.args)
    assert isinstance(vote, ir.VariantLit) and vote.case == "Vote" and vote.type == MSG_T
    assert vote.payload.type == VOTE and [n for n, _ in vote.payload.fields] == ["term",
                                                                                "granted"]
    assert timeout == ir.VariantLit("Timeout", ir.RecordLit((), TIMEOUT), MSG_T)
    assert prop("invariant P: Timeout() in net").args[0] == timeout


def test_a_const_of_a_variant_type_is_folded():
    m = model("const C: Msg = Vote(term=2, granted=false)\ninvariant P: C in net")
    value = Variant("Vote", FrozenDict({"term": 2, "granted": False}))
    assert dict((n, v) for n, _, v in m.consts)["C"] == value


def test_is_is_a_case_test():
    expr = prop("invariant P: all(not (m is Timeout) for m in net)")
    (test,) = [n for n in visit.walk(expr) if isinstance(n, ir.CaseTest)]
    assert test.case == "Timeout" and test.type == T.BOOL


# ------------------------------------------------------------------ match lowering

def test_match_expression_is_an_if_chain_with_payload_lets():
    m = model("def term_of(m: Msg) -> 0..3 = match m {\n"
              "    Req as r => r.term,\n    Vote as v => v.term,\n    _ => 0,\n}\n"
              "invariant P: all(term_of(m) <= x for m in net)")
    quant = m.get_property("P").expr
    let = quant.body.args[0]                     # let m_2 = m (the def's parameter)
    chain = let.body
    assert isinstance(chain, ir.IfExpr) and isinstance(chain.cond, ir.CaseTest)
    assert chain.cond.case == "Req" and isinstance(chain.cond.subject, ir.Local)
    assert isinstance(chain.then, ir.LetExpr)
    assert chain.then.value == ir.CasePayload(chain.cond.subject, "Req", REQ)
    inner = chain.else_
    assert inner.cond.case == "Vote"
    # the last arm (here '_') is the final else, without a test
    assert inner.else_ == ir.Const(0, T.IntType(0, 0))


def test_a_subject_that_is_not_a_name_is_bound_once():
    expr = prop("invariant P: all((match (if x == 0 then m else Timeout) {\n"
                "    Timeout => true, _ => false }) for m in net)")
    body = expr.body
    assert isinstance(body, ir.LetExpr) and body.value.type == MSG_T
    tests = [n for n in visit.walk(body.body) if isinstance(n, ir.CaseTest)]
    assert tests and all(t.subject == ir.Local(body.name, MSG_T) for t in tests)


def test_an_arm_of_several_cases_is_an_or_of_tests():
    expr = prop("invariant P: all((match m { Req | Vote => 1, Timeout => 2 }) == 1 "
                "for m in net)")
    chain = expr.body.args[0]
    assert chain.cond.op is Op.OR
    assert [t.case for t in chain.cond.args] == ["Req", "Vote"]


def test_match_statement_arms_are_separate_paths():
    m = model("action A() {\n  pick m in net\n  match m {\n"
              "    Req as r { x := r.term }\n"
              "    Vote as v { require v.granted  x := v.term }\n"
              "    Timeout { net := net - {m} }\n  }\n}")
    pick, chain = _action(m, "A").body
    assert isinstance(pick, ir.Pick) and isinstance(chain, ir.If)
    assert chain.cond == ir.CaseTest(ir.Local("m", MSG_T), "Req")
    assert isinstance(chain.then[0], ir.Let) and isinstance(chain.then[1], ir.Assign)
    (vote,) = chain.else_
    assert [type(s) for s in vote.then] == [ir.Let, ir.Require, ir.Assign]
    assert isinstance(vote.else_[0], ir.Assign) and vote.else_[0].var == "net"


def test_a_match_statement_on_an_expression_binds_it_first():
    m = model("action A() {\n  match (if x == 0 then Timeout else Vote(term=x, granted=true)) {"
              "\n    Timeout { x := 1 }\n    _ { x := 0 }\n  }\n}")
    let, chain = _action(m, "A").body
    assert isinstance(let, ir.Let) and let.value.type == MSG_T
    assert chain.cond.subject == ir.Local(let.name, MSG_T)


def test_an_assignment_after_a_match_moves_into_every_arm():
    m = model("var f: map[Node, bool] = {n: false for n in Node}\naction A() {\n"
              "  pick m in net\n  match m {\n    Req as r { f[r.src] := true }\n    _ { }\n"
              "  }\n  f[n1] := false\n}")
    chain = _action(m, "A").body[1]
    # each arm ends with the one Assign of f on its path
    assert [s.var for s in chain.then if isinstance(s, ir.Assign)] == ["f"]
    assert [s.var for s in chain.else_ if isinstance(s, ir.Assign)] == ["f"]


def test_binders_stay_unique_when_the_same_name_is_bound_twice():
    m = model("action A() {\n  pick m in net\n  match m {\n"
              "    Req as c { x := c.term }\n    Vote as c { x := c.term }\n"
              "    Timeout { }\n  }\n}")
    names = visit.binders(_action(m, "A"))
    assert len(names) == len(set(names))


def test_a_common_field_reads_the_field_of_each_case():
    m = load_source("module m\ntype M = variant { A(t: 0..2), B(t: 0..5, u: bool) }\n"
                    "var v: M = A(t=0)\ninvariant P: v.t < 5", "t.mc")
    expr = m.get_property("P").expr.args[0]
    assert isinstance(expr, ir.IfExpr) and expr.cond.case == "A"
    assert expr.type == T.IntType(0, 5)
    assert [n.case for n in visit.walk(expr) if isinstance(n, ir.CasePayload)] == ["A", "B"]


# ------------------------------------------------------------------ capacities

def test_set_capacity_is_kept_on_the_variable_type():
    m = load_source("module m\ntype R = record { a: 0..1000, b: 0..1000 }\n"
                    "var s: set[R, 3] = {}\nvar q: bag[R, 2] = {}\nvar l: seq[R, 2] = []\n",
                    "t.mc")
    assert _var(m, "s").type.capacity == 3
    assert _var(m, "q").type.elem.name == "R"


def test_a_union_of_capped_sets_is_bounded_by_the_sum():
    expr = prop("var a: set[Msg, 3] = {}\ninvariant P: len(net | a) <= 5")
    union = expr.args[0].args[0]
    assert union.type.capacity == 5
    assert prop("invariant P: len(net | {Timeout}) <= 5").args[0].args[0].type.capacity is None


# ------------------------------------------------------------------ diagnostics

@pytest.mark.parametrize("body, code, message", [
    ("def f(m: Msg) -> 0..3 = match m { Req as r => r.term }", "MC3013",
     "match does not cover every case of Msg: 'Vote' and 'Timeout' are missing"),
    ("action A() { pick m in net  match m { Req { } Vote { } } }", "MC3013",
     "match does not cover every case of Msg: 'Timeout' is missing"),
    ("def f(m: Msg) -> bool = match m { Req => true, Req => false, _ => true }", "MC3015",
     "match arm never taken: case 'Req' is already matched before"),
    ("def f(m: Msg) -> bool = match m { _ => true, Req => false }", "MC3015",
     "match arm never taken: it comes after '_'"),
    ("def f(m: Msg) -> bool = match m { Req | Vote | Timeout => true, _ => false }", "MC3015",
     "match arm never taken: every case of Msg is already matched before '_'"),
    ("def f(m: Msg) -> bool = match m { Reqq => true, _ => false }", "MC2001",
     "'Reqq' is not a case of Msg"),
    ("def f(m: Msg) -> bool = m is Red", "MC2001", "'Red' is not a case of Msg"),
    ("def f(m: Msg) -> bool = match x { Req => true, _ => false }", "MC3002",
     "'match' needs a variant, found an int (0..3)"),
    ("def f(m: Msg) -> bool = x is Req", "MC3002", "'is' needs a variant, found an int (0..3)"),
    ("invariant P: all(m.granted for m in net)", "MC3014",
     "field 'granted' of a Msg read outside its case: only 'Vote' has it"),
    ("invariant P: all(m.trem == 0 for m in net)", "MC3004",
     "no case of Msg has a field 'trem'"),
    ("def f(m: Msg) -> bool = match m { Req as r => r.granted, _ => true }", "MC3004",
     "Req has no field 'granted'"),
    ("invariant P: Req in net", "MC3009", "'Req' is a case of Msg with fields, not a value"),
    ("invariant P: Vote(term=1) in net", "MC3004", "Vote(...) is missing field 'granted'"),
    ("def f(m: Msg) -> 0..3 = match m { Req as r => r.term, _ => true }", "MC3001",
     "the arms of 'match' have different types: an int (0..3) and bool"),
    ("var Timeout: 0..1 = 0", "MC2002", "'Timeout' is already defined (as a variant case)"),
    ("type Other = variant { Req, Stop }", "MC2002",
     "'Req' is already defined (as a variant case)"),
])
def test_variant_diagnostics(body, code, message):
    d = errors(body)[0]
    assert (d.code, d.message) == (code, message)


def test_unknown_case_hint_lists_the_subjects_cases():
    d = one_error("def f(m: Msg) -> bool = match m { Tmeout => true, _ => false }")
    assert d.hint == "did you mean 'Timeout'?"
    d = one_error("def f(m: Msg) -> bool = m is Zzz")
    assert d.hint == "its cases are: Req, Vote, Timeout"


def test_a_missing_payload_field_hint_names_the_cases_that_have_it():
    d = one_error("def f(m: Msg) -> bool = match m { Req as r => r.granted, _ => true }")
    assert d.hint == "in Msg, 'Vote' has a field 'granted'; match on that case to read it"


def test_exhaustiveness_hint_and_span():
    d = one_error("def f(m: Msg) -> 0..3 = match m { Req as r => r.term }")
    assert d.hint == "add an arm for each, or '_' for every case not named"
    assert d.span.line == 10


def test_match_arms_obey_the_one_assignment_per_path_rule():
    d = one_error("action A() { pick m in net  match m { Req { x := 1  x := 2 } _ { } } }")
    assert d.code == "MC4002"
    model("action A() { pick m in net  match m { Req { x := 1 } Vote { x := 2 } _ { } } }")


def test_match_works_in_constraints_and_defs_called_twice():
    m = model("def t(m: Msg) -> 0..3 = match m { Req as r => r.term, Vote as v => v.term,"
              " Timeout => 0 }\n"
              "constraint C: all(t(m) + t(m) <= 6 for m in net)")
    binders = [n.name for n in visit.walk(m.constraints[0].expr) if isinstance(n, ir.LetExpr)]
    assert len(binders) == len(set(binders))


def test_len_of_a_capped_set_is_bounded_by_its_capacity():
    m = load_source("module m\ntype R = record { a: 0..1000, b: 0..1000 }\n"
                    "var s: set[R, 3] = {}\nvar t: set[R, 2] = {}\n"
                    "invariant P: len(s) <= 3 and len(s | t) <= 5", "t.mc")
    one, two = m.get_property("P").expr.args
    assert one.args[0].type == T.IntType(0, 3)
    assert two.args[0].type == T.IntType(0, 5)


def test_a_field_whose_type_differs_between_cases_is_mc3014():
    with pytest.raises(CompileError) as info:
        load_source("module m\ntype M = variant { A(t: 0..2), B(t: bool) }\n"
                    "var v: M = A(t=0)\ninvariant P: v.t == 0", "t.mc")
    (d,) = info.value.diagnostics
    assert d.code == "MC3014" and d.message.endswith("its type differs between the cases")


def test_a_common_field_of_an_expression_binds_it_once():
    m = load_source("module m\ntype M = variant { A(t: 0..2), B(t: 0..2) }\n"
                    "var v: M = A(t=0)\nvar w: M = B(t=1)\n"
                    "invariant P: (if v == w then v else w).t == 1", "t.mc")
    let = m.get_property("P").expr.args[0]
    assert isinstance(let, ir.LetExpr) and isinstance(let.value, ir.IfExpr)
    subjects = {n.subject for n in visit.walk(let.body) if isinstance(n, (ir.CaseTest,
                                                                          ir.CasePayload))}
    assert subjects == {ir.Local(let.name, let.value.type)}


def test_match_on_a_primed_variable_in_a_step_invariant():
    m = model("step invariant S: all((match m { Timeout => true, _ => x' >= x }) "
              "for m in net')")
    tests = [n for n in visit.walk(m.get_property("S").expr) if isinstance(n, ir.CaseTest)]
    assert [t.case for t in tests] == ["Timeout"]
