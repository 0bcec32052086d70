"""Functions taken from containers and called: ``for f in funs: f(x)``, ``[f(x) for f in
funs]``, ``OPS[name](x)``, ``for act, w in LAYERS``, lambdas and partials in a list, a tuple
of functions passed to a callee; and ``args = list(args); args[k] = g(args[k]); f(*args)``.

A generated family: containers (a global list, tuple or dict, a closure cell, a default, a
display written in the function) x ways of reading them (loops, comprehensions, ``enumerate``,
``zip``, ``reversed``, indices, ``.items()``, keys, composition) x the functions held (a
ufunc, a user function, a lambda, a ``functools.partial``). Each program is written to a
module (srcad reads its source), checked in reverse mode against central finite differences
and srcad's reference tape, in forward mode against reverse mode, and, where autograd is
installed, against autograd on the same text with ``autograd.numpy`` imported.
"""

import functools
import importlib.util
import itertools
import sys

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import tape
from srcad.errors import SrcadError

HEADER = '''\
import functools
import numpy as np


def h_user(z):
    return z * np.exp(-0.5 * z)


def h_scaled(a, z):
    return np.tanh(a * z)


def apply_all(fs, x):
    return sum(np.sum(f(x)) for f in fs)


F_LIST = [np.sin, h_user, lambda z: z * z + 1.0, functools.partial(h_scaled, 0.5)]
F_TUPLE = (np.cos, h_user, lambda z: 0.5 * z ** 3, functools.partial(h_scaled, -1.5))
F_DICT = {"sin": np.sin, "user": h_user, "square": lambda z: z * z - z,
          "scaled": functools.partial(h_scaled, 2.0)}
LAYERS_LIST = [(np.tanh, 0.5), (h_user, -1.2), (np.sin, 2.0)]
LAYERS_TUPLE = ((np.sin, 1.5), (lambda z: z * z, 0.3), (np.tanh, -0.7))
'''

#: a sequence of functions, as the function reaches it: (setup lines, expression)
SEQUENCES = {
    "global_list": ([], "F_LIST"),
    "global_tuple": ([], "F_TUPLE"),
    "literal_tuple": (["funs = (np.sin, h_user, lambda z: z - z ** 2)"], "funs"),
    "literal_list": (["funs = [np.tanh, lambda z: z * z, functools.partial(h_scaled, 3.0)]"],
                     "funs"),
    "closure_list": ("closure", "funs"),
    "default_tuple": ("default", "funs"),
}
SEQUENCE_FORMS = {
    "loop": ["total = 0.0", "for fn in SEQ:", "    total = total + s * np.sum(fn(x))",
             "return total"],
    "comprehension": ["return sum([np.sum(fn(x * s)) for fn in SEQ])"],
    "index": ["return np.sum(SEQ[0](x) * SEQ[2](x)) + s * np.sum(SEQ[1](x))"],
    "enumerate": ["total = 0.0", "for i, fn in enumerate(SEQ):",
                  "    total = total + (i + 1.0) * np.sum(fn(x)) * s", "return total"],
    "range": ["total = 0.0", "for i in range(len(SEQ)):",
              "    total = total + np.sum(SEQ[i](x * s))", "return total"],
    "zip": ["total = 0.0", "for fn, w in zip(SEQ, (0.5, -1.0, 2.0)):",
            "    total = total + w * np.sum(fn(x)) * s", "return total"],
    "chain": ["y = x", "for fn in SEQ:", "    y = fn(y) * s", "return np.sum(y)"],
    "reversed": ["total = s", "for fn in reversed(SEQ):",
                 "    total = total * 0.5 + np.sum(fn(x))", "return total"],
    "callee": ["return s * apply_all(SEQ, x)"],  # tuples only: a list passed is refused
}
DICTS = {
    "global_dict": ([], "F_DICT", ("sin", "square")),
    "literal_dict": (['ops = {"a": np.sin, "b": h_user, "c": lambda z: np.exp(-z * z)}'],
                     "ops", ("c", "a")),
    "closure_dict": ("closure", "ops", ("b", "c")),
}
DICT_FORMS = {
    "values": ["return sum(np.sum(fn(x)) * s for fn in D.values())"],
    "items": ["total = 0.0", "for name, fn in D.items():",
              "    total = total + len(name) * np.sum(fn(x)) * s", "return total"],
    "keys": ["total = 0.0", "for k in D:", "    total = total + np.sum(D[k](x * s))",
             "return total"],
    "key": ["return np.sum(D[K0](x)) * s + np.sum(D[K1](x))"],
    "sorted": ["total = 0.0", "for k in sorted(D):",
               "    total = total * 0.5 + np.sum(D[k](x)) * s", "return total"],
}
LAYERS = {"global_list": "LAYERS_LIST", "global_tuple": "LAYERS_TUPLE",
          "literal": "[(np.tanh, s), (lambda z: z * 0.5, 2.0)]"}


def _def(name, params, lines, setup, closure_line=None):
    body = ["    " + line for line in setup + lines]
    if closure_line is None:
        return [f"def {name}({params}):"] + body
    return [f"def make_{name}():", f"    {closure_line}", f"    def {name}({params}):"] + [
        "    " + line for line in body] + [f"    return {name}", f"{name} = make_{name}()"]


def _family():
    out = {}
    for (cname, (setup, seq)), (fname, lines) in itertools.product(SEQUENCES.items(),
                                                                  SEQUENCE_FORMS.items()):
        name = f"f_{cname}_{fname}"
        if fname == "callee" and "list" in cname:
            continue
        lines = [line.replace("SEQ", seq) for line in lines]
        if setup == "closure":
            out[name] = _def(name, "x, s", lines, [],
                             "funs = [np.sin, h_user, lambda z: np.exp(-z * z)]")
        elif setup == "default":
            out[name] = _def(name, "x, s, funs=(np.tanh, h_user, np.cos)", lines, [])
        else:
            out[name] = _def(name, "x, s", lines, setup)
    for (cname, (setup, d, keys)), (fname, lines) in itertools.product(DICTS.items(),
                                                                     DICT_FORMS.items()):
        name = f"f_{cname}_{fname}"
        lines = [line.replace("D", d).replace("K0", repr(keys[0])).replace("K1", repr(keys[1]))
                 for line in lines]
        if setup == "closure":
            out[name] = _def(name, "x, s", lines, [],
                             'ops = {"a": np.cos, "b": np.tanh, "c": h_user}')
        else:
            out[name] = _def(name, "x, s", lines, setup)
    for cname, layers in LAYERS.items():
        name = f"f_layers_{cname}"
        out[name] = _def(name, "x, s", ["y = x", f"for act, w in {layers}:",
                                        "    y = act(w * y) + s", "return np.sum(y)"], [])
    return out


FAMILY = _family()
POINTS = [(np.array([0.5, -1.0, 0.3]), 0.8), (np.array([1.2, 0.4, -0.6]), -0.35)]


def _load(tmp_path_factory, numpy_import="import numpy as np"):
    text = HEADER.replace("import numpy as np", numpy_import) + "\n\n" + "\n\n\n".join(
        "\n".join(lines) for lines in FAMILY.values()) + "\n"
    folder = tmp_path_factory.mktemp("choices")
    name = f"srcad_choices_{abs(hash(numpy_import))}"
    path = folder / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    return _load(tmp_path_factory)


@pytest.mark.parametrize("point", range(len(POINTS)))
@pytest.mark.parametrize("name", list(FAMILY))
def test_reverse_mode(programs, name, point):
    f = getattr(programs, name)
    x, s = POINTS[point]
    gx, gs = srcad.grad(f, wrt=(0, 1))(x, s)
    for k, got in ((0, gx), (1, gs)):
        assert np.allclose(got, numerical_grad(f, (x, s), k), rtol=1e-6, atol=1e-7)
        assert np.allclose(got, tape.grad(f, wrt=k)(x, s), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(FAMILY))
def test_forward_mode(programs, name):
    f = getattr(programs, name)
    x, s = POINTS[0]
    u = (np.array([0.3, -0.2, 0.9]), 0.7)
    value, tangent = srcad.jvp(f, (x, s), u, wrt=(0, 1))
    assert np.isclose(value, f(x, s), rtol=1e-12)
    gx, gs = srcad.grad(f, wrt=(0, 1))(x, s)
    assert np.isclose(tangent, np.dot(gx, u[0]) + gs * u[1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in FAMILY if n.endswith(("_loop", "_items", "_chain"))])
def test_second_order(programs, name):
    f = getattr(programs, name)
    x, s = POINTS[1]
    d2 = srcad.grad(srcad.grad(f, wrt=1), wrt=1)(x, s)
    g = srcad.grad(f, wrt=1)
    h = 1e-5
    assert d2 == pytest.approx((g(x, s + h) - g(x, s - h)) / (2 * h), rel=1e-5, abs=1e-7)


def test_against_autograd(tmp_path_factory):
    autograd = pytest.importorskip("autograd")
    ours = _load(tmp_path_factory)
    theirs = _load(tmp_path_factory, "import autograd.numpy as np")
    x, s = POINTS[0]
    for name in FAMILY:
        gx, gs = srcad.grad(getattr(ours, name), wrt=(0, 1))(x, s)
        want = autograd.grad(getattr(theirs, name), (0, 1))(x, s)
        assert np.allclose(gx, want[0], rtol=1e-10, atol=1e-12), name
        assert np.isclose(gs, want[1], rtol=1e-10, atol=1e-12), name


# ------------------------------------------------------------------ run-time checks, refusals

MUTABLE = [np.sin, np.tanh]


def through_a_global_list(x):
    return sum(f(x) for f in MUTABLE)


def through_a_parameter(x, fs):
    return sum(f(x) for f in fs)


def through_values_computed(x):
    fs = [lambda z: z * x]
    return fs[0](x)


def test_a_list_changed_after_the_code_was_made_makes_it_again():
    """(outside24) the code is made again for the functions the list holds now (it was a
    SrcadError before; never the code made for the old list)."""
    MUTABLE[:] = [np.sin, np.tanh]
    d = srcad.grad(through_a_global_list)
    assert d(0.4) == pytest.approx(np.cos(0.4) + 1 - np.tanh(0.4) ** 2)
    MUTABLE[1] = np.cos
    try:
        assert d(0.4) == pytest.approx(np.cos(0.4) - np.sin(0.4))
        MUTABLE.append(np.exp)
        assert d(0.4) == pytest.approx(np.cos(0.4) - np.sin(0.4) + np.exp(0.4))
    finally:
        MUTABLE[:] = [np.sin, np.tanh]


def test_a_tuple_of_functions_argument_specialises_the_code():
    d = srcad.grad(through_a_parameter)
    assert d(0.4, (np.sin, np.cos)) == pytest.approx(np.cos(0.4) - np.sin(0.4))
    assert d(0.4, (np.tanh,)) == pytest.approx(1 - np.tanh(0.4) ** 2)


def test_a_list_argument_of_functions_is_read_when_the_code_runs():
    """Refused before round 11; now each function is met (and differentiated) when the call
    runs (srcad.runtime.derivatives.call_value), the list changed or not."""
    d = srcad.grad(through_a_parameter)
    fs = [np.sin, np.cos]
    assert d(0.4, fs) == pytest.approx(np.cos(0.4) - np.sin(0.4))
    fs[1] = np.tanh
    assert d(0.4, fs) == pytest.approx(np.cos(0.4) + 1 - np.tanh(0.4) ** 2)
    assert d(0.4, fs) == pytest.approx(numerical_grad(lambda x: through_a_parameter(x, fs),
                                                      (0.4,)), rel=1e-6)


def through_a_parameter_with_keywords(x, fs):
    return fs[0](x=x)


def test_a_list_argument_called_with_keywords_is_refused_with_the_rewrite():
    with pytest.raises(SrcadError, match="taken from a list, tuple or dict") as err:
        srcad.grad(through_a_parameter_with_keywords)(0.4, [lambda x: np.sin(x)])
    assert "tuple of functions" in str(err.value) and err.value.lineno is not None


def test_calling_a_lambda_holding_values_from_a_list():
    assert srcad.grad(through_values_computed)(0.7) == pytest.approx(2 * 0.7)


# ------------------------------------------------------------------ args = list(args)


def _sym(a):
    return 0.5 * (a + np.swapaxes(a, -1, -2)) if np.ndim(a) > 1 else a


def _inner(a, b, c=1.0):
    return np.sum(np.sin(a) * b) * c


def _replacing(k):
    def wrapped(*args, **kwargs):
        args = list(args)
        args[k] = _sym(args[k])
        return _inner(*args, **kwargs)
    return wrapped


def _replacing_twice(*args):
    args = list(args)
    args[0] = args[0] * 2.0
    args[-1] = np.tanh(args[-1])
    return _inner(*args)


def _tuple_copy(*args):
    items = tuple(args)
    return _inner(*items) + _inner(items[1], items[0])


WRAPPERS = [("replace_0", _replacing(0)), ("replace_1", _replacing(1)),
            ("twice", _replacing_twice), ("tuple_copy", _tuple_copy)]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("direct", [True, False], ids=["direct", "called"])
@pytest.mark.parametrize("label,fn", WRAPPERS, ids=[w[0] for w in WRAPPERS])
def test_args_copied_changed_and_spread(label, fn, direct, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    f = fn if direct else (lambda a, b: fn(a, b) * 1.5)
    got = srcad.grad(f, wrt=(0, 1))(a, b)
    for k in (0, 1):
        assert np.allclose(got[k], numerical_grad(f, (a, b), k), rtol=1e-6, atol=1e-7)


def _appended(*args):
    args = list(args)
    args.append(2.0)
    return _inner(*args)


def test_a_list_changed_otherwise_is_spread_when_the_code_runs():
    """Refused before round 16 ("length srcad cannot know"): ``_inner(*args)`` of a list
    appended to is differentiated for the length met (srcad.runtime.spread_calls)."""
    a, b = np.array([0.3, 0.7]), np.array([1.1, -0.4])
    got = srcad.grad(lambda a, b: _appended(a, b), wrt=(0, 1))(a, b)
    for k in (0, 1):
        assert np.allclose(got[k], numerical_grad(_appended, (a, b), k), rtol=1e-6,
                           atol=1e-8)


_ = functools  # the generated module imports it too


# ------------------------------------------------------------------ helpers declared constant


def _unreadable(value):
    """A helper srcad cannot read (a nested def calling itself), declared constant: like the
    ``unflatten`` maker a ``flatten`` returns beside the vector."""
    def walk(v):
        return [walk(x) for x in v] if isinstance(v, (list, tuple)) else 0
    return walk(value)


def _phase(v):
    return np.exp(1j * v)


srcad.extend.nondiff(_unreadable, _phase)


def _flatten_like(values):
    return np.concatenate([np.ravel(v) for v in values]), _unreadable(values)


def through_a_constant_helper(values, s):
    flat, _ = _flatten_like(values)
    return np.sum(stats.norm.logpdf(flat, 0.5, s)) + np.sum(np.sign(flat) * flat)


def through_a_complex_constant(x):
    c = _phase(0.3)
    return np.real(x * c) + np.abs(x * c) ** 2


try:
    from scipy import stats
except ImportError:  # pragma: no cover - SciPy is optional
    stats = None


@pytest.mark.skipif(stats is None, reason="SciPy is not installed")
def test_a_constant_helper_srcad_cannot_read_is_real_when_its_operands_are():
    """Its result is taken as complex only if an operand is (as for NumPy's functions): a
    tuple holding it beside the flat vector no longer makes the vector "maybe complex"."""
    values = [np.array([[0.3, -1.2]]), np.array([0.7])]
    got = srcad.grad(through_a_constant_helper, wrt=(0, 1))(values, 1.3)
    for i, v in enumerate(values):
        def along(w, i=i):
            return through_a_constant_helper(values[:i] + [w] + values[i + 1:], 1.3)
        assert np.allclose(got[0][i], numerical_grad(along, (v,), 0), rtol=1e-6, atol=1e-8)
    assert got[1] == pytest.approx(numerical_grad(through_a_constant_helper, (values, 1.3), 1),
                                   rel=1e-6)


def test_a_constant_helper_that_srcad_reads_keeps_its_complex_result():
    got = srcad.grad(through_a_complex_constant)(0.7)
    assert got == pytest.approx(numerical_grad(through_a_complex_constant, (0.7,), 0), rel=1e-6)
