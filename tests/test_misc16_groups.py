"""Values grouped by key in a dict (issue 16): ``d.setdefault(k, []).append(v)`` (or through
``bucket = d.setdefault(k, [])``),
``collections.defaultdict(list)`` with ``d[k].append(v)``, ``if k not in d: d[k] = []``,
``defaultdict(float)`` with ``d[k] += v``, ``d[k] = d.get(k, 0.0) + v``.

srcad reads each as a new list (or number) put in the dict (``srcad/frontend/lower_groups.py``),
exact when the dict's lists are its own and nothing reads the dict while they are built. A
generated family (grouping form x key x value x reader) is checked with ``grad``,
``value_and_grad``, ``jvp`` and Hessians in both modes, against autograd running the same
program and central finite differences; then the forms srcad refuses (a defaultdict it cannot
read so was a silent zero gradient before).
"""

import itertools
import uuid

import numpy as np
import pytest
from sampling import sample
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")

HEAD = "import collections\n\nimport numpy as np\n\n\ndef f(x, w):\n"

#: how the groups are made: (the dict made, the statement in the loop), with K the key, V
#: the value
LIST_FORMS = {
    "setdefault": ("d = {}", "d.setdefault(K, []).append(V)"),
    "setdefault_held": ("d = {}", "bucket = d.setdefault(K, [])\n    bucket.append(V)"),
    "defaultdict": ("d = collections.defaultdict(list)", "d[K].append(V)"),
    "if_new": ("d = {}", "if K not in d:\n        d[K] = []\n    d[K].append(V)"),
    "display": ("d = {0: [], 1: [], 2: []}", "d[K].append(V)"),
    "get_list": ("d = {}", "d[K] = d.get(K, []) + [V]"),
}
NUMBER_FORMS = {
    "defaultdict_add": ("d = collections.defaultdict(float)", "d[K] += V"),
    "defaultdict_sub": ("d = collections.defaultdict(float)", "d[K] -= V"),
    "get_number": ("d = {}", "d[K] = d.get(K, 0.0) + V"),
}
KEYS = {"mod2": "i % 2", "mod3": "i % 3", "sign": "int(v > 0)"}
VALUES = {"square": "v * v", "sin": "np.sin(v) * w"}
LIST_READ = "return sum(sum(g) ** 2 for g in d.values()) + w * len(d)"
NUMBER_READ = "return sum(t * t for t in d.values()) * w"

X = np.array([0.71, -1.23, 1.94, 0.37, -0.52])
W = 1.3


def program(form, key, value, reader):
    made, stmt = form
    body = f"    {made}\n    for i, v in enumerate(x):\n        " + stmt.replace(
        "\n    ", "\n        ").replace("K", key).replace("V", value) + f"\n    {reader}\n"
    return HEAD + body


CASES = [(f"{n}-{k}-{v}", program(form, KEYS[k], VALUES[v], LIST_READ))
         for (n, form), k, v in itertools.product(LIST_FORMS.items(), KEYS, VALUES)]
CASES += [(f"{n}-{k}-{v}", program(form, KEYS[k], VALUES[v], NUMBER_READ))
          for (n, form), k, v in itertools.product(NUMBER_FORMS.items(), KEYS, VALUES)]


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return tmp_path_factory.mktemp("misc16_groups")


def both(directory, text):
    """The program run by srcad over NumPy, and the same text over autograd.numpy."""
    name = f"groups_{uuid.uuid4().hex[:8]}"
    plain = load_module(directory, text, name).f
    mirror = load_module(directory, text.replace("import numpy as np",
                                                 "import autograd.numpy as np"), name + "_ag").f
    return plain, mirror


def close(a, b, rtol=1e-9, atol=1e-11):
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rtol,
                       atol=atol)


@pytest.mark.parametrize("text", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_grouping_family(directory, text):
    f, mirror = both(directory, text)
    want = autograd.grad(mirror, (0, 1))(X, W)
    got = srcad.grad(f, wrt=(0, 1))(X, W)
    numeric = numerical_grad(f, (X, W), (0, 1))
    for a, b, n in zip(got, want, numeric):
        assert close(a, b) and close(a, n, rtol=1e-6, atol=1e-7)
    value, grads = srcad.value_and_grad(f, wrt=(0, 1))(X, W)
    assert close(value, f(X, W), rtol=1e-12) and close(grads[0], want[0])
    u = np.array([0.3, -0.8, 0.5, 1.1, -0.2])
    assert close(srcad.jvp(f, (X, W), (u, 0.7))[1], np.dot(want[0], u) + 0.7 * want[1])


SECOND = sample([c for c in CASES if "-mod2-" in c[0] or "-sign-sin" in c[0]], 2)


@pytest.mark.parametrize("text", [c[1] for c in SECOND], ids=[c[0] for c in SECOND])
def test_grouping_second_order(directory, text):
    f, mirror = both(directory, text)
    want = autograd.hessian(mirror)(X, W)
    assert close(srcad.hessian(f)(X, W), want, rtol=1e-8, atol=1e-10)
    assert close(srcad.hessian(f, mode="rev")(X, W), want, rtol=1e-8, atol=1e-10)


def test_reads_after_the_loop(directory):
    """A defaultdict read afterwards gives a missing key its default, as Python does (``len``
    sees it), also in a branch's test; ``d.get`` and ``d.items()`` read the same."""
    text = HEAD + (
        "    d = collections.defaultdict(list)\n"
        "    for i, v in enumerate(x):\n"
        "        d[i % 3].append(v * w)\n"
        "    empty = sum(d[7])\n"
        "    if len(d[0]) > 1:\n"
        "        empty = empty + d[0][1]\n"
        "    empty = empty * len(d)\n"
        "    return empty + sum(k * sum(g) for k, g in d.items()) + sum(d.get(1, [0.0]))\n")
    f, mirror = both(directory, text)
    assert f(X, W) == pytest.approx(mirror(X, W), rel=1e-12)
    for a, b in zip(srcad.grad(f, wrt=(0, 1))(X, W), autograd.grad(mirror, (0, 1))(X, W)):
        assert close(a, b)


def test_generated_code_builds_new_lists(directory):
    f, _ = both(directory, program(LIST_FORMS["setdefault"], "i % 2", "v * v", LIST_READ))
    text = srcad.source(srcad.grad(f))
    code = [ln for ln in text.splitlines() if not ln.strip().startswith("#")]
    assert any("d_1.get(" in ln for ln in code) and not any("setdefault" in ln for ln in code)


# ---------------------------------------------------------------- what stays refused

REFUSED = {
    # the dict read while it is filled: a list kept would see later appends
    "read_in_loop": ("    d = {}\n    for i, v in enumerate(x):\n"
                     "        d.setdefault(i % 2, []).append(v)\n        first = d[0]\n"
                     "    return sum(first) * w\n", srcad.MutationError, "d.setdefault"),
    # a list of another holder put in the dict
    "list_held_twice": ("    ys = [w]\n    d = {0: ys}\n    for v in x:\n"
                        "        d.setdefault(0, []).append(v)\n    return sum(ys)\n",
                        srcad.MutationError, "d.setdefault"),
    # a defaultdict read as an item before the loop that fills it
    "defaultdict_read_before": ("    d = collections.defaultdict(list)\n    ys = d[0]\n"
                                "    for v in x:\n        d[0].append(v)\n"
                                "    return sum(ys) * w\n", srcad.UnsupportedSyntaxError,
                                "collections.defaultdict(list)"),
    # a defaultdict passed on: a dict would not make defaults there
    "defaultdict_passed": ("    d = collections.defaultdict(float)\n    for i, v in enumerate(x):\n"
                           "        d[i % 2] += v\n    return total(d) * w\n",
                           srcad.UnsupportedSyntaxError, "collections.defaultdict(float)"),
    # another factory
    "defaultdict_lambda": ("    d = collections.defaultdict(lambda: 1.0)\n"
                           "    for i, v in enumerate(x):\n        d[i % 2] *= v\n"
                           "    return d[0] * w\n", srcad.UnsupportedSyntaxError,
                           "collections.defaultdict(lambda"),
}
TOTAL = "\n\ndef total(d):\n    return d[0] + d[1] + d[5]\n"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(directory, name):
    body, cls, line_text = REFUSED[name]
    f, _ = both(directory, HEAD + body + TOTAL)
    with pytest.raises(cls) as info:
        srcad.grad(f)(X, W)
    assert line_text in (info.value.construct or "")
    if cls is srcad.UnsupportedSyntaxError:
        assert "d.setdefault(k, []).append(v)" in info.value.hint


def test_defaultdict_item_changed_under_another_name_is_refused(directory):
    """Before, ``ys = d[0]; ys.append(x[0])`` on a defaultdict gave a zero gradient."""
    f, _ = both(directory, HEAD + "    d = collections.defaultdict(list)\n    ys = d[0]\n"
                "    ys.append(x[0] * w)\n    return d[0][0] * 2.0\n")
    with pytest.raises(srcad.UnsupportedSyntaxError):
        srcad.grad(f)(X, W)
