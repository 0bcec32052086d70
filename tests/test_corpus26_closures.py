"""A function returning a closure may take ``*args``/``**kwargs`` that its closure does not read
(JAX's ``vmap(fun, in_axes=0, **kw)``, a decorator factory's options), or return the function
it is given itself (an identity decorator, ``jax.checkpoint``): the call of what it returns is
differentiated through (round 26 of the outside programs, tools/jax_programs.py).
A closure that reads them stays refused, with a hint naming them. Checked against central
differences and srcad's reference tape."""

import functools

import numpy as np
import pytest
from sampling import sample

import srcad
from srcad.errors import UnsupportedSyntaxError


def make_def(fun, *extra, **options):
    def made(x):
        return fun(x) * 2.0 + x
    return made


def make_lambda(c, *extra, **options):
    return lambda x: c * np.sin(x)


def make_star_inner(fun, in_axes=0, **options):
    def mapped(*args):
        outs = []
        for i in range(args[0].shape[0]):
            outs.append(fun(args[0][i]))
        return np.stack(outs)
    return mapped


def scaled(c, x):
    return c * np.tanh(x)


def make_partial(c, **options):
    return functools.partial(scaled, c)


def reads_options(fun, **options):
    def made(x):
        return fun(x) * options["scale"]
    return made


def reads_extra(fun, *extra):
    def made(x):
        return fun(x) + sum(extra)
    return made


def identity_decorator(fun, **options):
    return fun


def layer(W, x):
    return np.sin(W @ x)


def _square_sum(x):
    return np.sum(x ** 2)


FAMILY = {  # name: f(w, x), scalar-valued
    "def, extra positional": lambda w, x: np.sum(make_def(np.sin, 1, 2)(x * w)),
    "def, keywords": lambda w, x: np.sum(make_def(np.cos, scale=3, axis=0)(x) * w),
    "def, nothing extra": lambda w, x: np.sum(make_def(np.exp)(x * w)),
    "lambda, captured w": lambda w, x: np.sum(make_lambda(w, 4, name="a")(x)),
    "lambda, captured product": lambda w, x: np.sum(make_lambda(w * w, s=w)(x)),
    "inner *args, keywords": lambda w, x: np.sum(
        make_star_inner(_square_sum, in_axes=0, out_axes=0)(np.outer(x, x) * w)),
    "partial": lambda w, x: np.sum(make_partial(w, k=1)(x)),
    "identity decorator": lambda w, x: np.sum(identity_decorator(np.tanh, policy=None)(x * w)),
    "identity decorator, matrix": lambda w, x: np.sum(identity_decorator(layer)(
        np.outer(x[:2], x) * w, x)),
}


@pytest.mark.parametrize("name", sample(sorted(FAMILY), 4))
def test_closure_of_starred_maker_matches_differences_and_tape(name):
    f = FAMILY[name]
    w, x = 0.7, np.linspace(0.1, 1.0, 4)
    gw, gx = srcad.grad(f, wrt=(0, 1))(w, x)
    h = 1e-6
    assert np.isclose(gw, (f(w + h, x) - f(w - h, x)) / (2 * h), rtol=1e-5, atol=1e-7)
    d = np.cos(np.arange(4.0))
    fd = (f(w, x + h * d) - f(w, x - h * d)) / (2 * h)
    assert np.isclose(np.dot(gx, d), fd, rtol=1e-5, atol=1e-7)
    # the reference tape, a second engine, on the same function
    tw, tx = srcad.tape.grad(f, wrt=(0, 1))(w, x)
    assert np.isclose(gw, tw) and np.allclose(gx, tx)


@pytest.mark.parametrize("maker, starred", [(reads_options, "**options"),
                                            (reads_extra, "*extra")])
def test_closure_reading_starred_is_refused_with_the_name(maker, starred):
    def f(x):
        return np.sum(maker(np.sin, 1.0)(x)) if starred == "*extra" else np.sum(
            maker(np.sin, scale=2.0)(x))
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(np.ones(3))
    assert starred in str(info.value)
