"""Every output names the engine that answered.  ``--engine compiled`` on a
spec whose kernels cannot hold it (a range beyond 64 bits) is answered by the
reference explorer: the summary, ``--json`` and the verdict table say
``reference``, and the JSON carries the engine asked for and the note."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WIDE = "tests/cli/specs/wide_range.mc"

#: Without numba the compiled engine hands every spec on, for that reason.
WHY = "beyond 64-bit integers" if importlib.util.find_spec("numba") else "numba"


def _handed_on(notes: list[str]) -> bool:
    return any("compiled engine unavailable" in n and WHY in n
               and "using the reference explorer" in n for n in notes)


def test_json_names_the_reference_engine_and_carries_the_note(mc):
    run = mc("check", WIDE, "--engine", "compiled", "--json", "--no-deadlock", "--out", "OUT")
    assert run.exit_code == 0, run.transcript()
    obj = json.loads(run.stdout)
    assert obj["engine"] == "reference"
    assert obj["requested_engine"] == "compiled"
    assert _handed_on(obj["notes"]), obj["notes"]
    assert obj["properties"]["I"]["status"] == "holds"


def test_the_summary_names_the_reference_engine(mc):
    run = mc("check", WIDE, "--engine", "compiled", "--no-deadlock", "--no-write")
    assert run.exit_code == 0, run.transcript()
    assert "; engine reference; " in run.stdout and "engine compiled" not in run.stdout
    assert "using the reference explorer" in run.stderr


def test_json_of_an_engine_that_answered_itself(mc):
    run = mc("check", "specs/examples/die_hard.mc", "--engine", "reference", "--json",
             "--no-write")
    obj = json.loads(run.stdout)
    assert obj["engine"] == obj["requested_engine"] == "reference"
    assert obj["notes"] == []


def test_a_verdict_row_names_the_reference_engine(mc, tmp_path):
    table = tmp_path / "verdicts.toml"
    table.write_text(f'''
[[row]]
id = "WIDE"
spec = "{ROOT / WIDE}"
engine = "compiled"
[[row.check]]
property = "I"
expect = "holds"
''')
    run = mc("verdicts", str(table), "--json", "--jobs", "1", "--no-compile-after",
             "--out", "OUT")
    assert run.exit_code == 0, run.transcript()
    row, = json.loads(run.stdout)
    assert row["engine"] == "reference"
