"""The on-disk kernel cache.

A kernel module is keyed by a hash of its generated source (which is a pure
function of the IR, the options that shape it and ``CODEGEN_VERSION``), the
source of the runtime modules it imports, and the numba and Python versions.
It is written once to ``<cache>/kernels/mc_<key>.py`` (atomically, so
concurrent processes agree) and not rewritten unless damaged, so numba's own cache
(``cache=True``, in ``__pycache__`` beside it, keyed by the file's timestamp)
stays valid: a second run of the same spec loads machine code instead of
compiling it.

A kernel file is executed only when its bytes hash to the sha256 of the
source this process generated (recorded, with the generator version, in
``mc_<key>.sha256``), so nothing written there by anyone else runs.  numba's
index and data files are loaded only when they match the manifest the run
that compiled them wrote (``mc_<key>.warm``): numba unpickles its index, so a
damaged one would crash the run.  (The manifest lives in the same folder: it
catches damage and edits, not someone who rewrites the manifest as well.)
Anything else is thrown away and compiled again, with a one-line note.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType, ModuleType

from modelcheck.fsutil import CACHE_ENV, default_cache_dir, sha256_file, write_atomic

__all__ = ["CACHE_ENV", "CompileTimeout", "KernelCacheError", "compile_deadline", "compile_lock",
           "default_cache_dir", "has_compiled", "import_kernel_file", "in_native_callback",
           "index_key", "indexed", "indexed_warm", "is_warm", "kernel_key", "kernel_path",
           "load_kernel_module", "load_plan", "looks_warm", "mark_warm", "module_name",
           "note_spec_warm", "numba_version", "precompile", "record_index", "source_digest",
           "spec_warm", "store_plan"]

#: The kernel room's modules a kernel imports or whose codes its callers read
#: (the templates are in the generated source itself).
_RUNTIME_FILES = ("runtime.py", "table.py", "widths.py", "driver.py", "par_driver.py",
                  "claim_driver.py", "live_driver.py")
#: Entries written before kernels had hash files and manifests get other keys,
#: so they are left alone rather than reported as damaged.
_CACHE_FORMAT = 2
#: How soon a signal handler that found numba inside LLVM tries again.
_RETRY_S = 0.05
#: A folder changed this recently may change again within its clock's tick,
#: unseen in its modification time: its listing is not kept.
_RACY_NS = 2_000_000_000


class KernelCacheError(Exception):
    """A kernel file is not the one this process generated."""


class CompileTimeout(Exception):
    """The time left (``--timeout``) ran out while the kernel was compiling."""

    def __init__(self, elapsed_s: float):
        super().__init__(f"timed out while compiling the kernel (after {elapsed_s:.1f} s)")
        self.elapsed_s = elapsed_s


def numba_version() -> str:
    """numba's version, read from its installed distribution's folder name
    when there is exactly one beside the package (the default engine asks
    whether a kernel is cached without paying for importing numba, ~1 s),
    else from numba itself.  Either way the same answer in every process."""
    import importlib.util
    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        raise ImportError("numba is not installed")
    site = Path(spec.origin).parent.parent
    found = [p.name for p in site.glob("numba-*.dist-info")]
    if len(found) == 1:
        return found[0][len("numba-"):-len(".dist-info")]
    import numba
    return str(numba.__version__)


def kernel_key(source: str) -> str:
    h = hashlib.sha256()
    h.update(source.encode())
    here = Path(__file__).resolve().parents[1] / "kernel"
    for name in _RUNTIME_FILES:
        h.update((here / name).read_bytes())
    h.update(f"numba {numba_version()} python {sys.version_info[:3]}".encode())
    h.update(f"cache format {_CACHE_FORMAT}".encode())
    return h.hexdigest()[:32]


def source_digest(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


# ---------------------------------------------------------------- the index
# Generating a kernel's source, to find its key, takes a while (0.3-0.8 s
# for the quorum queue): too long for the default engine to ask, at the
# start of every run, whether the kernel is ready.  The index maps a key of
# the model itself (``ir.digest``) and of the code that generates kernels to
# the kernel's key, written once a kernel has been generated.  It only
# chooses the fastest way to a verdict: the run that uses the kernel
# generates the source and loads the kernel by that source's own key, so a
# stale or wrong entry costs time, never a wrong kernel.

@functools.lru_cache(maxsize=1)
def _package_digest() -> str:
    """The sha256 of every Python file of modelcheck: any change to the
    code that generates kernels (or that it depends on) makes new index keys."""
    root = Path(__file__).resolve().parents[3]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def index_key(model_digest: str) -> str:
    """The index key of a model whose ``ir_digest`` (with the options that
    shape its kernel) is ``model_digest``."""
    h = hashlib.sha256()
    h.update(model_digest.encode())
    h.update(_package_digest().encode())
    h.update(f"numba {numba_version()} python {sys.version_info[:3]}".encode())
    h.update(f"cache format {_CACHE_FORMAT}".encode())
    return h.hexdigest()[:32]


def _index_path(cache_dir: str | os.PathLike | None, key: str) -> Path:
    return kernel_path(cache_dir, "0").parent / "index" / key


def _plan_path(cache_dir: str | os.PathLike | None, key: str) -> Path:
    return kernel_path(cache_dir, "0").parent / "plans" / f"{key}.pickle"


def load_plan(cache_dir: str | os.PathLike | None, key: str) -> object | None:
    """The kernel plan (generated code and what the run needs of it) stored
    under index ``key``, or None.  It is unpickled as numba's own index is:
    the cache folder is the user's; a damaged file is ignored (and replaced)."""
    try:
        data = _plan_path(cache_dir, key).read_bytes()
    except OSError:
        return None
    try:
        return pickle.loads(data)
    except Exception:  # noqa: BLE001 - truncated or stale: made again
        return None


def store_plan(cache_dir: str | os.PathLike | None, key: str, plan: object) -> None:
    """Keep ``plan`` under index ``key``; one that cannot be kept only costs
    the next run its generation."""
    try:
        data = pickle.dumps(plan, protocol=pickle.HIGHEST_PROTOCOL)
        path = _plan_path(cache_dir, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
    except Exception:  # noqa: BLE001 - a folder not writable, a value that does not pickle
        return


def record_index(cache_dir: str | os.PathLike | None, key: str, source: str) -> None:
    """Note that the model of index ``key`` has the kernel of ``source``."""
    path = _index_path(cache_dir, key)
    entry = f"{kernel_key(source)} {source_digest(source)}\n".encode()
    with contextlib.suppress(OSError):
        if path.exists() and path.read_bytes() == entry:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, entry)


def _spec_hint_path(cache_dir: str | os.PathLike | None, spec_name: str) -> Path:
    name = hashlib.sha256(spec_name.encode()).hexdigest()[:32]
    return kernel_path(cache_dir, "0").parent / "index" / f"spec-{name}"


def note_spec_warm(cache_dir: str | os.PathLike | None, spec_name: str) -> None:
    """Note that some configuration of the spec named ``spec_name`` has a
    compiled kernel (``spec_warm``)."""
    path = _spec_hint_path(cache_dir, spec_name)
    with contextlib.suppress(OSError):
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, b"")


def spec_warm(cache_dir: str | os.PathLike | None, spec_name: str) -> bool:
    """Whether some configuration of the spec named ``spec_name`` had its
    kernel compiled in this cache: then another configuration, which the
    index does not know yet, may well share it (one kernel serves every
    configuration of a layout), and is worth generating to look.  A hint
    only, like the index."""
    return _spec_hint_path(cache_dir, spec_name).exists()


def indexed(cache_dir: str | os.PathLike | None, key: str) -> bool:
    """Whether the index has an entry for ``key``, warm or not."""
    return _index_path(cache_dir, key).exists()


def indexed_warm(cache_dir: str | os.PathLike | None, key: str, backend: str = "numba") -> bool:
    """``looks_warm`` for the kernel the index gives for ``key``, without its
    source: False when the index has no entry."""
    try:
        kkey, digest = _index_path(cache_dir, key).read_text().split()
    except (OSError, ValueError):
        return False
    return _entry_warm(cache_dir, kkey, digest, backend)


def kernel_path(cache_dir: str | os.PathLike | None, key: str) -> Path:
    root = Path(cache_dir) if cache_dir else default_cache_dir()
    return root / "kernels" / f"mc_{key}.py"


def module_name(path: Path) -> str:
    return f"modelcheck_kernels_{path.stem[len('mc_'):]}"


def import_kernel_file(path: Path, digest: str) -> ModuleType:
    """Import the kernel module file at ``path`` (once per process), provided
    its bytes hash to ``digest``; raises KernelCacheError otherwise.  The
    bytes that were checked are the bytes executed."""
    name = module_name(path)
    module = sys.modules.get(name)
    if module is not None:
        return module
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != digest:
        raise KernelCacheError(f"{path} does not hash to {digest}")
    module = ModuleType(name)
    module.__file__ = str(path)
    # Registered before running so numba can find the module of its functions.
    sys.modules[name] = module
    try:
        exec(compile(data, str(path), "exec"), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _hash_file(path: Path) -> Path:
    return path.with_suffix(".sha256")


def _hash_record(digest: str) -> str:
    from modelcheck.engines.compiled.codegen.module import CODEGEN_VERSION
    return f"sha256 {digest}\ngenerator {CODEGEN_VERSION}\n"


def _record_damage(path: Path, digest: str) -> str | None:
    """Why the hash record of the cached kernel at ``path`` rules it out, or
    None.  The kernel's own bytes are checked where they are imported, once."""
    try:
        record = _hash_file(path).read_text()
    except (OSError, UnicodeDecodeError):
        return "its hash file is missing or unreadable"
    if record != _hash_record(digest):
        return "its hash file does not match"
    return None


def load_kernel_module(source: str, cache_dir: str | os.PathLike | None,
                       notes: list[str] | None = None) -> tuple[ModuleType, Path]:
    """Write (if new, or damaged) and import the kernel module for ``source``.
    A damaged cache entry is replaced, with a note appended to ``notes``."""
    key = kernel_key(source)
    path = kernel_path(cache_dir, key)
    name = module_name(path)
    loaded = sys.modules.get(name)
    if loaded is not None:
        # Loaded by this process, maybe from another cache folder: its own
        # file is the one whose numba cache and warm manifest count.
        return loaded, Path(loaded.__file__ or path)
    digest = source_digest(source)
    why = _record_damage(path, digest) if path.exists() else "new"
    if why is None:
        try:
            return import_kernel_file(path, digest), path
        except KernelCacheError:
            why = "it was changed after it was written"
        except OSError:
            why = "it cannot be read"
    if why != "new" and notes is not None:
        notes.append(f"kernel cache: {path.name} was not used ({why}); recompiling")
    path.parent.mkdir(parents=True, exist_ok=True)
    _forget_compiled(path)
    # The record first: a concurrent run that sees the kernel sees it too.
    write_atomic(_hash_file(path), _hash_record(digest).encode())
    write_atomic(path, source.encode())
    return import_kernel_file(path, digest), path


# ---------------------------------------------------------------- numba's cache

def _warm_marker(path: Path) -> Path:
    return path.with_suffix(".warm")


def _numba_files(path: Path) -> list[Path]:
    """numba's index and data files for the kernel at ``path`` (its in-tree
    ``__pycache__``, or ``NUMBA_CACHE_DIR``'s mirror of the folder)."""
    from numba.core import config
    from numba.core.caching import _CacheLocator
    folders = [path.parent / "__pycache__"]
    if config.CACHE_DIR:
        folders.append(Path(config.CACHE_DIR) / _CacheLocator.get_suitable_cache_subpath(str(path)))
    return sorted(folder / name for folder in folders
                  for name in _kernel_files(folder).get(path.stem, ()))


def _kernel_files(folder: Path) -> dict[str, tuple[str, ...]]:
    """numba's files in ``folder``, by kernel (``mc_<key>``).  A user's cache
    folder holds the files of every kernel ever compiled (40,000 here), and
    listing it for each kernel loaded took 0.1 s, more than loading the
    kernel: a listing is kept for as long as the folder's modification time
    stays the same.  That time moves with each file added or removed, but
    only by the file system clock's tick, so a folder changed within the
    last seconds is listed again each time (as git treats a "racy" index)."""
    try:
        stamp = folder.stat().st_mtime_ns
    except OSError:
        return {}
    if time.time_ns() - stamp < _RACY_NS:
        return _list_kernel_files(str(folder))
    return _kept_listing(str(folder), stamp)


def _list_kernel_files(folder: str) -> dict[str, tuple[str, ...]]:
    by_kernel: dict[str, list[str]] = {}
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            stem, _, rest = entry.name.partition(".")
            if rest.endswith((".nbi", ".nbc")):
                by_kernel.setdefault(stem, []).append(entry.name)
    return {stem: tuple(names) for stem, names in by_kernel.items()}


@functools.lru_cache(maxsize=4)
def _kept_listing(folder: str, stamp: int) -> dict[str, tuple[str, ...]]:
    """``_list_kernel_files`` of ``folder`` as it is at modification time ``stamp``."""
    return _list_kernel_files(folder)


def _manifest(path: Path) -> dict[str, str]:
    return {f.name: sha256_file(f) for f in _numba_files(path)}


def _forget_compiled(path: Path) -> None:
    """Remove the warm marker and numba's files for the kernel at ``path``."""
    for f in [_warm_marker(path), *_numba_files(path)]:
        with contextlib.suppress(FileNotFoundError):
            f.unlink()


def is_warm(path: Path, notes: list[str] | None = None) -> bool:
    """Whether every entry point of the module at ``path`` was compiled (and
    so is in numba's cache) by an earlier run, and numba's files are still the
    ones that run wrote.  When they are not, they are removed (so nothing of
    them is loaded), with a note appended to ``notes``."""
    try:
        recorded = json.loads(_warm_marker(path).read_text())
    except FileNotFoundError:
        # A cold compile: files of an earlier, unfinished one are not trusted.
        _forget_compiled(path)
        return False
    except (OSError, ValueError):
        recorded = None
    current = _manifest(path)
    if isinstance(recorded, dict) and all(current.get(n) == h for n, h in recorded.items()):
        # Files the marker does not list come from a compile that did not
        # finish (a search that ended while its parallel kernels compiled in
        # the background): not trusted, so removed; the rest is as recorded.
        for f in _numba_files(path):
            if f.name not in recorded:
                with contextlib.suppress(FileNotFoundError):
                    f.unlink()
        return True
    if notes is not None:
        notes.append(f"kernel cache: numba's compiled code for {path.name} was changed or "
                     f"damaged; recompiling")
    _forget_compiled(path)
    return False


@contextlib.contextmanager
def compile_lock(path: Path, deadline: float | None = None) -> Iterator[None]:
    """Held while one process checks and compiles the kernel module at ``path``:
    a second process that wants the same kernel (the next row of ``make
    check``, a run started while an earlier one's compile finishes in the
    background) waits here, then finds it warm, instead of compiling it
    beside the first (and, by ``is_warm``, throwing away the first one's
    unfinished files).  An advisory ``flock``, which the system releases
    when its holder dies, however it dies.  CompileTimeout once ``deadline``
    (time.monotonic()) passes while waiting.  Where ``fcntl`` is missing it
    does not wait."""
    lock = path.with_suffix(".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:          # pragma: no cover - not Linux or macOS
        yield
        return
    start = time.monotonic()
    with open(lock, "a") as f:
        while True:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if deadline is not None and time.monotonic() >= deadline:
                    raise CompileTimeout(time.monotonic() - start) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def looks_warm(source: str, cache_dir: str | os.PathLike | None, backend: str = "numba") -> bool:
    """Whether the kernel for ``source`` is in the cache with its warm
    manifest: a quick look that imports nothing (numba's own files are
    checked against the manifest only when the kernel is loaded, by
    ``is_warm``).  It only chooses the fastest way to a verdict: a kernel
    that looked warm but is not is compiled when loaded, as always."""
    return _entry_warm(cache_dir, kernel_key(source), source_digest(source), backend)


def _entry_warm(cache_dir: str | os.PathLike | None, key: str, digest: str,
                backend: str = "numba") -> bool:
    """Whether the kernel entry ``key`` is there, with the hash record of the
    source whose sha256 is ``digest`` and what the backend built of it:
    numba's warm manifest, or the C library (c/cache.py)."""
    from modelcheck.engines.compiled.c.cache import c_library_built
    path = kernel_path(cache_dir, key)
    built = c_library_built(path) if backend == "c" else _warm_marker(path).exists()
    return path.exists() and built and _record_damage(path, digest) is None


def mark_warm(path: Path) -> None:
    write_atomic(_warm_marker(path), json.dumps(_manifest(path), sort_keys=True).encode())


def has_compiled(path: Path, function: str) -> bool:
    """Whether the warm marker of the kernel at ``path`` lists numba's files
    for ``function`` (compiled by an earlier run, and so loaded, not compiled)."""
    try:
        recorded = json.loads(_warm_marker(path).read_text())
    except (OSError, ValueError):
        return False
    prefix = f"{path.stem}.{function}-"
    return isinstance(recorded, dict) and any(n.startswith(prefix) for n in recorded)


# ---------------------------------------------------------------- compiling

def in_native_callback(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs in llvmlite's code, which includes the callbacks
    LLVM makes into Python while numba compiles or loads a kernel (its object
    cache): an exception raised there is swallowed by ctypes and leaves numba
    half-way ("no compiled object yet"), so a signal handler should not raise
    one there but try again a moment later."""
    llvmlite = sys.modules.get("llvmlite")
    if llvmlite is None or llvmlite.__file__ is None:
        return False
    root = os.path.join(os.path.dirname(llvmlite.__file__), "binding")
    while frame is not None:
        if frame.f_code.co_filename.startswith(root):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def compile_deadline(deadline: float | None) -> Iterator[None]:
    """Raise CompileTimeout in this block once ``time.monotonic()`` passes
    ``deadline``.  numba compiles in this thread and cannot be asked to stop,
    so a timer signal interrupts it (and ``precompile``'s wait for its
    workers, which then stops them).  Only the main thread receives signals:
    elsewhere the block is checked only when it ends."""
    if deadline is None:
        yield
        return
    start = time.monotonic()
    if start >= deadline:
        raise CompileTimeout(0.0)
    if threading.current_thread() is not threading.main_thread():
        yield
        if time.monotonic() >= deadline:
            raise CompileTimeout(time.monotonic() - start)
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        if in_native_callback(frame):
            signal.setitimer(signal.ITIMER_REAL, _RETRY_S)
            return
        raise CompileTimeout(time.monotonic() - start)
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, deadline - start)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def precompile(path: Path, digest: str, jobs: list[tuple[str, str]], workers: int) -> None:
    """Compile the functions ``jobs`` ((name, numba signature), largest first)
    of the kernel module at ``path`` (whose sha256 is ``digest``) in
    ``workers`` processes; each fills numba's disk cache, from which this
    process then loads them.  numba compiles one function on one core, so a
    kernel with many actions compiles several times faster this way.  The
    workers are plain ``python -m`` processes (not multiprocessing), so a
    caller's own script is never re-imported.  A worker that fails only costs
    time: whatever it did not compile is compiled here afterwards.  Whatever
    ends the wait (an interrupt, a timeout) ends the workers too; should this
    process be killed outright, they end themselves (see ``precompile.main``)."""
    shares: list[list[str]] = [[] for _ in range(workers)]
    for i, (func, signature) in enumerate(jobs):
        shares[i % workers].append(f"{func}={signature}")
    procs: list[subprocess.Popen] = []
    try:
        for share in shares:
            if share:
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "modelcheck.engines.compiled.cache.precompile",
                     str(path), digest, str(os.getpid()), *share],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for proc in procs:
            proc.wait()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
