"""Optional numbers under the Numba backend: a name set to None on the path that does not
reach its use has Numba's optional type; :func:`some` reads it as the number it holds, and
:func:`_numbers` registers a helper's implementations so that they take such a number as the
number (split out of :mod:`.numba_helpers`).

Imports ``numba``.
"""

from __future__ import annotations

from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

_SCALAR = (types.Integer, types.Float, types.Boolean)


def some(x):
    """Stub: ``x`` itself, a number where Numba has an optional number (a name set to None on
    the path that does not reach its use: see :func:`srcad.backend.numba_backend.check`)."""
    raise NotImplementedError


@overload(some)
def _some(x):
    if isinstance(x, types.Optional) and isinstance(x.type, types.Float):
        return lambda x: x * 1.0  # exact (-0.0, nan and inf included); None raises TypeError
    if isinstance(x, types.Optional) and isinstance(x.type, types.Integer):
        return lambda x: x * 1
    if isinstance(x, types.Optional):
        raise TypingError(f"srcad's numba backend reads optional numbers, not {x}")
    return lambda x: x


def _numbers(stub):
    """``@overload(stub)``, its implementations taking an optional number (see :func:`some`)
    as the number it holds."""
    def register(typer):
        code = typer.__code__
        params = code.co_varnames[:code.co_argcount]
        defaults = typer.__defaults__ or ()
        signature = ", ".join(
            p if i < len(params) - len(defaults) else
            f"{p}={defaults[i - len(params) + len(defaults)]!r}" for i, p in enumerate(params))
        text = (f"def unwrapped({signature}):\n"
                f"    return stub({', '.join(f'some({p})' for p in params)})\n"
                f"def typing({signature}):\n"
                f"    if any(isinstance(t, types.Optional) for t in ({', '.join(params)},)):\n"
                f"        return unwrapped\n"
                f"    return typer({', '.join(params)})\n")
        scope = {"stub": stub, "some": some, "types": types, "typer": typer}
        exec(text, scope)  # noqa: S102 - made here from the typer's own parameter names
        overload(stub)(scope["typing"])
        return typer
    return register
