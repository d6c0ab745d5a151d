"""The README stays true: its two opening commands are make targets, and the
spec of its tour gives the counterexample it shows."""
from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from modelcheck.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_make_check_and_make_test():
    first_block = re.search(r"```\n(.*?)```", README, re.S).group(1)
    assert [line.split("#")[0].strip() for line in first_block.splitlines()] == \
        ["make check", "make test"]
    targets = re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text(), re.M)
    assert {"setup", "check", "test", "test-fast", "bench", "golden", "clean"} <= set(targets)


def test_the_tour_spec_gives_the_counterexample_shown(tmp_path):
    spec_text = re.search(r"```\n(module mutex\n.*?)```", README, re.S).group(1)
    spec = tmp_path / "mutex.mc"
    spec.write_text(spec_text)
    result = CliRunner().invoke(cli, ["check", str(spec), "--engine", "reference", "--json",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.stderr
    verdict = json.loads(result.stdout)["properties"]["MutualExclusion"]
    assert (verdict["status"], verdict["steps"]) == ("violated", 4)
    assert "MutualExclusion  invariant  violated in 4 steps" in README
    assert "9 distinct states, 17 generated, depth 5" in README
    obj = json.loads(result.stdout)
    assert (obj["distinct_states"], obj["generated_states"], obj["depth"]) == (9, 17, 5)
