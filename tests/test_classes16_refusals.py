"""What stays refused about objects of plain classes built from differentiated values.

Each case is a class and a function ``f(w, x)`` building an object of it from ``w``; the
refusal is a ``SrcadError`` of the stated class at the line marked ``# <-`` (in the class,
its ``__init__``, or the function), with words of the hint. A class srcad cannot prove the
attributes of (``__init__`` setting different attributes on different paths, first in a
loop, calling methods of ``self``), one whose attribute storage or lookup is changed
(``__slots__``, ``__setattr__``, ``__getattr__``, ``__new__``, a metaclass, a descriptor), one
inheriting from a built-in or C class, attributes written after ``__init__`` (in a method or
from outside), and an object used whole (returned, stored in a list, a dict key, built
inside an expression): never a wrong gradient.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import srcad
from srcad.errors import MissingRuleError, SrcadError, UnsupportedSyntaxError, WrtError

USE = "\n\ndef f(w, x):\n    o = C(w)\n    return np.sum(o.out(x))\n"

CASES = {
    "paths_differ": ("class C:\n    def __init__(self, w, flag=True):  # <-\n"
                     "        if flag:\n            self.w = w\n        self.b = 1.0\n\n"
                     "    def out(self, x):\n        return self.w * x\n" + USE,
                     MissingRuleError, "on every path"),
    "first_in_loop": ("class C:\n    def __init__(self, w):\n        for v in [w, w]:  # <-\n"
                      "            self.w = v\n\n    def out(self, x):\n"
                      "        return self.w * x\n" + USE, MissingRuleError, "before the loop"),
    "calls_a_method": ("class C:\n    def __init__(self, w):\n"
                       "        self.w = self.scale(w)  # <-\n\n    def scale(self, w):\n"
                       "        return 2.0 * w\n\n    def out(self, x):\n"
                       "        return self.w * x\n" + USE, MissingRuleError,
                       "function of yours"),
    "read_before_set": ("class C:\n    def __init__(self, w):\n"
                        "        self.b = self.w  # <-\n        self.w = w\n\n"
                        "    def out(self, x):\n        return self.w * x\n" + USE,
                        MissingRuleError, "before reading it"),
    "self_passed_on": ("def setup(obj, w):\n    return w\n\n\nclass C:\n"
                       "    def __init__(self, w):\n        self.w = setup(self, w)  # <-\n\n"
                       "    def out(self, x):\n        return self.w * x\n" + USE,
                       MissingRuleError, "not self"),
    "writes_into_attribute": ("class C:\n    def __init__(self, w):\n        self.w = [w]\n"
                              "        self.w[0] = w * 2.0  # <-\n\n    def out(self, x):\n"
                              "        return self.w[0] * x\n" + USE, MissingRuleError,
                              "assign it whole"),
    "try_statement": ("class C:\n    def __init__(self, w):\n        try:  # <-\n"
                      "            self.w = w\n        except ValueError:\n"
                      "            self.w = 0.0\n\n    def out(self, x):\n"
                      "        return self.w * x\n" + USE, MissingRuleError, "dataclass"),
    "slots": ("class C:  # <-\n    __slots__ = ('w',)\n\n    def __init__(self, w):\n"
              "        self.w = w\n\n    def out(self, x):\n        return self.w * x\n" + USE,
              MissingRuleError, "remove __slots__"),
    "setattr": ("class C:  # <-\n    def __init__(self, w):\n        self.w = w\n\n"
                "    def __setattr__(self, k, v):\n        object.__setattr__(self, k, v)\n\n"
                "    def out(self, x):\n        return self.w * x\n" + USE,
                MissingRuleError, "remove __setattr__"),
    "getattr": ("class C:  # <-\n    def __init__(self, w):\n        self.w = w\n\n"
                "    def __getattr__(self, k):\n        return 1.0\n\n"
                "    def out(self, x):\n        return self.w * x\n" + USE,
                MissingRuleError, "remove __getattr__"),
    "new": ("class C:  # <-\n    def __new__(cls, *args):\n        return object.__new__(cls)\n\n"
            "    def __init__(self, w):\n        self.w = w\n\n"
            "    def out(self, x):\n        return self.w * x\n" + USE,
            MissingRuleError, "remove __new__"),
    "metaclass": ("class Meta(type):\n    pass\n\n\nclass C(metaclass=Meta):  # <-\n"
                  "    def __init__(self, w):\n        self.w = w\n\n"
                  "    def out(self, x):\n        return self.w * x\n" + USE,
                  MissingRuleError, "drop the metaclass"),
    "descriptor": ("import functools\n\n\nclass C:  # <-\n"
                   "    k = functools.cached_property(lambda self: 2.0)\n\n"
                   "    def __init__(self, w):\n        self.w = w\n\n"
                   "    def out(self, x):\n        return self.w * x\n" + USE,
                   MissingRuleError, "property or a method"),
    "builtin_base": ("class C(dict):  # <-\n    def __init__(self, w):\n        self.w = w\n\n"
                     "    def out(self, x):\n        return self.w * x\n" + USE,
                     MissingRuleError, "in an attribute"),
    "ndarray_base": ("class C(np.ndarray):  # <-\n    def __new__(cls, w):\n"
                     "        return np.asarray(w).view(cls)\n\n    def __init__(self, w):\n"
                     "        self.w = w\n\n    def out(self, x):\n        return self.w * x\n"
                     + USE, MissingRuleError, "make C a dataclass"),
    "super_in_a_method": ("class B:\n    def __init__(self, w):\n        self.w = w\n\n"
                          "    def out(self, x):\n        return self.w * x\n\n\n"
                          "class C(B):  # <-\n    def out(self, x):\n"
                          "        return super().out(x) * 2.0\n" + USE, MissingRuleError,
                          "B.out(self, ...)"),
    "set_in_a_method": ("class C:\n    def __init__(self, w):\n        self.w = w\n\n"
                        "    def out(self, x):\n        self.y = x  # <-\n"
                        "        return self.w * x\n" + USE, UnsupportedSyntaxError,
                        "return it"),
    "class_attribute_of_a_dataclass_in_a_method": (
        "from dataclasses import dataclass\n\n\n@dataclass\nclass C:\n    w: object\n"
        "    K = 2.0\n\n    def out(self, x):\n        return self.w * x * self.K  # <-\n"
        + USE, UnsupportedSyntaxError, "C.K"),
    "set_from_outside": ("class C:\n    def __init__(self, w):\n        self.w = w\n\n"
                         "    def out(self, x):\n        return self.w * x\n\n\n"
                         "def f(w, x):\n    o = C(w)\n    o.w = 2.0 * w  # <-\n"
                         "    return np.sum(o.out(x))\n", UnsupportedSyntaxError,
                         "return the new value"),
    "returned": ("class C:\n    def __init__(self, w):\n        self.w = w\n\n"
                 "    def out(self, x):\n        return self.w * x\n\n\n"
                 "def f(w, x):\n    o = C(w)\n    return np.sum(o.out(x)), o  # <-\n",
                 MissingRuleError, "do not return it"),
    "list_returned": ("class C:\n    def __init__(self, w):\n        self.w = w\n\n"
                      "    def out(self, x):\n        return self.w * x\n\n\n"
                      "def f(w, x):\n    os = [C(w * i) for i in range(2)]\n"
                      "    return np.sum(os[0].out(x)), os  # <-\n",
                      MissingRuleError, "item = os[k]"),
    "built_in_a_branch_of_an_expression": (
        "class C:\n    def __init__(self, w):\n        self.w = w\n\n"
        "    def out(self, x):\n        return self.w * x\n\n\n"
        "def f(w, x):\n    return np.sum((C(w) if w[0] > 0 else C(-w)).out(x))  # <-\n",
        MissingRuleError, "name it"),
    "item_of_a_list_written": (
        "from dataclasses import dataclass\n\n\n@dataclass\nclass C:\n    w: object\n\n"
        "    def out(self, x):\n        return self.w * x\n\n\n"
        "def f(w, x):\n    os = []\n    for i in range(3):\n        os.append(C(w * i))\n"
        "    for o in os:\n        o.w = o.w * 2.0  # <-\n    s = 0.0\n    for o in os:\n"
        "        s = s + np.sum(o.out(x))\n    return s\n",
        UnsupportedSyntaxError, "return the new value"),
    "item_of_a_list_aliased": (
        "class C:\n    def __init__(self, w):\n        self.w = w * 2.0\n\n"
        "    def out(self, x):\n        return self.w * x\n\n\n"
        "def f(w, x):\n    os = [C(w * k) for k in range(2)]\n    s = 0.0\n"
        "    for o in os:\n        d = o  # <-\n        s = s + np.sum(d.out(x))\n"
        "    return s\n", MissingRuleError, "name it"),
    "decorated_init": (
        "import functools\n\n\ndef deco(f):\n    @functools.wraps(f)\n"
        "    def inner(self, *args):\n        f(self, *args)\n        self.k = 2.0\n"
        "    return inner\n\n\nclass C:  # <-\n    @deco\n    def __init__(self, w):\n"
        "        self.w = w\n\n    def out(self, x):\n        return self.w * x * self.k\n"
        + USE, MissingRuleError, "drop the decorator"),
    "bound_to_objects_of_two_classes": (
        "class C:\n    def __init__(self, w):\n        self.w = w\n\n"
        "    def out(self, x):\n        return self.w * x\n\n\n"
        "class D(C):\n    pass\n\n\n"
        "def f(w, x):\n    if x[0] > 0:\n        o = C(w)  # <-\n    else:\n"
        "        o = D(w)\n    return np.sum(o.out(x))\n", MissingRuleError, "name it"),
    "dict_key": ("class C:\n    def __init__(self, w):\n        self.w = w\n\n"
                 "    def __eq__(self, other):\n        return True\n\n"
                 "    def __hash__(self):\n        return 1\n\n"
                 "    def out(self, x):\n        return self.w * x\n\n\n"
                 "def f(w, x):\n    o = C(w)\n    d = {o: 2.0}  # <-\n"
                 "    return np.sum(o.out(x)) * d[o]\n", SrcadError, ""),
}


def _module(tmp_path, stem, text):
    path = tmp_path / f"{stem}.py"
    path.write_text("import numpy as np\n\n\n" + text)
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    marked = [i for i, line in enumerate(path.read_text().splitlines(), 1) if "# <-" in line]
    return module, marked[0] if marked else None


W = np.array([0.3, -0.6, 0.9])
X = np.array([0.4, -0.7, 1.1])


@pytest.mark.parametrize("case", list(CASES))
def test_refused_at_the_line_with_a_rewrite(tmp_path, case):
    text, kind, words = CASES[case]
    m, line = _module(tmp_path, f"pr_{case}", text)
    with pytest.raises(kind) as info:
        srcad.grad(m.f)(W.copy(), X.copy())
    assert info.value.lineno == line, str(info.value)
    assert words in (info.value.hint or ""), str(info.value)


#: refused until session 24, exact since (objects built and used in one expression after a
#: NumPy call, a tuple of objects a helper returns, a generator over a list of objects after a
#: call: tests/test_outside24_object_tuples.py holds their families)
NOW_EXACT = {
    "built_after_a_call_in_an_expression":
        "def f(w, x):\n    return np.sum(np.sin(w)) + np.sum(C(w).out(x))\n",
    "tuple_of_objects_returned_by_a_helper_used_whole":
        "def two(w):\n    return C(w), C(2.0 * w)\n\n\n"
        "def f(w, x):\n    ab = two(w)\n    return np.sum(ab[0].out(x)) * len(ab)\n",
    "list_read_by_a_generator_after_a_call":
        "def f(w, x):\n    os = []\n    for i in range(2):\n        os.append(C(w * i))\n"
        "    return np.sum(np.sin(x)) + sum(np.sum(o.out(x)) for o in os)\n",
}


@pytest.mark.parametrize("case", list(NOW_EXACT))
def test_former_refusals_are_exact(tmp_path, case):
    text = ("class C:\n    def __init__(self, w):\n        self.w = w\n\n"
            "    def out(self, x):\n        return self.w * x\n\n\n" + NOW_EXACT[case])
    m, _ = _module(tmp_path, f"pr_now_{case}", text)
    got = srcad.grad(m.f)(W.copy(), X.copy())
    h = 1e-6
    want = [(m.f(W + h * e, X) - m.f(W - h * e, X)) / (2 * h) for e in np.eye(len(W))]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_an_unregistered_plain_object_as_wrt_says_how_to_register(tmp_path):
    text = ("class Lin:\n    def __init__(self, w, b):\n        self.w = w\n        self.b = b\n\n"
            "    def out(self, x):\n        return np.tanh(self.w * x + self.b)\n\n\n"
            "def f(p, x):\n    return np.sum(p.out(x))\n")
    m, _ = _module(tmp_path, "pr_wrt", text)
    with pytest.raises(WrtError) as info:
        srcad.grad(m.f)(m.Lin(W.copy(), 0.5), X.copy())
    assert "not a pytree" in str(info.value)
    assert 'srcad.register_pytree(Lin, lambda o: {"w": o.w, "b": o.b}, lambda d: Lin(**d))' \
        in info.value.hint
    srcad.register_pytree(m.Lin, lambda o: {"w": o.w, "b": o.b}, lambda d: m.Lin(**d))
    g = srcad.grad(m.f)(m.Lin(W.copy(), 0.5), X.copy())
    assert type(g) is m.Lin
    t = np.tanh(W * X + 0.5)
    np.testing.assert_allclose(g.w, (1 - t ** 2) * X, rtol=1e-12)
    assert g.b == pytest.approx(float(np.sum(1 - t ** 2)), rel=1e-12)
