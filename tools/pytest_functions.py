"""A pytest module's tests run without pytest's runner, for ``tools/example_shim.py``.

A package's test suite (``test_*.py`` of pytest functions, no ``__main__`` block) is a program
that takes derivatives too: run as a script it only defines its tests. ``run_tests(namespace)``
calls each ``test_*`` function of the module (and ``test_*`` method of each ``Test*`` class made
without arguments) as pytest would: ``@pytest.mark.parametrize`` cases expanded, arguments named
after a fixture the module or a ``conftest.py`` beside it (or above it) defines given that
fixture's value (a generator fixture's first value), ``tmp_path`` a fresh folder. A test that
needs anything else is left out (counted as skipped), and so is one that calls
``pytest.skip``/``importorskip``. Every test runs whatever failed before it.

Imports: inspect, itertools, os, runpy, tempfile (the standard library); pytest when the
module uses it.
"""

from __future__ import annotations

import inspect
import itertools
import os
import runpy
import tempfile


def is_test_module(path, namespace):
    name = os.path.basename(path)
    return (name.startswith("test_") or name.endswith("_test.py")) and any(
        k.startswith("test") and callable(v) for k, v in namespace.items())


def _fixture_function(obj):
    """The function a ``@pytest.fixture`` wraps, or None."""
    for attr in ("_get_wrapped_function",):
        if hasattr(obj, attr) and type(obj).__name__ == "FixtureFunctionDefinition":
            return getattr(obj, attr)()
    if hasattr(obj, "_pytestfixturefunction") or hasattr(obj, "_fixture_function_marker"):
        return getattr(obj, "__wrapped__", obj)
    return None


def _fixtures(path, namespace):
    """name -> function of the fixtures the module and the conftest.py files above it define."""
    found = {}
    folder = os.path.dirname(os.path.abspath(path))
    conftests = []
    while True:
        c = os.path.join(folder, "conftest.py")
        if os.path.exists(c):
            conftests.append(c)
        parent = os.path.dirname(folder)
        if parent == folder or not os.path.exists(os.path.join(folder, "__init__.py")):
            break
        folder = parent
    spaces = []
    for c in reversed(conftests):
        try:
            spaces.append(runpy.run_path(c))
        except Exception:  # a conftest needing a plugin: its fixtures are not had
            continue
    spaces.append(namespace)
    for space in spaces:
        for k, v in space.items():
            f = _fixture_function(v)
            if f is not None:
                found[k] = f
    return found


class _Skip(Exception):
    pass


def _resolve(name, fixtures, cache, tmp):
    if name in cache:
        return cache[name]
    if name == "tmp_path":
        import pathlib
        value = pathlib.Path(tempfile.mkdtemp(dir=tmp))
    elif name == "tmpdir":
        value = tempfile.mkdtemp(dir=tmp)
    elif name in fixtures:
        f = fixtures[name]
        args = {p: _resolve(p, fixtures, cache, tmp) for p in _required(f)}
        value = f(**args)
        if inspect.isgenerator(value):
            value = next(value)
    else:
        raise _Skip(f"needs {name!r}")
    cache[name] = value
    return value


def _required(f):
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.default is inspect.Parameter.empty
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]


def _cases(f):
    """The keyword sets of a test's ``parametrize`` marks (their product), [{}] without."""
    sets = []
    for mark in getattr(f, "pytestmark", []):
        if getattr(mark, "name", "") != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        rows = []
        for v in values:
            if type(v).__name__ == "ParameterSet":  # pytest.param(...)
                v = v.values if len(names) > 1 else v.values[0]
            rows.append(dict(zip(names, v)) if len(names) > 1 else {names[0]: v})
        sets.append(rows)
    return [dict(kv for d in combo for kv in d.items()) for combo in itertools.product(*sets)] \
        if sets else [{}]


def _tests(namespace):
    for k, v in list(namespace.items()):
        if k.startswith("test") and inspect.isfunction(v):
            yield k, v, None
        elif k.startswith("Test") and inspect.isclass(v):
            for m, f in inspect.getmembers(v, inspect.isfunction):
                if m.startswith("test"):
                    yield f"{k}.{m}", f, v


def run_tests(path, namespace):
    """Runs the module's tests; returns (ran, skipped, failures: [(test, exception)])."""
    fixtures = _fixtures(path, namespace)
    skip_types = ()
    try:
        import pytest
        skip_types = (pytest.skip.Exception,)
    except ImportError:
        pass
    ran, skipped, failures = 0, 0, []
    with tempfile.TemporaryDirectory(prefix="srcad-pytest-") as tmp:
        for name, f, cls in _tests(namespace):
            for case in _cases(f):
                cache = dict(case)
                try:
                    args = {p: _resolve(p, fixtures, cache, tmp) for p in _required(f)}
                    if cls is not None:
                        instance = cls()
                        if hasattr(instance, "setup_method"):
                            instance.setup_method(f)
                        f(instance, **args)
                    else:
                        f(**args)
                    ran += 1
                except _Skip:
                    skipped += 1
                except skip_types:
                    skipped += 1
                except Exception as e:  # the test's failure: kept, the next test runs
                    ran += 1
                    failures.append((name, e))
    return ran, skipped, failures
