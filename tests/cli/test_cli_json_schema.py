"""``check --json`` validates against the JSON Schema shipped in the package,
in every shape the object takes: a violation, a run-time error, a spec that
does not load, an incomplete search, a sweep's list."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from modelcheck.cli.json_out import SCHEMA_VERSION, outcome_json
from modelcheck.cli.main import cli
from modelcheck.engines.base import CheckResult, Stats
from modelcheck.ir import nodes as ir
from modelcheck.schemas import load_schema

ROOT = Path(__file__).resolve().parents[2]
ENV = {"COLUMNS": "100", "NO_COLOR": "1", "MODELCHECK_PROGRESS_EVERY": "off"}

DIE_HARD = "specs/examples/die_hard.mc"
REF = ("--engine", "reference")


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture
def check_json(tmp_path, monkeypatch):
    """``check_json(args...) -> (exit code, parsed stdout)``, run from the
    repository root; the output is parsed as printed (the ``mc`` fixture
    would replace timings by placeholders)."""
    monkeypatch.chdir(ROOT)

    def run(*args: str) -> tuple[int, object]:
        result = CliRunner().invoke(cli, ["check", *args, "--json", "--out", str(tmp_path)],
                                    env=ENV)
        return result.exit_code, json.loads(result.stdout)
    return run


def _valid(validator: jsonschema.Draft202012Validator, obj: object) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(obj)]
    assert not errors, errors


@pytest.mark.parametrize("args, code", [
    ((DIE_HARD, *REF), 1),
    (("tests/cli/specs/overflow.mc", *REF), 2),
    ((DIE_HARD, *REF, "--max-states", "3"), 3),
    ((DIE_HARD, *REF, "-D", "Nope=1"), 2),
    (("tests/cli/specs/blink_live.mc", *REF), 1),
    # handed on to the reference explorer: requested_engine and notes differ
    (("tests/cli/specs/wide_range.mc", "--engine", "compiled", "--no-deadlock"), 0),
])
def test_check_json_validates_against_the_schema(check_json, validator, args, code):
    exit_code, obj = check_json(*args)
    assert exit_code == code
    assert obj["schema_version"] == SCHEMA_VERSION
    _valid(validator, obj)


def test_each_object_of_a_sweep_validates(check_json, validator):
    exit_code, objs = check_json("specs/examples/two_phase.mc", *REF, "--sweep", "N=1,2")
    assert exit_code == 0 and len(objs) == 2
    for obj in objs:
        _valid(validator, obj)


def test_the_schema_requires_every_member_the_output_has(validator):
    model = ir.Model("m", (), (), (), (), (), ())
    obj = outcome_json("m.mc", model, "reference", CheckResult("m", "reference", [], Stats()))
    assert set(validator.schema["required"]) == set(obj)
    del obj["depth"]
    assert not validator.is_valid(obj)


def test_a_wrong_verdict_status_is_refused(check_json, validator):
    _, obj = check_json(DIE_HARD, *REF)
    obj["properties"]["NotFour"]["status"] = "maybe"
    assert not validator.is_valid(obj)
