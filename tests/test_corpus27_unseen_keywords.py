"""Round 27: ``f(x, **kw)`` with ``kw`` a dict that is not a display built in the function:
the ``**kwargs`` of an enclosing function read by a closure (dtak/rrr's
``input_gradients(params, **input_grad_kwargs)`` inside the objective it differentiates), a
global dict, a dict argument. Refused before ("keyword unpacking (**kw) of a dict srcad cannot
see whole"). A closure or global dict has its keys spliced as keywords (``scale=kw['scale']``),
the code made again when its items change; a dict argument makes the call
:func:`srcad.runtime.spread_calls.star_call`'s, made for the keywords met when it runs (as
``f(*t)`` of a length srcad cannot know), gradients through the positional arguments and
through the dict's values. Checked against central differences and autograd.
"""

import autograd
import numpy as np
import pytest

import srcad
from srcad.tools.check import numerical_grad
from tests.sampling import sample


def helper(w, x, scale=1.0, power=2):
    return scale * np.sum(np.sin(w * x) ** power)


def make(**opts):  # a closure reading its maker's **kwargs (rrr's fit)
    def loss(w, x):
        return helper(w, x, **opts) + np.sum(w ** 2)
    return loss


KW = {"scale": 3.0}


def loss_global(w, x):
    return helper(w, x, **KW)


def loss_param(w, x, kw):
    return helper(w, x, **kw) * np.sum(x)


def loss_all_keywords(w, kw):  # every argument through the dict, w among its values
    return helper(**kw) * np.sum(w)


def loss_dict_values(kw, w):  # the gradient w.r.t. a dict: through its values
    return helper(w, **kw)


def loss_mixed(kw, w):  # keywords beside **kw, a gradient through kw (corpus28: merged)
    return helper(w=w, **kw)


W, X = np.array([0.3, -1.2, 0.7]), np.array([1.1, 0.4, -0.6])
CASES = [
    ("closure", make(scale=2.0, power=3), (W, X), 0),
    ("closure, no keywords", make(), (W, X), 1),
    ("global", loss_global, (W, X), 0),
    ("argument", loss_param, (W, X, {"power": 3}), 1),
    ("every argument", loss_all_keywords, (W, {"w": W, "x": X, "scale": 0.5}), 0),
]


@pytest.mark.parametrize("case", sample(CASES, 2), ids=lambda c: c[0])
def test_unseen_keywords_against_differences_and_autograd(case):
    _, loss, args, wrt = case
    got = srcad.grad(loss, wrt=wrt)(*args)
    assert np.allclose(got, numerical_grad(loss, args, wrt=wrt), rtol=1e-5, atol=1e-7)
    assert np.allclose(got, autograd.grad(loss, wrt)(*args), rtol=1e-10, atol=1e-12)


def test_gradient_through_the_dict_values():
    kw = {"x": X, "scale": 1.5}
    for loss in (loss_dict_values, loss_mixed):
        got = srcad.grad(loss)(kw, W)
        expected = autograd.grad(loss)(kw, W)
        assert set(got) == set(kw)
        for key in kw:
            assert np.allclose(got[key], expected[key], rtol=1e-10, atol=1e-12)
    step = 1e-6
    for key, value in (("x", X), ("scale", 1.5)):
        for k in range(np.size(value)):
            e = np.zeros(np.size(value))
            e[k] = step
            up = dict(kw, **{key: value + (e if np.ndim(value) else e[0])})
            down = dict(kw, **{key: value - (e if np.ndim(value) else e[0])})
            fd = (loss_dict_values(up, W) - loss_dict_values(down, W)) / (2 * step)
            assert np.isclose(np.ravel(got[key])[k], fd, rtol=1e-5, atol=1e-7)


def test_global_dict_changed_makes_the_code_again():
    df = srcad.grad(loss_global)
    before = df(W, X)
    KW["power"] = 3
    try:
        after = df(W, X)
        assert np.allclose(after, autograd.grad(loss_global)(W, X), rtol=1e-10, atol=1e-12)
        assert not np.allclose(after, before)
    finally:
        del KW["power"]
    assert np.allclose(df(W, X), before)
