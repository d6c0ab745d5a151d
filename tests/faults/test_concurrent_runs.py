"""Two runs of one spec at once, on a cold kernel cache and one --out folder:
both compile (or load) the same kernel, both give the right verdict, and every
trace file they report is whole, valid and replays."""
from __future__ import annotations

import json
import os
import subprocess

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
