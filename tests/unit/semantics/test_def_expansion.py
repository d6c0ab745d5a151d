"""Defs are inlined at every call, so a chain of defs that each call the
previous one twice doubles at every level: past MAX_INLINED calls in one
declaration it is MC4011, in bounded time, not a hang."""
from __future__ import annotations

import pytest

from modelcheck.semantics.calls import MAX_INLINED


def doubling_chain(levels: int) -> str:
    lines = ["def d0(p: 0..3) -> 0..3 = p"]
    lines += [f"def d{i}(p: 0..3) = d{i - 1}(p) + d{i - 1}(p)" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\ninvariant Big: d{levels}(x) >= 0\n"


@pytest.mark.timeout(30)
def test_exponential_inlining_is_mc4011(spec_errors):
    diags = spec_errors(doubling_chain(40))
    assert {d.code for d in diags} == {"MC4011"}
    assert f"{MAX_INLINED:,}" in diags[0].message
    assert "let" in diags[0].hint


def test_a_chain_below_the_limit_compiles(compile_spec):
    model = compile_spec(doubling_chain(10))
    assert model.get_property("Big") is not None


def test_fresh_names_stay_unique_when_a_def_is_inlined_many_times(compile_spec):
    model = compile_spec(doubling_chain(8))
    seen = []

    def walk(e):
        if type(e).__name__ == "LetExpr":
            seen.append(e.name)
        for child in getattr(e, "__dataclass_fields__", {}):
            value = getattr(e, child)
            for v in value if isinstance(value, tuple) else (value,):
                if hasattr(v, "__dataclass_fields__") and not isinstance(v, type):
                    walk(v)
    walk(model.get_property("Big").expr)
    assert len(seen) == len(set(seen)) == 2 ** 9 - 1
