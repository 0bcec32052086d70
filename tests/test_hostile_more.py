"""A second sweep of hostile programs (tests/hostile_more_cases.py), each at three points.

Each program is run by Python (the value), differentiated by central finite differences and,
where it runs under autograd (no in-place writes), by autograd; srcad must give the same value
and gradient, or refuse with a SrcadError at a line of the program. The classes it covers once
gave wrong gradients or crashes (issue 14): ``np.clip`` with crossed or equal bounds,
``astype(copy=False)`` and ``np.asarray`` returning their argument itself, ``dict.pop``, the
results of your own helpers (the argument, a view of it, a global, a new array), views of
``np.zeros``/``np.arange``/... results, ``d[k] op= v`` through a dict literal, ``np.array``
of ints and floats, conjugates, ``op=`` on targets srcad refuses.

``python tests/test_hostile_more.py`` prints the outcome of every case (the sweep's figures).
"""

from __future__ import annotations

import collections
import uuid
import warnings

import numpy as np
import pytest
from hostile_more_cases import CASES, HEAD, POINTS
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

try:
    import autograd
except ImportError:  # pragma: no cover - autograd is a test dependency
    autograd = None


def _module(directory, numpy_name):
    text = HEAD.replace("import numpy as np", f"import {numpy_name} as np")
    for i, (_, body, _) in enumerate(CASES):
        text += f"def case_{i}(x):\n" + "".join(
            f"    {line}\n" for line in body.split("\n")) + "\n\n"
    return load_module(directory, text, f"hostile_more_{uuid.uuid4().hex[:8]}")


def outcome(f, fa=None):
    """"exact", "refused: <hint>", or what went wrong ("WRONG ...", "CRASH ...")."""
    for point in POINTS:
        x = np.array(point)
        want = f(x.copy())
        try:
            value, grad = srcad.value_and_grad(f)(x.copy())
        except srcad.SrcadError as e:
            if e.lineno is None or e.lineno <= HEAD.count("\n"):
                return f"CRASH a SrcadError at no line of the program: {e}"
            return f"refused: {e.hint}"
        except Exception as e:  # noqa: BLE001 - what the sweep counts
            return f"CRASH {type(e).__name__}: {e}"
        if not np.allclose(value, want, rtol=1e-12, atol=1e-12):
            return f"WRONG value {value} (Python: {want}) at {point}"
        fd = numerical_grad(lambda v: f(v.copy()), (x,), 0)
        if not np.allclose(grad, fd, rtol=1e-5, atol=1e-7):
            return f"WRONG gradient {grad} (finite differences: {fd}) at {point}"
        if fa is not None and autograd is not None:
            try:
                with warnings.catch_warnings():  # "Output seems independent of input."
                    warnings.simplefilter("ignore")
                    other = autograd.grad(fa)(x.copy())
            except Exception:  # noqa: BLE001 - in-place writes, forms autograd lacks
                other = None
            if other is not None and np.allclose(other, fd, rtol=1e-5, atol=1e-7) and not (
                    np.allclose(grad, other, rtol=1e-9, atol=1e-12)):
                return f"WRONG gradient {grad} (autograd: {other}) at {point}"
    return "exact"


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("hostile_more")
    return _module(directory, "numpy"), _module(directory, "autograd.numpy")


@pytest.mark.parametrize("i", range(len(CASES)),
                         ids=[f"{family}-{i}" for i, (family, _, _) in enumerate(CASES)])
def test_exact_or_refused(programs, i):
    family, body, expect = CASES[i]
    plain, lifted = programs
    got = outcome(getattr(plain, f"case_{i}"), getattr(lifted, f"case_{i}"))
    assert not got.startswith(("WRONG", "CRASH")), f"{body}\n{got}"
    if expect == "exact":
        assert got == "exact", f"{body}\n{got}"
    if expect == "refused":
        assert got.startswith("refused") and "=" in got, f"{body}\n{got}"  # says what to write


_CLIPS = [i for i, (family, body, _) in enumerate(CASES)
          if family == "clip" and body.startswith("c = np.clip(x, ") and "** 2" in body]


@pytest.mark.parametrize("i", _CLIPS)
def test_clip_forward_and_second_order(programs, i):
    """``np.clip``'s bounds in forward mode and differentiated again: the Jacobian by jacfwd,
    the Hessian against finite differences of srcad's (checked) gradient."""
    f = getattr(programs[0], f"case_{i}")
    x = np.array(POINTS[0])
    np.testing.assert_allclose(srcad.jacfwd(f)(x.copy()), srcad.grad(f)(x.copy()), atol=1e-12)
    hessian = srcad.hessian(f)(x.copy())
    rows = [numerical_grad(lambda v, k=k: srcad.grad(f)(v.copy())[k], (x,), 0) for k in range(3)]
    np.testing.assert_allclose(hessian, np.array(rows), rtol=1e-5, atol=1e-6)


if __name__ == "__main__":
    import pathlib
    import tempfile

    plain = _module(pathlib.Path(tempfile.mkdtemp()), "numpy")
    counts = collections.Counter()
    for i, (family, body, _) in enumerate(CASES):
        got = outcome(getattr(plain, f"case_{i}"))
        counts[got.split(" ")[0].rstrip(":")] += 1
        if got.startswith(("WRONG", "CRASH")):
            print(f"{family}-{i}: {body!r}\n    {got[:200]}")
    print(dict(counts), "of", len(CASES), "programs")
