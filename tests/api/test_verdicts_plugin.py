"""The pytest plugin: the rows of a verdict file as test items, run in
process by pytester on a small verdict file beside a copy of die_hard."""
from __future__ import annotations

import importlib.metadata
import os
import shutil
import tomllib
from pathlib import Path

import pytest

# Imported here so that they stay imported: pytester drops the modules each
# in-process run imports, and importing these again costs seconds a run.
import modelcheck.cli.main  # noqa: F401
import modelcheck.cli.verdicts  # noqa: F401
import modelcheck.engines.reference.engine  # noqa: F401

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "modelcheck.pytest_plugin"

VERDICTS = """
[[row]]
id = "as-expected"
spec = "die_hard.mc"
engine = "reference"
counts = { distinct = 16, depth = 8 }
[[row.check]]
property = "NotFour"
expect = "violated"
steps = 6

[[row]]
id = "not-as-expected"
spec = "die_hard.mc"
engine = "reference"
counts = { distinct = 17 }
[[row.check]]
property = "NotFour"
expect = "holds"
[[row.check]]
property = "deadlock"
expect = "holds"

[[row]]
id = "large-one"
spec = "die_hard.mc"
engine = "reference"
large = true
[[row.check]]
property = "NotFour"
expect = "violated"
steps = 6
"""


def _plugin_args() -> list[str]:
    """``-p`` the plugin unless pytest loads it from its entry point (an
    installed modelcheck): registering it twice is an error.  Hypothesis's
    plugin is left out: each in-process run would import hypothesis again
    (seconds), and no row needs it."""
    quick = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
    installed = any(ep.value == PLUGIN
                    for ep in importlib.metadata.entry_points(group="pytest11"))
    if installed and not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return quick
    return ["-p", PLUGIN, *quick]


@pytest.fixture
def project(pytester):
    (pytester.path / "specs").mkdir()
    shutil.copy(ROOT / "specs" / "examples" / "die_hard.mc", pytester.path / "specs")
    (pytester.path / "specs" / "verdicts.toml").write_text(VERDICTS, encoding="utf-8")
    return pytester


def test_the_entry_point_is_declared():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["entry-points"]["pytest11"] == {"modelcheck": PLUGIN}


def test_each_row_is_an_item_and_a_failure_says_what_differed(project):
    result = project.runpytest_inprocess("specs/verdicts.toml", "-rs", *_plugin_args())
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*verdict row not-as-expected (reference engine) not as expected:",
        "  NotFour: expected holds, obtained violated in 6 steps"
        " (trace: *counterexamples/not-as-expected-NotFour.itf.json)",
        "  distinct states: expected 17, obtained 16",
        "*large-one is a large row: run with --modelcheck-large*",
    ])
    assert "deadlock: expected" not in result.stdout.str()
    assert (project.path / "counterexamples" / "as-expected-NotFour.itf.json").exists()


def test_large_rows_run_when_asked_and_k_selects_them(project, tmp_path):
    result = project.runpytest_inprocess("specs/verdicts.toml", "--modelcheck-large",
                                         "--modelcheck-out", str(tmp_path / "traces"),
                                         "-k", "large", *_plugin_args())
    result.assert_outcomes(passed=1, deselected=2)
    assert (tmp_path / "traces" / "large-one-NotFour.itf.json").exists()


def test_folders_are_not_searched_unless_configured(project):
    # A project's own `pytest` run is unchanged by installing modelcheck.
    assert project.runpytest_inprocess(*_plugin_args()).ret == pytest.ExitCode.NO_TESTS_COLLECTED
    project.makeini("[pytest]\nmodelcheck_verdicts = *verdicts*.toml\n")
    project.runpytest_inprocess(*_plugin_args()).assert_outcomes(passed=1, failed=1, skipped=1)


def test_a_bad_verdict_file_is_a_collection_error_without_a_traceback(project):
    (project.path / "bad_verdicts.toml").write_text(
        '[[row]]\nid = "r"\nspec = "specs/die_hard.mc"\nengin = "reference"\n'
        '[[row.check]]\nproperty = "NotFour"\nexpect = "violated"\n', encoding="utf-8")
    result = project.runpytest_inprocess("bad_verdicts.toml", *_plugin_args())
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*row 'r': unknown key 'engin'*", "*did you mean 'engine'?*"])
    assert "Traceback" not in result.stdout.str()


def test_a_row_naming_a_missing_property_fails_with_the_command_lines_message(project):
    (project.path / "typo_verdicts.toml").write_text(
        '[[row]]\nid = "typo"\nspec = "specs/die_hard.mc"\nengine = "reference"\n'
        '[[row.check]]\nproperty = "NotFive"\nexpect = "violated"\n', encoding="utf-8")
    result = project.runpytest_inprocess("typo_verdicts.toml", *_plugin_args())
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["verdict row typo:",
                                 "error: *row 'typo': die_hard has no property 'NotFive'"])


def test_an_unknown_engine_option_is_a_usage_error(project):
    result = project.runpytest_inprocess("specs/verdicts.toml", "--modelcheck-engine", "refrence",
                                         *_plugin_args())
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown engine 'refrence' (did you mean 'reference'?)*"])


MUTANTS = """
[[row]]
id = "capped"
spec = "limit.mc"
engine = "reference"
consts = { MAX = 2 }
[[row.check]]
property = "BelowThree"
expect = "holds"
[[row.mutant]]
removes = "the cap at 2"
consts = { MAX = 3 }
property = "BelowThree"
steps = 3
[[row.mutant]]
removes = "a lower cap"
consts = { MAX = 1 }
[[row.mutant]]
removes = "the cap, with a wrong length"
consts = { MAX = 4 }
property = "BelowThree"
steps = 9
"""


def test_each_mutant_is_an_item_and_one_that_holds_warns(project):
    shutil.copy(ROOT / "tests" / "cli" / "specs" / "limit.mc", project.path / "specs")
    (project.path / "specs" / "mutant_verdicts.toml").write_text(MUTANTS, encoding="utf-8")
    result = project.runpytest_inprocess("specs/mutant_verdicts.toml", "-v", *_plugin_args())
    result.assert_outcomes(passed=3, failed=1, warnings=1)
    result.stdout.fnmatch_lines([
        "*::capped PASSED*", "*::capped-mutant1 PASSED*", "*::capped-mutant2 PASSED*",
        "*::capped-mutant3 FAILED*",
        "*mutant capped-mutant3 of verdict row capped (reference engine) not as expected:",
        "  capped-mutant3 (without the cap, with a wrong length): BelowThree: "
        "expected violated in 9 steps, obtained violated in 3 steps",
        "*BoundsTooSmall: verdict row capped: bounds too small to show a lower cap "
        "(capped-mutant2 holds)*",
    ])
