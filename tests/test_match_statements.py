"""``match`` statements: read as the ``if`` tests Python makes (srcad.frontend.matches).

They were refused ("a match statement"). A generated family of match statements (literal,
alternative, guard, sequence with and without a star, mapping, class, capture and wildcard
cases; the subject a mode string, an int, a tuple of differentiated values, a dict, an
object) x where the differentiated value flows (the branch bodies, the captures), each
checked against central finite differences and autograd (which runs the statement as
Python does), with jvp and both Hessian modes; the branch each input takes is Python's
(an array is not a sequence pattern's subject). Refusals: a capture inside ``|``, ``**rest``,
positional sub-patterns of a class without ``__match_args__``.
"""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load

import srcad
from srcad.errors import UnsupportedSyntaxError

HEAD = ("class Pt:\n    __match_args__ = ('a', 'b')\n\n    def __init__(self, a, b):\n"
        "        self.a = a\n        self.b = b\n\n\nPT = Pt(2, 'k')\n\n\n")

#: bodies of f(w, k): w a vector of 3, k an int selecting the path
MATCHES = {
    "literal": ("match k:\n    case 0:\n        y = w * w\n    case 1:\n        y = np.sin(w)\n"
                "    case _:\n        y = w * k\n"),
    "alternative": ("match k:\n    case 0 | 1:\n        y = w ** 3\n    case 2 | 3:\n"
                    "        y = np.exp(w)\n    case other:\n        y = w * other\n"),
    "guard": ("match k:\n    case n if n > 1 and w[0] > 0:\n        y = w * n\n"
              "    case n if n > 0:\n        y = w * w * n\n    case _:\n        y = -w\n"),
    "sequence": ("t = (w[0], w[1] * k, w[2])\nmatch t:\n    case (a, b, c) if k == 0:\n"
                 "        y = np.array([a * b, c, a])\n    case (a, *rest):\n"
                 "        y = np.array([a, sum(rest), a * len(rest)])\n"),
    "mapping": ("d = {'s': w * 2.0, 'k': k}\nmatch d:\n    case {'k': 0, 's': s}:\n"
                "        y = s * s\n    case {'s': s}:\n        y = np.tanh(s) * d['k']\n"),
    "class": ("match PT:\n    case Pt(n, 'k') if k > 0:\n        y = w * n * k\n"
              "    case Pt(a=n):\n        y = w ** n\n"),
    "string": ("mode = ('sq', 'sin', 'other')[k % 3]\nmatch mode:\n    case 'sq':\n"
               "        y = w * w\n    case 'sin':\n        y = np.sin(w) * w\n"
               "    case _:\n        y = w\n"),
    "in_loop": ("y = w\nfor i in range(k + 2):\n    match i % 3:\n        case 0:\n"
                "            y = y * w\n        case 1:\n            continue\n"
                "        case _:\n            y = y + np.cos(w)\n"),
}
KS = [0, 1, 2, 3]
W = np.array([0.4, -0.7, 1.2])


def _text(name):
    body = "".join(f"    {line}\n" for line in MATCHES[name].split("\n") if line)
    return HEAD + f"def f(w, k):\n{body}    return np.sum(y * y)\n"


def _fd(f, w, k, h=1e-6):
    return np.array([(f(w + h * e, k) - f(w - h * e, k)) / (2 * h) for e in np.eye(len(w))])


@pytest.mark.parametrize("name,k", list(itertools.product(MATCHES, KS)))
def test_a_match_statement(tmp_path, name, k):
    f, fa = load(tmp_path, f"mt_{name}_{k}", _text(name), modules=(np, anp))
    value, g = srcad.value_and_grad(f)(W.copy(), k)
    assert value == pytest.approx(f(W.copy(), k), rel=1e-12)
    np.testing.assert_allclose(g, _fd(f, W, k), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(W.copy(), k), rtol=1e-10, atol=1e-12)
    w2 = -W  # the other side of the guards on w
    np.testing.assert_allclose(srcad.grad(f)(w2, k), autograd.grad(fa)(w2, k), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("name", list(MATCHES))
def test_forward_mode_and_second_order(tmp_path, name):
    f, fa = load(tmp_path, f"mth_{name}", _text(name), modules=(np, anp))
    u = np.array([0.5, -1.0, 0.25])
    for k in (0, 2):
        _, t = srcad.jvp(f, (W.copy(), k), (u, 0))
        assert t == pytest.approx(float(autograd.grad(fa)(W.copy(), k) @ u), rel=1e-10)
        want = autograd.hessian(fa)(W.copy(), k)
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(srcad.hessian(f, mode=mode)(W.copy(), k), want,
                                       rtol=1e-8, atol=1e-10)


def test_an_array_is_not_a_sequence_subject(tmp_path):
    text = ("def f(w, k):\n    match w:\n        case [a, b, c]:\n            return a * b\n"
            "        case _:\n            return np.sum(w ** 3)\n")
    f = load(tmp_path, "mt_array", text, modules=(np,))
    np.testing.assert_allclose(srcad.grad(f)(W.copy(), 0), 3 * W ** 2, rtol=1e-12)


REFUSED = {
    "capture in |": ("match (k, 1):\n        case (0, n) | (n, 0):\n            return w[0] * n\n",
                     "alternative", "one case per alternative"),
    "rest": ("match {'k': k}:\n        case {'k': n, **rest}:\n            return w[0] * n\n",
             "**rest", "keys you need"),
    "no match args": ("match w:\n        case Plain(1):\n            return w[0]\n",
                      "__match_args__", "name the attributes"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_is_refused(tmp_path, case):
    body, words, hint = REFUSED[case]
    text = ("class Plain:\n    pass\n\n\ndef f(w, k):\n    " + body +
            "    return np.sum(w)\n")
    f = load(tmp_path, f"mtr_{case.replace(' ', '_').replace('|', 'or')}", text, modules=(np,))
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(f)(W.copy(), 1)
    assert words in str(info.value) and hint in info.value.hint
    assert info.value.lineno == 7
