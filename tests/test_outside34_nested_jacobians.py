"""A Jacobian of a function of a dict, called inside differentiated code
(:func:`srcad.nested.plain_jacobian`'s dict lines): each item must be an array or a number;
a nested dict or a list in the dict is refused with a ``SrcadError`` naming the line (it
crashed with an ``IndexError``: the one-hot tangents were zero arrays where a dict was), and a
flat dict's Jacobian is differentiated, against central differences and the closed form
(srcad's tape takes no Jacobian of a dict called inside the function).
4 cases by default, 8 under SRCAD_LONG_PROPERTIES=1. Imports NumPy, pytest, srcad and the
tests' helpers."""

from __future__ import annotations

import numpy as np
import pytest
from program_files import module
from sampling import LONG
from twin_checks import central

import srcad

TEXT = """import numpy as np
import srcad


def e(d):
    return np.sum(d['x'] * {read})


def f(x):
    g = srcad.{transform}(e)({{'x': x, 'y': {item}}})
    return np.sum(g['x'] * x)
"""
#: item of the dict -> (how e reads it, the value, the gradient of f or None: refused)
ITEMS = {
    "nested_dict": ("d['y']['z']", "{'z': 2.0}", None),
    "nested_list": ("d['y'][0]", "[2.0]", None),
    "number": ("d['y']", "2.0", 2.0),  # (f = y * sum(x))
    "array": ("np.sum(d['y'])", "np.full(2, 2.0)", 4.0),
}
X = np.array([0.3, -0.7])


CASES = [(i, t) for i in ITEMS for t in ("jacrev", "jacfwd")]
CASES = CASES if LONG else CASES[::3]  # (each item once, each transform)


@pytest.mark.parametrize("item,transform", CASES)
def test_a_jacobian_of_a_dict_in_differentiated_code(tmp_path, item, transform):
    read, value, want = ITEMS[item]
    mod = module(tmp_path, f"nested_{item}_{transform}", TEXT.format(
        read=read, item=value, transform=transform))
    mod.f(X)  # (the function runs)
    if want is None:
        with pytest.raises(srcad.SrcadError, match="a Jacobian or Hessian of e") as e:
            srcad.grad(mod.f)(X)
        assert "line" in str(e.value) and "whose argument is a" in str(e.value), e.value
        return
    assert np.allclose(central(mod.f, [X], 0), want, atol=1e-6)
    assert np.allclose(srcad.grad(mod.f)(X), want, rtol=1e-12)
