"""Containers and records in every API (JAX's pytrees): ``jvp``, ``jacobian`` (``jacrev``,
``jacfwd``), ``hessian`` and ``hvp`` with dicts, lists, tuples, dataclasses, named tuples and
registered classes as arguments, and tuples, lists and dicts as outputs.

The layout is JAX's: the Jacobian is shaped like the output; each of its leaves is shaped like
the ``wrt`` argument (for a tuple ``wrt``, a tuple over it); each leaf of that is an array of
shape ``output leaf shape + argument leaf shape``. The test reads the layout with its own
flattening (written here, independent of srcad's), and checks every block against central
finite differences and against srcad's reference tape (``srcad.tape``) on the same function
of a flat vector.
"""

import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import srcad
from srcad import tape

# ---------------------------------------------------------------- the containers


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: float


class Pair(NamedTuple):
    w: np.ndarray
    b: float


class Plain:
    """A class made a pytree with srcad.register_pytree."""

    def __init__(self, w, b):
        self.w, self.b = w, b


srcad.register_pytree(Plain, lambda p: {"w": p.w, "b": p.b},
                      lambda fields: Plain(fields["w"], fields["b"]))

MAKERS = {
    "dict": lambda w, b: {"w": w, "b": b},
    "list": lambda w, b: [w, b],
    "tuple": lambda w, b: (w, b),
    "dataclass": Layer,
    "namedtuple": Pair,
    "registered": Plain,
}


def tree_leaves(value):
    """The test's own flattening: fields in declaration order, items in order."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in tree_leaves(v)]
    if dataclasses.is_dataclass(value):
        return [leaf for f in dataclasses.fields(value)
                for leaf in tree_leaves(getattr(value, f.name))]
    if isinstance(value, Plain):
        return tree_leaves(value.w) + tree_leaves(value.b)
    if isinstance(value, (list, tuple)):  # named tuples too
        return [leaf for v in value for leaf in tree_leaves(v)]
    return [value]


def to_vector(value):
    return np.concatenate([np.ravel(np.asarray(leaf, dtype=float)) for leaf in
                           tree_leaves(value)])


# ---------------------------------------------------------------- the functions, by access


def by_key_scalar(p, x):
    return np.sum(np.tanh(p["w"] * x + p["b"]) ** 2) + p["b"] ** 3


def by_key_array(p, x):
    return np.tanh(p["w"] * x) * p["b"]


def by_key_tuple(p, x):
    return p["w"] * p["b"], np.sum(np.sin(p["w"])) * x, p["b"] ** 2


def by_index_scalar(p, x):
    return np.sum(np.tanh(p[0] * x + p[1]) ** 2) + p[1] ** 3


def by_index_array(p, x):
    return np.tanh(p[0] * x) * p[1]


def by_index_tuple(p, x):
    return p[0] * p[1], np.sum(np.sin(p[0])) * x, p[1] ** 2


def by_field_scalar(p, x):
    return np.sum(np.tanh(p.w * x + p.b) ** 2) + p.b ** 3


def by_field_array(p, x):
    return np.tanh(p.w * x) * p.b


def by_field_tuple(p, x):
    return p.w * p.b, np.sum(np.sin(p.w)) * x, p.b ** 2


def by_field_list(p, x):
    return [np.exp(p.w) * x[0], p.b * x]


ACCESS = {"dict": "key", "list": "index", "tuple": "index", "dataclass": "field",
          "namedtuple": "field", "registered": "field"}
FUNCTIONS = {
    "key": {"scalar": by_key_scalar, "array": by_key_array, "tuple": by_key_tuple},
    "index": {"scalar": by_index_scalar, "array": by_index_array, "tuple": by_index_tuple},
    "field": {"scalar": by_field_scalar, "array": by_field_array, "tuple": by_field_tuple,
              "list": by_field_list},
}
CASES = [(kind, out) for kind in MAKERS for out in FUNCTIONS[ACCESS[kind]]]
POINTS = [(np.array([0.5, -1.0, 0.3]), 0.4, np.array([1.0, 2.0, -0.5])),
          (np.array([-0.2, 0.7, 1.1]), -0.9, np.array([0.3, -1.5, 0.8]))]


def flat_function(f, make, x):
    """``f`` as a function of the flat vector of its record's leaves (w: 3 numbers, b: 1)."""
    def flat(v):
        return f(make(v[0:3], v[3]), x)
    return flat


def out_vector(value):
    """The output's leaves (tape values too)."""
    return tree_leaves(value)


def reference_jacobian(f, make, w, b, x):
    """(finite differences, tape) Jacobians of the flat output w.r.t. the flat (w, b)."""
    flat = flat_function(f, make, x)
    v = np.concatenate([w, [b]])
    out = np.concatenate([np.ravel(np.asarray(leaf, dtype=float))
                          for leaf in out_vector(flat(v))])
    h = 1e-6
    fd = np.zeros((out.size, v.size))
    for i in range(v.size):
        e = np.zeros(v.size)
        e[i] = h
        up = np.concatenate([np.ravel(np.asarray(leaf, float)) for leaf in out_vector(flat(v + e))])
        down = np.concatenate([np.ravel(np.asarray(leaf, float))
                               for leaf in out_vector(flat(v - e))])
        fd[:, i] = (up - down) / (2 * h)
    rows = []
    for k in range(out.size):
        def component(v_, k=k):
            total, start = None, 0
            for leaf in out_vector(flat(v_)):
                size = int(np.size(leaf))
                if start <= k < start + size:
                    total = leaf if np.ndim(leaf) == 0 else leaf.reshape(-1)[k - start] \
                        if hasattr(leaf, "reshape") else leaf[k - start]
                start += size
            return total
        rows.append(np.asarray(tape.grad(component)(v), dtype=float))
    return fd, np.array(rows)


def srcad_matrix(jac, value, like):
    """srcad's Jacobian tree read into a matrix: rows by the output's leaves, columns by
    ``like``'s (the argument's) leaves."""
    out_leaves = tree_leaves(value)
    blocks = tree_leaves_at_depth(jac, value)
    rows = []
    for leaf, block_tree in zip(out_leaves, blocks):
        cols = [np.reshape(np.asarray(b, dtype=float), (int(np.size(leaf)), int(np.size(a))))
                for b, a in zip(tree_leaves(block_tree), tree_leaves(like))]
        rows.append(np.concatenate(cols, axis=1))
    return np.concatenate(rows, axis=0)


def tree_leaves_at_depth(jac, value):
    """The sub-trees of ``jac`` at the positions of ``value``'s leaves (the output's
    structure is the outer one)."""
    if isinstance(value, dict):
        assert isinstance(jac, dict) and list(jac) == list(value)
        return [t for k in value for t in tree_leaves_at_depth(jac[k], value[k])]
    if isinstance(value, (list, tuple)):
        assert type(jac) is type(value) and len(jac) == len(value)
        return [t for j, v in zip(jac, value) for t in tree_leaves_at_depth(j, v)]
    if isinstance(value, (Layer, Plain)):
        assert type(jac) is type(value)
        return tree_leaves_at_depth(jac.w, value.w) + tree_leaves_at_depth(jac.b, value.b)
    return [jac]


def check_structure(tree, like):
    """Every block of ``tree`` (a Jacobian's inner tree) has ``like``'s classes."""
    assert type(tree) is type(like), (type(tree), type(like))


# ---------------------------------------------------------------- Jacobians


@pytest.mark.parametrize("mode", ["rev", "fwd"])
@pytest.mark.parametrize("point", [0, 1])
@pytest.mark.parametrize("kind,out", CASES, ids=[f"{k}-{o}" for k, o in CASES])
def test_jacobian_with_respect_to_a_container(kind, out, point, mode):
    make, f = MAKERS[kind], FUNCTIONS[ACCESS[kind]][out]
    w, b, x = POINTS[point]
    p = make(w, b)
    value = f(p, x)
    jac = srcad.jacobian(f, wrt=0, mode=mode)(p, x)
    for block in tree_leaves_at_depth(jac, value):
        check_structure(block, p)
    got = srcad_matrix(jac, value, p)
    fd, taped = reference_jacobian(f, make, w, b, x)
    assert np.allclose(got, fd, rtol=1e-5, atol=1e-7)
    assert np.allclose(got, taped, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["rev", "fwd"])
@pytest.mark.parametrize("kind", ["dict", "tuple", "dataclass", "namedtuple"])
def test_jacobian_with_a_tuple_wrt_puts_the_output_outside(kind, mode):
    """``wrt=(0, 1)``: shaped like the output, each leaf a tuple (the record's, x's)."""
    make, f = MAKERS[kind], FUNCTIONS[ACCESS[kind]]["tuple"]
    w, b, x = POINTS[0]
    p = make(w, b)
    value = f(p, x)
    jac = srcad.jacobian(f, wrt=(0, 1), mode=mode)(p, x)
    blocks = tree_leaves_at_depth(jac, value)
    for leaf, (jp, jx) in zip(tree_leaves(value), blocks):
        check_structure(jp, p)
        assert np.shape(jx) == np.shape(leaf) + x.shape
    # the x blocks against finite differences of each output leaf
    h = 1e-6
    for k, leaf in enumerate(tree_leaves(value)):
        want = np.zeros(np.shape(leaf) + x.shape)
        for i in range(x.size):
            e = np.zeros(x.size)
            e[i] = h
            up, down = tree_leaves(f(p, x + e))[k], tree_leaves(f(p, x - e))[k]
            want[..., i] = (np.asarray(up) - np.asarray(down)) / (2 * h)
        assert np.allclose(blocks[k][1], want, rtol=1e-5, atol=1e-7)
    # the record's blocks: as with wrt=0
    single = srcad.jacobian(f, wrt=0, mode=mode)(p, x)
    for (jp, _), alone in zip(blocks, tree_leaves_at_depth(single, value)):
        assert np.allclose(to_vector(jp), to_vector(alone), rtol=1e-12)


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobian_of_a_tuple_output_of_arrays(mode):
    """A tuple output is a tuple of Jacobians (not one stacked array), as in JAX."""
    def two(x, s):
        return x * s, np.sin(x)

    x = np.array([0.5, 1.5])
    jac = srcad.jacobian(two, mode=mode)(x, 2.0)
    assert type(jac) is tuple and len(jac) == 2
    assert np.allclose(jac[0], 2.0 * np.eye(2))
    assert np.allclose(jac[1], np.diag(np.cos(x)))


# ---------------------------------------------------------------- Hessians, hvp, jvp


@pytest.mark.parametrize("mode", ["fwd", "rev"])
@pytest.mark.parametrize("point", [0, 1])
@pytest.mark.parametrize("kind", list(MAKERS))
def test_hessian_with_respect_to_a_container(kind, point, mode):
    make, f = MAKERS[kind], FUNCTIONS[ACCESS[kind]]["scalar"]
    w, b, x = POINTS[point]
    p = make(w, b)
    hess = srcad.hessian(f, mode=mode)(p, x)
    check_structure(hess, p)
    for block in tree_leaves_at_depth(hess, p):
        check_structure(block, p)
    got = srcad_matrix(hess, p, p)

    def flat_grad(v):
        return tape.grad(flat_function(f, make, x))(v)

    v = np.concatenate([w, [b]])
    h = 1e-6
    fd = np.array([(flat_grad(v + h * e) - flat_grad(v - h * e)) / (2 * h)
                   for e in np.eye(v.size)]).T
    assert np.allclose(got, fd, rtol=1e-5, atol=1e-6)
    assert np.allclose(got, got.T, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("point", [0, 1])
@pytest.mark.parametrize("kind", list(MAKERS))
def test_hvp_and_jvp_with_a_container(kind, point):
    make, f = MAKERS[kind], FUNCTIONS[ACCESS[kind]]["scalar"]
    w, b, x = POINTS[point]
    p = make(w, b)
    t = make(np.array([1.0, -0.5, 0.25]), 0.75)
    hv = srcad.hvp(f, (p, x), t)
    check_structure(hv, p)
    hess = srcad_matrix(srcad.hessian(f)(p, x), p, p)
    assert np.allclose(to_vector(hv), hess @ to_vector(t), rtol=1e-10, atol=1e-12)
    for g in (FUNCTIONS[ACCESS[kind]]["array"], FUNCTIONS[ACCESS[kind]]["tuple"]):
        value, tangent = srcad.jvp(g, (p, x), (t,), wrt=0)
        fd, _ = reference_jacobian(g, make, w, b, x)
        assert np.allclose(to_vector(tangent), fd @ to_vector(t), rtol=1e-5, atol=1e-7)
        assert np.allclose(to_vector(value), to_vector(g(p, x)), rtol=1e-12)
