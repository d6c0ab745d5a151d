"""``modelcheck lsp`` keeps answering whatever it is sent: bytes that are not
messages, wrong ``Content-Length`` headers, a document of megabytes, a burst
of changes; and what it says about them on stderr is coded lines, never a
traceback."""
from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from test_lsp_stdio import SPEC, WAIT_S, Client  # noqa: E402

INIT = {"processId": None, "rootUri": None, "capabilities": {}}


class Server:
    """A server process, its client, and its stderr kept in a file (a pipe
    nobody reads could fill up and stall it)."""

    def __init__(self, tmp_path: Path):
        self.stderr_path = tmp_path / "stderr.log"
        self._stderr = self.stderr_path.open("wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "modelcheck", "lsp"], cwd=tmp_path,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr)
        self.client = Client(self.proc)

    def raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self, request_id: int) -> dict:
        """The result of the request ``request_id`` sent by ``raw``."""
        while True:
            message = self.client._next()
            if message.get("id") == request_id and "method" not in message:
                return message["result"]
            self.client.notifications.append(message)

    def finish(self) -> str:
        """Shut the server down as an editor does; its stderr."""
        assert self.client.request("shutdown", None) is None
        self.client.notify("exit", None)
        assert self.proc.wait(timeout=WAIT_S) == 0
        self._stderr.close()
        return self.stderr_path.read_text()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=WAIT_S)
        self._stderr.close()


@pytest.fixture
def server(tmp_path: Path):
    s = Server(tmp_path)
    try:
        yield s
    finally:
        s.close()


def frame(message: dict, length: int | None = None) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def assert_no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr
    for line in stderr.splitlines():
        assert line.startswith("modelcheck lsp: "), line


def test_garbage_then_a_request_is_answered(server: Server) -> None:
    noise = random.Random(1).randbytes(5000).replace(b"Content-Length", b"")
    server.raw(noise)
    init = server.client.request("initialize", INIT)
    assert init["capabilities"]["hoverProvider"]
    server.raw(b"\r\n\x00\xffmore noise\r\n\r\n")
    assert server.client.request("textDocument/hover", {
        "textDocument": {"uri": "file:///nowhere/none.mc"},
        "position": {"line": 0, "character": 0}}) is None
    stderr = server.finish()
    assert "MCL001" in stderr
    assert_no_traceback(stderr)


@pytest.mark.parametrize("how", ["not a number", "too long", "too short"])
def test_a_bad_content_length_then_a_request_is_answered(server: Server, how: str) -> None:
    request = {"id": 1, "method": "initialize", "params": INIT}
    good = len(frame(request).split(b"\r\n\r\n", 1)[1])
    if how == "not a number":
        server.raw(b"Content-Length: twelve\r\n\r\n{}")
        server.client.next_id = 0
        init = server.client.request("initialize", INIT)
    else:
        # The client then waits for the answer: nothing follows the body.
        server.raw(frame(request, good + 500 if how == "too long" else good - 10))
        server.client.next_id = 1
        init = server.answer(1)
    assert init["capabilities"]["hoverProvider"]
    stderr = server.finish()
    assert ("MCL001" if how == "not a number" else "MCL003") in stderr
    assert_no_traceback(stderr)


def test_a_message_pygls_cannot_read_is_logged_in_one_coded_line(server: Server) -> None:
    server.client.request("initialize", INIT)
    server.raw(frame({"id": 7, "method": "textDocument/hover", "params": {"textDocument": 5}}))
    server.raw(frame({"method": "textDocument/didOpen", "params": []}))
    assert server.client.request("textDocument/hover", {
        "textDocument": {"uri": "file:///nowhere/none.mc"},
        "position": {"line": 0, "character": 0}}) is None
    stderr = server.finish()
    assert "MCL004" in stderr
    assert_no_traceback(stderr)


def test_a_huge_document_does_not_block_the_next_request(server: Server, tmp_path: Path) -> None:
    # 150,000 declarations, 4.5 MB: minutes of compiling.
    source = "module big\n" + "".join(f"const Constant{i:06d}: 0..9 = {i % 10}\n"
                                      for i in range(150_000))
    uri = (tmp_path / "big.mc").as_uri()
    server.client.request("initialize", INIT)
    server.client.notify("initialized", {})
    server.client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "modelcheck", "version": 1, "text": source}})
    t0 = time.monotonic()
    hovered = server.client.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": {"line": 1, "character": 8}})
    assert hovered is None
    published = server.client.notification("textDocument/publishDiagnostics")
    [diag] = published["diagnostics"]
    assert diag["code"] == "MCL005" and "too large for live analysis" in diag["message"]
    server.finish()
    # A bound on a hang (the server used to take over 240 s), not a timing.
    assert time.monotonic() - t0 < 120


def test_a_burst_of_changes_is_analysed_once_at_its_last_version(server: Server,
                                                                 tmp_path: Path) -> None:
    spec = tmp_path / "main.mc"
    (tmp_path / "lib.mc").write_text("module lib\n\ntype Node = model(3)\n")
    uri = spec.as_uri()
    server.client.request("initialize", INIT)
    server.client.notify("initialized", {})
    server.client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "modelcheck", "version": 1, "text": SPEC}})
    assert server.client.notification("textDocument/publishDiagnostics")["version"] == 1
    # Typing: one change per key, sent together as a fast typist's would arrive.
    typed = SPEC.replace("invariant Small: total <= 3\n", "")
    burst = b"".join(
        frame({"method": "textDocument/didChange",
               "params": {"textDocument": {"uri": uri, "version": v},
                          "contentChanges": [{"text": typed + "invariant Small: tot"[:v - 1]}]}})
        for v in range(2, 22))
    server.raw(burst)
    # A request waits for the analysis of the latest text.
    server.client.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    versions = [m["params"]["version"] for m in server.client.notifications
                if m.get("method") == "textDocument/publishDiagnostics"]
    assert versions[-1] == 21
    # Once, unless the burst was cut by a pause longer than the quiet time.
    assert len(versions) <= 3 and versions == sorted(versions)
    server.finish()
