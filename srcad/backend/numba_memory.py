"""Keeping freed memory in the process (glibc), for compiled derivatives of large arrays.

A reverse-mode derivative keeps the arrays its forward sweep saves until the backward sweep
has read them; for GradBench's ``ode`` at n = 10 000 that is a few megabytes a call, freed
together at its end. glibc's ``malloc`` gives the top of its heap back to the system once
more than ``M_TRIM_THRESHOLD`` (128 KiB by default) is free there, so the next call faults
every page in again: measured on ``ode`` in GradBench's tool process, about 870 page faults a
call and the gradient 2–3 × slower (summed ratio 6.05 against 2.53 with the threshold
raised). NumPy's objective, which frees each temporary before making the next, never meets
it. Numba's compiled code allocates with ``malloc`` too, so the setting is the process's.

:func:`keep_freed_memory` raises the trim threshold and fixes the size above which arrays
are mapped on their own (glibc's ``mallopt``), as ``MALLOC_TRIM_THRESHOLD_`` and
``MALLOC_MMAP_THRESHOLD_`` in the environment would: freed memory up to the threshold stays
in the process for the next call. It changes the whole process's allocator, so srcad never
calls it by itself: call it once, where the process runs compiled derivatives of large arrays
many times (the GradBench tool's ``--backend numba`` does). Elsewhere than glibc it does
nothing and returns False.

Imports: ``ctypes`` when called.
"""

from __future__ import annotations

M_TRIM_THRESHOLD = -1  # glibc's malloc.h
M_MMAP_THRESHOLD = -3


def keep_freed_memory(trim=256 << 20, mmap=32 << 20):
    """Keep up to ``trim`` bytes of freed memory at the top of the heap, and serve arrays up
    to ``mmap`` bytes from the heap (32 MiB: glibc's own largest dynamic threshold), so that
    the memory a derivative frees is reused by its next call instead of being given back to
    the system and faulted in again (see the module docstring). True where it was set."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):  # not glibc (no mallopt): nothing to do
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, int(mmap)) and mallopt(M_TRIM_THRESHOLD, int(trim)))
