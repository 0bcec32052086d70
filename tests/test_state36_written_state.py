"""Derivatives of functions writing into the state the caller passes (srcad.written_state,
session 36): a dict item (a layer's running mean into ``bn_param``), a list item, an array's
elements, nested containers, a helper writing into what it is given, a differentiated
argument changed in place, a closure value. For every transform (grad, value_and_grad, vjp,
jvp, linearize, jacobian, hessian, hvp, grad of grad), checked that:

* the caller's objects hold afterwards what the plain run leaves (values, and the same
  objects: no container replaced), after one call and after a second (so the plain run is
  made once per call, whatever the transform runs inside);
* the derivative agrees with central differences of ``f`` on copies of the state, and with
  autograd's where autograd runs the function (items of dicts and lists; autograd cannot write
  into an array);
* what cannot be exact is refused: the state shared with another argument or a global read,
  and a function drawing random numbers.

Every case fails on 56e98853 (each write was refused there)."""

from __future__ import annotations

import copy

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import LONG, sample_by

import srcad
from srcad.errors import MutationError, SrcadError

# ---------------------------------------------------------------------------------- programs
# each f(x, state) -> a number, x a float array of 3; written: what f changes


def dict_item(x, state):  # cs231n's batchnorm: a running mean stored, not read after
    state["m"] = 0.9 * state["m"] + 0.1 * np.mean(x)
    return np.sum(x * x * state["w"])


def dict_item_read(x, state):  # the written item feeds the output
    state["m"] = state["m"] * 0.5 + x
    return np.sum(state["m"] * x)


def list_item(x, ys):
    ys[0] = x * 2.0
    return np.sum(ys[0] * ys[1] * x)


def array_slice(x, a):
    a[1:] = x[:-1] * 3.0
    return np.sum(a * x * x)


def array_augmented(x, a):
    a += x
    return np.sum(a * a * x)


def nested(x, state):  # a dict in a list in the dict given
    inner = state["layers"][0]
    inner["m"] = np.sum(x) * inner["m"]
    return np.sum(x * inner["m"])


def _update(state, x):
    state["m"] = state["m"] + x * x


def helper(x, state):
    _update(state, x)
    return np.sum(np.sin(x) * state["m"])


def defaulted(x, state=None):  # bound again where None: a dict given is written into
    if state is None:
        state = {"m": np.zeros(3)}
    state["m"] = state["m"] + np.cos(x)
    return np.sum(state["m"] * x)


def own_argument(x, state):  # the differentiated argument changed in place
    x[0] = x[0] * 2.0
    state["seen"] = state["seen"] + 1
    return np.sum(x * x * x)


def _states():
    return {
        dict_item: {"m": np.array([0.5, 1.0, 1.5]), "w": np.array([1.0, 2.0, 0.5])},
        dict_item_read: {"m": np.array([0.5, -1.0, 2.0])},
        list_item: [np.zeros(3), np.array([1.0, -2.0, 3.0])],
        array_slice: np.array([0.25, 0.5, 0.75]),
        array_augmented: np.array([1.0, -0.5, 2.0]),
        nested: {"layers": [{"m": np.array([1.0, 2.0, 3.0])}]},
        helper: {"m": np.array([0.5, 0.25, -1.0])},
        defaulted: {"m": np.array([1.0, 1.0, -2.0])},
        own_argument: {"seen": 0},
    }


#: autograd runs these itself (items of dicts and lists, not an array's elements)
AUTOGRAD = {dict_item, dict_item_read, list_item, nested, helper, defaulted}


def _run(transform, f, x, state):
    """What ``transform`` of ``f`` gives at ``(x, state)``: the gradient (an array), the
    Jacobian or Hessian, or the directional derivative along ``ONES``."""
    if transform == "grad":
        return srcad.grad(f)(x, state)
    if transform == "value_and_grad":
        return srcad.value_and_grad(f)(x, state)[1]
    if transform == "vjp":
        return srcad.vjp(f, x, state, wrt=0)[1](1.0)
    if transform == "jvp":
        return srcad.jvp(f, (x, state), (ONES,), wrt=(0,))[1]
    if transform == "linearize":
        return srcad.linearize(f, x, state, wrt=(0,))[1](ONES)
    if transform == "jacobian":
        return srcad.jacobian(f)(x, state)
    if transform == "hessian":
        return srcad.hessian(f)(x, state)
    if transform == "hvp":
        return srcad.hvp(f, (x, state), ONES)
    if transform == "grad_of_grad":  # a derivative of the derivative made for f
        return srcad.jacobian(srcad.grad(f))(x, state)
    raise AssertionError(transform)


ONES = np.array([1.0, -0.5, 0.25])
X = np.array([0.3, -0.7, 1.1])
FIRST = ("grad", "value_and_grad", "vjp", "jvp", "linearize", "jacobian")
SECOND = ("hessian", "hvp", "grad_of_grad")


def _numeric(transform, f, x, state, h=1e-5):
    """Central differences of ``f`` (each run on copies of the state) for ``transform``."""
    def value(y):
        return f(y.copy(), copy.deepcopy(state))

    def gradient(y):
        out = np.zeros(3)
        for i in range(3):
            e = np.zeros(3)
            e[i] = h
            out[i] = (value(y + e) - value(y - e)) / (2 * h)
        return out

    g = gradient(x)
    if transform in ("jvp", "linearize"):
        return np.dot(g, ONES)
    if transform in SECOND:
        hess = np.array([(gradient(x + e) - gradient(x - e)) / (2 * h)
                         for e in np.eye(3) * h * 10]) / 10
        if transform == "hessian":
            return hess
        return hess @ ONES if transform == "hvp" else hess
    return g


def _identities(value, path=(), out=None):
    """path -> id of each container and array in ``value``."""
    out = {} if out is None else out
    if isinstance(value, (dict, list, np.ndarray)):
        out[path] = id(value)
    if isinstance(value, dict):
        for k, v in value.items():
            _identities(v, path + (k,), out)
    elif isinstance(value, list):
        for k, v in enumerate(value):
            _identities(v, path + (k,), out)
    return out


def _same_state(a, b):
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for k in a:
            _same_state(a[k], b[k])
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for u, v in zip(a, b):
            _same_state(u, v)
    else:
        np.testing.assert_allclose(b, a, rtol=1e-13, atol=1e-15)


CASES = [(f, t) for f in _states() for t in FIRST + SECOND]


@pytest.mark.parametrize("f, transform", sample_by(CASES, lambda c: c[0].__name__, 1),
                         ids=lambda c: getattr(c, "__name__", c))
def test_state_and_derivative(f, transform):
    start = _states()[f]
    want = _numeric(transform, f, X, start)
    plain_x, plain_state = X.copy(), copy.deepcopy(start)
    mine_x, mine_state = X.copy(), copy.deepcopy(start)
    for _ in range(2):  # the second call: the state the first one left
        before = _identities(mine_state)
        plain_before = _identities(plain_state)
        want = _numeric(transform, f, mine_x, mine_state)
        got = _run(transform, f, mine_x, mine_state)
        f(plain_x, plain_state)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        _same_state(plain_state, mine_state)
        np.testing.assert_allclose(mine_x, plain_x, rtol=1e-13)
        after, plain_after = _identities(mine_state), _identities(plain_state)
        assert {p for p in after if before.get(p) == after[p]} == {
            p for p in plain_after if plain_before.get(p) == plain_after[p]}


@pytest.mark.parametrize("f", sorted(AUTOGRAD, key=lambda f: f.__name__)[::1 if LONG else 2],
                         ids=lambda f: f.__name__)
def test_against_autograd(f):
    """autograd runs ``f`` itself (with ``autograd.numpy`` in place of NumPy)."""
    twin = _autograd_twin(f)
    state = _states()[f]
    want = autograd.grad(twin)(X.copy(), copy.deepcopy(state))
    np.testing.assert_allclose(srcad.grad(f)(X.copy(), copy.deepcopy(state)), want,
                               rtol=1e-10, atol=1e-12)


def _autograd_twin(f):
    glob = dict(f.__globals__, np=anp)
    glob["_update"] = type(_update)(_update.__code__, glob)
    return type(f)(f.__code__, glob, f.__name__, f.__defaults__)


def test_closure_value():
    """A lambda over the dict a layer writes into (tools/handgrad_programs.py's cs231n
    batchnorm): the dict's items as the plain run leaves them, once per call."""
    def make(state):
        return lambda x: helper(x, state)

    state, plain = copy.deepcopy(_states()[helper]), copy.deepcopy(_states()[helper])
    loss = make(state)
    for _ in range(2):
        want = _numeric("grad", lambda y, s: helper(y, s), X, plain)
        got = srcad.grad(loss)(X.copy())
        helper(X.copy(), plain)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        _same_state(plain, state)


G = {"m": np.ones(3)}


def reads_global(x, state):
    state["m"] = state["m"] + x
    return np.sum(G["m"] * x)


def draws(x, state):
    state["m"] = state["m"] + np.random.standard_normal(3)
    return np.sum(x * x)


def vector(x, state):
    state["m"] = state["m"] * 0.5 + x
    return np.sin(x) * state["m"]


@pytest.mark.parametrize("mode", ["vjp", "rev", "fwd", "jvp"] if LONG else ["vjp", "rev"])
def test_vector_out(mode):
    """Jacobians of an array out, by rows (vjp) and columns (jvp), as central differences of
    the plain function on copies; the state left as by one plain run."""
    start = {"m": np.array([1.0, 2.0, -1.0])}
    state, plain = copy.deepcopy(start), copy.deepcopy(start)
    want = np.array([(vector(X + e, copy.deepcopy(start)) - vector(
        X - e, copy.deepcopy(start))) / 2e-6 for e in np.eye(3) * 1e-6]).T
    dy = np.array([0.5, -1.0, 2.0])
    if mode == "vjp":
        value, pullback = srcad.vjp(vector, X, state, wrt=0)
        got, want = pullback(dy), dy @ want
        np.testing.assert_allclose(value, vector(X, copy.deepcopy(start)), rtol=1e-13)
    elif mode == "jvp":
        got, want = srcad.jvp(vector, (X, state), (dy,), wrt=(0,))[1], want @ dy
    else:
        got = srcad.jacobian(vector, mode=mode)(X, state)
    vector(X, plain)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    _same_state(plain, state)


@pytest.mark.parametrize("case", ["shared", "held", "global", "random", "in_code"])
def test_refused(case):
    state = {"m": np.zeros(3)}
    with pytest.raises(SrcadError) as info:
        if case == "shared":  # the same dict given twice
            srcad.grad(lambda x, s, t: dict_item_read(x, s) + np.sum(t["m"]))(X, state, state)
        elif case == "held":  # the argument differentiated is an item of the state
            srcad.grad(dict_item_read)(state["m"], state)
        elif case == "global":  # the function reads the object it writes into as a global
            srcad.grad(reads_global)(X, G)
        elif case == "random":
            srcad.grad(draws)(X, state)
        else:  # the derivative called in code srcad differentiates: srcad.jacobian(grad(f))
            srcad.grad(lambda y, s: np.sum(srcad.grad(dict_item_read)(y, s)))(X, state)
    assert "hint" in str(info.value)
    assert case == "in_code" or isinstance(info.value, MutationError)
    np.testing.assert_array_equal(state["m"], np.zeros(3))  # refused before anything ran


def _formerly_refused():
    """tests/test_mutation.py's programs writing into their argument, refused before."""
    from test_mutation import (
        add_argument,
        list_argument_append,
        sort_argument,
        write_argument,
        write_argument_view,
        write_into_dict_argument,
    )
    return [(write_argument, ()), (add_argument, ()), (write_argument_view, ()),
            (sort_argument, ()), (list_argument_append, ([1.0],)),
            (write_into_dict_argument, ({"w": np.ones(3)},))]


@pytest.mark.parametrize("k", range(6))
def test_formerly_refused(k):
    """The gradient at the values given (central differences on copies), the arguments left
    as the plain run leaves them; a write into an array a dict holds, whose dtype the code is
    not made for, is refused as a write that may round (its own message)."""
    f, extra = _formerly_refused()[k]
    x = np.array([0.3, -0.7, 1.1])
    if f.__name__ == "write_into_dict_argument":
        with pytest.raises(SrcadError, match="integers or booleans"):
            srcad.grad(f)(x.copy(), *copy.deepcopy(extra))
        return
    mine, theirs = (x.copy(),) + copy.deepcopy(extra), (x.copy(),) + copy.deepcopy(extra)
    got = srcad.grad(f)(*mine)
    want = np.array([(f(x + e, *copy.deepcopy(extra)) - f(x - e, *copy.deepcopy(extra))) / 2e-6
                     for e in np.eye(3) * 1e-6])
    f(*theirs)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    for a, b in zip(theirs, mine):
        _same_state(a, b) if isinstance(a, list) else np.testing.assert_array_equal(b, a)


def _sgd(ps, gs, lr):
    for i in range(len(ps)):
        ps[i] = ps[i] - lr * gs[i]


def list_helper(w, ps):  # tests/test_outside26_changed_lists.py's "argument", refused before
    _sgd(ps, [w, w], 0.1)
    return np.sum(ps[0] * w)


def dict_augmented(d, x):  # tests/test_forms35_copied_items.py's, refused before (wrt d and x)
    d["w"] += x
    return np.sum(d["w"] * x)


@pytest.mark.parametrize("f", [list_helper, dict_augmented], ids=lambda f: f.__name__)
def test_containers_given(f):
    """The caller's list or dict (its arrays changed in place by ``+=``) as the plain run
    leaves it, the gradient at the values given (central differences on copies)."""
    start = [X.copy(), X * 2.0] if f is list_helper else {"w": X * 0.5}
    first, arg = (X, start) if f is list_helper else (start, X)
    mine, theirs = copy.deepcopy((first, arg)), copy.deepcopy((first, arg))
    held = mine[1][0] if f is list_helper else mine[0]["w"]
    wrt = 0 if f is list_helper else 1
    got = srcad.grad(f, wrt=wrt)(*mine)
    f(*theirs)

    def at(y):
        a = list(copy.deepcopy((first, arg)))
        a[wrt] = y
        return f(*a)

    want = np.array([(at(X + e) - at(X - e)) / 2e-6 for e in np.eye(3) * 1e-6])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    _same_state(theirs[1] if f is list_helper else theirs[0],
                mine[1] if f is list_helper else mine[0])
    if f is dict_augmented:  # the array itself changed, as Python's += does
        assert mine[0]["w"] is held


def appends(x, history):
    history.append(float(np.sum(x * x)))
    return np.sum(x * x)


def test_a_differentiated_list_changed_is_refused():
    """A list (or dict) given as wrt and changed in place: its gradient is of the value it
    held when called, srcad's code would give the structure it has after (two items for
    one: a wrong gradient in this branch's first version). An array's writes keep its shape:
    differentiated (own_argument above)."""
    history = [1.0]
    with pytest.raises(MutationError, match="differentiated"):
        srcad.grad(appends, wrt=1)(X, history)
    assert history == [1.0]
    np.testing.assert_allclose(srcad.grad(appends)(X, history), 2.0 * X)
    assert history == [1.0, pytest.approx(float(np.sum(X * X)))]


def _upd_arr(a, x):
    a[0] = x[0] * 2.0
    a[1:] += x[1:]


def own_copy_unread(x, a):  # forms35's: refused as "update_fields(...) called for its effect"
    b = a.copy()
    _upd_arr(b, x)
    return np.sum(x * x)


def test_a_call_changing_only_its_own_copy():
    a = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(srcad.grad(own_copy_unread)(X, a), 2.0 * X)
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])
    _, tangent = srcad.jvp(own_copy_unread, (X, a), (ONES,), wrt=(0,))
    assert tangent == pytest.approx(float(np.dot(2.0 * X, ONES)))
