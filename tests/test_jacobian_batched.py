"""Batched forward mode (srcad/transform/forward_batched.py): ``jacfwd`` pushes all the
directions through one pass. A generated family of programs, one or a few operations each
(every batched form, ranks 0 to 3, operands of mixed ranks with the number of directions
equal to a data axis' length, where a batch axis broadcast against a data axis would give a
wrong answer of the right shape), each checked to take the batched code (or, for the
operations without a batched form, to fall back to the column passes), against the column
passes (``srcad.jvp`` per direction, 1e-12), autograd's ``jacobian`` of the same source with
``autograd.numpy``, and central differences. Sampled by default (tests/sampling.py)."""

from __future__ import annotations

import autograd
import numpy as np
import pytest
from sampling import sample_by

import srcad
from srcad import jacobians_batched

#: (name, shape of x, body using x, c0 (a number), c1 (3,), c2 (3, 3), c3 (2, 3, 3), idx)
PROGRAMS = [
    ("mul_vector_matrix", (3,), "return x * c2"),
    ("mul_matrix_vector", (3,), "return c2 * np.sin(x)"),
    ("number_times_matrix", (3,), "return x[0] * c2 + x"),
    ("add_number", (3,), "return x[1] + c2"),
    ("padded_column", (3,), "return np.sin(x)[:, None] * np.cos(c2)"),
    ("divide_power", (3,), "return (c2 / (1.0 + x ** 2)) ** 1.5 - x / c1"),
    ("exp_log_tanh", (3,), "return np.exp(x) * np.log(c2 + x) + np.tanh(x * c3)"),
    ("sum_axis0", (3,), "return np.sum(x * c2, axis=0)"),
    ("sum_axis_neg", (3,), "return np.sum(x * c2, axis=-1)"),
    ("mean_axes", (3,), "return np.mean(x * c3, axis=(0, 2))"),
    ("sum_all", (3,), "return np.sum(x * c3)"),
    ("keepdims_sum", (3,), "return np.sum(x * c3, axis=1, keepdims=True) * c2"),
    ("keepdims_mean", (2, 3), "return np.mean(x * c1, axis=None, keepdims=True) - x"),
    ("python_sum", (3,), "return sum([x[0] * c1, np.sin(x), c1]) * c2"),
    ("python_sum_numbers", (3,),
     "parts = []\n    for j in range(3):\n        parts.append(x[j] ** 2)\n"
     "    return sum(parts) * c1"),
    ("method_sum", (2, 3), "return (x * c2[:2]).sum(axis=1) + x.mean()"),
    ("matmul_mv", (3,), "return c2 @ x"),
    ("matmul_vm", (3,), "return x @ c2"),
    ("matmul_vv", (3,), "return x @ x + x @ c1"),
    ("matmul_mm", (3,), "return (x * c2) @ c2 + c2 @ (x * c2)"),
    ("matmul_stack_matrix", (3,), "return c3 @ (x * c2) + (x * c3) @ c2"),
    ("matmul_matrix_vector_varied", (3,), "return (x * c2) @ x"),
    ("matmul_stack_vector", (3,), "return (x * c3) @ c1"),
    ("dot", (3,), "return np.dot(x, c2) + np.dot(c2 * x, c1)"),
    ("transpose_T", (3,), "return (x * c2).T + x"),
    ("transpose_axes", (3,), "return np.transpose(x * c3, (2, 0, 1))"),
    ("transpose_method", (3,), "return (x * c3).transpose((1, 0, 2))"),
    ("swapaxes", (3,), "return np.swapaxes(x * c3, 0, 2)"),
    ("reshape", (3,), "return np.reshape(x * c2, (9,))"),
    ("ravel_method", (2, 3), "return (x[:, :, None] * c3).ravel()"),
    ("reshape_method", (3,), "return (x * c3).reshape(3, 6)"),
    ("stack_axis1", (3,), "return np.stack([x, x ** 2, c1], axis=1)"),
    ("stack_neg", (3,), "return np.stack([x * c2, c2], axis=-1)"),
    ("concatenate", (3,), "return np.concatenate((x, c1 * x[1]), axis=0)"),
    ("concatenate_axis1", (3,), "return np.concatenate([x * c2, c2], axis=1)"),
    ("array_literal", (3,), "return np.array([[x[0], 0.0], [x[1] * x[2], 1.0]])"),
    ("array_of_vector", (3,), "return np.array(x * c1) + x"),
    ("einsum_mv", (3,), "return np.einsum('ij,j->i', c2, x)"),
    ("einsum_three", (3,), "return np.einsum('i,ij,jk->ik', x, c2, x * c2)"),
    ("einsum_mul_sum", (3,),
     "p = np.einsum('bij,vj->vbi', x * c3, c2)\n    return np.sum(p * c2[:2], axis=1)"),
    ("einsum_mul_sum_padded", (3,),
     "p = np.einsum('bij,vj->vbi', x * c3, c2)\n    w = c2[:2].T[:, :, None]\n"
     "    return np.sum(p * w, axis=-2)"),
    ("einsum_times_number", (3,),
     "p = np.einsum('ij,j->i', c2, x)\n    return np.sum(c0 * p)"),
    ("einsum_read_twice", (3,),
     "p = np.einsum('ij,j->i', c2, x)\n    return np.sum(p * c1, axis=0) + p"),
    ("einsum_times_varied", (3,),
     "p = np.einsum('ij,j->ij', c2, x)\n    return np.sum(p * x, axis=(0, 1))"),
    ("einsum_in_loop", (3,),
     "s = x\n    for j in range(2):\n        p = np.einsum('ij,j->ij', c2, s)\n"
     "        s = np.sum(p * c1, axis=1) + x\n    return s"),
    ("python_max_min", (3,),
     "m = max(x[0], x[1] * 0.9) + min(x[2], c0) + abs(x[1] - 0.5)\n    return m * c1"),
    ("python_max_numbers_in", (), "return max(x, 0.5) * c1 + min(x * x, 0.3)"),
    ("where", (3,), "return np.where(x > 0.5, x ** 2, c1)"),
    ("maximum", (3,), "return np.maximum(x, c2) + np.minimum(x * c2, 0.5)"),
    ("index_int_array", (3,), "return (x * c2)[idx] + x[idx][:, None]"),
    ("index_second_axis", (3,), "return (x * c2)[:, idx]"),
    ("index_slices", (3,), "return (x * c2)[1:, ::2]"),
    ("index_ellipsis", (3,), "return (x * c3)[..., 0]"),
    ("index_none", (3,), "return (x * c2)[None, 1] + x[2]"),
    ("index_number", (2, 3), "return x[1] * c2 + x[0, 2]"),
    ("loop_append", (3,),
     "out = []\n    for j in range(3):\n        out.append(x[j] * c2[j])\n"
     "    return np.stack(out)"),
    ("loop_carry", (3,),
     "s = x\n    for j in range(3):\n        s = np.tanh(s @ c2) + x[j]\n    return s"),
    ("branch", (3,),
     "if x[0] > 0.5:\n        y = x * c2\n    else:\n        y = c2 - x\n    return y.sum(axis=0)"),
    ("callee", (3,), "return helper(x * c2, c2) + helper(c2, x * c2)"),
    ("list_item", (3,), "parts = [x, x * c1]\n    return parts[1] * c2 + parts[0]"),
    ("scalar_out", (3,), "return np.sum(np.sin(x * c2))"),
    ("number_in", (), "return x * c2 + np.sin(x) * c1"),
    ("number_in_number_out", (), "return np.cos(x) * c0 + x ** 3"),
    ("matrix_in", (2, 3), "return (x @ c2) * c1 + np.sum(x, axis=0)"),
    ("rank3_in", (2, 3, 3), "return np.sum(x * c3, axis=1) @ c2"),
]

#: the generated part: two operands of ranks 0-3 (made from x, of 3 elements: k = 3, the
#: length of every data axis, or constants), each varied or not, under each binary operation
_OPERANDS = {True: ["x[1] * 1.5", "np.sin(x)", "x * c2", "c3 * x"],
             False: ["c0", "c1", "c2", "c3"]}
_OPERATIONS = {"add": "a + b", "sub": "a - b", "mul": "a * b", "div": "a / (b + 2.0)",
               "maximum": "np.maximum(a, b)", "where": "np.where(b > 0.5, a, b * a)"}
GENERATED = [(f"gen_{op}_{ra}{'v' if va else 'c'}_{rb}{'v' if vb else 'c'}", (3,),
              f"a = {_OPERANDS[va][ra]}\n    b = {_OPERANDS[vb][rb]}\n    return {text}")
             for op, text in _OPERATIONS.items() for ra in range(4) for rb in range(4)
             for va, vb in ((True, False), (False, True), (True, True))]
PROGRAMS += GENERATED

#: (name, shape of x, body): operations without a batched form: the column passes
FALLBACK = [
    ("item_write", (3,), "y = np.zeros((3, 3))\n    y[0] = x\n    return y * c2"),
    ("sort", (3,), "return np.sort(x * c1)"),
    ("stack_at_vector", (3,), "return c3 @ (x * c1)"),
    ("advanced_apart", (3,), "return (x * c3)[1, :, idx]"),
    ("tuple_out", (3,), "return x, x * c1"),
    ("python_sum_of_ranks", (3,), "return sum([x[0], x * c1]) * c2"),
    ("sum_of_list", (3,), "return np.sum([x, x * c1], axis=0) * c2"),
    ("stack_of_lists", (3,), "return np.stack([[x[0], x[1]], [c0, x[2]]], axis=1) @ c2[:2]"),
    ("einsum_of_list", (3,), "return np.einsum('ij,jk->ik', [x, x * c1], c2)"),
]

HEADER = """import {numpy} as np


def helper(a, b):
    return a @ b + np.sin(a)


"""


def _text(numpy, programs):
    parts = [HEADER.format(numpy=numpy)]
    for name, _, body in programs:
        parts.append(f"def {name}(x, c0, c1, c2, c3, idx):\n    {body}\n\n\n")
    return "".join(parts)


@pytest.fixture(scope="module")
def modules(load_module):
    programs = PROGRAMS + FALLBACK
    return (load_module("batched_programs", _text("numpy", programs)),
            load_module("batched_twins", _text("autograd.numpy", programs)))


def _args(shape, rng):
    x = float(rng.uniform(0.2, 0.9)) if shape == () else rng.uniform(0.2, 0.9, size=shape)
    return (x, 0.7, rng.uniform(0.2, 0.9, 3), rng.uniform(0.2, 0.9, (3, 3)),
            rng.uniform(0.2, 0.9, (2, 3, 3)), np.array([2, 0, 1, 1]))


def _columns(f, args):
    """The Jacobian a direction at a time, by ``srcad.jvp``."""
    x = args[0]
    shape = np.shape(x)
    cols = []
    for i in np.ndindex(*shape) if shape else [()]:
        t = np.zeros(shape)
        t[i] = 1.0
        cols.append(np.asarray(srcad.jvp(f, args, (t if shape else 1.0,), wrt=(0,))[1]))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + shape)


def _central(f, args, h=1e-6):
    x = np.asarray(args[0], dtype=float)
    cols = []
    for i in np.ndindex(*x.shape) if x.shape else [()]:
        e = np.zeros(x.shape)
        e[i] = h
        up = f(x + e if x.shape else float(x + e), *args[1:])
        down = f(x - e if x.shape else float(x - e), *args[1:])
        cols.append((np.asarray(up) - np.asarray(down)) / (2 * h))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


def _autograd_wrong(name):
    """autograd's ``np.where(c, a, b)`` with ``a`` of a lower rank than ``c`` gives ``a`` the
    gradient of every element, chosen or not (1.33 where central differences and srcad's
    both modes give 0.44): those are checked against srcad's reverse mode and central
    differences only."""
    parts = name.split("_")
    return parts[:2] == ["gen", "where"] and int(parts[2][0]) < int(parts[3][0])


def _family(p):
    return p[0].split("_")[1] if p[0].startswith("gen_") else p[0].split("_")[0]


CASES = sample_by(PROGRAMS[:-len(GENERATED)], _family, 4) + sample_by(GENERATED, _family, 24)


@pytest.mark.parametrize(("name", "shape", "body"), CASES, ids=[p[0] for p in CASES])
def test_batched_jacobian(modules, name, shape, body):
    programs, twins = modules
    f = getattr(programs, name)
    args = _args(shape, np.random.default_rng(len(name)))
    made = jacobians_batched.batched(f, (0,))
    assert made.code(args) is not None, f"{name}: no batched code: {made.why}"
    jac = srcad.jacfwd(f)(*args)
    want = _columns(f, args)
    assert np.shape(jac) == np.shape(want)
    np.testing.assert_allclose(jac, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(jac, srcad.jacrev(f)(*args), rtol=1e-9, atol=1e-12)
    if not _autograd_wrong(name):
        twin = autograd.jacobian(getattr(twins, name), 0)(*args)
        np.testing.assert_allclose(jac, twin, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(jac, _central(f, args), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(srcad.jacobian(f, mode="fwd")(*args), jac, rtol=0, atol=0)


@pytest.mark.parametrize(("name", "shape", "body"), FALLBACK, ids=[p[0] for p in FALLBACK])
def test_fallback_to_columns(modules, name, shape, body):
    """No batched form: no batched code, and jacfwd the column passes' answer."""
    programs, twins = modules
    f = getattr(programs, name)
    args = _args(shape, np.random.default_rng(len(name)))
    made = jacobians_batched.batched(f, (0,))
    assert made.code(args) is None
    assert isinstance(made.why, srcad.SrcadError)
    if name == "tuple_out":
        jac = srcad.jacfwd(f)(*args)
        np.testing.assert_allclose(jac[1], np.diag(args[2]), rtol=1e-12)
        return
    jac = srcad.jacfwd(f)(*args)
    np.testing.assert_allclose(jac, _columns(f, args), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(jac, _central(f, args), rtol=1e-5, atol=1e-6)


def test_generated_code_reads_like_numpy(modules):
    """The batched code of ``x * c2`` (k = 3 directions, a vector times a 3x3 matrix): the
    vector's tangent padded after the batch axis."""
    programs, _ = modules
    args = _args((3,), np.random.default_rng(0))
    text = jacobians_batched.source(programs.mul_vector_matrix, *args)
    assert "dx[:, None] * c2" in text, text
    assert "k = dx.shape[0]" in text, text


def test_einsum_then_product_then_sum_is_one_einsum(modules):
    """``np.sum(np.einsum(...) * w, axis)`` with ``w`` without a tangent: the tangent is one
    einsum of the tangent, the einsum's other operand and ``w`` (``w = v[:, :, None]`` read
    as ``v``), with no array of k times the product's size on the way."""
    programs, _ = modules
    args = _args((3,), np.random.default_rng(0))
    text = jacobians_batched.source(programs.einsum_mul_sum_padded, *args)
    assert text.count("np.einsum(") == 2, text  # the value's and the tangent's
    assert "'zbij,vj,vb->zvi'" in text, text


@pytest.mark.parametrize("name", ["matmul_mm", "loop_carry", "sort"])
def test_jvp_batched(modules, name):
    """``srcad.jvp_batched``: k directions of two ``wrt`` arguments at once (the batched code,
    or for ``np.sort`` one ``jvp`` each), each the ``jvp`` of its direction."""
    programs, _ = modules
    f = getattr(programs, name)
    rng = np.random.default_rng(3)
    args = _args((3,), rng)
    dx, dc2 = rng.standard_normal((4, 3)), rng.standard_normal((4, 3, 3))
    value, tangents = srcad.jvp_batched(f, args, (dx, dc2), wrt=(0, 3))
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    for i in range(4):
        want = srcad.jvp(f, args, (dx[i], dc2[i]), wrt=(0, 3))[1]
        np.testing.assert_allclose(tangents[i], want, rtol=1e-12, atol=1e-12)
    batched = jacobians_batched.batched(f, (0, 3)).code(args) is not None
    assert batched == (name != "sort")


@pytest.mark.parametrize("budget", [1, 20, 50])
def test_directions_in_chunks(modules, monkeypatch, budget):
    """Directions taken in chunks (the batched pass's memory bounded by the largest argument):
    the same Jacobian whatever the chunk, one direction at a time included."""
    programs, _ = modules
    args = _args((2, 3), np.random.default_rng(4))
    want = _columns(programs.matrix_in, args)
    monkeypatch.setattr(jacobians_batched, "_BUDGET", budget)
    got = jacobians_batched.jacobian(jacobians_batched.batched(programs.matrix_in, (0,)), args)
    np.testing.assert_allclose(got[0], want, rtol=1e-12, atol=1e-12)
