"""The import-layer contract of ``toolkit/`` (issue 33; docs/architecture.md): every import — at module level or
inside a function — goes from a higher layer to the same or a lower one, no set of modules imports each other in a
circle, and a toolkit import inside a function is there only to defer a heavy dependency (torch, transformers, spaCy,
Ray, matplotlib), saying so in a comment (``# defers matplotlib ...``).

The graph is read from the source with :mod:`ast` (nothing is imported). :data:`ALLOWED` lists known
violations with their reason (none today); the test fails on any other.
"""
from __future__ import annotations

import ast
import re
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAYERS: dict[int, tuple[str, ...]] = {
    1: ("toolkit", "toolkit.errors", "toolkit.paths", "toolkit.monitor", "toolkit.signals", "toolkit.batching",
        "toolkit.sqlite", "toolkit.checks", "toolkit.resources", "toolkit.telemetry"),
    2: ("toolkit.cases", "toolkit.stats", "toolkit.corpora", "toolkit.nlp", "toolkit.formatting", "toolkit.names",
        "toolkit.lookalike", "toolkit.planning"),
    3: ("toolkit.hub", "toolkit.llm", "toolkit.device"),
    4: ("toolkit.models",),
    5: ("toolkit.executors", "toolkit.cache", "toolkit.provenance", "toolkit.scoring"),
    6: ("toolkit.generators", "toolkit.studies"),
    7: ("toolkit.plots", "toolkit.plots_instrument"),
    8: ("toolkit.outputs", "toolkit.results", "toolkit.report", "toolkit.latex"),
    9: ("toolkit.eec", "toolkit.psa", "toolkit.biasfinder", "toolkit.btcsam", "toolkit.agreement",
        "toolkit.instrument", "toolkit.drilldown", "toolkit.annotation"),
    10: ("toolkit.apps", "toolkit.widgets", "toolkit.__main__", "toolkit.notebooks"),
}
"""The target layers of issue 33, lowest first. A module belongs to the layer of its longest listed prefix
(``toolkit.models.hf`` → ``toolkit.models``: 4); a module under no prefix fails :func:`test_layers_every_module_has_a_layer`
until it is added here (docs/architecture.md: how to add a module)."""

HEAVY = ("torch", "transformers", "spacy", "ray", "matplotlib")
DEFERS = re.compile(r"#.*\bdefers?\b.*\b(" + "|".join(HEAVY) + r")\b", re.IGNORECASE)
"""The comment a toolkit import inside a function must carry: ``# defers matplotlib (...)``."""

# --- the allowlist: known violations, each with its reason ----------------------------------------------------
# (kind, importer, imported): kind "up" = an import from a lower layer to a higher one; "inside" = a toolkit import
# inside a function without a "# defers <heavy dependency>" comment. Circles are listed in ALLOWED_CIRCLES.
ALLOWED: frozenset[tuple[str, str, str]] = frozenset()
ALLOWED_CIRCLES: tuple[frozenset[str], ...] = ()


@dataclass(frozen=True)
class Edge:
    """``importer`` imports ``imported`` (both module names) at ``line``; ``inside``: within a function body;
    ``comment``: the comment on the import's line (or the line above), if any."""

    importer: str
    imported: str
    line: int
    inside: bool
    comment: str = ""


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_edges(root: Path, package: str = "toolkit") -> list[Edge]:
    """Every import of a ``package`` module by a ``package`` module under ``root``, module-level and inside
    functions; ``from package.x import name`` counts as an import of ``package.x.name`` where that is a module."""
    files = {module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}
    return [edge for module, path in files.items() for edge in _file_edges(module, path, files, package)]


def _resolve(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, files: dict[str, Path]) -> list[str]:
    """The module names an import statement of ``module`` names (relative imports made absolute)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:  # relative: from . import x, from ..y import z
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[:len(parts) - (node.level - 1)]
        base = ".".join(parts + ([base] if base else []))
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]


def _file_edges(module: str, path: Path, files: dict[str, Path], package: str) -> list[Edge]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    edges = []
    pending: list[tuple[ast.AST, bool]] = [(ast.parse(source, filename=str(path)), False)]
    while pending:
        node, inside = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for name in _resolve(child, module, path.name == "__init__.py", files):
                    target = name if name.split(".")[0] == package else ""
                    while target and target not in files:
                        target = target.rpartition(".")[0]
                    if target and target != module:
                        text = lines[child.lineno - 1]
                        above = lines[child.lineno - 2].strip() if child.lineno > 1 else ""
                        comment = text[text.index("#"):] if "#" in text else (above if above.startswith("#") else "")
                        edges.append(Edge(module, target, child.lineno, inside, comment))
            pending.append((child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))))
    return sorted(edges, key=lambda e: (e.line, e.imported))


def layer_of(module: str, layers: dict[int, tuple[str, ...]] = LAYERS) -> int | None:
    """The layer of ``module``: that of its longest listed prefix (the top package itself, ``toolkit``, covers only
    its ``__init__``); None when none is listed."""
    best: tuple[int, int] | None = None
    for number, prefixes in layers.items():
        for prefix in prefixes:
            covers = module == prefix or ("." in prefix and module.startswith(prefix + "."))
            if covers and (best is None or len(prefix) > best[0]):
                best = (len(prefix), number)
    return best[1] if best else None


def circles(edges: list[Edge]) -> list[frozenset[str]]:
    """The import circles: every strongly connected set of two or more modules (Tarjan), module-level and
    function-level imports together."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.importer, set()).add(e.imported)
        graph.setdefault(e.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def violations(edges: list[Edge], *, layers: dict[int, tuple[str, ...]] = LAYERS) -> set[tuple[str, str, str]]:
    """``(kind, importer, imported)`` for each import against the contract: ``up`` (to a higher layer), ``inside`` (a
    toolkit import inside a function without a ``# defers <heavy dependency>`` comment)."""
    out = set()
    for e in edges:
        low, high = layer_of(e.importer, layers), layer_of(e.imported, layers)
        if low is not None and high is not None and high > low:
            out.add(("up", e.importer, e.imported))
        if e.inside and not DEFERS.search(e.comment):
            out.add(("inside", e.importer, e.imported))
    return out


def new_circles(found: list[frozenset[str]], allowed: tuple[frozenset[str], ...] = ALLOWED_CIRCLES
                ) -> list[frozenset[str]]:
    return [c for c in found if not any(c <= a for a in allowed)]


def _where(edges: list[Edge], kind: str, importer: str, imported: str) -> str:
    lines = [e.line for e in edges if e.importer == importer and e.imported == imported
             and (kind == "up" or e.inside)]
    return f"{importer} (line {min(lines)}): {kind} import of {imported}"


# --- the contract ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def edges() -> list[Edge]:
    return import_edges(ROOT)


def test_layers_every_module_has_a_layer(edges):
    modules = {module_name(p, ROOT) for p in (ROOT / "toolkit").rglob("*.py")}
    missing = sorted(m for m in modules if layer_of(m) is None)
    assert not missing, f"modules without a layer: {missing}; add them to LAYERS (docs/architecture.md)"


def test_layers_no_import_runs_up_or_hides_in_a_function(edges):
    found = violations(edges)
    new = sorted(found - ALLOWED)
    assert not new, ("imports against the layer contract (docs/architecture.md):\n"
                     + "\n".join(_where(edges, *v) for v in new))
    stale = sorted(ALLOWED - found)
    if stale:
        warnings.warn(f"ALLOWED in tests/test_layers.py lists violations that are gone; remove them: {stale}")


def test_layers_no_circle(edges):
    found = circles(edges)
    new = new_circles(found)
    assert not new, "import circles: " + "; ".join(" <-> ".join(sorted(c)) for c in new)


def test_layers_the_engine_is_below_the_studies_and_the_models_below_the_engine():
    """The spine of ARCHITECTURE.md, spelled out: a change to LAYERS that breaks it is a change of design."""
    assert (layer_of("toolkit.errors") < layer_of("toolkit.cases") < layer_of("toolkit.llm")
            < layer_of("toolkit.models.hf") < layer_of("toolkit.scoring") < layer_of("toolkit.studies.eec")
            < layer_of("toolkit.plots") < layer_of("toolkit.results") < layer_of("toolkit.eec")
            < layer_of("toolkit.widgets"))
    assert layer_of("toolkit.generators.btcsam.llm") == layer_of("toolkit.studies.biasfinder.counting") == 6


# --- the checker catches what it should (a synthetic package) ------------------------------------------------------

SYNTHETIC_LAYERS = {1: ("pkg", "pkg.leaf"), 2: ("pkg.engine",), 3: ("pkg.front",)}


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _clean() -> dict[str, str]:
    return {"__init__.py": "", "leaf.py": "X = 1\n",
            "engine/__init__.py": "from pkg.leaf import X\n",
            "engine/core.py": "from . import helpers\nfrom ..leaf import X\n",
            "engine/helpers.py": "import pkg.leaf\n",
            "front.py": ("from pkg.engine import core\n\n\ndef draw():\n"
                         "    from pkg.engine import helpers  # defers matplotlib (drawn on demand)\n")}


def test_layers_checker_passes_a_clean_package(tmp_path):
    edges = import_edges(_package(tmp_path, _clean()), "pkg")
    assert {("pkg.engine.core", "pkg.engine.helpers"), ("pkg.engine.core", "pkg.leaf"),
            ("pkg.front", "pkg.engine.core")} <= {(e.importer, e.imported) for e in edges}
    assert violations(edges, layers=SYNTHETIC_LAYERS) == set() and circles(edges) == []


@pytest.mark.parametrize("name, text, expected", [
    ("leaf.py", "from pkg.front import draw\n", {("up", "pkg.leaf", "pkg.front")}),
    ("leaf.py", "def f():\n    from pkg import engine  # defers matplotlib\n", {("up", "pkg.leaf", "pkg.engine")}),
    ("engine/helpers.py", "def f():\n    from . import core\n", {("inside", "pkg.engine.helpers", "pkg.engine.core")}),
    ("engine/helpers.py", "def f():\n    import pkg.leaf  # to dodge a circle\n",
     {("inside", "pkg.engine.helpers", "pkg.leaf")}),
])
def test_layers_checker_catches_an_injected_violation(tmp_path, name, text, expected):
    files = {**_clean(), name: text}
    edges = import_edges(_package(tmp_path, files), "pkg")
    assert violations(edges, layers=SYNTHETIC_LAYERS) == expected


def test_layers_checker_catches_an_injected_circle(tmp_path):
    files = {**_clean(), "engine/helpers.py": "from pkg.engine.core import helpers\n"}
    found = circles(import_edges(_package(tmp_path, files), "pkg"))
    assert found == [frozenset({"pkg.engine.core", "pkg.engine.helpers"})]
    assert new_circles(found, allowed=()) == found and new_circles(found, allowed=tuple(found)) == []


def test_layers_allowlist_does_not_hide_a_new_violation_in_an_allowed_file(edges):
    """An allowlisted file gains no licence: a new upward import from it is reported."""
    injected = edges + [Edge("toolkit.results", "toolkit.widgets", 1, False)]
    assert ("up", "toolkit.results", "toolkit.widgets") in violations(injected) - ALLOWED
