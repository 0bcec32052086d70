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


#: session 33 (CI's rehearsal at 21 minutes): the heaviest families left, by the merge's
#: durations, of which CI runs the first case of each value of each parameter (a form, a
#: mode, a program) and every second of the rest; the long run all of them
HALVED_FAMILIES = {
    "tests/test_numba_corpus.py::test_numba_gives_the_python_gradient_or_refuses",
    "tests/test_records_passed.py::test_a_record_passed_through_calls",
    "tests/test_misc16_transforms_in_code.py::test_second_order",
    "tests/test_lstm18b_pieces.py::test_vjp_jvp_and_hessians",
    "tests/test_returned_list_tuples.py::test_hessians",
    "tests/test_list_branches.py::test_first_order",
    "tests/test_misc16_groups.py::test_grouping_family",
    "tests/test_attrs10_trees.py::test_starmap_of_a_function_with_defaults",
    "tests/test_accumulator_hessians.py::test_hessian_of_a_recurrence",
    "tests/test_objects17_functions.py::test_hessian_both_modes",
    "tests/test_views20_forms.py::test_view_writes",
    "tests/test_grown_lists.py::test_summed_then_grown",
    "tests/test_second_order_lists21.py::test_second_derivative_with_list_copies",
    "tests/test_early_return_second_order.py::test_second_derivative_after_a_loop_that_may_return",
    "tests/test_frozen_distributions.py::test_a_frozen_distribution",
    "tests/test_jacobian_caching.py::test_second_call_does_not_transform",
    "tests/test_ufunc_methods.py::test_ufunc_methods_read_as_python",
    "tests/test_misc16_defaults.py::test_defaults_family",
    "tests/test_dask.py::test_grad_equals_numpy",
    "tests/test_unbound_names.py::test_like_python",
    "tests/test_sound30_seed_copies.py::test_callee_item_loop",
    "tests/test_conv18_into.py::test_hessian_both_modes",
    "tests/test_attrs10.py::test_a_method_of_an_object_held_in_an_attribute",
    "tests/test_hostile_more.py::test_exact_or_refused",
    "tests/test_tape_reach.py::test_array_route",
    "tests/test_perf18_sparse.py::test_grad_and_value_and_grad",
    "tests/test_shapes17_partition.py::test_grad_and_value_and_grad",
    "tests/test_higher_order_python.py::test_second_derivative_matches_finite_differences",
    "tests/test_corpus16_list_grad_lengths.py::test_hessians_of_a_list_passed_to_a_callee",
    "tests/test_sound30_loop_writes.py::test_write_in_loop",
    "tests/test_objects17_tuples.py::test_hessian_both_modes",
    "tests/test_programs_choices.py::test_reverse_mode",
    "tests/test_list_branches.py::test_second_order",
    "tests/test_python_forms2.py::test_sorting_is_a_permutation",
    "tests/test_unbound_flags.py::test_second_derivative_after_an_early_return",
    "tests/test_fuzz22_sum_mixed.py::test_sum_of_numbers_and_arrays",
    "tests/test_list_branches.py::test_second_order_through_a_decorated_loop",
    "tests/test_corpus9_spread_length.py::test_spread_of_a_fixed_length",
    "tests/test_pytrees_nested.py::test_a_form",
    "tests/test_itertools_items.py::test_itertools_tuples_of_differentiated_items",
    "tests/test_calls_soundness.py::test_second_derivative_matches_finite_differences",
    "tests/test_dask.py::test_no_array_as_large_as_the_data_enters_the_graph",
    "tests/test_pytrees_nested.py::test_a_container_of_records",
    "tests/test_complex_linalg.py::test_single_precision",
    "tests/test_numpy_more.py::test_convolve_correlate",
    "tests/test_functions_chosen.py::test_field_function_chosen",
    "tests/test_attrs10.py::test_an_immutable_value_augmented_is_a_new_value",
    "tests/test_python_forms2.py::test_zip_enumerate_reversed",
    "tests/test_functions_chosen.py::test_passed_function_chosen",
    "tests/test_negative_powers.py::test_negative_base",
    "tests/test_grown_lists.py::test_read_then_changed",
    "tests/test_shapes17_partition.py::test_one_function_called_with_equal_and_broadcasting_shapes",
    "tests/test_misc16_method_aliases.py::test_method_held_in_a_name",
    "tests/test_forms9.py::test_nonlocal_family",
    "tests/test_tape_reach.py::test_scalar_route",
    "tests/test_higher_order.py::test_second_derivative_of_control_flow",
    "tests/test_forward.py::test_forward_and_reverse_agree",
    "tests/test_layouts.py::test_gradients_unchanged",
    "tests/test_complex.py::test_real_valued_function_of_complex_arrays",
}


def _value_key(value):
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def _halved(items):
    """The items to drop of one family: keep the first item of each value of each parameter
    that is a dimension (a few values, each on several items: a form, a mode), and every
    second of the others."""
    params = [getattr(getattr(item, "callspec", None), "params", {}) for item in items]
    names = {name for p in params for name in p}
    dimensions = [name for name in names if 1 < len({_value_key(p.get(name)) for p in params})
                  <= min(8, len(items) // 2)]
    firsts, others, seen = {0}, [], set()
    for k, p in enumerate(params):
        keys = {(name, _value_key(p.get(name))) for name in dimensions}
        if keys - seen:
            firsts.add(k)
            seen |= keys
        elif k:
            others.append(k)
    keep = firsts | set(others[::2])
    return [item for k, item in enumerate(items) if k not in keep]


def pytest_collection_modifyitems(config, items):
    if LONG:
        return
    seen = {}
    kept, dropped = [], []
    halved = {}
    for item in items:
        family = item.nodeid.split("[", 1)[0]
        if family in HALVED_FAMILIES and "[" in item.nodeid:
            halved.setdefault(family, []).append(item)
        if family in HEAVY_FAMILIES and "[" in item.nodeid:
            seen[family] = seen.get(family, -1) + 1
            if seen[family] % 3:
                dropped.append(item)
                continue
        kept.append(item)
    drop = {id(item) for group in halved.values() for item in _halved(group)}
    if drop:
        dropped += [item for item in kept if id(item) in drop]
        kept = [item for item in kept if id(item) not in drop]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept
