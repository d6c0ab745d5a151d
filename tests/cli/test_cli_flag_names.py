"""Every ``--flag`` a hint, a message or a doc page names is one the CLI has
(a hint once sent users to ``--checkpoint-dir``, which never existed)."""
from __future__ import annotations

import re
from pathlib import Path

import click

from modelcheck.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
#: Flags of other programs the docs and the Spark launcher speak of
#: (spark-submit and Spark's workers, rabbitmqctl, code and vsce, perf, --help).
OTHER_PROGRAMS = {"--apply-to", "--conf", "--cores", "--deploy-mode", "--help", "--host",
                  "--install-extension", "--memory", "--no-cluster", "--no-table-headers",
                  "--offline", "--package", "--sort",
                  "--stats", "--webui-port", "--work-dir"}
#: The benchmark scripts' own flags, read from their argument parsers, so a
#: doc page may show how a figure was measured (CI once failed on ``--raft``).
BENCH_ARG = re.compile(r"""add_argument\(\s*["'](--[a-z][a-z0-9-]*)["']""")
#: pytest's flags from modelcheck's plugin (modelcheck/pytest_plugin.py, docs/api.md).
PYTEST_PLUGIN = {"--modelcheck-engine", "--modelcheck-large", "--modelcheck-out"}
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def _flags(command: click.Command) -> set[str]:
    flags = {o for p in command.params for o in p.opts + p.secondary_opts if o.startswith("--")}
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            flags |= _flags(sub)
    return flags


def _bench_flags() -> set[str]:
    return {m.group(1) for path in sorted((ROOT / "bench").glob("*.py"))
            for m in BENCH_ARG.finditer(path.read_text(encoding="utf-8"))}


def test_every_flag_named_in_the_code_and_docs_exists():
    known = _flags(cli) | OTHER_PROGRAMS | PYTEST_PLUGIN | _bench_flags()
    files = sorted((ROOT / "modelcheck").rglob("*.py")) + sorted((ROOT / "docs").rglob("*.md"))
    unknown = {f"{path.relative_to(ROOT)}: {m.group()}"
               for path in files for m in FLAG.finditer(path.read_text(encoding="utf-8"))
               if m.group() not in known}
    assert not unknown, sorted(unknown)

