"""``Live``: buffers analysed off the event loop, only their latest text,
after a quiet time; a buffer too large is not compiled at all."""
from __future__ import annotations

import asyncio
import threading
import time

from modelcheck.lsp.analysis import Analysis, Superseded
from modelcheck.lsp.live import Live, Text

#: A bound on a hang, not a timing measured: each step here takes milliseconds.
HANG_S = 30


class Recorder:
    """An analysis that records what it was asked, and can be held running."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.hold = threading.Event()
        self.hold.set()
        self.published: list[tuple[str, int | None, tuple]] = []
        self.logged: list[str] = []

    def analyze(self, source: str, path: str, previous: Analysis | None,
                stale=None) -> Analysis:
        self.started.append(source)
        self.hold.wait(HANG_S)
        if stale is not None and stale():
            raise Superseded()
        if source == "boom":
            raise RuntimeError("a bug in the compiler")
        return Analysis(path, source, (), None, (), None)

    def publish(self, uri: str, text: Text, analysis: Analysis) -> None:
        self.published.append((uri, text.version, tuple(d.code for d in analysis.diagnostics)))

    def live(self, **kwargs) -> Live:
        return Live(self.publish, lambda code, text: self.logged.append(code),
                    analyze_fn=self.analyze, **kwargs)


def run(coro) -> None:
    asyncio.run(asyncio.wait_for(coro, HANG_S))


def test_rapid_changes_analyse_only_the_last_text() -> None:
    rec = Recorder()

    async def main() -> None:
        live = rec.live(debounce_s=0.05)
        for v in range(1, 31):
            live.changed("a", Text(f"v{v}", "a.mc", v))
        got = await live.current("a", lambda: Text("", "a.mc"))
        assert got.source == "v30"

    run(main())
    assert rec.started == ["v30"]
    assert rec.published == [("a", 30, ())]


def test_a_change_while_analysing_stops_the_old_analysis_and_runs_the_new() -> None:
    rec = Recorder()
    rec.hold.clear()

    async def main() -> None:
        live = rec.live(debounce_s=0.0)
        live.changed("a", Text("old", "a.mc", 1))
        while rec.started != ["old"]:
            await asyncio.sleep(0.01)
        # The loop answers while the worker is busy.
        other = await live.current("b", lambda: Text("x" * 10, "b.mc", 1), wait_s=0.01)
        assert other.source == "x" * 10
        live.changed("a", Text("new", "a.mc", 2))
        rec.hold.set()
        got = await live.current("a", lambda: Text("", "a.mc"))
        assert got.source == "new"

    run(main())
    assert "old" in rec.started and rec.started[-1] == "new"
    assert [(u, v) for u, v, _ in rec.published if u == "a"] == [("a", 2)]


def test_requests_do_not_wait_for_a_long_analysis() -> None:
    rec = Recorder()
    rec.hold.clear()

    async def main() -> None:
        live = rec.live(debounce_s=0.0)
        live.changed("a", Text("first", "a.mc", 1))
        t0 = time.monotonic()
        got = await live.current("a", lambda: Text("first", "a.mc", 1), wait_s=0.05)
        # Nothing analysed yet: an empty analysis of the text, at once.
        assert got.source == "first" and got.module is None
        assert time.monotonic() - t0 < HANG_S
        rec.hold.set()

    run(main())


def test_a_document_too_large_is_not_compiled() -> None:
    rec = Recorder()

    async def main() -> None:
        live = rec.live(debounce_s=0.0, max_chars=100)
        live.changed("big", Text("x" * 101, "big.mc", 1))
        got = await live.current("big", lambda: Text("", "big.mc"))
        [diag] = got.diagnostics
        assert diag.code == "MCL005" and "too large for live analysis" in diag.message

    run(main())
    assert rec.started == []
    assert rec.published == [("big", 1, ("MCL005",))]


def test_an_analysis_that_fails_is_logged_and_the_last_one_kept() -> None:
    rec = Recorder()

    async def main() -> None:
        live = rec.live(debounce_s=0.0)
        live.changed("a", Text("fine", "a.mc", 1))
        await live.current("a", lambda: Text("", "a.mc"))
        live.changed("a", Text("boom", "a.mc", 2))
        got = await live.current("a", lambda: Text("", "a.mc"))
        assert got.source == "fine"

    run(main())
    assert rec.logged == ["MCL006"]


def test_a_closed_buffer_is_forgotten() -> None:
    rec = Recorder()
    rec.hold.clear()

    async def main() -> None:
        live = rec.live(debounce_s=0.0)
        live.changed("a", Text("text", "a.mc", 1))
        while not rec.started:
            await asyncio.sleep(0.01)
        live.closed("a")
        rec.hold.set()
        while "a" in live._running:
            await asyncio.sleep(0.01)
        assert "a" not in live.analyses

    run(main())
    assert rec.published == []
