"""Saves and copies the generated code made only for a shape, or of an array nobody else held
(session 35, "read your generated code"):

* a callee changing its argument twice copied a fresh array twice (``a_1 = a.copy(); a_1[0]
  = t; a_2 = a_1.copy(); a_2[1:] = u``): the second copy goes (``backend.tidy_copies.
  fresh_copies``), and where the first array IS read again (the backward sweep reads the
  values before the second write, or a later statement does) the copy stays: the gradient
  would be wrong without it;
* a number written into an array (``a[0] = t``) got ``unbroadcast(da[0], t)``, which kept
  ``t`` (handed over in the context) for its shape: ``da[0]`` for one element of an array of
  known rank, else the part's sum (``transform.number_writes``);
* an accumulator (``total = 0``, then ``total += row ** 2`` in a loop) pushed the whole array
  per step for ``unbroadcast(dtotal, total)``: its shape is pushed instead, taken as the body
  starts (``transform.saves.carried_in``), also where the shape changes between steps.

Each case against central differences and a second engine (PyTorch for the writes, which
autograd does not take; autograd for the loops)."""

import ast

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
import torch

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

# (first write, second write, the second value), for a vector and a matrix
WRITES = [("[0]", "[1:]", "t * 2.0"), ("[1]", "[:2]", "np.sin(t)"), ("[-1]", "[0]", "t * t"),
          ("[1:3]", "[0]", "t - 1.0")]
RANKS = [1, 2]
CASES = [(w, r) for w in WRITES for r in RANKS]


def _callee_text(first, second, value, torch_=False):
    np_ = "torch" if torch_ else "np"
    return (f"import numpy as np\nimport torch\n\n\ndef put(a, t):\n    a{first} = t\n"
            f"    a{second} = {value.replace('np.', np_ + '.')}\n    return a\n\n\n"
            f"def f(x, t, w):\n    a = x{'.clone()' if torch_ else '.copy()'}\n"
            f"    b = put(a, t)\n    return {np_}.sum(b * b * w)\n")


def _parts(text):
    """The generated functions' texts by name."""
    return {node.name: ast.get_source_segment(text, node) for node in ast.parse(text).body
            if isinstance(node, ast.FunctionDef)}


def _inputs(rank):
    rng = np.random.default_rng(rank)
    shape = (4,) if rank == 1 else (4, 3)
    return rng.normal(size=shape), 0.7, rng.normal(size=shape)


def _central_t(f, x, t, w, h=1e-6):
    return (f(x, t + h, w) - f(x, t - h, w)) / (2 * h)


def _torch_grad(f, x, t, w):
    xs = torch.tensor(x, requires_grad=True)
    ts = torch.tensor(t, dtype=torch.float64, requires_grad=True)
    f(xs, ts, torch.tensor(w)).backward()
    return xs.grad.numpy(), float(ts.grad)


@pytest.mark.parametrize("write, rank", CASES if LONG else CASES[::3])
def test_a_callee_writing_its_argument_twice_copies_once(load_module, write, rank):
    first, second, value = write
    key = abs(hash((write, rank)))
    f = load_module(f"put_{key}", _callee_text(first, second, value)).f
    twin = load_module(f"put_twin_{key}", _callee_text(first, second, value, True)).f
    x, t, w = _inputs(rank)
    df = srcad.grad(f, wrt=("x", "t"))
    gx, gt = df(x, t, w)
    np.testing.assert_allclose(gx, central(f, (x, t, w), 0), atol=1e-6)
    np.testing.assert_allclose(gt, _central_t(f, x, t, w), atol=1e-6)
    tx, tt = _torch_grad(twin, x, t, w)
    np.testing.assert_allclose(gx, tx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gt, tt, rtol=1e-10, atol=1e-12)
    parts = _parts(srcad.source(df))
    forward = next(text for name, text in parts.items() if name.startswith("put") and (
        name.endswith("_fwd")))
    assert forward.count(".copy()") == 1, forward  # the argument's, not the fresh array's
    returned = forward.strip().splitlines()[-1]
    assert "t" not in returned.split(",", 1)[1].replace("(", " ").replace(")", " ").split(), \
        forward  # the number written is not handed over for its shape


SHARED = [  # the first array read again: its copy stays
    ("a[0] = t\n    a[1:] = a[:-1] * t", "a[0] = t\n    a[1:] = a[:-1].clone() * t"),
    ("a[0] = t\n    s = a[1] * 3.0\n    a[1] = t * 2.0\n    a[2] = s",
     "a[0] = t\n    s = a[1] * 3.0\n    a[1] = t * 2.0\n    a[2] = s"),
    ("a[1] = t\n    c = a.copy()\n    a[0] = t * c[1]\n    return a * c",
     "a[1] = t\n    c = a.clone()\n    a[0] = t * c[1]\n    return a * c"),
]


SHARED_CASES = [(b, s) for b in SHARED for s in (True, False)]


@pytest.mark.parametrize("shared, split", SHARED_CASES if LONG else SHARED_CASES[:3])
def test_where_the_array_is_read_again_its_copy_stays(load_module, shared, split):
    body, torch_body = shared
    ret = "" if "return" in body else "\n    return a"
    key = abs(hash((body, split)))
    if split:
        text = (f"import numpy as np\nimport torch\n\n\ndef put(a, t):\n    {{b}}{ret}\n\n\n"
                "def f(x, t, w):\n    a = x.{c}()\n    b = put(a, t)\n    return {n}.sum(b * w)\n")
    else:
        text = ("import numpy as np\nimport torch\n\n\ndef f(x, t, w):\n    a = x.{c}()\n"
                "    {b}\n    return {n}.sum(" + ("(" + body.rsplit("return ", 1)[1] + ")"
                                                 if "return" in body else "a") + " * w)\n")
        body = body.rsplit("\n    return", 1)[0]
        torch_body = torch_body.rsplit("\n    return", 1)[0]
    f = load_module(f"shared_{key}", text.format(b=body, c="copy", n="np")).f
    twin = load_module(f"shared_twin_{key}", text.format(b=torch_body, c="clone",
                                                           n="torch")).f
    x, t, w = np.array([0.4, -1.3, 0.8, 2.1]), 0.6, np.array([1.5, -0.7, 0.3, 1.1])
    gx, gt = srcad.grad(f, wrt=("x", "t"))(x, t, w)
    np.testing.assert_allclose(gx, central(f, (x, t, w), 0), atol=1e-6)
    np.testing.assert_allclose(gt, _central_t(f, x, t, w), atol=1e-6)
    tx, tt = _torch_grad(twin, x, t, w)
    np.testing.assert_allclose(gx, tx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gt, tt, rtol=1e-10, atol=1e-12)


def _loop_text(start, step, numpy="numpy"):
    return (f"import {numpy} as np\n\n\ndef f(x, w):\n    total = {start}\n"
            f"    for row in x:\n        {step}\n    return np.sum(total * w)\n")


STARTS = ["0", "0.0", "np.zeros(3)"]
STEPS = ["total += row ** 2", "total = total + np.sin(row) * w", "total = total - row * row[0]"]
LOOPS = [(s, p) for s in STARTS for p in STEPS]


def _pushed(text):
    """The names each ``stack.append((...))`` of ``text`` pushes."""
    out = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr == "append") and node.args:
            item = node.args[0]
            out |= {e.id for e in (item.elts if isinstance(item, ast.Tuple) else [item])
                    if isinstance(e, ast.Name)}
    return out


@pytest.mark.parametrize("start, step", LOOPS if LONG else LOOPS[::4])
def test_an_accumulator_pushes_its_shape_not_the_array(load_module, start, step):
    key = abs(hash((start, step)))
    f = load_module(f"acc_{key}", _loop_text(start, step)).f
    twin = load_module(f"acc_twin_{key}", _loop_text(
        start, step.replace("total += row ** 2", "total = total + row ** 2"),
        "autograd.numpy")).f
    x = np.array([[0.3, -1.2, 0.5], [0.7, 0.4, -0.9], [1.1, -0.5, 0.2]])
    w = np.array([0.6, 1.4, -0.8])
    df = srcad.grad(f, wrt=("x", "w"))
    gx, gw = df(x, w)
    np.testing.assert_allclose(gx, central(f, (x, w), 0), atol=1e-6)
    np.testing.assert_allclose(gw, central(f, (x, w), 1), atol=1e-6)
    ax, aw = autograd.grad(twin, (0, 1))(x, w)
    np.testing.assert_allclose(gx, ax, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw, aw, rtol=1e-10, atol=1e-12)
    pushed = _pushed(srcad.source(df))
    assert "total" not in pushed, srcad.source(df)


def grows(a, b, c):
    """``total``'s shape changes between steps: () then (1, 3) then (2, 3)."""
    total = 0.0
    for part in [a, b, a]:
        total = total + part * c
    return np.sum(total * total)


def grows_twin(a, b, c):
    total = 0.0
    for part in [a, b, a]:
        total = total + part * c
    return anp.sum(total * total)


def test_an_accumulator_whose_shape_grows_reads_each_steps_shape():
    rng = np.random.default_rng(3)
    a, b, c = rng.normal(size=(1, 3)), rng.normal(size=(2, 3)), rng.normal(size=3)
    df = srcad.grad(grows, wrt=(0, 1, 2))
    got = df(a, b, c)
    want = autograd.grad(grows_twin, (0, 1, 2))(a, b, c)
    for k in range(3):
        np.testing.assert_allclose(got[k], central(grows, (a, b, c), k), atol=1e-6)
        np.testing.assert_allclose(got[k], want[k], rtol=1e-10, atol=1e-12)
    assert "total" not in _pushed(srcad.source(df)), srcad.source(df)


def scaled_rows(w, h):
    """``w`` broadcast along ``h``'s rows in a loop that carries ``h``: ``w`` is read whole
    for ``unbroadcast`` (a parameter, not carried: no shape of it is kept)."""
    for _ in range(2):
        h = np.tanh(h) * w
    return np.sum(h * h)


def scaled_rows_twin(w, h):
    for _ in range(2):
        h = anp.tanh(h) * w
    return anp.sum(h * h)


def test_a_value_broadcast_in_a_loop_that_carries_another():
    rng = np.random.default_rng(5)
    w, h = rng.normal(size=3), rng.normal(size=(2, 3))
    got = srcad.grad(scaled_rows, wrt=(0, 1))(w, h)
    want = autograd.grad(scaled_rows_twin, (0, 1))(w, h)
    for k in range(2):
        np.testing.assert_allclose(got[k], central(scaled_rows, (w, h), k), atol=1e-6)
        np.testing.assert_allclose(got[k], want[k], rtol=1e-10, atol=1e-12)
