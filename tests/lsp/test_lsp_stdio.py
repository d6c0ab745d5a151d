"""``modelcheck lsp`` driven as an editor drives it: JSON-RPC with
Content-Length framing over the server's stdin and stdout."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

LIB = """\
module lib

type Node = model(3)
"""

SPEC = """\
module main
import lib

var total: 0..3 = 0
var owner: option[Node] = none

action Take(n: Node) {
    require owner == none and total < 3
    owner := some(n)
    total := total + 1
}

invariant Small: total <= 3
"""

BROKEN = SPEC.replace("Small: total", "Small: totl")
WAIT_S = 20


class Client:
    """The smallest JSON-RPC client: one thread reads framed messages into a queue."""

    def __init__(self, proc: subprocess.Popen[bytes]):
        self.proc = proc
        self.next_id = 0
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            assert length is not None, "a message without Content-Length"
            self.inbox.put(json.loads(stream.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _next(self) -> dict[str, Any]:
        message = self.inbox.get(timeout=WAIT_S)
        assert message is not None, "the server closed its output"
        return message

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self._next()
            if message.get("id") == self.next_id and "method" not in message:
                assert "error" not in message, message["error"]
                return message["result"]
            self.notifications.append(message)

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def notification(self, method: str) -> dict[str, Any]:
        """The next notification ``method`` not yet taken (in order of arrival)."""
        while True:
            for i, message in enumerate(self.notifications):
                if message.get("method") == method:
                    return self.notifications.pop(i)["params"]
            self.notifications.append(self._next())


@pytest.fixture
def client(tmp_path: Path):
    proc = subprocess.Popen([sys.executable, "-m", "modelcheck", "lsp"], cwd=tmp_path,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        yield Client(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=WAIT_S)


def _position(text: str, needle: str, line_hint: str) -> dict[str, int]:
    """The 0-based position of ``needle`` in the first line containing ``line_hint``."""
    for number, line in enumerate(text.splitlines()):
        if line_hint in line:
            return {"line": number, "character": line.index(needle)}
    raise AssertionError(line_hint)


def test_a_session_over_stdio(client: Client, tmp_path: Path) -> None:
    (tmp_path / "lib.mc").write_text(LIB)
    spec = tmp_path / "main.mc"
    spec.write_text(BROKEN)
    uri = spec.as_uri()
    doc = {"uri": uri}

    init = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(),
                                         "capabilities": {}})
    capabilities = init["capabilities"]
    assert capabilities["hoverProvider"] and capabilities["definitionProvider"]
    assert "completionProvider" in capabilities
    client.notify("initialized", {})

    # An unknown name: its code, its place, and the did-you-mean hint.
    client.notify("textDocument/didOpen", {"textDocument": {
        **doc, "languageId": "modelcheck", "version": 1, "text": BROKEN}})
    published = client.notification("textDocument/publishDiagnostics")
    assert published["uri"] == uri
    [diag] = published["diagnostics"]
    assert diag["code"] == "MC2001"
    start = _position(BROKEN, "totl", "invariant")
    assert diag["range"] == {"start": start,
                             "end": {"line": start["line"], "character": start["character"] + 4}}
    assert diag["severity"] == 1
    assert "did you mean 'total'?" in diag["message"]

    # Fixed as the user types: the diagnostics are cleared.
    client.notify("textDocument/didChange", {"textDocument": {**doc, "version": 2},
                                             "contentChanges": [{"text": SPEC}]})
    assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == []

    # Hover: a state variable's type and an action parameter's type.
    hovered = client.request("textDocument/hover", {
        "textDocument": doc, "position": _position(SPEC, "owner", "owner :=")})
    assert "var owner: option[Node]" in hovered["contents"]["value"]
    hovered = client.request("textDocument/hover", {
        "textDocument": doc, "position": _position(SPEC, "n)", "some(n)")})
    assert "n: Node" in hovered["contents"]["value"]

    # Definition: a use of `total` goes to its declaration; `Node` to the imported file.
    found = client.request("textDocument/definition", {
        "textDocument": doc, "position": _position(SPEC, "total", "invariant")})
    [found] = found if isinstance(found, list) else [found]
    declared = _position(SPEC, "total", "var total")
    assert found["uri"] == uri
    assert found["range"] == {"start": declared,
                              "end": {"line": declared["line"],
                                      "character": declared["character"] + 5}}
    found = client.request("textDocument/definition", {
        "textDocument": doc, "position": _position(SPEC, "Node", "action Take")})
    [found] = found if isinstance(found, list) else [found]
    assert found["uri"] == (tmp_path / "lib.mc").as_uri()
    assert found["range"]["start"] == _position(LIB, "Node", "type Node")

    # Completion: declared names, keywords and built-ins.
    completed = client.request("textDocument/completion", {
        "textDocument": doc, "position": {"line": 9, "character": 4}})
    labels = {item["label"] for item in completed["items"]}
    assert {"total", "owner", "Take", "n", "Node", "invariant", "require", "len"} <= labels

    assert client.request("shutdown", None) is None
    client.notify("exit", None)
    assert client.proc.wait(timeout=WAIT_S) == 0
