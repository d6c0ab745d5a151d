"""``modelcheck trace serve``: the index, pages made on request, 127.0.0.1
only, nothing outside the folder."""
from __future__ import annotations

import http.client
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from modelcheck.cli.trace_serve import make_server
from modelcheck.trace.itf import dumps_itf

from .mini_specs import MINI


@pytest.fixture
def server(tmp_path: Path, mini_model, mini_trace, monkeypatch) -> Iterator[str]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mini.mc").write_text(MINI)
    folder = tmp_path / "counterexamples"
    (folder / "sub").mkdir(parents=True)
    (folder / "mini-NoLoss.itf.json").write_text(dumps_itf(mini_trace, mini_model))
    (folder / "sub" / "broken.itf.json").write_text("{not json")
    (tmp_path / "secret.itf.json").write_text(dumps_itf(mini_trace, mini_model))
    httpd = make_server(str(folder), 0, None, {})
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    host, port = httpd.server_address[:2]
    try:
        yield f"http://{host}:{port}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8")


def test_bound_to_localhost_only(server):
    assert server.startswith("http://127.0.0.1:")


def test_index_lists_every_trace(server):
    status, body = get(server + "/")
    assert status == 200
    assert 'href="/trace/mini-NoLoss.itf.json"' in body
    assert 'href="/trace/sub/broken.itf.json"' in body
    assert "<td>NoLoss</td>" in body and "secret" not in body


def test_trace_page_is_made_on_request(server):
    status, body = get(server + "/trace/mini-NoLoss.itf.json")
    assert status == 200
    assert "counterexample to NoLoss in mini (5 steps)" in body
    assert 'class="lane-name"' in body


def test_errors_and_paths_outside_the_folder(server):
    status, body = get(server + "/trace/sub/broken.itf.json")
    assert status == 422 and "not valid JSON" in body
    assert get(server + "/trace/..%2Fsecret.itf.json")[0] == 404
    assert get(server + "/trace/nothing.itf.json")[0] == 404
    assert get(server + "/elsewhere")[0] == 404


# ------------------------------------------------------------------ hostile input

HOSTILE = ["<script>alert(1)</script>", "<!--<script>", "\"'><img src=x onerror=alert(2)>"]


def _hostile_itf() -> str:
    """An untyped trace (no spec known) whose every name and value is markup."""
    a, b, c = HOSTILE
    lane = {"#map": [[a, b], [c, {"#set": [a]}]]}
    return json.dumps({
        "#meta": {"description": a, "spec": b, "property": c, "kind": a, "source": b},
        "vars": [a, "lanes"],
        "states": [{"#meta": {"index": 0}, a: b, "lanes": lane},
                   {"#meta": {"index": 1, "action": a, "params": {c: b}}, a: c, "lanes": lane},
                   {"#meta": {"index": 2, "action": b, "params": {}}, a: a, "lanes": lane}]})


@pytest.fixture
def hostile_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    folder = tmp_path / "served"
    folder.mkdir()
    (folder / "hostile.itf.json").write_text(_hostile_itf())
    (folder / "\"'><b onmouseover=alert(3)>.itf.json").write_text(_hostile_itf())
    (tmp_path / "outside.itf.json").write_text(_hostile_itf().replace("index", "index", 1))
    (folder / "link.itf.json").symlink_to(tmp_path / "outside.itf.json")
    (folder / "dirlink").symlink_to(tmp_path, target_is_directory=True)
    httpd = make_server(str(folder), 0, None, {})
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    host, port = httpd.server_address[:2]
    try:
        yield f"http://{host}:{port}", tmp_path
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def _raw_get(base: str, path: str, host: str | None = None) -> tuple[int, str]:
    """A request with ``path`` sent exactly as given (urllib would normalise it)."""
    parts = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)
    try:
        conn.putrequest("GET", path, skip_host=host is not None)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def _no_live_markup(body: str) -> None:
    for bad in HOSTILE:
        assert bad not in body
    assert "<script>alert" not in body and "<img" not in body and "<b onmouse" not in body


def test_every_rendered_value_is_escaped(hostile_server):
    base, _ = hostile_server
    status, index = get(base + "/")
    assert status == 200
    _no_live_markup(index)
    assert "&lt;script&gt;" in index
    status, page = get(base + "/trace/hostile.itf.json")
    assert status in (200, 422)
    _no_live_markup(page)


@pytest.mark.parametrize("path", [
    "/trace/../outside.itf.json", "/trace/%2e%2e/outside.itf.json",
    "/trace/%2E%2E%2Foutside.itf.json", "/trace/..%2f..%2fetc%2fpasswd",
    "/trace//etc/passwd", "/trace/%2Fetc%2Fpasswd", "/trace/link.itf.json",
    "/trace/dirlink/outside.itf.json", "/trace/dirlink/served/hostile.itf.json",
    "/trace/%00.itf.json", "/trace/" + "a" * 5000 + ".itf.json", "/../../etc/passwd",
])
def test_nothing_outside_the_folder_is_served(hostile_server, path):
    base, _ = hostile_server
    status, body = _raw_get(base, path)
    assert status in (400, 404), (path, status)
    assert "onerror" not in body


def test_symlinks_out_of_the_folder_are_not_listed(hostile_server):
    base, _ = hostile_server
    _, index = get(base + "/")
    assert "link.itf.json" not in index and "outside" not in index


def test_a_foreign_host_name_is_refused(hostile_server):
    # DNS rebinding: a page from elsewhere reaching 127.0.0.1 under its own name.
    base, _ = hostile_server
    assert _raw_get(base, "/", host="evil.example:80")[0] == 403
    port = urllib.parse.urlsplit(base).port
    assert _raw_get(base, "/", host=f"localhost:{port}")[0] == 200
    assert _raw_get(base, "/", host=f"127.0.0.1:{port}")[0] == 200


def test_the_server_socket_is_bound_to_loopback(tmp_path: Path):
    httpd = make_server(str(tmp_path), 0, None, {})
    try:
        assert httpd.socket.getsockname()[0] == "127.0.0.1"
    finally:
        httpd.server_close()


def test_a_hostile_file_does_not_break_the_index(hostile_server):
    base, tmp_path = hostile_server
    served = tmp_path / "served"
    (served / "deep.itf.json").write_text("[" * 100_000 + "]" * 100_000)
    (served / "bigint.itf.json").write_text('{"#meta": {"description": %s}, "states": []}'
                                            % ("9" * 6000))
    status, index = get(base + "/")
    assert status == 200 and "deep.itf.json" in index and "bigint.itf.json" in index
    for name in ("deep.itf.json", "bigint.itf.json"):
        status, page = get(base + "/trace/" + name)
        assert status in (200, 422), (name, status)
        assert "Traceback" not in page
