"""Functions chosen at run time and passed on (issue 16): ``act = ACTS[name]`` or ``act = np.tanh
if smooth else softplus`` passed to a helper (``layer(W, x, act)``), and fields set so in
``__init__`` (``self.act = ACTS[act]``, ``self.act = A if kind == "t" else B``, ``self.act =
getattr(np, act)``) called by a method. Each is one of functions srcad knows when it makes the
code: the call becomes a choice among them (``if act is np.tanh: layer(W, x, np.tanh) ...``),
exact. A generated family (chooser x user x function), each program written to a file and
imported on NumPy and on autograd.numpy: gradients against central differences and autograd,
value_and_grad, jvp; a Hessian on samples; the run-time check of a table changed in place."""

import itertools

import numpy as np
import pytest
from call_checks import check_first_order
from class_families import fd, module_of
from sampling import sample_by

import srcad

HEAD = """import numpy as np


def softplus(z):
    return np.log(1.0 + np.exp(z))


ACTS = {"tanh": np.tanh, "sin": np.sin, "softplus": softplus}
FNS = (np.tanh, np.sin, softplus)
X = np.array([0.3, -0.7, 1.1])


def layer(W, x, act):
    return act(x @ W)


def net(W, x, act):
    h = layer(W, x, act)
    return layer(W[:2].T, h, act) + h[0]
"""

KEYS = ("tanh", "sin", "softplus")

#: how the function is chosen: (key of the function in ACTS -> (source, call of f's extra args))
CHOOSERS = {
    "dict_param": lambda k: ("    act = ACTS[name]\n", f"name={k!r}"),
    "dict_const": lambda k: (f"    act = ACTS[{k!r}]\n", None),
    "tuple_index": lambda k: ("    act = FNS[k]\n", f"k={KEYS.index(k)}"),
    "ifexp": lambda k: ("    act = np.tanh if name == 'tanh' else (np.sin if name == 'sin' "
                        "else softplus)\n", f"name={k!r}"),
    "if_stmt": lambda k: ("    if name == 'tanh':\n        act = np.tanh\n    elif name == "
                          "'sin':\n        act = np.sin\n    else:\n        act = softplus\n",
                          f"name={k!r}"),
}

USERS = {
    "helper": "    return np.sum(layer(w.reshape(3, 2), X, act) ** 2)\n",
    "nested": "    return np.sum(net(w.reshape(3, 2), X, act) ** 2)\n",
    "loop": "    h = X[:2]\n    for i in range(3):\n        h = layer(w.reshape(3, 2, 2)[i], h, "
            "act) + 0.1 * h\n    return np.sum(h ** 2)\n",
    "keyword": "    return np.sum(layer(w.reshape(3, 2), X, act=act) ** 2)\n",
}

SIZES = {"helper": 6, "nested": 6, "loop": 12, "keyword": 6}


def _program(chooser, user, key):
    body, extra = CHOOSERS[chooser](key)
    params = "w" + {None: ""}.get(extra, ", " + (extra or ""))
    return f"\n\ndef f({params}):\n" + body + USERS[user]


#: every chooser with every user once, every sixth of the other keys (all in the long run,
#: SRCAD_LONG_PROPERTIES=1: CI's time budget)
CASES = sample_by([(c, u, k) for c, u, k in itertools.product(CHOOSERS, USERS, KEYS)
                   if not (c == "dict_const" and u == "keyword")], lambda c: c[:2], 6)


@pytest.mark.parametrize("chooser,user,key", CASES)
def test_passed_function_chosen(tmp_path, chooser, user, key):
    body = _program(chooser, user, key)
    stem = f"chosen_{chooser}_{user}_{key}"
    f = module_of(tmp_path, HEAD, stem, body).f
    fa = module_of(tmp_path, HEAD, stem + "_ag", body, numpy="autograd.numpy").f
    rng = np.random.default_rng(len(stem))
    n = SIZES[user]
    check_first_order(f, fa, rng.normal(size=n) * 0.5, rng.normal(size=n))


CLASSES = HEAD + '''

class Pick:
    def __init__(self, W, act="tanh"):
        self.W = W
        self.act = ACTS[act]

    def __call__(self, x):
        return self.act(x @ self.W)


class Choose:
    def __init__(self, W, kind):
        self.W = W
        self.act = np.tanh if kind == "tanh" else (np.sin if kind == "sin" else softplus)

    def __call__(self, x):
        return self.act(x @ self.W)


class Named:
    def __init__(self, W, act="tanh"):
        self.W = W
        self.act = getattr(np, act)

    def __call__(self, x):
        return layer(self.W, x, self.act)
'''

#: the construction: (class, its arguments after W, f's extra parameter)
BUILDS = {
    "pick_param": ("Pick", "name", "name"),
    "pick_const": ("Pick", "{key!r}", None),
    "pick_keyword": ("Pick", "act=name", "name"),
    "choose_param": ("Choose", "name", "name"),
    "choose_const": ("Choose", "{key!r}", None),
    "getattr_const": ("Named", "{key!r}", None),
    "getattr_default": ("Named", "", None),
}


def _field_program(build, key):
    cls, args, extra = BUILDS[build]
    args = args.format(key=key)
    params = "w" + (f", {extra}={key!r}" if extra else "")
    made = f"{cls}(w.reshape(3, 2){', ' + args if args else ''})"
    return (f"\n\ndef f({params}):\n    m = {made}\n    h = m(X)\n"
            f"    return np.sum(h ** 2) + np.sum(m(X * 0.5))\n")


FIELD_CASES = [(b, k) for b, k in itertools.product(BUILDS, KEYS)
               if not (b.startswith("getattr") and k == "softplus")
               and not (b == "getattr_default" and k != "tanh")]


@pytest.mark.parametrize("build,key", FIELD_CASES)
def test_field_function_chosen(tmp_path, build, key):
    body = _field_program(build, key)
    stem = f"field_{build}_{key}"
    f = module_of(tmp_path, CLASSES, stem, body).f
    fa = module_of(tmp_path, CLASSES, stem + "_ag", body, numpy="autograd.numpy").f
    rng = np.random.default_rng(len(stem) + 7)
    check_first_order(f, fa, rng.normal(size=6) * 0.5, rng.normal(size=6))


@pytest.mark.parametrize("chooser,user,key", [("dict_param", "nested", "softplus"),
                                              ("ifexp", "helper", "sin"),
                                              ("if_stmt", "loop", "tanh")])
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_hessian_through_choice(tmp_path, chooser, user, key, mode):
    body = _program(chooser, user, key)
    f = module_of(tmp_path, HEAD, f"hess_{chooser}_{user}_{key}_{mode}", body).f
    x = np.random.default_rng(3).normal(size=SIZES[user]) * 0.5
    H = srcad.hessian(f, mode=mode)(x)
    np.testing.assert_allclose(H, fd(srcad.grad(f), x), rtol=1e-5, atol=1e-6)


def test_each_key_calls_its_function(tmp_path):
    """One specialisation serves every key: the choice reads the key at each call."""
    body = _program("dict_param", "helper", "tanh")
    m = module_of(tmp_path, HEAD, "each_key", body)
    g = srcad.grad(m.f)
    x = np.linspace(-0.5, 0.5, 6)
    for key in KEYS:
        np.testing.assert_allclose(g(x, name=key), fd(lambda v, key=key: m.f(v, name=key), x),
                                   rtol=1e-5, atol=1e-7)


def test_table_changed_in_place_is_caught(tmp_path):
    """A table changed in place after the code was made holds a function the code was not made
    for: the code is made again (outside24; an error naming the call before), never a wrong
    gradient."""
    body = _program("dict_param", "helper", "tanh")
    m = module_of(tmp_path, HEAD, "changed", body)
    g = srcad.grad(m.f)
    x = np.linspace(-0.5, 0.5, 6)
    g(x)
    m.ACTS["tanh"] = np.cos
    try:
        np.testing.assert_allclose(g(x), fd(m.f, x), rtol=1e-6, atol=1e-8)
    finally:
        m.ACTS["tanh"] = np.tanh


def test_unknown_key_expression_stays_refused(tmp_path):
    """A field set from a table by a key the construction computes (a call) is not read
    again in the caller: calling it stays refused, with the rewrite."""
    body = ("\n\ndef key():\n    return 'sin'\n\n\ndef f(w):\n    m = Pick(w.reshape(3, 2), "
            "key())\n    return np.sum(m(X))\n")
    m = module_of(tmp_path, CLASSES, "unknown_key", body)
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(m.f)(np.ones(6))
    assert info.value.lineno is not None
    assert "pass the function" in info.value.hint
