"""A name or dotted name as the user wrote it: ``np.linalg.norm`` as ``("np", ("linalg",
"norm"))``.

Every frontend pass that looks up what a free name means (a callee, a module's function, a
record's class, a closure value) walks the name this way; this module is the one place it is
written.

Imports gast only.
"""

from __future__ import annotations

import gast


def name_path(node, local=()):
    """``(name, attributes)`` of a name or dotted name ``node`` (``a.b.c``: ``("a", ("b",
    "c"))``), else None (also when its first name is one of ``local``)."""
    path = []
    while isinstance(node, gast.Attribute):
        path.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name) or node.id in local:
        return None
    return node.id, tuple(reversed(path))
