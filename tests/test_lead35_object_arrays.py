"""An array of Python objects (``dtype=object``, e.g. a ragged collection of arrays) is not an
array of numbers: its items may be arrays or lists, so srcad reads it as a value of unknown
kind (``core.kinds.kind_of_value``), never as an array whose items are numbers. Before, ``a[0]
* x`` of such an argument gave a scalar ``x`` an array's gradient, and ``t = a.copy()[0];
t += x`` (which changes the caller's item: the copy is shallow) was differentiated as if the
item were a new number. Found by forms35 (session 35). Against central differences and
autograd (the same items in a list)."""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError


def _objects(rows):
    a = np.empty(len(rows), dtype=object)
    for i, r in enumerate(rows):
        a[i] = r
    return a


READS = {
    "sum": (lambda a, x: np.sum(a[0] * x), lambda a, x: anp.sum(a[0] * x)),
    "two": (lambda a, x: np.sum(a[1] * x ** 2) + np.sum(a[0]),
            lambda a, x: anp.sum(a[1] * x ** 2) + anp.sum(a[0])),
    "loop": (lambda a, x: sum(np.sum(np.sin(r * x)) for r in a),
             lambda a, x: sum(anp.sum(anp.sin(r * x)) for r in a)),
}


def _central(f, a, x, h=1e-6):
    if np.ndim(x) == 0:
        return (f(a, x + h) - f(a, x - h)) / (2 * h)
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        out.flat[i] = (f(a, x + e) - f(a, x - e)) / (2 * h)
    return out


@pytest.mark.parametrize("x", [0.7, np.array([0.3, -0.4])], ids=["number", "vector"])
@pytest.mark.parametrize("read", sorted(READS))
def test_items_of_an_object_array_read(read, x):
    f, twin = READS[read]
    rows = [np.array([1.0, 2.0]), np.array([0.5, -1.5])]  # ragged in use: the same length here
    a = _objects(rows)
    got = srcad.grad(f, wrt=1)(a, x)
    assert np.shape(got) == np.shape(x)
    assert np.allclose(got, _central(f, a, x), atol=1e-6)
    assert np.allclose(got, autograd.grad(twin, 1)(rows, x), atol=1e-9)


def test_a_shallow_copy_s_item_written_is_refused():
    def f(a, x):
        b = a.copy()  # a new array of the same objects: b[0] is a's first array
        t = b[0]
        t += x
        return np.sum(a[0]) * x

    with pytest.raises(SrcadError, match="in place"):
        srcad.grad(f, wrt=1)(_objects([np.ones(2), np.ones(3)]), 1.0)
