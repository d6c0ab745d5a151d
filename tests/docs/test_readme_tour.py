"""The README's tour ("Five minutes with modelcheck") runs as written, from an
empty folder: its spec is saved as the tour says, every ``$ modelcheck ...``
line is run in order (the fix of step 4 applied before the commands after
it), and each exit code and the output the README shows are what the command
gives.

Two liberties, both to keep this fast and independent of the clock: ``check``
runs on the reference engine (the tour's default, compiled, needs a numba
compile of tens of seconds; the engines agree, tests/conformance), so the
engine's name and the compiled engine's fingerprint note are set aside; and
the time stamp in a trace file's name is the one the run chose."""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from modelcheck.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
ENV = {"COLUMNS": "100", "NO_COLOR": "1", "FORCE_COLOR": None, "TTY_COMPATIBLE": None,
       "TTY_INTERACTIVE": None, "MODELCHECK_PROGRESS_EVERY": "off"}
#: The stamp the README's trace names carry; a run writes its own.
README_STAMP = re.compile(r"\d{8}T\d{6}")


def _tour() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.search(r"^## Five minutes with modelcheck\n(.*?)^## ", text, re.S | re.M).group(1)


def _blocks(tour: str) -> list[str]:
    return re.findall(r"^```\n(.*?)^```", tour, re.S | re.M)


@dataclass
class Command:
    line: str
    shown: list[str]


def _commands(block: str) -> list[Command]:
    """The ``$ ...`` lines of a block, each with the output shown under it."""
    commands: list[Command] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            commands.append(Command(line[2:], []))
        elif commands:
            commands[-1].shown.append(line)
    return commands


def _normalise(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if line.startswith("note: fingerprint collision probability"):
            continue
        line = README_STAMP.sub("<STAMP>", line)
        line = re.sub(r"\bengine compiled\b", "engine reference", line)
        out.append(re.sub(r"\b\d+\.\d\d s\b", "<T> s", line).rstrip())
    while out and not out[-1]:
        out.pop()
    return out


def _run(line: str, trace_names: dict[str, str]) -> tuple[int, str]:
    for shown, written in trace_names.items():
        line = line.replace(shown, written)
    argv = shlex.split(line)
    assert argv[0] == "modelcheck", line
    args = argv[1:]
    if args[0] == "check" and "--engine" not in args:
        args += ["--engine", "reference"]
    result = CliRunner().invoke(cli, args, env=ENV)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout


def test_the_readme_tour_runs_as_written_from_an_empty_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = _blocks(_tour())
    spec = next(b for b in blocks if b.startswith("module mutex\n"))
    fix = next(b for b in blocks if b.startswith("action Check("))
    Path("mutex.mc").write_text(spec, encoding="utf-8")
    trace_names: dict[str, str] = {}
    ran = []
    for block in blocks:
        if block is fix:
            # Step 4: "Raise the flag in Check": the action as the README shows it.
            old = re.search(r"^action Check\(.*?^}\n", spec, re.S | re.M).group(0)
            Path("mutex.mc").write_text(spec.replace(old, fix), encoding="utf-8")
            continue
        for command in _commands(block):
            before = set(Path().glob("counterexamples/*.itf.json"))
            code, stdout = _run(command.line, trace_names)
            for path in set(Path().glob("counterexamples/*.itf.json")) - before:
                shown = README_STAMP.sub("20261121T101500", str(path))
                trace_names[shown] = str(path)
            expected = 1 if "violated in" in "\n".join(command.shown) else 0
            assert code == expected, (command.line, stdout)
            if command.shown:
                assert _normalise(stdout.splitlines()) == _normalise(command.shown), command.line
            ran.append(command.line.split()[1:3])
    # The tour's steps: check, show and explain the trace, then a sweep of the fix.
    assert ran == [["check", "mutex.mc"], ["trace", "show"], ["trace", "explain"],
                   ["check", "mutex.mc"]]

