"""Namespace code reading the items of a tuple or list of arrays (``a, b = t``, ``t[k]``) on
array-api-strict arrays: the gradient of the container is made at once by the ``items_at``
helper, whose standard-backend form must exist and agree with NumPy's and with finite
differences (a family over container length, item order and repeated reads)."""

import itertools

import numpy as np
import pytest

import srcad
from srcad.tools.check import numerical_grad

xps = pytest.importorskip("array_api_strict")
pytest.importorskip("array_api_compat")

X = np.array([0.3, 0.5, 0.7])
ITEMS = ("xp.sin(x)", "x * 2.0", "x", "xp.exp(x) / 3.0")
CASES = [(n, order) for n in (2, 3, 4) for order in itertools.permutations(range(n))
         if order[0] <= 1][::2]


def _make(n, order, kind):
    items = ", ".join(ITEMS[:n])
    built = f"({items},)" if kind == "tuple" else f"[{items}]"
    names = [f"v{k}" for k in range(n)]
    reads = "\n".join(f"    {names[k]} = t[{k}]" for k in order)
    terms = " + ".join(f"xp.sum({names[k]} * {names[(k + 1) % n]})" for k in range(n))
    src = (
        "def f(x):\n"
        "    xp = array_namespace(x)\n"
        f"    t = {built}\n"
        f"{reads}\n"
        f"    return {terms} + xp.sum(t[0])\n")
    return src


@pytest.mark.parametrize("kind", ["tuple", "list"])
@pytest.mark.parametrize(("n", "order"), CASES)
def test_items_of_a_container_on_strict_arrays(tmp_path, n, order, kind):
    import importlib.util

    path = tmp_path / f"items_{n}_{''.join(map(str, order))}_{kind}.py"
    path.write_text("from array_api_compat import array_namespace\n\n\n" + _make(n, order, kind))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    f = module.f
    expected = numerical_grad(f, (X.copy(),))
    on_numpy = srcad.grad(f)(X.copy())
    on_strict = srcad.grad(f)(xps.asarray(X))
    assert type(on_strict) is type(xps.asarray(X))
    np.testing.assert_allclose(on_numpy, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.from_dlpack(on_strict),
                               on_numpy, rtol=1e-12, atol=1e-14)
