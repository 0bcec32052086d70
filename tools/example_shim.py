"""The worker side of ``tools/example_programs.py``: one public example program, run with srcad.

``python tools/example_shim.py PROGRAM.py`` runs the program as ``__main__`` after installing an
import hook under which ``autograd.numpy`` (and ``.random``, ``.linalg``), ``autograd.scipy...``
are the real NumPy and SciPy, and autograd's differential operators are srcad's:

    grad -> srcad.grad, value_and_grad -> srcad.value_and_grad, elementwise_grad -> a vjp with
    a cotangent of ones, jacobian/hessian/hessian_vector_product -> srcad's.

That is the only change: the program's own code is not touched. What autograd ships besides its
operators and that plain NumPy code can do too (``autograd.misc.flatten``, the ``adam``/``sgd``/
``rmsprop`` optimisers) is srcad's own (``srcad.misc``, written without reading autograd's
source); ``autograd.builtins.tuple`` is Python's; ``autograd.core.getval`` (a value without its
gradient) is a ``nondiff`` identity (``srcad.stop_gradient``'s meaning) whose values the
finite differences hold at the point. ``autograd.extend``'s ``primitive``,
``defvjp`` and ``defjvp`` are srcad.extend's (which takes autograd's form of a rule), and so
are the same objects ``autograd.core`` gives; autograd 1.1's ``quick_grad_check`` is srcad's
checker along random directions; autograd 1.1's module names (``autograd.util``'s
``flatten``, ``autograd.optimizers``) and autograd 1.3's ``autograd.scipy.misc.logsumexp``
(``scipy.special.logsumexp`` now) are the same functions; ``make_jvp_reversemode`` is a
Jacobian made by vjps times the vector; autograd's box types (``ArrayBox``, ``DictBox``),
which programs name in annotations and ``isinstance`` tests, are classes no value is an
instance of (srcad has no boxes); ``unbroadcast_f``, a helper of autograd's rules
(autograd-gamma uses it), sums a rule's gradient back to its argument's shape, and
``repeat_to_match_shape`` spreads a reduction's gradient back over its argument; ``vspace``,
``autograd.core``'s ``make_vjp``/``make_jvp`` of a function of one argument at a point and
``autograd.wrap_util.unary_to_nary`` (libraries built on autograd make their operators with
them: ceviche, mici) are ``tools/autograd_internals.py``'s, srcad's vjp and jvp of the
program's function (a real vjp checked as a gradient of its inner product with the
cotangent). autograd's other internals (tracers, nodes) are not srcad's API: a program using
them is reported UNSUPPORTED-API.

Every derivative srcad makes is checked on its first ``CHECKED_CALLS`` calls: its value (for
``value_and_grad``) against the program's function, and each gradient along two random
directions against central finite differences of the program's function — never against srcad.
``matplotlib`` (and ``mpl_toolkits``, ``pylab``, ``seaborn``, pandas' plots and IPython's
display of notebooks) is replaced by a stand-in that accepts every call (nothing is drawn),
and so is ``keyboard`` (a key listener, which needs the machine's input devices: no key is
pressed);
``tqdm.notebook``'s progress bars are ``tqdm``'s text ones.

A pytest module (``test_*.py`` defining test functions, no runner of its own: a package's test
suite) has its tests called after it runs (``tools/pytest_functions.py``: parametrize cases,
the module's and its conftest's fixtures, ``tmp_path``); its outcome is its first refusal,
else its first failure, naming the test, with how many ran.

The outcome is printed as one JSON line prefixed ``@@RESULT`` (or ``@@CHECK`` per checked call).
"""

from __future__ import annotations

import copy
import functools
import importlib
import importlib.abc
import importlib.machinery
import inspect
import json
import os
import runpy
import signal
import sys
import traceback
import types

import autograd_internals  # (this folder: the shim runs as a script from it)
import numpy as np
import pytest_functions

import srcad
from srcad.misc import fixed_point, flatten, flatten_func, numpy_extras
from srcad.misc.optimizers import adam, rmsprop, sgd

CHECKED_CALLS = 2
#: ``SRCAD_SHIM_ENGINE=autograd``: the program runs with autograd itself (only the plotting
#: stand-ins): whether a program crashes there too, so a crash is the program's, not srcad's
REFERENCE = os.environ.get("SRCAD_SHIM_ENGINE") == "autograd"
TOL = 1e-5
STATE = {"checks": 0, "calls": 0, "kinks": 0}


class Wrong(AssertionError):
    """A derivative that disagrees with finite differences: kept in ``STATE`` when it is made,
    so a program that catches it (a test runner counting it as a failed test) is WRONG."""

    def __init__(self, message):
        super().__init__(message)
        STATE.setdefault("wrong", message)


class Unsupported(Exception):
    pass


class TimeUp(BaseException):
    pass


# --- trees of arrays and optimisers: srcad's own (srcad.misc, autograd's names) -------------

# --- checked derivatives ------------------------------------------------------------------------


def _wrt(argnum):
    return tuple(argnum) if isinstance(argnum, list) else argnum


def _scalar(y):
    return float(np.sum(y))


#: getval's values at the point a check differentiates at, replayed while the finite
#: differences move the argument (a value without its gradient is a constant there)
FROZEN = {"mode": None, "values": [], "at": 0}


class _Unfrozen(Exception):
    """The program called getval a different number of times away from the point."""


def getval(x):
    """autograd's ``getval``: ``x`` without its gradient (``srcad.stop_gradient``; declared
    ``nondiff`` below, so srcad does not read this text). While a check takes finite differences
    it returns the value the same call had at the point, so the differences are those of the
    function srcad differentiates: the stopped values held constant."""
    if FROZEN["mode"] == "record":
        FROZEN["values"].append(copy.deepcopy(x))
    elif FROZEN["mode"] == "replay":
        if FROZEN["at"] >= len(FROZEN["values"]):
            raise _Unfrozen()
        x = FROZEN["values"][FROZEN["at"]]
        FROZEN["at"] += 1
    return x


srcad.extend.nondiff(getval)


def _frozen(call, args):
    """``call`` evaluated with getval's values recorded at ``args``, then replayed."""
    FROZEN.update(mode="record", values=[], at=0)
    try:
        call(list(args))
    finally:
        FROZEN["mode"] = None
    recorded = FROZEN["values"]

    def replaying(moved):
        FROZEN.update(mode="replay", values=recorded, at=0)
        try:
            out = call(moved)
            if FROZEN["at"] != len(recorded):
                raise _Unfrozen()
            return out
        finally:
            FROZEN["mode"] = None

    return replaying if recorded else call


def _directional(call, args, i, direction):
    """The derivative of the function along ``direction`` by central differences, or None
    when it is not smooth at this point on the scales tried (a ReLU's kink within reach: the
    differences at two step sizes disagree), where no finite difference can judge."""
    flat, unflatten = flatten(args[i])

    def at(t):
        moved = list(args)
        moved[i] = unflatten(flat + t * direction)
        if isinstance(args[i], np.ndarray):
            moved[i] = np.asarray(moved[i])
        return _scalar(call(moved))

    call = _frozen(call, args)
    for eps in (1e-5, 1e-6, 1e-7):
        wide = (at(eps) - at(-eps)) / (2 * eps)
        narrow = (at(eps / 2) - at(-eps / 2)) / eps
        # smooth on [-eps, eps]: the two agree to O(eps**2); a kink inside makes them differ
        if abs(wide - narrow) <= 1e-6 * max(1.0, abs(narrow)):
            return (4 * narrow - wide) / 3
    return None


def _random_sources(fun, depth=2):
    """The RandomState and Generator objects ``fun`` can reach through its closure and
    globals (and those of the functions found there, ``depth`` levels down)."""
    found, seen = [], set()

    def visit(f, level):
        if id(f) in seen or not callable(f):
            return
        seen.add(id(f))
        values = [c.cell_contents for c in (getattr(f, "__closure__", None) or ())
                  if _filled(c)]
        values += list(getattr(f, "__globals__", {}).values())
        for v in values:
            if isinstance(v, (np.random.RandomState, np.random.Generator)):
                if all(v is not w for w in found):
                    found.append(v)
            elif level and isinstance(v, types.FunctionType):
                visit(v, level - 1)

    visit(fun, depth)
    return found


def _filled(cell):
    try:
        cell.cell_contents  # noqa: B018
        return True
    except ValueError:
        return False


def _get_state(source):
    if isinstance(source, np.random.Generator):
        return source.bit_generator.state
    return source.get_state()


def _set_state(source, state):
    if isinstance(source, np.random.Generator):
        source.bit_generator.state = state
    else:
        source.set_state(state)


def _snapshot(fun, args):
    sources = _random_sources(fun)
    return (np.random.get_state(), [(s, _get_state(s)) for s in sources], copy.deepcopy(args))


def _replaying(fun, snapshot, kwargs):
    """``fun`` called as srcad's derivative was: the same random state (global, of any
    RandomState among the arguments, and of those its closure and globals hold), so a
    stochastic objective (a minibatch, a Monte Carlo estimate) is the same function at every
    evaluation."""
    state, sources, saved_args = snapshot

    def call(args):
        np.random.set_state(state)
        for source, source_state in sources:
            _set_state(source, source_state)
        fresh = copy.deepcopy(saved_args)
        args = [a if not isinstance(f, (np.random.RandomState, np.random.Generator)) else f
                for a, f in zip(args, fresh)]
        return fun(*args, **kwargs)

    return call


def _check(fun, args, kwargs, argnum, grads, snapshot, value=None):
    STATE["calls"] += 1
    if STATE["calls"] > CHECKED_CALLS * 50:
        return
    indices = [argnum] if isinstance(argnum, int) else list(argnum)
    grads = [grads] if isinstance(argnum, int) else list(grads)
    rng = np.random.default_rng(STATE["checks"])
    call = _replaying(fun, snapshot, kwargs)
    if value is not None:
        expected = call(list(args))
        if not np.allclose(value, expected, rtol=TOL, atol=TOL):
            raise Wrong(f"value {value!r} differs from the function's {expected!r}")
    for i, g in zip(indices, grads):
        flat_g, _ = flatten(g)
        flat_x, _ = flatten(args[i])
        if flat_g.shape != flat_x.shape:
            raise Wrong(f"gradient of argument {i} has {flat_g.size} numbers, the argument "
                        f"{flat_x.size}")
        for _ in range(2):
            d = rng.standard_normal(flat_x.size)
            exact = float(flat_g @ d)
            try:
                numeric = _directional(call, args, i, d)
            except _Unfrozen:  # getval called otherwise away from the point: no judge
                numeric = None
            except Wrong:
                raise
            except Exception:  # noqa: BLE001  the function fails away from the point (a
                # factorial recursing down to 1 or 0 from 2.00001 never ends): no judge
                numeric = None
            if numeric is None:
                STATE["kinks"] += 1
                continue
            scale = max(1.0, abs(exact), abs(numeric))
            if abs(exact - numeric) > 1e-4 * scale:
                raise Wrong(f"gradient of argument {i} along a random direction: srcad "
                            f"{exact:.8g}, finite differences {numeric:.8g}")
    STATE["checks"] += 1
    print("\n@@CHECK " + json.dumps({"function": getattr(fun, "__name__", "?")}), flush=True)


class _Checked(functools.partial):
    """A derivative srcad made (``made``), its first calls checked. A partial of ``made`` with
    no arguments: a program calling it inside code srcad differentiates (``d_tanh =
    egrad(tanh)`` at module level, ``d_tanh(w)`` in the loss) calls ``made`` there, since
    srcad reads a partial as the function it holds; called by the program, it checks."""

    def __call__(self, *args, **kwargs):
        made, fun = self.func, self.fun
        if self.seen >= CHECKED_CALLS:
            return made(*args, **kwargs)
        self.seen += 1
        snapshot = _snapshot(fun, args)
        result = made(*args, **kwargs)
        after = _snapshot(fun, ())  # the program goes on from here, whatever the check draws
        if self.kind == "value_and_grad":
            _check(fun, args, kwargs, self.argnum, result[1], snapshot, value=result[0])
        elif self.kind == "jacobian":
            _check_jacobian(fun, args, kwargs, self.argnum, result, snapshot)
        else:
            _check(fun, args, kwargs, self.argnum, result, snapshot)
        np.random.set_state(after[0])
        for source, source_state in after[1]:
            _set_state(source, source_state)
        return result


def _checked(fun, argnum, made, kind):
    call = _Checked(made)
    call.fun, call.argnum, call.kind, call.seen = fun, argnum, kind, 0
    call.__name__ = getattr(fun, "__name__", "f")
    call.made = made  # what an operator applied to this derivative differentiates
    return call


def _made(fun):
    """The function to differentiate: srcad's own derivative for one of ours (grad of grad)."""
    return getattr(fun, "made", fun)


def grad(fun, argnum=0):
    fun = _made(fun)
    return _checked(fun, argnum, srcad.grad(fun, wrt=_wrt(argnum)), "grad")


def value_and_grad(fun, argnum=0):
    fun = _made(fun)
    return _checked(fun, argnum, srcad.value_and_grad(fun, wrt=_wrt(argnum)), "value_and_grad")


# called inside differentiated code, grad(f)(x) is srcad.grad(f, wrt=argnum)(x), made while
# srcad transforms the caller (srcad.frontend.lower_callees.make_derivative)
grad.__srcad_derivative_maker__ = (srcad.grad, {"argnum": "wrt"})
value_and_grad.__srcad_derivative_maker__ = (srcad.value_and_grad, {"argnum": "wrt"})


def _summed(fun):
    def summed(x):
        return np.sum(fun(x))

    def summed_of_several(*args):
        return np.sum(fun(*args))

    return summed if _one_parameter(fun) else summed_of_several


def _one_parameter(fun):
    """Whether ``fun`` takes exactly one positional argument (as most elementwise_grad
    targets do: their derivative is then made for a plain one-parameter function)."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 1 and not any(p.kind == p.VAR_POSITIONAL for p in params)


def elementwise_grad(fun, argnum=0):
    """The gradient of the sum of ``fun``'s outputs (autograd's definition: a vjp with ones),
    with respect to argument ``argnum`` of as many as the call gives."""
    summed = _summed(_made(fun))
    return _checked(summed, argnum, srcad.grad(summed, wrt=argnum), "elementwise")


def _summed_grad(fun, wrt=0):
    return srcad.grad(_summed(_made(fun)), wrt=wrt)


# called inside differentiated code, elementwise_grad(f)(x) is the gradient of the sum, made
# while srcad transforms the caller, so the outer derivative sees through it
elementwise_grad.__srcad_derivative_maker__ = (_summed_grad, {"argnum": "wrt"})


def jacobian(fun, argnum=0):
    fun = _made(fun)
    return _checked(fun, argnum, srcad.jacobian(fun, wrt=argnum), "jacobian")


def _check_jacobian(fun, args, kwargs, argnum, jac, snapshot):
    """A Jacobian checked as the gradient of ``sum(u * fun(...))`` for a random ``u`` of the
    output's shape (``u`` contracted with the Jacobian's output axes), for one array or
    number argument; others are not checked."""
    if not isinstance(argnum, int) or not isinstance(args[argnum], (np.ndarray, float, int)):
        return
    jac = np.asarray(jac)
    out_shape = jac.shape[:jac.ndim - np.ndim(args[argnum])]
    u = np.random.default_rng(STATE["checks"] + 7).standard_normal(out_shape)

    def weighted(*a, **k):
        return np.sum(u * fun(*a, **k))

    weighted.__name__ = getattr(fun, "__name__", "f")
    _check(weighted, args, kwargs, argnum, np.tensordot(u, jac, axes=len(out_shape)), snapshot)


def hessian(fun, argnum=0):
    return srcad.hessian(_made(fun), wrt=argnum)


# called inside differentiated code (a Riemannian HMC's metric, -hessian(log_prob)(q), in a
# Hamiltonian differentiated by grad): made while srcad transforms the caller, like grad
jacobian.__srcad_derivative_maker__ = (srcad.jacobian, {"argnum": "wrt"})
hessian.__srcad_derivative_maker__ = (srcad.hessian, {"argnum": "wrt"})


def hessian_vector_product(fun, argnum=0):
    fun = _made(fun)

    def hvp(*args):
        *xs, v = args
        return srcad.hvp(fun, tuple(xs), v, wrt=argnum)

    return hvp


def quick_grad_check(fun, arg0, extra_args=(), kwargs=None, verbose=True, **_tolerances):
    """autograd 1.1's ``autograd.util.quick_grad_check``: the gradient of ``fun`` with respect
    to ``arg0`` (``extra_args`` and ``kwargs`` given too), as srcad's own checker checks it."""
    from srcad.tools.check import check_grads as check

    kwargs = kwargs or {}
    made = _made(fun)

    def along(x, *rest):
        return made(x, *rest, **kwargs)

    try:
        check(along if kwargs else made, arg0, *extra_args, wrt=0)
    except AssertionError as e:
        raise Wrong(str(e)) from None
    STATE["checks"] += 1
    if verbose:
        print("Gradient projection OK")


def check_grads(fun, modes=None, order=2):
    """autograd's test utility, as srcad's own checker (finite differences and the tape)."""
    from srcad.check import check_grads as check

    def at(*args):
        try:
            check(_made(fun), *args, order=min(order, 2))
        except AssertionError as e:
            raise Wrong(str(e)) from None
        STATE["checks"] += 1

    return at


def _unsupported(name):
    def operator_(*args, **kwargs):
        raise Unsupported(f"autograd.{name} is not an operator srcad offers")

    return operator_


OPERATORS = {"grad": grad, "value_and_grad": value_and_grad,
             "elementwise_grad": elementwise_grad, "jacobian": jacobian, "hessian": hessian,
             "hessian_vector_product": hessian_vector_product}
def make_vjp(fun, argnum=0):
    return srcad.make_vjp(_made(fun), argnum=argnum)


def make_jvp(fun, argnum=0):
    return srcad.make_jvp(_made(fun), argnum=argnum)


OPERATORS.update(make_vjp=make_vjp, make_jvp=make_jvp)
for _name in ("vector_jacobian_product", "make_hvp", "grad_named",
              "holomorphic_grad", "checkpoint", "multigrad_dict", "make_ggnvp", "deriv",
              "tensor_jacobian_product"):
    OPERATORS[_name] = _unsupported(_name)


def make_jvp_reversemode(fun, argnum=0):
    """autograd's ``make_jvp_reversemode(f, argnum)(*args)``: ``v -> J v`` (the product
    alone, not the value), in reverse mode as autograd makes it (a function given only a
    reverse-mode rule has one): srcad's Jacobian, made a row at a time by vjps, times ``v``."""
    made = srcad.jacobian(_made(fun), wrt=argnum, mode="rev")

    @functools.wraps(fun)
    def at(*args):
        jac = made(*args)
        return lambda v: np.tensordot(jac, v, axes=np.ndim(v))

    return at


OPERATORS["make_jvp_reversemode"] = make_jvp_reversemode
OPERATORS["primitive"] = srcad.extend.primitive  # autograd.primitive (deprecated there)


def core_make_vjp(fun, x):
    """``autograd.core.make_vjp(fun, x)`` (of ``fun`` at ``x``: the core form): srcad's
    pullback, its first calls with a real cotangent checked against finite differences of
    the cotangent's inner product with ``fun`` (a vjp of real values is a gradient of that;
    a vjp of a function returning a tuple, or of complex values, is not checked here)."""
    pullback, value = autograd_internals.make_vjp(fun, x, made=_made)
    target, args, argnum, kwargs = autograd_internals._target(fun, x, _made)
    snapshot = _snapshot(target, args)
    seen = [0]

    def checked(g):
        result = pullback(g)
        plain = all(isinstance(v, (float, int, np.ndarray, np.number))
                    for v in (g, value, result, args[argnum]))
        real = plain and not any(np.iscomplexobj(v) for v in (g, value, result, args[argnum]))
        if seen[0] < CHECKED_CALLS and real and np.shape(result) == np.shape(args[argnum]):
            seen[0] += 1
            cotangent = np.array(g, dtype=float)

            def inner(*a, **k):
                return np.sum(cotangent * target(*a, **k))

            inner.__name__ = getattr(target, "__name__", "f")
            _check(inner, args, kwargs, argnum, result, snapshot)
        return result

    return checked, value


def core_make_jvp(fun, x):
    """``autograd.core.make_jvp(fun, x)``: ``g -> (fun(x), J g)`` (srcad's forward mode)."""
    return autograd_internals.make_jvp(fun, x, made=_made)


def _no_box(name):
    """A class no value is an instance of: autograd's box types (``ArrayBox``, ``DictBox``),
    which programs name in annotations and ``isinstance`` tests. srcad has no boxes: inside a
    derivative every value is the plain value, as autograd's ``x._value`` would be."""
    return type(name, (), {"__doc__": f"autograd's {name}: no value is one under srcad"})


def unbroadcast_f(target, f):
    """autograd's helper for rules (``autograd.numpy.numpy_vjps.unbroadcast_f``, which
    autograd-gamma's rules use): ``g -> f(g)`` summed back to ``target``'s shape (over the
    leading axes broadcasting added and the axes where ``target`` has length 1)."""
    shape, ndim = np.shape(target), np.ndim(target)

    def summed(g):
        result = f(g)
        while np.ndim(result) > ndim:
            result = np.sum(result, axis=0)
        for axis, size in enumerate(shape):
            if size == 1 and np.shape(result)[axis] != 1:
                result = np.sum(result, axis=axis, keepdims=True)
        return result

    return summed


def repeat_to_match_shape(g, shape, dtype, axis, keepdims):
    """autograd's other helper for rules (``numpy_vjps.repeat_to_match_shape``, which rules of
    reductions written by users call, e.g. a ``logsumexp`` primitive's vjp): ``g``, a
    reduction's result over ``axis`` of an array of ``shape``, spread back over that shape,
    and how many items each of its items stands for. ``dtype`` is not needed here."""
    shape = tuple(shape)
    if axis is None:
        axes = tuple(range(len(shape)))
    else:
        axes = tuple(a % len(shape) for a in (axis if isinstance(axis, (tuple, list))
                                              else (axis,)))
    kept = g if keepdims else np.reshape(g, tuple(1 if i in axes else n
                                                   for i, n in enumerate(shape)))
    count = int(np.prod([shape[a] for a in axes])) if axes else 1
    return np.broadcast_to(kept, shape), count


BOXES = {name: _no_box(name) for name in ("ArrayBox", "DictBox", "ListBox", "TupleBox",
                                           "SequenceBox", "Box")}


# --- the import hook ----------------------------------------------------------------------------


#: matplotlib's calls that return a list of the lines they draw (one here)
LINE_PLOTS = (".plot", ".semilogx", ".semilogy", ".loglog", ".step")


class _Anything(types.ModuleType):
    """matplotlib, and anything it returns: every attribute and call succeeds."""

    def __init__(self, name="matplotlib", *args, **kwargs):
        # a program's class deriving from a stand-in calls this with the arguments of its base
        super().__init__(name if isinstance(name, str) else "matplotlib")
        self.__path__ = []

    def __setitem__(self, key, value):
        pass

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if attr == "imread":  # a program's data: read, as matplotlib reads a PNG
            return _imread
        return _Anything(f"{self.__name__}.{attr}")

    def __call__(self, *args, **kwargs):
        if self.__name__.endswith(LINE_PLOTS):  # a list of lines: `line, = ax.plot(xs, ys)`
            return [_Anything(self.__name__ + "()[0]")]
        return _Anything(self.__name__ + "()")

    def __iter__(self):
        return iter([_Anything(self.__name__ + "[0]"), _Anything(self.__name__ + "[1]")])

    def __getitem__(self, key):
        return _Anything(self.__name__ + "[]")

    def _arithmetic(self, *other):
        """An axis' limits in arithmetic (``y_min, _ = ax.get_ylim(); y_min + x``): another
        stand-in, to be drawn."""
        return _Anything(self.__name__ + "(+)")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arithmetic
    __truediv__ = __rtruediv__ = __neg__ = __pos__ = _arithmetic


def _imread(path):
    """``matplotlib.pyplot.imread`` of an 8-bit, non-interlaced PNG (grey, grey and alpha,
    RGB or RGBA): floats in [0, 1], shaped (rows, columns[, channels])."""
    import struct
    import zlib

    import numpy

    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: the example shim reads PNG files only")
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    channels = {0: 1, 4: 2, 2: 3, 6: 4}.get(color)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"{path}: the example shim reads 8-bit non-interlaced PNGs only")
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for r in range(height):
        kind, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) *
                                                          (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) \
                    & 255
        rows.append(bytes(line))
        previous = line
    image = numpy.frombuffer(b"".join(rows), dtype=numpy.uint8).astype(numpy.float32) / 255
    return image.reshape((height, width, channels) if channels > 1 else (height, width))


def _internal(name):
    """A module's ``__getattr__`` for the names of autograd's internals it does not give."""
    def internal(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise Unsupported(f"{name}.{attr} (autograd's internals) is not srcad's API")

    return internal


def _module(name, attrs):
    module = types.ModuleType(name)
    module.__path__ = []
    module.__dict__.update(attrs)
    return module


def _numpy_with_extras(name):
    """``autograd.numpy``: NumPy's namespace (the same objects, so srcad resolves ``np.sum``
    as NumPy's), with the functions autograd.numpy has beyond it (``make_diagonal``,
    ``concatenate_args``, ``metadata``: ``srcad.misc.numpy_extras``)."""
    module = _module(name, {k: v for k, v in vars(np).items() if not k.startswith("__")})
    module.__dict__.update({k: getattr(numpy_extras, k) for k in numpy_extras.__all__})
    module.__getattr__ = lambda attr: getattr(np, attr)  # NumPy's lazily loaded names
    return module


#: pandas' plotting through matplotlib (``series.plot()``): a stand-in too
PANDAS_PLOTS = "pandas.plotting._matplotlib"


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        top = fullname.split(".")[0]
        if REFERENCE and top == "autograd":
            return None  # autograd's own modules
        if top in ("autograd", "matplotlib", "mpl_toolkits", "IPython", "seaborn", "pylab",
                   "keyboard") or (
                fullname.startswith(PANDAS_PLOTS) or fullname == "tqdm.notebook"):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        name = spec.name
        if name == "tqdm.notebook":  # a notebook's progress bar (IPython's widgets): as text
            return importlib.import_module("tqdm.std")
        if name.startswith(("matplotlib", "mpl_toolkits", "IPython", "seaborn", "pylab",
                            "keyboard", PANDAS_PLOTS)):
            return _Anything(name)
        if name == "autograd.numpy.numpy_boxes":
            return _module(name, {"ArrayBox": BOXES["ArrayBox"]})
        if name == "autograd.numpy.numpy_vjps":  # two helpers for rules; the rest internals
            module = _module(name, {"unbroadcast_f": unbroadcast_f,
                                    "repeat_to_match_shape": repeat_to_match_shape})
            module.__getattr__ = _internal(name)
            return module
        if name == "autograd.tracer":
            return _module(name, {"Box": BOXES["Box"], "getval": getval})
        if name == "autograd.numpy":  # NumPy, and autograd.numpy's own make_diagonal ...
            return _numpy_with_extras(name)
        if name == "autograd.scipy.misc":  # autograd <= 1.3's home of logsumexp (SciPy's
            # scipy.misc had it then; both moved it to .special): the same function
            import scipy.special
            return _module(name, {"logsumexp": scipy.special.logsumexp})
        for prefix, real in (("autograd.numpy", "numpy"), ("autograd.scipy", "scipy")):
            if name == prefix or name.startswith(prefix + "."):
                target = real + name[len(prefix):]
                try:
                    return importlib.import_module(target)
                except ImportError:  # scipy.stats.norm is an object, not a module
                    parent, _, attr = target.rpartition(".")
                    obj = getattr(importlib.import_module(parent), attr)
                    return _module(name, {a: getattr(obj, a) for a in dir(obj)
                                          if not a.startswith("_")})
        if name in ("autograd", "autograd.differential_operators"):
            return _module(name, OPERATORS)
        if name == "autograd.test_util":
            return _module(name, {"check_grads": check_grads})
        if name == "autograd.misc":
            return _module(name, {"flatten": flatten})
        if name == "autograd.util":  # autograd 1.1's home of flatten (autograd.misc's now)
            module = _module(name, {"flatten": flatten, "flatten_func": flatten_func,
                                    "quick_grad_check": quick_grad_check})
            module.__getattr__ = _internal(name)
            return module
        if name == "autograd.misc.flatten":
            return _module(name, {"flatten": flatten, "flatten_func": flatten_func})
        if name == "autograd.misc.fixed_points":
            return _module(name, {"fixed_point": fixed_point})
        if name in ("autograd.misc.optimizers", "autograd.optimizers"):  # (autograd 1.1's)
            return _module(name, {"adam": adam, "sgd": sgd, "rmsprop": rmsprop})
        if name == "autograd.extend":  # autograd's form of a rule, which srcad.extend takes
            return _module(name, {"primitive": srcad.extend.primitive,
                                  "vspace": autograd_internals.vspace,
                                  "defvjp": srcad.extend.defvjp,
                                  "defjvp": srcad.extend.defjvp,
                                  "notrace_primitive": srcad.extend.notrace_primitive})
        if name == "autograd.wrap_util":  # the decorator autograd's operators are made with
            module = _module(name, {"unary_to_nary": autograd_internals.unary_to_nary})
            module.__getattr__ = _internal(name)
            return module
        if name == "autograd.builtins":
            return _module(name, {"tuple": tuple, "list": list, "dict": dict,
                                  "isinstance": isinstance, "type": type,
                                  **{k: BOXES[k] for k in ("DictBox", "ListBox", "TupleBox",
                                                           "SequenceBox")}})
        if name == "autograd.core":  # getval: the value without its gradient (JAX's name);
            # primitive, defvjp, defjvp: the very objects autograd.extend gives (autograd's
            # core module imports or defines them, extend re-exports them)
            module = _module(name, {"getval": getval,
                                    "make_vjp": core_make_vjp,
                                    "make_jvp": core_make_jvp,
                                    "vspace": autograd_internals.vspace,
                                    "primitive": srcad.extend.primitive,
                                    "defvjp": srcad.extend.defvjp,
                                    "defjvp": srcad.extend.defjvp,
                                    "notrace_primitive": srcad.extend.notrace_primitive})

            module.__getattr__ = _internal(name)
            return module
        raise Unsupported(f"{name} (autograd's internals) is not srcad's API")

    def exec_module(self, module):
        pass


# --- running ------------------------------------------------------------------------------------


def _where(tb):
    """The deepest frame of the program (not of srcad, NumPy or this shim): file:line."""
    frames = traceback.extract_tb(tb)
    srcad_dir = os.path.dirname(srcad.__file__)
    own = [f for f in frames if not f.filename.startswith((srcad_dir, "<"))
           and "site-packages" not in f.filename and f.filename != __file__]
    frame = own[-1] if own else (frames[-1] if frames else None)
    return f"{os.path.basename(frame.filename)}:{frame.lineno}" if frame else ""


def _in_srcad(tb):
    """Whether a frame of srcad's own code raised or passed on the exception (not a program
    in a folder whose name happens to hold the word)."""
    srcad_dir = os.path.dirname(srcad.__file__) + os.sep
    return any(f.filename.startswith(srcad_dir) for f in traceback.extract_tb(tb))


def classify(exc):
    kind = type(exc).__name__
    message = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else kind
    if isinstance(exc, Wrong):
        outcome = "WRONG"
    elif isinstance(exc, Unsupported):
        outcome = "UNSUPPORTED-API"
    elif isinstance(exc, srcad.SrcadError):
        outcome = "REFUSED"
    elif isinstance(exc, (OSError, ImportError)) and not _in_srcad(exc.__traceback__):
        outcome = "ENVIRONMENT"
    else:
        outcome = "CRASH"
    return {"outcome": outcome, "exception": kind, "message": message,
            "where": _where(exc.__traceback__)}


def _suite_result(ran, skipped, failures):
    """A pytest module's outcome: its first refusal, else its first failure (the test named),
    else PASS; how many tests ran and were left out in the message."""
    counted = f"{ran} tests run, {skipped} left out (fixtures or skips)"
    if not failures:
        return {"outcome": "PASS", "message": counted}
    name, e = next(((n, e) for n, e in failures if isinstance(e, srcad.SrcadError)),
                   failures[0])
    result = classify(e)
    result["message"] = f"{name}: {result['message']} ({len(failures)} of {counted})"[:400]
    return result


def main(path, seconds):
    sys.meta_path.insert(0, Finder())
    sys.argv = [path]  # as `python PROGRAM.py` gives it (unittest.main reads the rest)
    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)
    os.chdir(directory)
    np.random.seed(0)

    def time_up(signum, frame):
        STATE["timed_out"] = True  # (a test runner may catch it and exit: still the time)
        raise TimeUp()

    signal.signal(signal.SIGALRM, time_up)
    signal.alarm(seconds)
    try:
        namespace = runpy.run_path(path, run_name="__main__")
        result = {"outcome": "PASS"}
        if pytest_functions.is_test_module(path, namespace):  # a suite of pytest functions
            result = _suite_result(*pytest_functions.run_tests(path, namespace))
    except TimeUp:
        result = {"outcome": "PASS" if STATE["checks"] or REFERENCE else "TIMEOUT",
                  "message": f"stopped after {seconds} s"}
    except SystemExit as e:
        result = {"outcome": "PASS"} if not e.code else classify(e)
        if e.code and STATE.get("timed_out"):  # (unittest.main: a test stopped by the time)
            result["message"] = f"a test runner's exit, the time ({seconds} s) up as it ran"
    except Exception as e:  # the outcome is the report
        result = classify(e)
    signal.alarm(0)
    if "wrong" in STATE and result["outcome"] != "WRONG":  # caught by the program: still WRONG
        result = {"outcome": "WRONG", "message": STATE["wrong"][:300], "where": "caught"}
    if result["outcome"] == "PASS" and not STATE["checks"] and not REFERENCE:
        result = {"outcome": "NO-GRADIENT", "message": "no derivative was taken"}
    result["checks"] = STATE["checks"]
    result["kinks"] = STATE["kinks"]  # directions not checked: the function has a kink there
    print("\n@@RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 60)
