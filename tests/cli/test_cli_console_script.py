"""The installed `modelcheck` console script, run as a user runs it."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script() -> str:
    beside = Path(sys.executable).parent / "modelcheck"
    found = str(beside) if beside.exists() else shutil.which("modelcheck")
    if found is None:
        pytest.fail("the modelcheck console script is not installed (pip install -e .)")
    return found


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    return env


def test_console_script_checks_a_spec_with_the_default_engine(tmp_path):
    proc = subprocess.run([_script(), "check", "specs/examples/die_hard.mc", "--json",
                           "--out", str(tmp_path)],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    obj = json.loads(proc.stdout)
    # The default engine names the engine that answered: die_hard's 16
    # states are found by the reference explorer before numba would load.
    assert obj["engine"] in ("compiled", "reference")
    if "the compiled engine is not available" in proc.stderr:
        assert obj["engine"] == "reference"
    assert obj["properties"]["NotFour"]["steps"] == 6
    assert Path(obj["properties"]["NotFour"]["trace_file"]).exists()


def test_console_script_reports_a_spec_error_without_a_traceback():
    proc = subprocess.run([_script(), "check", "tests/cli/specs/bad_name.mc"],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error[MC2001]: unknown name 'totl'")
    assert "Traceback" not in proc.stderr


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_sigint_gives_partial_results_exit_3_and_leaves_no_partial_file(tmp_path):
    # A search far too long to finish.  Ctrl-C is sent once the process has
    # used 2 s of CPU (its imports and the spec's loading take about one), so
    # that it lands in the search however loaded the machine is.
    proc = subprocess.Popen([_script(), "check", "specs/examples/two_phase.mc", "-D", "N=12",
                             "--engine", "reference", "--out", str(tmp_path)],
                            cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            # a shell's background job starts with SIGINT ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    while _cpu_seconds(proc.pid) < 2.0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    assert "Consistent  invariant  unknown: interrupted" in out
    assert "search incomplete: interrupted" in out
    assert not list(tmp_path.glob("*.tmp"))


def test_a_closed_pipe_is_not_an_internal_error(tmp_path):
    # `modelcheck verdicts ... | head -1`: the reader is gone before the table is written.
    proc = subprocess.Popen([_script(), "verdicts", "specs/examples/verdicts.toml", "--only",
                             "DH-1", "--engine", "reference", "--out", str(tmp_path)],
                            cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 3
    assert "internal error" not in err and "Traceback" not in err
