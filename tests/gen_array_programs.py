"""A hypothesis strategy for random small NumPy programs that mutate and alias arrays and lists.

`array_programs()` draws an `ArrayProgram`: a module defining `f(a, x)` (a scalar) and `fv(a, x)`
(a 1-D array) with the same body, for an array `a` of shape (6,) and a float `x`. The body makes
arrays (arithmetic, `np.sin/tanh/cos`, `np.maximum`, `np.where`, `np.abs`, `np.cumsum`), reads
them through slices and views (`b[:3]`, `b[1::2]`, `b.reshape(2, 3)`, `.T`, `.ravel()`, a second
name `v = b`), copies them (`.copy()`, `np.array(b)`, `b * 1.0`), and writes into them:
`b[i] = s`, `b[i] += s`, `b[1:] *= c`, `b[:3] = e`, fancy-index writes with repeated indices
(`b[[0, 2, 2]] = e`, `b[[1, 1, 4]] += e`), `np.add.at`, `out=`, masks, whole-array `b += e`,
writes in loops and branches, writes through views and into the argument, `.sort()` and
mutation of an array while a loop walks it. Lists are appended to, popped, written, inserted
into and aliased; `max`/`min` run inside loops (running extrema, appended extrema).

Every write is classified while it is written: a write into an array that only one live name
holds, that is not (part of) the argument and that no number was read out of before
(`Clean` below) must be differentiated exactly; every other one is a feature srcad may refuse by
design (docs/supported-python.md, "Writes into arrays and lists"). `ArrayProgram.features`
names the features the program uses; `REFUSABLE` those srcad may refuse.

Denominators are bounded away from zero, so the only non-smooth points are comparisons,
`abs`, `max`/`min`, `np.maximum` and `np.where`.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen_programs import KNOWN_BUGS
from hypothesis import assume
from hypothesis import strategies as st

HEADER = '''\
import math

import numpy as np
'''

#: The features a program may use, with what each writes.
FEATURES = {
    "views": "reads through slices and views (`b[:3]`, `.reshape`, `.T`, `.ravel()`, `v = b`)",
    "copies": "`.copy()`, `np.array(b)`, `b * 1.0` of an array",
    "write_clean": "`b[i] = s`, `b[i] += s`, slice writes, `b += e` into an array only one"
                   " name holds",
    "fancy_repeat": "`b[[0, 2, 2]] = e`, `b[[1, 1, 4]] += e` (repeated indices), clean",
    "add_at": "`np.add.at(b, idx, e)` with repeated indices, clean",
    "out": "`np.f(b, ..., out=b)` on its own line, clean",
    "mask_write": "`b[b > c] = s`, clean",
    "loop_write": "`b[i] = ...` inside a `for` loop, clean",
    "write_shared": "a write into an array another name (a view, an alias) still holds",
    "write_arg": "a write into the argument `a` or a view of it",
    "write_after_read": "a write into an array a number was read out of before",
    "sort": "`b.sort()` (refused on values carrying a gradient)",
    "iter_mutate": "`for e in b:` whose body writes into `b`",
    "lists": "lists appended to in loops, `sum`, `np.array(L)`, `L[i]` reads",
    "list_pop": "`L.pop()` on a local list",
    "list_write": "`L[i] = s` on a local list",
    "list_insert": "`L.insert(0, s)` (refused by design)",
    "list_alias": "`M = L; M.append(s)` then `L` read",
    "minmax_loop": "`max`/`min` in loops: running extrema, `L.append(max(i, b[i]))`",
    "branch": "`if` on a value around writes",
}
REFUSABLE = {"write_shared", "write_arg", "write_after_read", "sort", "iter_mutate",
             "list_insert", "list_alias"}

SHAPES = [(6,), (2, 3), (3, 2), (3,), (2,)]
CONSTANTS = ["0.5", "2.0", "1.5", "-0.75", "0.25", "1.0"]


@dataclass
class ArrayProgram:
    """A generated module defining `f(a, x)` (scalar) and `fv(a, x)` (1-D array)."""

    source: str
    features: frozenset = frozenset()

    @property
    def body(self):
        return self.source[len(HEADER):].strip()

    def __repr__(self):
        return f"ArrayProgram(\n{self.body}\n)"


def _indent(lines):
    return ["    " + line for line in lines]


class _Writer:
    def __init__(self, draw, refusable):
        self.draw = draw
        self.refusable = refusable  # may this program use features srcad refuses by design?
        self.counter = 0
        self.arrays = {"a": ((6,), "arg")}  # name -> (shape, root object)
        self.scalars = ["x"]
        self.lists = {}  # name -> known length
        self.read_roots = set()  # roots a number was read out of (not through float())
        self.copied = {"b0"}  # names bound to a copy (`.copy()`, `np.array(b)`, ...)
        self.used = set()

    # --- bookkeeping ---------------------------------------------------------------------

    def name(self, base):
        self.counter += 1
        return f"{base}{self.counter}"

    def use(self, feature):
        self.used.add(feature)

    def pick(self, items):
        return self.draw(st.sampled_from(sorted(items)))

    def with_shape(self, shape):
        return [n for n, (s, _) in self.arrays.items() if s == shape]

    def root(self, name):
        return self.arrays[name][1]

    def new_root(self):
        self.counter += 1
        return f"obj{self.counter}"

    def write_kind(self, target):
        """The feature of a write into `target`: clean or one of the refusable kinds."""
        root = self.root(target)
        if root == "arg":
            return "write_arg"
        if sum(1 for _, r in self.arrays.values() if r == root) > 1:
            return "write_shared"
        if root in self.read_roots:
            return "write_after_read"
        return None

    # --- expressions ---------------------------------------------------------------------

    def scalar(self, depth, ints=()):
        kind = self.draw(st.integers(0, 14 if depth > 0 else 5))
        if kind <= 2:
            return self.pick(self.scalars)
        if kind == 3:
            return self.pick(CONSTANTS)
        if kind == 4:
            return f"np.sum({self.array(self.pick(SHAPES), 0)})"
        if kind == 5:
            name = self.pick(self.with_shape((6,)) or ["a"])
            index = self.draw(st.integers(-6, 5))
            if ints and self.draw(st.booleans()):
                index = self.pick(ints)
            return f"float({name}[{index}])"
        sub = lambda: self.scalar(depth - 1, ints)  # noqa: E731
        if kind <= 7:
            op = self.pick(["+", "-", "*"])
            return f"({sub()} {op} {sub()})"
        if kind == 8:
            fn = self.pick(["sin", "cos", "tanh"])
            return f"math.{fn}({sub()})"
        if kind == 9:
            fn = self.pick(["max", "min"])
            return f"{fn}({sub()}, {sub()})"
        if kind == 10:
            shape = self.pick([(6,), (3,), (2,)])
            return f"np.dot({self.array(shape, depth - 1)}, {self.array(shape, depth - 1)})"
        if kind == 11:
            fn = self.pick(["np.mean", "np.max", "np.min"])
            return f"{fn}({self.array(self.pick(SHAPES), depth - 1)})"
        if kind == 12:
            return f"({sub()} / (2.0 + math.cos({sub()})))"
        if kind == 13 and self.lists:
            name = self.pick(self.lists)
            if self.lists[name] > 0:
                n = self.lists[name]
                return f"{name}[{self.draw(st.integers(-n, n - 1))}]"
            return f"sum({name})"
        return f"abs({sub()})"

    def view_of(self, shape):
        """An expression of `shape` that is a view of an existing array, or None."""
        options = []
        for name, (s, _) in self.arrays.items():
            if s == shape:
                options.append(name)
            if s == (6,) and shape == (3,):
                options += [f"{name}[:3]", f"{name}[3:]", f"{name}[::2]", f"{name}[1::2]"]
            if s == (6,) and shape == (2,):
                options += [f"{name}[1:3]", f"{name}[::3]"]
            if s == (6,) and shape in ((2, 3), (3, 2)):
                options.append(f"{name}.reshape{shape}")
            if len(s) == 2 and shape == (6,):
                options.append(f"{name}.ravel()")
            if len(s) == 2 and shape == s[::-1]:
                options.append(f"{name}.T")
            if s == (2, 3) and shape == (3,):
                options.append(f"{name}[{self.draw(st.integers(0, 1))}]")
            if s == (2, 3) and shape == (2,):
                options.append(f"{name}[:, {self.draw(st.integers(0, 2))}]")
            if s == (3, 2) and shape == (2,):
                options.append(f"{name}[{self.draw(st.integers(0, 2))}]")
        return self.pick(options) if options else None

    def array(self, shape, depth):
        view = self.view_of(shape)
        kind = self.draw(st.integers(0, 10 if depth > 0 else 1))
        if kind <= 1 and view is not None:
            if view not in self.arrays:
                self.use("views")
            return view
        if kind <= 1:
            return f"np.full({shape}, {self.pick(CONSTANTS)})"
        sub = lambda: self.array(shape, depth - 1)  # noqa: E731
        if kind <= 3:
            op = self.pick(["+", "-", "*"])
            return f"({sub()} {op} {sub()})"
        if kind == 4:
            return f"({sub()} * {self.scalar(depth - 1)})"
        if kind == 5:
            fn = self.pick(["np.sin", "np.tanh", "np.cos"])
            return f"{fn}({sub()})"
        if kind == 6:
            return f"np.maximum({sub()}, {self.pick(CONSTANTS)})"
        if kind == 7:
            return f"np.where({sub()} > {self.pick(CONSTANTS)}, {sub()}, {sub()} * 0.5)"
        if kind == 8:
            return f"np.abs({sub()})"
        if kind == 9 and len(shape) == 1:
            return f"np.cumsum({sub()})"
        return f"({sub()} / (2.0 + np.cos({sub()})))"

    # --- statements ----------------------------------------------------------------------

    def statements(self, budget):
        lines = []
        for _ in range(budget):
            lines += self.statement()
        return lines

    def statement(self):
        kinds = ["new", "new", "view", "copy", "write", "write", "write", "fancy", "inplace",
                 "loop", "list", "minmax", "scalar", "branch", "iterate"]
        if self.refusable:
            kinds.append("sort")
        kind = self.draw(st.sampled_from(kinds))
        return getattr(self, f"s_{kind}")()

    def s_new(self):
        shape = self.pick(SHAPES)
        expr = self.array(shape, self.draw(st.integers(1, 2)))
        name = self.name("b")
        root = self.new_root()
        if not expr.startswith(("(", "np.")):  # a bare view: a second name for an object
            root = self.root(expr.split("[")[0].split(".")[0])
        self.arrays[name] = (shape, root)
        return [f"{name} = {expr}"]

    def s_view(self):
        shape = self.pick(SHAPES)
        view = self.view_of(shape)
        if view is None:
            return self.s_new()
        self.use("views")
        name = self.name("v")
        base = view.split("[")[0].split(".")[0]
        self.arrays[name] = (shape, self.root(base))
        return [f"{name} = {view}"]

    def s_copy(self):
        source = self.pick(self.arrays)
        self.use("copies")
        form = self.pick(["{}.copy()", "np.array({})", "({} * 1.0)", "np.copy({})"])
        name = self.name("c")
        self.arrays[name] = (self.arrays[source][0], self.new_root())
        self.copied.add(name)
        return [f"{name} = {form.format(source)}"]

    def target(self, shape=None):
        """An array to write into: one only it holds unless the program may be refused, and
        then rarely the argument (always refused) or a view of it."""
        names = [n for n, (s, _) in self.arrays.items() if shape in (None, s)]
        clean = [n for n in names if self.write_kind(n) is None]
        if not self.refusable:
            return self.pick(clean) if clean else None
        own = [n for n in names if self.root(n) != "arg"]
        if own and self.draw(st.integers(0, 7)) != 0:
            return self.pick(own)
        return self.pick(names)

    def classify(self, target, clean_feature):
        kind = self.write_kind(target)
        self.use(kind or clean_feature)
        return kind

    def index(self, shape, ints=()):
        if len(shape) == 1:
            if ints and self.draw(st.booleans()):
                return self.pick(ints)
            return str(self.draw(st.integers(-shape[0], shape[0] - 1)))
        row, col = self.draw(st.integers(0, shape[0] - 1)), self.draw(st.integers(0, shape[1] - 1))
        return f"{row}, {col}"

    def write_line(self, target, ints=()):
        shape = self.arrays[target][0]
        kind = self.draw(st.integers(0, 6))
        if kind <= 2:
            op = self.pick(["=", "+=", "*=", "-="])
            value = self.scalar(1, ints)
            if op == "*=":
                value = f"math.tanh({value})"
            return f"{target}[{self.index(shape, ints)}] {op} {value}"
        if kind == 3 and len(shape) == 1 and shape[0] >= 3:
            k = shape[0] - 1
            return self.pick([f"{target}[1:] *= {self.scalar(1, ints)}",
                              f"{target}[:{k}] += {self.array((k,), 1)}",
                              f"{target}[1:] = {target}[:{k}] * 0.5"])
        if kind == 4 and len(shape) == 2:
            return f"{target}[{self.draw(st.integers(0, shape[0] - 1))}] = " \
                   f"{self.array((shape[1],), 1)}"
        if kind == 5:
            op = self.pick(["+=", "-=", "*="])
            value = self.array(shape, 1)
            if op == "*=":
                value = f"np.tanh({value})"
            return f"{target} {op} {value}"
        return f"{target}[{self.index(shape, ints)}] = {self.scalar(1, ints)}"

    def s_write(self):
        target = self.target()
        if target is None:
            return self.s_new()
        line = self.write_line(target)
        self.classify(target, "write_clean")
        return [line]

    def s_fancy(self):
        target = self.target((6,))
        if target is None:
            return self.s_new()
        idx = self.pick(["[0, 2, 2]", "[1, 1, 4]", "[5, 0, 5]", "[3, 3, 3]", "[-1, 1, 5]"])
        value = self.array((3,), 1)
        form = self.draw(st.integers(0, 3))
        if form == 0:
            line, feature = f"{target}[{idx}] = {value}", "fancy_repeat"
        elif form == 1:
            line, feature = f"{target}[{idx}] += {value}", "fancy_repeat"
        elif form == 2:
            line, feature = f"np.add.at({target}, {idx}, {value})", "add_at"
        else:
            line, feature = f"{target}[np.array({idx})] = {self.scalar(1)}", "fancy_repeat"
        self.classify(target, feature)
        return [line]

    def s_inplace(self):
        target = self.target()
        if target is None:
            return self.s_new()
        if self.draw(st.booleans()):
            fn = self.pick(["np.sin({0}, out={0})", "np.multiply({0}, {1}, out={0})",
                            "np.add({0}, {1}, out={0})", "np.tanh({0}, out={0})"])
            line, feature = fn.format(target, self.scalar(1)), "out"
        else:
            line = f"{target}[{target} > {self.pick(CONSTANTS)}] = {self.scalar(1)}"
            feature = "mask_write"
        self.classify(target, feature)
        return [line]

    def s_loop(self):
        target = self.target()
        if target is None:
            return self.s_new()
        shape = self.arrays[target][0]
        i = self.name("i")
        n = shape[0]
        header = self.pick([f"for {i} in range({n}):", f"for {i} in range(1, {n}):",
                            f"for {i} in range({n} - 1, 0, -1):"])
        if len(shape) == 1:
            value = self.scalar(1, (i,))
            body = self.pick([f"{target}[{i}] = {target}[{i}] * 0.5 + {value}",
                              f"{target}[{i}] += {target}[{i} - 1] * 0.5",
                              f"{target}[{i}] = {value}"])
        else:
            body = f"{target}[{i}] = {target}[{i}] * {self.scalar(1, (i,))}"
        self.classify(target, "loop_write")
        return [header, "    " + body]

    def s_list(self):
        self.use("lists")
        name = self.name("L")
        source = self.pick(self.with_shape((6,)))
        i = self.name("i")
        k = self.draw(st.integers(1, 5))
        value = self.pick([f"{source}[{i}] * {self.scalar(0)}", f"math.sin({source}[{i}])",
                           f"float({source}[{i}]) + {self.scalar(0)}"])
        lines = [f"{name} = []", f"for {i} in range({k}):", f"    {name}.append({value})"]
        if "float(" not in value:
            self.read_roots.add(self.root(source))
        length = k
        kind = self.draw(st.integers(0, 6 if self.refusable else 4))
        if kind in (2, 3) and not self.refusable:
            kind = 4
        if kind == 0:
            self.use("list_pop")
            s = self.name("s")
            lines.append(f"{s} = {name}.pop() * 2.0")
            self.scalars.append(s)
            length -= 1
        elif kind == 1:
            self.use("list_write")
            lines.append(f"{name}[{self.draw(st.integers(-k, k - 1))}] = {self.scalar(1)}")
        elif kind == 2:
            self.use("list_insert")
            lines.append(f"{name}.insert(0, {self.scalar(1)})")
            length += 1
        elif kind == 3:
            self.use("list_alias")
            other = self.name("M")
            lines += [f"{other} = {name}", f"{other}.append({self.scalar(1)})"]
            length += 1
        self.lists[name] = length
        use = self.draw(st.integers(0, 2))
        if use == 0 and length in (2, 3, 6):
            arr = self.name("b")
            self.arrays[arr] = ((length,), self.new_root())
            lines.append(f"{arr} = np.array({name})")
        elif use == 1:
            s = self.name("s")
            lines.append(f"{s} = sum({name}) * 0.5")
            self.scalars.append(s)
        return lines

    def s_minmax(self):
        self.use("minmax_loop")
        source = self.pick(self.with_shape((6,)))
        m, acc, i = self.name("m"), self.name("L"), self.name("i")
        k = self.draw(st.integers(1, 6))
        fn, fn2 = self.pick(["max", "min"]), self.pick(["max", "min"])
        item = self.pick([f"{source}[{i}]", f"float({source}[{i}])"])
        if "float(" not in item:
            self.read_roots.add(self.root(source))
        appended = self.pick([f"{fn2}({i} * 0.25, {item})", f"{fn2}({item}, {m})",
                              f"{fn2}({i} - 2.0, {item} * {self.scalar(0)})"])
        lines = [f"{m} = {self.scalar(1)}", f"{acc} = []", f"for {i} in range({k}):",
                 f"    {m} = {fn}({m}, {item} * {self.scalar(0)})",
                 f"    {acc}.append({appended})"]
        if self.draw(st.booleans()):
            lines += [f"    if {item} > {self.pick(CONSTANTS)}:",
                      f"        {acc}.append({fn}({item}, 0.5))"]
        s = self.name("s")
        lines.append(f"{s} = {m} + sum({acc}) * 0.5")
        self.scalars += [m, s]
        self.lists[acc] = 0
        return lines

    def s_scalar(self):
        s = self.name("s")
        expr = self.scalar(2)
        self.scalars.append(s)
        return [f"{s} = {expr}"]

    def s_branch(self):
        self.use("branch")
        target = self.target()
        if target is None:
            return self.s_new()
        cond = f"{self.scalar(1)} > {self.pick(CONSTANTS)}"
        line = self.write_line(target)
        self.classify(target, "write_clean")
        lines = [f"if {cond}:", "    " + line]
        if self.draw(st.booleans()):
            lines += ["else:", "    " + self.write_line(target)]
        return lines

    def s_sort(self):
        target = self.pick(n for n, (s, r) in self.arrays.items() if len(s) == 1 and r != "arg")
        self.use("sort")
        if self.write_kind(target):
            self.use(self.write_kind(target))
        return [f"{target}.sort()"]

    def s_iterate(self):
        target = self.pick(n for n, (s, _) in self.arrays.items() if len(s) == 1)
        e, s = self.name("e"), self.name("s")
        lines = [f"{s} = 0.0", f"for {e} in {target}:", f"    {s} = {s} + {e} * 0.5"]
        if self.refusable and "iter_mutate" not in KNOWN_BUGS and self.draw(st.booleans()):
            self.use("iter_mutate")
            self.classify(target, "write_clean")
            lines.append(f"    {target} *= 0.9")
        else:
            self.read_roots.add(self.root(target))
        self.scalars.append(s)
        return lines


@st.composite
def array_programs(draw, max_statements=7):
    """An `ArrayProgram`: `f(a, x)` and `fv(a, x)` share a random body."""
    writer = _Writer(draw, draw(st.integers(0, 3)) == 0)
    first = draw(st.sampled_from(["a.copy()", "a * x", "np.sin(a) + x", "np.array(a)"]))
    writer.arrays["b0"] = ((6,), writer.new_root())
    body = [f"b0 = {first}"] + writer.statements(draw(st.integers(1, max_statements)))
    names = sorted(writer.arrays)
    outs = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))
    parts = ", ".join(f"np.ravel({o})" for o in outs)
    scalar = draw(st.sampled_from(writer.scalars))
    vec = f"np.concatenate([{parts}]) * {scalar}" if draw(st.booleans()) else \
        f"np.concatenate([{parts}, np.array([{scalar}])])"
    tail = draw(st.sampled_from(["np.sum(np.sin(out))", "np.sum(out * out) * 0.5",
                                 "np.sum(np.tanh(out)) + np.max(out)", "np.dot(out, out)"]))
    body = _indent(body)
    f = ["def f(a, x):"] + body + [f"    out = {vec}", f"    return {tail}"]
    fv = ["def fv(a, x):"] + body + [f"    return {vec}"]
    source = HEADER + "\n\n" + "\n".join(f) + "\n\n\n" + "\n".join(fv) + "\n"
    used = frozenset(writer.used) - {None}
    assume(not used & KNOWN_BUGS)  # steer around srcad's known bugs
    return ArrayProgram(source, used)
