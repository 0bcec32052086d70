"""The worker side of ``tools/autograd_suite.py``: autograd's test modules, run with srcad.

Installs an import hook under which ``autograd.numpy``, ``autograd.numpy.random``,
``autograd.scipy...`` are the real NumPy and SciPy modules, and ``autograd``'s differential
operators and ``autograd.test_util`` are the stand-ins below, built on srcad's API. Autograd's
internals (boxes, tracers, vspaces, ``primitive``) are placeholders that mark the test SKIP when
used; operators srcad has no counterpart for mark it UNSUPPORTED-API.

``check_grads`` is replaced by a checker that asks srcad for derivatives (reverse: ``vjp``;
forward: ``jvp``; order 2: ``vjp``/``jvp`` of ``srcad.grad`` of the function, dotted with a
random cotangent when it is not a scalar) and compares them, along random directions, with
central finite differences of the original function, never with srcad itself.

Every check is an item; ``combo_check``'s combinations are items of their own. Items are
printed as JSON lines prefixed ``@@ITEM`` for the driver.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import importlib.abc
import importlib.machinery
import itertools
import json
import keyword
import operator
import os
import shutil
import sys
import tempfile
import traceback
import types

import numpy as np

import srcad

SRCAD_DIR = os.path.dirname(os.path.abspath(srcad.__file__))
TOL = 1e-6  # autograd.test_util's TOL and RTOL
RTOL = 1e-6
TOL2 = 1e-5  # second derivatives: finite differences of finite differences are less exact


# --- outcomes ---------------------------------------------------------------------------------


class HarnessSkip(Exception):
    """The test exercises autograd internals (boxes, tracers, vspaces, primitive, ...)."""


class HarnessUnsupported(Exception):
    """The test calls an autograd operator that srcad has no counterpart for."""


class Wrong(AssertionError):
    """srcad returned a derivative or value that disagrees with finite differences."""

    def __init__(self, message, detail=None):
        super().__init__(message)
        self.detail = detail or {}


class Stop(Exception):
    """Ends a test after a check failed (like the failing assert would under pytest)."""

    def __init__(self, outcome):
        super().__init__(outcome["outcome"])
        self.outcome = outcome


def _from_srcad(tb):
    for frame, _ in traceback.walk_tb(tb):
        name = frame.f_code.co_filename
        if name.startswith(SRCAD_DIR) or name.startswith("<srcad"):
            return True
    return False


def _deepest(tb):
    where = None
    for frame, lineno in traceback.walk_tb(tb):
        where = f"{os.path.basename(frame.f_code.co_filename)}:{lineno}"
    return where


def classify(exc):
    """The outcome of an exception raised while running a check or a test."""
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    out = {"exception": type(exc).__name__, "message": first, "where": _deepest(exc.__traceback__)}
    if isinstance(exc, HarnessSkip):
        out["outcome"] = "SKIP"
    elif isinstance(exc, HarnessUnsupported):
        out["outcome"] = "UNSUPPORTED-API"
    elif isinstance(exc, srcad.SrcadError):
        out["outcome"] = "REFUSED"
        out["error_class"] = type(exc).__name__
        out["lineno"] = getattr(exc, "lineno", None)
    elif isinstance(exc, Wrong):
        out["outcome"] = "WRONG"
        out.update(exc.detail)
    elif _from_srcad(exc.__traceback__):
        out["outcome"] = "CRASH"
    elif isinstance(exc, AssertionError):
        out["outcome"] = "WRONG"  # the test's own assert on a value srcad computed
    else:
        out["outcome"] = "ERROR"  # raised by the test code itself, outside srcad
    return out


class Recorder:
    """Collects the items of the test that is running and prints each as a JSON line."""

    def __init__(self, test_id, stream):
        self.test_id = test_id
        self.stream = stream
        self.combo_items = 0
        self.checks = 0
        self.uses = 0
        self.stages = []  # one "fwd:PASS rev:..." string per check_grads call
        self.notes = []

    def emit(self, name, outcome):
        record = {"item": name, **outcome}
        if self.notes and "note" not in record:
            record["note"] = "; ".join(dict.fromkeys(self.notes))
        self.stream.write("@@ITEM " + json.dumps(record, default=str) + "\n")
        self.stream.flush()


RECORDER = None
IN_COMBO = [False]


# --- placeholders for autograd internals and unsupported operators ----------------------------


class Internal:
    """Stands for an autograd internal; any real use of it marks the test SKIP."""

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def _skip(self, *args, **kwargs):
        raise HarnessSkip(f"uses autograd internal {self._name}")

    def __call__(self, *args, **kwargs):
        return Internal(f"{self._name}(...)")  # decorators at module level must not fail

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Internal(f"{self._name}.{attr}")

    __bool__ = __iter__ = __len__ = __array__ = __float__ = __index__ = _skip
    __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = __truediv__ = _skip
    __getitem__ = __setattr__ = __eq__ = _skip
    __hash__ = object.__hash__

    def __array_ufunc__(self, *args, **kwargs):
        self._skip()

    __array_function__ = __array_ufunc__


def _unsupported(name):
    def operator_(*args, **kwargs):
        raise HarnessUnsupported(f"autograd.{name} has no srcad counterpart")

    operator_.__name__ = name
    return operator_


def _reject_internal(fun):
    if isinstance(fun, Internal):
        fun._skip()


# --- wrappers: a Python function srcad can read, around any callable --------------------------

_WRAPPER_DIR = []


def _wrapper_dir():
    """Where generated wrappers are written: under the driver's temporary directory, or a
    directory of this process's own, removed when it exits."""
    if not _WRAPPER_DIR:
        parent = os.environ.get("AUTOGRAD_SUITE_TMP")
        _WRAPPER_DIR.append(tempfile.mkdtemp(prefix="wrappers-", dir=parent))
        if parent is None:
            atexit.register(shutil.rmtree, _WRAPPER_DIR[0], True)
    return _WRAPPER_DIR[0]
_counter = itertools.count()

_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
           operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
           operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=",
           operator.gt: ">", operator.ge: ">="}
_UNARY = {operator.neg: "-", operator.pos: "+"}


def _modules():
    mods = [("np", np), ("np.linalg", np.linalg), ("np.fft", np.fft), ("np.random", np.random)]
    for name in ("scipy.special", "scipy.linalg", "scipy.signal", "scipy.stats",
                 "scipy.integrate", "scipy.misc"):
        if name in sys.modules:
            mods.append((name, sys.modules[name]))
    return mods


def _dotted(fun):
    """``np.sin`` for numpy.sin, ``scipy.stats.norm.pdf`` for that bound method; or None."""
    for text, mod in _modules():
        for attr, value in vars(mod).items():
            if value is fun and not attr.startswith("_"):
                return f"{text}.{attr}"
    owner = getattr(fun, "__self__", None)
    if owner is not None and not isinstance(owner, types.ModuleType):
        for text, mod in _modules():
            for attr, value in vars(mod).items():
                if value is owner and not attr.startswith("_"):
                    return f"{text}.{attr}.{fun.__name__}"
    return None


def _literal(value):
    """Source text for a constant that reads back as itself, or None."""
    if isinstance(value, (bool, int, float, str, type(None))) and type(value) in (
            bool, int, float, str, type(None)):
        text = repr(value)
        if text in ("nan", "inf", "-inf"):
            return None
        return text
    if isinstance(value, (tuple, list)) and type(value) in (tuple, list):
        parts = [_literal(v) for v in value]
        if None in parts:
            return None
        if isinstance(value, tuple):
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        return "[" + ", ".join(parts) + "]"
    return None


def _safe(name):
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in str(name)) or "f"
    if name[0].isdigit() or keyword.iskeyword(name):
        name = "f_" + name
    return name


class Wrapper:
    """A generated, readable function ``def NAME(x0, ..., xn): return CALLEE(x0, ..., **kw)``."""

    def __init__(self, fun, nargs, kwargs):
        self.namespace = {"np": np}
        if "scipy" in sys.modules:
            self.namespace["scipy"] = sys.modules["scipy"]
        extra = []
        while isinstance(fun, functools.partial):
            extra = list(fun.args) + extra
            kwargs = {**fun.keywords, **kwargs}
            fun = fun.func
        self.fun = fun
        self.name = _safe(getattr(fun, "__name__", "f"))
        constants = [self._constant(v, f"c{i}") for i, v in enumerate(extra)]
        params = [f"x{i}" for i in range(nargs)]
        keywords = [f"{k}={self._constant(v, k)}" for k, v in kwargs.items()]
        arguments = constants + params
        if fun in _BINARY and len(arguments) == 2 and not keywords:
            self.expr = f"{arguments[0]} {_BINARY[fun]} {arguments[1]}"
        elif fun in _UNARY and len(arguments) == 1 and not keywords:
            self.expr = f"{_UNARY[fun]}{arguments[0]}"
        elif fun is operator.abs and len(arguments) == 1 and not keywords:
            self.expr = f"abs({arguments[0]})"
        else:
            callee = _dotted(fun)
            if callee is None:
                callee = f"f_{self.name}"
                self.namespace[callee] = fun
            self.expr = f"{callee}({', '.join(arguments + keywords)})"
        self.params = params

    def _constant(self, value, hint):
        text = _literal(value)
        if text is not None:
            return text
        name = f"k_{_safe(hint)}"
        self.namespace[name] = value
        return name

    def function(self, body=None, name=None, extra=None):
        """Compile ``def name(x0, ...): <body>`` (default: ``return <expr>``) from a real file."""
        name = name or f"{self.name}_w"
        body = body or [f"return {self.expr}"]
        text = f"def {name}({', '.join(self.params)}):\n" + "".join(
            f"    {line}\n" for line in body)
        namespace = dict(self.namespace)
        namespace.update(extra or {})
        return compile_text(text, name, namespace)


def compile_text(text, name, namespace):
    path = os.path.join(_wrapper_dir(), f"{name}_{next(_counter)}.py")
    with open(path, "w") as f:
        f.write(text)
    exec(compile(text, path, "exec"), namespace)
    fn = namespace[name]
    fn.__srcad_suite_source__ = text
    return fn


def _is_plain(fun):
    return isinstance(fun, types.FunctionType)


NAME_LAMBDAS = os.environ.get("AUTOGRAD_SUITE_NAME_LAMBDAS") == "1"


def readable(fun, nargs, kwargs=None):
    """``fun`` itself if srcad can read it and no keywords are bound, else a Wrapper function.

    With ``--name-lambdas`` a lambda is given the name ``lambda_`` first (a work-around for
    srcad's dispatcher, which writes ``def <lambda>(...)``), to see what lies behind that crash.
    """
    _reject_internal(fun)
    if NAME_LAMBDAS and _is_plain(fun) and fun.__name__ == "<lambda>":
        fun.__name__ = "lambda_"
        if RECORDER is not None:
            RECORDER.notes.append("lambda renamed")
    if _is_plain(fun) and not kwargs:
        return fun
    return Wrapper(fun, nargs, kwargs or {}).function()


# --- vector-space helpers (trees of arrays, like autograd's vspaces) ---------------------------


def leaves(x):
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in leaves(item)]
    if isinstance(x, dict):
        return [leaf for k in sorted(x, key=repr) for leaf in leaves(x[k])]
    return [x]


def rebuild(x, values):
    it = iter(values)

    def go(t):
        if isinstance(t, (list, tuple)):
            items = [go(i) for i in t]
            return type(t)(items) if not hasattr(t, "_fields") else type(t)(*items)
        if isinstance(t, dict):
            out = dict(t)
            for k in sorted(t, key=repr):
                out[k] = go(t[k])
            return out
        return next(it)

    return go(x)


def _is_complex(v):
    return np.iscomplexobj(v)


def randn_like(x, rng):
    out = []
    for leaf in leaves(x):
        shape = np.shape(leaf)
        v = rng.standard_normal(shape)
        if _is_complex(leaf):
            v = v + 1j * rng.standard_normal(shape)
        out.append(v if shape else v.item())
    return rebuild(x, out)


def axpy(a, v, x):
    """x + a * v, leaf by leaf, keeping Python scalars Python scalars."""
    out = []
    for lx, lv in zip(leaves(x), leaves(v)):
        r = lx + a * lv
        if not np.shape(lx) and isinstance(lx, (float, int, complex)) and not isinstance(lx, bool):
            r = complex(r) if _is_complex(r) else float(r)
        out.append(r)
    return rebuild(x, out)


def inner(a, b):
    """Re <a, b> with conjugation of a, over all leaves."""
    total = 0.0
    for la, lb in zip(leaves(a), leaves(b)):
        total += float(np.real(np.sum(np.conj(np.asarray(la)) * np.asarray(lb))))
    return total


def pairing(a, b):
    """Re sum(a * b), without conjugation: how a gradient ``b`` (JAX's and autograd's
    convention: ``df/dx - 1j df/dy`` for a complex argument) acts on a direction ``a``, so the
    second derivative along ``a`` and ``w`` is ``pairing(a, vjp(grad)(w))``. The same as
    :func:`inner` for real values."""
    total = 0.0
    for la, lb in zip(leaves(a), leaves(b)):
        total += float(np.real(np.sum(np.asarray(la) * np.asarray(lb))))
    return total


def flat(y):
    return np.concatenate([np.ravel(np.asarray(leaf)).astype(complex) for leaf in leaves(y)]) \
        if leaves(y) else np.zeros(0)


def close(a, b, tol=TOL, rtol=RTOL):
    d = abs(a - b)
    return d < tol or d / max(abs(a + b), 1e-300) < rtol


# --- finite differences of the original function ----------------------------------------------


def _fd_directional(phi, eps, richardson=True):
    if richardson:
        wide = (phi(eps) - phi(-eps)) / (2 * eps)
        narrow = (phi(eps / 2) - phi(-eps / 2)) / eps
        return (4 * narrow - wide) / 3
    return (phi(eps / 2) - phi(-eps / 2)) / eps


def numeric_jvp(call, x, v, eps, richardson=True):
    """(call(x + t v))'(0) as a flat complex vector."""
    return _fd_directional(lambda t: flat(call(axpy(t, v, x))), eps, richardson)


def numeric_second(scalar, x, a, b, h, richardson=True):
    """d^2/ds dt scalar(x + s a + t b) at 0, by mixed central differences."""

    def mixed(h):
        def g(s, t):
            return float(np.real(scalar(axpy(t, b, axpy(s, a, x)))))

        return (g(h, h) - g(h, -h) - g(-h, h) + g(-h, -h)) / (4 * h * h)

    if richardson:
        return (4 * mixed(h / 2) - mixed(h)) / 3
    return mixed(h)


# --- check_grads ------------------------------------------------------------------------------


def _argnums(argnum):
    return (argnum,) if isinstance(argnum, int) else tuple(argnum)


def _describe(args, kwargs):
    def one(v):
        if isinstance(v, (list, tuple, dict)):
            inner_ = ",".join(one(i) for i in (v.values() if isinstance(v, dict) else v))
            return f"{type(v).__name__}[{inner_}]"
        kind = "c" if _is_complex(v) else ("i" if np.issubdtype(np.asarray(v).dtype, np.integer)
                                           else "f")
        if isinstance(v, (float, int, complex)) and not isinstance(v, bool):
            return f"{kind}:py"
        shape = np.shape(v)
        return f"{kind}{shape}" if shape or isinstance(v, np.ndarray) else f"{kind}:np"
    text = ", ".join(one(a) for a in args)
    if kwargs:
        text += "; " + ", ".join(f"{k}={v!r}" if _literal(v) is not None else f"{k}={one(v)}"
                                 for k, v in kwargs.items())
    return text


def _rng():
    return np.random.default_rng(12345)


def _shape_check(what, got, like):
    gl, ll = leaves(got), leaves(like)
    if len(gl) != len(ll):
        raise Wrong(f"{what}: {len(gl)} parts, expected {len(ll)}", {"check": what})
    for g, x in zip(gl, ll):
        if np.shape(g) != np.shape(x):
            raise Wrong(f"{what}: shape {np.shape(g)}, expected {np.shape(x)}", {"check": what})
        if _is_complex(g) and not _is_complex(x) and np.any(np.imag(g) != 0):
            raise Wrong(f"{what}: complex result for a real argument", {"check": what})


def _compare(what, exact, numeric_fns, tol, rtol):
    """``exact`` against finite-difference estimates at several steps.

    Agreement with any estimate passes. WRONG needs two estimates that agree with each other
    and not with srcad: estimates that scatter (a kink or a domain edge within the step) are
    no evidence either way, and the item passes with a note.
    """
    estimates = []
    for fn in numeric_fns:
        try:
            with np.errstate(all="ignore"):
                n = float(fn())
        except (FloatingPointError, ValueError, ZeroDivisionError, OverflowError):
            continue
        if not np.isfinite(n):
            continue
        if np.isfinite(exact) and close(exact, n, tol, rtol):
            return
        estimates.append(n)
    agreeing = [a for a, b in itertools.combinations(estimates, 2) if close(a, b, tol, rtol)]
    if not agreeing:
        if RECORDER is not None:
            RECORDER.notes.append(f"{what}: finite differences inconclusive {estimates!r}, "
                                  f"srcad {exact!r}")
        return
    raise Wrong(f"{what}: srcad {exact!r} vs finite differences {agreeing[0]!r}",
                {"check": what, "srcad": exact, "numeric": agreeing[0]})


def run_check(fun, argnum, args, kwargs, modes, order):
    _reject_internal(fun)
    modes = ["fwd", "rev"] if modes is None else list(modes)
    nums = _argnums(argnum)
    target = readable(fun, len(args), kwargs)
    try:
        y = target(*args)
    except Exception as e:  # the original function fails: not srcad's doing, unless it is
        if isinstance(e, srcad.SrcadError) or _from_srcad(e.__traceback__):  # srcad's output
            raise
        raise RuntimeError(
            f"the function fails when called plainly: {type(e).__name__}: {e}") from None
    xs = tuple(args[i] for i in nums)

    def call_with(xs_new, f=target):
        new = list(args)
        for i, v in zip(nums, xs_new):
            new[i] = v
        return f(*new)

    rng = _rng()
    v = randn_like(xs, rng)
    u = randn_like(y, rng)

    def numeric_at(eps, richardson):
        return lambda: inner(u, rebuild(y, _unflat(numeric_jvp(call_with, xs, v, eps,
                                                               richardson), y)))

    numeric = [numeric_at(1e-4, True), numeric_at(1e-6, False), numeric_at(1e-3, True),
               numeric_at(1e-5, True)]

    def reverse():
        seed = rebuild(u, [np.conj(leaf) if _is_complex(leaf) else leaf for leaf in leaves(u)])
        _, pullback = srcad.vjp(target, *args, wrt=nums)
        grads = pullback(seed)
        _shape_check("reverse gradient", grads, xs)
        grads_c = rebuild(xs, [np.conj(g) if _is_complex(x) else np.real(g)
                               for g, x in zip(leaves(grads), leaves(xs))])
        _compare("reverse, order 1", inner(v, grads_c), numeric, TOL, RTOL)

    def forward():
        value, tangent = srcad.jvp(target, args, v, wrt=nums)
        _shape_check("forward tangent", tangent, y)
        error = float(np.max(np.abs(flat(value) - flat(y)), initial=0.0))
        if not error <= 1e-9 * (1 + float(np.max(np.abs(flat(y)), initial=0.0))):
            raise Wrong(f"forward value differs from the function's by {error!r}",
                        {"check": "forward value"})
        _compare("forward, order 1", inner(u, tangent), numeric, TOL, RTOL)

    stages = []
    if "fwd" in modes:
        stages.append(("fwd", forward))
    if "rev" in modes:
        stages.append(("rev", reverse))
    if order >= 2:
        if order > 2:
            RECORDER.notes.append(f"order {order} checked to order 2")
        stages += _second_stages(fun, target, args, kwargs, nums, xs, y, modes, call_with, rng)
    results, worst = {}, None
    for label, stage in stages:
        try:
            stage()
            results[label] = "PASS"
        except (HarnessSkip, HarnessUnsupported):
            raise
        except Exception as e:
            outcome = classify(e)
            results[label] = outcome["outcome"]
            if worst is None or SEVERITY[outcome["outcome"]] > SEVERITY[worst[0]["outcome"]]:
                worst = (outcome, e)
    stage = " ".join(f"{k}:{v}" for k, v in results.items())
    if RECORDER is not None:
        RECORDER.stages.append(stage)
    if worst is not None:
        worst[0]["stage"] = stage
        raise Checked(worst[0]) from worst[1]


SEVERITY = {"PASS": 0, "SKIP": 1, "UNSUPPORTED-API": 1, "ERROR": 2, "REFUSED": 3, "CRASH": 4,
            "WRONG": 5}


class Checked(Exception):
    """A check's stages ran; this is the worst outcome among them."""

    def __init__(self, outcome):
        super().__init__(outcome.get("message", ""))
        self.outcome = outcome


def _unflat(vec, y):
    out, k = [], 0
    for leaf in leaves(y):
        n = int(np.size(leaf))
        part = vec[k:k + n]
        k += n
        if not _is_complex(leaf):
            part = np.real(part)
        out.append(np.reshape(part, np.shape(leaf)) if np.shape(leaf) else part[0])
    return out


def _scalarised(fun, target, args, kwargs, y, u):
    """A scalar function srcad can read: ``target`` itself, or Re <u, target(...)>."""
    real_scalar = not isinstance(y, (list, tuple, dict)) and np.ndim(y) == 0 \
        and not _is_complex(y)
    if real_scalar:
        return target
    if _is_plain(fun) and not kwargs:
        w = Wrapper(fun, len(args), {})
    elif _is_plain(target) and hasattr(target, "__srcad_suite_source__"):
        w = Wrapper(fun, len(args), kwargs or {})
    else:
        w = Wrapper(target, len(args), {})
    extra = {}
    if isinstance(y, (list, tuple)):
        if any(isinstance(i, (list, tuple, dict)) for i in y):
            raise HarnessSkip("order 2 of a function returning nested containers")
        body = [f"y = {w.expr}"]
        terms = []
        for k, part in enumerate(y):
            extra[f"u{k}"] = u[k]
            terms.append(_dot_text(f"u{k}", f"y[{k}]", part))
        body.append("return " + " + ".join(terms))
    elif isinstance(y, dict):
        raise HarnessSkip("order 2 of a function returning a dict")
    else:
        extra["u"] = u
        body = ["return " + _dot_text("u", w.expr, y)]
    return w.function(body, name=f"{w.name}_dot", extra=extra)


def _dot_text(u, y_text, y):
    if _is_complex(y):
        return f"np.sum(np.real(np.conj({u}) * {y_text}))"
    return f"np.sum({u} * {y_text})"


def _second_stages(fun, target, args, kwargs, nums, xs, y, modes, call_with, rng):
    """Order 2: vjp and jvp of srcad.grad of the (scalarised) function, against mixed second
    differences of the original function."""
    u = randn_like(y, rng)
    a = randn_like(xs, rng)
    w = randn_like(xs, rng)
    made = {}

    def gradient():
        if "grad" not in made:
            made["scalar"] = _scalarised(fun, target, args, kwargs, y, u)
            made["grad"] = srcad.grad(made["scalar"], wrt=nums)
        return made["grad"]

    def s_of(xs_new):
        return call_with(xs_new, made["scalar"])

    numeric = [lambda: numeric_second(s_of, xs, a, w, 1e-3),
               lambda: numeric_second(s_of, xs, a, w, 1e-4, False),
               lambda: numeric_second(s_of, xs, a, w, 1e-2),
               lambda: numeric_second(s_of, xs, a, w, 1e-4)]

    def reverse():
        _, pullback = srcad.vjp(gradient(), *args, wrt=nums)
        got = pullback(tuple(w))
        _shape_check("reverse over reverse", got, xs)
        _compare("reverse over reverse, order 2", pairing(a, got), numeric, TOL2, TOL2)

    def forward():
        _, tangent = srcad.jvp(gradient(), args, tuple(a), wrt=nums)
        tangent = tangent if isinstance(tangent, tuple) else (tangent,)
        _shape_check("forward over reverse", tangent, xs)
        _compare("forward over reverse, order 2", pairing(w, tangent), numeric, TOL2, TOL2)

    stages = []
    if "fwd" in modes:
        stages.append(("fwd2", forward))
    if "rev" in modes:
        stages.append(("rev2", reverse))
    return stages


def check_grads(fun, argnum=0, modes=None, order=2):
    def checked(*args, **kwargs):
        if IN_COMBO[0]:
            return run_check(fun, argnum, args, kwargs, modes, order)
        RECORDER.checks += 1
        try:
            return run_check(fun, argnum, args, kwargs, modes, order)
        except (HarnessSkip, HarnessUnsupported):
            raise
        except Exception as e:
            outcome = e.outcome if isinstance(e, Checked) else classify(e)
            outcome["args"] = _describe(args, kwargs)
            outcome["check_number"] = RECORDER.checks
            raise Stop(outcome) from e

    return checked


def combo_check(fun, *check_args, **check_kwargs):
    def combos(*args, **kwargs):
        kwarg_key_vals = [[(k, x) for x in xs] for k, xs in kwargs.items()]
        for _args in itertools.product(*args):
            for _kwargs in itertools.product(*kwarg_key_vals):
                RECORDER.combo_items += 1
                name = (f"{RECORDER.test_id}[{RECORDER.combo_items}: "
                        f"{_describe(_args, dict(_kwargs))}]")
                IN_COMBO[0] = True
                RECORDER.notes = []
                RECORDER.stages = []
                try:
                    check_grads(fun, *check_args, **check_kwargs)(*_args, **dict(_kwargs))
                    outcome = {"outcome": "PASS", "stage": RECORDER.stages[-1]}
                except Checked as e:
                    outcome = e.outcome
                except Exception as e:
                    outcome = classify(e)
                finally:
                    IN_COMBO[0] = False
                RECORDER.emit(name, outcome)

    return combos


def scalar_close(a, b):
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def check_equivalent(x, y):
    _shape_check("equivalent", x, y)
    v = randn_like(x, _rng())
    a, b = inner(v, x), inner(v, y)
    if not scalar_close(a, b):
        raise Wrong(f"values differ: {a!r} vs {b!r}", {"check": "check_equivalent"})


# --- autograd's differential operators, on srcad ----------------------------------------------


def _wrt(argnum):
    return tuple(argnum) if isinstance(argnum, list) else argnum


def grad(fun, argnum=0):
    return srcad.grad(readable(fun, _arity(fun, argnum)), wrt=_wrt(argnum))


def value_and_grad(fun, argnum=0):
    return srcad.value_and_grad(readable(fun, _arity(fun, argnum)), wrt=_wrt(argnum))


def _arity(fun, argnum):
    if _is_plain(fun):
        return fun.__code__.co_argcount
    return max(_argnums(argnum)) + 1


def elementwise_grad(fun, argnum=0):
    """vjp with a cotangent of ones is the gradient of ``np.sum(fun(...))``."""
    _reject_internal(fun)
    w = Wrapper(fun, _arity(fun, argnum), {})
    summed = w.function([f"return np.sum({w.expr})"], name=f"{w.name}_sum")
    return srcad.grad(summed, wrt=_wrt(argnum))


def _elementwise_maker(fun, wrt=0):
    """``elementwise_grad(f)`` called inside differentiated code: made while srcad
    transforms the caller, so the outer derivative sees through it."""
    return elementwise_grad(fun, wrt)


def jacobian(fun, argnum=0):
    return srcad.jacobian(readable(fun, _arity(fun, argnum)), wrt=_wrt(argnum))


def hessian(fun, argnum=0):
    return srcad.hessian(readable(fun, _arity(fun, argnum)), wrt=_wrt(argnum))


def make_vjp(fun, argnum=0):
    def at(*args):
        value, pullback = srcad.vjp(readable(fun, len(args)), *args, wrt=_wrt(argnum))
        return pullback, value

    return at


def make_jvp(fun, argnum=0):
    def at(*args):
        def push(v):
            return srcad.jvp(readable(fun, len(args)), args, (v,), wrt=(argnum,))

        return push

    return at


def vector_jacobian_product(fun, argnum=0):
    def vjp_fn(*args):
        *xs, v = args
        return srcad.vjp(readable(fun, len(xs)), *xs, wrt=_wrt(argnum))[1](v)

    return vjp_fn


def hessian_vector_product(fun, argnum=0):
    def hvp_fn(*args):
        *xs, v = args
        return srcad.hvp(readable(fun, len(xs)), tuple(xs), v, wrt=argnum)

    return hvp_fn


def make_hvp(fun, argnum=0):
    def at(*args):
        f = readable(fun, len(args))
        return (lambda v: srcad.hvp(f, tuple(args), v, wrt=argnum)), f(*args)

    return at


def grad_named(fun, argname):
    return srcad.grad(readable(fun, 0), wrt=argname)


def _counted(op):
    @functools.wraps(op)
    def counted(*args, **kwargs):
        if RECORDER is not None:
            RECORDER.uses += 1
        return op(*args, **kwargs)

    return counted


grad, value_and_grad, elementwise_grad, jacobian, hessian, make_vjp, make_jvp = map(
    _counted, (grad, value_and_grad, elementwise_grad, jacobian, hessian, make_vjp, make_jvp))
vector_jacobian_product, hessian_vector_product, make_hvp, grad_named = map(
    _counted, (vector_jacobian_product, hessian_vector_product, make_hvp, grad_named))
# called inside differentiated code, grad(f)(x) is srcad.grad(f, wrt=argnum)(x), made while
# srcad transforms the caller (srcad.frontend.lower_callees.make_derivative)
grad.__srcad_derivative_maker__ = (srcad.grad, {"argnum": "wrt"})
value_and_grad.__srcad_derivative_maker__ = (srcad.value_and_grad, {"argnum": "wrt"})
elementwise_grad.__srcad_derivative_maker__ = (_elementwise_maker, {"argnum": "wrt"})
make_vjp.__srcad_derivative_maker__ = (srcad.make_vjp, {"argnum": "wrt"})
make_jvp.__srcad_derivative_maker__ = (srcad.make_jvp, {"argnum": "wrt"})
jacobian.__srcad_derivative_maker__ = (srcad.jacobian, {"argnum": "wrt"})  # (state36: in a
hessian.__srcad_derivative_maker__ = (srcad.hessian, {"argnum": "wrt"})  # lambda, as grad)

API = {
    "grad": grad, "value_and_grad": value_and_grad, "elementwise_grad": elementwise_grad,
    "deriv": elementwise_grad, "jacobian": jacobian, "hessian": hessian, "make_vjp": make_vjp,
    "make_jvp": make_jvp, "vector_jacobian_product": vector_jacobian_product,
    "tensor_jacobian_product": vector_jacobian_product,
    "hessian_vector_product": hessian_vector_product,
    "hessian_tensor_product": hessian_vector_product, "make_hvp": make_hvp,
    "grad_named": grad_named,
    # containers are plain Python ones to srcad
    "list": list, "tuple": tuple, "dict": dict, "isinstance": isinstance, "type": type,
}
UNSUPPORTED = ["holomorphic_grad", "grad_and_aux", "multigrad_dict", "checkpoint",
               "make_ggnvp", "make_jvp_reversemode", "primitive", "defvjp", "defjvp",
               "defvjp_argnum", "defjvp_argnum", "notrace_primitive", "SparseObject",
               "VSpace", "vspace", "Box"]
TEST_UTIL = {"check_grads": check_grads, "combo_check": combo_check,
             "scalar_close": scalar_close, "check_equivalent": check_equivalent}


# --- the import hook ----------------------------------------------------------------------------


class _Module(types.ModuleType):
    """A stand-in module: listed names, then placeholders for anything else."""

    def __init__(self, name, names, internal):
        super().__init__(name)
        self.__dict__.update(names)
        self.__path__ = []  # a package, so submodules import
        self._internal = internal

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if attr in UNSUPPORTED and not self._internal:
            return _unsupported(attr)
        return Internal(f"{self.__name__}.{attr}")


_REAL = {"autograd.numpy": "numpy", "autograd.scipy": "scipy"}
_INTERNAL_MODULES = ("autograd.core", "autograd.tracer", "autograd.wrap_util", "autograd.misc",
                     "autograd.util", "autograd.numpy.numpy_boxes", "autograd.numpy.numpy_vspaces",
                     "autograd.numpy.numpy_wrapper", "autograd.numpy.numpy_vjps",
                     "autograd.numpy.numpy_jvps", "autograd.extend", "autograd.builtins_")


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname == "autograd" or fullname.startswith("autograd."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        name = spec.name
        for prefix, real in _REAL.items():
            if name == prefix or name.startswith(prefix + ".") and name not in _INTERNAL_MODULES:
                target = real + name[len(prefix):]
                try:
                    return importlib.import_module(target)
                except ImportError:
                    # scipy.stats.norm and friends are objects, not modules
                    parent, _, attr = target.rpartition(".")
                    obj = getattr(importlib.import_module(parent), attr)
                    module = types.ModuleType(name)
                    for a in dir(obj):
                        if not a.startswith("_"):
                            setattr(module, a, getattr(obj, a))
                    return module
        if name == "autograd":
            return _Module(name, {**API, "__version__": "srcad-shim"}, internal=False)
        if name == "autograd.differential_operators":
            return _Module(name, API, internal=False)
        if name == "autograd.test_util":
            return _Module(name, TEST_UTIL, internal=False)
        if name == "autograd.builtins":
            return _Module(name, {k: API[k] for k in ("list", "tuple", "dict", "isinstance",
                                                      "type")}, internal=False)
        return _Module(name, {}, internal=True)

    def exec_module(self, module):
        pass


_SAVED = {}


def _autograd_modules():
    return [n for n in sys.modules if n == "autograd" or n.startswith("autograd.")]


def install():
    """Put the import hook first; a real autograd already imported is set aside."""
    if not any(isinstance(f, Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, Finder())
        _SAVED.update({n: sys.modules.pop(n) for n in _autograd_modules()})


def uninstall():
    """Remove the hook and its modules, and bring back what ``install`` set aside."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, Finder)]
    for n in _autograd_modules():
        del sys.modules[n]
    sys.modules.update(_SAVED)
    _SAVED.clear()


# --- running tests ------------------------------------------------------------------------------


def _parametrizations(fn):
    """pytest.mark.parametrize expanded: a list of (id, kwargs); [("", {})] when none."""
    marks = [m for m in getattr(fn, "pytestmark", []) if getattr(m, "name", "") == "parametrize"]
    cases = [("", {})]
    for mark in reversed(marks):
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        new = []
        for ident, kw in cases:
            for value in values:
                vals = value if len(names) > 1 else (value,)
                d = dict(zip(names, vals))
                part = "-".join(f"{k}={v!r}" for k, v in d.items())
                new.append((f"{ident}-{part}" if ident else part, {**kw, **d}))
        cases = new
    return cases


def load(tests_dir, filename):
    install()
    if tests_dir not in sys.path:
        sys.path.insert(0, tests_dir)
    np.random.seed(42)
    name = os.path.splitext(filename)[0]
    return importlib.import_module(name)


def test_ids(module):
    ids = []
    for name, fn in vars(module).items():
        if name.startswith("test_") and callable(fn) and \
                getattr(fn, "__module__", None) == module.__name__:
            for ident, _ in _parametrizations(fn):
                ids.append(f"{name}[{ident}]" if ident else name)
    return ids


def _merge_stages(stages):
    """The worst outcome of each stage over several checks of one test."""
    worst = {}
    for text in stages:
        for part in text.split():
            label, _, outcome = part.partition(":")
            if label not in worst or SEVERITY[outcome] > SEVERITY[worst[label]]:
                worst[label] = outcome
    return " ".join(f"{k}:{v}" for k, v in worst.items())


#: tests whose premise is autograd's own semantics, not a derivative (checked by hand)
AUTOGRAD_SEMANTICS = {
    "test_numpy.test_scalar_array_box_attributes":
        "asserts that a Python float argument has .shape/.ndim/.size (autograd's ArrayBox); "
        "plain Python raises AttributeError too",
}


def run_test(module, test_id, stream):
    global RECORDER
    name, _, ident = test_id.partition("[")
    fn = getattr(module, name)
    for mark in getattr(fn, "pytestmark", []):
        if mark.name == "skip" or mark.name == "skipif" and mark.args and mark.args[0]:
            RECORDER = Recorder(test_id, stream)
            RECORDER.emit(test_id, {"outcome": "SKIP", "message": "pytest skip mark: "
                                    + str(mark.kwargs.get("reason", ""))})
            return
    kwargs = dict(_parametrizations(fn)).get(ident[:-1] if ident else "", {})
    RECORDER = Recorder(test_id, stream)
    np.random.seed(42)  # the suite's autouse fixture
    try:
        fn(**kwargs)
        outcome = {"outcome": "PASS"}
        if RECORDER.checks and RECORDER.stages:
            outcome["stage"] = _merge_stages(RECORDER.stages)
    except Stop as stop:
        outcome = stop.outcome
    except Exception as e:
        outcome = classify(e)
    except BaseException as e:  # pytest.raises' "DID NOT RAISE" is a BaseException
        if type(e).__name__ != "Failed":
            raise
        outcome = {"outcome": "SKIP", "exception": "Failed",
                   "message": "expects autograd to raise; srcad differentiated it: "
                              + str(e).splitlines()[0]}
    reason = AUTOGRAD_SEMANTICS.get(f"{module.__name__}.{test_id}")
    if reason and outcome["outcome"] != "PASS":
        outcome = {"outcome": "SKIP", "exception": outcome.get("exception"), "message": reason}
    if RECORDER.combo_items and outcome["outcome"] == "PASS" and not RECORDER.checks:
        return
    if not (RECORDER.checks or RECORDER.combo_items or RECORDER.uses) \
            and outcome["outcome"] in ("PASS", "WRONG"):
        outcome = {"outcome": "SKIP", "message": "calls no differential operator"
                   + (f" (and fails: {outcome.get('exception')})"
                      if outcome["outcome"] != "PASS" else "")}
    RECORDER.emit(test_id, outcome)
