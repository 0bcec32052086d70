"""The outside functions that ``tools/mutant_programs.py`` mutates, read at run time.

Sources (nothing is copied into this repository; every file is read from a fetched mirror,
``/work/.mirror/OWNER+NAME/repo``, with ``git show HEAD:path``):

- HIPS autograd's ``examples/`` and ``tests/``;
- the programs ``tools/corpus_programs.py`` and ``tools/jax_programs.py`` run (their ``CORPUS``
  lists; notebooks as their code cells);
- google/tangent's ``tests/functions.py`` (functions written to exercise an AD tool).

``harvest()`` parses each file and keeps every function definition (at any depth, and every
``name = lambda ...:``) that can stand alone: positional parameters only, no ``yield``,
``global``, ``nonlocal``, ``self``, random numbers, or library other than NumPy, ``math`` and
SciPy's ``special``/``stats`` (the file's own import aliases are followed; autograd's and JAX's
NumPy are NumPy here). A free name that is a closed function of the same file comes along as a
helper; any other free name becomes a global of the mutant's module holding random data.

``inputs()`` then looks for arguments the function runs on: a handful of shape profiles
(numbers, vectors, matrices; a parameter used in ``range`` or as an index an ``int``), keeping
the profiles where the plain function returns finite floats. ``locals_of()`` records the
classes and shapes of the function's locals at its return (``sys.settrace``), which the
mutations read to pick names to write through.

Imports: ast, json, os, re, subprocess, sys, textwrap, numpy, and (for notebooks)
tools/corpus_programs.cell_lines, tools/jax_programs.cells_of.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MIRRORS = "/work/.mirror"

#: module a file imports -> the module the mutant imports in its place (None: not allowed)
MODULES = {
    "numpy": "numpy", "autograd.numpy": "numpy", "jax.numpy": "numpy", "math": "math",
    "scipy.special": "scipy.special", "autograd.scipy.special": "scipy.special",
    "jax.scipy.special": "scipy.special", "scipy.stats": "scipy.stats",
    "autograd.scipy.stats": "scipy.stats", "jax.scipy.stats": "scipy.stats",
    "numpy.linalg": "numpy.linalg", "autograd.numpy.linalg": "numpy.linalg",
    "scipy": "scipy", "autograd.scipy": "scipy",
}
#: names that make a function's value random or need an engine's own API
FORBIDDEN = {"npr", "random", "rng", "key", "PRNGKey", "grad", "elementwise_grad", "jacobian",
             "hessian", "value_and_grad", "jit", "vmap", "make_vjp", "primitive", "defvjp",
             "print", "open", "input", "plt", "time", "self", "cls", "super", "lax", "jax",
             "autograd", "tangent", "check_grads", "combo_check", "pytest", "tf", "torch",
             "vjp", "jvp", "hvp", "checkpoint", "partial", "getattr", "setattr", "exec", "eval",
             "globals", "locals", "isinstance", "type", "np_utils", "assert_allclose"}
BUILTINS = set(dir(builtins))


def _sources():
    sys.path.insert(0, HERE)
    import corpus_programs
    import jax_programs
    import numpy_programs
    out = [("HIPS/autograd", p) for p in _ls("HIPS/autograd")
           if p.startswith(("examples/", "tests/")) and p.endswith(".py")]
    out += [(r, p) for r, p in corpus_programs.CORPUS]
    out += [(r, p) for r, p, _ in jax_programs.CORPUS]
    out += [(item[0], item[1]) for item in numpy_programs.CORPUS]
    out.append(("google/tangent", "tests/functions.py"))
    seen, unique = set(), []
    for item in out:
        if item not in seen:
            seen.add(item)
            unique.append(item)
    return unique


def _mirror(repo):
    return os.path.join(MIRRORS, repo.replace("/", "+"), "repo")


def _ls(repo):
    try:
        out = subprocess.run(["git", "-C", _mirror(repo), "ls-tree", "-r", "--name-only",
                              "HEAD"], capture_output=True, check=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return out.splitlines()


def read_source(repo, path):
    """The file's Python text (a notebook's code cells joined), or None."""
    try:
        text = subprocess.run(["git", "-C", _mirror(repo), "show", f"HEAD:{path}"],
                              capture_output=True, check=True).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.CalledProcessError):
        return None
    if path.endswith(".ipynb"):
        from corpus_programs import cell_lines
        try:
            cells = json.loads(text).get("cells", [])
        except ValueError:
            return None
        lines = []
        for cell in cells:
            if cell.get("cell_type") == "code":
                src = cell.get("source", "")
                src = "".join(src) if isinstance(src, list) else src
                lines.extend(cell_lines(src))
                lines.append("")
        return "\n".join(lines)
    if path.endswith(".md"):
        import tempfile

        from jax_programs import cells_of
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as fh:
            fh.write(text)
        try:
            return "\n\n".join(cells_of(fh.name))
        finally:
            os.unlink(fh.name)
    if path.endswith((".qmd",)):
        return None
    return text


# ---- one file's functions ---------------------------------------------------------------------

def _imports(tree):
    """alias -> the mutant's module (or None: a module not allowed); ``from`` names ->
    (module, name)."""
    modules, names = {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                target = MODULES.get(a.name)
                if a.asname:
                    modules[a.asname] = target
                else:
                    modules[a.name.split(".")[0]] = MODULES.get(a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if full in MODULES:
                    modules[a.asname or a.name] = MODULES[full]
                elif MODULES.get(node.module):
                    names[a.asname or a.name] = (MODULES[node.module], a.name)
                else:
                    modules[a.asname or a.name] = None
    return modules, names


def _stored(fn):
    """Every name a function binds (parameters, targets, nested defs, imports)."""
    out = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
    for extra in (fn.args.vararg, fn.args.kwarg):
        if extra:
            out.add(extra.arg)
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                out.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.arg):
                out.add(node.arg)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                out.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                out.add(node.name)
    return out


def _loaded(fn):
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    out = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                out.add(node.id)
    for d in fn.args.defaults + fn.args.kw_defaults:
        if d is not None:
            out.update(n.id for n in ast.walk(d) if isinstance(n, ast.Name))
    return out


def _bad(fn):
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or not a.args:
        return "signature"
    for node in ast.walk(fn):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Await,
                             ast.ClassDef, ast.AsyncFunctionDef, ast.Raise, ast.Assert)):
            return type(node).__name__
        if isinstance(node, ast.Attribute) and node.attr in ("random", "grad", "jit"):
            return "random"
    return None


def _as_def(name, lam):
    fn = ast.FunctionDef(name=name, args=lam.args, body=[ast.Return(value=lam.body)],
                         decorator_list=[], returns=None, type_comment=None, type_params=[])
    return ast.fix_missing_locations(ast.copy_location(fn, lam))


def _candidates(tree):
    """(qualified name, FunctionDef) of every def and named lambda."""
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                out.append((prefix + child.name, child))
                visit(child, prefix + child.name + ".")
            elif (isinstance(child, ast.Assign) and len(child.targets) == 1
                  and isinstance(child.targets[0], ast.Name)
                  and isinstance(child.value, ast.Lambda)):
                out.append((prefix + child.targets[0].id,
                            _as_def(child.targets[0].id, child.value)))
                visit(child, prefix)
            else:
                visit(child, prefix)
    visit(tree, "")
    return out


class Function:
    """One harvested function: ``text`` defines it (and its helpers) given ``imports``;
    ``data`` names the free names that become random globals."""

    def __init__(self, key, name, node, helpers, imports, data):
        self.key, self.name, self.node = key, name, node
        self.helpers, self.imports, self.data = helpers, imports, data
        self.params = [a.arg for a in node.args.args]

    def module_text(self, node=None, engine="numpy"):
        lines = []
        for alias, target in sorted(self.imports.items()):
            lines.append(_import_line(alias, target, engine))
        for h in self.helpers:
            lines.append(ast.unparse(h))
        lines.append(ast.unparse(node if node is not None else self.node))
        return "\n".join(lines) + "\n"


def _import_line(alias, target, engine):
    if isinstance(target, tuple):
        module, name = target
        if engine == "autograd" and module.split(".")[0] in ("numpy", "scipy"):
            module = "autograd." + module
        return f"from {module} import {name} as {alias}"
    if engine == "autograd" and target.split(".")[0] in ("numpy", "scipy"):
        target = "autograd." + target
    return f"import {target} as {alias}"


def functions_of(repo, path):
    """Every stand-alone function of one file, as ``Function``s."""
    text = read_source(repo, path)
    if text is None:
        return []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    modules, from_names = _imports(tree)
    top = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    out = []
    for qual, fn in _candidates(tree):
        found = _closed(fn, modules, from_names, top, depth=0)
        if found is None:
            continue
        helpers, imports, data = found
        node = _clean(fn)
        out.append(Function(f"{repo}:{path}:{qual}:{fn.lineno}", fn.name, node,
                            [_clean(h) for h in helpers], imports, sorted(data)))
    return out


def _clean(fn):
    import copy
    fn = copy.deepcopy(fn)
    fn.decorator_list = []
    fn.returns = None
    for a in fn.args.args:
        a.annotation = None
    fn.body = [s for s in fn.body if not (isinstance(s, ast.Expr)
                                          and isinstance(s.value, ast.Constant))] or [ast.Pass()]
    return ast.fix_missing_locations(fn)


def _closed(fn, modules, from_names, top, depth):
    """(helpers, imports, data names) when ``fn`` can stand alone, else None."""
    if _bad(fn):
        return None
    free = _loaded(fn) - _stored(fn) - BUILTINS
    if free & FORBIDDEN:
        return None
    helpers, imports, data = [], {}, set()
    for name in sorted(free):
        if name in modules:
            if modules[name] is None:
                return None
            imports[name] = modules[name]
        elif name in from_names:
            imports[name] = from_names[name]
        elif name in top and top[name] is not fn:
            if depth >= 2:
                return None
            sub = _closed(top[name], modules, from_names, top, depth + 1)
            if sub is None:
                return None
            h, i, d = sub
            helpers.extend(x for x in h if all(x is not y for y in helpers))
            helpers.append(top[name])
            imports.update(i)
            data |= d
        elif name in top:
            continue  # recursion
        else:
            data.add(name)
    if any(f"{n}(" in ast.unparse(fn) for n in data):
        return None  # a free name that is called: an object we cannot make up
    return helpers, imports, data


def harvest(only=None):
    out = []
    for repo, path in _sources():
        if only and not any(o in f"{repo}:{path}" for o in only):
            continue
        out.extend(functions_of(repo, path))
    seen, unique = set(), []
    for f in out:  # the same function in several files (notebook copies): once
        text = ast.unparse(f.node)
        if text not in seen:
            seen.add(text)
            unique.append(f)
    return unique


# ---- arguments --------------------------------------------------------------------------------

def int_names(fn):
    """Parameters and data names used where an integer is needed (``range``, an index, a
    shape, a repeat count)."""
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("range", "zeros", "ones", "eye", "int"):
            out.update(n.id for a in node.args for n in ast.walk(a) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("zeros", "ones", "eye", "reshape", "arange", "linspace",
                                   "tile", "repeat", "full", "empty", "identity"):
            out.update(n.id for a in node.args for n in ast.walk(a) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Subscript):
            idx = node.slice
            parts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
            for p in parts:
                if isinstance(p, ast.Name):
                    out.add(p.id)
                elif isinstance(p, ast.Slice):
                    out.update(n.id for b in (p.lower, p.upper, p.step) if b is not None
                               for n in ast.walk(b) if isinstance(n, ast.Name))
                elif isinstance(p, ast.BinOp):
                    out.update(n.id for n in ast.walk(p) if isinstance(n, ast.Name))
    return out


PROFILES = [(), (3,), (3, 3), (4,), "first-matrix", "first-vector", (2, 3), (3, 1)]


#: the ranges the values are drawn from, in the order tried (``arccosh`` needs > 1)
RANGES = {True: (0.3, 1.2), "large": (1.2, 2.5)}


def make_value(shape, rs, positive=True):
    """Numbers of ``shape`` from ``RANGES[positive]``, or normal ones (``positive=False``)."""
    if positive is False:
        return float(rs.standard_normal()) if shape == () else rs.standard_normal(shape)
    lo, hi = RANGES[positive]
    return float(rs.uniform(lo, hi)) if shape == () else rs.uniform(lo, hi, size=shape)


def profile_values(names, ints, profile, rs, positive=True):
    vals = {}
    for k, n in enumerate(names):
        if n in ints:
            vals[n] = 2
            continue
        if profile == "first-matrix":
            shape = (3, 3) if k == 0 else (3,)
        elif profile == "first-vector":
            shape = (3,) if k == 0 else (3, 3)
        else:
            shape = profile
        vals[n] = make_value(shape, rs, positive)
    return vals


def finite_float(out):
    if isinstance(out, (float, np.floating)):
        return bool(np.isfinite(out))
    if isinstance(out, np.ndarray) and out.dtype.kind == "f" and out.size:
        return bool(np.all(np.isfinite(out)))
    return False


def locals_of(fn, args):
    """The classes (and array shapes) of ``fn``'s locals when it returns."""
    seen = {}
    code = fn.__code__

    def tracer(frame, event, arg):
        if frame.f_code is not code:
            return None
        if event == "return":
            for k, v in frame.f_locals.items():
                if isinstance(v, np.ndarray):
                    seen[k] = ("array", v.shape, v.dtype.kind)
                elif isinstance(v, (float, np.floating)):
                    seen[k] = ("float",)
                elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                    seen[k] = ("int",)
                elif isinstance(v, list):
                    seen[k] = ("list", len(v))
                else:
                    seen[k] = (type(v).__name__,)
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn(*args)
    finally:
        sys.settrace(old)
    return seen


def dedent(text):
    return textwrap.dedent(text)
