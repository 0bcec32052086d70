"""Ordinary numerical Python (issue 16, outside24 item 6): the forms of
tests/outside24_forms.py, each differentiated against central differences and, where
autograd runs it, autograd on the same source with ``autograd.numpy``; the few srcad refuses
give a ``SrcadError`` naming the line (``REFUSED``, with why)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
TEXT = (pathlib.Path(__file__).parent / "outside24_forms.py").read_text()
W = np.array([0.3, -0.4, 0.7])

#: name -> what the refusal says (srcad refuses these, at the line)
REFUSED = {
    "f_named_tuple": "namedtuple",  # a class made in the function
    "g_itemgetter": "does not know",  # a function value made by a call
}


def _names():
    import ast

    tree = ast.parse(TEXT)
    return sorted(n.name for n in tree.body if isinstance(n, ast.FunctionDef) and
                  n.name[:2] in ("f_", "g_"))


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    path = tmp_path_factory.mktemp("forms24")
    return (load_module(path, TEXT),
            load_module(path, TEXT.replace("import numpy as np", "import autograd.numpy as np")))


@pytest.mark.parametrize("name", sample([n for n in _names() if n not in REFUSED], 8))
def test_an_ordinary_form(name, modules):
    _check(name, modules)


def test_a_star_call_of_a_nested_def(modules):
    """``f(*w)`` of a nested def, ``w``'s length known only at run time: refused until
    fuzz32 (star_call passes what the def reads first), now differentiated."""
    _check("g_star_args", modules)


def _check(name, modules):
    m, a = modules
    f = getattr(m, name)
    g = srcad.grad(f)(W.copy())
    fd = np.array([(f(W + 1e-6 * e) - f(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)
    try:
        want = autograd.grad(getattr(a, name))(W.copy())
    except Exception:  # noqa: BLE001 - autograd cannot run it (math.fsum, in-place writes)
        return
    np.testing.assert_allclose(g, want, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_an_ordinary_form_srcad_refuses(name, modules):
    with pytest.raises(srcad.SrcadError, match=REFUSED[name]) as err:
        srcad.grad(getattr(modules[0], name))(W.copy())
    assert err.value.lineno is not None


def test_index_and_count_are_read_for_lists_and_tuples_only():
    from srcad.runtime import containers

    assert containers.seq_index([1.0, 2.0, 2.0], 2.0) == 1
    assert containers.seq_index((1.0, 2.0, 2.0), 2.0, 2) == 2
    assert containers.seq_count([1.0, 2.0, 2.0], 2.0) == 2

    class Other:
        def index(self, v):
            return v * 2.0

    with pytest.raises(srcad.SrcadError, match="Other"):
        containers.seq_index(Other(), 1.0)
