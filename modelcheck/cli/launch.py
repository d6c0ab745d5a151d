"""The console script's first frame.

Importing the CLI takes a moment (click, rich, the front end); a Ctrl-C or
SIGTERM in that moment would otherwise end the run as killed by the signal
(SIGTERM's default action) or in a KeyboardInterrupt traceback, before
``ModelcheckGroup`` is there to turn it into "interrupted" and exit 3.  So
the first thing ``console`` does, before any import of its own, is take both
signals and note them, until the command line is imported; then ``main``
answers a noted one: "interrupted", exit 3.  This module imports nothing the
interpreter has not already loaded (``_signal`` is the C half of ``signal``,
whose enums cost an import), and neither do the two packages around it.  A
signal that comes while the interpreter itself is still starting, before
this module runs, ends it as it ends any program.

SIGTERM is answered as Ctrl-C is: by default it would end this process at
once, leaving the kernel compile's worker processes running and a
checkpoint unwritten."""
from __future__ import annotations

import _signal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType

__all__ = ["main", "console"]

EXIT_UNKNOWN = 3  # modelcheck.cli.main.EXIT_UNKNOWN, not imported: that is the slow part

#: Signals that came before ``main`` could answer them.
_EARLY: list[int] = []


def _note_early(signum: int, frame: FrameType | None) -> None:
    _EARLY.append(signum)


def _hold_signals() -> None:
    """Note SIGTERM, and Ctrl-C where it is on (not ignored, as in a
    background job), until ``main`` answers them."""
    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, _note_early)
    _signal.signal(_signal.SIGTERM, _note_early)


def _terminate(signum: int, frame: FrameType | None) -> None:
    """Do whatever Ctrl-C would do now: the search's handler sets its stop
    flag; elsewhere Python's raises KeyboardInterrupt, whose clean-up ends
    the compile workers.  Inside numba's LLVM callbacks that exception would
    be lost, so the signal is sent again a moment later."""
    handler = _signal.getsignal(_signal.SIGINT)
    if not callable(handler):
        _end_as_killed(signum)
        return
    kcache = sys.modules.get("modelcheck.engines.compiled.cache.kcache")
    if kcache is not None and kcache.in_native_callback(frame):
        import threading
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
    handler(_signal.SIGINT, frame)


def _end_as_killed(signum: int) -> None:
    """Ctrl-C is off (a background job): end as SIGTERM always did, without
    the search's safe stop; the compile workers end with this process."""
    _signal.signal(signum, _signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def main(argv: Sequence[str] | None = None) -> None:
    # The command line is imported with the signals only noted: a
    # KeyboardInterrupt raised inside the import machinery can be lost (in a
    # weakref callback of its module locks, "Exception ignored"), and the run
    # would go on as if no signal had come.
    _hold_signals()
    try:
        from modelcheck.cli.main import main as run
    except KeyboardInterrupt:
        # Raised all the same where Ctrl-C had another handler than Python's.
        _EARLY.append(_signal.SIGINT)
    finally:
        _signal.signal(_signal.SIGTERM, _terminate)
        if _signal.getsignal(_signal.SIGINT) is _note_early:
            _signal.signal(_signal.SIGINT, _signal.default_int_handler)
    if _EARLY:
        signum = _EARLY[0]
        _EARLY.clear()
        if not callable(_signal.getsignal(_signal.SIGINT)):
            _end_as_killed(signum)
        sys.stderr.write("interrupted\n")
        raise SystemExit(EXIT_UNKNOWN)
    try:
        run(argv)
    except KeyboardInterrupt:
        # Between click's own handlers (argument parsing, exit): same answer.
        sys.stderr.write("interrupted\n")
        raise SystemExit(EXIT_UNKNOWN) from None


def console() -> None:
    """The console script: the signals held, then ``main``, then a quiet
    exit.  Once the answer is out and the exit code chosen, a Ctrl-C or
    SIGTERM must not replace it: Python puts its handlers back to the
    default while the interpreter shuts down, so a signal in that moment
    would end a finished run as killed (-SIGINT).  An ignored signal stays
    ignored through the shutdown.  (Not in ``main``: tests call that in
    their own process.)"""
    # First thing: the imports until the command line runs take a moment.
    _hold_signals()
    try:
        main()
    finally:
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
        _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
        _forget_escaped_interrupt()


def _forget_escaped_interrupt() -> None:
    """A KeyboardInterrupt that left an ``eval`` or ``exec`` of a string
    (``collections.namedtuple`` and ``dataclasses`` run one while a module
    is imported) sets CPython's flag of a Ctrl-C nobody handled, even when
    a frame further out did handle it: the interpreter would then end by
    killing itself with SIGINT after the exit code was chosen.  Each eval of
    a string clears that flag first."""
    eval("None")


if __name__ == "__main__":
    console()
