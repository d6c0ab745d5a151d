"""The C backend (c/translate.py, c/program.py, c/build.py): numba's answers
on every point where C and Python differ, the entry points' types as the
engine calls them, what it refuses, and how the engine falls back."""
from __future__ import annotations

import itertools
import random
import textwrap
from pathlib import Path

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from modelcheck import api  # noqa: E402
from modelcheck.engines.base import CheckOptions, NullReporter  # noqa: E402
from modelcheck.engines.compiled.c.build import CBuildError, build_library  # noqa: E402
from modelcheck.engines.compiled.c.cache import c_compiler  # noqa: E402
from modelcheck.engines.compiled.c.types import (ENTRY_SIGNATURES, NotTranslatable,  # noqa: E402
                                                 parse_signature)
from modelcheck.engines.compiled.cache.plan_key import resolve_backend  # noqa: E402

import c_cases  # noqa: E402

pytestmark = pytest.mark.skipif(c_compiler() is None, reason="no C compiler on the PATH")

EDGES = [0, 1, -1, 2, -2, 3, -3, 7, -7, 63, 64, -64, 2**31, -2**31, 2**62, 2**63 - 1, -2**63]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    built, seconds = build_library(c_cases, c_cases.SIGNATURES,
                                   tmp_path_factory.mktemp("c") / "cases.so")
    assert seconds > 0
    return built


def _same(c_fn, py_fn, *args):
    assert c_fn(*args) == py_fn(*args), args


def test_floor_division_and_modulo_are_pythons(lib):
    for a, b in itertools.product(EDGES, EDGES):
        _same(lib.divmod_, c_cases.divmod_, a, b)   # b == 0: 0, numba's numpy error model


def test_int64_wraps_as_numba_does(lib):
    for a, b in itertools.product(EDGES, EDGES):
        _same(lib.wraps, c_cases.wraps, a, b)
    for a, n in itertools.product(EDGES, range(64)):
        _same(lib.shifts, c_cases.shifts, a, n)
    for x in EDGES + [random.Random(k).getrandbits(63) for k in range(50)]:
        _same(lib.bits, c_cases.bits, x)


def test_and_or_give_an_operand(lib):
    for a, b in itertools.product([0, 1, -5, 9], repeat=2):
        _same(lib.and_or, c_cases.and_or, a, b)


def test_loops(lib):
    for n in (-3, 0, 1, 5):
        _same(lib.last_of_loop, c_cases.last_of_loop, n)   # the variable outlives the loop
        _same(lib.loops, c_cases.loops, n + 10)
    for n in (0, 1, 6, 7):
        a, b = np.zeros(8, dtype=np.int64), np.zeros(8, dtype=np.int64)
        assert lib.down(n, a) == c_cases.down(n, b)
        assert (a == b).all()


def test_arrays_rows_and_constants(lib):
    a, b = np.arange(5, dtype=np.int64), np.arange(5, dtype=np.int64)
    lib.swap(a, 1, 3)
    c_cases.swap(b, 1, 3)
    assert (a == b).all() and a[1] == 3
    rows = np.arange(12, dtype=np.int64).reshape(4, 3)
    for pick in (True, False):
        _same(lib.rows_sum, c_cases.rows_sum, rows, pick)
    t1, t2 = np.zeros(3, dtype=np.uint32), np.zeros(3, dtype=np.uint32)
    for v in (-1, 2**40 + 5, 7):
        assert lib.tags(t1, 1, v) == c_cases.tags(t2, 1, v)
        assert (t1 == t2).all()


def test_slices_are_views_clipped_as_in_python(lib):
    for lo, hi in itertools.product([0, 1, 3, -2, -9], [0, 2, 5, 9, -1, -7]):
        if not -6 <= lo < 6:
            continue                # a[lo:][0] must exist
        a, b = np.arange(6, dtype=np.int64), np.arange(6, dtype=np.int64)
        assert lib.sliced(a, lo, hi) == c_cases.sliced(b, lo, hi), (lo, hi)
        assert (a == b).all()


def test_row_slices_are_views_clipped_as_in_python(lib):
    for lo, hi in itertools.product([0, 1, 3, -2, -9], [0, 2, 5, 9, -1, -7]):
        if not -6 <= lo < 6:
            continue                # a[lo:][0] must exist
        a = np.arange(18, dtype=np.int64).reshape(6, 3)
        b = a.copy()
        assert lib.sliced_rows(a, lo, hi) == c_cases.sliced_rows(b, lo, hi), (lo, hi)
        assert (a == b).all()


def test_popcount_is_the_builtin_with_the_same_values(lib):
    """runtime.popcount is written as __builtin_popcountll: the same count
    of the 64-bit pattern as the bit tricks numba runs, sign bit included."""
    for x in (0, 1, -1, 2**63 - 1, -2**63, 0x5555555555555555, -0x5555555555555556, 12345, -7):
        assert lib.pop(x) == c_cases.pop(x) == bin(x & (2**64 - 1)).count("1"), x
    assert "__builtin_popcountll" in Path(lib._lib._name).with_suffix(".c").read_text()


def test_calls_casts_and_results(lib):
    for a in (-9, -1, 0, 1, 3, 300, 2**40):
        for name in ("calls", "casts", "constants", "tuple_result", "bool_result"):
            got, want = getattr(lib, name)(a), getattr(c_cases, name)(a)
            assert got == want and type(got) is type(want), (name, a)
    assert lib.bool_result(11) is True


def test_atomics(lib):
    a = np.array([4, 0], dtype=np.int64)
    assert lib.atomics(a, 0, 4, 9) == 4 and list(a) == [9, 10]    # swapped
    assert lib.atomics(a, 0, 4, 1) == 9 and list(a) == [9, 10]    # not: what it held


def test_arguments_are_checked(lib):
    with pytest.raises(TypeError, match="argument 0 is a contiguous int32 array"):
        lib.swap(np.zeros(3, dtype=np.int32), 0, 1)
    with pytest.raises(TypeError, match="strided"):
        lib.swap(np.zeros(6, dtype=np.int64)[::2], 0, 1)
    with pytest.raises(TypeError, match="2 arguments"):
        lib.swap(np.zeros(3, dtype=np.int64), 0)


@pytest.mark.parametrize("name,what", [("divides", "the operator Div"),
                                       ("floats", "the constant 0.5")])
def test_what_it_does_not_translate_is_named(tmp_path, name, what):
    with pytest.raises(NotTranslatable, match=f"c_cases.{name}, line [0-9]+: {what}"):
        build_library(c_cases, {name: "i64 i64" if name == "divides" else "i64"},
                      tmp_path / "x.so")


def test_a_compiler_error_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr("modelcheck.engines.compiled.c.build.CFLAGS", ("-no-such-flag",))
    with pytest.raises(CBuildError, match="failed on"):
        build_library(c_cases, {"bits": "i64"}, tmp_path / "x.so")


def test_backend_choice(monkeypatch):
    monkeypatch.delenv("MODELCHECK_KERNEL_BACKEND", raising=False)
    assert resolve_backend() == "c"
    assert resolve_backend("numba") == "numba"
    monkeypatch.setenv("MODELCHECK_KERNEL_BACKEND", "numba")
    assert resolve_backend() == "numba" and resolve_backend("auto") == "c"
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CC", raising=False)
    assert resolve_backend("auto") == "numba"
    with pytest.raises(ValueError, match="unknown kernel backend 'gcc'"):
        resolve_backend("gcc")


def _numba_types(dispatcher) -> set[str]:
    out = set()
    for sig in dispatcher.signatures:
        words = []
        for t in sig:
            if isinstance(t, numba.types.Array):
                words.append(f"{_SHORT[str(t.dtype)]}[{t.ndim}]")
            else:
                words.append("bool" if str(t).startswith(("bool", "Literal[bool]")) else "i64")
        out.add(" ".join(words))
    return out


_SHORT = {"int64": "i64", "int32": "i32", "int8": "i8", "uint8": "u8", "uint32": "u32",
          "uint64": "u64", "bool": "bool"}


def test_entry_signatures_are_the_engines(tmp_path):
    """Every entry point the numba kernel compiled, on searches of one worker,
    of several (claims and shards), with liveness, was compiled for the
    types ENTRY_SIGNATURES gives the C library."""
    from modelcheck.engines.compiled.kernels import compile_model
    from modelcheck.engines.compiled.search.parallel import make_search
    seen: dict[str, set[str]] = {}
    runs = [("two_phase", {"N": "4"}, dict(workers=1)),
            ("two_phase", {"N": "4"}, dict(workers=2, extra={"parallel_after_s": 0.0})),
            ("two_phase", {"N": "4"}, dict(workers=2, exact=True,
                                           extra={"parallel_after_s": 0.0}))]
    for name, consts, kw in runs:
        model = api.load(f"specs/examples/{name}.mc", consts)
        options = CheckOptions(**kw)
        options.extra["kernel_backend"] = "numba"
        k = compile_model(model, options)
        search = make_search(k, options, NullReporter())
        if hasattr(search, "warm_up"):
            search.warm_up()
        search.run()
        for entry in ENTRY_SIGNATURES:
            f = getattr(k.module, entry, None)
            if f is not None and f.signatures:
                seen.setdefault(entry, set()).update(_numba_types(f))
    assert len(seen) >= 15, sorted(seen)
    for entry, types in seen.items():
        assert types == {" ".join(map(str, parse_signature(ENTRY_SIGNATURES[entry])))}, entry


def _unique_model(top: int):
    """A spec no other test loads (a kernel module this process has loaded
    keeps the cache folder it was loaded from): ``top`` makes its kernel."""
    text = textwrap.dedent(f"""\
        module counter{top}

        var x: 0..{top} = 0

        action Step() {{ require x < {top}
          x := x + 1 }}

        invariant Small: x <= {top}
        """)
    return api.load_source(text, path=f"counter{top}.mc")


def test_a_kernel_it_cannot_translate_runs_on_numba(monkeypatch, tmp_path):
    from modelcheck.engines.compiled.c import program as c_program
    model = _unique_model(11)

    def refuse(self, name, module, signature):
        raise NotTranslatable(f"{name}: refused by the test")
    monkeypatch.setattr(c_program.Program, "add_entry", refuse)
    options = CheckOptions(cache_dir=str(tmp_path), workers=1)
    options.extra["kernel_backend"] = "c"
    result = api.check(model, engine="compiled", options=options)
    assert result.stats.extras["kernel_backend"] == "numba"
    assert any("C backend not used" in n and "refused by the test" in n for n in result.notes)
    assert result.stats.distinct_states == api.check(model, engine="reference").stats.distinct_states


def test_a_second_run_loads_the_library(tmp_path):
    from modelcheck.engines.compiled.kernels import compile_model
    model = _unique_model(12)
    options = CheckOptions(cache_dir=str(tmp_path))
    options.extra["kernel_backend"] = "c"
    first = compile_model(model, options)
    libs = sorted(p.name for p in tmp_path.rglob("*.so"))
    assert first.backend == "c" and len(libs) == 1
    second = compile_model(model, options)
    assert second.backend == "c" and sorted(p.name for p in tmp_path.rglob("*.so")) == libs
    assert second.compile_s < first.compile_s


def test_a_changed_library_is_built_again_with_a_note(tmp_path):
    from modelcheck.engines.compiled.kernels import compile_model
    model = _unique_model(14)
    options = CheckOptions(cache_dir=str(tmp_path))
    options.extra["kernel_backend"] = "c"
    compile_model(model, options)
    (lib,) = tmp_path.rglob("*.so")
    data = lib.read_bytes()
    lib.unlink()                      # the loaded one stays mapped; this is a new file
    lib.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    again = compile_model(model, options)
    assert again.backend == "c"
    assert any("is not the library its record names; rebuilding" in n for n in again.notes)
    assert lib.read_bytes() == data


def test_a_damaged_library_is_built_again(tmp_path):
    built, _ = build_library(c_cases, {"bits": "i64"}, tmp_path / "x.so")
    assert built.bits(255) == 8
    # a library cut short (not one this process has loaded: that one is mapped)
    (tmp_path / "y.so").write_bytes((tmp_path / "x.so").read_bytes()[:100])
    (tmp_path / "y.results").write_bytes((tmp_path / "x.results").read_bytes())
    again, seconds = build_library(c_cases, {"bits": "i64"}, tmp_path / "y.so", rebuild=False)
    assert seconds > 0 and again.bits(7) == 3


def test_generated_code_is_readable_c(tmp_path):
    """The source is kept beside the library, one C function per Python one."""
    from modelcheck.engines.compiled.kernels import compile_model
    options = CheckOptions(cache_dir=str(tmp_path))
    options.extra["kernel_backend"] = "c"
    compile_model(_unique_model(13), options)
    (source,) = tmp_path.rglob("*.c")
    text = source.read_text()
    assert "static int64_t f_successors_0(" in text
    assert "void mcx_explore_chunk(int64_t *ret," in text
    assert "static inline int64_t mc_floordiv(" in text
