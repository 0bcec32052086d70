"""A callee returning a tuple of lists built by appends (``return xs, ys``): its backward part
pops from the lists' gradients, which its caller hands it inside a tuple; it pops from copies
(``seed_copies``), so the caller's cotangent stays whole and the code differentiated again (a
Hessian in either mode) is not refused as a change of an argument in place. A generated family
(two or three lists, a list with a number, one list read twice by the caller, the callee
called twice) x uses in the caller, against central differences and autograd; Hessians in both
modes against differences of the gradient."""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from srcad.check import numerical_grad

import srcad

CALLEES = {
    "two_lists": '''
def make(w):
    xs, ys = [], []
    for k in range(3):
        xs.append(w * (k + 1.0))
        ys.append(np.sin(w) + k)
    return xs, ys
''',
    "three_lists": '''
def make(w):
    xs, ys, zs = [], [], []
    for k in range(3):
        xs.append(w * k)
        ys.append(w * w + k)
        zs.append(np.cos(w * k))
    return xs, ys, zs
''',
    "list_and_number": '''
def make(w):
    xs = []
    for k in range(4):
        xs.append(w ** 2 * k)
    return xs, np.exp(w)
''',
}
USES = {
    "zip": "    s = 0.0\n    for u, v in zip(got[0], got[1]):\n        s = s + u * v * u\n"
           "    return s\n",
    "index": "    return got[0][1] * got[-1][0] + got[0][2]\n",
    "sum": "    return sum(got[0]) * 2.0 + got[0][0] * got[1][1]\n",
    "twice": "    again = make(w * 0.5)\n"
             "    return got[0][2] * again[0][1] + again[1][0] * got[0][1]\n",
}


def _text(callee, use):
    body = USES[use]
    if callee == "list_and_number":  # the second part is a number
        body = body.replace("got[1][1]", "got[1]").replace("got[-1][0]", "got[-1]").replace(
            "got[1][0]", "got[1]").replace("again[1][0]", "again[1]")
        if use == "zip":
            body = "    s = 0.0\n    for u in got[0]:\n        s = s + u * u * got[1]\n" \
                   "    return s\n"
    return CALLEES[callee] + "\n\ndef f(w):\n    got = make(w)\n" + body


CASES = list(itertools.product(CALLEES, USES))
W = 0.7


@pytest.mark.parametrize(("callee", "use"), CASES, ids=[f"{c}-{u}" for c, u in CASES])
def test_gradients(tmp_path, callee, use):
    text = _text(callee, use)
    f = load(tmp_path, f"rl_{callee}_{use}", text, modules=(np,))
    fa = load(tmp_path, f"rla_{callee}_{use}", text, modules=(anp,))
    g = srcad.grad(f)(W)
    assert g == pytest.approx(float(numerical_grad(f, (W,))), rel=1e-6, abs=1e-8)
    assert g == pytest.approx(autograd.grad(fa)(W), rel=1e-10, abs=1e-12)
    value, g2 = srcad.value_and_grad(f)(W)
    assert value == pytest.approx(f(W), rel=1e-12) and g2 == pytest.approx(g, rel=1e-12)
    _, tangent = srcad.jvp(f, (W,), (1.0,))
    assert tangent == pytest.approx(g, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("mode", ["fwd", "rev"])
@pytest.mark.parametrize(("callee", "use"), CASES, ids=[f"{c}-{u}" for c, u in CASES])
def test_hessians(tmp_path, callee, use, mode):
    text = _text(callee, use)
    f = load(tmp_path, f"rlh_{callee}_{use}_{mode}", text, modules=(np,))
    fa = load(tmp_path, f"rlha_{callee}_{use}_{mode}", text, modules=(anp,))
    h = float(np.asarray(srcad.hessian(f, mode=mode)(W)))
    assert h == pytest.approx(float(autograd.hessian(fa)(W)), rel=1e-8, abs=1e-10)
    g = srcad.grad(f)
    assert h == pytest.approx((g(W + 1e-5) - g(W - 1e-5)) / 2e-5, rel=1e-5, abs=1e-7)
