"""A ``for`` loop over a generator expression whose items read a name the loop binds or changes:
``for v in (t * s for t in xs): s = s + v``. Python computes each item when the loop asks for
it, with the ``s`` of that moment; srcad makes the items before the loop, so it gave the
gradient of items made with the first ``s`` (WRONG: 7.0 where the derivative is 24.0; found
while triaging tests/test_properties_python.py). Refused now at the line that changes the name
(also the loop's target, and inside ``zip``/``enumerate``); loops that change nothing the items
read, or change only the first iterable (read at once, as Python reads it), are differentiated,
against autograd on the same source and central differences. Imports NumPy, autograd, srcad."""

import itertools

import autograd
import pytest
from class_families import module_of
from sampling import sample
from twin_checks import close

import srcad
from srcad.errors import SrcadError

HEAD = "import numpy as np\n\n\ndef f(x):\n    s = x\n    xs = [1.0, x, 3.0]\n    total = 0.0\n"

ITEMS = {"scaled": "t * s", "sin": "np.sin(t + s)", "filtered": "t * s"}
LOOPS = {
    "plain": "    for v in ({items} for t in xs):\n",
    "enumerate": "    for i, v in enumerate({items} for t in xs):\n",
    "zip": "    for v, w in zip(({items} for t in xs), xs):\n",
}
CHANGES = {"rebind": "        s = s + v\n", "augmented": "        s += v * 0.5\n",
           "in_branch": "        if v > 0.0:\n            s = s * 1.5\n"}


def _loop(loop, kind):
    head = LOOPS[loop].format(items=ITEMS[kind])
    if kind == "filtered":
        head = head.replace("for t in xs)", "for t in xs if t > 0.0)")
    return head


#: sampled in CI (every second), whole with SRCAD_LONG_PROPERTIES=1
REFUSED = sample(list(itertools.product(sorted(ITEMS), sorted(LOOPS), sorted(CHANGES))), 2)


@pytest.mark.parametrize("kind,loop,change", REFUSED)
def test_loop_changing_what_the_items_read_is_refused(tmp_path, kind, loop, change):
    text = HEAD + _loop(loop, kind) + "        total = total + v\n" + CHANGES[change] + \
        "    return total + s\n"
    mod = module_of(tmp_path, text, f"lazy_{kind}_{loop}_{change}", "")
    with pytest.raises(SrcadError) as info:
        srcad.grad(mod.f)(0.7)
    line = 11 if change == "in_branch" else 10
    assert info.value.filename == mod.__file__ and info.value.lineno == line, text
    assert "generator expression" in str(info.value)


def test_loop_target_rebinding_a_name_the_items_read_is_refused(tmp_path):
    text = HEAD + "    for s in (t * s for t in xs):\n        total = total + s\n" \
                  "    return total\n"
    mod = module_of(tmp_path, text, "lazy_target", "")
    with pytest.raises(SrcadError) as info:
        srcad.grad(mod.f)(0.7)
    assert info.value.lineno == 8


@pytest.mark.parametrize("loop", sorted(LOOPS))
@pytest.mark.parametrize("kind", sorted(ITEMS))
@pytest.mark.parametrize("body", ["        total = total + v * s\n",
                                  "        xs = [v]\n        total = total + v\n"])
def test_loop_changing_nothing_the_items_read(tmp_path, kind, loop, body):
    text = HEAD + _loop(loop, kind) + body + "    return total + s\n"
    mod = module_of(tmp_path, text, f"lazy_ok_{kind}_{loop}_{len(body)}", "")
    twin = module_of(tmp_path, text, f"lazy_ok_{kind}_{loop}_{len(body)}_ag", "",
                     numpy="autograd.numpy")
    got, want = srcad.grad(mod.f)(0.7), autograd.grad(twin.f)(0.7)
    fd = (mod.f(0.7 + 1e-6) - mod.f(0.7 - 1e-6)) / 2e-6
    assert close(got, want, 1e-10) and close(got, fd, 1e-6), (text, got, want, fd)
