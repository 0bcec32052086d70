"""Forward-mode derivatives called inside differentiated code: ``srcad.jvp(f, (x, w), (t,))``
in a function that is itself differentiated, in reverse mode (``grad`` of code calling ``jvp``:
reverse over forward) or in forward mode (``jvp`` of it: forward over forward).

Lowering (:meth:`srcad.frontend.lower_derivatives.Derivatives.jvp_call`) reads such a call, whose
function and ``wrt`` are constants and whose primals and tangents are tuples written in the
call, as a call ``J(x, w, t)`` of a :class:`JvpOf`: an object made now, callable like
``srcad.jvp`` with the primals and tangents spread out, whose ``__srcad__`` gives the generated
forward-mode code it runs for the argument types met at run time. That code is plain Python,
so it is differentiated like the code of ``srcad.grad(f)`` called in code: split into forward
and backward parts by ``derivative_fwd``/``derivative_bwd`` in reverse mode, in forward mode by
``derivative_jvp``, and again to any order (``srcad.runtime.derivatives``).

Imports :mod:`srcad.api` (the forward-mode code cache), :mod:`srcad.pipeline` and
:mod:`srcad.specialise` (``plain_key``); :mod:`srcad.api` does not import this module: it
hands :func:`make_jvp_call` to the frontend through ``srcad.jvp.__srcad_call_maker__``.
"""

from __future__ import annotations

import inspect

import numpy as np

from . import api, pipeline
from .core import env
from .errors import SrcadError
from .rules.registry import registry
from .runtime.derivatives import made_function
from .specialise import plain_key


class JvpOf:
    """``srcad.jvp(f, primals, tangents, wrt=wrt)`` as one function of the primals and the
    tangents spread out: ``J(*primals, *tangents) == srcad.jvp(f, primals, tangents, wrt)``."""

    _mode = "jvp"  # srcad.core.functions.is_derivative: its generated code is differentiated

    def __init__(self, f, wrt, n):
        target, params, names = api._jvp_target(f, wrt, n)
        user = target.__srcad__._user if hasattr(target, "__srcad__") else target
        code = getattr(user, "__code__", None)
        if code is None or code.co_argcount != n or code.co_kwonlyargcount or \
                code.co_flags & 0x0C:
            raise SrcadError(
                f"srcad.jvp of {getattr(user, '__name__', user)!r} inside differentiated code "
                f"with {n} primals: srcad differentiates such a call when the primals are "
                "every parameter of the function, given positionally",
                hint="pass every parameter in the primals tuple (defaults included), or "
                "wrap the function in one taking exactly the primals")
        self._f, self._wrt, self._n = f, wrt, n
        self._target, self._params, self._names = target, list(params)[:n], tuple(names)
        taken = set(self._params)
        tangent_params = []
        for name in names:
            spelled = f"t_{name}"
            while spelled in taken:
                spelled += "_"
            taken.add(spelled)
            tangent_params.append(spelled)
        self._own = self._params + tangent_params  # the parameters of J
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        self.__signature__ = inspect.Signature([inspect.Parameter(p, kind) for p in self._own])
        self.__name__ = f"jvp_{getattr(user, '__name__', 'fn')}"
        self.__qualname__ = self.__name__
        self.__srcad__ = self
        self._splits = {}

    def __call__(self, *args):
        return api.jvp(self._f, args[:self._n], args[self._n:], wrt=self._wrt)

    def __repr__(self):
        return f"<srcad.jvp of {self._f!r}, wrt={self._wrt!r}, called in code>"

    # ------------------------------------------------------------ the code it runs

    def _code(self, args):
        """The generated forward-mode function for these arguments, and the names of its
        parameters in the order of :attr:`_own` (the primals', then the tangents')."""
        for name, tangent in zip(self._names, args[self._n:]):
            if tangent is None:  # as srcad.jvp called plainly refuses it
                raise SrcadError(f"the tangent for {name!r} is None",
                                 hint="pass zeros shaped like the value instead")
        fn, full = api._jvp_function(self._target, self._names, tuple(args[:self._n]))
        if len(full) != self._n or getattr(fn, "__srcad_source__", None) is None:
            raise SrcadError(f"{self!r}: its forward-mode code takes other arguments than "
                             "the call gives", hint="pass every parameter positionally")
        return fn, list(inspect.signature(fn).parameters)

    def _mapped(self, code_params, names):
        return [code_params[self._own.index(n)] for n in names]

    def split_call(self, wrt, args, kwargs):
        """The forward/backward pair of the forward-mode code for these arguments, with
        respect to the parameters ``wrt`` of ``J`` (``srcad.runtime.derivative_fwd``)."""
        _positional(kwargs)
        key = plain_key(args)
        if key is not None:
            key = (tuple(wrt), key)
            known = self._splits.get(key)
            if known is not None and not env.stale(known[1]):
                env.record_all(known[1])  # a derivative being made depends on them
                return known[0]
        code, params = self._code(args)
        entry = pipeline.CALLEES.split_call(code, self._mapped(params, wrt), args, {})
        if key is not None:  # kept while neither the code nor its split is made again
            self._splits[key] = (entry, tuple(code.__srcad_reads__) + tuple(entry.reads))
        return entry

    def tangent_call(self, wrt, args, kwargs, tangents):
        """``(value, tangent)`` of a call of ``J`` along ``tangents`` of its parameters
        ``wrt``: the forward mode of its forward-mode code (``derivative_jvp``)."""
        _positional(kwargs)
        code, params = self._code(args)
        return pipeline.CALLEES.tangent_call(code, self._mapped(params, wrt), args, {},
                                             tangents)

    def tangent_code(self, wrt, args):
        """The forward-mode function of the forward-mode code for these arguments, along the
        parameters ``wrt`` of ``J`` (the form of a ``derivative_jvp`` call of it)."""
        code, params = self._code(args)
        return pipeline.CALLEES.tangent_code(code, self._mapped(params, wrt), list(args))


def _positional(kwargs):
    if kwargs:
        raise SrcadError("a call of srcad.jvp's code with keyword arguments",
                         hint="pass the primals and tangents positionally")


def make_jvp_call(f, wrt, n):
    """The :class:`JvpOf` for ``srcad.jvp(f, <n primals>, tangents, wrt=wrt)`` called inside
    differentiated code (made while the caller is lowered)."""
    return JvpOf(f, wrt, n)


api.jvp.__srcad_call_maker__ = make_jvp_call


# ---------------------------------------------------------------- Jacobians and Hessians


def one_hot(x, j):
    """The ``j``-th basis array shaped like ``x`` (flat index): a Jacobian's ``j``-th input
    direction. Reads ``x`` for its shape only: no derivative."""
    out = np.zeros(np.shape(x))
    out.flat[j] = 1.0
    return out


def keys_of(x):
    """The keys of the dict ``x`` as a list (none for anything else): they carry no
    derivative, whatever srcad knows of ``x`` where it reads the code."""
    return list(x) if isinstance(x, dict) else []


def one_hot_at(x, key, j):
    """The dict shaped like the dict ``x``, zero but for the ``j``-th number of ``x[key]``:
    a Jacobian's input direction along a dict argument. Reads shapes only: no derivative."""
    return {k: one_hot(v, j) if k == key else np.zeros(np.shape(v)) for k, v in x.items()}


def is_number(x):
    """Whether ``x`` is a number (a Jacobian's input direction is then ``1.0``)."""
    return np.ndim(x) == 0 and not isinstance(x, np.ndarray)


def check_plain(x, column, where):
    """A Jacobian read as columns of ``srcad.jvp`` is one of arrays and numbers: a container
    or record argument or output (a Jacobian of pytrees) is refused, not mis-shaped."""
    for what, value in (("argument", x), ("output", column)):
        if not (isinstance(value, np.ndarray) or isinstance(value, (int, float, complex,
                                                                      np.number))):
            filename, line, name = where
            raise SrcadError(
                f"a Jacobian or Hessian of {name} differentiated (or called in differentiated "
                f"code) whose {what} is a {type(value).__name__}, not an array or a number",
                filename=filename, lineno=line, construct=f"srcad.jacobian({name})",
                hint="differentiate a function of arrays (flatten the container first), or "
                "call srcad.jacobian outside the code you differentiate")


registry.nondiff.update((one_hot, one_hot_at, keys_of, is_number, check_plain))


def _dict_lines(x, args, wrt):
    """The lines of a Jacobian with respect to a dict argument ``x`` (outside27; JAX's
    pytree of Jacobians, as :func:`srcad.jacobian` gives at top level): for each key, the
    columns along each number of ``x[k]`` (a tangent dict one-hot there, zero elsewhere),
    the output's shape and then the key's shape; each item (first) and the output an array
    or a number (checked, as below: a nested dict's one-hot tangents are not made here). The
    keys come from :func:`keys_of`, no derivative whatever ``x`` is."""
    k, j = "_srcad_k", "_srcad_j"
    return [
        f"if isinstance({x}, dict):",
        f"    for {k} in _srcad_keys({x}):",
        f"        _srcad_check({x}[{k}], 0.0, _srcad_where)",
        "    _srcad_out = {}",
        f"    for {k} in _srcad_keys({x}):",
        "        _srcad_cols = []",
        f"        for {j} in range(_srcad_np.size({x}[{k}])):",
        f"            _srcad_t = _srcad_one_hot_at({x}, {k}, {j})",
        f"            _srcad_cols.append(_srcad_jvp(_srcad_f, ({args}), (_srcad_t,), "
        f"wrt={wrt})[1])",
        "        _srcad_check(0.0, _srcad_cols[0], _srcad_where)",
        "        _srcad_jac = _srcad_np.stack(_srcad_cols, axis=-1)",
        f"        _srcad_out[{k}] = _srcad_np.reshape(_srcad_jac, _srcad_np.shape("
        f"_srcad_cols[0]) + _srcad_np.shape({x}[{k}]))",
        "    return _srcad_out",
    ]


def plain_jacobian(f, wrt):
    """A plain function with ``f``'s parameters that computes ``jacobian(f, wrt)`` column by
    column with ``srcad.jvp`` (output shape + input shape, as :func:`srcad.jacobian`): what
    srcad reads when a Jacobian (or a Hessian, the Jacobian of ``grad(f)``) is differentiated,
    or called inside differentiated code. ``None`` when ``f``'s parameters are not plain
    positional ones, or ``wrt`` is not one of them (then a refusal, as before)."""
    user = f.__srcad__._user if hasattr(f, "__srcad__") else f
    try:
        params = inspect.signature(user).parameters
    except (TypeError, ValueError):
        return None
    names = list(params)
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
           for p in params.values()) or any(n.startswith("_srcad") for n in names):
        return None
    if type(wrt) is str and wrt in names:
        wrt = names.index(wrt)
    if type(wrt) is not int or not 0 <= wrt < len(names):
        return None
    x, args = names[wrt], "".join(f"{n}, " for n in names)
    lines = _dict_lines(x, args, wrt) + [  # (a dict argument: its own lines, outside27)
        f"_srcad_check({x}, 0.0, _srcad_where)",
        f"if _srcad_is_number({x}):",
        f"    _srcad_col = _srcad_jvp(_srcad_f, ({args}), (1.0,), wrt={wrt})[1]",
        f"    _srcad_check({x}, _srcad_col, _srcad_where)",
        "    return _srcad_col",
        "_srcad_cols = []",
        f"for _srcad_j in range(_srcad_np.size({x})):",
        f"    _srcad_t = _srcad_one_hot({x}, _srcad_j)",
        f"    _srcad_cols.append(_srcad_jvp(_srcad_f, ({args}), (_srcad_t,), wrt={wrt})[1])",
        f"_srcad_check({x}, _srcad_cols[0], _srcad_where)",
        "_srcad_jac = _srcad_np.stack(_srcad_cols, axis=-1)",
        f"_srcad_shape = _srcad_np.shape(_srcad_cols[0]) + _srcad_np.shape({x})",
        "return _srcad_np.reshape(_srcad_jac, _srcad_shape)",
    ]
    name = f"jacobian_{getattr(user, '__name__', 'f')}".replace("<", "").replace(">", "")
    code = getattr(user, "__code__", None)
    where = (code.co_filename if code else None, code.co_firstlineno if code else None,
             getattr(user, "__qualname__", name))
    return made_function(name, names, lines, {
        "_srcad_is_number": is_number, "_srcad_jvp": api.jvp, "_srcad_f": f,
        "_srcad_np": np, "_srcad_one_hot": one_hot, "_srcad_check": check_plain,
        "_srcad_one_hot_at": one_hot_at, "_srcad_keys": keys_of,
        "_srcad_where": where})
