"""Names scoped where the type decides (docs/language.md, "Modules and
imports"): enum members of two enums, an enum member and a variant case, a
value and an action may share a word; MC2007 where no type decides."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.errors import CompileError
from modelcheck.pipeline import load_source

SPEC = """module typed_names
type RMState = enum {{ working, prepared }}
type Value = enum {{ prepared, none_yet }}
type Msg = variant {{ Phase1a(bal: 0..1), none_yet2, Commit }}
type Kind = enum {{ Commit, Abort }}
var rm: RMState = working
var chosen: Value = none_yet
var kind: Kind = Abort
var msgs: set[Msg] = {{}}
action Phase1a(b: 0..1) {{
    require Phase1a(bal=b) not in msgs
    msgs := msgs | {{Phase1a(bal=b)}}
}}
action Prepare() {{
    require rm == working
    rm := prepared
}}
action Choose() {{
    require rm == prepared and chosen == none_yet
    chosen := prepared
    kind := Commit
    msgs := msgs | {{Commit}}
}}
{extra}
invariant Agreed: chosen == prepared => rm == prepared and kind == Commit and Commit in msgs
"""


def load(extra: str = ""):
    return load_source(SPEC.format(extra=extra), "typed_names.mc")


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_the_expected_type_picks_the_meaning(engine):
    result = api.check(load(), engine=engine)
    assert result.get_property("Agreed").status.value == "holds"
    assert result.stats.distinct_states == 12


def test_an_action_named_like_a_case_takes_fairness():
    model = load("fair weak Phase1a\nliveness Sent: eventually len(msgs) >= 2")
    assert [f.action for f in model.fairness] == ["Phase1a"]


@pytest.mark.parametrize("where", ["invariant Bad: let p = prepared; chosen == p",
                                   "invariant Bad: let c = Commit; c == c"])
def test_a_name_no_type_decides_is_mc2007(where):
    with pytest.raises(CompileError) as err:
        load(where)
    assert [d.code for d in err.value.diagnostics] == ["MC2007"]


def test_the_same_enum_twice_is_still_mc2002():
    src = SPEC.replace("enum {{ working, prepared }}", "enum {{ working, prepared, prepared }}")
    with pytest.raises(CompileError) as err:
        load_source(src.format(extra=""), "typed_names.mc")
    assert "MC2002" in [d.code for d in err.value.diagnostics]
