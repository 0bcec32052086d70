"""The Numba backend's cache on disk: the next process loads the compiled derivative instead of
compiling it again.

Numba caches a function compiled with ``cache=True`` when the function has a source file, under
a key made of its bytecode, the contents of its closure cells (pickled) and the file's time
stamp. srcad's generated code has no file, and reads its helpers and the parts of the user
functions it calls from closure cells; a Numba dispatcher pickles with an id drawn afresh in
every process, so such a key never matches twice. :func:`from_file` makes the function again
from a file of its own, with the values of those cells as its globals, so that Numba's cache
applies:

- the file is named by a hash (:func:`fingerprint`) of everything the compiled code depends
  on: its text, the names it reads and what each is (a module, one of
  :mod:`.numba_helpers`' helpers, a builtin, or a callee's part, which counts by its own
  fingerprint, recursively, and by its module: Numba's cached code names the part by its
  module and imports it when it loads, so the same source in another module is another
  entry), the source of the backend's modules (``numba_*.py``: the helpers'
  implementations, Numba's options), and the versions of Python, NumPy and Numba. A
  function it cannot describe so (a name holding any other value) is not cached
  (:func:`from_file` returns None): nothing is keyed by a guess;
- a file is written once, atomically, and never rewritten (its time stamp is part of Numba's
  key); two processes writing the same name write the same text;
- the directory is ``$SRCAD_CACHE_DIR/numba``, or ``~/.cache/srcad/numba``;
  ``SRCAD_CACHE_DIR=off`` turns the cache off. Where it cannot be written, nothing is cached.

Numba's cache has one index per function (its file and line) naming a data file per key (the
argument types; a closure's cell contents), and saves an entry with no lock: it reads the index,
takes the first free number, writes the index, then the data. Two processes saving two keys of
one function at once (two of :mod:`.numba_helpers`' math functions, one closure; one derivative
compiled for two dtypes) can take the same number, and the index then names one key's code for
the other key: every later process runs the wrong code, silently (seen in two test workers).
Every function srcad compiles with ``cache=True`` goes through :func:`njit`: a save holds a
lock on a file beside the index (``fcntl.flock``) and writes the data before the index that
names it, so a reader (who takes no lock) never finds a name whose file holds another key's
code. Where that cannot be arranged (no ``fcntl``; a Numba whose cache is not the one
described), the function is compiled without a cache on disk.

Imports: ``numba`` and ``numpy`` (their versions); nothing of srcad's.
"""

from __future__ import annotations

import builtins
import dis
import functools
import hashlib
import itertools
import os
import pathlib
import sys
import types


def directory():
    """The cache directory, created if need be; None when the cache is off or not writable."""
    root = os.environ.get("SRCAD_CACHE_DIR")
    if root is not None and root.strip().lower() in ("off", "0", "none", ""):
        return None
    try:
        base = pathlib.Path(root) if root else pathlib.Path.home() / ".cache" / "srcad"
        path = base / "numba"
        path.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # no home directory, or not writable
        return None
    return path if os.access(path, os.W_OK) else None


@functools.cache  # once a process
def _salt():
    import numba
    import numpy

    # the backend's own modules: the helpers' implementations, Numba's options
    here = pathlib.Path(__file__).parent
    sources = b"".join(path.read_bytes() for path in sorted(here.glob("numba_*.py")))
    return "\n".join([sys.version, numpy.__version__, numba.__version__,
                      hashlib.sha256(sources).hexdigest()])


def namespace(fn):
    """The free names ``fn``'s code reads and their values: its closure cells' contents and the
    globals it reads (the modules ``math`` and ``numpy``: the backend refuses other globals)."""
    code = fn.__code__
    try:
        names = dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))
    except ValueError:  # an empty cell (a part being made): nothing to describe
        return None
    loaded = {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}
    for ident in loaded - set(names):
        if ident in fn.__globals__:
            names[ident] = fn.__globals__[ident]
        elif not hasattr(builtins, ident):
            return None  # a name bound nowhere: leave it to Numba's own error
    return names


def _describe(value, seen):
    """A text that determines ``value`` as the compiled code uses it, or None."""
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    for ident in ("range", "len", "abs", "min", "max", "float", "int", "bool", "pow", "slice"):
        if value is getattr(builtins, ident):
            return f"builtin {ident}"
    helper = getattr(value, "__srcad_numba_helper__", None)
    if helper is not None:
        return f"helper {helper}"
    if getattr(value, "__srcad_numba_part__", False):  # (Numba's cached code names the
        inner = fingerprint(value.py_func, seen)  # part by its module: loading imports it)
        module = getattr(value.py_func, "__module__", None)
        return None if inner is None else f"part {module} {inner}"
    return None


def _plain(value):
    """A number, bool, str or None, or a tuple of them: its repr determines it."""
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return value is None or type(value) in (int, float, bool, str)


def fingerprint(fn, seen=None):
    """The hash of everything ``fn``'s compiled code depends on (see the module docstring), or
    None where a name it reads holds a value this cache does not describe."""
    seen = set() if seen is None else seen
    if id(fn) in seen:
        return None  # a cycle (recursion is refused before this, but never loop)
    seen.add(id(fn))
    names = namespace(fn)
    defaults = (fn.__defaults__ or ()) + tuple((fn.__kwdefaults__ or {}).values())
    if names is None or not all(_plain(d) for d in defaults):
        return None  # (an array's repr elides its middle: not a key)
    parts = [fn.__srcad_source__, repr(fn.__defaults__), repr(fn.__kwdefaults__)]
    for ident in sorted(names):
        described = _describe(names[ident], seen)
        if described is None:
            return None
        parts.append(f"{ident} = {described}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def from_file(fn, options=""):
    """``fn`` made again from a file in the cache directory, its free names as globals (Numba
    can cache it); None where the cache is off or ``fn`` cannot be described. ``options``: a
    text of the options it is compiled with (part of the key)."""
    where = directory()
    if where is None:
        return None
    digest = fingerprint(fn)
    if digest is None:
        return None
    digest = hashlib.sha256((digest + options + _salt()).encode()).hexdigest()[:32]
    path = where / f"srcad_{digest}.py"
    text = ("# generated by srcad for backend='numba' (a cache: delete it at will)\n"
            + fn.__srcad_source__)
    try:
        if not path.exists():
            temporary = path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(text)
            os.replace(temporary, path)
        written = path.read_text()
    except OSError:
        return None
    if written != text:  # not ours (a hash collision, or a file changed by hand): no cache
        return None
    # a module of its own, in sys.modules: Numba's cached code finds its globals by the
    # module's name when it loads
    module = types.ModuleType(f"_srcad_numba_{digest}")
    module.__file__ = str(path)
    scope = module.__dict__
    scope.update(namespace(fn))
    scope["__builtins__"] = builtins
    exec(compile(text, str(path), "exec"), scope)  # noqa: S102 - srcad's own generated code
    sys.modules[module.__name__] = module
    made = scope[fn.__name__]
    made.__defaults__ = fn.__defaults__
    made.__kwdefaults__ = fn.__kwdefaults__
    made.__srcad_source__ = fn.__srcad_source__
    return made


# ---------------------------------------------------------------- saving under a lock


def renamed(fn, name):
    """A copy of the function ``fn`` named (and qualified) ``name``. Numba names a function's
    machine code by its module, its qualified name and a number drawn afresh in each process,
    and links a function's callees into its code by those names: two functions of one
    qualified name (srcad's checked ``math`` helpers were all closures ``checked``) cached by
    two processes can get one name, and code calling both then calls one for the other,
    silently (seen: a ``vjp`` whose ``math.sin`` and ``math.cos`` took each other's code, 0.18
    off; numba27). Each function compiled with ``cache=True`` gets a name of its own."""
    made = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__,
                              fn.__closure__)
    made.__qualname__ = name
    return made


def njit(fn, name=None, **options):
    """``numba.njit(cache=True, **options)(fn)``, its entries on disk saved under a lock (see
    the module docstring); without a cache on disk where that cannot be arranged. ``name``:
    ``fn`` renamed first (:func:`renamed`), where functions of one qualified name differ."""
    import numba

    compiled = numba.njit(cache=True, **options)(fn if name is None else renamed(fn, name))
    cache = getattr(compiled, "_cache", None)
    made = _locked_class()
    found = getattr(cache, "_cache_file", None)
    if made is not None and found is not None and type(found) is made.__bases__[0]:
        locked = made.__new__(made)
        locked.__dict__.update(found.__dict__)
        cache._cache_file = locked
    else:  # not the cache described: none
        from numba.core.caching import NullCache

        compiled._cache = NullCache()
    return compiled


@functools.cache
def _locked_class():
    """Numba's ``IndexDataCacheFile`` whose ``save`` takes a lock; None without ``fcntl``."""
    try:
        import fcntl

        from numba.core.caching import IndexDataCacheFile
    except ImportError:
        return None

    class Locked(IndexDataCacheFile):
        def save(self, key, data):
            try:
                with open(self._index_path + ".lock", "a") as lock:
                    fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
                    overloads = self._load_index()
                    name = overloads.get(key)
                    if name is None:
                        taken = set(overloads.values())
                        name = next(n for n in map(self._data_name, itertools.count(1))
                                    if n not in taken)
                    self._save_data(name, data)  # the code, then the index naming it
                    if overloads.get(key) != name:
                        overloads[key] = name
                        self._save_index(overloads)
            except OSError:  # a cache is an optimisation: not saved
                pass

    return Locked
