"""z3-solver and pyspark are extras (``modelcheck[z3]``, ``modelcheck[spark]``):
without one, the engine that needs it is refused in one line that names the
extra (exit 2), and everything else works.  A missing package is simulated
by blocking its import (``sys.modules[name] = None``), not by uninstalling."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelcheck.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
DIE_HARD = str(ROOT / "specs/examples/die_hard.mc")
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "MODELCHECK_PROGRESS_EVERY": "off"}


def _invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), env=ENV)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.mark.parametrize("missing, args, line", [
    ("pyspark", ("check", DIE_HARD, "--engine", "spark"),
     "error: the spark engine needs pyspark: pip install 'modelcheck[spark]'"),
    ("z3", ("check", DIE_HARD, "--engine", "bmc"),
     "error: the bmc engine needs z3-solver: pip install 'modelcheck[z3]'"),
    ("z3", ("prove", DIE_HARD),
     "error: the induction engine needs z3-solver: pip install 'modelcheck[z3]'"),
    ("z3", ("prove", DIE_HARD, "--engine", "pdr"),
     "error: the pdr engine needs z3-solver: pip install 'modelcheck[z3]'"),
])
def test_a_missing_package_is_one_line_naming_the_extra(monkeypatch, tmp_path, missing, args,
                                                        line):
    monkeypatch.setitem(sys.modules, missing, None)
    monkeypatch.chdir(tmp_path)
    result = _invoke(*args)
    assert result.exit_code == 2
    assert result.stderr.strip() == line and result.stdout == ""


def test_json_mode_reports_the_missing_extra_in_the_error_member(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pyspark", None)
    result = _invoke("check", DIE_HARD, "--engine", "spark", "--json", "--out", str(tmp_path))
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["message"] == "the spark engine needs pyspark: pip install 'modelcheck[spark]'"


#: Run in a fresh interpreter where importing z3 or pyspark fails, as when
#: neither extra is installed: the reference and compiled engines' modules,
#: the default engine's choice and the everyday commands must not need them.
_WITHOUT_EXTRAS = textwrap.dedent("""
    import json, sys
    sys.modules["z3"] = None
    sys.modules["pyspark"] = None
    from click.testing import CliRunner
    import modelcheck, modelcheck.api, modelcheck.engines.compiled.engine
    from modelcheck.cli.main import cli
    from modelcheck.cli.options import default_engine
    spec, out = sys.argv[1], sys.argv[2]
    codes = [default_engine()[0]]
    for args in (["parse", spec], ["check", spec, "--engine", "reference", "--latest",
                                   "--out", out],
                 ["trace", "show", out + "/die_hard-NotFour-latest.itf.json"]):
        result = CliRunner().invoke(cli, args)
        codes.append(result.exit_code)
        if result.exit_code not in (0, 1):
            print(result.output, file=sys.stderr)
    print(json.dumps(codes))
""")


def test_the_everyday_commands_need_neither_z3_nor_pyspark(tmp_path):
    proc = subprocess.run([sys.executable, "-c", _WITHOUT_EXTRAS, DIE_HARD, str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, **ENV})
    assert proc.returncode == 0, proc.stderr
    engine, *codes = json.loads(proc.stdout.strip().splitlines()[-1])
    assert engine in ("auto", "reference")
    assert codes == [0, 1, 0], proc.stderr
