"""Objects held in an object's attributes: ``self._problem.evaluate(x)``, ``self.layers[0](x)``.

srcad resolves ``obj.method(...)`` when it knows the object's class where it makes the code
(an argument, whose type is part of the specialisation; the object of a bound method; a
global; an object built in the function). Inference packages and networks hold their parts
in attributes (``self._problem = problem``, ``self.layers = [Layer(...), ...]``), read live
when the code runs. For such an object, :func:`instance_of` records, besides its class and
the functions it holds (:func:`held_functions`), the classes of the user objects it holds
in attributes of its own, and of the items of a list or tuple attribute all of whose items
are user objects of one class (:class:`srcad.core.functions.Items`; a dict attribute's values
too: ``self.parts["enc"]``, ``self.parts.values()``), to a few levels
(:data:`DEPTH`). The specialisation is made for them (they are part of the
:class:`srcad.core.functions.Instance` a callee is specialised on, and of an argument's cache
key), so the lowering knows the class of ``self._problem`` (:func:`note`) and calls
``Problem.evaluate`` with the object first, like ``self.method(...)``; the attribute itself
is read when the code runs, and :func:`check_class` checks there, before each use that relied
on its class (a method, a property, passing it to a function of yours), that it still holds
an object of exactly that class (``SrcadError`` at the line otherwise, never a wrong
gradient). :func:`class_of` gives ``type(obj)``/``obj.__class__`` of such objects (and of
the others whose class the lowering knows) as a constant.

Imports the standard library, :mod:`srcad.core`, :mod:`srcad.errors`,
:mod:`srcad.rules.registry`, :mod:`srcad.runtime.containers`, :mod:`srcad.runtime.spread_calls`
(it hands it :func:`known_object`) and :mod:`.iterators_passed`.
"""

from __future__ import annotations

import operator

from ..core import functions, ir
from ..core.ir import Const, Var
from ..core.kinds import foreign_array
from ..errors import SrcadError
from ..rules.registry import registry as _registry
from ..runtime import containers, spread_calls
from .iterators_passed import fixed_function, is_instance

#: how many levels of attributes down an object's parts are recorded
DEPTH = 3
#: at most this many attributes (and items of a list attribute) are looked at
MOST = 64


def held_functions(obj):
    """The functions ``obj`` holds in attributes of its own (``self.transform = f`` in
    ``__init__``), as sorted ``(name, function)`` pairs: the code is made for them."""
    own = getattr(obj, "__dict__", None)
    if not isinstance(own, dict):
        return ()
    return tuple(sorted(((k, functions.HeldList(v) if type(v) is list else v)
                         for k, v in own.items() if type(k) is str and (
                             fixed_function(v) and not is_instance(v) or _function_list(v))),
                        key=lambda kv: kv[0]))[:16]


def _function_list(value):
    """Whether ``value`` is a list of functions (``self.acts = [np.tanh, relu]``)."""
    return type(value) is list and 0 < len(value) <= MOST and all(
        fixed_function(v) and not is_instance(v) for v in value)


def instance_of(obj, depth=DEPTH, seen=()):
    """The :class:`~srcad.core.functions.Instance` an object of the user's class is, for a
    specialisation: its class, the functions it holds and the objects it holds
    (:func:`held_objects`)."""
    return functions.Instance(type(obj), held_functions(obj), held_objects(obj, depth, seen))


def _user_object(value):
    return functions.user_instance_class(value) is not None and not foreign_array(value) \
        and not isinstance(value, type)


def held_objects(obj, depth=DEPTH, seen=()):
    """The user objects ``obj`` holds in attributes of its own, as sorted ``(name, part)``
    pairs: an :class:`~srcad.core.functions.Instance` for an object, an
    :class:`~srcad.core.functions.Items` for a list or tuple of objects that are all alike
    (one class, the same parts). Nothing past ``depth`` levels, nor an object met above
    (``seen``: a parent link)."""
    own = getattr(obj, "__dict__", None)
    if depth <= 0 or not isinstance(own, dict) or len(own) > MOST:
        return ()
    seen = seen + (id(obj),)
    parts = []
    for name, value in own.items():
        if type(name) is not str or id(value) in seen:
            continue
        if _user_object(value):
            parts.append((name, instance_of(value, depth - 1, seen)))
        elif (items := items_of(value, depth, seen)) is not None:
            parts.append((name, items))
    return tuple(sorted(parts, key=lambda pair: pair[0]))


def items_of(value, depth=DEPTH + 1, seen=()):
    """An :class:`~srcad.core.functions.Items` for a list, tuple or dict all of whose items
    (a dict's values) are objects of the user's, alike (one class, the same parts; each to
    ``depth - 1`` levels), else None."""
    if not (type(value) in (list, tuple, dict) and 0 < len(value) <= MOST and all(
            _user_object(v) and id(v) not in seen for v in _items(value))):
        return None
    kinds = {instance_of(v, depth - 1, seen) for v in _items(value)}
    return functions.Items(type(value), kinds.pop()) if len(kinds) == 1 else None


def known_object(value):
    """What a specialisation keeps of a value given for a parameter whose methods the code
    may call: an :class:`~srcad.core.functions.Instance` for an object of the user's class,
    an :class:`~srcad.core.functions.Items` for a list, tuple or dict of such objects all
    alike (``layers[i].apply(x)``, ``for layer in layers``), else None."""
    if functions.user_instance_class(value) is not None and not foreign_array(value):
        return instance_of(value)
    return items_of(value)


spread_calls.KNOWN_OBJECTS[:] = [known_object]  # f(*xs) of objects: made for their classes


spread_calls.KNOWN_OBJECTS[:] = [known_object]  # f(data, *xs): made for data's class


def known_name(lowerer, atom):
    """The same for a name of the code being lowered whose class (or whose items' class) the
    lowering knows (:func:`note`), passed on to a callee; else None."""
    if not isinstance(atom, Var):
        return None
    name = atom.name
    if name in lowerer.classes:
        return functions.Instance(
            lowerer.classes[name], tuple(sorted(lowerer.held.get(name, {}).items())),
            tuple(sorted(lowerer.parts.get(name, {}).items(), key=lambda kv: kv[0])))
    if name in lowerer.item_parts:
        return functions.Items(list, lowerer.item_parts[name])
    return None


def cache_parts(value):
    """What of ``value`` (an argument) the cache key holds for the objects it holds as a
    list, tuple or dict of objects of the user's all alike: ``(Items,)``, else ()."""
    items = items_of(value)
    return (items,) if items is not None else ()


def parts_key(obj):
    """What of ``obj`` (an argument) the cache key holds for its parts: ``(parts,)`` for an
    object of the user's class holding objects (:func:`held_objects`), else ``()``."""
    if functions.user_instance_class(obj) is None:
        return ()
    parts = held_objects(obj)
    return (parts,) if parts else ()


def _items(container):
    return container.values() if type(container) is dict else container


def check_class(value, cls, where):
    """Raise unless ``value`` is an object of exactly ``cls``: srcad made the code at
    ``where`` (the value as written, file, line, its text) for an object of that class
    held in an attribute when the code was made."""
    if type(value) is cls:
        return
    origin, filename, lineno, text = where
    raise SrcadError(
        f"{origin} holds a {type(value).__name__} when the code runs; srcad made this code "
        f"for the {cls.__name__} it held when the derivative was made (its methods were read "
        "then)", filename=filename, lineno=lineno, construct=text,
        hint="pass the object (or the part) as an argument of the function you differentiate "
        "(an argument's parts are part of the specialisation: new code is made for new "
        "classes), or call srcad.clear_cache() after changing the object's parts (a part "
        "in an attribute of a global's or a bound method's object is followed by itself; "
        "one in a list or dict attribute is not)")


_registry.nondiff.add(check_class)  # a check: no derivative


def note(lowerer, name, value):
    """``name = value``: when ``value`` reads an attribute (or an item of a list attribute)
    whose object's class the specialisation knows, ``name`` is known to be of that class
    (checked where that is relied on: :func:`check`)."""
    fn, args = value.fn, value.args
    if args and isinstance(args[0], Const):  # layers[i] of a global list of objects
        items = items_of(args[0].value) if fn in _ITEM_READS else None
        spelled = getattr(args[0], "spelling", None)
        if items is None or not isinstance(spelled, str):
            return
        part, origin = items.of, f"{spelled}[...]"
        if fn is not operator.getitem or isinstance(args[1], ir.Slice):
            part = functions.Items(list, part)  # layers[1:], tuple(layers), d.values()
    elif type(getattr(fn, "__self__", None)) is dict and fn.__name__ == "values" and not args:
        items = items_of(fn.__self__)  # MODELS.values() of a global dict of objects
        if items is None:
            return
        part, origin = functions.Items(list, items.of), "values()"
    elif not args or not isinstance(args[0], Var):
        return
    else:
        base = args[0].name
        origin = lowerer.part_origins.get(base, base)
        if isinstance(fn, ir.Attr):
            part = lowerer.parts.get(base, {}).get(fn.name)
            origin = f"{origin}.{fn.name}"
        elif fn is operator.getitem and base in lowerer.item_parts:
            part = lowerer.item_parts[base]
            if isinstance(args[1], ir.Slice):  # self.layers[1:]: a list of the same items
                part = functions.Items(list, part)
            origin = f"{origin}[...]"
        elif fn in (list, tuple) and len(args) == 1 and base in lowerer.item_parts:
            part = functions.Items(fn, lowerer.item_parts[base])  # tuple(layers): the same
        elif fn is containers.dict_values and base in lowerer.item_parts:
            part = functions.Items(list, lowerer.item_parts[base])  # self.parts.values()
            origin = f"{origin}.values()"
        else:
            return
    if isinstance(part, functions.Instance):
        lowerer.classes[name] = part.cls
        lowerer.held[name] = dict(part.held)
        lowerer.parts[name] = dict(part.parts)
        lowerer.checked_classes[name] = part.cls
    elif isinstance(part, functions.Items):
        lowerer.item_parts[name] = part.of
    else:
        return
    lowerer.part_origins[name] = origin


#: the reads of a global list of objects whose items' class :func:`note` knows
_ITEM_READS = (operator.getitem, list, tuple, containers.dict_values)


def check(lowerer, atom, node):
    """Before a use of ``atom`` that relies on its class: when that class was read from an
    attribute (:func:`note`), the run-time check that the object is still of it."""
    if not isinstance(atom, Var) or atom.name not in lowerer.checked_classes:
        return
    done = lowerer.classes_checked
    if (atom.name, id(node)) in done:
        return  # checked for this call already (its method, then passing it on)
    done.add((atom.name, id(node)))
    cls = lowerer.checked_classes[atom.name]
    line = getattr(node, "lineno", None)
    where = (lowerer.part_origins[atom.name], lowerer.source.filename, line,
             lowerer.source.line_text(line))
    prim = ir.Prim(check_class, [atom, Const(cls, lowerer.bound_name(cls, cls.__name__)),
                                 lowerer.bound_const(where, "where")],
                   spelling=lowerer.bound_name(check_class, "check_class"))
    lowerer.emit(ir.Assign(None, prim, line, effect=True))


def class_of(lw, obj, node):
    """``type(obj)``, ``obj.__class__`` for an object whose class is known where the code is
    made (the bound method's ``self``, an object built here, a part held in an attribute,
    checked as for its methods): that class, a constant; else None."""
    if not (isinstance(obj, Var) and obj.name in lw.classes):
        return None
    check(lw, obj, node)
    cls = lw.classes[obj.name]
    return Const(cls, lw.bound_name(cls, cls.__name__))


def type_call(lw, fn, args, kwargs, node):
    """``type(obj)`` of such an object: its class (:func:`class_of`); else None."""
    if fn is type and len(args) == 1 and not kwargs:
        return class_of(lw, args[0], node)
    return None


def note_parts(src, atom, instance, path=()):
    """Record, for an object named by a global or closure value (``atom``, a Const: the
    bound method's object, a module-level model), a read of the class of each object it holds
    in an attribute (to the depth ``instance`` has), so that one given another class
    (``o.inner = Other()``) makes the code again instead of failing its run-time check."""
    spelled = getattr(atom, "spelling", None)
    if not (isinstance(atom, Const) and isinstance(spelled, str) and spelled.isidentifier()
            and isinstance(instance, functions.Instance)):
        return  # (a list of objects: each use of an item checks its class)
    for name, part in instance.parts:
        if isinstance(part, functions.Instance):
            try:
                src.lookup(spelled, path + (name, "__class__"))
            except (KeyError, AttributeError):
                return
            note_parts(src, atom, part, path + (name,))
