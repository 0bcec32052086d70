"""Numba's cache on disk and callees of the same source in two modules (numba_cache): Numba's
cached code names a callee part by its module, and loading the entry imports that module, so
a derivative cached for ``a.f`` and found again for ``b.f`` (the same source) imported ``a``
in ``b``'s process (running its top-level code; a ModuleNotFoundError where ``a`` is gone).
The parts' modules are now in the key. Checked on the key itself (no compiling).

Imports ``srcad.backend`` (numba_backend, numba_cache).
"""

from __future__ import annotations

import pytest

from srcad.backend import numba_backend, numba_cache

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

PART = "def g(x):\n    return x * x\n"
CALLER = "def f(x):\n    return g(x) + 1.0\n"


def _made(text, scope):
    exec(compile(text, "<test>", "exec"), scope)  # noqa: S102 - the test's own source
    fn = scope[text.split("(")[0][4:]]
    fn.__srcad_source__ = text
    return fn


def _caller_of(module):
    import numba

    part = numba.njit(_made(PART, {"__name__": module}))
    part.__srcad_numba_part__ = True
    return _made(CALLER, {"__name__": "caller", "g": part})


@needs_numba
def test_parts_of_two_modules_keyed_apart():
    a, again, b = _caller_of("mod_a"), _caller_of("mod_a"), _caller_of("mod_b")
    assert numba_cache.fingerprint(a) == numba_cache.fingerprint(again) is not None
    assert numba_cache.fingerprint(a) != numba_cache.fingerprint(b)
