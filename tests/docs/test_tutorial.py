"""docs/tutorial.md runs as written, from an empty folder, in order: its
code blocks say what to do with them by their info string, as a reader
does it by hand:

* ```` ```mc file=NAME ```` / ```` ```toml file=NAME ````: save the block as NAME;
* ```` ```mc append=NAME ````: add the block at the end of NAME;
* ```` ```diff file=NAME ````: replace each ``-`` line of NAME by the ``+`` lines after it;
* ```` ```console ````: run each ``$ ...`` line; ``# exits N`` says its exit
  code (0 otherwise), and the lines under it are its output.

The README tour's liberties are taken (tests/docs/test_readme_tour.py):
``check`` and ``verdicts`` run on the reference engine, and timings, the
engine's name and the time stamps in trace names are set aside.  ``pytest
verdicts.toml`` runs in a child pytest, with the plugin modelcheck installs."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from modelcheck.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "tutorial.md"
ENV = {"COLUMNS": "100", "NO_COLOR": "1", "FORCE_COLOR": None, "TTY_COMPATIBLE": None,
       "TTY_INTERACTIVE": None, "MODELCHECK_PROGRESS_EVERY": "off"}
STAMP = re.compile(r"\d{8}T\d{6}")
DOC_STAMP = "20261125T031500"


def _blocks(text: str) -> list[tuple[str, str]]:
    """(info string, body) of each fenced block, in order."""
    return re.findall(r"^```([^\n]*)\n(.*?)^```", text, re.S | re.M)


def _normalise(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if line.startswith("note: fingerprint collision probability"):
            continue
        line = STAMP.sub("<STAMP>", line)
        line = re.sub(r"\bengine \w+\b", "engine <E>", line)
        out.append(re.sub(r"\b\d+\.\d\d s\b", "<T> s", line).rstrip())
    while out and not out[-1]:
        out.pop()
    return out


def _apply_diff(path: Path, body: str) -> None:
    text = path.read_text(encoding="utf-8")
    lines = body.splitlines()
    for k, line in enumerate(lines):
        if not line.startswith("-"):
            continue
        added = []
        for nxt in lines[k + 1:]:
            if not nxt.startswith("+"):
                break
            added.append(nxt[1:])
        old = line[1:] + "\n"
        assert text.count(old) == 1, f"{path.name} has no single line {line[1:]!r}"
        text = text.replace(old, "".join(a + "\n" for a in added))
    path.write_text(text, encoding="utf-8")


def _run(line: str, names: dict[str, str]) -> tuple[int, str]:
    for shown, written in names.items():
        line = line.replace(shown, written)
    argv = shlex.split(line, comments=True)
    if argv[0] == "pytest":
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               *argv[1:]], capture_output=True, text=True, timeout=600)
        return done.returncode, done.stdout
    assert argv[0] == "modelcheck", line
    args = argv[1:]
    if args[0] in ("check", "verdicts") and "--engine" not in args:
        args += ["--engine", "reference"]
    if args[0] == "verdicts":
        args += ["--no-compile-after", "--jobs", "1"]
    result = CliRunner().invoke(cli, args, env=ENV)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout


def test_the_tutorial_runs_as_written_from_an_empty_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names: dict[str, str] = {}
    ran: list[str] = []
    for info, body in _blocks(DOC.read_text(encoding="utf-8")):
        words = dict(w.split("=", 1) for w in info.split()[1:] if "=" in w)
        if "file" in words and not info.startswith("diff"):
            Path(words["file"]).write_text(body, encoding="utf-8")
        elif "append" in words:
            with Path(words["append"]).open("a", encoding="utf-8") as f:
                f.write(body)
        elif info.startswith("diff"):
            _apply_diff(Path(words["file"]), body)
        elif info == "console":
            command: str | None = None
            shown: list[str] = []
            for line in body.splitlines() + ["$ "]:
                if not line.startswith("$ "):
                    shown.append(line)
                    continue
                if command is not None:
                    ran.append(_check(command, shown, names))
                command, shown = line[2:], []
    assert [r.split()[:2] for r in ran] == [
        ["modelcheck", "check"], ["modelcheck", "trace"], ["modelcheck", "trace"],
        ["modelcheck", "check"], ["modelcheck", "check"], ["modelcheck", "trace"],
        ["modelcheck", "check"], ["modelcheck", "verdicts"], ["pytest", "verdicts.toml"]]


def _check(command: str, shown: list[str], names: dict[str, str]) -> str:
    before = set(Path().glob("counterexamples/*"))
    code, stdout = _run(command, names)
    for path in set(Path().glob("counterexamples/*")) - before:
        names[STAMP.sub(DOC_STAMP, str(path))] = str(path)
    said = re.search(r"#\s*exits (\d)", command)
    assert code == (int(said.group(1)) if said else 0), (command, stdout)
    if shown:
        assert _normalise(stdout.splitlines()) == _normalise(shown), command
    return command
