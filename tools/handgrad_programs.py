"""Check srcad against public programs' own hand-written gradients (plain NumPy, no autodiff).

    python tools/handgrad_programs.py [--seconds 60] [--only NAME ...] [--json FILE]

Each entry names a public repository's file (read at run time from its fetched copy,
``fetch github:OWNER/NAME``; ``/work/.mirror/OWNER+NAME/repo``, never copied here) that
computes a loss or an energy in plain NumPy together with its gradient written by hand: a
layer's ``*_forward``/``*_backward`` pair of a course's assignment, a classifier's
``(loss, dW)``, a potential energy and its analytic forces. A recipe below (written here:
it only calls the file's functions) says which function to differentiate, which of the
file's functions is its hand-made gradient, and how to make inputs. srcad differentiates the
forward function unchanged (``srcad.grad`` of a small wrapper that calls it), and its gradient
is compared with the file's own and with central differences along random directions.

Outcomes, per entry (the worst of its checks):

- PASS: srcad agrees with central differences (and with the hand-written gradient, or the
  hand-written one is wrong or crashes: noted as ``manual-differs`` / ``manual-crash``);
- WRONG: srcad disagrees with central differences where the differences are steady (two step
  sizes agree);
- UNJUDGED: the differences are not steady (a kink: ``max``, ``rint``, a cutoff);
- REFUSED: a ``SrcadError``; CRASH: any other exception from srcad;
- PROGRAM: the file's forward function fails when called plainly (Python 2, a name it lacks);
- ENVIRONMENT: the repository is not fetched, or the file imports a package not installed.

Each entry runs in its own process (``--entry N``), so modules of the same name in two
repositories (``cs231n.layers``) do not meet.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MIRRORS = "/work/.mirror"

# ---------------------------------------------------------------------------------------------
# recipes: each takes the imported module and a RandomState and yields checks
# (name, loss, args, wrt, manual): srcad.grad(loss, wrt=wrt)(*args) against manual() (a tuple,
# one gradient per position of wrt, or a callable returning it)


def _layer(fwd, bwd, args, consts, rs, outputs=1):
    """A layer's ``fwd(*args, *consts) -> (*outs, cache)`` and ``bwd(*douts, cache)``: the loss
    is the outputs' inner product with fixed random cotangents."""
    first = fwd(*args, *consts)
    douts = [rs.randn(*np.shape(o)) for o in first[:outputs]]

    def loss(*a):
        outs = fwd(*a, *consts)
        total = 0.0
        for k in range(len(douts)):
            total = total + np.sum(outs[k] * douts[k])
        return total

    def manual():
        got = bwd(*douts, fwd(*args, *consts)[-1])
        return got if isinstance(got, tuple) else (got,)
    return loss, manual


def cs231n_layers(m, rs):
    """A cs231n assignment's ``layers.py``: each ``*_forward`` with its ``*_backward``."""
    x = rs.randn(4, 2, 3)
    yield "affine", m.affine_forward, m.affine_backward, (x, rs.randn(6, 5), rs.randn(5)), ()
    yield "relu", m.relu_forward, m.relu_backward, (rs.randn(5, 6),), ()
    for mode_fn in ("batchnorm", "layernorm"):
        if hasattr(m, f"{mode_fn}_forward"):
            param = {"mode": "train"} if mode_fn == "batchnorm" else {}
            yield (mode_fn, getattr(m, f"{mode_fn}_forward"), getattr(m, f"{mode_fn}_backward"),
                   (rs.randn(6, 4) * 2 + 1, rs.randn(4), rs.randn(4)), (param,))
    if hasattr(m, "conv_forward_naive"):
        yield ("conv_naive", m.conv_forward_naive, m.conv_backward_naive,
               (rs.randn(2, 3, 5, 5), rs.randn(4, 3, 3, 3), rs.randn(4)),
               ({"stride": 2, "pad": 1},))
    if hasattr(m, "max_pool_forward_naive"):
        yield ("max_pool_naive", m.max_pool_forward_naive, m.max_pool_backward_naive,
               (rs.randn(2, 3, 4, 4),), ({"pool_height": 2, "pool_width": 2, "stride": 2},))


def cs231n_rnn_layers(m, rs):
    """A cs231n assignment's ``rnn_layers.py``: recurrent steps, sequences, embeddings."""
    N, T, D, H = 3, 4, 5, 6
    yield ("rnn_step", m.rnn_step_forward, m.rnn_step_backward,
           (rs.randn(N, D), rs.randn(N, H), rs.randn(D, H) * .3, rs.randn(H, H) * .3,
            rs.randn(H)), ())
    yield ("rnn", m.rnn_forward, m.rnn_backward,
           (rs.randn(N, T, D), rs.randn(N, H), rs.randn(D, H) * .3, rs.randn(H, H) * .3,
            rs.randn(H)), ())
    yield ("temporal_affine", m.temporal_affine_forward, m.temporal_affine_backward,
           (rs.randn(N, T, D), rs.randn(D, H), rs.randn(H)), ())
    if hasattr(m, "lstm_step_forward"):
        yield ("lstm_step", m.lstm_step_forward, m.lstm_step_backward,
               (rs.randn(N, D), rs.randn(N, H), rs.randn(N, H), rs.randn(D, 4 * H) * .3,
                rs.randn(H, 4 * H) * .3, rs.randn(4 * H)), (), 2)
        yield ("lstm", m.lstm_forward, m.lstm_backward,
               (rs.randn(N, T, D), rs.randn(N, H), rs.randn(D, 4 * H) * .3,
                rs.randn(H, 4 * H) * .3, rs.randn(4 * H)), ())


def cs231n_losses(m, rs):
    """``svm_loss(x, y)`` and ``softmax_loss(x, y)``: ``(loss, dx)``."""
    y = rs.randint(5, size=6)
    for name in ("svm_loss", "softmax_loss"):
        f = getattr(m, name)
        yield name, (lambda x, f=f: f(x, y)[0]), (rs.randn(6, 5),), (lambda x, f=f: f(x, y)[1])


def cs231n_classifier(prefix):
    def recipe(m, rs):
        """A linear classifier's ``*_loss_naive`` and ``*_loss_vectorized(W, X, y, reg)``:
        ``(loss, dW)``."""
        X, y = rs.randn(7, 4), rs.randint(3, size=7)
        for how in ("naive", "vectorized"):
            f = getattr(m, f"{prefix}_loss_{how}")
            yield (f"{prefix}_{how}", (lambda W, f=f: f(W, X, y, 0.1)[0]),
                   (rs.randn(4, 3) * .5,), (lambda W, f=f: f(W, X, y, 0.1)[1]))
    return recipe


def cs231n_temporal_softmax(m, rs):
    N, T, V = 3, 4, 5
    y, mask = rs.randint(V, size=(N, T)), rs.rand(N, T) > 0.3
    f = m.temporal_softmax_loss
    yield "temporal_softmax_loss", (lambda x: f(x, y, mask)[0]), (rs.randn(N, T, V),), \
        (lambda x: f(x, y, mask)[1])


def energy_forces(energy, forces, shape, extra=(), sign=-1.0, scale=1.0, spread=1.5):
    """A potential energy and the forces written for it (``forces = -grad energy``)."""
    def recipe(m, rs):
        e, f = getattr(m, energy), getattr(m, forces)
        x = _spread_points(rs, shape, spread) * scale
        yield (energy, (lambda x: e(x, *extra)), (x,),
               (lambda x: sign * np.asarray(f(x, *extra), dtype=float)))
    return recipe


def energy_forces_kinetic(energy, forces, shape, extra_f=(), extra_e=(), spread=1.5):
    """A total energy ``E(x, v, ...)`` and the forces ``F(x, ...)`` (``F = -dE/dx``)."""
    def recipe(m, rs):
        e, f = getattr(m, energy), getattr(m, forces)
        x = _spread_points(rs, shape, spread)
        v = rs.randn(*shape)
        yield (energy, (lambda x: e(x, v, *extra_e)), (x,),
               (lambda x: -np.asarray(f(x, *extra_f), dtype=float)))
    return recipe


def pair_potential(energy, force, sign=-1.0, dim=3):
    """A pair potential of a distance vector and its force (``-dV/dr``)."""
    def recipe(m, rs):
        e, f = getattr(m, energy), getattr(m, force)
        r = rs.randn(dim)
        r = r / np.linalg.norm(r) * 1.3
        yield energy, (lambda r: e(r)), (r,), (lambda r: sign * np.asarray(f(r), dtype=float))
    return recipe


class _Tokens:
    """A word2vec assignment's ``dataset`` for negative sampling: always the same token (a
    deterministic loss; the samples' gradients are counted as often as drawn)."""

    def sampleTokenIdx(self):  # noqa: N802 (the assignment's name)
        return 3


def word2vec(naive="naiveSoftmaxLossAndGradient", neg="negSamplingLossAndGradient",
             skipgram="skipgram"):
    """A word2vec assignment (cs224n 2019): ``(loss, dJ/dv_c, dJ/dU)`` of the naive softmax and
    of negative sampling for one centre word, and skip-gram's ``(loss, dJ/dV, dJ/dU)`` over a
    window (its loss function a default parameter)."""
    def recipe(m, rs):
        tokens, vc, U = _Tokens(), rs.randn(3), rs.randn(5, 3)
        for name in (naive, neg):
            f = getattr(m, name)
            yield (name, (lambda c, u, f=f: f(c, 1, u, tokens)[0]), (vc, U), (0, 1),
                   (lambda c, u, f=f: f(c, 1, u, tokens)[1:]))
        f = getattr(m, skipgram)
        words = {w: i for i, w in enumerate("abcde")}
        outside = ["a", "b", "e", "a"]
        yield (skipgram, (lambda C, u: f("c", 2, outside, words, C, u, tokens)[0]),
               (rs.randn(5, 3), U), (0, 1),
               (lambda C, u: f("c", 2, outside, words, C, u, tokens)[1:]))
    return recipe


def mml_cw1(forward=None):
    """A course's first coursework (Imperial's mathematics for machine learning): the
    functions ``f1``, ``f2``, ``f3`` of a point of the plane (quadratic forms, a sine, a log
    determinant) and the gradients ``grad_f1``... written for them; the functions are in the
    module or, for some students, in another (``forward``)."""
    def recipe(m, rs):
        fm = importlib.import_module(forward) if forward else m
        x = np.array([0.3, -0.7])
        for k in (1, 2, 3):
            f, g = getattr(fm, f"f{k}", None), getattr(m, f"grad_f{k}", None)
            if f is not None and g is not None:
                yield (f"f{k}", (lambda x, f=f: f(x)), (x,),
                       (lambda x, g=g: np.reshape(np.asarray(g(x), dtype=float), (2,))))
    return recipe


def mml_lml(m, rs):
    """The same course's third coursework: Bayesian linear regression's log marginal
    likelihood ``lml(alpha, beta, Phi, Y)`` and its gradient in ``(alpha, beta)``."""
    Phi, Y = rs.randn(6, 3), rs.randn(6, 1)
    yield ("lml", (lambda a, b: m.lml(a, b, Phi, Y)), (0.7, 1.3), (0, 1),
           (lambda a, b: tuple(np.ravel(m.grad_lml(a, b, Phi, Y))[:2])))


def _spread_points(rs, shape, spread):
    """Points no two of which are closer than about ``spread / 2`` (on a jittered grid)."""
    dims, n = shape
    side = int(np.ceil(n ** (1 / dims)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * dims, indexing="ij"), 0).reshape(dims, -1)
    return (grid[:, :n] * spread + rs.uniform(-0.1, 0.1, size=(dims, n))).astype(float)


# ---------------------------------------------------------------------------------------------
#: (repository, folder put on sys.path, module imported, recipe[, a folder of the same
#: repository whose course-given helpers (``utils/``) the folder lacks: after it on the path])
FL = "code/cs231n/assignment"
W2V, W2V_DIR = "xixiaoyao/CS224n-winter-together", "Assignments/assignment2/"
ENTRIES = [
    # a deep-learning course's assignments (Stanford cs231n), several students' solutions:
    # layers with forward/backward pairs, linear classifiers' (loss, gradient), recurrent layers
    ("FortiLeiZhang/cs231n", FL + "2", "cs231n.layers", "layers"),
    ("FortiLeiZhang/cs231n", FL + "2", "cs231n.layers", "losses"),
    ("FortiLeiZhang/cs231n", FL + "1", "cs231n.classifiers.softmax", "softmax"),
    ("FortiLeiZhang/cs231n", FL + "1", "cs231n.classifiers.linear_svm", "svm"),
    ("FortiLeiZhang/cs231n", FL + "3", "cs231n.rnn_layers", "rnn_layers"),
    ("FortiLeiZhang/cs231n", FL + "3", "cs231n.rnn_layers", "temporal_softmax"),
    ("kingtaurus/cs231n", "assignment2", "cs231n.layers", "layers"),
    ("kingtaurus/cs231n", "assignment2", "cs231n.layers", "losses"),
    ("kingtaurus/cs231n", "assignment1", "cs231n.classifiers.softmax", "softmax"),
    ("kingtaurus/cs231n", "assignment1", "cs231n.classifiers.linear_svm", "svm"),
    ("kingtaurus/cs231n", "assignment3", "cs231n.rnn_layers", "rnn_layers"),
    ("kingtaurus/cs231n", "assignment3", "cs231n.rnn_layers", "temporal_softmax"),
    ("iworldtong/cs231n-assignments", ".", "utils.layers", "layers"),
    ("iworldtong/cs231n-assignments", ".", "utils.layers", "losses"),
    ("iworldtong/cs231n-assignments", ".", "utils.rnn_layers", "rnn_layers"),
    ("iworldtong/cs231n-assignments", ".", "utils.rnn_layers", "temporal_softmax"),
    # a natural-language course's word2vec assignment (Stanford cs224n 2019), several students:
    # the softmax and negative-sampling losses with their gradients, and skip-gram over them
    ("ZacBi/CS224n-2019-solutions", "assignments/a2", "word2vec", "word2vec"),
    (W2V, W2V_DIR + "BetterBoyTph", "word2vec", "word2vec"),
    (W2V, W2V_DIR + "Herais", "word2vec", "word2vec"),
    (W2V, W2V_DIR + "geekhch", "word2vec", "word2vec"),
    (W2V, W2V_DIR + "logan0czy", "word2vec", "word2vec"),
    (W2V, W2V_DIR + "Bryce", "word2vec", "word2vec", W2V_DIR + "BetterBoyTph"),
    (W2V, W2V_DIR + "MakiNaruto", "word2vec", "word2vec", W2V_DIR + "BetterBoyTph"),
    # a mathematics-for-machine-learning course's courseworks (Imperial College), three
    # students: gradients of functions of the plane, a log marginal likelihood's gradient
    ("94929/mathematics-for-machine-learning", "cw1", "answers", "mml_cw1_plot"),
    ("94929/mathematics-for-machine-learning", "cw3", "answers", "mml_lml"),
    ("ShawnGung/CO496-Mathematics-for-Machine-Learning", "GradientDescend", "CW1", "mml_cw1"),
    ("jinwei14/Mathematics-for-Machine-Learning", "CW3", "1a", "mml_lml"),
    # a simulation-physics course's solutions: Lennard-Jones and gravitational energies with
    # their forces written by hand (loops over pairs, minimum images, cutoffs)
    ("Sekuraz/SimPhys", "Winter/2/solutions", "ex_3_2", "lj_pair_sekuraz"),
    ("Sekuraz/SimPhys", "Winter/2/solutions", "ex_3_4", "lj_box_sekuraz"),
    ("cameron-stewart/simphys1", "sim2/src", "ljlib", "lj_pair_cameron"),
]

RECIPES = {
    "word2vec": word2vec(), "mml_cw1": mml_cw1(), "mml_cw1_plot": mml_cw1("plot"),
    "mml_lml": mml_lml,
    "layers": cs231n_layers, "rnn_layers": cs231n_rnn_layers, "losses": cs231n_losses,
    "softmax": cs231n_classifier("softmax"), "svm": cs231n_classifier("svm"),
    "temporal_softmax": cs231n_temporal_softmax,
    "lj_pair_sekuraz": pair_potential("lj_potential", "lj_force", sign=-1.0),
    "lj_box_sekuraz": energy_forces_kinetic("total_energy", "forces", (3, 5),
                                            extra_f=(2.5, np.array([8.0, 8.0, 8.0])),
                                            extra_e=(2.5, 0.0, np.array([8.0, 8.0, 8.0]))),
    "lj_pair_cameron": pair_potential("compute_lj_potential", "compute_lj_force", sign=-1.0),
}


# ---------------------------------------------------------------------------------------------
def _as_check(item, rs):
    """A recipe's item as ``(name, loss, args, wrt, manual)``."""
    if len(item) in (5, 6) and callable(item[1]) and callable(item[2]):  # a layer pair
        name, fwd, bwd, args, consts = item[:5]
        loss, manual = _layer(fwd, bwd, args, consts, rs, *(item[5:] or (1,)))
        return name, loss, args, tuple(range(len(args))), manual
    if len(item) == 5:  # (name, loss, args, wrt, manual returning a tuple)
        name, loss, args, wrt, manual = item
        return name, loss, args, wrt, (lambda: manual(*args))
    name, loss, args, manual = item
    return name, loss, args, (0,), (lambda: (manual(*args),))


def _directional(loss, args, k, h, eps):
    plus = list(args)
    minus = list(args)
    plus[k] = args[k] + eps * h
    minus[k] = args[k] - eps * h
    return (float(loss(*plus)) - float(loss(*minus))) / (2 * eps)


def _close(a, b, rtol=1e-5, atol=1e-7):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=atol)


def judge(name, loss, args, wrt, manual, srcad):
    """One check: srcad's gradient against central differences and the hand-made one."""
    try:
        loss(*args)
    except Exception as e:  # the program's own failure, before srcad
        return {"check": name, "outcome": "PROGRAM", "message": f"{type(e).__name__}: {e}"}
    try:
        got = srcad.grad(loss, wrt=wrt)(*args)
    except srcad.SrcadError as e:
        return {"check": name, "outcome": "REFUSED", "message": str(e).splitlines()[0][:300]}
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return {"check": name, "outcome": "CRASH", "message": f"{type(e).__name__}: {e}"[:300],
                "where": f"{os.path.basename(tb.filename)}:{tb.lineno}"}
    got = got if isinstance(got, tuple) else (got,)
    rs = np.random.RandomState(7)
    notes, unjudged = [], False
    for k, g in zip(wrt, got):
        if np.shape(g) != np.shape(args[k]):
            return {"check": name, "outcome": "WRONG",
                    "message": f"gradient {k} has shape {np.shape(g)}, not {np.shape(args[k])}"}
        for _ in range(2):
            h = rs.randn(*np.shape(args[k]))
            fd1 = _directional(loss, args, k, h, 1e-5)
            fd2 = _directional(loss, args, k, h, 1e-4)
            ad = float(np.sum(np.asarray(g) * h))
            scale = max(1.0, abs(fd1), abs(ad))
            if abs(fd1 - fd2) > 1e-4 * scale:
                unjudged = True
            elif abs(ad - fd1) > 1e-5 * scale:
                return {"check": name, "outcome": "WRONG",
                        "message": f"argument {k}: srcad {ad!r}, differences {fd1!r}"}
    try:
        hand = manual()
        hand = [hand[i] for i in range(len(wrt))]
        for k, g, m in zip(wrt, got, hand):
            if not _close(g, m):
                notes.append(f"manual-differs({k})")
    except Exception as e:
        notes.append(f"manual-crash({type(e).__name__})")
    return {"check": name, "outcome": "UNJUDGED" if unjudged else "PASS",
            "message": " ".join(notes)}


class _Plots(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Plotting modules a file imports (matplotlib, pylab, seaborn, IPython): stand-ins of
    ``tools/example_shim.py`` (every attribute and call succeeds); nothing is plotted."""

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in ("matplotlib", "mpl_toolkits", "pylab", "seaborn",
                                      "IPython"):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        from example_shim import _Anything
        return _Anything(spec.name)

    def exec_module(self, module):
        pass


ORDER = ["WRONG", "CRASH", "REFUSED", "PROGRAM", "ENVIRONMENT", "UNJUDGED", "PASS"]


def run_entry(index):
    """Run entry ``index`` in this process; returns its result dict."""
    repo, folder, module, recipe, *helpers = ENTRIES[index]
    repo_dir = os.path.join(MIRRORS, repo.replace("/", "+"), "repo")
    if not os.path.isdir(repo_dir):
        return {"outcome": "ENVIRONMENT", "message": f"fetch github:{repo} first", "checks": []}
    sys.path.insert(0, os.path.dirname(HERE))
    import srcad
    with tempfile.TemporaryDirectory(prefix="srcad-handgrad-") as tmp:
        sys.path.insert(0, HERE)
        from corpus_programs import extract
        for where in [folder, *helpers]:
            extract(repo_dir, tmp, where.rstrip("/") + "/x", "")
        os.chdir(os.path.join(tmp, folder))
        sys.path[:0] = [os.path.join(tmp, where) for where in [folder, *helpers]]
        sys.meta_path.insert(0, _Plots())
        try:
            mod = importlib.import_module(module)
        except (ImportError, SyntaxError) as e:
            return {"outcome": "ENVIRONMENT" if isinstance(e, ImportError) else "PROGRAM",
                    "message": f"{type(e).__name__}: {e}"[:300], "checks": []}
        rs = np.random.RandomState(0)
        checks = []
        try:
            items = list(RECIPES[recipe](mod, rs))
        except Exception as e:
            return {"outcome": "PROGRAM", "message": f"{type(e).__name__}: {e}"[:300],
                    "checks": []}
        for item in items:
            name, loss, args, wrt, manual = _as_check(item, rs)
            checks.append(judge(name, loss, args, wrt, manual, srcad))
    worst = min((c["outcome"] for c in checks), key=ORDER.index, default="PROGRAM")
    return {"outcome": worst, "checks": checks}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--entry", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    if args.entry is not None:
        print(json.dumps(run_entry(args.entry)))
        return 0
    counts, results = {}, []
    for i, (repo, folder, module, recipe, *_) in enumerate(ENTRIES):
        name = f"{repo}:{folder}:{module}:{recipe}"
        if args.only and not any(o in name for o in args.only):
            continue
        start = time.perf_counter()
        env = dict(os.environ, MPLBACKEND="Agg", OMP_NUM_THREADS="1",
                   OPENBLAS_NUM_THREADS="1")
        try:
            done = subprocess.run([sys.executable, os.path.abspath(__file__), "--entry",
                                   str(i)], capture_output=True, text=True, env=env,
                                  timeout=args.seconds)
            lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
            result = (json.loads(lines[-1]) if lines else
                      {"outcome": "CRASH", "checks": [], "message": done.stderr[-300:]})
        except subprocess.TimeoutExpired:
            result = {"outcome": "TIMEOUT", "checks": []}
        result["seconds"] = time.perf_counter() - start
        result["name"] = name
        results.append(result)
        counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
        print(f"{result['outcome']:<12} {name}  ({result['seconds']:.1f}s) "
              f"{result.get('message', '')}", flush=True)
        for c in result["checks"]:
            print(f"    {c['outcome']:<10} {c['check']:<22} {c.get('where', '')} "
                  f"{c.get('message', '')}", flush=True)
    checks = {}
    for r in results:
        for c in r["checks"]:
            checks[c["outcome"]] = checks.get(c["outcome"], 0) + 1
    print("entries:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print("checks:", ", ".join(f"{k} {v}" for k, v in sorted(checks.items())))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
