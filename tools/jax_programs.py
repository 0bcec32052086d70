"""Run public programs written for JAX with srcad as their engine, against JAX itself.

    python tools/jax_programs.py [--only NAME ...] [--json FILE] [--jax DIR] [--srcad CHECKOUT]

Each entry names a public repository's file (read at run time from its fetched copy,
``fetch github:OWNER/NAME``; ``/work/.mirror/OWNER+NAME/repo``, never copied here): a script,
or a notebook (``.ipynb``, or a MyST ``.md`` notebook of JAX's documentation) run as its code
cells in order. The file runs under ``tools/jax_shim.py`` (its ``jax`` imports pointed at
NumPy, SciPy and srcad: that is the only change) statement by statement, each for at most
``STATEMENT_SECONDS`` (a failing or slow top-level statement is noted and skipped: the
functions the entry differentiates are defined either way). A recipe below (written here; it
only calls the file's functions and makes inputs) says which of the file's functions to
differentiate, with respect to which arguments (``argnums``, ``has_aux`` as in JAX).

Each check is judged twice: srcad's gradient against central differences of the same function
under the shim (two step sizes, along a random direction), and, when JAX is installed (``--jax``:
a ``pip install --target`` folder; default ``/tmp/corpus26-deps``, else GradBench's
``/tmp/deps-gradbench``), against ``jax.grad`` of the program loaded with the real JAX (64-bit
floats), on the very same inputs. A check whose function draws random numbers (``jax.random``:
the shim's numbers are not JAX's) is judged by the differences only; one using ``stop_gradient``
by JAX only (UNJUDGED without it: its gradient is not that of its values).

Outcomes per entry (the worst of its checks): PASS; WRONG (srcad disagrees with JAX, or with
steady differences); UNJUDGED (no JAX and the differences are not steady); REFUSED (a
``SrcadError``); CRASH (another exception from srcad or its generated code); SHIM (a JAX name the
shim lacks); PROGRAM (the function fails when called plainly under the shim); ENVIRONMENT (the
repository is not fetched or the file needs a package not installed).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import traceback
from collections import namedtuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MIRRORS = "/work/.mirror"
DEPS = next((d for d in ("/tmp/corpus26-deps", "/tmp/deps-gradbench")
             if os.path.isdir(os.path.join(d, "jax"))), "/tmp/corpus26-deps")
STATEMENT_SECONDS = 10

#: one derivative to take: ``fn(*args)`` w.r.t. ``argnums``; ``random``: it draws numbers;
#: ``stopped``: it uses ``stop_gradient`` (its gradient is not that of its values: differences
#: cannot judge it, only ``jax.grad`` can)
Check = namedtuple("Check", "name fn args argnums has_aux random stopped",
                   defaults=(0, False, False, False))

# ---------------------------------------------------------------------------------- recipes
# each takes the program's namespace and a RandomState and yields Checks


def _mlp_params(rs, sizes, scale=0.3):
    return [(scale * rs.randn(m, n), scale * rs.randn(n)) for m, n in zip(sizes[:-1], sizes[1:])]


def mnist_fromscratch(ns, rs):
    params = ns["init_random_params"](0.3, [6, 5, 4], rs)
    x, labels = rs.randn(7, 6), rs.randint(4, size=7)
    yield Check("loss", ns["loss"], (params, (x, np.eye(4)[labels])))


def readme_mlp(loss="loss"):
    def recipe(ns, rs):
        params = _mlp_params(rs, [3, 5, 2])
        yield Check(loss, ns[loss], (params, rs.randn(6, 3), rs.randn(6, 2)))
    return recipe


def advi(ns, rs):
    params = (rs.randn(2) * .3, rs.randn(2) * .3)
    key = ns["random"].key(3)
    yield Check("batch_elbo", lambda p: ns["batch_elbo"](ns["funnel_log_density"], key, p, 5),
                (params,), random=True)
    yield Check("diag_gaussian_logpdf", ns["diag_gaussian_logpdf"],
                (rs.randn(2), params[0], params[1]), (0, 1, 2))


def vmapped_log_probs(ns, rs):
    d = ns["num_features"]
    yield Check("log_joint", ns["log_joint"], (rs.randn(d) * .3,))
    yield Check("batched_log_joint", lambda b: np.sum(ns["batched_log_joint"](b)),
                (rs.randn(3, d) * .3,))
    yield Check("elbo", ns["elbo"], (rs.randn(d) * .3, rs.randn(d) * .3 - 1, rs.randn(4, d)),
                (0, 1))


def cookbook(ns, rs):
    W, b = rs.randn(3), rs.randn()
    yield Check("loss", ns["loss"], (W, b), (0, 1))
    yield Check("loss2", ns["loss2"], ({"W": W, "b": b},))
    grad, tanh = ns["grad"], ns["jnp"].tanh
    yield Check("tanh chain", lambda x: grad(grad(tanh))(x), (0.7,))


def autodiff_doc(ns, rs):
    """JAX's "Automatic differentiation" tutorial and "Transformations" page: a logistic
    model's loss by argnums, a dict of parameters, has_aux, derivatives of derivatives, per-
    example gradients (vmap of grad)."""
    W, b = rs.randn(3), rs.randn()
    yield Check("loss", ns["loss"], (W, b), (0, 1))
    if "loss2" in ns:
        yield Check("loss2", ns["loss2"], ({"W": W, "b": b},))
    if "loss_and_preds" in ns:
        yield Check("loss_and_preds", ns["loss_and_preds"], (W, b), 0, True)
    if "d3fdx" in ns:
        yield Check("d3fdx", ns["d3fdx"], (0.8,))
    if "per_example_grads" in ns:
        c = rs.randn(len(ns["inputs"]), 3)
        yield Check("per_example_grads", lambda W, b: np.sum(
            ns["per_example_grads"](W, b, ns["inputs"], ns["targets"])[0] * c), (W, b), (0, 1))


def pytrees_doc(ns, rs):
    params = ns["init_mlp_params"]([1, 4, 3, 1])
    x, y = rs.randn(6, 1), rs.randn(6, 1)
    yield Check("loss", ns["loss"], ({"W": rs.randn(3), "b": 0.5}, rs.randn(2, 3)))
    yield Check("loss_fn", ns["loss_fn"], (params, x, y))
    yield Check("loss_fn after update", lambda p: ns["loss_fn"](ns["update"](p, x, y), x, y),
                (params,))
    special = ns["RegisteredSpecial"]
    yield Check("registered class", lambda s: s.x ** 2 + s.y, (special(3.0, 4.0),))


def nn_data_loading(ns, rs):
    sizes = [6, 5, 3]
    params = [(rs.randn(n, m) * .3, rs.randn(n) * .3) for m, n in zip(sizes[:-1], sizes[1:])]
    x, labels = rs.randn(4, 6), rs.randint(3, size=4)
    yield Check("loss", ns["loss"], (params, x, np.eye(3)[labels]))


def _curved(x):
    """A function of the recipes (read by srcad: at module level, not in a generator)."""
    return np.sum(np.tanh(x) ** 2 * x[0])


def jvp_doc(ns, rs):
    x, v, c = rs.randn(3), rs.randn(3), rs.randn(3)
    revrev, revfwd, predict, inputs = (ns["hvp_revrev"], ns["hvp_revfwd"], ns["predict"],
                                       ns["inputs"])
    yield Check("hvp_revrev", lambda x: np.dot(revrev(_curved, (x,), (v,)), c), (x,))
    # (grad of a function of the tuple primals: a tuple, as JAX's)
    yield Check("hvp_revfwd", lambda x: np.dot(revfwd(_curved, (x,), (v,))[0], c), (x,))
    yield Check("predict", lambda W, b: np.sum(predict(W, b, inputs) ** 2),
                (rs.randn(3), rs.randn()), (0, 1))


def mlp_list_of_dicts(ns, rs):
    params = ns["init_mlp_params"]([2, 4, 3, 1])
    x, y = rs.randn(5, 2), rs.randn(5, 1)
    yield Check("loss_fn", ns["loss_fn"], (params, x, y))
    yield Check("loss_fn after update", lambda p: ns["loss_fn"](ns["update"](p, x, y), x, y),
                (params,))


def perex(ns, rs):
    params = _mlp_params(rs, [3, 4, 2])
    x, y, c = rs.randn(5, 3), rs.randn(5, 2), rs.randn(5, 3, 4)
    yield Check("logprob_fun", ns["logprob_fun"], (params, x, y))
    yield Check("perex_grads", lambda p: np.sum(ns["perex_grads"](p, x, y)[0][0] * c), (params,))


def reading_group_logreg(ns, rs):
    x = np.hstack([np.ones((8, 1)), rs.randn(8, 2)])
    y = rs.choice([-1, 1], size=8)
    beta = rs.randn(3) * .5
    yield Check("log_post", ns["log_post"], (beta, x, y, 1.5))
    yield Check("batched_log_post", ns["batched_log_post"], (beta, x, y, 1.5))


def reading_group_vmap_logreg(ns, rs):
    made = ns["gen_data_and_log_post"](ns["random"].PRNGKey(0), 3, 12)
    X, y, vg = np.asarray(made[1]), np.asarray(made[2]), made[3]
    c = rs.randn(3)
    yield Check("log_post (value_and_grad's value)", lambda t, X, y: vg(t, X, y)[0],
                (rs.randn(3), X, y))
    yield Check("its gradient, differentiated", lambda t, X, y: np.dot(vg(t, X, y)[1], c),
                (rs.randn(3), X, y))


def masked_autoreg(ns, rs):
    d = 4
    layer0 = ([rs.randn(d - i - 1) * .5 for i in range(d)], rs.randn(d) * .5)
    layer1 = ([rs.randn(d - i) * .5 for i in range(d)], rs.randn(d) * .5)
    acts = [np.tanh, None]
    yield Check("DenseAutoReg", lambda z, p: np.sum(ns["DenseAutoReg"](z, p, acts) ** 2),
                (rs.randn(d), [layer0, layer1]), (0, 1))


def iaf(ns, rs):
    d = 3

    def net():
        return [([rs.randn(d - i - 1) * .5 for i in range(d)], rs.randn(d) * .5),
                ([rs.randn(d - i) * .5 for i in range(d)], rs.randn(d) * .5)]
    params = [(net(), net()), (net(), net())]
    acts = [([np.tanh, None], [np.tanh, None])] * 2

    def flow(z, p):
        out, logdet = ns["MakeFlow"](z, p, acts)
        return np.sum(out ** 2) + logdet
    yield Check("MakeFlow", flow, (rs.randn(d), params), (0, 1))


def tutorial_logreg(ns, rs):
    x, W, b = rs.randint(2, size=2).astype(float), rs.rand(1, 2), 0.3
    yield Check("loss", ns["loss"], (x, 1.0, W, b), (2, 3))
    loss, backprop = ns["loss"], ns["backprop"]

    def after_step(W, b):
        W1, b1 = backprop(x, 1.0, W, b, 0.1)
        return loss(x, 1.0, W1, b1)
    yield Check("loss after backprop", after_step, (W, b), (0, 1))


def intro_linreg(ns, rs):
    x = rs.randn(10)
    yield Check("mse", ns["mse"], ([np.array(0.3), np.array(-0.2)], x, 2 * x - 1), 0)


def cookbook_301(ns, rs):
    """The newer autodiff cookbook: stop_gradient in a TD(0) loss and a straight-through
    estimator, a dict of parameters through jacrev, a Hessian as jacfwd(jacrev(f))."""
    yield Check("td_loss", ns["td_loss"], (rs.randn(3), rs.randn(3), 1.0, rs.randn(3)),
                stopped=True)
    yield Check("straight_through_round", ns["straight_through_round"], (1.7,), stopped=True)
    W, b, c = rs.randn(3), rs.randn(), rs.randn(len(ns["inputs"]))
    jacrev, predict_dict, inputs = ns["jacrev"], ns["predict_dict"], ns["inputs"]
    hessian, loss = ns["hessian"], ns["loss"]

    def jacobian_w(W, b):  # (names bound, as the program's own code reads them)
        return np.sum(jacrev(predict_dict)({"W": W, "b": b}, inputs)["W"] * c[:, None])
    yield Check("jacrev(predict_dict)", jacobian_w, (W, b), (0, 1))

    def loss_w(w):
        return loss(w, b)

    def curvature(W):
        return np.sum(hessian(loss_w)(W) * np.outer(c[:3], c[:3]))
    yield Check("hessian(loss)", curvature, (W,))


def thinking_in_jax(ns, rs):
    yield Check("sum_logistic", ns["sum_logistic"], (rs.randn(4),))
    grad, sum_logistic = ns["grad"], ns["sum_logistic"]
    yield Check("third derivative", lambda x: grad(grad(sum_logistic))(x), (0.6,))


def checkpointing(ns, rs):
    x = rs.randn(4)
    Ws = (rs.randn(5, 4) * .5, rs.randn(6, 5) * .5, rs.randn(7, 6) * .5)
    c = rs.randn(7)
    f2 = ns["f2"]  # (the page's later cells bind f to other functions)
    yield Check("f2", lambda W1, W2, W3: np.dot(f2(W1, W2, W3, x), c), Ws, (0, 1, 2))


def mlp_notebook(ns, rs):
    params = ns["params_initalization"]([1, 4, 3, 1])
    x, y = rs.randn(6, 1), rs.randn(6, 1)
    yield Check("loss_fn", ns["loss_fn"], (params, x, y))
    yield Check("loss_fn after update", lambda p: ns["loss_fn"](ns["update"](p, x, y), x, y),
                (params,))


def nbody_jax(ns, rs):
    """(corpus32) A scientist's differentiable N-body code: pairwise accelerations and energies,
    a leapfrog step over a state tuple, ``lax.fori_loop`` of 100 steps, and the inverse
    problem's loss (the positions' density, by ``jax.scipy.stats.gaussian_kde``, against a
    target)."""
    n = 5
    pos, vel = rs.randn(n, 3), rs.randn(n, 3) * .5
    mass = rs.uniform(.5, 1.5, size=(n, 1))
    c = rs.randn(n, 3)
    yield Check("get_acc", lambda p, m: np.sum(ns["get_acc"](p, m) * c), (pos, mass), (0, 1))
    # (in pos and mass the energy's gradient is NaN under JAX too: 1 / sqrt(0) on the
    # distance matrix's diagonal, masked by triu only after the product)
    yield Check("get_energy", lambda v, p, m: sum(ns["get_energy"](p, v, m)), (vel, pos, mass))

    def step(p, v):
        out = ns["leapfrog"](0, (p, v, ns["get_acc"](p, mass), mass))
        return np.sum(out[0] * c) + np.sum(out[1] * c ** 2)
    yield Check("leapfrog", step, (pos, vel), (0, 1))

    def simulated(v, p):
        return np.sum(ns["do_simulation"](p, v, mass, 0.0)[0] * c)
    yield Check("do_simulation (fori_loop)", simulated, (vel, pos), (0, 1))
    big = rs.randn(ns["N"], 3) * .5
    target = rs.uniform(size=(6, 6))
    yield Check("loss_function", ns["loss_function"], (big, None, None, target / target.sum()))


def pdepy_solver(module, make):
    """(corpus32) A finite-difference PDE library (plain NumPy and SciPy, no JAX): its
    ``solve`` behind a decorator class forwarding ``*args, **kwargs``, differentiated in its
    initial and boundary conditions (and the equation's coefficients) for each method, with
    the inputs of the library's own tests."""
    def recipe(ns, rs):
        import importlib
        solve = importlib.import_module(f"pdepy.{module}").solve
        for method, conds, params in make():
            c = rs.randn(*solve(*_pde_args(conds, params), method=method).shape)
            yield Check(f"{module}.solve {method}", _pde_loss(solve, method, len(conds), c),
                        tuple(conds) + tuple(params), tuple(range(len(conds) + len(params))))
    return recipe


def _pde_loss(solve, method, n, c):
    """The solution weighed by ``c``, as a function of the conditions and coefficients (the
    library's call written out: a spread here would be refused as the harness's own)."""
    x, y = np.linspace(0, 4.0, 5), np.linspace(0, 0.5, 6)
    if n == 3:
        def f(init, b0, bf, p, q, r, s):
            return np.sum(solve((x, y), (p, q, r, s), (init, b0, bf), method=method) * c)
    else:
        def f(a, b, d, e):
            return np.sum(solve((x, y), (a, b, d, e), method=method) * c)
    return f


def _pde_args(conds, params):
    x, y = np.linspace(0, 4.0, 5), np.linspace(0, 0.5, 6)
    return ((x, y), tuple(params), tuple(conds)) if params else ((x, y), tuple(conds))


def _parabolic():
    x, y = np.linspace(0, 4.0, 5), np.linspace(0, 0.5, 6)
    for method in ("ec", "eu", "ic", "iu"):
        yield method, [x ** 2 - 4 * x + 5, 5 * np.exp(-y), 5 * np.exp(-y)], [1.0, 1.0, -3.0, 3.0]


def _wave():
    x, y = np.linspace(0, 4.0, 5), np.linspace(0, 0.5, 6)
    for method in ("e", "i"):
        yield method, [1.0, 0.1 * x * (4 - x), y * (1 - y), y * (1 - y)], []


def _laplace():
    x, y = np.linspace(0, 4.0, 5), np.linspace(0, 0.5, 6)
    yield "ic", [(0 - 1) ** 2 - (y - 2) ** 2, (4.0 - 1) ** 2 - (y - 2) ** 2,
                 (x - 1) ** 2 - 4.0, (x - 1) ** 2 - (0.5 - 2) ** 2], []


JAX = "jax-ml/jax"
RG = "jeremiecoullon/jax_reading_group"
#: (repository, path, recipe)
CORPUS = [
    (JAX, "examples/mnist_classifier_fromscratch.py", mnist_fromscratch),
    (JAX, "examples/advi.py", advi),
    (JAX, "docs/notebooks/vmapped_log_probs.md", vmapped_log_probs),
    (JAX, "docs/notebooks/autodiff_cookbook.md", cookbook),
    (JAX, "docs/automatic-differentiation.md", autodiff_doc),
    (JAX, "docs/new_docs/101/transformations.md", autodiff_doc),
    (JAX, "docs/new_docs/101/pytrees.md", pytrees_doc),
    (JAX, "docs/notebooks/Neural_Network_and_Data_Loading.md", nn_data_loading),
    (JAX, "docs/jacobian-vector-products.md", jvp_doc),
    (JAX, "docs/new_docs/301/cookbook.md", cookbook_301),
    (JAX, "docs/notebooks/thinking_in_jax.md", thinking_in_jax),
    (JAX, "docs/gradient-checkpointing.md", checkpointing),
    ("qiaohaijun/my-notes", "tensorflow/JAX/examples/jax_numpy.py", readme_mlp("logprob_fun")),
    ("mohsenh17/jaxLearning", "jax/mlp.ipynb", mlp_notebook),
    ("jdh4/python-gpu", "jax/example.py", readme_mlp()),
    ("cottrell/notebooks", "jax/old/example.py", perex),
    ("mohsenh17/jaxLearning", "jax/mlp.py", mlp_list_of_dicts),
    (RG, "basic_Jax_intro-Oct_2020/grad_descent_logistic_regression.py", reading_group_logreg),
    (RG, "vmap_pmap-March2021/logistic_regression.py", reading_group_vmap_logreg),
    (RG, "Normalising_flows-April_2021/MaskedAutoReg.py", masked_autoreg),
    (RG, "Normalising_flows-April_2021/InverseAutoRegFlow.py", iaf),
    ("bkestelman/jax-ml-tutorial", "logistic_regression.ipynb", tutorial_logreg),
    ("tahashieenavaz/jax-introduction", "linear-regression.py", intro_linreg),
    ("pmocz/nbody-jax", "nbody.py", nbody_jax),
    ("olivertso/pdepy", "pdepy/parabolic.py", pdepy_solver("parabolic", _parabolic)),
    ("olivertso/pdepy", "pdepy/wave.py", pdepy_solver("wave", _wave)),
    ("olivertso/pdepy", "pdepy/laplace.py", pdepy_solver("laplace", _laplace)),
]

# ---------------------------------------------------------------------------------- loading


def cells_of(path):
    """A notebook's code cells (``.ipynb``, or a MyST ``.md``'s ``{code-cell}`` blocks)."""
    if path.endswith(".ipynb"):
        with open(path) as f:
            nb = json.load(f)
        return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                for c in nb["cells"] if c["cell_type"] == "code"]
    text = open(path).read()
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, flags=re.S)
    return ["\n".join(line for line in c.splitlines() if not line.startswith(":")) for c in cells]


def script_of(path):
    """The file as Python source: a notebook's cells one after another, IPython's magics and
    shell lines left out."""
    if not path.endswith((".ipynb", ".md")):
        return open(path).read()
    out = []
    for k, cell in enumerate(cells_of(path)):
        out.append(f"# cell {k}")
        out.extend(line if not line.lstrip().startswith(("%", "!")) else "#" + line
                   for line in cell.splitlines())
    return "\n".join(out) + "\n"


class StatementTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise StatementTimeout()


def load(path, root):
    """Run the file's top-level statements in a fresh namespace; return it and the failures."""
    source = script_of(path)
    runnable = path if path.endswith(".py") else path + ".py"
    if runnable != path:
        with open(runnable, "w") as f:
            f.write(source)
    tree = ast.parse(source)
    ns = {"__name__": "jax_program", "__file__": runnable, "__builtins__": __builtins__}
    sys.modules["jax_program"] = type(sys)("jax_program")
    sys.modules["jax_program"].__dict__.update(ns)
    ns = sys.modules["jax_program"].__dict__
    failures = []
    signal.signal(signal.SIGALRM, _alarm)
    for stmt in tree.body:
        code = compile(ast.Module([stmt], []), runnable, "exec")
        signal.alarm(STATEMENT_SECONDS)
        try:
            exec(code, ns)
        except (StatementTimeout, Exception, SystemExit) as e:
            failures.append(f"line {stmt.lineno}: {type(e).__name__}: {str(e)[:120]}")
        finally:
            signal.alarm(0)
    return ns, failures


# ---------------------------------------------------------------------------------- worker


def leaves(tree):
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [x for t in tree for x in leaves(t)]
    if _registered(tree):  # a registered class: its attributes
        return [x for k in sorted(vars(tree)) for x in leaves(vars(tree)[k])]
    return [np.asarray(tree)]


def _registered(tree):
    """An object of a class the program registered as a pytree (not an array of any kind)."""
    return hasattr(tree, "__dict__") and not callable(tree) and not hasattr(tree, "shape") \
        and not isinstance(tree, (int, float, complex))


def _floaty(x):
    return np.issubdtype(np.asarray(x).dtype, np.floating)


def _perturb(tree, d, h):
    """``tree`` moved by ``h`` along ``d`` (a list of arrays, one per floating leaf)."""
    if isinstance(tree, dict):
        return {k: _perturb(tree[k], d, h) for k in sorted(tree)}
    if isinstance(tree, (list, tuple)):
        items = [_perturb(t, d, h) for t in tree]
        return items if isinstance(tree, list) else type(tree)(items)
    if _registered(tree):
        moved = copy.copy(tree)
        for k in sorted(vars(tree)):
            setattr(moved, k, _perturb(vars(tree)[k], d, h))
        return moved
    if _floaty(tree):
        return tree + h * d.pop(0)
    return tree


def _scalar(fn, has_aux, args):
    out = fn(*copy.deepcopy(args))  # (a program's ``W -= ...`` changes NumPy arrays in place)
    return float(np.asarray(out[0] if has_aux else out))


def differences(check, rs):
    """Central differences of the check's function along a random direction, at two steps,
    against the same direction's inner product with srcad's gradient (computed by the caller)."""
    argnums = check.argnums if isinstance(check.argnums, tuple) else (check.argnums,)
    dirs = {a: [rs.randn(*np.shape(x)) for x in leaves(check.args[a]) if _floaty(x)]
            for a in argnums}
    single = any(np.asarray(x).dtype == np.float32 for a in argnums
                 for x in leaves(check.args[a]))
    steps = (1e-3, 3e-3) if single else (1e-5, 1e-4)
    out = []
    for h in steps:
        moved = []
        for sign in (1, -1):
            args = list(check.args)
            for a in argnums:
                args[a] = _perturb(args[a], list(dirs[a]), sign * h)
            moved.append(_scalar(check.fn, check.has_aux, args))
        out.append((moved[0] - moved[1]) / (2 * h))
    return dirs, out, single


def run_checks(engine, ns, rs, inputs):
    """Take each check's derivative with ``engine`` (srcad through the shim, or JAX)."""
    results = []
    made = list(RECIPE(ns, rs))
    if inputs is not None:
        made = [c._replace(args=a) for c, a in zip(made, inputs)]
    made_args = copy.deepcopy([c.args for c in made])
    for check in made:
        r = {"name": check.name, "random": check.random, "stopped": check.stopped}
        try:
            value = _scalar(check.fn, check.has_aux, check.args)
            r["value"] = value
        except Exception as e:  # (srcad's derivatives the program takes itself run here)
            kind = _crash_kind(e)
            r.update(outcome="PROGRAM" if kind == "CRASH" else kind, message=_short(e))
            results.append(r)
            continue
        try:
            g = ENGINE.grad(check.fn, argnums=check.argnums, has_aux=check.has_aux)(
                *copy.deepcopy(check.args))
            if check.has_aux:
                g = g[0]
            r["grad"] = [np.asarray(x, dtype=np.complex128 if np.iscomplexobj(x) else float)
                         .tolist() for x in leaves(g)]
        except Exception as e:
            r.update(outcome=_crash_kind(e), message=_short(e), where=_where(e))
            results.append(r)
            continue
        if engine == "srcad":
            dirs, fd, single = differences(check, np.random.RandomState(1))
            gl = leaves(g)
            argnums = check.argnums if isinstance(check.argnums, tuple) else (check.argnums,)
            flat_dirs = [d for a in argnums for d in dirs[a]]
            r["directional"] = float(sum(np.sum(np.real(x) * d) for x, d in zip(gl, flat_dirs)))
            r["fd"], r["single"] = fd, single
        results.append(r)
    return results, made_args


def _short(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


def _crash_kind(e):
    if type(e).__module__.startswith("srcad") and any(
            c.__name__ == "SrcadError" for c in type(e).__mro__):
        return "REFUSED"
    if isinstance(e, AttributeError) and "jax shim lacks" in str(e):
        return "SHIM"
    return "CRASH"


def _where(e):
    tb = traceback.extract_tb(e.__traceback__)
    return f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""


def worker(index, engine, folder, out, inputs_file):
    global RECIPE, ENGINE
    repo, path, RECIPE = CORPUS[index]
    if engine == "srcad":
        sys.path.insert(0, HERE)
        import jax_shim
        ENGINE = jax_shim.install()
    else:
        import jax
        jax.config.update("jax_enable_x64", True)
        ENGINE = jax
    full = os.path.join(folder, path)
    sys.path.insert(0, folder)
    sys.path.insert(0, os.path.dirname(full))
    os.chdir(os.path.dirname(full))
    ns, failures = load(full, folder)
    inputs = None
    if inputs_file and os.path.exists(inputs_file):
        with open(inputs_file, "rb") as f:
            inputs = pickle.load(f)
    try:
        results, made = run_checks(engine, ns, np.random.RandomState(0), inputs)
    except Exception as e:
        kind = "ENVIRONMENT" if isinstance(e, (KeyError, ImportError)) else "PROGRAM"
        results, made = [{"name": "recipe", "outcome": kind, "message": _short(e)}], None
    if engine == "srcad" and made is not None and inputs_file:
        try:
            with open(inputs_file, "wb") as f:
                pickle.dump(made, f)
        except Exception:  # inputs of a class the other process cannot make: no JAX check
            os.unlink(inputs_file)
    with open(out, "w") as f:
        json.dump({"failures": failures, "checks": results}, f)


# ---------------------------------------------------------------------------------- judging


def judge(mine, theirs):
    """One check's outcome from srcad's result and JAX's (or None)."""
    if "outcome" in mine:
        return mine["outcome"], mine.get("message", "")
    fd, dd = mine["fd"], mine["directional"]
    tol = 1e-3 if mine["single"] else 1e-5
    steady = abs(fd[0] - fd[1]) <= tol * (1 + abs(fd[0])) * 10
    fd_ok = abs(fd[0] - dd) <= tol * 10 * (1 + abs(fd[0]))
    if theirs is not None and "grad" in theirs and not mine["random"]:
        a = np.concatenate([np.ravel(x) for x in mine["grad"]] or [np.zeros(0)])
        b = np.concatenate([np.ravel(x) for x in theirs["grad"]] or [np.zeros(0)])
        if a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol * (1 + np.max(
                np.abs(b), initial=0))):
            return "PASS", "= jax.grad"
        if fd_ok:
            return "WRONG?", f"differs from jax.grad, agrees with differences ({a[:3]} vs {b[:3]})"
        return "WRONG", f"differs from jax.grad ({a[:3]} vs {b[:3]}) and from differences"
    if mine.get("stopped"):
        return "UNJUDGED", "stop_gradient: only jax.grad can judge it (JAX not found: --jax)"
    if fd_ok:
        return "PASS", "= differences" + ("" if theirs is None else
                                          f" (jax: {theirs.get('outcome', 'random')})")
    if not steady:
        return "UNJUDGED", f"differences not steady: {fd} vs {dd}"
    return "WRONG", f"differences {fd[0]:.6g} vs srcad {dd:.6g}"


ORDER = ["WRONG", "WRONG?", "CRASH", "REFUSED", "SHIM", "PROGRAM", "ENVIRONMENT", "UNJUDGED",
         "PASS"]


def run_entry(index, extracted, jax_dir, seconds, checkout=None):
    repo, path, _ = CORPUS[index]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [checkout or os.path.dirname(HERE)] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
        MPLBACKEND="Agg", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    with tempfile.TemporaryDirectory(prefix="srcad-jax-") as tmp:
        outs, inputs = {}, os.path.join(tmp, "inputs.pkl")
        for engine in ("srcad", "jax"):
            if engine == "jax" and not (jax_dir and os.path.isdir(jax_dir)):
                continue
            e = dict(env)
            if engine == "jax":
                e["PYTHONPATH"] = os.pathsep.join([jax_dir, e["PYTHONPATH"]])
            out = os.path.join(tmp, engine + ".json")
            try:
                proc = subprocess.run(
                    [sys.executable, os.path.abspath(__file__), "--entry", str(index),
                     "--engine", engine, "--folder", extracted, "--out", out, "--inputs",
                     inputs], env=e, capture_output=True, text=True, timeout=seconds)
                err = proc.stderr.strip().splitlines()[-1:] if proc.returncode else []
            except subprocess.TimeoutExpired:
                err = ["timeout"]
            if os.path.exists(out):
                with open(out) as f:
                    outs[engine] = json.load(f)
            else:
                outs[engine] = {"failures": [], "checks": [
                    {"name": "load", "outcome": "CRASH", "message": (err or ["?"])[0][:200]}]}
    mine, theirs = outs["srcad"], outs.get("jax")
    verdicts = []
    for k, check in enumerate(mine["checks"]):
        other = theirs["checks"][k] if theirs and k < len(theirs["checks"]) else None
        outcome, message = judge(check, other)
        verdicts.append((check["name"], outcome, message, check.get("where", "")))
    worst = min((v[1] for v in verdicts), key=ORDER.index, default="PROGRAM")
    return {"repo": repo, "path": path, "outcome": worst, "checks": verdicts,
            "skipped_statements": mine["failures"]}


def extract(repo, path, target):
    mirror = os.path.join(MIRRORS, repo.replace("/", "+"), "repo")
    folder = os.path.join(target, repo.replace("/", "+"))
    top = path.split("/")[0]
    if not os.path.exists(os.path.join(folder, top)):
        os.makedirs(folder, exist_ok=True)
        archive = subprocess.run(["git", "-C", mirror, "archive", "HEAD", top],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    return folder


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--json")
    parser.add_argument("--jax", default=DEPS)
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--srcad", help="the checkout whose srcad runs (default: this one's)")
    parser.add_argument("--entry", type=int)
    parser.add_argument("--engine")
    parser.add_argument("--folder")
    parser.add_argument("--out")
    parser.add_argument("--inputs")
    args = parser.parse_args(argv)
    if args.entry is not None:
        worker(args.entry, args.engine, args.folder, args.out, args.inputs)
        return 0
    results, counts = [], {}
    with tempfile.TemporaryDirectory(prefix="srcad-jax-src-") as tmp:
        for index, (repo, path, _) in enumerate(CORPUS):
            name = f"{repo}:{path}"
            if args.only and not any(o in name for o in args.only):
                continue
            if not os.path.isdir(os.path.join(MIRRORS, repo.replace("/", "+"), "repo")):
                r = {"repo": repo, "path": path, "outcome": "ENVIRONMENT", "checks": [],
                     "skipped_statements": [f"no mirror: fetch github:{repo}"]}
            else:
                r = run_entry(index, extract(repo, path, tmp), args.jax, args.seconds,
                              args.srcad)
            results.append(r)
            counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
            print(f"{r['outcome']:<12} {name}", flush=True)
            for check, outcome, message, where in r["checks"]:
                print(f"    {outcome:<10} {check}: {message} {where}", flush=True)
            if r["skipped_statements"]:
                print(f"    ({len(r['skipped_statements'])} top-level statements failed; first: "
                      f"{r['skipped_statements'][0]})", flush=True)
    print("TOTAL " + " ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if counts.get("WRONG") else 0


if __name__ == "__main__":
    sys.exit(main())
