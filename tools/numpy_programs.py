"""Plain NumPy, SciPy and JAX programs by scientists and students, their functions checked.

    python tools/numpy_programs.py [--seconds 1800] [--only NAME ...] [--json FILE]
                                   [--mutants 0] [--quiet]

The other corpus tools run programs that take derivatives themselves (autograd's, JAX's
operators pointed at srcad). The programs listed here take none: physics simulations (an
N-body code's accelerations and energies, a spring network's forces), a Metropolis
sampler's target, a network written in NumPy, Gaussian processes' likelihoods and a GP
classifier's Laplace objective written for ``scipy.optimize.minimize``, Bayesian linear
regression, an EM step, optimisation test functions. (The same N-body code in ``jax.numpy``
and a finite-difference PDE library run through ``tools/jax_programs.py``'s recipes.)
Each file is read at run time from its fetched copy (``fetch github:OWNER/NAME``;
``/work/.mirror/OWNER+NAME/repo``, never copied here).

Every stand-alone function of each file (a def or a named lambda: positional parameters, no
randomness, only NumPy, ``math`` and SciPy's ``special``/``stats``; a notebook's code cells in
order) is found by ``tools/mutant_sources.py``, which also finds inputs it runs on (numbers,
vectors, matrices; an ``int`` where a parameter counts), and is checked as
``tools/mutant_programs.py`` checks a mutant's original (``--mutants 0``; more mutate it too):
srcad's value, gradient (against autograd or ``srcad.tape``, judged by central differences),
``jvp``, Hessian-vector products, ``has_aux``, Jacobians and Hessians. Outcomes are the
fuzzer's: WRONG, CRASH, VAGUE, KINK, REFUSED, CONVENTION, PASS (and UNUSABLE: no input found
that the plain function runs on to a finite number).

Imports: copy, os, signal, sys, numpy, and tools/mutant_programs, tools/mutant_sources.
"""

from __future__ import annotations

import copy
import os
import signal
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mutant_programs  # noqa: E402
import mutant_sources  # noqa: E402

KRASSER = "krasserm/bayesian-machine-learning"
#: (repository, file): round 32's programs (corpus32)
CORPUS = [
    # a scientist's teaching simulations (Princeton, "create your own ... with Python"): an
    # N-body code's pairwise accelerations and energies (masked writes into a distance
    # matrix), a Metropolis sampler's target (a Newton solve of Kepler's equation per point),
    # a network's layers and loss in NumPy, a spring network's forces (np.add.at into
    # columns; its finite-difference sibling defines main() only; the N-body code in
    # jax.numpy runs in tools/jax_programs.py, its functions being jitted)
    ("pmocz/nbody-python", "nbody.py"),
    ("pmocz/mcmc-python", "mcmc.py"),
    ("pmocz/artificialneuralnetwork-python", "artificialneuralnetwork.py"),
    ("pmocz/springnetwork-python", "springnetwork.py"),
    # optimisation test functions written with ``math`` on lists and tuples (the package's
    # constrained and multi-objective modules define none yet)
    ("nathanrooy/landscapes", "landscapes/single_objective.py"),
    # Bayesian machine learning from scratch (notebooks): GP regression's negative log
    # marginal likelihood for scipy.optimize.minimize, GP classification's Laplace
    # approximation, Bayesian linear regression's posterior, expected improvement, EM
    (KRASSER, "gaussian-processes/gaussian_processes.ipynb"),
    (KRASSER, "gaussian-processes/gaussian_processes_classification.ipynb"),
    (KRASSER, "gaussian-processes/gaussian_processes_util.py"),
    (KRASSER, "bayesian-linear-regression/bayesian_linear_regression.ipynb"),
    (KRASSER, "bayesian-linear-regression/bayesian_linear_regression_util.py"),
    (KRASSER, "bayesian-optimization/bayesian_optimization.ipynb"),
    (KRASSER, "bayesian-optimization/bayesian_optimization_util.py"),
    (KRASSER, "latent-variable-models/latent_variable_models_part_1.ipynb"),
    (KRASSER, "latent-variable-models/latent_variable_models_util.py"),
]


# ------------------------------------------------------------------------------------- inputs
# The functions whose parameters have shapes that the fuzzer's profiles do not guess (N x 3
# positions with N x 1 masses, a network's flat parameters with its layer sizes, a sampler's
# seven orbital parameters): inputs as the program makes them. Each takes a RandomState and
# returns (args, data globals, positions to differentiate).


def _spd(rs, d):
    a = rs.randn(d, d)
    return a @ a.T + d * np.eye(d)


def _nbody(rs):
    return rs.randn(5, 3), rs.randn(5, 3) * .5, rs.uniform(.5, 1.5, size=(5, 1))


def _orbit(rs):
    """(V, s, K, w, e, P, chi): an eccentric orbit's radial velocities, as mcmc.py fits."""
    return np.array([0.4, 0.3, 2.0, 0.8, 0.35, 9.0, 0.2]) + rs.uniform(-.05, .05, size=7)


def _laplace_gp(rs):
    X = rs.randn(6, 1)
    return X, (X[:, 0] > 0).astype(float).reshape(-1, 1)


INPUTS = {
    "pmocz/nbody-python:nbody.py:getAcc": lambda rs: (
        list(_nbody(rs)[::2]) + [1.0, 0.1], {}, (0, 1, 2, 3)),
    "pmocz/nbody-python:nbody.py:getEnergy": lambda rs: (
        list(_nbody(rs)) + [1.0], {}, (1, 2, 3)),  # (in pos: 1 / 0 on the diagonal)
    "pmocz/mcmc-python:mcmc.py:rv_model": lambda rs: (
        [float(v) for v in np.delete(_orbit(rs), 1)] + [np.linspace(0, 20, 7)], {},
        (0, 1, 2, 3, 4, 5)),
    "pmocz/mcmc-python:mcmc.py:eval_model": lambda rs: (
        [_orbit(rs), np.linspace(0, 20, 7)], {}, (0,)),
    "pmocz/mcmc-python:mcmc.py:log_posterior": lambda rs: (
        [_orbit(rs), np.linspace(0, 20, 7), rs.randn(7), rs.uniform(.5, 1, size=7)], {},
        (0, 2, 3)),
    "pmocz/artificialneuralnetwork-python:artificialneuralnetwork.py:cost_function":
        lambda rs: ([rs.randn(4 * 4 + 3 * 5) * .5, 3, 4, 3, rs.randn(6, 3),
                     rs.randint(0, 3, size=(6, 1)), 0.7], {}, (0, 4, 6)),
    "pmocz/artificialneuralnetwork-python:artificialneuralnetwork.py:reshape":
        lambda rs: ([rs.randn(4 * 4 + 3 * 5), 3, 4, 3], {}, (0,)),
    "pmocz/springnetwork-python:springnetwork.py:getAcc": lambda rs: (
        [rs.uniform(0, 1, size=(5, 2)), rs.randn(5, 2), np.array([0, 1, 2, 3, 0, 1]),
         np.array([1, 2, 3, 4, 2, 4]), rs.uniform(.2, .6, size=6), 1.5, -0.1], {},
        (0, 4, 5, 6)),
    "pmocz/springnetwork-python:springnetwork.py:applyBoundary": lambda rs: (
        [rs.uniform(-.3, 1.3, size=(6, 2)), rs.randn(6, 2), 1.0], {}, (0, 1, 2)),
    **{f"nathanrooy/landscapes:landscapes/single_objective.py:{name}": (
        lambda rs: ([list(rs.uniform(0.2, 1.5, size=4))], {}, (0,)))  # (a list, as its tests)
       for name in ("brown", "dixon_price", "plateau", "rotated_hyper_ellipsoid", "rosenbrock",
                    "step")},
    f"{KRASSER}:gaussian-processes/gaussian_processes.ipynb:posterior": lambda rs: (
        [rs.randn(4, 1), rs.randn(5, 1), rs.randn(5, 1), 0.8, 1.2, 0.3], {},
        (0, 1, 2, 3, 4, 5)),
    f"{KRASSER}:gaussian-processes/gaussian_processes.ipynb:nll_fn.nll_naive": lambda rs: (
        [np.array([0.9, 1.3])], {"X_train": rs.randn(6, 1), "Y_train": rs.randn(6),
                                 "noise": 0.4}, (0,)),
    f"{KRASSER}:gaussian-processes/gaussian_processes_classification.ipynb:K_": lambda rs: (
        [rs.randn(5, 2), np.array([0.9, 1.3]), False, 1e-5], {}, (0, 1)),
    f"{KRASSER}:gaussian-processes/gaussian_processes_classification.ipynb:posterior_mode":
        lambda rs: (list(_laplace_gp(rs)) + [_spd(rs, 6) * .3, 10, 1e-9], {}, (2,)),
    f"{KRASSER}:gaussian-processes/gaussian_processes_classification.ipynb:predict_a":
        lambda rs: ([rs.randn(3, 1)] + list(_laplace_gp(rs)) + [np.array([0.9, 1.3])], {},
                    (0, 1, 3)),
    f"{KRASSER}:bayesian-linear-regression/bayesian_linear_regression.ipynb:posterior":
        lambda rs: ([rs.randn(6, 3), rs.randn(6, 1), 0.5, 2.0, False], {}, (0, 1, 2, 3)),
    f"{KRASSER}:bayesian-linear-regression/bayesian_linear_regression.ipynb:"
    "posterior_predictive": lambda rs: (
        [rs.randn(4, 3), rs.randn(3, 1), _spd(rs, 3), 2.0], {}, (0, 1, 2, 3)),
    f"{KRASSER}:latent-variable-models/latent_variable_models_part_1.ipynb:e_step":
        lambda rs: ([rs.randn(6, 2), np.array([0.3, 0.7]), rs.randn(2, 2),
                     np.stack([_spd(rs, 2), _spd(rs, 2)])], {}, (0, 1, 2, 3)),
    f"{KRASSER}:latent-variable-models/latent_variable_models_part_1.ipynb:m_step":
        lambda rs: ([rs.randn(6, 2), rs.dirichlet([1, 1], size=6)], {}, (0, 1)),
}


#: keys of the functions returning a tuple of arrays of several shapes (a posterior's mean
#: and covariance): their wrapper weighs the items flattened and joined
TUPLES = set()
FLAT_WRAPPER = """
import numpy as _np


def _srcad_F({params}):
    _out = {name}({passed})
    return _np.sum(_np.concatenate([_np.ravel(_o) for _o in _out]) * _W)
"""


def prepare(fn, folder, rs):
    """The program's inputs (``INPUTS``) for the functions listed there, else the fuzzer's
    profiles (``mutant_programs.prepare``)."""
    made = next((m for k, m in INPUTS.items() if fn.key.startswith(k + ":")), None)
    if made is None:
        return _profiles(fn, folder, rs)
    args, data, wrt = made(rs)
    signal.alarm(10)
    try:
        mod = mutant_programs.load(mutant_programs.module_text(fn, fn.node, True), folder, data)
        f = getattr(mod, fn.name)
        out = mutant_programs.call(f, args)
        info = mutant_sources.locals_of(f, copy.deepcopy(args))
    finally:
        signal.alarm(0)
    if isinstance(out, tuple) and len({np.shape(o) for o in out}) > 1:
        TUPLES.add(fn.key)
        scalar, shape = False, (sum(int(np.size(o)) for o in out),)
    else:
        scalar = isinstance(out, (float, np.floating)) or np.ndim(out) == 0
        shape = np.shape(out)
    return mutant_programs.Prepared(args, data, wrt, info, scalar, shape, fn.params)


def module_text(fn, node, direct, engine="numpy", copies=()):
    """``mutant_programs.module_text``, with ``FLAT_WRAPPER`` for the ``TUPLES``."""
    if fn.key not in TUPLES or direct:
        return _module_text(fn, node, direct, engine, copies)
    saved = mutant_programs.WRAPPER
    mutant_programs.WRAPPER = FLAT_WRAPPER
    try:
        return _module_text(fn, node, direct, engine, copies)
    finally:
        mutant_programs.WRAPPER = saved


def jacobian_rows(fn, *args, **kwargs):
    """``mutant_checks.jacobian_rows``, but none for the ``TUPLES`` (a Jacobian of items of
    several shapes is not one array to compare)."""
    return [] if fn.key in TUPLES else _jacobian_rows(fn, *args, **kwargs)


_profiles, _module_text = mutant_programs.prepare, mutant_programs.module_text
_jacobian_rows = mutant_programs.mutant_checks.jacobian_rows


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--mutants" not in argv:
        argv = ["--mutants", "0"] + argv
    mutant_sources._sources = lambda: list(CORPUS)  # the harvest reads this list only
    mutant_programs.prepare = prepare
    mutant_programs.module_text = module_text
    mutant_programs.mutant_checks.jacobian_rows = jacobian_rows
    mutant_programs.__file__ = os.path.abspath(__file__)  # its workers run this file
    return mutant_programs.main(argv)


if __name__ == "__main__":
    sys.exit(main())
