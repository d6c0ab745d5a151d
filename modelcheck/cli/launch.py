"""The console script's first frame.

Importing the CLI takes a moment (click, rich, the front end); a Ctrl-C in
that moment would otherwise end in a KeyboardInterrupt traceback, before
``ModelcheckGroup`` is there to turn it into "interrupted" and exit 3."""
from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]

EXIT_UNKNOWN = 3  # modelcheck.cli.main.EXIT_UNKNOWN, not imported: that is the slow part


def main(argv: Sequence[str] | None = None) -> None:
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


if __name__ == "__main__":
    main()
