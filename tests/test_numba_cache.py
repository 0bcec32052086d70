"""The Numba backend's cache on disk (srcad.backend.numba_cache): a derivative compiled once is
loaded, not compiled, by the next gradient of the same function (the next process's first
call), and never stands in for another: a family of callers whose callees differ only in a
constant (the callers' text identical) gets each its own gradient, compared with the Python
backend to 1e-12 when compiled and again when loaded. Skipped where numba is not installed."""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np
import pytest

import srcad
from srcad.backend import numba_backend, numba_cache

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

CALLEE = """import math


def scale(v, x):
    return math.sin(v * x) * {c} + v * {d}


def f(x, y):
    s = 0.5
    for i in range(len(y)):
        s = scale(s, x) + y[i] * s
    return s
"""

#: constants of the callee: the callers' text is the same for all of them
CONSTANTS = [(0.5, 0.25), (0.5, 0.75), (2.0, 0.25)]


@pytest.fixture
def compiled(monkeypatch, tmp_path):
    """The cache in a directory of the test's own; the Numba dispatchers ``jit`` returns."""
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    made = []
    jit = numba_backend.jit

    def recording(*args, **kwargs):
        out = jit(*args, **kwargs)
        if not kwargs.get("callee"):  # a callee's part: compiled with its caller
            made.append(getattr(out, "__srcad_numba__", out))
        return out

    monkeypatch.setattr(numba_backend, "jit", recording)
    return made


def _load(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _close(a, b):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=1e-12)


def test_loaded_by_the_next_gradient(compiled, tmp_path):
    def w(x, n=50):
        for _ in range(n):
            x = x * 0.999 + math.sin(x) * 0.01
        return x

    first = srcad.grad(w, backend="numba")(1.3)
    (dispatcher,) = compiled
    assert dispatcher.stats.cache_misses and not dispatcher.stats.cache_hits
    assert list((tmp_path / "numba").glob("srcad_*.py"))
    srcad.clear_cache()
    again = srcad.grad(w, backend="numba")(1.3)
    loaded = compiled[-1]
    assert loaded is not dispatcher and loaded.stats.cache_hits  # loaded, not compiled
    assert first == again == srcad.grad(w)(1.3)


def test_callees_that_differ_are_not_confused(compiled, tmp_path):
    """Three callees differing in a constant, their callers' text the same: each gradient is
    its own (the callee's part counts in the caller's key), when compiled and when loaded."""
    y = np.array([0.3, -0.2, 0.1])
    for _ in range(2):  # (one module name a callee: the parts' modules are in the key)
        for k, (c, d) in enumerate(CONSTANTS):
            module = _load(tmp_path, f"numba_cache_case_{k}", CALLEE.format(c=c, d=d))
            fast = srcad.grad(module.f, wrt=("x", "y"), backend="numba")(0.7, y)
            slow = srcad.grad(module.f, wrt=("x", "y"))(0.7, y)
            assert _close(fast[0], slow[0]) and _close(fast[1], slow[1])
            sys.modules.pop(module.__name__)
        srcad.clear_cache()
    hits = [bool(d.stats.cache_hits) for d in compiled]
    assert hits == [False] * len(CONSTANTS) + [True] * len(CONSTANTS)  # the second loads
    texts = {p.read_text() for p in (tmp_path / "numba").glob("srcad_*.py")}
    assert len(list((tmp_path / "numba").glob("srcad_*.py"))) == len(CONSTANTS)
    assert len(texts) == 1  # one caller text, three keys


def test_off(compiled, monkeypatch, tmp_path):
    monkeypatch.setenv("SRCAD_CACHE_DIR", "off")
    assert numba_cache.directory() is None

    def w(x):
        return math.sin(x) * x

    assert srcad.grad(w, backend="numba")(0.4) == srcad.grad(w)(0.4)
    assert not compiled[0].stats.cache_path


def test_only_plain_defaults_are_keyed():
    """A default's repr is part of the key only where it determines the value (an array's
    repr elides its middle: no cache)."""
    def plain(x, n=3, scale=0.5):
        return x * n * scale

    def array(x, w=None):
        return x * w[0]

    array.__defaults__ = (np.ones(2000),)

    for fn in (plain, array):
        fn.__srcad_source__ = "text"
    assert numba_cache.fingerprint(plain) is not None
    assert numba_cache.fingerprint(array) is None
