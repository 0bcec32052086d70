"""autograd's internals that libraries built on autograd call, given in srcad's terms for the
example shim (``tools/example_shim.py``): ``vspace``, ``autograd.core``'s ``make_vjp`` and
``make_jvp`` (of a function of one argument, at a point: the core form, not the operators
of ``autograd.differential_operators``) and ``autograd.wrap_util.unary_to_nary``.

fancompute/ceviche builds its Jacobians from them (``vspace(ans).standard_basis()`` fed to a
vjp), matt-graham/mici its gradients (``vspace(val).ones()``). Nothing here differentiates:
every derivative is srcad's (``srcad.make_vjp``, ``srcad.make_jvp``), made for the program's
own function and the argument position it names.

Imports: numpy, srcad.
"""

from __future__ import annotations

import functools

import numpy as np

import srcad


class VSpace:
    """autograd's ``vspace(x)`` of a plain value (srcad has no boxes: every value is plain):
    its shape, size (of a complex space, its real dimensions, as autograd's), dtype, and the
    values of that space autograd's programs ask for."""

    def __init__(self, value):
        self.value = value
        array = np.asarray(value)
        self.shape, self.size, self.ndim, self.dtype = (array.shape, array.size, array.ndim,
                                                        array.dtype)
        self.iscomplex = np.iscomplexobj(array)
        if self.iscomplex:  # autograd counts a complex space's real dimensions
            self.size *= 2

    def _like(self, array):
        return array if isinstance(self.value, np.ndarray) else array[()]

    def zeros(self):
        return self._like(np.zeros(self.shape, self.dtype))

    def ones(self):  # of a complex space, 1 + 1j (autograd's: one in every real dimension)
        unit = (1 + 1j) if self.iscomplex else 1
        return self._like(np.full(self.shape, unit, self.dtype))

    def randn(self):
        draw = np.random.randn(*self.shape)
        if self.iscomplex:
            draw = draw + 1j * np.random.randn(*self.shape)
        return self._like(draw.astype(self.dtype))

    def standard_basis(self):
        """One unit value per item, in C order; for a complex space each item's real unit
        then its imaginary unit (the order autograd yields them in)."""
        units = (1.0, 1j) if self.iscomplex else (1.0,)
        for index in np.ndindex(*self.shape):
            for unit in units:
                basis = np.zeros(self.shape, self.dtype)
                basis[index] = unit
                yield self._like(basis)

    def __eq__(self, other):
        return (isinstance(other, VSpace) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return f"VSpace(shape={self.shape}, dtype={self.dtype})"


def vspace(value):
    return VSpace(value)


def _unary(fun, args, kwargs, argnum):
    """``fun`` as a function of the argument at ``argnum`` alone, the others ``args`` holds
    (a plain closure srcad reads, whatever the operator does with it), marked with where it
    comes from so that :func:`make_vjp` and :func:`make_jvp` differentiate ``fun`` itself."""
    before, after = tuple(args[:argnum]), tuple(args[argnum + 1:])
    if kwargs:
        def unary(x):
            return fun(*before, x, *after, **kwargs)
    else:
        def unary(x):
            return fun(*before, x, *after)
    functools.update_wrapper(unary, fun)
    unary.nary = (fun, tuple(args), kwargs, argnum)
    return unary


def unary_to_nary(unary_operator):
    """autograd's ``unary_to_nary``: ``op(fun, x, ...)`` written for a function of one
    argument becomes ``op(fun, argnum=0, ...)(*args, **kwargs)``, at ``args[argnum]``."""

    @functools.wraps(unary_operator)
    def nary_operator(fun, argnum=0, *op_args, **op_kwargs):
        if not isinstance(argnum, int):
            raise TypeError("unary_to_nary: one argument position (an int), as the shim "
                            "gives it")

        @functools.wraps(fun)
        def nary_f(*args, **kwargs):
            return unary_operator(_unary(fun, args, kwargs, argnum), args[argnum],
                                  *op_args, **op_kwargs)

        return nary_f

    return nary_operator


def _target(fun, x, made):
    """The function srcad differentiates, its arguments and the position: ``fun`` at ``x``,
    or the n-ary function ``unary_to_nary`` made ``fun`` of (at ``x`` in its place)."""
    nary = getattr(fun, "nary", None)
    if nary is not None:
        inner, args, kwargs, argnum = nary
        args = list(args)
        args[argnum] = x
        return made(inner), args, argnum, kwargs
    return made(fun), [x], 0, {}


def make_vjp(fun, x, made=lambda f: f):
    """``autograd.core.make_vjp(fun, x)``: ``(vjp, fun(x))``."""
    target, args, argnum, kwargs = _target(fun, x, made)
    if kwargs:
        target = functools.partial(target, **kwargs)
    pullback, value = srcad.make_vjp(target, argnum)(*args)
    return pullback, value


def make_jvp(fun, x, made=lambda f: f):
    """``autograd.core.make_jvp(fun, x)``: ``g -> (fun(x), J g)``."""
    target, args, argnum, kwargs = _target(fun, x, made)
    if kwargs:
        target = functools.partial(target, **kwargs)
    return srcad.make_jvp(target, argnum)(*args)
