"""How source constructs are lowered into the IR (docs/design.md)."""
from __future__ import annotations

from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir import visit
from modelcheck.ir.ops import Op

NODE = T.ModelType("Node", ("node1", "node2", "node3"))
ALL_NODES = ir.Const(frozenset(NODE.members), T.SetType(NODE))
X = ir.Var("x", T.IntType(0, 3))
S = ir.Var("s", T.SetType(NODE))


def prop(model, name="P"):
    return model.get_property(name).expr


def test_not_in_is_not_of_in(compile_spec):
    expr = prop(compile_spec("invariant P: node1 not in s"))
    assert expr == ir.Apply(Op.NOT, (ir.Apply(Op.IN, (ir.Const("node1", NODE), S), T.BOOL),),
                            T.BOOL)


def test_set_minus_and_subset(compile_spec):
    diff, sub, sup = prop(compile_spec(
        "invariant P: s - {node1} == s and s <= Node and Node >= s")).args
    assert diff.args[0].op is Op.DIFF
    assert sub == ir.Apply(Op.SUBSET, (S, ALL_NODES), T.BOOL)
    assert sup == ir.Apply(Op.SUBSET, (S, ALL_NODES), T.BOOL)
    proper = prop(compile_spec("invariant P: s < Node"))
    assert proper.op is Op.AND and [a.op for a in proper.args] == [Op.SUBSET, Op.NE]


def test_and_chains_are_one_nary_apply(compile_spec):
    expr = prop(compile_spec("invariant P: x == 0 and x == 1 and (x == 2 and x == 3)"))
    assert expr.op is Op.AND and len(expr.args) == 4


def test_quantifier_filters(compile_spec):
    a, b = prop(compile_spec(
        "invariant P: all(m[n] for n in Node if n in s) and any(m[n] for n in Node if n in s)"
    )).args
    assert isinstance(a, ir.Quant) and a.kind is ir.QuantKind.ALL
    assert a.body.op is Op.IMPLIES
    assert b.kind is ir.QuantKind.ANY and b.body.op is Op.AND
    assert a.domain == ALL_NODES


def test_several_for_clauses_nest(compile_spec):
    expr = prop(compile_spec("invariant P: any(a != b for a in Node for b in s if a in s)"))
    assert isinstance(expr, ir.Quant) and expr.var == "a"
    inner = expr.body
    assert isinstance(inner, ir.Quant) and inner.var == "b" and inner.domain == S
    assert inner.body.op is Op.AND


def test_sum_and_set_comprehension(compile_spec):
    model = compile_spec("invariant P: sum(2 for n in Node if m[n]) <= len({n for n in s})")
    total, size = prop(model).args
    assert isinstance(total, ir.SumComp) and total.cond is not None
    assert total.type == T.IntType(0, 6)
    comp = size.args[0]
    assert isinstance(comp, ir.SetComp) and comp.domain == S and comp.cond is None
    assert size.type == T.IntType(0, 3)


def test_assignment_to_a_part_is_a_whole_variable_assign(compile_spec):
    model = compile_spec("""
type Rec = record {up: bool, n: 0..3}
var r: map[Node, Rec] = {n: Rec(up=false, n=0) for n in Node}
action A(k: Node) { r[k].up := true }
""")
    (assign,) = model.action("A").body
    assert assign.var == "r"
    value = assign.value
    assert value.op is Op.MAP_SET
    base, key, inner = value.args
    assert base == ir.Var("r", model.var("r").type) and key == ir.Local("k", NODE)
    assert isinstance(inner, ir.FieldSet) and inner.field == "up"
    assert inner.record.op is Op.MAP_GET and inner.value == ir.Const(True, T.BOOL)


def test_sequence_element_assignment(compile_spec):
    model = compile_spec("var q: seq[0..3, 2] = [0]\naction A() { q[0] := 1 }")
    (assign,) = model.action("A").body
    assert assign.value.op is Op.SEQ_SET


def test_defs_are_inlined_as_lets(compile_spec):
    model = compile_spec("""
def both(a: Node, b: Node) -> bool = m[a] and m[b]
invariant P: both(node1, node2)
""")
    expr = prop(model)
    assert isinstance(expr, ir.LetExpr) and expr.name == "a"
    assert isinstance(expr.body, ir.LetExpr) and expr.body.name == "b"
    assert expr.body.body.op is Op.AND
    assert not any(isinstance(e, ir.Apply) and e.op.name == "CALL" for e in visit.walk(expr))


def test_binders_are_unique_per_action_and_parameters_keep_their_names(compile_spec):
    model = compile_spec("""
def has(n: Node) = any(k == n for k in s)
action A(n: Node) {
    let k = n
    require has(k) and has(n) and all(k != n for k in s)
    pick n2 in s
    x := if any(k == n2 for k in Node) then 1 else 0
}
""")
    action = model.action("A")
    names = visit.binders(action)
    assert names[0] == "n"
    assert len(names) == len(set(names))
    assert {"k", "k_2", "n2"} <= set(names)


def test_let_names_are_renamed_in_properties(compile_spec):
    expr = prop(compile_spec("invariant P: (let a = 1; a) == (let a = 2; a)"))
    assert [e.name for e in visit.walk(expr) if isinstance(e, ir.LetExpr)] == ["a", "a_2"]


def test_empty_literals_take_their_type_from_context(compile_spec):
    model = compile_spec("""
var q: seq[Node, 2] = []
var b: bag[Node, 3] = {}
var o: option[Node] = none
invariant P: s == {} and q == [] and b == {} and o == none and {} == s
""")
    eq_set, eq_seq, eq_bag, eq_opt, rev = prop(model).args
    assert eq_set.args[1] == ir.SetLit((), T.SetType(NODE))
    assert eq_seq.args[1] == ir.SeqLit((), T.SeqType(NODE, 0))
    assert eq_bag.args[1] == ir.BagLit((), T.BagType(NODE, 0))
    assert eq_opt.args[1] == ir.Const(None, T.OptionType(NODE))
    assert rev.args[0] == ir.SetLit((), T.SetType(NODE))
    assert model.var("b").init == ir.BagLit((), T.BagType(NODE, 0))


def test_bag_literals_and_operations(compile_spec):
    model = compile_spec("""
var b: bag[Node, 3] = {node1, node1}
action A() {
    pick n in b
    b := take(put(b, n), n)
}
invariant P: count(b, node1) <= 2 and node1 in b and len(distinct(b)) <= 3
""")
    assert model.var("b").init == ir.BagLit((ir.Const("node1", NODE),) * 2, T.BagType(NODE, 2))
    pick, assign = model.action("A").body
    assert pick.domain.op is Op.BAG_DISTINCT
    assert assign.value.op is Op.BAG_REMOVE and assign.value.args[0].op is Op.BAG_ADD
    assert assign.value.args[0].type == T.BagType(NODE, 4)


def test_sequences(compile_spec):
    model = compile_spec("""
var q: seq[0..3, 3] = [1, 2]
invariant P: head(q) + len(tail(q)) >= 0 and append(q, 3) == q + [3] and q[1:] == q[:2]
""")
    head_plus, app, sl = prop(model).args
    assert app.args[0].type == T.SeqType(T.IntType(0, 3), 4)
    assert app.args[1].op is Op.CONCAT and app.args[1].type.capacity == 4
    assert sl.args[0].op is Op.SLICE and sl.args[1].args[1] == ir.Const(0, T.IntType(0, 0))
    assert model.var("q").init.type == T.SeqType(T.IntType(1, 2), 2)


def test_options_tuples_records(compile_spec):
    model = compile_spec("""
type R = record {a: 0..3, b: bool}
var o: option[R] = some(R(a=1, b=true))
var t: tuple[Node, 0..3] = (node1, 2)
invariant P: is_some(o) and o.value.a == t[1] and (o.value with .b = false).b == false
""")
    is_some, eq, with_ = prop(model).args
    assert is_some.op is Op.IS_SOME
    get_a, tuple_get = eq.args
    assert get_a == ir.FieldGet(ir.Apply(Op.OPT_GET, (ir.Var("o", model.var("o").type),),
                                         model.var("o").type.elem), "a", T.IntType(0, 3))
    assert tuple_get.op is Op.TUPLE_GET and tuple_get.args[1] == ir.Const(1, T.IntType(1, 1))
    assert isinstance(with_.args[0].record, ir.FieldSet)
    init = model.var("o").init
    assert init.op is Op.SOME and isinstance(init.args[0], ir.RecordLit)


def test_type_names_as_expressions_are_constant_sets(compile_spec):
    model = compile_spec("type Small = 1..2\ninvariant P: x in Small and red in Color")
    in_small, in_color = prop(model).args
    assert in_small.args[1] == ir.Const(frozenset({1, 2}), T.SetType(T.IntType(1, 2)))
    assert in_color.args[1].value == frozenset({"red", "green"})


def test_map_comprehension_over_the_key_type(compile_spec):
    model = compile_spec("var c: map[0..2, Node] = {i: node1 for i in 0..2}")
    init = model.var("c").init
    assert init == ir.MapComp("i", ir.Const("node1", NODE), T.MapType(T.IntType(0, 2), NODE))


def test_if_either_statements(compile_spec):
    model = compile_spec("""
action A() {
    if x > 0 { x := x - 1 } else if x == 0 { s := Node } else { }
    either { m[node1] := true } or { m[node2] := true }
}
""")
    if_, either = model.action("A").body
    assert isinstance(if_, ir.If) and isinstance(if_.else_[0], ir.If)
    assert isinstance(either, ir.Either) and len(either.branches) == 2
    assert visit.stmts_assigned_vars(model.action("A").body) == {"x", "s", "m"}


def test_with_index_on_a_map(compile_spec):
    expr = prop(compile_spec("invariant P: (m with [node1] = true)[node1]"))
    assert expr.op is Op.MAP_GET and expr.args[0].op is Op.MAP_SET


def test_none_in_a_literal_takes_its_type_from_the_other_elements(compile_spec):
    model = compile_spec("var o: set[option[0..3]] = {none, some(1)}")
    none, some = model.var("o").init.elems
    assert none == ir.Const(None, T.OptionType(T.IntType(1, 1)))
    assert some.op is Op.SOME
