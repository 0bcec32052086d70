"""A seeded generator of random programs written as people write Python: the features issue 16
added, composed around random numeric bodies of a float ``x`` and an array ``a`` of shape (3,).

`program(seed)` draws a `Program`: the text of a module defining the differentiated function
(`ENTRY`), the helpers it calls, and `SCALAR(x, a)`, the same value as a plain function of the
two inputs (what finite differences and autograd differentiate). The module reads NumPy as
``np`` and srcad as ``srcad``; `Program.twin` is the same text on ``autograd.numpy`` with
``import autograd as srcad``, so a gradient taken inside the code (`srcad.grad(loss)(u, v)`) is
autograd's there.

Features (`FEATURES`; each program records the ones it uses):

- callables (each a "site" called with random argument expressions, arguments nesting further
  sites): a module function (some with defaults, some rebound between calls), a module lambda,
  a lambda in the function reading its locals (several on one line), a nested ``def`` reading a
  name assigned after it, a method of a module-level object calling another method and reading
  a property and an attribute, ``__call__``, static and class methods (a class attribute read
  through ``cls``), ``functools.partial`` (module-level or of a local value), a function passed
  to a helper or held in a local, ``f(*t)``, ``f(**kw)``, a generator helper (summed or looped
  over), ``map`` and ``filter``, ``zip(*pairs)``, a dataclass or named tuple built in the
  function (a method, a property, unpacking), ``srcad.grad``/``value_and_grad`` of a helper or
  of a lambda reading locals, and value-neutral ``with`` blocks;
- entry points: a ``def``, a lambda, a bound method, an object with ``__call__``, a static or
  class method, a ``functools.partial``, a dataclass or named tuple as the argument (a pytree),
  ``has_aux=True``.

`Program.knobs` lists what the harness changes between two calls of one derivative (a global
number, made an array too, a global array changed in place, an object's or a class's attribute,
a module function rebound, a function set on an object over its class's method): Python reads
them when the code runs, so the second gradient must see the new values.

Every denominator is bounded away from zero and every `log` argument is at least one; the only
non-smooth point is `filter`'s test (`t > 0.2`). Imports only the standard library.
"""

from __future__ import annotations

import hashlib
import importlib.util
import random
import sys
from dataclasses import dataclass, field

FEATURES = {
    "def": "a module-level function", "default": "a parameter left to its default",
    "rebind": "a module function rebound between two calls", "global": "a global number read",
    "lambda_global": "a module-level lambda", "lambda_local": "a lambda reading locals",
    "lambdas_line": "two lambdas on one line", "late": "a nested def reading a later name",
    "method": "self.method(), a property, self.attr", "call": "__call__",
    "static": "a staticmethod", "classmethod": "a classmethod reading cls.K",
    "partial": "functools.partial", "partial_local": "a partial of a local value",
    "passed": "a function passed to a helper", "held": "a function held in a local",
    "star": "f(*t)", "kw": "f(**kw)", "generator": "a generator helper summed or looped",
    "map": "map(f, ...)", "filter": "filter(lambda, ...)", "zip_star": "zip(*pairs)",
    "dataclass": "a dataclass built in the function", "namedtuple": "a named tuple built",
    "nested_grad": "srcad.grad inside", "nested_vg": "srcad.value_and_grad inside",
    "nested_grad_lambda": "srcad.grad of a lambda reading locals", "with": "a with block",
    "knob_branch": "a branch on a global or attribute the knobs flip",
    "loop_carried": "a callable called in a loop on a carried value",
    "kwonly": "keyword-only parameters with defaults",
    "lazy_loop": "a loop over a generator expression or map (some changing what it reads)",
    "entry_def": "f itself", "entry_lambda": "a lambda", "entry_method": "a bound method",
    "entry_call": "an object with __call__", "entry_static": "a staticmethod",
    "entry_classmethod": "a classmethod", "entry_partial": "a partial",
    "entry_dataclass": "a dataclass argument", "entry_namedtuple": "a named tuple argument",
    "entry_aux": "has_aux=True",
}

HEADER = """\
import collections
import contextlib
import dataclasses
import functools
import warnings

import numpy as np

import srcad

"""

WITHS = ['np.errstate(all="ignore")', 'np.errstate(divide="ignore", invalid="ignore")',
         "warnings.catch_warnings()", "contextlib.nullcontext()"]


@dataclass
class Program:
    """A generated module; `entry` names how `ENTRY` is called (see `tests/test_properties_
    python.py`), `knobs` what changes between two calls."""

    seed: int
    source: str
    entry: str
    features: frozenset
    knobs: list = field(default_factory=list)

    @property
    def twin(self):
        return (self.source.replace("import numpy as np", "import autograd.numpy as np")
                .replace("import srcad\n", "import autograd as srcad\n"))

    def __repr__(self):
        return f"Program(seed={self.seed}, entry={self.entry!r})\n{self.source[len(HEADER):]}"


class _Writer:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.defs = []  # module-level chunks
        self.features = set()
        self.knobs = []
        self.n = 0
        self.globals = []  # global numbers the bodies may read

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def pick(self, xs):
        return self.r.choice(xs)

    def chance(self, p):
        return self.r.random() < p

    def const(self):
        return self.pick(["0.5", "1.5", "0.25", "2.0", "0.75", "1.25"])

    # --- numeric bodies -------------------------------------------------------------------

    def leaf(self, names):
        if names and self.chance(0.8):
            return self.pick(names)
        if self.globals and self.chance(0.5):
            self.features.add("global")
            return self.pick(self.globals)
        return self.const()

    def expr(self, names, depth):
        """An elementwise expression of `names` (floats or arrays of shape (3,), broadcast)."""
        if depth <= 0:
            return self.leaf(names)
        sub = lambda: self.expr(names, depth - 1)  # noqa: E731
        k = self.r.randrange(13)
        if k == 12:  # a branch on a knob (a global, an attribute): turning it flips the branch
            knobs = [n for n in names if n.startswith(("self.", "cls."))] + self.globals
            if knobs:
                self.features.add("knob_branch")
                return f"({sub()} if np.all({self.pick(knobs)} > 1.0) else {sub()})"
            k = 0
        if k <= 2:
            return f"({sub()} {self.pick(['+', '-', '*'])} {sub()})"
        if k == 3:
            return f"np.{self.pick(['sin', 'cos', 'tanh'])}({sub()})"
        if k == 4:
            return f"({sub()} / (2.0 + np.cos({sub()})))"
        if k == 5:
            return f"np.exp(0.5 * np.sin({sub()}))"
        if k == 6:
            e = sub()
            return f"np.log(1.0 + {e} * {e})"
        if k == 7:
            return f"({sub()} ** 2)"
        if k == 8:
            return f"np.sum({sub()})"
        if k == 9:
            return f"(-{sub()})"
        return f"({sub()} * {self.leaf(names)})"

    def body(self, params, extra=()):
        """An expression using each of `params` (so each gets a gradient) and maybe `extra`."""
        names = list(params) + list(extra)
        e = self.expr(names, self.r.randint(1, 3))
        for p in params:
            if p not in e:
                e = f"({e} + {p} * {self.const()})"
        return e

    # --- sites: callables and the expressions calling them --------------------------------

    def site(self, pre, names, depth, need_name=False):
        """An expression calling a random callable with arguments of `names`; lines it needs
        before the statement go to `pre`. With `need_name`, returns (expr_builder, arity, name)
        of a callable that can be passed by name."""
        named = ["def", "def", "lambda_global", "lambda_local", "late", "method", "call",
                 "static", "classmethod", "partial"]
        if need_name:
            return self.named_callable(pre, names, self.pick(named))
        kinds = named + ["partial_local", "passed", "held", "star", "kw", "generator", "map",
                         "filter", "zip_star", "dataclass", "namedtuple", "nested_grad",
                         "nested_vg", "nested_grad_lambda", "lambdas_line", "late_rebound",
                         "loop_lambdas", "loop_defaults", "factory", "local_generator",
                         "keyword_default", "star_list", "self_shadow", "loop_carried",
                         "kwonly", "lazy_loop"]
        kind = self.pick(kinds)
        if kind == "loop_lambdas" and self.chance(0.7):  # refused (late binding): rarer
            kind = "loop_defaults"
        args = lambda n: [self.arg(pre, names, depth) for _ in range(n)]  # noqa: E731
        if kind in named:
            call, arity, _ = self.named_callable(pre, names, kind)
            return call(args(arity))
        self.features.add(kind)
        if kind == "partial_local":
            g = self.module_def(3, params=("u", "v", "w"))
            return f"functools.partial({g}, w={self.arg(pre, names, depth)})({', '.join(args(2))})"
        if kind in ("passed", "held"):
            call, arity, name = self.named_callable(pre, names, self.pick(named))
            if kind == "held":
                h = self.fresh("fn")
                pre.append(f"{h} = {name}")
                return f"{h}({', '.join(args(arity))})"
            ap = self.fresh("apply")
            ps = ", ".join(f"p{i}" for i in range(arity))
            self.defs.append(f"def {ap}(fn, {ps}):\n    return fn({ps}) * {self.const()} + p0\n")
            return f"{ap}({name}, {', '.join(args(arity))})"
        if kind in ("star", "kw"):
            g = self.module_def(2)
            a1, a2 = args(2)
            if kind == "star":
                if self.chance(0.5):
                    return f"{g}(*({a1}, {a2}))"
                t = self.fresh("t")
                pre.append(f"{t} = ({a1}, {a2})")
                return f"{g}(*{t})"
            if self.chance(0.5):
                return f'{g}(**{{"u": {a1}, "v": {a2}}})'
            kw = self.fresh("kw")
            pre.append(f'{kw} = {{"v": {a2}, "u": {a1}}}')
            return f"{g}(**{kw})"
        if kind == "generator":
            gen = self.fresh("gen")
            k = self.r.randint(1, 3)
            self.defs.append(f"def {gen}(u, v):\n    for i in range({k}):\n"
                             f"        yield {self.body(['u', 'v'])} * (i + 1)\n")
            a1, a2 = args(2)
            if self.chance(0.5):
                return f"sum({gen}({a1}, {a2}))"
            acc, t = self.fresh("acc"), self.fresh("item")
            pre += [f"{acc} = 0.0", f"for {t} in {gen}({a1}, {a2}):",
                    f"    {acc} = {acc} + {t} * {self.const()}"]
            return acc
        if kind == "map":
            if self.chance(0.5):
                call, arity, name = self.named_callable(pre, names, self.pick(named))
                lists = ", ".join(f"[{', '.join(args(2))}]" for _ in range(arity))
                return f"sum(map({name}, {lists}))"
            t = self.fresh("t")
            return f"sum(map(lambda {t}: {self.body([t], names)}, [{', '.join(args(2))}]))"
        if kind == "filter":
            items = ", ".join(f"np.sum({a})" for a in args(3))
            t = self.fresh("t")
            return f"sum(filter(lambda {t}: {t} > 0.2, [{items}, 0.5]))"
        if kind == "zip_star":
            us, vs = self.fresh("us"), self.fresh("vs")
            a1, a2, a3, a4 = args(4)
            pre.append(f"{us}, {vs} = zip(*[({a1}, {a2}), ({a3}, {a4})])")
            return f"({us}[0] * {vs}[1] + {us}[1] - {vs}[0] * {self.const()})"
        if kind == "dataclass":
            return self.record(pre, names, depth, args, dataclass=True)
        if kind == "namedtuple":
            return self.record(pre, names, depth, args, dataclass=False)
        if kind in ("nested_grad", "nested_vg"):
            loss = self.fresh("loss")
            self.defs.append(f"def {loss}(u, v):\n    return np.sum({self.body(['u', 'v'])})\n")
            a1, a2 = args(2)
            if kind == "nested_grad":
                return f"srcad.grad({loss})({a1}, {a2})"
            vg = self.fresh("vg")
            pre.append(f"{vg} = srcad.value_and_grad({loss})({a1}, {a2})")
            return f"({vg}[0] + {vg}[1] * {self.const()})"
        if kind == "nested_grad_lambda":
            t = self.fresh("t")
            return f"srcad.grad(lambda {t}: np.sum({self.body([t], names)}))({args(1)[0]})"
        if kind == "late_rebound":  # Python reads the name's value at each call
            g, late = self.fresh("inner"), self.fresh("late")
            pre.append(f"def {g}(u):\n    return {self.body(['u'], [late])}")
            r1 = self.fresh("r")
            pre += [f"{late} = {self.expr(names, 1)}", f"{r1} = {g}({self.arg(pre, names, 0)})",
                    f"{late} = {self.expr(names + [late], 1)}"]
            return f"({r1} + {g}({self.arg(pre, names, 0)}))"
        if kind == "loop_lambdas":  # every lambda sees the loop's last value, as in Python
            fs, i, fn = self.fresh("fs"), self.fresh("k"), self.fresh("fn")
            body = self.body(["u", i], names if self.chance(0.5) else [])
            if self.chance(0.5):
                pre.append(f"{fs} = [lambda u: {body} for {i} in range(3)]")
            else:
                pre += [f"{fs} = []", f"for {i} in range(3):", f"    {fs}.append(lambda u: {body})"]
            return f"sum({fn}({self.arg(pre, names, depth)}) for {fn} in {fs})"
        if kind == "loop_defaults":  # a default binds each iteration's value
            fs, i, fn = self.fresh("fs"), self.fresh("k"), self.fresh("fn")
            pre += [f"{fs} = []", f"for {i} in range(3):",
                    f"    {fs}.append(lambda u, {i}={i}: {self.body(['u', i])})"]
            return f"sum({fn}({self.arg(pre, names, depth)}) for {fn} in {fs})"
        if kind == "factory":  # a module function making and returning a closure
            mk = self.fresh("make")
            self.defs.append(f"def {mk}(c):\n    def inner(u):\n"
                             f"        return {self.body(['u', 'c'], ['s'])}\n"
                             f"    s = {self.const()} * c\n    return inner\n")
            a1, a2 = args(2)
            if self.chance(0.5):
                return f"{mk}({a1})({a2})"
            h = self.fresh("h")
            pre.append(f"{h} = {mk}({a1})")
            return f"({h}({a2}) + {h}({self.const()}))"
        if kind == "local_generator":  # a generator in the function reading a later name
            gen, late = self.fresh("gen"), self.fresh("late")
            pre.append(f"def {gen}():\n    for i in range(2):\n"
                       f"        yield {self.body([late], names)} * (i + 1)")
            pre.append(f"{late} = {self.arg(pre, names, depth)}")
            return f"sum({gen}())"
        if kind == "keyword_default":  # a default overridden by a differentiated keyword
            g = self.fresh("g")
            glob = self.pick(self.globals) if self.globals else self.const()
            self.defs.append(f"def {g}(u, c={glob}):\n    return {self.body(['u', 'c'])}\n")
            a1, a2 = args(2)
            return self.pick([f"{g}({a1}, c={a2})", f"{g}({a1})", f"{g}(c={a2}, u={a1})"])
        if kind == "loop_carried":  # a callable called in a loop on a carried value
            call, arity, name = self.named_callable(pre, names, self.pick(named))
            s, i = self.fresh("s"), self.fresh("i")
            extra = ", " + self.expr(names, 1) if arity == 2 else ""
            n = self.r.randint(1, 3)
            pre += [f"{s} = {self.arg(pre, names, depth)}", f"for {i} in range({n}):",
                    f"    {s} = 0.5 * {name}({s}{extra}) + {s} * 0.25"]
            return s
        if kind == "lazy_loop":  # a loop over a generator expression or map, lazy in Python
            acc, s_, v, t = self.fresh("acc"), self.fresh("s"), self.fresh("v"), self.fresh("t")
            a1, a2, a3 = args(3)
            src = self.pick([f"({self.body([t, s_], names)} for {t} in [{a2}, {a3}])",
                             f"map(lambda {t}: {self.body([t, s_])}, [{a2}, {a3}])"])
            pre += [f"{acc} = 0.0", f"{s_} = {a1}", f"for {v} in {src}:",
                    f"    {acc} = {acc} + {v}"]
            if self.chance(0.3):  # changes what the items read: refused
                pre.append(f"    {s_} = {s_} + {v} * 0.5")
            return f"({acc} + {s_})"
        if kind == "kwonly":
            g = self.fresh("g")
            self.defs.append(f"def {g}(u, *, c=0.5, d={self.const()}):\n"
                             f"    return {self.body(['u', 'c', 'd'])}\n")
            a1, a2 = args(2)
            return self.pick([f"{g}({a1}, c={a2})", f"{g}({a1}, d={a2}, c=0.25)", f"{g}({a1})"])
        if kind == "star_list":
            g = self.module_def(2)
            return f"{g}(*[{', '.join(args(2))}])"
        if kind == "self_shadow":  # an instance attribute shadowing the class's
            cls, obj = self.fresh("S"), self.fresh("obj")
            self.defs.append(f"class {cls}:\n    K = 0.5\n\n    def m(self, u):\n"
                             f"        return {self.body(['u', 'self.K'])}\n\n\n{obj} = {cls}()\n")
            self.knobs.append(("attr", obj, "K", 1.75))
            return f"{obj}.m({args(1)[0]})"
        # lambdas_line: two lambdas on one line, both called
        p, q = self.fresh("lam"), self.fresh("lam")
        pre.append(f"{p}, {q} = (lambda u: {self.body(['u'], names)}), "
                   f"(lambda u, v: {self.body(['u', 'v'])})")
        a1, a2, a3 = args(3)
        return f"({p}({a1}) + {q}({a2}, {a3}))"

    def arg(self, pre, names, depth):
        if depth > 0 and self.chance(0.35):
            return self.site(pre, names, depth - 1)
        return self.expr(names, self.r.randint(0, 2))

    def module_def(self, arity, params=None, kind="def"):
        g = self.fresh("g")
        params = list(params or ["u", "v"][:arity])
        head = ", ".join(params)
        if kind == "def" and self.chance(0.3):
            self.features.add("default")
            head += f", c={self.pick(self.globals) if self.globals else self.const()}"
            body = self.body(params, ["c"])
        else:
            body = self.body(params)
        self.defs.append(f"def {g}({head}):\n    return {body}\n")
        if kind == "def" and self.chance(0.25):
            self.features.add("rebind")
            alt = f"{g}_alt"
            self.defs.append(f"def {alt}({head}):\n    return {self.body(params)}\n")
            self.knobs.append(("rebind", g, alt))
        return g

    def named_callable(self, pre, names, kind):
        """(call builder, arity, name) of a callable of kind `kind`."""
        self.features.add(kind)
        arity = self.r.randint(1, 2)
        ps = ["u", "v"][:arity]
        call = lambda name: lambda args: f"{name}({', '.join(args)})"  # noqa: E731
        if kind == "def":
            g = self.module_def(arity)
            return call(g), arity, g
        if kind == "lambda_global":
            g = self.fresh("lam")
            self.defs.append(f"{g} = lambda {', '.join(ps)}: {self.body(ps)}\n")
            if self.chance(0.25):
                self.defs.append(f"{g}_alt = lambda {', '.join(ps)}: {self.body(ps)}\n")
                self.knobs.append(("rebind", g, f"{g}_alt"))
            return call(g), arity, g
        if kind == "lambda_local":
            g = self.fresh("lam")
            pre.append(f"{g} = lambda {', '.join(ps)}: {self.body(ps, names)}")
            return call(g), arity, g
        if kind == "late":
            g, late = self.fresh("inner"), self.fresh("late")
            pre.append(f"def {g}({', '.join(ps)}):\n    return {self.body(ps, [late])}")
            pre.append(f"{late} = {self.expr(names, 2)}")
            return call(g), arity, g
        cls, obj = self.fresh("C"), self.fresh("obj")
        if kind in ("method", "call"):
            meth = "__call__" if kind == "call" else "m"
            c0 = self.const()
            text = (f"class {cls}:\n    def __init__(self, c):\n        self.c = c\n\n"
                    f"    @property\n    def scale(self):\n        return self.c * 0.5 + 1.0\n\n"
                    f"    def helper(self, u):\n        return {self.body(['u'], ['self.c'])}\n\n"
                    f"    def {meth}(self, {', '.join(ps)}):\n"
                    f"        return self.helper({ps[0]}) * self.scale + "
                    f"{self.body(ps, ['self.c'])}\n\n\n{obj} = {cls}({c0})\n")
            self.defs.append(text)
            new = "ARR_ALT" if self.chance(0.3) else float(c0) + 0.375
            self.knobs.append(("attr", obj, "c", new))
            if kind == "method" and self.chance(0.2):  # a function set on the object itself
                self.defs.append(f"{cls}_own = lambda u: {self.body(['u'])}\n")
                self.knobs.append(("attr", obj, "helper", f"{cls}_own"))
            if self.chance(0.25):  # the class's helper method replaced
                self.defs.append(f"def {cls}_helper(self, u):\n"
                                 f"    return {self.body(['u'], ['self.c'])}\n")
                self.knobs.append(("attr", cls, "helper", f"{cls}_helper"))
            name = obj if kind == "call" else f"{obj}.m"
            return call(name), arity, name
        deco = "staticmethod" if kind == "static" else "classmethod"
        first = "" if kind == "static" else "cls, "
        extra = [] if kind == "static" else ["cls.K"]
        text = (f"class {cls}:\n    K = 0.5\n\n    @{deco}\n"
                f"    def s({first}{', '.join(ps)}):\n        return {self.body(ps, extra)}\n")
        self.defs.append(text)
        if kind == "classmethod":
            self.knobs.append(("attr", cls, "K", 1.25))
        if kind == "partial":
            g = self.module_def(arity + 1, params=ps + ["w"])
            p = self.fresh("part")
            self.defs.append(f"{p} = functools.partial({g}, w={self.const()})\n")
            return call(p), arity, p
        return call(f"{cls}.s"), arity, f"{cls}.s"

    def record(self, pre, names, depth, args, dataclass):
        cls, r = self.fresh("D" if dataclass else "NT"), self.fresh("rec")
        a1, a2 = args(2)
        if dataclass:
            self.defs.append(
                f"@dataclasses.dataclass\nclass {cls}:\n    u: float\n    v: float\n\n"
                f"    @property\n    def total(self):\n        return self.u + self.v\n\n"
                f"    def val(self, s):\n"
                f"        return {self.body(['self.u', 'self.v', 's'])}\n")
            pre.append(f"{r} = {cls}({a1}, v={a2})")
            form = self.r.randrange(3)
            if form == 0:
                return f"{r}.val({self.expr(names, 1)})"
            if form == 1:
                return f"({r}.total * {r}.u)"
            return f"{cls}({a2}, {a1}).val({self.const()})"
        self.defs.append(f'{cls} = collections.namedtuple("{cls}", ["u", "v"])\n')
        pre.append(f"{r} = {cls}({a1}, {a2})")
        if self.chance(0.5):
            p, q = self.fresh("p"), self.fresh("q")
            pre.append(f"{p}, {q} = {r}")
            return f"({p} * {q} + {r}[0])"
        return f"({r}.u * {self.expr([f'{r}.v'] + names, 1)})"

    # --- the function ---------------------------------------------------------------------

    def function_body(self, names):
        """Lines of the differentiated body over `names`, ending in `total = ...` (a float)."""
        lines, locals_ = [], []
        for _ in range(self.r.randint(1, 4)):
            pre = []
            e = self.site(pre, names + locals_, 2)
            if self.chance(0.3):
                e = f"({e} + {self.expr(names + locals_, 1)})"
            v = self.fresh("y")
            if self.chance(0.12):
                self.features.add("with")
                lines += pre + [f"with {self.pick(WITHS)}:", f"    {v} = {e}"]
            else:
                lines += pre + [f"{v} = {e}"]
            locals_.append(v)
        terms = " + ".join(f"np.sum({v})" for v in locals_)
        return lines + [f"total = {terms} + np.sum(a) * x"]


def _indent(lines, k):
    pad = " " * k
    return "\n".join(pad + ln.replace("\n", "\n" + pad) for ln in lines)


ENTRIES = ["def", "def", "lambda", "method", "call", "static", "classmethod", "partial",
           "dataclass", "namedtuple", "aux"]


def program(seed):
    """The `Program` of `seed`."""
    w = _Writer(seed)
    for _ in range(w.r.randint(0, 2)):
        g = w.fresh("K")
        w.defs.append(f"{g} = {w.const()}\n")
        w.globals.append(g)
        w.knobs.append(("global", g, "ARR_ALT" if w.chance(0.3) else 0.875))
        w.defs[-1] = f"{g} = {w.pick(['1.25', '1.5', '0.5', '2.0'])}\n"
    if w.chance(0.4):  # a global array, changed in place between the calls
        g = w.fresh("W")
        w.defs.append(f"{g} = np.array([0.75, -0.5, 1.25])\n")
        w.globals.append(g)
        w.knobs.append(("mutate", g, [1.5, 0.25, -0.75]))
    entry = w.pick(ENTRIES)
    w.features.add(f"entry_{entry}")
    names = ["x", "a"]
    if entry == "method" or entry == "call":
        names.append("self.c")
    if entry == "classmethod":
        names.append("cls.K")
    body = w.function_body(names)
    ret = "total"
    if entry == "aux":
        ret = "total, total * 2.0"
    lines = body + [f"return {ret}"]
    if entry in ("def", "lambda", "aux", "partial"):
        params = "x, a, c" if entry == "partial" else "x, a"
        text = f"def f({params}):\n{_indent(lines, 4)}\n"
        if entry == "partial":
            text = text.replace("def f(x, a, c):\n", "def f(x, a, c):\n    x = x * c\n", 1)
            text += f"\n\nENTRY = functools.partial(f, c={w.const()})\n"
        elif entry == "lambda":
            text += "\n\nENTRY = lambda x, a: f(x, a) * 0.5 + np.sum(np.sin(a)) * x\n"
        else:
            text += "\n\nENTRY = f\n"
        scalar = "ENTRY(x, a)[0]" if entry == "aux" else "ENTRY(x, a)"
    elif entry in ("method", "call", "static", "classmethod"):
        meth = {"method": "loss", "call": "__call__"}.get(entry, "loss")
        deco = {"static": "    @staticmethod\n", "classmethod": "    @classmethod\n"}.get(entry, "")
        first = {"static": "", "classmethod": "cls, "}.get(entry, "self, ")
        text = (f"class Model:\n    K = 0.75\n\n    def __init__(self, c):\n        self.c = c\n\n"
                f"{deco}    def {meth}({first}x, a):\n{_indent(lines, 8)}\n\n\n"
                f"model = Model(0.625)\n")
        if entry in ("method", "call"):
            w.knobs.append(("attr", "model", "c", "ARR_ALT" if w.chance(0.3) else -0.5))
        if entry == "classmethod":
            w.knobs.append(("attr", "Model", "K", 1.5))
        text += {"method": "ENTRY = model.loss\n", "call": "ENTRY = model\n",
                 "static": "ENTRY = Model.loss\n", "classmethod": "ENTRY = Model.loss\n"}[entry]
        scalar = "ENTRY(x, a)"
    else:  # a record as the argument
        if entry == "dataclass":
            cls = "@dataclasses.dataclass\nclass Params:\n    x: float\n    a: np.ndarray\n"
            unpack = w.pick(["x = p.x\na = p.a", "x, a = p.x, p.a"])
        else:
            cls = 'Params = collections.namedtuple("Params", ["x", "a"])\n'
            unpack = w.pick(["x = p.x\na = p.a", "x, a = p"])
        text = (f"{cls}\n\ndef f(p):\n{_indent(unpack.split(chr(10)) + lines, 4)}\n\n\n"
                f"ENTRY = f\n")
        scalar = "ENTRY(Params(x, a))"
    w.defs.insert(0, "ARR_ALT = np.array([0.5, -0.25, 1.5])\n")
    source = (HEADER + "\n\n".join(w.defs) + "\n\n" + text
              + f"\n\ndef SCALAR(x, a):\n    return {scalar}\n")
    return Program(seed, source, entry, frozenset(w.features), w.knobs)


_LOADED = iter(range(10**9))


def load(source, directory, stem):
    """Write `source` to a new module in `directory` (a fresh one each call: the harness
    changes module globals), import it and return it."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    name = f"{stem}_{digest}_{next(_LOADED)}"
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
