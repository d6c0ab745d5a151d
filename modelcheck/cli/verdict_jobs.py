"""Running the rows of ``modelcheck verdicts``: one row and its mutants is a
job; jobs run one after another (``--jobs 1``) or in worker processes, one
per core, and the table lists them in file order either way.

A worker runs a job exactly as the sequential loop does (the same engine,
bounds, trace files), so the verdicts, counts and traces do not depend on
the number of jobs.  Workers sit in a process group of their own: Ctrl-C on
the terminal reaches only this process, which passes one SIGINT to each
worker, so every running search stops as a sequential one does (partial
results, traces written), and the rows not yet started are not run.
"""
from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as connection_wait

from rich.console import Console

from modelcheck.cli.console import err_console
from modelcheck.cli.heap import settle
from modelcheck.cli.mutants import check_mutant
from modelcheck.cli.runner import InterruptWatch
from modelcheck.cli.verdict_file import Mutant, Row
from modelcheck.cli.verdict_rows import RowOutcome, check_row, lost_row
from modelcheck.ir.nodes import Model

__all__ = ["RowJob", "JobResult", "run_job", "run_jobs", "default_jobs"]


@dataclass
class RowJob:
    """One row of a verdict file, compiled, with its mutants (none with --no-mutants)."""
    index: int                              # 1-based, in file order
    total: int
    row: Row
    model: Model
    engine: str
    mutants: list[tuple[Mutant, Model]] | None   # None: --no-mutants
    out_dir: str
    workers: int | None = None              # the engine's search threads; None: every core

    def label(self, name: str | None = None) -> str:
        """What progress calls the row, or its mutant ``name``."""
        return f"[{self.index}/{self.total}] {name or self.row.id}"


@dataclass
class JobResult:
    outcome: RowOutcome | None              # None when stopped before the row had one
    interrupted: bool
    wall_s: float
    # What a worker's runs wrote on stderr (their notes), for the parent to
    # print: the parent's stderr may not be the worker's (a test runner's).
    notes: str = ""


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_job(job: RowJob, err: Console, show_progress: bool) -> JobResult:
    """The row, then its mutants; Ctrl-C stops the search under way (its
    partial result is kept) and the mutants not yet started."""
    started = time.monotonic()
    outcome = None
    try:
        with InterruptWatch() as watch:
            outcome = check_row(job.row, job.model, job.engine, job.out_dir, err, job.label(),
                                show_progress, job.workers)
            if job.mutants is not None:
                outcome.mutants = []
                for mutant, m_model in job.mutants:
                    if watch.hit:
                        break
                    outcome.mutants.append(check_mutant(
                        job.row, mutant, outcome.held, m_model, job.engine, job.out_dir, err,
                        job.label(mutant.name(job.row.id)), show_progress, job.workers))
    except KeyboardInterrupt:
        return JobResult(outcome, True, time.monotonic() - started)
    wall_s = time.monotonic() - started
    settle()        # what the row left behind is kept out of later collections
    return JobResult(outcome, watch.hit, wall_s)


def _job_models(job: RowJob) -> list[Model]:
    return [job.model, *(model for _, model in job.mutants or ())]


class _ReplyPickler(pickle.Pickler):
    """Pickles a worker's reply with the job's models by reference.  The
    parent has them already, and a reply holds each one in several places
    (the outcome, each trace's proof of replay): sent whole, they were most
    of what the reply cost to pickle and unpickle."""

    def __init__(self, file: io.BytesIO, models: Sequence[Model]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._numbers = {id(model): n for n, model in enumerate(models)}

    def persistent_id(self, obj: object) -> int | None:
        return self._numbers.get(id(obj)) if type(obj) is Model else None


class _ReplyUnpickler(pickle.Unpickler):
    """The parent's side of ``_ReplyPickler``: a model sent by reference is
    the parent's own object, so identities (``verified_for``) still hold."""

    def __init__(self, file: io.BytesIO, models: Sequence[Model]) -> None:
        super().__init__(file)
        self._models = models

    def persistent_load(self, pid: object) -> Model:
        assert isinstance(pid, int)
        return self._models[pid]


def _dump_reply(reply: tuple[str, object], job: RowJob) -> bytes:
    buffer = io.BytesIO()
    _ReplyPickler(buffer, _job_models(job)).dump(reply)
    return buffer.getvalue()


def _load_reply(data: bytes, job: RowJob) -> tuple[str, object]:
    kind, payload = _ReplyUnpickler(io.BytesIO(data), _job_models(job)).load()
    return kind, payload


def run_jobs(jobs: Sequence[RowJob], workers: int, err: Console, show_progress: bool,
             on_done: Callable[[RowJob, JobResult], None]) -> tuple[list[JobResult], bool]:
    """Every job, on ``workers`` processes (1: in this process, as before;
    the engine's own search threads are then every core).
    Returns the results of the jobs that ran, in job order, and whether
    Ctrl-C stopped the run."""
    if workers <= 1 or len(jobs) <= 1:
        return _run_here(jobs, err, show_progress, on_done)
    count = min(workers, len(jobs))
    # The cores are shared out: each row's search gets its part of them.
    threads = max(1, default_jobs() // count)
    return _run_in_workers([replace(job, workers=threads) for job in jobs], count, on_done)


def _run_here(jobs: Sequence[RowJob], err: Console, show_progress: bool,
              on_done: Callable[[RowJob, JobResult], None]) -> tuple[list[JobResult], bool]:
    results: list[JobResult] = []
    for job in jobs:
        result = run_job(job, err, show_progress)
        if result.outcome is not None:
            results.append(result)
            on_done(job, result)
        if result.interrupted:
            return results, True
    return results, False


def _worker_main(conn: Connection) -> None:
    """A worker: runs the jobs it receives until it receives None."""
    # Out of the terminal's process group, deaf to SIGINT between jobs: the
    # parent decides which search is stopped (InterruptWatch listens again
    # while a job runs).
    os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        buffer = io.StringIO()
        err = err_console(buffer)
        try:
            # A worker shows no live progress: the parent prints a line per row.
            result = run_job(job, err, False)
            result.notes = buffer.getvalue()
            reply: tuple[str, object] = ("done", result)
        except Exception as exc:            # the parent raises it as its own
            reply = ("raised", exc)
        try:
            data = _dump_reply(reply, job)
        except Exception as exc:            # an exception that does not pickle
            data = _dump_reply(("raised", RuntimeError(f"{type(exc).__name__}: {exc}")), job)
        conn.send_bytes(data)


class _Worker:
    def __init__(self, context: multiprocessing.context.BaseContext) -> None:
        self.context = context
        self.job: RowJob | None = None
        self.start()

    def start(self) -> None:
        self.conn, child = self.context.Pipe()
        self.process = self.context.Process(target=_worker_main, args=(child,),
                                            name="verdicts-job")
        self.process.start()
        child.close()

    def give(self, job: RowJob) -> None:
        self.job = job
        self.conn.send(job)

    def interrupt(self) -> None:
        if self.job is not None and self.process.pid is not None:
            try:
                os.kill(self.process.pid, signal.SIGINT)
            except ProcessLookupError:
                pass

    def close(self, force: bool) -> None:
        if force:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join()
        self.conn.close()


def _run_in_workers(jobs: Sequence[RowJob], count: int,
                    on_done: Callable[[RowJob, JobResult], None]
                    ) -> tuple[list[JobResult], bool]:
    # spawn, not fork: the parent may hold numba's or the JVM's threads.
    # One job at a time a worker (no queue ahead of it), so that after
    # Ctrl-C no row starts.
    context = multiprocessing.get_context("spawn")
    workers = [_Worker(context) for _ in range(count)]
    todo = list(jobs)
    by_index: dict[int, JobResult] = {}
    interrupted = force = False
    try:
        for worker in workers:
            if todo:
                worker.give(todo.pop(0))
        while any(w.job is not None for w in workers):
            try:
                stopped = _receive(workers, todo if not interrupted else [], by_index, on_done)
            except KeyboardInterrupt:
                if interrupted:
                    force = True            # a second Ctrl-C: stop waiting
                    break
                stopped = True
            if stopped and not interrupted:
                # Ctrl-C here, or a worker's search stopped by a SIGINT of its own.
                interrupted = True
                for worker in workers:
                    worker.interrupt()
    finally:
        for worker in workers:
            worker.close(force or worker.job is not None)
    results = [by_index[i] for i in sorted(by_index)]
    return results, interrupted or any(r.interrupted for r in results)


def _receive(workers: list[_Worker], todo: list[RowJob], by_index: dict[int, JobResult],
             on_done: Callable[[RowJob, JobResult], None]) -> bool:
    """Wait for a worker to finish its job; give it the next one.  True when
    a job came back interrupted."""
    busy = {w.conn: w for w in workers if w.job is not None}
    stopped = False
    for conn in connection_wait(list(busy)):
        worker = busy[conn]
        job = worker.job
        assert job is not None
        try:
            kind, payload = _load_reply(conn.recv_bytes(), job)
        except EOFError:
            # The worker died (the out-of-memory killer, a signal): its row
            # is unknown, never held, and a new worker takes the next row.
            worker.process.join()
            conn.close()
            code = worker.process.exitcode
            how = f"killed by signal {-code}" if code is not None and code < 0 else \
                f"exit code {code}"
            reason = f"the worker process running this row ended without an answer ({how})"
            kind, payload = "done", JobResult(lost_row(job.row, job.model, job.engine, reason),
                                              False, 0.0)
            worker.start()
        worker.job = None
        if kind == "raised":
            raise payload
        result = payload
        if result.outcome is not None:
            by_index[job.index] = result
            on_done(job, result)
        stopped = stopped or result.interrupted
        if todo and not stopped:
            worker.give(todo.pop(0))
    return stopped
