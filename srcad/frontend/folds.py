"""``functools.reduce`` as srcad reads it: a plain Python loop.

A call ``functools.reduce(f, xs)`` (or ``reduce(f, xs, initial)``) in code srcad differentiates
is a call of :func:`reduce_code`'s function for that many arguments, written out here as Python
source and read like the user's own code (its globals name a module of
:data:`srcad.core.functions.USER_LEVEL`): ``acc = initial; for item in xs: acc = f(acc, item)``.
The callee is made for the function ``f`` passed (as ``apply(np.sin, x)`` is), so the sweeps
differentiate each call of ``f`` on the way, whatever ``f`` is (a lambda, ``operator.mul``,
``np.dot``, a function of the user's).

Imports the standard library and :mod:`srcad.core`.
"""

from __future__ import annotations

from ..core.functions import USER_LEVEL, run_source

_TEXT = {
    3: '''def reduce(function, iterable, initial):
    """functools.reduce with an initial value, as a loop srcad differentiates."""
    value = initial
    for item in iterable:
        value = function(value, item)
    return value
''',
    2: '''def reduce(function, iterable):
    """functools.reduce without an initial value, as a loop srcad differentiates."""
    items = list(iterable)
    if len(items) == 0:
        raise TypeError("reduce() of empty iterable with no initial value")
    value = items[0]
    for item in items[1:]:
        value = function(value, item)
    return value
''',
}
_MADE = {}


def reduce_code(count):
    """The plain function standing for ``functools.reduce`` called with ``count`` (2 or 3)
    positional arguments, or ``None`` for another count."""
    if count not in _TEXT:
        return None
    made = _MADE.get(count)
    if made is None:
        namespace = run_source(_TEXT[count], f"<srcad: functools.reduce of {count} arguments>",
                               {"__name__": f"{USER_LEVEL}.folds"})
        made = _MADE[count] = namespace["reduce"]
    return made
