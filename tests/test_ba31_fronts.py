"""Two mechanisms of ``jacfwd``'s batched pass. The reads test baked into its front
(srcad.jacobians_batched.plain_front, its text from srcad.core.env.tests_text with
``baked=True``) looks a name found in its module up there alone: a global named as a builtin
(``abs``), deleted between calls, makes the test fail and the general way take the builtin,
whose Jacobian is then given (against autograd's ``jacobian`` over the same functions and
central differences), on the call after the delete and on the front made again after it; one
to two outputs, a number out, a loop and a branch, several shapes (tests/ba31_shadowed.py).
And a whole sum of a product of vectors, whose batched tangent is one matrix-vector product
(``tangent_dot``, tests/ba31_functions.py)."""

import importlib
import importlib.util
import pathlib

import autograd
import autograd.numpy as anp
import ba31_functions
import ba31_shadowed
import numpy as np
import pytest
from sampling import LONG
from twin_checks import central

import srcad

RNG = np.random.default_rng(31)
CASES = [("shadowed", (3,), 0.8), ("shadowed_two", (2,), 0.8), ("shadowed_number", (3,), 0.3),
         ("shadowed_number", (2,), 0.8)] + ([(name, shape, s) for name in (
             "shadowed", "shadowed_two", "shadowed_number") for shape in [(1,), (4,), (5,)]
             for s in (0.3, 0.8)] if LONG else [])


def _twin_module(module="ba31_shadowed"):
    spec = importlib.util.spec_from_file_location(
        f"{module}_autograd", pathlib.Path(__file__).with_name(f"{module}.py"))
    twin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(twin)
    twin.np = anp
    return twin


def _check(got, name, module, twin, args):
    f, g = getattr(module, name), getattr(twin, name)
    outs = f(*args)
    single = not isinstance(outs, tuple)
    for o in range(1 if single else len(outs)):
        pick = (lambda *a: f(*a)) if single else (lambda *a, o=o: f(*a)[o])
        twin_pick = (lambda *a: g(*a)) if single else (lambda *a, o=o: g(*a)[o])
        for k in (0, 1):
            block = got[k] if single else got[o][k]
            want = autograd.jacobian(twin_pick, k)(*args)
            np.testing.assert_allclose(block, want, rtol=1e-9, atol=1e-12)
            out = np.shape(pick(*args))
            cols = [central(lambda *a, i=i, p=pick, out=out: float(np.asarray(p(*a))[i]) if out else
                            float(p(*a)), list(args), k) for i in np.ndindex(*out)]
            np.testing.assert_allclose(
                block, np.reshape(np.stack(cols), out + np.shape(args[k])), rtol=1e-5,
                atol=1e-6)


@pytest.mark.parametrize("name, shape, s", CASES)
def test_deleted_global_finds_the_builtin(name, shape, s):
    module = importlib.reload(ba31_shadowed)  # (abs defined again: each case starts shadowed)
    twin = _twin_module()
    jac = srcad.jacfwd(getattr(module, name), wrt=(0, 1))
    args = (RNG.uniform(-0.9, 0.9, shape), RNG.uniform(-0.9, 0.9, shape), s)

    for _ in range(2):  # the second call: the front (a tuple out: a tuple per output)
        _check(jac(*args), name, module, twin, args)
    del module.abs
    del twin.abs
    for _ in range(3):  # the front's test fails; made again; its front
        _check(jac(*args), name, module, twin, args)


#: whole sums of products of vectors (tests/ba31_functions.py): sizes, s on both branches
DOTS = [(name, n, s) for name in ("squares", "cross_terms", "constant_factor",
                                  "broadcast_one", "branch_loop")
        for n, s in ((3, 0.3), (3, 0.8))] + ([(name, 3, 0.6) for name in (
            "squares", "cross_terms", "broadcast_one")] if LONG else [])


@pytest.mark.parametrize("name, n, s", DOTS)
def test_whole_sums_of_products(name, n, s):
    """The batched code's ``tangent_dot`` (asserted in its text where the product is of
    vectors) gives autograd's and central differences' Jacobians, on the first call and the
    front's."""
    from srcad import jacobians_batched

    twin = _twin_module("ba31_functions")
    args = (RNG.uniform(-0.9, 0.9, n), RNG.uniform(-0.9, 0.9, n), s)
    f = getattr(ba31_functions, name)
    assert "tangent_dot(" in jacobians_batched.source(f, *args, wrt=(0, 1))
    jac = srcad.jacfwd(f, wrt=(0, 1))
    for _ in range(2):
        _check(jac(*args), name, ba31_functions, twin, args)
