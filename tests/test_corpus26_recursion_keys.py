"""Two classes the JAX programs of round 26 met (tools/jax_programs.py):

* a recursive function changing what its own call returned (``out = rec(xs[1:]);
  out.append(v)``), and a second derivative through a recursive function (srcad's backward
  part of the function,
  differentiated again, calls itself; what that call returns was assumed to be (part of) its
  arguments, the saved context among them, and the ``.pop()`` srcad's code makes on it was
  refused as a write into the caller's context (MutationError)). The result's memory is now
  read to a fixed point (srcad.transform.calls._memory_fixed_point);
* ``sorted(d)``, ``list(d)``, ``tuple(d)`` of a dict argument are its keys, which carry no
  derivative (as ``for k in d`` and ``d.keys()``): a dict keyed by them was refused.

Each checked against central differences and srcad's reference tape."""

import numpy as np
import pytest
from sampling import LONG, sample

import srcad


def stack_rec(outs):
    first = outs[0]
    if isinstance(first, tuple):
        return tuple(stack_rec([o[k] for o in outs]) for k in range(len(first)))
    return np.stack(outs)


def power_rec(x, n):
    if n == 0:
        return x * 0.0 + 1.0
    return x * power_rec(x, n - 1)


def sum_rec(xs):
    if len(xs) == 1:
        return xs[0]
    return xs[0] + sum_rec(xs[1:])


def inner_stack(t, X):
    return np.sum(stack_rec([np.dot(t, X[0]) ** 2, np.sin(np.dot(t, X[1]))]) ** 2)


def inner_power(t, X):
    return np.sum(power_rec(np.tanh(X @ t), 3))


def inner_sum(t, X):
    return sum_rec([np.sum(np.cos(X[i] * t)) for i in range(3)])


RS = np.random.RandomState(7)
X = RS.randn(4, 3)
C = RS.randn(3)


def _outer(inner):
    def outer(t):
        return np.dot(srcad.grad(inner)(t, X), C)
    return outer


OUTERS = {"stack": _outer(inner_stack), "power": _outer(inner_power),
          "sum": _outer(inner_sum)}


@pytest.mark.skipif(not LONG, reason="second derivatives: 3-8 s each (the mechanism is "
                    "the one test_recursive_helper_changing_what_its_call_returned checks)")
@pytest.mark.parametrize("name", ["power", "stack", "sum"])
def test_second_derivative_through_recursion(name):
    outer = OUTERS[name]
    t = RS.randn(3)
    g = srcad.grad(outer)(t)
    d, h = np.cos(np.arange(3.0)), 1e-5
    fd = (outer(t + h * d) - outer(t - h * d)) / (2 * h)
    assert np.isclose(np.dot(g, d), fd, rtol=1e-6, atol=1e-8)
    # the first derivative the outer one differentiates, against the tape
    inner = {"stack": inner_stack, "power": inner_power, "sum": inner_sum}[name]
    assert np.allclose(srcad.grad(inner)(t, X), srcad.tape.grad(inner)(t, X))


def build_rec(xs):
    if len(xs) == 1:
        return [xs[0] * 2.0]
    out = build_rec(xs[1:])
    out.append(np.sin(xs[0]))
    return out


def extend_rec(xs):
    if len(xs) == 1:
        return [np.exp(xs[0])]
    out = extend_rec(xs[1:])
    out.extend([xs[0] * out[0], xs[0] ** 2])
    return out


def write_rec(xs):
    if len(xs) == 1:
        return [xs[0], xs[0] * 3.0]
    out = write_rec(xs[1:])
    out[0] = out[0] * xs[0]
    return out


def _uses(helper):
    def f(x):
        ys = helper([x[0], x[1], x[2]])
        total = 0.0
        for k in range(len(ys)):
            total = total + (k + 1.0) * ys[k] * ys[0]
        return total
    return f


@pytest.mark.parametrize("helper", sample([build_rec, extend_rec, write_rec], 3),
                         ids=lambda f: f.__name__)
def test_recursive_helper_changing_what_its_call_returned(helper):
    """A recursive helper that appends to (or writes into) the list its own call returned
    (refused before: what the call returned was taken to be its argument's)."""
    f = _uses(helper)
    x = np.array([0.3, 0.5, 0.7])
    g = srcad.grad(f)(x)
    d, h = np.cos(np.arange(3.0)), 1e-6
    assert np.isclose(np.dot(g, d), (f(x + h * d) - f(x - h * d)) / (2 * h), rtol=1e-6)
    assert np.allclose(g, srcad.tape.grad(f)(x))


def keys_sorted(d):
    e = {k: d[k] * 2.0 for k in sorted(d)}
    return np.sum(e["a"] * e["b"]) + np.sum(e["c"])


def keys_list(d):
    e = {}
    for k in list(d):
        e[k] = np.sin(d[k])
    return np.sum(e["a"] * e["c"])


def keys_tuple(d):
    e = dict(zip(tuple(d), [d[k] ** 2 for k in tuple(d)]))
    return np.sum(e["b"]) * np.sum(e["a"])


@pytest.mark.parametrize("f", [keys_sorted, keys_list, keys_tuple], ids=lambda f: f.__name__)
def test_dict_keyed_by_sorted_list_tuple_of_dict_argument(f):
    d = {"b": RS.randn(3), "a": RS.randn(3), "c": RS.randn(3)}
    g = srcad.grad(f)(d)
    assert set(g) == set(d)
    ref = srcad.tape.grad(f)(d)
    for k in d:
        assert np.allclose(g[k], ref[k])
    h, k = 1e-6, "a"
    direction = np.cos(np.arange(3.0))
    up, down = dict(d), dict(d)
    up[k], down[k] = d[k] + h * direction, d[k] - h * direction
    assert np.isclose(np.dot(g[k], direction), (f(up) - f(down)) / (2 * h), rtol=1e-5)


def test_sorted_list_of_values_still_differentiated():
    """``sorted(xs)`` of a list of numbers is its values (not keys): still differentiated."""
    def f(xs):
        ys = sorted(xs)
        return ys[0] * 2.0 + ys[-1] ** 2
    xs = [0.3, -1.2, 2.5]
    assert np.allclose(srcad.grad(f)(xs), [0.0, 2.0, 5.0])


def _predict_dict(params, inputs):
    return np.tanh(inputs @ params["W"] + params["b"])


def test_jacobian_of_a_dict_function_in_differentiated_code_is_refused():
    """``jacrev(f)(params_dict, x)`` inside a function srcad differentiates (JAX's cookbook's
    ``J_dict``): a TypeError in srcad's code before (the dict was taken for a number); since
    outside27 the dict of Jacobians JAX gives (tests/test_outside27_dict_jacobians.py), so
    ``np.sum`` of it is the dict itself, as in Python: refused as a non-scalar output."""
    inputs = RS.randn(4, 3)

    def f(W, b):
        return np.sum(srcad.jacrev(_predict_dict)({"W": W, "b": b}, inputs))
    with pytest.raises(srcad.SrcadError, match="scalar output, got dict"):
        srcad.grad(f)(np.ones(3) * 0.1, 0.2)
