"""Types for the C backend's translation of one numba function
(c/translate.py), inferred as numba infers them: a fixed point over the
assignments gives each local one type (narrow integers held as int64), and
each call of another jitted function asks the program (c/program.py) for
an instance of it for the argument types at the call.
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import Any, Callable

from modelcheck.engines.compiled.c.types import (BOOL, I64, U64, Array, CType, NotTranslatable,
                                                 Scalar, TupleType, local_scalar, unify)

__all__ = ["Val", "FunctionTypes", "literal"]

@dataclass(frozen=True)
class Val:
    """A C expression: for an array, its data pointer, with its shape."""
    code: str
    type: CType | None
    shape: tuple[str, ...] = ()


class FunctionTypes:
    """The types of ``fn`` (a FunctionDef) for ``argtypes``: its parameters'
    and locals' (``env``), its result's (``ret``), any expression's
    (``typeof``).  ``resolve`` gives the value of a name that is not a local
    (the function's globals, then builtins); ``program`` the instances of
    callees (Program.instance) and the C values of globals."""

    def __init__(self, program: Any, fn: ast.FunctionDef, argtypes: tuple[CType, ...],
                 resolve: Callable[[str], Any], where: str):
        self.program = program
        self.fn = fn
        self.resolve = resolve
        self.where = where
        names = [a.arg for a in fn.args.args]
        if len(names) != len(argtypes):
            raise NotTranslatable(f"{where}: called with {len(argtypes)} arguments")
        self.params = dict(zip(names, argtypes))
        self.env: dict[str, CType] = dict(self.params)
        self.lines: list[str] = []
        self.tmp = 0
        self._infer_locals()
        self.ret = self._return_type()

    # ------------------------------------------------------------ typing

    def _fail(self, node: ast.AST, what: str) -> NotTranslatable:
        line = getattr(node, "lineno", 0) + self.fn.lineno - 1
        return NotTranslatable(f"{self.where}, line {line}: {what}")

    def _infer_locals(self) -> None:
        assigned: set[str] = set()
        for _ in range(20):
            changed = False
            for node in ast.walk(self.fn):
                for name, t in self._bindings(node):
                    assigned.add(name)
                    if t is None or name in self.params:
                        continue
                    new = unify(self.env.get(name), t, f"{self.where}: local {name}")
                    if isinstance(new, Scalar):
                        new = local_scalar(new)
                    if new != self.env.get(name):
                        self.env[name] = new
                        changed = True
            if not changed:
                break
        missing = sorted(assigned - set(self.env))
        if missing:
            raise NotTranslatable(f"{self.where}: cannot type {', '.join(missing)}")

    def _bindings(self, node: ast.AST) -> list[tuple[str, CType | None]]:
        if isinstance(node, ast.For):
            if isinstance(node.target, ast.Name):
                return [(node.target.id, I64)]
            raise self._fail(node, "a loop target that is not a name")
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            return [(node.target.id, self._binop_type(node, self.typeof(node.target),
                                                      self.typeof(node.value), node.op))]
        if not isinstance(node, ast.Assign):
            return []
        out: list[tuple[str, CType | None]] = []
        for target in node.targets:
            out.extend(self._target_bindings(target, node.value))
        return out

    def _target_bindings(self, target: ast.expr, value: ast.expr) -> list:
        if isinstance(target, ast.Name):
            return [(target.id, self.typeof(value))]
        if isinstance(target, ast.Tuple):
            if isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
                return [b for t, v in zip(target.elts, value.elts)
                        for b in self._target_bindings(t, v)]
            t = self.typeof(value)
            if t is None:
                return [(e.id, None) for e in target.elts if isinstance(e, ast.Name)]
            if not isinstance(t, TupleType) or len(t.items) != len(target.elts):
                raise self._fail(target, f"unpacks {t}")
            return [(e.id, it) for e, it in zip(target.elts, t.items) if isinstance(e, ast.Name)]
        return []

    def _return_type(self) -> CType | None:
        ret: CType | None = None
        bare = False
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Return):
                if node.value is None:
                    bare = True
                    continue
                t = self.typeof(node.value)
                if t is None:
                    raise self._fail(node, "cannot type the result")
                ret = unify(ret, t, f"{self.where}: result")
        if bare and ret is not None:
            raise self._fail(self.fn, "returns a value on some paths only")
        if isinstance(ret, Scalar):
            ret = local_scalar(ret)
        if isinstance(ret, Array):
            raise self._fail(self.fn, "returns an array")
        return ret

    def _binop_type(self, node: ast.AST, a: CType | None, b: CType | None,
                    op: ast.operator) -> CType | None:
        if a is None or b is None:
            return None
        if not isinstance(a, Scalar) or not isinstance(b, Scalar):
            raise self._fail(node, f"arithmetic on {a} and {b}")
        if type(op) in (ast.Div, ast.Pow, ast.MatMult):
            raise self._fail(node, f"the operator {type(op).__name__}")
        if a.is_bool and b.is_bool and type(op) in (ast.BitAnd, ast.BitOr, ast.BitXor):
            return BOOL
        if U64 in (a, b):
            if a != b:
                raise self._fail(node, f"mixes {a} and {b} (numba makes a float of it)")
            return U64
        return I64

    def typeof(self, e: ast.expr) -> CType | None:
        """The type of ``e`` (None while a local it reads is not typed yet)."""
        if isinstance(e, ast.Constant):
            return self._const_type(e, e.value)
        if isinstance(e, ast.Name):
            if e.id in self.env:
                return self.env[e.id]
            if e.id in self._local_names():
                return None
            return self._global(e).type
        if isinstance(e, ast.BinOp):
            return self._binop_type(e, self.typeof(e.left), self.typeof(e.right), e.op)
        if isinstance(e, ast.UnaryOp):
            t = self.typeof(e.operand)
            if isinstance(e.op, ast.Not):
                return BOOL
            if t is None:
                return None
            if t == BOOL and isinstance(e.op, ast.Invert):
                raise self._fail(e, "~ on a bool")
            return U64 if t == U64 else I64
        if isinstance(e, (ast.Compare,)):
            return BOOL
        if isinstance(e, ast.BoolOp):
            ts = [self.typeof(v) for v in e.values]
            if any(t is None for t in ts):
                return None
            if all(t == BOOL for t in ts):
                return BOOL
            out: CType | None = None
            for t in ts:
                out = unify(out, t, f"{self.where}: and/or")
            return out
        if isinstance(e, ast.IfExp):
            a, b = self.typeof(e.body), self.typeof(e.orelse)
            if a is None or b is None:
                return None
            if isinstance(a, Array) or isinstance(b, Array):
                if a != b:
                    raise self._fail(e, f"chooses between {a} and {b}")
                return a
            return unify(a, b, f"{self.where}: if-else")
        if isinstance(e, ast.Subscript):
            return self._subscript_type(e)
        if isinstance(e, ast.Call):
            return self._call_type(e)
        if isinstance(e, ast.Tuple):
            items = [self.typeof(x) for x in e.elts]
            if any(t is None for t in items):
                return None
            return TupleType(tuple(local_scalar(t) if isinstance(t, Scalar) else t
                                   for t in items))  # type: ignore[misc]
        raise self._fail(e, f"the expression {type(e).__name__}")

    def _local_names(self) -> set[str]:
        names = getattr(self, "_locals_cache", None)
        if names is None:
            names = set(self.params)
            for node in ast.walk(self.fn):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
            self._locals_cache = names
        return names

    def _const_type(self, node: ast.AST, v: Any) -> CType:
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            if not -(1 << 63) <= v < (1 << 63):
                raise self._fail(node, f"the constant {v} is past int64")
            return I64
        raise self._fail(node, f"the constant {v!r}")

    def _global(self, e: ast.Name) -> Val:
        try:
            return self.program.global_value(self.resolve(e.id), e.id)
        except NotTranslatable as why:
            raise self._fail(e, str(why)) from None

    def _subscript_type(self, e: ast.Subscript) -> CType | None:
        if isinstance(e.value, ast.Attribute) and e.value.attr == "shape":
            return I64
        t = self.typeof(e.value)
        if t is None:
            return None
        if not isinstance(t, Array):
            raise self._fail(e, f"indexes a {t}")
        if isinstance(e.slice, ast.Slice):
            if t.ndim > 2 or e.slice.step is not None:
                raise self._fail(e, "a slice other than a[lo:hi] of a one- or two-dimensional "
                                    "array")
            return t
        n = len(e.slice.elts) if isinstance(e.slice, ast.Tuple) else 1
        if isinstance(e.slice, ast.Tuple) and any(isinstance(x, ast.Slice)
                                                  for x in e.slice.elts):
            raise self._fail(e, "a slice of a row")
        if n == t.ndim:
            return t.elem
        if n < t.ndim:
            return Array(t.elem, t.ndim - n)
        raise self._fail(e, f"{n} indices into a {t}")

    def _call_type(self, e: ast.Call) -> CType | None:
        kind, target = self._callee(e)
        args = [self.typeof(a) for a in e.args]
        if kind == "builtin":
            if target in ("min", "max"):
                if any(t is None for t in args):
                    return None
                out: CType | None = None
                for t in args:
                    out = unify(out, t, f"{self.where}: {target}")
                return out
            return {"int": I64, "bool": BOOL, "abs": I64, "len": I64}[target]
        if kind == "cast":
            return target
        if kind == "intrinsic":
            if target in ("prefetch", "atomic_store"):
                return None
            arr = args[0]
            return arr.elem if isinstance(arr, Array) else None
        if any(t is None for t in args):
            return None
        bound = self._call_args(e, target, args)
        return self.program.instance(target, tuple(t for _, t in bound)).ret

    def _callee(self, e: ast.Call) -> tuple[str, Any]:
        f = e.func
        if isinstance(f, ast.Name) and f.id in ("min", "max", "int", "bool", "abs", "len") \
                and f.id not in self._local_names():
            try:
                builtin = self.resolve(f.id) is getattr(builtins, f.id)
            except NameError:
                builtin = True
            if builtin:
                return "builtin", f.id
        value = self.program.callable_of(self._callee_object(f))
        if value is None:
            raise self._fail(e, f"a call of {ast.unparse(f)}")
        return value

    def _callee_object(self, f: ast.expr) -> Any:
        if isinstance(f, ast.Name):
            return self.resolve(f.id)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            return getattr(self.resolve(f.value.id), f.attr)
        raise self._fail(f, f"a call of {ast.unparse(f)}")

    def _call_args(self, e: ast.Call, target: Any, args: list[CType | None]) -> list:
        """The arguments of a jitted call, keywords and defaults bound."""
        params = self.program.parameters(target)
        out: list[tuple[ast.expr | Any, CType]] = []
        kw = {k.arg: k.value for k in e.keywords}
        for i, p in enumerate(params):
            if i < len(e.args):
                node, t = e.args[i], args[i]
            elif p.name in kw:
                node = kw.pop(p.name)
                t = self.typeof(node)
            elif p.default is not p.empty:
                node, t = p.default, self._const_type(e, p.default)
            else:
                raise self._fail(e, f"no argument for {p.name}")
            out.append((node, local_scalar(t) if isinstance(t, Scalar) else t))
        if kw or len(e.args) > len(params):
            raise self._fail(e, "more arguments than parameters")
        return out


def literal(v: int) -> str:
    if v == -(1 << 63):
        return "(-9223372036854775807LL - 1)"
    return f"{v}LL" if v >= 0 else f"({v}LL)"
