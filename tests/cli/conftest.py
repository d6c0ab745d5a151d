"""Running the CLI in-process (click's CliRunner) with a fixed environment,
and turning a run into a transcript that golden files can hold: the run's
folders and timings are replaced by placeholders."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelcheck.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
#: No colour, a fixed width, no timed progress lines (a slow machine would
#: print one): the output must not depend on the machine.
ENV = {"COLUMNS": "100", "NO_COLOR": "1", "FORCE_COLOR": None, "TTY_COMPATIBLE": None,
       "TTY_INTERACTIVE": None, "MODELCHECK_PROGRESS_EVERY": "off"}


@dataclass
class Run:
    args: list[str]
    exit_code: int
    stdout: str
    stderr: str

    def transcript(self) -> str:
        return (f"$ modelcheck {' '.join(self.args)}\n[exit {self.exit_code}]\n"
                f"--- stdout\n{self.stdout}--- stderr\n{self.stderr}")


def normalise(text: str, out_dir: Path) -> str:
    text = text.replace(str(out_dir), "<OUT>").replace(str(ROOT) + "/", "")
    text = re.sub(r"\b\d+\.\d\d s\b", "<T> s", text)
    text = re.sub(r"-\d{8}T\d{6}\.itf\.json", "-<STAMP>.itf.json", text)
    return re.sub(r'"elapsed_s": [0-9.e-]+', '"elapsed_s": "<T>"', text)


@pytest.fixture
def mc(tmp_path, monkeypatch):
    """``mc("check", SPEC, ...)`` runs ``modelcheck`` from the repository root
    with ``--out`` left to the caller; ``OUT`` in an argument is the test's
    own folder."""
    monkeypatch.chdir(ROOT)
    out_dir = tmp_path / "out"

    def run(*args: str) -> Run:
        argv = [a.replace("OUT", str(out_dir)) if a.startswith("OUT") else a for a in args]
        result = CliRunner().invoke(cli, argv, env=ENV)
        # The command group turns every exception into a message and an exit
        # code; anything else escaping it is a bug of the CLI itself.
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Run(list(args), result.exit_code, normalise(result.stdout, out_dir),
                   normalise(result.stderr, out_dir))

    run.out_dir = out_dir
    return run
