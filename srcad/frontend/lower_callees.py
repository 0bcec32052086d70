"""Lowering calls of function *values*: what a callee is when it is not a plain name.

A mixin of :class:`srcad.frontend.lower.Lowerer` (see there for the state it shares), used by
:meth:`srcad.frontend.lower_calls.Calls.expr_Call`. Every callee is resolved, while lowering,
to the Python object it is, and the call is rewritten as a call srcad already differentiates:

* a function held in a local or passed in a parameter (``g = my_fn; g(x)``,
  ``def apply(f, x): return f(x)`` called as ``apply(np.sin, x)``): the callee is
  *specialised* on the function passed (:func:`srcad.core.functions.specialised`): in that
  copy the parameter is the constant it was given, so ``f(x)`` is ``np.sin(x)``; a call
  passing another function uses another copy. ``g = f1 if c else f2; g(x)`` is an ``if`` on
  which one ``g`` is. A parameter nobody fixed is refused;
* a method of an object whose class the specialisation knows (``self.predict(x)``,
  ``model.loss(x)``, a property ``self.area``, a static or class method, ``obj(x)`` with a
  ``__call__``): the function on the class, with the object as first argument. The class's
  attributes are read like globals (a method redefined later makes the code again), and the
  generated code checks that the object has no attribute of its own hiding the method;
* ``functools.partial(f, a)`` and a lambda reading local values: calls of them are calls of
  ``f`` (or of the lambda, lifted) with the fixed arguments first; such a value passed on to
  another function is refused, with the rewrite;
* ``srcad.grad(inner)`` (or ``value_and_grad``) with constant arguments: made while lowering,
  so ``srcad.grad(inner)(x)`` is a call of a derivative, which the reverse sweep
  differentiates again (a second derivative);
* a generator function called where its values are all taken at once: returning their list.

Imports: gast, the standard library, :mod:`srcad.core`, :mod:`srcad.errors`, :mod:`srcad.rules`
(the registry's pure and piecewise-constant tables), :mod:`.generators`, :mod:`.folds`,
:mod:`.fixed_lengths` and :mod:`.lower_spread`.
"""

from __future__ import annotations

import functools
import inspect
import operator

import gast
import numpy as np

from ..core import env, functions, ir
from ..core.ir import Const, Var
from ..errors import MissingRuleError
from ..rules.registry import _PURE_MARKERS
from ..rules.registry import registry as _registry
from . import (
    builtin_code,
    captured,
    chosen_functions,
    closures,
    derivative_makers,
    fixed_lengths,
    folds,
    generators,
    iterators_passed,
    lower_super,
    vectorized,
)
from .held_checks import check_held, check_method
from .held_objects import check as check_part
from .held_objects import known_name, known_object, note_parts
from .iterators_passed import fixed_function, function_tuple
from .iterators_passed import is_instance as _is_instance
from .lower_choices import own_first
from .lower_spread import Atom, Lowered, name_node

_PURE_MARKERS.add(functools.partial)  # building one has no effect: dead if unused


def method_is(value, fn, owner):
    """Whether ``value`` is the method ``fn`` of ``owner`` (bound to it, or ``fn`` itself
    for a static method, ``owner`` None): ``g = self.f if c else self.s; g(x)``."""
    if getattr(value, "__func__", value) is not fn:
        return False
    return owner is None or getattr(value, "__self__", None) is owner


_registry.nondiff.add(method_is)


class Callees:
    """Calls whose callee is a function value: specialised, expanded, or refused."""

    # ---------------------------------------------------------------- what a callee is

    def bound_name(self, obj, hint):
        """A name under which generated code reads ``obj`` (bound through a cell, like a
        lifted function: valid in the forward and the backward sweep)."""
        for name, known in self.lifted.items():
            if known is obj:
                return name
        name = self.namer.fresh(hint or "fn")
        self.lifted[name] = obj
        return name

    def bound_const(self, value, hint):
        """An atom for ``value``: a literal as itself, anything else through a bound name."""
        if value is None or type(value) in (int, float, bool, str, complex):
            return Const(value)
        return Const(value, self.bound_name(value, hint))

    def value_callee(self, atom, node, what):
        """The callee when a call's function is the atom ``atom`` (a local or a parameter)."""
        if isinstance(atom, Var) and atom.name in self.partials:
            return self.partials[atom.name]
        if isinstance(atom, Const) and functions.is_function_value(atom.value):
            return atom.value, [], {}, atom.spelling
        if isinstance(atom, Const) and isinstance(atom.value, type):
            return atom.value, [], {}, atom.spelling
        if isinstance(atom, Const) and functions.user_instance_class(atom.value) is not None:
            return atom.value, [], {}, atom.spelling
        params = {a.id for a in self.source.node.args.posonlyargs + self.source.node.args.args
                  + self.source.node.args.kwonlyargs}
        if isinstance(atom, Var) and atom.name in params:
            raise self.error(
                node, f"calling {what}, a parameter whose function srcad does not know: srcad "
                "makes a function's code for the function a call passes it by name "
                "(apply(np.sin, x) inside the function you differentiate), or for the function "
                "given to the function you differentiate (grad, vjp, jvp)",
                hint="pass the function to the function you differentiate, or differentiate a "
                "function that makes the call with the function named: "
                "def loss(x): return apply(np.sin, x)")
        made_by = self.call_results.get(atom.name) if isinstance(atom, Var) else None
        if made_by is not None:
            name = getattr(made_by, "__name__", "the function")
            raise self.error(
                node, f"calling {what}, a function that {name}(...) returned: srcad reads the "
                "functions a program calls when it transforms it, and a function made and "
                "returned at run time (a closure) is not one it can read there",
                hint=closures.refusal_hint(made_by) or f"call a named function with the values "
                f"{name} captured as arguments: def inner(a, x): ... at module level, called as "
                f"inner(a, x), or make the call inside {name} and return its value")
        raise self.error(
            node, f"calling {what}, whose value srcad does not know when it transforms the "
            "function", hint="call a named function (defined at module level or imported), "
            "or pass the function itself where the call is made: apply(np.sin, x) in the "
            "function you differentiate specialises apply on np.sin")

    def call_value(self, fn, spelling, lead, lead_kw, node, hint=None):
        """The operation for a call of the object ``fn`` with ``lead``/``lead_kw`` (atoms
        fixed ahead of the call's own) and the call node's arguments."""
        args = lead + [self.expr(a) for a in node.args]
        kwargs = dict(lead_kw)
        for k in node.keywords:
            kwargs[k.arg] = self.expr(k.value)
        return self.call_object(fn, spelling, args, kwargs, node, hint)

    def call_object(self, fn, spelling, args, kwargs, node, hint=None):
        for _ in range(16):  # a partial of a bound method of ...: unwrap a few levels
            if isinstance(fn, functools.partial):
                self.check_partial(fn, node)  # its keywords dict may change in place
                args = [self.bound_const(a, getattr(a, "__name__", "arg")) for a in fn.args] + args
                kwargs = {**{k: self.bound_const(v, k) for k, v in fn.keywords.items()},
                          **kwargs}
                fn, spelling = fn.func, None
            elif inspect.ismethod(fn) and inspect.isfunction(fn.__func__) and \
                    functions.is_user_function(fn.__func__):
                owner = spelling.rsplit(".", 1)[0] if spelling and "." in spelling else None
                args = [Const(fn.__self__, owner) if owner else self.bound_const(
                    fn.__self__, "obj")] + args
                fn, spelling = fn.__func__, None
            elif not inspect.isroutine(fn) and not isinstance(fn, type) and \
                    functions.user_instance_class(fn) is not None and \
                    functions.is_function_value(fn) and \
                    functions.is_user_function(type(fn).__call__):
                self.class_attribute(type(fn), "__call__")  # recorded: a new one remakes
                args = [Const(fn, spelling) if spelling else self.bound_const(fn, "obj")] + args
                fn, spelling = type(fn).__call__, None
            elif isinstance(fn, np.vectorize):  # @np.vectorize def f(v): ... at module level
                fn, args, spelling = vectorized.object_callee(self, fn, args, node)
            else:
                break
        if inspect.isgeneratorfunction(fn) and functions.is_user_function(fn):
            if not getattr(node, "srcad_consumed", False):
                raise self.error(node, f"a generator ({fn.__name__}) kept as an iterator",
                                 hint=f"take its values where it is called: for v in "
                                 f"{fn.__name__}(...), list({fn.__name__}(...)), "
                                 f"sum({fn.__name__}(...))")
            fn, spelling = generators.list_builder(fn), None
        if fn is functools.reduce and not kwargs and folds.reduce_code(len(args)):
            fn, spelling = folds.reduce_code(len(args)), None  # a loop srcad reads
        vectorized.refuse_keywords(self, fn, kwargs, node)
        made = builtin_code.stand_in(fn, len(args), kwargs)  # divmod, math.prod: as Python
        fn, spelling = made, (spelling if made is fn else None)
        if fn is functools.partial and args:
            return self.partial_value(args[0], args[1:], kwargs, node, hint)
        for_count = getattr(fn, "__srcad_for_count__", None)
        if for_count is not None and hasattr(fn, "__wrapped__"):
            # the derivative of a function taking *args (srcad.api._star_args): the one made
            # for this many arguments, a derivative srcad differentiates again
            named = inspect.signature(fn.__wrapped__).parameters
            keys = tuple(sorted(k for k in kwargs if k not in named or named[k].kind in (
                inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)))
            fn, spelling = for_count(len(args), keys), None
        plain = functions.plain_form(fn)  # a Jacobian or Hessian srcad made, held in a name
        if plain is not None:
            fn, spelling = plain, None
        if not functions.is_user_function(fn):  # an iterator's items: to a function of yours
            iterators_passed.refuse_untaken(self, None, args, kwargs, node)
        made = self.transform_call(fn, args, kwargs, node)  # srcad.jvp, srcad.vjp
        if made is not None:
            return made
        if functions.is_derivative_maker(fn):
            made = self.make_derivative(fn, args, kwargs, node)
            if made is not None:
                return made
        if functions.is_user_function(fn) and not _registry.has_rule(fn):  # (corpus31) one
            # with a rule is called as written: a copy made for a function argument lost it
            made = derivative_makers.call(self, fn, args, kwargs) or chosen_functions.call(
                self, fn, args, kwargs)  # return jacfwd(jacrev(f)); act("tanh")
            if made is not None:
                return made
            made = closures.call(self, fn, args, kwargs, node, hint)  # make(w) returns g
            if made is not None:
                iterators_passed.refuse_untaken(self, None, args, kwargs, node)
                return made
            if (chosen := self.pass_choice(fn, args, kwargs, node, hint)) is not None:
                return chosen  # layer(W, x, ACTS[k]): a choice among ACTS' functions
            fn, args, kwargs = self.pass_held(fn, args, kwargs, node)
            fixed = self.fixed_for(fn, args, kwargs, node)
            if fixed_lengths.made_when_run(self, fn, args, kwargs, fixed):  # (closures29)
                return fixed_lengths.run_time_call(self, fn, args, kwargs, node)
            if fixed:
                fn = functions.specialised(fn, fixed)
                spelling = None
        if spelling is None:
            spelling = self.bound_name(fn, getattr(fn, "__name__", None) or "fn")
        iterators_passed.refuse_untaken(self, fn, args, kwargs, node)
        return ir.Prim(fn, args, kwargs, spelling=spelling)

    def pass_held(self, fn, args, kwargs, node):
        """A function argument holding values of this function (a lambda reading locals, a
        partial of them, a list of them): the callee is read so that those values are passed
        to it as arguments of their own (:mod:`.captured`, ``held_items``)."""
        fn, args, kwargs = captured.held_items(self, fn, args, kwargs)
        try:
            sig = inspect.signature(fn, follow_wrapped=False)
            bound = sig.bind(*args, **kwargs)
        except (TypeError, ValueError):
            return fn, args, kwargs
        held = [(p, a) for p, a in bound.arguments.items()
                if isinstance(a, Var) and a.name in self.partials
                and sig.parameters[p].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                   inspect.Parameter.VAR_KEYWORD)]
        for param, atom in held:
            inner, lead, lead_kw, spelling = self.partials[atom.name]
            fn, names = captured.with_held(fn, param, len(lead), list(lead_kw))
            sig = inspect.signature(fn, follow_wrapped=False)
            bound.arguments[param] = Const(inner, spelling or self.bound_name(
                inner, getattr(inner, "__name__", None) or "fn"))
            args, kwargs = list(bound.args), dict(bound.kwargs)
            kwargs.update(zip(names, list(lead) + list(lead_kw.values())))
            bound = sig.bind(*args, **kwargs)
        return fn, list(bound.args), dict(bound.kwargs)

    def fixed_for(self, fn, args, kwargs, node):
        """The parameters of ``fn`` a call fixes: function values, and objects whose class is
        known (a parameter's default counts too: it is read and guarded like the name)."""
        try:
            sig = inspect.signature(fn, follow_wrapped=False)
            bound = sig.bind(*args, **kwargs)
        except (TypeError, ValueError):
            return ()  # the transform reports the mismatch at the call
        fixed = []
        given = dict(bound.arguments)
        parameters = dict(sig.parameters)
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters.values()):
            # the items of *args and **kwargs are parameters of their own (args_0, kwargs_f:
            # srcad.core.functions.bind names them as the callee's lowering does): a function
            # passed through them is fixed like one passed by name
            given = functions.bind(fn, args, kwargs)[1]
            empty = inspect.Parameter.empty
            for name in given:
                if name not in parameters:
                    parameters[name] = inspect.Parameter(
                        name, inspect.Parameter.KEYWORD_ONLY, default=empty)
        for name, param in parameters.items():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            if name in given:
                atom = self.constant_tuple(given[name])
                if iterators_passed.mark_of(self, atom) is not None:  # an iterator, [f, g]
                    fixed.append((name, iterators_passed.mark_of(self, atom)))
                    continue
                if isinstance(atom, Var) and atom.name in self.partials:
                    raise self.error(
                        node, f"passing {atom.name!r}, a function that holds "
                        "local values (a lambda reading them, or functools.partial of them), "
                        f"to {fn.__name__}", hint="pass the function and the values it needs "
                        "as separate arguments, or define the lambda inside the callee")
                if known_name(self, atom) is not None:  # an object, or a list of them
                    check_part(self, atom, node)  # self._problem passed on: still a Problem
                    fixed.append((name, known_name(self, atom)))
                    continue
                if not isinstance(atom, Const):
                    continue
                value = atom.value
            elif param.default is not param.empty:
                value = param.default
            else:
                continue
            if (functions.is_function_value(value) and not _is_instance(value)) or value is \
                    functools.partial or function_tuple(value) or functions.user_class(value):
                fixed.append((name, value))  # (a class: a classmethod's cls, cls.f(...) known)
            elif known_object(value) is not None:  # an object, or a list of them (a global)
                fixed.append((name, known_object(value)))
                note_parts(self.source, given.get(name), fixed[-1][1])  # o.inner = Other()
            elif (value is None or type(value) in (bool, str)) and not (  # if ax: (a str:
                    _registry.has_rule(fn) or _registry.is_nondiff(fn)):
                fixed.append((name, functions.Flag(value)))  # if scale == 'log', closures29)
        fixed += fixed_lengths.for_callee(self, fn, given, {n for n, _ in fixed}, node)
        return tuple(fixed)

    # ---------------------------------------------------------------- methods

    def method_call(self, obj, attr, node, hint=None, implicit=False):
        """``obj.attr(...)`` where the object's class is known; ``None`` otherwise.
        ``implicit``: ``obj(...)``, which Python looks up on the class alone."""
        if isinstance(obj, Const):
            if isinstance(obj.value, type) or functions.user_instance_class(obj.value) is None:
                return lower_super.class_method(self, obj, attr, node, hint)  # cls.f(...)
            cls = type(obj.value)
        elif isinstance(obj, Var) and obj.name in self.classes:
            cls = self.classes[obj.name]
            check_part(self, obj, node)  # self._problem.evaluate(x): still a Problem
        else:
            return None
        raw = own_first(self, obj, attr, self.class_attribute(cls, attr), implicit)
        if isinstance(raw, (staticmethod, classmethod)) or inspect.isfunction(raw):
            if getattr(cls, "__dictoffset__", 0) and not implicit:  # the object's own wins
                check = ir.Prim(check_method, [obj, Const(attr)], self.site(node),
                                spelling=self.bound_name(check_method, "check_method"))
                self.emit(ir.Assign(None, check, node.lineno, effect=True))
        if isinstance(raw, staticmethod):
            return self.call_value(raw.__func__, None, [], {}, node, hint)
        if isinstance(raw, classmethod):
            return self.call_value(raw.__func__, None, [Const(cls, self.bound_name(
                cls, cls.__name__))], {}, node, hint)
        if inspect.isfunction(raw):
            return self.call_value(raw, None, [obj], {}, node, hint)
        if isinstance(raw, property):
            return self.error(node, f"calling the property {attr!r}",
                              hint="read the property, then call its value")
        held = self.held.get(obj.name, {}) if isinstance(obj, Var) else {}
        if raw is None and not implicit and attr in held and not isinstance(
                held[attr], functions.HeldList):
            # a function the object holds (self.transform = transform in __init__): the one
            # it held when the code was made (part of the specialisation), checked each call
            check = ir.Prim(check_held, [obj, Const(attr), Const(held[attr], self.bound_name(
                held[attr], attr))], self.site(node), spelling=self.bound_name(
                check_held, "check_held"))
            self.emit(ir.Assign(None, check, node.lineno, effect=True))
            try:  # a call in a branch not taken for this function: raised if it runs
                if isinstance(held[attr], np.ufunc):
                    if len(node.args) != held[attr].nin or node.keywords:
                        raise TypeError(f"srcad calls the ufunc {held[attr].__name__} with "
                                        f"its {held[attr].nin} input(s) only")
                else:
                    inspect.signature(held[attr]).bind(*node.args, **{
                        k.arg: k.value for k in node.keywords if k.arg is not None})
            except TypeError as exc:
                if any(isinstance(a, gast.Starred) for a in node.args) or any(
                        k.arg is None for k in node.keywords):
                    return self.call_value(held[attr], None, [], {}, node, hint)
                error = TypeError(f"{type(exc).__name__}: {exc}")
                self.emit(ir.Raise(Const(error, self.bound_name(error, "call_error")),
                                   node.lineno))
                return Const(None)
            except ValueError:
                pass
            return self.call_value(held[attr], None, [], {}, node, hint)
        if raw is None and not implicit and isinstance(obj, Var) and getattr(
                cls, "__dictoffset__", 0) and not hasattr(cls, "__getattr__"):
            raise self.error(
                node, f"calling .{attr}(), an attribute of a {cls.__name__} object that is "
                "not a method of its class (a function stored in the object): srcad does not "
                "know which function it holds when it transforms the code",
                hint=f"pass the function as an argument of the method ({attr}=..., called as "
                f"{attr}(...)), or define {attr} as a method of {cls.__name__}")
        return None


class FunctionValues:
    """Function values made in the function: merges of several functions, partials,
    lambdas and nested ``def``'s used as values; loops over lazy values."""

    def class_attribute(self, cls, attr):
        """What ``cls`` holds for ``attr`` (through its MRO), the reads recorded: the code is
        made again when the class comes to hold something else."""
        raw = None
        for space, value in functions.method_reads(cls, attr):
            env.record(env.Read(space, None, attr, (), value))
            if value is not functions.ClassNamespace.ABSENT:
                raw = value
        if type(cls) is not type:
            return inspect.getattr_static(cls, attr, None)  # a metaclass: not followed
        return raw

    # ---------------------------------------------------------------- values made here

    def property_read(self, obj, attr, node):
        """``self.prop`` for a property of a known class: a call of its getter."""
        if not isinstance(obj, Var) or obj.name not in self.classes:
            return None
        raw = self.class_attribute(self.classes[obj.name], attr)
        if isinstance(raw, property) and inspect.isfunction(raw.fget):
            check_part(self, obj, node)
            return self.call_object(raw.fget, None, [obj], {}, node)
        if isinstance(raw, functools.cached_property):
            return self.error(node, f"reading the cached property {attr!r} (it writes the "
                              "object)", hint="make it a plain property or a method")
        return None

    def method_value(self, obj, attr, node):
        """``f = self.method`` (a method of a known class read as a value, not called):
        the bound method, whose calls are calls of the class's function with the object
        first (like a partial); ``None`` for anything else."""
        if not isinstance(obj, Var) or obj.name not in self.classes or not isinstance(
                node.ctx, gast.Load):
            return None
        cls = self.classes[obj.name]
        raw = own_first(self, obj, attr, self.class_attribute(cls, attr), False)
        held = self.held.get(obj.name, {})
        if raw is None and isinstance(held.get(attr), functions.HeldList):
            return self.held_list(obj, attr, held[attr], node)  # self.acts = [np.tanh, relu]
        if raw is None and attr in held:
            # f = self.f, a function the object holds (self.f = f in __init__): the one it
            # held when the code was made (part of the specialisation), checked where it is
            # read, as a call self.f(...) is; f is then that function, a constant
            check_part(self, obj, node)
            check = ir.Prim(check_held, [obj, Const(attr), Const(held[attr], self.bound_name(
                held[attr], attr))], self.site(node), spelling=self.bound_name(
                check_held, "check_held"))
            self.emit(ir.Assign(None, check, node.lineno, effect=True))
            return Const(held[attr], self.bound_name(held[attr], attr))
        if isinstance(raw, staticmethod):
            fn, lead = raw.__func__, []
        elif isinstance(raw, classmethod):
            fn, lead = raw.__func__, [Const(cls, self.bound_name(cls, cls.__name__))]
        elif inspect.isfunction(raw):
            fn, lead = raw, [obj]
        else:
            return None
        check_part(self, obj, node)
        if getattr(cls, "__dictoffset__", 0):  # the object's own attribute would win
            check = ir.Prim(check_method, [obj, Const(attr)], self.site(node),
                            spelling=self.bound_name(check_method, "check_method"))
            self.emit(ir.Assign(None, check, node.lineno, effect=True))
        var = self.assign(ir.Prim(ir.Attr(attr), [obj]), attr, node)
        self.partials[var.name] = (fn, lead, {}, None)
        self.bound_methods[var.name] = (fn, lead[0] if lead else Const(None))
        return var

    def partial_value(self, fn_atom, args, kwargs, node, hint):
        """``functools.partial(f, *args, **kwargs)`` (``f`` may be one: ``flat_partial``): a
        constant when everything is, else a value whose calls are of ``f``, these first."""
        fn_atom, args, kwargs = self.flat_partial(fn_atom, args, kwargs)
        if not isinstance(fn_atom, Const) or not callable(fn_atom.value):
            raise self.error(node, "functools.partial of a function srcad does not know",
                             hint="name the function: functools.partial(my_fn, a)")
        if all(isinstance(a, Const) and not self.read_live(a)
               for a in list(args) + list(kwargs.values())):
            made = functools.partial(fn_atom.value, *[a.value for a in args],
                                     **{k: a.value for k, a in kwargs.items()})
            made.__srcad_partial__ = True  # srcad's own: no one changes it (no check)
            return Const(made, self.bound_name(made, hint or "partial"))
        prim = ir.Prim(functools.partial, [fn_atom] + list(args), dict(kwargs),
                       spelling=self.bound_name(functools.partial, "make_partial"))
        var = self.assign(prim, hint or "fn", node)
        self.partials[var.name] = (fn_atom.value, list(args), dict(kwargs), fn_atom.spelling)
        return var

    def lambda_value(self, node, hint=None):
        """A lambda used as a value: lifted to a function; the local values it reads are
        fixed ahead of its own parameters, as with ``functools.partial``."""
        name = self.namer.fresh(hint or "lam")
        fdef = gast.FunctionDef(name=name, args=node.args, body=[gast.copy_location(
            gast.Return(value=node.body), node)], decorator_list=[], returns=None,
            type_comment=None, type_params=[])
        self.local_function(name, gast.copy_location(fdef, node), node)
        return self.local_function_value(name, node, hint, drop=True)

    def local_function_value(self, name, node, hint=None, drop=False):
        """A nested ``def`` (or lambda) used as a value: its lifted function, with the outer
        values it reads (as they are now) held ahead of its own parameters."""
        lifted, captured = self.local_functions[name]
        if drop:
            del self.local_functions[name]
        for n in captured:
            if self.stores.get(n, 0) > 1 and not self.settled(n, node):  # read when called
                raise self.error(node, f"a function value reading {n!r}, which the function "
                                 "assigns more than once (Python reads the value it has when "
                                 "the function is called)", hint=f"pass {n} to it as an "
                                 "argument, or give each new value a name of its own")
        spelled = self.bound_name(lifted, lifted.__name__ if not drop else name)
        atoms = [self.env[n] if n in self.env else self.bound_const(self.source.lookup(n), n)
                 for n in captured]
        if not atoms:
            return Const(lifted, spelled)
        return self.partial_value(Const(lifted, spelled), atoms, {}, node, hint)

    def note_choices(self, target, *sources):
        """A merge of function values (``g = f1 if c else f2``): remember which they may be."""
        options = []
        for atom in sources:
            if isinstance(atom, Var) and atom.name in self.choices:
                options += self.choices[atom.name]
            elif isinstance(atom, Const) and functions.is_function_value(atom.value) and \
                    not _is_instance(atom.value):
                options.append(atom)
            elif isinstance(atom, Var) and atom.name in self.bound_methods:
                options.append(atom)  # g = self.f if c else self.s: told apart by method_is
            else:
                if any(isinstance(a, Var) and a.name in self.partials for a in sources):
                    self.merged_partials.add(target)  # refused at a call, with a hint
                return
        unique, seen = [], set()
        for atom in options:
            key = ("name", atom.name) if isinstance(atom, Var) else ("value", id(atom.value))
            if key not in seen:
                seen.add(key)
                unique.append(atom)
        self.choices[target] = unique

    def call_choice(self, atom, node, hint):
        """``g(x)`` where ``g`` is one of several known functions: an ``if`` on which."""
        return self.choose(atom, self.choices[atom.name], lambda option: gast.Call(
            func=Atom(option), args=node.args, keywords=node.keywords), node, hint)

    def choose(self, atom, options, call_of, node, hint):
        """An ``if`` on which of ``options`` the value ``atom`` is, each arm the call
        ``call_of(option)`` makes (the last arm untested: the caller knows ``atom`` is one)."""
        key = f"\0{hint or 'value'}"
        orelse = [gast.Assign(targets=[name_node(key, gast.Store())], type_comment=None,
                              value=call_of(options[-1]))]
        for option in reversed(options[:-1]):
            if isinstance(option, Var) and option.name in self.bound_methods:
                fn, owner = self.bound_methods[option.name]  # option is out of scope here
                test = self.assign(ir.Prim(method_is, [atom, Const(fn, self.bound_name(
                    fn, fn.__name__)), owner], spelling=self.bound_name(
                    method_is, "method_is")), "same", node)
            else:
                test = self.assign(ir.Prim(operator.is_, [atom, option]), "same", node)
            body = [gast.Assign(targets=[name_node(key, gast.Store())], type_comment=None,
                                value=call_of(option))]
            for stmt in body + orelse:
                if isinstance(stmt, gast.Assign):
                    gast.copy_location(stmt, node)
                    gast.copy_location(stmt.value, node)
            if option is options[0]:
                self.branch(test, body, orelse, node)
            else:  # the later tests are made inside the else arm
                orelse = [Lowered(lambda t=test, b=body, o=orelse: self.branch(t, b, o, node))]
        return self.env.pop(key)


def classes_of(arg_values):
    """``{parameter: Instance(class)}`` for the arguments that are objects of the user's
    classes (a specialisation is made per argument type, so their classes are known), and
    ``{parameter: function}`` for the functions passed (a specialisation is made per function:
    :func:`srcad.specialise.cache_key` holds it), which the code calls as named; a ``Flag``
    for ``None`` (its type, in the key, names its one value: ``if o is None:`` takes one way)."""
    fixed = {}
    for p, v in arg_values.items():
        if v is None:
            fixed[p] = functions.Flag(None)
        elif fixed_function(v):
            fixed[p] = v
        elif known_object(v) is not None:  # an object of the user's, a list of them
            # (an array of the array API standard is an array: srcad.backend.standard)
            fixed[p] = known_object(v)
    return fixed_lengths.sized_arguments(fixed, arg_values)  # list lengths: keyed too


def refuse_unhashable(fn, src):
    """A call of an object that cannot be hashed (``np.poly1d``'s ``P(x)``: no rule can be
    found for it, and the passes key their tables by the function called) refused at its
    line, as srcad refuses a callable object it cannot see into."""
    for stmt in ir.walk(fn.body):
        value = getattr(stmt, "value", None)
        if not isinstance(value, ir.Prim) or isinstance(value.fn, (ir.Method, ir.Attr,
                                                                   ir.Build)):
            continue
        try:
            hash(value.fn)
        except TypeError:
            name = type(value.fn).__name__
            why, hint = functions.opaque(value.fn, name) or (
                f"{name} (an object that cannot be hashed) called", "call a plain function")
            line = getattr(stmt, "line", None)
            raise MissingRuleError(why, filename=src.filename, lineno=line,
                                   construct=src.line_text(line) if line else None,
                                   hint=hint) from None
