"""One fuzzing worker: reads jobs (JSON lines) on stdin, runs each as a
``modelcheck`` command line in this process, answers one JSON line per job.

A job is ``{"argv": [...], "files": {name: text}}``: the files are written to
a fresh folder and ``{dir}`` in the arguments names it.  Running in-process
keeps thousands of inputs affordable; the runner enforces the time limit by
killing this process, so a hang costs a restart, not the campaign."""
from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import shutil
import sys
import tempfile

MAX_TEXT = 20_000


def _protocol_stream():
    """The real stdout, kept for answers; fd 1 goes to /dev/null so that
    anything printed below the CLI cannot garble the protocol."""
    answers = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    return answers


def _run(argv: list[str]) -> tuple[int, str, str]:
    from modelcheck.cli.main import cli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main(args=argv, prog_name="modelcheck")
            rc = 0
        except SystemExit as done:
            rc = done.code if isinstance(done.code, int) else (0 if done.code is None else 4)
        except BaseException as exc:  # noqa: BLE001 (escaped the CLI's own handler: a bug)
            import traceback
            err.write("Traceback (escaped the CLI)\n" + traceback.format_exc())
            rc = 4
    return rc, out.getvalue(), err.getvalue()


def main() -> None:
    memory_mib = int(os.environ.get("FUZZ_WORKER_MEMORY_MIB", "0"))
    if memory_mib:
        limit = memory_mib * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    answers = _protocol_stream()
    for line in sys.stdin:
        job = json.loads(line)
        folder = tempfile.mkdtemp(prefix="mcfuzz-")
        try:
            for name, text in job.get("files", {}).items():
                with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                    f.write(text)
            argv = [a.replace("{dir}", folder) for a in job["argv"]]
            rc, out, err = _run(argv)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        answers.write(json.dumps({"rc": rc, "out": out[:MAX_TEXT], "err": err[-MAX_TEXT:]}) + "\n")


if __name__ == "__main__":
    main()
