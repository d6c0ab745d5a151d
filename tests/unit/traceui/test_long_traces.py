"""A long trace is shown bounded: ``trace show`` and ``trace html`` show its
first and last ``EDGE_STEPS`` steps and say how many are left out; ``--all``
shows every step and ``--steps A:B`` a stretch of it.  The trace files here
are written directly as ITF, untyped (as another tool writes them), so that
a long one is quick to make."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelcheck.cli.main import cli
from modelcheck.trace.view import EDGE_STEPS


def _write_long(path: Path, steps: int) -> Path:
    states = [{"#meta": {"index": i, **({"action": "Tick"} if i else {})},
               "c": i, "bal": {"#map": [["node1", i // 2], ["node2", i - i // 2]]}}
              for i in range(steps + 1)]
    path.write_text(json.dumps({"#meta": {"format": "ITF"}, "vars": ["c", "bal"], "states": states}))
    return path


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def traces(tmp_path_factory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("long")
    return {n: _write_long(folder / f"t{n}.itf.json", n) for n in (40, 1_000, 8_000)}


def _page(trace: Path, *extra: str) -> str:
    out = trace.with_suffix(f".{len(extra)}.html")
    assert invoke("trace", "html", str(trace), "-o", str(out), *extra).exit_code == 0
    return out.read_text(encoding="utf-8")


def test_the_page_of_a_long_trace_does_not_grow_with_its_length(traces):
    short, long = _page(traces[1_000]), _page(traces[8_000])
    # The same number of steps shown; only the numbers in them grow longer.
    assert long.count('<li class="step') == short.count('<li class="step') == 2 * EDGE_STEPS
    assert len(long) < 1.05 * len(short)
    assert "7901 steps omitted; --all to show every step" in long
    assert 'id="step-8000"' in long and 'id="step-50"' not in long


def test_all_and_steps_choose_what_the_page_shows(traces):
    every = _page(traces[1_000], "--all")
    assert every.count('<li class="step') == 1_001 and "omitted" not in every.split("<body>")[1]
    stretch = _page(traces[1_000], "--steps", "500:509")
    assert [f'id="step-{i}"' in stretch for i in (499, 500, 509, 510)] == [False, True, True, False]
    assert "500 steps omitted" in stretch and "491 steps omitted" in stretch


def test_a_short_trace_is_shown_whole(traces):
    result = invoke("trace", "show", str(traces[40]))
    assert "omitted" not in result.output and "Step 40" in result.output


def test_show_prints_the_ends_and_a_line_for_the_rest(traces):
    result = invoke("trace", "show", str(traces[1_000]))
    assert result.exit_code == 0
    assert f"Step {EDGE_STEPS - 1} " in result.output and f"Step {EDGE_STEPS} " not in result.output
    assert "... 901 steps omitted; --all to show every step" in result.output
    assert "Step 950 " not in result.output and "Step 951 " in result.output
    assert invoke("trace", "show", str(traces[1_000]), "--all").output.count("Step ") == 1_000


@pytest.mark.parametrize("bad", ["x:y", "5", "20:10", "2000:"])
def test_a_bad_steps_range_is_a_usage_error(traces, bad):
    result = CliRunner().invoke(cli, ["trace", "show", str(traces[40]), "--steps", bad])
    assert result.exit_code == 2
    assert "--steps" in result.output and "Traceback" not in result.output
