"""``scipy.stats.multivariate_normal`` of a dimension SciPy infers from ``mean`` alone.

Found by corpus32 (tools/numpy_programs.py on a Gaussian-mixture EM notebook's ``e_step``:
``mvn(mu[c], sigma[c]).pdf(X)`` with a number for the mean and the covariance and a vector
``X``): SciPy takes the dimension from ``mean`` (its size: a number is 1), else from a ``cov``
matrix, else 1, and a vector ``x`` of a 1-dimensional normal is that many points. srcad's
``mvn_dim`` took it from ``x``'s last axis when ``mean`` was a number, so the rule's
derivative solved with a 3 x 3 covariance for three points of dimension 1: a ValueError in
the generated code (grad and jvp). The family: every way of giving ``mean`` and ``cov``
(none, a number, a vector, a matrix), ``x`` a number, a vector or points, through ``pdf``,
``logpdf`` and the frozen distribution's methods; gradients and jvps against central
differences and autograd differentiating the density's formula written out.

Imports zlib, numpy, pytest, scipy.stats, srcad, autograd (skipped without it), tests/sampling.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from sampling import sample_by

import srcad

stats = pytest.importorskip("scipy.stats")
anp = pytest.importorskip("autograd.numpy")
autograd = pytest.importorskip("autograd")

MVN = stats.multivariate_normal


def logpdf_mx(x, m, s, w):
    return np.sum(MVN.logpdf(x, m, s) * w)


def pdf_mx(x, m, s, w):
    return np.sum(MVN.pdf(x, mean=m, cov=s) * w)


def frozen_logpdf(x, m, s, w):
    return np.sum(MVN(m, s).logpdf(x) * w)


def frozen_pdf(x, m, s, w):
    return np.sum(MVN(mean=m, cov=s).pdf(x) * w)


def logpdf_no_mean(x, s, w):
    return np.sum(MVN.logpdf(x, None, s) * w)


def pdf_no_cov(x, m, w):
    return np.sum(MVN.pdf(x, m) * w)


def logpdf_standard(x, w):
    return np.sum(MVN.logpdf(x) * w)


def _formula(x, m, s, log):
    """The density as SciPy defines it, written out in autograd's NumPy (the reference)."""
    if m is not None:
        d = int(np.size(m))
    elif s is not None and np.ndim(s) >= 2:
        d = int(np.shape(s)[0])
    else:
        d = 1
    if np.ndim(x) == 0:
        x = anp.reshape(x, (1,))
    if np.ndim(x) == 1:
        x = anp.reshape(x, (-1, 1)) if d == 1 else anp.reshape(x, (1, -1))
    mean = anp.zeros(d) if m is None else anp.reshape(m, (d,))
    if s is None:
        cov = anp.eye(d)
    elif np.ndim(s) == 0:
        cov = s * anp.eye(d)
    elif np.ndim(s) == 1:
        cov = anp.diag(s)
    else:
        cov = anp.tril(s) + anp.transpose(anp.tril(s, -1))
    r = x - mean
    maha = anp.sum(r * anp.transpose(anp.linalg.solve(cov, anp.transpose(r))), axis=-1)
    out = -0.5 * (d * anp.log(2 * anp.pi) + anp.linalg.slogdet(cov)[1] + maha)
    out = out if log else anp.exp(out)
    return out[0] if out.shape[0] == 1 and np.ndim(x) <= 1 else out


#: (name, function, log?, the arguments the function takes: 'x', 'm', 's')
FORMS = [
    ("logpdf", logpdf_mx, True, "xms"), ("pdf", pdf_mx, False, "xms"),
    ("frozen_logpdf", frozen_logpdf, True, "xms"), ("frozen_pdf", frozen_pdf, False, "xms"),
    ("logpdf_no_mean", logpdf_no_mean, True, "xs"), ("pdf_no_cov", pdf_no_cov, False, "xm"),
    ("logpdf_standard", logpdf_standard, True, "x"),
]
#: (name, x, mean, cov): every way SciPy takes them (its dimension from the mean's size)
SHAPES = [
    ("number_mean_points", (4,), 0.3, 0.7),  # the EM notebook's case: 4 points of dimension 1
    ("number_mean_one_point", (), 0.3, 0.7),
    ("number_mean_column", (3, 1), -0.2, 1.3),
    ("one_mean_points", (3,), (1,), 0.9),
    ("vector_mean_number_cov", (3, 2), (2,), 0.8),
    ("vector_mean_diag_cov", (2,), (2,), "diag"),
    ("vector_mean_matrix", (4, 3), (3,), "spd"),
    ("vector_mean_matrix_one_point", (3,), (3,), "spd"),
]


def _value(spec, rs, d):
    if spec is None or isinstance(spec, float):
        return spec
    if spec == "diag":
        return rs.uniform(0.6, 1.5, size=d)
    if spec == "spd":
        a = rs.randn(d, d)
        return a @ a.T + d * np.eye(d)
    return rs.randn(*spec) * 0.5


def _cases():
    """Every form and shape SciPy itself takes (it refuses, e.g., a diagonal of length 2 for
    the dimension 1 it infers when no mean is given)."""
    out = []
    for form, fn, log, takes in FORMS:
        for shape, x_shape, m_spec, s_spec in SHAPES:
            case = (form, fn, log, takes, shape, x_shape, m_spec, s_spec)
            try:
                _args(case)
            except ValueError:
                continue
            out.append(case)
    return out


def _args(case):
    form, fn, log, takes, shape, x_shape, m_spec, s_spec = case
    rs = np.random.RandomState(zlib.crc32(f"{form} {shape}".encode()))
    d = (m_spec[0] if isinstance(m_spec, tuple) else
         (3 if s_spec == "spd" else 1))
    x = rs.randn(*x_shape) * 0.7 if x_shape else float(rs.randn() * 0.7)
    m = _value(m_spec, rs, d) if "m" in takes else None
    s = _value(s_spec, rs, d) if "s" in takes else None
    value = (MVN.logpdf if log else MVN.pdf)(x, m, 1 if s is None else s)
    w = rs.uniform(0.5, 1.5, size=np.shape(value))
    named = {"x": x, "m": m, "s": s}
    return [named[k] for k in takes] + [w], m, s


def _central(f, args, k, h=1e-6):
    base = np.asarray(args[k], dtype=float)
    out = np.zeros(base.shape)
    for i in range(base.size):
        e = np.zeros(base.shape)
        e.flat[i] = h
        up, down = list(args), list(args)
        up[k], down[k] = base + e, base - e
        if np.ndim(args[k]) == 0:
            up[k], down[k] = float(up[k]), float(down[k])
        out.flat[i] = (f(*up) - f(*down)) / (2 * h)
    return out


def _reference(case):
    """autograd's gradient of the formula, in the function's argument order."""
    form, fn, log, takes, *_ = case

    def formula(*args):
        named = dict(zip(takes, args[:-1]))
        return anp.sum(_formula(named["x"], named.get("m"), named.get("s"), log) * args[-1])
    return formula


CASES = sample_by(_cases(), key=lambda c: c[0], every=8)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[4]}")
def test_gradient_and_jvp(case):
    fn, takes = case[1], case[3]
    args, _, _ = _args(case)
    wrt = tuple(range(len(takes)))
    assert np.isclose(_reference(case)(*args), fn(*args))
    got = srcad.grad(fn, wrt=wrt)(*args)
    got = got if isinstance(got, tuple) else (got,)
    for k in wrt:
        want = autograd.grad(_reference(case), k)(*args)
        np.testing.assert_allclose(got[k], want, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(got[k], _central(fn, args, k), rtol=1e-5, atol=1e-6)
    rs = np.random.RandomState(7)
    tangents = tuple(rs.randn(*np.shape(args[k])) if np.ndim(args[k]) else float(rs.randn())
                     for k in wrt)
    value, tangent = srcad.jvp(fn, tuple(args), tangents, wrt=wrt)
    assert np.isclose(value, fn(*args))
    want = sum(np.sum(np.asarray(g) * t) for g, t in zip(got, tangents))
    assert np.isclose(tangent, want, rtol=1e-7, atol=1e-9)
