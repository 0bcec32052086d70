"""Session 37's soundness finds on 1768c050 (session 36's element fills and written state).

1. Second derivatives of element fills (``out[k] = out[k - 1] * x[k]``, ``out[k] = x[k] ** 2``
   then ``np.sum(out)`` read in the loop, a fill in two nested loops) were refused in srcad's
   own gradient code (false refusals, all four second-order forms; computed on 56e98853):
   the backward sweep zeroes ``dout[k] = 0.0`` in place (fills36), and differentiated again
   ``dt = dout[k]`` was not known to be a number (``unbroadcast``'s and ``zeros_array``'s
   results had no rank, ``zeros_array``'s no kind: :mod:`srcad.analysis.value_kinds`); and
   the gradient code writing its fill in place (``out_2 = out_1; out_2[k] = v``,
   :mod:`srcad.transform.owned_writes`) was itself read again (its plain form is made now).
2. ``h[0].append(x * 2.0)`` (or ``t = h[0]; t.append(...)``) of a list of lists, ``h`` read
   afterwards: a WRONG gradient (``2x`` for ``4x``; SSA sees ``t`` change, not ``h``), for
   years; since session 36 also on a list the caller gives. Refused now
   (:mod:`srcad.analysis.item_changes`), unless ``h`` is read only at other constant places.
3. ``jvp`` of a function appending a differentiated value to a list it is given (not
   differentiated): ``NameError: dh`` (the tangent of ``h`` never set); zero on entry now.

Each against central differences and autograd (a twin: Python lists where the program fills
an array). Cheap by default; every case under SRCAD_LONG_PROPERTIES=1."""

import itertools

import autograd
import numpy as np
import pytest

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

# ---- 1. second derivatives of element fills -----------------------------------------------

#: (setup, body of the loop(s), result); {arr} is the whole array (np.array(out) in the twin)
FILLS = {
    "chain": ("out = {ones}\n    for k in range(1, 4):\n        out[k] = out[k - 1] * {e}\n",
              "np.sum({arr} * x)"),
    "read_mid": ("out = {zeros}\n    s = 0.0\n    for k in range(4):\n        out[k] = {e}\n"
                 "        s = s + np.sum({arr}) * x[k]\n", "s"),
    "nested": ("out = {zeros}\n    for j in range(2):\n        for k in range(4):\n"
               "            out[k] = out[(k + 1) % 4] * {e} + x[j]\n", "np.sum({arr} ** 2)"),
}
ELEMENTS = ["x[k]", "np.sin(x[k])", "x[k] ** 2 * x[0]"]
CASES = list(itertools.product(FILLS, ELEMENTS, ["rev", "fwd"]))
#: by default three cases refused on 1768c050
CHOSEN = CASES if LONG else [("chain", "x[k]", "rev"), ("read_mid", "np.sin(x[k])", "fwd"),
                             ("nested", "x[k]", "rev")]


def _fill_text(form, e, twin=False):
    setup, result = FILLS[form]
    if twin:  # a Python list filled, read whole as an array
        body = setup.format(ones="[1.0] * 4", zeros="[0.0] * 4", e=e, arr="np.array(out)")
        return f"import autograd.numpy as np\n\n\ndef f(x):\n    {body}    return " + \
            result.format(arr="np.array(out)") + "\n"
    body = setup.format(ones="np.ones(4)", zeros="np.zeros(4)", e=e, arr="out")
    return f"import numpy as np\n\n\ndef f(x):\n    {body}    return {result.format(arr='out')}\n"


@pytest.mark.parametrize("form, e, mode", CHOSEN)
def test_second_derivatives_of_fills(load_module, form, e, mode):
    key = abs(hash((form, e)))
    f = load_module(f"fills37_{key}", _fill_text(form, e)).f
    twin = load_module(f"fills37_twin_{key}", _fill_text(form, e, True)).f
    x = np.array([0.7, 1.3, -0.4, 0.9])
    want = autograd.hessian(twin)(x)
    grad = srcad.grad(f)
    np.testing.assert_allclose(grad(x), autograd.grad(twin)(x), rtol=1e-10, atol=1e-12)
    h = 1e-5
    steps = np.array([(grad(x + h * u) - grad(x - h * u)) / (2 * h) for u in np.eye(4)])
    np.testing.assert_allclose(steps, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), want, rtol=1e-9, atol=1e-10)


# ---- 2. a list of lists changed in place through an item ----------------------------------

#: how the inner list is changed; {v}: the differentiated value put in
CHANGES = {"item": "h[0].append({v})", "named": "t = h[0]\n    t.append({v})",
           "extend": "h[0].extend([{v}])", "pop": "h[0].append({v})\n    h[0].append(x)\n"
           "    h[0].pop()"}
#: the list of lists
MADE = ["[[]]", "[[], [1.0]]", "[[1.0]]"]
#: what reads it afterwards, through h
READS = ["np.sum(h[0][-1] * x)", "np.sum(h[0][-1] ** 2)",
         "len(h[0]) * np.sum(x) + np.sum(h[0][-1])"]
VALUES = ["x * 2.0", "np.sin(x)"]
REFUSED = list(itertools.product(CHANGES, MADE, READS, VALUES))
REFUSED_CHOSEN = REFUSED if LONG else REFUSED[::23]


def _list_text(change, made, read, v):
    return (f"import numpy as np\n\n\ndef f(x):\n    h = {made}\n"
            f"    {CHANGES[change].format(v=v)}\n    return {read}\n")


@pytest.mark.parametrize("change, made, read, v", REFUSED_CHOSEN)
def test_item_of_a_list_changed_in_place_refused(load_module, change, made, read, v):
    f = load_module(f"items37_{abs(hash((change, made, read, v)))}",
                    _list_text(change, made, read, v)).f
    x = np.array([0.3, -0.7])
    f(x)  # runs plainly
    for derivative in (lambda: srcad.grad(f)(x), lambda: srcad.jvp(f, (x,), (x,))):
        with pytest.raises(srcad.SrcadError) as info:
            derivative()
        assert info.value.lineno is not None and "in place" in str(info.value)


def test_list_given_changed_through_an_item_refused():
    """The same through a list the caller gives (srcad.written_state's copies): WRONG on
    1768c050 (``[0.6, -1.4]`` for ``[1.2, -2.8]``)."""
    def f(x, h):
        h[0].append(x * 2.0)
        return np.sum(h[0][0] * x)

    with pytest.raises(srcad.SrcadError, match=r"changes h\[0\] in place"):
        srcad.grad(f)(np.array([0.3, -0.7]), [[]])


def _pair(x):
    return [x * x, 2.0 * x, np.sin(x)], x * 3.0


def test_other_places_read_after_still_differentiated():
    """``ys = p[0]; ys.pop()`` then ``p[1]`` read: another place, no refusal."""
    def f(x):
        p = _pair(x)
        ys = p[0]
        ys.pop()
        return np.sum(ys[-1] * p[1])

    def twin(x):
        return np.sum(2.0 * x * x * 3.0)

    def outer(x):  # f a callee: its split's context holds p (refused there by mutant seed 3702)
        return np.sum(np.tanh(x) * f(x))

    def outer_twin(x):
        return np.sum(np.tanh(x) * twin(x))

    x = np.array([0.3, -0.7])
    got = srcad.grad(f)(x)
    np.testing.assert_allclose(got, central(f, (x,), 0), rtol=1e-6)
    np.testing.assert_allclose(got, autograd.grad(twin)(x), rtol=1e-12)
    want = autograd.hessian(outer_twin)(x)
    for mode in ("rev", "fwd"):
        np.testing.assert_allclose(srcad.hessian(outer, mode=mode)(x), want, rtol=1e-9)


# ---- 3. jvp of a function appending into a list it is given --------------------------------

APPENDS = {"one": "h.append(x * 2.0)\n    return np.sum(h[-1] * x)",
           "two_pop": "h.append(np.sin(x))\n    h.append(x)\n    h.append(x * x)\n    h.pop(0)\n"
                      "    return np.sum(h[-1] * h[-2])",
           "extend": "h.extend([x * 2.0, x])\n    return np.sum(h[-2] * h[-1])"}
GIVEN = [[], [np.ones(2)]]
JVP_CASES = list(itertools.product(APPENDS, range(len(GIVEN))))
JVP_CHOSEN = JVP_CASES if LONG else JVP_CASES[::2]


@pytest.mark.parametrize("form, given", JVP_CHOSEN)
def test_jvp_appending_into_a_list_given(load_module, form, given):
    key = abs(hash((form, given)))
    f = load_module(f"given37_{key}", "import numpy as np\n\n\ndef f(x, h):\n    "
                    + APPENDS[form] + "\n").f
    twin = load_module(f"given37_twin_{key}", "import autograd.numpy as np\n\n\ndef f(x, h):"
                       "\n    h = list(h)\n    " + APPENDS[form] + "\n").f
    x, t = np.array([0.3, -0.7]), np.array([1.0, 0.5])
    mine, plain = [a.copy() for a in GIVEN[given]], [a.copy() for a in GIVEN[given]]
    value, tangent = srcad.jvp(f, (x, mine), (t,), wrt=(0,))
    assert value == pytest.approx(f(x, plain), rel=1e-12)
    assert len(mine) == len(plain) and all(np.allclose(a, b) for a, b in zip(mine, plain))
    want = np.dot(autograd.grad(twin)(x, GIVEN[given]), t)
    assert tangent == pytest.approx(want, rel=1e-10)
    h = 1e-6
    steps = (f(x + h * t, list(GIVEN[given])) - f(x - h * t, list(GIVEN[given]))) / (2 * h)
    assert tangent == pytest.approx(steps, rel=1e-6)
