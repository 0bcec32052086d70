"""Values read from attributes and globals, augmented; methods of objects held in attributes.

1. ``index = self.D; index += k`` (sytseng's LUNA): srcad counted the augmented assignment as
   a change of ``self`` in place, and refused ``self`` read after the call (``MutationError``).
   Python never changes an immutable value in place: ``x += v`` rebinds ``x``. Now a value
   read from an attribute is checked when the code runs (:func:`srcad.frontend.rebinding.
   check_rebinds`): a number, a string, a tuple, a NumPy scalar is rebound; an array, a list,
   any other object is refused there (Python would change the attribute's object). A global
   (or a global object's attribute) is known where the code is made: immutable, rebound;
   a list or an array was silently read as a new value (a wrong gradient when the global was
   read after the write): now refused, as is an object srcad cannot know.
2. ``self._problem.evaluate(x)`` (pints' likelihoods): the classes of the objects an object
   holds in its attributes (and in a list or tuple attribute of objects of one class) are part
   of the specialisation (:mod:`srcad.frontend.held_objects`), so their methods are read and
   differentiated like ``self.method(...)``; the code checks, at each use, that the attribute
   still holds an object of that class.

Families against central finite differences and autograd on the same text (the module is
written twice, importing NumPy and ``autograd.numpy``), with value_and_grad, jvp and
Hessians in both modes; refusals assert the error's class, line and hint.
"""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from sampling import sample_by
from srcad.check import numerical_grad

import srcad
from srcad.errors import MutationError, SrcadError, UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -0.7, 1.1])


def _load(tmp_path, stem, text, numpy_name="numpy"):
    path = tmp_path / f"{stem}_{numpy_name.replace('.', '_')}.py"
    path.write_text(f"import {numpy_name} as np\n" + text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(text, needle, nth=0):
    """The line (of the module written by :func:`_load`) holding ``needle`` (its ``nth``
    occurrence)."""
    found = [i for i, line in enumerate(text.splitlines(), start=2) if needle in line]
    return found[nth]


def _check_all(f, fa, x, hessian=True):
    """grad, value_and_grad, jvp against finite differences and autograd; Hessians in both
    modes against autograd's."""
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(x), rtol=1e-9, atol=1e-11)
    value, g2 = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
    t = np.linspace(0.5, -0.4, x.size)
    _, tangent = srcad.jvp(f, (x,), (t,))
    assert tangent == pytest.approx(float(np.dot(g, t)), rel=1e-8, abs=1e-10)
    if hessian:
        want = autograd.hessian(fa)(x)
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), want,
                                       rtol=1e-7, atol=1e-9)


# ---------------------------------------------------------------- 1. augmented values

#: the value held (a Python expression, read in the module), immutable: rebound by +=
NUMBERS = {"int": "3", "float": "1.5", "np_float": "np.float64(2.5)", "np_int": "np.int64(2)",
           "bool": "True"}
#: how the function reaches it: (module text, the differentiated function from the module)
SOURCES = {
    # the LUNA shape: a method reading self, called twice, self read after
    "bound_method": ("""
VALUE = {value}

class Model:
    def __init__(self):
        self.D = VALUE
        self.sizes = [VALUE, VALUE]

    def forward(self, x):
        index = self.D
        index {op}= 2
        return np.sin(x) * index

    def loss(self, x):
        a = self.forward(x)
        b = self.forward(x * 0.5)
        return np.sum(a * b) + self.D * np.sum(x)
""", lambda m: m.Model().loss),
    "argument": ("""
VALUE = {value}

class Model:
    def __init__(self):
        self.D = VALUE

def forward(m, x):
    n = m.D
    n {op}= 3
    return np.tanh(x * n)

def loss_of(m, x):
    return np.sum(forward(m, x) * forward(m, 2.0 * x)) + m.D

MODEL = Model()

def loss(x):
    return loss_of(MODEL, x)
""", lambda m: m.loss),
    "item": ("""
VALUE = {value}

class Model:
    def __init__(self):
        self.sizes = [VALUE, VALUE]

    def forward(self, x):
        k = self.sizes[1]
        k {op}= 1
        return np.cos(x) * k

    def loss(self, x):
        return np.sum(self.forward(x) * self.forward(x + 1.0)) * self.sizes[0]
""", lambda m: m.Model().loss),
    "loop": ("""
VALUE = {value}

class Model:
    def __init__(self):
        self.n = VALUE

    def forward(self, x):
        n = self.n
        for i in range(3):
            n {op}= 2
            x = np.sin(x) * 0.5 + n * 0.1
        return x

    def loss(self, x):
        return np.sum(self.forward(x) ** 2) + np.sum(self.forward(x))
""", lambda m: m.Model().loss),
    "global": ("""
VALUE = {value}

def loss(x):
    n = VALUE
    n {op}= 2
    return np.sum(np.sin(x * n)) * VALUE
""", lambda m: m.loss),
    "global_object": ("""
VALUE = {value}

class Config:
    def __init__(self):
        self.n = VALUE

CFG = Config()

def loss(x):
    n = CFG.n
    n {op}= 2
    return np.sum(np.exp(0.1 * x * n)) + CFG.n
""", lambda m: m.loss),
}
OPS = ["+", "-", "*"]


@pytest.mark.parametrize("source,value,op", [
    (s, v, o) for s, v, o in sample_by(itertools.product(SOURCES, NUMBERS, OPS), lambda c: c[0], 2)
    if not (v == "bool" and o != "+")])
def test_an_immutable_value_augmented_is_a_new_value(source, value, op, tmp_path):
    text = SOURCES[source][0].format(value=NUMBERS[value], op=op)
    stem = f"aug10_{source}_{value}_{'+-*'.index(op)}"
    f = SOURCES[source][1](_load(tmp_path, stem, text))
    fa = SOURCES[source][1](_load(tmp_path, stem, text, "autograd.numpy"))
    _check_all(f, fa, X, hessian=op == "+" and value in ("int", "np_float"))


def test_the_lunas_shape_reads_as_a_careful_person_would_write_it(tmp_path):
    text = SOURCES["bound_method"][0].format(value="3", op="+")
    module = _load(tmp_path, "aug10_source", text)
    code = srcad.source(srcad.grad(module.Model.forward, wrt=1), module.Model(), X)
    assert "check_rebinds(index, where" in code
    assert "index_1 = index + 2" in code


#: values whose += changes the object in place (or may: an object srcad cannot know)
MUTABLE = {
    "array": "np.ones(3)",
    "array0d": "np.array(2.0)",
    "list": "[1.0, 2.0]",
    "object": "Counter()",
}
COUNTER = """
class Counter:
    def __init__(self):
        self.v = 1.0

    def __iadd__(self, other):
        self.v = self.v + 1.0
        return self

    def __add__(self, other):
        return self.v + other
"""


@pytest.mark.parametrize("value", list(MUTABLE))
def test_an_attribute_changed_in_place_is_refused_when_the_code_runs(value, tmp_path):
    text = COUNTER + f"""
class Model:
    def __init__(self):
        self.W = {MUTABLE[value]}

    def loss(self, x):
        w = self.W
        w += 1.0
        return np.sum(x * 2.0)
"""
    module = _load(tmp_path, f"aug10_mut_{value}", text)
    model = module.Model()
    before = repr(getattr(model.W, "v", model.W))
    with pytest.raises(MutationError) as err:
        srcad.grad(model.loss)(X)
    assert err.value.lineno == _line(text, "w += 1.0")
    assert "w = w + ..." in err.value.hint and "self.W left alone" in err.value.hint
    assert "self.W" in str(err.value)
    assert repr(getattr(model.W, "v", model.W)) == before  # nothing was changed
    if value != "object":
        assert "copy it first" in err.value.hint


@pytest.mark.parametrize("value", list(MUTABLE))
def test_a_global_changed_in_place_is_refused_where_the_code_is_made(value, tmp_path):
    # (before, a global list or array augmented was read as a new value, silently: the
    # global read after the write gave a wrong gradient)
    text = COUNTER + f"""
G = {MUTABLE[value]}

class Holder:
    def __init__(self):
        self.W = {MUTABLE[value]}

H = Holder()

def loss(x):
    w = G
    w += x[0]
    return np.sum(x * 2.0)

def loss_object(x):
    w = H.W
    w += x[0]
    return np.sum(x * 2.0)

def loss_loop(x):
    w = G
    for i in range(2):
        w += x[0]
    return np.sum(x * 2.0)
"""
    module = _load(tmp_path, f"aug10_glob_{value}", text)
    for nth, (name, spelled) in enumerate((("loss", "G"), ("loss_object", "H.W"),
                                           ("loss_loop", "G"))):
        with pytest.raises(MutationError) as err:
            srcad.grad(getattr(module, name))(X)
        assert err.value.lineno == _line(text, "w += x[0]", nth)
        assert spelled in str(err.value)
        assert "w = w + ..." in err.value.hint


def test_a_global_list_augmented_then_read_was_a_wrong_gradient(tmp_path):
    text = """
G = [1.0, 2.0]

def loss(x):
    ys = G
    ys += [x[0]]
    return sum(G) * x[1]
"""
    module = _load(tmp_path, "aug10_wrong", text)
    with pytest.raises(MutationError, match="changes the global"):
        srcad.grad(module.loss)(X)
    assert module.G == [1.0, 2.0]


def test_an_attribute_becoming_an_array_is_refused_on_the_next_call(tmp_path):
    text = SOURCES["bound_method"][0].format(value="3", op="+")
    module = _load(tmp_path, "aug10_later", text)
    model = module.Model()
    g = srcad.grad(model.loss)
    g(X)
    model.D = np.array([1.0, 2.0, 3.0])
    with pytest.raises(MutationError) as err:
        g(X)
    assert err.value.lineno == _line(text, "index += 2")
    np.testing.assert_array_equal(model.D, [1.0, 2.0, 3.0])


def test_a_tuple_and_a_string_attribute_augmented(tmp_path):
    text = """
class Model:
    def __init__(self):
        self.shape = (3,)
        self.name = "m"

    def loss(self, x):
        shape = self.shape
        shape += (1,)
        label = self.name
        label += "!"
        return np.sum(np.reshape(x, shape) ** 2) * len(label)
"""
    f = _load(tmp_path, "aug10_tuple", text).Model().loss
    fa = _load(tmp_path, "aug10_tuple", text, "autograd.numpy").Model().loss
    _check_all(f, fa, X)


# ---------------------------------------------------------------- 2. held objects

PARTS = """
class Model:
    def __init__(self, a):
        self.a = a

    def simulate(self, x):
        return np.sin(self.a * x) + self.a

    @property
    def scale(self):
        return 2.0 * self.a


class Problem:
    def __init__(self, model):
        self._model = model

    def evaluate(self, x):
        return self._model.simulate(x) * self._model.scale


class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x + 0.1)

    def forward(self, x):
        return self(x) * 0.5


def apply(model, x):
    return model.simulate(x) ** 2


class Likelihood:
    def __init__(self):
        self._problem = Problem(Model(1.5))
        self.model = Model(0.7)
        self.layers = [Layer(0.5), Layer(-1.2), Layer(2.0)]
        self.pair = (Layer(0.3), Layer(0.9))
        self.parts = {{"enc": Layer(0.4), "dec": Layer(-0.6)}}

{method}
"""
#: the method's body (of ``self`` and ``x``): how it reaches the held objects
REACHES = {
    "pints": "return np.sum(self._problem.evaluate(x) ** 2)",
    "two_deep": "return np.sum(self._problem._model.simulate(x))",
    "predict": "return np.sum(self.model.simulate(x) * x)",
    "property": "return np.sum(x ** 2) * self.model.scale",
    "index": "return np.sum(self.layers[0](x) + self.layers[-1].forward(x))",
    "loop": "h = x\n        for layer in self.layers:\n            h = layer(h)\n"
            "        return np.sum(h ** 2)",
    "tuple": "return np.sum(self.pair[1](x) * self.pair[0].forward(x))",
    "dict": "return np.sum(self.parts['enc'](x) + sum(p.forward(x) for p in "
            "self.parts.values()))",
    "slice": "h = x\n        for layer in self.layers[1:]:\n            h = layer.forward(h)\n"
             "        return np.sum(h)",
    "passed": "return np.sum(apply(self.model, x))",
    "local": "m = self._problem\n        p = m._model\n        return np.sum(p.simulate(x) "
             "+ m.evaluate(x))",
}
#: how the derivative reaches the method
def _with_argument(m):
    obj = m.Likelihood()
    return lambda x: m.loss_of(obj, x)


ENTRIES = {
    "bound": lambda m: m.Likelihood().loss,
    "argument": lambda m: _with_argument(m),
    "global": lambda m: m.loss_global,
}


def _parts_module(tmp_path, reach, numpy_name="numpy"):
    body = REACHES[reach]
    text = PARTS.format(method=f"    def loss(self, x):\n        {body}\n") + """

def loss_of(obj, x):
    return obj.loss(x)


OBJ = Likelihood()


def loss_global(x):
    return OBJ.loss(x)
"""
    return text, _load(tmp_path, f"parts10_{reach}", text, numpy_name)


@pytest.mark.parametrize("reach,entry", sample_by(list(itertools.product(REACHES, ENTRIES)),
                                                  lambda c: c[0], 4))
def test_a_method_of_an_object_held_in_an_attribute(reach, entry, tmp_path):
    _, module = _parts_module(tmp_path, reach)
    _, module_a = _parts_module(tmp_path, reach, "autograd.numpy")
    f, fa = ENTRIES[entry](module), ENTRIES[entry](module_a)
    _check_all(f, fa, X, hessian=entry == "bound")


def test_the_object_passed_as_the_argument_differentiated_through(tmp_path):
    _, module = _parts_module(tmp_path, "pints")
    _, module_a = _parts_module(tmp_path, "pints", "autograd.numpy")
    obj, obj_a = module.Likelihood(), module_a.Likelihood()
    got = srcad.grad(module.loss_of, wrt=1)(obj, X)
    np.testing.assert_allclose(got, autograd.grad(module_a.loss_of, 1)(obj_a, X), rtol=1e-9)
    code = srcad.source(srcad.grad(module.Likelihood.loss, wrt=1), obj, X, callees=False)
    assert "check_class(_problem, Problem, where" in code
    assert code.count("check_class") == 1


def test_a_part_of_another_class_gets_code_of_its_own(tmp_path):
    _, module = _parts_module(tmp_path, "predict")
    g = srcad.grad(module.loss_of, wrt=1)
    obj, other = module.Likelihood(), module.Likelihood()
    other.model = module.Problem(module.Model(0.4))  # no simulate: another class
    other.model.simulate = None
    g(obj, X)
    obj2 = module.Likelihood()
    obj2.model = module.Model(0.2)
    np.testing.assert_allclose(g(obj2, X), numerical_grad(
        lambda x: module.loss_of(obj2, x), (X,)), rtol=1e-5, atol=1e-7)


def test_a_part_rebound_after_the_derivative_was_made_is_made_again(tmp_path):
    """The part's class is a read of the code: another class makes the code again, which
    here refuses the call (a Layer has no simulate) at its line, never runs the old code."""
    text, module = _parts_module(tmp_path, "predict")
    obj = module.Likelihood()
    g = srcad.grad(obj.loss)
    g(X)
    obj.model = module.Layer(0.3)
    with pytest.raises(SrcadError) as err:
        g(X)
    assert err.value.lineno == _line(text, "self.model.simulate(x)")
    assert "Layer" in str(err.value) + str(err.value.hint)


@pytest.mark.parametrize("held,needle", [
    ("[Layer(0.5), Model(2.0)]", "self.layers[0](x)"),
    ("{'a': Layer(0.5), 'b': Model(1.0)}", "self.layers['a'](x)"),
])
def test_items_srcad_cannot_tell_apart_stay_refused(held, needle, tmp_path):
    text = PARTS.format(method=f"    def loss(self, x):\n        return np.sum({needle})\n")
    text = text.replace("self.layers = [Layer(0.5), Layer(-1.2), Layer(2.0)]",
                        f"self.layers = {held}")
    module = _load(tmp_path, f"parts10_ref_{abs(hash(held))}", text)
    with pytest.raises(UnsupportedSyntaxError) as err:
        srcad.grad(module.Likelihood().loss)(X)
    assert err.value.lineno == _line(text, needle)
    assert "self.layers[...]" in str(err.value)
    assert "one class" in err.value.hint


@pytest.mark.parametrize("index", [0, 1])
def test_a_list_of_functions_held_is_called_by_index(index, tmp_path):
    # (refused until session 23: the list's functions are now part of the code's key)
    needle = f"self.layers[{index}](x)"
    text = PARTS.format(method=f"    def loss(self, x):\n        return np.sum({needle})\n")
    text = text.replace("self.layers = [Layer(0.5), Layer(-1.2), Layer(2.0)]",
                        "self.layers = [np.sin, np.cos]")
    module = _load(tmp_path, f"parts10_fns_{index}", text)
    obj = module.Likelihood()
    np.testing.assert_allclose(srcad.grad(obj.loss)(X), numerical_grad(obj.loss, (X,)),
                               rtol=1e-6, atol=1e-8)


def test_writing_an_attribute_of_a_part_stays_refused(tmp_path):
    text = PARTS.format(method="    def loss(self, x):\n        self.model.a = 2.0\n"
                        "        return np.sum(self.model.simulate(x))\n")
    module = _load(tmp_path, "parts10_write", text)
    with pytest.raises(UnsupportedSyntaxError) as err:
        srcad.grad(module.Likelihood().loss)(X)
    assert err.value.lineno == _line(text, "self.model.a = 2.0")
    assert "return the new value" in err.value.hint


def test_a_method_of_an_object_whose_class_is_not_known_is_refused_with_the_ways_out(tmp_path):
    text = PARTS.format(method="    def loss(self, x):\n        return 0.0\n") + """

def built(x):
    p = Problem(Model(1.5))
    return np.sum(p._model.simulate(x))


def listed(ps, x):
    return np.sum(ps[0]._model.simulate(x))
"""
    module = _load(tmp_path, "parts10_unknown", text)
    # (a list of objects passed, ``listed``, is followed since: tests/test_object_lists.py)
    for f, args, wrt, needle in (
            (module.built, (X,), 0, "np.sum(p._model.simulate(x))"),):
        with pytest.raises(SrcadError) as err:
            srcad.grad(f, wrt=wrt)(*args)
        assert err.value.lineno == _line(text, needle)
        assert "whose class srcad does not know" in str(err.value)
        assert "pass the object to the function you differentiate" in err.value.hint


def test_clear_cache_makes_the_code_again_for_a_part_of_another_class(tmp_path):
    """The hint of the refusal above, followed: after srcad.clear_cache() the derivative of
    the bound method is made for the class the part holds now."""
    text = ("import numpy as np\n\n\nclass A:\n    def ev(self, x):\n"
            "        return np.sum(np.sin(x))\n\n\nclass B:\n    def ev(self, x):\n"
            "        return np.sum(np.cos(x) * x)\n\n\n"
            "class Holder:\n    def __init__(self):\n        self.part = A()\n\n"
            "    def loss(self, x):\n        return self.part.ev(x) * 2.0\n")
    module = _load(tmp_path, "parts10_clear", text)
    obj = module.Holder()
    np.testing.assert_allclose(srcad.grad(obj.loss)(X), 2 * np.cos(X), rtol=1e-12)
    obj.part = module.B()  # the part's class is a read of the code: made again by itself
    np.testing.assert_allclose(srcad.grad(obj.loss)(X), 2 * (np.cos(X) - X * np.sin(X)),
                               rtol=1e-12)
    srcad.clear_cache()
    np.testing.assert_allclose(srcad.grad(obj.loss)(X), 2 * (np.cos(X) - X * np.sin(X)),
                               rtol=1e-12)
