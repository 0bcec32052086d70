"""The CuPy path without a GPU: srcad's code on a stand-in array as strict as CuPy's
(``tests/device_standin.py``: no ``np.asarray``/``__array__``, no NumPy array beside it, no
``.flags``; srcad takes it for CuPy's). The gradient of the duck-array family and of a sample
of the rule table's examples must be a stand-in array equal to NumPy's gradient (to 1e-12), or
a ``BackendError`` naming CuPy; never another exception, never a NumPy array. What this does
not check (a device, CuPy's own numerics and the functions CuPy lacks) is
benchmarks/gpu_check.py's, on a machine with a GPU."""

import warnings

import numpy as np
import pytest
import test_forward_rules as T
from array_family import FAMILY, IDS, INDEXING, ROUTED, W_NP, X_NP, Y_NP
from device_standin import Device, on_device, to_host

import srcad


def _same(got, want):
    assert isinstance(got, Device), type(got)
    want = np.asarray(want)
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    assert np.max(np.abs(to_host(got) - want), initial=0.0) <= 1e-12 * scale


@pytest.mark.parametrize("f", FAMILY + ROUTED, ids=IDS + [f.__name__ for f in ROUTED])
def test_family_on_the_standin(f):
    want = srcad.grad(f, wrt=(0, 1, 2))(W_NP, X_NP, Y_NP)
    try:
        got = srcad.grad(f, wrt=(0, 1, 2))(*map(on_device, (W_NP, X_NP, Y_NP)))
    except srcad.BackendError as err:  # SciPy's functions without cupyx.scipy here
        assert "cupy" in str(err) and f in ROUTED, err
        return
    for g, w in zip(got, want):
        _same(g, w)


@pytest.mark.parametrize("f", [f for f, _ in INDEXING], ids=[f.__name__ for f, _ in INDEXING])
def test_indexing_on_the_standin(f):
    """Every index form works where the library has np.add.at (CuPy's ufuncs have at)."""
    X = X_NP[:6]
    _same(srcad.grad(f)(on_device(X)), srcad.grad(f)(X))


def _trace(a):
    return np.trace(a @ a)


def _pinv(a):
    return np.sum(np.linalg.pinv(a) ** 2)


def _eigh(a):
    return np.sum(np.linalg.eigh(a + a.T)[0] ** 3)


def _diff(a):
    return np.sum(np.diff(a, 2, axis=0) ** 2)


def _cumprod(a):
    return np.sum(np.cumprod(a, axis=1))


def _clip(a):
    return np.sum(np.clip(a, -0.5, 0.5) ** 2)


def _convolve(a):
    return np.sum(np.convolve(a[0], a[1], "same") ** 2)


def _einsum(a):
    return np.einsum("ii->", a) + np.sum(np.einsum("ij->j", a) ** 2)


def _rows(a):
    return np.sum(np.vstack(a) ** 2) + np.sum(np.stack(a, axis=1) * a)


def _tolist(a):
    return np.sum(np.array(a.tolist()) ** 2)


def _pads(mode):
    def f(a):
        padded = np.pad(a, ((1, 2), (3, 0)), mode=mode)
        return np.sum(np.sin(padded) * np.arange(1.0, 50.0).reshape(7, 7))
    f.__name__ = f"_pad_{mode}"
    return f


def _insert(a):
    inserted = np.insert(a, [0, 2, 2], a[1], axis=0)
    return np.sum(np.sin(inserted) * np.arange(1.0, 29.0).reshape(7, 4))


def _block(a):
    return np.sum(np.sin(np.block([[a, a[:, :1]], [a[:1], a[:1, :1]]])) ** 2)


def _delete(a):
    return np.sum(np.sin(np.delete(a, [0, 2], axis=1)) * a[:, 1:3])


def _resize(a):
    return np.sum(np.sin(np.resize(a, (5, 5))) ** 2)


#: rules that make a constant (np.eye, np.zeros, np.ones, 0/1 matrices, np.arange) in their
#: template or helper, or read an array as a list of rows: the constant is made in the
#: operand's library, the rows' gradients stacked there; indices a helper computes from
#: shapes (insert, block, delete, resize) are moved to the device; the copying pads sum
#: their copies with the library's add.at
CONSTANTS = [_trace, _pinv, _eigh, _diff, _cumprod, _clip, _convolve, _einsum, _rows,
             _tolist, _insert, _block, _delete, _resize] + [
                 _pads(m) for m in ("edge", "reflect", "symmetric", "wrap")]


@pytest.mark.parametrize("f", CONSTANTS, ids=[f.__name__[1:] for f in CONSTANTS])
def test_constants_in_the_operands_library(f):
    a = np.random.default_rng(3).standard_normal((4, 4)) * 0.5
    _same(srcad.grad(f)(on_device(a)), srcad.grad(f)(a))


def _sample():
    """Every 6th rule example with an array argument. On the whole table (758 examples with
    an array argument that NumPy differentiates; 87 of them do not run on the stand-in): 628
    stand-in arrays equal to NumPy's, 43 refused naming CuPy, none wrong, none a NumPy
    array or list."""
    out = []
    for case in T.CASES:
        rng = np.random.default_rng(len(case[1]))
        if any(np.ndim(T._value(s, rng)) for s in case[2].values()):
            out.append(case)
    return out[::6]


SAMPLE = _sample()

@pytest.mark.parametrize("case", SAMPLE, ids=[T._case_id(c) for c in SAMPLE])
def test_rule_on_the_standin_equals_numpy_or_is_refused(case):
    s, args, wrt = T.scalar_case(case)
    try:
        want = srcad.grad(s, wrt=wrt)(*args)
    except Exception:  # noqa: BLE001  (refused or not run on NumPy: test_forward_rules's)
        pytest.skip("not differentiated on NumPy")
    dargs = tuple(map(on_device, args))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            s(*dargs)
        except Exception:  # noqa: BLE001  (the function itself needs NumPy arrays)
            pytest.skip("the function itself does not run on the stand-in")
        try:
            got = srcad.grad(s, wrt=wrt)(*dargs)
        except srcad.BackendError as err:
            assert "cupy" in str(err), err
            return
    for g, w in zip(got, want):
        if np.ndim(w):
            _same(g, w)
        else:
            assert float(to_host(g)) == pytest.approx(float(w), rel=1e-12, abs=1e-12)
