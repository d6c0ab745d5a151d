"""Lowering of actions: one generated function per action, looping over its
parameter bindings and writing each outcome as a packed successor row.

The successor is built in ``P``, a copy of the unpacked pre-state ``U`` for
the variables the action may assign.  Statements follow the reference
semantics (``engines/evaluate/evaluator.py``): ``require`` nests the rest of
the path, ``pick`` loops over it, ``either`` repeats it once per branch.  An
``if`` whose branches hold no ``pick`` or ``either`` is an ordinary if/else
followed by the rest once (a flag records a failed ``require``); any other
``if`` repeats the rest in each branch.

Before each choice (binding, pick element, either branch) the variables the
rest of the path may assign are restored from ``U``; a dirty flag per wide
variable skips the copy when nothing was written.  An assignment therefore
always finds its variable's slot in ``P`` holding the pre-state value, which
``ExprGen.gen_into`` uses to update a map entry or a set bit in place.
"""
from __future__ import annotations

from typing import Callable

from modelcheck.engines.compiled.codegen.expr import ExprGen
from modelcheck.engines.compiled.codegen.source import Region, Scalar, slot
from modelcheck.engines.compiled.codegen.values import is_scalar, needs_check, same_rep
from modelcheck.engines.compiled.codegen.layout import Layout
from modelcheck.engines.compiled.reps import rank, width
from modelcheck.ir import nodes as ir
from modelcheck.ir.values import domain

__all__ = ["ActionGen", "assigned_vars", "bindings_count", "FLAG_WIDTH", "INLINE_SLOTS", "pack_expr", "pack_word"]

#: Layouts with more slots are unpacked and packed by loops over field tables
#: (compile time would otherwise grow with every slot).
INLINE_SLOTS = 96

#: Variables wider than this get a dirty flag; narrower ones are simply copied.
FLAG_WIDTH = 2


def assigned_vars(stmts: tuple[ir.Stmt, ...]) -> frozenset[str]:
    """Every variable some path through ``stmts`` may assign."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, ir.Assign):
            out.add(s.var)
        elif isinstance(s, ir.If):
            out |= assigned_vars(s.then) | assigned_vars(s.else_)
        elif isinstance(s, ir.Either):
            for b in s.branches:
                out |= assigned_vars(b)
    return frozenset(out)


def _has_choice(stmts: tuple[ir.Stmt, ...]) -> bool:
    for s in stmts:
        if isinstance(s, (ir.Pick, ir.Either)):
            return True
        if isinstance(s, ir.If) and (_has_choice(s.then) or _has_choice(s.else_)):
            return True
    return False


def _has_require(stmts: tuple[ir.Stmt, ...]) -> bool:
    for s in stmts:
        if isinstance(s, ir.Require):
            return True
        if isinstance(s, ir.If) and (_has_require(s.then) or _has_require(s.else_)):
            return True
    return False


def bindings_count(action: ir.Action) -> int:
    n = 1
    for p in action.params:
        n *= len(domain(p.type))
    return n


def pack_word(layout: Layout, word: int, source: Callable[[int], str]) -> str:
    """Code for packed word ``word``; ``source(i)`` is the code of slot ``i``."""
    terms = []
    for i, f in enumerate(layout.fields):
        if f.word != word or f.bits == 0:
            continue
        value = source(i)
        if f.lo:
            value = f"({value} - {f.lo})"
        terms.append(value if f.shift == 0 else f"({value} << {f.shift})")
    return " | ".join(terms) if terms else "0"


Cont = Callable[[], None]


class ActionGen:
    """Generates ``act_<k>(rows, ri, U, P, S, out, aid, n, err) -> n``: the
    outcomes of one action from ``rows[ri]`` (unpacked in ``U``), appended
    from row ``n`` of ``out``.  One function per action: numba's compile time
    grows faster than linearly with a function's size, and without reference
    counting a call costs little."""

    def __init__(self, gen: ExprGen, model: ir.Model, layout: Layout):
        self.g = gen
        self.src = gen.src
        self.model = model
        self.layout = layout
        self.flagged: set[str] = set()
        self.binding = "0"
        self.base = 0
        self.assignable: frozenset[str] = frozenset()

    def function(self, name: str, action: ir.Action, base: int) -> None:
        src, g = self.src, self.g
        self.base = base
        self.assignable = assigned_vars(action.body)
        self.flagged = {v for v in self.assignable if width(self.model.var(v).type) > FLAG_WIDTH}
        src.start_function()
        g.env = {}
        params = ", ".join(p.name for p in action.params)
        src.line("@jit")
        with src.block(f"def {name}(rows, ri, U, P, S, out, aid, n, err):"):
            src.line(f'"""action {action.name}({params}): instances {base}.."""')
            src.line("cap = out.shape[0]")
            for v in sorted(self.flagged):
                src.line(f"d_{v} = False")     # successors() hands P over equal to U
            self._bindings(action, 0, "0")
            # leave P equal to U for the next action
            self.restore(self.assignable)
            src.line("return n")
        src.blank()

    def _bindings(self, action: ir.Action, k: int, index: str) -> None:
        src, g = self.src, self.g
        if k == len(action.params):
            self.binding = src.let(index, "b")
            self.restore(self.assignable)
            self.stmts(action.body, 0, self.emit, frozenset())
            return
        p = action.params[k]
        values = domain(p.type)
        ranks = [rank(p.type, v) for v in values]
        j = src.fresh("j")
        with src.block(f"for {j} in range({len(values)}):"):
            if ranks == list(range(len(values))):
                r = j
            else:
                r = src.let(f"{g.consts.array(ranks)}[{j}]", "r")
            g.env[p.name] = g.unrank(r, p.type)
            self._bindings(action, k + 1, f"({index}) * {len(values)} + {j}" if k else j)

    # ------------------------------------------------------------ P management

    def restore(self, names: frozenset[str]) -> None:
        for v in sorted(names):
            vs = self.layout.var(v)
            dst, orig = Region("P", str(vs.first)), Region("U", str(vs.first))
            if v in self.flagged:
                with self.src.block(f"if d_{v}:"):
                    self.g.copy(dst, orig, vs.count)
                    self.src.line(f"d_{v} = False")
            else:
                self.g.copy(dst, orig, vs.count)

    def emit(self) -> None:
        src, layout = self.src, self.layout
        touched = set()
        for v in self.assignable:
            touched.update(layout.words_of(v))
        with src.block("if n >= cap:"):
            src.line("return -2")
        for w in range(layout.words):
            if w in touched:
                # P holds U's values outside what this action assigns
                src.line(f"out[n, {w}] = pack_w{w}(P)")
            else:
                src.line(f"out[n, {w}] = rows[ri, {w}]")
        src.line(f"aid[n] = {self.base} + {self.binding}" if self.binding != "0"
                 else f"aid[n] = {self.base}")
        src.line("n += 1")

    # ------------------------------------------------------------ statements

    def stmts(self, ss: tuple[ir.Stmt, ...], i: int, k: Cont, k_assigns: frozenset[str]) -> None:
        """Code for ``ss[i:]`` followed by the continuation ``k`` (which may
        assign ``k_assigns``)."""
        if i == len(ss):
            k()
            return
        s = ss[i]
        g, src = self.g, self.src
        rest_assigns = assigned_vars(ss[i + 1:]) | k_assigns

        def rest() -> None:
            self.stmts(ss, i + 1, k, k_assigns)

        known, value = g.constant(s.cond) if isinstance(s, (ir.Require, ir.If)) else (False, None)
        if isinstance(s, ir.Require):
            if known:
                if value:
                    rest()
                return
            with src.block(f"if {g.scalar(s.cond)}:"):
                rest()
        elif isinstance(s, ir.If) and known:
            self.stmts(s.then if value else s.else_, 0, rest, rest_assigns)
        elif isinstance(s, ir.Let):
            g.env[s.name] = g.gen(s.value)
            rest()
        elif isinstance(s, ir.Assign):
            self.assign(s)
            rest()
        elif isinstance(s, ir.Pick):
            with g.loop(s.name, s.domain):
                self.restore(rest_assigns)
                rest()
        elif isinstance(s, ir.Either):
            # Each branch starts from the pre-state: undo what the earlier
            # branches (and the paths after them) wrote.
            undo = assigned_vars((s,)) | rest_assigns
            for branch in s.branches:
                self.restore(undo)
                self.stmts(branch, 0, rest, rest_assigns)
        elif isinstance(s, ir.If):
            if _has_choice(s.then) or _has_choice(s.else_):
                with src.block(f"if {g.scalar(s.cond)}:"):
                    self.stmts(s.then, 0, rest, rest_assigns)
                with src.block("else:"):
                    self.stmts(s.else_, 0, rest, rest_assigns)
            else:
                alive = src.fresh("alive") if _has_require((s,)) else None
                if alive:
                    src.line(f"{alive} = True")
                self.straight((s,), alive)
                if alive:
                    with src.block(f"if {alive}:"):
                        rest()
                else:
                    rest()
        else:
            raise TypeError(f"unknown statement {type(s).__name__}")

    def straight(self, ss: tuple[ir.Stmt, ...], alive: str | None) -> None:
        """Statements without choices; a failed require clears ``alive`` and
        skips the rest of its branch."""
        g, src = self.g, self.src
        if not ss:
            return
        s, tail = ss[0], ss[1:]
        known, value = g.constant(s.cond) if isinstance(s, (ir.Require, ir.If)) else (False, None)
        if known and isinstance(s, ir.Require):
            if not value:
                src.line(f"{alive} = False")
                return
            self.straight(tail, alive)
            return
        if known and isinstance(s, ir.If):
            self.straight((s.then if value else s.else_) + tail, alive)
            return
        if isinstance(s, ir.Require):
            with src.block(f"if not {g.scalar(s.cond)}:"):
                src.line(f"{alive} = False")
            with src.block("else:"):
                self.straight(tail, alive)
            return
        if isinstance(s, ir.Let):
            g.env[s.name] = g.gen(s.value)
        elif isinstance(s, ir.Assign):
            self.assign(s)
        elif isinstance(s, ir.If):
            with src.block(f"if {g.scalar(s.cond)}:"):
                self.straight(s.then, alive)
            with src.block("else:"):
                self.straight(s.else_, alive)
            if alive and _has_require((s,)) and tail:
                with src.block(f"if {alive}:"):
                    self.straight(tail, alive)
                return
        else:
            raise TypeError(f"unexpected statement {type(s).__name__}")
        self.straight(tail, alive)

    def assign(self, s: ir.Assign) -> None:
        g = self.g
        decl = self.model.var(s.var).type
        dst = Region("P", str(self.layout.var(s.var).first))
        fail = g.failer(s)
        vt = s.value.type
        if is_scalar(decl):
            code = g.scalar(s.value)
            g.check(Scalar(code), vt, decl, fail)
            self.src.line(f"{slot(dst)} = {g.as_slot(code, decl)}")
        elif same_rep(vt, decl):
            g.gen_into(s.value, dst, decl, holds=s.var)
            if needs_check(vt, decl):
                g.check(dst, vt, decl, fail)
        else:
            v = g.gen(s.value)
            g.check(v, vt, decl, fail)
            g.store(dst, v, vt, decl)
        if s.var in self.flagged:
            self.src.line(f"d_{s.var} = True")


def pack_expr(layout: Layout, w: int) -> str:
    """Code for packed word ``w`` of the slots in ``X``."""
    if layout.slots > INLINE_SLOTS:
        return f"pack_word_t(X, {w})"
    return pack_word(layout, w, lambda i: f"X[{i}]")
