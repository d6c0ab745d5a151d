"""Signals at any moment.  A SIGTERM or Ctrl-C that reaches the checker while
it starts up ends it cleanly (``interrupted``, exit 3), not as a process
killed by the signal, from the moment modelcheck's first line runs: the
handlers come before any other import.  (Before that moment the Python
interpreter itself is starting, and a signal then ends it as it ends any
program.)  A background compile ends when the checker is SIGKILLed, even
when it gets no CPU to notice."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from .conftest import GRID, command, environment

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                reason="reads signal dispositions and processes in /proc")

DIE_HARD = "specs/examples/die_hard.mc"
EXIT_UNKNOWN = 3

# The console script's first frame, run as ``python -m`` runs it, with an
# audit hook that lists every module imported while SIGTERM still has its
# default action (the interpreter's own start-up is over by then).
_IMPORTS_BEFORE_HANDLERS = textwrap.dedent("""
    import runpy, signal, sys
    seen = []
    def hook(event, args):
        if event == "import" and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            seen.append(args[0])
    sys.addaudithook(hook)
    sys.argv = ["modelcheck", "--version"]
    try:
        runpy.run_module("modelcheck.cli.launch", run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    sys.stderr.write("seen: " + " ".join(seen) + "\\n")
""")


def test_the_signal_handlers_come_before_any_other_import(tmp_path):
    done = subprocess.run([sys.executable, "-c", _IMPORTS_BEFORE_HANDLERS], capture_output=True,
                          text=True, timeout=120, env=environment(tmp_path / "cache"))
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("seen:")]
    before = set(line.split()[1:])
    # The two packages that hold the first frame (which import nothing
    # themselves), and the module behind ``from __future__ import``.
    assert before <= {"modelcheck", "modelcheck.cli", "__future__"}, sorted(before)


# A KeyboardInterrupt that leaves an eval of a string (namedtuple and
# dataclass do one while a module is imported) and is handled further out.
_INTERRUPT_INSIDE_EVAL = textwrap.dedent("""
    import modelcheck.cli.main as cli_main
    def run(argv=None):
        eval("exec('raise KeyboardInterrupt')")
    cli_main.main = run
    from modelcheck.cli.launch import console
    console()
""")


def test_an_interrupt_handled_after_leaving_an_eval_still_exits_3(tmp_path):
    # Run with -m, as ``python -m modelcheck`` is: that way CPython ends the
    # process with SIGINT when it noted a Ctrl-C nobody handled, which it
    # notes whenever one leaves an eval, handled further out or not.
    (tmp_path / "interrupt_in_eval.py").write_text(_INTERRUPT_INSIDE_EVAL)
    done = subprocess.run([sys.executable, "-m", "interrupt_in_eval"], capture_output=True,
                          text=True, timeout=120, env=environment(tmp_path / "cache"),
                          cwd=tmp_path)
    assert done.returncode == EXIT_UNKNOWN, done.stderr
    assert done.stderr == "interrupted\n"


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` now."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) & (1 << (signum - 1)))
    return False


def _start(repo_root: Path, cache: Path) -> subprocess.Popen:
    return subprocess.Popen(command("check", str(repo_root / DIE_HARD), "--engine", "reference",
                                    "--no-write"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environment(cache),
                            # as from a terminal, even when the tests run in the background
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_as_soon_as_modelcheck_runs_is_a_clean_interruption(repo_root, tmp_path, signum):
    proc = _start(repo_root, tmp_path / "cache")
    try:
        end = time.monotonic() + 60
        while not _catches(proc.pid, signal.SIGTERM) and time.monotonic() < end:
            pass
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == EXIT_UNKNOWN, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr


def test_sigterm_at_early_moments_is_never_a_kill_once_modelcheck_runs(repo_root, tmp_path):
    """SIGTERM at a spread of moments after the start: wherever modelcheck's
    handler was in place (seen in /proc just before the signal went), the
    run ends cleanly; before it, the interpreter was still starting."""
    cache = tmp_path / "cache"
    outcomes = []
    for k in range(16):
        proc = _start(repo_root, cache)
        try:
            end = time.perf_counter() + k * 0.004
            while time.perf_counter() < end:
                pass
            handled = _catches(proc.pid, signal.SIGTERM)
            proc.send_signal(signal.SIGTERM)
            _, stderr = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        outcomes.append((k, handled, proc.returncode))
        assert "Traceback" not in stderr, stderr
        if handled:
            assert proc.returncode == EXIT_UNKNOWN and "interrupted" in stderr, outcomes
        else:
            assert proc.returncode in (EXIT_UNKNOWN, -signal.SIGTERM, 0, 1), outcomes


def _children(pid: int) -> list[tuple[int, str]]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append((int(entry.name), cmdline))
    return found


def _gone(pid: int) -> bool:
    """Ended: no such process, or a zombie nobody reaps (a container's init)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def test_a_background_compile_that_gets_no_cpu_still_ends_with_a_sigkilled_checker(tmp_path):
    """The default engine's background compile watches the end of a pipe from
    the checker, which needs the CPU; a stopped one (a machine loaded enough
    that it is not scheduled, at its lower priority) must end all the same."""
    pytest.importorskip("numba")
    checker = subprocess.Popen(command("check", GRID, "-D", "N=1500", "--no-write"),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env=environment(tmp_path / "cache"))
    child = None
    try:
        assert checker.stderr is not None
        for line in checker.stderr:
            if "in the background" in line:
                break
        else:
            pytest.fail("the background compile never started")
        (child,) = [pid for pid, cmdline in _children(checker.pid) if "background" in cmdline]
        os.kill(child, signal.SIGSTOP)
        checker.kill()
        checker.wait()
        end = time.monotonic() + 30
        while not _gone(child) and time.monotonic() < end:
            time.sleep(0.05)
        assert _gone(child), "the background compile outlived the checker"
    finally:
        if checker.poll() is None:
            checker.kill()
            checker.wait()
        if child is not None and not _gone(child):
            with_group = getattr(os, "killpg", None)
            try:
                (with_group or os.kill)(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
