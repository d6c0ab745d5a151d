"""The server behind ``modelcheck trace serve``: an index of the traces in a
folder and the trace page of each, made on request (so a trace written while
the server runs shows up on the next reload).  Stdlib ``http.server``, bound
to 127.0.0.1 only: the pages show spec internals and are for the person at
the machine.  Only regular files inside the folder are served and listed,
never through a symbolic link or a ``..``, and only to requests that name the
server by its loopback address (a page elsewhere that rebinds its own host
name to 127.0.0.1 gets 403).  A trace file that cannot be read shows as such
and never takes the index down."""
from __future__ import annotations

import html
import json
import time
from collections.abc import Callable, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from modelcheck.errors import ModelcheckError
from modelcheck.trace.spec_source import find_spec

__all__ = ["make_server", "list_traces", "index_page", "HOST"]

HOST = "127.0.0.1"
_SUFFIXES = (".itf.json", ".json")

_INDEX_CSS = """
body { font-family: system-ui, sans-serif; margin: 24px; color: #111827; background: #f9fafb; }
h1 { font-size: 20px; } table { border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: 6px 12px; border-bottom: 1px solid #e5e7eb; font-size: 14px; }
th { font-size: 12px; text-transform: uppercase; color: #6b7280; }
a { color: #1d4ed8; text-decoration: none; } a:hover { text-decoration: underline; }
.muted { color: #6b7280; } code { font-family: ui-monospace, monospace; }
.changed { font-size: 12px; color: #8a5a00; background: #fef3c7; border-radius: 4px; padding: 0 4px; }
"""


def _inside(folder: Path, rel: str) -> Path | None:
    """``folder / rel`` when that is a trace file in ``folder`` reached
    without symbolic links or ``..``; else None.  ``folder`` is resolved."""
    if "\x00" in rel or rel.startswith("/") or ".." in rel.split("/"):
        return None
    target = folder / rel
    try:
        if target.resolve() != target or not target.is_file():
            return None
    except (OSError, RuntimeError):       # too long a name, a symlink loop
        return None
    return target if target.name.endswith(_SUFFIXES) else None


def list_traces(folder: Path) -> list[Path]:
    """The trace files under ``folder``, newest first."""
    root = folder.resolve()
    files = [p for p in root.rglob("*") if p.name.endswith(_SUFFIXES)
             and _inside(root, p.relative_to(root).as_posix()) is not None]
    return sorted(files, key=lambda p: (-p.stat().st_mtime, str(p)))


def _summary(path: Path) -> dict[str, str]:
    try:
        return _read_summary(path)
    except (OSError, ValueError, RecursionError, MemoryError):
        return {"description": "(not readable as JSON)"}


def _read_summary(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    meta = data.get("#meta", {}) if isinstance(data, dict) else {}
    meta = meta if isinstance(meta, dict) else {}
    states = data.get("states") if isinstance(data, dict) else None
    steps = str(max(0, len(states) - 1)) if isinstance(states, list) else "?"
    return {"description": str(meta.get("description") or ""), "spec": str(meta.get("spec") or ""),
            "property": str(meta.get("property") or ""), "kind": str(meta.get("kind") or ""),
            "steps": steps, "changed": "yes" if find_spec(meta, path).changed else ""}


def index_page(folder: Path) -> str:
    """The index: one row per trace, linking to its page; a trace whose spec
    has changed since it was written (the file's text no longer has the
    hash the trace records) is marked "changed since"."""
    rows = []
    folder = folder.resolve()
    for path in list_traces(folder):
        rel = path.relative_to(folder).as_posix()
        info = _summary(path)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
        changed = ('<span class="changed" title="the spec file differs from the one this '
                   'trace was made with">changed since</span>' if info.get("changed") else "")
        rows.append(f'<tr><td><a href="/trace/{quote(rel)}">{html.escape(rel)}</a></td>'
                    f'<td>{html.escape(info.get("spec", ""))} {changed}</td>'
                    f'<td>{html.escape(info.get("property", ""))}</td>'
                    f'<td>{html.escape(info.get("kind", ""))}</td>'
                    f'<td>{html.escape(info.get("steps", ""))}</td>'
                    f'<td class="muted">{when}</td></tr>')
    body = ("<table><thead><tr><th>trace</th><th>spec</th><th>property</th><th>kind</th>"
            "<th>steps</th><th>written</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
            if rows else '<p class="muted">No traces here yet: <code>modelcheck check</code> '
                         'writes them.</p>')
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>traces in '
            f'{html.escape(str(folder))}</title><style>{_INDEX_CSS}</style></head><body>'
            f'<h1>Traces in <code>{html.escape(str(folder))}</code></h1>{body}</body></html>')


def _error_page(status: HTTPStatus, message: str) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{status.value}'
            f'</title><style>{_INDEX_CSS}</style></head><body><h1>{status.value} {status.phrase}</h1>'
            f'<pre>{html.escape(message)}</pre><p><a href="/">all traces</a></p></body></html>')


def make_server(directory: str, port: int, spec: str | None, defines: Mapping[str, str],
                log: Callable[[str], None] | None = None) -> ThreadingHTTPServer:
    """A server (not yet serving) for the traces in ``directory`` on
    127.0.0.1:``port`` (0: any free port; see ``server.server_address``)."""
    folder = Path(directory).resolve()

    def page_for(rel: str) -> str:
        from modelcheck.cli.render import render_error
        from modelcheck.cli.trace_load import load_trace
        from modelcheck.trace.html import render_html
        target = _inside(folder, rel)
        if target is None:
            raise FileNotFoundError(rel)
        try:
            loaded = load_trace(str(target), spec, defines)
            from modelcheck.trace.derived import with_lane_defs
            return render_html(with_lane_defs(loaded.trace, loaded.model), loaded.model, source=rel,
                               notes=loaded.notes)
        except ModelcheckError as err:
            raise ValueError(render_error(err)) from None

    class Handler(BaseHTTPRequestHandler):
        server_version = "modelcheck-trace"

        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            path = unquote(urlsplit(self.path).path)
            if self.headers.get("Host", "").lower() not in allowed_hosts():
                self.send(HTTPStatus.FORBIDDEN, _error_page(
                    HTTPStatus.FORBIDDEN, "this server answers only to 127.0.0.1 and localhost"))
                return
            try:
                if path in ("/", "/index.html"):
                    self.send(HTTPStatus.OK, index_page(folder))
                elif path.startswith("/trace/"):
                    self.send(HTTPStatus.OK, page_for(path[len("/trace/"):]))
                else:
                    self.send(HTTPStatus.NOT_FOUND, _error_page(HTTPStatus.NOT_FOUND, path))
            except FileNotFoundError:
                self.send(HTTPStatus.NOT_FOUND, _error_page(HTTPStatus.NOT_FOUND, f"no trace {path}"))
            except ValueError as err:
                self.send(HTTPStatus.UNPROCESSABLE_ENTITY,
                          _error_page(HTTPStatus.UNPROCESSABLE_ENTITY, str(err)))
            except Exception as err:  # noqa: BLE001 (one bad file must not stop the server)
                self.send(HTTPStatus.INTERNAL_SERVER_ERROR, _error_page(
                    HTTPStatus.INTERNAL_SERVER_ERROR,
                    f"internal error while making the page for {path}: "
                    f"{type(err).__name__}: {err}"[:2000]))

        def send(self, status: HTTPStatus, body: str) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the stdlib's name)
            if log is not None:
                log(format % args)

    httpd = ThreadingHTTPServer((HOST, port), Handler)

    def allowed_hosts() -> set[str]:
        bound = httpd.server_address[1]
        return {f"{HOST}:{bound}", f"localhost:{bound}"}

    return httpd
