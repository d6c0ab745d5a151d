"""Helpers for the semantic-phase tests: compile a snippet, collect its errors."""
from __future__ import annotations

import pytest

from modelcheck.errors import CompileError
from modelcheck.pipeline import load_source

#: A small prelude most snippets build on.
PRELUDE = """module m
type Node = model(3)
type Color = enum {red, green}
var x: 0..3 = 0
var s: set[Node] = {}
var m: map[Node, bool] = {n: false for n in Node}
"""


@pytest.fixture
def compile_spec():
    def run(body: str, consts=None, prelude: bool = True):
        return load_source((PRELUDE if prelude else "") + body, "t.mc", consts)
    return run


@pytest.fixture
def spec_errors():
    def run(body: str, prelude: bool = True):
        with pytest.raises(CompileError) as info:
            load_source((PRELUDE if prelude else "") + body, "t.mc")
        return info.value.diagnostics
    return run
