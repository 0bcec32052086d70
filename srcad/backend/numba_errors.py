"""A Numba error met when the Numba backend compiles, as a SrcadError at the user's line.

Numba reports where in the compiled code typing failed (``exc.loc``: the generated file and
line; for srcad's disk cache, :mod:`.numba_cache`, a file that holds the same text under the
same one-line header). :func:`srcad.backend.emit.compile_function` noted for each line of the
generated code the line of the user's code it was made from (a forward statement's own, the
backward code of one source line under its ``# line N`` comment; ``srcad.errors.
user_line``), so such an error names the user's file, line and construct, where it used to
name only the function's ``def`` line. Errors Numba raises without a location (an
AssertionError of its lowering, ``m[mask] = v`` with a 2-d mask) are placed at the statement
Numba's lowering was at (:func:`lowering_loc`, read from its frame in the traceback). A line
with no origin of its own (srcad's own statements, code :mod:`.numba_scalars` wrote again)
stands for the nearest line above it that has one (``srcad.errors.running_line``: the
user's statement srcad wrote it for); where Numba names no line at all, the error names the
function's ``def`` line in the user's file; only code with no origin (srcad's own wrappers)
gives an error without a file.

Imports ``linecache``, ``re``, ``traceback`` and ``srcad.errors``.
"""

from __future__ import annotations

import linecache
import re
import traceback

from ..errors import SrcadError, running_line, user_line


def summary(exc):
    """The informative lines of a Numba error (its first problem and where), one line."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    ours = [ln for ln in lines if "srcad's numba backend" in ln]  # a helper's own reason
    return ours[0] if ours else " / ".join(
        [ln for ln in lines if not ln.startswith(("Failed in ", "During: ", "^"))][:4]) or text \
        or f"{type(exc).__name__} in Numba's compiler (a construct it does not lower)"


def compile_error(exc, fn, on_disk, where, hint):
    """The SrcadError for the Numba error ``exc`` met compiling ``fn`` (generated code;
    ``on_disk``: the same code made from the cache's file, or None) named ``where``: at the
    user's line where Numba's location maps to one. An AssertionError is Numba's own check
    failing while it compiles (lowering ``m[mask] = v`` with a 2-d mask, seen in the long run
    of tests/test_properties_numba.py) only when raised in Numba's compiler; any other (an
    ``assert`` in the code compiled, when it runs) is raised again as it is."""
    if exc.__class__ is AssertionError and not any(
            "/numba/core/" in frame.filename.replace("\\", "/")
            for frame in traceback.extract_tb(exc.__traceback__)):
        return exc
    loc = getattr(exc, "loc", None)
    if loc is None or not getattr(loc, "line", None):
        loc = lowering_loc(exc)
    found = None
    if loc is not None and getattr(loc, "line", None):
        named = loc.filename
        if on_disk is not None and named == on_disk.__code__.co_filename:
            named = fn.__code__.co_filename  # the cache's file: the text compile_function made
        found = user_line(named, loc.line)
        if found is not None and found[0] == named:  # a line srcad made itself: the line
            near = running_line(named, loc.line)  # above it with an origin, if any
            found = None if near is None or near[0] == named or near[0].startswith(
                "<srcad") else (*near, linecache.getline(*near).strip() or None)
    what = _construct(exc) or summary(exc)
    if found is None:  # no line known: the function's, its def line
        near = running_line(fn.__code__.co_filename, fn.__code__.co_firstlineno)
        if near is None or near[0] == fn.__code__.co_filename or near[0].startswith("<srcad"):
            return SrcadError(f"Numba could not compile {where}: {what}", hint=hint)
        return SrcadError(f"Numba could not compile {where} (Numba names no line of it): "
                          f"{what}", filename=near[0], lineno=near[1],
                          construct=linecache.getline(*near).strip() or None, hint=hint)
    filename, line, text = found
    return SrcadError(f"Numba could not compile this line ({where}): {what}",
                      filename=filename, lineno=line, construct=text, hint=hint)


def lowering_loc(exc):
    """The location (``numba.core.ir.Loc``) of the statement Numba's lowering was compiling
    when ``exc`` was raised (the innermost ``numba/core/lowering.py`` frame's ``self.loc``), or
    None: Numba's own assertions carry no location, its lowering object does."""
    loc = None
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename.replace("\\", "/").endswith("/numba/core/lowering.py"):
            found = getattr(frame.f_locals.get("self"), "loc", None)
            loc = found if getattr(found, "line", None) else loc
    return loc


_MASK = ("write np.where(mask, v, m) for m[mask] = v, and np.where(mask, e, 0.0) for a sum "
         "over m[mask] (e the expression of m)")


def _construct(exc):
    """What Numba could not compile, said for the user with what to write instead, for the
    AssertionErrors of Numba's lowering seen in the long property run and srcad's helpers
    refusing a boolean mask as an index; else None."""
    if exc.__class__ is not AssertionError:
        text = str(exc)
        if "srcad's numba backend" in text and "array(bool" in text:
            return f"{summary(exc)}: a boolean mask as an index; {_MASK}"
        return None
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_name == "__init__" and frame.f_locals.get(
                "self").__class__.__name__ == "BooleanArrayIndexer":
            return ("an index by a boolean array of more than one dimension (Numba indexes "
                    f"by 1-d masks only): {_MASK}")
    return None
