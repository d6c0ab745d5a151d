"""Atomic file writes: a reader, or a crash, sees the old file or the whole new
one under the final name, never half of it.  Every writer of a result file
(traces, trace pages) goes through here; the data goes to a temporary file
in the same folder (so the rename stays on one file system) and is renamed
over the target; a file that must not replace another (a time-stamped trace)
takes a free name by creating it (``write_new``).  Also: reading the small
JSON files modelcheck keeps (checkpoint manifests), where every way a file
can be damaged is a ValueError, and the user's cache folder (kernels, the
parser's tables)."""
from __future__ import annotations

import errno
import hashlib
import itertools
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["atomic_writer", "write_atomic", "write_new", "fsync_directory", "sha256_file",
           "is_temp_name", "remove_stale_temps", "read_json_file", "loads_json", "TEMP_SUFFIX",
           "CACHE_ENV", "default_cache_dir"]

#: Names the cache folder itself, ahead of the platform's default.
CACHE_ENV = "MODELCHECK_CACHE"

#: Temporary files are named ``.<target name>.<random>.tmp`` in the target's
#: folder, so that a cleanup after a SIGKILL can find them.
TEMP_SUFFIX = ".tmp"


@contextmanager
def atomic_writer(path: str | Path, *, binary: bool = False,
                  durable: bool = False) -> Iterator[IO]:
    """A file to write ``path``'s new content into, renamed over ``path``
    when the block ends without an exception; on any exception (Ctrl-C
    included) the temporary file is removed and ``path`` is untouched.
    ``durable`` fsyncs the data and the folder, so the new file survives a
    power cut, not only a crash of this process.  Raises OSError."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent)
    try:
        with os.fdopen(fd, "wb" if binary else "w",
                       **({} if binary else {"encoding": "utf-8"})) as handle:
            # mkstemp makes the file private; the result gets the mode a plain
            # open() would give it (or keeps the mode of the file it replaces).
            os.fchmod(handle.fileno(), _mode_for(target))
            yield handle
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    if durable:
        fsync_directory(target.parent)


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask.  Linux shows it in /proc; elsewhere it can only
    be read by setting it, which changes it for every thread for a moment:
    the value set meanwhile is a private one, so a file another thread
    creates then is too private rather than too open."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def write_atomic(path: str | Path, data: str | bytes, *, durable: bool = False) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically (see ``atomic_writer``)."""
    with atomic_writer(path, binary=isinstance(data, bytes), durable=durable) as handle:
        handle.write(data)


def write_new(candidates: Iterable[str | Path], data: str | bytes, *,
              durable: bool = False) -> Path:
    """Write ``data`` under the first of ``candidates`` (paths in one folder)
    that no file has, and return it.  The name is taken by creating it, not
    by looking first, so that two processes writing at once never get the
    same one: the whole file, written under a temporary name, is linked to
    the name, which fails if the name exists.  On a file system without
    links the name is taken by an exclusive create, then the whole file is
    renamed over it.  Raises OSError, and FileExistsError when every
    candidate is taken."""
    names = (Path(c) for c in candidates)
    first = next(names, None)
    if first is None:
        raise ValueError("no name to write to")
    fd, tmp = tempfile.mkstemp(prefix=f".{first.name}.", suffix=TEMP_SUFFIX, dir=first.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), 0o666 & ~_umask())
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        target = _claim(tmp, itertools.chain([first], names))
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    if durable:
        fsync_directory(target.parent)
    return target


def _claim(tmp: str, names: Iterable[Path]) -> Path:
    target = None
    for target in names:
        try:
            os.link(tmp, target)
            return target
        except FileExistsError:
            continue
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV,
                                 errno.EMLINK):
                raise
        try:
            os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        except FileExistsError:
            continue
        os.replace(tmp, target)
        return target
    raise FileExistsError(errno.EEXIST, "every name is taken", str(target))


def loads_json(text: str | bytes, what: str = "the JSON text") -> object:
    """``json.loads``, but ValueError for every way the text can be bad,
    nesting deeper than Python's recursion limit included (RecursionError
    from json.loads: ``[[[[...]]]]`` 100,000 levels deep is a few hundred
    kilobytes) and bytes that are not UTF-8 (UnicodeDecodeError is one)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply to be read") from None


def read_json_file(path: str | Path, limit: int = 64 << 20) -> object:
    """The JSON value in the file at ``path``: a ValueError naming the file
    when it is larger than ``limit`` bytes (it is not read), not UTF-8, not
    JSON, or nested too deeply; OSError when it cannot be read
    (FileNotFoundError when it is not there)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise ValueError(f"{path} is {size:,} bytes, more than the {limit:,} it may have")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path} is more than the {limit:,} bytes it may have")
    try:
        return loads_json(data, str(path))
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 ({err.reason})") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not JSON ({err})") from None


def fsync_directory(folder: str | Path) -> None:
    """Make a rename in ``folder`` durable; not possible on every platform,
    where it does nothing."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sha256_file(path: str | Path) -> str:
    """The sha256 of a file's bytes, read a block at a time (checkpoints are large)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is the temporary file of an ``atomic_writer``."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def remove_stale_temps(folder: str | Path) -> None:
    """Remove what writes killed before their rename left in ``folder`` (a
    SIGKILL runs no cleanup).  Only for folders one writer owns at a time: a
    concurrent writer's temporary file would go too."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return
    for name in names:
        if is_temp_name(name):
            try:
                os.unlink(os.path.join(folder, name))
            except FileNotFoundError:
                pass


def default_cache_dir() -> Path:
    """``$MODELCHECK_CACHE`` when set, else the platform's user cache folder:
    ``$XDG_CACHE_HOME/modelcheck`` or ``~/.cache/modelcheck`` on Linux,
    ``~/Library/Caches/modelcheck`` on macOS, ``%LOCALAPPDATA%`` on Windows."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs
    return Path(platformdirs.user_cache_dir("modelcheck", appauthor=False))
