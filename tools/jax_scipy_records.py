"""Check srcad against JAX's SciPy and linear-algebra tests: their functions, inputs, domains.

    python tools/jax_scipy_records.py [MIRROR] [--files stats,scipy,linalg] [--only TEST ...]
                                      [--per-op 8] [--hvp 1] [--json FILE] [--jax-path DIR]

The second round of ``tools/jax_records_suite.py``: where that one reads JAX's op tables,
this one reads JAX's test *methods* in ``tests/scipy_stats_test.py`` (distributions' logpdf,
pdf, cdf, logcdf, sf, ppf, ...), ``tests/lax_scipy_test.py`` (logsumexp with ``b=``/``axis``/
``return_sign``, xlogy, xlog1py, entr, multigammaln, ...) and ``tests/linalg_test.py`` (det,
slogdet, inv, solve, cholesky, eigh, svd, qr, lstsq, expm, sqrtm, ...). The files are read at
run time from the JAX mirror (``git show``) and parsed with ``ast``; nothing is copied here.

How a test method becomes cases: its ``jtu.sample_product`` decorator (or a module-level
helper that calls it) is evaluated with a stand-in ``jtu`` whose float dtypes are float64 only
(complex and integer dtype lists are empty, so those combinations drop out), giving the
parameter combinations. The method's body then runs once per combination with stand-ins: JAX's
random generators re-implemented in float64 (``rand_default``, ``rand_positive``,
``rand_uniform(low, high)``, ...), ``jax.numpy``/``jax.scipy`` as names that call NumPy/SciPy,
and a ``self`` whose ``_CheckAgainstNumpy(np_fun, lax_fun, args_maker)`` and whose
``jtu.check_grads(fun, args, order)`` record the function and the inputs (the arguments'
domains are the test's own: its ``np.where``/``np.clip``/``abs`` adjustments run as written).
The recorded function is written into a small module as NumPy/SciPy text: a NumPy/SciPy
function (or a ``jax.numpy``/``jax.scipy`` name, mapped to its NumPy/SciPy twin) by its dotted
name, a ``functools.partial`` with its arguments, a lambda or def of the test file unparsed
(its free names written as literals or dotted names; a helper it calls written out too).
Floating inputs are the parameters; integer ones are held constant.

Each case is then judged exactly as in ``tools/jax_records_suite.py`` (``run_case``):
``srcad.grad`` and ``srcad.jvp`` against JAX (the same text with ``jax.numpy`` as ``np``) and
central differences. Outcomes: PASS, WRONG, CONVENTION, KINK, REFUSED, CRASH, UNMAPPED (the
method has no NumPy/SciPy counterpart, needs JAX itself, or its value is not finite).
"""

from __future__ import annotations

import ast
import collections
import functools
import itertools
import os
import sys
import tempfile
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import jax_records_suite as records  # noqa: E402

FILES = {"stats": "tests/scipy_stats_test.py", "scipy": "tests/lax_scipy_test.py",
         "linalg": "tests/linalg_test.py"}
MAX_COMBOS = 400  # parameter combinations read per test method (before --per-op spreads)


class Unmappable(Exception):
    pass


# ---- stand-ins for JAX -----------------------------------------------------------------------

class Path:
    """A ``jax.numpy``/``jax.scipy`` name, kept as the dotted NumPy/SciPy name it stands for;
    called, it calls that NumPy/SciPy function (the tests' input makers use a few)."""

    def __init__(self, text):
        self.text = text

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Path(f"{self.text}.{name}")

    def resolve(self):
        if not self.text.startswith(("np", "scipy")):
            raise Unmappable(f"{self.text} is JAX's own")
        root, *rest = self.text.split(".")
        value = np if root == "np" else __import__("scipy")
        for i, name in enumerate(rest):
            if isinstance(value, types.ModuleType) and not hasattr(value, name):
                __import__(".".join(["scipy" if root == "scipy" else "numpy"] + rest[:i + 1]))
            value = getattr(value, name)
        return value

    def __call__(self, *args, **kwargs):
        if not self.text.startswith(("np", "scipy")):
            return Path("jax-result")  # jax.grad(...)(...) and the like: checked by JAX's test
        return self.resolve()(*args, **kwargs)


def jax_path(module):
    """jax.numpy -> Path('np'), jax.scipy.special -> Path('scipy.special'), else None."""
    if module == "jax.numpy":
        return Path("np")
    if module == "jax.scipy" or module.startswith("jax.scipy."):
        return Path("scipy" + module[len("jax.scipy"):])
    return None


def generator(kind, state, **kw):
    """JAX's ``jtu.rand_*`` in float64 (integers for an integer dtype, booleans for bool)."""
    def make(shape, dtype=np.float64):
        shape = tuple(shape) if not isinstance(shape, int) else (shape,)
        if kind == "int":
            lo, hi = kw.get("low", 0), kw.get("high", 10)
            return np.asarray(state.randint(lo, hi, size=shape)).astype(dtype)
        if kind == "bool":
            return state.random_sample(shape) < 0.5
        x = records.draw(np.random.default_rng(state.randint(2 ** 31)), kind, kw, shape)
        if x is None:
            raise Unmappable(f"rand_{kind} is not re-implemented")
        if kind in ("some_nan", "some_inf"):
            raise Unmappable(f"rand_{kind}: special values (tools/jax_records_suite.py)")
        x = np.asarray(x)
        if np.dtype(dtype).kind in "iu":
            return np.round(x).astype(dtype)
        return x if x.ndim else np.float64(x)
    return make


class Recorded(Exception):
    """Raised by the stand-in ``self`` once it has the function and its inputs."""


class Recorder:
    def __init__(self):
        self.found = []

    def rng(self):
        return np.random.RandomState(len(self.found) + 7)

    def _CheckAgainstNumpy(self, np_fun, lax_fun, args_maker, *a, **k):  # noqa: N802
        self.found.append((np_fun, list(args_maker())))

    def check_grads(self, fun, args, order=1, *a, **k):
        self.found.append((fun, list(args)))

    def skipTest(self, why):  # noqa: N802
        raise Unmappable(f"skipped: {why}")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: None


def sample_product(*lists, **grids):
    """The combinations of ``jtu.sample_product``: dicts of parameters."""
    parts = [[dict(d) for d in group] for group in lists]
    parts += [[{k: v} for v in values] for k, values in grids.items()]
    out = []
    for combo in itertools.islice(itertools.product(*parts), MAX_COMBOS):
        d = {}
        for piece in combo:
            d.update(piece)
        out.append(d)
    return Combos(out)


class Combos(list):
    pass


def make_jtu(recorder):
    jtu = types.SimpleNamespace()
    for kind in ("default", "positive", "uniform", "int", "bool", "nonzero", "small",
                 "not_small", "small_positive", "some_zero", "some_equal", "some_nan",
                 "some_inf"):
        def rand(state=None, *args, _kind=kind, **kw):
            if args:  # rand_int(rng, low, high), rand_uniform(rng, low, high)
                kw.update(zip(("low", "high"), args))
            return generator(_kind, state if state is not None else np.random.RandomState(0),
                             **kw)
        setattr(jtu, f"rand_{kind}", rand)
    floats = [np.float64]
    jtu.dtypes = types.SimpleNamespace(floating=floats, all_floating=floats, inexact=floats,
                                       complex=[], all_inexact=floats, integer=[],
                                       all_integer=[], boolean=[], numeric=floats,
                                       all_unsigned=[], unsigned=[], all=floats)
    jtu.sample_product = sample_product
    jtu.check_grads = recorder.check_grads
    jtu.test_device_matches = lambda *a, **k: False
    jtu.strict_promotion_if_dtypes_match = lambda *a, **k: _Null()
    jtu.ignore_warning = lambda *a, **k: (lambda f: f)
    jtu.parse_version = lambda v: tuple(int(p) for p in v.split(".")[:3] if p.isdigit())
    return jtu


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


# ---- reading a test file ---------------------------------------------------------------------

def file_scope(tree, recorder):
    """The test module's top level run with the stand-ins (imports of JAX become Paths)."""
    scope = {"__name__": "jaxtest", "np": np, "functools": functools, "partial":
             functools.partial, "itertools": itertools}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                full = alias.name if isinstance(node, ast.Import) else \
                    f"{node.module}.{alias.name}"
                bind = alias.asname or alias.name.split(".")[0]
                if full.startswith("jax"):
                    if isinstance(node, ast.Import) and not alias.asname:
                        scope[bind] = Path("jax")
                    elif full.endswith("test_util"):
                        scope[bind] = make_jtu(recorder)
                    else:
                        scope[bind] = jax_path(full) or Path(full)
                    continue
                try:
                    if isinstance(node, ast.ImportFrom):
                        mod = __import__(node.module, fromlist=[alias.name])
                        scope[bind] = getattr(mod, alias.name)
                    else:
                        __import__(alias.name)
                        scope[bind] = sys.modules[alias.name if alias.asname else bind]
                except Exception:  # noqa: BLE001 - absl, gpu libraries: not needed
                    scope[bind] = Path(full)
        elif isinstance(node, (ast.Assign, ast.FunctionDef)):
            try:
                exec(compile(ast.Module([node], []), FILENAME, "exec"), scope)  # noqa: S102
            except Exception:  # noqa: BLE001 - a JAX-only module constant
                pass
    return scope


FILENAME = "<jax test>"


def test_methods(tree):
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                    yield item


def combos_of(method, scope):
    if not method.decorator_list and len(method.args.args) == 1:
        return [{}]
    for deco in method.decorator_list:
        try:
            found = eval(compile(ast.Expression(deco), FILENAME, "eval"), scope)  # noqa: S307
        except Exception:  # noqa: BLE001 - another decorator (devices, precision, ...)
            continue
        if isinstance(found, Combos):
            return found
    return []


def functions_by_line(tree):
    found = collections.defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            found[node.lineno].append(node)
            for deco in getattr(node, "decorator_list", ()):
                found[deco.lineno].append(node)
    return found


# ---- writing the recorded function as NumPy/SciPy text ---------------------------------------

def dotted(value):
    """The dotted NumPy/SciPy name of a function, module or dtype, or None."""
    if isinstance(value, Path):
        return value.text if value.text.startswith(("np", "scipy")) else None
    if isinstance(value, types.ModuleType):
        name = value.__name__
        return "np" + name[5:] if name.startswith("numpy") else \
            name if name.startswith("scipy") else None
    if isinstance(value, type) and issubclass(value, np.generic):
        return f"np.{value.__name__}"
    self_obj = getattr(value, "__self__", None)
    if self_obj is not None and type(self_obj).__module__.startswith("scipy.stats"):
        dist = getattr(self_obj, "name", None)
        if dist and getattr(getattr(__import__("scipy.stats").stats, dist, None),
                            value.__name__, None) is not None:
            return f"scipy.stats.{dist}.{value.__name__}"
    module = getattr(value, "__module__", "") or ""
    name = getattr(value, "__name__", None)
    if name is None:
        return None
    for space, text in ((np, "np"), (np.linalg, "np.linalg")):
        if getattr(space, name, None) is value:
            return f"{text}.{name}"
    if module.startswith("scipy"):
        import scipy.linalg
        import scipy.special
        import scipy.stats
        for space, text in ((scipy.special, "scipy.special"), (scipy.linalg, "scipy.linalg"),
                            (scipy.stats, "scipy.stats")):
            if getattr(space, name, None) is value:
                return f"{text}.{name}"
    return None


def literal(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        items = [literal(v) for v in value]
        if None not in items:
            inner = ", ".join(items) + ("," if isinstance(value, tuple) and len(items) == 1
                                        else "")
            return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    return None


class Writer:
    """Helper defs (the prelude) and call text for recorded functions."""

    def __init__(self, by_line):
        self.by_line = by_line
        self.defs = {}
        self.names = {}

    def call(self, fun, nargs):
        names = ", ".join(f"x{i}" for i in range(nargs))
        if isinstance(fun, functools.partial):
            head = self.callee(fun.func)
            args = [literal(a) for a in fun.args]
            kws = [f"{k}={literal(v)}" for k, v in fun.keywords.items()]
            if None in args or any(k.endswith("=None") and fun.keywords[k.split("=")[0]]
                                   is not None for k in kws):
                raise Unmappable("a partial's argument is not a literal")
            return f"{head}({', '.join(args + [names] + kws)})"
        return f"{self.callee(fun)}({names})"

    def callee(self, fun):
        name = dotted(fun)
        if name is not None:
            return name
        if isinstance(fun, types.FunctionType):
            return self.write_def(fun)
        raise Unmappable(f"no NumPy/SciPy text for {fun!r}"[:120])

    def write_def(self, fun):
        code = fun.__code__
        nodes = [n for n in self.by_line.get(code.co_firstlineno, [])
                 if len(n.args.args) == code.co_argcount]
        if not nodes:
            raise Unmappable(f"no source for {fun.__name__}")
        node = nodes[0]
        if fun in self.names:
            return self.names[fun]
        name = f"h{len(self.names)}_" + (fun.__name__ if fun.__name__ != "<lambda>" else "fn")
        self.names[fun] = name
        free = dict(fun.__globals__)
        free.update(zip(code.co_freevars, (c.cell_contents for c in fun.__closure__ or ())))
        local = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)} | {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)}
        if isinstance(node, ast.Lambda):
            node = ast.FunctionDef(name, node.args, [ast.Return(node.body)], [], None, None)
        else:
            node = ast.FunctionDef(name, node.args, node.body, [], None, None)
        node = ast.fix_missing_locations(Substitute(self, free, local).visit(node))
        node.decorator_list = []
        node.lineno = 1
        self.defs[name] = ast.unparse(node)
        return name

    def prelude(self):
        return "\n\n" + "\n\n\n".join(self.defs.values()) + "\n" if self.defs else ""


class Substitute(ast.NodeTransformer):
    """Free names -> literals or dotted names; an ``if`` on free names alone is decided."""

    def __init__(self, writer, free, local):
        self.writer, self.free, self.local = writer, free, local

    def visit_If(self, node):  # noqa: N802
        names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
        if names and not names & self.local and names <= set(self.free):
            try:
                taken = eval(compile(ast.Expression(node.test), FILENAME, "eval"),  # noqa: S307
                             dict(self.free))
            except Exception:  # noqa: BLE001 - not decidable here: written out
                taken = None
            if taken is not None:
                body = node.body if taken else node.orelse
                return [self.visit(stmt) for stmt in body] or [ast.Pass()]
        return self.generic_visit(node)

    def visit_Name(self, node):  # noqa: N802
        if node.id in self.local or not isinstance(node.ctx, ast.Load):
            return node
        if node.id not in self.free:
            if node.id in dir(__builtins__) or hasattr(__import__("builtins"), node.id):
                return node
            raise Unmappable(f"free name {node.id}")
        value = self.free[node.id]
        text = dotted(value) or literal(value)
        if text is None and isinstance(value, types.FunctionType):
            text = self.writer.write_def(value)
        if text is None:
            raise Unmappable(f"free name {node.id} = {value!r}"[:100])
        return ast.parse(text, mode="eval").body


# ---- cases -----------------------------------------------------------------------------------

def method_cases(method, scope, recorder, writer_for, limit):
    """Every (call, prelude, args) a test method records, at most ``limit`` combinations."""
    combos = combos_of(method, scope)
    bare = ast.copy_location(ast.FunctionDef(method.name, method.args, method.body, [], None,
                                             None), method)
    local = dict(scope)
    exec(compile(ast.fix_missing_locations(ast.Module([bare], [])), FILENAME, "exec"),  # noqa: S102
         local)
    fn = local[method.name]
    names = {a.arg for a in method.args.args}
    out = []
    for params in combos[:limit]:
        recorder.found = []
        try:
            fn(recorder, **{k: v for k, v in params.items() if k in names})
        except Exception:  # noqa: BLE001 - stops at JAX-only code: what was recorded stays
            pass
        for fun, args in recorder.found:
            writer = writer_for()
            try:
                call = writer.call(fun, len(args))
            except Unmappable as e:
                out.append((None, str(e), None))
                continue
            out.append((call, writer.prelude(), args))
    return out


def to_case(group, op, call, prelude, args):
    params, consts, text = [], {}, call
    for i, x in enumerate(args):
        if isinstance(x, Path):
            return records.Case(group, op, None, (), {}, None, 1)
        try:
            a = np.asarray(x)
        except ValueError:  # a ragged list: not an array argument
            return records.Case(group, op, None, (), {}, None, 1)
        if a.dtype.kind == "f" and a.size:
            params.append((f"x{i}", x if isinstance(x, (float, np.ndarray)) else np.float64(x)))
        else:
            consts[f"X{i}"] = x
    for k in consts:
        text = text.replace(k.lower(), k)
    if not params:
        return records.Case(group, op, None, (), {}, None, 1)
    return records.Case(group, op, text, params, consts, None, 1, prelude)


def load_cases(mirror, files, only=()):
    by_op = collections.OrderedDict()
    for short in files:
        text = records.git_show(mirror, FILES[short])
        tree = ast.parse(text)
        recorder = Recorder()
        scope = file_scope(tree, recorder)
        by_line = functions_by_line(tree)
        for method in test_methods(tree):
            if only and method.name not in only:
                continue
            key = f"{short}:{method.name}"
            for call, prelude, args in method_cases(method, scope, recorder,
                                                    functools.partial(Writer, by_line), MAX_COMBOS):
                if call is None:
                    by_op.setdefault(key, []).append(
                        records.Case(key, method.name, None, (), {}, None, 1, prelude))
                    continue
                by_op.setdefault(key, []).append(to_case(key, method.name, call, prelude,
                                                         args))
    return by_op


def run(mirror, files, only=(), per_op=8, hvp=1, timeout=60, seed=0, jax_path=None,
        verbose=True):
    with open(os.path.join(records.ROOT, "docs", "rules.md")) as fh:
        records.RULES_DOC = fh.read()
    rng = np.random.default_rng(seed)
    jx = records.load_jax(jax_path)
    by_op = load_cases(mirror, files, only)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for key, cases in by_op.items():
            chosen = records.spread(cases, per_op)
            counts = collections.Counter()
            for j, case in enumerate(chosen):
                shapes = [np.shape(p[1]) for p in case.params]
                for check, outcome, detail in records.run_case(case, f"s{len(rows)}", folder,
                                                               rng, jx, j < hvp, timeout):
                    rows.append(dict(op=key, group=case.group, call=case.call,
                                     shapes=str(shapes), check=check, outcome=outcome,
                                     detail=detail))
                    counts[outcome] += 1
            if jx is not None:
                jx.clear_caches()
            if verbose:
                line = " ".join(f"{o}={counts[o]}" for o in records.OUTCOMES if counts[o])
                print(f"{key:48s} {len(chosen):3d}/{len(cases):4d}  {line}", flush=True)
    return rows, jx is not None


def main(argv=None):
    ap = records.options(__doc__.splitlines()[0], 8, 1, what="test method")
    ap.add_argument("--files", default="stats,scipy,linalg")
    args = ap.parse_args(argv)
    rows, with_jax = run(args.mirror, args.files.split(","), args.only, args.per_op, args.hvp,
                         args.timeout, args.seed, args.jax_path)
    return records.report(rows, with_jax, args.json)


if __name__ == "__main__":
    sys.exit(main())
