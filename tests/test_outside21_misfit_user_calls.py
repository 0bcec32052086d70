"""A function of yours called with arguments its parameters do not take (round 21's outside
programs).

Met in afcarl/bayes_examples and daeilkim/bayesbackprop (copies of autograd's black-box SVI
example): ``variational_objective`` calls ``logprob(samples)`` where the log-density given is
``def log_posterior(x, t)``. Python raises ``TypeError`` where such a call runs (before any of
the callee's code); srcad refused it where it stands, while making the code ("a call that does
not fit the parameters of logprob"), also on a path that never runs. The call is now a check
(``frontend/misfit_calls.misfit_call``) that raises Python's ``TypeError`` there, never running
the callee.

The family: how the call misfits (an argument missing, one too many, an unknown keyword, a
parameter given twice) x what is called (a module-level function, a closure a maker returns,
a method called on ``self``) x whether the call's path runs: not run, the gradient is exact
(central differences, autograd on the same text); run, the ``TypeError`` Python (and
autograd) raise.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from sampling import sample
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")

MISFITS = {
    "missing": "dens({x})",
    "extra": "dens({x}, 2.0, 3.0)",
    "keyword": "dens({x}, 2.0, scale=1.0)",
    "twice": "dens({x}, 2.0, x={x})",
}

CALLEES = {
    "module": ("def dens(x, t):\n    return np.sum(np.sin(x) * t)\n\n"
               "def objective(x, bad):\n{body}", "objective"),
    "closure": ("def maker(c):\n    def dens(x, t):\n        return np.sum(np.sin(x) * t) + c\n"
                "    def objective(x, bad):\n{body}\n    return objective\n\n"
                "objective = maker(0.5)\n", "objective"),
    "method": ("class Model:\n    def dens(self, x, t):\n        return np.sum(np.sin(x) * t)\n\n"
               "    def objective(self, x, bad):\n{body}\n"
               "objective = Model().objective\n", "objective"),
}

BODY = ("if bad:\n    return {misfit}\n"
        "return {good} + np.sum(x ** 2)\n")

CASES = list(itertools.product(MISFITS, CALLEES))
X0 = np.array([0.4, -1.2, 0.7])


def _text(misfit, callee):
    template, _ = CALLEES[callee]
    depth = {"module": 4, "closure": 8, "method": 8}[callee]
    prefix = "self." if callee == "method" else ""
    body = BODY.format(misfit=prefix + MISFITS[misfit].format(x="x"),
                       good=prefix + "dens(x, 2.0)")
    return template.format(body=textwrap.indent(body, " " * depth))


def _module(tmp_path, text, numpy_name, tag):
    path = tmp_path / f"misfit21_{tag}.py"
    path.write_text(f"import {numpy_name} as np\n" + text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("misfit,callee", sample(CASES, 2))
def test_a_misfit_call_on_a_path_not_run(misfit, callee, tmp_path):
    text = _text(misfit, callee)
    m = _module(tmp_path, text, "numpy", f"{misfit}_{callee}")
    a = _module(tmp_path, text, "autograd.numpy", f"{misfit}_{callee}_ag")
    g = srcad.grad(m.objective)(X0, False)
    np.testing.assert_allclose(g, autograd.grad(a.objective)(X0, False), rtol=1e-12)
    np.testing.assert_allclose(g, central(m.objective, (X0, False), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("misfit,callee", sample(CASES, 2))
def test_a_misfit_call_that_runs_raises_pythons_type_error(misfit, callee, tmp_path):
    m = _module(tmp_path, _text(misfit, callee), "numpy", f"{misfit}_{callee}_run")
    with pytest.raises(TypeError):
        m.objective(X0, True)  # Python's own
    with pytest.raises(TypeError, match="dens"):
        srcad.grad(m.objective)(X0, True)
    with pytest.raises(TypeError, match="dens"):
        srcad.jvp(lambda x: m.objective(x, True), (X0,), (X0,))


def test_the_black_box_svi_copy_as_written(tmp_path):
    """The programs' shape: the misfit call inside the objective the optimiser differentiates
    runs at once: Python's TypeError, as under autograd (no refusal while making the code)."""
    text = textwrap.dedent("""
    def black_box_variational_inference(logprob, D, num_samples):
        rs = np.random.RandomState(0)

        def variational_objective(params, t):
            mean, log_std = params[:D], params[D:]
            samples = rs.randn(num_samples, D) * np.exp(log_std) + mean
            return -(np.sum(log_std) + np.mean(logprob(samples)))

        return variational_objective

    def log_posterior(x, t):
        return -np.sum(x ** 2, axis=1)

    objective = black_box_variational_inference(log_posterior, 2, 5)
    """)
    m = _module(tmp_path, text, "numpy", "bbsvi")
    a = _module(tmp_path, text, "autograd.numpy", "bbsvi_ag")
    params = np.array([0.1, -0.2, 0.0, 0.3])
    with pytest.raises(TypeError):
        autograd.grad(a.objective)(params, 0)
    with pytest.raises(TypeError, match="log_posterior"):
        srcad.grad(m.objective)(params, 0)
