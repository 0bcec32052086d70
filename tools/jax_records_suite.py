"""Check srcad against JAX's own test records: other people's op lists, shapes, domains.

    python tools/jax_records_suite.py [MIRROR] [--only NAME ...] [--per-op 16] [--hvp 2]
                                      [--json FILE] [--jax-path DIR]

JAX's tests list, in tables written by JAX's authors, the NumPy and SciPy operators JAX
differentiates and on what: ``tests/lax_numpy_operators_test.py`` (``op_record(name, nargs,
dtypes, shapes, rng_factory, ...)``, the operator overloads), ``tests/lax_numpy_test.py``
(``GRAD_TEST_RECORDS``, ``GRAD_SPECIAL_VALUE_TEST_RECORDS``), ``tests/lax_numpy_reducers_test.py``
(reductions with ``axis``/``keepdims``/``initial``/``where``),
``tests/lax_scipy_special_functions_test.py`` (``scipy.special`` with its domains) and
``tests/linalg_test.py`` (the ``shape=[...]`` lists of its gradient tests). MIRROR is a git
directory of https://github.com/jax-ml/jax (default /work/.mirror/jax-ml+jax/repo); the files
are read at run time with ``git show`` and parsed with ``ast`` (nothing is imported from them,
nothing copied here). From each record: the op's name, its number of arguments, whether its
dtypes include float64, its shapes (every broadcast-compatible combination, JAX's two scalar
shapes as a NumPy scalar and a Python float), its input generator (``rand_default``,
``rand_positive``, ``partial(rand_uniform, low=, high=)``, ...: read for its name and numbers,
re-implemented here in float64) and its keywords. Each case becomes a small module

    def f(x0, x1):
        out = np.arctan2(x0, x1)
        return np.sum(out * W0)

(``W0`` a fixed random weight per floating output) and ``srcad.grad`` (reverse, every
argument), ``srcad.jvp`` (forward, a random tangent) and, for the first ``--hvp`` cases of an op,
``srcad.hvp`` are compared with JAX (the same text run with ``jax.numpy`` as ``np``, float64;
JAX from ``--jax-path``, appended to ``sys.path`` so NumPy stays the project's) and judged by
central differences at two step sizes where they disagree (steady differences decide;
unsteady ones are a kink: CONVENTION when srcad lies between the one-sided differences).

Special values (``GRAD_SPECIAL_VALUE_TEST_RECORDS``, and the records whose generator puts
``inf``/``nan``/``0`` into the inputs) are compared with JAX element by element: a difference
is CONVENTION only where ``docs/rules.md`` states the convention (``CONVENTIONS`` below names
the sentence, which must be found in the file), else WRONG.

Outcomes per check: PASS, WRONG, CONVENTION, KINK, REFUSED (``SrcadError``), CRASH (another
exception, or a timeout), UNMAPPED (no NumPy/SciPy counterpart, no float64, no floating output,
NumPy refuses the arguments). The case module and the judging are ``tools/differential.py``'s
(shared with ``tools/opinfo_suite.py``); ``tools/jax_scipy_records.py`` runs JAX's SciPy and
linear-algebra test methods through ``run_case`` here.
"""

from __future__ import annotations

import argparse
import ast
import collections
import itertools
import json
import os
import subprocess
import sys
import tempfile
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import differential as D  # noqa: E402
from differential import OUTCOMES, close  # noqa: E402, F401

DEFAULT_MIRROR = "/work/.mirror/jax-ml+jax/repo"
FLOAT_NAMES = {"float_dtypes", "inexact_dtypes", "number_dtypes", "all_dtypes",
               "default_dtypes", "real_dtypes", "float_types"}
NUMPY_SCALAR, PYTHON_SCALAR = "np-scalar", "py-float"
# A special-value difference is a convention only where docs/rules.md says so: op -> sentence.
CONVENTIONS = {
    "maximum": "split the gradient equally between the tied elements",
    "minimum": "split the gradient equally between the tied elements",
    "fmax": "split the gradient equally between the tied elements",
    "fmin": "split the gradient equally between the tied elements",
    "max": "split the gradient equally between the tied elements",
    "min": "split the gradient equally between the tied elements",
    "std": "where the standard deviation is 0 (one element, or all equal",
    "nanstd": "where the standard deviation is 0 (one element, or all equal",
}
OPERATORS = {"add": "{0} + {1}", "sub": "{0} - {1}", "mul": "{0} * {1}", "truediv": "{0} / {1}",
             "pow": "{0} ** {1}", "pos": "+{0}", "neg": "-{0}", "abs": "abs({0})",
             "mod": "{0} % {1}", "floordiv": "{0} // {1}"}
SCIPY_OPS = {"log_softmax", "softmax"}


# ---- reading JAX's records -------------------------------------------------------------------

def git_show(mirror, path):
    return subprocess.run(["git", "-C", mirror, "show", f"HEAD:{path}"], capture_output=True,
                          text=True, check=True).stdout


class Env:
    """Module-level literal assignments of a test file, evaluated on demand (shape lists)."""

    def __init__(self, tree):
        self.defs = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                self.defs[node.targets[0].id] = node.value

    def value(self, node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(e) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.value(node.left) + self.value(node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.value(node.operand)
        if isinstance(node, ast.Attribute) and node.attr.endswith("SCALAR_SHAPE"):
            return NUMPY_SCALAR if node.attr.startswith("NUMPY") else PYTHON_SCALAR
        if isinstance(node, ast.Name) and node.id in self.defs:
            return self.value(self.defs[node.id])
        if isinstance(node, ast.Dict):
            return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values)}
        raise ValueError(ast.dump(node)[:80])

    def has_float(self, node):
        """Whether a dtypes expression includes float64 (by the names it is built from)."""
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        attrs = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        if names & FLOAT_NAMES or attrs & {"floating", "all_floating", "float64", "float32"}:
            return True
        return any(n in self.defs and self.has_float(self.defs[n]) for n in names)


def rng_spec(node):
    """('default', {'scale': 3}) from ``jtu.rand_default`` or ``partial(jtu.rand_x, k=v)``."""
    kw = {}
    if isinstance(node, ast.Call):
        kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        node = node.args[0]
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "?")
    return name.removeprefix("rand_"), kw


def draw(rng, kind, kw, shape):
    """JAX's generators in float64 (finite part; ``some_*`` specials are added separately)."""
    size = () if shape in (NUMPY_SCALAR, PYTHON_SCALAR) else shape
    if kind in ("default", "some_inf", "some_nan", "some_inf_and_nan"):
        x = rng.standard_normal(size) * kw.get("scale", 3)
    elif kind == "nonzero":
        x = rng.standard_normal(size) * 3
        x = np.where(x == 0, 1.0, x)
    elif kind == "positive":
        x = rng.random(size) * 2 + 1
    elif kind == "small":
        x = rng.standard_normal(size) * 1e-3
    elif kind == "not_small":
        x = rng.standard_normal(size) * 3
        x = x + np.where(x > 0, kw.get("offset", 10.0), -kw.get("offset", 10.0))
    elif kind == "small_positive":
        x = rng.random(size) * 2e-5
    elif kind == "uniform":
        lo, hi = kw.get("low", 0.0), kw.get("high", 1.0)
        x = rng.random(size) * (hi - lo) + lo
    elif kind == "some_zero":
        x = rng.standard_normal(size) * 3
        x = np.where(rng.random(size) < 0.5, 0.0, x)
    elif kind == "some_equal":
        x = rng.standard_normal(size) * 100
        if np.size(x):
            x = np.where(rng.random(size) < 0.5, np.ravel(x)[0], x)
    else:
        return None
    x = np.asarray(x, dtype=np.float64)
    if shape == PYTHON_SCALAR:
        return float(x)
    if shape == NUMPY_SCALAR:
        return np.float64(x)
    return x


Record = collections.namedtuple("Record", "group name nargs shapes rng kwargs float64 argnames")


def op_records(text, lists, group):
    tree = ast.parse(text)
    env = Env(tree)
    out = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in lists):
            continue
        for call in node.value.elts:
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", "") == "op_record"):
                continue
            args = call.args
            kws = {k.arg: k.value for k in call.keywords}
            name = env.value(args[0])
            nargs = env.value(args[1])
            dtypes = args[2]
            if len(args) > 4 and group != "scipy.special":
                shapes = env.value(args[3])
                rng = rng_spec(args[4])
            else:
                shapes = env.value(env.defs["all_shapes"])
                rng = rng_spec(args[3])
            kwargs = env.value(kws["kwargs"]) if "kwargs" in kws else {}
            if isinstance(dtypes, ast.Tuple):  # scipy: one dtype list per argument
                f64 = any(env.has_float(d) for d in dtypes.elts)
                ints = [i for i, d in enumerate(dtypes.elts) if not env.has_float(d)]
            else:
                f64 = env.has_float(dtypes)
                ints = []
            if "alias" in kws and not hasattr(np, name):
                kwargs = dict(kwargs, _alias=env.value(kws["alias"]))
            sub = node.targets[0].id
            out.append(Record(f"{group}:{sub}", name, nargs, shapes, rng,
                              dict(kwargs, _ints=ints) if ints else kwargs, f64, None))
    return out


def grad_records(text):
    """GRAD_TEST_RECORDS and GRAD_SPECIAL_VALUE_TEST_RECORDS of lax_numpy_test.py."""
    tree = ast.parse(text)
    env = Env(tree)
    normal, special = [], []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        which = node.targets[0].id
        if which not in ("GRAD_TEST_RECORDS", "GRAD_SPECIAL_VALUE_TEST_RECORDS"):
            continue
        for call in node.value.elts:
            op = call.args[0].attr
            kws = {k.arg: k.value for k in call.keywords}
            if which == "GRAD_TEST_RECORDS":
                normal.append(Record("numpy:GRAD_TEST_RECORDS", op, env.value(kws["nargs"]),
                                     env.value(env.defs["nonempty_shapes"]),
                                     rng_spec(kws["rng_factory"]),
                                     {"_order": env.value(kws["order"])},
                                     env.has_float(kws["dtypes"]), None))
            else:
                special.append((op, env.value(call.args[1]), env.value(call.args[2])))
    return normal, special


REDUCER_LISTS = {"JAX_REDUCER_RECORDS": ("axis", "keepdims"),
                 "JAX_REDUCER_INITIAL_RECORDS": ("axis", "keepdims", "initial"),
                 "JAX_REDUCER_WHERE_NO_INITIAL_RECORDS": ("axis", "keepdims", "where"),
                 "JAX_REDUCER_NO_DTYPE_RECORDS": ("axis", "keepdims")}

# linalg_test.py: the gradient tests, what each one differentiates, and how its input is made.
LINALG = {
    "testCholesky": ("np.linalg.cholesky({0})", "spd"),
    "testDetGrad": ("np.linalg.det({0})", "default"),
    "testSlogdetGrad": ("np.linalg.slogdet({0})", "default"),
    "testEigvalsGrad": ("np.linalg.eigvals({0})", "default"),
    "testSVDGrad": ("np.linalg.svd({0}, full_matrices=False, compute_uv=False)", "default"),
    "testPinv": ("np.linalg.pinv({0})", "default"),
    "testLuGrad": ("scipy.linalg.lu({0})", "default"),
    "testExpmGrad": ("scipy.linalg.expm({0})", "expm"),
    "testInv": ("np.linalg.inv({0})", "default"),
    "testMatrixPower": ("np.linalg.matrix_power({0}, {n})", "default"),
}


def linalg_shapes(text):
    tree = ast.parse(text)
    env = Env(tree)
    found = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef) and node.name in LINALG):
            continue
        for deco in node.decorator_list:
            if not isinstance(deco, ast.Call):
                continue
            for k in deco.keywords:
                try:
                    if k.arg == "shape":
                        found.setdefault(node.name, {})["shape"] = env.value(k.value)
                    elif k.arg == "n":
                        found.setdefault(node.name, {})["n"] = env.value(k.value)
                except ValueError:
                    pass
            for a in deco.args:  # [dict(shape=shape, ...) for shape in [...] ...]
                if isinstance(a, ast.ListComp):
                    for gen in a.generators:
                        if getattr(gen.target, "id", "") == "shape":
                            try:
                                found.setdefault(node.name, {})["shape"] = env.value(gen.iter)
                            except ValueError:
                                pass
    return found


# ---- cases -----------------------------------------------------------------------------------

Case = collections.namedtuple("Case", "group op call params consts special order prelude",
                              defaults=("",))


def broadcastable(shapes):
    try:
        np.broadcast_shapes(*[() if isinstance(s, str) else s for s in shapes])
        return True
    except ValueError:
        return False


def call_text(rec):
    """The NumPy/SciPy call written for a record (argument names x0, x1, ...), or None."""
    names = [f"x{i}" for i in range(rec.nargs)]
    extra = "".join(f", {k}={v!r}" for k, v in rec.kwargs.items() if not k.startswith("_"))
    if rec.name.startswith("__"):
        bare = rec.name.strip("_")
        if bare not in OPERATORS and bare.startswith("r") and bare[1:] in OPERATORS:
            return OPERATORS[bare[1:]].format(*reversed(names))
        return OPERATORS[bare].format(*names) if bare in OPERATORS else None
    if rec.group.startswith("scipy") or rec.name in SCIPY_OPS:
        return f"scipy.special.{rec.name}({', '.join(names)}{extra})"
    name = rec.name if hasattr(np, rec.name) else rec.kwargs.get("_alias")
    if name is None or not hasattr(np, name):
        return None
    return f"np.{name}({', '.join(names)}{extra})"


def elementwise_cases(rec, rng):
    call = call_text(rec)
    for shapes in itertools.combinations_with_replacement(rec.shapes, rec.nargs):
        if not broadcastable(shapes):
            continue
        if call is None or not rec.float64:
            yield Case(rec.group, rec.name, None, (), {}, None, 1)
            continue
        kind, kw = rec.rng
        xs = [draw(rng, kind, kw, s) for s in shapes]
        if any(x is None for x in xs):
            yield Case(rec.group, rec.name, None, (), {}, None, 1)
            continue
        params, consts, text = [], {}, call
        for i, x in enumerate(xs):
            if i in rec.kwargs.get("_ints", ()):
                consts[f"x{i}"] = np.round(np.asarray(x)).astype(np.int64)
            else:
                params.append((f"x{i}", x))
        if consts:  # the integer arguments are held constant: not parameters
            for k in consts:
                text = text.replace(k, k.upper())
            consts = {k.upper(): v for k, v in consts.items()}
        special = kind if kind.startswith("some_inf") or kind == "some_nan" else None
        yield Case(rec.group, rec.name, text, params, consts, special,
                   rec.kwargs.get("_order", 1))


def reducer_cases(rec, forms, rng):
    kind, kw = rec.rng
    name = rec.name
    for shape in rec.shapes:
        nd = 0 if isinstance(shape, str) else len(shape)
        for axis in list(range(-nd, nd)) + [None]:
            wheres = [None]
            if "where" in forms:
                wheres = [() if isinstance(shape, str) else shape[n:] for n in range(nd + 1)] \
                    if nd else [()]
            for keepdims in (False, True):
                for initial in ((0, 1) if "initial" in forms else (None,)):
                    for ws in wheres:
                        if not rec.float64:
                            yield Case(rec.group, name, None, (), {}, None, 1)
                            continue
                        x = draw(rng, kind, kw, shape)
                        consts = {}
                        extra = f", axis={axis}, keepdims={keepdims}"
                        if initial is not None:
                            extra += f", initial={float(initial)!r}"
                        if ws is not None:
                            consts["WHERE"] = rng.random(ws) < 0.5
                            extra += ", where=WHERE"
                        yield Case(rec.group, name, f"np.{name}(x0{extra})", [("x0", x)],
                                   consts, "some_nan" if kind == "some_nan" else None, 1)


def linalg_cases(found, rng):
    for test, info in found.items():
        template, how = LINALG[test]
        shapes = info.get("shape") or [(n, n) for n in info.get("n", [])]
        for shape in shapes:
            if int(np.prod(shape)) > 120:
                continue
            if how == "spd":
                a = rng.standard_normal(shape[:-1] + (2 * shape[-1],))
                x = a @ np.swapaxes(a, -1, -2)
            elif how == "expm":
                x = rng.standard_normal(shape) * 0.3
            else:
                x = rng.standard_normal(shape) * 3
            for n in ([2, -1, 3] if "{n}" in template else [None]):
                yield Case("linalg:" + test, template.split("(")[0], template.format("x0", n=n),
                           [("x0", x)], {}, None, 1)


# ---- running one case ------------------------------------------------------------------------

def floating_parts(value, path=""):
    if isinstance(value, (tuple, list)):
        return [p for i, v in enumerate(value) for p in floating_parts(v, f"{path}[{i}]")]
    kind = np.asarray(value).dtype.kind
    if kind == "c":
        return [(path, "re"), (path, "im")]
    return [(path, "plain")] if kind == "f" else []


def make_module(case, parts, folder, key):
    return D.make_module([p[0] for p in case.params], case.call, parts, folder,
                         f"jaxrec_{key}", case.consts, case.prelude)


def jax_module(text, namespace):
    """The same module text run with ``jax.numpy`` as ``np`` and ``jax.scipy`` as ``scipy``."""
    if namespace is None:
        return None
    scope = {}
    body = "\n".join(line for line in text.splitlines() if not line.startswith("import "))
    exec(compile(body, "<jax twin>", "exec"), scope)  # noqa: S102 - our own generated text
    return scope


def judge(fn, xs, vs, claimed):
    return D.judge(fn, xs, vs, claimed, D.scaled_steps)


def run_case(case, key, folder, rng, jx, do_hvp, timeout):
    """One case: a list of (check, outcome, detail)."""
    import warnings

    import srcad
    if case.call is None:
        return [("map", "UNMAPPED", "no NumPy/SciPy counterpart or no float64")]
    xs = [p[1] for p in case.params]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            probe = types.SimpleNamespace(params=case.params)
            scope = dict(case.consts, np=np, scipy=__import__("scipy"))
            import scipy.linalg  # noqa: F401
            import scipy.special  # noqa: F401
            import scipy.stats  # noqa: F401
            if case.prelude:
                exec(case.prelude, scope)  # noqa: S102 - our own generated text
            nout = eval(case.call, scope, {p[0]: p[1] for p in probe.params})  # noqa: S307
        except Exception as e:  # noqa: BLE001 - NumPy refuses these arguments
            return [("map", "UNMAPPED", f"numpy: {type(e).__name__}: {str(e)[:100]}")]
    parts = floating_parts(nout)
    if not parts:
        return [("map", "UNMAPPED", "no floating output")]
    weights = [rng.standard_normal(np.shape(D.part(nout, p, k))) for p, k in parts]
    mod, text = make_module(case, parts, folder, key)
    for i, w in enumerate(weights):
        setattr(mod, f"W{i}", w)
    f = mod.f
    if not np.isfinite(f(*xs)):
        return [("map", "UNMAPPED", "the value is not finite here (an empty where= slice)")]
    n = len(xs)
    jf = None
    if jx is not None:
        scope = jax_module(text, jx)
        scope.update(case.consts)
        scope.update({f"W{i}": w for i, w in enumerate(weights)})
        scope.update(np=jx.numpy, scipy=jx.scipy)
        jf = scope["f"]
    warnings.simplefilter("ignore")
    jgrads = None
    if jf is not None:
        found = D.checked("jax", timeout, lambda: ("jax", "PASS", [
            np.asarray(g, dtype=float) for g in jx.grad(jf, argnums=tuple(range(n)))(*xs)]))
        if found[1] == "PASS":
            jgrads = found[2]
        else:  # JAX has no derivative here (or takes too long)
            jf = None

    def reverse():
        g = srcad.grad(f, wrt=tuple(range(n)) if n > 1 else 0)(*xs)
        g = list(g) if n > 1 else [g]
        return D.compare_grads(f, xs, g, jgrads, rng)

    results = [D.checked("rev", timeout, reverse)]
    vs = [rng.standard_normal(np.shape(x)) for x in xs]
    vs = [float(v) if isinstance(x, float) else v for x, v in zip(xs, vs)]

    def forward():
        value, tangent = srcad.jvp(f, tuple(xs), tuple(vs))
        return D.compare_jvp(f, xs, vs, value, tangent, jgrads)

    results.append(D.checked("fwd", timeout, forward))
    if do_hvp or case.order >= 2:
        results.append(D.checked("hvp", timeout, check_hvp, f, jf, jx, xs, rng))
    if case.special and jf is not None:
        results.append(D.checked("special", timeout, check_special, case, f, jf, jx, xs, rng))
    return [(c, o, d + ("" if o in ("PASS", "UNMAPPED") else f"\n{text}")) for c, o, d in results]


def check_hvp(f, jf, jx, xs, rng):
    import srcad
    v = rng.standard_normal(np.shape(xs[0]))
    v = float(v) if isinstance(xs[0], float) else v
    hv = np.asarray(srcad.hvp(f, tuple(xs), v, wrt=0), dtype=float)
    jh = None
    if jf is not None:
        try:
            def g0(x0):
                return jx.grad(jf, argnums=0)(x0, *xs[1:])
            jh = np.asarray(jx.jvp(g0, (xs[0],), (v,))[1], dtype=float)
            if close(hv, jh, 1e-5):
                return ("hvp", "PASS", "")
        except Exception:  # noqa: BLE001 - no second derivative in JAX
            jh = None
    k = int(np.argmax(np.nan_to_num(np.abs(hv - jh), nan=np.inf))) \
        if jh is not None and hv.size else 0
    if not hv.size:
        return ("hvp", "PASS", "")
    e = np.zeros(np.shape(xs[0]))
    e.flat[k] = 1.0

    same_grad = False
    if jf is not None:  # JAX's gradient is differenced only where it is srcad's
        try:
            same_grad = close(srcad.grad(f, wrt=0)(*xs), jx.grad(jf, argnums=0)(*xs))
        except Exception:  # noqa: BLE001
            same_grad = False

    def grad_k(*ys):
        if same_grad:
            gk = jx.grad(jf, argnums=0)(*ys)
        else:
            gk = srcad.grad(f, wrt=0)(*ys)
        return float(np.sum(np.asarray(gk) * e))

    vs = [v] + [np.zeros(np.shape(y)) for y in xs[1:]]
    outcome, detail = judge(grad_k, xs, vs, float(np.sum(hv * e)))
    return ("hvp", outcome, f"(H v)[{k}]: {detail}")


def check_special(case, f, jf, jx, xs, rng):
    """inf / -inf / nan / 0 put into the inputs, srcad's gradient compared with JAX's."""
    import srcad
    specials = {"some_inf": [np.inf, -np.inf, 0.0], "some_nan": [np.nan, 0.0],
                "some_inf_and_nan": [np.inf, -np.inf, np.nan, 0.0]}[case.special]
    ys = []
    for x in xs:
        if np.ndim(x) == 0:
            ys.append(x)
            continue
        y = np.array(x, dtype=float)
        flat = y.reshape(-1)
        for j in range(flat.size):
            if rng.random() < 0.4:
                flat[j] = specials[rng.integers(len(specials))]
        ys.append(y)
    n = len(ys)
    g = srcad.grad(f, wrt=tuple(range(n)) if n > 1 else 0)(*ys)
    g = list(g) if n > 1 else [g]
    jg = [np.asarray(a, dtype=float) for a in jx.grad(jf, argnums=tuple(range(n)))(*ys)]
    for i, (a, b) in enumerate(zip(g, jg)):
        a = np.asarray(a, dtype=float)
        same = (a == b) | (np.isnan(a) & np.isnan(b)) | np.isclose(a, b, rtol=1e-7, atol=1e-12)
        for k in np.flatnonzero(~same.reshape(-1)):
            outcome, detail = judge_special(f, ys, i, int(k), float(a.reshape(-1)[k]),
                                            float(b.reshape(-1)[k]), case.op)
            if outcome == "LIMIT":  # the nan inputs set to 0: srcad's gradient against limits
                clean = [np.where(np.isnan(y), 0.0, y) if np.ndim(y) else
                         (0.0 if np.isnan(y) else y) for y in ys]
                clean = [float(c) if isinstance(y, float) else c for c, y in zip(clean, ys)]
                gc = srcad.grad(f, wrt=tuple(range(n)) if n > 1 else 0)(*clean)
                gc = list(gc) if n > 1 else [gc]
                mine = float(np.asarray(gc[i], dtype=float).reshape(-1)[k])
                outcome, more = judge_limit(f, clean, i, int(k), mine)
                detail += f"; nan inputs set to 0: srcad {mine!r}" + more
            if outcome != "PASS":
                return ("special", outcome, detail)
    return ("special", "PASS", "")


def judge_special(f, ys, i, k, mine, theirs, op):
    """srcad and JAX differ in element ``k`` of the gradient in argument ``i`` at inputs with
    inf / nan / 0. With an infinite input: the gradient's limit (central differences with each
    infinity replaced by +-M, M = 40 and 80, steady) decides. A nan input that srcad's gradient
    passes on as nan is not wrong. Else a convention docs/rules.md states, or WRONG."""
    inputs = [np.ravel(y)[k] if np.ndim(y) and np.size(y) == np.size(ys[i]) else y for y in ys]
    detail = f"d/dx{i}[{k}] at inputs {inputs}: srcad {mine!r}, JAX {theirs!r}"
    if any(np.isnan(v).any() for v in inputs) and np.isnan(mine):
        return "PASS", detail + " (nan in, nan out)"
    if any(np.isinf(y).any() for y in ys):
        return "LIMIT", detail
    sentence = CONVENTIONS.get(op)
    if sentence and sentence in RULES_DOC:
        return "CONVENTION", detail + f" (docs/rules.md: {sentence})"
    return "WRONG", detail


def judge_limit(f, ys, i, k, mine):
    """srcad's gradient element at inputs with infinities against the limit: central
    differences with each infinity replaced by +-M (M = 40, 80, and 40 to 55 spread)."""
    limits = []
    for big, spread in ((40.0, 0.0), (80.0, 0.0), (40.0, 0.37)):
        zs = []
        for y in ys:
            fill = big * (1.0 + spread * (np.arange(np.size(y)) % 3).reshape(np.shape(y)))
            z = np.where(np.isinf(y), np.sign(y) * fill, y)
            zs.append(float(z) if isinstance(y, float) else z)
        e = np.zeros(np.shape(ys[i]))
        e.flat[k] = 1.0
        vs = [np.zeros(np.shape(y)) for y in ys]
        vs[i] = float(e) if isinstance(ys[i], float) else e
        h = 1e-5

        plus = f(*[z + h * v for z, v in zip(zs, vs)])
        minus = f(*[z - h * v for z, v in zip(zs, vs)])
        limits.append((plus - minus) / (2 * h))
    lo, hi, other = limits
    steady = np.isfinite(lo) and abs(lo - hi) <= 1e-6 * max(1.0, abs(lo))
    if steady and abs(other - hi) <= 1e-6 * max(1.0, abs(hi)):
        if abs(mine - hi) <= 1e-5 * max(1.0, abs(hi)):
            return "PASS", f" (the limit {hi!r} agrees)"
        return "WRONG", f" (the limit is {hi!r})"
    if np.isnan(mine):
        return "PASS", f" (no limit: {lo!r}, {hi!r}, {other!r}; srcad says nan)"
    return "KINK", f" (no limit: {lo!r}, {hi!r}, {other!r})"


RULES_DOC = ""


def special_value_cases(special):
    """GRAD_SPECIAL_VALUE_TEST_RECORDS: (op, values, order) -> cases at each value."""
    for op, values, order in special:
        for value in values:
            yield Case("numpy:GRAD_SPECIAL_VALUE_TEST_RECORDS", op, f"np.{op}(x0)",
                       [("x0", float(value))], {}, None, order)
            yield Case("numpy:GRAD_SPECIAL_VALUE_TEST_RECORDS", op, f"np.{op}(x0)",
                       [("x0", np.full(3, value))], {}, None, order)


# ---- the run ---------------------------------------------------------------------------------

def load_cases(mirror, rng):
    """Every case, grouped by (group, op), in the records' order."""
    by_op = collections.OrderedDict()

    def add(case):
        by_op.setdefault((case.group.split(":")[0] + ":" + case.op), []).append(case)

    ops = git_show(mirror, "tests/lax_numpy_operators_test.py")
    for rec in op_records(ops, {"JAX_ONE_TO_ONE_OP_RECORDS", "JAX_COMPOUND_OP_RECORDS",
                                "JAX_OPERATOR_OVERLOADS", "JAX_RIGHT_OPERATOR_OVERLOADS"},
                          "numpy"):
        for case in elementwise_cases(rec, rng):
            add(case)
    normal, special = grad_records(git_show(mirror, "tests/lax_numpy_test.py"))
    for rec in normal:
        for case in elementwise_cases(rec, rng):
            add(case)
    for case in special_value_cases(special):
        add(case)
    red = git_show(mirror, "tests/lax_numpy_reducers_test.py")
    for which, forms in REDUCER_LISTS.items():
        for rec in op_records(red, {which}, "reducers"):
            for case in reducer_cases(rec, forms, rng):
                add(case)
    sp = git_show(mirror, "tests/lax_scipy_special_functions_test.py")
    for rec in op_records(sp, {"JAX_SPECIAL_FUNCTION_RECORDS"}, "scipy.special"):
        for case in elementwise_cases(rec, rng):
            add(case)
    for case in linalg_cases(linalg_shapes(git_show(mirror, "tests/linalg_test.py")), rng):
        add(case)
    return by_op


def spread(items, n):
    """``n`` items spread evenly over the list (all of them when there are fewer)."""
    if n <= 0 or len(items) <= n:
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def load_jax(path):
    if path and os.path.isdir(path) and path not in sys.path:
        sys.path.append(path)  # after the project's own packages: NumPy stays the venv's
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")
        import jax.numpy
        import jax.scipy.linalg
        import jax.scipy.special
        import jax.scipy.stats  # noqa: F401
        return jax
    except Exception:  # noqa: BLE001 - without JAX: central differences alone
        return None


def run(mirror=DEFAULT_MIRROR, only=(), per_op=16, hvp=2, timeout=60, seed=0, jax_path=None,
        verbose=True):
    global RULES_DOC
    with open(os.path.join(ROOT, "docs", "rules.md")) as fh:
        RULES_DOC = fh.read()
    rng = np.random.default_rng(seed)
    jx = load_jax(jax_path)
    by_op = load_cases(mirror, rng)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for key, cases in by_op.items():
            if only and key.split(":")[1] not in only and key not in only:
                continue
            chosen = spread(cases, per_op)
            counts = collections.Counter()
            for j, case in enumerate(chosen):
                tag = f"{len(rows)}"
                shapes = [np.shape(p[1]) if not isinstance(p[1], float) else "py"
                          for p in case.params]
                for check, outcome, detail in run_case(case, tag, folder, rng, jx, j < hvp,
                                                       timeout):
                    rows.append(dict(op=key, group=case.group, call=case.call,
                                     shapes=str(shapes), check=check, outcome=outcome,
                                     detail=detail))
                    counts[outcome] += 1
            if jx is not None:
                jx.clear_caches()  # JAX keeps every shape's compiled code: memory grows
            if verbose:
                line = " ".join(f"{o}={counts[o]}" for o in OUTCOMES if counts[o])
                print(f"{key:40s} {len(chosen):3d}/{len(cases):4d}  {line}", flush=True)
    return rows, jx is not None


def summarise(rows):
    total = collections.Counter(r["outcome"] for r in rows)
    print("\nTOTAL " + " ".join(f"{o} {total[o]}" for o in OUTCOMES))
    for r in rows:
        if r["outcome"] in ("WRONG", "CRASH", "KINK"):
            print(f"\n{r['outcome']} {r['op']} [{r['check']}] {r['shapes']}: {r['detail']}")
    return total


def options(description, per_op, hvp, what="op"):
    """The command line both JAX rounds take (this one and tools/jax_scipy_records.py)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("mirror", nargs="?", default=DEFAULT_MIRROR)
    ap.add_argument("--only", nargs="*", default=())
    ap.add_argument("--per-op", type=int, default=per_op, help=f"cases per {what} (0: all)")
    ap.add_argument("--hvp", type=int, default=hvp, help=f"Hessian-vector products per {what}")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jax-path", default="/tmp/corpus26-deps")
    ap.add_argument("--json")
    return ap


def report(rows, with_jax, json_path):
    """Print the counts, write the rows as JSON if asked; the exit status (1 if any WRONG)."""
    print(f"\nsecond engine: {'JAX' if with_jax else 'none (central differences alone)'}")
    total = summarise(rows)
    if json_path:
        with open(json_path, "w") as fh:
            json.dump(dict(rows=rows, total=total), fh, indent=1)
    return 1 if total["WRONG"] else 0


def main(argv=None):
    args = options(__doc__.splitlines()[0], 16, 2).parse_args(argv)
    rows, with_jax = run(args.mirror, args.only, args.per_op, args.hvp, args.timeout, args.seed,
                         args.jax_path)
    return report(rows, with_jax, args.json)


if __name__ == "__main__":
    sys.exit(main())
