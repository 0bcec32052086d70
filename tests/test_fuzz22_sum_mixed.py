"""``sum`` of a list holding numbers and arrays (``sum([t / x for t in [c, a]])``): the sum
broadcasts each number to the arrays' shape, and the gradient of a number among its items is a
number (the array's sum). srcad's ``fill`` gave every item the sum's whole gradient array;
the first derivative summed it later, but a second derivative (``grad(grad(f))``, Hessians, the
list made in a function called by the one differentiated) added it to the number's other
gradients and counted them once per element: a WRONG second derivative (107.6 for 66.2; found
by tests/test_properties_python.py, seed 60253, through a method of a class). Also ``sum(xs,
start)`` with a number ``start`` and array items. Against autograd on the same source and
central differences of srcad's first derivative. Imports NumPy, autograd, srcad."""

import itertools

import autograd
import numpy as np
import pytest
from class_families import module_of
from sampling import sample_by
from twin_checks import close

import srcad

ITEMS = {"number_first": "[0.625, a]", "array_first": "[a, 0.625]",
         "two_numbers": "[x * 0.5, a, 0.625 * x]", "computed": "[np.sum(a) * 0.5, a * a]"}
TERMS = {"divide": "t / x", "cos": "t / (2.0 + np.cos(x))", "power": "t * x ** 3"}
WHERE = {
    "top": "def f(x, a):\n    return np.sum(sum([{term} for t in {items}]))\n",
    "callee": "def inner(x, a):\n    return np.sum(sum([{term} for t in {items}]))\n\n\n"
              "def f(x, a):\n    return inner(x, a) * 1.5\n",
    "start": "def f(x, a):\n    return np.sum(sum([{term} for t in {items}], x * x))\n",
}
#: sampled in CI (each term at each place, and every third other), whole with
#: SRCAD_LONG_PROPERTIES=1
CASES = sample_by(itertools.product(sorted(ITEMS), sorted(TERMS), sorted(WHERE)),
                  lambda c: c[1:], 3)


@pytest.mark.parametrize("items,term,where", CASES)
def test_sum_of_numbers_and_arrays(tmp_path, items, term, where):
    text = "import numpy as np\n\n\n" + WHERE[where].format(term=TERMS[term], items=ITEMS[items])
    mod = module_of(tmp_path, text, f"summix_{items}_{term}_{where}", "")
    twin = module_of(tmp_path, text, f"summix_{items}_{term}_{where}_ag", "",
                     numpy="autograd.numpy")
    x, a = 0.45, np.array([0.97, -0.41, 0.56])
    first = srcad.grad(mod.f, wrt=0)
    assert close(first(x, a), autograd.grad(twin.f, 0)(x, a), 1e-10)
    second = srcad.grad(first, wrt=0)(x, a)
    assert close(second, autograd.grad(autograd.grad(twin.f, 0), 0)(x, a), 1e-9), text
    assert close(second, (first(x + 1e-5, a) - first(x - 1e-5, a)) / 2e-5, 1e-5)
    for mode in ("fwd", "rev"):
        hess = srcad.hessian(mod.f, wrt=1, mode=mode)(x, a)
        assert close(hess, autograd.hessian(twin.f, 1)(x, a), 1e-9), (mode, text)
