"""The console script's first frame: a Ctrl-C before or after click's own
handlers is "interrupted" and exit 3, never a traceback."""
from __future__ import annotations

import builtins
import subprocess
import sys

import pytest

from modelcheck.cli import launch


def test_ctrl_c_while_importing_the_cli(monkeypatch, capsys):
    real_import = builtins.__import__

    def interrupted(name, *args, **kwargs):
        if name == "modelcheck.cli.main":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "modelcheck.cli.main", raising=False)
    monkeypatch.setattr(builtins, "__import__", interrupted)
    with pytest.raises(SystemExit) as exit_info:
        launch.main(["--help"])
    assert exit_info.value.code == 3
    assert capsys.readouterr().err == "interrupted\n"


def test_the_first_frame_comes_before_the_heavy_imports():
    """Python imports the package before launch.py's first line: were
    ``modelcheck/__init__`` to import the API (the engines, the front end),
    a Ctrl-C in that second would be a traceback, past launch's reach."""
    probe = ("import sys, modelcheck.cli.launch; "
             "print(sorted(m for m in sys.modules if m.startswith('modelcheck')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "['modelcheck', 'modelcheck.cli', 'modelcheck.cli.launch']"


def test_ctrl_c_outside_a_command(monkeypatch, capsys):
    import modelcheck.cli.main as cli_main

    def interrupted(argv=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "main", interrupted)
    with pytest.raises(SystemExit) as exit_info:
        launch.main([])
    assert exit_info.value.code == 3
    assert "interrupted" in capsys.readouterr().err


def test_the_command_runs_through_the_launcher(capsys):
    with pytest.raises(SystemExit) as exit_info:
        launch.main(["--version"])
    assert exit_info.value.code == 0
    assert "modelcheck" in capsys.readouterr().out
