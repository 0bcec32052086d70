"""The reads test baked into ``jacfwd``'s front (srcad.jacobians_batched.plain_front, its
text from srcad.core.env.tests_text with ``baked=True``) looks a name found in its module up
there alone: a global named as a builtin (``abs``), deleted between calls, makes the test
fail and the general way take the builtin, whose Jacobian is then given (against autograd's
``jacobian`` over the same functions and central differences), on the call after the delete
and on the front made again after it; one to two outputs, a number out, a loop and a branch,
several shapes (tests/ba31_shadowed.py)."""

import importlib
import importlib.util
import pathlib

import autograd
import autograd.numpy as anp
import ba31_shadowed
import numpy as np
import pytest
from sampling import LONG
from twin_checks import central

import srcad

RNG = np.random.default_rng(31)
SHAPES = [(3,), (2,), (5,)] + ([(1,), (4,), (7,)] if LONG else [])
CASES = [(name, shape, s) for name in ("shadowed", "shadowed_two", "shadowed_number")
         for shape in SHAPES for s in (0.3, 0.8)]


def _twin_module():
    spec = importlib.util.spec_from_file_location(
        "ba31_shadowed_autograd", pathlib.Path(ba31_shadowed.__file__))
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
