"""``ys[k] += v`` on an item of a list or dict that is an array: Python takes the array out,
changes it in place (``ndarray.__iadd__``) and puts it back, so every other name, list place
or copy of the list holding that array sees the change. srcad read it as ``ys[k] = ys[k] + v``
(a new array) and gave wrong gradients, with no error, wherever the array was held twice.
Now such a write is refused when the item may be an array; numbers in lists (immutable) and
slices of arrays (a write into the array itself) are differentiated as before.

A generated family: containers x holders x operators, each program either refused with a
MutationError at its line or differentiated to finite differences' gradient.
"""

import itertools
import uuid

import numpy as np
import pytest
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

#: how the array item is held a second time (or not): the program's first lines
_HOLDERS = {
    "second_name": "    a = [x * 1.0, x * 2.0]\n    b = a[0]\n",
    "list_copy": "    a = [x * 1.0, x * 2.0]\n    c = list(a)\n    b = c[0]\n",
    "concatenated": "    a = [x * 1.0, x * 2.0]\n    c = a + [x]\n    b = a[0]\n",
    "same_object_twice": "    h = x * 1.0\n    a = [h, h]\n    b = a[1]\n",
    "dict_item": "    a = {0: x * 1.0, 1: x * 2.0}\n    b = a[0]\n",
}
_OPS = ["+=", "-=", "*="]


def _load(tmp_path, text):
    return load_module(tmp_path, text, f"item_augment_{uuid.uuid4().hex[:8]}").f


X = np.array([0.7, -1.2, 1.9])


@pytest.mark.parametrize(("holder", "op"), list(itertools.product(sorted(_HOLDERS), _OPS)))
def test_an_array_item_held_twice_is_refused_or_exact(tmp_path, holder, op):
    text = ("import numpy as np\n\n\ndef f(x):\n" + _HOLDERS[holder]
            + f"    a[0] {op} np.sin(x)\n    return np.sum(b * b) + np.sum(a[0])\n")
    f = _load(tmp_path, text)
    try:
        grad = srcad.grad(f)(X.copy())
    except srcad.MutationError as e:
        assert e.lineno == 8 or e.lineno == 7, (e.lineno, str(e))
        assert "in place" in str(e)
        return
    np.testing.assert_allclose(grad, numerical_grad(lambda v: f(v.copy()), (X,), 0),
                               rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize("body", [
    # numbers in a list: immutable, the += makes a new number
    "    a = [float(np.sum(x)), 2.0]\n    b = a[0]\n    a[0] {op} np.sin(x[0])\n"
    "    return b * b + a[0] * a[1]\n",
    # a slice of an array: a write into the array itself
    "    y = x * 1.0\n    y[:2] {op} np.sin(x[1:])\n    return np.sum(y * y)\n",
    # an element of an array
    "    y = x * 2.0\n    y[1] {op} x[0]\n    return np.sum(y ** 3)\n",
])
def test_numbers_and_arrays_stay_differentiated(tmp_path, op, body):
    text = "import numpy as np\n\n\ndef f(x):\n" + body.format(op=op)
    f = _load(tmp_path, text)
    np.testing.assert_allclose(srcad.grad(f)(X.copy()),
                               numerical_grad(lambda v: f(v.copy()), (X,), 0),
                               rtol=1e-5, atol=1e-8)


# ys[k] += v where each place of ys holds an array of its own that no other name holds: the
# places of a list literal of new arrays are told apart (analysis.memory: Aliases.only_at),
# so the write is differentiated, not refused; reading the item under another name first
# still refuses it.
_ITEMS = ["x * 1.0", "np.sin(x)", "x ** 2"]


@pytest.mark.parametrize(("k", "op"), list(itertools.product(range(3), _OPS)))
def test_an_array_item_held_once_is_differentiated(tmp_path, k, op):
    text = ("import numpy as np\n\n\ndef f(x):\n"
            f"    ys = [{', '.join(_ITEMS)}]\n"
            f"    s = np.sum(ys[{k}] ** 2)\n"
            f"    ys[{k}] {op} np.cos(x) * ys[{(k + 1) % 3}]\n"
            "    return np.sum(ys[0] * ys[1] + ys[2]) + s\n")
    f = _load(tmp_path, text)
    np.testing.assert_allclose(srcad.grad(f)(X.copy()),
                               numerical_grad(lambda v: f(v.copy()), (X,), 0),
                               rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("held", ["    b = ys[1]\n", "    zs = ys\n    b = zs[1]\n",
                                  "    b = ys[1]\n    ys.append(b)\n"])
def test_an_array_item_held_twice_is_still_refused(tmp_path, held):
    text = ("import numpy as np\n\n\ndef f(x):\n    ys = [x * 1.0, np.sin(x)]\n" + held
            + "    ys[1] += x\n    return np.sum(b * x) + np.sum(ys[1])\n")
    f = _load(tmp_path, text)
    with pytest.raises(srcad.MutationError):
        srcad.grad(f)(X.copy())


#: containers whose kind srcad does not know (a helper's result, copies of one): an array
#: item changed in place through one of them is seen through the others
_UNKNOWN = {
    "helper": "    a = mk(x)\n    c = a\n",
    "helper_copy": "    a = mk(x)\n    c = a.copy()\n",
    "helper_list": "    a = mk(x)\n    c = list(a)\n",
    "helper_concat": "    a = mk(x)\n    c = a + [x * 3.0]\n",
    "helper_slice": "    a = mk(x)\n    c = a[:]\n",
    "helper_dict": "    a = mkd(x)\n    c = dict(a)\n",
    "helper_dict_copy": "    a = mkd(x)\n    c = a.copy()\n",
    "tuple_of_lists": "    a = mkt(x)[0]\n    c = mkt(x)[0] if x[0] > 5 else a\n",
}
_HELPERS = ("import numpy as np\n\n\ndef mk(x):\n    return [x * 1.0, x * 2.0]\n\n\n"
            "def mkd(x):\n    return {0: x * 1.0, 1: x * 2.0}\n\n\n"
            "def mkt(x):\n    return ([x * 1.0, x * 2.0], [x])\n\n\n")


_ITEM_WRITES = {"add": "    c[1] += x\n", "scale": "    c[1] *= 2.0\n",
                "element": "    t = c[1]\n    t[0] = 5.0\n"}


@pytest.mark.parametrize(("holder", "write"), list(itertools.product(sorted(_UNKNOWN),
                                                                     sorted(_ITEM_WRITES))))
def test_an_item_of_a_container_of_unknown_kind(tmp_path, holder, write):
    text = (_HELPERS + "def f(x):\n" + _UNKNOWN[holder] + _ITEM_WRITES[write]
            + "    return np.sum(a[1] * x) + np.sum(c[1])\n")
    f = _load(tmp_path, text)
    try:
        grad = srcad.grad(f)(X.copy())
    except srcad.SrcadError as e:
        assert e.lineno is not None and e.lineno >= 17, str(e)
        return
    np.testing.assert_allclose(grad, numerical_grad(lambda v: f(v.copy()), (X,), 0),
                               rtol=1e-5, atol=1e-8)
