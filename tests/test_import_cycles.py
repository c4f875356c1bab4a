"""No import cycle in the package, no private name imported across modules, no simulator module importing the
reader, and in the contact package one module (model.py) reading the description.

No import cycle: every module's imports (parsed with ast, those inside functions included; those
under `if TYPE_CHECKING:` left out, as they never run) make a graph whose strongly connected components of more than
one module are the cycles. They must be exactly the allowed ones below, which other work still has to remove: a new
cycle fails here, and so does an allowed one that is gone (strike it off the list)."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "physxvehicle_usd"

# The cycles other work still has to remove (issue #29), each as the set of its modules (dotted, package-relative).
ALLOWED_CYCLES: list[frozenset[str]] = []


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Every Import / ImportFrom node of `tree` that runs (not under `if TYPE_CHECKING:`)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _within(dotted: str) -> str | None:
    """The package-relative name of an absolute import of the package ("" for the package); None for another one."""
    parts = dotted.split(".")
    return ".".join(parts[1:]) if parts[0] == PACKAGE.name else None


def _submodule(parent: str, name: str, files: dict) -> str:
    """`from parent import name`: the submodule parent.name where there is one, else parent."""
    candidate = f"{parent}.{name}".strip(".")
    return candidate if candidate in files else parent


def import_graph() -> dict[str, set[str]]:
    """module -> the package's modules it imports ("" is the package itself). `from . import x` is an edge to the
    submodule x where there is one, else to the package it names; the parent packages an import loads implicitly
    are left out (every module would otherwise reach every __init__)."""
    files = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        here = name.split(".") if name else []
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [_within(alias.name) for alias in node.names]
            elif node.level:  # relative: from the module's package, up level - 1
                base = here if is_package else here[:-1]
                parent = ".".join(base[: len(base) - (node.level - 1)] + (node.module or "").split("."))
                targets = [_submodule(parent.strip("."), alias.name, files) for alias in node.names]
            else:
                parent = _within(node.module)
                targets = [] if parent is None else [_submodule(parent, alias.name, files) for alias in node.names]
            graph[name].update(t for t in targets if t in files and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_the_import_walker_sees_a_known_edge_and_a_made_cycle():
    graph = import_graph()
    assert "sim.declare" in graph["sim.batch"] and "properties" in graph["sim.declare"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


def test_no_import_cycle_but_the_allowed_ones():
    found = set(cycles(import_graph()))
    allowed = set(ALLOWED_CYCLES)
    assert found - allowed == set(), f"new import cycles: {[sorted(c) for c in found - allowed]}"
    assert allowed - found == set(), f"allowed cycles now gone, strike them off: {[sorted(c) for c in allowed - found]}"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_imports_of(source: str, relative: str) -> list[str]:
    """`from module import _name`, or `module._name` of one of the package's modules imported, in the module
    `relative` (its path in the package) whose text is `source`."""
    files = {_module_name(path) for path in PACKAGE.rglob("*.py")}
    path = PACKAGE / relative
    name = _module_name(path)
    here = name.split(".")
    base = here if path.name == "__init__.py" else here[:-1]
    tree = ast.parse(source, relative)
    modules = set()  # the names this module binds to the package's modules
    found = []
    for node in _imports(tree):
        if isinstance(node, ast.Import):  # `import physxvehicle_usd.x as x`
            modules.update(alias.asname or alias.name.split(".")[0] for alias in node.names
                           if _within(alias.name) is not None)
            continue
        found += [f"{name}:{node.lineno} imports {alias.name} from {'.' * node.level}{node.module or ''}"
                  for alias in node.names if _private(alias.name)]
        parent = (".".join(base[: len(base) - (node.level - 1)] + (node.module or "").split(".")) if node.level
                  else _within(node.module) or "")
        modules.update(alias.asname or alias.name for alias in node.names
                       if f"{parent.strip('.')}.{alias.name}".strip(".") in files)
    return found + [f"{name}:{node.lineno} reads {node.value.id}.{node.attr}" for node in ast.walk(tree)
                    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in modules and _private(node.attr)]


def _private_imports() -> list[str]:
    """Every module's private imports (a private name belongs to its module: what another module needs is public,
    or lives in a module both import)."""
    return [line for path in sorted(PACKAGE.rglob("*.py"))
            for line in _private_imports_of(path.read_text(), str(path.relative_to(PACKAGE)))]


def test_no_private_name_is_imported_from_another_module():
    assert _private_imports() == []
    # the walker sees one: vecmath's module-level names read through the alias it is imported under
    assert any("reads vm._" in line for line in _private_imports_of("import numpy\nfrom . import vecmath as vm\n"
                                                                      "x = vm._hidden\n", "sim/made_up.py"))


def test_the_simulator_does_not_import_the_reader():
    """sim/ works from resolved descriptions: a rule both need lives in a module of its own (box_corners.py), not in
    read/."""
    graph = import_graph()
    found = sorted(f"{module} -> {target}" for module, targets in graph.items()
                   if module == "sim" or module.startswith("sim.")
                   for target in targets if target == "read" or target.startswith("read."))
    assert found == []


def test_only_the_contact_model_reads_the_description():
    """In sim/contact/, model.py builds the model from the resolved description; every other module works from the
    model (so a contact input is read, and checked, in one place)."""
    graph = import_graph()
    readers = sorted(module for module, targets in graph.items()
                     if module.startswith("sim.contact.") and "description" in targets)
    assert readers == ["sim.contact.model"]
