"""Run one plain function through every engine at hand and lay the answers side by side.

``compare(f, *args)`` computes the value of ``f`` at ``args`` and its gradient with

- **srcad**: the derivative generated from the source, built once and then called;
- **tape**: :mod:`srcad.tape`, which records a graph while ``f`` runs, on every call;
- **finite differences**: :func:`srcad.check.numerical_grad`;
- **torch** and **autograd**, when they are installed: the same function, unchanged, with its
  ``math`` and ``numpy`` names rebound (:func:`srcad.tape.rebind`) to versions that work on
  torch tensors or on autograd's traced values.

It returns a :class:`Comparison`: the values, the gradients, the largest absolute difference of
each engine's gradient from srcad's, and the time of the first call and of later calls. Printing
it gives a table; ``compare(..., show=True)`` prints it too.

    >>> def f(x, w):
    ...     a = x + w
    ...     b = w + 1
    ...     return a * b
    >>> c = compare(f, 2.0, 1.0, repeat=0, engines=("srcad", "tape"))
    >>> c.grads("srcad"), c.grads("tape"), c.agree
    ((2.0, 5.0), (2.0, 5.0), True)

The torch and autograd runs are a best effort: a ``math`` or ``numpy`` function they have no
counterpart for shows up as an error in that engine's row, never as a wrong number.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.util
import inspect
import math
import numbers
import time
import types
import warnings
from dataclasses import dataclass, field

import numpy as np

__all__ = ["ENGINES", "Comparison", "EngineResult", "compare"]

#: Every engine :func:`compare` knows, in the order of the table.
ENGINES = ("srcad", "tape", "finite differences", "torch", "autograd")

_TIME_BUDGET = 0.02  # seconds of repeated calls per engine when ``repeat`` is None


# ================================================================================================
# Results
# ================================================================================================


@dataclass
class EngineResult:
    """One engine's answer: ``value``, ``grads`` (one per ``wrt`` name), timings, or ``error``.

    ``first_call`` is the time of the first call, setup included (for srcad: reading, transforming
    and compiling the source); ``per_call`` the mean time of the calls after it (``None`` when
    not timed). ``max_diff`` is the largest absolute difference of the gradients from srcad's.
    """

    engine: str
    label: str
    value: object = None
    grads: tuple | None = None
    first_call: float | None = None
    per_call: float | None = None
    max_diff: float | None = None
    error: str | None = None

    @property
    def ok(self):
        return self.error is None


@dataclass
class Comparison:
    """The answers of several engines for ``function(*args)``; ``str()`` is a table."""

    function: str
    params: list
    args: tuple
    wrt: tuple
    results: list = field(default_factory=list)

    def __getitem__(self, engine):
        for r in self.results:
            if r.engine == engine:
                return r
        raise KeyError(f"no engine {engine!r} in this comparison; engines: {self.engines}")

    @property
    def engines(self):
        return [r.engine for r in self.results]

    def grads(self, engine):
        """The gradients computed by ``engine``, one per ``wrt`` name (a tuple)."""
        result = self[engine]
        if result.error:
            raise RuntimeError(f"{engine} failed: {result.error}")
        return result.grads

    def tolerance(self, engine):
        """The largest difference from srcad that still counts as agreement for ``engine``."""
        scale = max([1.0] + [float(np.max(np.abs(g))) for g in self["srcad"].grads or ()])
        return (1e-5 if engine == "finite differences" else 1e-9) * scale

    @property
    def disagreeing(self):
        """The engines that ran and whose gradient differs from srcad's beyond tolerance."""
        return [r.engine for r in self.results
                if r.max_diff is not None and r.max_diff > self.tolerance(r.engine)]

    @property
    def agree(self):
        """srcad ran, at least one other engine ran, and every engine that ran agrees with it."""
        others = [r for r in self.results if r.engine != "srcad" and r.ok]
        return self["srcad"].ok and bool(others) and not self.disagreeing

    def __str__(self):
        return _table(self)

    def __repr__(self):
        return f"<Comparison of {self.function} over {', '.join(self.engines)}>"


# ================================================================================================
# compare
# ================================================================================================


def compare(f, *args, wrt=None, repeat=None, engines=None, show=False):
    """Value and gradient of the scalar function ``f`` at ``args`` by every available engine.

    ``wrt`` is a parameter position or name or a tuple of them, as for :func:`srcad.grad`;
    ``None`` means every float argument (Python or NumPy float, or float array). ``repeat`` is
    the number of timed calls per engine after the first (``None``: as many as fit in about
    20 ms; ``0``: no timing). ``engines`` restricts the run to some of :data:`ENGINES` (srcad is
    always included: it is what the others are compared to). ``show=True`` prints the table.

    An engine that fails (a function torch has no counterpart for, a srcad error) gets an error
    in its row instead of numbers; ``compare`` itself raises only for bad arguments.
    """
    params = _params(f)
    names = _wrt_names(f, params, args, wrt)
    wanted = list(ENGINES) if engines is None else ["srcad", *engines]
    unknown = [e for e in wanted if e not in ENGINES]
    if unknown:
        raise ValueError(f"unknown engine(s) {unknown}; choose from {ENGINES}")
    comparison = Comparison(getattr(f, "__name__", repr(f)), params, args, names)
    for engine in ENGINES:
        if engine not in wanted:
            continue
        if engine in ("torch", "autograd") and importlib.util.find_spec(engine) is None:
            if engines is not None:
                comparison.results.append(
                    EngineResult(engine, engine, error=f"{engine} is not installed"))
            continue
        comparison.results.append(_run_engine(engine, f, args, names, params, repeat))
    _differences(comparison)
    if show:
        print(comparison)
    return comparison


def _params(f):
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        raise TypeError(f"compare needs a Python function, got {f!r}") from None
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in sig.parameters.values() if p.kind not in kinds]


def _is_float(x):
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "f"
    return isinstance(x, (float, np.floating))


def _wrt_names(f, params, args, wrt):
    if wrt is None:
        names = tuple(params[i] for i, x in enumerate(args[: len(params)]) if _is_float(x))
        if not names:
            raise ValueError(f"{getattr(f, '__name__', f)}: no float argument to differentiate; "
                             "pass wrt=")
        return names
    items = list(wrt) if isinstance(wrt, (tuple, list)) else [wrt]
    names = []
    for w in items:
        if isinstance(w, int) and not isinstance(w, bool) and -len(params) <= w < len(params):
            names.append(params[w])
        elif isinstance(w, str) and w in params:
            names.append(w)
        else:
            raise ValueError(f"wrt={w!r} names no parameter of {getattr(f, '__name__', f)}"
                             f"({', '.join(params)})")
    return tuple(names)


def _run_engine(engine, f, args, names, params, repeat):
    label = _label(engine)
    for module in _MODULES[engine]:  # importing is not part of the engine's first call
        importlib.import_module(module)
    start = time.perf_counter()
    try:
        run, finish = _FACTORIES[engine](f, names, params)
        raw = run(args)
        first = time.perf_counter() - start
        value, grads = _normalise(*finish(raw, args), args, params, names)
        per_call = _time(run, args, repeat)
    except Exception as exc:  # an engine's failure is a result, not a crash
        return EngineResult(engine, label, error=_one_line(exc))
    return EngineResult(engine, label, value, grads, first, per_call)


def _one_line(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def _time(run, args, repeat):
    if repeat == 0:
        return None
    if repeat is not None:
        start = time.perf_counter()
        for _ in range(repeat):
            run(args)
        return (time.perf_counter() - start) / repeat
    n, total, calls = 1, 0.0, 0
    while total < _TIME_BUDGET and calls < 1_000_000:
        start = time.perf_counter()
        for _ in range(n):
            run(args)
        total += time.perf_counter() - start
        calls += n
        n *= 2
    return total / calls


def _differences(comparison):
    ref = comparison["srcad"]
    if not ref.ok:
        return
    for r in comparison.results:
        if r.ok:
            r.max_diff = max(
                (float(np.max(np.abs(np.subtract(g, h)), initial=0.0))
                 for g, h in zip(r.grads, ref.grads)),
                default=0.0,
            )


def _label(engine):
    if engine in ("torch", "autograd"):
        try:
            module = __import__(engine)
            return f"{engine} {module.__version__.split('+')[0]}"
        except Exception:
            return engine
    return {"srcad": "srcad (generated)", "tape": "srcad.tape"}.get(engine, engine)


def _normalise(value, grads, args, params, names):
    """(float or array value, tuple of gradients shaped like their arguments)."""
    value = np.asarray(value, dtype=float)
    value = float(value) if value.ndim == 0 else value
    out = []
    for name, g in zip(names, grads):
        x = args[params.index(name)]
        g = np.zeros(np.shape(x)) if g is None else np.asarray(g, dtype=float)
        out.append(float(g) if np.ndim(x) == 0 else np.reshape(g, np.shape(x)))
    return value, tuple(out)


# ================================================================================================
# Engines: each factory returns (run, finish): run(args) is the engine's own work, the part
# that is timed; finish(run's result, args) gives (value, gradients) for _normalise.
# ================================================================================================


def _srcad(f, names, params):
    from .. import api

    single = len(names) == 1
    vg = api.value_and_grad(f, wrt=names[0] if single else names)

    def run(args):
        return vg(*args)

    def finish(raw, args):
        value, grads = raw
        return value, (grads,) if single else grads

    return run, finish


def _tape(f, names, params):
    from . import tape

    vg = tape.value_and_grad(f, wrt=names)

    def run(args):
        return vg(*args)

    def finish(raw, args):
        return raw

    return run, finish


def _finite_differences(f, names, params):
    from .check import numerical_grad

    positions = tuple(params.index(n) for n in names)

    def run(args):
        return numerical_grad(f, args, positions)

    def finish(raw, args):
        return f(*args), raw

    return run, finish


def _standin(real, convert):
    """A stand-in for the builtin type ``real`` in rebound code: ``convert(x)`` makes values.

    ``isinstance(x, real)`` keeps working in the rebound code (the class checks as ``real``).
    """

    class _Type(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, real)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, real)

    class Standin(real, metaclass=_Type):
        def __new__(cls, *args):
            return convert(*args)

    Standin.__name__ = Standin.__qualname__ = real.__name__
    return Standin


def _builtins(is_traced, plain_value):
    """Replacements of ``float``, ``int`` and ``round`` for traced values.

    ``float`` is the identity on a traced scalar (its derivative is 1, as srcad and the tape
    have it); ``int`` and ``round`` see plain values (piecewise constant).
    """

    def to_float(x=0.0):
        return x if is_traced(x) else builtins.float(x)

    def to_int(x=0, *base):
        return builtins.int(plain_value(x), *base)

    def rounded(x, ndigits=None):
        return builtins.round(plain_value(x), ndigits)

    return {
        builtins.float: _standin(builtins.float, to_float),
        builtins.int: _standin(builtins.int, to_int),
        builtins.round: rounded,
    }


def _dispatching(real, traced_fn, has_traced, plain_value):
    """``real`` on plain values, ``traced_fn`` when an argument is traced.

    ``traced_fn`` None: an error for traced arguments (a silent float conversion would drop the
    gradient). ``traced_fn`` "constant": ``real`` on the plain values (piecewise constant).
    """

    def shim(*args, **kwargs):
        if not any(has_traced(a) for a in (*args, *kwargs.values())):
            return real(*args, **kwargs)
        if traced_fn == "constant":
            return real(*map(plain_value, args), **kwargs)
        if traced_fn is None:
            raise NotImplementedError(f"no traced version of {_qualname(real)}")
        return traced_fn(*args, **kwargs)

    shim.__name__ = shim.__qualname__ = getattr(real, "__name__", "shim")
    return shim


def _qualname(fn):
    module = getattr(fn, "__module__", None) or "numpy"
    return f"{module.split('.')[0]}.{getattr(fn, '__name__', fn)}"


_PIECEWISE_CONSTANT = ("ceil", "floor", "trunc", "isnan", "isinf", "isfinite", "isclose",
                       "factorial", "comb", "perm", "gcd", "lcm", "isqrt")

# math name -> name of the same function in numpy/autograd.numpy or torch (None: not differentiable
# here). Both libraries spell the inverse trigonometric functions differently.
_MATH_NAMES = {
    "sin": ("sin", "sin"), "cos": ("cos", "cos"), "tan": ("tan", "tan"),
    "asin": ("arcsin", "asin"), "acos": ("arccos", "acos"), "atan": ("arctan", "atan"),
    "sinh": ("sinh", "sinh"), "cosh": ("cosh", "cosh"), "tanh": ("tanh", "tanh"),
    "asinh": ("arcsinh", "asinh"), "acosh": ("arccosh", "acosh"), "atanh": ("arctanh", "atanh"),
    "exp": ("exp", "exp"), "expm1": ("expm1", "expm1"), "log1p": ("log1p", "log1p"),
    "log2": ("log2", "log2"), "log10": ("log10", "log10"), "sqrt": ("sqrt", "sqrt"),
    "fabs": ("abs", "abs"), "atan2": ("arctan2", "atan2"), "hypot": ("hypot", "hypot"),
    "erf": (None, "erf"), "erfc": (None, "erfc"),
}  # fmt: skip


def _math_shim(name, lookup, has_traced, plain_value, to_traced=lambda x: x):
    """A module standing in for ``math`` whose functions dispatch to ``lookup(name)``."""
    shim = types.ModuleType("math", f"math for {name} (srcad.compare)")
    for attr, real in vars(math).items():
        if attr.startswith("_"):
            continue
        if not callable(real):
            setattr(shim, attr, real)
            continue
        if attr in _PIECEWISE_CONSTANT:
            traced = "constant"
        elif attr in _MATH_NAMES:
            fn = lookup(attr)
            traced = None if fn is None else (
                lambda *a, _fn=fn: _fn(*map(to_traced, a)))
        else:
            traced = None
        setattr(shim, attr, _dispatching(real, traced, has_traced, plain_value))

    ln = _dispatching(math.log, lambda x: lookup("log")(to_traced(x)), has_traced, plain_value)

    def log(x, base=None):
        return ln(x) if base is None else ln(x) / ln(base)

    def power(x, y):
        return x**y if has_traced(x) or has_traced(y) else math.pow(x, y)

    shim.log, shim.pow = log, power
    shim.degrees = lambda x: x * (180 / math.pi)
    shim.radians = lambda x: x * (math.pi / 180)
    return shim


def _replacements(real_module, shim, names):
    """{real module or function: its stand-in} for :func:`srcad.tape.rebind`."""
    out = {real_module: shim}
    for name in names:
        real = getattr(real_module, name, None)
        if real is not None and callable(real) and not isinstance(real, type):
            try:
                out[real] = getattr(shim, name)
            except (AttributeError, NotImplementedError):
                continue
    return out


# -- autograd -------------------------------------------------------------------------------------


def _autograd(f, names, params):
    import autograd
    import autograd.numpy as anp
    from autograd.tracer import getval, isbox

    from .tape import rebind

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

    return Value


def _torch(f, names, params):
    import torch

    from .tape import rebind

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


_MODULES = {
    "srcad": ("srcad",),
    "tape": ("srcad.tape",),
    "finite differences": ("srcad.check",),
    "torch": ("torch", "srcad.tape"),
    "autograd": ("autograd", "autograd.numpy", "srcad.tape"),
}

_FACTORIES = {
    "srcad": _srcad,
    "tape": _tape,
    "finite differences": _finite_differences,
    "torch": _torch,
    "autograd": _autograd,
}


# ================================================================================================
# The table
# ================================================================================================


def _fmt_number(x):
    if isinstance(x, np.ndarray):
        text = np.array2string(x, precision=6, separator=" ", threshold=6, edgeitems=2,
                               max_line_width=10**6)
        return " ".join(text.split())
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return repr(x)
    if isinstance(x, numbers.Integral):
        return str(int(x))
    x = float(x)
    if len(repr(x)) <= 12:
        return repr(x)
    text = f"{x:.10g}"
    return text if any(c in text for c in ".einf") else text + ".0"


def _fmt_time(seconds):
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"
    return "-"


def _fmt_diff(r, comparison):
    if r.engine == "srcad" or r.max_diff is None:
        return "-"
    text = "0" if r.max_diff == 0 else f"{r.max_diff:.1e}"
    return text + ("  DIFFERS" if r.engine in comparison.disagreeing else "")


def _table(c):
    call = ", ".join(f"{p}={_fmt_number(a)}" for p, a in zip(c.params, c.args))
    head = [f"{c.function}({call}), gradient with respect to {', '.join(c.wrt)}", ""]
    srcad_time = c["srcad"].per_call if c.results and c["srcad"].ok else None
    columns = ["engine", "value", *[f"d/d{n}" for n in c.wrt], "max |diff| to srcad",
               "first call", "per call", "vs srcad"]
    rows, errors = [], []
    for r in c.results:
        if not r.ok:
            errors.append(f"{r.label}: {r.error}")
            continue
        ratio = "-"
        if r.per_call and srcad_time:
            ratio = "1x" if r.engine == "srcad" else f"{r.per_call / srcad_time:.3g}x"
        rows.append([r.label, _fmt_number(r.value), *map(_fmt_number, r.grads),
                     _fmt_diff(r, c), _fmt_time(r.first_call), _fmt_time(r.per_call), ratio])
    widths = [max(len(str(x)) for x in col) for col in zip(columns, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip()
             for line in (columns, ["-" * w for w in widths], *rows)]
    lines += [f"{e}" for e in errors]
    if c.results and c["srcad"].ok:
        if c.agree:
            lines.append("")
            lines.append("every engine that ran agrees with srcad")
        elif c.disagreeing:
            lines.append("")
            lines.append(f"DISAGREE with srcad: {', '.join(c.disagreeing)}")
    return "\n".join(head + lines)
