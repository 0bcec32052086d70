"""The rewrites of a parsed function's source made before desugaring, in order (each rewrites
``src.node`` in place, or leaves it): :mod:`.inline_lists` (a list of objects built by a
callee or given to one: the callee's body in place), :mod:`.mutual_defs` (nested ``def``s
calling each other: one calling itself), :mod:`.enumerated_writes` (``for i, v in enumerate(xs):
xs[i] = e``: a loop over positions), :mod:`.list_repeats` (``[x] * n``: the comprehension),
:mod:`.list_slices` (``c = v[:]`` of a list: ``list(v)``), :mod:`.callable_grads` (``grad(obj)``
of an object built here: ``grad(lambda p: obj(p))``), :mod:`.lower_defaults` (``lambda v, k=k: v
** k``: a function a helper makes, ``make(k)``), :mod:`.lower_groups` (``d.setdefault(k,
[]).append(v)``, a ``defaultdict(list)``: a new list each time), :mod:`.lower_namespaces` (``xp
= array_namespace(x); xp.sum(...)``: NumPy's functions), :mod:`.changed_lists` (``sgd(ps, gs,
lr)`` changing the list ``ps`` built here: ``_, ps = sgd_fields(ps, gs, lr)``),
:mod:`.written_args` (``update(a, x)`` writing into the array ``a``: ``_, a = update_fields(a,
x)``),
:mod:`.object_operators` (``u = V(w); u + v``: the method calls Python makes, ``V.__add__(u,
v)``), :mod:`.lower_records` (``p = Pt(x, y); p.x``: the fields as locals), :mod:`.lower_next`
(``it = iter(xs); next(it)``: the items by position; before it,
``itertools.accumulate``/``starmap`` as Python (:mod:`.folds`) and iterators and function
displays passed to a function of yours marked (:mod:`.iterators_passed`)),
:mod:`.lower_made_lists` (``fs = [make(w) for ...]; f(x) for f in fs``: each item's values),
after :mod:`.lower_local_makes` (``def make(a): return lambda t: a * t`` inside the function:
out). then :mod:`.nested_writes` (``A[i][j] = v`` of an array: ``A_row = A[i]; A_row[j] = v``)
and :mod:`.views` (``v = y[1:3]; v *= 3``: writes into ``y``). (:mod:`.nonlocals`, ``nonlocal``
in a nested function, runs earlier, before the checks.)

Imports those modules.
"""

from __future__ import annotations

from . import (
    callable_grads,
    changed_lists,
    enumerated_writes,
    inline_lists,
    list_repeats,
    list_slices,
    lower_defaults,
    lower_groups,
    lower_local_makes,
    lower_made_lists,
    lower_namespaces,
    lower_next,
    lower_records,
    mutual_defs,
    nested_writes,
    object_operators,
    views,
    written_args,
)


def rewrite(src):
    """Apply every rewrite to ``src`` (a :class:`.source.Source`)."""
    for module in (inline_lists, mutual_defs, enumerated_writes, list_repeats, list_slices,
                   callable_grads, lower_defaults, lower_groups, lower_namespaces, changed_lists,
                   object_operators, lower_records, written_args, lower_next, lower_local_makes,
                   lower_made_lists, nested_writes, views):
        module.lower(src)
