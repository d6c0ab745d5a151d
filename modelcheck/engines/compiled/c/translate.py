"""One numba function, for one tuple of argument types, translated to C.

The kernel module (codegen/module.py) and the runtime it calls (kernel/runtime.py,
kernel/table.py) are numba's subset of Python, and a narrow one: int64 arithmetic,
bools, C-contiguous arrays, loops over ``range``, tuples as results.  This
module turns one such function into C with Python's meaning kept where C's
differs: ``//`` and ``%`` round towards minus infinity (and give 0 for a zero
divisor, numba's "numpy" error model), ``<<`` wraps as int64 does, a loop
variable keeps its last value after the loop, ``and``/``or`` give one of
their operands.  Anything else raises NotTranslatable, and the engine keeps
numba for that kernel (c/build.py).

The types come first (c/infer.py); this module writes the C.
"""
from __future__ import annotations

import ast

from modelcheck.engines.compiled.c.infer import FunctionTypes, Val, literal
from modelcheck.engines.compiled.c.types import (BOOL, I64, U64, Array, CType, Scalar,
                                                 TupleType, local_scalar)

__all__ = ["FunctionTranslator"]

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.RShift: ">>"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
           ast.GtE: ">="}


class FunctionTranslator(FunctionTypes):
    """One function, typed (FunctionTypes), as the body of a C function
    (``emit``) with its parameters (``params_c``)."""

    # ------------------------------------------------------------ emission

    def emit(self) -> str:
        """The C definition (its name and prototype from the program)."""
        body: list[str] = []
        self.lines = body
        self._block(self.fn.body, 1)
        decls = []
        for name, t in self.env.items():
            if name in self.params:
                continue
            decls.append("    " + self._declare(name, t))
        return "\n".join(decls + body)

    def _declare(self, name: str, t: CType) -> str:
        v = f"v_{name}"
        if isinstance(t, Array):
            dims = ", ".join(f"{v}_s{k} = 0" for k in range(t.ndim))
            return f"{t.elem.c} *{v} = 0; int64_t {dims};"
        if isinstance(t, TupleType):
            return f"{self.program.tuple_name(t)} {v};"
        return f"{t.c} {v} = 0;"

    def params_c(self) -> list[str]:
        out = []
        for name, t in self.params.items():
            v = f"v_{name}"
            if isinstance(t, Array):
                out.append(f"{t.elem.c} *{v}")
                out.extend(f"int64_t {v}_s{k}" for k in range(t.ndim))
            else:
                out.append(f"{t.c} {v}")  # type: ignore[union-attr]
        return out

    def _out(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def _block(self, stmts: list[ast.stmt], depth: int) -> None:
        for s in stmts:
            self._stmt(s, depth)

    def _stmt(self, s: ast.stmt, depth: int) -> None:
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return
            self._out(depth, f"(void)({self.expr(s.value).code});")
        elif isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self._fail(s, "a chained assignment")
            self._assign(s.targets[0], s.value, depth)
        elif isinstance(s, ast.AugAssign):
            self._aug(s, depth)
        elif isinstance(s, ast.If):
            self._out(depth, f"if ({self.cond(s.test)}) {{")
            self._block(s.body, depth + 1)
            if s.orelse:
                self._out(depth, "} else {")
                self._block(s.orelse, depth + 1)
            self._out(depth, "}")
        elif isinstance(s, ast.For):
            self._for(s, depth)
        elif isinstance(s, ast.While):
            if s.orelse:
                raise self._fail(s, "while ... else")
            self._out(depth, f"while ({self.cond(s.test)}) {{")
            self._block(s.body, depth + 1)
            self._out(depth, "}")
        elif isinstance(s, ast.Return):
            self._return(s, depth)
        elif isinstance(s, ast.Break):
            self._out(depth, "break;")
        elif isinstance(s, ast.Continue):
            self._out(depth, "continue;")
        elif isinstance(s, ast.Pass):
            self._out(depth, ";")
        else:
            raise self._fail(s, f"the statement {type(s).__name__}")

    def _fresh(self) -> str:
        self.tmp += 1
        return f"t_{self.tmp}"

    def _assign(self, target: ast.expr, value: ast.expr, depth: int) -> None:
        if isinstance(target, ast.Tuple):
            if isinstance(value, ast.Tuple):
                # Every value first, as Python does (a swap reads both).
                temps = []
                for t_node, v_node in zip(target.elts, value.elts):
                    v = self.expr(v_node)
                    if not isinstance(v.type, Scalar):
                        raise self._fail(value, "a tuple of non-scalars")
                    tmp = self._fresh()
                    self._out(depth, f"{local_scalar(v.type).c} {tmp} = {v.code};")
                    temps.append((t_node, tmp, v.type))
                for t_node, tmp, t in temps:
                    self._store(t_node, Val(tmp, t), depth)
                return
            v = self.expr(value)
            if not isinstance(v.type, TupleType):
                raise self._fail(value, "unpacks a non-tuple")
            tmp = self._fresh()
            self._out(depth, f"{self.program.tuple_name(v.type)} {tmp} = {v.code};")
            for k, t_node in enumerate(target.elts):
                self._store(t_node, Val(f"{tmp}.f{k}", v.type.items[k]), depth)
            return
        if isinstance(target, ast.Name) and isinstance(value, ast.IfExp) \
                and isinstance(self.env.get(target.id), Array):
            # An array chosen by a condition: one branch per choice.
            self._out(depth, f"if ({self.cond(value.test)}) {{")
            self._store(target, self.expr(value.body), depth + 1)
            self._out(depth, "} else {")
            self._store(target, self.expr(value.orelse), depth + 1)
            self._out(depth, "}")
            return
        self._store(target, self.expr(value), depth)

    def _store(self, target: ast.expr, v: Val, depth: int) -> None:
        if isinstance(target, ast.Name):
            name = f"v_{target.id}"
            t = self.env[target.id]
            if isinstance(t, Array):
                self._out(depth, f"{name} = {v.code};")
                for k, dim in enumerate(v.shape):
                    self._out(depth, f"{name}_s{k} = {dim};")
            elif isinstance(t, TupleType):
                self._out(depth, f"{name} = {v.code};")
            else:
                self._out(depth, f"{name} = {self._convert(v, t)};")
        elif isinstance(target, ast.Subscript):
            ref, elem = self._element(target)
            self._out(depth, f"{ref} = {self._convert(v, elem)};")
        else:
            raise self._fail(target, f"an assignment to {type(target).__name__}")

    def _convert(self, v: Val, t: CType) -> str:
        if t == BOOL and v.type != BOOL:
            return f"(({v.code}) != 0)"
        if isinstance(t, Scalar) and isinstance(v.type, Scalar) and t != v.type:
            return f"({t.c})({v.code})"
        return v.code

    def _aug(self, s: ast.AugAssign, depth: int) -> None:
        if isinstance(s.target, ast.Name):
            ref, t = f"v_{s.target.id}", self.env[s.target.id]
        elif isinstance(s.target, ast.Subscript):
            ref, t = self._element(s.target)
        else:
            raise self._fail(s, "an augmented assignment to that")
        cur = Val(ref, t)
        result = self._binop(s, cur, self.expr(s.value), s.op)
        self._out(depth, f"{ref} = {self._convert(result, t)};")

    def _for(self, s: ast.For, depth: int) -> None:
        if s.orelse:
            raise self._fail(s, "for ... else")
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and not it.keywords and 1 <= len(it.args) <= 3):
            raise self._fail(s, "a loop over something other than range()")
        args = [self.expr(a).code for a in it.args]
        start, stop = ("0", args[0]) if len(args) == 1 else (args[0], args[1])
        step = 1
        if len(it.args) == 3:
            step_node = it.args[2]
            value = ast.literal_eval(step_node) if isinstance(step_node, (ast.Constant, ast.UnaryOp)) \
                else None
            if not isinstance(value, int) or value == 0:
                raise self._fail(s, "a range() whose step is not a constant")
            step = value
        i, hi = self._fresh(), self._fresh()
        cmp = "<" if step > 0 else ">"
        target = f"v_{s.target.id}"  # type: ignore[attr-defined]
        self._out(depth, f"for (int64_t {i} = {start}, {hi} = {stop}; {i} {cmp} {hi}; "
                         f"{i} += {step}) {{")
        # The loop variable keeps its last value after the loop, as in Python.
        self._out(depth + 1, f"{target} = {i};")
        self._block(s.body, depth + 1)
        self._out(depth, "}")

    def _return(self, s: ast.Return, depth: int) -> None:
        if s.value is None:
            self._out(depth, "return;")
            return
        if isinstance(self.ret, TupleType):
            if isinstance(s.value, ast.Tuple):
                parts = [self._convert(self.expr(x), t)
                         for x, t in zip(s.value.elts, self.ret.items)]
                self._out(depth, f"return ({self.program.tuple_name(self.ret)}){{"
                                 f"{', '.join(parts)}}};")
            else:
                self._out(depth, f"return {self.expr(s.value).code};")
            return
        self._out(depth, f"return {self._convert(self.expr(s.value), self.ret)};")  # type: ignore[arg-type]

    # ------------------------------------------------------------ expressions

    def cond(self, e: ast.expr) -> str:
        """``e`` as a C condition (truthiness is all that counts)."""
        if isinstance(e, ast.BoolOp):
            op = " && " if isinstance(e.op, ast.And) else " || "
            return "(" + op.join(self.cond(v) for v in e.values) + ")"
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            return f"(!{self.cond(e.operand)})"
        v = self.expr(e)
        if not isinstance(v.type, Scalar):
            raise self._fail(e, f"the truth of a {v.type}")
        return v.code

    def expr(self, e: ast.expr) -> Val:
        if isinstance(e, ast.Constant):
            t = self._const_type(e, e.value)
            return Val(literal(int(e.value)) if t == I64 else ("1" if e.value else "0"), t)
        if isinstance(e, ast.Name):
            if e.id in self.env:
                t = self.env[e.id]
                shape = tuple(f"v_{e.id}_s{k}" for k in range(t.ndim)) \
                    if isinstance(t, Array) else ()
                return Val(f"v_{e.id}", t, shape)
            return self._global(e)
        if isinstance(e, ast.BinOp):
            return self._binop(e, self.expr(e.left), self.expr(e.right), e.op)
        if isinstance(e, ast.UnaryOp):
            return self._unary(e)
        if isinstance(e, ast.Compare):
            return self._compare(e)
        if isinstance(e, ast.BoolOp):
            return self._boolop(e)
        if isinstance(e, ast.IfExp):
            t = self.typeof(e)
            a, b = self.expr(e.body), self.expr(e.orelse)
            c = self.cond(e.test)
            if isinstance(t, Array):
                raise self._fail(e, "an array chosen by a condition, other than in an assignment")
            return Val(f"(({c}) ? ({self._convert(a, t)}) : ({self._convert(b, t)}))", t)  # type: ignore[arg-type]
        if isinstance(e, ast.Subscript):
            return self._subscript(e)
        if isinstance(e, ast.Call):
            return self._call(e)
        if isinstance(e, ast.Tuple):
            t = self.typeof(e)
            parts = [self._convert(self.expr(x), it) for x, it in zip(e.elts, t.items)]  # type: ignore[union-attr]
            return Val(f"(({self.program.tuple_name(t)}){{{', '.join(parts)}}})", t)
        raise self._fail(e, f"the expression {type(e).__name__}")

    def _binop(self, node: ast.AST, a: Val, b: Val, op: ast.operator) -> Val:
        t = self._binop_type(node, a.type, b.type, op)
        x, y = a.code, b.code
        if t == U64 and isinstance(op, (ast.FloorDiv, ast.Mod)):
            raise self._fail(node, "// or % on uint64")
        if isinstance(op, ast.FloorDiv):
            return Val(f"mc_floordiv({x}, {y})", t)
        if isinstance(op, ast.Mod):
            return Val(f"mc_mod({x}, {y})", t)
        if isinstance(op, ast.LShift):
            # int64 wraps where C's signed shift would be undefined
            ct = "uint64_t"
            return Val(f"(({t.c})(({ct})({x}) << ({y})))", t)  # type: ignore[union-attr]
        sym = _BINOPS.get(type(op))
        if sym is None:
            raise self._fail(node, f"the operator {type(op).__name__}")
        if t == BOOL:
            return Val(f"(({x}) {sym} ({y}))", BOOL)
        return Val(f"(({t.c})({x}) {sym} ({t.c})({y}))", t)  # type: ignore[union-attr]

    def _unary(self, e: ast.UnaryOp) -> Val:
        if isinstance(e.op, ast.Not):
            return Val(f"(!{self.cond(e.operand)})", BOOL)
        v = self.expr(e.operand)
        t = U64 if v.type == U64 else I64
        sym = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}[type(e.op)]
        return Val(f"({sym}({t.c})({v.code}))", t)

    def _compare(self, e: ast.Compare) -> Val:
        left = self.expr(e.left)
        if len(e.ops) > 1:
            raise self._fail(e, "a chained comparison")
        right = self.expr(e.comparators[0])
        sym = _CMPOPS.get(type(e.ops[0]))
        if sym is None:
            raise self._fail(e, f"the comparison {type(e.ops[0]).__name__}")
        if not isinstance(left.type, Scalar) or not isinstance(right.type, Scalar):
            raise self._fail(e, f"compares {left.type} and {right.type}")
        if U64 in (left.type, right.type) and left.type != right.type:
            raise self._fail(e, f"compares {left.type} and {right.type}")
        return Val(f"(({left.code}) {sym} ({right.code}))", BOOL)

    def _boolop(self, e: ast.BoolOp) -> Val:
        t = self.typeof(e)
        if t == BOOL:
            return Val(self.cond(e), BOOL)
        # Python's value: the first operand that decides, in the common type.
        vals = [self.expr(v) for v in e.values]
        code = self._convert(vals[-1], t)  # type: ignore[arg-type]
        for v in reversed(vals[:-1]):
            tmp = self._fresh()
            c = self._convert(v, t)  # type: ignore[arg-type]
            pick = f"{tmp} ? ({code}) : {tmp}" if isinstance(e.op, ast.And) \
                else f"{tmp} ? {tmp} : ({code})"
            code = f"({{ {t.c} {tmp} = {c}; {pick}; }})"  # type: ignore[union-attr]
        return Val(code, t)

    def _subscript(self, e: ast.Subscript) -> Val:
        if isinstance(e.value, ast.Attribute) and e.value.attr == "shape":
            arr = self.expr(e.value.value)
            if not isinstance(arr.type, Array):
                raise self._fail(e, "the shape of a non-array")
            k = ast.literal_eval(e.slice)
            if not isinstance(k, int) or not 0 <= k < arr.type.ndim:
                raise self._fail(e, "a shape index")
            return Val(arr.shape[k], I64)
        arr = self.expr(e.value)
        if not isinstance(arr.type, Array):
            raise self._fail(e, f"indexes a {arr.type}")
        if isinstance(e.slice, ast.Slice):
            return self._slice(e, arr)
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        codes = [self._index(x, arr.shape[k]) for k, x in enumerate(idx)]
        t = arr.type
        offset = codes[0]
        for k in range(1, len(codes)):
            offset = f"({offset}) * {arr.shape[k]} + ({codes[k]})"
        if len(codes) == t.ndim:
            return Val(f"{arr.code}[{offset}]", t.elem)
        rest = arr.shape[len(codes):]
        stride = " * ".join(rest)
        return Val(f"({arr.code} + ({offset}) * {stride})", Array(t.elem, t.ndim - len(codes)),
                   tuple(rest))

    def _slice(self, e: ast.Subscript, arr: Val) -> Val:
        """``a[lo:hi]``: a view, its bounds clipped as Python clips them (of a
        two-dimensional array: its rows lo..hi-1)."""
        t = self._subscript_type(e)
        sl = e.slice
        assert isinstance(sl, ast.Slice) and isinstance(t, Array)
        n = arr.shape[0]
        lo = "0" if sl.lower is None else f"mc_slice_at({self.expr(sl.lower).code}, {n})"
        hi = n if sl.upper is None else f"mc_slice_at({self.expr(sl.upper).code}, {n})"
        rows = f"mc_max(({hi}) - ({lo}), 0)"
        if t.ndim == 2:
            width = arr.shape[1]
            return Val(f"({arr.code} + ({lo}) * {width})", t, (rows, width))
        return Val(f"({arr.code} + {lo})", t, (rows,))

    def _index(self, x: ast.expr, dim: str) -> str:
        v = self.expr(x)
        if not isinstance(v.type, Scalar):
            raise self._fail(x, f"an index of type {v.type}")
        if isinstance(x, ast.UnaryOp) and isinstance(x.op, ast.USub) \
                and isinstance(x.operand, ast.Constant):
            return f"({dim} + {v.code})"      # a[-1], as Python and numba read it
        return v.code

    def _element(self, target: ast.Subscript) -> tuple[str, Scalar]:
        v = self._subscript(target)
        if not isinstance(v.type, Scalar):
            raise self._fail(target, "an assignment to a row")
        return v.code, v.type

    def _call(self, e: ast.Call) -> Val:
        kind, target = self._callee(e)
        if kind == "builtin":
            return self._builtin(e, target)
        if kind == "cast":
            (arg,) = e.args
            v = self.expr(arg)
            if target == BOOL:
                return Val(f"(({v.code}) != 0)", BOOL)
            return Val(f"(({target.c})({v.code}))", target)
        if kind == "intrinsic":
            return self._intrinsic(e, target)
        args = [self.typeof(a) for a in e.args]
        bound = self._call_args(e, target, args)
        inst = self.program.instance(target, tuple(t for _, t in bound))
        parts = []
        for (node, t) in bound:
            if isinstance(node, ast.expr):
                v = self.expr(node)
            else:
                v = Val(literal(int(node)) if not isinstance(node, bool) else str(int(node)),
                        t)
            if isinstance(t, Array):
                parts.append(v.code)
                parts.extend(v.shape)
            else:
                parts.append(self._convert(v, t))
        return Val(f"{inst.cname}({', '.join(parts)})", inst.ret)

    def _builtin(self, e: ast.Call, name: str) -> Val:
        vals = [self.expr(a) for a in e.args]
        if name in ("min", "max"):
            t = self.typeof(e)
            code = self._convert(vals[0], t)  # type: ignore[arg-type]
            for v in vals[1:]:
                code = f"mc_{name}({code}, {self._convert(v, t)})"  # type: ignore[arg-type]
            return Val(code, t)
        (v,) = vals
        if name == "int":
            return Val(f"((int64_t)({v.code}))", I64)
        if name == "bool":
            return Val(f"(({v.code}) != 0)", BOOL)
        if name == "abs":
            return Val(f"mc_abs({v.code})", I64)
        if not isinstance(v.type, Array):
            raise self._fail(e, "len() of a non-array")
        return Val(v.shape[0], I64)

    def _intrinsic(self, e: ast.Call, name: str) -> Val:
        arr = self.expr(e.args[0])
        idx = self.expr(e.args[1]).code
        if not isinstance(arr.type, Array) or arr.type.ndim != 1:
            raise self._fail(e, f"{name} on a {arr.type}")
        ptr = f"&{arr.code}[{idx}]"
        elem = arr.type.elem
        if name == "prefetch":
            return Val(f"__builtin_prefetch({ptr}, 0, 3)", None)
        if name == "atomic_load":
            return Val(f"__atomic_load_n({ptr}, __ATOMIC_ACQUIRE)", elem)
        if name == "atomic_store":
            value = self.expr(e.args[2])
            return Val(f"__atomic_store_n({ptr}, ({elem.c})({value.code}), __ATOMIC_RELEASE)",
                       None)
        want, new = self.expr(e.args[2]), self.expr(e.args[3])
        tmp = self._fresh()
        # the value it held: `want` when it swapped, what was there otherwise
        return Val(f"({{ {elem.c} {tmp} = ({elem.c})({want.code}); "
                   f"__atomic_compare_exchange_n({ptr}, &{tmp}, ({elem.c})({new.code}), 0, "
                   f"__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); {tmp}; }})", elem)
