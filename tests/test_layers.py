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

STUDY_PACKAGES = ("eec", "psa", "biasfinder", "btcsam", "agreement", "multilingual")
"""The study packages: each is one room, ``toolkit/studies/<study>/``, with the same parts in the same order."""
STUDY_PARTS: dict[float, tuple[str, ...]] = {
    10.1: ("generator", "corpora"),
    10.2: ("analysis", "planning", "btc_rates", "given_templates", "counting", "judgements", "sampling", "defects",
           "regression"),
    10.3: ("figures", "latex", "captions", "drilldown", "annotation_files"),
    10.5: ("app", "annotation"),
}
"""Inside a study package, lowest first: the generator, the analysis, what draws and captions it; then the package's
face (its ``__init__``: 10.4); then its app."""

LAYERS: dict[float, tuple[str, ...]] = {
    1: ("toolkit", "toolkit.errors", "toolkit.paths", "toolkit.monitor", "toolkit.batching", "toolkit.verdicts",
        "toolkit.sqlite", "toolkit.checks", "toolkit.resources", "toolkit.telemetry"),
    2: ("toolkit.cases", "toolkit.stats", "toolkit.corpora", "toolkit.nlp", "toolkit.formatting", "toolkit.names",
        "toolkit.lookalike", "toolkit.planning", "toolkit.intersections", "toolkit.validity"),
    3: ("toolkit.hub", "toolkit.llm", "toolkit.device"),
    4: ("toolkit.models",),
    5: ("toolkit.executors", "toolkit.cache", "toolkit.provenance", "toolkit.scoring"),
    6: ("toolkit.plots",),
    7: ("toolkit.outputs",),
    8: ("toolkit.drilldown", "toolkit.apps"),
    9: ("toolkit.studies",),
    10.4: tuple(f"toolkit.studies.{s}" for s in STUDY_PACKAGES),
    **{n: tuple(f"toolkit.studies.{s}.{p}" for s in STUDY_PACKAGES for p in parts
                if (ROOT / "toolkit" / "studies" / s / f"{p}.py").is_file()
                or (ROOT / "toolkit" / "studies" / s / p).is_dir()) for n, parts in STUDY_PARTS.items()},
    11: ("toolkit.instrument", "toolkit.auditing"),
    12: ("toolkit.__main__", "toolkit.notebooks"),
    13: ("toolkit.widgets", "toolkit.results", "toolkit.report", "toolkit.latex", "toolkit.plots_instrument",
         "toolkit.eec", "toolkit.psa", "toolkit.biasfinder", "toolkit.btcsam", "toolkit.agreement",
         "toolkit.annotation"),
}
"""The layers, lowest first. A module belongs to the layer of its longest listed prefix (``toolkit.models.hf`` →
``toolkit.models``: 4); a module under no prefix fails :func:`test_layers_every_module_has_a_layer` until it is added
here, and an entry that matches no module fails :func:`test_layers_every_entry_names_a_module` (docs/architecture.md:
how to add a module)."""
SHIMS = LAYERS[13]
"""Modules kept for one release under their old names: each warns (toolkit.errors.moved); nothing imports them."""
FRONTS = LAYERS[12]
"""The fronts a user starts: they never import each other."""

HEAVY = ("torch", "transformers", "spacy", "ray", "matplotlib")
DEFERS = re.compile(r"#.*\bdefers?\b.*\b(" + "|".join(HEAVY) + r")\b", re.IGNORECASE)
"""The comment a toolkit import inside a function must carry: ``# defers matplotlib (...)``."""

# --- the allowlist: known violations, each with its reason ----------------------------------------------------
# (kind, importer, imported): kind "up" = an import from a lower layer to a higher one; "inside" = a toolkit import
# inside a function without a "# defers <heavy dependency>" comment. Circles are listed in ALLOWED_CIRCLES.
ALLOWED: frozenset[tuple[str, str, str]] = frozenset({
    # the package face's ``toolkit.audit``: one attribute, resolved on first use (toolkit/__init__.py __getattr__)
    ("up", "toolkit", "toolkit.auditing"),
})
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


def _type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _file_edges(module: str, path: Path, files: dict[str, Path], package: str) -> list[Edge]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    edges = []
    pending: list[tuple[ast.AST, bool]] = [(ast.parse(source, filename=str(path)), False)]
    while pending:
        node, inside = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                continue  # imports for annotations only never run
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
    found = circles([e for e in edges if ("up", e.importer, e.imported) not in ALLOWED])  # an allowed edge is exempt
    new = new_circles(found)
    assert not new, "import circles: " + "; ".join(" <-> ".join(sorted(c)) for c in new)


def test_layers_the_engine_is_below_the_studies_and_the_models_below_the_engine():
    """The spine of ARCHITECTURE.md, spelled out: a change to LAYERS that breaks it is a change of design."""
    assert (layer_of("toolkit.errors") < layer_of("toolkit.cases") < layer_of("toolkit.llm")
            < layer_of("toolkit.models.hf") < layer_of("toolkit.scoring") < layer_of("toolkit.plots")
            < layer_of("toolkit.outputs.runs") < layer_of("toolkit.studies") < layer_of("toolkit.studies.eec.generator")
            < layer_of("toolkit.studies.eec.analysis") < layer_of("toolkit.studies.eec.figures")
            < layer_of("toolkit.studies.eec") < layer_of("toolkit.studies.eec.app") < layer_of("toolkit.__main__"))
    assert layer_of("toolkit.studies.btcsam.generator.stages") == layer_of("toolkit.studies.biasfinder.generator.gender")


def test_layers_every_entry_names_a_module():
    modules = {module_name(p, ROOT) for p in (ROOT / "toolkit").rglob("*.py")}
    stale = sorted(prefix for prefixes in LAYERS.values() for prefix in prefixes
                   if not any(m == prefix or m.startswith(prefix + ".") for m in modules))
    assert not stale, f"LAYERS names modules that do not exist: {stale}; remove them"


def _study_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["toolkit", "studies"] and parts[2] in STUDY_PACKAGES else None


def independence(edges: list[Edge]) -> set[tuple[str, str, str]]:
    """Imports that break independence inside a layer: ``study`` (one study package imports another),
    ``generator`` (a study's analysis imports a generator), ``front`` (one front imports another), ``shim`` (a
    module imports a shim)."""
    out = set()
    for e in edges:
        a, b = _study_of(e.importer), _study_of(e.imported)
        if a and b and a != b:
            out.add(("study", e.importer, e.imported))
        if a and a == b and layer_of(e.importer) == 10.2 and layer_of(e.imported) == 10.1:
            out.add(("generator", e.importer, e.imported))
        if e.importer in FRONTS and e.imported in FRONTS:
            out.add(("front", e.importer, e.imported))
        if e.imported in SHIMS and e.importer not in SHIMS:
            out.add(("shim", e.importer, e.imported))
    return out


def test_layers_studies_analyses_and_fronts_are_independent(edges):
    found = sorted(independence(edges))
    assert not found, "imports against independence (docs/architecture.md):\n" + "\n".join(
        f"{importer}: {kind} import of {imported}" for kind, importer, imported in found)


def _heavy_reach(root: Path, package: str = "toolkit") -> dict[str, set[str]]:
    """Per module: the heavy dependencies (:data:`HEAVY`) it imports at module level, itself or through the toolkit
    modules it imports at module level."""
    files = {module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}
    direct: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            direct[module] |= {n.split(".")[0] for n in names if n.split(".")[0] in HEAVY}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for e in import_edges(root, package):
        if not e.inside:
            graph[e.importer].add(e.imported)
    reach: dict[str, set[str]] = {}
    for module in files:
        seen, stack, found = {module}, [module], set()
        while stack:
            current = stack.pop()
            found |= direct.get(current, set())
            for nxt in graph.get(current, ()):  # a package's face counts with its submodules it imports
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        reach[module] = found
    return reach


def test_layers_a_defers_comment_names_a_dependency_the_import_really_defers(edges):
    reach = _heavy_reach(ROOT)
    wrong = []
    for e in edges:
        match = DEFERS.search(e.comment) if e.inside else None
        if match is None:
            continue
        named = {h for h in HEAVY if re.search(rf"\b{h}\b", e.comment, re.IGNORECASE)}
        if not named & reach.get(e.imported, set()):
            wrong.append(f"{e.importer} (line {e.line}) imports {e.imported} 'deferring' {', '.join(sorted(named))}, "
                         f"which it does not import (it reaches {', '.join(sorted(reach.get(e.imported, ()))) or 'none'})")
    assert not wrong, "\n".join(wrong)


def test_layers_shims_warn_and_name_their_new_home():
    for module in SHIMS:
        path = ROOT / (module.replace(".", "/") + ".py")
        assert "moved(" in path.read_text(encoding="utf-8"), f"{module} is a shim that does not warn"


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
    injected = edges + [Edge("toolkit", "toolkit.__main__", 1, False)]
    assert ("up", "toolkit", "toolkit.__main__") in violations(injected) - ALLOWED


@pytest.mark.parametrize("edge, kind", [
    (Edge("toolkit.studies.btcsam", "toolkit.studies.eec.generator", 1, False), "study"),
    (Edge("toolkit.studies.eec.analysis", "toolkit.studies.eec.generator", 1, False), "generator"),
    (Edge("toolkit.__main__", "toolkit.notebooks", 1, False), "front"),
    (Edge("toolkit.studies.psa", "toolkit.results", 1, False), "shim"),
])
def test_layers_independence_checker_catches_an_injected_edge(edges, edge, kind):
    assert (kind, edge.importer, edge.imported) in independence(edges + [edge])
    assert (kind, edge.importer, edge.imported) not in independence(edges)


def test_layers_defers_checker_catches_a_comment_that_defers_nothing(tmp_path):
    files = {"__init__.py": "", "leaf.py": "X = 1\n", "heavy.py": "import matplotlib\n",
             "front.py": ("def f():\n    from pkg import leaf  # defers matplotlib\n\n\ndef g():\n"
                          "    from pkg import heavy  # defers matplotlib\n")}
    root = _package(tmp_path, files)
    reach = _heavy_reach(root, "pkg")
    assert reach["pkg.heavy"] == {"matplotlib"} and reach["pkg.leaf"] == set()
