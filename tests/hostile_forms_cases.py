"""The programs of tests/test_hostile_forms.py: the Python forms real code is written in
(helpers with side effects on module-level containers, closures, objects, higher-order
builtins, control flow, number types, globals and functions that change between calls),
written as a skeptical outside user would (issue 14).

Each case is ``(family, source, kind, expect)``. ``source`` is the text of a module defining
``f(x)`` and, if the case changes something between calls, ``change()`` (called after each
point). ``kind`` is ``"s"`` (``x`` a Python float) or ``"a"`` (``x`` a float array of 3).
``expect`` is ``"exact"`` (srcad must differentiate it), ``"refused"`` (a SrcadError, with a
rewrite in its hint) or ``"sound"`` (either, never a wrong value or gradient).
"""

from __future__ import annotations

import textwrap

HEAD = "import functools\nimport math\nimport operator\nimport numpy as np\n\n"

#: points away from every kink and discontinuity of the programs below
POINTS = {"s": (0.71, -0.37, 1.33),
          "a": ([0.71, -1.23, 1.94], [-0.37, 0.52, 1.21], [1.33, 0.18, -0.86])}

CASES = []


def _add(family, source, kind="a", expect="sound"):
    CASES.append((family, HEAD + textwrap.dedent(source).strip("\n") + "\n", kind, expect))


def _f(family, body, kind="a", expect="sound", head=""):
    """A case whose module is `head` then ``def f(x):`` with `body`."""
    text = textwrap.dedent(head).strip("\n") + "\n\n\n" if head else ""
    text += "def f(x):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    _add(family, text, kind, expect)


# ------------------------------------------------- helpers with effects on module-level containers
_STORE = '''
STORE = []
CACHE = {}


def keep(a):
    STORE.append(a)
    return a * 2.0


def keep_view(a):
    STORE.append(a[1:])
    return np.sum(a)


def remember(k, v):
    CACHE[k] = v


def recall(k):
    return CACHE[k]


def last():
    return STORE[-1]
'''
for _body in [
        "STORE.clear()\ny = keep(x * 3.0)\nreturn np.sum(y) + np.sum(STORE[0])",
        "STORE.clear()\nkeep(x * x)\nreturn np.sum(last())",
        "STORE.clear()\nz = x * 1.0\nkeep(z)\nz *= 2.0\nreturn np.sum(STORE[0])",
        "STORE.clear()\nz = x * 1.0\nkeep(z)\nz[0] = 5.0\nreturn np.sum(STORE[0] * x)",
        "STORE.clear()\nz = x * 1.0\nkeep_view(z)\nz[2] = 0.0\nreturn np.sum(STORE[0]) * x[0]",
        "STORE.clear()\ns = keep_view(x * x)\nreturn s + np.sum(STORE[0])",
        "remember('a', x * x)\nreturn np.sum(CACHE['a'])",
        "remember('a', x * x)\nreturn np.sum(recall('a'))",
        "remember('a', x[0])\nremember('a', x[1] * 2.0)\nreturn recall('a') * x[2]",
        "CACHE['b'] = x * 2.0\nreturn np.sum(recall('b'))",
        "STORE.clear()\nSTORE.append(x[0] * x[1])\nreturn last() + x[2]",
        "STORE.clear()\nfor t in x:\n    keep(t)\nreturn sum(STORE) * 1.0",
        "STORE.clear()\nkeep(x)\nSTORE[0][1] = 0.0\nreturn np.sum(x)",
        "STORE.clear()\nkeep(x[0])\nkeep(x[1])\nreturn STORE[0] * STORE[-1]",
        "STORE.clear()\nkeep(x * 2.0)\nv = STORE.pop()\nreturn np.sum(v * v)",
]:
    _f("global-store", _body, head=_STORE)

_MUTATE = '''
def scale_(a):
    a *= 2.0
    return 1.0


def set_first(a, v):
    a[0] = v
    return a[1]


def push(L, v):
    L.append(v)
    return len(L)


def put(d, v):
    d["k"] = v


def extend_twice(L):
    L.extend(L)


def ident(a):
    return a


def second(a, b):
    return b


def pick(L):
    return L[1]


def getk(d):
    return d["w"]


def head_tail(L):
    return L[0], L[1:]
'''
for _body in [
        "y = x * 1.0\ns = scale_(y)\nreturn np.sum(y * x) + s",
        "y = x * 1.0\nscale_(y)\nscale_(y)\nreturn np.sum(y)",
        "y = x * 1.0\nt = set_first(y, x[2] * x[2])\nreturn np.sum(y) * t",
        "L = [x[0]]\nn = push(L, x[1] * x[2])\nreturn L[0] * L[1] + n",
        "L = [x[0]]\npush(L, x[1])\npush(L, L[0] * L[1])\nreturn L[-1]",
        "d = {'k': x[0]}\nput(d, x[1] * x[1])\nreturn d['k'] * x[2]",
        "L = [x[0], x[1]]\nextend_twice(L)\nreturn L[0] * L[3]",
        "y = ident(x * 1.0)\ny[0] = 3.0\nreturn np.sum(y * x)",
        "z = x * 1.0\ny = ident(z)\ny *= 2.0\nreturn np.sum(z)",
        "z = x * 1.0\ny = second(x, z)\ny[1] = x[0]\nreturn np.sum(z * z)",
        "return pick([x[0], x[1] * x[2], x[0]]) * 2.0",
        "return getk({'w': x[1], 'v': x[2]}) * x[0]",
        "h, t = head_tail([x[0], x[1], x[2]])\nreturn h * t[0] * t[1]",
        "L = [x[0], x[1]]\nM = ident(L)\nM.append(x[2])\nreturn L[2] * L[0]",
        "L = [x[0], x[1]]\nM = ident(L)\nM[0] = x[2]\nreturn L[0] * L[1]",
        "d = {'w': x[0]}\ne = ident(d)\ne['w'] = x[1] * 3.0\nreturn getk(d)",
        "z = x * 1.0\nw = second(0.0, z[1:])\nw[0] = 7.0\nreturn np.sum(z * x)",
        "y = x * 1.0\nscale_(y[1:])\nreturn np.sum(y * y)",
]:
    _f("helper-mutates", _body, head=_MUTATE)

# a helper called for its effect with a number (not only an array) that it stores where the
# caller reads it back: a global dict or list, a global name, an argument's container, an
# attribute, a closure's list; each store at each depth (once read back with no gradient)
_STORES = '''
BOX = {}
SLOTS = [0.0]
G = 0.0


class Obj:
    w = 0.0


OBJ = Obj()


def to_dict(v):
    BOX["k"] = v


def to_list(v):
    SLOTS[0] = v


def to_name(v):
    global G
    G = v


def to_attr(v):
    OBJ.w = v


def to_arg(d, v):
    d["k"] = v


def to_arg_list(L, v):
    L.append(v)


def to_arg_attr(o, v):
    o.w = v


def deeper(v):
    to_dict(v * 1.0)


def read_dict():
    return BOX["k"]
'''
for _store, _read in [("to_dict({v})", "BOX['k']"), ("to_dict(v={v})", "read_dict()"),
                      ("to_list({v})", "SLOTS[0]"), ("to_name({v})", "G"),
                      ("to_attr({v})", "OBJ.w"), ("d = {{}}\nto_arg(d, {v})", "d['k']"),
                      ("L = []\nto_arg_list(L, {v})", "L[-1]"),
                      ("o = Obj()\nto_arg_attr(o, {v})", "o.w"), ("deeper({v})", "BOX['k']")]:
    for _v in ["x[0]", "x[1] * 2.0", "float(x[2])"]:
        _f("effect-store", _store.format(v=_v) + f"\nreturn {_read} * x[1]", head=_STORES)
for _body in [
        "box = {}\ndef put(v):\n    box['k'] = v\nput(x[0])\nreturn box['k'] * x[1]",
        "box = [0.0, 0.0]\ndef put(i, v):\n    box[i] = box[i] + v\nfor i in range(2):\n"
        "    put(i, x[i] * x[2])\nreturn box[0] + box[1]",
        "class A:\n    def __init__(self):\n        self.v = 0.0\n    def set(self, v):\n"
        "        self.v = v\na = A()\na.set(x[0] * 2.0)\nreturn a.v * x[1]",
        "class A:\n    def put(self, v):\n        setattr(self, 'v', v)\na = A()\na.put(x[0])\n"
        "return a.v * x[1]",
]:
    _f("effect-store", _body)

# -------------------------------------------------------------------------------- closures
for _body in [
        "a = x * 2.0\ng = lambda t: t * a\na = x * 3.0\nreturn np.sum(g(x))",
        "a = x[0]\ndef g(t):\n    return t * a\nr = g(x[1])\na = x[2]\nreturn r + g(x[1])",
        "acc = 0.0\ndef add(v):\n    nonlocal acc\n    acc = acc + v\nadd(x[0])\nadd(x[1] * x[2])\n"
        "return acc",
        "acc = x[0]\ndef mul(v):\n    nonlocal acc\n    acc = acc * v\n    return acc\n"
        "mul(x[1])\nreturn mul(x[2]) + acc",
        "fs = [lambda t: t * i for i in range(3)]\nreturn sum(g(x[0]) for g in fs)",
        "fs = []\nfor v in x:\n    fs.append(lambda t: t * v)\nreturn fs[0](x[0]) + fs[1](1.0)",
        "fs = []\nfor v in x:\n    fs.append(lambda t, v=v: t * v)\n"
        "return fs[0](x[0]) + fs[1](1.0)",
        "fs = [lambda t, c=c: t * c for c in x]\nreturn fs[0](2.0) * fs[2](x[1])",
        "def apply(h, v):\n    return h(v)\nreturn apply(lambda t: t * x[0], x[1])",
        "def outer(a):\n    def inner(b):\n        return a * b\n    return inner\n"
        "return outer(x[0])(x[1]) + outer(x[2])(x[2])",
        "k = x[0]\ndef g(t):\n    return t + k\nk = k * 2.0\nreturn g(x[1]) * k",
        "cells = [x[0]]\ndef g(t):\n    return t * cells[0]\ncells[0] = x[1]\nreturn g(x[2])",
        "def make(c):\n    return lambda t: t * c\nfs = [make(c) for c in x]\n"
        "return fs[1](fs[0](x[2]))",
        "total = [0.0]\ndef add(v):\n    total[0] = total[0] + v\nfor t in x:\n    add(t * t)\n"
        "return total[0]",
        "sq = lambda t: t * t\nsq2 = lambda t: sq(sq(t))\nreturn sq2(x[0]) + sq(x[1])",
        "a = x[0]\ng = lambda t, a=a: t * a\na = 100.0\nreturn g(x[1])",
]:
    _f("closure", _body)

_add("closure-module", '''
def make(c):
    def g(t):
        return t * c
    return g


G3 = make(3.0)


def f(x):
    return np.sum(G3(x))
''')
_add("closure-cell-changes", '''
def make():
    c = [2.0]

    def g(t):
        return t * c[0]

    def setc(v):
        c[0] = v
    return g, setc


g, setc = make()


def f(x):
    return np.sum(g(x) * x)


def change():
    setc(5.0)
''')
_add("closure-cell-changes", '''
def make():
    c = 2.0

    def g(t):
        return t * c

    def setc(v):
        nonlocal c
        c = v
    return g, setc


g, setc = make()


def f(x):
    return np.sum(g(x) * x)


def change():
    setc(np.array([1.0, 2.0, 3.0]))
''')
_add("closure-cell-changes", '''
def make():
    c = 2.0

    def g(t):
        return t * c

    def setc(v):
        nonlocal c
        c = v
    return g, setc


g, setc = make()


def f(x):
    return g(x) * x


def change():
    setc(c_next[0])
    c_next.pop(0)


c_next = [3.0, 4.0, 5.0]
''', kind="s")
_add("closure-cell-changes", '''
def make():
    k = [1]

    def g(t):
        r = t
        for _ in range(k[0]):
            r = r * t
        return r
    return g, k


g, K = make()


def f(x):
    return g(x)


def change():
    K[0] += 1
''', kind="s")

# ----------------------------------------------------------------------- methods and objects
_CLASSES = '''
import dataclasses
import collections


class Scale:
    k = 2.0

    def __init__(self, k=None):
        if k is not None:
            self.k = k

    def __call__(self, t):
        return t * self.k

    def times(self, t):
        return t * self.k

    def set(self, k):
        self.k = k

    @property
    def square(self):
        return self.k * self.k


class Acc:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total = self.total + v
        return self


class Base:
    def val(self, t):
        return t * 2.0


class Child(Base):
    def val(self, t):
        return super().val(t) + t * t


class Grand(Child):
    def val(self, t):
        return Base.val(self, t) * 3.0 + super().val(t)


@dataclasses.dataclass
class D:
    a: float
    b: float = 1.0

    def prod(self):
        return self.a * self.b


Pt = collections.namedtuple("Pt", "a b")
S = Scale(3.0)
P = Scale()
'''
for _body in [
        "return np.sum(S(x))",
        "return np.sum(S.times(x) * x)",
        "s = Scale(x[0])\nreturn s(x[1]) + s.times(x[2])",
        "s = Scale(x[0])\nreturn s.square * x[1]",
        "s = Scale(x[0])\ns.set(x[1])\nreturn s(x[2])",
        "s = Scale(x[0])\nr = s(x[2])\ns.k = x[1]\nreturn r + s(x[2])",
        "S.k = x[0]\nreturn S(x[1])",
        "a = Acc()\na.add(x[0])\na.add(x[1] * x[1])\nreturn a.total",
        "a = Acc().add(x[0]).add(x[2])\nreturn a.total * x[1]",
        "return Child().val(x[0]) + Base().val(x[1])",
        "return Grand().val(x[0]) * x[1]",
        "d = D(x[0], x[1])\nreturn d.a * d.b + d.prod()",
        "d = D(x[0])\nreturn d.prod() + d.b",
        "d = D(x[0], x[1])\ne = dataclasses.replace(d, b=x[2])\nreturn e.prod() * d.prod()",
        "d = D(x[0], x[1])\nd.a = x[2]\nreturn d.prod()",
        "p = Pt(x[0], x[1])\nreturn p.a * p.b + p[0]",
        "p = Pt(x[0], x[1])\nq = p._replace(a=x[2])\nreturn q.a * q.b + p.a",
        "a, b = Pt(x[0], x[1] * 2.0)\nreturn a * b",
        "p = Pt(a=x[0], b=x[1])\nreturn sum(p) * x[2]",
        "p = Pt(*x[:2])\nreturn p.a - p.b",
        "return np.sum(P(x))",
        "ms = [Scale(t) for t in x]\nreturn sum(m(2.0) for m in ms)",
        "f2 = S.times\nreturn f2(x[0]) * f2(x[1])",
        "return sum(map(S, x))",
        "return getattr(S, 'times')(x[0])",
]:
    _f("objects", _body, head=_CLASSES)

for _change in ["S.k = 5.0", "Scale.k = 7.0\nP.__dict__.pop('k', None)",
                "S.k = np.array([1.0, 2.0, 3.0])", "S.k = 1j"]:
    _add("object-changes", _CLASSES + '''

def f(x):
    return np.sum(S(x) * x) + np.sum(P.times(x))


def change():
''' + textwrap.indent(_change, "    ") + "\n")

_add("object-changes", _CLASSES + '''

def f(x):
    return np.sum(P(x) * x)


def change():
    Scale.k = Scale.k + 1.0
''')
_add("object-changes", _CLASSES + '''

def f(x):
    return np.sum(S(x) * x)


def change():
    Scale.__call__ = lambda self, t: t * t * self.k
''')

# what a call of an object or of its method runs, changed on the class between calls
_SUB = "\n\nclass Sub(Scale):\n    pass\n\n\nU = Sub(2.0)\n"
for _ret, _change in [
        ("np.sum(S(x) * x)", "Scale.__call__ = lambda self, t: t * t * self.k"),
        ("np.sum(U(x) * x)", "Scale.__call__ = lambda self, t: t * t * self.k"),
        ("np.sum(U(x) * x)", "Sub.__call__ = lambda self, t: np.sin(t) * self.k"),
        ("np.sum(S.times(x) * x)", "Scale.times = lambda self, t: t ** 3"),
        ("np.sum(U.times(x))", "Sub.times = lambda self, t: t ** 3"),
        ("np.sum(S(x)) * S.square", "Scale.square = property(lambda self: self.k ** 3)"),
        ("np.sum(S(x) * x)", "S.__class__ = Sub\nSub.__call__ = lambda self, t: t * t"),
        ("np.sum(Child().val(x))", "Base.val = lambda self, t: t ** 3"),
        ("np.sum(Child().val(x))", "Child.val = lambda self, t: np.cos(t)"),
]:
    _add("class-changes", _CLASSES + _SUB + f"""

def f(x):
    return {_ret}


def change():
""" + textwrap.indent(_change, "    ") + "\n")

# ----------------------------------------------------------------------------- higher-order
_PARTIAL = '''
def scaled(t, k=1.0, p=2.0):
    return k * t ** p


H = functools.partial(scaled, p=3.0)
'''
for _body in [
        "h = functools.partial(scaled, k=x[0])\nreturn h(x[1])",
        "h = functools.partial(scaled, x[0])\nreturn h(k=x[1])",
        "return H(x[0]) + H(x[1], k=x[2])",
        "h = functools.partial(scaled, p=3.0, k=2.0)\nreturn h(x[0], k=x[1])",
        "h = functools.partial(H, k=x[2])\nreturn h(x[0])",
        "return sum(map(functools.partial(scaled, k=x[0]), x))",
]:
    _f("partial", _body, head=_PARTIAL)

_HO = [
    "return sum(map(lambda t: t * t, x))",
    "return sum(list(map(np.sin, x)))",
    "return sum(map(math.sin, list(x)))",
    "return sum(map(operator.mul, x, x[::-1]))",
    "return sum(filter(lambda t: t > 0, x))",
    "return sum(t for t in filter(None, x * x))",
    "return sum(a * b for a, b in zip(x, x[::-1]))",
    "return sum(a * b for a, b in zip(x, [1.0, 2.0]))",
    "return sorted(x, key=lambda t: -t)[0] * x[0]",
    "return sorted(list(x))[1] * 2.0",
    "return sorted(x * x, reverse=True)[0]",
    "return min(x, key=abs) * 3.0",
    "return max(x, key=lambda t: t * t)",
    "return min(x[0], x[1], key=abs) + x[2]",
    "return max(list(x)) * min(list(x))",
    "return max(x[0], x[1], x[2] * 0.5)",
    "return min((t * t for t in x), default=0.0)",
    "return functools.reduce(lambda a, b: a * b, x)",
    "return functools.reduce(operator.add, x, 1.0) * x[0]",
    "return functools.reduce(lambda a, b: a * 0.5 + b, list(x))",
    "return sum(t * t for t in x)",
    "return sum([t ** 2 for t in x if t > 0])",
    "return sum(list(t ** 2 for t in x if t < 1.0))",
    "return sum(i * t for i, t in enumerate(x, start=1))",
    "return sum(i * t for i, t in enumerate(x, 2))",
    "return sum(a * b for a in x for b in x)",
    "return sum(a * b for a in x for b in x if a < b)",
    "return sum(sum(r) for r in [[a * b for a in x] for b in x])",
    "d = {i: t * t for i, t in enumerate(x)}\nreturn sum(d.values()) * d[1]",
    "d = {str(i): t for i, t in enumerate(x)}\nreturn d['0'] * d['2']",
    "d = {i: t for i, t in enumerate(x)}\nreturn d[max(d, key=d.get)]",
    "d = {i: t for i, t in enumerate(x)}\nreturn sum(v * k for k, v in d.items())",
    "return sum({t * 2.0 for t in x})",
    "return np.prod([t + 1.0 for t in x])",
    "return math.prod(x * 0.5 + 1.0)",
    "return math.fsum(t * t for t in x)",
    "return sum(reversed(x * [1.0, 2.0, 3.0]))",
    "return sum(x[i] * x[j] for i in range(3) for j in range(i))",
    "it = iter(x)\na = next(it)\nb = next(it)\nreturn a * b",
    "return sum(t for t in x if t > 0) * len([t for t in x if t > 0])",
    "return np.sum(np.array(list(map(lambda t: t * 2.0, x))) * x)",
    "return sum(x * w for w in range(3))[1]",
    "return np.sum(np.stack([t * x for t in x]))",
    "return sum(sorted(x, key=abs)[:2])",
    "gen = (t * t for t in x)\nfirst = next(gen)\nreturn first + sum(gen)",
    "return any(t > 1.0 for t in x) * x[0] + all(t > -5 for t in x) * x[1]",
]
for _body in _HO:
    _f("higher-order", _body)

_GEN = '''
def gen(a):
    for t in a:
        yield t * 2.0


def gen_from(a):
    yield from gen(a)
    yield a[0]


def pairs(a):
    for i in range(len(a) - 1):
        yield a[i], a[i + 1]
'''
for _body in [
        "return sum(gen(x))",
        "return sum(gen_from(x)) * x[1]",
        "return sum(a * b for a, b in pairs(x))",
        "return list(gen(x))[2] * x[0]",
        "return max(gen(x))",
]:
    _f("generators", _body, head=_GEN)

# ----------------------------------------------------------------------------- control flow
_CF = [
    "for t in x:\n    if t > 0.5:\n        return t * t\nreturn x[0]",
    "s = 0.0\nfor t in x:\n    if t < 0:\n        break\n    s = s + t * t\nelse:\n"
    "    s = s * 2.0\n"
    "return s",
    "s = 0.0\nfor t in x:\n    if t < 0:\n        continue\n    s = s + t * t\nreturn s",
    "s = x[0]\nfor t in x:\n    s = s * t\n    if s > 1.0:\n        break\nelse:\n"
    "    return -s\nreturn s",
    "i = 0\ns = x[0]\nwhile i < 5 and s < 10.0:\n    s = s * 1.5 + x[1]\n    i += 1\nreturn s",
    "i = 0\ns = x[2]\nwhile not (s > 3.0 or i >= 4):\n    s = s * s + 0.5\n    i += 1\nreturn s",
    "s = x[0]\nwhile True:\n    s = s * 0.5 + x[1]\n    if abs(s) < 1.0:\n        break\nreturn s",
    "i = 0\ns = 0.0\nwhile i < 3:\n    i += 1\n    if x[i - 1] < 0:\n        continue\n"
    "    s = s + x[i - 1]\n"
    "else:\n    s = s * x[0]\nreturn s",
    "try:\n    y = x * 2.0\nfinally:\n    z = 1.0\nreturn np.sum(y) * z",
    "try:\n    return np.sum(x * x)\nfinally:\n    pass",
    "try:\n    y = x[0] * x[1]\nexcept ZeroDivisionError:\n    y = 0.0\nreturn y",
    "try:\n    y = x[0] / 0.0 if False else x[0] * 2\nexcept Exception:\n    y = x[1]\nelse:\n"
    "    y = y * x[2]\nreturn y",
    "assert np.all(np.isfinite(x)), 'bad'\nreturn np.sum(x * x)",
    "assert x[0] < 100.0\nreturn x[0] * x[1]",
    "if -1.0 < x[0] < 1.0:\n    return x[0] * x[1]\nreturn x[2]",
    "if 0.0 < x[0] < x[2] <= 3.0:\n    return x[0] * x[1]\nreturn x[2] * x[2]",
    "return x[0] if x[1] > 0 else 2.0",
    "return 2.0 if x[1] > 0 else x[0] * x[2]",
    "return (x[0] if x[0] > x[1] else x[1]) * x[2]",
    "L = []\ny = (L.append(x[0]) or x[1]) if x[2] > 0 else x[0]\nreturn y + sum(L)",
    "c = x[0] > 0 and x[1] or x[2]\nreturn c * x[0]",
    "c = (x[0] > 0) + (x[1] > 0)\nreturn c * x[2]",
    "y = x[0] or x[1]\nreturn y * 2.0",
    "y = x[0] * 0.0 or x[1]\nreturn y * 2.0",
    "y = (x[0] > 1.0) and x[1]\nreturn y * 2.0 + x[2]",
    "if (y := x[0] * 2.0) > 0:\n    return y * y\nreturn y",
    "return sum(y for t in x if (y := t * t) > 0.1)",
    "for i in range(3):\n    for j in range(3):\n        if x[i] * x[j] > 1.5:\n"
    "            return x[i] * x[j]\n"
    "return x[0]",
    "s = 0.0\nfor i in range(3):\n    for j in range(3):\n        if j > i:\n            break\n"
    "        s = s + x[i] * x[j]\nreturn s",
    "n = 0\nfor t in x:\n    n += 1\n    if n == 2:\n        return t * x[0]\nreturn 0.0",
    "s = x[0]\nfor _ in range(int(abs(x[1]) * 3) + 1):\n    s = s * 0.9 + x[2]\nreturn s",
    "with np.errstate(all='ignore'):\n    y = x * x\nreturn np.sum(y)",
    "del_me = x * 2.0\ny = del_me + 1.0\ndel del_me\nreturn np.sum(y)",
    "y = x[0]\nif y > 0:\n    pass\nelif y > -1:\n    y = y * 2.0\nelse:\n    y = -y\n"
    "return y * x[1]",
    "match int(x[0] > 0):\n    case 1:\n        return x[0] * x[1]\n    case _:\n"
    "        return x[2]",
    "s = 0.0\nfor i, t in enumerate(x):\n    if i % 2:\n        continue\n    s = s + t ** 3\n"
    "return s",
    "k = 0\nwhile k < len(x) and x[k] > -1.0:\n    k += 1\nreturn x[k - 1] * x[0] if k else x[0]",
    "s = 0.0\nfor t in x:\n    try:\n        if t < 0:\n            raise ValueError\n"
    "        s = s + t\n"
    "    except ValueError:\n        s = s - t * t\nreturn s",
]
for _body in _CF:
    _f("control-flow", _body)

# ---------------------------------------------------------------------------------- numbers
_NUMBERS = [
    "v // 0.3 * w", "v % 0.7 * w", "(v * w) % 1.0", "divmod(v, 0.7)[1] * w",
    "divmod(w, 0.3)[0] * v",
    "math.floor(v) * w", "math.ceil(w) + v * w", "int(v * 3) * w", "int(w) + w", "float(v) * w",
    "bool(v > 0) * w", "True * v + False * w", "(v > 0) * v", "(v * v + 0.1) ** w", "abs(v) ** w",
    "w ** v",
    "2 ** v", "2.0 ** (v * w)", "v ** 2", "v ** 3 - v ** -2 * w", "pow(v, 2)", "pow(w, v)",
    "pow(abs(v), w)", "pow(v, 3, None) if False else pow(v, 3)", "round(v, 2) * w",
    "round(v * w, 1)", "round(w)", "abs(v) * w", "abs(v * w)", "abs(-v)", "min(v, w)",
    "max(v, w) * v", "min(v, 0.5)", "max(v, 0) * w", "max(0.0, v, w * 0.1)",
    "math.sin(v) + np.sin(w)", "math.sin(v) * np.cos(v)", "math.exp(v) - np.expm1(w)",
    "math.log(w, 2)", "math.log(w) - np.log2(w)", "math.log10(w) * math.log1p(w)",
    "math.hypot(v, w)", "math.atan2(v, w)", "math.pow(w, v)", "math.sqrt(w) * np.sqrt(w)",
    "math.fabs(v) * w", "math.copysign(w, v)", "math.copysign(v, -1.0)", "math.fmod(v, 0.4)",
    "math.trunc(v * 4) * w", "math.dist([v, w], [0.0, 1.0])", "math.fsum([v, w, v * w])",
    "math.prod([v, w, 2.0])", "math.tanh(v) * math.erf(w)", "math.gamma(w) + math.lgamma(w)",
    "math.degrees(v) + math.radians(w)", "math.cosh(v) / math.sinh(w)", "math.asinh(v) * w",
    "math.isclose(v, w) + v", "(v + 1j * w).real * w", "(v + 1j * w).imag * v",
    "abs(v + 1j * w)", "abs(complex(v, w))", "(complex(v, w) ** 2).real",
    "(complex(v, w) * complex(w, v)).imag", "complex(v, w).conjugate().imag * v",
    "np.abs(np.exp(1j * v)) * w", "np.angle(v + 1j * w)", "(v * w).real",
    "v.conjugate() * w", "operator.mul(v, w)", "operator.truediv(v, w)", "operator.neg(v) * w",
    "operator.pow(w, 2) * v", "sum([v, w], start=1.0) * v", "sum([v, w], 2.0) * w",
    "sum((v, w)) * v", "-v ** 2 * w", "(-v) ** 2 * w", "v / w // 1 + v / w", "1 / w - 1 // w",
    "v * 3 // 2 * w", "w.__mul__(v)", "v.__rtruediv__(w)", "w.__pow__(2)", "float.__add__(v, w)",
    "(v < w) * v + (v >= w) * w", "v if v > w else w", "int(v > w) * v + w",
    "np.float64(v) * w", "np.float32(w) * 1.0 + v", "np.int64(3) * v", "np.round(v, 1) * w",
    "np.floor(v) + np.ceil(v) * w", "np.sign(v) * w", "np.fmod(v, 0.4) * w", "np.remainder(v, 0.4)",
    "np.heaviside(v, 0.5) * w", "np.maximum(v, w)", "np.fmax(v, w) * v", "np.power(w, v)",
    "np.hypot(v, w) + np.arctan2(v, w)", "np.real(v + 1j * w) * w", "np.imag(v * 1j) * w",
    "np.clip(v, -0.5, 0.5) * w", "np.abs(v) + np.absolute(w)", "np.square(v) * np.cbrt(w)",
]
for _expr in _NUMBERS:
    _f("numbers-float", f"v = x\nw = x * 0.5 + 1.3\nreturn {_expr}", kind="s")
    _f("numbers-item", f"v = x[0]\nw = x[2] * 0.5 + 1.3\nreturn {_expr}")

# ------------------------------------------------------------------------- globals that change
_GLOBAL_CHANGES = [
    ("C = 3.0", "C = C + 1.0", "np.sum(x * C)"),
    ("C = 3.0", "C = np.array([1.0, 2.0, 3.0])", "np.sum(x * C)"),
    ("C = 3.0", "C = 2", "np.sum(x ** C)"),
    ("C = 3", "C = 2.5", "np.sum(x * C)"),
    ("C = np.array([1.0, 2.0, 3.0])", "C = np.ones((2, 3))", "np.sum(x * C)"),
    ("C = np.array([1, 2, 3])", "C = np.array([0.5, 1.5, 2.5])", "np.sum(x * C)"),
    ("C = np.array([1.0, 2.0, 3.0])", "C = C + 1j", "np.sum(np.abs(x * C))"),
    ("C = np.array([1.0, 2.0, 3.0])", "C[0] = 10.0", "np.sum(x * C)"),
    ("C = np.array([1.0, 2.0, 3.0])", "C *= 2.0", "np.sum(x * x * C)"),
    ("C = [1.0, 2.0, 3.0]", "C[1] = 5.0", "x[0] * C[1] + x[1] * C[0]"),
    ("C = [1.0, 2.0, 3.0]", "C.append(4.0)", "x[0] * len(C) + x[1] * C[-1]"),
    ("C = {'k': 2.0}", "C['k'] = 4.0", "np.sum(x * C['k'])"),
    ("C = {'k': 2.0}", "C['k'] = np.array([1.0, 0.0, 2.0])", "np.sum(x * C['k'])"),
    ("C = (1.0, 2.0)", "C = (3.0, 4.0, 5.0)", "x[0] * C[-1] + x[1] * len(C)"),
    ("C = True", "C = False", "np.sum(x * x) if C else np.sum(x)"),
    ("C = 1", "C = C + 1", "x[0] ** C * x[1]"),
    ("C = 2", "C = C % 3 + 1", "sum(x[i] * x[i] for i in range(C))"),
    ("C = 0.5", "C = None", "x[0] * (C if C is not None else 2.0)"),
    ("C = None", "C = 0.5", "x[0] * (C if C is not None else 2.0)"),
    ("C = 'sum'", "C = 'prod'", "np.sum(x * x) if C == 'sum' else np.prod(x)"),
    ("C = np.sin", "C = np.cos", "np.sum(C(x))"),
    ("C = math.sin", "C = math.exp", "C(x[0]) * x[1]"),
    ("C = np.float64(2.0)", "C = np.float32(3.0)", "np.sum(x * C)"),
    ("C = 2.0", "C = 1j", "np.sum(np.abs(x * C + 1.0))"),
]
for _init, _change, _ret in _GLOBAL_CHANGES:
    _add("global-changes", f'''
{_init}


def f(x):
    return {_ret}


def change():
    global C
    {_change}
''')

_add("function-redefined", '''
def h(t):
    return t * 2.0


def f(x):
    return np.sum(h(x))


def change():
    global h

    def h(t):
        return t * t
''')
_add("function-redefined", '''
def h(t):
    return t * 2.0


def f(x):
    return np.sum(h(x) * x)


def change():
    global h
    h = np.sin
''')
_add("function-redefined", '''
def h(t):
    return t * 2.0


def f(x):
    return np.sum(h(x) * x)


def change():
    h.__code__ = (lambda t: t * t * t).__code__
''')
_add("function-redefined", '''
def h(t):
    return t * 2.0


def g(t):
    return h(t) + t


def f(x):
    return np.sum(g(x) * x)


def change():
    global h
    h = lambda t: np.exp(t)
''')
_add("function-redefined", '''
class K:
    @staticmethod
    def h(t):
        return t * 2.0


def f(x):
    return np.sum(K.h(x) * x)


def change():
    K.h = staticmethod(lambda t: t ** 3)
''')
_add("defaults-changed", '''
def g(t, k=2.0):
    return t * k


def f(x):
    return np.sum(g(x) * x)


def change():
    g.__defaults__ = (g.__defaults__[0] + 3.0,)
''')
_add("defaults-changed", '''
def g(t, *, k=2.0):
    return t ** k


def f(x):
    return np.sum(g(x))


def change():
    g.__kwdefaults__ = {"k": g.__kwdefaults__["k"] + 1.0}
''')
_add("defaults-changed", '''
def f(x, k=2.0):
    return np.sum(x * k)


def change():
    f.__defaults__ = (np.array([1.0, 2.0, 3.0]),)
''')
_add("defaults-changed", '''
def g(t, ks=[]):
    ks.clear()
    ks.append(t)
    ks.append(t * t)
    return sum(ks)


def f(x):
    return g(x[0]) * x[1]
''')
_add("defaults-changed", '''
def g(t, k=np.array([1.0, 2.0, 3.0])):
    return t * k


def f(x):
    return np.sum(g(x) * x)


def change():
    g.__defaults__[0][1] = 9.0
''')
_add("global-write", '''
LAST = None


def f(x):
    global LAST
    LAST = x * 2.0
    return np.sum(LAST * x)
''')
_add("global-write", '''
LAST = [0.0]


def f(x):
    LAST[0] = x[0] * 2.0
    return LAST[0] * x[1]
''')
_add("global-write", '''
W = np.array([1.0, 2.0, 3.0])


def f(x):
    W[:] = x
    return np.sum(W * W)
''')


# --------------------------------------------- what a call runs, held in a container or object
_TABLES = '''
class Cfg:
    def __init__(self):
        self.act = np.tanh
        self.k = 2.0
        self.ks = [1.0, 2.0]


def scaled(t, k=1.0, p=2.0):
    return k * t ** p


OPS = {"a": np.sin, "b": np.exp}
FNS = [np.sin, np.exp]
CFG = Cfg()
H = functools.partial(scaled, p=2.0)


def cell():
    act = np.sin

    def g(t):
        return act(t)

    def set_act(h):
        nonlocal act
        act = h
    return g, set_act


G, SET_ACT = cell()
'''
for _ret, _change in [
        ("np.sum(OPS['a'](x))", "OPS['a'] = np.cos"),
        ("np.sum(OPS['a'](x) * x)", "OPS['a'] = lambda t: t ** 3"),
        ("sum(OPS[k](x[0]) for k in OPS)", "OPS['c'] = np.cos"),
        ("np.sum(FNS[0](x))", "FNS[0] = np.cos"),
        ("np.sum(FNS[-1](x) * x)", "FNS.append(np.sinh)"),
        ("sum(np.sum(h(x)) for h in FNS)", "FNS.append(np.sinh)"),
        ("np.sum(CFG.act(x))", "CFG.act = np.sin"),
        ("np.sum(CFG.act(x) * CFG.k)", "CFG.k = CFG.k + 1.0"),
        ("np.sum(x * CFG.ks[1])", "CFG.ks[1] = 7.0"),
        ("np.sum(x * CFG.ks[-1])", "CFG.ks = [3.0]"),
        ("np.sum(G(x))", "SET_ACT(np.cos)"),
        ("np.sum(H(x))", "H.keywords['p'] = 3.0"),
        ("np.sum(H(x, k=x))", "H.keywords['k'] = 5.0"),
        ("np.sum(H(x))", "H.__setstate__((scaled, (), {'p': 4.0}, None))"),
]:
    _add("table-changes", _TABLES + f"""

def f(x):
    return {_ret}


def change():
""" + textwrap.indent(_change, "    ") + "\n")


# --------------------------------------------------------------- more forms real code is made of
_MORE = """
import collections
import dataclasses
import itertools

LOG = []


def first(L):
    return L[0]


def gen_logged(a, log):
    for t in a:
        log.append(t)
        yield t * 2.0


def add_to(total, v):
    total[0] = total[0] + v
    return v * 2.0


def stash(v):
    LOG.append(v)
    return v * 3.0


class V:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __add__(self, o):
        return V(self.a + o.a, self.b + o.b)

    def __mul__(self, k):
        return V(self.a * k, self.b * k)

    __rmul__ = __mul__

    def __neg__(self):
        return V(-self.a, -self.b)

    def __getitem__(self, i):
        return (self.a, self.b)[i]

    def __len__(self):
        return 2

    def __iter__(self):
        return iter((self.a, self.b))

    def norm2(self):
        return self.a * self.a + self.b * self.b

    @classmethod
    def from_array(cls, a):
        return cls(a[0], a[1])

    @staticmethod
    def dot(u, v):
        return u.a * v.a + u.b * v.b


class Slot:
    __slots__ = ("w",)

    def __init__(self, w):
        self.w = w


class Temp:
    def __init__(self, c):
        self._c = c

    @property
    def c(self):
        return self._c

    @c.setter
    def c(self, v):
        self._c = v


@dataclasses.dataclass
class Box:
    a: float
    b: float
    area: float = 0.0

    def __post_init__(self):
        self.area = self.a * self.b


@functools.lru_cache(maxsize=None)
def cached_sq(t):
    return t * t


def twice(fn):
    @functools.wraps(fn)
    def wrapper(t):
        return 2.0 * fn(t)
    return wrapper


@twice
def sq(t):
    return t * t


K = 2.5


def with_default(t, k=K):
    return t * k
"""
for _body in [
        "total = [0.0]\ny = add_to(total, x[0] * x[1])\nreturn y + total[0] * x[2]",
        "LOG.clear()\ny = stash(x[0] * x[1])\nreturn y * LOG[-1]",
        "L = [x * 1.0, x * 2.0]\ny = first(L)\ny *= 2.0\nreturn np.sum(L[0] * x)",
        "L = [x[0], x[1]]\ny = first(L)\ny = y * 2.0\nreturn L[0] * y",
        "log = []\ns = sum(gen_logged(x, log))\nreturn s + log[1] * x[0]",
        "idx = max(range(3), key=lambda i: x[i])\nreturn x[idx] * x[0]",
        "pairs = [(x[0], 1.0), (x[1], 2.0), (x[2], 3.0)]\nreturn min(pairs, key=lambda p: p[1])[0]",
        "pairs = [(t, t * t) for t in x]\na, b = zip(*pairs)\nreturn sum(a) * sum(b)",
        "d = dict(zip('abc', x))\nreturn d['a'] * d['c']",
        "L = list(x)\nL.reverse()\nreturn L[0] * x[0]",
        "L = list(x)\nL.sort()\nreturn L[0] * L[2]",
        "L = list(x)\nL.sort(key=lambda t: -t)\nreturn L[0] * x[1]",
        "L = [x[0]]\nL.insert(0, x[1] * x[1])\nreturn L[0] * L[1]",
        "L = [x[0], x[1], x[2]]\ndel L[0]\nreturn L[0] * L[1]",
        "L = [x[0], x[1], x[2]]\nL[1:2] = [x[2] * 5.0]\nreturn L[1] * L[0]",
        "L = [x[0], x[1]]\nL *= 2\nreturn L[3] * L[0]",
        "L = [x[0], x[1]]\nL += [x[2] * x[2]]\nreturn L[2] * L[0]",
        "L = [x[0], x[1]]\nL.remove(L[0])\nreturn L[0] * 3.0",
        "d = {'a': x[0]}\nd.setdefault('b', x[1] * 2.0)\nreturn d['b'] * d['a']",
        "d = {'a': x[0]}\nd.update(b=x[1] * 2.0)\nreturn d['b'] * d['a']",
        "d = {'a': x[0]}\nd.update({'a': x[2]})\nreturn d['a'] * x[1]",
        "d = {'a': x[0]}\nreturn d.get('b', x[1]) * d.get('a', 0.0)",
        "d = {'a': x[0], 'b': x[1]}\nv = d.pop('a')\nreturn v * sum(d.values())",
        "d = {'a': x[0]}\nd |= {'b': x[1]}\nreturn d['a'] * d['b']",
        "d = collections.defaultdict(float)\nfor i, t in enumerate(x):\n    d[i % 2] += t * t\n"
        "return d[0] * d[1]",
        "d = collections.OrderedDict(a=x[0], b=x[1])\nreturn d['a'] * d['b']",
        "u = V(x[0], x[1]) + V(x[1], x[2])\nreturn u.a * u.b",
        "u = 2.0 * V(x[0], x[1])\nreturn u.norm2()",
        "u = -V.from_array(x)\nreturn V.dot(u, V(x[2], 1.0))",
        "u = V(x[0], x[2])\nreturn u[0] * u[1] + len(u)",
        "a, b = V(x[0], x[1] * 3.0)\nreturn a * b",
        "return sum(V(x[0], x[1])) * x[2]",
        "s = Slot(x[0])\nreturn s.w * x[1]",
        "t = Temp(x[0])\nt.c = x[1]\nreturn t.c * x[2]",
        "t = Temp(x[0])\nreturn t.c * x[2]",
        "b = Box(x[0], x[1])\nreturn b.area + b.a",
        "return cached_sq(x[0]) + cached_sq(x[1])",
        "return sq(x[0]) * x[1]",
        "return with_default(x[0]) + with_default(x[1], x[2])",
        "return sum(t * i for i, t in enumerate(reversed(x)))",
        "return sum(a * b for a, b in zip(x, x[1:]))",
        "return list(itertools.accumulate(x))[-1] * x[0]",
        "return list(itertools.accumulate(x, operator.mul))[-1]",
        "return sum(a * b for a, b in itertools.product(x, x))",
        "return sum(itertools.chain(x, [x[0] * 2.0]))",
        "return sum(a * b for a, b in itertools.pairwise(x))",
        "return sum(a * b for a, b in itertools.combinations(x, 2))",
        "return sum(x) * x[0]",
        "return max(x) * min(x)",
        "return np.sum(abs(x)) + abs(x[0])",
        "return round(x[0]) + x[1] * len(x)",
        "return sum(x.tolist()) * x[1]",
        "return x[1].item() * x[0]",
        "return float(np.sum(x)) * x[0]",
        "return list(x)[::-1][0] * x[1]",
        "return x.sum() * x.max() + x.min()",
        "return np.sum(x > 0) * x[0] + x[1] * (x[2] > 0)",
        "return np.sum(x.astype(int) * x)",
        "return np.sum(x // 1.0 + x % 1.0)",
        "try:\n    return 1.0 / x[0]\nexcept ZeroDivisionError:\n    return 0.0",
        "y = x.copy()\nfor i in range(len(y)):\n    y[i] = y[i] * y[i - 1]\nreturn np.sum(y)",
        "fs = [lambda t, a=x[0] * 2.0: t * a]\nreturn fs[0](x[1])",
        "def count():\n    n = 0\n    for t in x:\n        n += 1\n        yield t * n\n"
        "return sum(count())",
        "it = iter(x)\nnext(it)\nreturn sum(it) * x[0]",
        "a, *rest = x\nreturn a * sum(rest)",
        "*init, last = list(x)\nreturn last * init[0]",
        "(a, b), c = (x[0], x[1]), x[2]\nreturn a * b * c",
        "return np.sum([[t, t * t] for t in x])",
        "return np.dot(x, [t * 2.0 for t in x])",
        "return np.sum(np.array([x[0], 1.0, x[1]]) * x)",
        "return np.sum(np.array([[x[0]], [x[1]]]))",
]:
    _f("more-forms", _body, head=_MORE)
