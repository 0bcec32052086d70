"""NumPy's functions on Python numbers at their singular points: a derivative that is inf or
nan where NumPy's is, never Python's exception.

``np.log(0.0)`` is ``-inf`` (a warning); its derivative ``1.0 / x`` on a Python float raised
``ZeroDivisionError``. Likewise ``np.arcsin(1.0)`` (``1 / math.sqrt(0.0)``), ``np.sinh(800.0)``
(``math.cosh`` overflows), ``np.power(1e200, 3.0)`` (Python's ``**`` overflows), and, in
forward mode, the tangent of a value the path taken never used (``np.sin(inf)``'s
``math.cos(inf)``). Python's ``x ** 0.5`` at 0 raised in its derivative's ``0.0 ** -0.5``
where the function itself gives 0. The class: a derivative template on numbers spelled with
Python's ``math`` and operators, which raise where the primal (NumPy, or ``**`` to a smaller
power) did not. Now a rule of a function with NumPy's semantics is instantiated on numbers with
NumPy's functions and operators (``transform.templates``), and ``**`` to a negative or unknown
power with ``power_of`` (Python's value, but inf where only the derivative raised).

The mixed second derivative of ``a ** b`` at ``b == 0`` exactly was ``a`` instead of ``1 / a``
(the base's gradient was guarded by ``where(b, b - 1, 1.0)``, flat in ``b`` there): checked
against finite differences of autograd's gradient.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

#: points where NumPy's elementary functions have a pole, a branch point or an overflow
POINTS = (0.0, 1.0, -1.0, 800.0, -800.0, 1e200, -1e200, math.pi / 2)


def _ufuncs(nin):
    """Every real ufunc of NumPy of ``nin`` operands (no gufunc) srcad has a rule for (found,
    not listed)."""
    from srcad.rules import registry

    names = set()
    for rules in registry.rules.values():
        for rule in rules:
            fn = rule.fn
            if (isinstance(fn, np.ufunc) and fn.nin == nin and fn.nout == 1 and not rule.user
                    and fn.signature is None and getattr(np, fn.__name__, None) is fn
                    and "d" in {t[-1] for t in fn.types} and fn.__name__ != "conjugate"):
                names.add(fn.__name__)
    return sorted(names)


def _module(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text("import math\nimport numpy as np\n\n\n" + text)
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


def _modes(f, args):
    """grad, the jvp along each axis, both Hessians: no exception but a SrcadError."""
    wrt = tuple(range(len(args)))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grad = np.atleast_1d(np.array(srcad.grad(f, wrt=wrt)(*args), dtype=float))
        tangents = np.array([srcad.jvp(f, args, tuple(float(i == k) for i in wrt))[1]
                             for k in wrt], dtype=float)
        hessians = [np.array(srcad.hessian(f, wrt=wrt, mode=m)(*args), dtype=float).reshape(
            len(args), len(args)) for m in ("fwd", "rev")]
    return grad, tangents, hessians


@pytest.mark.parametrize("name", _ufuncs(1))
def test_unary_at_singular_points(tmp_path, name):
    f = _module(tmp_path, f"unary_{name}", f"def f(x):\n    return np.{name}(x)\n")["f"]
    reference = getattr(anp, name, None)
    for x in POINTS:
        with np.errstate(all="ignore"):
            value = f(x)
        grad, tangents, (fwd, rev) = _modes(f, (x,))
        assert np.allclose(grad, tangents, equal_nan=True), (x, grad, tangents)
        assert np.allclose(fwd, rev, equal_nan=True), (x, fwd, rev)
        if reference is None or not np.isfinite(value):
            continue
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = [autograd.grad(reference)(x),
                        autograd.grad(autograd.grad(reference))(x)]
            except Exception:  # noqa: BLE001 - autograd has no derivative there
                continue
        for got, expected in zip((grad[0], fwd[0, 0]), want):
            if np.isrealobj(expected) and np.isfinite(expected):  # autograd's nan: no say
                assert np.isclose(got, expected, rtol=1e-9, atol=1e-12), (x, got, expected)


@pytest.mark.parametrize("name", _ufuncs(2))
def test_binary_at_singular_points(tmp_path, name):
    f = _module(tmp_path, f"binary_{name}", f"def f(x, y):\n    return np.{name}(x, y)\n")["f"]
    for x, y in itertools.product((0.0, 1.0, -1.0, 2.0, 800.0, 1e200), repeat=2):
        with np.errstate(all="ignore"):
            try:
                value = f(x, y)
            except TypeError:  # np.ldexp of a float exponent: NumPy's own refusal
                continue
        grad, tangents, _ = _modes(f, (x, y))  # (the Hessians: no exception; at these
        if np.isfinite(value) and np.all(np.isfinite(grad)):  # points some do not exist)
            assert np.allclose(grad, tangents, rtol=1e-12), (x, y, grad, tangents)


POWERS = {
    "operator": "x ** {p}",
    "pow": "pow(x, {p})",
    "math.pow": "math.pow(x, {p})",
    "np.power": "np.power(x, {p})",
    "np.float_power": "np.float_power(x, {p})",
}


@pytest.mark.parametrize("spelling", POWERS)
def test_power_at_a_zero_base(tmp_path, spelling):
    """``0.0 ** p`` for ``0 < p < 1``: the function is 0, its derivative inf (NumPy's and
    autograd's), never Python's ZeroDivisionError or math's ValueError."""
    f = _module(tmp_path, f"zero_base_{spelling.replace('.', '_')}",
                f"def f(x):\n    return {POWERS[spelling].format(p='0.5')}\n")["f"]
    grad, tangents, _ = _modes(f, (0.0,))
    with np.errstate(all="ignore"):
        expected = autograd.grad(anp.sqrt)(np.float64(0.0))  # (at a Python 0.0 it raises too)
    assert np.isinf(expected) and grad[0] == expected and tangents[0] == expected


def test_a_negative_power_of_zero_still_raises_as_python(tmp_path):
    """Where Python's ``**`` raises in the function, srcad's gradient raises the same."""
    f = _module(tmp_path, "negative_power", "def f(x):\n    return (x - x) ** -1.5\n")["f"]
    with pytest.raises(ZeroDivisionError):
        f(1.0)
    with pytest.raises(ZeroDivisionError):
        srcad.grad(f)(1.0)


@pytest.mark.parametrize("spelling", POWERS)
@pytest.mark.parametrize("base", [2.0, 0.3, 5.0])
def test_mixed_second_derivative_at_exponent_zero(tmp_path, spelling, base):
    """d2/dx dp x ** p at p = 0 is 1 / x: finite differences of autograd's gradient (exact
    there: its first derivative is right, only its own second derivative is not)."""
    f = _module(tmp_path, f"mixed_{spelling.replace('.', '_')}",
                f"def f(x, p):\n    return {POWERS[spelling].format(p='p')}\n")["f"]
    d = autograd.grad(lambda v: v[0] ** v[1])
    h = 1e-6
    expected = np.array([(d(np.array([base, 0.0]) + h * e) - d(np.array([base, 0.0]) - h * e))
                         / (2 * h) for e in np.eye(2)])
    for mode in ("fwd", "rev"):
        got = np.array(srcad.hessian(f, wrt=(0, 1), mode=mode)(base, 0.0), dtype=float)
        assert np.allclose(got, expected, rtol=1e-6, atol=1e-9), (mode, got, expected)
        assert np.isclose(got[0, 1], 1 / base) and np.isclose(got[1, 0], 1 / base)


UNUSED = {
    "sin_of_inf": "a = np.power(10.0, x * 400.0)\n    b = np.sin(a)",
    "log_of_zero": "a = x - x\n    b = np.log(a)",
    "arcsin_of_one": "a = x / x\n    b = np.arcsin(a)",
    "sinh_overflow": "a = x * 800.0\n    b = np.sinh(a)",
    "power_overflow": "a = x * 1e200\n    b = np.power(a, 3.0)",
}


@pytest.mark.parametrize("name", UNUSED)
def test_forward_mode_on_a_path_not_taken(tmp_path, name):
    """A value the taken path never uses: its tangent is computed (forward mode is eager), and
    must not raise where the value did not."""
    text = f"def f(x):\n    {UNUSED[name]}\n    if x > 5.0:\n        return b\n    return x * 2.0\n"
    f = _module(tmp_path, f"unused_{name}", text)["f"]
    grad, tangents, (fwd, rev) = _modes(f, (1.0,))
    assert grad[0] == 2.0 and tangents[0] == 2.0
    assert fwd[0, 0] == 0.0 and rev[0, 0] == 0.0
