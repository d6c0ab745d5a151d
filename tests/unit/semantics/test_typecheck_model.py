"""typecheck -> ir.Model: globals, types, consts and -D, the example specs."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.ops import Op
from modelcheck.pipeline import load, load_source

ROOT = Path(__file__).resolve().parents[3]
DIE_HARD = str(ROOT / "specs" / "examples" / "die_hard.mc")
TWO_PHASE = str(ROOT / "specs" / "examples" / "two_phase.mc")


def test_die_hard_model():
    model = load(DIE_HARD)
    assert model.name == "die_hard"
    assert [(v.name, v.type, v.init_kind, v.init) for v in model.vars] == [
        ("small", T.IntType(0, 3), ir.InitKind.EQ, ir.Const(0, T.IntType(0, 0))),
        ("big", T.IntType(0, 5), ir.InitKind.EQ, ir.Const(0, T.IntType(0, 0)))]
    assert [a.name for a in model.actions] == ["FillSmall", "FillBig", "EmptySmall",
                                               "EmptyBig", "SmallToBig", "BigToSmall"]
    let, small, big = model.action("SmallToBig").body
    assert let.name == "poured"
    assert let.value.op is Op.MIN and let.value.type == T.IntType(0, 3)
    assert small == ir.Assign("small", ir.Apply(Op.SUB, (
        ir.Var("small", T.IntType(0, 3)), ir.Local("poured", T.IntType(0, 3))), T.IntType(-3, 3)))
    assert big.value.type == T.IntType(0, 8)
    (prop,) = model.properties
    assert prop.kind is ir.PropertyKind.INVARIANT and prop.expr.op is Op.NE
    assert model.terminals == ()
    assert model.path == DIE_HARD
    assert model.sources == ((DIE_HARD, Path(DIE_HARD).read_text(encoding="utf-8")),)


def test_two_phase_model():
    model = load(TWO_PHASE)
    rm = T.ModelType("RM", ("rm1", "rm2", "rm3"), symmetric=True)
    assert model.consts == (("N", T.IntType(1, 12), 3),)
    assert dict(model.types)["RM"] == rm
    assert model.symmetric_types == (rm,)
    message = dict(model.types)["Message"]
    assert message == T.RecordType("Message", (
        ("kind", T.EnumType("Kind", ("msg_prepared", "msg_commit", "msg_abort"))),
        ("rm", T.OptionType(rm))))
    rm_state = model.var("rmState")
    assert isinstance(rm_state.init, ir.MapComp) and rm_state.init.type.key == rm
    assert model.var("msgs").init == ir.SetLit((), T.SetType(message))
    assert [p.name for p in model.action("TMRcvPrepared").params] == ["r"]
    (terminal,) = model.terminals
    assert terminal.name == "Done" and isinstance(terminal.expr, ir.Quant)
    assert model.action("TMCommit").body[1].cond.args[1] == ir.Const(
        frozenset({"rm1", "rm2", "rm3"}), T.SetType(rm))


def test_consts_override_by_name_with_hyphens(compile_spec):
    source = """module m
const N: 1..9 = 3
const ha_mode: Mode = when_synced
type Mode = enum {always, when_synced}
type Node = model(N)
var x: Node = node1
"""
    model = load_source(source, "t.mc", {"N": "5", "ha-mode": "always"})
    assert model.const_values == {"N": 5, "ha_mode": "always"}
    assert dict(model.types)["Node"].members == ("node1", "node2", "node3", "node4", "node5")
    model = load_source(source, "t.mc", {"N": 2, "ha_mode": "when-synced"})
    assert model.const_values == {"N": 2, "ha_mode": "when_synced"}


def test_int_consts_appear_as_points():
    model = load_source("module m\nconst K: 0..9 = 4\nvar x: 0..9 = K\n", "t.mc")
    assert model.var("x").init == ir.Const(4, T.IntType(4, 4))


@pytest.mark.parametrize("consts, message", [
    ({"M": "1"}, "-D M: the spec has no constant 'M'"),
    ({"N": "x"}, "-D N=x: expected an integer in 1..9"),
    ({"N": "10"}, "-D N=10: 10 is outside 1..9"),
    ({"B": "yes"}, "-D B=yes: expected true or false"),
])
def test_bad_overrides_are_usage_errors(consts, message):
    source = "module m\nconst N: 1..9 = 3\nconst B: bool = true\n"
    with pytest.raises(UsageError) as info:
        load_source(source, "t.mc", consts)
    assert str(info.value) == message


def test_unknown_override_lists_the_consts():
    with pytest.raises(UsageError) as info:
        load_source("module m\nconst N: 1..9 = 3\nconst K: 0..1 = 0\n", "t.mc", {"Q": 1})
    assert info.value.hint == "the spec's constants are: N, K"
    with pytest.raises(UsageError) as info:
        load_source("module m\n", "t.mc", {"Q": 1})
    assert info.value.hint == "this spec declares no constants"


def test_types_from_declarations(compile_spec):
    model = compile_spec("""
const C: 1..4 = 2
type Ids = model {a, b}
symmetric type Peer = model(C)
type R = record {f: seq[Ids, C], g: bag[Color, 2], h: tuple[bool, option[Ids]]}
type Alias = R
var r: map[Ids, R] = {i: R(f=[], g={}, h=(true, none)) for i in Ids}
""")
    types = dict(model.types)
    assert types["Ids"] == T.ModelType("Ids", ("a", "b"))
    assert types["Peer"] == T.ModelType("Peer", ("peer1", "peer2"), symmetric=True)
    rec = T.RecordType("R", (("f", T.SeqType(types["Ids"], 2)),
                             ("g", T.BagType(types["Color"], 2)),
                             ("h", T.TupleType((T.BOOL, T.OptionType(types["Ids"]))))))
    assert types["R"] == rec and types["Alias"] == rec
    init = model.var("r").init
    assert isinstance(init, ir.MapComp)
    value = init.value
    assert isinstance(value, ir.RecordLit)
    assert dict(value.fields)["g"] == ir.BagLit((), T.BagType(types["Color"], 0))


def test_globals_may_be_used_before_their_declaration(compile_spec):
    model = compile_spec("var y: 0..K = K\nconst K: 1..3 = L + 1\nconst L: 0..2 = 1\n")
    assert model.var("y").type == T.IntType(0, 2)


def test_var_in_a_set_of_initial_values(compile_spec):
    model = compile_spec("var y: 0..5 in 1..3\nvar z: Node in Node\n")
    y = model.var("y")
    assert y.init_kind is ir.InitKind.IN and y.init.op is Op.RANGE
    assert model.var("z").init.type == T.SetType(dict(model.types)["Node"])


def test_every_property_kind(compile_spec):
    model = compile_spec("""
invariant I: x >= 0
step invariant S: x' >= x or x' == 0
sometimes W: x == 3
terminal T: x == 3
""")
    assert [(p.name, p.kind) for p in model.properties] == [
        ("I", ir.PropertyKind.INVARIANT), ("S", ir.PropertyKind.STEP),
        ("W", ir.PropertyKind.SOMETIMES)]
    assert [(p.name, p.kind) for p in model.terminals] == [("T", ir.PropertyKind.TERMINAL)]
    step = model.get_property("S").expr
    assert step.args[0].args[0] == ir.Var("x", T.IntType(0, 3), primed=True)


def test_imported_sources_are_kept(tmp_path):
    (tmp_path / "lib.mc").write_text("module lib\nconst K: 0..3 = 2\n")
    main = tmp_path / "main.mc"
    main.write_text("module main\nimport lib\nvar x: 0..3 = K\n")
    model = load(str(main))
    assert [p for p, _ in model.sources] == [str(main), str(tmp_path / "lib.mc")]
    assert model.consts == (("K", T.IntType(0, 3), 2),)
