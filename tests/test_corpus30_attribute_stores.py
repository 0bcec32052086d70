"""Round 30: an objective that keeps a value it computes in an object it is given.

A Gaussian-process class's negative log marginal likelihood (paraklas/GPTutorial's
``gaussian_process.py``, six programs) stores its Cholesky factor, ``self.L = L``, for
``predict`` to use after training; srcad refused every attribute write. A store is now kept
(the forward sweep stores the value, as Python does, no derivative) where nothing after it in
the call can read the attribute back (srcad reads attributes with no gradient through them),
and refused at its line otherwise. These tests write the pattern afresh, in a generated family
of objectives, against central differences and autograd, and check what the object holds
after the call (the value of a plain call, a plain array); and the refusals, each at the
store's line.
"""

import inspect
import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from tests.sampling import LONG, sample
from tests.twin_checks import central

X = np.linspace(-1.0, 1.0, 5)
Y = np.sin(2.0 * X)
POINT = np.array([0.2, -0.3, -1.5])


def make_gp(np_):
    """A GP class whose likelihood stores what ``predict`` reads (the tutorial's form, written
    anew), on NumPy or on autograd.numpy (``np_``), so autograd runs the same code."""

    class GP:
        def __init__(self, where):
            self.where = where
            self.X, self.y = X, Y

        def gram(self, hyp):
            d = self.X[:, None] - self.X[None, :]
            return np_.exp(hyp[0]) * np_.exp(-0.5 * d ** 2 / np_.exp(hyp[1])) \
                + np_.eye(len(self.X)) * (np_.exp(hyp[2]) + 1e-8)

        def nll(self, hyp):
            K = self.gram(hyp)  # a method of its own before the store: fine
            L = np_.linalg.cholesky(K)
            if self.where == "first":
                self.L = L
            alpha = np_.linalg.solve(L.T, np_.linalg.solve(L, self.y))
            value = 0.5 * np_.dot(self.y, alpha) + np_.sum(np_.log(np_.diag(L)))
            if self.where == "last":
                self.L = L
            elif self.where == "branch":
                if value > -1e9:
                    self.L = L
                else:
                    self.L = None
            elif self.where == "two":
                self.L = L
                self.alpha = alpha
            elif self.where == "tuple":
                self.L = (L, alpha)
            elif self.where == "number":
                self.L = value
            return value

    return GP


GP, GP_AG = make_gp(np), make_gp(anp)


def loss_with_model(w, model):
    """The store into an object passed as an argument."""
    z = np.tanh(w * model.scale)
    model.last = z
    return np.sum(z ** 2) + w[0] * z[1]


def loss_with_model_ag(w, model):
    z = anp.tanh(w * model.scale)
    model.last = z
    return anp.sum(z ** 2) + w[0] * z[1]


class Holder:
    def __init__(self):
        self.scale = 1.5


WHERES = ["first", "last", "branch", "two", "tuple", "number"]
HOW = ["grad", "value_and_grad"]
CASES = list(itertools.product(WHERES, HOW))


def _as_array(v):
    return v if not isinstance(v, tuple) else v[0]


@pytest.mark.parametrize("case", CASES if LONG else sample(CASES, 3),
                         ids=lambda c: "-".join(c))
def test_a_likelihood_storing_its_factor(case):
    where, how = case
    gp, twin = GP(where), GP_AG(where)
    made = getattr(srcad, how)(gp.nll)
    got = made(POINT)
    g = got[1] if how == "value_and_grad" else got
    if how == "value_and_grad":
        assert np.isclose(got[0], GP(where).nll(POINT), rtol=1e-12)
    assert np.allclose(g, central(lambda h: GP(where).nll(h), [POINT], 0),
                       rtol=1e-5, atol=1e-7)
    assert np.allclose(g, autograd.grad(twin.nll)(POINT), rtol=1e-9, atol=1e-12)
    # the object holds what a plain call stores: plain values, not srcad's
    plain = GP(where)
    plain.nll(POINT)
    for name in ("L", "alpha"):
        if hasattr(plain, name):
            mine, theirs = getattr(gp, name), getattr(plain, name)
            assert type(mine) is type(theirs)
            assert np.allclose(_as_array(mine), _as_array(theirs), rtol=1e-12)


@pytest.mark.parametrize("wrt", [0] if not LONG else [0, 1])
def test_a_store_into_an_argument(wrt):
    w = np.array([0.4, -0.8, 1.1])
    model, twin = Holder(), Holder()
    g = srcad.grad(loss_with_model)(w, model)
    assert np.allclose(g, central(loss_with_model, [w, Holder()], 0), rtol=1e-5, atol=1e-7)
    assert np.allclose(g, autograd.grad(loss_with_model_ag)(w, twin), rtol=1e-9)
    assert isinstance(model.last, np.ndarray) and np.allclose(model.last, np.tanh(w * 1.5))


# ---------------------------------------------------------------- refused, at the store
class Reads:
    def __init__(self):
        self.c = 2.0

    def read_after(self, w):
        y = np.sin(w) * self.c
        self.y = y  # store: line of the refusal
        return np.sum(self.y ** 2)

    def getattr_after(self, w):
        y = np.sin(w)
        self.y = y  # store
        return np.sum(self.y * w)

    def call_after(self, w):
        y = np.sin(w)
        self.y = y  # store
        return self.use(w)

    def use(self, w):
        return np.sum(self.y * w)

    def in_loop(self, w):
        total = 0.0
        for k in range(3):
            self.y = w * k  # store
            total = total + np.sum(np.cos(w) * k)
        return total

    def writes_after(self, w):
        L = np.outer(w, w)
        self.y = L  # store
        L[0, 0] = 5.0  # Python's self.y holds the change
        return np.sum(L * w[0])

    def keeps(self, w):
        y = np.sin(w) * self.c
        self.y = y  # store
        return np.sum(y ** 2)

    def caller_reads(self, w):
        v = self.keeps(w)  # store (in a function of yours called here)
        return v + np.sum(self.y)

    def caller_calls(self, w):
        v = self.keeps(w)  # store (in a function of yours called here)
        return v + self.use(w)

    def caller_for_effect(self, w):
        self.keeps(w)  # store (its result unused: called for its effect)
        return np.sum(self.y * w)


class WithTotal:
    @property
    def total(self):
        return np.sum(self.z)


def loss_reads_a_property(w, model):
    model.z = np.tanh(w)  # store
    return model.total


def test_a_property_read_after_a_store_is_refused():
    with pytest.raises(SrcadError) as info:
        srcad.grad(loss_reads_a_property)(np.array([0.3, -0.7]), WithTotal())
    lines, first = inspect.getsourcelines(loss_reads_a_property)
    assert info.value.lineno == first + 1 and info.value.filename == __file__


GLOBAL = Reads()
GLOBAL.keeps(np.array([0.1, 0.2]))  # GLOBAL.y exists where the code is made


def loss_reads_a_global(w):
    v = GLOBAL.keeps(w)  # store (in a function of yours called here)
    return v + np.sum(GLOBAL.y)  # a read srcad folds where it makes the code


@pytest.mark.parametrize("how", ["grad", "jacrev", "jacfwd", "jvp"] if LONG else ["jvp"])
def test_a_global_object_read_after_a_stores_call_is_refused(how):
    w = np.array([0.3, -0.7])
    make = {"grad": lambda: srcad.grad(loss_reads_a_global)(w),
            "jacrev": lambda: srcad.jacrev(loss_reads_a_global)(w),
            "jacfwd": lambda: srcad.jacfwd(loss_reads_a_global)(w),
            "jvp": lambda: srcad.jvp(loss_reads_a_global, (w,), (np.ones(2),))}[how]
    with pytest.raises(SrcadError) as info:
        make()
    lines, first = inspect.getsourcelines(loss_reads_a_global)
    assert info.value.lineno == first + 1 and info.value.filename == __file__


REFUSED = ["read_after", "getattr_after", "call_after", "in_loop", "writes_after", "caller_reads",
           "caller_calls", "caller_for_effect"]


def _store_line(method):
    lines, first = inspect.getsourcelines(getattr(Reads, method))
    return first + next(i for i, t in enumerate(lines) if "# store" in t)


@pytest.mark.parametrize("method", REFUSED if LONG else sample(REFUSED, 2))
def test_a_store_read_back_is_refused_at_its_line(method):
    with pytest.raises(SrcadError) as info:
        srcad.grad(getattr(Reads(), method))(np.array([0.3, -0.7]))
    err = info.value
    assert err.filename == __file__ and err.lineno == _store_line(method)
    assert any(said in str(err) for said in ("writing an attribute", "called for its effect",
                                             "changes what it is given"))
    if method == "writes_after":
        assert "write in place" in str(err)


@pytest.mark.parametrize("how", ["hessian", "hvp"] if LONG else ["hessian"])
def test_a_second_derivative_of_a_storing_method_is_refused_at_the_store(how):
    model = Reads()
    w = np.array([0.3, -0.7])
    with pytest.raises(SrcadError) as info:
        if how == "hessian":
            srcad.hessian(model.keeps)(w)
        else:
            srcad.hvp(model.keeps)(w, np.ones(2))
    assert info.value.filename == __file__ and info.value.lineno == _store_line("keeps")
    assert "differentiated again" in str(info.value)
