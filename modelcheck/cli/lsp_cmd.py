"""``modelcheck lsp``: the language server for editors (docs/editors.md)."""
from __future__ import annotations

import click

from modelcheck.errors import UsageError

__all__ = ["lsp_cmd"]


@click.command("lsp")
@click.option("--stdio", is_flag=True,
              help="Speak over stdin and stdout: the only transport, and the default "
                   "(accepted because editors' clients pass it).")
def lsp_cmd(stdio: bool) -> None:
    """Run the language server over stdio: diagnostics as you type, hover with
    types, go to definition and completion of names for .mc files."""
    try:
        # Imported here: pygls costs every other command nothing.
        from modelcheck.lsp.server import build_server
    except ImportError as err:
        raise UsageError(f"the language server cannot start: {err}",
                         hint="install its dependencies: pip install pygls lsprotocol") from None
    build_server().start_io()
