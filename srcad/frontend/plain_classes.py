"""Objects of plain classes of the user's built in the function (issue 16).

A class written by hand instead of a dataclass::

    class Gaussian:
        def __init__(self, mu, sigma):
            self.mu = mu
            self.sigma = sigma

        def logpdf(self, x):
            return -0.5 * ((x - self.mu) / self.sigma) ** 2 - np.log(self.sigma)

is followed like a dataclass (:mod:`.lower_records`: ``g = Gaussian(mu, s)`` makes each field a
local of its own, ``g.logpdf(x)`` calls the copy of the method taking the fields) when
:func:`describe` proves what its ``__init__`` does: it only sets attributes of ``self``, the
same ones on every path, from its parameters, locals and the attributes set before. Its
*fields* are those attributes, in the order the source first sets them.

* A *direct* class (:func:`direct_fields`): ``__init__(self, a, b=0.5)`` whose body is
  ``self.a = a; self.b = b`` (each parameter, in order, sets the attribute of its name; the
  defaults constants) is built exactly as a dataclass with those fields:
  :func:`srcad.frontend.built_records.record_fields` gives them, so it is also read where it
  is built as an argument (``predict(Lin(w, b), x)``) and held in a record built here.
* Any other such class is built by a copy of its ``__init__`` (:mod:`.plain_inits`) that returns
  the fields: ``g = Gaussian(mu, s)`` becomes ``g_mu, g_sigma = Gaussian_fields(mu, s)``, where
  ``Gaussian_fields`` is ``__init__`` with ``self.mu`` read and written as the local
  ``self_mu`` (keywords, defaults and ``*args`` bind as Python binds them for ``__init__``);
  ``super().__init__(...)`` (or ``Base.__init__(self, ...)``) is ``self_a, self_b =
  Base_fields(...)``, the copy of the next ``__init__`` of the class's MRO, whose fields
  come first. The copy is a function of the user's, differentiated as any (both modes, any
  order).

:func:`describe` refuses (a :class:`Refused`, the message for the construction's line:
file, line and construct of ``__init__``, and a rewrite) a class with a metaclass, a base
that is built in or a C class (``np.ndarray``, ``dict``) or a library's, ``__slots__``,
``__new__``, ``__setattr__``, ``__getattr__``, ``__getattribute__``, ``__delattr__``,
``__del__``, a descriptor other than a function, ``property``, ``staticmethod`` and
``classmethod``; an ``__init__`` without Python source, calling a method of ``self`` or
passing ``self`` on, reading an attribute before it is set or one of the class's, setting an
attribute on some paths only or first in a loop, a field named like a property, writing
into an attribute (``self.w[0] = v``, ``self.xs.append(v)``), ``return`` before its end,
``try``/``with``/nested functions using ``self``.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`srcad.errors` and :mod:`.source`.
"""

from __future__ import annotations

import abc
import linecache
import threading
import types
import weakref
from dataclasses import dataclass

import gast

from ..core import env, functions
from ..core.walk import walk_nodes
from ..errors import MissingRuleError, SrcadError
from . import source as source_module

_LOCK = threading.RLock()
_KNOWN = weakref.WeakKeyDictionary()  # cls -> {(owner, code, attributes): (Plain or Refused,
#                                        the reads describing it made)}
_HOOKS = frozenset({"__slots__", "__new__", "__setattr__", "__getattr__", "__getattribute__",
                    "__delattr__", "__del__"})
_PLAIN_ATTRS = frozenset({"__dict__", "__weakref__", "__module__", "__qualname__", "__doc__",
                          "__firstlineno__", "__static_attributes__", "__annotations__",
                          "__init__", "__hash__", "__abstractmethods__", "_abc_impl"})
_CONSTANTS = (int, float, bool, str, type(None))


@dataclass(frozen=True)
class Plain:
    """A class :mod:`.lower_records` follows: its ``fields`` (in order), whether it is
    ``direct`` (built as a dataclass with those fields, ``defaults`` the constant defaults),
    the ``owner`` class whose ``__init__`` runs and the ``__init__`` function (None: object's)."""

    cls: type
    fields: tuple
    direct: bool
    defaults: dict
    owner: type
    init: object
    #: the *list fields* (:func:`list_fields`): ``((attribute, item class, ((item field,
    #: field of this class), ...)), ...)``; each attribute's place in ``fields`` is taken by
    #: one field per item field (``layers`` -> ``layers__W``, ``layers__b``)
    lists: tuple = ()
    functions: tuple = ()  #: the *function fields* (:mod:`.function_fields`)
    #: the functions the items of a list or object field hold, the same in each (not
    #: columns, :mod:`.plain_lists`): ``((attribute, ((item field, function), ...)), ...)``
    item_functions: tuple = ()


@dataclass(frozen=True)
class Refused:
    """Why objects of a class are not followed, where (``__init__``'s or the class's file and
    line), and the rewrite."""

    what: str
    hint: str
    filename: str | None = None
    lineno: int | None = None
    construct: str | None = None

    def error(self, name, cls):
        """The refusal of ``cls`` built at a line of the function (``name`` as written)."""
        return MissingRuleError(
            f"an object of your class {name} built from differentiated values, a class srcad "
            f"does not follow: {self.what}", filename=self.filename, lineno=self.lineno,
            construct=self.construct, hint=self.hint)


def user_class(cls):
    """Whether ``cls`` is a class of the user's with an ``__init__`` of the user's (what
    :func:`describe` is asked about)."""
    return isinstance(cls, type) and functions.is_user_function(getattr(cls, "__init__", None))


def describe(cls, owner=None):
    """:class:`Plain` when objects of ``cls`` can be followed (``owner``: the class whose
    ``__init__`` is described, a base of ``cls``, for ``super().__init__``), else a
    :class:`Refused`, or None when ``cls`` is not a class of the user's at all."""
    if not isinstance(cls, type):
        return None
    owner = owner or _init_owner(cls, 0)
    init = vars(owner).get("__init__") if owner is not None else None
    key = (owner, getattr(init, "__code__", None), _fingerprint(cls))
    with _LOCK:
        known = _KNOWN.setdefault(cls, {})
        if key in known and env.stale(known[key][1]):
            del known[key]  # a class or function it named is another now
        if key not in known:
            with env.collecting() as reads:
                try:
                    found = _describe(cls, owner, init)
                except SrcadError as exc:  # no source
                    found = Refused(f"its __init__ cannot be read ({exc.args[0]})",
                                    "make it a dataclass", *_where(cls))
            known[key] = (found, tuple(reads.values()))
        env.record_all(known[key][1])  # (read again by the code made with it)
        return known[key][0]


def _fingerprint(cls):
    """What describing ``cls`` read of its classes: their attributes (a hook or a method
    added later describes it again)."""
    return tuple((k, id(v)) for klass in cls.__mro__[:-1] for k, v in vars(klass).items())


def direct_fields(cls):
    """``(fields, defaults, False)`` of a direct class (see above), else None."""
    found = describe(cls)
    if isinstance(found, Plain) and found.direct:
        return found.fields, dict(found.defaults), False
    return None


#: functions of a run :class:`_Init` giving more of what :class:`Plain` holds (``lists``,
#: ``functions``, ``item_functions``: :mod:`.plain_lists` adds the one finding them)
EXTRAS = []

#: classes given srcad.register_pytree (srcad.pytrees adds them): their objects may come from
#: outside, holding attributes of their own besides their fields
REGISTERED = weakref.WeakSet()


def class_constant(cls, attr):
    """Whether ``self.attr`` in a method of a record of ``cls`` is the class's attribute
    ``attr`` read through the class: ``cls`` a plain class followed here (its objects hold
    exactly the fields its ``__init__`` sets: none of them is ``attr``), not a dataclass, a
    named tuple or a registered class (whose objects may come from outside), and ``attr`` a
    value on the class, not a function or another descriptor (which an object binds)."""
    if cls in REGISTERED or issubclass(cls, tuple) or hasattr(cls, "__dataclass_fields__"):
        return False
    found = describe(cls)
    if not isinstance(found, Plain) or attr in found.fields:
        return False
    try:
        import inspect

        value = inspect.getattr_static(cls, attr)
    except AttributeError:
        return False
    return not hasattr(type(value), "__get__") and not isinstance(value, type)


def fields_of(cls):
    """The fields of a class :func:`describe` follows, else None."""
    found = describe(cls)
    return found.fields if isinstance(found, Plain) else None


def list_fields(cls, kinds=False):
    """``{attribute: (item class, ((item field, field), ...))}`` of the list fields of a
    class :func:`describe` follows (see :mod:`.plain_lists`), else ``{}``; with ``kinds``
    the object fields too, each value ending with its kind (``"list"``, ``"one"``)."""
    found = describe(cls) if isinstance(cls, type) else None
    if not isinstance(found, Plain):
        return {}
    return {name: (item, subs, kind) if kinds else (item, subs)
            for name, item, subs, kind in found.lists if kinds or kind == "list"}


def _init_owner(cls, start):
    """The class of ``cls.__mro__[start:]`` defining ``__init__``."""
    for klass in cls.__mro__[start:]:
        if "__init__" in vars(klass):
            return klass
    return object


def _where(cls, node=None, src=None):
    """``(file, line, text)`` of ``node`` in ``src``, else of the ``class`` statement of
    ``cls`` (found above its first function's code)."""
    if src is not None and node is not None:
        line = getattr(node, "lineno", None)
        return src.filename, line, src.line_text(line)
    codes = [getattr(getattr(v, "__func__", getattr(v, "fget", getattr(
        v, "__wrapped__", v))), "__code__", None) for v in vars(cls).values()]
    codes = [c for c in codes if c is not None]
    if codes:
        first = min(codes, key=lambda c: c.co_firstlineno)
        for line in range(first.co_firstlineno, 0, -1):
            text = linecache.getline(first.co_filename, line).strip()
            if text.startswith(f"class {cls.__name__}") and \
                    not text[len(cls.__name__) + 6:][:1].isidentifier():
                return first.co_filename, line, text
    return None, None, f"class {cls.__name__}"


def _describe(cls, owner, init):
    home = (getattr(cls, "__module__", "") or "").split(".")[0]
    if functions._not_users(home):
        return None
    if type(cls) not in (type, abc.ABCMeta):
        return Refused(f"its metaclass {type(cls).__name__} may change how objects are built",
                       "drop the metaclass, or make the class a dataclass", *_where(cls))
    for klass in cls.__mro__[:-1]:
        if not klass.__flags__ & (1 << 9) or functions._not_users(
                (klass.__module__ or "").split(".")[0]) and klass is not abc.ABC:
            return Refused(f"it inherits from {klass.__name__}, a built-in, C or library class "
                           "whose objects srcad cannot read field by field",
                           f"hold the {klass.__name__} in an attribute (self.data = ...) "
                           "instead of inheriting from it, or pass the values to a function "
                           "of yours", *_where(cls))
        for name, value in vars(klass).items():
            if name in _HOOKS:
                return Refused(f"{klass.__name__} defines {name}, which changes how its "
                               "attributes are stored or read",
                               f"remove {name}, or make {cls.__name__} a dataclass",
                               *_where(klass))
            code = getattr(getattr(value, "fget", getattr(value, "__func__", value)),
                           "__code__", None)
            if name != "__init__" and code is not None and (
                    "__class__" in code.co_freevars or "super" in code.co_names):
                return Refused(f"{klass.__name__}.{name} calls super() (or reads __class__), "
                               "which the copy of a method taking the fields has no object for",
                               f"call the base class's function with the object, "
                               f"{_next_defining(cls, klass, name)}.{name}(self, ...), "
                               f"instead of super().{name}(...)",
                               *_where(klass))
            if name in _PLAIN_ATTRS or isinstance(value, (
                    types.FunctionType, property, staticmethod, classmethod, type)):
                continue
            if hasattr(type(value), "__get__"):
                return Refused(f"{klass.__name__}.{name} is a descriptor "
                               f"({type(value).__name__}) other than a property",
                               "make it a property or a method", *_where(klass))
    if init is None or owner is object:
        return Plain(cls, (), True, {}, object, None)
    if not functions.is_user_function(init) or hasattr(init, "__wrapped__"):
        return Refused(f"{owner.__name__}.__init__ is not a plain Python function of yours "
                       "(a decorated one runs its wrapper)", f"make {cls.__name__} a "
                       "dataclass, or drop the decorator", *_where(owner))
    src = source_module.read(init)
    return _Init(cls, owner, src).run()


def _next_defining(cls, klass, name):
    """The name of the class after ``klass`` in ``cls``'s MRO defining ``name``."""
    mro = cls.__mro__
    after = mro[mro.index(klass) + 1:]
    return next((b.__name__ for b in after if name in vars(b)), "Base")


class _Init:
    """What an ``__init__`` sets on ``self`` (see :func:`describe`)."""

    def __init__(self, cls, owner, src):
        self.cls, self.owner, self.src = cls, owner, src
        self.fields, self.parents, self.class_reads = [], [], set()
        args = src.node.args
        params = args.posonlyargs + args.args
        self.self_name = params[0].id if params else None

    def refuse(self, node, what, hint):
        return Refused(f"its __init__ {what}", hint, *_where(self.cls, node, self.src))

    def run(self):
        node, args = self.src.node, self.src.node.args
        if self.self_name is None:
            return self.refuse(node, "takes no self", "give __init__ the parameter self")
        try:
            must = self.block(node.body, frozenset(), top=True)
        except _Stop as stop:
            return stop.refused
        if must is not None and set(self.fields) - must:
            missing = sorted(set(self.fields) - must)[0]
            return self.refuse(node, f"sets self.{missing} on some paths only",
                               f"set self.{missing} on every path (self.{missing} = None "
                               "first, or in each branch)")
        for name in self.fields:
            if name in self.class_reads:
                return self.refuse(node, f"reads self.{name} as the class's before it sets it",
                                   f"read {self.cls.__name__}.{name} where the class's value "
                                   "is meant, and give the attribute another name")
            if any(isinstance(vars(klass).get(name), property) for klass in self.cls.__mro__):
                return self.refuse(node, f"sets self.{name}, a property of the class",
                                   "give the attribute another name than the property")
        positional = args.posonlyargs + args.args
        direct = (not args.posonlyargs and not args.kwonlyargs and args.vararg is None and
                  args.kwarg is None and not self.parents and
                  [p.id for p in positional[1:]] == self.fields and
                  _direct_body(node.body, self.self_name, self.fields) and
                  all(isinstance(d, gast.Constant) and isinstance(d.value, _CONSTANTS)
                      for d in args.defaults))
        defaults = {}
        if direct:
            names = [p.id for p in positional[1:]]
            values = [d.value for d in args.defaults]
            defaults = dict(zip(names[len(names) - len(values):], values))
        extra = {}
        if not direct:
            for find in EXTRAS:  # (plain_lists: list, object and function fields)
                extra.update(find(self))
        lists = extra.get("lists", ())
        held_functions, item_functions = extra.get("functions", ()), extra.get(
            "item_functions", ())
        columns = {}  # an attribute -> its columns (a dict's: each key's object's)
        for name, _, subs, kind in lists:
            columns.setdefault(kind[1] if isinstance(kind, tuple) else name, []).extend(
                e for _, e in subs)
        fields = tuple(c for f in self.fields for c in columns.get(f, [f]))
        for _, parent in self.parents:  # a base's list fields (its copy takes them apart)
            lists, item_functions = lists + parent.lists, item_functions + \
                parent.item_functions
        return Plain(self.cls, fields, direct, defaults, self.owner,
                     vars(self.owner)["__init__"], lists, held_functions, item_functions)

    # ----------------------------------------------------------------- statements

    def block(self, body, must, top=False):
        """The attributes set on every path through ``body`` (None: it does not fall
        through, it raises)."""
        for k, stmt in enumerate(body):
            if must is None:
                return None
            must = self.stmt(stmt, must, top and k == len(body) - 1)
        return must

    def stmt(self, stmt, must, last):
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
            return must
        if isinstance(stmt, gast.Expr) and self.parent_init(stmt.value) is not None:
            return self.super_init(stmt, must)
        if isinstance(stmt, (gast.Assign, gast.AnnAssign, gast.AugAssign)):
            if isinstance(stmt, gast.AnnAssign) and stmt.value is None:
                raise _Stop(self.refuse(stmt, "annotates an attribute without a value",
                                        "give it a value"))
            self.reads(stmt.value, must)
            if isinstance(stmt, gast.AugAssign):
                self.reads(stmt.target, must)
                return must
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            for target in targets:
                must = self.target(target, must)
            return must
        if isinstance(stmt, gast.If):
            self.reads(stmt.test, must)
            body = self.block(stmt.body, must)
            orelse = self.block(stmt.orelse, must)
            if body is None or orelse is None:
                return orelse if body is None else body
            return body & orelse
        if isinstance(stmt, (gast.For, gast.While)):
            self.reads(stmt.iter if isinstance(stmt, gast.For) else stmt.test, must)
            if isinstance(stmt, gast.For):
                self.target(stmt.target, must)
            before = list(self.fields)
            self.block(stmt.body + stmt.orelse, must)
            new = [f for f in self.fields if f not in must]
            if new or self.fields != before:
                name = (new or self.fields[len(before):])[0]
                raise _Stop(self.refuse(stmt, f"sets self.{name} first in a loop, so srcad "
                                        "cannot tell which attributes an object has",
                                        f"set self.{name} before the loop (self.{name} = 0.0) "
                                        "and update it in the loop"))
            return must
        if isinstance(stmt, (gast.Pass, gast.Break, gast.Continue)):
            return must
        if isinstance(stmt, gast.Raise):
            self.reads(stmt, must)
            return None
        if isinstance(stmt, gast.Assert):
            self.reads(stmt, must)
            return must
        if isinstance(stmt, gast.Return) and stmt.value is None and last:
            return must
        if isinstance(stmt, gast.Expr):
            self.reads(stmt.value, must)
            return must
        raise _Stop(self.refuse(stmt, f"has a {type(stmt).__name__.lower()} statement srcad "
                                "does not follow in an __init__ it reads field by field",
                                "keep __init__ to assignments of self's attributes (compute "
                                "the values in a function of yours), or make the class a "
                                "dataclass"))

    def target(self, target, must):
        if isinstance(target, (gast.Tuple, gast.List)):
            for elt in target.elts:
                must = self.target(elt, must)
            return must
        if isinstance(target, gast.Starred):
            return self.target(target.value, must)
        if isinstance(target, gast.Name):
            if target.id == self.self_name:
                raise _Stop(self.refuse(target, f"assigns {self.self_name}",
                                        "use another name for the local"))
            return must
        if isinstance(target, gast.Attribute) and isinstance(target.value, gast.Name) and \
                target.value.id == self.self_name:
            if target.attr not in self.fields:
                self.fields.append(target.attr)
            return must | {target.attr}
        self.reads(target, must)  # self.w[0] = v: self.w read, then written into
        raise _Stop(self.refuse(target, "writes into a value (an item or an attribute of "
                                "something), which srcad does not follow here",
                                "build the value in a local and assign it whole "
                                "(self.w = np.concatenate(...))"))

    def super_init(self, stmt, must):
        call = stmt.value
        owner, args = self.parent_init(call)
        parent = describe(self.cls, owner)
        if isinstance(parent, Refused):
            raise _Stop(parent)
        self.reads(gast.Tuple(elts=args + [k.value for k in call.keywords],
                              ctx=gast.Load()), must)
        if parent.owner is object and (args or call.keywords):
            raise _Stop(self.refuse(stmt, "passes arguments to object.__init__",
                                    "call super().__init__() without arguments"))
        self.parents.append((stmt, parent))
        for name in parent.fields:
            if name not in self.fields:
                self.fields.append(name)
        return must | set(parent.fields)

    def parent_init(self, call):
        """``(owner, arguments)`` when ``call`` is ``super().__init__(...)`` (``super(C,
        self)`` too) or ``Base.__init__(self, ...)``, ``Base`` a base of the class, else None."""
        func = getattr(call, "func", None)
        if not (isinstance(call, gast.Call) and isinstance(func, gast.Attribute) and
                func.attr == "__init__"):
            return None
        base = func.value
        mro = self.cls.__mro__
        if isinstance(base, gast.Call) and isinstance(base.func, gast.Name) and \
                base.func.id == "super" and not base.keywords:
            if base.args:
                if len(base.args) != 2 or not (isinstance(base.args[1], gast.Name) and
                                               base.args[1].id == self.self_name):
                    return None
                start = self.lookup(base.args[0])
            else:
                start = self.owner
            if start not in mro:
                return None
            return _init_owner(self.cls, mro.index(start) + 1), list(call.args)
        klass = self.lookup(base)
        if klass in mro and call.args and isinstance(call.args[0], gast.Name) and \
                call.args[0].id == self.self_name and _init_owner(
                    self.cls, mro.index(klass)) is _init_owner(klass, 0):
            return _init_owner(klass, 0), list(call.args[1:])
        return None

    def class_value(self, attr):
        """Whether ``self.attr`` (not set on ``self`` before) is the class's value ``attr``,
        read through the object's class (a cell of the copy of ``__init__``): a value, not a
        function or another descriptor, of a class whose objects come from ``__init__`` only
        (not a registered class)."""
        import inspect

        cls = self.cls
        try:
            value = inspect.getattr_static(cls, attr)
        except AttributeError:
            return False
        return cls not in REGISTERED and not hasattr(type(value), "__get__") and \
            not isinstance(value, type)

    def lookup(self, node):
        """The class a name or dotted name of ``__init__`` refers to, else None."""
        path = []
        while isinstance(node, gast.Attribute):
            path.insert(0, node.attr)
            node = node.value
        if not isinstance(node, gast.Name):
            return None
        try:
            return self.src.lookup(node.id, tuple(path))
        except (KeyError, AttributeError):
            return None

    # ----------------------------------------------------------------- expressions

    def reads(self, node, must):
        """Every use of ``self`` in ``node`` reads an attribute already set."""
        if node is None:
            return
        for sub in walk_nodes(node):
            if isinstance(sub, (gast.FunctionDef, gast.Lambda, gast.ClassDef)) and any(
                    isinstance(n, gast.Name) and n.id == self.self_name for n in walk_nodes(sub)):
                raise _Stop(self.refuse(sub, "uses self in a nested function",
                                        "compute the value with the attributes as arguments"))
            if isinstance(sub, gast.Call) and isinstance(sub.func, gast.Name) and \
                    sub.func.id == "super":
                raise _Stop(self.refuse(sub, "uses super() other than to call "
                                        "super().__init__(...) as a statement",
                                        "call super().__init__(...) on a line of its own"))
        parents = {child: sub for sub in walk_nodes(node)
                   for child in gast.iter_child_nodes(sub)}
        for sub in walk_nodes(node):
            if not (isinstance(sub, gast.Name) and sub.id == self.self_name):
                continue
            attr = parents.get(sub)
            if not (isinstance(attr, gast.Attribute) and attr.value is sub):
                raise _Stop(self.refuse(sub, "uses self whole (passes it on, returns it, "
                                        "compares it)", "pass the attributes the function "
                                        "needs, not self"))
            if attr.attr in must:
                continue
            if attr.attr in self.fields or not hasattr(self.cls, attr.attr):
                raise _Stop(self.refuse(sub, f"reads self.{attr.attr} where it may not be "
                                        "set yet", f"set self.{attr.attr} before reading it"))
            call = parents.get(attr)
            if not (isinstance(call, gast.Call) and call.func is attr) and \
                    self.class_value(attr.attr):
                self.class_reads.add(attr.attr)  # self.K: read as Model.K
                continue
            what = "calls the method" if isinstance(call, gast.Call) and call.func is attr \
                else "reads the class attribute"
            raise _Stop(self.refuse(sub, f"{what} self.{attr.attr}: srcad reads __init__ "
                                    "as a function of its parameters setting attributes",
                                    f"compute the value with a function of yours (or read "
                                    f"{self.cls.__name__}.{attr.attr} through the class)"))


class _Stop(Exception):
    def __init__(self, refused):
        super().__init__(refused.what)
        self.refused = refused


def _direct_body(body, self_name, fields):
    """Whether ``body`` is ``self.f = f`` for each of ``fields`` in order (a docstring
    first)."""
    stmts = [s for s in body if not (isinstance(s, gast.Expr) and isinstance(
        s.value, gast.Constant))]
    return len(stmts) == len(fields) and all(
        isinstance(s, gast.Assign) and len(s.targets) == 1 and
        isinstance(s.targets[0], gast.Attribute) and
        isinstance(s.targets[0].value, gast.Name) and s.targets[0].value.id == self_name and
        s.targets[0].attr == f and isinstance(s.value, gast.Name) and s.value.id == f
        for s, f in zip(stmts, fields))


def clear():
    """Forget every description (srcad.clear_cache)."""
    with _LOCK:
        _KNOWN.clear()
