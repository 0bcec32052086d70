"""Every helper generated code may call is in the one registry, srcad.runtime.HELPERS, with its
family; the emitter binds exactly those names, and the NumPy index lists exactly the NumPy
family. Code elsewhere asks ``family_of`` instead of comparing module names, so a helper can
move between the runtime's modules without changing behaviour."""

import inspect

import pytest

import srcad.runtime as runtime
from srcad.backend.emit import HELPER_OBJECTS
from srcad.runtime import helpers, numpy_helpers
from srcad.runtime.float_constants import CONSTANTS
from srcad.runtime.registry import helper


def test_every_public_function_of_a_helper_module_is_registered():
    for module in (helpers, *numpy_helpers.MODULES):
        for name, fn in vars(module).items():
            if inspect.isfunction(fn) and fn.__module__ == module.__name__ \
                    and not name.startswith("_"):
                assert runtime.HELPERS.get(name) is fn, f"{module.__name__}.{name}"
                assert runtime.family_of(fn) == ("runtime" if module is helpers else "numpy")


def test_the_emitter_and_the_numpy_index_read_the_registry():
    assert {k: v for k, v in HELPER_OBJECTS.items() if k not in ("math", "np", *CONSTANTS)} \
        == runtime.HELPERS  # (and the float64 constants: srcad.backend.float_literals)
    assert set(numpy_helpers.__all__) == {n for n, f in runtime.HELPERS.items()
                                          if runtime.family_of(f) == "numpy"}
    assert numpy_helpers.grad_sum is runtime.HELPERS["grad_sum"]


def test_family_of_is_by_identity_not_by_name():
    def grad_sum(g, a):  # a user's function with a helper's name
        return g

    assert runtime.family_of(grad_sum) is None
    assert runtime.family_of(len) is None and runtime.family_of(object()) is None
    with pytest.raises(ValueError, match="two srcad runtime helpers"):
        helper("numpy")(grad_sum)
