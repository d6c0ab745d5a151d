"""Printing a Z3 formula over the flattened state as conditions in the spec
language, so an invariant found by PDR can be kept as lemmas.

Each field of the flattened state is a ``Leaf`` that knows how the spec writes
it (``rmState[rm1]``, ``node1 in tmPrepared``, ``len(q)``, ``o.value``).  A
formula is split into its top-level conjuncts; connectives print as
``and``/``or``/``not``/``=>``; each comparison prints as a comparison of spec
expressions, with atoms (enum members, model values, stored as indexes)
printed as ``x == member`` or ``x in {a, b}``.  A field that only counts under
a condition (the value of an option, a slot of a sequence) is printed under
that condition: ``is_some(o) => o.value == node1``.  A comparison that has no
direct spelling (bit arithmetic on a bit-vector field) is printed as the list
of the values of its (few) fields that satisfy it.
"""
from __future__ import annotations

import itertools
from typing import Any

import z3

from modelcheck.engines.z3.symbolic import Leaf
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 SetType, Type)
from modelcheck.ir.values import domain, domain_size, render_value, sort_values

__all__ = ["LemmaPrinter", "Untranslatable", "value_conditions"]

#: Most field-value combinations a comparison is expanded to when it has no
#: direct spelling.
_TABLE_LIMIT = 256

#: Most distinct conditions a formula is split over, case by case (2^n cases).
_CASES_LIMIT = 3

_CMP = {z3.Z3_OP_LE: "<=", z3.Z3_OP_LT: "<", z3.Z3_OP_GE: ">=", z3.Z3_OP_GT: ">",
        z3.Z3_OP_SLEQ: "<=", z3.Z3_OP_SLT: "<", z3.Z3_OP_SGEQ: ">=", z3.Z3_OP_SGT: ">"}
_FLIP = {"<=": ">=", "<": ">", ">=": "<=", ">": "<", "==": "==", "!=": "!="}
_HOLDS = {"<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b,
          ">": lambda a, b: a > b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def value_conditions(text: str, t: Type, value: Any) -> list[str]:
    """Conditions saying that the variable (or part) written ``text`` holds
    ``value``: ``x == 3``; a map entry by entry (the language has no map
    literal); a bag by its counts."""
    if isinstance(t, MapType):
        return [c for k in domain(t.key)
                for c in value_conditions(f"{text}[{render_value(t.key, k)}]", t.value, value[k])]
    if isinstance(t, BagType):
        if not value:
            return [f"len({text}) == 0"]
        return [f"count({text}, {render_value(t.elem, e)}) == {value[e]}"
                for e in sort_values(t.elem, value.keys())] + [f"len({text}) == {sum(value.values())}"]
    if isinstance(t, BoolType):
        return [text if value else f"not {text}"]
    return [f"{text} == {render_value(t, value)}"]


class Untranslatable(Exception):
    """A formula with no spelling in the spec language."""


def _paren(text: str) -> str:
    return text if _atomic(text) else f"({text})"


def _atomic(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == " " and depth == 0:
            return False
    return True


class LemmaPrinter:
    """Prints formulas over the fields (``leaves``) of one state copy."""

    def __init__(self, leaves: list[Leaf]):
        self.leaves = {leaf.term.get_id(): leaf for leaf in leaves}

    # ---------------------------------------------------------------- entry points

    def conjuncts(self, formula: z3.BoolRef) -> list[str]:
        """The top-level conjuncts of ``formula``, each printed."""
        f = z3.simplify(formula)
        parts = list(f.children()) if z3.is_and(f) else [f]
        return [self.boolean(p) for p in parts if not z3.is_true(p)]

    def boolean(self, e: z3.ExprRef) -> str:
        if z3.is_quantifier(e):
            raise Untranslatable(str(e))
        if z3.is_true(e):
            return "true"
        if z3.is_false(e):
            return "false"
        single = self._single_field(e)
        if single is not None:
            return single
        if z3.is_and(e):
            return " and ".join(_paren(self.boolean(c)) for c in self._grouped(e.children(), z3.And))
        if z3.is_or(e):
            return self._disjunction(e.children())
        if z3.is_not(e):
            inner = e.arg(0)
            if (z3.is_eq(inner) or z3.is_distinct(inner)) and not z3.is_bool(inner.arg(0)):
                text = self.predicate(z3.Distinct(inner.arg(0), inner.arg(1)) if z3.is_eq(inner)
                                      else inner.arg(0) == inner.arg(1))
                return text
            if self._is_leaf(inner) and self._leaf(inner).guard is None:
                return f"not {_paren(self._leaf(inner).text)}"
            return f"not {_paren(self.boolean(inner))}"
        if z3.is_implies(e):
            return f"{_paren(self.boolean(e.arg(0)))} => {_paren(self.boolean(e.arg(1)))}"
        if z3.is_app_of(e, z3.Z3_OP_ITE):
            return (f"if {self.boolean(e.arg(0))} then {_paren(self.boolean(e.arg(1)))} "
                    f"else {_paren(self.boolean(e.arg(2)))}")
        if z3.is_eq(e) and z3.is_bool(e.arg(0)):
            return f"{_paren(self.boolean(e.arg(0)))} == {_paren(self.boolean(e.arg(1)))}"
        return self.predicate(e)

    def listing(self, e: z3.ExprRef) -> str:
        """``e`` spelled as the values of its fields that satisfy it: longer
        than ``boolean``, but exact whenever it applies (a few unguarded
        fields of small types)."""
        if any(leaf.guard is not None for leaf in self._fields(e)):
            raise Untranslatable(str(e))
        return self._table(e)

    def _single_field(self, e: z3.ExprRef) -> str | None:
        """A combination of tests on one small unguarded field (as Spacer
        writes on bit-vectors: bit tests), printed as the values it allows."""
        if not (z3.is_and(e) or z3.is_or(e) or z3.is_not(e)):
            return None
        fields = self._fields(e)
        if len(fields) != 1 or fields[0].guard is not None \
                or not isinstance(fields[0].type, (IntType, EnumType, ModelType)) \
                or self._size(fields[0].type) > _TABLE_LIMIT:
            return None
        try:
            return self._table(e)
        except Untranslatable:
            return None

    def _grouped(self, parts: list[z3.ExprRef], join) -> list[z3.ExprRef]:
        """The parts, with those testing the same single small field joined
        into one (so ``x in {a, b} and x in {b, c}`` prints as ``x == b``)."""
        groups: dict[int, list[z3.ExprRef]] = {}
        order: list[object] = []
        for p in parts:
            fields = self._fields(p)
            key = fields[0].term.get_id() if len(fields) == 1 and fields[0].guard is None \
                and isinstance(fields[0].type, (IntType, EnumType, ModelType)) else None
            if key is None:
                order.append(p)
            else:
                if key not in groups:
                    groups[key] = []
                    order.append(key)
                groups[key].append(p)
        out = []
        for item in order:
            if isinstance(item, int):
                members = groups[item]
                out.append(members[0] if len(members) == 1 else join(members))
            else:
                out.append(item)
        return out

    def _disjunction(self, parts: list[z3.ExprRef]) -> str:
        """``not a or not b or c`` reads as ``a and b => c`` (``not (a and b)``
        when nothing is left)."""
        premises = self._grouped([p.arg(0) for p in parts if z3.is_not(p)], z3.And)
        rest = self._grouped([p for p in parts if not z3.is_not(p)], z3.Or)
        if not premises or (len(premises) == 1 and not rest):
            return " or ".join(_paren(self.boolean(c)) for c in parts)
        lhs = " and ".join(_paren(self.boolean(c)) for c in premises)
        if not rest:
            return f"not ({lhs})"
        rhs = " or ".join(_paren(self.boolean(c)) for c in rest)
        return f"{_paren(lhs)} => {_paren(rhs)}"

    # ---------------------------------------------------------------- predicates

    def by_cases(self, e: z3.ExprRef) -> str:
        """``e`` spelled case by case over the conditions its fields count
        under: one implication for each combination of conditions, a field
        whose condition fails standing at its default.  Exact where
        ``boolean`` joins the conditions into one, which misreads a
        comparison of two guarded fields when only one of them counts
        (``log[2][0].op == log[1][0].op`` with one log empty)."""
        guarded = [leaf for leaf in self._fields(e) if leaf.guard is not None]
        guards: list[z3.BoolRef] = []
        for leaf in guarded:
            if not any(leaf.guard.eq(g) for g in guards):
                guards.append(leaf.guard)
        if not guards or len(guards) > _CASES_LIMIT:
            raise Untranslatable(str(e))
        bare = LemmaPrinter([Leaf(leaf.term, leaf.text, leaf.type, None, None, leaf.members)
                             for leaf in self.leaves.values()])
        clauses = []
        for present in itertools.product((True, False), repeat=len(guards)):
            absent = [(leaf.term, leaf.default) for leaf in guarded
                      if not present[next(i for i, g in enumerate(guards) if leaf.guard.eq(g))]]
            body = z3.simplify(z3.substitute(e, *absent)) if absent else e
            if z3.is_true(body):
                continue
            case = z3.simplify(z3.And([g if p else z3.Not(g) for g, p in zip(guards, present)]))
            if z3.is_false(case):
                continue
            condition = self.boolean(case)
            if z3.is_false(body):
                clauses.append(f"not {_paren(condition)}")
            else:
                clauses.append(f"{_paren(condition)} => {_paren(bare.boolean(body))}")
        return " and ".join(_paren(c) for c in clauses) if clauses else "true"

    def predicate(self, e: z3.ExprRef) -> str:
        """A boolean field or a comparison, under the conditions its fields need."""
        guarded = [leaf for leaf in self._fields(e) if leaf.guard is not None]
        body = self._unguarded(e)
        if not guarded:
            return body
        guard = z3.simplify(z3.And([leaf.guard for leaf in guarded]))
        otherwise = z3.simplify(z3.substitute(e, *[(leaf.term, leaf.default) for leaf in guarded]))
        g = self.boolean(guard)
        if z3.is_true(otherwise):
            return f"{_paren(g)} => {_paren(body)}"
        if z3.is_false(otherwise):
            return f"{_paren(g)} and {_paren(body)}"
        return f"({_paren(g)} and {_paren(body)}) or (not {_paren(g)} and {_paren(self.boolean(otherwise))})"

    def _unguarded(self, e: z3.ExprRef) -> str:
        if self._is_leaf(e):
            return self._leaf(e).text
        try:
            return self._comparison(e)
        except Untranslatable:
            return self._table(e)

    def _comparison(self, e: z3.ExprRef) -> str:
        member = self._set_bit(e)
        if member is not None:
            return member
        if z3.is_eq(e) or z3.is_distinct(e):
            op = "==" if z3.is_eq(e) else "!="
            if e.num_args() != 2:
                raise Untranslatable(str(e))
        elif z3.is_app(e) and e.decl().kind() in _CMP:
            op = _CMP[e.decl().kind()]
        else:
            raise Untranslatable(str(e))
        a, b = e.arg(0), e.arg(1)
        if self._value(a) is not None and self._value(b) is None:
            a, b, op = b, a, _FLIP[op]
        atom = self._atom_leaf(a)
        if atom is not None:
            return self._atom_comparison(atom, op, b)
        if self._atom_leaf(b) is not None:
            raise Untranslatable(str(e))
        return f"{self.term(a)} {op} {self.term(b)}"

    def _atom_comparison(self, leaf: Leaf, op: str, other: z3.ExprRef) -> str:
        members = leaf.type.members
        v = self._value(other)
        if v is not None:
            chosen = [m for i, m in enumerate(members) if _HOLDS[op](i, v)]
            if len(chosen) == len(members):
                return "true"
            if not chosen:
                return "false"
            if len(chosen) == 1:
                return f"{leaf.text} == {chosen[0]}"
            if len(chosen) == len(members) - 1:
                (left_out,) = [m for m in members if m not in chosen]
                return f"{leaf.text} != {left_out}"
            return f"{leaf.text} in {{{', '.join(chosen)}}}"
        peer = self._atom_leaf(other)
        if peer is not None and peer.type == leaf.type and op in ("==", "!="):
            return f"{leaf.text} {op} {peer.text}"
        raise Untranslatable(f"{leaf.text} {op} {other}")

    def _set_bit(self, e: z3.ExprRef) -> str | None:
        # A bit of a bit-vector set: Extract(i, i, S) == 1 is "x in S".
        if not ((z3.is_eq(e) or z3.is_distinct(e)) and e.num_args() == 2):
            return None
        a, b = e.arg(0), e.arg(1)
        if z3.is_bv_value(a):
            a, b = b, a
        if not (z3.is_bv_value(b) and z3.is_app_of(a, z3.Z3_OP_EXTRACT)):
            return None
        hi, lo = a.params()
        inner = a.arg(0)
        if hi != lo or not self._is_leaf(inner) or not isinstance(self._leaf(inner).type, SetType):
            return None
        text = self._leaf(inner).members[lo]
        return text if (b.as_long() == 1) == z3.is_eq(e) else f"not ({text})"

    def _table(self, e: z3.ExprRef) -> str:
        """The values of the comparison's fields that satisfy it, listed (or
        those that do not, negated, when they are fewer)."""
        cells = self._cells(e, self._fields(e))
        if not cells:
            raise Untranslatable(str(e))
        table: dict[tuple[str, ...], bool] = {}
        for combo in itertools.product(*(values for _, values, _ in cells)):
            pairs = [(term, value) for (term, _, _), (_, value) in zip(cells, combo)]
            value = z3.simplify(z3.substitute(e, *pairs))
            if not (z3.is_true(value) or z3.is_false(value)):
                raise Untranslatable(str(e))
            table[tuple(text for text, _ in combo)] = z3.is_true(value)
        # A cell the value never depends on is left out of the rows.
        keep = [k for k, (_, values, _) in enumerate(cells)
                if any(table[row] != table[row[:k] + (text,) + row[k + 1:]]
                       for row in table for text, _ in values)]
        cells = [cells[k] for k in keep]
        rows, others = [], []
        for row, value in table.items():
            short = [row[k] for k in keep]
            into = rows if value else others
            if short not in into:
                into.append(short)
        if not rows:
            return "false"
        if not others:
            return "true"
        if len(cells) == 1 and cells[0][2] is not None:
            return self._one_of(cells[0][2], [r[0] for r in rows], len(cells[0][1]))

        def spelled(row: list[str]) -> str:
            return " and ".join(text if leaf is None else f"{leaf.text} == {text}"
                                for (_, _, leaf), text in zip(cells, row))
        if len(others) < len(rows):
            return " and ".join(f"not ({spelled(r)})" for r in others)
        return " or ".join(_paren(spelled(r)) for r in rows)

    def _cells(self, e: z3.ExprRef, fields: list[Leaf]
               ) -> list[tuple[z3.ExprRef, list[tuple[str, z3.ExprRef]], Leaf | None]]:
        """What ``_table`` enumerates: each field over its values (with the
        field), except a bit-vector set that ``e`` reads only bit by bit, as
        Spacer writes "x in S": each bit read, as in or not in the set
        (without a field), so a condition on one element of a large set
        stays a small table."""
        bits: dict[int, dict[int, z3.ExprRef]] = {}
        todo, seen = [e], set()
        while todo:
            x = todo.pop()
            if x.get_id() in seen:
                continue
            seen.add(x.get_id())
            if z3.is_app_of(x, z3.Z3_OP_EXTRACT) and x.params()[0] == x.params()[1] \
                    and self._is_leaf(x.arg(0)) and isinstance(self._leaf(x.arg(0)).type, SetType):
                bits.setdefault(x.arg(0).get_id(), {})[x.params()[1]] = x
            todo.extend(x.children())
        cells, wholes, total = [], [], 1
        for leaf in fields:
            read = bits.get(leaf.term.get_id())
            if read and leaf.guard is None and not self._reads_whole(e, leaf, read):
                total *= 2 ** len(read)
                for i in sorted(read):
                    member = leaf.members[i]
                    cells.append((read[i], [(f"not ({member})", z3.BitVecVal(0, 1)),
                                            (member, z3.BitVecVal(1, 1))], None))
            else:
                total *= self._size(leaf.type)
                wholes.append(len(cells))
                cells.append((leaf.term, [], leaf))
        # Counted before a field's values are listed: a 64-bit field has 2^64.
        if total > _TABLE_LIMIT:
            raise Untranslatable(str(e))
        for k in wholes:
            term, _, leaf = cells[k]
            cells[k] = (term, self._values(leaf), leaf)
        return cells

    def _reads_whole(self, e: z3.ExprRef, leaf: Leaf, read: dict[int, z3.ExprRef]) -> bool:
        """Whether ``e`` reads ``leaf`` other than through the bits ``read``."""
        probe = z3.substitute(e, *[(b, z3.BitVecVal(0, 1)) for b in read.values()])
        return any(f.term.eq(leaf.term) for f in self._fields(probe))

    def _one_of(self, leaf: Leaf, chosen: list[str], total: int) -> str:
        """``x == a``, ``x != a`` or ``x in {a, b}``: the field takes one of ``chosen``."""
        if isinstance(leaf.type, BoolType):
            return leaf.text if chosen == ["true"] else f"not {_paren(leaf.text)}"
        if len(chosen) == 1:
            return f"{leaf.text} == {chosen[0]}"
        if len(chosen) == total - 1 and not isinstance(leaf.type, SetType):
            (left_out,) = [text for text, _ in self._values(leaf) if text not in chosen]
            return f"{leaf.text} != {left_out}"
        if isinstance(leaf.type, SetType):
            return " or ".join(f"{leaf.text} == {c}" for c in chosen)
        return f"{leaf.text} in {{{', '.join(chosen)}}}"

    # ---------------------------------------------------------------- arithmetic terms

    def term(self, e: z3.ExprRef) -> str:
        return self._term(e)[0]

    def _term(self, e: z3.ExprRef) -> tuple[str, int, int]:
        """The term's spelling and the interval of its value in any state
        (fields range over their types).  Spacer builds bit-vector sums of
        its own, at widths where they may wrap around; the language's
        arithmetic does not wrap, so such a term has no spelling (and the
        comparison falls back to listing the values that satisfy it)."""
        text, lo, hi = self._term_parts(e)
        if z3.is_bv(e):
            w = e.sort().size()
            if lo < -(1 << (w - 1)) or hi > (1 << (w - 1)) - 1:
                raise Untranslatable(f"{e} may wrap around")
        return text, lo, hi

    def _term_parts(self, e: z3.ExprRef) -> tuple[str, int, int]:
        v = self._value(e)
        if v is not None:
            return str(v), v, v
        if self._is_leaf(e):
            leaf = self._leaf(e)
            if not isinstance(leaf.type, IntType):
                raise Untranslatable(leaf.text)
            return leaf.text, leaf.type.lo, leaf.type.hi
        kind = e.decl().kind() if z3.is_app(e) else None
        if kind in (z3.Z3_OP_ADD, z3.Z3_OP_BADD):
            text, lo, hi = "", 0, 0
            for i, c in enumerate(e.children()):
                negated = self._negated(c)
                if negated is not None:
                    t, a, b = self._term(negated)
                    text += f" - {_paren(t)}" if i else f"-{_paren(t)}"
                    lo, hi = lo - b, hi - a
                else:
                    t, a, b = self._term(c)
                    if i and a == b and a < 0:
                        text += f" - {-a}"
                    else:
                        text += f" + {t}" if i else t
                    lo, hi = lo + a, hi + b
            return text, lo, hi
        if kind in (z3.Z3_OP_SUB, z3.Z3_OP_BSUB):
            parts = [self._term(c) for c in e.children()]
            text = " - ".join(_paren(t) if i else t for i, (t, _, _) in enumerate(parts))
            lo, hi = parts[0][1], parts[0][2]
            for _, a, b in parts[1:]:
                lo, hi = lo - b, hi - a
            return text, lo, hi
        if kind in (z3.Z3_OP_MUL, z3.Z3_OP_BMUL):
            parts = [self._term(c) for c in e.children()]
            lo, hi = parts[0][1], parts[0][2]
            for _, a, b in parts[1:]:
                ends = [lo * a, lo * b, hi * a, hi * b]
                lo, hi = min(ends), max(ends)
            return " * ".join(_paren(t) for t, _, _ in parts), lo, hi
        if kind in (z3.Z3_OP_UMINUS, z3.Z3_OP_BNEG):
            t, a, b = self._term(e.arg(0))
            return f"-{_paren(t)}", -b, -a
        if kind == z3.Z3_OP_SIGN_EXT:
            return self._term(e.arg(0))
        if kind == z3.Z3_OP_ITE:
            _, a1, b1 = then = self._term(e.arg(1))
            _, a2, b2 = other = self._term(e.arg(2))
            return (f"(if {self.boolean(e.arg(0))} then {then[0]} else {other[0]})",
                    min(a1, a2), max(b1, b2))
        raise Untranslatable(str(e))

    def _negated(self, e: z3.ExprRef) -> z3.ExprRef | None:
        """x when ``e`` is ``-1 * x`` (how Z3 writes a subtraction), else None."""
        if z3.is_app(e) and e.decl().kind() in (z3.Z3_OP_MUL, z3.Z3_OP_BMUL) and e.num_args() == 2:
            if self._value(e.arg(0)) == -1:
                return e.arg(1)
        return None

    # ---------------------------------------------------------------- fields

    def _is_leaf(self, e: z3.ExprRef) -> bool:
        return z3.is_const(e) and e.get_id() in self.leaves

    def _leaf(self, e: z3.ExprRef) -> Leaf:
        return self.leaves[e.get_id()]

    def _atom_leaf(self, e: z3.ExprRef) -> Leaf | None:
        if self._is_leaf(e) and isinstance(self._leaf(e).type, (EnumType, ModelType)):
            return self._leaf(e)
        return None

    @staticmethod
    def _value(e: z3.ExprRef) -> int | None:
        if z3.is_int_value(e):
            return e.as_long()
        if z3.is_bv_value(e):
            return e.as_signed_long()
        return None

    def _fields(self, e: z3.ExprRef) -> list[Leaf]:
        found: dict[int, Leaf] = {}
        todo = [e]
        seen = set()
        while todo:
            x = todo.pop()
            if x.get_id() in seen:
                continue
            seen.add(x.get_id())
            if self._is_leaf(x):
                found[x.get_id()] = self._leaf(x)
            todo.extend(x.children())
        return sorted(found.values(), key=lambda leaf: leaf.text)

    @staticmethod
    def _size(t: Type) -> int:
        return domain_size(t)

    def _values(self, leaf: Leaf) -> list[tuple[str, z3.ExprRef]]:
        t = leaf.type
        sort = leaf.term.sort()
        if isinstance(t, BoolType):
            return [("false", z3.BoolVal(False)), ("true", z3.BoolVal(True))]
        if isinstance(t, IntType):
            vals = range(t.lo, t.hi + 1)
            return [(str(v), z3.BitVecVal(v, sort.size()) if z3.is_bv_sort(sort) else z3.IntVal(v))
                    for v in vals]
        if isinstance(t, (EnumType, ModelType)):
            return [(render_value(t, m), z3.BitVecVal(i, sort.size()) if z3.is_bv_sort(sort)
                     else z3.IntVal(i)) for i, m in enumerate(t.members)]
        if isinstance(t, SetType) and z3.is_bv_sort(sort):
            # A whole bit-vector set (bit i: the i-th element of its domain).
            dom = domain(t.elem)
            return [(render_value(t, frozenset(x for i, x in enumerate(dom) if mask >> i & 1)),
                     z3.BitVecVal(mask, sort.size())) for mask in range(1 << len(dom))]
        raise Untranslatable(leaf.text)
