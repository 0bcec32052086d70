"""``ast.walk`` without its two generators per node: the same nodes in the same order.

The transform walks trees a great deal (gast's ``walk`` is ``ast.walk``), and ``ast.walk``
calls ``ast.iter_child_nodes``, itself a generator over the generator ``ast.iter_fields``, for
every node. :func:`walk` reads the fields itself: breadth first, each node's children queued
before the node is yielded (as ``ast.walk`` does, so a caller that changes a node it is given
sees the walk go on into the children it had). Works on ``ast`` and ``gast`` trees alike.

Imports: the standard library only.
"""

from __future__ import annotations

import ast
from collections import deque

_AST = ast.AST


def walk_nodes(node):
    """Every node of the tree under ``node`` (itself first), as :func:`ast.walk` gives them."""
    todo = deque((node,))
    pop, push = todo.popleft, todo.append
    while todo:
        node = pop()
        for name in node._fields:
            child = getattr(node, name, None)
            if isinstance(child, _AST):
                push(child)
            elif isinstance(child, list):
                for item in child:
                    if isinstance(item, _AST):
                        push(item)
        yield node

