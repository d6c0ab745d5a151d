"""The console script's first frame.

Importing the CLI takes a moment (click, rich, the front end); a Ctrl-C in
that moment would otherwise end in a KeyboardInterrupt traceback, before
``ModelcheckGroup`` is there to turn it into "interrupted" and exit 3.

SIGTERM is answered as Ctrl-C is: by default it would end this process at
once, leaving the kernel compile's worker processes running and a
checkpoint unwritten."""
from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

__all__ = ["main", "console"]

EXIT_UNKNOWN = 3  # modelcheck.cli.main.EXIT_UNKNOWN, not imported: that is the slow part


def _terminate(signum: int, frame: FrameType | None) -> None:
    """Do whatever Ctrl-C would do now: the search's handler sets its stop
    flag; elsewhere Python's raises KeyboardInterrupt, whose clean-up ends
    the compile workers.  Inside numba's LLVM callbacks that exception would
    be lost, so the signal is sent again a moment later."""
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):
        # Ctrl-C is off (a background job): end as SIGTERM always did, without
        # the search's safe stop; the compile workers end with this process.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    kcache = sys.modules.get("modelcheck.engines.compiled.kcache")
    if kcache is not None and kcache.in_native_callback(frame):
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
    handler(signal.SIGINT, frame)


def main(argv: Sequence[str] | None = None) -> None:
    signal.signal(signal.SIGTERM, _terminate)
    try:
        from modelcheck.cli.main import main as run
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(EXIT_UNKNOWN) from None
    try:
        run(argv)
    except KeyboardInterrupt:
        # Between click's own handlers (argument parsing, exit): same answer.
        sys.stderr.write("interrupted\n")
        raise SystemExit(EXIT_UNKNOWN) from None


def console() -> None:
    """The console script: ``main``, then a quiet exit.  Once the answer is
    out and the exit code chosen, a Ctrl-C or SIGTERM must not replace it:
    Python puts its handlers back to the default while the interpreter shuts
    down, so a signal in that moment would end a finished run as killed
    (-SIGINT).  An ignored signal stays ignored through the shutdown.  (Not
    in ``main``: tests call that in their own process.)"""
    try:
        main()
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


if __name__ == "__main__":
    console()
