"""Complex numbers, against finite differences along the real and the imaginary directions,
autograd, and JAX (when installed): JAX's convention (docs/supported-python.md).

For a real-valued ``f`` of complex ``z = x + iy`` the gradient is ``df/dx - 1j df/dy``, so a
tangent ``u`` moves ``f`` by ``Re(sum(grad * u))``; for a holomorphic ``f``,
``grad(f, holomorphic=True)`` is ``f'(z)``; ``vjp`` sends a cotangent ``g`` of ``y = f(z)`` to
``g * f'(z)`` (no conjugate). Families: functions x shapes x modes (reverse, forward, the
finite differences), generated from the tables below; then the refusals.
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad

# ---------------------------------------------------------------- the functions
# each takes the NumPy module to use (numpy, autograd.numpy or jax.numpy) and gives a
# real-valued function of one complex array
REAL_VALUED = {
    "abs2": lambda n: lambda z: n.sum(n.abs(z) ** 2),
    "real_sin": lambda n: lambda z: n.sum(n.real(n.sin(z) * z)),
    "imag_exp": lambda n: lambda z: n.sum(n.imag(n.exp(z) / (1 + z * z))),
    "angle": lambda n: lambda z: n.sum(n.angle(z) * n.real(z)),
    "conj": lambda n: lambda z: n.real(n.sum(n.conj(z) * z * z)),
    "attributes": lambda n: lambda z: n.sum(z.real * z.imag + z.conj().real ** 2),
    "log_sqrt": lambda n: lambda z: n.sum(n.abs(n.log(z) + n.sqrt(z))),
    "power": lambda n: lambda z: n.sum(n.abs(z ** 3 - 2 * z)),
    "tanh": lambda n: lambda z: n.sum(n.real(n.tanh(z))),
    "divide": lambda n: lambda z: n.sum(n.real(1 / (z + 3))),
    "cumsum": lambda n: lambda z: n.sum(n.abs(n.cumsum(z))),
    "concatenate": lambda n: lambda z: n.sum(n.abs(n.concatenate([z, n.conj(z) * 2j])) ** 1.5),
    "reshape": lambda n: lambda z: n.sum(n.imag(n.reshape(z, (-1,)) ** 2)),
    "fft": lambda n: lambda z: n.sum(n.abs(n.fft.fft(z)) ** 2 * n.arange(z.shape[-1])),
    "fft_n": lambda n: lambda z: n.sum(n.abs(n.fft.fft(z, z.shape[-1] + 2))),
    "ifft_ortho": lambda n: lambda z: n.sum(n.real(n.fft.ifft(z, norm="ortho") * (1 + 2j))),
    "fftn": lambda n: lambda z: n.sum(n.abs(n.fft.fftn(z)) ** 1.5),
    "ifftn": lambda n: lambda z: n.sum(n.imag(n.fft.ifftn(z) * n.conj(z))),
    "irfft": lambda n: lambda z: n.sum(n.fft.irfft(z) * n.arange(2 * z.shape[-1] - 2)),
    "irfft_odd": lambda n: lambda z: n.sum(n.fft.irfft(z, 5, norm="ortho") ** 2),
    "max_min": lambda n: lambda z: n.sum(n.abs(z * n.max(z, axis=-1, keepdims=True) - n.min(z))),
    "var_std": lambda n: lambda z: n.sum(n.var(z, axis=-1)) + n.std(z, ddof=1) * 2,
    "prod": lambda n: lambda z: n.abs(n.sum(n.prod(z, axis=-1))),
    "kron": lambda n: lambda z: n.sum(n.abs(n.kron(z, z[..., :2]))),
    "arccosh": lambda n: lambda z: n.sum(n.real(n.arccosh(z * 2) * (1 + 1j))),
    "sign": lambda n: lambda z: n.sum(n.real(n.sign(z) * (1 + 2j)) * n.abs(z)),
}
SHAPES = [(3,), (2, 3)]
#: what autograd does not do: attributes of its boxes, irfft of an odd length, rfft's norm
NOT_AUTOGRAD = {"attributes", "irfft_odd", "rfft_n", "arccosh", "sign"}
#: where JAX's gradient is not NumPy's function's: arccosh takes 1 / sqrt(z**2 - 1), the
#: other branch for some z (at z = -1 + 1j finite differences side with srcad)
NOT_JAX = {"arccosh", "sign"}
NOT_JAX_WHY = ("JAX differentiates arccosh on another branch; JAX and autograd give np.sign of "
               "a complex z = z / |z| a zero derivative, which finite differences do not confirm")

#: real arguments through complex values
REAL_IN = {
    "phase": lambda n: lambda x: n.sum(n.real(x * n.exp(1j * x))),
    "rfft": lambda n: lambda x: n.sum(n.abs(n.fft.rfft(x)) * 1.5),
    "rfft_n": lambda n: lambda x: n.sum(n.abs(n.fft.rfft(x, 6, norm="forward")) ** 2),
    "promote": lambda n: lambda x: n.sum(n.abs(x + 1j * x[::-1]) ** 3),
    "irfft_real": lambda n: lambda x: n.sum(n.fft.irfft(x * (1 - 1j)) ** 2),
    "fft2": lambda n: lambda x: n.sum(n.abs(n.fft.fft2(n.reshape(x, (2, -1)))) ** 1.5),
    "rfftn": lambda n: lambda x: n.sum(n.imag(n.fft.rfftn(n.reshape(x, (-1, 2))) ** 2)),
}

#: holomorphic functions of a complex number: f and f'
HOLOMORPHIC = {
    "poly": (lambda z: z ** 3 - 2j * z + 1, lambda z: 3 * z ** 2 - 2j),
    "sin_exp": (lambda z: np.sin(z) * np.exp(z), lambda z: (np.cos(z) + np.sin(z)) * np.exp(z)),
    "log_sqrt": (lambda z: np.log(z) + np.sqrt(z), lambda z: 1 / z + 0.5 / np.sqrt(z)),
    "quotient": (lambda z: z / (1 + z * z), lambda z: (1 - z * z) / (1 + z * z) ** 2),
}


def _complex(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape) + 1j * rng.normal(size=shape) + 0.5


def _fd_complex(f, z, h=1e-6):
    """df/dx - 1j df/dy, element by element, by central differences."""
    out = np.zeros(z.shape, dtype=complex)
    for k in np.ndindex(z.shape):
        e = np.zeros(z.shape)
        e[k] = h
        dx = (f(z + e) - f(z - e)) / (2 * h)
        dy = (f(z + 1j * e) - f(z - 1j * e)) / (2 * h)
        out[k] = dx - 1j * dy
    return out


def _fd_real(f, x, h=1e-6):
    out = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[k] = h
        out[k] = (f(x + e) - f(x - e)) / (2 * h)
    return out


CASES = [(name, shape) for name in REAL_VALUED for shape in SHAPES]


@pytest.mark.parametrize("name, shape", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_real_valued_function_of_complex_arrays(name, shape):
    z = _complex(shape, len(name) + len(shape))
    f = REAL_VALUED[name](np)
    g = srcad.grad(f)(z)
    assert np.iscomplexobj(g) and g.shape == z.shape
    np.testing.assert_allclose(g, _fd_complex(f, z), rtol=1e-5, atol=1e-6)
    if name not in NOT_AUTOGRAD:
        np.testing.assert_allclose(g, autograd.grad(REAL_VALUED[name](anp))(z), rtol=1e-9,
                                   atol=1e-12)
    # forward mode: a tangent u moves f by Re(sum(grad * u))
    u = _complex(shape, 7) - 0.5
    value, tangent = srcad.jvp(f, (z,), (u,))
    assert value == pytest.approx(f(z))
    assert tangent == pytest.approx(np.real(np.sum(g * u)), rel=1e-9, abs=1e-12)
    # value_and_grad and a second call (the cached specialisation)
    v, g2 = srcad.value_and_grad(f)(z * 1.1)
    assert v == pytest.approx(f(z * 1.1))
    np.testing.assert_allclose(g2, _fd_complex(f, z * 1.1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(REAL_VALUED))
def test_against_jax(name):
    if name in NOT_JAX:
        pytest.skip(NOT_JAX_WHY)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    z = _complex((2, 3), len(name))
    ours = srcad.grad(REAL_VALUED[name](np))(z)
    theirs = np.asarray(jax.grad(REAL_VALUED[name](jnp))(jnp.asarray(z)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    u = _complex((2, 3), 3)
    _, t_ours = srcad.jvp(REAL_VALUED[name](np), (z,), (u,))
    _, t_theirs = jax.jvp(REAL_VALUED[name](jnp), (jnp.asarray(z),), (jnp.asarray(u),))
    assert t_ours == pytest.approx(float(t_theirs), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", list(REAL_IN))
@pytest.mark.parametrize("n", [4, 6])
def test_real_arguments_through_complex_values(name, n):
    x = np.random.default_rng(n).normal(size=n)
    f = REAL_IN[name](np)
    g = srcad.grad(f)(x)
    assert g.dtype == np.float64  # the real part flows back into a real argument
    np.testing.assert_allclose(g, _fd_real(f, x), rtol=1e-5, atol=1e-6)
    if name not in NOT_AUTOGRAD:
        np.testing.assert_allclose(g, autograd.grad(REAL_IN[name](anp))(x), rtol=1e-9,
                                   atol=1e-12)
    u = np.random.default_rng(1).normal(size=n)
    _, tangent = srcad.jvp(f, (x,), (u,))
    assert tangent == pytest.approx(np.dot(g, u), rel=1e-9, abs=1e-12)
    # second order: the gradient's own gradient (reverse over reverse) and forward over reverse
    h = srcad.grad(lambda x: np.sum(srcad.grad(f)(x) * u))(x)
    np.testing.assert_allclose(h, _fd_real(lambda x: np.sum(srcad.grad(f)(x) * u), x),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(srcad.hvp(f, (x,), u), h, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", list(HOLOMORPHIC))
@pytest.mark.parametrize("z", [0.3 + 0.4j, -1.2 + 0.7j, 2.0 - 0.5j])
def test_holomorphic(name, z):
    f, df = HOLOMORPHIC[name]
    assert srcad.grad(f, holomorphic=True)(z) == pytest.approx(df(z), rel=1e-10)
    assert autograd.holomorphic_grad(f)(z) == pytest.approx(df(z), rel=1e-10)
    # vjp: a cotangent g goes back as g * f'(z); jvp: a tangent t goes forward as f'(z) t
    out, pullback = srcad.vjp(f, z)
    assert out == pytest.approx(f(z))
    assert pullback(1j)[0] == pytest.approx(1j * df(z), rel=1e-10)
    assert srcad.jvp(f, (z,), (0.5 - 2j,))[1] == pytest.approx(df(z) * (0.5 - 2j), rel=1e-10)
    value, g = srcad.value_and_grad(f, holomorphic=True)(z)
    assert value == pytest.approx(f(z)) and g == pytest.approx(df(z), rel=1e-10)


def test_holomorphic_arrays_through_vjp_match_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    z = _complex((4,), 2)
    g = _complex((4,), 3)

    def f(n):
        return lambda z: n.exp(z) * n.conj(z) + n.fft.fft(z * z)

    ours = srcad.vjp(f(np), z)[1](g)[0]
    theirs = jax.vjp(f(jnp), jnp.asarray(z))[1](jnp.asarray(g))[0]
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-10)
    t = _complex((4,), 5)
    np.testing.assert_allclose(srcad.jvp(f(np), (z,), (t,))[1],
                               np.asarray(jax.jvp(f(jnp), (z,), (t,))[1]), rtol=1e-10)


def test_python_complex_numbers():
    def f(z):
        return abs(z) ** 2 + (z * z).imag

    z = 3 + 4j
    # |z|^2 = x^2 + y^2, Im(z^2) = 2xy: df/dx - 1j df/dy
    assert srcad.grad(f)(z) == pytest.approx((6 + 8) - 1j * (8 + 6))
    assert srcad.grad(f)(z) == pytest.approx(autograd.grad(lambda z: abs(z) ** 2 + anp.imag(
        z * z))(z))

    def g(a, b):
        return abs(complex(a, b) * (1 + 2j)) ** 2

    ga, gb = srcad.grad(g, wrt=(0, 1))(0.3, -0.7)
    assert (ga, gb) == pytest.approx((10 * 0.3, 10 * -0.7))
    assert isinstance(ga, float)


def test_float_code_is_unchanged():
    """A function of floats with no complex value gets the code it always had: no np.real."""
    def f(x):
        return np.sum(np.abs(x) * np.maximum(x, 0.1))

    text = srcad.source(srcad.grad(f), np.ones(3))
    assert "real" not in text and "conj" not in text


# ---------------------------------------------------------------- refusals
REFUSED = {
    "maximum": lambda z: np.sum(np.abs(np.maximum(z, 0.5))),
    "sort": lambda z: np.sum(np.abs(np.sort(z))),
    "lstsq": lambda z: np.sum(np.abs(np.linalg.lstsq(np.outer(z, z) + np.eye(3), z)[0])),
    "clip": lambda z: np.sum(np.abs(np.clip(z, 0.1, 0.5))),
    "rfft_of_complex": lambda z: np.sum(np.abs(np.fft.rfft(z))),
    "minimum": lambda z: np.sum(np.abs(np.minimum(z, 0.5))),
    "vdot": lambda z: np.real(np.vdot(z, z)),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_rules_written_for_real_numbers_refuse_complex_values(name):
    z = _complex((3,), 0)
    with pytest.raises(srcad.MissingRuleError, match="may be complex"):
        srcad.grad(REFUSED[name])(z)
    with pytest.raises(srcad.MissingRuleError, match="may be complex"):
        srcad.jvp(REFUSED[name], (z,), (z,))


def test_complex_output_needs_holomorphic():
    with pytest.raises(srcad.SrcadError, match="holomorphic=True"):
        srcad.grad(lambda z: z * z)(1 + 2j)
    with pytest.raises(srcad.SrcadError, match="complex scalar output"):
        srcad.grad(lambda z: abs(z), holomorphic=True)(1 + 2j)
    with pytest.raises(srcad.SrcadError, match="is real"):
        srcad.grad(lambda z: z * z, holomorphic=True)(1.0)


def test_a_callee_that_makes_complex_values():
    """A user function returning a complex value: the caller knows, and refuses the real-only
    rule after it (rather than differentiate np.maximum of a complex number)."""
    def phase(x):
        return np.exp(1j * x)

    def fine(x):
        return np.sum(np.imag(phase(x)) * x)

    def refused(x):
        return np.sum(np.abs(np.maximum(phase(x), 0.0)))

    x = np.array([0.3, 1.1])
    np.testing.assert_allclose(srcad.grad(fine)(x), np.sin(x) + x * np.cos(x))
    with pytest.raises(srcad.MissingRuleError, match="may be complex"):
        srcad.grad(refused)(x)


def test_the_tape_refuses_complex_values():
    from srcad.tools.tape.var import TapeUnsupportedError

    with pytest.raises(TapeUnsupportedError, match="complex"):
        srcad.tape.grad(lambda x: np.abs(np.exp(1j * x)))(0.5)


def test_promotions_and_arrays_of_complex_numbers():
    x = np.array([0.3, 0.5])
    z = np.array([1 + 2j, 3 - 1j])

    def promoted(x):
        return np.sum(np.abs(x.astype(complex) * (1 + 2j)) ** 2)

    def demoted(z):
        return np.sum(z.astype(float) ** 2)

    def built(a, b):
        return np.sum(np.abs(np.array([a * 1j, b])) ** 2)

    np.testing.assert_allclose(srcad.grad(promoted)(x), 10 * x)
    np.testing.assert_allclose(srcad.grad(demoted)(z), 2 * z.real)
    ga, gb = srcad.grad(built, wrt=(0, 1))(0.3, 0.4 + 1j)
    assert ga == pytest.approx(0.6) and gb == pytest.approx(2 * np.conj(0.4 + 1j))
    assert srcad.jvp(promoted, (x,), (np.ones(2),))[1] == pytest.approx(10 * np.sum(x))


def _written(x):
    z = np.zeros(3, dtype=complex)
    z[0] = x
    z[1] = 1j * x
    return np.sum(np.abs(z) ** 2)


def _appended(x):
    zs = []
    zs.append(x)
    zs.append(x * 1j)
    s = 0.0
    for z in zs:
        s = s + np.abs(z * (1 + 1j)) ** 2
    return s


@pytest.mark.parametrize("f, slope", [(_written, 4.0), (_appended, 8.0)])
def test_real_values_written_into_complex_containers(f, slope):
    """The gradient of a real value put into a complex array or list is real."""
    g = srcad.grad(f)(0.7)
    assert g == pytest.approx(slope * 0.7) and np.isrealobj(g)
    assert srcad.jvp(f, (0.7,), (1.0,))[1] == pytest.approx(slope * 0.7)


def _branch(x, c):
    if c > 0:
        y = x
    else:
        y = x * 1j
    return np.abs(y * (2 + 1j)) ** 2


def _loop(x):
    s = x
    for _ in range(3):
        s = s * (1 + 1j)
    return np.real(s)


@pytest.mark.parametrize("f, args, expected", [
    (_branch, (0.7, 1.0), 7.0), (_branch, (0.7, -1.0), 7.0),
    (_loop, (0.7,), np.real((1 + 1j) ** 3))])
def test_real_values_merged_with_complex_ones(f, args, expected):
    """A branch or a loop that turns a real value complex: the real part flows back."""
    g = srcad.grad(f)(*args)
    assert g == pytest.approx(expected) and np.isrealobj(g)
    assert srcad.jvp(f, args, (1.0,) + (0.0,) * (len(args) - 1))[1] == pytest.approx(expected)


class _Model:
    def __init__(self, phase):
        self.phase = phase

    def loss(self, x):
        return np.sum(np.abs(x * self.phase) ** 3)


def test_an_object_holding_complex_values():
    """A method reading a complex attribute: the object is taken as complex, so abs of the
    product takes its complex form (the real form would give a wrong, complex gradient)."""
    m = _Model(np.array([1j, 1 + 1j]))
    x = np.array([0.3, 0.5])
    np.testing.assert_allclose(srcad.grad(m.loss)(x), 3 * x ** 2 * np.abs(m.phase) ** 3)



# A library function with no rule, called on constants, may return a complex number
# (np.emath.sqrt(-4.0) is 2j): the analysis must not take it for real, or the real part
# JAX's convention sends back into a real operand is skipped (this gave 2j for d/dx Re(2j x)).
OPAQUE_MAKERS = {"emath_sqrt": "np.emath.sqrt(-4.0)", "emath_log": "np.emath.log(-2.0)",
                 "emath_power": "np.emath.power(-3.0, 0.5)",
                 "emath_arcsin": "np.emath.arcsin(2.0)"}
OPAQUE_USES = {"re_mul": "np.real(x * c)", "abs_add": "np.abs(x + c) ** 2",
               "imag_exp": "np.imag(np.exp(x * c))",
               "re_sq": "np.real((x * x + c * x) * np.conj(x * x + c * x))"}
OPAQUE = [(m, u) for m in OPAQUE_MAKERS for u in OPAQUE_USES]


@pytest.mark.parametrize("maker, use", OPAQUE, ids=[f"{m}-{u}" for m, u in OPAQUE])
def test_complex_constant_from_a_library_function_without_rule(maker, use):
    import linecache

    src = f"def f(x):\n    c = {OPAQUE_MAKERS[maker]}\n    return {OPAQUE_USES[use]}\n"
    name = f"<test_complex opaque {maker} {use}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    g = {"np": np}
    exec(compile(src, name, "exec"), g)
    f = g["f"]
    c = eval(OPAQUE_MAKERS[maker], {"np": np})
    use_ag = eval(f"lambda x, c: {OPAQUE_USES[use]}", {"np": anp})
    x = 0.7
    want = (f(x + 1e-6) - f(x - 1e-6)) / 2e-6
    got = srcad.grad(f)(x)
    assert isinstance(got, float)
    assert np.isclose(got, want, rtol=1e-5, atol=1e-7)
    assert np.isclose(got, autograd.grad(use_ag)(x, c), rtol=1e-9, atol=1e-12)


# A rule whose result is complex for some real arguments (scipy.linalg.sqrtm of a matrix with
# a negative eigenvalue): the result is taken as complex, so what flows back into the real
# argument is the real part (this gave a complex gradient for a real x).
SQRTM_USES = {"re_sum": "np.real(np.sum(linalg.sqrtm(A * x)))",
              "abs2_sum": "np.sum(np.abs(linalg.sqrtm(A + x * B)) ** 2)",
              "imag_row": "np.imag(np.sum(linalg.sqrtm(A * x * x)[0]))"}
SQRTM_MATRICES = {"negative_eigenvalue": [[-2.0, 0.5], [0.3, 1.0]],
                  "positive_definite": [[2.0, 0.5], [0.5, 1.0]]}


@pytest.mark.parametrize("use", SQRTM_USES)
@pytest.mark.parametrize("matrix", SQRTM_MATRICES)
def test_sqrtm_of_a_real_matrix_may_be_complex(use, matrix):
    pytest.importorskip("scipy.linalg")
    import linecache

    src = f"def f(x):\n    return {SQRTM_USES[use]}\n"
    name = f"<test_complex sqrtm {use} {matrix}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    from scipy import linalg

    g = {"np": np, "linalg": linalg, "A": np.array(SQRTM_MATRICES[matrix]),
         "B": np.array([[0.4, -0.1], [0.2, 0.3]])}
    exec(compile(src, name, "exec"), g)
    f = g["f"]
    x = 1.3
    want = (f(x + 1e-6) - f(x - 1e-6)) / 2e-6
    got = srcad.grad(f)(x)
    assert isinstance(got, float)
    assert np.isclose(got, want, rtol=1e-5, atol=1e-6)


# A Python number to a fractional power is complex when the number is negative, and an
# object's attribute may hold a complex number on a later call: no kind shows either, so a
# real argument's gradient is checked real at run time (runtime.check_real) and refused when
# it is not; with a positive base the gradient is the real one.
POW_BASES = {"negative": "(-x - 1.0)", "positive": "(x + 5.0)"}
POW_EXPONENTS = ["0.5", "1 / 3", "1.5", "e"]
POW_WRAPS = {"real_scaled": "np.real({y} * 2.0)", "real_square": "np.real({y} * {y})",
             "imag": "np.imag({y})", "added": "np.real({y} + x * x)"}
POW = [(b, e, w) for b in POW_BASES for e in POW_EXPONENTS for w in POW_WRAPS]


@pytest.mark.parametrize("base, exponent, wrap", POW, ids=[f"{b}-{e}-{w}" for b, e, w in POW])
def test_fractional_power_of_a_negative_number_is_refused(base, exponent, wrap):
    import linecache

    y = f"{POW_BASES[base]} ** ({exponent})"
    src = f"def f(x, e=0.25):\n    return {POW_WRAPS[wrap].format(y=y)}\n"
    name = f"<test_complex pow {base} {exponent} {wrap}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    g = {"np": np}
    exec(compile(src, name, "exec"), g)
    f = g["f"]
    x = 2.0
    if base == "negative":
        with pytest.raises(srcad.SrcadError, match="came out complex"):
            srcad.grad(f)(x)
        return
    want = (f(x + 1e-6) - f(x - 1e-6)) / 2e-6
    got = srcad.grad(f)(x)
    assert isinstance(got, float) and np.isclose(got, want, rtol=1e-5, atol=1e-7)


class _Holder:
    def __init__(self, c):
        self.c = c

    def value(self, x):
        return np.real(x * self.c + x * x)


def _through_object(x, h):
    return np.real(h.c * x) + x


@pytest.mark.parametrize("c", [2.0, 2j, 1.0 + 1.0j])
@pytest.mark.parametrize("route", ["bound_method", "object_argument"])
def test_an_attribute_that_becomes_complex_is_refused(route, c):
    """The derivative is made while the attribute is real, then called with it complex."""
    real, h = _Holder(0.5), _Holder(0.5)
    if route == "bound_method":
        d = srcad.grad(h.value)
        assert d(1.5) == pytest.approx(0.5 + 3.0)
        h.c = c
        call = lambda: d(1.5)  # noqa: E731
        want = np.real(c) + 3.0
    else:
        d = srcad.grad(_through_object, wrt=0)
        assert d(1.5, real) == pytest.approx(1.5)
        call = lambda: d(1.5, _Holder(c))  # noqa: E731
        want = np.real(c) + 1.0
    if isinstance(c, complex):
        with pytest.raises(srcad.SrcadError, match="came out complex"):
            call()
    else:
        assert call() == pytest.approx(want)


# The same through user functions: the check is made where a callee (at any depth) may make
# a complex number no kind shows, and only there (a callee of plain arithmetic adds none).
def _frac_power(t):
    return (-t - 1.0) ** 0.5


def _frac_two_deep(t):
    return _frac_power(t) * 2.0


def _attribute_of(t, h):
    return h.c * t


def _plain(t):
    return t * t + 3.0 * t


def _plain_recursive(t, n):
    return t if n == 0 else _plain_recursive(t * 1.5, n - 1)


def _caller_frac(x):
    return np.real(_frac_power(x) * x)


def _caller_two_deep(x):
    return np.real(_frac_two_deep(x) + x)


def _caller_attribute(x, h):
    return np.real(_attribute_of(x, h)) + x


def _caller_plain(x):
    return _plain(x) * _plain_recursive(x, 3)


@pytest.mark.parametrize("caller", [_caller_frac, _caller_two_deep])
def test_a_callee_making_a_complex_number_is_refused(caller):
    with pytest.raises(srcad.SrcadError, match="came out complex"):
        srcad.grad(caller)(2.0)
    assert "check_real" in srcad.source(srcad.grad(caller))


def test_an_attribute_read_in_a_callee_that_becomes_complex_is_refused():
    d = srcad.grad(_caller_attribute, wrt=0)
    assert d(1.5, _Holder(0.5)) == pytest.approx(1.5)
    with pytest.raises(srcad.SrcadError, match="came out complex"):
        d(1.5, _Holder(2j))


def test_callees_of_plain_arithmetic_add_no_check():
    d = srcad.grad(_caller_plain)
    x = 0.7
    want = (_caller_plain(x + 1e-6) - _caller_plain(x - 1e-6)) / 2e-6
    assert d(x) == pytest.approx(want, rel=1e-6)
    assert "check_real" not in srcad.source(d)


def _mutual_a(t, n):
    return t if n <= 0 else _mutual_b(t * 0.5, n - 1)


def _mutual_b(t, n):
    return (-t - 1.0) ** 0.5 if n == 1 else _mutual_a(t + 1.0, n - 1)


def _caller_mutual(x):
    return np.real(_mutual_a(x, 4) * x)


def test_mutual_recursion_making_a_complex_number_is_refused():
    """b makes a complex number and calls a, which calls b: both are asked in one cycle."""
    assert "check_real" in srcad.source(srcad.grad(_caller_mutual))
