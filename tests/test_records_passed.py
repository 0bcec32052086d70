"""Records (dataclasses, named tuples, registered classes) passed whole to a function of the
user's (issue 16; :mod:`srcad.frontend.passed_records`): ``loss(p, x)`` calling
``predict(p, x)`` calling ``layer(p.layer, x)``, for a ``wrt`` record (srcad.pytrees) and a
record built in the function (srcad.frontend.lower_records).

Every case is a module written to a file (srcad reads its source) and run twice: with NumPy
for srcad, with autograd.numpy for autograd on the same text (a function ``flat`` taking the
record's fields as one vector). Checked: ``grad`` (a record of gradients of the argument's
class), ``value_and_grad``, ``jvp``, the Hessian in both modes, against central finite
differences and autograd. The refusals name the user's file and line and give a hint.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from sampling import sample, sample_by
from srcad.check import numerical_grad

import srcad
from srcad import pytrees
from srcad.errors import MissingRuleError, SrcadError, UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")

HEAD = """\
from dataclasses import dataclass
from typing import NamedTuple


@dataclass
class DC:
    w: object
    b: object


class NT(NamedTuple):
    w: object
    b: object


@dataclass
class Net:
    l1: object
    l2: object
    k: object


class Plain:
    def __init__(self, w, b):
        self.w, self.b = w, b
"""

THETA = np.array([0.4, -0.7, 0.6])  # the fields w (two numbers) and b, as one vector
THETA7 = np.array([0.4, -0.7, 0.6, 0.3, 0.9, -0.2, 1.3])  # a Net's: l1.w, l1.b, l2.w, l2.b, k
X = np.array([0.8, -0.3])


def _load(source, tmp_path, numpy_name, tag=""):
    text = f"import {numpy_name} as np\n" + HEAD + textwrap.dedent(source)
    path = tmp_path / f"passed_{tag}{abs(hash((text, numpy_name)))}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.TEXT = text
    return module


def _vector(value):
    """A record, tuple or number of gradients as one vector (fields in order)."""
    return np.concatenate([np.ravel(np.asarray(leaf, dtype=float))
                           for leaf in pytrees.leaves(value)[0]])


def _matrix(hessian, sizes):
    """A Hessian given as a record (or tuple) of records (tuples) of blocks, as a matrix."""
    blocks = pytrees.leaves(hessian)[0]
    assert len(blocks) == len(sizes) ** 2
    rows = [np.concatenate([np.reshape(blocks[i * len(sizes) + j], (sizes[i], sizes[j]))
                            for j in range(len(sizes))], axis=1) for i in range(len(sizes))]
    return np.concatenate(rows, axis=0)


def _fd_hessian(grad_of_vector, theta, eps=1e-5):
    cols = [(grad_of_vector(theta + eps * e) - grad_of_vector(theta - eps * e)) / (2 * eps)
            for e in np.eye(len(theta))]
    return np.array(cols).T


def _check(source, tmp_path, kind, hessians=True, theta=THETA, sizes=None):
    """``source`` defines ``loss`` (for ``kind`` "wrt": ``loss(p, x)``, ``p`` a record; for
    "built": ``loss(theta, x)``, building the record of the fields ``theta``) and
    ``flat(theta, x)``, the same taking the fields as one vector, and ``ARGS(theta)``, the
    arguments of ``loss`` for those fields."""
    mod = _load(source, tmp_path, "numpy")
    ag = _load(source, tmp_path, "autograd.numpy", "ag")
    args = mod.ARGS(theta)
    wrt = 0
    value = mod.loss(*args)
    want = numerical_grad(mod.flat, (theta, X))
    np.testing.assert_allclose(autograd.grad(ag.flat)(theta, X), want, rtol=1e-6, atol=1e-8)
    assert np.linalg.norm(want) > 1e-3  # the case can fail: the gradient is not zero

    g = srcad.grad(mod.loss, wrt=wrt)(*args)
    if kind == "wrt":
        assert type(g) is type(args[0])  # a record of gradients of the argument's class
    np.testing.assert_allclose(_vector(g), want, rtol=1e-6, atol=1e-8)
    v, g2 = srcad.value_and_grad(mod.loss, wrt=wrt)(*args)
    np.testing.assert_allclose(v, value, rtol=1e-12)
    np.testing.assert_allclose(_vector(g2), want, rtol=1e-6, atol=1e-8)

    direction = np.resize([0.3, -0.5, 0.9], len(theta))
    tangents = mod.ARGS(direction)[:-1] + (np.zeros_like(X),)
    v, dot = srcad.jvp(mod.loss, args, tangents)
    np.testing.assert_allclose(v, value, rtol=1e-12)
    np.testing.assert_allclose(dot, want @ direction, rtol=1e-6, atol=1e-8)

    if not hessians:
        return
    sizes = sizes or ([2, 1] if kind == "wrt" else [3])
    ag_h = autograd.hessian(ag.flat)(theta, X)
    fd_h = _fd_hessian(lambda t: _vector(srcad.grad(mod.loss, wrt=wrt)(*mod.ARGS(t))), theta)
    np.testing.assert_allclose(ag_h, fd_h, rtol=1e-5, atol=1e-6)
    for mode in ("fwd", "rev"):
        h = srcad.hessian(mod.loss, wrt=wrt, mode=mode)(*args)
        if kind == "wrt":  # a record (of the argument's class) of records
            assert type(h) is type(args[0]) and type(pytrees.leaves(h)[0][0]) is not tuple
        np.testing.assert_allclose(_matrix(h, sizes), ag_h, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- the generated family

SHAPES = {  # the function at the end of the calls, reading the record p
    "reads": "return np.sum(np.tanh(p.w * x)) * p.b + p.b ** 2",
    "branch": "if p.b > 0:\n        return np.sum(p.w * x) * p.b\n"
              "    return np.sum(np.sin(p.w)) - p.b * np.sum(x * p.w)",
    "loop": "s = p.b\n    for i in range(3):\n        s = s * np.cos(p.w[i % 2]) + x[i % 2] * p.b\n"
            "    return s",
    "attributes": "n = p.w.shape[0]\n    return np.sum(p.w * x) / n + p.b * np.sum(p.w ** 2)",
    "unpacked": "w, b = p\n    return np.sum(w * x) * p[1] + p[-1] * np.sum(np.exp(w))",
}
KINDS = {  # (class, how loss gets the record)
    "dataclass": ("DC", "wrt"), "named tuple": ("NT", "wrt"),
    "dataclass built": ("DC", "built"), "named tuple built": ("NT", "built"),
    "dataclass built in place": ("DC", "in place"),
}


def _family_source(shape, cls, kind, depth):
    """``f1`` ... ``f{depth}``: each passes the record on (by position or by keyword) and
    reads a field; the last one has the ``shape``."""
    lines = []
    for k in range(1, depth):
        call = f"f{k + 1}(p, x * 0.9)" if k % 2 else f"f{k + 1}(x=x * 0.9, p=p)"
        lines.append(f"def f{k}(p, x):\n    return {call} + p.b * np.sum(x * p.w)\n\n")
    lines.append(f"def f{depth}(p, x):\n    {SHAPES[shape]}\n\n")
    if kind == "wrt":
        lines.append(f"def loss(p, x):\n    return f1(p, x) * 1.5\n\n"
                     f"def flat(theta, x):\n    return loss({cls}(theta[:2], theta[2]), x)\n\n"
                     f"def ARGS(theta):\n    return ({cls}(theta[:2], theta[2]), X)\n")
    else:
        body = (f"    p = {cls}(theta[:2], theta[2])\n    return f1(p, x) * 1.5\n"
                if kind == "built" else  # built as the argument
                f"    return f1({cls}(theta[:2], theta[2]), x) * 1.5\n")
        lines.append(f"def loss(theta, x):\n{body}\n"
                     f"def flat(theta, x):\n    return loss(theta, x)\n\n"
                     f"def ARGS(theta):\n    return (theta, X)\n")
    lines.append(f"X = np.array({X.tolist()})\n")
    return "\n".join(lines)


FAMILY = [(shape, kind, depth) for shape, kind, depth in itertools.product(
    SHAPES, KINDS, (1, 2, 3)) if shape != "unpacked" or KINDS[kind][0] == "NT"]


@pytest.mark.parametrize("shape, kind, depth", sample_by(FAMILY, lambda c: c[:2], 3))
def test_a_record_passed_through_calls(shape, kind, depth, tmp_path):
    cls, how = KINDS[kind]
    # Hessians (both modes) for the shallow cases and, deeper, every second one
    hessians = depth == 1 or FAMILY.index((shape, kind, depth)) % 2 == 0
    _check(_family_source(shape, cls, how, depth), tmp_path, how, hessians)


# ---------------------------------------------------------------- forms one by one

FORMS = {
    "nested records, a nested record passed on": ("wrt", """
        def layer(l, x):
            return np.tanh(np.sum(l.w * x) + l.b)

        def net(n, x):
            return layer(n.l2, x * layer(n.l1, x)) * n.k + n.l1.w[0] * n.l2.b

        def loss(n, x):
            return net(n, x) ** 2

        def build(theta):
            return Net(DC(theta[0:2], theta[2]), NT(theta[3:5], theta[5]), theta[6])

        def flat(theta, x):
            return loss(build(theta), x)

        def ARGS(theta):
            return (build(theta), X)
        """),
    "recursion": ("wrt", """
        def rec(p, n, x):
            if n == 0:
                return np.sum(p.w * x)
            return rec(p, n - 1, x) * p.b + np.sum(np.sin(p.w))

        def loss(p, x):
            return rec(p, 3, x)
        """),
    "a closure, a lambda": ("wrt", """
        def make(scale):
            def pred(p, x):
                return scale * np.sum(p.w * x) + p.b
            return pred

        pred = make(2.0)
        lam = lambda p, x: np.sum(p.w) * p.b * np.sum(x)

        def loss(p, x):
            return pred(p, x) * lam(p, x)
        """),
    "defaults of the function it is passed to": ("wrt", """
        def make(k):
            def pred(p, x, k=k, *, j=k * 2):
                return np.sum(np.sin(p.w * x)) * k + p.b ** 2 * j
            return pred

        pred = make(3.0)

        def loss(p, x):
            return pred(p, x) + pred(p, x, 1.0, j=0.5)
        """),
    "passed on in a lambda, a nested def, a generator expression": ("wrt", """
        def predict(p, t):
            return np.sum(np.sin(p.w * t)) * p.b

        def loss(p, x):
            g = lambda t: predict(p, t)

            def h(t):
                return predict(p, t) ** 2

            return g(x) + h(2 * x) + sum(predict(p, x * k) for k in range(3))
        """),
    "passed on in a lambda of the function it is passed to": ("wrt", """
        def predict(p, t):
            return np.sum(np.sin(p.w * t)) * p.b

        def mid(p, x):
            g = lambda t: predict(p, t) * p.b
            return g(x) + sum(predict(p, x * k) for k in range(2))

        def loss(p, x):
            return mid(p, x)
        """),
    "built, passed on in a lambda and a generator expression": ("built", """
        def predict(p, t):
            return np.sum(np.sin(p.w * t)) * p.b

        def loss(theta, x):
            p = DC(theta[:2], theta[2])
            g = lambda t: predict(p, t)
            return g(x) * sum(predict(p, x * k) for k in range(3))
        """),
    "two records, one record twice": ("wrt", """
        def combine(p, q, x):
            return np.sum(p.w * q.w * x) + p.b * q.b ** 2

        def loss(p, x):
            q = DC(p.w * 2.0, p.b + 1.0)
            return combine(p, q, x) + combine(p, p, x)
        """),
    "a keyword-only record": ("wrt", """
        def scaled(x, *, p, k=2.0):
            return k * np.sum(p.w * x) * p.b

        def loss(p, x):
            return scaled(x, p=p) + scaled(x, k=0.5, p=p)
        """),
    "a named tuple unpacked and indexed in the function": ("wrt", """
        def inner(p, x):
            return np.sum(p.w * x) * p.b

        def loss(p, x):
            w, b = p
            return inner(p, x) + np.sum(w ** 2) * b + p[1] * np.sum(p[0])
        """),
    "records built in place as arguments, one inside another": ("built", """
        def layer(l, x):
            return np.tanh(np.sum(l.w * x) + l.b)

        def net(n, x):
            return layer(n.l2, x * layer(n.l1, x)) * n.k

        def loss(theta, x):
            return net(Net(DC(theta[:2], theta[2]), NT(theta[:2] * 0.5, b=-theta[2]), 1.3),
                       x) ** 2
        """),
    "a named tuple built, unpacked and indexed, passed on": ("built", """
        def inner(p, x):
            return np.sum(p.w * x) * p[1]

        def loss(theta, x):
            p = NT(theta[:2], theta[2])
            w, b = p
            return inner(p, x) * b + np.sum(w * p[0]) * p[-1]
        """),
    "a record rebuilt in a loop, passed on": ("built", """
        def inner(p, x):
            return np.sum(p.w * x) * p.b

        def loss(theta, x):
            p = DC(theta[:2], theta[2])
            s = 0.0
            for i in range(2):
                s = s + inner(p, x)
                p = DC(p.w * s, p.b + 1.0)
            return s * inner(p, x)
        """),
    "a record passed on in a loop": ("built", """
        def inner(p, x):
            return np.sum(np.cos(p.w * x)) * p.b

        def loss(theta, x):
            p = NT(theta[:2], theta[2])
            s = 0.0
            for i in range(3):
                s = s * 0.5 + inner(p, x * (i + 1))
            return s
        """),
}


@pytest.mark.parametrize("name", sample(FORMS, 2))
def test_a_record_passed_on_in_this_form(name, tmp_path):
    kind, body = FORMS[name]
    source = textwrap.dedent(body)
    if "def ARGS" not in source:
        cls = "NT" if "unpacked" in name else "DC"
        source += (f"\n\ndef flat(theta, x):\n    return loss({cls}(theta[:2], theta[2]), x)\n"
                   f"\n\ndef ARGS(theta):\n    return ({cls}(theta[:2], theta[2]), X)\n"
                   if kind == "wrt" else
                   "\n\ndef flat(theta, x):\n    return loss(theta, x)\n"
                   "\n\ndef ARGS(theta):\n    return (theta, X)\n")
    source += f"\n\nX = np.array({X.tolist()})\n"
    nested = name.startswith("nested records")
    _check(source, tmp_path, kind, theta=THETA7 if nested else THETA,
           sizes=[2, 1, 2, 1, 1] if nested else None)
    if nested:  # the gradient is a Net of gradients, its nested records of their classes
        mod = _load(source, tmp_path, "numpy")
        g = srcad.grad(mod.loss)(*mod.ARGS(THETA7))
        assert type(g).__name__ == "Net" and type(g.l1).__name__ == "DC" and \
            type(g.l2).__name__ == "NT"


def _registered_plain(tmp_path):
    """A module whose ``loss`` passes a registered (non-dataclass) record on to ``inner``."""
    mod = _load("""
        def inner(r, x):
            return np.sum(np.tanh(r.w * x)) * r.b

        def loss(r, x):
            return inner(r, x) ** 2
        """, tmp_path, "numpy")
    srcad.register_pytree(mod.Plain, lambda r: {"w": r.w, "b": r.b},
                          lambda d: mod.Plain(d["w"], d["b"]))
    return mod


def test_a_registered_class_passed_on(tmp_path):
    mod = _registered_plain(tmp_path)
    g = srcad.grad(mod.loss)(mod.Plain(THETA[:2], THETA[2]), X)
    want = numerical_grad(lambda t: mod.loss(mod.Plain(t[:2], t[2]), X), (THETA,))
    assert type(g) is mod.Plain
    np.testing.assert_allclose(np.append(g.w, g.b), want, rtol=1e-6)


def test_clear_cache_forgets_the_copies(tmp_path):
    """srcad.clear_cache() frees the callees' copies too; the next gradient makes them again."""
    from srcad.frontend import passed_records

    mod = _registered_plain(tmp_path)
    point = mod.Plain(THETA[:2], THETA[2])
    before = srcad.grad(mod.loss)(point, X)
    assert mod.inner in passed_records._DERIVED
    srcad.clear_cache()
    assert mod.inner not in passed_records._DERIVED
    after = srcad.grad(mod.loss)(point, X)
    np.testing.assert_allclose(np.append(after.w, after.b), np.append(before.w, before.b))


def test_the_copy_is_made_again_when_a_callee_changes(tmp_path):
    """A name the copies read (the function called, the one it calls in turn, for a ``wrt``
    record and a record built in the function) means another function: new code."""
    mod = _load("""
        def inner(p, x):
            return np.sum(p.w * x) * p.b

        def other(p, x):
            return np.sum(p.w ** 2) * p.b

        def mid(p, x):
            return inner(p, x)

        def loss(p, x):
            return inner(p, x)

        def deep(p, x):
            return mid(p, x)

        def built(theta, x):
            return mid(DC(theta[:2], theta[2]), x)
        """, tmp_path, "numpy")
    p = mod.DC(THETA[:2], THETA[2])
    grads = [srcad.grad(mod.loss), srcad.grad(mod.deep)]
    built = srcad.grad(mod.built)
    for g in grads:
        np.testing.assert_allclose(g(p, X).w, X * THETA[2])
    np.testing.assert_allclose(built(THETA, X)[:2], X * THETA[2])
    mod.inner = mod.other  # the name now means another function: new code, not the old one
    for g in grads:
        np.testing.assert_allclose(g(p, X).w, 2 * THETA[:2] * THETA[2])
    np.testing.assert_allclose(built(THETA, X)[:2], 2 * THETA[:2] * THETA[2])


# ---------------------------------------------------------------- refusals

REFUSALS = [  # (callee body, the line refused (a marker in it), words of the message, hint)
    ("return p", "return p", "uses it whole", "read its fields there"),
    ("p.b = x[0]\n    return p.w[0]", "p.b = x[0]", "writing a field", "local name"),
    ("if isinstance(p, DC):\n        return p.b\n    return x[0]", "isinstance",
     "does not follow", "function of yours"),
    ("ps = [p]\n    return ps[0].b * x[0]", "ps = [p]", "uses it whole", "fields"),
    ("p = DC(x, x[0])\n    return p.b", "p = DC", "is assigned", "another name"),
    ("g = lambda p: p * 2.0\n    return g(p.b)", "lambda p", "nested function's parameter",
     "another name"),
    ("return np.sum(np.asarray(p)) * x[0]", "np.asarray(p)", "does not follow",
     "function of yours"),
    ("return helper(*[p, x])", "helper(*[p, x])", "uses it whole", "fields"),
    ("return q_default(x)", None, None, None),  # fine: no record passed (a control)
]


def _refusal_source(body, kind):
    text = ("@dataclass\nclass DC2:\n    w: object\n    b: object\n\n"
            "    def norm(self):\n        return self.w[0] ** 2\n\n"
            "    @property\n    def total(self):\n        return self.b * 2\n\n\n"
            "def helper(p, x):\n    return p.b * x[0]\n\n\n"
            "def q_default(x):\n    return x[0]\n\n\n"
            f"def callee(p, x):\n    {body}\n\n\n")
    if kind == "wrt":
        text += "def loss(p, x):\n    return callee(p, x) + p.b\n"
    else:
        text += "def loss(w, b, x):\n    p = DC2(w, b)\n    return callee(p, x) * p.b\n"
    return text.replace("DC(", "DC2(").replace("DC)", "DC2)")


@pytest.mark.parametrize("body, marker, words, hint", REFUSALS)
@pytest.mark.parametrize("kind", ["wrt", "built"])
def test_a_use_of_the_record_in_the_callee_is_refused(body, marker, words, hint, kind,
                                                      tmp_path):
    mod = _load(_refusal_source(body, kind), tmp_path, "numpy")
    args = (mod.DC2(THETA[:2], THETA[2]), X) if kind == "wrt" else (THETA[:2], THETA[2], X)
    wrt = 0 if kind == "wrt" else (0, 1)
    if marker is None:
        g = srcad.grad(mod.loss, wrt=wrt)(*args)
        assert _vector(g)[-1] == pytest.approx(1.0 if kind == "wrt" else X[0])
        return
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(mod.loss, wrt=wrt)(*args)
    err = info.value
    lines = mod.TEXT.splitlines()
    start = lines.index("def callee(p, x):")
    line = next(i for i, text in enumerate(lines[start + 1:], start + 2) if marker in text)
    assert err.lineno == line and err.filename == mod.__file__
    assert words in str(err) and hint in err.hint


def test_passed_to_a_function_srcad_does_not_follow_is_refused_where_it_is_passed(tmp_path):
    """A function-valued parameter (not looked up by its name: a global ``predict`` exists),
    and a record parameter with a default: refused at the call."""
    mod = _load("""
        def predict(p, x):
            return np.sum(p.w * x)

        def other(p, x):
            return p.b

        def defaulted(x, p=None):
            return np.sum(p.w * x)

        def loss(p, x, predict):
            return predict(p, x)

        def loss2(p, x):
            return defaulted(x, p)

        def built(w, b, x, predict):
            p = DC(w, b)
            return predict(p, x)
        """, tmp_path, "numpy")
    p = mod.DC(THETA[:2], THETA[2])
    for fn, args in ((mod.loss, (p, X, mod.other)), (mod.loss2, (p, X))):
        with pytest.raises(UnsupportedSyntaxError) as info:
            srcad.grad(fn)(*args)
        assert info.value.lineno == fn.__code__.co_firstlineno + 1
        assert "pass the record to a function of yours" in info.value.hint
    with pytest.raises(MissingRuleError) as info:
        srcad.grad(mod.built, wrt=(0, 1))(THETA[:2], THETA[2], X, mod.other)
    assert info.value.lineno == mod.built.__code__.co_firstlineno + 1
    assert "fields" in info.value.hint
    assert isinstance(info.value, SrcadError)


def test_a_constant_record_used_whole_by_the_callee_is_passed_as_it_is(tmp_path):
    """A record of constants built in the function (or as the argument), passed to a function
    that calls its method: the gradient w.r.t. ``x`` is exact; built of differentiated values,
    the method is followed too."""
    mod = _load("""
        @dataclass
        class Config:
            scale: float
            shift: float

            def apply(self, v):
                return self.scale * v + self.shift

        def model(cfg, x):
            return np.sum(cfg.apply(x) ** 2) * cfg.scale

        def loss(x):
            cfg = Config(2.0, 0.5)
            return model(cfg, x) + model(Config(1.0, -0.5), x)

        def active(x):
            cfg = Config(x[0], 0.5)
            return model(cfg, x)
        """, tmp_path, "numpy")
    g = srcad.grad(mod.loss)(X)
    np.testing.assert_allclose(g, numerical_grad(mod.loss, (X,)), rtol=1e-6)
    # built of differentiated values: the method is followed (tests/test_record_methods.py)
    g = srcad.grad(mod.active)(X)
    np.testing.assert_allclose(g, numerical_grad(mod.active, (X,)), rtol=1e-6)


def test_methods(tmp_path):
    """A bound method differentiated, passing the record to ``self.predict(p, x)`` (read on
    the object's class: a subclass's own), through another method, or to a static method
    called through its class: followed, against finite differences. The object holding an
    attribute of its own named like the method: the generated code stops (check_method). A
    method of an object srcad does not know (a parameter of the function): refused with the
    rewrite in the hint."""
    mod = _load("""
        class Model:
            def __init__(self, k):
                self.k = k

            @staticmethod
            def predict(p, x):
                return np.sum(np.tanh(p.w * x)) * p.b

            def static_loss(self, p, x):
                return Model.predict(p, x) ** 2 * self.k

            def self_loss(self, p, x):
                return self.predict(p, x) ** 2 + self.offset(p)

            def offset(self, q):
                return q.b * self.k


        class Sub(Model):
            def predict(self, p, x):
                return np.sum(np.sin(p.w * x)) * p.b ** 2


        def unknown(model, p, x):
            return model.predict(p, x)
        """, tmp_path, "numpy")
    p = mod.DC(THETA[:2], THETA[2])
    for obj in (mod.Model(1.5), mod.Sub(0.5)):
        for method in (obj.static_loss, obj.self_loss):
            g = srcad.grad(method)(p, X)
            want = numerical_grad(lambda t, f=method: f(mod.DC(t[:2], t[2]), X), (THETA,))
            assert type(g) is mod.DC
            np.testing.assert_allclose(np.append(g.w, g.b), want, rtol=1e-6)
    obj = mod.Model(1.5)
    made = srcad.grad(obj.self_loss)
    made(p, X)
    obj.predict = lambda p, x: 0.0  # Python would call this now: not the code made
    with pytest.raises(srcad.SrcadError, match="attribute 'predict' of its own"):
        made(p, X)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(mod.unknown, wrt=1)(obj, p, X)
    assert info.value.lineno == mod.unknown.__code__.co_firstlineno + 1
    assert "static method" in info.value.hint


def test_a_record_whose_field_is_written_is_not_passed_on(tmp_path):
    """``keep`` returns a function reading ``p.w`` when it is called, after the caller wrote
    the field: a copy taking the fields would read the old value. The record is not read
    field by field then, and the write is refused."""
    mod = _load("""
        def keep(p):
            return lambda t: np.sum(p.w * t)

        def loss(theta, x):
            p = DC(theta[:2], theta[2])
            g = keep(p)
            p.w = p.w * 2.0
            return g(x) * p.b
        """, tmp_path, "numpy")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(mod.loss)(THETA, X)
    assert info.value.lineno == mod.loss.__code__.co_firstlineno + 3
    assert "writing an attribute" in str(info.value) and "return the new value" in \
        info.value.hint
