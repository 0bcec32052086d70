"""A generator function defined inside the differentiated function, and generator
expressions given to NumPy (issue 16, forms17).

``def pairs(): for i in range(n): yield x[i], x[i + 1]`` inside the function, then ``for a,
b in pairs():``, was refused ("srcad cannot differentiate a generator (yield)") while the
same generator at module level was read. srcad now rewrites a nested generator as the module
-level ones are rewritten (:func:`srcad.frontend.generators.rewrite_nested`: the nested
function returning the list it yields), when its values are taken where it is called; a
loop over it that changes what it reads (rebinds a name of the enclosing function it reads,
or writes into one) is refused, as Python's generator would see the change.

``np.stack(v * x for v in xs)`` (and ``np.array``, ``np.concatenate``, ``np.max`` of a
generator expression) was read as if given a list, where NumPy raises, or makes an object
array holding the generator: refused now (``np.sum`` of one calls Python's ``sum``: read).

Generated family: generator bodies × the ways their values are taken, against central finite
differences and autograd (running the generators themselves); grad, value_and_grad, jvp;
Hessians in both modes on samples; refusals with their lines and hints.
"""

from __future__ import annotations

import numpy as np
import pytest
from call_checks import check_first_order
from program_files import load

import srcad
from srcad.errors import UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

#: nested generators (``gen(k)``) and the number of values a step yields
GENERATORS = {
    "pairs": ("    n = len(x) - 1\n\n    def gen(k):\n        for i in range(n):\n"
              "            yield x[i] * k, x[i + 1]\n", 2),
    "yield_from": ("    def gen(k):\n        yield from (v * k for v in x)\n"
                   "        yield x[0] * x[1]\n", 1),
    "branches": ("    def gen(k):\n        for v in x:\n            if v > 0:\n"
                 "                yield np.sin(v) * k\n            else:\n"
                 "                yield v * v\n", 1),
    "reads_later": ("    def gen(k):\n        for i in range(len(w)):\n"
                    "            yield w[i] * k, x[i]\n    w = x * x\n", 2),
    "rows": ("    m = np.reshape(np.concatenate([x, x * 2.0]), (2, 3))\n\n"
             "    def gen(k):\n        for row in m:\n            yield row * k\n", 1),
}
#: how the values are taken; {V}: a step's names, {P}: their use
USES = {
    "loop": ("    total = 0.0\n    for {V} in gen(2.0):\n        total = total + np.sum({P})\n"
             "    return total\n"),
    "sum": "    return np.sum(sum({P} for {V} in gen(1.5)))\n",
    "list": "    vs = list(gen(0.5))\n    return np.sum(np.array([np.sum({P}) for {V} in vs]))\n",
    "enumerate": ("    total = 0.0\n    for i, ({V}) in enumerate(gen(3.0), start=1):\n"
                  "        total = total + i * np.sum({P})\n    return total\n"),
    "twice": "    return np.sum(sum({P} for {V} in gen(1.0)) * sum({P} for {V} in gen(-1.0)))\n",
}


def _text(gen, use):
    body, arity = GENERATORS[gen]
    names = [f"v{k}" for k in range(arity)]
    product = " * ".join(f"({n} + {k + 1}.0)" for k, n in enumerate(names))
    v = ", ".join(names) if arity > 1 else names[0]
    return "def f(x):\n" + body + USES[use].format(V=v, P=product)


X = np.array([0.3, -0.7, 1.1])


def _pair(tmp_path, gen, use):
    text = _text(gen, use)
    f = load(tmp_path, f"g17_{gen}_{use}", text, modules=(np,))
    fa = load(tmp_path, f"g17a_{gen}_{use}", text, modules=(anp,))
    return f, fa


@pytest.mark.parametrize("gen,use", [(g, u) for g in GENERATORS for u in USES])
def test_nested_generators(tmp_path, gen, use):
    f, fa = _pair(tmp_path, gen, use)
    check_first_order(f, fa, X, np.array([0.4, -0.1, 0.6]))


@pytest.mark.parametrize("gen,use", [("pairs", "loop"), ("yield_from", "sum"),
                                     ("branches", "enumerate"), ("rows", "twice")])
def test_hessians_through_nested_generators(tmp_path, gen, use):
    f, fa = _pair(tmp_path, gen, use)
    want = autograd.hessian(fa)(X)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(X), want, rtol=1e-8, atol=1e-10)


def test_generated_code_calls_the_list_builder(tmp_path):
    f = load(tmp_path, "g17_src", _text("pairs", "loop"), modules=(np,))
    src = srcad.source(srcad.grad(f), X)
    code = [line.split("#")[0] for line in src.splitlines()]  # (comments quote the user)
    assert "gen_local_fwd(" in src and not any("yield" in line for line in code)


REFUSED = {
    "kept": ("    it = gen()\n    return sum(it)\n", 7, "kept as an iterator", "for v in gen"),
    "rebinds": ("    t = 0.0\n    for v in gen():\n        x = x * 2.0\n        t = t + v\n"
                "    return t\n", 9, "a loop changing 'x'", "list(gen(...))"),
    "writes": ("    t = 0.0\n    for v in gen():\n        ys.append(v)\n        t = t + v\n"
               "    return t\n", 9, "a loop changing 'ys'", "copy of ys"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_nested_generators(tmp_path, case):
    rest, line, words, hint = REFUSED[case]
    text = ("def f(x):\n    ys = [x[0], x[1]]\n\n    def gen():\n"
            "        for i in range(2):\n            yield ys[i] * x[i]\n" + rest)
    f = load(tmp_path, f"g17_no_{case}", text, modules=(np,))
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert info.value.lineno == line
    assert words in info.value.message and hint in info.value.hint


def test_refused_generator_returning_a_value(tmp_path):
    text = ("def f(x):\n    def gen():\n        yield x[0]\n        return 3\n\n"
            "    return sum(gen())\n")
    f = load(tmp_path, "g17_no_return", text)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert info.value.lineno == 4 and "bare return" in info.value.hint


@pytest.mark.parametrize("call", ["np.stack(v * x for v in x)", "np.array(v * v for v in x)",
                                  "np.concatenate(v * x for v in x)", "np.max(v * v for v in x)",
                                  "np.vstack(v * x for v in x)"])
def test_generator_expressions_numpy_does_not_read(tmp_path, call):
    text = f"import numpy as np\n\n\ndef f(x):\n    return np.sum({call})\n"
    f = load(tmp_path, f"g17_np_{abs(hash(call))}", text)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert info.value.lineno == 5 and "generator expression" in info.value.message
    assert "pass a list" in info.value.hint


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_numpy_sum_of_a_generator_expression(tmp_path):
    """``np.sum(gen)`` calls Python's ``sum`` (NumPy warns): read so."""
    text = "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(v) * v for v in x)\n"
    f = load(tmp_path, "g17_npsum", text)
    g = srcad.grad(f)(X)
    np.testing.assert_allclose(g, np.cos(X) * X + np.sin(X), rtol=1e-12)


def test_refused_endless_generator(tmp_path):
    """Python stops taking values at the loop's break; srcad takes them all first."""
    text = ("def f(x):\n    def gen():\n        i = 0\n        while True:\n"
            "            yield x[i % 3]\n            i += 1\n\n    t = 0.0\n"
            "    for v in gen():\n        if t > 2.0:\n            break\n"
            "        t = t + v * v\n    return t\n")
    f = load(tmp_path, "g17_no_endless", text, modules=(np,))
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert info.value.lineno == 4 and "never ends" in info.value.message


def test_generator_two_levels_down(tmp_path):
    """A generator inside a nested function is read when that function is: its values taken
    at once there are differentiated, kept as an iterator there is refused at its line."""
    text = ("def f(x):\n    def inner(k):\n        def gen():\n            for v in x:\n"
            "                yield v * k\n        return sum(gen()) * {USE}\n"
            "    return inner(2.0)\n")
    f = load(tmp_path, "g17_deep", text.replace("{USE}", "1.5"), modules=(np,))
    np.testing.assert_allclose(srcad.grad(f)(X), np.full(3, 3.0), rtol=1e-12)
    kept = text.replace("        return sum(gen()) * {USE}\n",
                        "        it = gen()\n        return next(it) * next(it)\n")
    f = load(tmp_path, "g17_deep_kept", kept, modules=(np,))
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(X)
    assert info.value.lineno == 6 and "kept as an iterator" in info.value.message
