"""The import graph of ``turngym/``: imports run down the layers, and no module is in a
circle (issue 43; docs/development/architecture.md, "Layers").

The graph is grimp's (the engine of import-linter), built from every import statement
in the package, imports inside functions included (a lazy import is still an arrow);
imports under ``if TYPE_CHECKING:`` are left out, since they never run. Deprecated
aliases reach their new homes through ``importlib`` and are not arrows: they go in the
next release.
"""

from __future__ import annotations

import pytest

grimp = pytest.importorskip("grimp", reason="the layer check needs grimp (the dev extra)")

LAYERS: list[tuple[str, ...]] = [
    # the ground floor: types, helpers, and what protects the host
    (
        "spaces",
        "core",
        "calls",
        "extras",
        "hf_compat",
        "images",
        "progress",
        "pyparse",
        "splitmix",
        "tables",
        "http_guards",
        "aliases",
        "host",
    ),
    ("envs",),
    # the catalog of envs; "" is turngym/__init__.py, which registers it
    ("registry", "registry_adapters", ""),
    ("wrappers",),
    ("agents",),
    ("sdk", "testing"),
    ("view",),
    ("cli", "cli_args", "cli_eval", "cli_view"),
]
"""The layers, lowest first: a module imports its own layer and the ones below.

``registry_adapters`` and ``cli_*`` are deprecated aliases of modules that moved into
the registry and cli packages; they sit in the layer of their new home.
"""


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("turngym", cache_dir=None, exclude_type_checking_imports=True)


def _part(module: str) -> str:
    """The top-level part of turngym a module belongs to ("" for turngym itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer(module: str) -> int:
    part = _part(module)
    for k, names in enumerate(LAYERS):
        if part in names:
            return k
    raise AssertionError(f"{module}: turngym.{part} is in no layer of LAYERS")


def _arrows(graph) -> list[tuple[str, str, int]]:
    return [
        (importer, imported, line["line_number"])
        for importer in sorted(graph.modules)
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        for line in graph.get_import_details(importer=importer, imported=imported)
    ]


def test_every_part_of_the_package_has_a_layer(graph):
    for module in graph.modules:
        _layer(module)


def test_imports_run_down_the_layers(graph):
    upward = [
        f"{importer}:{line} imports {imported}"
        for importer, imported, line in _arrows(graph)
        if _layer(imported) > _layer(importer)
    ]
    assert not upward, "\n".join(upward)


def cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # iterative, so a deep chain of imports cannot exhaust the recursion limit
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_is_in_an_import_circle(graph):
    found = cycles(graph)
    assert not found, "\n".join(" <-> ".join(c) for c in found)


def test_the_circle_finder_finds_circles():
    class Toy:
        def __init__(self) -> None:
            self.edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
            self.modules = set(self.edges)

        def find_modules_directly_imported_by(self, module: str) -> set[str]:
            return self.edges[module]

    assert cycles(Toy()) == [["a", "b", "c"]]
