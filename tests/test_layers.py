"""The package is layered (see srcad/__init__.py): each module imports only from its own layer
or the layers below, and no two modules import each other, directly or around a ring. This
test reads every import statement (top-level and inside functions) of every module and checks
both, so an upward import fails here before it reaches a review."""

import ast
import functools
import pathlib

import pytest

import srcad

ROOT = pathlib.Path(srcad.__file__).parent

#: bottom to top; a module belongs to the first entry that is its name or a package above it
LAYERS = [
    "srcad.errors",
    "srcad.core",
    "srcad.runtime",
    "srcad.rules",
    "srcad.frontend",
    "srcad.analysis",
    "srcad.transform",
    "srcad.backend",
    "srcad.pipeline",
    "srcad.extend_autograd",
    "srcad.written_state",
    ("srcad.specialise", "srcad.checks", "srcad.fast_checks", "srcad.fast_calls",
     "srcad.aux_calls", "srcad.api",
     "srcad.jacobians_standard", "srcad.jacobian_leaves", "srcad.jacobians_batched",
     "srcad.batched_jvp",
     "srcad.jacobians", "srcad.curried", "srcad.extend",
     "srcad.pytrees", "srcad.nested", "srcad.nested_vjp", "srcad.nested_aux",
     "srcad.numba_forms", "srcad.tree_keys", "srcad.jacobian_trees",
     "srcad.tree_jacobians", "srcad.number_columns", "srcad.tree_calls",
     "srcad.tree_jvps", "srcad.tree_vjps"),
    ("srcad.tools", "srcad.misc", "srcad.test_util"),
    ("srcad", "srcad.__main__"),
]


def _modules():
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = ("srcad",) + path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def layer(name):
    for i, entry in enumerate(LAYERS):
        for prefix in (entry if isinstance(entry, tuple) else (entry,)):
            if name == prefix or (prefix != "srcad" and name.startswith(prefix + ".")):
                return i
    raise AssertionError(f"{name} is in no layer: add it to LAYERS and srcad/__init__.py")


def imports(name):
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [f"{module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        for target in targets:
            while target not in MODULES and "." in target:
                target = target.rpartition(".")[0]
            if target in MODULES and target != name and target.startswith("srcad"):
                found.add(target)
    return found


@functools.cache
def graph():
    """Each module's srcad imports: parsed when a test first asks (not at collection, which
    every pytest-xdist worker does; the layer tests run in one of them)."""
    return {name: imports(name) for name in MODULES}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_only_from_its_layer_or_below(name):
    upward = sorted(t for t in graph()[name] if layer(t) > layer(name))
    assert not upward, f"{name} (layer {LAYERS[layer(name)]}) imports upward: {upward}"


def test_no_import_cycle():
    state, cycle = {}, []

    def visit(name, path):
        state[name] = "open"
        for target in sorted(graph()[name]):
            if state.get(target) == "open":
                cycle.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[name] = "done"

    for name in sorted(MODULES):
        if name not in state:
            visit(name, [name])
    assert not cycle, f"import cycles: {cycle}"


#: the sizes the layout keeps to (issue: no module over ~600 lines, no class over ~300), so
#: a reader can hold one room in mind; a module or class past them is split, not exempted
MODULE_LINES = 600
CLASS_LINES = 300


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_and_class_sizes(name):
    path = MODULES[name]
    text = path.read_text()
    assert len(text.splitlines()) <= MODULE_LINES, f"{path}: split the module"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            lines = node.end_lineno - node.lineno + 1
            assert lines <= CLASS_LINES, f"{path}: class {node.name} has {lines} lines"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_says_what_it_does(name):
    """Each file opens with a docstring saying what it does (and, below the top, what it may
    import)."""
    tree = ast.parse(MODULES[name].read_text())
    doc = ast.get_docstring(tree)
    assert doc, f"{MODULES[name]}: add an opening docstring"
    assert "mport" in doc, f"{MODULES[name]}: say in the docstring what the module imports"
