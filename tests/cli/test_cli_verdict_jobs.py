"""`modelcheck verdicts --jobs N`: rows in worker processes give the table,
the JSON and the trace files of one row at a time, and Ctrl-C stops every
worker's search with what it found."""
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
EXAMPLES = "specs/examples/verdicts.toml"


def _traces(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def _rows(stdout: str) -> list[dict]:
    rows = json.loads(stdout)
    for row in rows:
        row.pop("elapsed_s")
        for mutant in row["mutants"] or ():
            mutant.pop("elapsed_s")
    return rows


#: Rows of a second or less on the reference explorer: TP-5's symmetry note,
#: EWD840's mutant and lassos, DH-1's trace.
ONLY = [arg for row in ("DH-1", "TP-3", "TP-5", "EWD840-3", "EWD840-3-UNFAIR")
        for arg in ("--only", row)]


def test_two_jobs_give_what_one_gives(mc):
    args = ("verdicts", EXAMPLES, *ONLY, "--engine", "reference", "--out", "OUT")
    one = mc(*args, "--json", "--jobs", "1")
    traces_one = _traces(mc.out_dir)
    shutil.rmtree(mc.out_dir)
    two = mc(*args, "--json", "--jobs", "2")
    assert (one.exit_code, two.exit_code) == (0, 0)
    assert _rows(two.stdout) == _rows(one.stdout)
    assert _traces(mc.out_dir) == traces_one
    table_one, table_two = mc(*args, "--jobs", "1"), mc(*args, "--jobs", "2")
    assert table_two.stdout == table_one.stdout
    lines = table_two.stderr.splitlines()
    assert lines[0].startswith("running 5 rows on 2 worker processes")
    done = sorted(line.split()[1] for line in lines if line.startswith("["))
    assert done == sorted(["DH-1", "TP-3", "TP-5", "EWD840-3", "EWD840-3-UNFAIR"])
    # A worker's notes reach this stderr (TP-5's symmetry note).
    assert any("symmetry reduction by RM" in line for line in lines)


_ENDLESS = f'''
[[row]]
id = "quick"
spec = "{ROOT}/specs/examples/die_hard.mc"
engine = "reference"
[[row.check]]
property = "NotFour"
expect = "violated"
''' + "".join(f'''
[[row]]
id = "endless-{i}"
spec = "{ROOT}/specs/examples/two_phase.mc"
consts = {{ N = 12 }}
engine = "reference"
[[row.check]]
property = "Consistent"
expect = "holds"
''' for i in range(3))


def _workers(pid: int) -> list[int]:
    """The worker processes of ``pid`` (not multiprocessing's resource tracker)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmdline:
                found.append(int(child))
    return found


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start(tmp_path: Path) -> subprocess.Popen:
    spec = tmp_path / "endless.toml"
    spec.write_text(_ENDLESS)
    script = Path(sys.executable).parent / "modelcheck"
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.Popen([str(script), "verdicts", str(spec), "--jobs", "2", "--out",
                             str(tmp_path / "out")], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _searching(proc: subprocess.Popen, avoid: tuple[int, ...] = ()) -> list[int]:
    """The two workers once both search: each has used 3 s of CPU, past its
    imports, so that a signal lands in a search however busy the machine."""
    deadline = time.monotonic() + 300
    workers: list[int] = []
    while proc.poll() is None and time.monotonic() < deadline:
        workers = [w for w in _workers(proc.pid) if w not in avoid]
        if len(workers) >= 2 and all(_cpu_seconds(w) > 3.0 for w in workers):
            return workers
        time.sleep(0.2)
    return workers


def _gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists() or \
        Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_stops_every_worker_with_its_partial_result(tmp_path):
    proc = _start(tmp_path)
    workers = _searching(proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    # quick ran; endless-0 and -1 were searching; endless-2 never started.
    assert "endless-2" not in out
    assert "unknown: interrupted" in out
    assert "endless-0: search incomplete: interrupted" in out
    assert "endless-1: search incomplete: interrupted" in out
    assert "interrupted: 3 of 4 rows run" in out
    assert all(_gone(pid) for pid in workers)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_worker_that_dies_leaves_its_row_unknown_and_another_takes_the_next(tmp_path):
    proc = _start(tmp_path)
    first = _searching(proc)
    os.kill(first[0], signal.SIGKILL)             # as the out-of-memory killer would
    _searching(proc, avoid=(first[0],))           # a new worker, on endless-2
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    assert "Traceback" not in err and "internal error" not in err
    assert ("search incomplete: the worker process running this row ended without an "
            "answer (killed by signal 9)") in out
    assert "endless-2: search incomplete: interrupted" in out
    assert "interrupted: 4 of 4 rows run" in out


def test_a_workers_reply_sends_the_jobs_models_by_reference(tmp_path):
    """The parent has the job's models: the reply names them, and the parent
    reads them back as its own objects (a trace's proof of replay included)."""
    import io
    import pickle

    from modelcheck.cli.console import err_console
    from modelcheck.cli.verdict_file import read_verdict_file
    from modelcheck.cli.verdict_jobs import JobResult, RowJob, _dump_reply, _load_reply
    from modelcheck.cli.verdict_rows import check_row, load_row
    from modelcheck.trace.verify import verified_for

    row = next(r for r in read_verdict_file(str(ROOT / EXAMPLES)) if r.id == "DH-1")
    model = load_row(row)
    job = RowJob(1, 1, row, model, "reference", None, str(tmp_path))
    in_worker = pickle.loads(pickle.dumps(job))     # what the worker received
    outcome = check_row(row, in_worker.model, "reference", str(tmp_path),
                        err_console(io.StringIO()), "DH-1", False)
    trace = next(p.trace for p in outcome.outcome.result.properties if p.trace is not None)
    assert verified_for(in_worker.model, trace)
    data = _dump_reply(("done", JobResult(outcome, False, 1.0)), in_worker)
    with pytest.raises(pickle.UnpicklingError, match="persistent"):
        pickle.loads(data)                          # the model is not in it
    kind, back = _load_reply(data, job)
    assert kind == "done" and isinstance(back, JobResult)
    assert back.outcome.outcome.model is model
    got = next(p.trace for p in back.outcome.outcome.result.properties if p.trace is not None)
    assert verified_for(model, got) and got == trace
    # A model that is not the job's (none should be) still travels whole.
    other = load_row(row)
    kind, alone = _load_reply(_dump_reply(("done", other), in_worker), job)
    assert alone is not model and alone == other
