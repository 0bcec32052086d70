"""Shared test setup: corpus parametrization.

A test that takes an argument `corpus_item` runs once per (case, input) pair of the whole corpus;
`straight_item` runs over the straight-line functions only. Each item is a `(case, args)` pair
and the test id is `module.function-k` for the k-th input.

`load_module` (a module-scoped fixture) writes a program's text to a module of its own (srcad reads
source) and imports it: ``load_module(name, text)``; the modules leave ``sys.modules`` with the
test module.

Numba's on-disk cache (srcad.backend.numba_cache) goes to a directory of this run's own unless
SRCAD_CACHE_DIR is set: tests neither read a cache left by older code nor fill the user's.
"""

import gc
import importlib.util
import os
import sys
import tempfile

import pytest
from corpus import ALL, STRAIGHT

os.environ.setdefault("SRCAD_CACHE_DIR", tempfile.mkdtemp(prefix="srcad-test-cache-"))

_CORPORA = {"corpus_item": ALL, "straight_item": STRAIGHT}


@pytest.fixture(scope="module")
def load_module(tmp_path_factory, request):
    """``load_module(name, text)``: ``text`` written to ``name.py`` and imported."""
    folder = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
    made = []

    def load(name, text):
        path = folder / f"{name}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        made.append(name)
        spec.loader.exec_module(module)
        return module

    yield load
    for name in made:
        sys.modules.pop(name, None)


def _items(cases):
    items, ids = [], []
    for case in cases:
        for k, args in enumerate(case.inputs):
            items.append((case, args))
            ids.append(f"{case.name}-{k}")
    return items, ids


def pytest_generate_tests(metafunc):
    for fixture, cases in _CORPORA.items():
        if fixture in metafunc.fixturenames:
            items, ids = _items(cases)
            metafunc.parametrize(fixture, items, ids=ids)


def pytest_collection_finish(session):
    """After collection (every test module imported, with NumPy, SciPy, torch, JAX, Numba and
    Dask): those objects move to Python's permanent generation, so that the garbage
    collections the tests cause (automatic, and the tests' own ``gc.collect()``) do not walk
    them again each time."""

    gc.collect()
    gc.freeze()
