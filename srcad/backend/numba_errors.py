"""A Numba error met when the Numba backend compiles, as a SrcadError at the user's line.

Numba reports where in the compiled code typing failed (``exc.loc``: the generated file and
line; for srcad's disk cache, :mod:`.numba_cache`, a file that holds the same text under the
same one-line header). :func:`srcad.backend.emit.compile_function` noted for each line of the
generated code the line of the user's code it was made from (a forward statement's own, the
backward code of one source line under its ``# line N`` comment; ``srcad.errors.
user_line``), so such an error names the user's file, line and construct, where it used to
name only the function's ``def`` line. A line with no known origin (srcad's own lines, code
:mod:`.numba_scalars` wrote again) keeps the function's name and ``def`` line.

Imports ``re``, ``traceback`` and ``srcad.errors``.
"""

from __future__ import annotations

import re
import traceback

from ..errors import SrcadError, user_line


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
    found = None
    loc = getattr(exc, "loc", None)
    if loc is not None and getattr(loc, "line", None):
        named = loc.filename
        if on_disk is not None and named == on_disk.__code__.co_filename:
            named = fn.__code__.co_filename  # the cache's file: the text compile_function made
        found = user_line(named, loc.line)
        if found is not None and found[0] == named:  # a line srcad made itself: no origin
            found = None
    if found is None:
        return SrcadError(f"Numba could not compile {where}: {summary(exc)}", hint=hint)
    filename, line, text = found
    return SrcadError(f"Numba could not compile this line ({where}): {summary(exc)}",
                      filename=filename, lineno=line, construct=text, hint=hint)
