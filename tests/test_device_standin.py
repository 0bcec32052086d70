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


def _sample():
    """Every 6th rule example with an array argument. On the whole table (628 examples that
    NumPy differentiates and that run on the stand-in): 496 stand-in arrays equal to NumPy's,
    6 NumPy arrays or lists with NumPy's numbers (:data:`NOT_ON_DEVICE`), 126 refused naming
    CuPy (a constant the rule makes in NumPy beside a device array, mostly), none wrong."""
    out = []
    for case in T.CASES:
        rng = np.random.default_rng(len(case[1]))
        if any(np.ndim(T._value(s, rng)) for s in case[2].values()):
            out.append(case)
    return out[::6]


SAMPLE = _sample()

#: rules whose gradient has the right numbers on the stand-in but is not one of its arrays: a
#: NumPy array (a list's np.asarray) or a list of rows (an array read as a sequence of rows)
NOT_ON_DEVICE = {
    "numpy.ndarray.tolist(a)": "a NumPy array",
    **dict.fromkeys(("numpy.concatenate(arrays, axis)", "numpy.stack(arrays, axis)",
                     "numpy.hstack(tup)", "numpy.vstack(tup)"), "a list of rows"),
}


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
        if np.ndim(w) and case[0] in NOT_ON_DEVICE and not isinstance(g, Device):
            g = Device(np.stack(to_host(g)) if isinstance(g, list) else g)
        if np.ndim(w):
            _same(g, w)
        else:
            assert float(to_host(g)) == pytest.approx(float(w), rel=1e-12, abs=1e-12)
