"""Second derivatives of programs whose first derivative keeps numbers on stacks: srcad
differentiating its own generated code.

The first derivative of a loop saves, per iteration, a tuple of values on a list (its stack)
and takes them back in the backward sweep; one stack may also hold single numbers (a
branch's saved test), and a callee's (or a decorated function's) stacks travel in the context
its forward part hands its backward part. When that code is differentiated again, what comes
off a stack must keep its kind, or ``d += v`` on a number looks like a write into an array
some other name may hold (the long property run's ``MutationError: da_4 shares memory with
_dt_22``: `srcad.analysis.stacks`, ``__srcad_param_stacks__``).

A generated family: `max`/`min` carried through `while` loops, nested loops, a branch inside
(its test saved on the same stack), `*args` helpers called with a tuple (`h(*t)`), helper
calls inside the loop, `f` decorated or not. Each second derivative (reverse over reverse,
forward over reverse) is compared with Ridders' finite differences of srcad's first
derivative and, where installed, with autograd's Hessian.
"""

from __future__ import annotations

import functools
import itertools
import math

import fd_reference
import pytest
from sampling import sample, sample_by

import srcad

try:
    import autograd
    import autograd.numpy as anp
except ImportError:  # pragma: no cover - autograd is a test extra
    autograd = None

HELPERS = '''
def h_twice(*args):
    return args[0] * 2.0 + args[-1]


def h_poly(a, b):
    return a * b + 0.5 * a * a - b


def triple(fn):
    @functools.wraps(fn)
    def w(*a, **k):
        return 3.0 * fn(*a, **k)
    return w
'''

#: how the loop's start value is made: through a `*args` helper and a tuple, or plainly
STARTS = {
    "star": ["ctx = (x ** 0, x + x, y + x)", "a = h_twice(*ctx) + ctx[0]"],
    "plain": ["a = x * 0.5 + y"],
}
#: the body of the inner loop: a running extremum, with or without a branch before it
INNER = {
    "extremum": ["a = {op}(a, (1.0 + x * x) ** (a * 0.1) / (2.0 + np.cos(m * a + y)))"],
    "branch": ["if a * m > 0.3:", "    t = a * y", "else:", "    t = b / (2.0 + np.cos(x))",
               "a = {op}(a, np.sin(t) + x * 0.25 * m)"],
}


_CHOICES = (["star", "plain"], ["extremum", "branch"], ["max", "min"], [1, 2], [1, 2],
            [False, True])


def program(start, inner, op, outer, inner_n, decorated):
    """The source of ``f(x, y)`` for one member of the family."""
    lines = list(STARTS[start])
    lines += ["n = 0", f"while n < {outer}:", "    n = n + 1",
              "    b = h_poly(a + 0.5, x * x)", "    m = 0",
              f"    while m < {inner_n} and x < 5.0:", "        m = m + 1"]
    lines += ["        " + line.format(op=op) for line in INNER[inner]]
    lines += ["    for k in range(2):", f"        a = {op}(a, b * 0.1 * k + y)"]
    lines.append("return x + a * y + np.sin(a)")
    head = "@triple\n" if decorated else ""
    return head + "def f(x, y):\n" + "\n".join("    " + line for line in lines) + "\n"


#: half of the full product (the members whose choices' positions sum to an even number):
#: every pair of choices still meets
CASES = [tuple(choices[k] for choices, k in zip(_CHOICES, ks)) for ks in itertools.product(
    *(range(len(c)) for c in _CHOICES)) if sum(ks) % 2 == 0]


def load(source, numpy):
    namespace = {"np": numpy, "functools": functools, "math": math}
    exec(compile(HELPERS + "\n" + source, f"<second order family {hash(source)}>", "exec"),
         namespace)
    return namespace["f"]


def along(first, args, j):
    """``t -> first(args with args[j] + t)``."""
    def phi(t):
        return float(first(*[a + (t if k == j else 0.0) for k, a in enumerate(args)]))
    return phi


def check_second_order(f, args, source=None, rtol=1e-6):
    """Every d/dj (df/di) of ``f`` at ``args``, reverse over reverse and forward over reverse,
    against Ridders' differences of srcad's df/di and, given ``source`` (written with ``np``)
    and autograd installed, autograd's; whether finite differences judged every one."""
    judged_all = True
    n = len(args)
    for i in range(n):
        first = srcad.grad(f, wrt=i)
        for j in range(n):
            ref = fd_reference.reference(along(first, args, j))
            assert ref is not None
            rev = float(srcad.grad(first, wrt=j)(*args))
            tangents = tuple(1.0 if k == j else 0.0 for k in range(n))
            fwd = float(srcad.jvp(first, tuple(args), tangents)[1])
            assert rev == pytest.approx(fwd, rel=1e-10, abs=1e-12), (i, j)
            problem, judged = fd_reference.judge(rev, ref, 0.0, rtol=rtol)
            assert problem is None, (i, j, rev, problem)
            judged_all = judged_all and judged
            if source is not None and autograd is not None:
                other = autograd.grad(autograd.grad(load(source, anp), i), j)(*args)
                assert rev == pytest.approx(float(other), rel=1e-9, abs=1e-12), (i, j)
    return judged_all


POINTS = [(0.37, 0.61), (-0.45, 0.83)]
#: CI: every twelfth program (each point in turn); the long run all of them
STACKS = sample(CASES, 12)


@pytest.mark.parametrize("k, case", list(enumerate(STACKS)),
                         ids=["-".join(map(str, c)) for c in STACKS])
def test_second_derivative_through_stacks(k, case, tmp_path):
    source = program(*case)
    path = tmp_path / "family.py"
    path.write_text("import functools\nimport numpy as np\n" + HELPERS + "\n" + source)
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # srcad reads the file
    f = namespace["f"]
    args = POINTS[k % 2]
    judged = check_second_order(f, args, source)
    assert judged or autograd is not None, "no second opinion"


#: programs of the long property run whose second derivatives were refused
#: (``MutationError: da_4 shares memory with _dt_22``; ``ddx_4 shares memory with _dt_1`` in a
#: decorated f's backward part, its stack in the context)
FOUND = [
    ("""def f(x, y):
    y_ctx = ((x ** 0), (x + x), (y + x),)
    a = h_twice(*y_ctx) + y_ctx[0]
    n1 = 0
    while n1 < 1:
        n1 = n1 + 1
        v2 = b = h_poly(((a + 0.5) + abs(x)), ((1.0 + x ** 2) ** math.exp(x)))
        n3 = 0
        while n3 < 1 and x < 5.0:
            n3 += 1
            a = max(a, (((1.0 + pow(x, 2) ** 2) ** (a + x)) / (2.0 + math.cos((((n3 + 1) * a)\
                or (v2 / (2.0 + math.cos(x))))))))
        else:
            b = b + sum([v2 for k4 in range(1)]) * 0.5
    return x + a + ((1.0 + (y / 3.0) ** 2) ** math.log(1.0 + x * x))
""", (0.5460975127846791, 0.5441132281462924)),
    ("""@triple
def f(x, y, z):
    v1 = y
    value = []
    for i2 in range(3):
        x *= (i2 + 1)
        x = max(x, (h_poly(b=y, a=z) + (x and v1)))
        value.append(abs((z if -1.0 < z < y else y)))
    v3 = len(value) + sum(value)
    return x
""", (0.3, -0.2, 0.45)),
    # srcad's scalar sign() (the gradient of abs) is a number; fill(v, ys) holds v
    ("""def f(x, y):
    da = v1 = h_poly(b=(-(x + x)), a=h_poly(b=(y - y), a=0.5))
    return x + da + abs((da and y))
""", (0.6933675210928338, 0.4991341765026477)),
    ("""def f(x, y, z):
    sign = []
    for i1 in range(2):
        for i2 in range(2):
            sign.append((x ** 0))
            sign.append((x ** 3))
            x, dy = y, y
        sign.append((x and ((i1 + 1) * z)))
    v3 = sum(sign)
    return y + (v3 * (0.5 ** 2)) + x * z
""", (0.31, -0.57, -0.67)),
]


@pytest.mark.parametrize("source, args", FOUND)
def test_programs_the_long_run_found(source, args, tmp_path):
    import gen_programs

    module = gen_programs.load(gen_programs.Program(gen_programs.HELPERS + "\n\n" + source,
                                                    ("x", "y")), tmp_path)
    assert check_second_order(module.f, args)


#: lists whose items come back through ``pop()`` and ``ys[i]`` (their kinds: what was put
#: in; a gradient list, ``zeros_like(ys)``, holds zeros of the items' kinds), then a loop
#: that swaps and updates in place (``x += ...``), the first derivative's ``dx += v``
def list_program(n, op, popped, swap):
    lines = ["v = []", f"for i in range({n}):", f"    v.append({op}(x * (i + 1), w) * 0.5)",
             "v.append(math.tanh(x))"]
    lines += ["u = v.pop() * 2.0"] if popped else ["u = v[-1] * 2.0"]
    lines += ["s = v[0] * 2.0 if len(v) > 0 else 1.0", "for k in range(2):"]
    lines += ["    w, x = x, w"] if swap else []
    lines += ["    x += math.sin((x - w) * 0.5 + k)", "return s + u * w + x * x"]
    return "def f(x, w):\n" + "\n".join("    " + line for line in lines) + "\n"


#: a list popped, then a loop swapping two names (found by the long run; refused while
#: ``ys.pop()`` had a value of unknown kind: ``dx_3 shares memory with dx_2``)
LIST_CASES = list(itertools.product([1, 2], ["max", "min"], [True, False], [True, False]))


#: CI: each value of each dimension once (sampling.sample_by); the long run all 16
@pytest.mark.parametrize("n, op, popped, swap", sample_by(LIST_CASES, lambda c: c[1], 4))
def test_second_derivative_through_list_items(n, op, popped, swap, tmp_path):
    source = list_program(n, op, popped, swap)
    path = tmp_path / "lists.py"
    path.write_text("import math\n\n" + source)
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    assert check_second_order(namespace["f"], (0.42, -0.31))


#: a callee (or a decorated f: its code is a callee of the wrapper) that iterates
#: ``reversed(t)``: its forward part hands the iterator on in its context, whose gradient
#: in the second derivative is a zero meeting the list gradient of ``list(reversed(t))``
#: (``runtime.add``: a zero number added to a list is the list)
def reversed_program(form, decorated, n):
    body = ["t = []", f"for i in range({n}):", "    t.append(y * z * (i + 1) + z)"]
    if form == "zip":
        body += ["s = 0.0", "for a, b in zip(t, reversed(t)):", "    s = s + a * b * 0.25"]
    elif form == "reversed":
        body += ["s = 0.0", "for b in reversed(t):", "    s = s * 0.5 + b * b"]
    else:
        body += ["s = sum(list(reversed(t))[:2]) * y"]
    inner = ("@triple\n" if decorated else "") + "def inner(y, z):\n" + "\n".join(
        "    " + line for line in body) + "\n    return s\n"
    return inner + "\n\ndef f(y, z):\n    return inner(y, z) * 2.0 + y\n"


REVERSED_CASES = list(itertools.product(["zip", "reversed", "list"], [False, True], [2, 3]))


#: CI: each form, decoration and length once (sampling.sample_by); the long run all 12
SAMPLED_REVERSED = sample_by(REVERSED_CASES, lambda c: c[0], 4)


@pytest.mark.parametrize("case", SAMPLED_REVERSED,
                         ids=["-".join(map(str, c)) for c in SAMPLED_REVERSED])
def test_second_derivative_of_a_callee_iterating_reversed(case, tmp_path):
    source = reversed_program(*case)
    path = tmp_path / "rev.py"
    path.write_text("import functools\nimport numpy as np\n" + HELPERS + "\n" + source)
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    assert check_second_order(namespace["f"], (0.3, 0.7), source)
