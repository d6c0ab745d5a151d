"""``FramedInput``: whatever comes before or inside a message, pygls is handed
whole JSON-RPC messages and the stream resynchronises on the next header."""
from __future__ import annotations

import io
import json
import random

import pytest

from modelcheck.lsp.framing import FramedInput


def frame(message: dict, length: int | None = None, headers: bytes = b"") -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    n = len(body) if length is None else length
    return headers + b"Content-Length: %d\r\n\r\n" % n + body


class Trickle(io.RawIOBase):
    """A stream that hands out a few bytes a read, as a pipe may."""

    def __init__(self, data: bytes, step: int):
        self.data, self.step = data, step

    def readable(self) -> bool:
        return True

    def read1(self, n: int = -1) -> bytes:
        out, self.data = self.data[:self.step], self.data[self.step:]
        return out


def messages(data: bytes, step: int | None = None) -> tuple[list[dict], list[str]]:
    """What pygls would read from ``data``, read as its loop reads it, and the codes logged."""
    logged: list[str] = []
    raw = io.BufferedReader(io.BytesIO(data)) if step is None else Trickle(data, step)
    reader = FramedInput(raw, lambda code, text: logged.append(code))
    out = []
    while True:
        header = reader.readline()
        if not header:
            return out, logged
        assert header.startswith(b"Content-Length: ") and header.endswith(b"\r\n")
        assert reader.readline() == b"\r\n"
        out.append(json.loads(reader.read(int(header.split(b":")[1]))))


PING = {"id": 1, "method": "ping"}
PONG = {"id": 2, "method": "pong"}


def test_well_formed_messages_pass_as_they_are() -> None:
    data = frame(PING) + frame(PONG, headers=b"Content-Type: application/vscode-jsonrpc\r\n")
    got, logged = messages(data)
    assert [m["id"] for m in got] == [1, 2] and logged == []


@pytest.mark.parametrize("step", [1, 7, 4096])
def test_messages_cut_anywhere_by_the_pipe_are_whole(step: int) -> None:
    big = {"id": 3, "method": "textDocument/didOpen",
           "params": {"text": "Content-Length: 12\r\n\r\n{}" * 2000}}
    got, logged = messages(frame(PING) + frame(big) + frame(PONG), step)
    assert [m["id"] for m in got] == [1, 3, 2] and logged == []
    assert got[1]["params"]["text"].startswith("Content-Length: 12")


def test_garbage_is_skipped_up_to_the_next_header() -> None:
    noise = random.Random(0).randbytes(3000).replace(b"Content-Length", b"")
    got, logged = messages(noise + frame(PING) + b"\r\n\x00junk\r\n" + frame(PONG))
    assert [m["id"] for m in got] == [1, 2]
    assert logged == ["MCL001", "MCL001"]


@pytest.mark.parametrize("length", [5, 40, 10_000])
def test_a_wrong_content_length_is_corrected(length: int) -> None:
    got, logged = messages(frame(PING, length=length) + frame(PONG))
    assert [m["id"] for m in got] == [1, 2]
    assert logged == ["MCL003"]


@pytest.mark.parametrize("length", [5, 10_000])
def test_a_wrong_length_on_the_last_message_is_corrected_without_more_input(length: int) -> None:
    # The client waits for the answer: nothing comes after the message.
    got, logged = messages(frame(PING, length=length), step=len(frame(PING, length=length)))
    assert [m["id"] for m in got] == [1] and logged == ["MCL003"]


@pytest.mark.parametrize("bad", [b"Content-Length: abc\r\n\r\n{}",
                                 b"Content-Length: 4\r\n\r\nnope",
                                 b"Content-Length: 2\r\n\r\n[]",
                                 b'Content-Length: 8\r\n\r\n{"a": 1}',
                                 b"Content-Length: 9\r\nNot a header line\r\n\r\n{}{}{}{}{",
                                 b"Content-Length: 30\r\n\r\n{\"jsonrpc\": \"2.0\", \"id\": "])
def test_what_is_not_a_message_is_dropped(bad: bytes) -> None:
    got, logged = messages(frame(PING) + bad + frame(PONG))
    assert [m["id"] for m in got] == [1, 2]
    assert logged and set(logged) <= {"MCL001", "MCL002"}


def test_the_end_of_input_ends_the_stream() -> None:
    got, logged = messages(frame(PING) + b"Content-Length: 50\r\n\r\n{\"jsonrpc\"")
    assert [m["id"] for m in got] == [1]
    assert logged == ["MCL001"]
