"""Run a corpus function under PyTorch autograd: a second engine for the corpus gradients.

The function is run unchanged, on a copy of its globals in which the `math` module and every
function imported from it are replaced by torch-backed shims (and `float` by a version that
keeps the graph). The differentiated arguments are 0-d float64 tensors of a small subclass
whose `//`, `round` and `int` behave like Python's on floats (piecewise constant, zero
derivative) and whose augmented assignments do not write in place. Builtins `abs`, `min`,
`max`, `sum` and `pow` work on tensors as they are.
"""

import builtins
import math
import types

import numpy as np
import torch

__all__ = ["torch_grad", "torch_version"]


class _Tensor(torch.Tensor):
    """A tensor whose `//`, `round()`, `int()` and augmented assignment match Python floats'.

    Python floats are immutable, so `z = x; z += y` must not change `x`: the augmented
    operators build a new tensor instead of writing in place.
    """

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
        return torch.floor(self / other)

    def __rfloordiv__(self, other):
        return torch.floor(other / self)

    def __round__(self, ndigits=None):
        return round(_plain(self), ndigits)

    def __int__(self):
        return int(_plain(self))

    def __float__(self):
        # `math.tanh(x)` in code this runner did not patch (a method, a callee's callee)
        # would take a plain float and drop the gradient: an error, never a wrong number
        if self.requires_grad:
            raise TypeError("torch_runner: a value carrying a gradient was turned into a "
                            "Python float (math.* or float() in code it does not patch)")
        return builtins.float(_plain(self))


def _plain(x):
    """A Python number, detached from the graph (for piecewise-constant functions)."""
    return x.detach().item() if isinstance(x, torch.Tensor) else x


def _tensor(x):
    return x if isinstance(x, torch.Tensor) else torch.tensor(x, dtype=torch.float64)


def _any_tensor(*xs):
    return any(isinstance(x, torch.Tensor) for x in xs)


def _unary(math_fn, torch_fn):
    def shim(x):
        return torch_fn(x) if isinstance(x, torch.Tensor) else math_fn(x)

    shim.__name__ = math_fn.__name__
    return shim


def _binary(math_fn, torch_fn):
    def shim(x, y):
        if _any_tensor(x, y):
            return torch_fn(_tensor(x), _tensor(y))
        return math_fn(x, y)

    shim.__name__ = math_fn.__name__
    return shim


def _piecewise_constant(math_fn):
    def shim(x):
        return math_fn(_plain(x))

    shim.__name__ = math_fn.__name__
    return shim


def _log(x, base=None):
    if not _any_tensor(x, base):
        return math.log(x) if base is None else math.log(x, base)
    result = torch.log(_tensor(x))
    return result if base is None else result / torch.log(_tensor(base))


def _pow(x, y):
    return x**y if _any_tensor(x, y) else math.pow(x, y)


def _float(x):
    return x.to(torch.float64) if isinstance(x, torch.Tensor) else builtins.float(x)


def _unsupported(math_fn):
    def shim(*args):
        if _any_tensor(*args):
            raise TypeError(f"torch_runner has no torch version of math.{math_fn.__name__}")
        return math_fn(*args)

    shim.__name__ = math_fn.__name__
    return shim


_UNARY = {
    "sin": torch.sin, "cos": torch.cos, "tan": torch.tan,
    "asin": torch.asin, "acos": torch.acos, "atan": torch.atan,
    "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh,
    "asinh": torch.asinh, "acosh": torch.acosh, "atanh": torch.atanh,
    "exp": torch.exp, "expm1": torch.expm1,
    "log1p": torch.log1p, "log2": torch.log2, "log10": torch.log10,
    "sqrt": torch.sqrt, "erf": torch.erf, "erfc": torch.erfc, "fabs": torch.abs,
    "degrees": torch.rad2deg, "radians": torch.deg2rad,
}  # fmt: skip
_BINARY = {"atan2": torch.atan2, "hypot": torch.hypot, "copysign": torch.copysign,
           "fmod": torch.fmod}
_PIECEWISE_CONSTANT = ("floor", "ceil", "trunc")


def _make_math_shim():
    shim = types.ModuleType("math", "math with torch-backed functions, for torch_runner")
    for name, value in vars(math).items():
        if not name.startswith("_"):
            setattr(shim, name, _unsupported(value) if callable(value) else value)
    for name, fn in _UNARY.items():
        setattr(shim, name, _unary(getattr(math, name), fn))
    for name, fn in _BINARY.items():
        setattr(shim, name, _binary(getattr(math, name), fn))
    for name in _PIECEWISE_CONSTANT:
        setattr(shim, name, _piecewise_constant(getattr(math, name)))
    shim.log = _log
    shim.pow = _pow
    return shim


MATH = _make_math_shim()


def torch_version(f):
    """A copy of `f` whose `math` functions (module or imported names) and `float` use torch."""
    patched = dict(f.__globals__)
    for name, value in f.__globals__.items():
        if value is math:
            patched[name] = MATH
        elif callable(value) and getattr(math, getattr(value, "__name__", ""), None) is value:
            patched[name] = getattr(MATH, value.__name__)
    patched["float"] = _float
    g = types.FunctionType(f.__code__, patched, f.__name__, f.__defaults__, f.__closure__)
    g.__kwdefaults__ = f.__kwdefaults__
    return g


def torch_grad(f, args, wrt):
    """Value of `f(*args)` and its gradients with respect to the argument indices `wrt`.

    Returns `(value, grads)`: a float and a tuple with one gradient per index in `wrt`, a float
    for a scalar argument and an array for an array argument.
    """
    call_args = list(args)
    leaves = []
    for i in wrt:
        leaf = torch.tensor(np.asarray(args[i], dtype=float), requires_grad=True)
        leaves.append(leaf)
        call_args[i] = leaf.as_subclass(_Tensor)
    out = torch_version(f)(*call_args)
    if isinstance(out, torch.Tensor) and out.requires_grad:
        grads = torch.autograd.grad(out, leaves, allow_unused=True)
    else:
        grads = [None] * len(leaves)
    result = []
    for i, g in zip(wrt, grads, strict=True):
        g = np.zeros(np.shape(args[i])) if g is None else g.detach().numpy()
        result.append(float(g) if np.ndim(args[i]) == 0 else g)
    return float(_plain(out)), tuple(result)
