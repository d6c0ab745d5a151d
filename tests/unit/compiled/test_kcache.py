"""The kernel cache executes only what this process generated: a kernel file
changed after it was written, a missing or garbled hash file, or numba files
that differ from the ones the compiling run recorded are replaced (with a
note), never imported.  These tests use stand-in kernel sources, so no numba
compile runs."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("numba")

from modelcheck.engines.compiled.cache import kcache  # noqa: E402
from modelcheck.engines.compiled.codegen.module import CODEGEN_VERSION  # noqa: E402


@pytest.fixture
def source(tmp_path, request):
    """A stand-in kernel source unique to the test (so its module name is)."""
    text = f"# {tmp_path} {request.node.name}\nVALUE = 41 + 1\n"
    yield text
    path = kcache.kernel_path(tmp_path, kcache.kernel_key(text))
    sys.modules.pop(kcache.module_name(path), None)


def _load_fresh(source: str, cache: Path) -> tuple[object, Path, list[str]]:
    """Load as a new process would (the module is not imported yet)."""
    path = kcache.kernel_path(cache, kcache.kernel_key(source))
    sys.modules.pop(kcache.module_name(path), None)
    notes: list[str] = []
    module, path = kcache.load_kernel_module(source, cache, notes)
    return module, path, notes


def test_a_new_kernel_is_written_with_its_hash_and_generator_version(source, tmp_path):
    module, path, notes = _load_fresh(source, tmp_path)
    assert module.VALUE == 42 and notes == []
    assert path.read_text() == source
    record = path.with_suffix(".sha256").read_text().split("\n")
    assert record[0] == f"sha256 {kcache.source_digest(source)}"
    assert record[1] == f"generator {CODEGEN_VERSION}"
    _, _, again = _load_fresh(source, tmp_path)
    assert again == []                               # an intact entry is used quietly


def test_a_line_appended_to_a_cached_kernel_never_runs(source, tmp_path):
    _, path, _ = _load_fresh(source, tmp_path)
    sentinel = tmp_path / "ran"
    with open(path, "a") as f:
        f.write(f"open({str(sentinel)!r}, 'w').close()\n")
    module, path, notes = _load_fresh(source, tmp_path)
    assert not sentinel.exists()
    assert module.VALUE == 42 and path.read_text() == source
    assert len(notes) == 1 and "changed after it was written" in notes[0]
    assert "recompiling" in notes[0]


def test_a_truncated_kernel_is_rewritten(source, tmp_path):
    _, path, _ = _load_fresh(source, tmp_path)
    path.write_text(source[:10])
    module, _, notes = _load_fresh(source, tmp_path)
    assert module.VALUE == 42 and path.read_text() == source and len(notes) == 1


@pytest.mark.parametrize("damage", ["missing", "garbled", "other generator"])
def test_a_missing_or_garbled_hash_file_means_a_rewrite(source, tmp_path, damage):
    _, path, _ = _load_fresh(source, tmp_path)
    record = path.with_suffix(".sha256")
    if damage == "missing":
        record.unlink()
    elif damage == "garbled":
        record.write_bytes(b"\xff\xfe not a record")
    else:
        record.write_text(record.read_text().replace(f"generator {CODEGEN_VERSION}",
                                                     "generator 0"))
    module, _, notes = _load_fresh(source, tmp_path)
    assert module.VALUE == 42 and len(notes) == 1 and "hash file" in notes[0]
    assert record.read_text() == (f"sha256 {kcache.source_digest(source)}\n"
                                  f"generator {CODEGEN_VERSION}\n")


def test_a_worker_refuses_a_file_that_does_not_match_its_digest(source, tmp_path):
    """What a compile worker imports is checked against the digest its parent
    computed from the source it generated, not against the cache folder."""
    _, path, _ = _load_fresh(source, tmp_path)
    sys.modules.pop(kcache.module_name(path), None)
    sentinel = tmp_path / "ran"
    path.write_text(f"open({str(sentinel)!r}, 'w').close()\n")
    with pytest.raises(kcache.KernelCacheError):
        kcache.import_kernel_file(path, kcache.source_digest(source))
    assert not sentinel.exists()
    assert kcache.module_name(path) not in sys.modules


def _fake_numba_files(path: Path) -> list[Path]:
    folder = path.parent / "__pycache__"
    folder.mkdir(exist_ok=True)
    files = [folder / f"{path.stem}.expand_batch-12.py311.nbi",
             folder / f"{path.stem}.expand_batch-12.py311.1.nbc"]
    for f in files:
        f.write_bytes(b"compiled code " * 50)
    return files


def test_numba_files_are_used_only_as_the_compiling_run_left_them(source, tmp_path):
    _, path, _ = _load_fresh(source, tmp_path)
    index, data = _fake_numba_files(path)
    kcache.mark_warm(path)
    notes: list[str] = []
    assert kcache.is_warm(path, notes) and notes == []
    index.write_bytes(index.read_bytes()[:7])          # truncated, as by a full disk
    assert not kcache.is_warm(path, notes)
    assert len(notes) == 1 and "damaged" in notes[0]
    # Nothing of them is left for numba to load; the next compile starts over.
    assert not index.exists() and not data.exists()
    assert not path.with_suffix(".warm").exists()


def test_an_extra_numba_file_is_not_trusted(source, tmp_path):
    """A file the warm marker does not list (left by a compile that did not
    finish, such as the parallel kernels' beside a search that ended first)
    is removed; the files the marker lists are still used."""
    _, path, _ = _load_fresh(source, tmp_path)
    files = _fake_numba_files(path)
    kcache.mark_warm(path)
    planted = path.parent / "__pycache__" / f"{path.stem}.par_settle-3.py311.nbi"
    planted.write_bytes(b"planted")
    notes: list[str] = []
    assert kcache.is_warm(path, notes) and notes == []
    assert not planted.exists() and all(f.exists() for f in files)
    assert not kcache.has_compiled(path, "par_settle")
    assert kcache.has_compiled(path, "expand_batch")


def test_a_listing_is_kept_only_while_the_folder_is_unchanged(source, tmp_path):
    """numba's folder is listed once for many kernels, not once per kernel,
    while its modification time is old enough to be trusted; a file added
    since (the time moves) or within the racy window is seen at once."""
    _, path, _ = _load_fresh(source, tmp_path)
    files = _fake_numba_files(path)
    folder = files[0].parent
    old = time.time_ns() - 10 * kcache._RACY_NS
    os.utime(folder, ns=(old, old))
    assert kcache._numba_files(path) == sorted(files)
    planted = folder / f"{path.stem}.par_settle-3.py311.nbi"
    planted.write_bytes(b"planted")
    os.utime(folder, ns=(old, old))     # a change the folder's time does not show
    assert kcache._numba_files(path) == sorted(files)           # the kept listing
    os.utime(folder, ns=(old + 1, old + 1))
    assert kcache._numba_files(path) == sorted([*files, planted])
    other = folder / f"{path.stem}.par_fix-4.py311.nbi"
    other.write_bytes(b"new")           # just now: inside the racy window
    assert kcache._numba_files(path) == sorted([*files, planted, other])


def test_a_cold_compile_discards_numba_files_of_an_unfinished_one(source, tmp_path):
    _, path, _ = _load_fresh(source, tmp_path)
    files = _fake_numba_files(path)                   # no warm marker: never finished
    assert not kcache.is_warm(path, [])
    assert not any(f.exists() for f in files)


def test_the_compile_deadline_interrupts_a_long_block():
    with pytest.raises(kcache.CompileTimeout, match=r"timed out while compiling the kernel"):
        with kcache.compile_deadline(time.monotonic() + 0.05):
            time.sleep(30)


def test_a_deadline_already_past_stops_before_compiling():
    ran = []
    with pytest.raises(kcache.CompileTimeout):
        with kcache.compile_deadline(time.monotonic() - 1):
            ran.append(True)
    assert ran == []


def _llvmlite_callback():
    """A function that runs as if it were one of llvmlite's callbacks from LLVM
    (its code file is in llvmlite.binding): ``callback(f)`` returns ``f()``."""
    import llvmlite
    where = os.path.join(os.path.dirname(llvmlite.__file__), "binding", "executionengine.py")
    namespace: dict = {}
    exec(compile("def callback(f):\n    return f()\n", where, "exec"), namespace)
    return namespace["callback"]


def test_frames_inside_llvm_callbacks_are_recognised():
    callback = _llvmlite_callback()
    assert callback(lambda: kcache.in_native_callback(sys._getframe()))
    assert not kcache.in_native_callback(sys._getframe())


def test_the_compile_deadline_waits_until_llvm_has_returned():
    """Raised inside a callback, the timeout would be swallowed by ctypes: it
    comes once the callback has returned."""
    callback = _llvmlite_callback()
    finished = []
    with pytest.raises(kcache.CompileTimeout):
        with kcache.compile_deadline(time.monotonic() + 0.05):
            finished.append(callback(lambda: time.sleep(0.5) or "done"))
            time.sleep(30)
    assert finished == ["done"]


def test_a_kernel_plan_is_kept_and_a_damaged_one_ignored(tmp_path):
    kcache.store_plan(tmp_path, "k", {"actions": (1, 2)})
    assert kcache.load_plan(tmp_path, "k") == {"actions": (1, 2)}
    [path] = tmp_path.glob("kernels/plans/k.pickle")
    path.write_bytes(path.read_bytes()[:5])
    assert kcache.load_plan(tmp_path, "k") is None
    assert kcache.load_plan(tmp_path, "missing") is None
    kcache.store_plan(tmp_path, "lambda", lambda: 0)       # does not pickle: not kept
    assert kcache.load_plan(tmp_path, "lambda") is None


def test_a_plan_is_loaded_for_the_same_model_and_made_for_a_moved_one(tmp_path, monkeypatch):
    from modelcheck import api
    from modelcheck.engines.compiled.kernels import KernelOptions, _KernelPlan
    spec = Path(__file__).resolve().parents[3] / "specs" / "examples" / "two_phase.mc"
    options = KernelOptions(cache_dir=str(tmp_path))
    made = _KernelPlan.cached(api.load(str(spec), {"N": "3"}), options)

    def no_generation(model, options):
        raise AssertionError("generated again")
    with monkeypatch.context() as m:
        m.setattr(_KernelPlan, "of", classmethod(no_generation))
        loaded = _KernelPlan.cached(api.load(str(spec), {"N": "3"}), options)
    assert loaded.generated.source == made.generated.source
    assert (loaded.layout.words, loaded.layout.slots) == (made.layout.words, made.layout.slots)
    # Two lines down: the same kernel code, but its plan's nodes carry the
    # spans run-time errors are reported at, so it is made for this text.
    first, rest = spec.read_text().split("\n", 1)
    moved = tmp_path / "two_phase.mc"
    moved.write_text(first + "\n\n\n" + rest)
    again = _KernelPlan.cached(api.load(str(moved), {"N": "3"}), options)
    assert again.generated.source == made.generated.source
    assert len(list(tmp_path.glob("kernels/plans/*.pickle"))) == 2
    old, new = ([p.span.line for p in plan.generated.state_cols] for plan in (made, again))
    assert old and new == [line + 2 for line in old]
