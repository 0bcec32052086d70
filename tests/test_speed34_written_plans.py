"""(speed34) What ``srcad.frontend.written_args`` reads of a function's text is planned once per
code object; the functions it calls are still looked up at every call. A plan kept past what
it depends on would lower a call as a write that no longer writes, or miss a write: these
check that a callee rebound (a global, a closure's cell), a function defined again from new
text, and two closures of one code each get their own answer, and that the gradients follow
(against central differences and autograd on a functional twin). A cache of the whole answer by code
object fails the first two.
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from test_robustness import load_module
from twin_checks import central, close

import srcad
from srcad.frontend import written_args

TEXT = '''
import numpy as np


def writes(a, x):
    a[0] = x * 2.0


def reads(a, x):
    return a[0] + x


HELPER = writes


def passes(a, x):
    HELPER(a, x)


def f(x):
    a = np.ones(2)
    HELPER(a, x)
    return np.sum(a * a) * x


def make(helper):
    def h(a, x):
        helper(a, x)
    return h
'''


@pytest.fixture
def mod(tmp_path):
    return load_module(tmp_path, TEXT)


def _check_grad(f, x, written):
    """srcad's gradient of ``f`` at ``x`` against central differences and autograd's of the
    twin: ``a[0]`` is ``2 x`` where the callee writes it, 1 where it does not."""
    def twin(x):
        a = anp.array([2.0 * x if written else 1.0 + 0.0 * x, 1.0])
        return anp.sum(a * a) * x

    ours = srcad.grad(f)(x)
    assert close(ours, central(lambda v: f(v[0]), (np.array([x]),), 0)[0], 1e-6)
    assert close(ours, autograd.grad(twin)(x), 1e-10)


def test_a_global_callee_rebound(mod):
    assert written_args.changed_params(mod.passes) == (("a",), ())
    _check_grad(mod.f, 0.7, True)
    mod.HELPER = mod.reads
    assert written_args.changed_params(mod.passes) == ((), ())
    _check_grad(mod.f, 0.7, False)
    mod.HELPER = mod.writes
    assert written_args.changed_params(mod.passes) == (("a",), ())
    _check_grad(mod.f, 0.7, True)


def test_two_closures_of_one_code(mod):
    h1, h2 = mod.make(mod.writes), mod.make(mod.reads)
    assert h1.__code__ is h2.__code__
    assert written_args.changed_params(h1) == (("a",), ())
    assert written_args.changed_params(h2) == ((), ())
    assert written_args.changed_params(h1) == (("a",), ())


def test_a_function_defined_again(tmp_path):
    name = "speed34_defined_again"
    first = load_module(tmp_path, TEXT, name)
    assert written_args.changed_params(first.writes) == (("a",), ())
    _check_grad(first.f, 0.7, True)
    again = load_module(tmp_path, TEXT.replace("a[0] = x * 2.0", "return a[0] * x"), name)
    assert again.writes.__code__ is not first.writes.__code__
    assert written_args.changed_params(again.writes) == ((), ())
    _check_grad(again.f, 0.7, False)  # HELPER is the new writes, which writes nothing
