"""A rule's parameter accepted only at some constants (``fixed=``, rules29): the constant the
user wrote is checked where the call is, a value known only when the code runs when the
gradient runs, both as a SrcadError at the user's line saying what to write; accepted calls
against central differences and autograd.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

SOURCE = '''
import numpy as np
from scipy import special


def pinv_kw(a):
    return np.sum(np.sin(np.linalg.pinv(a, hermitian=False)))


def pinv_pos(a):
    return np.sum(np.sin(np.linalg.pinv(a, None, False)))


def pinv_true(a):
    return np.sum(np.linalg.pinv(a, hermitian=True))


def pinv_given(a, h):
    return np.sum(np.sin(np.linalg.pinv(a, hermitian=h)))


def lse(a):
    return np.sum(special.logsumexp(a, axis=0, return_sign=False))


def ufunc_keywords(x):
    return np.sum(np.exp(x, out=None, where=True, casting="same_kind", order="K", dtype=None))


def ufunc_out_position(x):
    return np.sum(np.tanh(x, None) * x)


def where_given(x, w):
    return np.sum(np.exp(x, where=w))
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    pytest.importorskip("scipy")
    path = tmp_path_factory.mktemp("rules29") / "rules29_fixed_cases.py"
    path.write_text(textwrap.dedent(SOURCE))
    import importlib.util
    spec = importlib.util.spec_from_file_location("rules29_fixed_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(mod, name, text):
    import inspect
    lines, first = inspect.getsourcelines(getattr(mod, name))
    return first + next(i for i, s in enumerate(lines) if text in s)


A = np.array([[2.0, 0.3, -0.4], [0.1, 1.5, 0.2], [0.6, -0.2, 1.1]])


def _autograd_pinv(a):
    return anp.sum(anp.sin(anp.linalg.pinv(a)))


@pytest.mark.parametrize("name", ["pinv_kw", "pinv_pos"])
def test_pinv_with_its_defaults_written_out(mod, name):
    f = getattr(mod, name)
    got = srcad.grad(f)(A)
    np.testing.assert_allclose(got, central(f, (A,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, autograd.grad(_autograd_pinv)(A), rtol=1e-10)


def test_another_constant_is_refused_at_its_line(mod):
    with pytest.raises(srcad.MissingRuleError) as info:
        srcad.grad(mod.pinv_true)(A)
    err = info.value
    assert err.lineno == _line(mod, "pinv_true", "hermitian=True"), err
    assert "hermitian=True" in str(err) and "hermitian=False" in err.hint, err


def test_a_value_known_when_the_code_runs_is_checked_then(mod):
    got = srcad.grad(mod.pinv_given)(A, False)
    np.testing.assert_allclose(got, autograd.grad(_autograd_pinv)(A), rtol=1e-10)
    with pytest.raises(srcad.MissingRuleError) as info:  # the gradient's code, when it runs
        srcad.grad(mod.pinv_given)(A, True)
    assert info.value.lineno == _line(mod, "pinv_given", "hermitian=h"), info.value
    assert "hermitian=True" in str(info.value), info.value
    # forward mode, the same check
    _, tangent = srcad.jvp(lambda a: mod.pinv_given(a, False), (A,), (A,))
    assert tangent == pytest.approx(float(np.sum(got * A)), rel=1e-9)


def test_logsumexp_and_ufunc_keywords(mod):
    a = np.array([[0.3, -1.2, 0.5], [1.1, 0.2, -0.7]])
    # (logsumexp and a ufunc's keywords: tests/test_rules29_defaults.py's family)
    np.testing.assert_allclose(srcad.grad(mod.lse)(a), autograd.grad(
        lambda a: anp.sum(anp.log(anp.sum(anp.exp(a), axis=0))))(a), rtol=1e-10)
    f = mod.ufunc_out_position
    np.testing.assert_allclose(srcad.grad(f)(a), central(f, (a,), 0), rtol=1e-6, atol=1e-8)
    # where= given a mask: refused as before (NumPy leaves the other elements unset)
    with pytest.raises(srcad.SrcadError):
        srcad.grad(mod.where_given)(a, a > 0)


def test_every_fixed_parameter_accepts_the_function_default():
    """A ``fixed=`` declaration (srcad.rules.registry) accepts the function's own default
    (where its signature is readable): leaving the parameter out is always accepted."""
    import inspect

    from srcad.rules.registry import registry
    registry.load_pending()
    checked = 0
    for rules in list(registry.rules.values()):
        for rule in rules:
            try:
                own = inspect.signature(rule.fn).parameters
            except (TypeError, ValueError):
                continue
            for param, accepted in rule.fixed.items():
                default = own[param].default if param in own else None
                if param not in own or type(default) not in (type(None), bool, int, float,
                                                             str):
                    continue  # (no default, or a sentinel no call writes: np._NoValue)
                checked += 1
                assert any(type(v) is type(default) and v == default for v in accepted), (
                    rule.name, param, default, accepted)
    assert checked > 500, checked
