"""Atomic file writes: a reader, or a crash, sees the old file or the whole new
one under the final name, never half of it.  Every writer of a result file
(traces, trace pages) goes through here; the data goes to a temporary file
in the same folder (so the rename stays on one file system) and is renamed
over the target.  And the user's cache folder (kernels, the parser's tables)."""
from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["atomic_writer", "write_atomic", "fsync_directory", "sha256_file", "is_temp_name",
           "remove_stale_temps", "TEMP_SUFFIX", "CACHE_ENV", "default_cache_dir"]

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
