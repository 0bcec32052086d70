"""(forms34) Calls of a function of the user's that writes into the array it is given, in the
forms people write them (after args33, tests/test_args33_written_args.py):

* a generated family: writes (an item and a slice ``+=``, ``a *= ...``, a view's ``*=``) x
  what the callee returns (nothing, the array itself, a view of it, a number) x call forms
  (``update(a, x)``, ``r = update(a, x)``, ``a = update(a, x)``, keywords, ``update(*(a,
  x))``, a method ``m.update(a, x)``, in a loop), each differentiated (value, grad, jvp;
  Hessians and ``has_aux`` on a share) against central differences and srcad.tape on a
  functional twin (neither the tape nor autograd take writes in place: the twin writes ``a =
  ...`` where the program writes into ``a``, and returns the new ``a`` beside its result);
  the caller's array differentiated or a constant one (``np.ones(3)``) the callee writes into;
  Numba in the long run (a write through a view is the Numba backend's refusal, "write
  into the array at the view's index"). At 4c19c742 ``a = update(a, x)`` of a constant array
  was refused (MissingRuleError: "an array that may hold integers"), ``update(*(a, x))`` too
  (MutationError);
* the generated code reads as written: the call's tuple result unpacked where it is made
  (``(a_1,), update_ctx = update_fields_fwd(a, x)``, no ``update[0]``), one ``# line``
  comment per line of the callee (its added ``return`` repeated the last one);
* refusals name the user's expression (``d["a"]``, srcad's ``t`` before) and tell
  ``update(*args)`` to write the arguments out.
"""

from __future__ import annotations

import itertools
import re
import uuid

import numpy as np
import pytest
import srcad.tape
from sampling import LONG
from test_robustness import load_module
from twin_checks import central

import srcad
from srcad.errors import MutationError, SrcadError

#: name -> (the callee's body writing into a, the twin's statement making the new a)
WRITES = {
    "item": ("a[0] = x[0] * 2.0\n    a[1:] += x[1:] * a[1:]",
             "a = np.concatenate([x[:1] * 2.0, a[1:] + x[1:] * a[1:]])"),
    "bare": ("a *= np.sin(x)", "a = a * np.sin(x)"),
    "view": ("u = a[1:]\n    u *= x[:2]", "a = np.concatenate([a[:1], a[1:] * x[:2]])"),
}
#: name -> what the callee returns (the twin returns the new a beside it)
RETURNS = {"none": None, "self": "a", "view": "a[1:]", "value": "np.sum(a * x)"}
#: name -> (the caller's call, the twin's), {r}: whether the caller reads the result
FORMS = {
    "stmt": ("update(a, x)", "a, _ = update(a, x)", False),
    "result": ("r = update(a, x)", "a, r = update(a, x)", True),
    "rebind": ("a = update(a, x)", "_, a = update(a, x)", False),
    "keywords": ("update(x=x, a=a)", "a, _ = update(a, x)", False),
    "star": ("update(*(a, x))", "a, _ = update(a, x)", False),
    "method": ("m.update(a, x)", "a, _ = update(a, x)", False),
    "loop": ("for k in range(2):\n        update(a, x)",
             "for k in range(2):\n        a, _ = update(a, x)", False),
}
#: name -> the caller's array: differentiated, or constant until the callee writes into it
STARTS = {"active": "a = x * np.arange(1.0, 4.0)", "ones": "a = np.ones(3)"}
ALL = [(w, r, c, s) for w, r, c, s in itertools.product(WRITES, RETURNS, FORMS, STARTS)
       if not (r == "none" and c in ("result", "rebind"))]  # (a None read as an array)
#: CI's cases: each write, return, form (but stmt) and start once; the long run: all 154
CASES = ALL if LONG else [  # (update(a, x) alone: tests/test_args33_written_args.py)
    ("bare", "self", "rebind", "ones"),
    ("view", "view", "result", "active"), ("item", "value", "keywords", "ones"),
    ("bare", "none", "star", "active"), ("view", "self", "method", "ones"),
    ("item", "view", "rebind", "ones"), ("bare", "value", "loop", "active")]
X = np.array([0.7, 1.3, -0.4])
V = np.array([0.3, -1.1, 0.7])


def _program(tmp_path, write, returns, form, start, aux=False):
    body, twin = WRITES[write]
    ret = RETURNS[returns]
    call, twin_call, reads = FORMS[form]
    r = " + np.sum(r)" if reads else ""
    end = "return np.sum(np.sin(a)) * x[0]" + r
    caller = (STARTS[start] + "\n    {call}\n    " + (
        f"return ({end[7:]}), a" if aux else end))
    callee = f"def update(a, x):\n    {body}" + (f"\n    return {ret}" if ret else "")
    if form == "method":
        callee = ("class Stepper:\n    def update(self, a, x):\n        " + body.replace(
            "\n    ", "\n        ") + (f"\n        return {ret}" if ret else ""))
    mine = ("m = Stepper()\n    " if form == "method" else "") + caller.format(call=call)
    text = f"import numpy as np\n\n\n{callee}\n\n\ndef f(x):\n    {mine}\n"
    twin_text = (f"import numpy as np\n\n\ndef update(a, x):\n    {twin}\n    return a, "
                 f"{ret or 'None'}\n\n\ndef f(x):\n    {caller.format(call=twin_call)}\n")
    name = f"forms34_{write}_{returns}_{form}_{start}_{uuid.uuid4().hex[:8]}"
    return (load_module(tmp_path, text, name).f,
            load_module(tmp_path, twin_text, name + "_twin").f, text)


def _jacobian(g, x, h=1e-6):
    return np.stack([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(x.size)], 1)


@pytest.mark.parametrize("write, returns, form, start", CASES)
def test_written_calls(tmp_path, write, returns, form, start):
    f, twin, text = _program(tmp_path, write, returns, form, start)
    assert np.isclose(f(X.copy()), twin(X.copy())), text  # (the twin is the program)
    value, grad = srcad.value_and_grad(f)(X.copy())
    assert np.isclose(value, f(X.copy())), text
    assert np.allclose(grad, central(f, (X.copy(),), 0), atol=1e-5), text
    assert np.allclose(grad, srcad.tape.grad(twin)(X.copy()), atol=1e-9), text
    _, tangent = srcad.jvp(f, (X.copy(),), (V,))
    assert np.isclose(tangent, grad @ V, atol=1e-9), text


@pytest.mark.parametrize("write, returns, form, start", [  # (Numba compiles each part:
    c for c in ALL if c[2] in ("stmt", "rebind") and c[3] == "active"] if LONG else [])  # long)
def test_written_calls_numba(tmp_path, write, returns, form, start):
    f, twin, text = _program(tmp_path, write, returns, form, start)
    if write == "view":  # (the Numba backend's own limit, with its rewrite)
        with pytest.raises(SrcadError, match="write through a view"):
            srcad.grad(f, backend="numba")(X.copy())
        return
    grad = srcad.grad(f, backend="numba")(X.copy())
    assert np.allclose(grad, srcad.tape.grad(twin)(X.copy()), atol=1e-9), text


@pytest.mark.parametrize("write, returns, form, start", CASES if LONG else CASES[:1])
def test_written_calls_hessian(tmp_path, write, returns, form, start):
    f, twin, text = _program(tmp_path, write, returns, form, start)
    want = _jacobian(srcad.tape.grad(twin), X.copy())
    assert np.allclose(srcad.hessian(f)(X.copy()), want, atol=1e-5), text


@pytest.mark.parametrize("write, returns, form, start", CASES if LONG else CASES[3:4])
def test_written_calls_has_aux(tmp_path, write, returns, form, start):
    f, twin, text = _program(tmp_path, write, returns, form, start, aux=True)
    grad, aux = srcad.grad(f, has_aux=True)(X.copy())
    assert np.allclose(aux, f(X.copy())[1]), text
    assert np.allclose(grad, srcad.tape.grad(lambda x: twin(x)[0])(X.copy()), atol=1e-9), text
    assert np.allclose(grad, central(lambda x: f(x)[0], (X.copy(),), 0), atol=1e-5), text


# ------------------------------------------------------------------------- the code's text

def test_tuple_results_unpacked(tmp_path):
    """The callee's tuple result is unpacked where its forward part is called (reverse and
    forward mode), and its backward part names each line once."""
    text = ("import numpy as np\n\n\ndef update(a, x):\n    a[0] = x * 2.0\n    a[1:] += x\n"
            "\n\ndef g(a, x):\n    a[0] = x * 2.0\n    return a.sum()\n\n\n"
            "def f(x):\n    a = np.zeros(3)\n    update(a, x)\n    b = np.ones(3)\n"
            "    r = g(b, x)\n    return a.sum() * x + r * np.sum(b)\n")
    f = load_module(tmp_path, text).f
    df = srcad.grad(f)
    assert np.isclose(df(1.5), (f(1.5 + 1e-6) - f(1.5 - 1e-6)) / 2e-6, atol=1e-5)
    code = srcad.source(df, 1.5)
    assert re.search(r"\(a_1,\), update\w*_ctx = update\w*_fwd\(a, x\)", code), code
    assert re.search(r"\(r, b_1\), g\w*_ctx = g\w*_fwd\(b, x\)", code), code
    assert not re.search(r"= (update|g)\w*\[\d\]", code), code  # (no update[0] read)
    backward = code[code.index("def update_fields_bwd"):]
    comments = re.findall(r"# line \d+", backward.split("\ndef ")[0])
    assert comments and len(comments) == len(set(comments)), backward
    from srcad.api import jvp_source
    tangent = jvp_source(f, 1.5)
    assert re.search(r"\(r, b_1\), \(dr, db_1\) = g\w*_jvp\(b, x, dx\)", tangent), tangent


def test_inlined_tuple_unpacked(tmp_path):
    """A part inlined in a loop: its tuple written out is unpacked into the names."""
    text = ("import numpy as np\n\n\ndef h(x):\n    return np.sin(x), x * 2.0\n\n\n"
            "def f(x):\n    p, q = h(x)\n    s = 0.0\n    for k in range(2):\n"
            "        p, q = h(p)\n        s = s + np.sum(q)\n    return np.sum(p * q) + s\n")
    f = load_module(tmp_path, text).f
    df = srcad.grad(f)
    assert np.allclose(df(X.copy()), central(f, (X.copy(),), 0), atol=1e-5)
    code = srcad.source(df, X.copy())
    assert re.search(r"\(p\w*, q\w*\), h\w*_ctx = h_fwd\(x\)", code), code
    # (2.0 meeting a float64 array: lstm37's shared constant `two`)
    assert re.search(r"p\w*, q\w* = \(?np\.sin\(p\w*\), p\w* \* (2\.0|two)\)?", code), code
    assert not re.search(r"= h\w*\[\d\]", code), code


# ------------------------------------------------------------------------- refused

REFUSED = {
    # an item of a dict given: named as written, the copy's hint on it
    "dict_item": ("def upd(a, x):\n    a[0] = x[0]\n\n\n"
                  "def f(x):\n    d = {'a': np.ones(3)}\n    upd(d['a'], x)  # here\n"
                  "    return np.sum(d['a'] * x)\n", "d['a'] is read afterwards",
                  "pass a copy (d['a'].copy())"),
    "dict_shared": ("def two(p, q):\n    p[0] = q[1] * 2.0\n    return np.sum(q)\n\n\n"
                    "def f(x):\n    d = {'a': x * 1.0}\n    return two(d['a'], d['a'])  # here\n",
                    "two(...) changes d['a'] in place", "pass a copy"),
    # a tuple spread by its name: the arguments written out are followed ((forms35) a name
    # bound to a display and read only so is spread: tests/test_forms35_spread_names.py)
    "star_name": ("def upd(a, x):\n    a[0] = x[0]\n\n\n"
                  "def f(x):\n    a = np.ones(3)\n    args = (a, x)\n    upd(*args)  # here\n"
                  "    return np.sum(args[0] * x)\n", "a is read afterwards",
                  "write upd(a, x) for upd(*args)"),
    "star_list": ("def upd(a, x):\n    a[0] = x[0]\n\n\n"
                  "def f(x):\n    a = np.ones(3)\n    xs = [a, x]\n    xs[1] = x * 2.0\n"
                  "    upd(*xs)  # here\n    return np.sum(a * x)\n", "a is read afterwards",
                  "write the arguments of upd(*xs) out"),
    # the array returned, written again while the caller reads the one it gave
    "returned_written": ("def upd(a, x):\n    a[0] = x[0]\n    return a\n\n\n"
                         "def f(x):\n    a = np.ones(3)\n    b = upd(a, x)\n"
                         "    b[2] = x[1] * 3.0  # here\n    return np.sum(a * x)\n",
                         "b shares memory with a", "b = b.copy()"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused(tmp_path, case):
    body, message, hint = REFUSED[case]
    text = f"import numpy as np\n\n\n{body}"
    f = load_module(tmp_path, text).f
    with pytest.raises(MutationError) as info:
        srcad.grad(f)(X.copy())
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if "# here" in t)
    assert info.value.lineno == line, (text, str(info.value))
    assert message in str(info.value), (text, str(info.value))
    assert hint in (info.value.hint or ""), (text, str(info.value))
    assert not re.search(r"\bt(_\d+)?\b", str(info.value).split("\n")[0]), str(info.value)


LISTS = {
    "append": ("def grow(ys, x):\n    ys.append(x[0] * ys[0])\n\n\n"
               "def f(x):\n    ys = [x[1], x[2] * 2.0]\n    grow(ys, x)\n"
               "    return ys[0] * ys[-1] + len(ys)\n"),
    "pop": ("def shrink(ys):\n    ys.pop()\n\n\n"
            "def f(x):\n    ys = [x[1] * x[0], x[2]]\n    shrink(ys)\n"
            "    return ys[0] * len(ys) + ys[-1]\n"),
}


@pytest.mark.parametrize("case", list(LISTS))
def test_list_length_changed(tmp_path, case):
    """A list built in the function whose length the callee changes (``changed_lists``)."""
    f = load_module(tmp_path, f"import numpy as np\n\n\n{LISTS[case]}").f
    grad = srcad.grad(f)(X.copy())
    assert np.allclose(grad, central(f, (X.copy(),), 0), atol=1e-6)
    assert np.allclose(grad, srcad.tape.grad(f)(X.copy()), atol=1e-9)
