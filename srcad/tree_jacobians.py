"""Jacobians and Hessians of functions called with containers and records of numbers (a
dict of parameters, a list, a named tuple, a dataclass), found by the arguments' structure.

:meth:`srcad.jacobians._Jacobian.__call__` sends a call with a tree where ``wrt`` points to
:func:`call`. Its full path (``_Jacobian._tree``) walks the trees on every call: the reverse
Jacobian of a number out ran ``f`` for the value and then ``vjp``'s code and rebuilt the
gradient leaf by leaf; the forward one (a Hessian: ``jacfwd(grad(f))``) flattened each
argument, built one-hot tangents, looked its forward-mode code up by a full check of every
name it read, and rebuilt the columns leaf by leaf, ten times the passes' own cost.

Here, after the full path ran on arguments of a structure, a *plan* for that structure is
kept, keyed by :func:`srcad.tree_keys.call_key` (every container's and record's classes, keys
in order and leaf classes), for arguments whose trees hold floats alone:

- reverse mode, when ``grad``'s code for them returns the gradient of a number by its kinds
  (:func:`srcad.fast_calls.number_out`, as for numbers): that code itself, its gradient kept
  as it is when it has the argument's :func:`srcad.tree_keys.tree_key` (a test compiled by
  :func:`srcad.tree_keys.key_test`: floats in the argument's structure, what
  :func:`srcad.jacobian_leaves.number_rows` would build), else built by its conversion;
  where the kinds do not say (a nested dict's items), ``f`` then ``vjp``'s code of 1.0 as
  ``number_rows`` does, and for an output not a number the full path from then on;
- forward mode: the forward-mode code called once per number with tangents made by a
  display compiled for the structure (new objects each call), each pass's value and tangent
  tested by compiled conditions against what the first call's passes gave (classes, key
  order, leaf classes), the columns read and the result built by code compiled for them;
  for records, the code made for them read as dicts (what ``api._jvp_with_records``
  wraps), each record read as the dict of its fields once a call by a display compiled for
  its class, when that code's passes give the wrapper's leaves on the first call.

A plan runs while every name its code read finds the object it found
(:func:`srcad.fast_checks.checks`); anything else (another structure, an int or array leaf, a
pass giving another key, a rebound name) takes the full path, which keeps its checks and
errors. A forward plan is kept only when its own result on the first call's arguments equals
the full path's, leaf for leaf and class for class.

A Hessian's forward passes (and ``hvp``'s, :func:`hvp_alone`) call the code of the tangent
alone (:class:`srcad.transform.tangent_only.TangentOnly`: the gradient beside each tangent
not returned, what only it needed not computed) where its tangents are the general code's
on the first call, leaf for leaf and key for key; each call's tangent is tested as before.

Imports NumPy, :mod:`srcad.api` (the transformed code), :mod:`srcad.tree_keys`,
:mod:`srcad.fast_calls`, :mod:`srcad.fast_checks`, :mod:`srcad.pytrees`,
:mod:`srcad.tree_calls`, :mod:`srcad.tree_jvps`, :mod:`srcad.tree_vjps` (its count of
fronts), :mod:`srcad.jacobian_leaves`,
:mod:`srcad.jacobian_trees`, :mod:`srcad.transform.tangent_only` and
``srcad.core``/``srcad.errors``.
"""

from __future__ import annotations

import numpy as np

from . import api, fast_calls, jacobian_trees, pytrees, tree_jvps, tree_keys, tree_vjps
from . import jacobian_leaves as leaves
from .backend import call_fronts
from .core import functions
from .errors import SrcadError
from .fast_checks import checks, tests_text
from .transform.tangent_only import TangentOnly
from .tree_calls import floats as _floats  # (floats in containers and records)

_MISS = object()  # a plan that cannot answer: the full path


def call(jac, args):
    """The Jacobian ``jac`` of arguments with a tree where ``wrt`` points: by the plan kept
    for their structure, else the full path (which keeps a plan for the next call)."""
    plans = _plans(jac, args)
    key = tree_keys.call_key(args) if plans is not None else None
    if key is not None:
        plan = plans.get(key)
        if plan is None and jac.mode == "rev":
            plan = _rev_plan(jac, args, plans, key)
        if plan is not None and plan is not _never:
            found = plan(args)
            if found is not _MISS:
                return found
    result = jac._tree(args).value
    if key is not None and jac.mode == "fwd" and key not in plans:
        tree_keys.keep(plans, key, _fwd_plan(jac, args, plans, key, result) or _never)
    return result


def _never(args):
    """The plan of a structure no plan takes (tried once): the full path."""
    return _MISS


def _plans(jac, args):
    """The plans of ``jac`` for these argument classes (made empty, and the lookup put in
    ``jac.numbers`` where the front finds it), or None when they cannot be keyed."""
    types = tuple(map(type, args))
    found = jac.numbers.get(types)
    plans = getattr(found, "plans", None)
    if plans is not None:
        return plans
    if found is not None or jac.backend != "python" or not tree_keys.keyed_classes(
            types) or not all(_floats(a) for a in args):
        return None
    plans = {}
    general = getattr(jac, "general", None) or jac.__call__

    def by_tree(*args):
        plan = plans.get(tree_keys.call_key(args))
        if plan is not None:
            found = plan(args)
            if found is not _MISS:
                return found
        return general(*args)

    by_tree.plans = plans
    jac.numbers[types] = by_tree
    return plans


# ------------------------------------------------------------------------ reverse mode


def _rev_plan(jac, args, plans, key):
    """Reverse mode: ``grad``'s code for these arguments when its output is a number by
    their kinds, else (a nested dict's items, whose kinds are not known) what the full path
    computes for a number out: ``f`` for the value, then ``vjp``'s code of 1.0."""
    f, index, single = jac.f, jac.index, jac.single
    fn = None
    if functions.is_user_function(f) and api._all_given(f, args):
        try:
            t = jac.grad_code = jac.grad_code or api._transform(f, index, "grad")
            t._check_env()  # a name the code read is bound to something else: made again
            fn = t._specialise(t._bind(args, {}))
        except SrcadError:
            fn = None  # (the full path says what it refuses, or does it another way)
    if fn is not None and fast_calls.number_out(fn.__srcad_raw__):
        same, ok = checks(fn.__srcad_reads__)
    else:
        fn = same = ok = None
        if jac.vjp is None:
            jac.vjp = api._transform(f, index, "vjp")
    vjp = jac.vjp
    # gradients kept as they are when floats in their argument's structure (key order too)
    expected = [_test(args[p]) for p in index]
    first = expected[0]

    def rev_plan(args, grads=None):
        if grads is not None:  # (the compiled plan's, whose test failed: converted here)
            pass
        elif fn is not None:
            if not (same() or ok()):  # (by identity first: one call less)
                plans.pop(key, None)
                return _MISS
            grads = fn(*args)
        else:  # (as leaves.number_rows: a number out, else the full path from now on)
            value = f(*args)
            if value.__class__ is not float and value.__class__ is not np.float64:
                plans[key] = _never  # (f is not run twice a call: a tree out, say)
                return _MISS
            grads = vjp(1.0, *args)
        if single and first(grads[0]):  # (one tree, floats in its structure: as it is)
            return grads[0]
        rows = []
        for g, p, test in zip(grads, index, expected):
            if test(g):
                rows.append(g)
                continue
            try:
                rows.append(leaves.floats_like(g, args[p]))
            except leaves.Unlike:
                return _MISS
        return rows[0] if single else tuple(rows)

    if fn is not None and single:  # the common case compiled: no call for the tests
        rev_plan = _rev_text(fn, args[index[0]], plans, key, ok, rev_plan)
    tree_keys.keep(plans, key, rev_plan)
    return rev_plan


def _rev_text(fn, arg, plans, key, ok, general):
    """:func:`_rev_plan`'s plan for one tree whose gradient ``fn`` (``grad``'s code) gives:
    the freshness of the names ``fn`` read and the gradient's structure (``arg``'s
    :func:`srcad.tree_keys.tree_key`) tested in its text; any other gradient by
    ``general`` (which converts it, or says the full path)."""
    space = {"fn": fn, "MISS": _MISS, "plans": plans, "pk": key, "ok": ok, "general": general}
    conds = tree_keys.key_test(arg, "g", space)
    reads = fn.__srcad_reads__
    if conds is None:  # pragma: no cover - the arguments hold floats only
        return general
    text = ("def rev_plan(args):\n"
            "    try:\n"
            f"        fresh = {tests_text(reads, space, baked=True) if reads else 'True'}\n"
            "    except (ValueError, AttributeError):  # an empty cell, an attribute gone\n"
            "        fresh = False\n"
            "    if not (fresh or ok()):\n"
            "        plans.pop(pk, None)\n"
            "        return MISS\n"
            "    grads = fn(*args)\n"
            "    g = grads[0]\n"
            f"    if {' and '.join(conds)}:\n"
            "        return g\n"
            "    return general(args, grads)\n")
    exec(compile(text, "<srcad tree jacobian plan>", "exec"), space)  # noqa: S102
    return space["rev_plan"]


def _test(value):
    """A function of ``g`` testing it has ``value``'s :func:`srcad.tree_keys.tree_key`
    (:func:`srcad.tree_keys.key_test`, compiled)."""
    space = {}
    conds = tree_keys.key_test(value, "g", space)
    if conds is None:  # pragma: no cover - the arguments hold floats only
        return lambda g: False
    exec(compile(f"def same(g):\n    return {' and '.join(conds)}\n",  # noqa: S102
                 "<srcad tree test>", "exec"), space)
    return space["same"]


# ------------------------------------------------------------------------ forward mode


def _fwd_plan(jac, args, plans, key, expected):
    """Forward mode: the plan for this structure, when ``expected`` (the full path's
    Jacobian) is what it gives (else None). Records: the dict code itself, the records read
    as dicts once a call (not the wrapper's flatten and records made again at each pass),
    when its passes give the wrapper's leaves; else the wrapper."""
    fn, full = jacobian_trees._function(jac, args)
    if len(full) != len(args) or any(a is not b for a, b in zip(full, args)):
        return
    flat = getattr(fn, "__srcad_flat__", None)  # (srcad.api._jvp_with_records)
    only = _tangent_only(jac, args, flat)
    tries = [(flat, only), (flat, None)] if flat is not None else [(None, only)]
    for pair in tries + [(None, None)]:  # (the tangent alone first)
        if pair[1] is not None or pair[0] is not None or pair == (None, None):
            plan = _fwd_text(jac, args, plans, key, expected, fn, *pair)
            if plan is not None:
                return plan


def hvp_alone(f, wrt, args, v, grad_f, found):
    """After ``hvp(f, args, v)`` gave ``found`` (``jvp`` of ``grad_f``'s tangent) by the full
    path for arguments and ``v`` of floats in dicts, lists and tuples: let the next such
    call of this structure call the code of the tangent alone (no gradient computed beside
    it), when it gives ``found`` exactly; any other call as before (``jvp``'s closure)."""
    key = tuple(map(type, args)) + (type(v),)
    held = fast_calls.HVPS.get((f, wrt))
    known = held.get(key) if held is not None else None
    if known is None or not tree_keys.keyed_classes(key):
        return
    try:
        target, _, names = api._jvp_target(grad_f, (wrt,), len(args))
        fn, full = api._jvp_function(target, names, args, sweep=TangentOnly)
    except SrcadError:
        return
    made = tree_jvps.closure(fn, args, (v,), full)  # (floats in plain containers only)
    first = made(args, (v,)) if made is not None else None
    if first is None or first[0] is not None or not _same(first[1], found):
        return
    # made's tests in one text: the structures, then the names the code read
    space = {"fn": fn, "known": known, "ok": checks(fn.__srcad_reads__)[1]}
    conds = [f"len(primals) == {len(args)}", "len(tangents) == 1"]
    for text, value in [(f"primals[{i}]", a) for i, a in enumerate(args)] + [
            ("tangents[0]", v)]:
        found_conds = tree_keys.key_test(value, text, space)
        if found_conds is None:  # pragma: no cover - (floats in plain containers)
            return
        conds += found_conds
    reads = fn.__srcad_reads__
    text = ("def alone(primals, tangents):\n"
            f"    if {' and '.join(conds)}:\n"
            "        try:\n"
            f"            fresh = {tests_text(reads, space, baked=True) if reads else 'True'}\n"
            "        except (ValueError, AttributeError):  # an empty cell, an attribute gone\n"
            "            fresh = False\n"
            "        if fresh or ok():\n"
            f"            return fn({''.join(f'primals[{i}], ' for i in range(len(args)))}"
            "tangents[0])\n"
            "    return known(primals, tangents)\n")
    exec(compile(text, "<srcad hvp of a tree>", "exec"), space)  # noqa: S102
    held[key] = space["alone"]
    prev = vars(f).get(call_fronts.HVP)
    if wrt == 0 and type(wrt) is int and getattr(prev, "depth", 0) < tree_vjps.MOST and (
            prev is None or hasattr(prev, "depth")):  # (not a number's front)
        front = _hvp_front(f, fn, args, v, prev)
        if front is not None:
            call_fronts.FRONTS.put(f, call_fronts.HVP, front)


def _hvp_front(f, fn, args, v, prev=None):
    """``hvp(f, x, v)``'s front on ``f`` (called first by ``hvp``'s entry point, in its
    frame: :func:`srcad.backend.call_fronts.short_hvp`) for ``x`` the argument tuple of
    ``args``' structure (or its one container itself) and ``v`` of ``v``'s: the structure
    tests and the freshness of the names ``fn`` (the code of the tangent alone) read, in its
    text; ``prev`` (the front of another structure, if any) for anything else, and behind it
    None (``hvp``'s own path, with its writer check, closures and errors). None when it
    cannot be compiled."""
    space = {"fn": fn, "F": f, "prev": prev}
    conds = [f"len(x) == {len(args)}"]
    for text, value in [(f"x[{i}]", a) for i, a in enumerate(args)] + [("v", v)]:
        found = tree_keys.key_test(value, text, space)
        if found is None:  # pragma: no cover - (floats in plain containers)
            return None
        conds += found
    reads = fn.__srcad_reads__
    text = ("def hvp_tree(x, v, given=F):\n"
            "    if given is F:  # (not a wrapper carrying f's attributes)\n"
            "        if not isinstance(x, tuple):  # (as hvp reads x)\n"
            "            x = (x,)\n"
            f"        if {' and '.join(conds)}:\n"
            "            try:\n"
            f"                fresh = {tests_text(reads, space, baked=True) if reads else 'True'}\n"
            "            except (ValueError, AttributeError):  # an empty cell, an attribute gone\n"
            "                fresh = False\n"
            "            if fresh:\n"
            f"                return fn({''.join(f'x[{i}], ' for i in range(len(args)))}v)[1]\n"
            f"    return {'None' if prev is None else 'prev(x, v, given)'}\n")
    exec(compile(text, "<srcad hvp front of a tree>", "exec"), space)  # noqa: S102
    made = space["hvp_tree"]
    made.__srcad_source__ = text  # (for reading)
    made.depth = getattr(prev, "depth", 0) + 1  # (the structures it answers)
    return made


def _tangent_only(jac, args, flat):
    """The code of the tangent alone (:class:`srcad.transform.tangent_only.TangentOnly`) for
    these arguments, the dict code for records (``flat``), or None."""
    try:
        made, _ = api._jvp_function(jac.target, jac.names, args, sweep=TangentOnly)
    except SrcadError:
        return None
    inner = getattr(made, "__srcad_flat__", None)
    if (inner is None) != (flat is None) or inner is not None and inner[1] != flat[1]:
        return None
    code = inner[0] if inner is not None else made
    code.__srcad_reads__ = made.__srcad_reads__  # (the wrapper's: what the code read)
    return code


def _fwd_text(jac, args, plans, key, expected, fn, flat, only=None):
    """:func:`_fwd_plan`'s plan calling ``fn`` (the wrapper, with ``flat``: its dict code
    and the positions it reads as dicts), or None. With ``only``: calling that code of the
    tangent alone instead (taking what ``fn``'s or the dict code takes), when its tangents
    are those of ``fn`` on the first call, leaf for leaf and key for key (the value, a
    gradient, is in the argument's structure: :mod:`srcad.transform.tangent_only`)."""
    shapes, counts = [], []
    for p in jac.index:
        found = []
        try:
            shapes.append(jacobian_trees._shape(args[p], found))
        except (jacobian_trees._NotNumbers, RecursionError):
            return
        counts.append(len(found))
    raw, at = flat or (fn, ())
    space = {"fn": only or raw, "MISS": _MISS, "made": pytrees.made_like, "flat": pytrees.flatten,
             "float": float, "plans": plans, "pk": key}
    reads = tuple((only or fn).__srcad_reads__)  # (of the code the plan calls)
    space["ok"] = checks(reads)[1]
    # (each name the code read finds the very object it found: tested in the text, no call)
    lines = ["def fwd_plan(args):",
             "    try:",
             f"        fresh = {tests_text(reads, space, baked=True) if reads else 'True'}",
             "    except (ValueError, AttributeError):  # an empty cell, an attribute gone",
             "        fresh = False",
             "    if not (fresh or ok()):",
             "        plans.pop(pk, None)",
             "        return MISS"]
    n_args = len(args)
    if at:  # (the records read as dicts, as the wrapper reads them: once a call here)
        lines.append("    args = (" + "".join(
            (_flat_text(a, f"args[{i}]") or f"flat(args[{i}])") + ", " if i in at else
            f"args[{i}], " for i, a in enumerate(args)) + ")")
    flat_args = [pytrees.flatten(a) if i in at else a for i, a in enumerate(args)]
    columns = []  # (k, m) in order
    out = _MISS  # (the output's structure once a pass ran: None for a number)
    for k in range(len(shapes)):
        for m in range(counts[k]):
            seeds = [[1.0 if (j, n) == (k, m) else 0.0 for n in range(c)] for j, c in
                     enumerate(counts)]
            tangents = [_display(s, seed, space) for s, seed in zip(shapes, seeds)]
            value, t = fn(*args, *[eval(text, space) for text in tangents])  # noqa: S307
            rv, rt = value, t
            if at:  # the dict code's pass, read as dicts: the wrapper's leaves, in order
                tangents = [_display(s, seed, space, flat=n_args + j in at)
                            for j, (s, seed) in enumerate(zip(shapes, seeds))]
                try:
                    rv, rt = raw(*flat_args, *[eval(x, space) for x in tangents])  # noqa: S307
                    if not (_same_leaves(value, rv) and _same_leaves(t, rt, True)):
                        return
                except Exception:  # noqa: BLE001 - (the wrapper's plan then)
                    return
            if only is not None:  # the same tangent, the value not computed (None)
                ov, ot = only(*(flat_args if at else args), *[eval(x, space) for x in (  # noqa: S307
                    tangents)])
                if ov is not None or tree_keys.tree_key(ot) != tree_keys.tree_key(rt) or not (
                        _same_leaves(ot, rt, True)):
                    return
            v_test = [] if only is not None else tree_keys.key_test(rv, "v", space)
            t_test = tree_keys.key_test(rt, "t", space)
            if v_test is None or t_test is None:
                return
            found = []
            try:
                shape_out = jacobian_trees._shape(value, [])
                if jacobian_trees._shape(t, found, zero=True) != shape_out or (
                        out is not _MISS and shape_out != out):
                    return
            except (jacobian_trees._NotNumbers, RecursionError):
                return
            out = shape_out
            c = len(columns)
            lines += [f"    v, t = fn(*args, {''.join(x + ', ' for x in tangents)})",
                      f"    if not ({' and '.join(v_test + t_test)}):",
                      "        return MISS",
                      f"    c{c} = ({''.join(x + ', ' for x in _reads(rt, 't', space))})"]
            columns.append((k, m))
    if out is _MISS:
        return
    at = {km: c for c, km in enumerate(columns)}
    n_out = [0]

    def leaf_j(j):
        parts = [_display(s, [f"c{at[(k, m)]}[{j}]" for m in range(counts[k])], space, raw=True)
                 for k, s in enumerate(shapes)]
        return parts[0] if jac.single else "(" + "".join(p + ", " for p in parts) + ")"

    def next_leaf():
        j = n_out[0]
        n_out[0] += 1
        return leaf_j(j)

    result = _display(out, None, space, raw=True, leaf=next_leaf)
    lines.append(f"    return {result}")
    text = "\n".join(lines) + "\n"
    try:
        exec(compile(text, "<srcad tree jacobian plan>", "exec"), space)  # noqa: S102
    except (SyntaxError, RecursionError):  # pragma: no cover - displays of str/int keys
        return
    plan = space["fwd_plan"]
    plan.__srcad_source__ = text  # (for reading)
    return plan if _same(plan(args), expected) else None


def _display(shape, items, space, raw=False, leaf=None, flat=False):
    """The text of a display building a value of ``shape`` (:func:`jacobian_trees._shape`)
    whose leaves are ``items`` in order (floats written out, or texts with ``raw``), or
    ``leaf()``'s texts; a record's made by ``made`` (its class's example in ``space``), or
    with ``flat`` the dict of its fields (:func:`srcad.pytrees.flatten`'s)."""
    it = iter(items) if items is not None else None

    def text(s):
        if s is None:
            if leaf is not None:
                return leaf()
            v = next(it)
            return v if raw else repr(v)
        head = s[0]
        if head is dict or flat and type(head) is jacobian_trees._Record:
            return "{" + ", ".join(f"{k!r}: {text(sub)}" for k, sub in s[1:]) + "}"
        if type(head) is jacobian_trees._Record:
            name = f"R{len(space)}"
            if tree_keys._record_kind(type(head.like)) == "tuple":  # (made_like's call)
                space[name] = type(head.like)
                return f"{name}(" + ", ".join(f"{k}={text(sub)}" for k, sub in s[1:]) + ")"
            space[name] = head.like
            return f"made({name}, {{" + ", ".join(f"{k!r}: {text(sub)}" for k, sub in s[1:]) \
                + "})"
        inner = "".join(text(sub) + ", " for sub in s[1:])
        return f"[{inner}]" if head is list else f"({inner})"

    return text(shape)


def _flat_text(value, spelled):
    """The text of a display making :func:`srcad.pytrees.flatten`'s dict of the record
    ``value`` (named ``spelled``) whose fields are floats or such records, else None (the
    call key the plan is kept under holds the classes, so every call's are such)."""
    kind = tree_keys._record_kind(type(value))
    if kind not in ("tuple", "fields"):
        return None
    parts = []
    for i, (k, v) in enumerate(pytrees.fields_of(value).items()):
        at = f"{spelled}[{i}]" if kind == "tuple" else f"{spelled}.__dict__[{k!r}]"
        text = at if type(v) is float else _flat_text(v, at)
        if text is None:
            return None
        parts.append(f"{k!r}: {text}")
    return "{" + ", ".join(parts) + "}"


def _reads(value, spelled, space):
    """The texts reading ``value``'s leaves (named ``spelled``) as floats, in
    :func:`jacobian_trees._shape`'s order; a None leaf is a zero."""
    cls = type(value)
    if cls is float:
        return [spelled]
    if value is None:
        return ["0.0"]
    if cls in (int, np.float64):
        return [f"float({spelled})"]
    if cls is dict:
        return [r for k, v in value.items() for r in _reads(v, f"{spelled}[{k!r}]", space)]
    if cls is list or cls is tuple:
        return [r for i, v in enumerate(value) for r in _reads(v, f"{spelled}[{i}]", space)]
    if tree_keys._record_kind(cls) == "tuple":  # (its fields by position)
        return [r for i, v in enumerate(value) for r in _reads(v, f"{spelled}[{i}]", space)]
    if tree_keys._record_kind(cls) == "fields":  # (fields_of's order, __dict__ tested)
        return [r for k, v in pytrees.fields_of(value).items()
                for r in _reads(v, f"{spelled}.__dict__[{k!r}]", space)]
    space.setdefault("fields", pytrees.fields_of)
    return [r for k, v in pytrees.fields_of(value).items()
            for r in _reads(v, f"fields({spelled})[{k!r}]", space)]


def _same_leaves(a, b, zero=False):
    """Whether trees ``a`` and ``b`` hold equal leaves of equal classes in the same order
    (:func:`jacobian_trees._shape`'s; ``zero``: a None leaf is a zero)."""
    found_a, found_b = [], []
    try:
        jacobian_trees._shape(a, found_a, zero)
        jacobian_trees._shape(b, found_b, zero)
    except (jacobian_trees._NotNumbers, RecursionError):
        return False
    return len(found_a) == len(found_b) and all(
        type(x) is type(y) and (x == y or x != x and y != y) for x, y in zip(found_a, found_b))


def _same(a, b):
    """Whether ``a`` and ``b`` are equal trees of equal classes, leaf for leaf."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(map(_same, a, b))
    if type(a) is float:
        return a == b or a != a and b != b
    if pytrees.is_record(a):
        return _same(pytrees.fields_of(a), pytrees.fields_of(b))
    return False
