"""docs/cli.md documents every flag of the commands it describes, every exit
code, and every member of the --json objects."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck.cli.check import check_cmd, parse_cmd
from modelcheck.cli.main import cli
from modelcheck.cli.prove import prove_cmd
from modelcheck.cli.replay_cmd import replay
from modelcheck.cli.verdicts import verdicts_cmd

DOC = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", [cli, check_cmd, parse_cmd, verdicts_cmd, prove_cmd, replay],
                         ids=lambda c: c.name)
def test_every_flag_is_documented(command):
    for param in command.params:
        for opt in getattr(param, "opts", []):
            if opt.startswith("-") and opt not in ("-h", "--help"):
                assert f"`{opt}" in DOC or f" {opt} " in DOC, f"{command.name} {opt}"


def test_every_command_has_its_section():
    for name, command in cli.commands.items():
        assert f"## `modelcheck {name} " in DOC, name
        for sub in getattr(command, "commands", {}):
            assert f"`{name} {sub}" in DOC, f"{name} {sub}"


def test_exit_codes_and_json_members_are_documented():
    for code in range(5):
        assert f"| {code} |" in DOC
    for member in ["spec", "model", "engine", "consts", "properties", "distinct_states",
                   "generated_states", "depth", "elapsed_s", "complete", "reason", "error",
                   "requested_engine", "notes",
                   "kind", "status", "steps", "trace_file", "expect_steps", "ok"]:
        assert f"`{member}`" in DOC or f'"{member}"' in DOC, member
