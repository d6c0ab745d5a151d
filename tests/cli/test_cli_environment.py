"""What the command line takes from its environment: the kernel cache folder
(platformdirs, with ``MODELCHECK_CACHE`` and ``XDG_CACHE_HOME`` as
overrides) and shell completion (docs/cli.md, "Shell completion")."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelcheck.cli.main import cli
from modelcheck.engines.compiled.cache.kcache import CACHE_ENV, default_cache_dir, kernel_path

DOC = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")


def test_modelcheck_cache_names_the_cache_folder(monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "mine"
    assert kernel_path(None, "k").parent == tmp_path / "mine" / "kernels"


@pytest.mark.skipif(sys.platform != "linux", reason="XDG_CACHE_HOME is the Linux convention")
def test_xdg_cache_home_is_honoured_on_linux(monkeypatch, tmp_path):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "modelcheck"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "modelcheck"


def _complete(words: str, cword: int) -> list[str]:
    """What bash completion offers for ``words`` (click's protocol: the script
    that ``_MODELCHECK_COMPLETE=bash_source`` prints calls back like this)."""
    env = {"_MODELCHECK_COMPLETE": "bash_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(cword)}
    result = CliRunner().invoke(cli, [], env=env, prog_name="modelcheck")
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_bash_completion_offers_commands_flags_and_engines():
    assert "plain,check" in _complete("modelcheck ch", 1)
    assert "plain,--latest" in _complete("modelcheck check s.mc --la", 3)
    engines = _complete("modelcheck check s.mc --engine ", 4)
    assert {"plain,reference", "plain,compiled", "plain,bmc", "plain,spark"} <= set(engines)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_documented_completion_scripts_exist(shell):
    assert f"_MODELCHECK_COMPLETE={shell}_source modelcheck" in DOC
    result = CliRunner().invoke(cli, [], env={"_MODELCHECK_COMPLETE": f"{shell}_source"},
                                prog_name="modelcheck")
    assert result.exit_code == 0 and "_MODELCHECK_COMPLETE" in result.output


def test_a_bad_kernel_backend_is_bad_input():
    """Told before any run: the default engine may answer a small spec on the
    reference explorer without ever reading it."""
    spec = str(Path(__file__).resolve().parents[2] / "specs" / "examples" / "die_hard.mc")
    result = CliRunner().invoke(cli, ["check", spec, "--no-write"],
                                env={"MODELCHECK_KERNEL_BACKEND": "gcc", "COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "MODELCHECK_KERNEL_BACKEND='gcc' is not a kernel backend" in result.output
    assert "one of auto, c, numba" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("backend", ["numba", "c"])
def test_the_kernel_backend_flag_reaches_the_engine(backend, monkeypatch):
    from modelcheck.cli.options import build_options
    spec = str(Path(__file__).resolve().parents[2] / "specs" / "examples" / "die_hard.mc")
    seen = {}
    monkeypatch.setattr("modelcheck.cli.check.build_options",
                        lambda model, flags: seen.setdefault("o", build_options(model, flags)))
    result = CliRunner().invoke(cli, ["check", spec, "--no-write", "--engine", "reference",
                                      "--kernel-backend", backend])
    assert result.exit_code == 1, result.output
    assert seen["o"].extra["kernel_backend"] == backend
