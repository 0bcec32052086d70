"""Cost per call of every transformed function against ``grad``'s on the same function.

Each row is one function and argument; each column one API, timed after a first call (which
makes the code), as microseconds of CPU time per call (the best of seven stretches that go
round-robin over the APIs, so that load from other processes falls on all alike; CPU time,
not wall-clock time: a stretch cut by another process's time slice does not count it) and
as a ratio to the derivative it must compute:

- ``grad``: ``srcad.grad(f)(x)``, the reference, made once;
- ``f`` and ``value_and_grad``: the function itself and ``srcad.value_and_grad(f)(x)``,
  for what ``vjp`` and a Jacobian compute besides a gradient (the value: ``grad`` drops
  the code that only computes it, so ``vjp`` can cost ``f`` + ``grad``, not ``grad``);
- ``vjp``: ``srcad.vjp(f, x)`` then the pullback of 1.0 (a primal and a gradient: also as a
  ratio to ``value_and_grad``'s time, "vg", which computes the same two);
- ``pullback``: the pullback alone, made once (a gradient);
- ``jacobian``/``jacrev``/``jacfwd``: ``srcad.jacobian(f, ...)(x)`` made once (one gradient for
  a scalar output; ``jacfwd`` takes one forward pass per input element, so the ratio is per
  element);
- ``jvp``: ``srcad.jvp(f, (x,), (v,))`` (one forward pass: the value and one directional
  derivative, also as a ratio to ``value_and_grad``'s time);
- ``hessian``/``hvp`` against ``grad(grad(f))`` for a scalar ``x`` (per input element for
  ``hessian``).

A second table (:func:`more`) takes the other shapes of call against ``grad`` on the same
function: a function of two numbers differentiated w.r.t. both (``jacobian``/``jacrev``, one
pass; ``jacfwd``, a pass per argument; ``hessian``, four entries, against ``grad(grad)``'s
one; ``vjp``), ``has_aux=True`` (``grad``, ``value_and_grad`` and ``vjp`` against the same
function without its aux), and a dict of two numbers (a pytree), and the same two numbers
in a list, a tuple, a named tuple, a dataclass and a nested dict (``grad``, ``jacobian``,
``hessian`` and ``vjp`` of each against its ``grad``; the Hessian's four entries take two
forward passes; ``hvp`` of the dict, the list, the tuple and the nested dict, one forward
pass over ``grad``'s code, and ``jacfwd`` of the dict and the list, per pass).

A third (:func:`floors`, ``--floors``) times what no API can go below on ``small``: a bare
frame, a frame taking ``*args`` and keywords (the entry points' signature), and the same
computations written by hand (the gradient, value and gradient, value and tangent, a ``vjp``
making its pullback, a ``jvp``), in one frame and behind an entry point looking up the
function's code on ``f`` (two frames, as srcad's entry points are): the ratio of the
hand-written ``vjp`` to the hand-written gradient is the API's own minimum for this size.

A fourth (:func:`aux_forms`, ``--aux``) times ``has_aux=True`` where a ``return`` sits in a
loop, the pair is built apart from the return, or the aux is a dict built in a loop, against
the same API on the function without its aux.

Run: ``/work/main/.venv/bin/python benchmarks/transformed_calls.py`` (``--more``: the second
and fourth tables; ``--floors``: the third alone; ``--aux``: the fourth alone).
"""

from __future__ import annotations

import collections
import dataclasses
import math
import sys
import time
from pathlib import Path

import numpy as np

# the srcad of the checkout this script is in (the installed one may be another checkout's)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import srcad  # noqa: E402


def small(x):
    return math.sin(x) * x + x * x


def vector(x):
    return np.sum(np.sin(x) * x + np.exp(-x * x))


def loop(x):
    total = 0.0
    for k in range(10):
        total = total + np.sum(np.tanh(x * k) * x)
    return total


def medium(x):  # about four times small's work
    a = math.sin(x) * x + x * x
    b = math.cos(a) * x + a * a
    c = math.exp(-b * b) + b * x
    return math.tanh(c) * a + c * b


def large(x):  # about sixteen times
    total = 0.0
    y = x
    for k in range(1, 9):
        y = math.sin(y) * x + y * y / (k + 1.0)
        total = total + math.tanh(y) * k
    return total + math.exp(-x * x) * y


def two(x, y):
    return math.sin(x) * y + x * x * y


def with_aux(x):
    y = math.sin(x) * x + x * x
    return y, x


def vector_aux(x):
    y = np.sin(x) * x + np.exp(-x * x)
    return np.sum(y), y


def loop_aux(x):  # a return in a loop (has_aux read in the function since calls31)
    y = x
    for k in range(4):
        y = math.sin(y) * x + y
        if k == 2:
            return y, k
    return y, -1


def loop_plain(x):  # the same output, no aux
    y = x
    for k in range(4):
        y = math.sin(y) * x + y
        if k == 2:
            return y
    return y


def apart_aux(x):  # the pair built apart from the return (small's output)
    y = math.sin(x) * x + x * x
    out = (y, x)
    return out


def dict_aux(x):  # the aux a dict built in a loop
    y = x
    d = {}
    for k in range(3):
        y = np.sin(y) * x
        d[k] = y
    return np.sum(y), d


def dict_plain(x):  # the same output, no dict
    y = x
    for _ in range(3):
        y = np.sin(y) * x
    return np.sum(y)


def tree(p):
    return math.sin(p["a"]) * p["b"] + p["a"] * p["b"]


def seq_tree(p):  # the same of a list or tuple
    return math.sin(p[0]) * p[1] + p[0] * p[1]


def record_tree(p):  # the same of a named tuple or dataclass
    return math.sin(p.a) * p.b + p.a * p.b


def nested_tree(p):  # the same of a nested dict (its items' kinds not known to grad's code)
    return math.sin(p["w"]["a"]) * p["b"] + p["w"]["a"] * p["b"]


Pair = collections.namedtuple("Pair", "a b")


@dataclasses.dataclass
class PairClass:
    a: float
    b: float


def per_call(fn, seconds=0.05):
    """Microseconds per call of ``fn``, over one stretch of at least ``seconds``."""
    n, start = 0, time.process_time()
    while True:
        for _ in range(20):
            fn()
        n += 20
        elapsed = time.process_time() - start
        if elapsed > seconds:
            return elapsed / n * 1e6


def timed(calls, rounds=7):
    """The best time per call of each of ``calls`` (name -> thunk) over ``rounds`` rounds that
    go round-robin over them, so that load from other processes falls on all alike."""
    for fn in calls.values():
        fn()  # the first call makes the code
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(rounds):
        for name, fn in calls.items():
            best[name] = min(best[name], per_call(fn))
    return best


def row(name, f, x):
    g = srcad.grad(f)
    size = int(np.size(x))
    _, pullback = srcad.vjp(f, x)
    jac, jrev, jfwd = srcad.jacobian(f), srcad.jacrev(f), srcad.jacfwd(f)
    v = np.ones_like(x) if np.ndim(x) else 1.0
    vg = srcad.value_and_grad(f)
    calls = {
        "grad": lambda: g(x),
        "f": lambda: f(x),
        "value_and_grad": lambda: vg(x),
        "vjp": lambda: srcad.vjp(f, x)[1](1.0),
        "pullback": lambda: pullback(1.0),
        "jacobian": lambda: jac(x),
        "jacrev": lambda: jrev(x),
        "jvp": lambda: srcad.jvp(f, (x,), (v,)),
    }
    if size <= 100:
        calls["jacfwd"] = lambda: jfwd(x)
    if not np.ndim(x):
        gg, hess = srcad.grad(srcad.grad(f)), srcad.hessian(f)
        calls["grad(grad)"] = lambda: gg(x)
        calls["hessian"] = lambda: hess(x)
        calls["hvp"] = lambda: srcad.hvp(f, x, 1.0)
    best = timed(calls)
    ref = best["grad"]
    times = {api: (t, size if api == "jacfwd" else 1) for api, t in best.items()}
    if "grad(grad)" in best:
        ref2 = best["grad(grad)"]
        for api in ("grad(grad)", "hessian", "hvp"):
            times[api] = (best[api], ref2 / ref)
    cells = [f"{name}"]
    for api, entry in times.items():
        if entry is not None:
            t, passes = entry
            # vjp and jvp return the value too: also their ratio to value_and_grad's
            also = f", {t / best['value_and_grad']:.2f}x vg" if api in ("vjp", "jvp") else ""
            cells.append(f"{api} {t:.2f}us ({t / passes / ref:.2f}x{also})")
    print(" | ".join(cells))


def more():
    """Several arguments, ``has_aux`` and a pytree, each against ``grad`` of the same
    function (µs of CPU time per call, ratio to the reference named)."""
    x, y, p, xs = 0.7, 0.3, {"a": 0.7, "b": 0.3}, np.linspace(0.1, 0.9, 100)
    g2, gx = srcad.grad(two, wrt=(0, 1)), srcad.grad(srcad.grad(two, wrt=0), wrt=0)
    jac2, jrev2, jfwd2 = (srcad.jacobian(two, wrt=(0, 1)), srcad.jacrev(two, wrt=(0, 1)),
                          srcad.jacfwd(two, wrt=(0, 1)))
    hess2, gt, jt, ht = (srcad.hessian(two, wrt=(0, 1)), srcad.grad(tree),
                         srcad.jacobian(tree), srcad.hessian(tree))
    jf = srcad.jacfwd(tree)
    plain, plain_vg = srcad.grad(small), srcad.value_and_grad(small)
    aux, aux_vg = srcad.grad(with_aux, has_aux=True), srcad.value_and_grad(with_aux,
                                                                            has_aux=True)
    vvg, vvg_aux = srcad.value_and_grad(vector), srcad.value_and_grad(vector_aux, has_aux=True)
    vplain, vaux = srcad.grad(vector), srcad.grad(vector_aux, has_aux=True)
    calls = {
        "two: grad": lambda: g2(x, y),
        "two: jacobian": lambda: jac2(x, y),
        "two: jacrev": lambda: jrev2(x, y),
        "two: jacfwd": lambda: jfwd2(x, y),
        "two: grad(grad)": lambda: gx(x, y),
        "two: hessian": lambda: hess2(x, y),
        "two: vjp": lambda: srcad.vjp(two, x, y)[1](1.0),
        "aux: grad": lambda: plain(x),
        "aux: grad has_aux": lambda: aux(x),
        "aux: value_and_grad": lambda: plain_vg(x),
        "aux: value_and_grad has_aux": lambda: aux_vg(x),
        "aux: vjp": lambda: srcad.vjp(small, x)[1](1.0),
        "aux: vjp has_aux": lambda: srcad.vjp(with_aux, x, has_aux=True)[1](1.0),
        "aux n=100: grad": lambda: vplain(xs),
        "aux n=100: grad has_aux": lambda: vaux(xs),
        "aux n=100: value_and_grad": lambda: vvg(xs),
        "aux n=100: value_and_grad has_aux": lambda: vvg_aux(xs),
        "aux n=100: vjp": lambda: srcad.vjp(vector, xs)[1](1.0),
        "aux n=100: vjp has_aux": lambda: srcad.vjp(vector_aux, xs, has_aux=True)[1](1.0),
        "dict: grad": lambda: gt(p),
        "dict: jacobian": lambda: jt(p),
        "dict: hessian": lambda: ht(p),
        "dict: vjp": lambda: srcad.vjp(tree, p)[1](1.0),
        "dict: hvp": lambda: srcad.hvp(tree, (p,), p),
        "dict: jacfwd": lambda: jf(p),
    }
    for group, fn, arg in (("list", seq_tree, [x, y]), ("tuple", seq_tree, (x, y)),
                           ("namedtuple", record_tree, Pair(x, y)),
                           ("dataclass", record_tree, PairClass(x, y)),
                           ("nested dict", nested_tree, {"w": {"a": x}, "b": y})):
        made = {"grad": srcad.grad(fn), "jacobian": srcad.jacobian(fn),
                "hessian": srcad.hessian(fn)}
        for api, d in made.items():
            calls[f"{group}: {api}"] = lambda d=d, a=arg: d(a)
        calls[f"{group}: vjp"] = lambda fn=fn, a=arg: srcad.vjp(fn, a)[1](1.0)
        if group in ("list", "tuple", "nested dict"):  # (one pass over grad's code; v the
            calls[f"{group}: hvp"] = lambda fn=fn, a=arg: srcad.hvp(fn, (a,), a)  # argument)
        if group == "list":  # (a pass per number, as the dict's)
            made["jacfwd"] = srcad.jacfwd(fn)
            calls[f"{group}: jacfwd"] = lambda d=made["jacfwd"], a=arg: d(a)
    best = timed(calls)
    refs = {"two: jacfwd": ("two: grad", 2), "two: hessian": ("two: grad(grad)", 4),
            "aux: grad has_aux": ("aux: grad", 1),
            "aux: value_and_grad has_aux": ("aux: value_and_grad", 1),
            "aux: vjp has_aux": ("aux: vjp", 1),
            "aux n=100: grad has_aux": ("aux n=100: grad", 1),
            "aux n=100: value_and_grad has_aux": ("aux n=100: value_and_grad", 1),
            "aux n=100: vjp has_aux": ("aux n=100: vjp", 1), "dict: jacfwd": ("dict: grad", 2),
            "list: jacfwd": ("list: grad", 2)}
    for name, t in best.items():
        group = name.split(":")[0]
        ref, passes = refs.get(name, (f"{group}: grad", 1))
        print(f"{name:36s} {t:8.2f}us ({t / passes / best[ref]:.2f}x {ref}"
              f"{' per pass' if passes > 1 else ''})")


def aux_forms():
    """``has_aux=True`` of the forms calls31 reads in the function (a return in a loop, the
    pair built apart, a dict built in a loop) against the same API on the function without
    its aux (µs of CPU time per call)."""
    x, xs = 0.7, np.linspace(0.1, 0.9, 100)
    forms = {"loop return": (loop_aux, loop_plain, x), "pair apart": (apart_aux, small, x),
             "dict in loop": (dict_aux, dict_plain, xs)}
    calls = {}
    for label, (f, plain, arg) in forms.items():
        made = {"grad": (srcad.grad(plain), srcad.grad(f, has_aux=True)),
                "value_and_grad": (srcad.value_and_grad(plain),
                                   srcad.value_and_grad(f, has_aux=True))}
        for api, (without, with_) in made.items():
            calls[f"{label}: {api}"] = lambda d=without, a=arg: d(a)
            calls[f"{label}: {api} has_aux"] = lambda d=with_, a=arg: d(a)
        calls[f"{label}: vjp"] = lambda p=plain, a=arg: srcad.vjp(p, a)[1](1.0)
        calls[f"{label}: vjp has_aux"] = lambda f=f, a=arg: srcad.vjp(f, a, has_aux=True)[1](
            1.0)
    best = timed(calls)
    for name, t in best.items():
        ref = name[:-len(" has_aux")] if name.endswith("has_aux") else name
        print(f"{name:36s} {t:8.2f}us ({t / best[ref]:.2f}x {ref})")


def hand_grad(x):  # small's gradient, as srcad.grad writes it
    return x + x + math.sin(x) + x * math.cos(x)


def hand_value_and_grad(x):
    sin = math.sin(x)
    return sin * x + x * x, x + x + sin + x * math.cos(x)


def hand_forward(x, t):  # value and tangent, as jacfwd's and jvp's code computes them
    sin = math.sin(x)
    return sin * x + x * x, t * (x + x + sin + x * math.cos(x))


def hand_vjp(x):  # the value, the gradient and a pullback made per call
    sin = math.sin(x)
    y = sin * x + x * x
    dx = x + x + sin + x * math.cos(x)

    def pullback(dy):
        return (dx,) if dy.__class__ is float and dy == 1.0 else (dy * dx,)

    return y, pullback


def hand_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return hand_forward(x, t)


def entry(f, *args, wrt=None, has_aux=False, backend="python"):
    """An entry point as srcad's are: ``f`` on every call, its code looked up on it."""
    return f.__dict__["hand"](*args)


def entry_jvp(f, primals, tangents, wrt=None, backend="python"):
    return f.__dict__["hand_jvp"](primals, tangents)


def floors():
    """What no API can go below on ``small`` (µs of CPU time per call, through the same
    ``lambda`` the other tables time; ratio to the hand-written gradient)."""
    small.__dict__["hand"], small.__dict__["hand_jvp"] = hand_vjp, hand_jvp
    x = 0.7

    def ident(v):
        return v

    def signature(f, *args, wrt=None, has_aux=False, backend="python"):
        return args

    g, vg, jf = srcad.grad(small), srcad.value_and_grad(small), srcad.jacfwd(small)
    calls = {
        "a bare frame, ident(x)": lambda: ident(x),
        "a frame of vjp's signature": lambda: signature(small, x),
        "small(x)": lambda: small(x),
        "hand: gradient": lambda: hand_grad(x),
        "hand: value and gradient": lambda: hand_value_and_grad(x),
        "hand: value and tangent (jacfwd)": lambda: hand_forward(x, 1.0),
        "hand: vjp, one frame": lambda: hand_vjp(x)[1](1.0),
        "hand: vjp behind an entry point": lambda: entry(small, x)[1](1.0),
        "hand: jvp, one frame": lambda: hand_jvp((x,), (1.0,)),
        "hand: jvp behind an entry point": lambda: entry_jvp(small, (x,), (1.0,)),
        "srcad: grad": lambda: g(x),
        "srcad: value_and_grad": lambda: vg(x),
        "srcad: jacfwd": lambda: jf(x),
        "srcad: vjp": lambda: srcad.vjp(small, x)[1](1.0),
        "srcad: jvp": lambda: srcad.jvp(small, (x,), (1.0,)),
    }
    best = timed(calls)
    for name, t in best.items():
        ref = "srcad: grad" if name.startswith("srcad") else "hand: gradient"
        print(f"{name:36s} {t:8.3f}us ({t / best[ref]:.2f}x {ref})")
    del small.__dict__["hand"], small.__dict__["hand_jvp"]


def main():
    print("per call, microseconds of CPU time (ratio to grad's per derivative pass; "
          "hessian/hvp: to grad(grad))")
    row("scalar math", small, 0.7)
    row("scalar x4", medium, 0.7)
    row("scalar x16", large, 0.7)
    for n in (2, 100, 10_000):
        row(f"vector n={n}", vector, np.linspace(0.1, 0.9, n))
    row("loop n=100", loop, np.linspace(0.1, 0.9, 100))
    row("loop scalar", loop, 0.4)


if __name__ == "__main__":
    if "--floors" in sys.argv:
        floors()
    elif "--aux" in sys.argv:
        aux_forms()
    else:
        if "--more" not in sys.argv:
            main()
        more()
        aux_forms()
