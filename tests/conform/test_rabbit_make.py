"""``make rabbit-cluster-up``/``-down`` (mk/rabbit.mk, mk/rabbit_cluster.py)
without a broker (fast tier): the targets exist beside ``check`` and
``test``, ``down`` with nothing up does nothing, a second ``up`` is refused
while nodes of the first run, and ``up`` takes free ports."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("mk_rabbit_cluster",
                                                  ROOT / "mk" / "rabbit_cluster.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_targets_are_there():
    for target, wants in [("rabbit-cluster-up", "mk/rabbit_cluster.py up 3 .rabbit-cluster"),
                          ("rabbit-cluster-down", "mk/rabbit_cluster.py down .rabbit-cluster"),
                          ("check", "modelcheck verdicts"), ("test", "pytest")]:
        out = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert wants in out.stdout, (target, out.stdout)


def test_down_with_nothing_up(tmp_path):
    assert _script().main(["down", str(tmp_path / "none")]) == 0
    assert not (tmp_path / "none").exists()


def test_second_up_is_refused(tmp_path, capsys):
    (tmp_path / "cluster").write_text("3 40000\n")
    (tmp_path / "n1").mkdir()
    (tmp_path / "n1" / "pid").write_text(f"{os.getpid()}\n")    # a live process
    assert _script().main(["up", "3", str(tmp_path)]) == 1
    assert "already up" in capsys.readouterr().err
    assert (tmp_path / "n1" / "pid").exists()                     # nothing killed


def test_up_takes_free_ports(tmp_path, monkeypatch):
    mod = _script()
    monkeypatch.delenv("RABBIT_BASE_PORT", raising=False)
    started = []
    monkeypatch.setattr(mod.RabbitCluster, "up", lambda self: started.append(self.base))
    assert mod.main(["up", "3", str(tmp_path)]) == 0
    size, base = (tmp_path / "cluster").read_text().split()
    assert size == "3" and started == [int(base)]
    assert mod._saved(tmp_path).base == int(base)
