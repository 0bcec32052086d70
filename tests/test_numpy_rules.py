"""The NumPy rules, table-driven: every registered function × shapes × axis/keepdims options.

Each case is a small function built twice by a *factory*, once over ``numpy`` (for srcad and for
finite differences) and once over ``autograd.numpy`` (the second opinion), so the two run the
same code. Every case is checked for:

* gradient shape == argument shape (a float for a Python-float argument);
* agreement with central finite differences (``srcad.check.numerical_grad``);
* agreement with autograd to 1e-10 relative error, where autograd has the rule.

Second derivatives (``srcad.vjp`` of ``srcad.grad``, through the rules of the ``grad_*``
helpers) are checked against finite differences of the first derivative.

A factory wraps the function under test as ``sum(sin(F(...)))`` so that the gradient flowing
into ``F`` varies from element to element. Special points (ties in ``max``, zeros in ``prod``,
integer arrays) have their own tests, with the expected values worked out by hand.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

try:
    import autograd
    import autograd.numpy as anp
except ImportError:  # autograd is optional: those comparisons skip
    autograd = anp = None

RNG = np.random.default_rng(20240601)


def _rand(*shape, low=-1.0, high=1.0):
    """A Python float for shape (), else a float array, uniform in [low, high)."""
    if not shape:
        return float(RNG.uniform(low, high))
    return RNG.uniform(low, high, size=shape)


def _spd(n, batch=()):
    """A well-conditioned symmetric positive-definite matrix (or batch of them)."""
    a = RNG.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _lookup(m, path):
    """``m.linalg.norm`` for the path ``"linalg.norm"``."""
    obj = m
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


# ---------------------------------------------------------------- factories
# Each takes what varies and returns ``make(m)``, which builds the case function over the
# module ``m`` (numpy or autograd.numpy). Free names of the built function are closure cells.


def unary(path):
    def make(m):
        fn = _lookup(m, path)

        def f(x):
            return m.sum(m.sin(fn(x)))

        return f

    return make


def binary(path):
    def make(m):
        fn = _lookup(m, path)

        def f(a, b):
            return m.sum(m.sin(fn(a, b)))

        return f

    return make


def with_args(path, *extra):
    """``F(x, *extra)`` for up to three constant extra arguments."""

    def make(m):
        fn = _lookup(m, path)
        if len(extra) == 1:
            p = extra[0]

            def f(x):
                return m.sum(m.sin(fn(x, p)))
        elif len(extra) == 2:
            p, q = extra

            def f(x):
                return m.sum(m.sin(fn(x, p, q)))
        elif len(extra) == 3:
            p, q, r = extra

            def f(x):
                return m.sum(m.sin(fn(x, p, q, r)))
        else:
            raise ValueError(extra)
        return f

    return make


def two_with_arg(path, p):
    def make(m):
        fn = _lookup(m, path)

        def f(a, b):
            return m.sum(m.sin(fn(a, b, p)))

        return f

    return make


def reduction(path, axis, keepdims):
    def make(m):
        fn = _lookup(m, path)

        def f(x):
            return m.sum(m.sin(fn(x, axis=axis, keepdims=keepdims)))

        return f

    return make


def reduction_ddof(path, axis, ddof, keepdims):
    def make(m):
        fn = _lookup(m, path)

        def f(x):
            return m.sum(m.sin(fn(x, axis=axis, ddof=ddof, keepdims=keepdims)))

        return f

    return make


def norm(order, axis, keepdims=False):
    def make(m):
        fn = m.linalg.norm

        def f(x):
            return m.sum(m.sin(fn(x, ord=order, axis=axis, keepdims=keepdims)))

        return f

    return make


def along(path, axis):
    """``F(x, axis=axis)``: cumsum, cumprod, sort, flip, ..."""

    def make(m):
        fn = _lookup(m, path)

        def f(x):
            return m.sum(m.sin(fn(x, axis=axis)))

        return f

    return make


def of_list(path, axis):
    """``F([a, 2 b], axis=axis)``: a list built in the function."""

    def make(m):
        fn = _lookup(m, path)

        def f(a, b):
            return m.sum(m.sin(fn([a, b * 2.0], axis=axis)))

        return f

    return make


def of_tuple(path):
    def make(m):
        fn = _lookup(m, path)

        def f(a, b):
            return m.sum(m.sin(fn((a, b * 2.0))))

        return f

    return make


def einsum(spec, n):
    def make(m):
        if n == 1:

            def f(a):
                return m.sum(m.sin(m.einsum(spec, a)))
        elif n == 2:

            def f(a, b):
                return m.sum(m.sin(m.einsum(spec, a, b)))
        else:

            def f(a, b, c):
                return m.sum(m.sin(m.einsum(spec, a, b, c)))

        return f

    return make


NON_FINITE = np.array([1.0, np.nan, np.inf, -np.inf, 2.0, np.inf])


def _nan_to_num_values(a, b, c):
    """The values ``np.nan_to_num`` puts in place of nan, inf and -inf."""
    return np.sum(np.sin(np.nan_to_num(NON_FINITE, nan=a, posinf=b, neginf=c)))


def _cross_axes(a, b):
    return np.sum(np.sin(np.cross(a, b, axisa=0, axisb=-1, axisc=0)))


def _eigh_case(part, uplo):
    """``sum(sin(w))`` or ``sum(sin(v ** 2))`` (the square: an eigenvector's sign is free)."""

    def f(a):
        out = np.linalg.eigh(a) if uplo is None else np.linalg.eigh(a, uplo)
        return np.sum(np.sin(out[part] ** 2 if part else out[part]))

    return f, None


def _split_case(name, sections):
    """``sum(sin(piece 0)) + 2 sum(sin(piece 1))`` of ``np.<name>(x, sections)``."""

    def build(m):
        fn = getattr(m, name)

        def f(x):
            pieces = fn(x, sections)
            return m.sum(m.sin(pieces[0])) + 2.0 * m.sum(m.sin(pieces[1]))

        return f

    return build(np), (build(anp) if anp is not None else None)


def plain(f_np, f_ag=None):
    """A case written out as a module-level function (and its autograd twin, if any)."""

    def make(m):
        if m is np:
            return f_np
        return f_ag

    return make


# ---------------------------------------------------------------- the table


@dataclass
class Case:
    id: str
    make: object
    args: tuple
    wrt: tuple = None
    autograd: bool = True  # autograd has rules for everything this case uses
    rtol: float = 1e-6
    kw: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.wrt is None:
            self.wrt = tuple(range(len(self.args)))


CASES = []


def case(id, make, *args, **kw):  # noqa: A002
    CASES.append(Case(id, make, args, **kw))


UNARY = {  # name: (low, high) of the inputs
    "sin": (-2, 2), "cos": (-2, 2), "tan": (-1, 1), "arcsin": (-0.9, 0.9),
    "arccos": (-0.9, 0.9), "arctan": (-2, 2), "sinh": (-2, 2), "cosh": (-2, 2),
    "tanh": (-2, 2), "arcsinh": (-2, 2), "arccosh": (1.1, 3), "arctanh": (-0.9, 0.9),
    "exp": (-2, 2), "exp2": (-2, 2), "expm1": (-2, 2), "log": (0.2, 3), "log2": (0.2, 3),
    "log10": (0.2, 3), "log1p": (-0.5, 3), "sqrt": (0.2, 3), "cbrt": (0.2, 3),
    "square": (-2, 2), "abs": (0.1, 2), "absolute": (-2, -0.1), "fabs": (-2, -0.1),
    "negative": (-2, 2), "positive": (-2, 2), "reciprocal": (0.3, 2),
}
NO_AUTOGRAD = {"cbrt", "positive", "float_power", "fmod", "fmax", "fmin", "logaddexp2"}
for name, (low, high) in UNARY.items():
    for shape in [(), (3,), (2, 3)]:
        case(f"{name}{shape}", unary(name), _rand(*shape, low=low, high=high),
             autograd=name not in NO_AUTOGRAD)

BINARY = {  # name: ((low, high) of a, (low, high) of b)
    "add": ((-2, 2), (-2, 2)), "subtract": ((-2, 2), (-2, 2)),
    "multiply": ((-2, 2), (-2, 2)), "divide": ((-2, 2), (0.5, 2)),
    "true_divide": ((-2, 2), (-2, -0.5)), "power": ((0.5, 2), (-1.5, 1.5)),
    "float_power": ((0.5, 2), (-1.5, 1.5)), "arctan2": ((-2, 2), (0.2, 2)),
    "hypot": ((0.2, 2), (-2, -0.2)), "maximum": ((-2, 2), (-2, 2)),
    "minimum": ((-2, 2), (-2, 2)), "fmax": ((-2, 2), (-2, 2)), "fmin": ((-2, 2), (-2, 2)),
    "logaddexp": ((-2, 2), (-2, 2)), "logaddexp2": ((-2, 2), (-2, 2)),
    "remainder": ((1.1, 1.9), (0.6, 0.9)), "fmod": ((1.1, 1.9), (0.6, 0.9)),
}
BROADCAST = [((), (3, 4)), ((3, 4), ()), ((3, 1), (1, 4)), ((3, 1, 4), (2, 4)),
             ((2, 3), (2, 3)), ((), ())]
for name, (ra, rb) in BINARY.items():
    for sa, sb in BROADCAST:
        case(f"{name}{sa}x{sb}", binary(name), _rand(*sa, low=ra[0], high=ra[1]),
             _rand(*sb, low=rb[0], high=rb[1]), autograd=name not in NO_AUTOGRAD)


# angles, sinc (also at 0, where its derivative is a series), nan_to_num
for name in ("deg2rad", "radians", "rad2deg", "degrees", "sinc", "nan_to_num"):
    for shape in [(), (3,), (2, 3)]:
        case(f"{name}{shape}", unary(name), _rand(*shape, low=-2, high=2),
             autograd=name != "nan_to_num")
case("sinc-at-0", unary("sinc"), np.array([0.0, 1e-5, -2e-4, 0.5]))
case("nan_to_num-values", plain(_nan_to_num_values), _rand(), _rand(), _rand(), autograd=False)
# shapes: differences, rotations, shifts, column/row stacking, splits, cross products
case("diff", with_args("diff", 1, -1), _rand(3, 5))
case("diff-2-axis0", with_args("diff", 2, 0), _rand(5, 3))
case("rot90", with_args("rot90", 1), _rand(2, 3))
case("rot90-3-axes12", with_args("rot90", 3, (1, 2)), _rand(2, 3, 4))
case("fftshift", unary("fft.fftshift"), _rand(3, 5), autograd=False)
case("ifftshift", with_args("fft.ifftshift", 1), _rand(3, 5), autograd=False)
case("column_stack", of_tuple("column_stack"), _rand(3), _rand(3, 2))
if hasattr(np, "row_stack"):  # removed in NumPy 2.5
    case("row_stack", of_tuple("row_stack"), _rand(2), _rand(3, 2), autograd=False)
case("cross", binary("cross"), _rand(3), _rand(4, 3))
case("cross-same-shape", binary("cross"), _rand(2, 3), _rand(2, 3))
try:  # 2-vectors: NumPy 2.5 takes 3-vectors only
    np.cross(np.ones(2), np.ones(2))
    case("cross-2-vectors", binary("cross"), _rand(4, 2), _rand(2), autograd=False)
    case("cross-2-and-3", binary("cross"), _rand(2), _rand(4, 3), autograd=False)
except ValueError:
    pass
case("cross-axes", plain(_cross_axes), _rand(3, 2), _rand(2, 3), autograd=False)
case("kron-matrices", binary("kron"), _rand(2, 3), _rand(2, 2))
case("kron-vectors", binary("kron"), _rand(3), _rand(2))
case("kron-matrix-vector", binary("kron"), _rand(2, 3), _rand(2))
case("kron-number-matrix", binary("kron"), _rand(), _rand(2, 2))
case("kron-3d-matrix", binary("kron"), _rand(2, 1, 2), _rand(3, 2))
case("rollaxis", with_args("rollaxis", 2), _rand(2, 3, 4), autograd=False)
case("rollaxis-start", with_args("rollaxis", 0, 3), _rand(2, 3, 4), autograd=False)
case("pinv-tall", unary("linalg.pinv"), _rand(4, 2))
case("pinv-wide", unary("linalg.pinv"), _rand(2, 3))
# eigh: finite differences move every entry; srcad's gradient is that of the function eigh
# computes (it reads the lower triangle), autograd's the symmetric one
case("eigh-values", plain(*_eigh_case(0, None)), _spd(3), autograd=False)
case("eigh-vectors", plain(*_eigh_case(1, None)), _spd(3), autograd=False)
case("eigh-upper", plain(*_eigh_case(0, "U")), _spd(3), autograd=False)
for name, shape, sections in (("vsplit", (4, 3), 2), ("hsplit", (2, 4), [1]),
                              ("hsplit", (4,), 2), ("dsplit", (2, 2, 4), 2)):
    case(f"{name}{shape}", plain(*_split_case(name, sections)), _rand(*shape),
         autograd=name == "vsplit")


def operator_case(symbol):
    """``a <op> b`` written with Python's operators (their rules are in rules/python.py)."""

    def make(m):
        def f(a, b):
            if symbol == "+":
                y = a + b
            elif symbol == "-":
                y = a - b
            elif symbol == "*":
                y = a * b
            elif symbol == "/":
                y = a / b
            elif symbol == "**":
                y = a ** b
            elif symbol == "%":
                y = a % b
            elif symbol == "@":
                y = a @ b
            else:
                y = -a + (+b)
            return m.sum(m.sin(y))

        return f

    return make


for symbol, (ra, rb) in {"+": ((-2, 2), (-2, 2)), "-": ((-2, 2), (-2, 2)),
                         "*": ((-2, 2), (-2, 2)), "/": ((-2, 2), (0.5, 2)),
                         "**": ((0.5, 2), (-1.5, 1.5)), "%": ((1.1, 1.9), (0.6, 0.9)),
                         "unary": ((-2, 2), (-2, 2))}.items():
    for sa, sb in BROADCAST:
        case(f"operator{symbol}{sa}x{sb}", operator_case(symbol),
             _rand(*sa, low=ra[0], high=ra[1]), _rand(*sb, low=rb[0], high=rb[1]),
             autograd=symbol != "unary")  # autograd has no unary +
for sa, sb in [((3, 4), (4, 2)), ((4,), (4, 2)), ((2, 3, 4), (4,)), ((4,), (4,))]:
    case(f"operator@{sa}x{sb}", operator_case("@"), _rand(*sa), _rand(*sb))

case("clip", with_args("clip", -0.5, 0.5), _rand(4, 5))
case("clip-min-only", with_args("clip", -0.5, None), _rand(4, 5))

# reductions: axis None, int, negative, tuple; keepdims both ways
AXES_3D = [None, 0, 1, -1, (0, 2), (-1, 0)]
for name in ["sum", "mean", "prod", "max", "min", "amax", "amin", "var", "std"]:
    for axis in AXES_3D:
        for keepdims in (False, True):
            case(f"{name}-axis{axis}-keepdims{keepdims}", reduction(name, axis, keepdims),
                 _rand(2, 3, 4, low=0.5, high=1.5) if name == "prod" else _rand(2, 3, 4))
for name in ["var", "std"]:
    for axis, ddof in [(None, 1), (1, 1), ((0, 1), 2)]:
        case(f"{name}-axis{axis}-ddof{ddof}", reduction_ddof(name, axis, ddof, False),
             _rand(3, 4, 2))
case("sum-vector", reduction("sum", None, False), _rand(5))
case("sum-scalar", unary("sum"), _rand())
case("mean-scalar", unary("mean"), _rand())

for order, axis, shape in [(None, None, (5,)), (None, None, (3, 4)), (None, None, (2, 3, 2)),
                           (2, None, (5,)), (1, None, (5,)), (3, None, (5,)),
                           (np.inf, None, (5,)), (-np.inf, None, (5,)), (0.5, None, (5,)),
                           (None, 1, (3, 4)), (None, -1, (3, 4)), (2, 0, (3, 4)),
                           ("fro", None, (3, 4)), ("fro", (0, 2), (3, 2, 4)),
                           ("nuc", None, (3, 4)), (2, None, (3, 4)), (-2, None, (3, 4)),
                           (1, None, (3, 4)), (-1, None, (3, 4)), (np.inf, None, (3, 4)),
                           (-np.inf, None, (3, 4)), (1, (1, 0), (3, 4)),
                           (None, (1, 2), (2, 3, 4))]:
    case(f"norm-ord{order}-axis{axis}-{shape}", norm(order, axis), _rand(*shape, low=0.1),
         autograd=order not in ("nuc", 2, -2, 1, -1, np.inf, -np.inf) or len(shape) == 1)
case("norm-keepdims", norm(None, 1, True), _rand(3, 4))

for name in ["cumsum", "cumprod"]:
    for axis, shape in [(None, (5,)), (None, (2, 3)), (0, (3, 4)), (1, (3, 4)), (-1, (2, 3, 2))]:
        case(f"{name}-axis{axis}-{shape}", along(name, axis), _rand(*shape, low=0.5),
             autograd=name == "cumsum" and axis is not None)

for extra, shape in [((), (3, 3)), ((1,), (3, 4)), ((-1, 0, 1), (3, 4)), ((0, 1, 2), (2, 3, 3))]:
    case(f"trace{extra}-{shape}", with_args("trace", *extra) if extra else unary("trace"),
         _rand(*shape))

# products and linear algebra
for name, shapes in {
    "dot": [((), (3,)), ((3,), ()), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)),
            ((3, 4), (4, 2)), ((2, 3, 4), (4,)), ((2, 3, 4), (5, 4, 2)), ((3,), (2, 3, 4))],
    "matmul": [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)),
               ((2, 3, 4), (4, 2)), ((3, 4), (2, 4, 2)), ((2, 1, 3, 4), (5, 4, 2)),
               ((4,), (2, 4, 3)), ((2, 3, 4), (4,))],
    "inner": [((4,), (4,)), ((3, 4), (4,)), ((3, 4), (2, 4)), ((2, 3, 4), (5, 4)), ((), (3,))],
    "outer": [((3,), (4,)), ((2, 3), (4,)), ((), (3,))],
    "vdot": [((4,), (4,)), ((2, 3), (3, 2))],
}.items():
    for sa, sb in shapes:
        case(f"{name}{sa}x{sb}", binary(name), _rand(*sa), _rand(*sb),
             autograd=not (name == "outer" and sa == ()))
for axes, sa, sb in [(2, (2, 3, 4), (3, 4, 5)), (1, (3, 4), (4, 2)), (0, (2,), (3,)),
                     (([1, 0], [0, 1]), (2, 3), (3, 2)), (([0, 2], [2, 1]), (2, 3, 4), (5, 4, 2)),
                     ((-1, 0), (3, 4), (4, 2))]:
    case(f"tensordot{axes}-{sa}x{sb}", two_with_arg("tensordot", axes), _rand(*sa), _rand(*sb))
for spec, shapes in [("ij,jk->ik", [(3, 4), (4, 2)]), ("ij,ij->", [(3, 4), (3, 4)]),
                     ("ii->", [(3, 3)]), ("ii->i", [(3, 3)]), ("ij->ji", [(2, 3)]),
                     ("ij->j", [(2, 3)]), ("ijk,ikl->ijl", [(2, 3, 4), (2, 4, 5)]),
                     ("i,j->ij", [(3,), (4,)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
                     ("ij,jk", [(2, 3), (3, 4)]), ("bij,j->bi", [(2, 3, 4), (4,)]),
                     ("iij->j", [(3, 3, 2)]), ("ij,k->i", [(2, 3), (4,)])]:
    case(f"einsum-{spec}", einsum(spec, len(shapes)), *[_rand(*s) for s in shapes],
         autograd=spec != "iij->j")

case("inv", unary("linalg.inv"), _spd(3))
case("inv-batch", unary("linalg.inv"), _spd(3, (2,)))
case("det", unary("linalg.det"), _rand(3, 3) + 2 * np.eye(3))
case("det-batch", unary("linalg.det"), _rand(2, 3, 3) + 2 * np.eye(3))
case("solve-vector", binary("linalg.solve"), _spd(3), _rand(3))
case("solve-matrix", binary("linalg.solve"), _spd(3), _rand(3, 2))
case("solve-batch", binary("linalg.solve"), _spd(3, (2,)), _rand(2, 3, 2))

# shapes
for path, extra, shape in [
    ("reshape", ((4, 3),), (3, 4)), ("reshape", ((-1,),), (3, 4)), ("reshape", (-1,), (2, 3)),
    ("reshape", ((2, 6), "F"), (3, 4)), ("transpose", (), (2, 3, 4)),
    ("transpose", ((1, 2, 0),), (2, 3, 4)), ("swapaxes", (0, 2), (2, 3, 4)),
    ("moveaxis", (0, -1), (2, 3, 4)), ("moveaxis", ((0, 1), (2, 0)), (2, 3, 4)),
    ("squeeze", (), (3, 1, 2, 1)), ("squeeze", (1,), (3, 1, 2, 1)),
    ("expand_dims", (1,), (3, 2)), ("expand_dims", ((0, 3),), (3, 2)), ("ravel", (), (3, 4)),
    ("atleast_2d", (), (3,)), ("copy", (), (3, 2)), ("flip", (), (3, 4)),
    ("flip", (1,), (3, 4)), ("fliplr", (), (3, 4)), ("flipud", (), (3, 4)),
    ("roll", (2,), (3, 4)), ("roll", (1, 1), (3, 4)), ("roll", ((1, -2), (0, 1)), (3, 4)),
    ("tile", (2,), (3,)), ("tile", ((2, 3),), (2, 2)), ("tile", ((2, 1, 2),), (3, 2)),
    ("repeat", (3,), (2, 2)), ("repeat", (2, 1), (2, 3)), ("repeat", ([1, 0, 2], 1), (2, 3)),
    ("broadcast_to", ((2, 3, 4),), (3, 1)), ("broadcast_to", ((2, 3),), (3,)),
    ("pad", (1,), (3, 2)), ("pad", (((1, 0), (2, 3)),), (3, 2)),
    ("sort", (), (3, 4)), ("sort", (0,), (3, 4)), ("sort", (None,), (3, 4)),
    ("diag", (), (4,)), ("diag", (1,), (3,)), ("diag", (), (3, 3)), ("diag", (-1,), (3, 4)),
    ("diagonal", (), (3, 4)), ("diagonal", (1, 0, 2), (3, 2, 4)),
    ("triu", (), (3, 4)), ("triu", (1,), (3, 4)), ("tril", (), (4, 3)), ("tril", (-1,), (4, 4)),
    ("array", (), (3, 2)), ("asarray", (), (3,)), ("cumsum", (), (2, 3)),
]:
    make = with_args(path, *extra) if extra else unary(path)
    case(f"{path}{extra}-{shape}", make, _rand(*shape),
         autograd=path not in ("fliplr", "flipud", "tile", "diagonal")
         and not (path == "pad" and len(np.shape(extra[0])) > 1)
         and not (path == "repeat" and np.ndim(extra[0]) > 0))

for path in ["concatenate", "stack"]:
    for axis, sa, sb in [(0, (2, 3), (4, 3)), (1, (2, 3), (2, 1)), (-1, (2, 3), (2, 2)),
                         (None, (2, 3), (4,))]:
        if path == "stack":
            sb = sa
            if axis is None:
                continue
        case(f"{path}-axis{axis}-{sa}+{sb}", of_list(path, axis), _rand(*sa), _rand(*sb))
for path, sa, sb in [("hstack", (2,), (3,)), ("hstack", (2, 3), (2, 1)), ("hstack", (), (3,)),
                     ("vstack", (3,), (3,)), ("vstack", (2, 3), (1, 3)), ("vstack", (2, 3), (3,))]:
    case(f"{path}-{sa}+{sb}", of_tuple(path), _rand(*sa), _rand(*sb))


# ---------------------------------------------------------------- hand-written cases


def where_case(x, y):
    return np.sum(np.sin(np.where(x > y, x * 2.0, y)))


def where_case_ag(x, y):
    return anp.sum(anp.sin(anp.where(x > y, x * 2.0, y)))


def where_broadcast(x, y):
    return np.sum(np.sin(np.where(x > 0.0, x, y)))


def where_broadcast_ag(x, y):
    return anp.sum(anp.sin(anp.where(x > 0.0, x, y)))


def clip_bounds(x, lo, hi):
    return np.sum(np.sin(np.clip(x, lo, hi) * 3.0))


def clip_bounds_ag(x, lo, hi):
    return anp.sum(anp.sin(anp.clip(x, lo, hi) * 3.0))


def array_of_values(a, b):
    v = np.array([a, a * b, 2.0, np.sin(b)])
    return np.sum(v * np.arange(1.0, 5.0) * v)


def array_of_values_ag(a, b):
    v = anp.array([a, a * b, 2.0, anp.sin(b)])
    return anp.sum(v * anp.arange(1.0, 5.0) * v)


def asarray_of_values(a, b):
    return np.sum(np.sin(np.asarray([(a, b), (b * a, 1.0)], dtype=float) ** 2))


def array_nested(a, b):
    m = np.array([[a, b], [b * b, 1.0]])
    return np.linalg.det(m) + np.sum(m ** 2)


def array_of_arrays(x, y):
    m = np.array([x, y * 2.0, x * y])
    return np.sum(np.sin(m) * np.arange(12.0).reshape(3, 4))


def stack_appended(x):
    rows = []
    for i in range(4):
        rows.append(np.sin(x * (i + 1.0)))
    return np.sum(np.stack(rows, axis=1) * np.arange(12.0).reshape(3, 4))


def concat_appended(x):
    parts = []
    for i in range(3):
        parts.append(x[i:] * 2.0)
    return np.sum(np.sin(np.concatenate(parts)))


def split_pieces(x):
    a, b, c = np.split(x, 3, axis=1)
    return np.sum(a * np.sin(c)) + np.sum(b) * 0.0 + np.sum(np.cos(a))


def split_pieces_ag(x):
    a, b, c = anp.split(x, 3, axis=1)
    return anp.sum(a * anp.sin(c)) + anp.sum(b) * 0.0 + anp.sum(anp.cos(a))


def split_unused(x):
    parts = np.array_split(x, [1, 3])
    return np.sum(np.sin(parts[1])) * 2.0


def slogdet_case(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet


def slogdet_case_ag(a):
    sign, logdet = anp.linalg.slogdet(a)
    return sign * logdet


def cholesky_case(b):
    low = np.linalg.cholesky(b @ b.T + 3.0 * np.eye(3))
    return np.sum(np.sin(low))


def cholesky_case_ag(b):
    low = anp.linalg.cholesky(anp.dot(b, b.T) + 3.0 * anp.eye(3))
    return anp.sum(anp.sin(low))


def pad_value(x, c):
    return np.sum(np.sin(np.pad(x, 1, constant_values=c)) * np.arange(20.0).reshape(4, 5))


def astype_case(x):
    return np.sum(np.sin(x.astype(float)) + x.astype(np.float64) ** 2)


def matmul_operator(a, b):
    return np.sum(np.sin(a @ b @ a.T))


def matmul_operator_ag(a, b):
    return anp.sum(anp.sin(anp.dot(anp.dot(a, b), a.T)))


def list_used_twice(a, b):
    xs = [a, b * 2.0]
    return np.sum(np.sin(np.concatenate(xs))) + np.sum(np.stack(xs) ** 2)


def list_comprehension(x):
    return np.sum(np.sin(np.stack([x * (i + 1.0) for i in range(3)], axis=-1)))


def sum_of_list(x, y):
    parts = []
    for i in range(3):
        parts.append(x * y ** i)
    return np.sum(np.sin(np.sum(parts, axis=0))) + np.mean(parts) + np.max(np.array(parts))


def clip_keywords(x):
    return np.sum(np.sin(x.clip(min=-0.5) + np.clip(x, max=0.2)))


for id_, f, f_ag, args in [
    ("list-used-twice", list_used_twice, None, (_rand(3), _rand(3))),
    ("list-comprehension", list_comprehension, None, (_rand(4),)),
    ("sum-of-appended-list", sum_of_list, None, (_rand(3), _rand(3))),
    ("clip-keywords", clip_keywords, None, (_rand(3, 4),)),
    ("where", where_case, where_case_ag, (_rand(3, 4), _rand(3, 4))),
    ("where-broadcast", where_broadcast, where_broadcast_ag, (_rand(3, 1), _rand(1, 4))),
    ("clip-array-bounds", clip_bounds, clip_bounds_ag,
     (_rand(3, 4), _rand(3, 1, low=-1, high=-0.3), _rand(4, low=0.3, high=1))),
    ("array-of-values", array_of_values, array_of_values_ag, (0.7, -1.3)),
    ("array-nested", array_nested, None, (0.7, -1.3)),
    ("asarray-of-values", asarray_of_values, None, (0.4, -0.9)),
    ("array-of-arrays", array_of_arrays, None, (_rand(4), _rand(4))),
    ("stack-appended", stack_appended, None, (_rand(3),)),
    ("concatenate-appended", concat_appended, None, (_rand(4),)),
    ("split", split_pieces, split_pieces_ag, (_rand(2, 6),)),
    ("array_split-unused", split_unused, None, (_rand(5, 2),)),
    ("slogdet", slogdet_case, slogdet_case_ag, (_rand(3, 3) - 2 * np.eye(3),)),
    ("cholesky", cholesky_case, cholesky_case_ag, (_rand(3, 3),)),
    ("pad-constant-value", pad_value, None, (_rand(2, 3), 0.4)),
    ("astype", astype_case, None, (_rand(3, 2),)),
    ("matmul-operator", matmul_operator, matmul_operator_ag, (_rand(2, 3), _rand(3, 3))),
]:
    CASES.append(Case(id_, plain(f, f_ag), args, autograd=f_ag is not None))


# ---------------------------------------------------------------- array methods


def methods_reductions(x):
    return (x.sum() + x.mean(axis=0).sum() + x.max(axis=1).sum() + x.min() + x.prod(axis=0).sum()
            + x.std(axis=1, ddof=1).sum() + x.var() + x.cumsum(axis=1).sum() + x.T.sum(axis=0)[1])


def methods_reductions_ag(x):
    return (x.sum() + x.mean(axis=0).sum() + anp.max(x, axis=1).sum() + anp.min(x)
            + anp.prod(x, axis=0).sum() + anp.std(x, axis=1, ddof=1).sum() + anp.var(x)
            + anp.cumsum(x, axis=1).sum() + x.T.sum(axis=0)[1])


def methods_shapes(x):
    y = x.reshape(2, 6).T.reshape((3, 4)).transpose().transpose(1, 0).ravel()
    z = x.flatten().reshape(12, 1).squeeze().copy()
    w = x.reshape(1, 3, 4).transpose((2, 0, 1)).squeeze(axis=1)
    return np.sum(np.sin(y) * z) + np.sum(w ** 3) + x.dot(np.ones(4)).sum() * 2.0


def methods_shapes_ag(x):
    y = anp.ravel(anp.transpose(anp.transpose(anp.reshape(anp.reshape(x, (2, 6)).T, (3, 4)))))
    z = anp.squeeze(anp.reshape(anp.ravel(x), (12, 1)))
    w = anp.squeeze(anp.transpose(anp.reshape(x, (1, 3, 4)), (2, 0, 1)), axis=1)
    return anp.sum(anp.sin(y) * z) + anp.sum(w ** 3) + anp.dot(x, anp.ones(4)).sum() * 2.0


def methods_attributes(x):
    n = x.shape[0]
    return np.sum(x * x) / (n * x.ndim) + x.size * np.sum(x)


def methods_attributes_ag(x):
    n = x.shape[0]
    return anp.sum(x * x) / (n * x.ndim) + x.size * anp.sum(x)


def methods_item(x):
    return x.sum(keepdims=True).item() * x[0, 0]


for id_, f, f_ag, args in [
    ("methods-reductions", methods_reductions, methods_reductions_ag, (_rand(3, 4),)),
    ("methods-shapes", methods_shapes, methods_shapes_ag, (_rand(3, 4),)),
    ("methods-attributes", methods_attributes, methods_attributes_ag, (_rand(3, 2),)),
    ("methods-item", methods_item, None, (_rand(2, 2),)),
]:
    CASES.append(Case(id_, plain(f, f_ag), args, autograd=f_ag is not None))


# ---------------------------------------------------------------- where autograd cannot help
# autograd (1.8) raises, or returns nan, for these: they are checked against finite
# differences only
AUTOGRAD_LACKS = {
    "norm-ord1-axisNone-(5,)": "no rule for ord=1",
    "norm-ord-inf-axisNone-(5,)": "no rule for ord=-inf",
    "norm-ord0.5-axisNone-(5,)": "no rule for ord=0.5",
    "norm-ordinf-axisNone-(5,)": "returns nan",
    "norm-keepdims": "fails with keepdims",
    "trace(-1, 0, 1)-(3, 4)": "fails for a non-square trace",
    "trace(0, 1, 2)-(2, 3, 3)": "no axis1/axis2",
    "outer(2, 3)x(4,)": "does not flatten",
    "vdot(4,)x(4,)": "no rule", "vdot(2, 3)x(3, 2)": "no rule",
    "einsum-ii->": "no repeated subscripts", "einsum-ii->i": "no repeated subscripts",
    "copy()-(3, 2)": "no rule", "flip()-(3, 4)": "no rule", "flip(1,)-(3, 4)": "no rule",
    "roll((1, -2), (0, 1))-(3, 4)": "no tuple shift",
    "broadcast_to((2, 3, 4),)-(3, 1)": "no new leading axes",
    "broadcast_to((2, 3),)-(3,)": "no new leading axes",
    "pad(1,)-(3, 2)": "needs mode", "sort()-(3, 4)": "1-d only", "sort(0,)-(3, 4)": "1-d only",
    "sort(None,)-(3, 4)": "1-d only", "diag(-1,)-(3, 4)": "square only",
    "asarray()-(3,)": "no rule", "concatenate-axisNone-(2, 3)+(4,)": "no axis=None",
    "where-broadcast": "no broadcasting", "clip-array-bounds": "no array bounds",
    "sinc-at-0": "nan at 0", "rot90-3-axes12": "no axes=", "cross": "no broadcasting",
}
for c in CASES:
    if c.id in AUTOGRAD_LACKS:
        c.autograd = False

# ---------------------------------------------------------------- the checks

IDS = [c.id for c in CASES]
assert len(set(IDS)) == len(IDS), "case ids must be unique"
assert set(AUTOGRAD_LACKS) <= set(IDS), set(AUTOGRAD_LACKS) - set(IDS)


def _srcad_grads(c):
    """srcad's gradients, as a tuple (``wrt`` is always a tuple here)."""
    f = c.make(np)
    return f, srcad.grad(f, wrt=c.wrt)(*c.args)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_against_finite_differences(c):
    f, grads = _srcad_grads(c)
    expected = numerical_grad(f, c.args, c.wrt)
    scale = 1e-8 * (1.0 + abs(f(*c.args)))
    for i, g, e in zip(c.wrt, grads, expected):
        assert np.shape(g) == np.shape(c.args[i]), f"{c.id}: shape of gradient {i}"
        if np.ndim(c.args[i]) == 0:
            assert isinstance(g, (float, np.floating)), f"{c.id}: gradient {i} is {type(g)}"
        np.testing.assert_allclose(g, e, rtol=c.rtol, atol=scale, err_msg=f"{c.id} arg {i}")


AUTOGRAD_CASES = [c for c in CASES if c.autograd]


@pytest.mark.parametrize("c", AUTOGRAD_CASES, ids=[c.id for c in AUTOGRAD_CASES])
def test_against_autograd(c):
    if autograd is None:
        pytest.skip("autograd is not installed")
    _, grads = _srcad_grads(c)
    expected = autograd.grad(c.make(anp), c.wrt)(*c.args)
    for i, g, e in zip(c.wrt, grads, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12, err_msg=f"{c.id} arg {i}")


# ---------------------------------------------------------------- second derivatives
# The generated code calls the grad_* helpers; their own rules make it differentiable again.


def second_elementwise(x):
    return np.sum(np.sin(x) * x ** 3 + np.maximum(x, 0.1) ** 2)


def second_reductions(x):
    return (np.sum(np.var(x, axis=0) * np.std(x, axis=1, keepdims=True)) + np.mean(x ** 3)
            + np.sum(np.max(x, axis=1) ** 2))


def second_products(x, w):
    return (np.sum(np.tanh(x @ w)) + np.sum(np.dot(w.T, x.T) ** 2)
            + np.sum(np.tensordot(x, w, 1) ** 3) + np.inner(x[0], x[1]) ** 2)


def second_shapes(x):
    y = np.concatenate([x, x.T.reshape(2, 3)], axis=1)
    z = np.stack([x[0], x[1] ** 2])
    return (np.sum(np.sin(y)) + np.sum(z ** 3) + np.sum(np.cumsum(x, axis=1) ** 2)
            + np.trace(x[:, :2] ** 3) + np.sum(np.tile(x, 2) ** 3) + np.sum(np.pad(x, 1) ** 3))


def second_assembly(a, b):
    v = np.array([a, a * b, np.sin(b)])
    return np.sum(v ** 3) + np.sum(np.clip(v, -0.5, 0.5) ** 2)


SECOND = [
    ("elementwise", second_elementwise, (_rand(5),)),
    ("reductions", second_reductions, (_rand(3, 4),)),
    ("products", second_products, (_rand(2, 3), _rand(3, 2))),
    ("shapes", second_shapes, (_rand(2, 3),)),
    ("assembly", second_assembly, (0.3, -0.7)),
]


@pytest.mark.parametrize("f, args", [s[1:] for s in SECOND], ids=[s[0] for s in SECOND])
def test_second_derivatives(f, args):
    """d/dx_j <grad_i f(x), u> from srcad.vjp of srcad.grad, against finite differences."""
    for i in range(len(args)):
        first = srcad.grad(f, wrt=i)
        u = RNG.normal() if np.ndim(args[i]) == 0 else RNG.normal(size=np.shape(args[i]))

        def along_u(*xs, first=first, u=u):
            return np.sum(first(*xs) * u)

        _, pullback = srcad.vjp(first, *args)
        for j, h in enumerate(pullback(u)):
            expected = numerical_grad(along_u, args, j)
            np.testing.assert_allclose(h, expected, rtol=1e-6, atol=1e-7,
                                       err_msg=f"d/d{j} of gradient {i}")


# ---------------------------------------------------------------- special points, by hand


def max_all(x):
    return np.max(x)


def max_rows(x):
    return np.sum(np.max(x, axis=1) * np.array([1.0, 10.0]))


def maximum_tie(x, y):
    return np.sum(np.maximum(x, y))


def relu_sum(x):
    return np.sum(np.maximum(x, 0.0))


def prod_with_zero(x):
    return np.prod(x)


def cumprod_with_zero(x):
    return np.sum(np.cumprod(x) * np.array([1.0, 2.0, 3.0, 4.0]))


def norm_inf(x):
    return np.linalg.norm(x, np.inf)


def test_max_ties_split_equally():
    g = srcad.grad(max_all)(np.array([1.0, 3.0, 3.0, 2.0]))
    np.testing.assert_array_equal(g, [0.0, 0.5, 0.5, 0.0])
    g = srcad.grad(max_rows)(np.array([[2.0, 2.0, 2.0], [0.0, 5.0, 1.0]]))
    np.testing.assert_allclose(g, [[1 / 3, 1 / 3, 1 / 3], [0.0, 10.0, 0.0]])


def test_maximum_ties_split_equally():
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([1.0, 3.0, 2.0])
    gx, gy = srcad.grad(maximum_tie, wrt=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(gy, [0.5, 1.0, 0.0])
    np.testing.assert_array_equal(srcad.grad(relu_sum)(np.array([-1.0, 0.0, 2.0])),
                                  [0.0, 0.5, 1.0])


def test_norm_inf_ties_split_equally():
    g = srcad.grad(norm_inf)(np.array([1.0, -3.0, 3.0]))
    np.testing.assert_array_equal(g, [0.0, -0.5, 0.5])


def test_prod_and_cumprod_exact_with_zeros():
    # d prod / d x_i is the product of the others: at a zero, only that entry is non-zero
    g = srcad.grad(prod_with_zero)(np.array([2.0, 0.0, 3.0, 5.0]))
    np.testing.assert_array_equal(g, [0.0, 30.0, 0.0, 0.0])
    g = srcad.grad(prod_with_zero)(np.array([2.0, 0.0, 3.0, 0.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.0, 0.0])
    # cumprod of [a, b, c, d] weighted by 1..4: a + 2ab + 3abc + 4abcd
    a, b, c, d = 2.0, 0.0, 3.0, 5.0
    g = srcad.grad(cumprod_with_zero)(np.array([a, b, c, d]))
    expected = [1 + 2 * b + 3 * b * c + 4 * b * c * d, 2 * a + 3 * a * c + 4 * a * c * d,
                3 * a * b + 4 * a * b * d, 4 * a * b * c]
    np.testing.assert_array_equal(g, expected)


def square_sum(x):
    return np.sum(x * x)


def test_integer_array_wrt_is_refused():
    with pytest.raises(srcad.SrcadError, match="dtype"):
        srcad.grad(square_sum)(np.arange(3))
    with pytest.raises(srcad.SrcadError):
        srcad.grad(square_sum)(np.array([True, False]))


def test_gradient_of_float_argument_is_float():
    g = srcad.grad(unary("sin")(np))(0.3)
    assert isinstance(g, (float, np.floating)) and np.ndim(g) == 0
    assert g == pytest.approx(np.cos(np.sin(0.3)) * np.cos(0.3), rel=1e-14)


def random_noise(x):
    noise = np.random.normal(0.0, 1.0, size=np.shape(x))
    return np.sum(x * 0.0 * noise + x * x)


def unused_draw(x):
    unused = np.random.normal(size=3)  # noqa: F841  (it moves the random stream on)
    return np.sum(np.random.normal(size=3) * x)


def test_unused_random_draw_is_kept():
    """Dead-code elimination keeps a draw nobody reads: it moves the random stream on."""
    np.random.seed(0)
    g = srcad.grad(unused_draw)(np.ones(3))
    np.random.seed(0)
    np.random.normal(size=3)
    np.testing.assert_array_equal(g, np.random.normal(size=3))


def test_nondifferentiable_functions_need_no_rule():
    np.random.seed(0)
    np.testing.assert_allclose(srcad.grad(random_noise)(np.ones(3)), [2.0, 2.0, 2.0])
    from srcad.rules import registry

    for fn in [np.argmax, np.argmin, np.argsort, np.shape, np.zeros, np.ones, np.eye,
               np.random.randn, np.random.normal, np.less, np.isfinite, np.zeros_like,
               np.ones_like, np.sign]:
        assert registry.is_nondiff(fn), fn
    # the fill value flows into every element (a constant would be a wrong, zero, gradient)
    for fn in [np.full, np.full_like, np.linspace, np.logspace, np.geomspace]:
        assert not registry.is_nondiff(fn) and registry.has_rule(fn), fn
    # a grid's values move with float bounds: refused where a bound varies (test_jacobian_modes)
    for fn in [np.arange]:
        assert not registry.is_nondiff(fn) and not registry.has_rule(fn), fn


def rows_by_truncated_index(w):
    picked = w[:, :-1][np.int64(w[:, -1])]  # the last column, truncated, picks rows
    return np.sum(picked) + np.sum(np.int32(w) * w)


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_conversion_to_an_integer_type_is_flat(scale):
    """np.int64(x) truncates (as int(x)): piecewise constant, against finite differences and
    autograd."""
    w = np.random.default_rng(3).uniform(0.1, 4.9, size=(5, 4)) * scale / 3
    g = srcad.grad(rows_by_truncated_index)(w)
    np.testing.assert_allclose(g, numerical_grad(rows_by_truncated_index, (w,)), atol=1e-6)
    if autograd is not None:
        theirs = autograd.grad(lambda w: anp.sum(w[:, :-1][anp.int64(w[:, -1])])
                               + anp.sum(anp.int32(w) * w))(w)
        np.testing.assert_allclose(g, theirs, rtol=1e-12)
    u = np.ones_like(w)
    assert srcad.jvp(rows_by_truncated_index, (w,), (u,))[1] == pytest.approx(np.sum(g * u))


def test_declared_kinds_are_the_analysis_kinds():
    from srcad.core.kinds import ARRAY, SEQ
    from srcad.rules import registry

    kinds = {rule.kind for rules in registry.rules.values() for rule in rules} - {None}
    assert kinds <= {ARRAY, SEQ, "reduction"}


@pytest.mark.parametrize(("call", "kind"), [
    ("np.sum(x)", "scalar"), ("np.sum(x, axis=0)", "array"),
    ("np.max(x, keepdims=True)", "array"), ("x.sum()", "scalar"), ("x.mean(axis=1)", "array"),
])
def test_reduction_kinds(call, kind, tmp_path):
    """A full reduction is a number, a partial one an array: the code after it is plain."""
    import importlib.util

    path = tmp_path / "reduce_case.py"
    path.write_text(f"import numpy as np\n\n\ndef f(x):\n    return {call}\n")
    spec = importlib.util.spec_from_file_location("reduce_case", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from srcad.analysis.analyse import Analysis
    from srcad.pipeline import to_ssa

    fn, _ = to_ssa(module.f)
    analysis = Analysis(fn, {"x": "array"}, ["x"])
    assert analysis.kind(fn.body[-1].value) == kind


def test_every_template_helper_exists():
    """Each name a NumPy template calls is np, a generic name, a generated-code helper, or
    ``len``, ``sum`` or ``isinstance`` (Python's: the generated code's globals hold no user
    names, so a module's own ``len`` does not reach it; max/min(..., default=) test for an
    empty iterable; ``fill``'s adjoint adds a list's gradients with Python's ``sum``)."""
    from srcad.backend.emit import HELPER_OBJECTS
    from srcad.rules import GENERIC, registry

    known = set(HELPER_OBJECTS) | set(GENERIC) | {"len", "sum", "isinstance"}
    for rules in registry.rules.values():
        for rule in rules:
            own = set(getattr(rule, "namespace", None) or ())  # a user rule's own names
            for param, template in rule.templates.items():
                called = {n.func.id for n in ast.walk(template)
                          if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
                assert called <= known | own, f"{rule.name}: {param} calls {called - known}"


def test_rules_doc_is_current():
    """docs/rules.md is generated from the registry: regenerate it with tools/gen_rules_doc.py."""
    if not hasattr(np, "row_stack"):
        pytest.skip("docs/rules.md is written with a NumPy that still has np.row_stack "
                    "(removed in NumPy 2.5), whose rule it lists")
    import pathlib
    import subprocess
    import sys

    # a fresh interpreter: rules that other tests register must not count
    script = pathlib.Path(__file__).resolve().parent.parent / "tools" / "gen_rules_doc.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
