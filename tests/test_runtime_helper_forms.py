"""Every runtime helper generated code may call (``srcad.runtime.HELPERS``; the emitter binds
exactly those, tests/test_runtime_registry.py) has each form the backends need, or is listed
here as refused there, with the reason:

* the kinds pass (``srcad.analysis.value_kinds``) names it, or its result is ANY
  (:data:`KINDS_ANY`: never a wrong kind, at worst a refusal of a later write or second order);
* a Numba form (``numba_backend.NUMBA_HELPERS``, each implemented in ``numba_helpers.HELPERS``),
  or ``numba_backend.REFUSED_HELPERS``, or :data:`NUMBA_REFUSED` (the Numba backend refuses any
  other helper at the user's line: "its construct needs the Python backend");
* an array-API namespace form (``standard_helpers.make_helpers``), or :data:`STANDARD_REFUSED`
  (the standard backend refuses it at the user's line: "the backend has no form");
* for the helpers that look at values (:data:`READERS`), a path on Dask that computes nothing.

A new helper fails here until it has these forms or is listed with a reason. The lists are by
the module the helper lives in.
"""

from __future__ import annotations

import ast
import inspect
import warnings

import numpy as np
import pytest

import srcad.runtime as runtime
from srcad.analysis import value_kinds
from srcad.backend import numba_backend
from srcad.runtime import standard, standard_helpers


def _names(groups):
    """name -> module key of a table of ``module: (reason, "names ...")``."""
    out = {}
    for module, (reason, names) in groups.items():
        assert reason.strip(), module
        for name in names.split():
            assert name not in out, f"{name} listed twice"
            out[name] = module
    return out


NUMBA_REFUSED = {
    'derivatives': (
        'a function srcad meets only when the code runs: its derivative is made then, which '
        'code compiled in advance cannot do',
        'call_value'),
    'spread_calls': (
        'f(*xs) of a length known only when the code runs: its derivative is made then',
        'star_call'),
    'containers': (
        'list, dict and tuple versions and their gradients: reflected lists and dicts of '
        'mixed items are not Numba values',
        'clear_value concat_tangent dict_get dict_items dict_keys dict_of_grad '
        'dict_of_tangent dict_values extend_value extreme_index get_default_grad get_grad '
        'get_tangent_or index_tuples insert_position insert_value items_grad '
        'items_tangent '
        'pop_position '
        'pop_value remove_position remove_value reverse_grad reverse_value seq_back seq_count '
        'seq_grad seq_index '
        'sort_value sort_value_grad sort_value_tangent sorted_grad sorted_tangent '
        'split_concat split_concat_back values_grad values_tangent with_zero_at without_item'),
    'helpers': (
        'general helpers for values Numba does not type alike (complex checks, lists, '
        'objects) or for forms outside the Numba subset',
        'added_at check_holomorphic check_real copy_tangent_grad dot_grad_a '
        'dot_grad_b erf expand like_grad matmul_grad_a matmul_grad_b '
        'real_part shape_of total which_max which_min zeros_array'),
    'items': (
        'gradients of containers read item by item: lists and tuples of mixed items; a row '
        'added into in place (the Python backend for NumPy only)',
        'add_into add_row filled items_at picked'),
    'numpy_assembly': (
        "gradients and tangents of NumPy assembly functions outside Numba's subset",
        'cov_rows cov_weights grad_block grad_choose grad_cov_rows grad_insert grad_multi_dot '
        'grad_unstack lstsq_check multi_dot_d2 multi_dot_hvp multi_dot_tangent tangent_block'),
    'numpy_extra': (
        "gradients of NumPy functions outside Numba's subset",
        'cholesky_upper d2sinc diff_part diff_place dsinc eig_order eig_size eig_unchecked '
        'gauge_check grad_append '
        'grad_column_stack grad_cross_a grad_cross_b grad_diff grad_diff_ends grad_gradient '
        'grad_partition grad_rollaxis grad_select grad_tolist qr_size sinc_derivative '
        'square_chunks svd_rank svd_thin tangent_diff_ends tangent_partition'),
    'numpy_fft': (
        'FFT gradients (Numba has no np.fft)',
        'fft_fitted grad_fftn grad_irfftn grad_rfftn irfft_fitted rfft_fitted'),
    'numpy_linalg': (
        'linear algebra gradients beyond two vectors (batched, complex)',
        'grad_inner_a grad_inner_b grad_kron_a grad_kron_b grad_matmul_a grad_matmul_b '
        'grad_outer_a grad_outer_b grad_solve_a grad_solve_b grad_tensordot_a '
        'grad_tensordot_b grad_vdot_a grad_vdot_b'),
    'numpy_points': (
        "np.linalg.det's cofactors by an SVD (batched), and checks reading values or raising "
        "srcad's errors (Python objects) when the gradient runs",
        'cofactors cofactors_tangent det_nonzero fixed_check slogdet_check'),
    'numpy_more': (
        "gradients of NumPy functions outside Numba's subset",
        'average_shape bessel_i1 cond_two conv_crop conv_embed grad_dstack grad_interp_fp '
        'grad_interp_slope grad_quantile grad_take grad_take_along_axis interp_segment '
        'mesh_axes one_axis running_source tangent_quantile trapezoid_x'),
    'numpy_reductions': (
        'reductions with axes, keepdims or dtypes beyond numba_axes (tangent_sum: Numba\'s '
        'forward-mode code writes np.sum)',
        'extremum_initial_weight extremum_weights grad_astype grad_clip grad_clip_bound '
        'grad_cumprod grad_mean grad_norm grad_prod grad_std grad_trace grad_var '
        'norm_axes norm_by_svd safe_div tangent_cumprod tangent_dot tangent_sum'),
    'numpy_second': (
        "second-order forms of NumPy functions outside Numba's subset",
        'cumprod_d2 cumprod_d3 cumprod_hvp cumprod_hvp3 grad_solve_a_ans norm_hvp prod_d3 '
        'prod_hvp solve_gans tangent_grad_solve_a tangent_grad_solve_b'),
    'numpy_shape': (
        "shape and assembly gradients built with NumPy functions outside Numba's subset",
        'add_at c_piece diagonal_positions grad_add_at grad_diag grad_diagonal grad_hstack '
        'grad_linspace '
        'grad_pad grad_pad_value grad_repeat grad_roll grad_sort grad_split '
        'grad_tile grad_vstack tangent_pad tangent_sort'),
    'scipy_helpers': (
        'SciPy gradients (Numba cannot call SciPy)',
        'banded_dense cho_lower dense_banded grad_convolve_a grad_convolve_b lu_pivots lu_size '
        'multipolygamma '
        'mvn_cov mvn_cov_adjoint mvn_dim scipy_linalg scipy_signal special'),
    'scipy_ode': (
        'odeint gradients (Numba cannot call SciPy)',
        'grad_odeint tangent_odeint'),
}

STANDARD_REFUSED = {
    'containers': (
        'list and dict helpers: NumPy code only',
        'clear_value concat_tangent dict_get dict_items dict_keys dict_of_grad '
        'dict_of_tangent dict_values extend_value extreme_index get_default_grad get_grad '
        'get_tangent_or index_tuples insert_position insert_value items_grad '
        'items_tangent '
        'pop_position '
        'pop_value remove_position remove_value reverse_grad reverse_value seq_back seq_count '
        'seq_grad seq_index '
        'sort_value sort_value_grad sort_value_tangent sorted_grad sorted_tangent '
        'split_concat split_concat_back values_grad values_tangent with_zero_at without_item'),
    'derivatives': (
        'third order: the derivative of a derivative is NumPy code (second order and'
        ' Jacobians have namespace forms); a function met when the code runs is NumPy code',
        'call_value form_fwd form_jvp'),
    'spread_calls': (
        'f(*xs) of a length known only when the code runs: NumPy code, made then',
        'star_call'),
    'items': (
        'a sparse list gradient made whole, a row or an index added into in place: made only '
        'by the Python backend for NumPy (srcad.transform.sparse, partition)',
        'add_into add_row filled'),
    'helpers': (
        'NumPy-only forms (np.add.at, object arrays, complex checks) the standard lacks',
        'added_at check_holomorphic copy_tangent_grad dot_grad_a dot_grad_b erf expand fill '
        'like_grad matmul_grad_a matmul_grad_b mutable real_part sign where which_max '
        'which_min'),
    'numpy_assembly': (
        'NumPy assembly functions the standard has no form of',
        'cov_rows cov_weights grad_block grad_choose grad_cov_rows grad_insert grad_multi_dot '
        'grad_unstack lstsq_check multi_dot_d2 multi_dot_hvp multi_dot_tangent tangent_block'),
    'numpy_extra': (
        'NumPy functions the standard has no form of',
        'cholesky_upper d2sinc diff_part diff_place dsinc eig_order eig_size eig_unchecked '
        'gauge_check grad_append '
        'grad_column_stack grad_cross_a grad_cross_b grad_diff grad_diff_ends grad_gradient '
        'grad_partition grad_rollaxis grad_select grad_tolist qr_size sinc_derivative '
        'svd_rank svd_thin tangent_diff_ends tangent_partition'),
    'numpy_fft': (
        'np.fft (no FFT in the array API namespace used here)',
        'fft_fitted grad_fftn grad_irfftn grad_rfftn irfft_fitted rfft_fitted'),
    'numpy_linalg': (
        'linear algebra gradients written for NumPy (dot, einsum, kron, solve)',
        'grad_dot_a grad_dot_b grad_einsum grad_inner_a grad_inner_b grad_kron_a grad_kron_b '
        'grad_solve_a grad_solve_b grad_tensordot_a grad_tensordot_b grad_vdot_a grad_vdot_b'),
    'numpy_more': (
        'NumPy functions the standard has no form of',
        'average_shape bessel_i1 cond_two conv_crop conv_embed grad_dstack grad_interp_fp '
        'grad_interp_slope grad_quantile grad_take grad_take_along_axis interp_segment '
        'mesh_axes running_source tangent_quantile trapezoid_x'),
    'numpy_reductions': (
        'NumPy reductions the standard has no form of (astype, cumprod, norms)',
        'extremum_initial_weight extremum_weights grad_astype grad_clip_bound grad_cumprod '
        'norm_axes norm_by_svd safe_div tangent_cumprod tangent_dot tangent_sum'),
    'numpy_second': (
        'second-order forms written for NumPy',
        'cumprod_d2 cumprod_d3 cumprod_hvp cumprod_hvp3 grad_solve_a_ans norm_hvp prod_d3 '
        'prod_hvp solve_gans tangent_grad_solve_a tangent_grad_solve_b'),
    'numpy_shape': (
        'NumPy shape functions the standard has no form of',
        'add_at c_piece diagonal_positions grad_add_at grad_array grad_diag grad_diagonal '
        'grad_hstack '
        'grad_linspace grad_pad grad_pad_value grad_repeat grad_roll grad_split grad_tile '
        'grad_vstack last_writes tangent_pad'),
    'scipy_helpers': (
        'SciPy gradients: NumPy code',
        'banded_dense cho_lower dense_banded grad_convolve_a grad_convolve_b lu_pivots lu_size '
        'multipolygamma '
        'mvn_cov mvn_cov_adjoint mvn_dim scipy_linalg scipy_signal special'),
    'scipy_ode': (
        'odeint gradients: NumPy code',
        'grad_odeint tangent_odeint'),
}

KINDS_ANY = {
    'containers': (
        "a container's item, or a gradient of one: ANY",
        'concat_tangent dict_get dict_items dict_keys dict_of_grad dict_of_tangent '
        'dict_values extreme_index get_default_grad get_grad get_tangent_or '
        'index_tuples '
        'insert_position '
        'items_grad items_tangent pop_position remove_position reverse_grad seq_back '
        'seq_count seq_index '
        'sort_value_grad sort_value_tangent sorted_grad sorted_tangent split_concat '
        'split_concat_back values_grad values_tangent with_zero_at without_item'),
    'derivatives': (
        "a derivative's result, or a function's met when the code runs: its own "
        "specialisation decides, ANY here",
        'call_value derivative_bwd derivative_fwd derivative_jvp form_fwd form_jvp'),
    'spread_calls': (
        "the result of f(*xs): the function's own specialisation decides, ANY here",
        'star_call'),
    'helpers': (
        'a gradient or check of any kind: ANY (never a wrong kind; at worst a refusal)',
        'broadcast_as check_holomorphic check_real check_scalar copy_tangent '
        'copy_tangent_grad dot_grad_a dot_grad_b erf expand layout like like_grad '
        'matmul_grad_a matmul_grad_b mutable real_part shape_of '
        'transpose_grad which_max which_min'),
    'items': (
        'the gradient of a container read item by item: ANY (add_row, add_into: statements)',
        'add_into add_row filled items_at picked'),
    'numpy_assembly': (
        'a NumPy gradient or tangent: ANY',
        'cov_rows cov_weights grad_block grad_choose grad_cov_rows grad_insert grad_multi_dot '
        'grad_unstack lstsq_check multi_dot_d2 multi_dot_hvp multi_dot_tangent tangent_block'),
    'numpy_extra': (
        'a NumPy gradient: ANY',
        'cholesky_upper d2sinc diff_part diff_place dsinc eig_order eig_size eig_unchecked '
        'gauge_check grad_append '
        'grad_column_stack grad_cross_a grad_cross_b grad_diff grad_diff_ends grad_gradient '
        'grad_partition grad_rollaxis grad_select grad_tolist qr_size sinc_derivative '
        'square_chunks svd_rank svd_thin tangent_diff_ends tangent_partition'),
    'numpy_fft': (
        'an FFT gradient: ANY',
        'fft_fitted grad_fftn grad_irfftn grad_rfftn irfft_fitted rfft_fitted'),
    'numpy_linalg': (
        'a linear algebra gradient (a number for two vectors): ANY',
        'grad_dot_a grad_dot_b grad_einsum grad_inner_a grad_inner_b grad_kron_a grad_kron_b '
        'grad_matmul_a grad_matmul_b grad_outer_a grad_outer_b grad_solve_a grad_solve_b '
        'grad_tensordot_a grad_tensordot_b grad_vdot_a grad_vdot_b'),
    'numpy_points': (
        "np.linalg.det's determinant in its third derivative: a number or an array, as det",
        'det_nonzero'),
    'numpy_more': (
        'a NumPy gradient: ANY',
        'average_shape bessel_i1 cond_two conv_crop conv_embed grad_dstack grad_interp_fp '
        'grad_interp_slope grad_quantile grad_take grad_take_along_axis interp_segment '
        'mesh_axes one_axis running_source tangent_quantile trapezoid_x'),
    'numpy_reductions': (
        "a reduction's gradient (an array or a number): ANY",
        'extremum_initial_weight extremum_weights grad_astype grad_clip grad_clip_bound '
        'grad_cumprod grad_cumsum grad_extremum grad_norm grad_prod grad_std '
        'grad_trace grad_var norm_axes norm_by_svd safe_div tangent_cumprod '
        'tangent_dot tangent_sum'),
    'numpy_second': (
        'a second-order NumPy form: ANY',
        'cumprod_d2 cumprod_d3 cumprod_hvp cumprod_hvp3 grad_solve_a_ans norm_hvp prod_d3 '
        'prod_hvp solve_gans tangent_grad_solve_a tangent_grad_solve_b'),
    'numpy_shape': (
        'a NumPy gradient (an array, or what its argument was): ANY',
        'add_at c_piece diagonal_positions grad_add_at grad_concatenate grad_diag '
        'grad_diagonal grad_hstack '
        'grad_linspace grad_pad grad_pad_value grad_repeat grad_reshape grad_roll grad_sort '
        'grad_split grad_stack grad_tile grad_vstack last_writes tangent_pad tangent_sort'),
    'scipy_helpers': (
        'a SciPy gradient: ANY',
        'banded_dense cho_lower dense_banded grad_convolve_a grad_convolve_b lu_pivots lu_size '
        'multipolygamma '
        'mvn_cov mvn_cov_adjoint mvn_dim scipy_linalg scipy_signal special'),
    'scipy_ode': (
        'an odeint gradient: ANY',
        'grad_odeint tangent_odeint'),
}

#: a Numba form under another name (``grad_einsum`` is compiled per operand count)
NUMBA_ALIASES = {"grad_einsum": ("grad_einsum1", "grad_einsum2", "grad_einsum3")}


def _listed(table):
    names = _names(table)
    for name, module in names.items():
        fn = runtime.HELPERS.get(name)
        assert fn is not None, f"{name} is listed but is no helper now: take it off the list"
        assert fn.__module__.rsplit(".", 1)[-1] == module, (name, fn.__module__, module)
    return set(names)


def test_the_kinds_pass_names_each_helper_or_it_is_listed_as_any():
    tree = ast.parse(inspect.getsource(value_kinds))
    named = {n.value for n in ast.walk(tree)
             if isinstance(n, ast.Constant) and isinstance(n.value, str)} & set(runtime.HELPERS)
    listed = _listed(KINDS_ANY)
    assert not named & listed, f"named by the kinds pass, take off KINDS_ANY: {named & listed}"
    missing = set(runtime.HELPERS) - named - listed
    assert not missing, f"new helpers: give them a kind in value_kinds or list them: {missing}"


def test_each_helper_has_a_numba_form_or_a_listed_refusal():
    forms = numba_backend.NUMBA_HELPERS
    refused = set(numba_backend.REFUSED_HELPERS)
    listed = _listed(NUMBA_REFUSED)
    assert forms <= set(runtime.HELPERS) and refused <= set(runtime.HELPERS)
    assert not forms & refused and not (forms | refused) & listed
    missing = set(runtime.HELPERS) - forms - refused - listed
    assert not missing, f"new helpers: a Numba form, or list them in NUMBA_REFUSED: {missing}"
    pytest.importorskip("numba")
    from srcad.backend import numba_helpers, numba_reductions  # noqa: F401  (numba_masks too:
    # they add grad_cumsum, last_writes and checked_index to numba_helpers.HELPERS)

    for name in forms:
        for form in NUMBA_ALIASES.get(name, (name,)):
            assert form in numba_helpers.HELPERS, f"{name} is in NUMBA_HELPERS with no form"


def test_each_helper_has_an_array_api_form_or_a_listed_refusal():
    forms = set(standard_helpers.make_helpers(standard.Namespace(np)))
    assert forms <= set(runtime.HELPERS), forms - set(runtime.HELPERS)
    listed = _listed(STANDARD_REFUSED)
    assert not forms & listed, f"has a form, take off STANDARD_REFUSED: {forms & listed}"
    missing = set(runtime.HELPERS) - forms - listed
    assert not missing, f"new helpers: an array-API form, or list them: {missing}"


# ---------------------------------------------------------------- Dask: reading values lazily

#: the helpers that look at their arguments' values or dtypes (a complex check, a sign, a
#: repeated index, a size), each with a call on small Dask arrays
READERS = {
    "check_real": lambda a, s: runtime.HELPERS["check_real"](a, "x", "f.py:3"),
    "check_scalar": lambda a, s: runtime.HELPERS["check_scalar"](s, "f.py:3"),
    "check_holomorphic": lambda a, s: runtime.HELPERS["check_holomorphic"](s * 1j, "f.py:3"),
    "log_base": lambda a, s: runtime.HELPERS["log_base"](a - 1.0),
    "grad_prod": lambda a, s: runtime.HELPERS["grad_prod"](s, a),
    "grad_norm": lambda a, s: runtime.HELPERS["grad_norm"](s, a, s),
    "grad_extremum": lambda a, s: runtime.HELPERS["grad_extremum"](s, a, s),
    "grad_clip": lambda a, s: runtime.HELPERS["grad_clip"](a, a, 0.3, 2.0),
    "last_writes": lambda a, s: runtime.HELPERS["last_writes"](
        a[np.array([0, 2, 2])], a, np.array([0, 2, 2])),
    "real_part": lambda a, s: runtime.HELPERS["real_part"](a * 1j),
    "unbroadcast": lambda a, s: runtime.HELPERS["unbroadcast"](a, s),
    "grad_sum": lambda a, s: runtime.HELPERS["grad_sum"](s, a),
}


def _forbid(*args, **kwargs):
    raise AssertionError("a Dask array was computed by a runtime helper")


@pytest.mark.parametrize("name", READERS)
def test_value_readers_compute_nothing_on_dask(name):
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    a = da.from_array(np.array([0.5, 1.5, 2.5]), chunks=2)
    with dask.config.set(scheduler=_forbid), warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # a NumPy fallback would compute
        READERS[name](a, a.sum())
