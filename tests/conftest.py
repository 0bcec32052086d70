"""Shared test setup: corpus parametrization.

A test that takes an argument `corpus_item` runs once per (case, input) pair of the whole corpus;
`straight_item` runs over the straight-line functions only. Each item is a `(case, args)` pair
and the test id is `module.function-k` for the k-th input.

`load_module` (a module-scoped fixture) writes a program's text to a module of its own (srcad reads
source) and imports it: ``load_module(name, text)``; the modules leave ``sys.modules`` with the
test module.

Numba's on-disk cache (srcad.backend.numba_cache) goes to a directory of this run's own unless
SRCAD_CACHE_DIR is set: tests neither read a cache left by older code nor fill the user's.

CI's run has Numba optimise at LLVM's level 1 (``NUMBA_OPT=1``, unless set): compiling is most
of what the Numba tests cost (a quarter less CPU at level 1 than at Numba's default 3, measured
on tests/test_numba_callees.py). The tests check values, and no level changes them: srcad never
asks for ``fastmath``, so LLVM keeps IEEE arithmetic as written at every level. The long run
(``SRCAD_LONG_PROPERTIES=1``) compiles at Numba's default, as users do. (Level 0 is not used:
there Numba cannot cache functions calling ``math``'s, and the disk-cache tests would change.)
"""

import gc
import importlib.util
import os
import sys
import tempfile

import pytest
from sampling import LONG

if not LONG:
    os.environ.setdefault("NUMBA_OPT", "1")  # before Numba is imported: see above

from corpus import ALL, STRAIGHT  # noqa: E402

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


#: the parametrized families that cost most CPU in CI's run (per-test CPU of the whole suite,
#: session 26): CI keeps every third case of each (the first always); the long run
#: (SRCAD_LONG_PROPERTIES=1) keeps every case. Session 27 put CI over its 20 minutes.
HEAVY_FAMILIES = {
    "tests/test_numba19b_fuse.py::test_family_reverse_mode_matches_python_autograd_and_differences",
    "tests/test_numba_backend.py::test_family_matches_python_backend_and_finite_differences",
    "tests/test_objlists19_family.py::test_family",
    "tests/test_outside19_nested_jacobians.py::test_nested_jacobians",
    "tests/test_numba20_chains.py::test_fused_expression_and_its_shape_are_numpys_bit_for_bit",
    "tests/test_objects17_lists.py::test_hessian_both_modes",
    "tests/test_outside19_log_appends.py::test_a_constant_logged_into_an_attribute_list",
    "tests/test_complex_linalg.py::test_reverse_forward_and_second_order",
    "tests/test_objects17_lists.py::test_forward_mode_and_pullback",
    "tests/test_objects17_lists.py::test_gradients",
    "tests/test_numba_callees.py::test_callee_family_forward_mode_and_pullback",
    "tests/test_classes16_plain.py::test_hessian_both_modes",
    "tests/test_objects17_pullbacks.py::test_hessian_both_modes",
    "tests/test_objlists19_shapes.py::test_shapes",
    "tests/test_wrapper_factories.py::test_a_wrapper_made_and_called",
    "tests/test_numba_backend.py::test_vjp_and_jvp_of_the_family",
    "tests/test_gradient_aliases.py::test_a_gradient_aliasing_an_argument_is_copied",
    "tests/test_numba_callees.py::test_callee_family_matches_python_backend_and_finite_differences",
    "tests/test_forward_rules.py::test_hvp_matches_finite_differences_of_the_gradient",
    "tests/test_jacobian_modes.py::test_jacfwd_equals_jacrev",
    "tests/test_outside19_held_alias.py::test_a_held_function_read_into_a_local",
    "tests/test_objlists19_shapes.py::test_hessian",
}


def pytest_collection_modifyitems(config, items):
    if LONG:
        return
    seen = {}
    kept, dropped = [], []
    for item in items:
        family = item.nodeid.split("[", 1)[0]
        if family in HEAVY_FAMILIES and "[" in item.nodeid:
            seen[family] = seen.get(family, -1) + 1
            if seen[family] % 3:
                dropped.append(item)
                continue
        kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept
