"""The API takes paths as Python users pass them: a ``str`` or any
``os.PathLike`` (a ``pathlib.Path``), and keeps them as text."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import modelcheck
from modelcheck import CompileError, UsageError
from modelcheck.trace.itf import read_itf

DIE_HARD = Path(__file__).resolve().parents[2] / "specs" / "examples" / "die_hard.mc"


class _Where(os.PathLike):
    """A path of a user's own: only ``__fspath__``."""

    def __init__(self, path: Path):
        self.path = path

    def __fspath__(self) -> str:
        return str(self.path)


@pytest.mark.parametrize("path", [DIE_HARD, _Where(DIE_HARD), str(DIE_HARD)],
                         ids=["Path", "PathLike", "str"])
def test_load_takes_a_path(path):
    model = modelcheck.load(path, consts={})
    assert model.name == "die_hard" and model.path == str(DIE_HARD)
    result = modelcheck.check(model, engine="reference")
    assert modelcheck.assert_violated(result, "NotFour", steps=6).trace is not None


def test_load_source_takes_a_path_to_name_it():
    model = modelcheck.load_source(DIE_HARD.read_text(), DIE_HARD)
    assert model.path == str(DIE_HARD)
    with pytest.raises(CompileError) as info:
        modelcheck.load_source("module broken\nvar x: 0..1 = y\n", Path("broken.mc"))
    assert info.value.diagnostics[0].span.file == "broken.mc"


def test_a_missing_spec_is_named_as_given(tmp_path):
    with pytest.raises(UsageError, match="no such spec file: .*nope.mc"):
        modelcheck.load(tmp_path / "nope.mc")


def test_what_is_no_path_is_a_type_error_that_says_so():
    with pytest.raises(TypeError, match="os.PathLike"):
        modelcheck.load(42)


def test_a_trace_is_saved_and_read_back_by_path(tmp_path):
    model = modelcheck.load(DIE_HARD)
    trace = modelcheck.check(model, engine="reference").get_property("NotFour").trace
    written = trace.save(tmp_path / "sub" / "t.itf.json", model)
    assert read_itf(written, model).steps[-1].state == trace.steps[-1].state
