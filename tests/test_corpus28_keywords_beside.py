"""Round 28: ``f(x, a=v, **d)``, keywords written beside the unpacking of a dict srcad cannot
see whole where it makes the code (an argument, a dict a helper returns) into a function of
the user's; refused before ("keyword unpacking (**kw) of a dict srcad cannot see whole";
corpus27 took ``f(x, **d)`` alone). The keywords are merged into ``dict(d)`` when the code
runs (:func:`srcad.frontend.keyword_dicts.merged`), the call made through ``star_call``:
gradients flow through ``d``'s values and each keyword's. A keyword given twice raises
Python's ``TypeError``; a mapping that is not a dict, and two ``**``, are refused at the
call's line. Checked against central differences and autograd (the keywords passed one by
one).
"""

import collections
import types

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.tools.check import numerical_grad
from tests.sampling import LONG, sample


def model(x, a=1.0, b=2.0, c=0.5):
    return np.sum(np.sin(a * x) * b + c * x ** 2)


def model_ag(x, a=1.0, b=2.0, c=0.5):
    return anp.sum(anp.sin(a * x) * b + c * x ** 2)


def options(s):
    return {"b": s * 2.0, "c": s}


def beside_argument(w, s, x):  # a keyword computed from w, the dict a parameter's
    return _given(x, w[0], {"b": s, "c": 0.25})


def _given(x, a, d):
    return model(x, a=a, **d)


def beside_helper(w, s, x):  # the dict a helper returns, two keywords beside it
    return model(x * w[1], a=w[0], **options(s)) + w[1]


def unpacked_first(w, s, x):  # **d written first
    d = options(s)
    return model(**d, x=x, a=w[0] * w[1])


def in_loop(w, s, x):  # merged again each iteration
    total = 0.0
    for k in range(3):
        d = options(s * (k + 1))
        total = total + model(x, a=w[k % 2], **d)
    return total


def _reference(name):
    def beside_argument(w, s, x):
        return model_ag(x, a=w[0], b=s, c=0.25)

    def beside_helper(w, s, x):
        return model_ag(x * w[1], a=w[0], b=s * 2.0, c=s) + w[1]

    def unpacked_first(w, s, x):
        return model_ag(x, a=w[0] * w[1], b=s * 2.0, c=s)

    def in_loop(w, s, x):
        total = 0.0
        for k in range(3):
            total = total + model_ag(x, a=w[k % 2], b=s * (k + 1) * 2.0, c=s * (k + 1))
        return total
    return locals()[name]


FORMS = [beside_helper, in_loop, beside_argument, unpacked_first]
CASES = [(f, wrt) for f in FORMS for wrt in (0, 1)]


@pytest.mark.parametrize("form, wrt", sample(CASES, 4),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_keywords_beside_against_differences_and_autograd(form, wrt):
    rs = np.random.RandomState(wrt)
    args = (rs.randn(2), 0.7, rs.randn(3))
    got = srcad.grad(form, wrt=wrt)(*args)
    assert np.allclose(got, numerical_grad(form, args, wrt=wrt), rtol=1e-5, atol=1e-6)
    assert np.allclose(got, autograd.grad(_reference(form.__name__), wrt)(*args), rtol=1e-9,
                       atol=1e-12)
    tangents = (np.ones(2), 1.0, np.zeros(3))
    value, slope = srcad.jvp(form, args, tangents)
    assert np.allclose(value, form(*args))
    ref = autograd.grad(_reference(form.__name__), (0, 1))(*args)
    assert np.allclose(slope, np.sum(ref[0]) + ref[1], rtol=1e-9, atol=1e-12)


def through_dict(d, x):  # the gradient w.r.t. the dict: a dict of gradients
    return model(x, a=2.0, **d)


def test_gradient_of_the_dict_unpacked():
    x = np.array([0.3, -0.5])
    got = srcad.grad(through_dict)({"b": 3.0, "c": 0.2}, x)
    ref = autograd.grad(lambda b, c: model_ag(x, a=2.0, b=b, c=c), (0, 1))(3.0, 0.2)
    assert set(got) == {"b", "c"} and np.allclose([got["b"], got["c"]], ref)


def test_keyword_given_twice_is_pythons_type_error():
    x = np.array([0.3, -0.5])
    with pytest.raises(TypeError, match="multiple values for keyword argument 'a'"):
        srcad.grad(through_dict, wrt=1)({"a": 3.0}, x)
    with pytest.raises(TypeError, match="multiple values"):  # as Python itself
        through_dict({"a": 3.0}, x)


@pytest.mark.skipif(not LONG, reason="the long run")
def test_not_a_dict_and_two_unpackings_refused_at_the_line():
    x = np.array([0.3, -0.5])
    ordered = collections.OrderedDict(b=1.0)  # a dict: taken
    assert np.isfinite(srcad.grad(through_dict, wrt=1)(ordered, x)).all()
    with pytest.raises(SrcadError, match="not a dict") as err:
        srcad.grad(through_dict, wrt=1)(types.MappingProxyType({"b": 1.0}), x)
    assert err.value.lineno is not None

    def two(d, e, x):
        return model(x, **d, **e)
    with pytest.raises(SrcadError) as err:
        srcad.grad(two, wrt=2)({"b": 1.0}, {"c": 2.0}, x)
    assert err.value.lineno is not None


@pytest.mark.skipif(not LONG, reason="second order: the long run")
@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.__name__)
def test_keywords_beside_hessian_against_autograd(form):
    args = (np.array([0.3, 0.8]), 0.7, np.array([0.1, -0.4, 0.9]))
    assert np.allclose(srcad.hessian(form, wrt=0)(*args),
                       autograd.hessian(_reference(form.__name__), 0)(*args), rtol=1e-9,
                       atol=1e-12)
