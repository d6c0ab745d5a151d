"""Two runs of one spec at once, on a cold kernel cache and one --out folder:
both compile (or load) the same kernel, both give the right verdict, and every
trace file they report is whole, valid and replays.  Runs writing into one
--out folder in the same second each keep their own trace."""
from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from modelcheck.fsutil import is_temp_name

from .conftest import CHECK, command, environment, run

pytest.importorskip("numba")


@pytest.mark.slow
def test_two_runs_share_a_cold_cache_and_the_out_folder(repo_root, tmp_path):
    spec = str(repo_root / "specs" / "examples" / "die_hard.mc")
    cache, out = tmp_path / "cache", tmp_path / "out"
    procs = [subprocess.Popen(command(*CHECK, spec, "--json", "--out", str(out)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=environment(cache)) for _ in range(2)]
    answers = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=400)
        assert proc.returncode == 1, stderr              # NotFour is violated
        assert "Traceback" not in stderr
        answers.append(json.loads(stdout))
    warm = run(cache, *CHECK, spec, "--json", "--out", str(out))
    assert warm.rc == 1, warm.stderr
    for answer in answers + [warm.json()]:
        assert answer["engine"] == "compiled"
        assert (answer["distinct_states"], answer["properties"]["NotFour"]["status"],
                answer["properties"]["NotFour"]["steps"]) == (16, "violated", 6)
        trace_file = answer["properties"]["NotFour"]["trace_file"]
        json.loads(open(trace_file, encoding="utf-8").read())
        replayed = run(cache, "replay", spec, trace_file)
        assert replayed.rc == 0, replayed.stdout + replayed.stderr
    leftovers = [name for folder in (out, cache) for _, _, names in os.walk(folder)
                 for name in names if is_temp_name(name)]
    assert leftovers == []


#: Runs of one spec started at once, all writing into one --out folder.
RUNS = 6


def test_runs_in_the_same_second_each_keep_their_trace(repo_root, tmp_path):
    """Each run names its trace after the second it writes it in.  Every
    name of the next minutes is already taken (by an earlier run's file, left
    as it was), so every run, in whatever second it writes, finds its name
    taken, as do the runs writing beside it: each must still get a name of
    its own, and no file may be written over."""
    spec = str(repo_root / "specs" / "examples" / "die_hard.mc")
    out = tmp_path / "out"
    out.mkdir()
    earlier = {}
    now = time.time()
    for second in range(-2, 240):
        name = _stamped_name(now + second)
        (out / name).write_text(f"earlier run {second}\n")
        earlier[name] = f"earlier run {second}\n"
    procs = [subprocess.Popen(command("check", spec, "--engine", "reference", "--json",
                                      "--out", str(out)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=environment(tmp_path / "cache")) for _ in range(RUNS)]
    files = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 1, stderr
        files.append(json.loads(stdout)["properties"]["NotFour"]["trace_file"])
    assert len(set(files)) == RUNS, files
    for name, text in earlier.items():
        assert (out / name).read_text() == text, f"{name} was written over"
    for trace_file in files:
        assert json.loads(open(trace_file, encoding="utf-8").read())["states"]
    assert sorted(os.listdir(out)) == sorted([*earlier, *(os.path.basename(f) for f in files)])


def _stamped_name(when: float) -> str:
    """The name ``check`` gives die_hard's NotFour trace in the second ``when``."""
    return f"die_hard-NotFour-{time.strftime('%Y%m%dT%H%M%S', time.localtime(when))}.itf.json"
