"""A write of a differentiated value into a copy of an array parameter that is not
differentiated (``d = p.copy(); d += v``, ``d[0] = v``, ``np.add.at(d, i, v)``, ``out=d``): exact
when the argument is a float array (float64 or float32), refused at the line with the rewrite
when it holds integers or booleans (NumPy raises or truncates there); ``d op= v`` there
raises NumPy's own error when the derivative runs, as the plain run does (augment36). The
code is made for the argument's dtype kind (``srcad.core.kinds.INEXACT``,
``srcad.backend.keys.cache_key``), so one derivative called with a float array, then an int
one, then a float one again, answers or refuses each time by the argument, never by the code
made first. Checked against central differences and autograd on a functional twin. Cheap by
default (a sample of the forms and transforms), every case under SRCAD_LONG_PROPERTIES=1."""

import autograd
import numpy as np
import pytest

import srcad
from srcad.backend.keys import cache_key
from srcad.core.kinds import DOUBLE, INEXACT, kind_of_value, with_dtypes
from tests.sampling import LONG, sample_by
from tests.twin_checks import central

#: form -> (the write into ``d = p.copy()``, its functional twin for autograd)
FORMS = {
    "+=": ("d += x * x", "d = p + x * x"),
    "-=": ("d -= np.sin(x)", "d = p - anp.sin(x)"),
    "*=": ("d *= x", "d = p * x"),
    "item": ("d[0] = x[1] * x[2]", "d = p * anp.array([0.0, 1.0, 1.0]) + anp.array("
             "[1.0, 0.0, 0.0]) * (x[1] * x[2])"),
    "slice": ("d[1:] = x[:2] * 2.0", "d = anp.concatenate([p[:1], x[:2] * 2.0])"),
    "add.at": ("np.add.at(d, [0, 0, 2], x)", "d = p + anp.dot(anp.array([[1.0, 1.0, 0.0], "
               "[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]), x)"),
    "out=": ("np.multiply(d, x, out=d)", "d = p * x"),
}
#: the forms that are ``d op= v``: into an int or bool array they raise NumPy's own error,
#: as the plain run does (augment36); the others are refused at the line
AUGMENTED = ("+=", "-=", "*=")
TRANSFORMS = ["grad", "value_and_grad", "jvp", "vjp", "jacrev", "hessian"]
#: the arguments for ``p``, in the order each derivative is called: floats, then integers,
#: floats again, booleans, float32, floats
SEQUENCE = [("f", np.array([0.5, -1.0, 2.0])), ("i", np.array([1, -2, 3])),
            ("f", np.array([1.5, 0.25, -0.5])), ("b", np.array([True, False, True])),
            ("f32", np.array([0.5, 2.0, -1.0], dtype=np.float32)),
            ("f", np.array([-0.5, 1.0, 0.75]))]
CASES = sample_by([(form, t) for form in FORMS for t in TRANSFORMS], lambda c: c[0], 1)
WRITE_LINE = 6  # the write's line in the module text below


def _text(form):
    write, twin = FORMS[form]
    return (f"import numpy as np\nimport autograd.numpy as anp\n\n\ndef fv(x, p):\n"
            f"    d = p.copy(); {write}\n    return np.sin(d) * x\n\n\n"
            f"def fs(x, p):\n    return np.sum(fv(x, p) ** 2)\n\n\n"
            f"def tv(x, p):\n    {twin}\n    return anp.sin(d) * x\n\n\n"
            f"def ts(x, p):\n    return anp.sum(tv(x, p) ** 2)\n")


def _maker(transform, m):
    """``x, p -> the derivative's figures`` for one transform, one object kept across calls
    (grad's, jacrev's and hessian's functions; jvp's and vjp's caches keyed on ``fv``)."""
    t = np.array([0.3, -0.7, 1.1])
    if transform in ("grad", "value_and_grad", "hessian", "jacrev"):
        made = getattr(srcad, transform)(m.fv if transform == "jacrev" else m.fs)
        return lambda x, p: made(x, p)
    if transform == "jvp":
        return lambda x, p: srcad.jvp(m.fv, (x, p), (t,), wrt=0)
    return lambda x, p: srcad.vjp(m.fv, x, p, wrt=0)[1](t)


def _expected(transform, m, x, p):
    """The same figures from autograd's twin, checked against central differences of the
    user's function itself."""
    p64 = p.astype(float)
    g = autograd.grad(m.ts)(x, p64)
    if p.dtype == np.float64:
        assert np.allclose(g, central(lambda v: m.fs(v, p), (x,), 0), atol=1e-5)
    t = np.array([0.3, -0.7, 1.1])
    jac = autograd.jacobian(m.tv)(x, p64)
    return {"grad": g, "value_and_grad": (m.ts(x, p64), g), "hessian": autograd.hessian(
        m.ts)(x, p64), "jacrev": jac, "jvp": (m.tv(x, p64), jac @ t), "vjp": t @ jac}[transform]


def _close(got, want, tol):
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            _close(a, b, tol)
        return
    assert np.allclose(np.asarray(got, dtype=float), want, rtol=tol, atol=tol), (got, want)


@pytest.mark.parametrize("form, transform", CASES)
def test_float_arrays_differentiated_int_and_bool_ones_refused_in_alternation(
        load_module, form, transform):
    m = load_module(f"keys34_{abs(hash((form, transform)))}", _text(form))
    run = _maker(transform, m)
    x = np.array([0.4, -0.3, 0.9])
    for label, p in SEQUENCE:
        if label in ("i", "b"):
            with pytest.raises((srcad.SrcadError, TypeError)) as caught:
                run(x, p)
            if not isinstance(caught.value, srcad.SrcadError):  # vjp runs the function for
                # its value, and d op= v raises where the plain run raises (augment36: the
                # run-time cast, srcad.frontend.augmented_casts): NumPy's own error
                assert transform == "vjp" or form in AUGMENTED
                with pytest.raises(type(caught.value)) as plain:
                    m.fv(x, p)
                assert form not in AUGMENTED or str(plain.value) == str(caught.value)
                continue
            assert form not in AUGMENTED
            message = str(caught.value)
            assert f"line {WRITE_LINE}" in message and "integers or booleans" in message, message
            assert "astype(float)" in message, message
            continue
        _close(run(x, p), _expected(transform, m, x, p), 1e-4 if label == "f32" else 1e-8)


SOURCES = {  # the array written into: made of the parameter p by ...
    "asarray": "d = np.asarray(p).copy(); d[0] = x * x",
    "astype(float)": "d = p.astype(float); d += x * x",
    "astype(int)": "d = p.astype(np.int64); d += x * x",
    "np.array": "d = np.array(p); d[1:] = x",
}
ARGUMENTS = {"floats": [1.5, -2.0, 0.5], "ints": [1, -2, 3], "float array": np.array(
    [1.5, -2.0, 0.5]), "int array": np.array([1, -2, 3]), "float32 array": np.array(
    [1.5, -2.0, 0.5], dtype=np.float32), "float tuple": (1.5, -2.0, 0.5)}


def _floats(source, argument):
    """Whether NumPy makes ``d`` a float array for this argument."""
    if source == "astype(float)":
        return True
    return source != "astype(int)" and "int" not in argument


@pytest.mark.parametrize("source", SOURCES)
def test_arrays_made_of_a_parameter(load_module, source):
    text = (f"import numpy as np\n\n\ndef f(x, p):\n    {SOURCES[source]}\n"
            f"    return np.sum(np.cos(d) * d)\n")
    f = load_module(f"keys34_made_{abs(hash(source))}", text).f
    df = srcad.grad(f)
    for name, p in ARGUMENTS.items():
        if source == "astype(float)" and not isinstance(p, np.ndarray):
            continue  # (a list has no astype)
        if not _floats(source, name) and source == "astype(int)":  # d += v: as NumPy raises
            with pytest.raises((TypeError, AttributeError)) as plain:  # (a list: no astype)
                f(0.7, p)
            with pytest.raises(type(plain.value)) as caught:
                df(0.7, p)
            assert str(caught.value) == str(plain.value)
            continue
        if not _floats(source, name):
            with pytest.raises(srcad.SrcadError) as caught:
                df(0.7, p)
            assert "line 5" in str(caught.value) and "astype(float)" in str(caught.value)
            continue
        q = p.astype(float) if "32" in name else p  # (float32's steps: too coarse)
        want = central(lambda v, q=q: f(v[0], q), (np.array([0.7]),), 0)[0]
        assert np.isclose(df(0.7, p), want, atol=1e-4 if "32" in name else 1e-6), (name, p)


def test_cache_keys_tell_dtype_kinds_apart():
    """The key of a specialisation and a kinds dict differ between float, int, bool and
    object arrays, bare or in a container; float32 and float64 too, since session 37 (both
    inexact, but float64's code may read its literals as float64 constants:
    ``srcad.backend.float_literals``)."""
    arrays = [np.zeros(2), np.zeros(2, dtype=int), np.zeros(2, dtype=bool),
              np.zeros(2, dtype=object), np.zeros(2, dtype=np.complex128)]
    for wrap in (lambda a: [1.0, a], lambda a: a, lambda a: {"k": a}):
        keys = [cache_key([1.0, wrap(a)]) for a in arrays]
        assert len(set(keys)) == len(keys), keys
    for wrap in (lambda a: [1.0, a], lambda a: a, lambda a: {"k": a}):
        assert cache_key([wrap(np.zeros(2))]) != cache_key([wrap(np.zeros(2, np.float32))])
    assert with_dtypes({}, {"p": np.zeros(2)})[DOUBLE] == ("p",)
    assert DOUBLE not in with_dtypes({}, {"p": np.zeros(2, np.float32)})
    assert DOUBLE not in with_dtypes({}, {"p": [1.0, np.zeros(2)]})  # (a Python float)
    kinds = [with_dtypes({"p": kind_of_value(a)}, {"p": a}) for a in arrays[:3]]
    assert kinds[0][INEXACT] == ("p",) and INEXACT not in kinds[1] and INEXACT not in kinds[2]
    assert with_dtypes({}, {"p": [1.0, 2.0]})[INEXACT] == ("p",)
    assert INEXACT not in with_dtypes({}, {"p": [1.0, 2]})
    assert INEXACT not in with_dtypes({}, {"p": [1.0] * 65})  # (long lists: not read)


def test_the_long_run_covers_every_case():
    assert len(CASES) == len(FORMS) * len(TRANSFORMS) or not LONG


@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_add_at_into_a_list_raises_as_numpy_does(load_module, transform):
    """``np.add.at(d, i, x)`` of a list ``d`` (a copy of a list argument): NumPy raises
    TypeError (it adds into an array only); srcad did too little (it added into an array made
    of the list and returned a gradient, 4 for ``[1, 2]``)."""
    text = ("import numpy as np\n\n\ndef f(x, p):\n    d = p.copy(); np.add.at(d, [0], x)\n"
            "    return np.sum(np.asarray(d) ** 2)\n")
    f = load_module(f"keys34_add_at_list_{transform}", text).f
    for p in ([1, 2], [1.0, 2.0]):
        with pytest.raises(TypeError, match="first operand must be array"):
            f(1.5, p)
        with pytest.raises(TypeError, match="first operand must be array"):
            if transform == "grad":
                srcad.grad(f)(1.5, p)
            else:
                srcad.jvp(f, (1.5, p), (1.0,), wrt=0)
