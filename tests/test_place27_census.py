"""The census of the refusals made while a derivative runs (place27): each runtime helper's
``SrcadError`` (``srcad/runtime``: ``cho_lower``, ``lu_size``, ``lu_pivots``, ``qr_size``,
``svd_rank``, ``eig_order``, ``cond_two``, ``trapezoid_x``, ``one_axis``, the refusals of
``np.pad``'s modes, ``diagonal_positions``, ``mvn_dim``, odeint's options and ``args``) raised
by a user's program, in reverse mode (``grad``) and forward mode (``jvp``), names the user's
file and the line of the call (:meth:`srcad.errors.SrcadError.__init__` maps the innermost
generated code running to the user's line). Before, each of them had ``filename`` None.

Run as a script (``python tests/test_place27_census.py``) it prints the whole census: each
refusal, mode, and the file and line it names. The default test run samples the table
(``tests/sampling.py``); ``SRCAD_LONG_PROPERTIES=1`` runs all of it.
Imports numpy, pytest, srcad; scipy (skipped without it); tests' helpers.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import tempfile
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest

import srcad

pytest.importorskip("scipy.linalg")

from sampling import sample  # noqa: E402

HEAD = """import numpy as np
import scipy.integrate as si
import scipy.linalg as sl
import scipy.stats as st


"""

Case = namedtuple("Case", "helper text args modes")


def _rng(seed):
    return np.random.default_rng(seed)


def _spd(shape, seed):
    a = _rng(seed).normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + 3.0 * np.eye(shape[-1])


BOTH, REVERSE = ("grad", "jvp"), ("grad",)

#: name -> the runtime helper that refuses, the user's program (``# HERE`` marks the line the
#: refusal names), its arguments, the modes that refuse (forward mode differentiates
#: np.trapezoid with an x of any rank, and np.pad's mode='mean', a linear map, exactly)
CASES = {
    "cho_solve of a stack": Case("scipy_helpers.cho_lower", """
def f(A, b):
    return np.sum(sl.cho_solve(sl.cho_factor(A), b) ** 2)  # HERE
""", lambda: (_spd((2, 3, 3), 1), _rng(2).normal(size=(2, 3, 2))), BOTH),
    "lu of a 3x2 matrix": Case("scipy_helpers.lu_size", """
def f(A):
    p, lo, up = sl.lu(A)  # HERE
    return np.sum(lo) + np.sum(up)
""", lambda: (_rng(1).normal(size=(3, 2)),), BOTH),
    "lu_solve of a stack": Case("scipy_helpers.lu_pivots", """
def f(A, b):
    return np.sum(sl.lu_solve(sl.lu_factor(A), b))  # HERE
""", lambda: (_spd((2, 3, 3), 1), _rng(2).normal(size=(2, 3, 2))), BOTH),
    "svd full_matrices of a 3x2": Case("numpy_extra.svd_rank", """
def f(A):
    u, s, vt = np.linalg.svd(A)  # HERE
    return np.sum(u) + np.sum(s)
""", lambda: (_rng(1).normal(size=(3, 2)),), BOTH),
    "eigvals repeated": Case("numpy_extra.eig_order", """
def f(A):
    return np.sum(np.linalg.eigvals(A))  # HERE
""", lambda: (np.eye(2),), BOTH),
    "qr pivoting": Case("numpy_extra.qr_size", """
def f(A, p):
    q, r = sl.qr(A, pivoting=p)[:2]  # HERE
    return np.sum(r)
""", lambda: (_rng(1).normal(size=(3, 3)), True), BOTH),
    "qr complete of a 3x2": Case("numpy_extra.qr_size", """
def f(A, m):
    q, r = np.linalg.qr(A, mode=m)  # HERE
    return np.sum(q) + np.sum(r)
""", lambda: (_rng(1).normal(size=(3, 2)), "complete"), BOTH),
    "cond p='fro'": Case("numpy_more.cond_two", """
def f(A, p):
    return np.linalg.cond(A, p)  # HERE
""", lambda: (_spd((3, 3), 1), "fro"), BOTH),
    "trapezoid x 2-d": Case("numpy_more.trapezoid_x", """
def f(y, x):
    return np.sum(np.trapezoid(y, x))  # HERE
""", lambda: (_rng(1).normal(size=(3, 4)), np.cumsum(np.ones((3, 4)), axis=1)), REVERSE),
    "vector_norm two axes": Case("numpy_more.one_axis", """
def f(x, ax):
    return np.linalg.vector_norm(x, axis=ax)  # HERE
""", lambda: (_rng(1).normal(size=(3, 4)), (0, 1)), BOTH),
    "pad mode='mean'": Case("numpy_shape._refuse_pad", """
def f(x, m):
    return np.sum(np.pad(x, 1, mode=m) ** 2)  # HERE
""", lambda: (_rng(1).normal(size=4), "mean"), REVERSE),
    "fill_diagonal repeating": Case("numpy_shape.diagonal_positions", """
def f(x, v):
    a = x * 1.0
    np.fill_diagonal(a, v)  # HERE
    return np.sum(a ** 2)
""", lambda: (_rng(1).normal(size=(3, 3)), np.array([1.0, 2.0])), BOTH),
    "multivariate_normal allow_singular": Case("scipy_helpers.mvn_dim", """
def f(x, c, s):
    return st.multivariate_normal.logpdf(x, np.zeros(2), c, allow_singular=s)  # HERE
""", lambda: (_rng(1).normal(size=2), _spd((2, 2), 2), True), BOTH),
    "odeint loose rtol": Case("scipy_ode._options", """
def rhs(y, t, k):
    return -k * y


def f(k, r):
    return np.sum(si.odeint(rhs, np.array([1.0]), np.array([0.0, 1.0]), args=(k,), rtol=r))  # HERE
""", lambda: (0.5, 1e-2), BOTH),
    "odeint args of floats and ints": Case("scipy_ode._differentiated", """
def rhs(y, t, a):
    return -a[0] * y


def f(k, n):
    return np.sum(si.odeint(rhs, np.array([1.0]), np.array([0.0, 1.0]), args=([k, n],)))  # HERE
""", lambda: (0.5, 2), BOTH),
}

_counter = itertools.count()


def load(directory, text):
    """The module of ``HEAD + text`` written in ``directory``, and the line marked HERE."""
    name = f"place27_{next(_counter)}"
    path = Path(directory) / f"{name}.py"
    path.write_text(HEAD + text.lstrip("\n"))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "# HERE" in t)
    return module, str(path), line


def floats(args):
    """The positions of the arguments a derivative is taken with respect to."""
    return tuple(i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray)) and (
        np.asarray(a).dtype.kind == "f"))


def refusal(f, args, mode):
    """The SrcadError the derivative of ``f`` in ``mode`` raises at ``args`` (None if none)."""
    wrt = floats(args)
    try:
        if mode == "grad":
            srcad.grad(f, wrt=wrt if len(wrt) > 1 else wrt[0])(*args)
        else:
            srcad.jvp(f, args, tuple(np.ones_like(args[i]) for i in wrt), wrt=wrt)
    except srcad.SrcadError as e:
        return e
    return None


RUNS = [(name, mode) for name, case in CASES.items() for mode in case.modes]


@pytest.mark.parametrize("name, mode", sample(RUNS, 5))
def test_a_refusal_made_while_the_derivative_runs_names_the_users_line(name, mode, tmp_path):
    case = CASES[name]
    module, path, line = load(tmp_path, case.text)
    args = case.args()
    module.f(*args)  # the function itself runs (SciPy, NumPy take these arguments)
    e = refusal(module.f, args, mode)
    assert e is not None, f"{name} ({mode}) was not refused"
    assert (e.filename, e.lineno) == (path, line), str(e)
    assert "# HERE" in e.construct and e.hint  # the user's line, and what to write instead
    assert f"{path}, line {line}:" in str(e)


def census():
    """Print each refusal of the table: the helper, the mode, the place it names."""
    with tempfile.TemporaryDirectory() as directory:
        for name, case in CASES.items():
            module, path, line = load(directory, case.text)
            for mode in case.modes:
                e = refusal(module.f, case.args(), mode)
                where = "not refused" if e is None else f"{Path(e.filename).name}:{e.lineno}" \
                    if e.filename else "no place"
                ok = e is not None and (e.filename, e.lineno) == (path, line)
                print(f"{'ok ' if ok else 'BAD'} {case.helper:32} {mode:4} {where:16} {name}")


if __name__ == "__main__":
    census()
