"""--timeout (and every option that takes seconds or mebibytes) takes a finite
number above 0, in every command: nan would compare as never reached."""
from __future__ import annotations

import pytest

SPEC = "specs/examples/die_hard.mc"
_OPTIONS = [("check", "--timeout"), ("check", "--checkpoint-every"), ("check", "--max-memory"),
            ("prove", "--timeout")]


@pytest.mark.parametrize("command, option", _OPTIONS)
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e400", "0", "-1", "soon"])
def test_a_non_finite_or_non_positive_amount_is_a_usage_error(mc, command, option, value):
    run = mc(command, SPEC, option, value)
    assert run.exit_code == 2
    assert f"Invalid value for '{option}'" in run.stderr


def test_a_finite_timeout_is_taken(mc):
    run = mc("check", SPEC, "--engine", "reference", "--timeout", "30", "--out", "OUT")
    assert run.exit_code == 1          # die_hard's invariant is meant to fail
