"""Getting a SparkContext for the engine: reuse, configuration, shipping the package.

One context serves a whole process (Spark allows one per JVM, and starting
one costs seconds): ``spark_context`` returns the active one when its master
is the one asked for, else starts one.  With no master the engine runs
Spark embedded in this process (``local[*]``); ``spark://``, ``yarn`` and
``k8s://`` masters run the same job on a cluster.

Workers run this interpreter (``spark.pyspark.python``); on a cluster the
modelcheck package is zipped and shipped as an archive (``spark.archives``)
that executors extract and put first on their PYTHONPATH, so they import the
same code as the driver.  Unless verbose, the driver JVM's output goes to
a log file and its log level is ERROR, so Spark prints nothing of its own.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from modelcheck.engines.spark.worker_daemon import warm

if TYPE_CHECKING:
    from pyspark import SparkContext

__all__ = ["SessionInfo", "spark_context", "warmed_up", "stop_spark", "is_local",
           "default_partitions", "local_driver_memory", "STATES_PER_PARTITION",
           "package_zip", "log_dir", "java_version", "conf_from_options", "DEFAULT_MASTER"]

DEFAULT_MASTER = "local[*]"
_APP_NAME = "modelcheck"
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class SessionInfo:
    master: str
    default_parallelism: int
    log_file: str | None


def is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def log_dir() -> str:
    """Per-user folder for the driver logs and the package zip."""
    path = os.path.join(tempfile.gettempdir(), f"modelcheck-spark-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


#: The local JVM's options: compile with C1 only (``_conf_settings``).
_LOCAL_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"


def _conf_settings(master: str, verbose: bool, extra: dict[str, str]) -> dict[str, str]:
    settings = {
        "spark.master": master,
        "spark.app.name": _APP_NAME,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "true" if verbose else "false",
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        # Each level is a short job over cached parts: waiting seconds for a
        # busy executor that holds a part costs more than fetching the part.
        "spark.locality.wait": "100ms",
        "spark.executorEnv.PYTHONHASHSEED": "0",
        # A Python worker loads the kernels once (seconds); a fresh worker
        # per task would pay that every level.
        "spark.python.worker.reuse": "true",
        # The workers' daemon loads the engine's modules once, before it
        # forks them (worker_daemon.py: the first level -1.5 s on Raft).
        "spark.python.daemon.module": "modelcheck.engines.spark.worker_daemon",
        # A task allocates and frees arrays of hundreds of MB; glibc serves
        # each from a fresh mmap, which the kernel faults in and zeroes (a
        # fifth of the workers' CPU under perf).  From the heap, kept up to
        # a trim threshold, the next task's arrays reuse the same pages
        # (docs/engines/spark.md, "100M states": -16% of the workers' CPU).
        "spark.executorEnv.MALLOC_MMAP_MAX_": "0",
        "spark.executorEnv.MALLOC_TRIM_THRESHOLD_": str(2 << 30),
        # The JVM's own records (the shuffle's (key, bytes) pairs) are
        # serialised: Kryo is faster and smaller than Java serialisation.
        "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
    }
    host = urlparse(master).hostname if "://" in master else None
    if is_local(master) or (host is not None and host in _LOCAL_HOSTS):
        # Keep an embedded or one-machine run off the network.
        settings["spark.driver.host"] = "127.0.0.1"
        settings["spark.driver.bindAddress"] = "127.0.0.1"
    if is_local(master):
        settings["spark.driver.memory"] = local_driver_memory()
        # The driver is the only JVM, and with the exchange files it runs no
        # hot loop of its own (the tasks' work is the Python workers'): the
        # optimising compiler's (C2) compilations were most of its CPU
        # during a search (docs/engines/spark.md, "The JVM's share").
        settings["spark.driver.extraJavaOptions"] = _LOCAL_JAVA_OPTIONS
        # The shuffle stays on this machine's disk, and fingerprints (half of
        # what it carries) do not compress: compressing costs CPU for nothing.
        settings["spark.shuffle.compress"] = "false"
    settings.update(extra)
    return settings


def spark_context(master: str | None, verbose: bool = False,
                  conf: dict[str, str] | None = None) -> tuple["SparkContext", SessionInfo]:
    """The process's SparkContext for ``master``.  ``None`` reuses the active
    context whatever its master (one made by the caller, say), else takes the
    master given to spark-submit when run by it, else starts an embedded one;
    a context for another master is stopped first."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    wanted = master or DEFAULT_MASTER
    # pyspark keeps the one active context of the process in this class field.
    with SparkContext._lock:
        active = SparkContext._active_spark_context
        if active is not None:
            if master is None or active.master == wanted:
                _set_verbosity(active, verbose)
                return active, _info(active, None)
            active.stop()
        # Workers must run this interpreter with this package: pyspark reads
        # the executable from the environment when the context starts.
        os.environ["PYSPARK_PYTHON"] = sys.executable
        log_file = None
        gateway = None
        submitted = "PYSPARK_GATEWAY_PORT" in os.environ and SparkContext._gateway is None
        if submitted:
            # Run by spark-submit: its JVM holds the submitted settings
            # (--master, --conf ...), which win over ours.
            gateway = launch_gateway()
            spark_conf = SparkConf(_jvm=gateway.jvm)
            wanted = master or spark_conf.get("spark.master", DEFAULT_MASTER)
        else:
            spark_conf = SparkConf()
        settings = _conf_settings(wanted, verbose, conf or {})
        if not is_local(wanted):
            settings.update(_shipping(settings))
        for key, value in settings.items():
            if not (submitted and spark_conf.contains(key) and key not in (conf or {})):
                spark_conf.set(key, value)
        if not verbose and gateway is None and SparkContext._gateway is None:
            log_file = os.path.join(log_dir(), f"driver-{os.getpid()}.log")
            with open(log_file, "ab") as sink:
                gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": sink, "stderr": sink})
        sc = SparkContext(conf=spark_conf, gateway=gateway)
        _warm_up(sc)
    _set_verbosity(sc, verbose)
    return sc, _info(sc, log_file)


def _warm_up(sc: "SparkContext") -> None:
    """Start the executors' Python daemon and one worker a core now, in a
    job of its own on a thread of its own, while the driver compiles the
    spec and runs the narrow levels: the daemon's loading
    (worker_daemon.py) would otherwise be the first Spark level's.  A
    failure here is the first level's to report, so it is ignored."""
    import threading

    def run() -> None:
        try:
            sc.setJobGroup("modelcheck-warm-up", "start the Python workers")
            n = max(1, sc.defaultParallelism)
            sc.parallelize(range(n), n).foreachPartition(warm)
        except Exception:          # a stopped context, a failed executor: see above
            pass

    thread = threading.Thread(target=run, name="modelcheck-spark-warm-up", daemon=True)
    thread.start()
    # Kept on the context, which it belongs to: ``warmed_up`` waits for it.
    sc._modelcheck_warm_up = thread        # type: ignore[attr-defined]


def warmed_up(sc: "SparkContext", timeout_s: float = 60.0) -> bool:
    """Wait for the context's warm-up job (benchmarks count it as start-up);
    True when none is running."""
    thread = getattr(sc, "_modelcheck_warm_up", None)
    if thread is not None:
        thread.join(timeout_s)
    return thread is None or not thread.is_alive()


#: The folder executors extract the package into (in their working directory).
PACKAGE_DIR = "modelcheck_pkg"


def _shipping(settings: dict[str, str]) -> dict[str, str]:
    """Ship the package to a cluster's executors as an archive they extract
    and put first on their PYTHONPATH.  Not ``addPyFile``: imported from a
    zip, the compiled engine cannot read its runtime sources nor keep numba's
    cache beside them."""
    archive = f"{package_zip()}#{PACKAGE_DIR}"
    archives = settings.get("spark.archives")
    path = settings.get("spark.executorEnv.PYTHONPATH")
    return {"spark.archives": f"{archives},{archive}" if archives else archive,
            "spark.executorEnv.PYTHONPATH": f"{PACKAGE_DIR}:{path}" if path else PACKAGE_DIR}


def _set_verbosity(sc: "SparkContext", verbose: bool) -> None:
    sc.setLogLevel("WARN" if verbose else "ERROR")


def _info(sc: "SparkContext", log_file: str | None) -> SessionInfo:
    return SessionInfo(sc.master, sc.defaultParallelism, log_file)


def stop_spark() -> None:
    """Stop the process's SparkContext, if any (tests, cluster teardown)."""
    from pyspark import SparkContext
    with SparkContext._lock:
        active = SparkContext._active_spark_context
        if active is not None:
            active.stop()


#: States a partition is sized for, when the state bound says how many
#: there may be (``default_partitions``).
STATES_PER_PARTITION = 8_000_000


def default_partitions(default_parallelism: int, max_states: int | None = None) -> int:
    """One partition per core: every task of a level runs in one wave (each
    task costs a fixed share of the per-level time, and a second wave doubles
    it).  A state bound (``--max-states``) larger than the cores can take
    at STATES_PER_PARTITION each asks for more, smaller parts, a multiple of
    the cores: a task's share of a level (its successors sorted, its new
    states stored) then stays within its share of the memory.  Otherwise
    very large state spaces want ``--partitions``."""
    cores = max(2, default_parallelism)
    if not max_states:
        return cores
    waves = -(-max_states // (STATES_PER_PARTITION * cores))
    return cores * max(1, waves)


def local_driver_memory(ram_bytes: int | None = None) -> str:
    """The JVM heap of a local run, where the driver is the only executor and
    holds the seen set: a quarter of this machine's memory, from 2 to 16 GiB
    (the Python workers and the page cache of the spilled runs need the
    rest)."""
    if ram_bytes is None:
        try:
            ram_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            ram_bytes = 8 << 30
    return f"{max(2, min(16, ram_bytes // 4 >> 30))}g"


def package_zip() -> str:
    """A zip of the modelcheck package (for executors on a cluster), named by
    a digest of its sources so that a changed package is shipped again."""
    import modelcheck
    root = os.path.dirname(os.path.abspath(modelcheck.__file__))
    base = os.path.dirname(root)
    files: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files.extend(os.path.join(folder, n) for n in sorted(names)
                     if not n.endswith((".pyc", ".pyo")))
    digest = hashlib.sha256()
    for path in files:
        digest.update(os.path.relpath(path, base).encode())
        with open(path, "rb") as f:
            digest.update(f.read())
    target = os.path.join(log_dir(), f"modelcheck-{digest.hexdigest()[:16]}.zip")
    if not os.path.exists(target):
        fd, tmp = tempfile.mkstemp(dir=log_dir(), suffix=".zip.tmp")
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in files:
                zf.write(path, os.path.relpath(path, base))
        os.replace(tmp, target)
    return target


def java_version() -> str | None:
    """The ``java -version`` line, or None without a Java runtime (Spark needs 17+)."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else "java"
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (out.stderr or out.stdout).splitlines()
    return lines[0] if lines else None


def conf_from_options(extra: dict[str, Any]) -> dict[str, str]:
    """Spark settings given in ``CheckOptions.extra["spark_conf"]``."""
    conf = extra.get("spark_conf") or {}
    return {str(k): str(v) for k, v in dict(conf).items()}
