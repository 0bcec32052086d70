"""A hypothesis strategy for random, valid, differentiable Python functions, as source text.

`programs()` draws a `Program`: the text of a whole module holding a few fixed helper functions
and one generated function `f` of two or three float parameters. The body mixes arithmetic
(`+ - * / %`, `**` with small integer exponents, unary `-`), `math.sin/cos/tanh/exp`, `log` and
`sqrt` of positive arguments, `abs`, `min`, `max`, `float`, `pow`, `x or y` / `x and y` on
values, reassignment, augmented assignment (`+= -= *= /=`), chained and tuple assignment (and
swaps), ternaries, `if`/`elif`/`else` on comparisons (chained, with `and`/`or`/`not`),
`for i in range(...)` (fixed or value-dependent trip counts), counter-bounded `while` loops (some
with a value-dependent condition too), `for`/`while ... else`, `break`, `continue`, early
`return`, calls of the helpers (one loops, one recurses, one returns early; positional and
keyword arguments), lists built with `append`, summed, indexed and walked with `enumerate` and
`zip(..., reversed(...))`, sliced, and list comprehensions with filters.

Every denominator is bounded away from zero and every `log`/`sqrt` argument is at least one, so
the only non-smooth points are the comparisons, `abs`, `min`, `max`, `%`, `or`/`and` and the
value-dependent trip counts; the property test tells such points from bugs (see its docstring).

`load(program, directory)` writes the module to `directory` and imports it, so that
`inspect.getsource` (which srcad needs) sees real source.

Variable and parameter names are drawn partly from the names srcad generates (`dx`, `t_1`,
`stack`, `result`, `n_iter`...), so a generated name that captures a user's name shows up as a
wrong gradient.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass

from hypothesis import strategies as st

#: Fixed helpers at the top of every generated module (line numbers in failures count from 1).
HELPERS = '''\
import functools
import math


def h_poly(a, b):
    return a * b + 0.5 * a * a - b


def h_loop(a, n):
    s = 0.0
    for j in range(n):
        s = s + math.sin(a + j) * 0.5
    return s


def h_branch(a, b):
    if a > b:
        return a * b
    return a - b * 0.5


def h_rec(a, n):
    if n <= 0:
        return a
    return h_rec(math.sin(a) * 1.1, n - 1)


def h_early(a):
    for j in range(4):
        a = a * 0.9 + 0.1
        if a > 1.0:
            return a * 2.0
    return a


def triple(fn):
    @functools.wraps(fn)
    def w(*a, **k):
        return 3.0 * fn(*a, **k)
    return w


def scaled(c):
    def deco(fn):
        @functools.wraps(fn)
        def w(*args, **kwargs):
            return fn(*args, **kwargs) * c
        return w
    return deco


def shifted(fn):
    def w(*a, **k):
        return fn(*a, **k) + 0.5 * a[0]
    return w


def squash(fn):
    @functools.wraps(fn)
    def w(a, *rest):
        return fn(math.tanh(a), *rest)
    return w


def h_twice(*args):
    return args[0] * 2.0 + args[-1]


def h_star(*args):
    s = 0.0
    for a in args:
        s = s + a * a * 0.5
    return s + len(args)


def h_kw(a, **kwargs):
    return a * kwargs["scale"] + kwargs.get("shift", 0.5)


def h_pass(*args, **kwargs):
    return h_kw(*args, **kwargs) + h_twice(*args)


@triple
def h_dec(a, b):
    return a * b - 0.25 * b


@triple
@shifted
def h_dec2(a, b):
    return math.sin(a) * b


@scaled(0.5)
@squash
def h_dec3(a, n):
    s = a
    for j in range(n):
        s = s * a + 0.5
    return s
'''

#: Parameter names: plain ones first (hypothesis shrinks towards them), then srcad's own.
PARAM_NAMES = ["x", "y", "z", "dx", "dy", "t", "dresult", "stack", "w"]

#: Local names: plain ones first, then names srcad also generates.
LOCAL_NAMES = ["a", "b", "c", "v", "u", "dx", "d_x", "dy", "t", "t_1", "stack", "stack_1",
               "result", "returned", "broke", "skip", "n_iter", "sign", "add", "unbroadcast",
               "zeros_like", "ctx", "y_ctx", "grad_f", "value", "fill", "check_scalar", "da",
               "i_1", "h_poly_ctx", "dacc"]

#: Features left out while srcad has a known bug in them (notes/robustness-findings.md; each
#: has a strict-xfail regression test in tests/test_robustness.py). Empty this set when the
#: bugs are fixed, and the property tests cover those features again.
KNOWN_BUGS = set()

#: Known bugs that only second derivatives meet: flag -> the feature the second-order
#: tests leave out while the flag is in KNOWN_BUGS.
SECOND_ORDER_BUGS = {"list_write_2nd": {"list_write", "list_copy"}, "list_pop_2nd": {"list_pop"}}

#: Features beyond the core that `programs(features=...)` may use, with what each writes.
FEATURES = {
    "varargs": "calls of `*args` helpers (`h_twice`, `h_star`), `g(*t)` of a tuple built in f",
    "kwargs": "calls of `**kwargs` helpers (`h_kw`, `h_pass` passing both on)",
    "decorator": "calls of decorated helpers (`@triple`, `@scaled(c)`, `@squash`, `@shifted`"
                 " without `functools.wraps`, stacked)",
    "decorated_f": "f itself decorated (`functools.wraps` decorators, stacked)",
    "minmax_loop": "`max`/`min` inside loops: running extrema, `acc.append(max(i, x))`",
    "minmax3": "`max`/`min` of three values (srcad's rules take two: refused)",
    "list_write": "`acc[k] = v`, `acc[k] += v` on a local list",
    "list_pop": "`v = acc.pop()` on a local list before it is used",
    "list_pop_index": "`acc.pop(0)` (srcad's rule takes `pop()` only: refused)",
    "list_copy": "`list(acc)` / `acc[:]` copies, then appended to or written",
    "list_insert": "`acc.insert(0, v)`, `acc.extend(...)`, `acc.reverse()` (refused by design)",
    "list_alias": "a second name for a list, then a write through it (`b = acc; b.append(v)`)",
    "list_after_use": "`acc.append(v)` / `acc.pop()` after `sum(acc)` read the list",
}
#: Features whose programs srcad may refuse (`SrcadError`) by design (docs/supported-python.md);
#: a program using none of them must be differentiated.
REFUSABLE = {"list_insert", "list_alias", "list_after_use", "minmax3", "list_pop_index"}
CORE = frozenset()
EVERYTHING = frozenset(FEATURES)
#: The features the second-order tests use: all but those with a known second-order bug.
SECOND_ORDER = EVERYTHING - {feature for flag, features in SECOND_ORDER_BUGS.items()
                             if flag in KNOWN_BUGS for feature in features}

CONSTANTS = ["0.5", "2.0", "1.5", "-0.75", "3", "1", "0.25", "2"]
COMPARISONS = [">", "<", ">=", "<="]


@dataclass
class Program:
    """A generated module: `source` defines `f(*params)` after the fixed helpers."""

    source: str
    params: tuple
    features: frozenset = frozenset()

    @property
    def body(self):
        """The generated function alone (what a failure report needs)."""
        return self.source[len(HELPERS):].strip()

    def __repr__(self):
        return f"Program(\n{self.body}\n)"


class _Writer:
    """Draws one function body. `scope` holds the float names readable at this point."""

    def __init__(self, draw, params, max_statements, helpers, features=CORE):
        self.draw = draw
        self.features = set(features) - KNOWN_BUGS
        self.used = set()  # the features this program uses
        self.helpers = list(helpers)
        for feature, names in (("varargs", ["h_twice", "h_star"]), ("kwargs", ["h_kw", "h_pass"]),
                               ("decorator", ["h_dec", "h_dec2", "h_dec3"])):
            if feature in self.features:
                self.helpers += names
        self.params = list(params)
        self.budget = max_statements
        self.used_names = set(params) | {"f", "math", "functools"}
        self.counter = 0

    def can(self, feature):
        return feature in self.features

    def use(self, feature):
        self.used.add(feature)

    # --- names ----------------------------------------------------------------------------

    def new_name(self):
        free = [n for n in LOCAL_NAMES if n not in self.used_names]
        if free and self.draw(st.booleans()):
            name = self.draw(st.sampled_from(free))
        else:
            self.counter += 1
            name = f"v{self.counter}"
            while name in self.used_names:
                self.counter += 1
                name = f"v{self.counter}"
        self.used_names.add(name)
        return name

    def new_int_name(self, base):
        self.counter += 1
        name = f"{base}{self.counter}"
        self.used_names.add(name)
        return name

    # --- expressions ----------------------------------------------------------------------

    def leaf(self, scope, ints):
        choice = self.draw(st.integers(0, 9))
        if choice < 7 and scope:
            return self.draw(st.sampled_from(scope))
        if choice == 7 and ints:
            return f"({self.draw(st.sampled_from(ints))} + 1)"
        return self.draw(st.sampled_from(CONSTANTS))

    def expr(self, scope, ints, depth):
        if depth <= 0:
            return self.leaf(scope, ints)
        kind = self.draw(st.integers(0, 25))
        sub = lambda: self.expr(scope, ints, depth - 1)  # noqa: E731
        if kind <= 3:
            return self.leaf(scope, ints)
        if kind <= 6:
            op = self.draw(st.sampled_from(["+", "-", "*"]))
            return f"({sub()} {op} {sub()})"
        if kind == 7:
            den = self.draw(st.sampled_from([
                "(2.0 + math.cos({}))", "(1.0 + {0} * {0})", "(1.5 + math.tanh({}))", "3.0"]))
            return f"({sub()} / {den.format(sub())})"
        if kind == 8:
            k = self.draw(st.integers(0, 3))
            return f"({sub()} ** {k})"
        if kind == 9:
            return f"(-{sub()})"
        if kind == 10:
            fn = self.draw(st.sampled_from(["sin", "cos", "tanh", "exp"]))
            return f"math.{fn}({sub()})"
        if kind == 11:
            arg = sub()
            form = self.draw(st.sampled_from([
                "math.log(1.0 + {0} * {0})", "math.sqrt(1.0 + {0} * {0})",
                "math.log(2.0 + math.sin({0}))", "math.sqrt(1.0 + {0} ** 2)"]))
            return form.format(arg)
        if kind == 12:
            return f"abs({sub()})"
        if kind == 13:
            fn = self.draw(st.sampled_from(["min", "max"]))
            return f"{fn}({sub()}, {sub()})"
        if kind == 14 and self.helpers:
            helper = self.draw(st.sampled_from(self.helpers))
            if helper in ("h_poly", "h_branch"):
                return f"{helper}({sub()}, {sub()})"
            if helper in ("h_loop", "h_rec"):
                return f"{helper}({sub()}, {self.draw(st.integers(0, 3))})"
            if helper in ("h_twice", "h_star"):
                self.use("varargs")
                n = self.draw(st.integers(1 if helper == "h_twice" else 0, 3))
                return f"{helper}({', '.join(sub() for _ in range(n))})"
            if helper in ("h_kw", "h_pass"):
                self.use("kwargs")
                shift = f", shift={sub()}" if self.draw(st.booleans()) else ""
                return f"{helper}({sub()}, scale={sub()}{shift})"
            if helper in ("h_dec", "h_dec2"):
                self.use("decorator")
                return f"{helper}({sub()}, {sub()})"
            if helper == "h_dec3":
                self.use("decorator")
                return f"{helper}({sub()}, {self.draw(st.integers(0, 3))})"
            return f"{helper}({sub()})"
        if kind == 15:
            return f"({sub()} if {self.condition(scope, ints, depth - 1)} else {sub()})"
        if kind == 16:
            i = self.new_int_name("k")
            body = self.expr(scope, ints + [i], depth - 1)
            k = self.draw(st.integers(0, 3))
            guard = ""
            if self.draw(st.booleans()):
                guard = f" if {i} != 1"
            return f"sum([{body} for {i} in range({k}){guard}])"
        if kind == 17:
            return f"((1.0 + {sub()} ** 2) ** {sub()})"
        if kind == 18:
            return f"pow({sub()}, {self.draw(st.integers(1, 3))})"
        if kind == 19:
            return f"float({sub()})"
        if kind == 20:
            op = self.draw(st.sampled_from(["or", "and"]))
            return f"({sub()} {op} {sub()})"  # the chosen operand's value
        if kind == 21 and self.helpers and "h_poly" in self.helpers:
            return f"h_poly(b={sub()}, a={sub()})"
        if kind == 22:
            return f"({sub()} % 2.5)"
        op = self.draw(st.sampled_from(["+", "-", "*"]))
        return f"({sub()} {op} {sub()})"

    def condition(self, scope, ints, depth):
        left = self.expr(scope, ints, max(depth, 0))
        op = self.draw(st.sampled_from(COMPARISONS))
        right = self.expr(scope, ints, 0)
        cond = f"{left} {op} {right}"
        extra = self.draw(st.integers(0, 6))
        if extra == 0:
            cond = f"{cond} and {self.leaf(scope, ints)} {op} 0.1"
        elif extra == 1:
            cond = f"not ({cond})"
        elif extra == 2:
            cond = f"-1.0 < {left} < {self.leaf(scope, ints)}"  # chained
        elif extra == 3:
            cond = f"{cond} or {self.leaf(scope, ints)} < -0.5"
        return cond

    # --- statements -----------------------------------------------------------------------

    def block(self, scope, ints, loop, lists, min_statements=1):
        """Lines of a block (unindented); `scope` is extended in place with names defined here."""
        lines = []
        n = self.draw(st.integers(min_statements, 4))
        for _ in range(n):
            if self.budget <= 0:
                break
            self.budget -= 1
            lines += self.statement(scope, ints, loop, lists)
        if not lines and min_statements:
            target = self.draw(st.sampled_from(scope))
            lines.append(f"{target} = {target} * 0.5")
        return lines

    def statement(self, scope, ints, loop, lists):
        kinds = ["assign", "reassign", "augassign", "if", "for", "while", "tuple", "list",
                 "chained"]
        if loop:
            kinds += ["break", "continue"]
        if lists:
            kinds += ["append"]
        if self.can("varargs"):
            kinds += ["starcall"]
        if self.can("minmax_loop"):
            kinds += ["minmax_loop"] + (["running"] if loop and scope else [])
        kinds += ["return"]
        kind = self.draw(st.sampled_from(kinds))
        depth = self.draw(st.integers(0, 3))
        if kind == "assign" or (kind in ("reassign", "augassign") and not scope):
            value = self.expr(scope, ints, depth)
            name = self.new_name()
            scope.append(name)
            return [f"{name} = {value}"]
        if kind == "reassign":
            name = self.draw(st.sampled_from(scope))
            return [f"{name} = {self.expr(scope, ints, depth)}"]
        if kind == "augassign":
            name = self.draw(st.sampled_from(scope))
            op = self.draw(st.sampled_from(["+=", "-=", "*=", "/="]))
            value = self.expr(scope, ints, depth)
            if op == "/=":
                value = f"(2.0 + math.sin({value}))"
            return [f"{name} {op} {value}"]
        if kind == "chained":
            a, b = self.new_name(), self.new_name()
            scope += [a, b]
            return [f"{a} = {b} = {self.expr(scope[:-2], ints, depth)}"]
        if kind == "tuple":
            if len(scope) >= 2 and self.draw(st.booleans()):
                a, b = self.draw(st.permutations(scope))[:2]
                return [f"{a}, {b} = {b}, {a}"]
            a = self.draw(st.sampled_from(scope)) if scope else self.new_name()
            b = self.new_name()
            line = f"{a}, {b} = {self.expr(scope, ints, depth)}, {self.expr(scope, ints, depth)}"
            if a not in scope:
                scope.append(a)
            scope.append(b)
            return [line]
        if kind == "if":
            return self.if_statement(scope, ints, loop, lists)
        if kind == "for":
            return self.for_statement(scope, ints, lists)
        if kind == "while":
            return self.while_statement(scope, ints, lists)
        if kind == "list":
            return self.list_statement(scope, ints, lists)
        if kind == "append":
            acc = self.draw(st.sampled_from(lists))
            return [f"{acc}.append({self.expr(scope, ints, depth)})"]
        if kind == "starcall":
            self.use("varargs")
            tup, name = self.new_name(), self.new_name()
            n = self.draw(st.integers(1, 3))
            items = ", ".join(self.expr(scope, ints, 1) for _ in range(n))
            callee = self.draw(st.sampled_from(["h_twice", "h_star"]))
            line = f"{name} = {callee}(*{tup}) + {tup}[0]"
            scope.append(name)
            return [f"{tup} = ({items},)", line]
        if kind == "running":
            self.use("minmax_loop")
            name = self.draw(st.sampled_from(scope))
            fn = self.draw(st.sampled_from(["min", "max"]))
            return [f"{name} = {fn}({name}, {self.expr(scope, ints, depth)})"]
        if kind == "minmax_loop":
            return self.minmax_loop(scope, ints, lists)
        if kind in ("break", "continue"):
            return [f"if {self.condition(scope, ints, 1)}:", f"    {kind}"]
        # return, always behind a condition so that the rest of the body stays reachable
        return [f"if {self.condition(scope, ints, 1)}:",
                f"    return {self.expr(scope, ints, depth)}"]

    def if_statement(self, scope, ints, loop, lists):
        lines = [f"if {self.condition(scope, ints, 1)}:"]
        lines += _indent(self.block(list(scope), ints, loop, lists))
        arms = self.draw(st.integers(0, 2))
        for k in range(arms):
            if k == 0 and arms == 2:
                lines.append(f"elif {self.condition(scope, ints, 1)}:")
            else:
                lines.append("else:")
            lines += _indent(self.block(list(scope), ints, loop, lists))
        return lines

    def for_statement(self, scope, ints, lists):
        i = self.new_int_name("i")
        k = self.draw(st.integers(0, 3))
        bound = k
        if scope and self.draw(st.integers(0, 5)) == 0:  # a trip count that depends on a value
            bound = f"int(abs({self.draw(st.sampled_from(scope))}) * 2) % 4"
        header = self.draw(st.sampled_from([
            f"for {i} in range({bound}):", f"for {i} in range(1, {k + 1}):",
            f"for {i} in range({k}, 0, -1):"]))
        body = self.block(list(scope), ints + [i], True, lists)
        return [header] + self.with_else(body, scope, ints)

    def with_else(self, body, scope, ints):
        """The indented loop body, and sometimes an `else:` clause (run when the loop ends
        without `break`)."""
        if self.draw(st.integers(0, 4)) != 0:
            return _indent(body)
        target = self.draw(st.sampled_from(scope))
        return _indent(body) + [
            "else:", f"    {target} = {target} + {self.expr(scope, ints, 1)} * 0.5"]

    def while_statement(self, scope, ints, lists):
        n = self.new_int_name("n")
        k = self.draw(st.integers(0, 4))
        cond = f"{n} < {k}"
        if scope and self.draw(st.booleans()):
            bound = self.draw(st.sampled_from(["2.0", "5.0", "0.5"]))
            cond += f" and {self.draw(st.sampled_from(scope))} < {bound}"
        step = self.draw(st.sampled_from([f"{n} = {n} + 1", f"{n} += 1"]))
        body = [step] + self.block(list(scope), ints + [n], True, lists)
        return [f"{n} = 0", f"while {cond}:"] + self.with_else(body, scope, ints)

    def minmax_loop(self, scope, ints, lists):
        """A loop taking running extrema and appending `max`/`min` of the counter and a value
        to a list (a branch per step in the backward sweep, with a list between the steps)."""
        self.use("minmax_loop")
        m, acc, out = self.new_name(), self.new_name(), self.new_name()
        i = self.new_int_name("i")
        k = self.draw(st.integers(1, 4))
        inner = list(scope) + [m]
        fn = self.draw(st.sampled_from(["min", "max"]))
        fn2 = self.draw(st.sampled_from(["min", "max"]))
        value = self.expr(inner, ints + [i], 1)
        forms = [f"{fn2}({i}, {value})", f"{fn2}({value}, {i} * 0.5)", f"{fn2}({value}, {m})"]
        if self.can("minmax3"):
            forms.append(f"{fn2}({value}, {i} - 1.0, {m})")
        appended = self.draw(st.sampled_from(forms))
        if appended.count(",") - value.count(",") == 2:
            self.use("minmax3")
        body = [f"{m} = {fn}({m}, {self.expr(inner, ints + [i], 1)})", f"{acc}.append({appended})"]
        if self.draw(st.booleans()):
            body.append(f"if {self.condition(inner, ints + [i], 0)}:")
            body.append(f"    {acc}.append({fn}({i} * 0.25, {self.leaf(inner, ints + [i])}))")
        if self.draw(st.integers(0, 3)) == 0:
            body.append(f"if {m} > {self.draw(st.sampled_from(['1.0', '2.0', '0.5']))}:")
            body.append("    break")
        use = self.draw(st.sampled_from([f"{m} + sum({acc})", f"sum({acc}) * {m}",
                                         f"{m} - {acc}[-1] * 0.5", f"{acc}[0] + {m} * 0.5"]))
        lines = [f"{m} = {self.expr(scope, ints, 1)}", f"{acc} = []",
                 f"for {i} in range({k}):"] + _indent(body) + [f"{out} = {use}"]
        scope += [m, out]
        return lines

    def list_mutation(self, acc, scope, ints):
        """Lines mutating the local list `acc` (every item a float) before it is used."""
        kinds = [k for k in ("list_write", "list_pop", "list_copy", "list_insert", "list_alias")
                 if self.can(k)]
        if not kinds or self.draw(st.integers(0, 2)) == 0:
            return []
        kind = self.draw(st.sampled_from(kinds))
        self.use(kind)
        value = self.expr(scope, ints, 1)
        if kind == "list_write":
            form = self.draw(st.sampled_from([
                "if {0}:\n    {0}[-1] = {1}", "if len({0}) > 1:\n    {0}[1] += {1}",
                "for j_{2} in range(len({0})):\n    {0}[j_{2}] = {0}[j_{2}] * {1}",
                "if {0}:\n    {0}[0] *= {1}"]))
        elif kind == "list_pop":
            name = self.new_name()
            scope.append(name)
            forms = [f"{{0}}.append({{1}})\n{name} = {{0}}.pop() * 2.0",
                     f"{name} = 0.5\nif len({{0}}) > 1:\n    {name} = {{0}}.pop(0) + {{1}}"]
            forms.append(f"{name} = {{0}}.pop() if {{0}} else {{1}}")
            form = self.draw(st.sampled_from(forms))
            if ".pop(0)" in form:
                self.use("list_pop_index")
        elif kind == "list_copy":
            name, other = self.new_name(), self.new_name()
            scope.append(name)
            copy = self.draw(st.sampled_from(["list({0})", "{0}[:]", "{0} + []"]))
            form = (f"{other} = {copy}\n{other}.append({{1}})\n"
                    f"if {other}:\n    {other}[0] = {other}[0] * 2.0\n"
                    f"{name} = sum({other}) + len({{0}})")
        elif kind == "list_insert":
            form = self.draw(st.sampled_from([
                "{0}.insert(0, {1})", "{0}.extend([{1}, 0.5])", "{0}.append({1})\n{0}.reverse()"]))
        else:  # list_alias
            other = self.new_name()
            form = self.draw(st.sampled_from([
                f"{other} = {{0}}\n{other}.append({{1}})",
                f"{other} = {{0}}\nif {other}:\n    {other}[0] = {{1}}",
                f"{other} = [{{0}}, {{0}}]\n{other}[0].append({{1}})"]))
        self.counter += 1
        return form.format(acc, value, self.counter).split("\n")

    def list_statement(self, scope, ints, lists):
        acc = self.new_name()
        i = self.new_int_name("i")
        k = self.draw(st.integers(0, 3))
        inner = list(scope)
        body = self.block(inner, ints + [i], True, lists + [acc], min_statements=0)
        body.append(f"{acc}.append({self.expr(inner, ints + [i], 2)})")
        lines = [f"{acc} = []", f"for {i} in range({k}):"] + _indent(body)
        lines += self.list_mutation(acc, scope, ints)
        target = self.new_name()
        uses = ["sum({0})", "sum({0}) * 0.5", "len({0}) + sum({0})",
                "sum({0}) + ({0}[-1] if {0} else 0.0)", "({0}[0] * 2.0 if len({0}) > 0 else 1.0)",
                "sum({0}[1:]) * 2.0", "sum({0}[::-1][:2])"]
        uses.append("sum({0} + {0}) * 0.5")  # (`{0} * 2` is refused: repeating a list)
        use = self.draw(st.sampled_from(uses))
        lines.append(f"{target} = {use.format(acc)}")
        scope.append(target)
        if self.can("list_after_use") and self.draw(st.integers(0, 3)) == 0:
            self.use("list_after_use")
            if self.draw(st.booleans()):
                lines += [f"{acc}.append({self.expr(scope, ints, 1)})",
                          f"{target} = {target} + {acc}[-1]"]
            else:
                lines += [f"if {acc}:", f"    {target} = {target} + {acc}.pop() * 0.5"]
        walk = self.draw(st.integers(0, 3))
        if walk == 0:
            j, item = self.new_int_name("j"), self.new_name()
            lines += [f"for {j}, {item} in enumerate({acc}):",
                      f"    {target} = {target} + {item} * ({j} + 1) * 0.5"]
        elif walk == 1:
            a, b = self.new_name(), self.new_name()
            lines += [f"for {a}, {b} in zip({acc}, reversed({acc})):",
                      f"    {target} = {target} + {a} * {b} * 0.25"]
        return lines


def _indent(lines):
    return ["    " + line for line in lines]


ALL_HELPERS = ("h_poly", "h_loop", "h_branch", "h_rec", "h_early")


#: Decorators `f` itself may carry (each keeps `f`'s signature through `functools.wraps`).
F_DECORATORS = ["@triple", "@scaled(0.5)", "@scaled(-2.0)", "@squash"]


@st.composite
def programs(draw, max_statements=8, helpers=ALL_HELPERS, features=CORE):
    """A `Program` whose function `f` takes 2 or 3 float parameters and may call `helpers`;
    it may use the `features` named (keys of `FEATURES`; none by default), and records the
    ones it does use in `Program.features`."""
    nparams = draw(st.integers(2, 3))
    params = draw(st.lists(st.sampled_from(PARAM_NAMES), min_size=nparams, max_size=nparams,
                           unique=True))
    writer = _Writer(draw, params, max_statements, list(helpers), features)
    scope = list(params)
    body = _indent(writer.block(scope, [], False, [], min_statements=1))
    k = draw(st.integers(1, 3))
    terms = draw(st.lists(st.sampled_from(scope), min_size=k, max_size=k))
    ret = " + ".join(terms)
    if draw(st.booleans()):
        ret = f"{ret} + {writer.expr(scope, [], 2)}"
    text = f"def f({', '.join(params)}):\n" + "\n".join(body) + f"\n    return {ret}\n"
    if writer.can("decorated_f") and draw(st.integers(0, 2)) == 0:
        writer.use("decorated_f")
        decorators = draw(st.lists(st.sampled_from(F_DECORATORS), min_size=1, max_size=2))
        text = "\n".join(decorators) + "\n" + text
    return Program(HELPERS + "\n\n" + text, tuple(params), frozenset(writer.used))


def load(program, directory):
    """Write `program` to a module in `directory`, import it, and return the module."""
    digest = hashlib.sha1(program.source.encode()).hexdigest()[:16]
    name = f"gen_prog_{digest}"
    module = sys.modules.get(name)
    if module is not None:
        return module
    path = directory / f"{name}.py"
    path.write_text(program.source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
