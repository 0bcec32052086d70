"""One place for every generated name.

Generated names derive from the user's names: the second version of ``x`` is ``x_1``, the
gradient of ``x`` is ``dx``, the gradient of ``x_1`` is ``dx_1``. A :class:`Namer` knows every
identifier of the user's function, so a generated name never captures a user name.

Imports nothing from srcad.
"""

from __future__ import annotations

import builtins
import keyword
import re

_SUFFIX = re.compile(r"^(.*?)_(\d+)$")


class Namer:
    """Hands out fresh identifiers, never one already taken."""

    def __init__(self, taken=()):
        self.taken = set(taken)
        self._next = {}
        self.versioned = set()  # user names whose first version is handed out
        self.temps = set()  # names of temporaries (not user variables, not gradients)
        self.grads = set()  # names of gradients and tangents
        self.free = set()  # user names the function reads but never assigns (globals)

    def reserve(self, name):
        self.taken.add(name)

    def fresh(self, base):
        """``base`` itself if free, else ``base_1``, ``base_2``, ..."""
        base = _clean(base)
        if base not in self.taken and _usable(base):
            self.taken.add(base)
            return base
        stem = base
        match = _SUFFIX.match(base)
        if match and match.group(1):
            stem = match.group(1)
        n = self._next.get(stem, 1)
        while f"{stem}_{n}" in self.taken:
            n += 1
        self._next[stem] = n + 1
        name = f"{stem}_{n}"
        self.taken.add(name)
        return name

    def version(self, user_name):
        """A new SSA version of a user variable: ``x``, then ``x_1``, ``x_2``, ... A name the
        function reads as a global is never handed out bare (a local of that name would hide
        the global: Python makes it local to the whole function)."""
        if user_name not in self.versioned and user_name not in self.free and (
            user_name not in self.temps  # a temporary named after obj.y, say
        ) and _usable(user_name) and user_name.isidentifier():
            self.versioned.add(user_name)
            self.taken.add(user_name)
            return user_name
        return self.fresh(user_name)

    def temp(self, hint="t"):
        name = self.fresh(hint or "t")
        self.temps.add(name)
        return name

    def grad(self, primal):
        """The gradient variable of ``primal``: ``dx`` for ``x``; ``d_x`` if ``dx`` is taken."""
        for candidate in (f"d{primal}", f"d_{primal}"):
            if candidate not in self.taken:
                self.taken.add(candidate)
                self.grads.add(candidate)
                return candidate
        name = self.fresh(f"d_{primal}")
        self.grads.add(name)
        return name


def _clean(name):
    name = re.sub(r"\W", "_", name)
    if not name or name[0].isdigit():
        name = "t" + name
    return name


#: the builtins' names as Python starts (not ``_``, which an interactive prompt or a test
#: runner binds in builtins: generated names must not depend on what ran before)
_BUILTIN_NAMES = frozenset(dir(builtins)) - {"_"}


def _usable(name):
    return not keyword.iskeyword(name) and name not in _BUILTIN_NAMES


def code_name(name, taken=()):
    """An identifier for a function's ``def`` in generated text: ``name`` itself when it is
    one (and not taken), else one made from it: ``<lambda>`` -> ``lambda_``, ``"f-1"`` ->
    ``f_1``, ``"class"`` -> ``class_``. A user's string never reaches generated code as is."""
    base = name if isinstance(name, str) else ""
    if not base.isidentifier():
        base = re.sub(r"\W", "_", base).strip("_") or "f"
        if base[0].isdigit():
            base = "f_" + base
    if base.startswith("__srcad"):
        base = "f" + base
    while keyword.iskeyword(base) or base in taken:
        base += "_"
    return base
