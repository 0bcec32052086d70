"""Numba's cache on disk written by several processes at once (srcad.backend.numba_cache.njit).

Numba saves a cache entry with no lock: it reads the function's index, takes the first free data
file number, writes the index, then the data. Two processes saving two keys of one function at
once (srcad's math helpers are one closure, ``numba_helpers._checked``, keyed by the function
it wraps; a derivative compiled for two dtypes) take the same number, and the index names one
key's code for the other: every later process then ran, say, ``exp`` where ``sin`` was asked
(a test run of two workers gave wrong values and gradients; found 2026-12-06). srcad's cached
functions save under a lock, the data before the index naming it.

- many processes saving many keys to one index at once: every key names its own data (with
  Numba's own class, a third of the keys named another key's data when this was written);
- srcad's helpers and the derivatives it compiles carry the locked cache;
- end to end (the long run: ``SRCAD_LONG_PROPERTIES=1``): processes compiling different math
  helpers at once into one fresh cache, then a fresh process loading them, each equal to
  Python's ``math``.
Skipped without numba or ``fcntl`` (the cache is then off: nothing to race)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import tempfile

import pytest

from srcad.backend import numba_backend, numba_cache

pytestmark = [
    pytest.mark.skipif(not numba_backend.available(), reason="numba not installed"),
    pytest.mark.skipif(sys.platform == "win32", reason="no fcntl: no cache on disk"),
]


def _writer(path, worker, count, barrier):
    locked = numba_cache._locked_class()
    cache_file = locked(path, "fn-1.py311", ("stamp", 1))
    barrier.wait()  # all at once
    for i in range(count):
        cache_file.save((worker, i), f"data {worker} {i}")


def test_many_processes_saving_at_once_keep_every_key_with_its_own_data(tmp_path):
    from numba.core.caching import IndexDataCacheFile

    context = multiprocessing.get_context("fork")
    workers, count = 5, 25
    barrier = context.Barrier(workers)
    processes = [context.Process(target=_writer, args=(str(tmp_path), w, count, barrier))
                 for w in range(workers)]
    for p in processes:
        p.start()
    for p in processes:
        p.join(60)
        assert p.exitcode == 0
    reader = IndexDataCacheFile(str(tmp_path), "fn-1.py311", ("stamp", 1))
    index = reader._load_index()
    assert len(index) == workers * count
    for (worker, i), name in index.items():
        assert reader._load_data(name) == f"data {worker} {i}"


def test_srcad_compiles_with_the_locked_cache():
    from srcad.backend import numba_helpers

    locked = numba_cache._locked_class()
    assert isinstance(numba_helpers._checked("exp")._cache._cache_file, locked)
    text = "def probe(x):\n    return x * 2.0\n"  # as srcad generates code: a text of its own
    scope = {}
    exec(compile(text, "<probe>", "exec"), scope)
    probe = scope["probe"]
    probe.__srcad_source__ = text
    made = numba_backend.jit(probe, "probe", example=(0.3,))
    assert made(0.3) == 0.6
    if numba_cache.directory() is not None:  # (the cache on: tests/conftest.py's directory)
        assert isinstance(made._cache._cache_file, locked)


_COMPILE = """
import sys
from srcad.backend import numba_helpers
for name in sys.argv[1].split(","):
    numba_helpers._checked(name)(0.3)
"""
_CHECK = """
import math, sys
from srcad.backend import numba_helpers
bad = [n for n in sys.argv[1].split(",") if numba_helpers._checked(n)(0.3) != getattr(math, n)(0.3)]
print(bad)
"""


@pytest.mark.skipif(not os.environ.get("SRCAD_LONG_PROPERTIES"),
                    reason="seconds of compiles in processes: the long run's")
def test_math_helpers_compiled_by_processes_at_once_load_as_themselves():
    groups = ["exp,sinh", "cosh,expm1", "tanh,atan"]
    env = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="srcad-lock-"))
    running = [subprocess.Popen([sys.executable, "-c", _COMPILE, g], env=env)
               for g in groups]
    assert all(p.wait(300) == 0 for p in running)
    out = subprocess.run([sys.executable, "-c", _CHECK, ",".join(groups)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
