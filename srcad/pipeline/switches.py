"""What every stage of the pipeline shares: ``SRCAD_DEBUG``'s print of the code after each
pass (:func:`debug`), ``SRCAD_OPTIMIZE`` (tidy on or off: :func:`tidied`), and the lock that
runs one transformation at a time (:func:`serialised`).

Set ``switches.DEBUG`` or ``switches.OPTIMIZE`` (then ``srcad.clear_cache()``) to change them
in a running process.

Imports ``srcad.analysis.raise_facts``, ``srcad.backend.tidy`` and ``srcad.transform.nodes``.
"""

from __future__ import annotations

import functools
import os
import sys
import threading

from ..analysis import raise_facts
from ..backend.tidy import tidy
from ..transform import nodes

DEBUG = bool(os.environ.get("SRCAD_DEBUG"))

#: 1 (the default): tidy the generated code (inline temporaries, propagate copies and constants,
#: drop dead forward values); 0: as the reverse pass writes it. Both give the same numbers (the
#: corpus runs at both); ``SRCAD_OPTIMIZE=0`` or ``OPTIMIZE = 0`` then ``clear_cache()``: 0.
OPTIMIZE = int(os.environ.get("SRCAD_OPTIMIZE", "1"))


def tidied(fdef, temps, grads, floats=(), spelled=None, ints=(), analysis=None):
    nodes.unshare(fdef)
    # the helpers that sum a value down, as this code spells them (a user's name may take one)
    sums = {spelled[h] for h in ("unbroadcast", "unbroadcast_to", "total")} if spelled else ()
    arrays = raise_facts.of(analysis, spelled) if analysis else None  # (.tidy_dead)
    makers = {spelled["scatter"]} if spelled else ()  # a new array each call (.tidy_copies)
    return tidy(fdef, temps, grads, floats, sums, ints, arrays, makers) if OPTIMIZE else fdef


def debug(stage, text):
    if DEBUG:
        print(f"---- srcad: after {stage} ----\n{text}", file=sys.stderr)


#: transformations run one at a time (they share caches and linecache entries); a generated
#: function, once made, runs in any number of threads
LOCK = threading.RLock()


def serialised(fn):
    @functools.wraps(fn)
    def locked(*args, **kwargs):
        limit = sys.getrecursionlimit()
        with LOCK:
            # long expressions nest deeply; Python compiles them, so srcad should too
            sys.setrecursionlimit(max(limit, 20000))
            try:
                return fn(*args, **kwargs)
            finally:
                sys.setrecursionlimit(limit)

    return locked
