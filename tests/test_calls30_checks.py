"""One builder of the compiled "do these reads still find the same objects" test
(``srcad.core.env.same_objects`` and ``tests_text``) serving both its uses: the dispatcher's
``env.checker`` (``recheck=True``: an empty cell or an attribute gone looked up again, read
by read: the exact answer) and the kept closures' ``fast_checks.unchanged``
(``recheck=False``: then "may have changed", the full check decides), and the closures'
tests with the objects baked in. Each is compared with :meth:`Read.current` read by read, for
a global, a builtin, a name gone, attribute paths (present, gone), a cell (full, emptied) and
a list of functions (an ``ItemsRead``), before and after each is rebound.
"""

import math
import types

import pytest

from srcad import fast_checks
from srcad.core import env


def _loop(reads):
    return all(r.current() is r.value for r in reads)


def _cell(value):
    return (lambda: value).__closure__[0]


def _unspellable(read):
    """Whether the compiled test of ``read`` raises (an empty cell, an attribute gone)."""
    return type(read) is env.Read and read.current() is env.MISSING and (
        read.cell is not None or bool(read.attrs))


def _baked(reads):
    space = {}
    text = fast_checks.tests_text(reads, space, baked=True)
    test = eval(compile(f"lambda: {text}", "<test>", "eval"), space)  # noqa: S307

    def run():
        try:
            return test()
        except (ValueError, AttributeError):
            return None  # unsure: the closures' callers take the full path

    return run


def _scenario():
    space = {"np_like": math, "k": 3, "acts": [math.sin, math.cos]}
    full, emptied = _cell(math), _cell(1.0)
    reads = [env.Read(space, None, "np_like", ("sin",), math.sin),
             env.Read(space, None, "np_like", ("cos",), math.cos),  # np_like once (baked)
             env.Read(space, None, "k", (), 3),
             env.Read(space, None, "abs", (), abs),  # a builtin: not in the namespace
             env.Read(space, None, "gone", (), env.MISSING),
             env.Read(space, None, "np_like", ("nothing",), env.MISSING),
             env.Read(None, full, "m", ("cos",), math.cos),
             env.Read(None, emptied, "v", (), 1.0),
             env.ItemsRead(space, None, "acts", (), space["acts"])]
    changes = [lambda: space.__setitem__("np_like", types.SimpleNamespace(sin=math.sin)),
               lambda: space.__setitem__("np_like", types.SimpleNamespace(cos=math.cos)),
               lambda: space.__setitem__("k", 4),
               lambda: space.__setitem__("abs", abs),
               lambda: space.__setitem__("gone", 1),
               lambda: space.__setitem__("np_like", types.SimpleNamespace(nothing=1)),
               lambda: setattr(full, "cell_contents", types.SimpleNamespace(cos=math.cos)),
               lambda: delattr(emptied, "cell_contents"),
               lambda: space["acts"].append(math.tan)]
    return reads, changes


@pytest.mark.parametrize("use", ["checker", "unchanged", "baked"])
def test_each_use_agrees_with_current_read_by_read(use):
    reads, changes = _scenario()
    for k in range(len(reads) + 1):
        for some in ([reads[k]] if k < len(reads) else [], reads):
            exact = _loop(some)
            if use == "checker":  # the exact answer, always
                assert env.checker(some)() is exact
                assert env.same_objects(some, recheck=True)() is exact
            elif use == "unchanged":  # True only when exact; unsure (False) where unspellable
                want = exact and bool(some) and not any(map(_unspellable, some))
                assert fast_checks.unchanged(some)() is want
            else:  # the objects held when made (each read's value now), np_like once
                got = _baked(some)()
                if any(map(_unspellable, some)):  # unsure, or a rebound one seen first
                    assert got is None or got is False and not exact
                else:
                    assert got is exact
        if k < len(reads):
            changes[k]()
            if use == "checker":  # the read just changed, alone
                assert env.checker([reads[k]])() is _loop([reads[k]])


def test_a_builtin_passes_by_identity_in_both_uses():
    """A builtin read (not in the namespace) is found as Read.current finds it: the kept
    closures' test no longer sends it to the full check on every call."""
    read = env.Read({}, None, "abs", (), abs)
    assert fast_checks.unchanged([read])() is True
    assert env.checker([read])() is True
    shadowed = env.Read({"abs": len}, None, "abs", (), abs)
    assert fast_checks.unchanged([shadowed])() is False
    assert env.checker([shadowed])() is False


def test_no_reads():
    assert env.checker([])() is True  # nothing to find: unchanged
    assert fast_checks.unchanged([])() is False  # the callers keep no test for none
