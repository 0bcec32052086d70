"""What a transformation read from the function's environment, so that it never goes stale.

Lowering resolves every free name (a global, a closure cell, a builtin, a dotted path such as
``cfg.scale``) to the object it names *now*, and the later passes specialise the code on it:
the kind of a global constant, the callee a name calls, an ``axis`` a global holds. Each
resolution is recorded here as a :class:`Read`: where it was read, what was found, and the
*fingerprint* of what was found, which holds exactly the facts the passes may depend on:

- an int, bool, string, ``None`` (or a tuple of such): the value itself (it may steer an
  index, an axis, a count);
- a float or a complex number: its type only (the code reads the name live);
- an array: its type, rank and dtype (its shape is read at run time, as an argument's is);
- a list or dict: its type (its items are read at run time and given no kind);
- a bound method (a new object at each read of ``obj.method``): its function and object;
- anything else (functions, modules, classes, objects): the object itself; so too a callee's
  ``__defaults__`` and ``__kwdefaults__`` (the code made for it holds their values).

A transformed function keeps the reads of everything it made (callees included: a callee's
reads are recorded into its caller's). Its dispatcher compares each read object by identity
on every call, a few nanoseconds each; when one differs, :func:`changed` compares
fingerprints: equal ones just take the new object, a different one makes the code again.
Reads a dispatcher cannot spell as a plain name are checked by a function (:func:`checker`).

Imports nothing from srcad.
"""

from __future__ import annotations

import builtins
import contextlib
import keyword
import threading
import types

import numpy as np

MISSING = object()

#: modules whose attributes are taken as fixed: ``np.sum`` is guarded through ``np`` only
_LIBRARIES = ("numpy", "math", "cmath", "operator", "builtins", "srcad", "functools",
              "itertools")


class Read:
    """One resolution of a free name (and attribute path) during a transformation."""

    __slots__ = ("namespace", "cell", "name", "attrs", "value", "print")

    def __init__(self, namespace, cell, name, attrs, value):
        self.namespace = namespace  # the module dict (None for a cell)
        self.cell = cell  # the closure cell (None for a global or builtin)
        self.name = name
        self.attrs = tuple(attrs)
        self.value = value
        # a callee's defaults are copied into the code made for it: any new tuple is new
        exact = self.attrs[-1:] in (("__defaults__",), ("__kwdefaults__",))
        self.print = ("object", id(value)) if exact else fingerprint(value)

    @property
    def key(self):
        return (id(self.cell if self.cell is not None else self.namespace), self.name,
                self.attrs)

    def current(self):
        """The object the same name and path give now (MISSING if none)."""
        if self.cell is not None:
            try:
                value = self.cell.cell_contents
            except ValueError:
                return MISSING
        else:
            value = self.namespace.get(self.name, MISSING)
            if value is MISSING:
                value = getattr(builtins, self.name, MISSING)
        for attr in self.attrs:
            if value is MISSING:
                break
            value = getattr(value, attr, MISSING)
        return value

    def spelling(self):
        return ".".join((self.name,) + self.attrs)


class ItemsRead(Read):
    """The items of a list or dict of functions a name (and path) gives (a global ``ACTS``,
    a method's ``self.acts``): the code calls an item as one of those it held when it was
    made. The same container changed in place, or another one, holding other functions, is
    another fingerprint (the code is made again); :meth:`current` gives the snapshot itself
    while the container holds the same objects, so the dispatcher's identity test passes."""

    __slots__ = ()
    by_items = True  # (the dispatcher checks it through a function: srcad.backend.dispatch)

    def __init__(self, namespace, cell, name, attrs, value):
        super().__init__(namespace, cell, name, attrs, _snapshot(value))

    @property
    def key(self):
        return Read.key.fget(self) + ("items",)

    def current(self):
        now = Read.current(self)
        held = self.value
        if type(now) is list:
            if len(now) == len(held) and all(a is b for a, b in zip(now, held)):
                return held
        elif type(now) is dict:
            if len(now) == len(held) and all(
                    k == hk and v is hv for (k, v), (hk, hv) in zip(now.items(), held)):
                return held
        return now if now is MISSING else _snapshot(now)

    def spelling(self):
        return Read.spelling(self) + " (its items)"


def _snapshot(container):
    if type(container) is dict:
        return tuple(container.items())
    return tuple(container) if type(container) is list else container


def fingerprint(value):
    """The facts about ``value`` that generated code may be specialised on (see above)."""
    cls = type(value)
    if cls in (int, bool, str, bytes, type(None), type(...), slice, range) or isinstance(
            value, (np.integer, np.bool_)):
        return ("value", cls, value)
    if cls in (float, complex) or isinstance(value, np.number):
        return ("type", cls)
    if isinstance(value, np.ndarray):
        return ("array", cls, value.ndim, value.dtype)
    if cls is tuple:
        return ("tuple",) + tuple(fingerprint(v) for v in value)
    if cls in (list, dict):
        return ("type", cls)
    if cls in (types.MethodType, types.BuiltinMethodType) and getattr(
            value, "__self__", None) is not None:
        # obj.method makes a new bound method at each read: the same function of the same
        # object is the same callee (scipy.stats.norm.logpdf, rs.randn)
        return ("method", id(getattr(value, "__func__", None)), getattr(value, "__name__", None),
                id(value.__self__))
    return ("object", id(value))


def read_live(value):
    """Whether code made for ``value`` reads it when it runs instead of being made again when
    it changes (its fingerprint does not fix it: a float, a complex number, an array, a list, a
    dict, a tuple holding one): such a value must not be copied into anything made with the
    code (a ``functools.partial``, a function's defaults), or that copy goes stale."""
    return not _fixes(fingerprint(value))


def _fixes(print_):
    if print_[0] == "tuple":
        return all(_fixes(p) for p in print_[1:])
    return print_[0] in ("value", "object", "method")


def is_library_module(value):
    return isinstance(value, types.ModuleType) and (
        value.__name__.split(".")[0] in _LIBRARIES)


# ------------------------------------------------------------------ recording

_local = threading.local()  # .collectors: one dict (key -> Read) per transformation under
# way in this thread, innermost last (a transformation runs in the thread that asked for it)


def _collectors():
    stack = getattr(_local, "collectors", None)
    if stack is None:
        stack = _local.collectors = []
    return stack


@contextlib.contextmanager
def collecting():
    """Collect the reads of everything transformed inside the ``with`` block (nested blocks'
    reads go to every enclosing block too)."""
    reads = {}
    stack = _collectors()
    stack.append(reads)
    try:
        yield reads
    finally:
        stack.pop()


def record(read):
    for reads in _collectors():
        reads.setdefault(read.key, read)


def code_reads(space):
    """Reads of the code objects of the functions ``space`` (a dict) holds: a function
    differentiated, given another ``__code__`` (``f.__code__ = g.__code__``), is made again,
    as a callee is (its defaults are read at each call, its cells where the code reads them).
    """
    return [Read(space, None, name, ("__code__",), fn.__code__) for name, fn in space.items()
            if isinstance(fn, types.FunctionType)]


def record_all(reads):
    """Record again the reads of something made earlier and found in a cache."""
    for read in reads:
        record(read)


def stale(reads):
    """Whether any of ``reads`` now finds an object with another fingerprint."""
    for read in reads:
        now = read.current()
        if now is not read.value and (now is MISSING or fingerprint(now) != read.print):
            return True
    return False


def changed(reads):
    """After a failed identity check: True when a fingerprint changed (the code must be made
    again); otherwise the reads take the new objects and False is returned."""
    if stale(reads):
        return True
    for read in reads:
        read.value = read.current()
    return False


def checker(reads):
    """A function returning whether every one of ``reads`` still finds the same object (each
    read's ``value`` as it is at the call): :func:`same_objects` with an empty cell (or an
    attribute gone) looked up again read by read, as :meth:`Read.current` does."""
    return same_objects(reads, recheck=True)


def same_objects(reads, recheck):
    """A function of no arguments returning True when each of ``reads`` finds the very object
    it found (``read.value`` at the call), its tests compiled into its text
    (:func:`tests_text`: no loop over the reads at the call). A test that cannot be spelled
    (an empty cell, an attribute gone) raises; then ``recheck``: each read compared by
    :meth:`Read.current` (the exact answer; True with no reads), else False: "may have
    changed", the caller's full check (:func:`stale`) decides (False with no reads too)."""
    reads = tuple(reads)

    def each():
        for read in reads:
            if read.current() is not read.value:
                return False
        return True

    space = {"each": each}
    unsure = "each()" if recheck else "False"
    text = ("def unchanged():\n"
            "    try:\n"
            f"        return {tests_text(reads, space) if reads else unsure}\n"
            "    except (ValueError, AttributeError):  # an empty cell, an attribute gone\n"
            f"        return {unsure}\n")
    where = "<srcad reads checked>" if recheck else "<srcad reads unchanged>"
    exec(compile(text, where, "exec"), space)  # noqa: S102
    return space["unchanged"]


def tests_text(reads, space, baked=False):
    """The expression that is True when each of ``reads`` finds the very object it found
    (True with no reads), its names put in ``space``: as :meth:`Read.current` looks (a name,
    else a builtin, then each attribute; another kind of read calls its own ``current``),
    raising ValueError for an empty cell and AttributeError for an attribute gone (the
    caller says what that means: :func:`same_objects`). ``baked``: each read's object now
    held in ``space`` (the code of a closure made for them; an object rebound since, even to
    an equal one, fails the test), a name read on several paths looked up once, and a name
    found in its namespace looked up there alone (deleted since, the test fails; the
    callers then check fully)."""
    space["M"], space["B"], tests, found = MISSING, vars(builtins), [], {}
    for i, read in enumerate(reads):
        space[f"r{i}"] = read
        if type(read) is not Read:  # a list's items (ItemsRead): its own test
            tests.append(f"r{i}.current() is r{i}.value")
            continue
        if read.cell is not None:
            space[f"c{i}"] = read.cell
            expr = f"c{i}.cell_contents"
        else:  # (a namespace may be a class's, with get but no subscript)
            space[f"n{i}"] = read.namespace
            expr = f"n{i}.get({read.name!r}, B.get({read.name!r}, M))"
            if baked and read.namespace.get(read.name, MISSING) is not MISSING:  # (gone from
                expr = f"n{i}.get({read.name!r}, M)"  # it since: False, the caller decides)
        if baked:  # np.sin, np.exp: np looked up once (the tests run left to right, so
            where = (id(read.cell), id(read.namespace), read.name)  # its first use assigns)
            expr = found[where] if where in found else f"(g{i} := {expr})"
            found.setdefault(where, f"g{i}")
        for attr in read.attrs:
            expr = f"{expr}.{attr}" if attr.isidentifier() and not keyword.iskeyword(
                attr) else f"getattr({expr}, {attr!r}, M)"
        space[f"v{i}"] = read.value
        tests.append(f"{expr} is v{i}" if baked else f"{expr} is r{i}.value")
    return " and ".join(tests) or "True"
