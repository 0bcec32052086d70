"""Functions the Numba backend caches on disk have names of their own (srcad/backend/
numba_cache.py, ``renamed``).

Numba names a function compiled with ``cache=True`` by its module and qualified name (no
number of the process in it), and links a function's callees into its code by those names.
srcad's checked ``math`` helpers were all closures named ``checked``: once two of them were
cached (by one process or two), code calling both (``math.sin`` and the cosine of its
derivative: a ``vjp`` of a loop) ran one's code for the other, silently. Found on main by
numba27: ``srcad.vjp(rows, x, y, backend="numba")`` off by 0.18 (gradient items up to 0.88)
against the Python backend, in any process after the cache held both; tests/test_numba_backend.py
did not see it (its own fresh cache directory). Now each is named ``checked_<function>``.

Imports ``srcad.backend`` (numba_backend, numba_helpers).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sampling import LONG

from srcad.backend import numba_backend

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

ROOT = Path(__file__).resolve().parent.parent


def test_each_cached_math_helper_has_a_name_of_its_own():
    from srcad.backend import numba_helpers

    names = [numba_helpers._checked(f).py_func.__qualname__
             for f in sorted(set(numba_helpers.CHECKED_MATH) | {"sin", "cos", "cos_apart"})]
    assert len(set(names)) == len(names), names


_COMPILE_ONE = "from srcad.backend import numba_helpers as H; H._checked({!r})(0.3)"
_BOTH = """
import math, numba
from srcad.backend import numba_helpers as H
s, c = H._checked('sin'), H._checked('cos_apart')
s(0.3); c(0.3)  # both from the cache on disk
@numba.njit
def both(x):
    return s(x) + 10.0 * c(x)
print(both(0.3) - (math.sin(0.3) + 10.0 * math.cos(0.3)))
"""


@pytest.mark.skipif(not LONG, reason="the long run's (three processes importing Numba)")
def test_two_cached_math_helpers_called_together(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    for name in ("sin", "cos_apart"):  # each cached by a process of its own
        subprocess.run([sys.executable, "-c", _COMPILE_ONE.format(name)], env=env, check=True)
    out = subprocess.run([sys.executable, "-c", _BOTH], env=env, check=True,
                         capture_output=True, text=True).stdout
    assert float(out) == 0.0, out  # main: -6.598... (sin's code for the cosine)
