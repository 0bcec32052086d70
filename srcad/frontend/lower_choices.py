"""Lowering calls of functions taken from a container: ``for f in funs: f(x)``.

A mixin of :class:`srcad.frontend.lower.Lowerer` (see there for the state it shares). A
value read out of a container whose contents are known while lowering has *candidates*:
the atoms it may be. The containers known are constants (a global, a closure cell, a
default, a tuple held in one: ``funs``, ``OPS``) and displays written in the function
(``(np.sin, g)``, ``[lambda z: z * 2, h]``, ``{"a": np.sin}``); a read from a candidate
reads the candidates' items in turn (``for act, W in LAYERS``, ``OPS.items()``).

A call of a value all of whose candidates are functions is lowered as a choice among them
(:meth:`srcad.frontend.lower_callees.FunctionValues.call_choice`): ``if f is np.sin:
np.sin(x) elif ...``, each arm a call srcad differentiates as the concrete function, the
branch taken recorded as any ``if``'s is. Before the choice the generated code checks that
the value is one of the candidates (:func:`check_choice`): a list or dict changed in place
after the code was made holds a function the code was not made for, and the call fails
with an error instead of calling a wrong one. A value whose candidates are not known, read
from a container made outside this code (a parameter, what a function of yours returned), is
called through :func:`srcad.runtime.derivatives.call_value`, which takes the derivative of the
function it meets when the call runs; read from a container built here (which may hold lambdas
srcad made of the function's own), calling it is refused.

Imports: the standard library, :mod:`srcad.core`, :mod:`srcad.errors`, :mod:`srcad.rules`
(the registry's piecewise-constant table) and :mod:`srcad.runtime` (the dict views).
"""

from __future__ import annotations

import inspect
import operator

import gast

from ..core import functions, ir
from ..core.ir import Const, Var
from ..errors import SrcadError
from ..rules.registry import registry as _registry
from ..runtime import containers, derivatives
from .held_objects import check as check_part
from .lower_spread import Atom

#: at most this many candidates are followed (a choice is an ``if`` per candidate)
LIMIT = 64

_VIEWS = (containers.dict_keys, containers.dict_values, containers.dict_items)


def check_choice(value, *options, where=None):
    """Raise unless ``value`` is one of ``options``: the functions srcad made the code of a
    call for, when it read them from a container that may have changed since. ``where``:
    ``(file, line, text)`` of the call, for the error."""
    for option in options:
        if value is option:
            return
    raise _stale(
        where, f"srcad made this code for a call of one of {len(options)} functions read "
        f"from a container ({', '.join(_name(o) for o in options)}), and this call finds "
        f"{_name(value)}: the list or dict was changed after the code was made",
        "keep the functions in a tuple (rebind the global to a new tuple to change "
        "them), or call srcad.clear_cache() after changing the container")


def check_partial(fn, state, where=None):
    """Raise unless the ``functools.partial`` ``fn`` still fixes the function and arguments
    ``state`` holds: srcad made the code of a call of it for those (its ``keywords`` dict can
    be changed in place, which no read of the name sees)."""
    func, args, keywords = state
    if fn.func is func and len(fn.args) == len(args) and fn.keywords.keys() == keywords.keys() \
            and all(_same_fixed(a, b) for a, b in zip(fn.args, args)) \
            and all(_same_fixed(fn.keywords[k], v) for k, v in keywords.items()):
        return
    raise _stale(
        where, f"srcad made this code for a call of {_name(fn)} fixing {_name(func)}"
        f"{tuple(args)!r} {keywords!r}; the partial now fixes {_name(fn.func)}{fn.args!r} "
        f"{fn.keywords!r}: it was changed in place after the code was made",
        "make a new partial instead of changing one: H = functools.partial(f, k=v)")


def _stale(where, message, hint):
    """The error of a run-time check finding what the code was made for changed: ``where``
    is ``(file, line, text)`` of the call, or None."""
    filename, lineno, text = where or (None, None, None)
    return SrcadError(message, filename=filename, lineno=lineno, construct=text, hint=hint)


def _same_fixed(a, b):
    return a is b or type(a) is type(b) and type(a) in (int, float, complex, bool, str) \
        and a == b


def _name(obj):
    return getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or \
        type(obj).__name__


_registry.nondiff.update((check_choice, check_partial))  # checks: no derivative


class Choices:
    """Candidates of values read from known containers; calls of them."""

    def note_candidates(self, name, prim):
        """Record what ``name = prim`` may be, when ``prim`` reads a known container; and
        whether that may go stale (a list or dict may change in place: :attr:`unsure`)."""
        found, sure = None, False
        if prim.fn is operator.getitem and len(prim.args) == 2:
            found = self.items_of(prim.args[0], prim.args[1])
            sure = self.immutable(prim.args[0])
        elif not prim.kwargs and (len(prim.args) == 1 and prim.fn in _VIEWS + (list, tuple)
                                  or not prim.args and _dict_method(prim.fn)):
            found = self.viewed(prim)
            sure = prim.fn is tuple and self.immutable(prim.args[0])
        if found:
            self.candidates[name] = found
            if not sure:
                self.unsure.add(name)
        elif prim.fn is operator.getitem:
            self.read_from[name] = prim.args[0]

    def viewed(self, prim):
        """The candidates of ``d.values()`` (``keys``, ``items``), ``list(xs)``, ``tuple(xs)``
        of a known container: the lists they make."""
        if _dict_method(prim.fn):  # CONSTANT.values(): the method read off the constant
            view = _VIEWS[("keys", "values", "items").index(prim.fn.__name__)]
            pools = [Const(prim.fn.__self__)]
        else:
            view = prim.fn
            pools = self.candidates_of(prim.args[0])
            if pools is None and isinstance(prim.args[0], Var):
                pools = [prim.args[0]]
        found = []
        for pool in pools or ():
            if isinstance(pool, Const) and isinstance(pool.value, (dict, list, tuple)) and (
                    view in (list, tuple) or isinstance(pool.value, dict)):
                found.append(Const(view(pool.value)))
            elif isinstance(pool, Var) and view in _VIEWS and pool.name in self.dict_displays:
                items = self.dict_displays[pool.name]
                if view is containers.dict_keys:
                    found += [Const(list(items))]
                elif view is containers.dict_values:
                    found.append(self.display_of(list(items.values())))
                elif all(isinstance(a, Const) for a in items.values()):
                    found.append(Const([(k, a.value) for k, a in items.items()]))
                else:
                    return None
            elif isinstance(pool, Var) and view in (list, tuple) and (
                    pool.name in self.tuples or pool.name in self.lists):
                found.append(pool)  # the same items
            else:
                return None
        return [f for f in found if f is not None] or None

    def display_of(self, atoms):
        """A list display of ``atoms`` as a candidate: a Const when they all are."""
        if all(isinstance(a, Const) for a in atoms):
            return Const([a.value for a in atoms])
        return None

    def immutable(self, base):
        """Whether the container ``base`` holds what lowering found in it whenever the code
        runs: a tuple display, or a tuple constant (its items are part of the guard on the
        name read) or read from one."""
        if isinstance(base, Var) and base.name in self.tuples:  # (of items read from a
            # list or dict: checked where called, as the list or dict may have changed)
            return not any(isinstance(a, Var) and a.name in self.unsure
                           for a in self.tuples[base.name])
        if isinstance(base, Var) and (base.name in self.unsure or base.name in self.lists
                                      or base.name in self.dict_displays):
            return False
        pools = self.candidates_of(base)
        return pools is not None and all(isinstance(p, Const) and isinstance(p.value, tuple)
                                         for p in pools)

    def candidates_of(self, atom):
        """The atoms ``atom`` may be, as far as lowering knows (``None``: not known)."""
        if isinstance(atom, Const):
            return [atom]
        if isinstance(atom, Var):
            if atom.name in self.candidates:
                return self.candidates[atom.name]
            if atom.name in self.choices:
                return list(self.choices[atom.name])
        return None

    def items_of(self, base, index):
        """The atoms ``base[index]`` may be, or ``None``."""
        keyed = isinstance(index, Const) and type(index.value) in (int, str)
        key = index.value if keyed else None
        if isinstance(base, Var) and (base.name in self.tuples or base.name in self.lists):
            items = self.tuples.get(base.name, self.lists.get(base.name))
            # [ACTS["tanh"], ACTS["relu"]]: the functions read (checked where called)
            items = [self.read_constant(a) for a in items]
            if keyed and type(key) is int and base.name in self.tuples:
                return [items[key]] if -len(items) <= key < len(items) else None
            return _unique(items)
        if isinstance(base, Var) and base.name in self.dict_displays:
            items = self.dict_displays[base.name]
            if keyed and key in items:
                return [items[key]]
            return _unique(list(items.values()))
        pools = self.candidates_of(base) if not (isinstance(base, Var) and (
            base.name in self.partials)) else None
        if pools is None:
            return None
        found = []
        for pool in pools:
            if isinstance(pool, Var) and (pool.name in self.tuples or pool.name in self.lists
                                          or pool.name in self.dict_displays):
                inner = self.items_of(pool, index)  # a display read out of a display
                if inner is None:
                    return None
                found += inner
                continue
            if not isinstance(pool, Const):
                return None
            values = _contents(pool.value, key, keyed)
            if values is None:
                return None
            found += [Const(v) for v in values]
            if len(found) > LIMIT * 4:
                return None
        found = _unique(found)
        return found if len(found) <= LIMIT else None

    def read_constant(self, atom):
        """The one constant ``atom`` was read as from a known container with a constant key
        (``t = ACTS["tanh"]``), else ``atom``: an item of a list or tuple display. A call of
        such an item checks, when it runs, that the function met is one the code was made
        for (``check_choice``; a list may change in place, and a tuple of items read from a
        dict is not :meth:`immutable`), and so sees a table changed since."""
        found = self.candidates.get(atom.name) if isinstance(atom, Var) else None
        return found[0] if found and len(found) == 1 and isinstance(found[0], Const) else atom

    def is_function_atom(self, atom):
        if isinstance(atom, Var):
            return atom.name in self.partials
        return isinstance(atom, Const) and functions.is_function_value(atom.value)

    def check_partial(self, fn, node):
        """Emit the run-time check that the partial ``fn`` a call was made for is unchanged
        (not for one srcad made, which nothing else holds)."""
        if getattr(fn, "__srcad_partial__", False):
            return
        line = getattr(node, "lineno", None)
        where = (self.source.filename, line, self.source.line_text(line))
        state = (fn.func, fn.args, dict(fn.keywords))
        check = ir.Prim(check_partial, [Const(fn, self.bound_name(fn, "partial")), Const(
            state, self.bound_name(state, "partial_state"))], {"where": Const(where)},
            spelling=self.bound_name(check_partial, "check_partial"))
        self.emit(ir.Assign(None, check, line, effect=True))

    def call_candidate(self, atom, node, hint):
        """``f(...)`` with ``f`` read from a known container: a checked choice among the
        functions it may be; read from a container made outside this code, a call of the
        function met when it runs (:meth:`value_call`); else ``None``."""
        options = self.candidates.get(atom.name) if isinstance(atom, Var) else None
        if options is None:  # a function known only when the code runs, or none
            outside = not node.keywords and self.read_outside(atom)
            return self.value_call(atom, node) if outside else None
        if not all(self.is_function_atom(o) for o in options):
            bad = next(o for o in options if not self.is_function_atom(o))
            what = "a lambda or partial holding values computed in the loop" if isinstance(
                bad, Var) else f"{_name(bad.value)}, not a function"
            raise self.error(node, f"calling a value taken from a container that may hold "
                             f"{what}", hint="hold the functions themselves (named functions, "
                             "lambdas of their parameters only) in a tuple or list")
        spelled = self.checked_options(atom, options, node)
        if len(spelled) == 1:  # fs[0](x), OPS["a"](x): the one function
            return self.call_atom(spelled[0], node, hint, True, "a function")
        self.choices[atom.name] = spelled
        return self.call_choice(atom, node, hint)

    def pass_choice(self, fn, args, kwargs, node, hint):
        """``layer(W, x, act)`` with ``act`` one of several functions known while lowering (read
        from a known container, ``ACTS[name]``, or merged, ``np.tanh if c else np.sin``), and
        ``layer`` a function of yours: an ``if`` on which, each arm passing its function by name,
        so that ``layer``'s code is made for it as for ``layer(W, x, np.tanh)``; ``None`` when no
        argument is such a value. Checked as a call of the value is (:meth:`call_candidate`)."""
        slots = list(enumerate(args)) + list(kwargs.items())
        for _, atom in slots:
            options = self._function_options(atom)
            if options is not None:
                break
        else:
            return None
        spelled = self.checked_options(atom, options, node)
        callee = Const(fn, self.bound_name(fn, getattr(fn, "__name__", None) or "fn"))

        def passing(option):
            def put(a):
                return Atom(option if isinstance(a, Var) and a.name == atom.name else a)
            call = gast.Call(func=Atom(callee), args=[put(a) for a in args],
                             keywords=[gast.keyword(arg=k, value=put(v))
                                       for k, v in kwargs.items()])
            return gast.copy_location(call, node)

        if len(spelled) == 1:  # layer(W, x, ACTS["tanh"]): the one function
            return self.expr(passing(spelled[0]), hint)
        return self.choose(atom, spelled, passing, node, hint)

    def checked_options(self, atom, options, node):
        """``options`` (the functions ``atom`` may be) each spelled by a name the code reads,
        after emitting the run-time check that ``atom`` is one of them where it was read from a
        list or dict (which may have changed in place since the code was made)."""
        spelled = [o if isinstance(o, Var) or o.spelling else Const(o.value, self.bound_name(
            o.value, getattr(o.value, "__name__", None) or "fn")) for o in options]
        if atom.name in self.unsure:
            line = getattr(node, "lineno", None)
            where = (self.source.filename, line, self.source.line_text(line))
            check = ir.Prim(check_choice, [atom] + spelled, {"where": Const(where)},
                            spelling=self.bound_name(check_choice, "check_choice"))
            self.emit(ir.Assign(None, check, line, effect=True))
        return spelled

    def _function_options(self, atom):
        """The functions ``atom`` may be (read from a known container, or merged), when
        lowering knows them all (at most :data:`LIMIT`); else ``None``."""
        if not isinstance(atom, Var) or atom.name in self.partials:
            return None
        options = self.candidates.get(atom.name) or self.choices.get(atom.name)
        if not options or len(options) > LIMIT or not all(
                isinstance(o, Const) and functions.is_function_value(o.value) for o in options):
            return None
        return list(options)

    def site(self, node):
        """The keywords ``{"where": (file, line, text)}`` of a run-time check at ``node``."""
        line = getattr(node, "lineno", None)
        where = (self.source.filename, line, self.source.line_text(line))
        return {"where": self.bound_const(where, "where")}

    def held_list(self, obj, attr, held, node):
        """``self.acts`` of an object whose list attribute held the functions ``held`` when
        the code was made (``self.acts = [np.tanh, relu]``, part of the specialisation): the
        list read when the code runs, its items known to be among ``held``; a call of an item
        is checked there to be one of them (the list may have changed in place) and calls
        the one it is."""
        check_part(self, obj, node)
        var = self.assign(ir.Prim(ir.Attr(attr), [obj]), attr, node)
        self.candidates[var.name] = [Const(list(held))]
        self.unsure.add(var.name)
        return var

    def read_outside(self, atom):
        """Whether ``atom`` was read from a container made outside the code srcad makes: a
        parameter, or what a call of a function of yours returned (which runs as Python when
        no differentiated value flows in, so the functions it holds are Python's own; a
        container built here may hold lambdas srcad made of the function's own, which it calls
        only where it knows them)."""
        container = self.read_from.get(atom.name) if isinstance(atom, Var) else None
        return isinstance(container, Var) and (container.name in self.param_names
                                               or container.name in self.call_results)

    def value_call(self, atom, node):
        """``f(x, ..)`` with ``f`` read from a container srcad cannot know (a tuple a helper
        returned): a call of :func:`srcad.runtime.derivatives.call_value`, which takes its
        derivative from the function it meets when the code runs (refused by the soundness
        check if the function is made from differentiated values)."""
        args = [self.expr(a) for a in node.args]
        line = getattr(node, "lineno", None)
        where = (self.source.filename, line, self.source.line_text(line))
        return ir.Prim(derivatives.call_value, [self.bound_const(where, "where"), atom] + args,
                       spelling=self.bound_name(derivatives.call_value, "call_value"))

    def container_refusal(self, atom, node, what):
        """A precise refusal for calling a value read from a container nobody knows."""
        origin = self.attribute_values.get(atom.name) if isinstance(atom, Var) else None
        if origin is not None and atom.name in self.read_from:
            raise self.error(
                node, f"calling {origin}, an item of a container held in an attribute whose "
                "items srcad cannot tell apart when it makes the code (it follows a list, "
                "tuple or dict attribute whose items are all objects of one class of yours, "
                "holding the same kinds of parts; not mixed classes, not functions)",
                hint="hold functions in a tuple (self.acts = tuple(acts): the code is made for "
                "the functions it holds), objects of one class in a list, tuple or dict (layers "
                "of one class with a method that branches on a setting), or pass the functions "
                "to the function you differentiate as arguments")
        if isinstance(atom, Var) and atom.name in self.read_from:
            raise self.error(
                node, f"calling {what}, taken from a list, tuple or dict whose functions "
                "srcad cannot know when it transforms the function (a parameter, or a "
                "container built from values computed here)",
                hint="pass a tuple of functions (the code is made for the functions it holds), "
                "or hold them in a tuple, list or dict at module level, in a default value, or "
                "written in the function ([np.sin, np.cos], {'a': f}); a list or dict passed "
                "in is read only when the code runs; functions a helper makes in a loop or a "
                "comprehension ([make(w[i]) for i in ...]): write the list out, [make(w[0]), "
                "make(w[1])], or loop over the values and call make(v)(x) there")


def own_first(lowerer, obj, attr, raw, implicit):
    """What ``obj.attr`` finds, ``raw`` being the class's attribute: a function the
    object holds in an attribute of its own (part of the specialisation) hides a method
    of the class (a function, static or class method: no data descriptor), as in Python;
    then ``None`` (the held function is called). ``implicit`` (``obj(...)``): the class's."""
    own = lowerer.held.get(obj.name, {}) if isinstance(obj, Var) else {}
    if implicit or attr not in own or not (isinstance(raw, (staticmethod, classmethod))
                                           or inspect.isfunction(raw)):
        return raw
    return None


def _dict_method(fn):
    """Whether ``fn`` is ``d.keys``, ``d.values`` or ``d.items`` of a dict ``d``."""
    return getattr(fn, "__name__", None) in ("keys", "values", "items") and isinstance(
        getattr(fn, "__self__", None), dict)


def _contents(value, key, keyed):
    """The items ``value[key]`` may be (every item when the key is not known)."""
    if isinstance(value, (tuple, list)):
        if keyed and type(key) is int:
            return [value[key]] if -len(value) <= key < len(value) else None
        if keyed and isinstance(key, slice):
            return None
        return list(value) if len(value) <= LIMIT * 4 else None
    if isinstance(value, dict):
        if keyed:
            try:
                return [value[key]] if key in value else None
            except TypeError:
                return None
        return list(value.values()) if len(value) <= LIMIT * 4 else None
    return None


def _unique(atoms):
    out = []
    for atom in atoms:
        if not any(_same(atom, o) for o in out):
            out.append(atom)
    return out


def _same(a, b):
    if isinstance(a, Const) and isinstance(b, Const):
        return a.value is b.value
    if isinstance(a, Var) and isinstance(b, Var):
        return a.name == b.name
    return False
