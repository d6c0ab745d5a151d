"""Small models built directly as IR, so the reference semantics can be tested
without the front end (and so each test shows exactly the IR it exercises)."""
from __future__ import annotations

from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BOOL, EnumType, IntType, MapType, ModelType, OptionType, \
    RecordType, SetType, Type
from modelcheck.ir.values import FrozenDict

__all__ = ["const", "var", "local", "apply", "die_hard", "two_phase", "model"]


def const(value, t: Type) -> ir.Const:
    return ir.Const(value, t)


def var(name: str, t: Type, primed: bool = False) -> ir.Var:
    return ir.Var(name, t, primed)


def local(name: str, t: Type) -> ir.Local:
    return ir.Local(name, t)


def apply(op: Op, t: Type, *args: ir.Expr) -> ir.Apply:
    return ir.Apply(op, tuple(args), t)


def model(name, vars, actions, properties=(), terminals=(), consts=(), types=()) -> ir.Model:
    return ir.Model(name, tuple(consts), tuple(types), tuple(vars), tuple(actions),
                    tuple(properties), tuple(terminals))


def die_hard() -> ir.Model:
    small_t, big_t = IntType(0, 3), IntType(0, 5)
    small, big = var("small", small_t), var("big", big_t)
    wide = IntType(-5, 10)

    def assign(v, value):
        return ir.Assign(v.name, value)

    def pour(name, src, dst, cap):
        poured = ir.Local(f"{name}_poured", wide)
        room = apply(Op.SUB, wide, const(cap, IntType(cap, cap)), dst)
        return ir.Action(name, (), (
            ir.Let(poured.name, apply(Op.MIN, wide, src, room)),
            assign(src, apply(Op.SUB, wide, src, poured)),
            assign(dst, apply(Op.ADD, wide, dst, poured)),
        ))

    actions = [
        ir.Action("FillSmall", (), (assign(small, const(3, small_t)),)),
        ir.Action("FillBig", (), (assign(big, const(5, big_t)),)),
        ir.Action("EmptySmall", (), (assign(small, const(0, small_t)),)),
        ir.Action("EmptyBig", (), (assign(big, const(0, big_t)),)),
        pour("SmallToBig", small, big, 5),
        pour("BigToSmall", big, small, 3),
    ]
    not_four = ir.Property("NotFour", ir.PropertyKind.INVARIANT,
                           apply(Op.NE, BOOL, big, const(4, IntType(4, 4))))
    return model("die_hard",
                 [ir.VarDecl("small", small_t, ir.InitKind.EQ, const(0, small_t)),
                  ir.VarDecl("big", big_t, ir.InitKind.EQ, const(0, big_t))],
                 actions, [not_four])


def two_phase(n: int = 3) -> ir.Model:
    """TwoPhase.tla as specs/examples/two_phase.mc writes it."""
    rm_t = ModelType("RM", tuple(f"rm{i}" for i in range(1, n + 1)), symmetric=True)
    rms_t = EnumType("RMState", ("working", "prepared", "committed", "aborted"))
    tms_t = EnumType("TMState", ("init", "tm_committed", "tm_aborted"))
    kind_t = EnumType("Kind", ("msg_prepared", "msg_commit", "msg_abort"))
    msg_t = RecordType("Message", (("kind", kind_t), ("rm", OptionType(rm_t))))
    map_t, set_rm, set_msg = MapType(rm_t, rms_t), SetType(rm_t), SetType(msg_t)
    all_rm = const(frozenset(rm_t.members), set_rm)
    rm_state, tm_state = var("rmState", map_t), var("tmState", tms_t)
    tm_prepared, msgs = var("tmPrepared", set_rm), var("msgs", set_msg)
    r = local("r", rm_t)

    def eq(a, b):
        return apply(Op.EQ, BOOL, a, b)

    def msg(kind, rm):
        return ir.RecordLit((("kind", const(kind, kind_t)), ("rm", rm)), msg_t)

    def prepared_msg(rm):
        return msg("msg_prepared", apply(Op.SOME, OptionType(rm_t), rm))

    def send(m):
        return ir.Assign("msgs", apply(Op.UNION, set_msg, msgs, ir.SetLit((m,), set_msg)))

    def rm_is(rm, state):
        return eq(apply(Op.MAP_GET, rms_t, rm_state, rm), const(state, rms_t))

    def set_rm_state(state):
        return ir.Assign("rmState", apply(Op.MAP_SET, map_t, rm_state, r, const(state, rms_t)))

    commit = msg("msg_commit", const(None, OptionType(rm_t)))
    abort = msg("msg_abort", const(None, OptionType(rm_t)))
    param = (ir.Param("r", rm_t),)
    actions = [
        ir.Action("TMRcvPrepared", param, (
            ir.Require(eq(tm_state, const("init", tms_t))),
            ir.Require(apply(Op.IN, BOOL, prepared_msg(r), msgs)),
            ir.Assign("tmPrepared", apply(Op.UNION, set_rm, tm_prepared, ir.SetLit((r,), set_rm))),
        )),
        ir.Action("TMCommit", (), (
            ir.Require(eq(tm_state, const("init", tms_t))),
            ir.Require(eq(tm_prepared, all_rm)),
            ir.Assign("tmState", const("tm_committed", tms_t)),
            send(commit),
        )),
        ir.Action("TMAbort", (), (
            ir.Require(eq(tm_state, const("init", tms_t))),
            ir.Assign("tmState", const("tm_aborted", tms_t)),
            send(abort),
        )),
        ir.Action("RMPrepare", param, (
            ir.Require(rm_is(r, "working")), set_rm_state("prepared"), send(prepared_msg(r)),
        )),
        ir.Action("RMChooseToAbort", param, (
            ir.Require(rm_is(r, "working")), set_rm_state("aborted"),
        )),
        ir.Action("RMRcvCommitMsg", param, (
            ir.Require(apply(Op.IN, BOOL, commit, msgs)), set_rm_state("committed"),
        )),
        ir.Action("RMRcvAbortMsg", param, (
            ir.Require(apply(Op.IN, BOOL, abort, msgs)), set_rm_state("aborted"),
        )),
    ]
    r1, r2 = local("r1", rm_t), local("r2", rm_t)
    consistent = ir.Property("Consistent", ir.PropertyKind.INVARIANT, apply(
        Op.NOT, BOOL, ir.Quant(ir.QuantKind.ANY, "r1", all_rm, ir.Quant(
            ir.QuantKind.ANY, "r2", all_rm,
            apply(Op.AND, BOOL, rm_is(r1, "aborted"), rm_is(r2, "committed"))))))
    rd = local("rd", rm_t)
    done = ir.Property("Done", ir.PropertyKind.TERMINAL, ir.Quant(
        ir.QuantKind.ALL, "rd", all_rm,
        apply(Op.OR, BOOL, rm_is(rd, "committed"), rm_is(rd, "aborted"))))
    init_map = FrozenDict({m: "working" for m in rm_t.members})
    return model("two_phase",
                 [ir.VarDecl("rmState", map_t, ir.InitKind.EQ, const(init_map, map_t)),
                  ir.VarDecl("tmState", tms_t, ir.InitKind.EQ, const("init", tms_t)),
                  ir.VarDecl("tmPrepared", set_rm, ir.InitKind.EQ, const(frozenset(), set_rm)),
                  ir.VarDecl("msgs", set_msg, ir.InitKind.EQ, const(frozenset(), set_msg))],
                 actions, [consistent], [done], consts=[("N", IntType(1, 12), n)],
                 types=[("RM", rm_t), ("RMState", rms_t), ("TMState", tms_t), ("Kind", kind_t),
                        ("Message", msg_t)])
