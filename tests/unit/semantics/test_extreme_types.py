"""Types and constants too large to enumerate are refused (MC4007) at their
declaration, before anything is allocated, and empty model types are MC4009;
questions about a huge range are answered by arithmetic."""
from __future__ import annotations

import pytest

from modelcheck.ir.types import MAX_ENUMERABLE, IntType


def only(diags):
    assert len(diags) == 1, diags
    return diags[0]


@pytest.mark.timeout(10)
@pytest.mark.parametrize("count", ["10000000000000000000000", "9223372036854775807",
                                   str(MAX_ENUMERABLE + 1)])
def test_huge_model_type_is_mc4007_at_its_size(spec_errors, count):
    diag = only(spec_errors(f"module m\ntype Peer = model({count})\n", prelude=False))
    assert diag.code == "MC4007"
    assert (diag.span.line, diag.span.col) == (2, 19)
    assert diag.span.end_col - diag.span.col == len(count)
    assert str(MAX_ENUMERABLE) in diag.message
    assert f"model(N) with N at most {MAX_ENUMERABLE}" in diag.hint


@pytest.mark.timeout(10)
def test_huge_model_type_computed_from_consts_is_mc4007(spec_errors):
    # A const expression may multiply far past 4,300 digits: still rendered.
    product = " * ".join(["340282366920938463463374607431768211455"] * 60)
    diag = only(spec_errors(f"module m\nconst K: 0..1 = 1\ntype Peer = model({product})\n",
                            prelude=False))
    assert diag.code == "MC4007"
    assert "digits>" in diag.message


def test_model_type_at_the_limit_is_accepted(compile_spec):
    model = compile_spec(f"module m\ntype Peer = model({MAX_ENUMERABLE})\n", prelude=False)
    assert len(dict(model.types)["Peer"].members) == MAX_ENUMERABLE


@pytest.mark.parametrize("count", ["0", "1 - 1"])
def test_empty_model_type_is_mc4009(spec_errors, count):
    diag = only(spec_errors(f"module m\ntype Peer = model({count})\n", prelude=False))
    assert diag.code == "MC4009"
    assert diag.span.col == 19


@pytest.mark.timeout(10)
def test_huge_capacity_is_mc4007(spec_errors):
    diag = only(spec_errors("module m\nvar q: seq[0..1, 100000000000000000000] = []\n",
                            prelude=False))
    assert diag.code == "MC4007"
    assert diag.span.col == 18


@pytest.mark.timeout(10)
def test_action_with_too_many_instances_is_mc4007(spec_errors):
    diag = only(spec_errors("action A(a: 0..65535, b: 0..65535, c: 0..65535) { x := 0 }\n"))
    assert diag.code == "MC4007"
    assert "instances" in diag.message and diag.hint


@pytest.mark.timeout(10)
def test_type_name_of_a_huge_range_as_a_set_is_mc4007_with_the_range_hint(spec_errors):
    diag = only(spec_errors("type Big = 0..1000000000000000000000\ninvariant I: x in Big\n"))
    assert diag.code == "MC4007"
    assert "0..1000000000000000000000" in diag.hint


@pytest.mark.timeout(10)
def test_len_min_max_and_in_of_a_huge_range_fold_by_arithmetic(compile_spec):
    model = compile_spec(
        "const N: 0..10000000000000000000000 = len(0..1000000000000000000000)\n"
        "const A: 0..10 = min(5..1000000000000000000000)\n"
        "const B: 0..1000000000000000000000 = max(5..1000000000000000000000)\n"
        "const C: bool = 999999999999999999999 in 0..1000000000000000000000\n")
    consts = {name: value for name, _, value in model.consts}
    assert consts == {"N": 10 ** 21 + 1, "A": 5, "B": 10 ** 21, "C": True}


@pytest.mark.timeout(10)
def test_building_a_huge_range_in_a_constant_is_mc4007(spec_errors):
    diag = only(spec_errors("const K: 0..10 = len((0..100000000000) & {1, 2})\n"))
    assert diag.code == "MC4007"
    assert "1048576" in diag.message
    assert "len(lo..hi)" in diag.hint


@pytest.mark.timeout(10)
def test_len_of_a_huge_range_has_its_exact_static_range(compile_spec):
    # Engines size their arithmetic from the static range: it must hold 10**21 + 1.
    model = compile_spec("invariant L: len(0..1000000000000000000000) > x\n")
    length = model.get_property("L").expr.args[0]
    assert length.type == IntType(0, 10 ** 21 + 1)


@pytest.mark.timeout(10)
def test_map_comprehension_over_a_huge_range_is_mc4007(spec_errors):
    diag = only(spec_errors("var big: map[0..3, bool] = {k: true for k in 0..100000000000}\n"))
    assert diag.code == "MC4007"


@pytest.mark.timeout(10)
def test_a_5000_digit_override_is_a_usage_error(compile_spec):
    from modelcheck.errors import UsageError
    with pytest.raises(UsageError, match="more than 4000 digits"):
        compile_spec("module m\nconst N: 0..3 = 1\n", consts={"N": "9" * 5000}, prelude=False)
