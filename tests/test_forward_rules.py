"""Forward mode against reverse mode on every registered rule: the dot-product test.

For a function ``f`` and random ``u`` (a tangent of the inputs) and ``v`` (a cotangent of the
output), forward mode gives ``J u`` and reverse mode ``J^T v``; both are right only if

    <jvp(f)(u), v> == <u, vjp(f)(v)>   and both equal   d/ds <f(x + s u), v>  (finite differences).

``EXAMPLES`` holds, for every rule of ``srcad.rules.registry.registry``, one or more small calls
(an expression over float arguments of given shapes); ``test_every_rule_has_an_example`` fails
when a rule is added without one. Each product is also called with the same array on both sides
(``np.dot(a, a)``), and element-wise rules with arguments that broadcast. A rule without a
forward form must be refused with a MissingRuleError at the call's line (``NO_FORWARD``), never
give a wrong tangent. Second derivatives: the Hessian-vector product of ``sum(sin(call))`` by
forward over reverse is checked against finite differences of srcad's reverse gradient.
"""

from __future__ import annotations

import ast
import atexit
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.rules.registry import registry
from srcad.runtime import family_of


def _numpy_crosses_2d():
    try:
        np.cross(np.ones(2), np.ones(2))
    except ValueError:
        return False
    return True

# ---------------------------------------------------------------- argument specifications
# An argument is a shape (uniform in [-1, 1]), or (domain, shape) with a domain of DOMAINS, or
# ("spd", n): a symmetric positive-definite matrix (its tangents are symmetric too);
# ("realeig", n): a matrix with real, distinct eigenvalues (not symmetric).
DOMAINS = {"pos": (0.5, 2.0), "unit": (-0.8, 0.8), "big": (1.2, 3.0), "mid": (1.1, 1.9),
           "small": (0.6, 0.9)}
S, V, M = (), (3,), (2, 3)  # a Python float, a vector, a matrix


#: srcad's runtime helpers, by family: their short names in rule ids
SHORT = {"runtime": "runtime", "numpy": "numpy_helpers"}


def _ids(rule, fn):
    module = (getattr(fn, "__module__", None) or "numpy").replace("_operator", "operator")
    module = SHORT.get(family_of(fn), module.replace("srcad.", ""))
    return f"{module}.{rule.name}({', '.join(rule.params)})"


def rule_ids():
    """srcad's own rules (other tests add user rules with srcad.extend.defvjp)."""
    return {_ids(rule, fn) for fn, rules in registry.rules.items() for rule in rules
            if not rule.user and not _scipy(fn)}


def _scipy(fn):
    """SciPy's rules and helpers: tests/test_scipy_rules.py runs them."""
    module = getattr(fn, "__module__", None) or ""
    special = sys.modules.get("scipy.special")  # its ufuncs have no module of their own
    return module.startswith("scipy") or family_of(fn) == "scipy" or (
        special is not None and getattr(special, getattr(fn, "__name__", ""), None) is fn
        and getattr(np, fn.__name__, None) is not fn)  # np.sinc is scipy.special.sinc


EXAMPLES = {}  # rule id -> [(expression, {argument: spec})]


def ex(rule_id, expr, **args):
    EXAMPLES.setdefault(rule_id, []).append((expr, args))


# ---------------------------------------------------------------- NumPy: ufuncs
UNARY = {"sin": S, "cos": S, "tan": "unit", "arcsin": "unit", "arccos": "unit", "arctan": S,
         "sinh": S, "cosh": S, "tanh": S, "arcsinh": S, "arccosh": "big", "arctanh": "unit",
         "exp": S, "exp2": S, "expm1": S, "log": "pos", "log2": "pos", "log10": "pos",
         "log1p": "pos", "sqrt": "pos", "cbrt": "pos", "square": S, "reciprocal": "pos",
         "absolute": S, "fabs": S, "negative": S, "positive": S}
for name, dom in UNARY.items():
    for shape in (S, M):
        ex(f"numpy.{name}(x)", f"np.{name}(x)", x=shape if dom == S else (dom, shape))
BINARY = {"add": (S, S), "subtract": (S, S), "multiply": (S, S), "divide": (S, "pos"),
          "power": ("pos", S), "float_power": ("pos", S), "remainder": ("mid", "small"),
          "fmod": ("mid", "small"), "arctan2": (S, "pos"), "hypot": ("pos", "pos"),
          "logaddexp": (S, S), "logaddexp2": (S, S), "maximum": (S, S), "minimum": (S, S),
          "fmax": (S, S), "fmin": (S, S)}


def _spec(dom, shape):
    return shape if dom == S else (dom, shape)


for name, (da, db) in BINARY.items():
    for sa, sb in ((S, S), (S, V), (V, S), ((2, 1), V), (M, M)):
        ex(f"numpy.{name}(a, b)", f"np.{name}(a, b)", a=_spec(da, sa), b=_spec(db, sb))
    if da == db and name not in ("maximum", "minimum", "fmax", "fmin"):  # ties split
        ex(f"numpy.{name}(a, b)", f"np.{name}(a, a)", a=_spec(da, V))

ex("numpy.clip(a, a_min, a_max)", "np.clip(a, lo, hi)", a=M, lo=("unit", S), hi=(1.5, V))
ex("numpy.clip(a, a_min, a_max)", "np.clip(a, -0.5, 0.5)", a=V)
ex("numpy.clip(a, a_min, a_max)", "np.clip(a, -0.5, 0.5)", a=S)
ex("numpy.clip(a, min, max)", "a.clip(min=lo, max=hi)", a=M, lo=("unit", S), hi=(1.5, V))
ex("numpy.clip(a, a_min, a_max)", "np.clip(a, hi, lo)", a=M, lo=("unit", S), hi=(1.5, V))
ex("numpy.clip(a, a_min, a_max)", "np.clip(a, lo, lo)", a=V, lo=("unit", S))
ex("numpy.where(condition, x, y)", "np.where(c > 0, x, y)", c=V, x=S, y=V)
ex("copy.copy(x)", "copy.copy(x) * x", x=V)
ex("copy.copy(x)", "copy.copy(x)", x=S)
ex("copy.deepcopy(x, memo)", "copy.deepcopy(x) * x", x=M)
ex("copy.deepcopy(x, memo)", "copy.deepcopy(x)", x=S)
ex("numpy.where(condition, x, y)", "np.where(c > 0, x, y)", c=M, x=M, y=S)

# ---------------------------------------------------------------- NumPy: reductions
for name in ("sum", "mean", "prod", "max", "min", "amax", "amin"):
    middle = "dtype, out" if name in ("sum", "mean", "prod") else "out"
    rid = f"numpy.{name}(a, axis, {middle}, keepdims)"
    ex(rid, f"np.{name}(a)", a=V)
    ex(rid, f"np.{name}(a, axis=1)", a=M)
    ex(rid, f"np.{name}(a, axis=0, keepdims=True)", a=M)
SUM_WHERE = "numpy.sum(a, axis, dtype, out, keepdims, initial, where)"
ex(SUM_WHERE, "np.sum(a, initial=b)", a=V, b=S)
ex(SUM_WHERE, "np.sum(a, axis=1, where=a > 0.0, initial=b)", a=M, b=S)
ex(SUM_WHERE, "a.sum(0, keepdims=True, where=a < 0.5)", a=M)
ex("numpy.mean(a, axis, dtype, out, keepdims, where)", "np.mean(a, axis=1, where=a < 0.5)",
   a=M)
ex("numpy.mean(a, axis, dtype, out, keepdims, where)", "np.mean(a, where=a > -0.5)", a=V)
for name in ("max", "min", "amax", "amin"):  # initial= (given by keyword), where=
    ext = f"numpy.{name}(a, axis, out, keepdims, initial, where)"
    ex(ext, f"np.{name}(a, initial=b)", a=V, b=S)
    ex(ext, f"np.{name}(a, axis=1, initial=b, where=a > -0.2)", a=M, b=S)
ex("numpy.prod(a, axis, dtype, out, keepdims, initial, where)", "np.prod(a, axis=1, initial=b)",
   a=M, b=S)
PROD_WHERE = "numpy.prod(a, axis, dtype, out, keepdims, where, initial)"
ex(PROD_WHERE, "a.prod(0, where=a > -0.2)", a=M)
ex(PROD_WHERE, "np.prod(a, initial=b, where=a < 0.5)", a=V, b=S)
DIFF_PRE, DIFF_APP = ("numpy.diff(a, n, axis, prepend, append)",
                      "numpy.diff(a, n, axis, append, prepend)")
ex(DIFF_PRE, "np.diff(a, prepend=b)", a=V, b=S)
ex(DIFF_PRE, "np.diff(a, axis=0, prepend=c)", a=M, c=(1, 3))
ex(DIFF_APP, "np.diff(a, 2, append=b)", a=V, b=S)
ex(DIFF_APP, "np.diff(a, axis=1, prepend=b, append=c)", a=M, b=S, c=(2, 1))
ex("numpy_helpers.grad_diff_ends(value, a, n, axis, prepend, append, part)",
   "H.grad_diff_ends(w, a, 1, -1, b, None, 1)", w=V, a=V, b=S)
ex("numpy_helpers.tangent_diff_ends(value, a, n, axis, prepend, append, part)",
   "H.tangent_diff_ends(w, a, 1, -1, b, None, 1)", w=V, a=V, b=S)
ex("numpy_helpers.tangent_diff_ends(value, a, n, axis, prepend, append, part)",
   "H.tangent_diff_ends(w, a, 0, 0, None, c, 1)", w=M, a=M, c=(1, 3))
ex("numpy_helpers.diff_part(value, a, axis, prepend, append, part)",
   "H.diff_part(w, a, 0, b, None, 0)", w=(3, 3), a=M, b=S)
ex("numpy_helpers.diff_place(value, a, axis, prepend, append, part)",
   "H.diff_place(w, a, 1, None, c, 2)", w=(2, 1), a=M, c=(2, 1))
for name in ("var", "std"):
    rid = f"numpy.{name}(a, axis, dtype, out, ddof, keepdims)"
    ex(rid, f"np.{name}(a)", a=V)
    ex(rid, f"np.{name}(a, axis=1, ddof=1)", a=M)
    ex(rid, f"np.{name}(a, axis=0, keepdims=True)", a=(3, 2))
NORM = "numpy.linalg.norm(x, ord, axis, keepdims)"
ex(NORM, "np.linalg.norm(x)", x=V)
ex(NORM, "np.linalg.norm(x)", x=M)
ex(NORM, "np.linalg.norm(x, 1)", x=V)
ex(NORM, "np.linalg.norm(x, axis=1)", x=M)
ex(NORM, "np.linalg.norm(x, 'nuc')", x=M)
ex(NORM, "np.linalg.norm(x, 2)", x=M)
ex("numpy.cumsum(a, axis, dtype)", "np.cumsum(a)", a=M)
ex("numpy.cumsum(a, axis, dtype)", "np.cumsum(a, axis=1)", a=M)
ex("numpy.cumprod(a, axis, dtype)", "np.cumprod(a)", a=V)
ex("numpy.cumprod(a, axis, dtype)", "np.cumprod(a, axis=0)", a=M)
ex("numpy.trace(a, offset, axis1, axis2, dtype)", "np.trace(a)", a=(3, 3))
ex("numpy.trace(a, offset, axis1, axis2, dtype)", "np.trace(a, 1)", a=(3, 4))

# ---------------------------------------------------------------- NumPy: products
for rid, expr, shapes in [
    ("numpy.dot(a, b)", "np.dot(a, b)", [(V, V), (M, V), (M, (3, 2)), (S, V), ((2, 2, 3), V)]),
    ("numpy.matmul(a, b)", "np.matmul(a, b)", [(V, V), (M, V), (V, (3, 2)), (M, (3, 2)),
                                             ((2, 2, 3), (3, 2))]),
    ("operator.matmul(a, b)", "a @ b", [(V, V), (M, V), (V, (3, 2)), (M, (3, 2))]),
    ("numpy.inner(a, b)", "np.inner(a, b)", [(V, V), (M, M), (S, V)]),
    ("numpy.outer(a, b)", "np.outer(a, b)", [(V, (2,)), (M, V)]),
    ("numpy.vdot(a, b)", "np.vdot(a, b)", [(V, V), (M, M)]),
    ("numpy.tensordot(a, b, axes)", "np.tensordot(a, b, 1)", [(M, (3, 2))]),
    ("numpy.tensordot(a, b, axes)", "np.tensordot(a, b, 2)", [(M, M)]),
    ("numpy.tensordot(a, b, axes)", "np.tensordot(a, b, ([1], [0]))", [(M, (3, 2))]),
]:
    for sa, sb in shapes:
        ex(rid, expr, a=sa, b=sb)
# the same array on both sides: each side gets its own term of the product rule
for rid, expr, shape in [("numpy.dot(a, b)", "np.dot(a, a)", V),
                         ("numpy.dot(a, b)", "np.dot(a, a)", (3, 3)),
                         ("numpy.matmul(a, b)", "np.matmul(a, a)", (3, 3)),
                         ("operator.matmul(a, b)", "a @ a", (3, 3)),
                         ("operator.matmul(a, b)", "a @ a", V),
                         ("numpy.inner(a, b)", "np.inner(a, a)", M),
                         ("numpy.outer(a, b)", "np.outer(a, a)", V),
                         ("numpy.vdot(a, b)", "np.vdot(a, a)", M),
                         ("numpy.tensordot(a, b, axes)", "np.tensordot(a, a, 1)", (3, 3)),
                         ("numpy.tensordot(a, b, axes)", "np.tensordot(a, a, 2)", M)]:
    ex(rid, expr, a=shape)
#: np.einsum by number of positional arguments (both call forms): (arguments, shapes)
EINSUM_CALLS = {
    2: ("'ij->j', a", dict(a=M)),
    3: ("'ij,j->i', a, b", dict(a=M, b=V)),
    4: ("a, [0, 1], b, [1]", dict(a=M, b=V)),
    5: ("a, [0, 1], b, [1, 2], [0, 2]", dict(a=M, b=(3, 2))),
    6: ("a, [0, 1], b, [1, 2], c, [2]", dict(a=M, b=(3, 2), c=(2,))),
    7: ("a, [0, 1], b, [1, 2], c, [2], [0]", dict(a=M, b=(3, 2), c=(2,))),
    8: ("a, [0], b, [0], c, [1], d, [1]", dict(a=V, b=V, c=(2,), d=(2,))),
    9: ("a, [0, 1], b, [1], c, [0], d, [2], [2]", dict(a=M, b=V, c=(2,), d=(2,))),
    10: ("a, [0], b, [0], c, [1], d, [1], e, [1]", dict(a=V, b=V, c=(2,), d=(2,), e=(2,))),
}
E = "numpy.einsum(subscripts, {}, optimize)"


def _einsum_id(m):
    return E.format(", ".join(f"op{i}" for i in range(1, m)))


for _m, (_args, _shapes) in EINSUM_CALLS.items():
    ex(_einsum_id(_m), f"np.einsum({_args})", **_shapes)
ex(_einsum_id(2), "np.einsum('ii->', a)", a=(3, 3))
ex(_einsum_id(3), "np.einsum('ij,ij->', a, a)", a=M)
ex(_einsum_id(3), "np.einsum('ij,jk->ik', a, a)", a=(3, 3))
ex(_einsum_id(3), "np.einsum('...j,jk->...k', a, b)", a=(2, 2, 3), b=(3, 2))
ex(_einsum_id(4), "np.einsum('ij,jk,k->i', a, b, c)", a=M, b=(3, 2), c=(2,))
ex(_einsum_id(4), "np.einsum('i,i,i->', a, b, a)", a=V, b=V)
ex(_einsum_id(5), "np.einsum('i,i,j,j->', a, b, c, d)", a=V, b=V, c=(2,), d=(2,))
ex(_einsum_id(6), "np.einsum(a, [0, 1], a, [1, 2], a, [2, 0])", a=(3, 3))
ex(_einsum_id(3), "np.einsum(a, (0, 1), (1, 0))", a=M)  # sublists as tuples
ex(_einsum_id(4), "np.einsum(a, [Ellipsis, 0], b, [0])", a=(2, 2, 3), b=V)

# ---------------------------------------------------------------- NumPy: linear algebra
ex("numpy.linalg.inv(a)", "np.linalg.inv(a)", a=("spd", 3))
ex("numpy.linalg.solve(a, b)", "np.linalg.solve(a, b)", a=("spd", 3), b=V)
ex("numpy.linalg.solve(a, b)", "np.linalg.solve(a, b)", a=("spd", 3), b=(3, 2))
ex("numpy.linalg.det(a)", "np.linalg.det(a)", a=("spd", 3))
ex("numpy.linalg.slogdet(a)", "np.linalg.slogdet(a)[1]", a=("spd", 3))
ex("numpy.linalg.cholesky(a, upper)", "np.linalg.cholesky(a)", a=("spd", 3))
ex("numpy.linalg.cholesky(a, upper)", "np.linalg.cholesky(a, upper=True)", a=("spd", 3))
ex("numpy.linalg.solve(a, b)", "np.linalg.solve(a, b)", a=(2.0, (2, 3, 3)), b=V)
ex("numpy.linalg.solve(a, b)", "np.linalg.solve(a, b)", a=(2.0, (2, 3, 3)), b=(2, 3, 2))
SVD = "numpy.linalg.svd(a, full_matrices, compute_uv)"
ex(SVD, "np.linalg.svd(a, compute_uv=False)", a=M)
ex(SVD, "np.linalg.svd(a, compute_uv=False)", a=(2, 3, 2))
ex(SVD, "np.linalg.svd(a, full_matrices=False)[0] ** 2", a=(3, 2))
ex(SVD, "np.linalg.svd(a, full_matrices=False)[2] ** 2", a=M)
ex(SVD, "np.linalg.svd(a)[0] * np.linalg.svd(a)[2]", a=(3, 3))
ex(SVD, "np.linalg.svd(a, full_matrices=False)[1][:, None, :] * np.linalg.svd(a, False)[0]",
   a=(2, 4, 3))
ex("numpy_helpers.svd_thin(a, full_matrices, compute_uv)", "H.svd_thin(a)[1]", a=M)
ex("numpy_helpers.svd_thin(a, full_matrices, compute_uv)", "H.svd_thin(a)[0] ** 2", a=(3, 2))
ex("numpy_helpers.gauge_check(value, j, k)", "H.gauge_check(w, np.eye(2))", w=M)
QR = "numpy.linalg.qr(a, mode)"
ex(QR, "np.linalg.qr(a)[0]", a=(4, 3))
ex(QR, "np.linalg.qr(a)[1]", a=(3, 3))
ex(QR, "np.linalg.qr(a, mode='complete')[0] * np.linalg.qr(a)[1]", a=(2, 3, 3))
ex("numpy.linalg.eig(a)", "np.linalg.eig(a)[0]", a=("realeig", 3))
ex("numpy.linalg.eig(a)", "np.linalg.eig(a)[1] ** 2", a=("realeig", 3))
ex("numpy.linalg.eigvals(a)", "np.linalg.eigvals(a)", a=("realeig", 3))
ex("numpy_helpers.eig_unchecked(a)", "H.eig_unchecked(a)[0]", a=("realeig", 3))
ex("numpy_helpers.eig_unchecked(a)", "H.eig_unchecked(a)[1] ** 2", a=("realeig", 3))

# ---------------------------------------------------------------- NumPy: shapes and axes
ex("numpy.reshape(a, shape, order, newshape, copy)", "np.reshape(a, (3, 2))", a=M)
ex("numpy.ravel(a, order)", "np.ravel(a)", a=M)
ex("numpy.squeeze(a, axis)", "np.squeeze(a)", a=(1, 3))
ex("numpy.expand_dims(a, axis)", "np.expand_dims(a, 0)", a=V)
for k in (1, 2, 3):
    ex(f"numpy.atleast_{k}d(a)", f"np.atleast_{k}d(a)", a=S)
    ex(f"numpy.atleast_{k}d(a)", f"np.atleast_{k}d(a)", a=V)
ex("numpy.transpose(a, axes)", "np.transpose(a)", a=M)
ex("numpy.transpose(a, axes)", "np.transpose(a, (1, 0, 2))", a=(2, 3, 2))
ex("numpy.transpose(a, axes)", "a.T", a=M)
ex("numpy.swapaxes(a, axis1, axis2)", "np.swapaxes(a, 0, 1)", a=M)
ex("numpy.moveaxis(a, source, destination)", "np.moveaxis(a, 0, -1)", a=(2, 3, 2))

# ---------------------------------------------------------------- NumPy: joining and splitting
CAT = "numpy.concatenate(arrays, axis)"
ex(CAT, "np.concatenate([a, b])", a=(2,), b=V)
ex(CAT, "np.concatenate([a, b], axis=1)", a=(2, 1), b=M)
ex(CAT, "np.concatenate([a, a, 2.0 * a])", a=V)
ex(CAT, "np.concatenate(a)", a=M)
ex(CAT, "np.concatenate([a, [b]])", a=V, b=S)
ex(CAT, "np.concatenate([[a], [b]])", a=S, b=S)
ex("numpy.stack(arrays, axis)", "np.stack([a, b], 1)", a=V, b=V)
ex("numpy.stack(arrays, axis)", "np.stack([a, b])", a=S, b=S)
ex("numpy.stack(arrays, axis)", "np.stack(a)", a=M)
ex("numpy.stack(arrays, axis)", "np.stack([a, a])", a=V)
ex("numpy.hstack(tup)", "np.hstack([a, b])", a=S, b=(2,))
ex("numpy.hstack(tup)", "np.hstack([a, b, 2.0])", a=S, b=S)
ex("numpy.hstack(tup)", "np.hstack([a, b])", a=(2, 1), b=M)
ex("numpy.hstack(tup)", "np.hstack(a)", a=M)
ex("numpy.vstack(tup)", "np.vstack([a, b])", a=V, b=M)
ex("numpy.vstack(tup)", "np.vstack([a, b])", a=S, b=S)
ex("numpy.vstack(tup)", "np.vstack(a)", a=M)
ex("numpy.vstack(tup)", "np.vstack([a, a])", a=V)
ex("numpy.split(ary, indices_or_sections, axis)", "np.split(a, 2)", a=(4,))
ex("numpy.split(ary, indices_or_sections, axis)", "np.split(a, [1], axis=1)", a=M)
ex("numpy.array_split(ary, indices_or_sections, axis)", "np.array_split(a, 2)", a=(5,))
ex("numpy.array(object, dtype, copy, order, subok, ndmin)", "np.array([a, b])", a=S, b=S)
ex("numpy.array(object, dtype, copy, order, subok, ndmin)", "np.array([[a, b], [b, 1.0]])",
   a=S, b=S)
ex("numpy.array(object, dtype, copy, order, subok, ndmin)", "np.array([a, b])", a=V, b=V)
ex("numpy.array(object, dtype, copy, order, subok, ndmin)", "np.array(a)", a=V)
ex("numpy.asarray(a, dtype, order)", "np.asarray(a)", a=V)
ex("numpy.asarray(a, dtype, order)", "np.asarray([a, b])", a=S, b=S)
ex("numpy.copy(a, order)", "np.copy(a)", a=M)
ex("numpy.tile(A, reps)", "np.tile(a, 2)", a=V)
ex("numpy.tile(A, reps)", "np.tile(a, (2, 1))", a=M)
ex("numpy.repeat(a, repeats, axis)", "np.repeat(a, 2)", a=V)
ex("numpy.repeat(a, repeats, axis)", "np.repeat(a, 2, axis=0)", a=M)
ex("numpy.broadcast_to(array, shape)", "np.broadcast_to(a, (2, 3))", a=V)
ex("numpy.broadcast_to(array, shape)", "np.broadcast_to(a, (2, 3))", a=S)
FULL = "numpy.full(shape, fill_value, dtype, order, device, like)"
ex(FULL, "np.full(3, x)", x=S)
ex(FULL, "np.full((2, 3), x)", x=V)
ex(FULL, "np.full(3, x, dtype=int) + x", x=S)
FULL_LIKE = "numpy.full_like(a, fill_value, dtype, order, subok, shape, device)"
ex(FULL_LIKE, "np.full_like(a, x)", a=M, x=S)
ex(FULL_LIKE, "np.full_like(np.ones(3, dtype=int), x) + x", x=S)
LINSPACE = "numpy.linspace(start, stop, num, endpoint, retstep, dtype, axis)"
ex(LINSPACE, "np.linspace(x, 3.0, 5)", x=S)
ex(LINSPACE, "np.linspace(x, y, 4, endpoint=False)", x=S, y=S)
ex(LINSPACE, "np.linspace(x, y, 3, axis=1)", x=V, y=S)
PAD = "numpy.pad(array, pad_width, mode, constant_values)"
ex(PAD, "np.pad(a, 1)", a=V)
ex(PAD, "np.pad(a, ((1, 0), (0, 2)))", a=M)
ex(PAD, "np.pad(a, 1, constant_values=c)", a=V, c=S)

# ---------------------------------------------------------------- NumPy: rearranging, diagonals
ex("numpy.flip(m, axis)", "np.flip(a)", a=M)
ex("numpy.flip(m, axis)", "np.flip(a, 1)", a=M)
ex("numpy.fliplr(m)", "np.fliplr(a)", a=M)
ex("numpy.flipud(m)", "np.flipud(a)", a=M)
ex("numpy.roll(a, shift, axis)", "np.roll(a, 1)", a=M)
ex("numpy.roll(a, shift, axis)", "np.roll(a, (1, -1), (0, 1))", a=M)
ex("numpy.sort(a, axis, kind, order)", "np.sort(a)", a=M)
ex("numpy.sort(a, axis, kind, order)", "np.sort(a, 0)", a=M)
ex("numpy.diag(v, k)", "np.diag(a)", a=V)
ex("numpy.diag(v, k)", "np.diag(a, 1)", a=(3, 4))
ex("numpy.diagonal(a, offset, axis1, axis2)", "np.diagonal(a)", a=(3, 4))
ex("numpy.diagonal(a, offset, axis1, axis2)", "np.diagonal(a, 1, 0, 2)", a=(3, 2, 4))
ex("numpy.triu(m, k)", "np.triu(a)", a=(3, 3))
ex("numpy.tril(m, k)", "np.tril(a, -1)", a=(3, 3))

# ---------------------------------------------------------------- NumPy: array methods
ex("numpy.ndarray.reshape(a, shape, order, copy)", "a.reshape(3, 2)", a=M)
ex("numpy.ndarray.reshape(a, shape, order, copy)", "a.reshape((3, 2))", a=M)
ex("numpy.ndarray.reshape(a, shape, order, copy)", "a.reshape(-1)", a=M)
ex("numpy.ndarray.flatten(a, order)", "a.flatten()", a=M)
ex("numpy.ndarray.astype(a, dtype, order, casting, subok, copy)", "a.astype(float)", a=M)
ex("numpy.ndarray.item(a)", "a.item()", a=(1,))
ex("numpy.ndarray.tolist(a)", "np.array(a.tolist())", a=V)
ex("numpy.ndarray.tolist(a)", "a.tolist()[1]", a=M)
ex("numpy.ndarray.transpose(a, axes)", "a.transpose()", a=M)
ex("numpy.ndarray.transpose(a, axes)", "a.transpose((1, 0))", a=M)
ex("numpy.ndarray.transpose(a, i, j)", "a.transpose(1, 0)", a=M)
ex("numpy.ndarray.transpose(a, i, j, k)", "a.transpose(1, 2, 0)", a=(2, 3, 2))
ex("numpy.ndarray.transpose(a, i, j, k, m)", "a.transpose(3, 1, 2, 0)", a=(2, 1, 3, 2))

# ---------------------------------------------------------------- NumPy: added for issue 17
for name in ("deg2rad", "radians", "rad2deg", "degrees", "sinc"):
    ex(f"numpy.{name}(x)", f"np.{name}(x)", x=M)
ex("numpy.sinc(x)", "np.sinc(x)", x=S)
ex("numpy.sinc(x)", "np.sinc(x * 0.0)", x=V)  # at 0, where sinc's derivatives are series
# np.sign: flat for real numbers (its rule carries the complex form, tests/test_complex.py)
ex("numpy.sign(x)", "np.sign(x) * x", x=M)
ex("numpy.nan_to_num(x, copy, nan, posinf, neginf)", "np.nan_to_num(x)", x=M)
ex("numpy.column_stack(tup)", "np.column_stack([a, b])", a=(2,), b=M)
if hasattr(np, "row_stack"):  # removed in NumPy 2.5
    ex("numpy.row_stack(tup)", "np.row_stack([a, b])", a=(3,), b=M)
ex("numpy.vsplit(ary, indices_or_sections)", "np.vsplit(a, 2)[1]", a=(4, 3))
ex("numpy.hsplit(ary, indices_or_sections)", "np.hsplit(a, [1])[1]", a=M)
ex("numpy.hsplit(ary, indices_or_sections)", "np.hsplit(a, 2)[0]", a=(4,))
ex("numpy.dsplit(ary, indices_or_sections)", "np.dsplit(a, [1])[0]", a=(2, 2, 3))
ex("numpy.rot90(m, k, axes)", "np.rot90(a)", a=M)
ex("numpy.rot90(m, k, axes)", "np.rot90(a, 3, (1, 2))", a=(2, 2, 3))
ex("numpy.fft.fftshift(x, axes)", "np.fft.fftshift(a)", a=M)
ex("numpy.fft.ifftshift(x, axes)", "np.fft.ifftshift(a, axes=1)", a=(2, 5))
ex("numpy.diff(a, n, axis)", "np.diff(a)", a=M)
ex("numpy.diff(a, n, axis)", "np.diff(a, 2, axis=0)", a=(4, 3))
CROSS = "numpy.cross(a, b, axisa, axisb, axisc, axis)"
CROSS_2D = _numpy_crosses_2d()  # NumPy 2.5 takes 3-vectors only
ex(CROSS, "np.cross(a, b)", a=(3,), b=(2, 3))
ex(CROSS, "np.cross(a, a * b)", a=(3,), b=(3,))
ex(CROSS, "np.cross(a, b, axisa=0, axisc=0)", a=(3, 2), b=(2, 3))
if CROSS_2D:
    ex(CROSS, "np.cross(a, b)", a=(2, 2), b=(2,))
    ex(CROSS, "np.cross(a, b, axis=0)", a=(2, 4), b=(3, 4))
HC = "value, a, b, axisa, axisb, axisc)"
ex("numpy_helpers.grad_cross_a(" + HC, "H.grad_cross_a(w, a, b)", w=(2, 3), a=(3,), b=(2, 3))
if CROSS_2D:
    ex("numpy_helpers.grad_cross_b(" + HC, "H.grad_cross_b(w, a, b, 0, 0, 0)", w=(3, 2),
       a=(2, 2), b=(3, 2))
else:  # 3-vectors along axis 0
    ex("numpy_helpers.grad_cross_b(" + HC, "H.grad_cross_b(w, a, b, 0, 0, 0)", w=(3, 2),
       a=(3, 2), b=(3, 2))
ex("numpy_helpers.grad_diff(value, a, n, axis)", "H.grad_diff(w, a, 2, 0)", w=(2, 3), a=(4, 3))
ex("numpy_helpers.grad_column_stack(value, tup)", "H.grad_column_stack(w, [a, b])[1]",
   w=(2, 4), a=(2,), b=M)
ex("numpy.i0(x)", "np.i0(x)", x=S)
ex("numpy_helpers.bessel_i1(x)", "H.bessel_i1(x)", x=V)
ex("numpy_helpers.dsinc(x)", "H.dsinc(x)", x=M)
ex("numpy_helpers.dsinc(x)", "H.dsinc(x * 0.0 + 0.25)", x=V)  # inside |x| < 1: the series
ex("numpy_helpers.d2sinc(x)", "H.d2sinc(x)", x=M)
ex("numpy_helpers.sinc_derivative(n, x)", "H.sinc_derivative(3, x)", x=M)
ex("numpy_helpers.sinc_derivative(n, x)", "H.sinc_derivative(4, x * 3.0)", x=V)
ex("numpy.linalg.eigh(a, UPLO)", "np.linalg.eigh(a)[0]", a=("spd", 3))
ex("numpy.linalg.eigh(a, UPLO)", "np.linalg.eigh(a)[1] ** 2", a=("spd", 3))
ex("numpy.linalg.eigh(a, UPLO)",
   "np.linalg.eigh(a, 'U')[0] * np.sum(np.linalg.eigh(a, 'U')[1] ** 2)", a=("spd", 3))
ex("numpy.linalg.pinv(a, rcond, hermitian)", "np.linalg.pinv(a)", a=(3, 2))
ex("numpy.linalg.pinv(a, rcond, hermitian)", "np.linalg.pinv(a, hermitian=False)", a=M)
ex("numpy.kron(a, b)", "np.kron(a, b)", a=M, b=(2, 2))
ex("numpy.kron(a, b)", "np.kron(a, a * b)", a=V, b=V)
ex("numpy.kron(a, b)", "np.kron(a, b)", a=(2,), b=M)
ex("numpy.rollaxis(a, axis, start)", "np.rollaxis(a, 2)", a=(2, 3, 4))
ex("numpy.rollaxis(a, axis, start)", "np.rollaxis(a, 0, 3)", a=(2, 3, 4))
ex("numpy_helpers.grad_rollaxis(value, a, axis, start)", "H.grad_rollaxis(w, a, 0, 3)",
   w=(3, 4, 2), a=(2, 3, 4))
ex("numpy_helpers.grad_kron_a(value, a, b)", "H.grad_kron_a(w, a, b)", w=(4, 6), a=M, b=(2, 2))
ex("numpy_helpers.grad_kron_b(value, a, b)", "H.grad_kron_b(w, a, b)", w=(4, 6), a=M, b=(2, 2))

# ---------------------------------------------------------------- NumPy: gradient, partition, ...
ex("numpy.gradient(f, axis, edge_order)", "np.gradient(a)", a=(4,))
ex("numpy.gradient(f, axis, edge_order)", "np.gradient(a, axis=1)", a=(2, 4))
ex("numpy.gradient(f, axis, edge_order)", "np.gradient(a)[1]", a=(3, 4))
ex("numpy.gradient(f, h, axis, edge_order)", "np.gradient(a, 0.5)", a=(4,))
ex("numpy.gradient(f, h, axis, edge_order)", "np.gradient(a, 0.5, axis=0, edge_order=2)",
   a=(4, 3))
ex("numpy.partition(a, kth, axis, kind, order)", "np.partition(a, 1)", a=M)
ex("numpy.partition(a, kth, axis, kind, order)", "np.partition(a, 2, axis=None)", a=M)
ex("numpy.select(condlist, choicelist, default)", "np.select([a > 0, a < -0.5], [a ** 2, b], c)",
   a=M, b=M, c=S)
ex("numpy.append(arr, values, axis)", "np.append(a, b)", a=M, b=V)
ex("numpy.append(arr, values, axis)", "np.append(a, b, axis=0)", a=M, b=(1, 3))

# ---------------------------------------------------------------- second order: srcad's helpers
# (the rules that make hessian/hvp work through np.prod, cumprod, norm, einsum, solve, ...)
HS = "numpy_helpers."
ex(HS + "grad_prod(value, a, axis, keepdims)", "H.grad_prod(w, a, 1)", w=(2,), a=M)
ex(HS + "grad_prod(value, a, axis, keepdims)", "H.grad_prod(w, a)", w=S, a=V)
# the Hessian helpers are linear in their vectors; their point is a constant here (a third
# derivative is refused: tests/test_second_order_rules.py)
POINT = "(1.0 + np.arange(6.0).reshape(2, 3) / 7)"
ex(HS + "prod_hvp(w, a, axis)", f"H.prod_hvp(w, {POINT}, 1)", w=M)
ex(HS + "prod_hvp(w, a, axis)", "H.prod_hvp(w, a, 1)", w=M, a=M)  # np.prod's third derivative
ex(HS + "prod_hvp(w, a, axis)", "H.prod_hvp(w, a)", w=V, a=V)
ex(HS + "prod_d3(w, v, a, axis)", f"H.prod_d3(w, v, {POINT}, 1)", w=M, v=M)
ex(HS + "grad_cumprod(value, a, axis)", "H.grad_cumprod(w, a, 1)", w=M, a=M)
ex(HS + "grad_cumprod(value, a, axis)", "H.grad_cumprod(w, a)", w=(6,), a=M)
ex(HS + "tangent_cumprod(value, a, axis)", "H.tangent_cumprod(w, a, 0)", w=M, a=M)
ex(HS + "cumprod_hvp(value, w, a, axis)", f"H.cumprod_hvp(w, u, {POINT}, 1)", w=M, u=M)
ex(HS + "cumprod_d2(u, v, a, axis)", f"H.cumprod_d2(u, v, {POINT}, 1)", u=M, v=M)
ex(HS + "cumprod_hvp(value, w, a, axis)", "H.cumprod_hvp(w, u, a, 1)", w=M, u=M, a=M)
ex(HS + "cumprod_d2(u, v, a, axis)", "H.cumprod_d2(u, v, a)", u=V, v=V, a=V)
ex(HS + "cumprod_d3(u, v, w, a, axis)", f"H.cumprod_d3(u, v, w, {POINT}, 1)", u=M, v=M, w=M)
ex(HS + "cumprod_hvp3(value, u, v, a, axis)", f"H.cumprod_hvp3(w, u, v, {POINT}, 1)", w=M,
   u=M, v=M)
NORM_H = "np.linalg.norm(a, axis=1)"
ex(HS + "grad_norm(value, x, norm, ord, axis, keepdims)",
   f"H.grad_norm(w, a, {NORM_H}, None, 1)", w=(2,), a=M)
ex(HS + "norm_hvp(value, x, norm, w, ord, axis, keepdims)",
   f"H.norm_hvp(w, {POINT}, np.linalg.norm({POINT}, axis=1), u, None, 1)", w=(2,), u=M)
ex(HS + "grad_solve_a(value, a, b, x)", "H.grad_solve_a(w, a, b, np.linalg.solve(a, b))",
   w=V, a=("spd", 3), b=V)
SPD = "(3.0 * np.eye(3) + 0.5)"  # a constant point: their derivative in it is a third one
ex(HS + "solve_gans(m, a, b, x)", f"H.solve_gans(m, {SPD}, b, x)", m=(3, 3), b=V, x=V)
ex(HS + "grad_solve_a_ans(m, value, a, b, x)", f"H.grad_solve_a_ans(m, w, {SPD}, b, x)",
   m=(3, 3), w=V, b=V, x=V)
ex(HS + "grad_solve_b(value, a, b)", "H.grad_solve_b(w, a, b)", w=(3, 2), a=("spd", 3),
   b=(3, 2))
ex(HS + "grad_gradient(value, f, axis, edge_order)", "H.grad_gradient(w, a, 1, 1)", w=M, a=M)
ex(HS + "grad_gradient(value, f, axis, edge_order, h)", "H.grad_gradient(w, a, 0, 2, 0.5)",
   w=(4, 3), a=(4, 3))
ex(HS + "grad_partition(value, a, kth, axis)", "H.grad_partition(w, a, 1)", w=M, a=M)
ex(HS + "tangent_partition(value, a, kth, axis)", "H.tangent_partition(w, a, 1)", w=M, a=M)
ex(HS + "grad_select(value, condlist, choicelist)",
   "H.grad_select(w, [a > 0, a < -0.5], [a, b])[0]", w=M, a=M, b=M)
ex(HS + "grad_append(value, arr, values, axis, which)", "H.grad_append(w, a, b, None, 1)",
   w=(9,), a=M, b=V)
ex(HS + "tangent_pad(value, pad_width, mode)", "H.tangent_pad(w, 1)", w=V)
ex(HS + "tangent_pad(value, pad_width, mode)", "H.tangent_pad(w, (2, 1), 'wrap')", w=V)


def _einsum_helper_call(m):
    """grad_einsum's example for m positional einsum arguments: the gradient into the first
    operand (its shape in its place), ``w`` shaped like the einsum."""
    args, shapes = EINSUM_CALLS[m]
    parts = _split_args(args)
    first = next(i for i, p in enumerate(parts) if p in shapes)
    out = np.einsum(*[np.ones(shapes[p]) if p in shapes else eval(p)  # noqa: S307
                      for p in parts])
    specs = {"w": np.shape(out)}
    specs.update((k, v) for k, v in shapes.items() if k != parts[first])
    parts[first] = repr(tuple(shapes[parts[first]]))
    return f"H.grad_einsum(w, {first}, {', '.join(parts)})", specs


def _split_args(text):
    """The arguments of an argument list, as source text."""
    return [ast.unparse(a) for a in ast.parse(f"f({text})", mode="eval").body.args]


for _m in EINSUM_CALLS:
    _call, _specs = _einsum_helper_call(_m)
    ex(HS + "grad_einsum(value, p, " + ", ".join(f"x{i}" for i in range(_m)) + ")", _call,
       **_specs)

# ---------------------------------------------------------------- srcad's NumPy helpers
# (generated code calls them; their rules make a gradient differentiable again)
HP = "numpy_helpers.grad_"
ex(HP + "sum(value, a, axis, keepdims)", "H.grad_sum(w, a, 1)", w=(2,), a=M)
ex(HP + "sum(value, a, axis, keepdims)", "H.grad_sum(w, a)", w=S, a=M)
ex(HP + "mean(value, a, axis, keepdims)", "H.grad_mean(w, a, 0, True)", w=(1, 3), a=M)
ex(HP + "extremum(value, a, result, axis, keepdims)",
   "H.grad_extremum(w, a, np.max(a, axis=1), 1)", w=(2,), a=M)
ex(HP + "var(value, a, axis, ddof, keepdims)", "H.grad_var(w, a, 1, 1)", w=(2,), a=M)
ex(HP + "std(value, a, result, axis, ddof, keepdims)", "H.grad_std(w, a, np.std(a, axis=1), 1)",
   w=(2,), a=M)
ex(HP + "cumsum(value, a, axis)", "H.grad_cumsum(w, a, 1)", w=M, a=M)
ex(HP + "trace(value, a, offset, axis1, axis2)", "H.grad_trace(w, a)", w=S, a=(3, 3))
ex(HP + "clip(value, a, a_min, a_max)", "H.grad_clip(w, a, -0.5, 0.5)", w=M, a=M)
ex(HP + "clip_bound(value, a, a_min, a_max, upper)", "H.grad_clip_bound(w, a, -0.5, 0.5, True)",
   w=M, a=M)
ex(HP + "clip_bound(value, a, a_min, a_max, upper)", "H.grad_clip_bound(w, a, lo, 0.5, False)",
   w=M, a=M, lo=("unit", S))
ex(HP + "astype(value, a, dtype)", "H.grad_astype(w, a, float)", w=M, a=M)
ex("frontend.augmented_casts.kept_dtype(new, old, op)", "kept_dtype(a * b, a, '*')", a=M, b=V)
for name, (sw, sa, sb) in {"dot": ((2,), M, V), "matmul": ((2, 2), M, (3, 2)),
                           "inner": ((2,), M, V), "outer": ((3, 2), V, (2,)),
                           "vdot": (S, V, V)}.items():
    for side in "ab":
        ex(f"{HP}{name}_{side}(value, a, b)", f"H.grad_{name}_{side}(w, a, b)", w=sw, a=sa, b=sb)
for side in "ab":
    ex(f"{HP}tensordot_{side}(value, a, b, axes)", f"H.grad_tensordot_{side}(w, a, b, 1)",
       w=(2, 2), a=M, b=(3, 2))
ex(HP + "reshape(value, a, order)", "H.grad_reshape(w, a)", w=(6,), a=M)
ex("runtime.transpose_grad(value, axes)", "R.transpose_grad(w)", w=M)
ex("runtime.polygamma_real(n, x)", "SP.polygamma_real(1, w)", w=("pos", S))
ex("runtime.power_of(a, b, below)", "SP.power_of(w, -0.5)", w=("pos", S))
ex("runtime.power_of(a, b, below)", "SP.power_of(w, a)", w=("pos", S), a=S)
ex(HP + "concatenate(value, arrays, axis)", "H.grad_concatenate(w, [a, b])", w=(5,), a=(2,),
   b=V)
ex(HP + "split(value, ary, pieces, axis)", "H.grad_split([w, z], a, np.split(a, 2))",
   w=(2,), z=(2,), a=(4,))
ex(HP + "stack(value, arrays, axis)", "H.grad_stack(w, [a, b])", w=(2, 3), a=V, b=V)
ex(HP + "hstack(value, tup)", "H.grad_hstack(w, [a, b])", w=(5,), a=(2,), b=V)
ex(HP + "vstack(value, tup)", "H.grad_vstack(w, [a, b])", w=(3, 3), a=V, b=M)
ex(HP + "array(value, obj)", "H.grad_array(w, [a, b])", w=(2,), a=S, b=S)
ex(HP + "tile(value, a, reps)", "H.grad_tile(w, a, 2)", w=(6,), a=V)
ex(HP + "repeat(value, a, repeats, axis)", "H.grad_repeat(w, a, 2)", w=(6,), a=V)
ex(HP + "roll(value, shift, axis)", "H.grad_roll(w, 1)", w=M)
ex("numpy_helpers.c_piece(x)", "H.c_piece(x)", x=V)
ex("numpy_helpers.c_piece(x)", "H.c_piece(x) * 2.0", x=S)
ex("numpy_helpers.c_piece(x)", "H.c_piece(x)", x=M)
ex(HP + "tolist(value, a)", "H.grad_tolist([w[0], w[1] * w[1], 0.5], a)", w=V, a=V)
ex(HP + "pad(value, array, pad_width, mode)", "H.grad_pad(w, a, 1)", w=(5,), a=V)
for _mode in ("edge", "reflect", "symmetric", "wrap"):
    ex(HP + "pad(value, array, pad_width, mode)", f"H.grad_pad(w, a, (1, 2), {_mode!r})",
       w=(6,), a=V)
    ex("numpy.pad(array, pad_width, mode, constant_values)",
       f"np.pad(a, (2, 1), mode={_mode!r})", a=V)
ex(HP + "pad_value(value, array, pad_width)", "H.grad_pad_value(w, a, 1)", w=(5,), a=V)
ex(HP + "sort(value, a, axis)", "H.grad_sort(w, a)", w=M, a=M)
ex(HP + "sort(value, a, axis)", "H.grad_sort(w, a, None)", w=(6,), a=M)
ex("numpy_helpers.tangent_sort(value, a, axis)", "H.tangent_sort(w, a)", w=M, a=M)
ex("numpy_helpers.safe_div(a, b)", "H.safe_div(a, b)", a=V, b=("big", V))
ex("numpy_helpers.add_at(a, indices, b)", "H.add_at(a, [0, 2, 2], b)", a=(3,), b=(3,))
ex("numpy_helpers.add_at(a, indices, b)", "H.add_at(a, 1, b)", a=(3,), b=S)
ex("numpy_helpers.grad_add_at(value, indices, b)", "H.grad_add_at(w, [0, 2, 2], b)", w=(3,),
   b=(3,))
ex("numpy_helpers.last_writes(block, like, index)",
   "H.last_writes(w, np.zeros(3), [0, 2, 2])", w=(3,))
ex(HP + "linspace(value, num, endpoint, axis, end)", "H.grad_linspace(w, 4, True, 0, False)",
   w=(4,))
ex(HP + "linspace(value, num, endpoint, axis, end)", "H.grad_linspace(w, 3, False, 1, True)",
   w=(2, 3))
ex(HP + "diag(value, v, k)", "H.grad_diag(w, a)", w=(3, 3), a=V)
ex(HP + "diagonal(value, a, offset, axis1, axis2)", "H.grad_diagonal(w, a)", w=V, a=(3, 4))

# ---------------------------------------------------------------- Python operators and builtins
for op, name, (da, db) in [("+", "add", (S, S)), ("-", "sub", (S, S)), ("*", "mul", (S, S)),
                           ("/", "truediv", (S, "pos")), ("**", "pow", ("pos", S)),
                           ("%", "mod", ("mid", "small"))]:
    for sa, sb in ((S, S), (S, V), (V, S), (M, V)):
        ex(f"operator.{name}(a, b)", f"a {op} b", a=_spec(da, sa), b=_spec(db, sb))
    if da == db:
        ex(f"operator.{name}(a, b)", f"a {op} a", a=_spec(da, V))
ex("operator.neg(a)", "-a", a=V)
ex("operator.neg(a)", "-a", a=S)
ex("operator.pos(a)", "+a", a=V)
ex("builtins.abs(x)", "abs(x)", x=S)
ex("builtins.abs(x)", "abs(x)", x=V)
ex("builtins.pow(a, b)", "pow(a, b)", a=("pos", S), b=S)
ex("builtins.float(x)", "float(x)", x=S)
ex("numpy.float64(x)", "np.float64(x)", x=S)
ex("numpy.float64(x)", "np.float64(x)", x=M)
ex("builtins.sum(iterable, start)", "sum([a, b], c)", a=S, b=S, c=S)
ex("builtins.sum(iterable, start)", "sum([a, b])", a=V, b=V)
ex("builtins.sum(iterable, start)", "sum(a)", a=M)
ex("builtins.list(iterable)", "list((a, b))", a=S, b=V)
ex("builtins.reversed(seq)", "list(reversed([a, b]))", a=S, b=V)
ex("builtins.sorted(iterable, key, reverse)", "np.array(sorted([a, 2.0 * b, 1.0 - a]))",
   a=S, b=S)
ex("builtins.sorted(iterable, key, reverse)", "np.array(sorted(a))", a=V)
ex("builtins.sorted(iterable, key, reverse)", "np.array(sorted([a, 2.0 * b, 1.0 - a], key=abs, "
   "reverse=True))", a=S, b=S)
ex("builtins.dict(mapping)", "dict({'u': a, 'v': b})['v'] * dict([('u', a), ('u', b)])['u']",
   a=S, b=V)
ex("runtime.dict_values(d)", "np.stack(list({'u': a, 'v': b}.values()))", a=V, b=V)
ex("runtime.dict_items(d)", "sorted({'v': a, 'u': b}.items())[1][1] * b", a=S, b=V)
D = "{'u': 1.0, 'v': 2.0}"  # a constant dict: the keys the helpers below read
ex("runtime.values_grad(grad, d)", f"C.values_grad([a, b], {D})['v'] * a", a=S, b=V)
ex("runtime.values_tangent(tangent, d)", f"C.values_tangent({{'v': a, 'u': b}}, {D})[1] * b",
   a=S, b=V)
ex("runtime.items_grad(grad, d)", f"C.items_grad([[0.0, a], [0.0, b]], {D})['v']", a=S, b=V)
ex("runtime.items_tangent(tangent, d)",
   f"C.items_tangent({{'v': a, 'u': b}}, {D})[0][1] * a", a=V, b=V)
ex("runtime.get_grad(grad, d, key)", f"C.get_grad(a, {D}, 'v')['v'] * b", a=S, b=V)
ex("runtime.get_tangent_or(tangent, d, key, default)",
   f"C.get_tangent_or({{'u': a, 'v': b}}, {D}, 'v', [0.0])[1] * a + "
   f"C.get_tangent_or({{'u': a}}, {{'u': 1.0}}, 'v', [a])[0] + b", a=S, b=V)
ex("runtime.get_default_grad(grad, d, key)", "C.get_default_grad(a, {'u': 1.0}, 'v') * b",
   a=S, b=V)
ex("runtime.concat_tangent(ta, tb)", "C.concat_tangent([a, b], [a * b])[2] * a", a=S, b=S)
ex("runtime.split_concat(grad, a, first)", "C.split_concat([a, b, a * b], [1.0], False)[1]",
   a=S, b=S)
ex("runtime.split_concat(grad, a, first)", "C.split_concat([a, b, a * b], [1.0], True)[0] * b",
   a=S, b=S)
ex("runtime.split_concat_back(back, grad, a, first)",
   "C.split_concat_back([a, b], [1.0, 2.0, 3.0], [1.0], False)[2] * a", a=S, b=S)
ex("runtime.seq_grad(grad, iterable)", "C.seq_grad([a, b], [1.0, 2.0])[1] * a", a=S, b=V)
ex("runtime.seq_back(back, grad, iterable)", "C.seq_back([a, b], [1.0, 2.0], [1.0, 2.0])[1] * a",
   a=S, b=V)
ex("runtime.dict_of_grad(grad, mapping)",
   "C.dict_of_grad({'u': a, 'v': b}, [('u', 1.0), ('v', 2.0), ('u', 3.0)])[2][1] * b", a=S, b=V)
ex("runtime.dict_of_tangent(tangent, mapping)",
   "C.dict_of_tangent([[0.0, a], [0.0, b]], [('u', 1.0), ('v', 2.0)])['v'] * a", a=S, b=V)
ex("runtime.sorted_grad(grad, iterable, key, reverse)",
   "np.array(C.sorted_grad([a, 2.0 * a, b], [3.0, 1.0, 2.0]))", a=S, b=S)
ex("runtime.sorted_tangent(tangent, iterable, key, reverse)",
   "np.array(C.sorted_tangent([a, 2.0 * a, b], [3.0, 1.0, 2.0]))", a=S, b=S)
ex("runtime.dict_get(d, key, default)", "{'u': a}.get('u', b) + {'u': a}.get('v', b) * a",
   a=S, b=V)
ex("builtins.tuple(iterable)", "tuple([a, b])", a=S, b=S)
ex("runtime.sort_value(seq, key, reverse, axis, kind)",
   "np.array(C.sort_value([a, 2.0 * b, 1.0 - a], key=abs, reverse=True))", a=S, b=S)
ex("runtime.sort_value(seq, key, reverse, axis, kind)", "C.sort_value(a * 1.0, axis=0)", a=M)
ex("runtime.sort_value_grad(grad, seq, key, reverse, axis, kind)",
   "np.array(C.sort_value_grad([a, 2.0 * a, b], [3.0, 1.0, 2.0]))", a=S, b=S)
ex("runtime.sort_value_grad(grad, seq, key, reverse, axis, kind)",
   "C.sort_value_grad(a, np.array([[3.0, 1.0, 2.0], [0.0, 2.0, -1.0]]))", a=M)
ex("runtime.sort_value_tangent(tangent, seq, key, reverse, axis, kind)",
   "np.array(C.sort_value_tangent([a, 2.0 * a, b], [3.0, 1.0, 2.0]))", a=S, b=S)
ex("runtime.sort_value_tangent(tangent, seq, key, reverse, axis, kind)",
   "C.sort_value_tangent(a, np.array([[3.0, 1.0, 2.0], [0.0, 2.0, -1.0]]), axis=0)", a=M)
ex("runtime.reverse_value(seq)", "np.array(C.reverse_value([a, 2.0 * b, a * b]))", a=S, b=S)
ex("runtime.reverse_grad(grad)", "np.array(C.reverse_grad([a, 2.0 * b, a * b]))", a=S, b=S)
ex("runtime.reverse_grad(grad)", "C.reverse_grad(a * 2.0)", a=V)
ex("numpy.ndarray.view(a)", "a.view() * a", a=M)
ex("runtime.extend_value(seq, more)", "np.array(C.extend_value([a, 2.0 * b], [a * b]))",
   a=S, b=S)
ex("runtime.extend_value(seq, more)", "np.stack(C.extend_value([a], [b, a * b]))", a=V, b=V)
ex("runtime.insert_value(seq, i, value)",
   "np.array(C.insert_value([a, 2.0 * b], 1, a * b))", a=S, b=S)
ex("runtime.insert_value(seq, i, value)", "np.stack(C.insert_value([a], -5, b * a))",
   a=V, b=V)
ex("runtime.without_item(grad, k)", "np.array(C.without_item([a, 2.0 * b, a * b], 1))",
   a=S, b=S)
ex("runtime.with_zero_at(grad, seq, k)", "np.array(C.with_zero_at([a, a * b], [a, b, 1.0], 1))",
   a=S, b=S)
ex("runtime.pop_value(seq, i)", "np.array(C.pop_value([a, 2.0 * b, a * b], -2))", a=S, b=S)
ex("runtime.remove_value(seq, value)", "np.array(C.remove_value([a, 2.0, a * b], 2.0))",
   a=S, b=S)
ex("builtins.min(a, b)", "min(a, b)", a=S, b=S)
ex("builtins.max(a, b)", "max(a, b)", a=S, b=S)
for _f in ("max", "min"):
    ex(f"builtins.{_f}(iterable)", f"{_f}(a)", a=V)
    ex(f"builtins.{_f}(iterable)", f"{_f}([a, b * b, 0.5])", a=S, b=S)
    ex(f"builtins.{_f}(iterable, default)", f"{_f}([a, b * b, 0.5], default=b)", a=S, b=S)
    ex(f"builtins.{_f}(iterable, default)", f"{_f}([], default=a * b)", a=S, b=S)
    for _n in range(3, 7):
        _names = [f"x{k}" for k in range(_n)]
        ex(f"builtins.{_f}({', '.join(_names)})", f"{_f}({', '.join(_names)})",
           **{v: S for v in _names})

# ---------------------------------------------------------------- srcad's runtime helpers
ex("runtime.add(a, b)", "R.add(a, b)", a=S, b=S)
ex("runtime.like(grad, value)", "R.like(a, b)", a=V, b=V)
ex("runtime.like(grad, value)", "R.like(x, b)", x=S, b=V)
ex("runtime.like_grad(cot, grad)", "R.like_grad(w, a)", w=M, a=V)
ex("runtime.like_grad(cot, grad)", "R.like_grad([w, a], [x, a])", w=V, a=V, x=S)
ex("runtime.copy_tangent(tangent, value)", "R.copy_tangent(a, w)", a=V, w=M)
ex("runtime.copy_tangent_grad(cot, tangent, value)", "R.copy_tangent_grad(w, a, w)", w=M,
   a=V)
ex("runtime.check_real(grad, name, where)", "R.check_real(a * b, 'a')", a=V, b=V)
ex("runtime.mutable(grad)", "R.mutable(a)", a=V)
ex("runtime.add(a, b)", "R.add([a, b], [b, a])", a=V, b=V)
ex("runtime.where(c, a, b)", "R.where(c > 0, a, b)", c=S, a=S, b=S)
ex("runtime.log_base(a, by)", "R.log_base(a * a + 0.5)", a=S)
ex("runtime.log_base(a, by)", "R.log_base(a * a + 0.5, b * a)", a=S, b=S)
ex("runtime.log_base(a, by)", "R.log_base(w * w + 0.5, a * w)", a=V, w=V)
ex("runtime.unbroadcast(value, like)", "R.unbroadcast(w, a)", w=M, a=V)
ex("runtime.unbroadcast_to(value, shape)", "R.unbroadcast_to(w, (3,))", w=M)
ex("runtime.broadcast_as(value, like)", "R.broadcast_as(w, a)", w=V, a=M)
ex("runtime.fill(value, like)", "R.fill(w, a)", w=S, a=V)
ex("runtime.fill(value, like)", "R.fill(w, [a, a])", w=S, a=S)
ex("runtime.total(value)", "R.total(w)", w=M)
ex("runtime.total(value)", "R.total([w, a])", w=S, a=S)
ex(HS + "tangent_sum(a, axis)", "H.tangent_sum(w)", w=M)
ex(HS + "tangent_sum(a, axis)", "H.tangent_sum(a * w)", a=S, w=V)
ex(HS + "tangent_sum(a, axis)", "H.tangent_sum(w, (1,))", w=M)
ex(HS + "tangent_dot(a, v)", "H.tangent_dot(w, a)", w=M, a=V)
ex(HS + "tangent_dot(a, v)", "H.tangent_dot(w[:, :1], a)", w=M, a=V)
ex("runtime.scatter(value, like, index)", "R.scatter(w, a, 1)", w=S, a=V)
ex("runtime.cleared(value, index)", "R.cleared(w, 1)", w=V)
ex("runtime.added_at(grad, index, value)", "R.added_at([a, b, c], slice(1, 3), [c, a])", a=S,
   b=S, c=S)
ex("runtime.expand(value, like, axis, keepdims)", "R.expand(w, a, 1)", w=(2,), a=M)
ex("runtime.items_at(like, indices, values)", "I.items_at((a, w), (1, 0), [c, b])", a=S, w=V,
   b=S, c=V)
ex("runtime.items_at(like, indices, values)", "I.items_at([a, b], (0, 0), [b, a])", a=S, b=S)
ex("runtime.picked(grad, indices)", "I.picked([a, w, b], (2, 0))", a=S, w=V, b=S)

# ---------------------------------------------------------------- math
MATH1 = {"sin": S, "cos": S, "tan": "unit", "asin": "unit", "acos": "unit", "atan": S,
         "sinh": S, "cosh": S, "tanh": S, "asinh": S, "acosh": "big", "atanh": "unit",
         "exp": S, "expm1": S, "log": "pos", "log1p": "pos", "log2": "pos", "log10": "pos",
         "sqrt": "pos", "fabs": S, "degrees": S, "radians": S, "erf": S, "erfc": S,
         "lgamma": "pos", "gamma": "pos"}
for name, dom in MATH1.items():
    ex(f"math.{name}(x)", f"math.{name}(x)", x=_spec(dom, S))
for name, params, (da, db) in [("atan2", "y, x", (S, "pos")), ("hypot", "x, y", ("pos", S)),
                               ("log", "x, base", ("pos", "big")), ("pow", "a, b", ("pos", S)),
                               ("copysign", "x, y", (S, S)), ("fmod", "x, y", ("mid", "small")),
                               ("remainder", "x, y", ("mid", "small"))]:
    ex(f"math.{name}({params})", f"math.{name}(a, b)", a=_spec(da, S), b=_spec(db, S))
ex("math.hypot(x, y)", "math.hypot(a, a)", a=S)
ex("math.pow(a, b)", "math.pow(a, a)", a=("pos", S))
ex("math.ldexp(x, i)", "math.ldexp(x, 3)", x=S)
ex("math.fsum(seq)", "math.fsum([a, b, a])", a=S, b=S)

#: rules without a forward form: forward mode (and so jvp, jacfwd) refuses them with a
#: MissingRuleError naming the line; reverse mode still works, and hessian/hvp fall back to
#: reverse over reverse
# complex numbers (srcad/rules/numpy_complex.py): real arguments through complex values, with
# a real result (tests/test_complex.py has complex arguments)
ex("builtins.complex(real, imag)", "abs(complex(a, b)) ** 2", a=S, b=S)
ex("numpy.real(val)", "np.real(a * (1 + 2j))", a=M)
ex("numpy.real(val)", "np.real(a)", a=V)
ex("numpy.imag(val)", "np.imag(a * (1 + 2j) + b)", a=M, b=V)
ex("numpy.conjugate(x)", "np.real(np.conj(a + 1j * b) * (a + 2j))", a=V, b=V)
ex("numpy.real_if_close(a, tol)", "np.abs(np.real_if_close(a + 0j))", a=V)
ex("numpy.angle(z, deg)", "np.angle(a + 1j * b)", a=("pos", V), b=V)
ex("numpy.angle(z, deg)", "np.angle(a * (1 - 1j), deg=True) + np.angle(a)", a=("pos", V))
ex("runtime.real_part(grad)", "np.sum(R.real_part([a * (1 + 1j), b])[0])", a=V, b=V)
ex("numpy.fft.fft(a, n, axis, norm)", "np.abs(np.fft.fft(a + 1j * b, 4))", a=M, b=M)
ex("numpy.fft.ifft(a, n, axis, norm)", "np.real(np.fft.ifft(a, norm='ortho') * (1 + 2j))",
   a=V)
ex("numpy.fft.fftn(a, s, axes, norm)", "np.abs(np.fft.fftn(a, s=(3,), axes=(0,)))", a=M)
ex("numpy.fft.ifftn(a, s, axes, norm)", "np.imag(np.fft.ifftn(a + 1j * b))", a=M, b=M)
ex("numpy.fft.fft2(a, s, axes, norm)", "np.abs(np.fft.fft2(a, norm='forward'))", a=M)
ex("numpy.fft.ifft2(a, s, axes, norm)", "np.real(np.fft.ifft2(a * (1 + 1j), s=(3, 2)))",
   a=M)
ex("numpy.fft.rfft(a, n, axis, norm)", "np.abs(np.fft.rfft(a, 5))", a=V)
ex("numpy.fft.rfftn(a, s, axes, norm)", "np.real(np.fft.rfftn(a) * (2 - 1j))", a=M)
ex("numpy.fft.rfft2(a, s, axes, norm)", "np.abs(np.fft.rfft2(a, s=(2, 4)))", a=M)
ex("numpy.fft.irfft(a, n, axis, norm)", "np.fft.irfft(a + 1j * b)", a=V, b=V)
ex("numpy.fft.irfft(a, n, axis, norm)", "np.fft.irfft(a, 5, norm='ortho')", a=V)
ex("numpy.fft.irfftn(a, s, axes, norm)", "np.fft.irfftn(a + 1j * b, axes=(0, 1))", a=M,
   b=M)
ex("numpy.fft.irfft2(a, s, axes, norm)", "np.fft.irfft2(a * (1 + 1j), s=(2, 3))", a=M)
ex("numpy_helpers.grad_fftn(value, a, s, axes, norm, inverse)",
   "np.real(H.grad_fftn(w * (1 + 1j), a, (3,), (1,), None, False))", w=M, a=(2, 4))
ex("numpy_helpers.fft_fitted(value, a, s, axes, norm, inverse)",
   "np.imag(H.fft_fitted(w, a, None, (0,), 'ortho', True))", w=M, a=(4, 3))
ex("numpy_helpers.grad_rfftn(value, a, s, axes, norm)",
   "np.real(H.grad_rfftn(w, a, None, None, None))", w=M, a=(2, 4))
ex("numpy_helpers.rfft_fitted(value, like, a, s, axes, norm)",
   "np.abs(H.rfft_fitted(w, c, a, None, None, None))", w=(2, 4), c=M, a=(2, 4))
ex("numpy_helpers.grad_irfftn(value, a, s, axes, norm)",
   "np.real(H.grad_irfftn(w, a, None, None, None))", w=(2, 4), a=M)
ex("numpy_helpers.irfft_fitted(value, like, a, s, axes, norm)",
   "np.real(H.irfft_fitted(w, c, a, None, None, None))", w=M, c=(2, 4), a=M)

# ---------------------------------------------------------------- NumPy: more (rules/numpy_more.py)
NAN3 = "np.array([False, True, False])"  # where the nan* rows put a NaN
ex("numpy.take(a, indices, axis)", "np.take(a, [2, 0, 2], axis=1)", a=M)
ex("numpy.take(a, indices, axis)", "np.take(a, [[1, 5], [5, 0]])", a=M)
ex("numpy.take(a, indices, axis)", "a.take(1)", a=V)
ex("numpy.take_along_axis(arr, indices, axis)",
   "np.take_along_axis(a, np.array([[0, 0], [2, 1]]), 1)", a=M)
ex("numpy.take_along_axis(arr, indices, axis)",
   "np.take_along_axis(a, np.array([1, 1, 4]), None)", a=M)
ex("numpy.ptp(a, axis, out, keepdims)", "np.ptp(a)", a=M)
ex("numpy.ptp(a, axis, out, keepdims)", "np.ptp(a, axis=1, keepdims=True)", a=M)
ex("numpy.average(a, axis, weights, keepdims)", "np.average(a)", a=M)
ex("numpy.average(a, axis, weights, keepdims)", "np.average(a, 1, w)", a=M, w=("pos", V))
ex("numpy.average(a, axis, weights, keepdims)", "np.average(a, axis=0, weights=w)", a=M,
   w=("pos", M))
ex("numpy.median(a, axis, out, keepdims)", "np.median(a)", a=M)
ex("numpy.median(a, axis, out, keepdims)", "np.median(a, axis=0, keepdims=True)", a=(4, 3))
ex("numpy.quantile(a, q, axis, out, method, keepdims)", "np.quantile(a, 0.3)", a=M)
ex("numpy.quantile(a, q, axis, out, method, keepdims)", "np.quantile(a, [0.1, 0.8], axis=1)",
   a=(2, 5))
ex("numpy.percentile(a, q, axis, out, method, keepdims)", "np.percentile(a, [20.0, 70.0], 0)",
   a=(5, 2))
for _f in ("nansum", "nanmean", "nanprod", "nanmax", "nanmin", "nanvar", "nanstd"):
    _id = {"nanmax": "a, axis, out, keepdims", "nanmin": "a, axis, out, keepdims",
           "nanvar": "a, axis, dtype, out, ddof, keepdims",
           "nanstd": "a, axis, dtype, out, ddof, keepdims"}.get(_f, "a, axis, dtype, out, keepdims")
    ex(f"numpy.{_f}({_id})", f"np.{_f}(np.where({NAN3}, np.nan, a))", a=M)
    ex(f"numpy.{_f}({_id})", f"np.{_f}(np.where({NAN3}, np.nan, a), axis=1)", a=M)
ex("numpy.nanvar(a, axis, dtype, out, ddof, keepdims)",
   f"np.nanvar(np.where({NAN3}, np.nan, a), axis=1, ddof=1)", a=(3, 3))
ex("numpy.nancumsum(a, axis, dtype)", f"np.nancumsum(np.where({NAN3}, np.nan, a))", a=M)
ex("numpy.nancumprod(a, axis, dtype)", f"np.nancumprod(np.where({NAN3}, np.nan, a), 1)", a=M)
ex("numpy.interp(x, xp, fp, left, right)", "np.interp(x, [-1.0, -0.2, 0.3, 1.0], fp)", x=V,
   fp=(4,))
ex("numpy.interp(x, xp, fp, left, right)",
   "np.interp(2.0 * x, [-1.0, -0.2, 0.3, 1.0], fp, lo, hi)", x=(6,), fp=(4,), lo=S, hi=S)
ex("numpy.interp(x, xp, fp, left, right)", "np.interp(x, [-1.0, 1.0], [2.0, -1.0])", x=S)
for _f in ("convolve", "correlate"):
    for _mode in ("'full'", "'same'", "'valid'"):
        ex(f"numpy.{_f}(a, v, mode)", f"np.{_f}(a, v, {_mode})", a=(5,), v=(3,))
        ex(f"numpy.{_f}(a, v, mode)", f"np.{_f}(a, v, {_mode})", a=(2,), v=(4,))
    ex(f"numpy.{_f}(a, v, mode)", f"np.{_f}(a, a)", a=(3,))
    ex(f"numpy.{_f}(a, v, mode)", f"np.{_f}(a, v)", a=(4,), v=(2,))
ex("numpy.copysign(x1, x2)", "np.copysign(a, b)", a=M, b=V)
ex("numpy.ldexp(x1, x2)", "np.ldexp(a, np.array([1, -2, 3]))", a=M)
ex("numpy.diagflat(v, k)", "np.diagflat(a, -1)", a=M)
ex("numpy.dstack(tup)", "np.dstack([a, b, a])", a=V, b=V)
ex("numpy.dstack(tup)", "np.dstack((a, b[:, :, None]))", a=M, b=M)
ex("numpy.ediff1d(ary)", "np.ediff1d(a)", a=M)
for _u in ("add", "multiply", "maximum", "minimum"):
    ex(f"numpy.{_u}.reduce(array, axis, dtype, out, keepdims)", f"np.{_u}.reduce(a)", a=M)
    ex(f"numpy.{_u}.reduce(array, axis, dtype, out, keepdims)",
       f"np.{_u}.reduce(a, axis=None)", a=M)
    ex(f"numpy.{_u}.reduce(array, axis, dtype, out, keepdims)",
       f"np.{_u}.reduce(a, 1, keepdims=True)", a=M)
    ex(f"numpy.{_u}.accumulate(array, axis, dtype, out)", f"np.{_u}.accumulate(a)", a=M)
    ex(f"numpy.{_u}.accumulate(array, axis, dtype, out)", f"np.{_u}.accumulate(a, 1)", a=(2, 5))
ex("numpy_helpers.grad_take(value, a, indices, axis)", "H.grad_take(w, a, [0, 2, 0], 1)",
   w=M, a=(2, 4))
ex("numpy_helpers.trapezoid_x(x)", "H.trapezoid_x(a)", a=V)
ex("numpy_helpers.grad_take_along_axis(value, arr, indices, axis)",
   "H.grad_take_along_axis(w, a, np.array([[0, 0], [2, 1]]), 1)", w=(2, 2), a=M)
ex("numpy_helpers.grad_quantile(value, a, q, axis, keepdims, method, nan)",
   "H.grad_quantile(w, a, [0.2, 0.5], 1)", w=(2, 2), a=(2, 4))
ex("numpy_helpers.tangent_quantile(value, a, q, axis, keepdims, method, nan)",
   "H.tangent_quantile(w, a, 0.4, 0, True)", w=(4, 2), a=(4, 2))
ex("numpy_helpers.grad_interp_fp(value, x, xp, left, right)",
   "H.grad_interp_fp(w, 2.0 * x, [-1.0, 0.0, 1.0], None, 0.5)", w=(4,), x=(4,))
ex("numpy_helpers.grad_interp_slope(value, x, xp)",
   "H.grad_interp_slope(w, 2.0 * x, [-1.0, 0.0, 0.5, 1.0])", w=(4,), x=(4,))
ex("numpy_helpers.conv_embed(value, n, m, mode, corr)", "H.conv_embed(w, 5, 3, 'same')", w=(5,))
ex("numpy_helpers.conv_crop(value, n, m, mode, corr)", "H.conv_crop(w, 2, 4, 'same', True)",
   w=(5,))
ex("numpy_helpers.grad_dstack(value, tup)", "H.grad_dstack(w, [a, b])[1]", w=(2, 3, 2), a=M,
   b=M)

if hasattr(np, "cumulative_sum"):
    ex("numpy.cumulative_sum(x, axis, dtype)", "np.cumulative_sum(a, axis=1)", a=M)
    ex("numpy.cumulative_prod(x, axis, dtype)", "np.cumulative_prod(a, axis=0)", a=M)
if hasattr(np.linalg, "vecdot"):
    ex("numpy.linalg.trace(x, offset, dtype)", "np.linalg.trace(a, offset=1)", a=(2, 3, 3))
    ex("numpy.linalg.diagonal(x, offset)", "np.linalg.diagonal(a)", a=(2, 3, 4))
    ex("numpy.linalg.outer(x1, x2)", "np.linalg.outer(a, b)", a=V, b=(2,))
    ex("numpy.linalg.outer(x1, x2)", "np.linalg.outer(a, a)", a=V)
    ex("numpy.linalg.matmul(x1, x2)", "np.linalg.matmul(a, b)", a=M, b=(3, 2))
    ex("numpy.linalg.matmul(x1, x2)", "np.linalg.matmul(a, a)", a=(3, 3))
    ex("numpy.linalg.tensordot(x1, x2, axes)", "np.linalg.tensordot(a, b, axes=1)", a=M,
       b=(3, 2))
    ex("numpy.linalg.cross(x1, x2, axis)", "np.linalg.cross(a, b)", a=(2, 3), b=V)
    ex("numpy.linalg.vecdot(x1, x2, axis)", "np.linalg.vecdot(a, b)", a=M, b=V)
    ex("numpy.linalg.vecdot(x1, x2, axis)", "np.linalg.vecdot(a, a, axis=0)", a=M)
    if isinstance(getattr(np, "vecdot", None), np.ufunc):
        ex("numpy.vecdot(x1, x2, axis)", "np.vecdot(a, b, axis=0)", a=M, b=(2, 1))
if isinstance(getattr(np, "matvec", None), np.ufunc):
    ex("numpy.matvec(x1, x2)", "np.matvec(a, b)", a=(2, 2, 3), b=V)
    ex("numpy.vecmat(x1, x2)", "np.vecmat(a, b)", a=(2,), b=(2, 2, 3))
ex("numpy.polyval(p, x)", "np.polyval(p, x)", p=(4,), x=M)
ex("numpy.polyval(p, x)", "np.polyval(p, x)", p=(3,), x=S)
ex("numpy.vander(x, N, increasing)", "np.vander(x, 4)", x=V)
ex("numpy.vander(x, N, increasing)", "np.vander(x, increasing=True)", x=V)
if hasattr(np, "trapezoid"):
    ex("numpy.trapezoid(y, x, dx, axis)", "np.trapezoid(y, dx=d, axis=0)", y=M, d=("pos", S))
    ex("numpy.trapezoid(y, x, dx, axis)", "np.trapezoid(y, np.cumsum(x))", y=M, x=("pos", V))
    ex("numpy.trapezoid(y, x, dx, axis)", "np.trapezoid(y)", y=V)
ex("numpy.bincount(x, weights, minlength)", "np.bincount(np.array([0, 2, 2]), w, 4)", w=V)
ex("numpy.compress(condition, a, axis)", "np.compress([True, False], a, axis=0)", a=M)
ex("numpy.compress(condition, a, axis)", "np.compress([True, False, True], a)", a=M)
ex("numpy.extract(condition, arr)", "np.extract(np.array([[1, 0, 1], [0, 1, 1]]), a)", a=M)
ex("numpy.delete(arr, obj, axis)", "np.delete(a, [0, 2], axis=1)", a=M)
ex("numpy.delete(arr, obj, axis)", "np.delete(a, 3)", a=M)
ex("numpy.resize(a, new_shape)", "np.resize(a, (4, 2))", a=M)
ex("numpy.unwrap(p, discont, axis, period)", "np.unwrap(4.0 * a)", a=M)
ex("numpy.meshgrid(x1, x2, indexing, sparse, copy)", "np.meshgrid(a, b)[0] * np.meshgrid(a, b)[1]",
   a=V, b=(2,))
ex("numpy.meshgrid(x1, x2, indexing, sparse, copy)", "np.meshgrid(a, b, indexing='ij')[1]",
   a=V, b=(2,))
ex("numpy.meshgrid(x1, x2, x3, indexing, sparse, copy)",
   "np.meshgrid(a, b, c, sparse=True)[2] + np.meshgrid(a, b, c)[0]", a=V, b=(2,), c=(2,))

ex("numpy.linalg.eigvalsh(a, UPLO)", "np.linalg.eigvalsh(a)", a=("spd", 3))
ex("numpy.linalg.eigvalsh(a, UPLO)", "np.linalg.eigvalsh(a, 'U')", a=("spd", 3))
ex("numpy.linalg.cond(x, p)", "np.linalg.cond(x)", x=M)
ex("numpy.linalg.cond(x, p)", "np.linalg.cond(x, 2)", x=(2, 3, 3))
if hasattr(np.linalg, "svdvals"):
    ex("numpy.linalg.svdvals(x)", "np.linalg.svdvals(x)", x=M)
    ex("numpy.linalg.svdvals(x)", "np.linalg.svdvals(x)", x=(2, 3, 2))
if hasattr(np.linalg, "vector_norm"):
    _vn = "numpy.linalg.vector_norm(x, axis, keepdims, ord)"
    ex(_vn, "np.linalg.vector_norm(x)", x=M)
    ex(_vn, "np.linalg.vector_norm(x, keepdims=True)", x=M)
    ex(_vn, "np.linalg.vector_norm(x, axis=0, ord=3)", x=M)
    ex(_vn, "np.linalg.vector_norm(x, axis=(1,), ord=1, keepdims=True)", x=M)
    _mn = "numpy.linalg.matrix_norm(x, keepdims, ord)"
    ex(_mn, "np.linalg.matrix_norm(x)", x=(2, 2, 3))
    ex(_mn, "np.linalg.matrix_norm(x, ord='nuc', keepdims=True)", x=M)

ex("numpy.logspace(start, stop, num, endpoint, base, dtype, axis)", "np.logspace(a, b, 5)", a=S,
   b=S)
ex("numpy.logspace(start, stop, num, endpoint, base, dtype, axis)",
   "np.logspace(a, b, 4, False, 2.0, axis=1)", a=(2,), b=S)
ex("numpy.geomspace(start, stop, num, endpoint, dtype, axis)", "np.geomspace(a, b, 5)",
   a=("pos", S), b=("big", S))
ex("numpy.geomspace(start, stop, num, endpoint, dtype, axis)",
   "np.geomspace(a, b, 4, endpoint=False, axis=1)", a=("pos", (2,)), b=("pos", S))
ex("numpy.broadcast_arrays(a1, a2)", "np.broadcast_arrays(a, b)[0] * np.broadcast_arrays(a, b)[1]",
   a=(2, 1), b=V)
ex("numpy.broadcast_arrays(a1, a2, a3)", "np.broadcast_arrays(a, b, c)[2]", a=(2, 1), b=V, c=S)

# ---------------------------------------------------------------- np.linalg: powers, chains, lstsq
MP = "numpy.linalg.matrix_power(a, n)"
ex(MP, "np.linalg.matrix_power(a, 3)", a=(3, 3))
ex(MP, "np.linalg.matrix_power(a, -2)", a=("spd", 3))
ex(MP, "np.linalg.matrix_power(a, 1) + np.linalg.matrix_power(a, 0)", a=(2, 2))
ex(MP, "np.linalg.matrix_power(a, 2)", a=(2, 3, 3))
MD = "numpy.linalg.multi_dot(arrays, out)"
ex(MD, "np.linalg.multi_dot([a, b, c])", a=M, b=(3, 4), c=(4, 2))
ex(MD, "np.linalg.multi_dot([a, b, c])", a=V, b=(3, 2), c=(2,))
ex(MD, "np.linalg.multi_dot([a, b, a.T])", a=M, b=(3, 3))
ex(MD, "np.linalg.multi_dot([a, b])", a=V, b=(3, 2))
ex(MD, "np.linalg.multi_dot([a, 2.0 * np.eye(3), b])", a=V, b=V)
MD_POINT = "[np.eye(2) + 0.5, np.ones((2, 3)), np.arange(3.0)]"  # a constant point
ex(HS + "grad_multi_dot(value, arrays)", "H.grad_multi_dot(w, [a, b, c])[1]", w=(2,),
   a=M, b=(3, 4), c=(4,))
ex(HS + "multi_dot_tangent(value, arrays)", "H.multi_dot_tangent([u, 0.0, v], [a, b, c])",
   u=M, v=(4,), a=M, b=(3, 4), c=(4,))
ex(HS + "multi_dot_hvp(value, w, arrays)",
   f"H.multi_dot_hvp(w, [u, 0.0, v], {MD_POINT})[1]", w=(2,), u=(2, 2), v=V)
ex(HS + "multi_dot_d2(u, v, arrays)", f"H.multi_dot_d2([u, 0.0, w], [0.0, v, 0.0], {MD_POINT})",
   u=(2, 2), v=(2, 3), w=V)
LS = "numpy.linalg.lstsq(a, b, rcond)"
ex(LS, "np.linalg.lstsq(a, b)[0]", a=(4, 3), b=(4,))
ex(LS, "np.linalg.lstsq(a, b)[0] * np.sum(np.linalg.lstsq(a, b)[1])", a=(4, 2), b=(4, 3))
ex(LS, "np.linalg.lstsq(a, b, rcond=None)[1]", a=(5, 2), b=(5,))
ex(LS, "np.linalg.lstsq(a, b)[0]", a=(2, 3), b=(2,))
ex(LS, "np.linalg.lstsq(a, b)[3]", a=(4, 3), b=(4,))
ex(HS + "lstsq_check(value, rank, a)", "H.lstsq_check(w, 2, np.eye(2))", w=V)
# rules29: det's cofactors and their derivative, slogdet's check, fixed='s check
ex(HS + "cofactors(a)", "H.cofactors(a)", a=(3, 3))
ex(HS + "cofactors(a)", "H.cofactors(a)", a=(2, 3, 3))
ex(HS + "cofactors_tangent(v, a)", "H.cofactors_tangent(v, np.diag([1.0, 2.0, 0.0]) + 0.5)",
   v=(3, 3))
ex(HS + "cofactors_tangent(v, a)", "H.cofactors_tangent(v, a)", v=(3, 3), a=(3, 3))
ex(HS + "det_nonzero(a)", "H.det_nonzero(a)", a=(2, 3, 3))
ex(HS + "slogdet_check(a, sign)", "H.slogdet_check(a, 1.0)", a=M)
ex(HS + "fixed_check(value, given, accepted, call)",
   "H.fixed_check(w, False, (False,), 'f(..., p=')", w=V)

# ---------------------------------------------------------------- np.cov, np.corrcoef
COV = "numpy.cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype)"
ex(COV, "np.cov(m)", m=(3, 5))
ex(COV, "np.cov(m, rowvar=False, bias=True)", m=(5, 2))
ex(COV, "np.cov(m, ddof=0, aweights=[1.0, 2.0, 0.5, 1.5])", m=(2, 4))
ex(COV, "np.cov(m, fweights=[1, 2, 1, 3], aweights=[1.0, 2.0, 0.5, 1.5])", m=(2, 4))
ex(COV, "np.cov(m, np.arange(5.0) ** 2)", m=(5,))
ex(COV, "np.cov(m)", m=(4,))
CORR = "numpy.corrcoef(x, y, rowvar, dtype)"
ex(CORR, "np.corrcoef(x)", x=(3, 5))
ex(CORR, "np.corrcoef(x, rowvar=False)", x=(5, 2))
ex(CORR, "np.corrcoef(x, np.arange(4.0) ** 2)", x=(4,))
ex(HS + "cov_rows(m, y, rowvar)", "H.cov_rows(m, None, False)", m=(4, 2))
ex(HS + "cov_rows(m, y, rowvar)", "H.cov_rows(m, np.ones(3), True)", m=V)
ex(HS + "grad_cov_rows(value, m, y, rowvar)", "H.grad_cov_rows(w, np.ones((4, 2)), None, False)",
   w=(2, 4))

# ---------------------------------------------------------------- moving elements
INS = "numpy.insert(arr, obj, values, axis)"
ex(INS, "np.insert(a, 1, b)", a=V, b=S)
ex(INS, "np.insert(a, [0, 2, 2], b)", a=V, b=V)
ex(INS, "np.insert(a, 1, b, axis=1)", a=M, b=(2,))
ex(INS, "np.insert(a, [1], b, axis=0)", a=M, b=(1, 3))
ex(INS, "np.insert(a, 2, 5.0)", a=M)
ex(INS, "np.insert(a, slice(0, 2), b, axis=1)", a=M, b=S)
ex(HS + "grad_insert(value, arr, obj, values, axis, which)",
   "H.grad_insert(w, np.ones((2, 3)), 1, np.ones(2), 1, 0)", w=(2, 4))
ex(HS + "grad_insert(value, arr, obj, values, axis, which)",
   "H.grad_insert(w, np.ones(3), [0, 2, 2], np.ones(3), None, 1)", w=(6,))
CH = "numpy.choose(a, choices, out, mode)"
ex(CH, "np.choose(np.array([0, 1, 2, 1]), [a, b, c])", a=(4,), b=S, c=(4,))
ex(CH, "np.choose(np.array([[0, 1, 1], [1, 0, 0]]), a)", a=(2, 2, 3))
ex(CH, "np.choose(np.array([0, 3, 1]), [a, b], mode='wrap')", a=V, b=V)
ex(CH, "np.choose(np.array([0, 1, 0]), [a, a * 2.0])", a=V)
ex(HS + "grad_choose(value, a, choices, mode)",
   "H.grad_choose(w, np.array([0, 1, 1]), [np.ones(3), np.ones(3)])[1]", w=V)
BL = "numpy.block(arrays)"
ex(BL, "np.block([[a, b], [c, d]])", a=(2, 2), b=(2, 1), c=(1, 2), d=S)
ex(BL, "np.block([a, b])", a=V, b=(2,))
ex(BL, "np.block([[a], [a]])", a=M)
ex(HS + "grad_block(value, arrays)", "H.grad_block(w, [[np.ones((2, 2)), np.ones((2, 1))]])[0][1]",
   w=(2, 3))
ex(HS + "tangent_block(value, arrays)", "H.tangent_block([u, 0.0], [np.ones(2), np.ones(3)])",
   u=(2,))
if hasattr(np, "unstack"):
    ex("numpy.unstack(x, axis)", "np.unstack(x)[1]", x=M)
    ex("numpy.unstack(x, axis)", "np.unstack(x, axis=1)[0] * np.unstack(x, axis=1)[2]", x=M)
    ex(HS + "grad_unstack(value, x, pieces, axis)",
       "H.grad_unstack([u, 0.0], np.ones((2, 3)), [np.ones(3), np.ones(3)], 0)", u=V)

# ---------------------------------------------------------------- nan quantiles
NANS = "np.where(np.array([[0, 1, 0, 0], [1, 1, 1, 1], [0, 0, 1, 0]]) == 1, np.nan, 0.0)"
NQ = "numpy.nanquantile(a, q, axis, out, method, keepdims)"
ex(NQ, f"np.nan_to_num(np.nanquantile(a + {NANS}, 0.3, axis=1))", a=(3, 4))
ex(NQ, f"np.nan_to_num(np.nanquantile(a + {NANS}, [0.1, 0.7], axis=1, keepdims=True))", a=(3, 4))
ex(NQ, f"np.nanquantile(a + {NANS}, 0.4)", a=(3, 4))
ex(NQ, "np.nanquantile(a, 0.25, axis=0)", a=M)
ex("numpy.nanpercentile(a, q, axis, out, method, keepdims)",
   f"np.nan_to_num(np.nanpercentile(a + {NANS}.T, 60.0, axis=0))", a=(4, 3))
NM = "numpy.nanmedian(a, axis, out, keepdims)"
ex(NM, f"np.nanmedian(a + {NANS}[0])", a=(4,))
ex(NM, f"np.nanmedian(a + {NANS}[::2], axis=1)", a=(2, 4))
ex(NM, "np.nanmedian(a, axis=0, keepdims=True)", a=M)
ex("numpy_helpers.grad_quantile(value, a, q, axis, keepdims, method, nan)",
   f"H.grad_quantile(w, a + {NANS}[:2], [0.2, 0.5], 1, False, None, True)", w=(2, 2), a=(2, 4))
ex("numpy_helpers.tangent_quantile(value, a, q, axis, keepdims, method, nan)",
   f"H.tangent_quantile(w, a + {NANS}[:2], 0.4, 1, True, None, True)", w=(2, 4), a=(2, 4))
ex(HS + "square_chunks(a)", "H.square_chunks(a) * 2.0", a=M)

NO_FORWARD = set()

#: rules whose gradient calls a helper that has no rule itself: a second derivative (in either
#: mode) is refused with a MissingRuleError naming that helper
NO_SECOND = {}  # (np.sinc's helpers have rules of every order: sinc_derivative)


# ---------------------------------------------------------------- building the functions

HEADER = """import builtins
import copy
import math
import operator

import numpy as np

from srcad.runtime import helpers as R, numpy_helpers as H, containers as C, items as I
from srcad.runtime import special as SP
from srcad.frontend.augmented_casts import kept_dtype
"""
def _build():
    lines = HEADER.splitlines()
    entries = []
    for n, (rid, (expr, args)) in enumerate(
            (rid, e) for rid, examples in EXAMPLES.items() for e in examples):
        names = ", ".join(args)
        lines += ["", "", f"def f{n}({names}):", f"    return {expr}"]
        entries.append((rid, expr, args, f"f{n}", len(lines)))
        lines += ["", "", f"def s{n}({names}):", f"    return np.sum(np.sin({expr}))"]
    directory = Path(tempfile.mkdtemp(prefix="srcad_forward_rules_"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    path = directory / "forward_rule_examples.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location("forward_rule_examples", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    for _, _, _, name, _ in entries:
        SCALARS[getattr(module, name)] = getattr(module, "s" + name[1:])
    return [(rid, expr, args, getattr(module, name), line)
            for rid, expr, args, name, line in entries]


SCALARS = {}  # example function -> the same call summed after a sine (for second derivatives)
CASES = _build()


def _value(spec, rng):
    if isinstance(spec, tuple) and spec and spec[0] == "spd":
        n = spec[1]
        a = rng.normal(size=(n, n))
        return a @ a.T + n * np.eye(n)
    if isinstance(spec, tuple) and spec and spec[0] == "realeig":  # real, distinct eigenvalues
        n = spec[1]
        return np.diag(np.arange(1.0, n + 1.0)) + 0.2 * rng.normal(size=(n, n))
    if isinstance(spec, tuple) and spec and isinstance(spec[0], str):
        low, high = DOMAINS[spec[0]]
        shape = spec[1]
    elif isinstance(spec, tuple) and spec and isinstance(spec[0], float):
        low, high, shape = spec[0], spec[0] + 1.0, spec[1]
    else:
        low, high, shape = -1.0, 1.0, spec
    return float(rng.uniform(low, high)) if shape == () else rng.uniform(low, high, shape)


def _direction(spec, value, rng):
    if isinstance(spec, tuple) and spec and spec[0] == "spd":
        u = rng.normal(size=np.shape(value))
        return (u + u.T) / 2
    return float(rng.normal()) if np.ndim(value) == 0 else rng.normal(size=np.shape(value))


def _like(value, rng):
    """A random cotangent in the structure of ``value``."""
    if isinstance(value, (list, tuple)):
        return type(value)(_like(v, rng) for v in value) if type(value) in (list, tuple) else (
            tuple(_like(v, rng) for v in value))
    if np.ndim(value) == 0:
        return float(rng.normal())
    return rng.normal(size=np.shape(value))


def _dot(x, y):
    if isinstance(x, (list, tuple)) or isinstance(y, (list, tuple)):
        assert isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)), (x, y)
        assert len(x) == len(y), (x, y)
        return sum(_dot(a, b) for a, b in zip(x, y))
    assert np.shape(x) == np.shape(y), f"shape {np.shape(x)} != {np.shape(y)}"
    return float(np.sum(np.asarray(x, dtype=float) * np.asarray(y, dtype=float)))


def _shape(x):
    if isinstance(x, (list, tuple)):
        return [_shape(v) for v in x]
    return np.shape(x)


#: NumPy >= 2.5's np.linalg.eig returns complex arrays even where the eigenvalues are real:
#: the cases' results are then complex, and grad refuses a complex output (checked below)
EIG_COMPLEX = np.linalg.eig(np.eye(2))[0].dtype.kind == "c"


def skip_complex_eig(case):
    """On such a NumPy, an eig row's derivative is refused (a complex result): check that,
    then skip the row."""
    rid, expr, specs, f, line = case
    if EIG_COMPLEX and "np.linalg.eig(" in expr:
        rng = np.random.default_rng(0)
        args = tuple(_value(s, rng) for s in specs.values())
        with pytest.raises(srcad.SrcadError):  # complex output, or eig refused
            srcad.grad(SCALARS[f])(*args)
        pytest.skip("this NumPy's eig returns complex eigenvalues: its derivative is refused")


def _setup(case, seed):
    rid, expr, specs, f, line = case
    rng = np.random.default_rng(seed)
    args = tuple(_value(s, rng) for s in specs.values())
    u = tuple(_direction(s, a, rng) for s, a in zip(specs.values(), args))
    return f, args, u, rng


def scalar_case(case):
    """(the scalar function of a rule example, its arguments, every argument's position), the
    arguments drawn as every table test draws them."""
    _, expr, specs, f, _ = case
    rng = np.random.default_rng(len(expr))
    args = tuple(_value(sp, rng) for sp in specs.values())
    return SCALARS[f], args, tuple(range(len(args)))


def _case_id(case):
    return f"{case[1]}-{list(map(str, case[2].values()))}".replace(" ", "")


# ---------------------------------------------------------------- the tests


def test_every_rule_has_an_example():
    """A new rule must get a row in EXAMPLES (and, if it has no forward form, NO_FORWARD)."""
    missing = rule_ids() - set(EXAMPLES)
    assert not missing, f"rules without an example call in EXAMPLES: {sorted(missing)}"
    unknown = set(EXAMPLES) - rule_ids()
    assert not unknown, f"EXAMPLES names rules that are not registered: {sorted(unknown)}"
    assert NO_FORWARD <= set(EXAMPLES)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_forward_and_reverse_agree_on_every_rule(case):
    rid, expr, specs, f, line = case
    skip_complex_eig(case)
    f, args, u, rng = _setup(case, len(expr) * 7 + len(specs))
    value = f(*args)
    try:
        out, tangent = srcad.jvp(f, args, u)
    except srcad.SrcadError as err:
        assert rid in NO_FORWARD, f"{expr}: forward mode refused: {err}"
        assert isinstance(err, srcad.MissingRuleError), err
        assert err.lineno == line and "no forward-mode rule" in str(err), err
        assert "jvp=" in err.hint and "reverse mode" in err.hint, err.hint
        return
    assert rid not in NO_FORWARD, f"{rid} has a forward form now: take it out of NO_FORWARD"
    assert _shape(tangent) == _shape(value), f"{expr}: tangent {_shape(tangent)}"
    assert _dot(out, _like(out, np.random.default_rng(0))) == pytest.approx(
        _dot(value, _like(value, np.random.default_rng(0))), rel=1e-12, abs=1e-12)
    v = _like(value, rng)
    _, pullback = srcad.vjp(f, *args)
    grads = pullback(v)  # a tuple: wrt is every argument
    forward, reverse = _dot(tangent, v), _dot(u, grads)
    scale = 1e-9 * (1 + abs(forward) + abs(reverse))
    assert forward == pytest.approx(reverse, rel=1e-9, abs=scale), f"{expr}: <Ju, v> != <u, J'v>"

    def along(s):
        return _dot(f(*(a + s * d for a, d in zip(args, u))), v)

    assert forward == pytest.approx(numerical_grad(along, (0.0,), 0), rel=1e-5, abs=1e-6), (
        f"{expr}: jvp disagrees with finite differences")


def _array_valued(case):
    f, args, _, _ = _setup(case, 0)
    return not isinstance(f(*args), (list, tuple))


#: hvp against finite differences of the gradient: every sixth rule example in CI (the
#: Hessian of every rule, both modes, is test_second_order_rules.py's; this checks the hvp
#: API and an independent reference on a sample), all of them in the long run
#: (SRCAD_LONG_PROPERTIES=1, as tests/test_properties.py)
HESSIAN_CASES = [c for c in CASES if _array_valued(c)]
HVP_CASES = (HESSIAN_CASES if os.environ.get("SRCAD_LONG_PROPERTIES") == "1"
             else HESSIAN_CASES[::6])


@pytest.mark.parametrize("case", HVP_CASES, ids=[_case_id(c) for c in HVP_CASES])
def test_hvp_matches_finite_differences_of_the_gradient(case):
    """Forward over reverse (``hvp``) == finite differences of srcad's reverse gradient, for
    ``sum(sin(call))`` w.r.t. the first argument."""
    rid, expr, specs, f, line = case
    skip_complex_eig(case)
    f, args, u, rng = _setup(case, len(expr) * 3 + 1)
    s = SCALARS[f]
    try:
        hv = srcad.hvp(s, args, u[0], wrt=0)
    except srcad.MissingRuleError as err:
        assert rid in NO_SECOND and f"no derivative rule for {NO_SECOND[rid]}" in str(err), err
        return
    assert rid not in NO_SECOND or "np.linalg.slogdet" in expr, (
        f"{rid} has second derivatives now: take it out of NO_SECOND")
    grad = srcad.grad(s, wrt=0)
    w = _like(args[0], rng)

    def along(t):
        shifted = (args[0] + t * u[0],) + args[1:]
        return _dot(grad(*shifted), w)

    expected = numerical_grad(along, (0.0,), 0)
    assert _dot(hv, w) == pytest.approx(expected, rel=1e-5, abs=1e-6), expr


def test_the_examples_cover_aliasing_and_broadcasting():
    """The families the bugs of issue 14 lived in stay in the table."""
    exprs = [e for examples in EXAMPLES.values() for e, _ in examples]
    for call in ("np.dot(a, a)", "np.outer(a, a)", "a @ a", "np.einsum('ij,ij->', a, a)",
                 "np.vdot(a, a)", "np.inner(a, a)", "np.tensordot(a, a, 1)", "np.matmul(a, a)"):
        assert call in exprs
    shapes = [tuple(args.values()) for _, args in EXAMPLES["numpy.add(a, b)"]]
    assert ((), (3,)) in shapes and ((2, 1), (3,)) in shapes
