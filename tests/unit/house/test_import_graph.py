"""The house's structure (docs/design.md "Floors"), read from the imports
with ``ast``: every import counts, module-level, nested or under
TYPE_CHECKING, since each one is a dependency a reader must follow."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3] / "modelcheck"
COMPILED = ROOT / "engines" / "compiled"
#: Source text, not modules: read into each generated kernel, never imported.
TEMPLATES = COMPILED / "kernel" / "templates"


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        if TEMPLATES in path.parents:
            continue
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


def _imports(name: str) -> set[str]:
    """The modelcheck modules ``name`` imports (a package counts as its
    ``__init__``; ``from P import m`` as the module ``P.m`` when there is one)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                       for a in node.names]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: _imports(name) for name in MODULES}


def _circles() -> list[list[str]]:
    """Strongly connected components of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    circles = _circles()
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def _under(prefix: str) -> list[str]:
    return [m for m in MODULES if m == prefix or m.startswith(prefix + ".")]


#: Floor rules: the modules under each prefix may not import any under these.
FORBIDDEN = {
    "modelcheck.behaviour": ["modelcheck"],
    "modelcheck.diagnostics": ["modelcheck.ir", "modelcheck.evaluate", "modelcheck.trace",
                               "modelcheck.engines", "modelcheck.api", "modelcheck.cli"],
    "modelcheck.errors": ["modelcheck.ir", "modelcheck.evaluate", "modelcheck.trace",
                          "modelcheck.engines", "modelcheck.api", "modelcheck.cli"],
    "modelcheck.ir": ["modelcheck.evaluate", "modelcheck.trace", "modelcheck.engines",
                      "modelcheck.semantics", "modelcheck.syntax", "modelcheck.api",
                      "modelcheck.cli"],
    "modelcheck.evaluate": ["modelcheck.trace", "modelcheck.engines", "modelcheck.api",
                            "modelcheck.cli", "modelcheck.lsp", "modelcheck.conform"],
    "modelcheck.trace": ["modelcheck.engines", "modelcheck.api", "modelcheck.cli",
                         "modelcheck.lsp", "modelcheck.conform"],
    "modelcheck.engines": ["modelcheck.api", "modelcheck.cli", "modelcheck.lsp",
                           "modelcheck.conform"],
}


@pytest.mark.parametrize("floor", sorted(FORBIDDEN))
def test_floor_imports_nothing_above_it(floor):
    above = FORBIDDEN[floor]
    bad = []
    for module in _under(floor):
        for target in GRAPH[module]:
            if target == floor or target.startswith(floor + "."):
                continue
            if any(target == a or target.startswith(a + ".") for a in above):
                bad.append(f"{module} imports {target}")
    assert not bad, "\n".join(bad)


def test_the_compiled_engine_is_in_rooms():
    top = sorted(p.name for p in COMPILED.iterdir()
                 if (p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").exists()))
    assert len(top) <= 11, top        # __init__.py and at most ten more
    for room in COMPILED.iterdir():
        if room.is_dir() and (room / "__init__.py").exists():
            doc = ast.get_docstring(ast.parse((room / "__init__.py").read_text()))
            assert doc and len(doc) > 80, f"{room.name}/__init__.py says what the room holds"


def test_kernel_templates_are_python():
    names = sorted(p.stem for p in TEMPLATES.glob("*.py"))
    assert names == ["claim_driver", "driver", "live_driver", "par_driver"]
    for path in TEMPLATES.glob("*.py"):
        ast.parse(path.read_text(encoding="utf-8"), str(path))


def test_a_long_module_says_why_it_is_one():
    long = []
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 600:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "one module on purpose" not in " ".join(doc.lower().split()):
                long.append(f"{name}: {text.count(chr(10))} lines")
    assert not long, "over 600 lines without 'One module on purpose' in the docstring:\n" + "\n".join(long)
