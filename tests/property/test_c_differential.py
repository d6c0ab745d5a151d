"""The C backend against numba on random integer code (Hypothesis): each
example is a function of three int64 arguments, its body a random
expression over the operators the generated kernels use, compiled by numba
and by the C backend, and run on the edge values of int64.  Where Python's
own arithmetic (``_Exact``) stays within int64 at every step, both must give
its value.  Where it does not, numba's answer is not defined (LLVM may take
its signed arithmetic not to overflow), and no generated kernel goes there:
the code generator bounds every integer expression of a spec to int64
(ranges.py); that input is skipped."""
from __future__ import annotations

import importlib.util
import itertools
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from modelcheck.engines.compiled.c.build import build_library  # noqa: E402
from modelcheck.engines.compiled.c.cache import c_compiler  # noqa: E402

pytestmark = pytest.mark.skipif(c_compiler() is None, reason="no C compiler on the PATH")

INPUTS = [0, 1, -1, 3, -7, 64, 2**31, -2**31 - 5, 2**62 + 11, 2**63 - 1, -2**63]
_ARITH = ["+", "-", "*", "//", "%", "&", "|", "^"]
_COMPARE = ["==", "!=", "<", "<=", ">", ">="]


def _ints(depth: int) -> st.SearchStrategy[str]:
    # constants as np.int64(k): CPython folds an expression of literals in
    # its own big integers, which no kernel does (the generator keeps every
    # constant in int64: ranges.py)
    leaf = st.one_of(st.sampled_from(["a", "b", "c"]),
                     st.integers(-300, 300).map(lambda k: f"np.int64({k})"),
                     # module globals, as the kernels' constants are (a literal
                     # expression would be folded by Python, past int64)
                     st.sampled_from(["HI", "LO"]))
    if depth == 0:
        return leaf
    sub = _ints(depth - 1)
    # the operators first: Hypothesis leans towards the first branch
    binary = st.tuples(sub, st.sampled_from(_ARITH), sub).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})")
    return st.one_of(
        binary, binary, binary,         # the arithmetic, most often
        # shift counts in 0..63, as the kernels mask them
        st.tuples(sub, st.sampled_from(["<<", ">>"]), sub).map(
            lambda t: f"({t[0]} {t[1]} ({t[2]} & 63))"),
        sub.map(lambda x: f"(-{x})"),
        sub.map(lambda x: f"(~{x})"),
        st.tuples(_bools(depth - 1), sub, sub).map(lambda t: f"({t[1]} if {t[0]} else {t[2]})"),
        st.tuples(sub, sub).map(lambda t: f"min({t[0]}, {t[1]})"),
        st.tuples(sub, sub).map(lambda t: f"max({t[0]}, {t[1]})"),
        st.tuples(sub, st.sampled_from(["and", "or"]), sub).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"),
        _bools(depth - 1).map(lambda x: f"({x} + 0)"),
        leaf,
    )


def _bools(depth: int) -> st.SearchStrategy[str]:
    base = st.tuples(_ints(0), st.sampled_from(_COMPARE), _ints(0)).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})")
    if depth == 0:
        return base
    sub = _bools(depth - 1)
    return st.one_of(base, sub.map(lambda x: f"(not {x})"),
                     st.tuples(sub, st.sampled_from(["and", "or"]), sub).map(
                         lambda t: f"({t[0]} {t[1]} {t[2]})"))


class _Overflow(Exception):
    pass


def _z(v: int) -> "_Exact":
    if not -(1 << 63) <= v < (1 << 63):
        raise _Overflow
    return _Exact(v)


def _zdiv(a: int, b: int) -> "_Exact":
    return _z(0 if b == 0 else a // b)      # numba's "numpy" error model: 0


def _zmod(a: int, b: int) -> "_Exact":
    return _z(0 if b == 0 else a % b)


class _Exact(int):
    """An int64 in Python's arithmetic: every result checked to fit."""
    def __add__(s, o): return _z(int(s) + int(o))  # noqa: E704
    def __radd__(s, o): return _z(int(o) + int(s))  # noqa: E704
    def __sub__(s, o): return _z(int(s) - int(o))  # noqa: E704
    def __rsub__(s, o): return _z(int(o) - int(s))  # noqa: E704
    def __mul__(s, o): return _z(int(s) * int(o))  # noqa: E704
    def __rmul__(s, o): return _z(int(o) * int(s))  # noqa: E704
    def __floordiv__(s, o): return _zdiv(int(s), int(o))  # noqa: E704
    def __rfloordiv__(s, o): return _zdiv(int(o), int(s))  # noqa: E704
    def __mod__(s, o): return _zmod(int(s), int(o))  # noqa: E704
    def __rmod__(s, o): return _zmod(int(o), int(s))  # noqa: E704
    def __lshift__(s, o): return _z(int(s) << int(o))  # noqa: E704
    def __rlshift__(s, o): return _z(int(o) << int(s))  # noqa: E704
    def __rshift__(s, o): return _z(int(s) >> int(o))  # noqa: E704
    def __rrshift__(s, o): return _z(int(o) >> int(s))  # noqa: E704
    def __and__(s, o): return _z(int(s) & int(o))  # noqa: E704
    def __rand__(s, o): return _z(int(o) & int(s))  # noqa: E704
    def __or__(s, o): return _z(int(s) | int(o))  # noqa: E704
    def __ror__(s, o): return _z(int(o) | int(s))  # noqa: E704
    def __xor__(s, o): return _z(int(s) ^ int(o))  # noqa: E704
    def __rxor__(s, o): return _z(int(o) ^ int(s))  # noqa: E704
    def __neg__(s): return _z(-int(s))  # noqa: E704
    def __invert__(s): return _z(~int(s))  # noqa: E704


class _NumpyInt64:
    int64 = _Exact


def _exact(body: str, a: int, b: int, c: int) -> int | None:
    """Python's value of ``body``, None where a step leaves int64."""
    scope = {"np": _NumpyInt64, "HI": _Exact((1 << 63) - 1), "LO": _Exact(-(1 << 63)),
             "a": _Exact(a), "b": _Exact(b), "c": _Exact(c)}
    try:
        return int(eval(body, scope))  # noqa: S307 - our own generated text
    except _Overflow:
        return None


_COUNTER = itertools.count()


def _module(tmp_path, body: str):
    """A module file with ``f`` jitted as the kernels are (inspect reads its
    source, as the C backend does)."""
    name = f"c_random_{next(_COUNTER)}"
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\nfrom numba import njit\n\n"
                    "HI = np.int64(9223372036854775807)\nLO = np.int64(-9223372036854775808)\n\n"
                    "@njit(nogil=True, _nrt=False, error_model='numpy')\n"
                    f"def f(a, b, c):\n    return {body}\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=_ints(3))
def test_c_gives_numbas_answers_on_random_integer_code(tmp_path, body):
    module = _module(tmp_path, body)
    lib, _ = build_library(module, {"f": "i64 i64 i64"}, tmp_path / f"{module.__name__}.so")
    for a, b, c in itertools.product(INPUTS, repeat=3):
        want = _exact(body, a, b, c)
        if want is None:
            continue
        assert int(module.f(a, b, c)) == want, ("numba", body, a, b, c)
        assert int(lib.f(a, b, c)) == want, ("C", body, a, b, c)
