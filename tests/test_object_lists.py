"""Lists, tuples and dicts of objects of the user's classes, passed in or held in globals.

``for layer in layers: x = layer(x)`` with ``layers`` an argument (of the function
differentiated or of a callee), a global list, a global dict's ``.values()``, ``tuple(LAYERS)``:
srcad refused every method call on an item ("a method of an object whose class srcad does not
know") although the same list held in an attribute (``self.layers``) was followed. Now a
list, tuple or dict all of whose items are objects of one class of the user's (the same
parts) is known like that attribute (:func:`srcad.frontend.held_objects.known_object`,
``items_of``): an argument's items' classes are part of the specialisation (a list of other
objects makes other code), a global's are read where the code is made, and every use of an
item that relies on its class checks, when the code runs, that the item is still of it (a
``SrcadError`` at the line otherwise, never a wrong gradient).

A generated family: the holder (an argument of the function differentiated, of a callee, a
global list, tuple or dict, ``tuple(LAYERS)``, an attribute of an object passed) times the
way it is read (a loop over it, an index loop, its ends, a slice, ``enumerate``, ``zip``, a
comprehension, an item passed to a function of the user's, a callee looping over it), each
against central finite differences and autograd on the same text (the module is written
twice, importing NumPy and ``autograd.numpy``), with value_and_grad, jvp and Hessians in both
modes; then the refusals (objects of two classes; a global's item replaced by another class).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from sampling import sample_by
from srcad.check import numerical_grad

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -0.7, 1.1])

CLASSES = '''
class Layer:
    def __init__(self, s, b=0.1):
        self.s = s
        self.b = b

    def apply(self, x):
        return np.tanh(self.s * x + self.b)

    def __call__(self, x):
        return self.apply(x) * 1.5

    @property
    def scale(self):
        return self.s * 2.0


class Model:
    def __init__(self, layers):
        self.layers = layers


def use(layer, x):
    return layer.apply(x) * layer.scale


def run(layers, x):
    for layer in layers:
        x = layer.apply(x)
    return x


W = [1.0, 2.0, 0.5]
LAYERS = [Layer(0.5), Layer(1.5, 0.2), Layer(-0.7)]
TLAYERS = tuple(LAYERS)
DLAYERS = {"a": Layer(0.5), "b": Layer(1.2, -0.3), "c": Layer(0.9)}
MODEL = Model(LAYERS)
'''

#: where the objects are: (the name the body reads, the parameters after x, the arguments
#: given for them (module names), whether it is a dict)
HOLDERS = {
    "argument_list": ("layers", ", layers", "LAYERS", False),
    "argument_tuple": ("layers", ", layers", "TLAYERS", False),
    "argument_dict": ("layers", ", layers", "DLAYERS", True),
    "global_list": ("LAYERS", "", "", False),
    "global_tuple": ("TLAYERS", "", "", False),
    "global_dict": ("DLAYERS", "", "", True),
    "tuple_of_global": ("tuple(LAYERS)", "", "", False),
    "attribute_of_argument": ("model.layers", ", model", "MODEL", False),
}

#: how the objects are read: (body for a list or tuple, body for a dict), ``{H}`` the holder
READS = {
    "loop": ("for layer in {H}:\n        x = layer.apply(x)\n    return np.sum(x)",
             "for layer in {H}.values():\n        x = layer.apply(x)\n    return np.sum(x)"),
    "index_loop": ("for i in range(len({H})):\n        x = {H}[i].apply(x)\n"
                   "    return np.sum(x)",
                   "for k in sorted({H}):\n        x = {H}[k].apply(x)\n    return np.sum(x)"),
    "ends": ("return np.sum({H}[0].apply(x) * {H}[-1].scale)",
             "return np.sum({H}['a'].apply(x) * {H}['c'].scale)"),
    "slice": ("for layer in {H}[1:]:\n        x = layer(x)\n    return np.sum(x)", None),
    "enumerate": ("for i, layer in enumerate({H}):\n        x = layer(x) + 0.1 * i * x\n"
                  "    return np.sum(x)", None),
    "zip": ("for layer, w in zip({H}, W):\n        x = layer.apply(x) * w\n"
            "    return np.sum(x)", None),
    "comprehension": ("return np.sum(np.array([layer.apply(x) for layer in {H}]))",
                      "return np.sum(np.array([v.apply(x) for v in {H}.values()]))"),
    "passed_item": ("return sum(np.sum(use(layer, x)) for layer in {H})",
                    "return sum(np.sum(use(layer, x)) for layer in {H}.values())"),
    "callee": ("return np.sum(run({H}, x))", "return np.sum(run(list({H}.values()), x))"),
}


def _load(tmp_path, stem, text, numpy_name="numpy"):
    path = tmp_path / f"{stem}_{numpy_name.replace('.', '_')}.py"
    path.write_text(f"import {numpy_name} as np\n" + text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases():
    for holder, (_, _, _, is_dict) in HOLDERS.items():
        for read, (_, keyed) in READS.items():
            if is_dict and keyed is None:
                continue
            if holder == "tuple_of_global" and read in ("index_loop", "ends", "slice"):
                continue  # tuple(LAYERS)[0] reads like LAYERS[0] (global_list)
            yield holder, read


def _module(tmp_path, holder, read, numpy_name="numpy"):
    name, params, given, is_dict = HOLDERS[holder]
    body = READS[read][1 if is_dict else 0].format(H=name)
    text = CLASSES + f"\n\ndef f(x{params}):\n    {body}\n\n\ndef top(x):\n" \
        f"    return f(x{', ' + given if given else ''})\n"
    module = _load(tmp_path, f"objlists_{holder}_{read}", text, numpy_name)
    return module, (eval(given, vars(module)),) if given else ()  # noqa: S307


@pytest.mark.parametrize("holder,read", sample_by(list(_cases()), lambda c: c[0], 2))
def test_methods_of_objects_in_lists_tuples_and_dicts(tmp_path, holder, read):
    module, extra = _module(tmp_path, holder, read)
    agmodule, agextra = _module(tmp_path, holder, read, "autograd.numpy")
    want = autograd.grad(agmodule.f)(X, *agextra)
    # the function that takes the objects, differentiated with them given
    g = srcad.grad(module.f, wrt=0)(X, *extra)
    np.testing.assert_allclose(g, numerical_grad(lambda x: module.f(x, *extra), (X,)),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)
    # a function passing them on (the objects reach f as a callee's argument)
    value, g2 = srcad.value_and_grad(module.top)(X)
    assert value == pytest.approx(module.top(X), rel=1e-12)
    np.testing.assert_allclose(g2, want, rtol=1e-10, atol=1e-12)
    t = np.array([0.5, -0.2, 0.3])
    _, tangent = srcad.jvp(module.top, (X,), (t,))
    assert tangent == pytest.approx(float(np.dot(want, t)), rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("holder,read", [
    ("argument_list", "loop"), ("global_dict", "comprehension"), ("tuple_of_global", "zip"),
    ("attribute_of_argument", "passed_item"), ("argument_tuple", "callee")])
def test_hessians_through_objects_in_lists(tmp_path, holder, read):
    module, _ = _module(tmp_path, holder, read)
    agmodule, _ = _module(tmp_path, holder, read, "autograd.numpy")
    want = autograd.hessian(agmodule.top)(X)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(module.top, mode=mode)(X), want,
                                   rtol=1e-8, atol=1e-10)


def test_the_generated_code_checks_each_item_it_relies_on(tmp_path):
    module, extra = _module(tmp_path, "argument_list", "index_loop")
    df = srcad.grad(module.f, wrt=0)
    df(X, *extra)
    text = srcad.source(df)
    assert "check_class(" in text
    # the method's parts called, or (small straight-line parts) written in with their comment
    assert ("apply_fwd(" in text or "apply, line" in text) and (
        "apply_bwd(" in text or "apply, line" in text)


def test_a_new_list_of_objects_of_another_class_makes_new_code(tmp_path):
    """An argument's items' classes are part of the specialisation."""
    text = CLASSES + '''

class Other(Layer):
    def apply(self, x):
        return np.sin(self.s * x) + self.b


def f(x, layers):
    for layer in layers:
        x = layer.apply(x)
    return np.sum(x)
'''
    module = _load(tmp_path, "objlists_other", text)
    df = srcad.grad(module.f, wrt=0)
    for layers in (module.LAYERS, [module.Other(0.4), module.Other(1.3)], module.LAYERS):
        np.testing.assert_allclose(
            df(X, layers), numerical_grad(lambda x, ls=layers: module.f(x, ls), (X,)),
            rtol=1e-5, atol=1e-7)


def test_objects_of_two_classes_are_refused_at_their_line(tmp_path):
    text = CLASSES + '''

class Other(Layer):
    def apply(self, x):
        return np.sin(self.s * x) + self.b


MIXED = [Layer(0.5), Other(1.0)]


def f(x, layers):
    for layer in layers:
        x = layer.apply(x)
    return np.sum(x)


def g(x):
    return np.sum(MIXED[1].apply(x))
'''
    module = _load(tmp_path, "objlists_mixed", text)
    lines = text.splitlines()
    for fn, args, needle in ((module.f, (X, module.MIXED), "x = layer.apply(x)"),
                             (module.g, (X,), "MIXED[1].apply(x)")):
        with pytest.raises(SrcadError) as err:
            srcad.grad(fn, wrt=0)(*args)
        assert err.value.lineno == 1 + max(i for i, line in enumerate(lines, start=1)
                                           if needle in line)
        assert "whose class srcad does not know" in str(err.value)


def test_a_global_item_replaced_by_another_class_is_refused_when_the_code_runs(tmp_path):
    """The code was made for the class a global list's items had; an item of another class
    found when the code runs is a SrcadError at the line, never a wrong gradient."""
    text = CLASSES + '''

class Other(Layer):
    def apply(self, x):
        return np.sin(self.s * x) + self.b


def g(x):
    for layer in LAYERS:
        x = layer.apply(x)
    return np.sum(x)
'''
    module = _load(tmp_path, "objlists_replaced", text)
    dg = srcad.grad(module.g)
    np.testing.assert_allclose(dg(X), numerical_grad(module.g, (X,)), rtol=1e-5, atol=1e-7)
    module.LAYERS[1] = module.Other(0.8)
    with pytest.raises(SrcadError) as err:
        dg(X)
    assert "holds a Other when the code runs" in str(err.value)
    assert err.value.lineno == 1 + max(i for i, line in enumerate(text.splitlines(), 1)
                                       if "x = layer.apply(x)" in line)
