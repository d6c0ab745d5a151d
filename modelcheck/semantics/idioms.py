"""TLA+ idioms lowered onto the core IR: ``last``, ``elems`` and ``index_of``
on sequences (SequencesExt's ``SelectInSeq``, 0-based), ``choose`` (TLC's
CHOOSE order; MC5008 when nothing is chosen) as a call and as a generator,
and sequence comprehensions ``[f(x) for x in D if c]`` unrolled into
concatenations.

Each is written in nodes every engine already runs, so none needs an engine
of its own; the ``for`` clauses they range over come from
``semantics.calls`` (``gen_fors``) and the sequence reads from
``semantics.seqs``.
"""
from __future__ import annotations

from typing import Any

from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BOOL, Type, join
from modelcheck.ir.values import domain
from modelcheck.semantics.calls import MAX_UNROLLED
from modelcheck.semantics.context import Env, found_words, show
from modelcheck.semantics.seqs import (bind_elem, last_index, over_seq, positions, seq_elems,
                                       wrapped)
from modelcheck.semantics.types import bounded_size
from modelcheck.syntax import ast

__all__ = ["IdiomsMixin"]


class IdiomsMixin:
    """Checking and lowering of the sequence built-ins, choose and sequence
    comprehensions."""

    def _b_last(self: Any, e: ast.Call, args: list, env: Env, expected: Type | None) -> ir.Expr:
        # s[len(s) - 1]: MC5003 on an empty sequence, as head
        s = self._seq_arg(e, args[0], env, None)
        return over_seq(s, env, lambda q: ir.Apply(Op.SEQ_GET, (q, last_index(q, e.span)),
                                                   q.type.elem, e.span))

    def _b_elems(self: Any, e: ast.Call, args: list, env: Env,
                 expected: Type | None) -> ir.Expr:
        s = self._seq_arg(e, args[0], env, None)
        return over_seq(s, env, lambda q: seq_elems(q, env, e.span))

    def _b_index_of(self: Any, e: ast.Call, args: list, env: Env,
                    expected: Type | None) -> ir.Expr:
        """``index_of(s, x)``: the first position of x in s, an option (none
        when x is not in s; TLA+'s SequencesExt ``SelectInSeq(s, LAMBDA e : e = x)``,
        0-based).
        Lowered to ``let h = {i for i in 0..len(s) - 1 if s[i] == x}; if
        len(h) == 0 then none else some(min(h))``."""
        s = self._seq_arg(e, args[0], env, None)
        x = self.expr(args[1], env, s.type.elem)
        if join(s.type.elem, x.type) is None:
            self.fail("MC3002", f"index_of() looks for {show(s.type.elem)} in this sequence, "
                      f"found {found_words(x.type)}", args[1].span)
        span = e.span

        def body(q: ir.Expr) -> ir.Expr:
            dom = positions(q, span)
            pos = dom.type.elem
            i = env.unit.fresh("i")
            test = ir.Apply(Op.EQ, (ir.Apply(Op.SEQ_GET, (q, ir.Local(i, pos, span)),
                                             q.type.elem, span), held), T.BOOL, span)
            hits = ir.SetComp(i, dom, test, ir.Local(i, pos, span), T.SetType(pos), span)
            h = env.unit.fresh("hits")
            local = ir.Local(h, hits.type, span)
            count = ir.Apply(Op.LEN, (local,), T.IntType(0, max(0, q.type.capacity)), span)
            empty = ir.Apply(Op.EQ, (count, ir.Const(0, T.IntType(0, 0), span)), T.BOOL, span)
            opt = T.OptionType(pos)
            first = ir.Apply(Op.SOME, (ir.Apply(Op.SET_MIN, (local,), pos, span),), opt, span)
            return ir.LetExpr(h, hits, ir.IfExpr(empty, ir.Const(None, opt, span), first, opt,
                                                 span), opt, span)

        if isinstance(x, (ir.Var, ir.Local, ir.Const)):
            held = x
            return over_seq(s, env, body)
        name = env.unit.fresh("x")
        held = ir.Local(name, x.type, x.span)
        node = over_seq(s, env, body)
        return ir.LetExpr(name, x, node, node.type, span)

    def _b_choose(self: Any, e: ast.Call, args: list, env: Env,
                  expected: Type | None) -> ir.Expr:
        s = self.iter_domain(args[0], env, "choose()")
        return ir.Apply(Op.CHOOSE, (s,), s.type.elem, e.span)

    def _choose_gen(self: Any, e: ast.GenCall, env: Env, expected: Type | None) -> ir.Expr:
        """``choose(f(x) for x in S if p(x))``: f of the first x of S (in the
        canonical order) satisfying p; MC5008 when there is none."""
        if len(e.fors) != 1:
            self.fail("MC3011", "choose(...) takes one 'for' clause", e.fors[1].span,
                      hint="choose a tuple: choose((x, y) for x in S for y in T) is "
                           "choose(p for p in {(x, y) for x in S for y in T})")
        clauses, inner = self.gen_fors(e.fors, env)
        name, dom, cond, wrap = clauses[0]
        if wrap is not None:
            self.fail("MC3011", "choose(...) ranges over a set, not a sequence",
                      e.fors[0].domain.span, hint="choose from elems(s), or pick a position: "
                      "choose(i for i in 0..len(s) - 1 if ...)")
        local = ir.Local(name, dom.type.elem, e.span)
        chosen = dom if cond is None else ir.SetComp(name, dom, cond, local, dom.type, e.span)
        pick = ir.Apply(Op.CHOOSE, (chosen,), dom.type.elem, e.span)
        body = self.expr(e.elem, inner, expected)
        if isinstance(body, ir.Local) and body.name == name:
            return pick
        return ir.LetExpr(name, pick, body, body.type, e.span)

    def _e_SeqComp(self: Any, e: ast.SeqComp, env: Env, expected: Type | None) -> ir.Expr:
        """``[f(x) for x in D if c]``: a sequence in the order of D (a
        sequence's positions, a set's canonical order, so a range ascends).
        Lowered to the concatenation, two by two, of one piece per place of
        D: ``[f(x)]`` where that place holds an x passing c, ``[]`` elsewhere.
        D is bounded by MAX_UNROLLED places."""
        if len(e.fors) != 1:
            self.fail("MC3011", "a sequence comprehension takes one 'for' clause",
                      e.fors[1].span, hint="build a set of tuples, or nest the sequences")
        clauses, inner = self.gen_fors(e.fors, env)
        name, dom, cond, wrap = clauses[0]
        elem = self.expr(e.elem, inner, expected.elem if isinstance(expected, T.SeqType)
                         else None)
        span = e.span
        one = T.SeqType(elem.type, 1)
        empty = ir.SeqLit((), one, span)
        piece = ir.SeqLit((elem,), one, span)
        if cond is not None:
            piece = ir.IfExpr(cond, piece, empty, one, span)
        if wrap is not None:
            # the places are the positions 0..cap-1 of the sequence
            seq = wrap.get.args[0]
            places = range(seq.type.capacity)
            length = ir.Apply(Op.LEN, (seq,), T.IntType(0, seq.type.capacity), span)
            idx_t = dom.type.elem

            def at(k: int) -> ir.Expr:
                inside = ir.Apply(Op.LT, (ir.Const(k, T.IntType(k, k), span), length), BOOL,
                                  span)
                body = ir.LetExpr(name, ir.Const(k, idx_t, span), bind_elem(wrap, piece), one,
                                  span)
                return ir.IfExpr(inside, body, empty, one, span)
        else:
            elem_t = dom.type.elem
            places = domain(elem_t) if bounded_size(elem_t, MAX_UNROLLED + 1) <= MAX_UNROLLED \
                else range(MAX_UNROLLED + 1)

            def at(v: Any) -> ir.Expr:
                local = ir.Local(name, elem_t, span)
                test = ir.Apply(Op.IN, (local, dom), BOOL, span)
                return ir.LetExpr(name, ir.Const(v, elem_t, span),
                                  ir.IfExpr(test, piece, empty, one, span), one, span)
        places = list(places)
        if len(places) > MAX_UNROLLED:
            self.fail("MC3011", f"a sequence comprehension ranges over at most "
                      f"{MAX_UNROLLED} places, and this one over more", e.fors[0].domain.span,
                      hint="narrow the type of the domain (a range with tighter bounds, a "
                           "sequence of a smaller capacity)")
        if not places:
            return wrapped(wrap, ir.SeqLit((), T.SeqType(elem.type, 0), span))
        pieces = [at(p) for p in places]
        while len(pieces) > 1:
            pairs = []
            for k in range(0, len(pieces) - 1, 2):
                a, b = pieces[k], pieces[k + 1]
                t = T.SeqType(elem.type, a.type.capacity + b.type.capacity)
                pairs.append(ir.Apply(Op.CONCAT, (a, b), t, span))
            if len(pieces) % 2:
                pairs.append(pieces[-1])
            pieces = pairs
        return wrapped(wrap, pieces[0])
