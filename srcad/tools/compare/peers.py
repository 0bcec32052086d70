"""The torch and autograd engines: the same plain function, unchanged, with its ``math`` and
``numpy`` names rebound (:func:`srcad.tape.rebind`) to versions that work on torch tensors or
on autograd's traced values. A function they have no counterpart for raises, so it shows up as
an error in that engine's row, never as a wrong number.

Imports: NumPy, the standard library, :mod:`.stand_ins`, and when an engine runs, torch or
autograd and the tape's ``rebind``.
"""

from __future__ import annotations

import contextlib
import math
import types
import warnings

import numpy as np

from .stand_ins import _MATH_NAMES, _builtins, _math_shim, _replacements

# -- autograd -------------------------------------------------------------------------------------


def _autograd(f, names, params):
    import autograd
    import autograd.numpy as anp
    from autograd.tracer import getval, isbox

    from ..tape import rebind

    def lookup(name):
        np_name = {"log": ("log", None)}.get(name, _MATH_NAMES.get(name))[0]
        if np_name is None:
            try:  # needs scipy
                import autograd.scipy.special as special
            except ImportError:
                return None
            return getattr(special, name, None)
        return getattr(anp, np_name, None)

    math_shim = _math_shim("autograd", lookup, isbox, getval)
    public = [n for n in dir(np) if not n.startswith("_") and hasattr(anp, n)]
    replacements = {
        **_replacements(np, anp, public),
        **_replacements(math, math_shim, [n for n in dir(math) if not n.startswith("_")]),
        **_builtins(isbox, getval),
    }
    g = rebind(f, replacements)
    positions = tuple(params.index(n) for n in names)
    vg = autograd.value_and_grad(g, positions if len(positions) > 1 else positions[0])

    def run(args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Output seems independent of input"
            return vg(*args)

    def finish(raw, args):
        value, grads = raw
        return value, grads if len(positions) > 1 else (grads,)

    return run, finish


# -- torch ----------------------------------------------------------------------------------------

# numpy name -> (torch function name, how many leading positional arguments are arrays);
# keyword arguments are renamed by _TORCH_KWARGS.
_TORCH_NUMPY = {
    **{n: (n, 1) for n in ("sin cos tan sinh cosh tanh exp expm1 log log1p log2 log10 sqrt "
                           "square abs sign exp2 reciprocal floor ceil trunc round").split()},
    "arcsin": ("asin", 1), "arccos": ("acos", 1), "arctan": ("atan", 1),
    "arcsinh": ("asinh", 1), "arccosh": ("acosh", 1), "arctanh": ("atanh", 1),
    "absolute": ("abs", 1), "fabs": ("abs", 1), "negative": ("neg", 1),
    "add": ("add", 2), "subtract": ("sub", 2), "multiply": ("mul", 2), "divide": ("div", 2),
    "true_divide": ("div", 2), "power": ("pow", 2), "maximum": ("maximum", 2),
    "minimum": ("minimum", 2), "arctan2": ("atan2", 2), "hypot": ("hypot", 2),
    "mod": ("remainder", 2), "remainder": ("remainder", 2), "matmul": ("matmul", 2),
    "outer": ("outer", 2), "where": ("where", 3),
    "sum": ("sum", 1), "mean": ("mean", 1), "prod": ("prod", 1), "max": ("amax", 1),
    "amax": ("amax", 1), "min": ("amin", 1), "amin": ("amin", 1), "var": ("var", 1),
    "std": ("std", 1), "cumsum": ("cumsum", 1), "reshape": ("reshape", 1),
    "clip": ("clamp", 1), "diag": ("diag", 1), "trace": ("trace", 1),
    "zeros_like": ("zeros_like", 1), "ones_like": ("ones_like", 1),
}  # fmt: skip
_TORCH_KWARGS = {"axis": "dim", "keepdims": "keepdim", "a_min": "min", "a_max": "max",
                 "ddof": "correction"}
_TORCH_CREATE = ("zeros", "ones", "full", "eye", "arange", "linspace", "array", "asarray")


class _TorchNumpy(types.ModuleType):
    """``numpy`` for the torch run: functions given a tensor call their torch counterpart."""

    def __init__(self, torch):
        super().__init__("numpy", "numpy on torch tensors (srcad.compare)")
        self._torch = torch

    def __getattr__(self, name):
        real = getattr(np, name)
        if not callable(real) or isinstance(real, type):
            return real
        shim = self._function(name, real)
        setattr(self, name, shim)
        return shim

    def _function(self, name, real):
        torch = self._torch
        has = _has_tensor_fn(torch)

        if name in ("array", "asarray"):
            def create(obj, dtype=None, **_):
                return _to_tensor(torch, obj, dtype)
            return create
        if name in _TORCH_CREATE:
            def create_other(*args, **kwargs):
                out = real(*args, **kwargs)
                return torch.as_tensor(out)
            return create_other
        if name == "dot":
            def dot(a, b):
                a, b = _to_tensor(torch, a), _to_tensor(torch, b)
                if a.ndim == 0 or b.ndim == 0:
                    return a * b
                return torch.dot(a, b) if a.ndim == b.ndim == 1 else torch.matmul(a, b)
            return dot
        if name in ("stack", "concatenate"):
            op = torch.stack if name == "stack" else torch.cat

            def join(arrays, axis=0):
                return op([_to_tensor(torch, a) for a in arrays], dim=axis)
            return join
        if name == "transpose":
            def transpose(a, axes=None):
                a = _to_tensor(torch, a)
                return a.permute(*(axes or reversed(range(a.ndim))))
            return transpose
        entry = _TORCH_NUMPY.get(name)
        target = getattr(torch, entry[0], None) if entry else None

        def call(*args, **kwargs):
            if not any(has(a) for a in (*args, *kwargs.values())):
                return real(*args, **kwargs)
            if target is None:
                raise NotImplementedError(f"no torch counterpart for numpy.{name}")
            n = entry[1]
            args = [_to_tensor(torch, a) for a in args[:n]] + list(args[n:])
            kwargs = {_TORCH_KWARGS.get(k, k): v for k, v in kwargs.items()}
            if kwargs.get("dim", 0) is None:
                del kwargs["dim"]
            if name in ("var", "std"):
                kwargs.setdefault("correction", 0)
            return target(*args, **kwargs)

        call.__name__ = call.__qualname__ = name
        return call


def _has_tensor_fn(torch):
    def has(x):
        if isinstance(x, (list, tuple)):
            return any(has(item) for item in x)
        return isinstance(x, torch.Tensor)

    return has


def _to_tensor(torch, x, dtype=None):
    """A tensor for a number or array (floats as float64, integers kept: they may index),
    stacking lists that hold tensors."""
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, (list, tuple)) and _has_tensor_fn(torch)(x):
        return torch.stack([_to_tensor(torch, item) for item in x])
    return torch.as_tensor(np.asarray(x, dtype=dtype))


def _torch_value_class(torch):
    """Tensors that behave like Python floats where torch differs.

    Python numbers are immutable, so ``z = x; z += y`` must not change ``x``: augmented
    assignment builds a new tensor. ``//`` is piecewise constant (zero derivative), as for floats.
    """

    class Value(torch.Tensor):
        def __iadd__(self, other):
            return self + other

        def __isub__(self, other):
            return self - other

        def __imul__(self, other):
            return self * other

        def __itruediv__(self, other):
            return self / other

        def __ipow__(self, other):
            return self**other

        def __imod__(self, other):
            return self % other

        def __ifloordiv__(self, other):
            return self // other

        def __floordiv__(self, other):
            return torch.floor(self / other).detach()

        def __rfloordiv__(self, other):
            return torch.floor(other / self).detach()

        def __float__(self):
            # ``math.tanh(x)`` in code not patched (a method) would drop the gradient
            if self.requires_grad:
                raise TypeError("a value carrying a gradient was turned into a Python float "
                                "(math.* or float() in code the torch engine does not patch)")
            return float(self.detach().item())

    return Value


def _torch(f, names, params):
    import torch

    from ..tape import rebind

    is_tensor = _has_tensor_fn(torch)

    def plain(x):
        return x.detach().item() if isinstance(x, torch.Tensor) else x

    def lookup(name):
        torch_name = "log" if name == "log" else _MATH_NAMES[name][1]
        return getattr(torch, torch_name)

    math_shim = _math_shim("torch", lookup, is_tensor, plain,
                           to_traced=lambda x: _to_tensor(torch, x))
    numpy_shim = _TorchNumpy(torch)
    public = [n for n in dir(np) if not n.startswith("_")]
    replacements = {
        **_replacements(np, numpy_shim, public),
        **_replacements(math, math_shim, [n for n in dir(math) if not n.startswith("_")]),
        **_builtins(lambda x: isinstance(x, torch.Tensor) and x.ndim == 0, plain),
    }
    g = rebind(f, replacements)
    value_class = _torch_value_class(torch)
    positions = [params.index(n) for n in names]

    def run(args):
        with _default_dtype(torch):
            leaves, call_args = [], list(args)
            for p in positions:
                leaf = torch.tensor(np.asarray(args[p], dtype=float), requires_grad=True)
                leaves.append(leaf)
                call_args[p] = leaf.as_subclass(value_class)
            for i, a in enumerate(call_args):
                if i not in positions and isinstance(a, np.ndarray) and a.dtype.kind == "f":
                    call_args[i] = torch.as_tensor(a)
            out = g(*call_args)
            if isinstance(out, torch.Tensor) and out.requires_grad:
                grads = torch.autograd.grad(out, leaves, allow_unused=True)
            else:
                grads = [None] * len(leaves)
        return out, grads

    def finish(raw, args):
        out, grads = raw
        grads = [None if gr is None else gr.detach().numpy() for gr in grads]
        return (out.detach().numpy() if isinstance(out, torch.Tensor) else out), grads

    return run, finish


@contextlib.contextmanager
def _default_dtype(torch):
    """float64 by default while the function runs, as NumPy and Python floats are."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


