"""Every error srcad raises.

Each error names the user's file, line and construct, and says what to do instead.
All of them derive from :class:`SrcadError`, so ``except srcad.SrcadError`` catches them all.

Imports nothing from srcad.
"""

from __future__ import annotations

import inspect
import linecache
import os
import sys

#: code srcad wrote from a user's function (a generator read as a list, a derivative, ...):
#: its file name -> (the user's file, {its line: the user's line, or ``(file, line, call)`` of
#: a callee's statement written in, ``call`` the ``(file, line)`` of its call or None}, the
#: user's ``def`` line or None); an error there names the user's line
_ORIGINS = {}


def note_origin(filename, user_file, lines, first=None):
    """Errors at ``lines`` (its line -> the user's line) of the srcad-made ``filename`` name
    the user's file and line instead; ``first``, the line of the user's ``def``, stands for
    the lines ``lines`` does not name that come before every line it does."""
    _ORIGINS[filename] = (user_file, dict(lines), first)


def user_line(filename, lineno):
    """``(file, line, text)``: where ``lineno`` of the srcad-made copy ``filename`` is in the
    user's code (through copies of copies; ``text`` the stripped line, or None); None for a
    file srcad did not make."""
    if filename not in _ORIGINS:
        return None
    seen = set()
    while filename in _ORIGINS and filename not in seen and lineno in _ORIGINS[filename][1]:
        seen.add(filename)
        filename, lineno = _step(filename, _ORIGINS[filename][1][lineno])
    return filename, lineno, linecache.getline(filename, lineno).strip() or None


def _step(filename, line):
    """The place a line map's entry ``line`` of ``filename`` names: a line of the user's file
    (an int), or ``(file, line)`` (a callee's statement written into its caller)."""
    return line[:2] if line.__class__ is tuple else (_ORIGINS[filename][0], line)


def forget_origin(filename):
    _ORIGINS.pop(filename, None)


def running_line(filename, lineno, calls=None):
    """``(file, line)``: the user's line that the running line ``lineno`` of the srcad-made
    ``filename`` was made from, through copies of copies; a line the map does not name
    stands for the nearest line above it that it does (a statement srcad added for the one
    before it), or for the ``def`` line; None where nothing is known. ``calls``, a list,
    receives the user's line of the call of each callee whose statement was written into
    its caller on the way (innermost first)."""
    seen = set()
    while filename in _ORIGINS and filename not in seen:
        seen.add(filename)
        lines, first = _ORIGINS[filename][1:]
        line = lines.get(lineno)
        if line is None:
            line = lines[max(k for k in lines if k < lineno)] if any(
                k < lineno for k in lines) else first
        if line is None:
            return None
        if line.__class__ is tuple and line[2:] and line[2] and calls is not None:
            calls.append(running_line(*line[2]) or line[2])
        filename, lineno = _step(filename, line)
    return filename, lineno


#: srcad's own files: frames there are its machinery, neither the user's nor generated code
_HOME = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _running_place(frame):
    """``(place, outer)`` of a refusal made at ``frame`` while code srcad generated runs:
    ``place`` the user's line (a ``(file, line)``) the innermost generated code running was
    made from, ``outer`` the user's line of the next generated code further out at another
    place (the caller of a callee's derivative, the code a nested derivative runs in), each
    None where there is none. The walk stops at the user's own code: a refusal made below a
    user's plain function is left to Python's traceback, which shows the user's line."""
    place = None
    while frame is not None:
        name = frame.f_code.co_filename
        if name in _ORIGINS:
            calls = []
            where = running_line(name, frame.f_lineno, calls)
            if where is not None and where[0].startswith("<srcad"):
                where = None  # code srcad wrote of its own (a derivative's wrapper)
            if where is not None and place is None:
                place = where
                if calls:  # a callee's statement written into its caller: the call
                    return place, calls[-1]
            elif where is not None and where != place:
                return place, where
        elif not (name.startswith(("<srcad", "<frozen", _HOME)) or _library_file(name)):
            break  # the user's own code
        frame = frame.f_back
    return place, None


class SrcadError(Exception):
    """Base class of srcad's errors.

    Attributes: ``filename``, ``lineno`` (1-based, in the user's file, or ``None``),
    ``construct`` (the offending source text or name) and ``hint`` (what to do instead).
    A refusal made while a derivative runs (by a runtime helper the generated code calls)
    names the user's line that code was made from, and ``called_from`` the ``(file, line)``
    of the user's call further out that reached it (a callee's caller), else ``None``.
    """

    def __init__(self, message, *, filename=None, lineno=None, construct=None, hint=None):
        origin = _ORIGINS.get(filename)
        if origin is not None and lineno in origin[1]:
            filename, lineno = _step(filename, origin[1][lineno])
            construct = linecache.getline(filename, lineno).strip() or construct
        outer = None
        if origin is None and filename is None and lineno is None:
            # made while srcad's generated code runs (a runtime helper's refusal): the user's
            # line that code was made from, and the place further out that called it
            place, outer = _running_place(sys._getframe(1))
            if place is not None:
                filename, lineno = place
                text = linecache.getline(filename, lineno).strip()
                construct = f"{text}  ({construct})" if text and construct else (
                    text or construct)
                if outer is not None:
                    message = (f"{message} (reached from {outer[0]}, line {outer[1]}: "
                               f"{linecache.getline(*outer).strip()})")
        if construct is None and filename is not None and lineno is not None:
            construct = linecache.getline(filename, lineno).strip() or None  # (the line shown)
        self.called_from = outer
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.construct = construct
        self.hint = hint
        super().__init__(self._format())

    def reached_from(self, callee, filename, lineno, construct):
        """Add to the hint of a refusal met inside ``callee`` that it is differentiated
        because ``filename``, ``lineno`` (``construct``) passes it a differentiated value:
        once, for the call nearest to it (the calls further out add nothing). Returns
        ``self``."""
        if getattr(self, "reached", None) is None and (filename, lineno) != (
                self.filename, self.lineno):
            self.reached = (filename, lineno)
            self.hint = (f"{self.hint}; " if self.hint else "") + (
                f"{callee} is differentiated because {filename}, line {lineno} passes it a "
                f"differentiated value ({construct}): if no gradient should flow through it "
                "there, pass srcad.stop_gradient(value)")
            self.args = (self._format(),)
        return self.placed_at(filename, lineno, construct)

    def placed_at(self, filename, lineno, construct):
        """A refusal met in an installed library's code is placed at the first call in the
        user's code that reaches it (``filename``, ``lineno``, ``construct``), the library's
        line kept in the message. Returns ``self``."""
        if not getattr(self, "placed", False) and _library_file(self.filename) and \
                not _library_file(filename):
            self.placed = True
            self.message = (f"{self.message} (met in {self.filename}, line {self.lineno}: "
                            f"{self.construct})")
            self.filename, self.lineno, self.construct = filename, lineno, construct
            self.args = (self._format(),)
        return self

    def _format(self):
        where = ""
        if self.filename is not None:
            where = f"{self.filename}: "
            if self.lineno:
                where = f"{self.filename}, line {self.lineno}: "
        text = where + self.message
        if self.construct:
            text += f"\n    {self.construct}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


def _library_file(path):
    """Whether ``path`` is a file of Python's standard library or of an installed package
    (code the user does not edit)."""
    if not path:
        return False
    return str(path).startswith(_library_roots())


def _library_roots():
    if not _ROOTS:
        import sysconfig

        paths = sysconfig.get_paths()
        _ROOTS.extend(sorted({paths[k].rstrip("/") + "/" for k in (
            "stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)}))
    return tuple(_ROOTS)


_ROOTS = []


def reached_through_call(exc, source, line, callee):
    """``exc`` (refusing a ``try``/``except`` met inside the function ``callee`` called at
    ``line`` of ``source``, a ``srcad.frontend.source.Source``), saying which call makes
    srcad differentiate it (:meth:`SrcadError.reached_from`); another refusal met in a
    library's code placed at the user's call (:meth:`SrcadError.placed_at`)."""
    if source is not None and "try/except" in exc.message and exc.filename is not None:
        exc.reached_from(getattr(callee, "__qualname__", callee), source.filename, line,
                         source.line_text(line))
    elif source is not None:  # any other refusal met in a library's code: placed here
        exc.placed_at(source.filename, line, source.line_text(line))
    return exc


class UnsupportedSyntaxError(SrcadError):
    """The function uses a construct srcad cannot differentiate."""


class MutationError(UnsupportedSyntaxError):
    """A write srcad cannot differentiate exactly: through a view or a second name still read
    afterwards, into an argument or a global, while a loop iterates the container, or by an
    in-place method or call that has no derivative (see :mod:`srcad.alias`)."""


class SourceUnavailableError(SrcadError):
    """The function's source code cannot be read (built-in, C extension, prompt, exec)."""


class MissingRuleError(SrcadError):
    """A called function has neither readable source nor a derivative rule."""


class NonScalarOutputError(SrcadError):
    """``grad`` was asked for the gradient of a function whose output is not a scalar."""


class WrtError(SrcadError):
    """``wrt`` names no parameter, is out of range, repeats, or selects a non-number."""


class RuleError(SrcadError):
    """A derivative rule is malformed (wrong signature, template that does not parse)."""


class BackendError(SrcadError):
    """An array library other than NumPy (Dask, CuPy, an array-API library) lacks what a
    derivative rule needs, or does not implement NumPy's dispatch protocols at all."""


def at_user(exc, user):
    """``exc`` as raised; when it names code srcad generated (``<srcad ...>``), met while
    srcad differentiated again a derivative of the user's function ``user`` (``grad(grad(f))``,
    a derivative called in code differentiated), the same error naming ``user`` (where a
    lambda is written, else its file and ``def`` line), the generated place kept in the
    message."""
    if not (exc.filename or "").startswith("<srcad") or user is None:
        return exc
    code = getattr(inspect.unwrap(user), "__code__", None)
    site = getattr(user, "__srcad_site__", None)  # a lambda lifted: where it is written
    if code is None and site is None:
        return exc
    filename, line = site or (code.co_filename, code.co_firstlineno)
    text = linecache.getline(filename, line).strip() or None
    name = "the lambda" if site else getattr(user, "__qualname__", "the function")
    return type(exc)(
        f"differentiating again the derivative srcad made of {name} (or of a derivative "
        f"called in it): {exc.message} (in srcad's code {exc.filename}, line {exc.lineno})",
        filename=filename, lineno=line, construct=text,
        hint="take the derivative of a module-level function once (srcad.hessian(g), "
        "srcad.grad(srcad.grad(g, wrt=1), wrt=0)) instead of a lambda's derivative called "
        "inside code differentiated twice, or lower the order; " + (exc.hint or ""))
