"""Containers of records as ``wrt`` arguments (issue 16; :mod:`srcad.frontend.passed_trees`):
a list, tuple or dict of dataclasses, named tuples or registered classes, alone or inside a
record (``p.layers``), inside a dict (``d["net"].layers``), read by index, by iterating, by
unpacking, through a name, passed whole to functions of the user's.

Every case is a module written to a file (srcad reads its source) and loaded twice: with NumPy
for srcad, with autograd.numpy for autograd on the same text (``flat(theta, x)`` builds the
argument from one vector and calls the function: autograd follows the records as Python
objects). Checked: ``grad`` (the same structure as the argument, each record of its class),
``value_and_grad``, ``jvp`` with a tangent of the same structure, and for some cases the
Hessian in both modes, against central finite differences and autograd. The refusals name the
user's file and line and give a hint.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from sampling import sample_by

import srcad
from srcad.errors import MutationError, SrcadError, UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")

HEAD = """\
import dataclasses
from typing import NamedTuple

import srcad


@dataclasses.dataclass
class DL:
    w: object
    b: object


class NL(NamedTuple):
    w: object
    b: object


class RL:
    def __init__(self, w, b):
        self.w, self.b = w, b


srcad.register_pytree(RL, lambda r: {"w": r.w, "b": r.b}, lambda f: RL(f["w"], f["b"]))


@dataclasses.dataclass
class Net:
    layers: object
    scale: object


def lin(l, x):
    return np.tanh(l.w @ x + l.b)


def forward_seq(layers, x):
    for layer in layers:
        x = np.tanh(layer.w @ x + layer.b)
    return x


def forward_dict(layers, x):
    for layer in layers.values():
        x = np.tanh(layer.w @ x + layer.b)
    return x


def forward_net(p, x):
    for layer in {PVALUES}:
        x = lin(layer, x)
    return np.sum(x) * p.scale

"""

X = np.array([0.8, -0.3])

# ---------------------------------------------------------------- the generated family

FORMS = {  # the body of loss; {L}: the container, {K0}, {K1}: its keys, {S}: the scale
    "index": """
        x = np.tanh({L}[{K0}].w @ x + {L}[{K0}].b)
        x = np.tanh({L}[{K1}].w @ x + {L}[{K1}].b)
        return np.sum(x) * {S}""",
    "loop": """
        for layer in {VALUES}:
            x = np.tanh(layer.w @ x + layer.b)
        return np.sum(x) * {S}""",
    "enumerate": """
        for i, layer in {ITEMS}:
            x = np.tanh(layer.w @ x + layer.b) * ({C})
        return np.sum(x) * {S}""",
    "zip": """
        for layer, c in zip({VALUES}, (1.5, 0.5)):
            x = np.tanh(layer.w @ x + layer.b) * c
        return np.sum(x) * {S}""",
    "range": """
        for i in range(len({L})):
            x = np.tanh({L}[i].w @ x + {L}[i].b)
        return np.sum(x) * {S}""",
    "alias": """
        l0 = {L}[{K0}]
        l1 = {L}[{K1}]
        x = np.tanh(l0.w @ x + l0.b)
        x = np.tanh(l1.w @ x + l1.b)
        return np.sum(x) * {S}""",
    "callee": """
        x = lin({L}[{K0}], x)
        l1 = {L}[{K1}]
        x = lin(l1, x)
        return np.sum(x) * {S}""",
    "container to callee": """
        x = {FWD}({L}, x)
        return np.sum(x) * {S}""",
    "unpack": """
        for w, b in {VALUES}:
            x = np.tanh(w @ x + b)
        return np.sum(x) * {S}""",
    "record to callee": """
        return forward_net({P}, x)""",
}
CONTAINERS = {  # (build from a list of two records, {K0}, {K1})
    "list": ("ls", "0", "1"),
    "tuple": ("tuple(ls)", "0", "-1"),
    "dict": ('{"a": ls[0], "b": ls[1]}', '"a"', '"b"'),
}
RECORDS = ("DL", "NL", "RL")
DEPTHS = {  # (the argument built, the container read, the record holding it, the scale)
    1: ("layers", "p", None, "1.0"),
    2: ("Net(layers, theta[12])", "p.layers", "p", "p.scale"),
    3: ('{"net": Net(layers, theta[12])}', 'p["net"].layers', 'p["net"]', 'p["net"].scale'),
}


def _source(container, record, form, depth):
    build, k0, k1 = CONTAINERS[container]
    made, read, holder, scale = DEPTHS[depth]
    seq = container != "dict"
    body = textwrap.dedent(FORMS[form]).strip("\n").format(
        L=read, K0=k0, K1=k1, S=scale, P=holder,
        VALUES=read if seq else f"{read}.values()",
        ITEMS=f"enumerate({read})" if seq else f"{read}.items()",
        C="i + 1.0" if seq else '1.0 if i == "a" else 2.0',
        FWD="forward_seq" if seq else "forward_dict")
    head = HEAD.replace("{PVALUES}", "p.layers" if seq else "p.layers.values()")
    return head + (
        "def loss(p, x):\n" + textwrap.indent(body, "    ") + "\n\n\n"
        f"def build(theta):\n"
        f"    ls = [{record}(np.reshape(theta[6 * k:6 * k + 4], (2, 2)), "
        f"theta[6 * k + 4:6 * k + 6]) for k in range(2)]\n"
        f"    layers = {build}\n"
        f"    return {made}\n\n\n"
        f"def flat(theta, x):\n    return loss(build(theta), x)\n")


def _applies(container, record, form, depth):
    if form == "unpack":
        return record == "NL"
    if form == "range":
        return container != "dict"
    if form == "record to callee":
        return depth > 1
    return True


FAMILY = [case for case in itertools.product(CONTAINERS, RECORDS, FORMS, DEPTHS)
          if _applies(*case)]


def _load(text, tmp_path, numpy_name):
    text = f"import {numpy_name} as np\n" + text
    path = tmp_path / f"trees_{numpy_name.replace('.', '_')}_{abs(hash(text))}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _leaves(value):
    """The test's own flattening: dict values in order, fields in declaration order."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if dataclasses.is_dataclass(value):
        return [leaf for f in dataclasses.fields(value) for leaf in
                _leaves(getattr(value, f.name))]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    if type(value).__name__ == "RL":
        return _leaves(value.w) + _leaves(value.b)
    return [value]


def _vector(value):
    return np.concatenate([np.ravel(np.asarray(leaf, dtype=float)) for leaf in _leaves(value)])


def _same_structure(got, like, shapes=True):
    """``got`` has ``like``'s structure: the same containers, keys and record classes (and
    leaves of the same shapes)."""
    if not _leaves(like) == [like]:
        assert type(got) is type(like), (type(got), type(like))
    if isinstance(like, dict):
        assert list(got) == list(like)
        for k in like:
            _same_structure(got[k], like[k], shapes)
    elif dataclasses.is_dataclass(like):
        for f in dataclasses.fields(like):
            _same_structure(getattr(got, f.name), getattr(like, f.name), shapes)
    elif isinstance(like, (list, tuple)):
        assert len(got) == len(like)
        for a, b in zip(got, like):
            _same_structure(a, b, shapes)
    elif type(like).__name__ == "RL":
        _same_structure(got.w, like.w, shapes)
        _same_structure(got.b, like.b, shapes)
    elif shapes:
        assert np.shape(got) == np.shape(like)


def _fd_grad(f, theta, eps=1e-6):
    return np.array([(f(theta + eps * e) - f(theta - eps * e)) / (2 * eps)
                     for e in np.eye(len(theta))])


def _hessian_matrix(h, like):
    """A Hessian shaped like ``like`` of things shaped like ``like`` (blocks of shape
    leaf + leaf), as a matrix."""
    outer = _leaves_like(h, like)
    sizes = [np.size(leaf) for leaf in _leaves(like)]
    rows = []
    for block_tree, size in zip(outer, sizes):
        blocks = _leaves(block_tree)
        rows.append(np.concatenate([np.reshape(b, (size, s)) for b, s in zip(blocks, sizes)],
                                   axis=1))
    return np.concatenate(rows, axis=0)


def _leaves_like(value, like):
    """``value``'s parts at the places of ``like``'s leaves."""
    if isinstance(like, dict):
        return [p for k in like for p in _leaves_like(value[k], like[k])]
    if dataclasses.is_dataclass(like):
        return [p for f in dataclasses.fields(like) for p in
                _leaves_like(getattr(value, f.name), getattr(like, f.name))]
    if isinstance(like, (list, tuple)):
        return [p for v, lk in zip(value, like) for p in _leaves_like(v, lk)]
    if type(like).__name__ == "RL":
        return _leaves_like(value.w, like.w) + _leaves_like(value.b, like.b)
    return [value]


def _theta(depth):
    rng = np.random.default_rng(7)
    return rng.normal(size=12 if depth == 1 else 13) * 0.7


@pytest.mark.parametrize("container, record, form, depth", sample_by(FAMILY, lambda c: c[:2], 10))
def test_a_container_of_records(container, record, form, depth, tmp_path):
    hessians = FAMILY.index((container, record, form, depth)) % 7 == 0
    _check(_source(container, record, form, depth), tmp_path, _theta(depth), hessians)


def _check(text, tmp_path, theta, hessians):
    """``text`` defines ``loss(p, x)``, ``build(theta)`` (its ``p`` from one vector) and
    ``flat(theta, x)``; srcad's derivatives of ``loss`` against FD and autograd's of ``flat``."""
    mod = _load(text, tmp_path, "numpy")
    ag = _load(text, tmp_path, "autograd.numpy")
    p = mod.build(theta)
    want = _fd_grad(lambda t: mod.flat(t, X), theta)
    assert np.linalg.norm(want) > 1e-3
    np.testing.assert_allclose(autograd.grad(ag.flat)(theta, X), want, rtol=1e-6, atol=1e-8)

    g = srcad.grad(mod.loss)(p, X)
    _same_structure(g, p)
    np.testing.assert_allclose(_vector(g), want, rtol=1e-6, atol=1e-8)
    v, g2 = srcad.value_and_grad(mod.loss)(p, X)
    np.testing.assert_allclose(v, mod.loss(p, X), rtol=1e-12)
    _same_structure(g2, p)
    np.testing.assert_allclose(_vector(g2), want, rtol=1e-6, atol=1e-8)
    gx = srcad.grad(mod.loss, wrt=(0, 1))(p, X)  # with x too
    np.testing.assert_allclose(_vector(gx[0]), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gx[1], autograd.grad(ag.flat, 1)(theta, X), rtol=1e-6,
                               atol=1e-8)
    _, pullback = srcad.vjp(mod.loss, p, X)
    np.testing.assert_allclose(_vector(pullback(1.0)[0]), want, rtol=1e-6, atol=1e-8)

    direction = np.resize([0.3, -0.5, 0.9, 0.2], len(theta))
    v, dot = srcad.jvp(mod.loss, (p, X), (mod.build(direction), np.zeros_like(X)))
    np.testing.assert_allclose(v, mod.loss(p, X), rtol=1e-12)
    np.testing.assert_allclose(dot, want @ direction, rtol=1e-6, atol=1e-8)

    if hessians:
        ag_h = autograd.hessian(ag.flat)(theta, X)
        for mode in ("fwd", "rev"):
            h = srcad.hessian(mod.loss, wrt=0, mode=mode)(p, X)
            _same_structure(_leaves_like(h, p)[0], p, shapes=False)
            np.testing.assert_allclose(_hessian_matrix(h, p), ag_h, rtol=1e-6, atol=1e-8)
        jac = srcad.jacobian(mod.loss)(p, X)
        _same_structure(jac, p)
        np.testing.assert_allclose(_vector(jac), want, rtol=1e-6, atol=1e-8)
        hv = srcad.hvp(mod.loss, (p, X), mod.build(direction))
        _same_structure(hv, p)
        np.testing.assert_allclose(_vector(hv), ag_h @ direction, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- forms one by one

BUILD_LIST = """
def build(theta):
    return [DL(np.reshape(theta[6 * k:6 * k + 4], (2, 2)), theta[6 * k + 4:6 * k + 6])
            for k in range(2)]
"""
BUILD_NT = BUILD_LIST.replace("DL(", "NL(")
ONE_BY_ONE = {  # loss(p, x) and build(theta), for 12 numbers
    "a generator summed": """
def loss(p, x):
    return sum(np.sum(np.tanh(l.w @ x + l.b)) for l in p) + sum([np.sum(l.b ** 2) for l in p])
""" + BUILD_LIST,
    "enumerate from 1, by keyword": """
def loss(p, x):
    for i, l in enumerate(p, start=1):
        x = np.tanh(l.w @ x + l.b) * i
    return np.sum(x)
""" + BUILD_LIST,
    "reversed": """
def loss(p, x):
    for l in reversed(p):
        x = np.tanh(l.w @ x + l.b)
    return np.sum(x)
""" + BUILD_LIST,
    "a constant slice and a last item": """
def loss(p, x):
    for l in p[:-1]:
        x = np.tanh(l.w @ x + l.b)
    return np.sum(p[-1].w @ x)
""" + BUILD_LIST,
    "len and a named tuple's fields by position and unpacked": """
def loss(p, x):
    n = len(p)
    w, b = p[0]
    x = np.tanh(w @ x + b) / n
    return np.sum(p[1][0] @ x + p[-1][-1])
""" + BUILD_NT,
    "lists of lists": """
def loss(p, x):
    for group in p:
        for l in group:
            x = np.tanh(l.w @ x + l.b)
    return np.sum(x)


def build(theta):
    ls = [DL(np.reshape(theta[6 * k:6 * k + 4], (2, 2)), theta[6 * k + 4:6 * k + 6])
          for k in range(2)]
    return [[ls[0]], [ls[1]]]
""",
    "a dict's items": """
def loss(p, x):
    for name, l in p.items():
        x = np.tanh(l.w @ x + l.b) * (2.0 if name == "b" else 1.0)
    return np.sum(x)


def build(theta):
    ls = [RL(np.reshape(theta[6 * k:6 * k + 4], (2, 2)), theta[6 * k + 4:6 * k + 6])
          for k in range(2)]
    return {"a": ls[0], "b": ls[1]}
""",
    "records in records in a list": """
def loss(p, x):
    for net in p:
        x = np.tanh(net.layers.w @ x + net.layers.b) * net.scale
    return np.sum(x)


def build(theta):
    return [Net(DL(np.reshape(theta[7 * k:7 * k + 4], (2, 2)), theta[7 * k + 4:7 * k + 6]),
                theta[7 * k + 6]) for k in range(2)]
""",
    "items of different classes by index": """
def loss(p, x):
    x = np.tanh(p[0].w @ x + p[0].b)
    return np.sum(p[1].w @ x + p[1].b)


def build(theta):
    return (DL(np.reshape(theta[:4], (2, 2)), theta[4:6]),
            NL(np.reshape(theta[6:10], (2, 2)), theta[10:12]))
""",
    "zip of two containers of records": """
def loss(p, x):
    for a, b in zip(p[:1], p[1:]):
        x = np.tanh(a.w @ x + b.b)
    return np.sum(x) + np.sum(p[1].w)
""" + BUILD_LIST,
    "a container passed on by keyword through two calls": """
def apply_all(layers, x):
    for i in range(len(layers)):
        x = lin(layers[i], x)
    return x


def outer(layers, x):
    return apply_all(layers=layers, x=x * 0.5)


def loss(p, x):
    return np.sum(outer(p, x=x)) + np.sum(lin(p[0], x) * lin(p[1], x))
""" + BUILD_NT,
    "a closure and a lambda reading items": """
def loss(p, x):
    l1: DL = p[1]

    def step(y):
        return np.tanh(p[0].w @ y + p[0].b)

    g = lambda y: l1.w @ y
    return np.sum(g(step(x)))
""" + BUILD_LIST,
    "a nested record holding the list, passed on": """
@dataclasses.dataclass
class Outer:
    inner: object
    c: object


def run(net, x):
    for l in net.layers:
        x = np.tanh(l.w @ x + l.b)
    return np.sum(x) * net.scale


def loss(p, x):
    return run(p.inner, x) * p.c + np.sum(p.inner.layers[1].w)


def build(theta):
    ls = [DL(np.reshape(theta[6 * k:6 * k + 4], (2, 2)), theta[6 * k + 4:6 * k + 6])
          for k in range(2)]
    return Outer(Net(ls, theta[12]), theta[13])
""",
    "a while loop and a branch": """
def loss(p, x):
    i = 0
    while i < len(p):
        l = p[i]
        if np.sum(x) > 100.0:
            x = l.w @ x
        else:
            x = np.tanh(l.w @ x + l.b)
        i += 1
    return np.sum(x)
""" + BUILD_LIST,
}


@pytest.mark.parametrize("name", ONE_BY_ONE)
def test_a_form(name, tmp_path):
    text = HEAD.replace("{PVALUES}", "p.layers") + ONE_BY_ONE[name] + \
        "\n\ndef flat(theta, x):\n    return loss(build(theta), x)\n"
    theta = np.random.default_rng(3).normal(size=14) * 0.7
    theta = theta[:14 if "records in records" in name or "nested record" in name else 12]
    _check(text, tmp_path, theta, hessians=name in ("reversed", "lists of lists"))


def test_the_generated_code_reads_the_fields_as_keys(tmp_path):
    mod = _load(_source("list", "DL", "loop", 1), tmp_path, "numpy")
    df = srcad.grad(mod.loss)
    df(mod.build(_theta(1)), X)
    text = srcad.source(df)
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert any("['w']" in line for line in code) and any("['b']" in line for line in code)
    assert not any(".w" in line or ".b" in line for line in code), text


def test_a_list_of_named_tuples_gives_named_tuples(tmp_path):
    mod = _load(_source("list", "NL", "unpack", 1), tmp_path, "numpy")
    g = srcad.grad(mod.loss)(mod.build(_theta(1)), X)
    assert [type(item).__name__ for item in g] == ["NL", "NL"]


def test_a_list_of_dicts_stays_a_list_of_dicts(tmp_path):
    mod = _load(_source("list", "DL", "loop", 1), tmp_path, "numpy")
    p = mod.build(_theta(1))
    want = _vector(srcad.grad(mod.loss)(p, X))

    def loss(layers, x):
        for layer in layers:
            x = np.tanh(layer["w"] @ x + layer["b"])
        return np.sum(x)

    g = srcad.grad(loss)([{"w": item.w, "b": item.b} for item in p], X)
    assert type(g[0]) is dict
    np.testing.assert_allclose(_vector(g), want)


def test_named_tuples_and_tuples_alternate(tmp_path):
    """One function, called with a list of plain tuples and a list of named tuples in turn:
    each call's gradient has its own argument's structure (the specialisations differ)."""
    mod = _load(_source("list", "NL", "unpack", 1), tmp_path, "numpy")
    named = mod.build(_theta(1))
    plain = [tuple(item) for item in named]
    grad = srcad.grad(mod.loss)
    for _ in range(2):
        g_plain, g_named = grad(plain, X), grad(named, X)
        assert [type(t) for t in g_plain] == [tuple, tuple]
        assert [type(t) for t in g_named] == [mod.NL, mod.NL]
        np.testing.assert_allclose(_vector(g_plain), _vector(g_named))


def test_lists_of_other_lengths_are_specialised_apart(tmp_path):
    mod = _load(_source("list", "DL", "loop", 1), tmp_path, "numpy")
    ag = _load(_source("list", "DL", "loop", 1), tmp_path, "autograd.numpy")
    grad = srcad.grad(mod.loss)
    rng = np.random.default_rng(11)
    for n in (2, 3, 1, 2, 3):
        theta = rng.normal(size=6 * n) * 0.7
        p = [mod.DL(np.reshape(theta[6 * k:6 * k + 4], (2, 2)), theta[6 * k + 4:6 * k + 6])
             for k in range(n)]

        def flat(t, x, n=n):
            return ag.loss([ag.DL(ag.np.reshape(t[6 * k:6 * k + 4], (2, 2)),
                                  t[6 * k + 4:6 * k + 6]) for k in range(n)], x)

        g = grad(p, X)
        _same_structure(g, p)
        np.testing.assert_allclose(_vector(g), autograd.grad(flat)(theta, X), rtol=1e-6,
                                   atol=1e-8)


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_the_jacobian_of_a_vector_output(mode, tmp_path):
    """Shaped as JAX's: the argument's structure, each leaf ``output shape + leaf shape``."""
    text = HEAD.replace("{PVALUES}", "p.layers") + (
        "def loss(p, x):\n    return forward_dict(p, x)\n\n\n"
        "def build(theta):\n"
        "    return {'a': NL(np.reshape(theta[:4], (2, 2)), theta[4:6]),\n"
        "            'b': NL(np.reshape(theta[6:10], (2, 2)), theta[10:12])}\n\n\n"
        "def flat(theta, x):\n    return loss(build(theta), x)\n")
    mod = _load(text, tmp_path, "numpy")
    ag = _load(text, tmp_path, "autograd.numpy")
    theta = np.random.default_rng(2).normal(size=12)
    p = mod.build(theta)
    jac = srcad.jacobian(mod.loss, mode=mode)(p, X)
    _same_structure(jac, p, shapes=False)
    got = np.concatenate([np.reshape(leaf, (2, -1)) for leaf in _leaves(jac)], axis=1)
    np.testing.assert_allclose(got, autograd.jacobian(ag.flat)(theta, X), rtol=1e-6,
                               atol=1e-8)


def test_an_item_not_read_gets_zeros_of_its_class(tmp_path):
    text = HEAD.replace("{PVALUES}", "p.layers") + (
        "def loss(p, x):\n    return np.sum(np.tanh(p[1].w @ x)) + p[1].b[0]\n")
    mod = _load(text, tmp_path, "numpy")
    p = [mod.DL(np.eye(2), np.ones(2)), mod.NL(np.eye(2), np.ones(2)),
         mod.RL(np.eye(2), np.ones(2))]
    g = srcad.grad(mod.loss)(p, X)
    _same_structure(g, p)
    assert not np.any(g[0].w) and not np.any(g[0].b) and not np.any(g[2].w)
    np.testing.assert_allclose(g[1].b, [1.0, 0.0])


# ---------------------------------------------------------------- refusals

REFUSALS = {  # body of loss(layers, x) (layers: a list of two DL) -> (line, words, hint words)
    "returned": ("return layers[0]", 1, "used whole", "read the fields"),
    "isinstance": ("if isinstance(layers[0], DL):\n    return np.sum(x)\nreturn 0.0", 1,
                   "used whole", "pass the record whole"),
    "not a method": ("return np.sum(layers[0].norm())", 1, "not a field", "call its methods"),
    "a field written": ("layers[0].w = x\nreturn np.sum(x)", 1, "writing a field",
                        "local name"),
    "an item written": ("layers[0] = layers[1]\nreturn np.sum(x)", 1, "writing into",
                        "new list"),
    "appended": ("out = []\nout.append(layers[0])\nreturn np.sum(x)", 2, "used whole",
                 "pass the record whole"),
    "a container method": ("layers.append(layers[0])\nreturn np.sum(x)", 1, "used whole",
                           "read the fields"),
    "rebound": ("l0 = layers[0]\nl0 = x\nreturn np.sum(l0)", 1, "cannot tell whether",
                "its own name"),
    "a dataclass unpacked": ("for w, b in layers:\n    x = w @ x + b\nreturn np.sum(x)", 1,
                             "not a named tuple", "layer.w"),
    "unpacked and bound whole": ("a = w, b = ntl[0]\nreturn np.sum(w @ x)", 1,
                                 "also binding it whole", "layer.w"),
    "unpacked from an expression with calls": (
        "w, b = ntl[int(x[0] > 0)]\nreturn np.sum(w @ x)", 1, "once for each",
        "assign the record to a name first"),
    "a record indexed": ("return np.sum(layers[0][0])", 1, "indexing a record", "fields"),
    "a record's truth": ("if layers[0]:\n    return np.sum(x)\nreturn 0.0", 1, "used whole",
                         "read the fields"),
    "a record formatted": ("print(f'{layers[0]}')\nreturn np.sum(x)", 1, "used whole",
                           "read the fields"),
    "slice not constant": ("n = 1\nfor l in layers[:n]:\n    x = l.w @ x\nreturn np.sum(x)", 2,
                           "cannot tell what", "constant"),
    "comprehension unpacking": ("return sum(np.sum(w) for w, b in ntl)", 1,
                                "comprehension unpacking", "for loop"),
    "passed to NumPy": ("return np.sum(np.stack(layers))", 1, "used whole",
                        "pass the record whole"),
    "run once for each field": ("return np.sum(lin(layers[int(x[0] > 0)], x))", 1,
                                "once for each", "assign the record to a name first"),
    "compared": ("return np.sum(x) if layers[0] is layers[1] else 0.0", 1, "used whole",
                 "read the fields"),
}


@pytest.mark.parametrize("name", REFUSALS)
def test_refused(name, tmp_path):
    body, line, words, hint = REFUSALS[name]
    text = HEAD.replace("{PVALUES}", "p.layers") + "def loss(layers, x, ntl=None):\n" + \
        textwrap.indent(body, "    ") + "\n"
    mod = _load(text, tmp_path, "numpy")
    first = text.count("\n", 0, text.index("def loss(")) + 2  # (the import line before)
    layers = [mod.DL(np.eye(2), np.ones(2)), mod.DL(np.eye(2) * 2, np.zeros(2))]
    args = (layers, X) if "ntl" not in body else (
        [mod.NL(np.eye(2), np.ones(2))], X, [mod.NL(np.eye(2), np.ones(2))])
    wrt = 2 if "ntl" in body else 0
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(mod.loss, wrt=wrt)(*args)
    err = info.value
    assert isinstance(err, SrcadError)
    assert err.lineno == first + line, (err.lineno, first + line, str(err))
    assert words in str(err) and hint in err.hint, str(err)


def test_refused_items_of_different_classes_iterated(tmp_path):
    text = HEAD.replace("{PVALUES}", "p.layers") + (
        "def loss(layers, x):\n    for l in layers:\n        x = l.w @ x\n    return np.sum(x)\n")
    mod = _load(text, tmp_path, "numpy")
    layers = [mod.DL(np.eye(2), np.ones(2)), mod.NL(np.eye(2), np.ones(2))]
    with pytest.raises(UnsupportedSyntaxError, match="iterating over") as info:
        srcad.grad(mod.loss)(layers, X)
    assert "one class" in info.value.hint
    # read by constant index, the items may differ
    text2 = text.replace("    for l in layers:\n        x = l.w @ x\n",
                         "    x = layers[0].w @ x + layers[1].b\n")
    mod2 = _load(text2, tmp_path, "numpy")
    layers2 = [mod2.DL(np.eye(2), np.ones(2)), mod2.NL(np.eye(2) * 3, np.ones(2))]
    g = srcad.grad(mod2.loss)(layers2, X)
    assert type(g[0]) is mod2.DL and type(g[1]) is mod2.NL
    np.testing.assert_allclose(g[0].w, np.outer(np.ones(2), X))
    np.testing.assert_allclose(g[1].b, np.ones(2))


# ---------------------------------------------------------------- writes into what the caller owns

WRITES = {  # a write into an array the argument holds two levels down (main got these wrong)
    "augmented": "w *= 2.0",
    "an item set": "w[0, 0] = 3.0",
}
REACHES = {  # how the array is reached: (argument, lines before the write)
    "a record's field by index": ("records", "w = p[0].w"),
    "a record's field in a loop": ("records", "for layer in p:\n        w = layer.w"),
    "a dict in a list": ("dicts", 'w = p[0]["w"]'),
    "a dict in a list, through a name": ("dicts", 'q = p[0]\n    w = q["w"]'),
    "a list in a dict's items": ("dict of lists", "for k, v in p.items():\n        w = v[0]"),
}


@pytest.mark.parametrize("write, reach", list(itertools.product(WRITES, REACHES)))
def test_a_write_into_the_callers_nested_array_is_refused(write, reach, tmp_path):
    kind, lines = REACHES[reach]
    indent = "        " if "for " in lines else "    "
    text = HEAD.replace("{PVALUES}", "p.layers") + (
        f"def loss(p, x):\n    {lines}\n{indent}{WRITES[write]}\n"
        "    return np.sum(np.tanh(w @ x))\n")
    mod = _load(text, tmp_path, "numpy")
    p = {"records": [mod.DL(np.eye(2), np.ones(2))], "dicts": [{"w": np.eye(2)}],
         "dict of lists": {"a": [np.eye(2)]}}[kind]
    with pytest.raises(MutationError, match="changes the argument p in place") as info:
        srcad.grad(mod.loss)(p, X)
    assert "copy()" in info.value.hint
