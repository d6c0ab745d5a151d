"""The ``modelcheck`` command group and the console-script entry point.

Every failure reaches the user as text and an exit code, never as a Python
traceback (unless ``--debug``): a spec or usage error is rendered as
diagnostics and exits 2; anything unexpected is an internal error, exit 4."""
from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence
from typing import Any

import click
from rich.console import Console

from modelcheck.errors import ModelcheckError, UsageError
from modelcheck.cli.check import check_cmd, parse_cmd
from modelcheck.cli.console import err_console
from modelcheck.cli.render import render_error
from modelcheck.cli.verdicts import verdicts_cmd
from modelcheck.cli.replay_cmd import replay
from modelcheck.cli.trace_cmds import trace
from modelcheck.cli.prove import prove_cmd
from modelcheck.cli.lsp_cmd import lsp_cmd
from modelcheck.cli.conform_cmd import conform

__all__ = ["cli", "main", "render_error", "EXIT_OK", "EXIT_VIOLATED", "EXIT_USAGE",
           "EXIT_UNKNOWN", "EXIT_INTERNAL"]

EXIT_OK = 0
EXIT_VIOLATED = 1
EXIT_USAGE = 2
EXIT_UNKNOWN = 3
EXIT_INTERNAL = 4


class ModelcheckGroup(click.Group):
    """A click group that turns every exception of a command into a message
    on stderr and an exit code (see the module docstring)."""

    def invoke(self, ctx: click.Context) -> Any:
        debug = bool(ctx.params.get("debug"))
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except ModelcheckError as exc:
            err = err_console()
            if debug:
                err.print(traceback.format_exc().rstrip())
            err.print(render_error(exc))
            raise click.exceptions.Exit(EXIT_USAGE) from None
        except KeyboardInterrupt:
            err_console().print("interrupted")
            raise click.exceptions.Exit(EXIT_UNKNOWN) from None
        except BrokenPipeError:
            # The reader went away (``| head``): not a bug.  Later writes, and
            # the interpreter's own flush at exit, go nowhere instead of failing
            # again; the result was not delivered, hence "unknown".
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise click.exceptions.Exit(EXIT_UNKNOWN) from None
        except Exception as exc:
            _internal_error(err_console(), exc, debug)
            raise click.exceptions.Exit(EXIT_INTERNAL) from None


def _internal_error(err: Console, exc: Exception, debug: bool) -> None:
    if debug:
        err.print(traceback.format_exc().rstrip())
        err.print(f"internal error: {type(exc).__name__}: {exc}")
    else:
        err.print(f"internal error: {type(exc).__name__}: {exc} "
                  "(rerun with --debug for the traceback)")


@click.group(cls=ModelcheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show Python tracebacks of errors.")
@click.version_option(package_name="modelcheck", prog_name="modelcheck")
def cli(debug: bool) -> None:
    """modelcheck: a model checker for replication protocols.

    Exit codes: 0 every property holds, 1 a property is violated, 2 bad input
    or a spec error, 3 unknown (a bound, a timeout, Ctrl-C), 4 internal error."""
    _check_backend_env()


def _check_backend_env() -> None:
    """A bad $MODELCHECK_KERNEL_BACKEND is bad input, told before any run
    (the default engine may answer without ever reading it)."""
    from modelcheck.engines.compiled.cache.plan_key import BACKEND_ENV, BACKENDS
    raw = os.environ.get(BACKEND_ENV, "").strip()
    if raw and raw.lower() not in BACKENDS:
        raise UsageError(f"{BACKEND_ENV}={raw!r} is not a kernel backend",
                         hint=f"one of {', '.join(BACKENDS)}; for example {BACKEND_ENV}=numba")


cli.add_command(check_cmd)
cli.add_command(parse_cmd)
cli.add_command(verdicts_cmd)
# Commands owned by other parts of the CLI are added below, one line each.
cli.add_command(trace)
cli.add_command(replay)
cli.add_command(prove_cmd)
cli.add_command(lsp_cmd)
cli.add_command(conform)


def main(argv: Sequence[str] | None = None) -> None:
    """The console script: run the command line and exit with its code."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="modelcheck")
