"""Frozen SciPy distributions as calls of the distribution's own methods (issue 16), before
the checks.

``scipy.stats.norm(mu, s)`` is a *frozen* distribution: an object whose ``logpdf(x)`` calls
``norm.logpdf(x, mu, s)``. srcad has rules for the distribution's methods, not for the
object, so the object's calls are written as those calls:

* ``norm(mu, s).logpdf(x)`` becomes ``norm.logpdf(x, mu, s)`` (and ``scale=s`` stays a
  keyword); ``gamma(a, scale=s).mean()`` becomes ``gamma.mean(a, scale=s)``;
* ``d = norm(mu, s)`` (each binding of ``d`` of that form, used only by calls of the methods)
  becomes ``d_0 = mu; d_1 = s`` where it was made (the values as they were then; names the
  function does not use), and ``d.logpdf(x)`` becomes ``norm.logpdf(x, d_0, d_1)``;
* a frozen distribution the function reads (a global, a closure value: ``prior = norm(0, 2)``
  at module level), ``prior.logpdf(theta)``, becomes ``norm_logpdf(theta, prior.args[0],
  prior.args[1])`` (its keywords by name; ``norm_logpdf`` a constant of the code, the method
  of SciPy's own ``norm``, when the one the frozen distribution holds is a copy of it): read
  live, the reads recorded, so a ``prior`` bound to another distribution makes the code
  again.

A method held in a name, ``fn = d.logpdf`` then ``fn(x)`` (``d`` one of these, bound once),
is read as ``d.logpdf(x)`` (:meth:`_Frozen.aliases`).

The methods: ``pdf``, ``logpdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf``, ``ppf``, ``isf``,
``pmf``, ``logpmf`` (one value first), ``mean``, ``var``, ``std``, ``median``, ``entropy``
(none), each called with positional arguments only. Anything else (another method, a
keyword argument, a starred argument, the object passed on or returned) is left as it is
and refused where srcad meets it, as before.

Imports the standard library, gast, :mod:`srcad.errors`, :mod:`.blocks` (``own_blocks``) and
:mod:`.built_records` (``resolve_any``).
"""

from __future__ import annotations

import sys

import gast

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from .blocks import own_blocks
from .built_records import resolve_any

#: methods taking one value ahead of the distribution's parameters
_VALUED = frozenset({"pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "pmf",
                     "logpmf"})
#: methods taking only the distribution's parameters
_PLAIN = frozenset({"mean", "var", "std", "median", "entropy"})
_METHODS = _VALUED | _PLAIN


def lower(src):
    """Rewrite the frozen distributions' calls in ``src.node`` in place."""
    stats = sys.modules.get("scipy.stats")
    if stats is None or not any(isinstance(n, gast.Attribute) and n.attr in _METHODS
                                for n in walk_nodes(src.node)):
        return
    local = {n.id for n in walk_nodes(src.node) if isinstance(n, gast.Name)
             and isinstance(n.ctx, (gast.Store, gast.Del))}
    local |= {a.id for a in src.node.args.posonlyargs + src.node.args.args
              + src.node.args.kwonlyargs}
    _Frozen(src, local).run()


def _generators():
    """The classes of SciPy's distribution objects (``norm``, ``multivariate_normal``)."""
    out = []
    for module, name in (("scipy.stats._distn_infrastructure", "rv_generic"),
                         ("scipy.stats._multivariate", "multi_rv_generic")):
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type):
            out.append(cls)
    return tuple(out)


def _frozen_class():
    cls = getattr(sys.modules.get("scipy.stats._distn_infrastructure"), "rv_frozen", None)
    return cls if isinstance(cls, type) else None


def _module_distribution(dist):
    """``scipy.stats``'s own object for the distribution a frozen one holds (which holds a
    copy of it, made with the same constructor parameters), or None."""
    stats = sys.modules.get("scipy.stats")
    own = getattr(stats, getattr(dist, "name", None) or "", None)
    try:
        same = type(own) is type(dist) and own._updated_ctor_param() == \
            dist._updated_ctor_param()
    except Exception:  # noqa: BLE001 - parameters that do not compare: not the same
        return None
    return own if same else None


def _name(id_):
    return gast.Name(id=id_, ctx=gast.Load(), annotation=None, type_comment=None)


def _method_call(node):
    """Whether ``node`` is ``obj.method(...)`` of one of the methods, in the form read:
    positional arguments only, none starred, one value for ``logpdf`` and the like, none
    for ``mean`` and the like."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr in _METHODS and not node.keywords
            and not any(isinstance(a, gast.Starred) for a in node.args)):
        return False
    return len(node.args) == (1 if node.func.attr in _VALUED else 0)


class _Frozen:
    def __init__(self, src, local):
        self.src = src
        self.local = local
        self.generators = _generators()
        self.frozen_cls = _frozen_class()
        self.taken = {n.id for n in walk_nodes(src.node) if isinstance(n, gast.Name)} | set(
            src.closure) | set(src.globals)

    def generator(self, node):
        """The distribution object ``node`` (a dotted free name) names, or None."""
        if not self.generators:
            return None
        value = resolve_any(self.src, node, self.local)
        return value if isinstance(value, self.generators) else None

    def freezing(self, node):
        """Whether ``node`` is ``dist(args, k=v)`` of a distribution object, nothing starred."""
        return isinstance(node, gast.Call) and self.generator(node.func) is not None and \
            not any(isinstance(a, gast.Starred) for a in node.args) and \
            all(k.arg is not None for k in node.keywords)

    def run(self):
        self.aliases()
        named = self.named()
        for node in walk_nodes(self.src.node):
            if not _method_call(node):
                continue
            obj = node.func.value
            if self.freezing(obj):  # norm(mu, s).logpdf(x)
                self.rewrite(node, obj.func, list(obj.args), list(obj.keywords))
            elif isinstance(obj, gast.Name) and obj.id in named:  # d = norm(mu, s)
                self.rewrite(node, *named[obj.id])
            elif isinstance(obj, gast.Name) and obj.id not in self.local:
                self.global_frozen(node, obj)

    def aliases(self):
        """``fn = d.logpdf`` (a method here of a frozen distribution ``d``: one made once in
        the function before, or one it reads), ``fn`` bound once and only called after, in
        the form read: each call ``fn(x)`` becomes ``d.logpdf(x)`` and the binding goes.
        Exact: ``d`` is bound once, and a frozen distribution's method is a function of its
        arguments and parameters only."""
        stores, nested, lines = {}, set(), {}
        for node in walk_nodes(self.src.node):
            if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
                stores[node.id] = stores.get(node.id, 0) + 1
                lines[node.id] = getattr(node, "lineno", None)
            if isinstance(node, (gast.Global, gast.Nonlocal)):
                stores.update((n, 2) for n in node.names)
            if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not self.src.node:
                nested |= {n.id for n in walk_nodes(node) if isinstance(n, gast.Name)}
        made = {stmt.targets[0].id: stmt for _, _, stmt in self.assignments()
                if self.freezing(stmt.value)}
        for block in own_blocks(self.src.node):
            for i, stmt in enumerate(block):
                value = stmt.value if isinstance(stmt, gast.Assign) else None
                if not (isinstance(value, gast.Attribute) and value.attr in _METHODS and
                        isinstance(value.value, gast.Name) and len(stmt.targets) == 1 and
                        isinstance(stmt.targets[0], gast.Name)):
                    continue
                fn, obj, line = stmt.targets[0].id, value.value.id, stmt.lineno
                if not (obj in made if obj in self.local else self.frozen_value(obj)):
                    continue  # not a frozen distribution
                calls = self.alias_calls(fn, line, value.attr)
                if stores.get(fn) != 1 or fn in nested or obj in nested or calls is None or \
                        obj in self.local and (stores.get(obj) != 1 or lines[obj] >= line):
                    if any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and
                           n.id == fn for n in walk_nodes(self.src.node)):
                        raise self.refusal(stmt, fn, obj, value.attr)
                    continue
                for call in calls:
                    call.func = gast.copy_location(gast.Attribute(
                        value=_name(obj), attr=value.attr, ctx=gast.Load()), call.func)
                block[i] = gast.copy_location(gast.Pass(), stmt)

    def refusal(self, stmt, fn, obj, method):
        line = getattr(stmt, "lineno", None)
        form = "x" if method in _VALUED else ""
        return UnsupportedSyntaxError(
            f"{fn} = {obj}.{method}, a method of a frozen SciPy distribution held in a name, "
            f"used where srcad does not read {fn}({form}) as {obj}.{method}({form}): {obj} "
            f"bound more than once, {fn} bound more than once or read in a nested function, "
            f"passed on, or called with keywords or before it is bound",
            filename=self.src.filename, lineno=line, construct=self.src.line_text(line),
            hint=f"call the method itself, {obj}.{method}({form}), with positional arguments, "
            f"or give each distribution a name of its own")

    def frozen_value(self, name):
        try:
            value = self.src.lookup(name)
        except KeyError:
            return False
        return self.frozen_cls is not None and isinstance(value, self.frozen_cls)

    def alias_calls(self, fn, line, method):
        """The calls ``fn(...)`` in the form read (as :func:`_method_call` of ``method``),
        after ``line``, when they are every read of ``fn``; else None."""
        calls, reads = [], 0
        for node in walk_nodes(self.src.node):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                    node.id == fn:
                reads += 1
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                    node.func.id == fn:
                shaped = _method_call(gast.Call(func=gast.Attribute(
                    value=node.func, attr=method, ctx=gast.Load()), args=node.args,
                    keywords=node.keywords))
                if not (shaped and (getattr(node, "lineno", None) or 0) > line):
                    return None
                calls.append(node)
        return calls if calls and len(calls) == reads else None

    def fresh(self, base):
        """A name no name of the function's is (nor one given before)."""
        name, i = base, 1
        while name in self.taken:
            name, i = f"{base}_{i}", i + 1
        self.taken.add(name)
        return name

    def rewrite(self, call, dist, args, keywords):
        call.func = gast.Attribute(value=dist, attr=call.func.attr, ctx=gast.Load())
        call.args = call.args + args
        call.keywords = keywords

    def global_frozen(self, call, obj):
        """``prior.logpdf(x)`` for a frozen distribution ``prior`` the function reads."""
        if self.frozen_cls is None:
            return
        try:
            value = self.src.lookup(obj.id)
        except KeyError:
            return
        if not isinstance(value, self.frozen_cls):
            return
        self.src.lookup(obj.id, ("args",))  # recorded: another tuple makes the code again
        self.src.lookup(obj.id, ("kwds",))
        args = [gast.Subscript(value=gast.Attribute(value=_name(obj.id), attr="args",
                                                    ctx=gast.Load()),
                               slice=gast.Constant(value=i, kind=None), ctx=gast.Load())
                for i in range(len(value.args))]
        keywords = [gast.keyword(arg=k, value=gast.Subscript(
            value=gast.Attribute(value=_name(obj.id), attr="kwds", ctx=gast.Load()),
            slice=gast.Constant(value=k, kind=None), ctx=gast.Load()))
            for k in value.kwds if isinstance(k, str) and k.isidentifier()]
        dist = _module_distribution(value.dist)
        if len(keywords) != len(value.kwds) or dist is None:
            return
        method = getattr(dist, call.func.attr, None)
        if method is None:
            return
        name = self.fresh(f"{value.dist.name}_{call.func.attr}")
        self.src.closure[name] = method  # a constant the rewrite gives the code
        call.func = _name(name)
        call.args = call.args + args
        call.keywords = keywords

    def named(self):
        """``{d: (dist, args, keywords)}`` for each name ``d`` every binding of which is
        ``d = dist(...)`` of one distribution with the same form (positional count, keyword
        names: ``norm(a, 1.0)`` in one branch, ``norm(0.0, s)`` in the other), used only by
        calls of the methods; its statements become the arguments' assignments, to the same
        names in every binding (merged as any local is)."""
        stores, found = {}, {}
        nested = set()
        for node in walk_nodes(self.src.node):
            if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
                stores[node.id] = stores.get(node.id, 0) + 1
            if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not self.src.node:
                nested |= {n.id for n in walk_nodes(node) if isinstance(n, gast.Name)}
        uses = self.method_uses()
        bindings = {}
        for block, i, stmt in self.assignments():
            bindings.setdefault(stmt.targets[0].id, []).append((block, i, stmt))
        for name, places in bindings.items():
            forms = {self.form(stmt.value) for _, _, stmt in places}
            if stores.get(name) != len(places) or name in nested or len(forms) != 1 or \
                    None in forms or uses.get(name) is not True:
                continue
            _, count, keys = forms.pop()
            temps = [self.fresh(f"{name}_{j}") for j in range(count)] + [
                self.fresh(f"{name}_{k}") for k in keys]
            for block, i, stmt in places:  # (last first in each block: indices stay right)
                values = list(stmt.value.args) + [k.value for k in stmt.value.keywords]
                block[i:i + 1] = [gast.copy_location(gast.Assign(
                    targets=[gast.Name(id=t, ctx=gast.Store(), annotation=None,
                                       type_comment=None)],
                    value=v, type_comment=None), stmt) for t, v in zip(temps, values)] or [
                    gast.copy_location(gast.Pass(), stmt)]
            found[name] = (places[0][2].value.func, [_name(t) for t in temps[:count]],
                           [gast.keyword(arg=k, value=_name(t))
                            for k, t in zip(keys, temps[count:])])
        return found

    def form(self, call):
        """``(distribution object id, positional count, keyword names)`` of a freezing call,
        else None."""
        if not self.freezing(call):
            return None
        return (id(self.generator(call.func)), len(call.args),
                tuple(k.arg for k in call.keywords))

    def assignments(self):
        """``(block, index, d = call)`` of the function's own blocks, last first (so an index
        stays right while a statement is replaced)."""
        out = [(block, i, stmt) for block in own_blocks(self.src.node)
               for i, stmt in enumerate(block) if isinstance(stmt, gast.Assign)
               and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
               and isinstance(stmt.value, gast.Call)]
        return sorted(out, key=lambda t: (id(t[0]), -t[1]))

    def method_uses(self):
        """``{name: True}`` for the names whose every read is ``name.method(...)`` of a
        method here, called with positional arguments only (False: some other read)."""
        ok = {}
        calls = {id(n.func.value) for n in walk_nodes(self.src.node)
                 if _method_call(n) and isinstance(n.func.value, gast.Name)}
        for node in walk_nodes(self.src.node):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                ok[node.id] = ok.get(node.id, True) and id(node) in calls
        return ok
