"""The language server behind ``modelcheck lsp``: ``analysis`` compiles an
editor's buffer, ``navigate`` answers hover, definition and completion from
it, ``server`` speaks the protocol (pygls).  Only ``server`` imports pygls."""

__all__: list[str] = []
