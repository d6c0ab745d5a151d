"""The VS Code extension packages as the marketplaces want it: the manifest's
fields, a licence, a .vscodeignore, no relative links in its README (vsce
rejects them without a base URL), and the check command's summary of
``modelcheck check --json``.  Building the .vsix for real is the slow test."""
from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"


def _manifest() -> dict:
    return json.loads((EXTENSION / "package.json").read_text())


def test_the_manifest_has_what_vsce_and_the_marketplaces_ask_for() -> None:
    manifest = _manifest()
    for key in ("name", "publisher", "version", "license", "repository", "engines",
                "categories", "description", "main"):
        assert manifest.get(key), key
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert manifest["license"] == project["license"]
    assert manifest["version"] == project["version"]
    assert "Apache License" in (EXTENSION / "LICENSE").read_text()
    assert manifest["repository"]["url"].startswith("https://")
    assert (EXTENSION / manifest["main"]).is_file()
    ignore = (EXTENSION / ".vscodeignore").read_text().splitlines()
    assert "*.vsix" in ignore and ".vscode/**" in ignore
    lock = json.loads((EXTENSION / "package-lock.json").read_text())
    assert lock["packages"][""]["dependencies"] == manifest["dependencies"]
    assert "editors/vscode/node_modules/" in (ROOT / ".gitignore").read_text()


def test_the_readme_has_no_relative_links() -> None:
    text = (EXTENSION / "README.md").read_text()
    targets = re.findall(r"\]\(([^)]+)\)", text) + re.findall(r'src="([^"]+)"', text)
    assert all(re.match(r"(https?:|mailto:|#)", t) for t in targets), targets


def test_the_check_command_is_declared_and_registered() -> None:
    commands = {c["command"] for c in _manifest()["contributes"]["commands"]}
    assert "modelcheck.check" in commands
    assert '"modelcheck.check"' in (EXTENSION / "extension.js").read_text()
    assert "vsix:" in (ROOT / "mk" / "vsix.mk").read_text()


RESULT = {
    "schema_version": 1, "spec": "mutex.mc", "model": "mutex", "engine": "reference",
    "consts": {"N": 2},
    "properties": {
        "MutualExclusion": {"kind": "invariant", "status": "violated", "steps": 4,
                            "trace_file": "counterexamples/mutex-MutualExclusion.itf.json",
                            "reason": None},
        "deadlock": {"kind": "deadlock", "status": "holds", "steps": None,
                     "trace_file": None, "reason": None}},
    "distinct_states": 9, "generated_states": 17, "depth": 5, "elapsed_s": 0.001,
    "complete": True, "reason": None, "error": None, "notes": [], "write_errors": []}
SPEC = "module mutex\n\nvar x: 0..1 = 0\n\ninvariant MutualExclusion: x <= 1\n"


def _summarize(result: dict, text: str) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = ("const {summarize} = require(process.argv[1]);"
              "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(summarize(input.result, input.text)));")
    done = subprocess.run([node, "-e", script, str(EXTENSION / "check.js")],
                          input=json.dumps({"result": result, "text": text}),
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_the_check_summary_marks_violated_properties() -> None:
    summary = _summarize(RESULT, SPEC)
    assert summary["level"] == "warning"
    assert summary["message"] == "modelcheck: mutex: 1 of 2 violated (MutualExclusion)"
    assert "  MutualExclusion  invariant  violated in 4 steps  " \
           "counterexamples/mutex-MutualExclusion.itf.json" in summary["lines"]
    [diag] = summary["diagnostics"]
    assert (diag["line"], diag["level"]) == (4, "warning")
    assert "trace: counterexamples/" in diag["message"]
    holds = json.loads(json.dumps(RESULT))
    holds["properties"]["MutualExclusion"].update(status="holds", steps=None, trace_file=None)
    assert _summarize(holds, SPEC)["message"] == "modelcheck: mutex: all 2 hold (9 states)"


def test_the_check_summary_of_a_spec_that_does_not_load() -> None:
    failed = {**RESULT, "model": None, "properties": {}, "complete": False,
              "reason": "the spec did not load",
              "error": {"code": "MC2001", "message": "unknown name 'b'", "file": "x.mc",
                        "line": 2, "col": 14, "hint": None, "trace_file": None}}
    summary = _summarize(failed, SPEC)
    assert summary["level"] == "error"
    assert summary["diagnostics"] == [{"line": 1, "col": 13, "level": "error",
                                       "message": "unknown name 'b'", "code": "MC2001"}]


def _registry_reachable() -> bool:
    try:
        socket.create_connection(("registry.npmjs.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_make_vsix_builds_the_package(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    if not _registry_reachable():
        pytest.skip("the npm registry (registry.npmjs.org) is not reachable")
    version = _manifest()["version"]
    # A copy, so that npm ci and vsce leave the working tree's node_modules alone.
    copy = tmp_path / "vscode"
    shutil.copytree(EXTENSION, copy, ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=copy, check=True,
                   capture_output=True, timeout=300)
    out = tmp_path / f"modelcheck-{version}.vsix"
    # vsce comes from the lockfile (a devDependency), as `make vsix` runs it.
    done = subprocess.run([str(copy / "node_modules" / ".bin" / "vsce"), "package", "--out", str(out)],
                          cwd=copy, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert out.stat().st_size > 10_000
    names = zipfile.ZipFile(out).namelist()
    assert "extension/check.js" in names and "extension/LICENSE.txt" in names
    assert any(n.startswith("extension/node_modules/vscode-languageclient/") for n in names)
