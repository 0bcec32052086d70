"""Plain NumPy, SciPy and JAX programs by scientists and students, their functions checked.

    python tools/numpy_programs.py [--seconds 1800] [--only NAME ...] [--json FILE]
                                   [--mutants 0] [--quiet]

The other corpus tools run programs that take derivatives themselves (autograd's, JAX's
operators pointed at srcad). The programs listed here take none: physics simulations (an
N-body code's accelerations and energies, finite-difference and spring-network solvers), a
Metropolis sampler's target, a network written in NumPy, Gaussian processes' likelihoods and
a GP classifier's Laplace objective written for ``scipy.optimize.minimize``, Bayesian linear
regression, optimisation test functions, and the same N-body code written in ``jax.numpy``.
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

Imports: sys, os, and tools/mutant_programs, tools/mutant_sources.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mutant_programs  # noqa: E402
import mutant_sources  # noqa: E402

KRASSER = "krasserm/bayesian-machine-learning"
#: (repository, file): round 32's programs (corpus32)
CORPUS = [
    # a scientist's teaching simulations (Princeton, "create your own ... with Python"): an
    # N-body code's pairwise accelerations and energies (masked writes into a distance
    # matrix), a Metropolis sampler's target, a network's layers and loss in NumPy,
    # a finite-difference solver, a spring network's forces; the N-body code in jax.numpy
    ("pmocz/nbody-python", "nbody.py"),
    ("pmocz/nbody-jax", "nbody.py"),
    ("pmocz/mcmc-python", "mcmc.py"),
    ("pmocz/artificialneuralnetwork-python", "artificialneuralnetwork.py"),
    ("pmocz/finitedifference-python", "finitedifference.py"),
    ("pmocz/springnetwork-python", "springnetwork.py"),
    # optimisation test functions (single-objective, constrained, multi-objective) written
    # with ``math`` on lists and tuples
    ("nathanrooy/landscapes", "landscapes/single_objective.py"),
    ("nathanrooy/landscapes", "landscapes/constrained.py"),
    ("nathanrooy/landscapes", "landscapes/multi_objective.py"),
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


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--mutants" not in argv:
        argv = ["--mutants", "0"] + argv
    mutant_sources._sources = lambda: list(CORPUS)  # the harvest reads this list only
    return mutant_programs.main(argv)


if __name__ == "__main__":
    sys.exit(main())
