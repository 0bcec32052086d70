"""Lowering derivatives srcad makes while it lowers a function that calls them (a mixin of
:class:`srcad.frontend.lower.Lowerer`, used by :mod:`.lower_callees`):

* ``srcad.grad(inner)`` (``value_and_grad``, ``jacobian``, ``jacfwd``, ``jacrev``,
  ``hessian``) with constant arguments: made now, a constant, so ``srcad.grad(inner)(x)`` is a
  call of a derivative, which the sweeps differentiate again (a Jacobian or Hessian as the
  plain function srcad reads for it: ``srcad.nested.plain_jacobian``);
* ``srcad.jvp(f, (x, w), (t,), wrt=...)``: a call ``J(x, w, t)`` of the derivative object
  ``srcad.jvp.__srcad_call_maker__`` makes now (``srcad.nested.JvpOf``);
* ``y, pullback = srcad.vjp(f, x, w)``: the pair ``(f(x, w), partial(P, x, w))``, ``P`` the
  gradient of ``sum(f(x, w) * dy)`` that ``srcad.vjp.__srcad_vjp_maker__`` makes now
  (``srcad.nested_vjp``); ``srcad.hvp(f, (x,), v)``: a call of the plain function srcad reads
  for ``srcad.hvp(f)``.

``inner`` (or ``f``) may be a lambda or ``functools.partial`` holding values of this function:
the derivative of the lifted function, the values held passed first, so the outer derivative
sees through both.

Imports gast, the standard library, :mod:`srcad.core`, :mod:`srcad.errors` and
:mod:`.jvp_spreads`.
"""

from __future__ import annotations

import inspect
import operator

import gast

from ..core import env, functions, ir
from ..core.ir import Const, Var
from ..core.walk import walk_nodes
from ..errors import SrcadError
from . import jvp_spreads


class Derivatives:
    """Calls of srcad's derivative makers inside the function lowered."""

    def make_derivative(self, maker, args, kwargs, node):
        """``srcad.grad(inner, ...)`` with constant arguments, made now: a constant. A
        function declaring itself srcad's maker under other keyword names
        (``__srcad_derivative_maker__ = (srcad.grad, {"argnum": "wrt"})``: a wrapper such as
        an autograd-compatible ``grad``) is read as that maker. ``inner`` may be a lambda (or
        ``functools.partial``) holding values of this function: the derivative of the lifted
        function, its ``wrt`` counted after the values held, called with them first, so the
        outer derivative sees through both."""
        maker, renames = getattr(maker, "__srcad_derivative_maker__", (maker, {}))
        if getattr(maker, "__name__", None) == "hvp" and (len(args) > 1 or {"x", "v"} & set(
                kwargs)):
            return self.hvp_at(maker, args, kwargs, node)
        renames = {"argnums": "wrt", "argnum": "wrt", **renames}  # JAX's and autograd's names
        kwargs = {renames.get(k, k): self.constant_tuple(a) for k, a in kwargs.items()}
        args = args[:1] + [self.constant_tuple(a) for a in args[1:]]
        atoms = list(args[1:]) + list(kwargs.values())
        if not args or not all(isinstance(a, Const) for a in atoms):
            return None
        rest = {k: a.value for k, a in kwargs.items()}
        head = args[0]
        if isinstance(head, Var) and head.name in self.classes and head.name not in \
                self.partials:  # grad(obj), obj's class has __call__: grad(lambda p: obj(p))
            head = self.called_object(head, node) or head
        if isinstance(head, Const):
            made = _readable(maker(head.value, *[a.value for a in args[1:]], **rest))
            name = f"{maker.__name__}_{getattr(head.value, '__name__', 'fn')}"
            return Const(made, self.bound_name(made, name))
        if not (isinstance(head, Var) and head.name in self.partials):
            return None
        inner, lead, lead_kw, _ = self.partials[head.name]
        try:
            bound = inspect.signature(maker).bind(inner, *[a.value for a in args[1:]], **rest)
        except TypeError:
            return None
        bound.apply_defaults()
        wrt = bound.arguments.get("wrt")
        if lead_kw or wrt is None:
            return None
        shift = len(lead)
        held = set(list(inspect.signature(inner).parameters)[:shift])
        if held & set(wrt if isinstance(wrt, (tuple, list)) else (wrt,)):
            return None  # a name of a value held, not a parameter of the function
        bound.arguments["wrt"] = tuple(w + shift if type(w) is int else w for w in wrt) \
            if isinstance(wrt, (tuple, list)) else wrt + shift if type(wrt) is int else wrt
        made = _readable(maker(*bound.args, **bound.kwargs))
        name = f"{maker.__name__}_{getattr(inner, '__name__', 'fn')}"
        return self.partial_value(Const(made, self.bound_name(made, name)), list(lead), {},
                                  node, None)

    def called_object(self, obj, node):
        """``grad(obj)`` of an object of a class lowering knows, with a ``__call__`` of plain
        parameters, named in this function: the lambda ``lambda p, q: obj(p, q)`` lowered (a
        function holding ``obj``, whose derivative sees through the object's fields); else
        ``None``."""
        call = self.class_attribute(self.classes[obj.name], "__call__")
        names = [k for k, v in self.env.items() if v == obj and k.isidentifier()]
        if not inspect.isfunction(call) or not names:
            return None
        params = list(inspect.signature(call).parameters.values())[1:]
        if any(p.kind is not p.POSITIONAL_OR_KEYWORD or p.default is not p.empty
               for p in params):
            return None
        args = [gast.Name(f"srcad_arg{i}", gast.Param(), None, None) for i in range(len(
            params))]
        body = gast.Call(gast.Name(names[0], gast.Load(), None, None), [
            gast.Name(a.id, gast.Load(), None, None) for a in args], [])
        made = gast.Lambda(gast.arguments(args, [], None, [], [], None, []), body)
        for part in walk_nodes(made):
            gast.copy_location(part, node)
        return self.expr(made)

    def transform_call(self, fn, args, kwargs, node):
        """``srcad.vjp(...)`` or ``srcad.jvp(...)`` read as below, and a call of what
        ``make_vjp(f)`` or ``make_jvp(f)`` made (:meth:`curried_call`), else None."""
        curried = getattr(fn, "__srcad_curried__", None) if callable(fn) else None
        if curried is not None and not kwargs:
            return self.curried_call(*curried, args, node)
        if getattr(fn, "__srcad_vjp_maker__", None) is not None:
            return self.vjp_call(fn, args, kwargs, node)
        if getattr(fn, "__srcad_call_maker__", None) is not None:
            return self.jvp_call(fn, args, kwargs, node)
        return None

    def curried_call(self, kind, maker, f, wrt, args, node):
        """``make_vjp(f, wrt)(x, w)``: ``srcad.vjp(f, x, w, wrt=wrt)`` (:meth:`vjp_call`), its
        pair swapped (autograd's order, ``(pullback, value)``); ``make_jvp(f, wrt)(x, w)``: a
        partial holding ``x, w`` of ``maker(f, wrt, 2)`` (``srcad.curried.pushforward``:
        ``(x, w, v) -> srcad.jvp(f, (x, w), (v,), wrt=(wrt,))``), so its call ``(v)`` is a
        call of ``srcad.jvp`` read as :meth:`jvp_call` does. ``f`` is a function (the lifted
        function of a lambda holding values, ``wrt`` counted after them: these come first)."""
        head = Const(f, self.bound_name(f, getattr(f, "__name__", None) or "fn"))
        if kind == "vjp":
            made = self.vjp_call(maker, [head] + list(args), {"wrt": Const(wrt)}, node)
            return None if made is None else ir.Prim(ir.BUILD_TUPLE, made.args[::-1])
        fn = maker(f, wrt, len(args))
        return self.partial_value(Const(fn, self.bound_name(fn, fn.__name__)), list(args), {},
                                  node, "pushforward")

    def flat_partial(self, fn_atom, args, kwargs):
        """``partial(p, *b, **j)`` of ``p = partial(g, *a, **k)`` made in this function is
        ``partial(g, *a, *b, **{**k, **j})``, as Python's ``functools.partial`` flattens
        itself: ``g``, the arguments held, the keywords held."""
        if isinstance(fn_atom, Var) and fn_atom.name in self.partials:
            inner, lead, lead_kw, spelling = self.partials[fn_atom.name]
            head = Const(inner, spelling or self.bound_name(inner, getattr(
                inner, "__name__", None) or "fn"))
            return head, list(lead) + list(args), {**lead_kw, **kwargs}
        return fn_atom, args, kwargs

    def jvp_call(self, jvp, args, kwargs, node):
        """``srcad.jvp(f, (x, w), (t,), wrt=...)`` with ``f``, ``wrt`` constants and the
        primals and tangents tuples built here: a call ``J(x, w, t)`` of the derivative
        object ``jvp.__srcad_call_maker__`` makes now (``srcad.nested.JvpOf``), whose
        generated code the sweeps differentiate at run time like a ``srcad.grad``'s (primals or
        tangents held in a name: read by position, :mod:`.jvp_spreads`). ``None``
        for another form (then a call of ``srcad.jvp`` itself, refused if differentiated)."""
        try:
            bound = inspect.signature(jvp).bind(*args, **kwargs)
        except TypeError:
            return None
        given = bound.arguments
        backend = given.get("backend", Const("python"))
        wrt = self.constant_tuple(given.get("wrt", Const(None)))
        head, lead = given["f"], []
        if not (isinstance(wrt, Const) and isinstance(backend, Const)
                and backend.value == "python"):
            return None
        if isinstance(head, Var) and head.name in self.partials:
            # a lambda (or partial) holding values of this function: the lifted function,
            # the values held passed first, as primals without tangents
            inner, lead, lead_kw, _ = self.partials[head.name]
            held = list(inspect.signature(inner).parameters)[:len(lead)]
            spec = wrt.value
            if lead_kw or isinstance(spec, str) and spec in held or isinstance(
                    spec, (tuple, list)) and set(spec) & set(held):
                return None
            head = Const(inner)
        elif not (isinstance(head, Const) and functions.is_function_value(head.value)):
            return None
        parts = []
        for atom in (given["primals"], given["tangents"]):
            if isinstance(atom, Var) and atom.name in self.tuples:
                parts.append(list(self.tuples[atom.name]))
            elif isinstance(atom, Const) and isinstance(atom.value, tuple):
                parts.append([self.bound_const(v, "arg") for v in atom.value])
            else:  # (outside28) a tuple made elsewhere, f fixing its length: read by position
                n = jvp_spreads.fixed_count(head.value)
                n = None if n is None else n - len(lead) if not parts else \
                    jvp_spreads.tangent_count(wrt.value, len(parts[0]))
                if not isinstance(atom, Var) or n is None or n < 0:
                    return None
                parts.append(jvp_spreads.items_by_position(
                    self, atom, n, node, "tangents" if parts else "primals"))
        spec, shift = wrt.value, len(lead)
        if shift:  # positions counted after the values held
            spec = tuple(range(shift, shift + len(parts[0]))) if spec is None else \
                spec + shift if type(spec) is int else \
                tuple(w + shift if type(w) is int else w for w in spec) \
                if isinstance(spec, (tuple, list)) else spec
        try:
            made = jvp.__srcad_call_maker__(head.value, spec, shift + len(parts[0]))
        except SrcadError as exc:  # at the user's line
            raise self.error(node, exc.message, hint=exc.hint, cls=type(exc)) from None
        return ir.Prim(made, list(lead) + parts[0] + parts[1], {}, spelling=self.bound_name(
            made, made.__name__))

    def hvp_at(self, hvp, args, kwargs, node):
        """``srcad.hvp(f, (x, w), v, wrt=...)`` with ``f`` and ``wrt`` constants and the point
        a tuple written here: a call of the plain function srcad
        reads for ``srcad.hvp(f, wrt=wrt)`` (``srcad.nested_vjp.plain_hvp``), with the point's
        items and ``v``. Another point (a name: one argument or a tuple of them?) is refused."""
        try:
            given = inspect.signature(hvp).bind(*args, **kwargs).arguments
        except TypeError:
            return None
        head, wrt = given["f"], self.constant_tuple(given.get("wrt", Const(0)))
        point, v = given.get("x"), given.get("v")
        if not (isinstance(head, Const) and isinstance(wrt, Const)) or point is None or \
                v is None:
            return None
        if isinstance(point, Var) and point.name in self.tuples:
            items = list(self.tuples[point.name])
        elif isinstance(point, Const) and isinstance(point.value, tuple):
            items = [self.bound_const(a, "arg") for a in point.value]
        else:
            raise self.error(node, "srcad.hvp(f, x, v) with the point x a value that may be a "
                             "tuple of arguments or one argument (srcad makes the code before "
                             "it sees it)", hint="write the tuple in the call: "
                             "srcad.hvp(f, (x,), v), or srcad.hvp(f)(x, v)")
        plain = functions.plain_form(hvp(head.value, wrt=wrt.value))
        if plain is None:
            return None
        return self.call_object(plain, None, items + [v], {}, node)

    def vjp_call(self, vjp, args, kwargs, node):
        """``srcad.vjp(f, x, w, wrt=...)`` with ``f``, ``wrt`` (and ``has_aux``) constants: the
        pair ``(f(x, w), pullback)``, ``pullback`` a partial of the derivative
        ``vjp.__srcad_vjp_maker__`` makes now (``srcad.nested_vjp.make_pullback``) holding the
        primals, so ``pullback(dy)`` is a call of a derivative, differentiated again. With
        ``has_aux=True`` the triple ``(value, pullback, aux)``. ``None`` for another form."""
        try:
            bound = inspect.signature(vjp).bind(*args, **kwargs)
        except TypeError:
            return None
        given = bound.arguments
        opts = [self.constant_tuple(given.get(k, Const(d)))
                for k, d in (("wrt", None), ("has_aux", False), ("backend", "python"))]
        if not all(isinstance(a, Const) for a in opts) or opts[2].value != "python":
            return None
        wrt, has_aux = opts[0].value, opts[1].value
        head, primals, lead = given["f"], list(given.get("args", ())), []
        if isinstance(head, Var) and head.name in self.partials:
            fn, lead, lead_kw, spelling = self.partials[head.name]
            if lead_kw:
                return None
            lead = list(lead)
        elif isinstance(head, Const) and functions.is_function_value(head.value):
            fn, spelling = head.value, head.spelling
        else:
            return None
        line = getattr(node, "lineno", None)
        name = getattr(fn, "__name__", None) or "f"
        where = (self.source.filename, line, name)
        out = self.assign(self.call_object(fn, spelling, lead + primals, {}, node), "out", node)
        value = out
        if has_aux:  # f returns (value, aux): the pullback's is the value's
            value = self.assign(ir.Prim(operator.getitem, [out, Const(0)]), "value", node)
            aux = self.assign(ir.Prim(operator.getitem, [out, Const(1)]), "aux", node)
        check = vjp.__srcad_vjp_maker__.check_value  # before the pullback's code is read
        self.emit(ir.Assign(None, ir.Prim(check, [value, self.bound_const(where, "where")],
                                          spelling=self.bound_name(check, "check_vjp_value")),
                            line, effect=True))
        try:
            made = vjp.__srcad_vjp_maker__(fn, len(lead), len(lead) + len(primals), wrt, where,
                                              has_aux)
        except SrcadError as exc:  # at the user's line
            raise self.error(node, exc.message, hint=exc.hint, cls=type(exc)) from None
        if made is None:
            raise self.error(node, f"srcad.vjp of {name} with wrt={wrt!r}, which names no "
                             f"argument of the {len(primals)} passed", hint="give wrt as the "
                             "position among the arguments passed (or a tuple of them), or a "
                             "parameter's name")
        pullback = self.partial_value(Const(made, self.bound_name(made, f"pullback_{name}")),
                                      lead + primals, {}, node, "pullback")
        items = [value, pullback] + ([aux] if has_aux else [])
        return ir.Prim(ir.BUILD_TUPLE, items)

    def read_live(self, atom):
        """Whether constant ``atom`` is a name read when the code runs (not to be held)."""
        name = atom.spelling
        return bool(name) and name not in self.lifted and env.read_live(atom.value)

    def constant_tuple(self, atom):
        """``atom``, or for a tuple built here of constants (``wrt=(0, 1)``), that constant."""
        items = self.tuples.get(atom.name) if isinstance(atom, Var) else None
        if items is not None and all(isinstance(i, Const) for i in items):
            return Const(tuple(i.value for i in items))
        return atom


def _readable(made):
    """A derivative made while lowering, as srcad calls it: a Jacobian or Hessian as the plain
    function srcad reads for it (``__srcad_plain__``: columns by ``srcad.jvp``), if it has one."""
    plain = functions.plain_form(made)
    return made if plain is None else plain

