"""The executors' Python daemon (worker_daemon.py): which zips it drops from
the path, and that a module it cannot load is left to the task."""
import sys
import zipfile

import pytest

from modelcheck.engines.spark.worker_daemon import drop_shadowing_zips, preload


def _package(root, name, version):
    pkg = root / name
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "version.py").write_text(f"__version__ = {version!r}\n")


def _zip(path, name, version):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{name}/__init__.py", "")
        zf.writestr(f"{name}/version.py", f"__version__ = {version!r}\n")


def test_a_zip_shadowing_the_same_installed_version_is_dropped(tmp_path):
    site = tmp_path / "site"
    _package(site, "pyspark", "4.3.0")
    _package(site, "py4j", "0.10.9.9")
    spark_zip, py4j_zip = tmp_path / "pyspark.zip", tmp_path / "py4j-src.zip"
    _zip(spark_zip, "pyspark", "4.3.0")
    _zip(py4j_zip, "py4j", "0.10.9.9")
    path = [str(spark_zip), str(py4j_zip), "/elsewhere", str(site)]
    assert drop_shadowing_zips(path) == ["/elsewhere", str(site)]


def test_a_zip_of_another_version_or_without_an_installed_copy_stays(tmp_path):
    site = tmp_path / "site"
    _package(site, "pyspark", "4.2.0")
    spark_zip, py4j_zip, other = (tmp_path / "pyspark.zip", tmp_path / "py4j-src.zip",
                                  tmp_path / "other.zip")
    _zip(spark_zip, "pyspark", "4.3.0")
    _zip(py4j_zip, "py4j", "0.10.9.9")          # no py4j installed
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("mine/__init__.py", "")
    path = [str(spark_zip), str(py4j_zip), str(other), str(site)]
    assert drop_shadowing_zips(path) == path
    assert drop_shadowing_zips([str(tmp_path / "missing.zip")]) == [str(tmp_path / "missing.zip")]


def test_preload_imports_what_it_can_and_names_the_rest():
    assert preload(("json", "modelcheck_no_such_module_x")) == ["modelcheck_no_such_module_x"]
    assert "json" in sys.modules


def test_the_real_pyspark_zip_is_shadowed_by_the_installed_pyspark():
    # The case the daemon is for: pip's pyspark ships its own zip.
    import os

    import pyspark
    lib = os.path.join(os.path.dirname(pyspark.__file__), "python", "lib")
    zips = sorted(os.path.join(lib, n) for n in os.listdir(lib) if n.endswith(".zip")) \
        if os.path.isdir(lib) else []
    if not zips:
        pytest.skip("this PySpark ships no zips: nothing to drop")
    rest = [p for p in sys.path if not p.endswith(".zip")]
    assert drop_shadowing_zips(zips + rest) == rest
