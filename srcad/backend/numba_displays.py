"""The Numba backend's list displays that only become arrays.

Numba gives a list one type for all its items (an int among floats becomes a float), so
:func:`srcad.backend.numba_backend.check` refuses a list display, except where the list only
ever becomes an array: ``np.array([a, b])``, where NumPy too makes one array of the items'
common type. :func:`array_displays` finds those displays, through names and stacks.

A display none of whose items is a constant (:func:`of_one_type`: ``[theta[0:3], ones, z]``)
is written ``array_list(...)`` (:mod:`.numba_lists`), which Numba compiles only for items of
one type.

:func:`popped_gradients`: the gradient of ``np.array(L)`` as a list where the code pops it.

Imports the standard library only.
"""

from __future__ import annotations

import ast


def array_displays(fdef, is_numpy, helper_of):
    """The list displays (ids) that only ever become arrays: ``np.array([a, b])``, and the
    displays (nested rows included) held by names whose values only reach ``np.array(t)``
    (or a row of it, ``np.array([t, [a, b]])``),
    ``grad_array(g, t)`` (its gradient), ``zeros_like(t)`` (its zero tangent) or ``len(t)``,
    directly or through a stack (``S.append(t)``,
    ``t = S[k]``, ``t = S.pop()``). NumPy and Numba both make one array of the items' common
    type (an int among floats a float in both), so there a display means what it means in
    Python; anywhere else Numba's list would turn an int among floats into a float."""
    _mark_indices(fdef)
    found = set()
    sets = {}  # name -> its assigned values
    uses = {}  # name -> [(kind, other name or None)] for each read
    parent = {}
    for node in ast.walk(fdef):
        for child in ast.iter_child_nodes(node):
            parent[id(child)] = node
        if _np_array_call(node, is_numpy):
            found.update(id(item) for item in _displays(node.args[0]))
        if node.__class__ is ast.Assign and len(node.targets) == 1 and (
                node.targets[0].__class__ is ast.Name):
            sets.setdefault(node.targets[0].id, []).append(node.value)
        elif node.__class__ is ast.Name and node.ctx.__class__ is not ast.Load and not (
                parent[id(node)].__class__ is ast.Assign
                and parent[id(node)].targets == [node]):
            sets.setdefault(node.id, []).append(None)  # a loop target, an unpacking...
    for node in ast.walk(fdef):
        if node.__class__ is ast.Name and node.ctx.__class__ is ast.Load:
            uses.setdefault(node.id, []).append(_use(node, parent, is_numpy, helper_of))

    def source(value):
        """None for a value no name of the set may hold, else the stack it is read from
        ("" for a display or an empty stack)."""
        if value.__class__ in (ast.List, ast.Tuple) and (
                value.__class__ is ast.List or any(e.__class__ is ast.List
                                                   for e in value.elts)):
            return ""
        if value.__class__ is ast.Subscript and value.value.__class__ is ast.Name:
            return value.value.id
        if (value.__class__ is ast.Call and value.func.__class__ is ast.Attribute
                and value.func.attr == "pop" and not value.args
                and value.func.value.__class__ is ast.Name):
            return value.func.value.id
        return None

    # a stack: made empty, only pushed on; what is read out of a display ([x, 1][1], an int
    # in Python) is no display, so reads out of other names leave the set
    stacks = {n for n, values in sets.items() if all(
        v.__class__ is ast.List and not v.elts for v in values if v is not None)}
    names = {n for n, values in sets.items() if values and all(
        v is not None and source(v) is not None for v in values)}
    changed = True
    while changed:  # drop a name one of whose values or reads leaves the set
        changed = False
        for n in sorted(names):
            ok = all(source(v) == "" or source(v) in names & stacks
                     for v in sets[n]) and all(
                kind == "array" or (kind == "via" and other in names)
                for kind, other in uses.get(n, ()))
            if not ok:
                names.discard(n)
                changed = True
    for n in names:
        found.update(id(item) for v in sets[n] if source(v) == "" for item in _displays(v))
    return found


def _use(node, parent, is_numpy, helper_of):
    """How the read ``node`` (a Name) uses its value: ("array", None) where it becomes an
    array or only its length counts, ("via", name) where it goes on to ``name`` unchanged
    (pushed on a stack, read back from one), ("other", None) anywhere else."""
    up = parent.get(id(node))
    top, above = node, up
    while above.__class__ in (ast.List, ast.Tuple):  # a row of np.array([t, [a, b]])
        top, above = above, parent.get(id(above))
    if top is not node and _np_array_call(above, is_numpy) and above.args[0] is top:
        return "array", None
    if up.__class__ is ast.Call and up.args and up.args[0] is node and (
            _np_array_call(up, is_numpy) or (
                up.func.__class__ is ast.Name and up.func.id == "len" and len(up.args) == 1)):
        return "array", None
    if (up.__class__ is ast.Call and up.func.__class__ is ast.Name
            and helper_of.get(up.func.id) == "grad_array" and len(up.args) == 2
            and up.args[1] is node and not up.keywords):
        return "array", None
    if (up.__class__ is ast.Call and up.func.__class__ is ast.Name
            and helper_of.get(up.func.id) == "zeros_like" and up.args == [node]
            and not up.keywords):
        return "array", None  # its zero tangent: a list of 0.0 in both (only its length read)
    if (up.__class__ is ast.Call and up.func.__class__ is ast.Attribute
            and up.func.attr == "append" and up.func.value.__class__ is ast.Name
            and up.args == [node]):
        return "via", up.func.value.id  # pushed
    if up.__class__ is ast.Attribute and up.value is node and up.attr in ("append", "pop"):
        return "array", None  # the stack itself, its pushes and pops judged at theirs
    if up.__class__ is ast.Subscript and up.value is node or (
            up.__class__ is ast.Attribute and up.value is node):
        top = parent.get(id(up))
        if up.__class__ is ast.Attribute:
            top = parent.get(id(top))
        if top.__class__ is ast.Assign and len(top.targets) == 1 and (
                top.targets[0].__class__ is ast.Name):
            return "via", top.targets[0].id  # read back from the stack
    return "other", None


def _np_array_call(node, is_numpy):
    """``np.array(display)``: one argument, no keywords."""
    func = getattr(node, "func", None)
    return (node.__class__ is ast.Call and func.__class__ is ast.Attribute
            and func.attr == "array" and func.value.__class__ is ast.Name
            and is_numpy(func.value.id) and len(node.args) == 1 and not node.keywords)


def _displays(node):
    """The list displays of ``node``, a display whose items may be displays (rows)."""
    if node.__class__ in (ast.List, ast.Tuple):
        if node.__class__ is ast.List:
            yield node
        for item in node.elts:
            yield from _displays(item)


def of_one_type(node):
    """Whether the list display ``node`` may be compiled as a Numba list whose items must be
    of one type (:func:`srcad.backend.numba_lists.array_list` refuses others when Numba
    compiles): none of its items is a constant (``[x, 1]``, ``[x, -1]``: refused before
    compiling, naming the line), a display or a starred item; or every item is a number
    constant of one type, ``[1.0, -2.0, 3.0]`` or ``[0, 1, 2]`` (Numba's list holds them as
    Python does; a bool, an int of 2 ** 31 or more, or ints among floats, stay refused)."""
    def constant(item):
        while item.__class__ is ast.UnaryOp:
            item = item.operand
        return item.__class__ in (ast.Constant, ast.List, ast.Tuple, ast.Starred)

    def number(item):
        if item.__class__ is ast.UnaryOp and item.op.__class__ in (ast.USub, ast.UAdd):
            item = item.operand
        return type(item.value) if item.__class__ is ast.Constant and (
            type(item.value) is float or type(item.value) is int and abs(item.value) < 2 ** 31
        ) else None  # (ints small enough that products of two stay exact in an int64)

    kinds = {number(item) for item in node.elts}
    return not any(constant(item) for item in node.elts) or (
        len(kinds) == 1 and None not in kinds and not getattr(node, "srcad_index", False))


def _mark_indices(fdef):
    """In place: a list display assigned to a name that indexes an array (``t = [0, 2];
    a[t]``) is marked ``srcad_index`` (a typed list is no index for Numba: refused, with
    ``np.array([...])`` to write instead, by :func:`of_one_type`'s caller)."""
    indices = set()
    for node in ast.walk(fdef):
        if node.__class__ is ast.Subscript:
            index = node.slice
            for item in index.elts if index.__class__ is ast.Tuple else [index]:
                if item.__class__ is ast.Name:
                    indices.add(item.id)
    for node in ast.walk(fdef):
        if (node.__class__ is ast.Assign and node.value.__class__ is ast.List
                and any(t.__class__ is ast.Name and t.id in indices for t in node.targets)):
            node.value.srcad_index = True


def popped_gradients(fdef, grad_array, numba_helper):
    """In place: ``d = grad_array(g, L)`` (``grad_array``: the Numba helper's name in
    ``fdef``, or None), where the code pops ``d`` (``L`` built by ``append`` in a loop, its
    gradient popped in the backward loop), as ``d = grad_list(grad_array(g, L))``: the list
    srcad's Python helper gives, where Numba's ``grad_array`` gives an array."""
    if grad_array is None:
        return
    popped = {node.value.id for node in ast.walk(fdef) if node.__class__ is ast.Attribute
              and node.attr == "pop" and node.value.__class__ is ast.Name}
    for node in ast.walk(fdef):
        if (node.__class__ is ast.Assign and len(node.targets) == 1
                and node.targets[0].__class__ is ast.Name and node.targets[0].id in popped
                and node.value.__class__ is ast.Call and node.value.func.__class__ is ast.Name
                and node.value.func.id == grad_array):
            node.value = ast.Call(func=numba_helper("grad_list"), args=[node.value],
                                  keywords=[])
