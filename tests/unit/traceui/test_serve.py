"""``modelcheck trace serve``: the index, pages made on request, 127.0.0.1
only, nothing outside the folder."""
from __future__ import annotations

import threading
import urllib.error
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
