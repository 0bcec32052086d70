"""The soundness check: nothing that reads a gradient-carrying value is treated as a constant.

Runs after :mod:`srcad.analyse`, before any code is generated (both modes). After it, every
operation that reads a *varied* value (one that depends on a ``wrt`` argument through
differentiable operations) and whose result or effect can reach the output is one of:

* a Python operator, container build, or subscript with a constant-valued index;
* a call whose exact form a rule handles: the arguments bind to the rule's signature, every
  varied argument lands on a parameter with a template, a parameter declared zero-derivative
  (``zero=``/``shape_only=`` in :func:`srcad.rules.registry.defvjp`), or an integer-valued
  parameter (``axis``, ``dtype``, ...: NumPy refuses floats there), and ``out=`` is absent;
* a function declared piecewise constant (:func:`srcad.rules.registry.nondiff`);
* a call of a user function, which srcad differentiates in turn (one with a rule is its rule's,
  in every form: :mod:`srcad.analysis.user_calls` decides, for every pass and both sweeps);
* an ``append``/``pop`` on a local list, which the sweeps differentiate.

Anything else raises a :class:`~srcad.errors.MissingRuleError` naming the file, line and
construct. This is the one place that decides; the sweeps may assume it.

Imports ``srcad.core``, ``srcad.errors``, ``srcad.rules``, ``srcad.runtime`` and its neighbours
``srcad.analysis.dtypes``, ``.memory`` and ``.user_calls`` (and nothing above
its layer).
"""

from __future__ import annotations

import ast
import functools
import operator

from ..core import functions, ir
from ..core.kinds import ARRAY, OTHER, SCALAR, SEQ
from ..core.walk import walk_nodes
from ..errors import MissingRuleError
from ..rules import registry
from ..rules.registry import _PURE_MARKERS
from ..runtime import family_of
from ..runtime.derivatives import call_value
from ..runtime.spread_calls import star_call
from . import effects
from .dtypes import (
    augmented_operands,
    inexact_atom,
    inexact_type,
    inexact_values,
    may_hold_ints,
)
from .memory_tables import safe_in
from .user_calls import bind_call, user_callee
from .write_names import shown

# a string made of a value (for a message) changes nothing: dropped when unused, and read
# only where it goes (print's, which changes nothing either: see _reaching)
_PURE_MARKERS.update((str, repr))

#: parameters that only take integers, booleans, strings or dtypes (NumPy raises on a float),
#: so a value reaching them carries no derivative
DISCRETE = frozenset({
    "axis", "axes", "axis1", "axis2", "keepdims", "dtype", "order", "copy", "subok", "ndmin",
    "casting", "kind", "optimize", "source", "destination", "mode", "shape", "newshape", "reps",
    "repeats", "shift", "k", "offset", "i", "j", "m", "indices_or_sections", "pad_width",
    "index", "upper", "condition", "c",
})

#: operators declared piecewise constant (numbers, booleans) that on dicts and sets build a
#: new container of their operands' values
_OPERATOR_SIGNS = {operator.or_: "|", operator.and_: "&", operator.xor: "^",
                   operator.sub: "-"}
_CONTAINER_OPERATORS = frozenset(_OPERATOR_SIGNS)

#: method calls the sweeps differentiate on a local list
_LIST_METHODS = {"append", "pop"}


def check(fn: ir.Function, analysis, forward=False):
    """Raise a SrcadError at the first operation that would drop a gradient."""
    Check(fn, analysis, forward).run()


class Check:
    def __init__(self, fn, analysis, forward=False):
        self.fn = fn
        self.forward = forward
        self.an = analysis
        self.reaching = _reaching(fn)
        self._inexact = None

    @functools.cached_property
    def phis(self):
        """Each merge's target: its sources."""
        return {p.target: p.sources for s in ir.walk(self.fn.body)
                for p in getattr(s, "phis", ())}

    @property
    def inexact(self):
        """The names certainly holding floats (:mod:`srcad.analysis.dtypes`), once asked."""
        if self._inexact is None:
            self._inexact = inexact_values(self.an)
        return self._inexact

    def varied(self, atom):
        return isinstance(atom, ir.Var) and atom.name in self.an.varied

    def run(self):
        for stmt in ir.walk(self.fn.body):
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim):
                self.prim(stmt, stmt.value)
                self.augmented_dtype(stmt)
            elif isinstance(stmt, ir.SetItem):
                self.number_write(stmt)
                self.index(stmt, stmt.obj, stmt.index, matters=True)
                self.write_dtype(stmt)

    # ------------------------------------------------------------------ one operation

    def prim(self, stmt, prim):
        fn = prim.fn
        varied = [a for a in prim.operands() if a.name in self.an.varied]
        if isinstance(fn, ir.Build) or fn is ir.ASSERT:
            return
        if not varied and not _given(prim.kwargs.get("out")):
            return
        matters = self.matters(stmt, prim, varied)
        if isinstance(fn, ir.BoolOp):
            if matters:
                raise self.error(stmt, f"'{fn.word}' of a differentiated value",
                                 "write 'a if cond else b' with an explicit comparison")
            return
        if fn is operator.getitem:
            self.index(stmt, *prim.args, matters=matters)
            return
        if isinstance(fn, ir.Method):
            if fn.name in _LIST_METHODS and isinstance(prim.args[0], ir.Var) and \
                    fn.name not in registry.methods:
                return
            fn = registry.methods.get(fn.name, fn)
        elif isinstance(fn, ir.Attr):
            fn = registry.attributes.get(fn.name, fn)
        if safe_in(fn, registry.samplers) and varied:
            raise self.error(stmt, f"{_name(prim)}(...) of a value that carries a gradient: "
                             "srcad gives random samplers no derivative in their parameters",
                             "reparameterise: draw from a fixed distribution and transform "
                             "the draw, e.g. mu + sigma * np.random.standard_normal(size)")
        if self.an.piecewise_constant(fn, prim):
            if matters and safe_in(fn, registry.real_only) and self.an.any_complex(prim):
                raise self.complex_error(stmt, prim)
            if matters and safe_in(fn, _CONTAINER_OPERATORS) and any(
                    self.an.kind(a) not in (SCALAR, ARRAY) for a in varied):
                # piecewise constant in numbers, but d | e merges dicts, holding their values
                raise self.error(stmt, f"'{_OPERATOR_SIGNS[fn]}' of a container that holds "
                                 "differentiated values (d | e merges dicts)",
                                 "build the new dict: {**d, **e}")
            return
        rule, bound = registry.find(fn, prim.args, prim.kwargs)
        if rule is not None:
            if matters and self.an.complex and self.an.any_complex(prim):
                rule = self.an.rule_form(rule, prim)
                if not (rule.complex_ok or rule.complex_rule is not None):
                    raise self.complex_error(stmt, prim)
            self.rule_call(stmt, prim, rule, bound, matters)
            return
        if functions.is_derivative(fn):
            return  # both modes differentiate its generated code at run time
        if fn is call_value and self.varied(prim.args[1]):
            raise self.error(stmt, "calling a function taken from a container made from "
                             "differentiated values (a lambda or closure reading them, say): "
                             "srcad meets the function only when the code runs, and could not "
                             "follow the values it holds",
                             "pass the values the function needs as arguments: f(x, w) "
                             "rather than a function made from w")
        if fn is star_call and self.varied(prim.args[1]):  # x.reshape(*s), x differentiated:
            raise missing_rule(self.fn.source, stmt, prim)  # the function holds the value
        if functions.splits_again(fn):
            return  # a derivative's code calling a derivative, differentiated in turn
        if user_callee(fn):
            if not self.reaches(stmt) and not self.writes_nothing(prim):
                # any varied argument: a number stored into a global or an argument's
                # container is read back later with no gradient as surely as an array
                raise self.error(stmt, f"{_name(prim)}(...) called for its effect: it may "
                                 "store a differentiated value where srcad does not follow it "
                                 "(an argument's container, a global, an attribute)",
                                 _effect_hint(fn))
            return
        if not matters:
            return
        if fn is functools.partial and _identity_only(self.fn, stmt.target):
            return  # a function holding values, only told apart from others (g is f1)
        if registry.has_rule(fn):
            raise self.error(stmt, f"this call form of {_name(prim)} "
                             f"(srcad's rules take {_forms(fn)})",
                             "write the call in one of those forms; for out= assign the "
                             "result instead")
        raise missing_rule(self.fn.source, stmt, prim)

    def index(self, stmt, obj, index, matters):
        """A list or an array refuses a float index (a value used as one is an integer, with
        no derivative); anything else indexed by a differentiated value (``np.r_[x, y]``, a
        user object) is refused."""
        kind = self.an.kind(obj)
        if not matters or kind in (SEQ, ARRAY) or isinstance(obj, ir.Var) and kind != OTHER:
            return  # a local of unknown kind: gradients srcad built (lists, arrays)
        if any(self.varied(a) for a in ir.atoms_in(index)):
            raise self.error(stmt, f"{shown(self.fn, obj)}[...] indexed by a differentiated "
                             "value",
                             "for np.r_[a, b] write np.concatenate([a, b]), for np.c_[a, b] "
                             "np.column_stack([a, b]); otherwise index with integers")

    def number_write(self, stmt):
        """``x[i] = v`` into a parameter given a number (the code is made for the argument's
        type): Python raises TypeError there ('float' object does not support item assignment);
        refused at the line rather than failing in the generated copy of ``x``."""
        obj = stmt.obj
        if not (isinstance(obj, ir.Var) and obj.name in self.fn.params
                and self.an.kind(obj) == SCALAR):
            return
        if (getattr(self.fn.source, "filename", None) or "").startswith("<srcad "):
            return  # srcad's own code
        obj = shown(self.fn, obj)
        raise self.error(stmt, f"{obj}[...] = ... writes into {obj}, which is given a number "
                         "here: Python raises TypeError (a number does not support item "
                         "assignment)", f"pass an array for {obj} (np.array([...], "
                         "dtype=float)), or build a new value instead of writing into it")

    def write_dtype(self, stmt):
        """``y[i] = v`` of a differentiated ``v`` into an array NumPy may hold integers or
        booleans in: the value is truncated there (a zero derivative), which srcad's reading
        of the write does not see; refused unless ``y`` is certainly a float array."""
        if not self.varied(stmt.value) or self.an.kind(stmt.obj) in (SEQ, SCALAR, OTHER):
            return  # (a list holds what is put in it)
        filename = getattr(self.fn.source, "filename", None) or ""
        if filename.startswith("<srcad "):
            return  # srcad's own code: its writes were checked here when it was made, or
            # are writes of gradients into the gradients it made
        if isinstance(stmt.obj, ir.Var) and stmt.obj.name in self.inexact:
            return
        obj = shown(self.fn, stmt.obj)  # (M[1], not t_6; y, not y_2)
        raise self.error(stmt, f"writing a differentiated value into {obj}, an array "
                         "that may hold integers or booleans: NumPy converts the value to its "
                         "dtype (3.7 -> 3), which srcad cannot differentiate",
                         "make the array a float array (np.zeros(n) is one; y = "
                         "y.astype(float) converts one), or wrap the value in "
                         "srcad.stop_gradient(...) if no gradient should flow")

    def augmented_dtype(self, stmt):
        """A write in place of a differentiated or float ``v`` into ``y`` that may be an array
        of integers or booleans, where no cast is written: NumPy raises there (it does not
        cast a float into an int array, UFuncTypeError) where srcad's new value would be
        computed in floats; refused unless ``y`` is certainly a float array or not an array
        (a number, or a merge of numbers and float arrays: ``total = 0`` then ``total +=
        row`` in a loop). ``y op= v`` itself carries the cast
        (:mod:`srcad.frontend.augmented_casts`: NumPy's own error where the plain run raises,
        for every backend), so what is left here is ``np.add.at(y, i, v)``."""
        before = getattr(self.fn, "augmented", {}).get(stmt.target)
        if before is None or getattr(stmt, "kept_dtype", None):
            return  # (marked: the cast raises NumPy's own error where the plain run raises)
        # y *= 0.5 of an int array: NumPy raises too; y /= 2 gives floats: likewise
        floats = stmt.value.fn is operator.truediv or any(
            inexact_atom(a, self.inexact) for a in augmented_operands(stmt.value, before))
        if not floats and not any(self.varied(a) for a in stmt.value.operands()):
            return
        if self.an.kind(ir.Var(before)) in (SEQ, SCALAR, OTHER) or not may_hold_ints(
                self.an, self.inexact, before, self.phis):
            return
        if (getattr(self.fn.source, "filename", None) or "").startswith("<srcad "):
            return  # srcad's own code
        obj = shown(self.fn, ir.Var(before))
        what = "a float" if floats else "a differentiated"
        raise self.error(stmt, f"an augmented assignment of {what} value into "
                         f"{obj}, an array that may hold integers or booleans: NumPy adds in "
                         "place and raises there (it does not cast floats into an integer "
                         "array), where srcad would compute in floats",
                         f"make {obj} a float array ({obj} = {obj}.astype(float), or "
                         f"np.zeros(n) to start), or write {obj} = {obj} + ... for a new array")

    def rule_call(self, stmt, prim, rule, bound, matters):
        if _given(bound.get("out")):
            raise self.error(stmt, f"{_name(prim)}(..., out=...) writes into an array srcad "
                             "would not see change", "assign the result: y = f(...) "
                             "(or y[...] = f(...) to fill an existing array)")
        if not matters:
            return
        dtype = bound.get("dtype")
        if _given(dtype) and not _reads_dtype(rule) and not (
                isinstance(dtype, ir.Const) and inexact_type(dtype.value)) and any(
                self.varied(a) for p, a in bound.items() if p not in DISCRETE
                for a in ir.atoms_in(a)):
            raise self.error(stmt, f"{_name(prim)}(..., dtype={dtype}) of a differentiated "
                             "value: a dtype that is not a float type converts it (3.7 -> 3), "
                             "which srcad's rule does not differentiate",
                             "compute in floats and convert the result, or wrap the value in "
                             "srcad.stop_gradient(...) if no gradient should flow")
        zero = set(rule.templates) | set(rule.shape_only) | set(rule.zero)
        for param, atom in bound.items():
            if param in zero or param in DISCRETE:
                continue
            if any(self.varied(a) for a in ir.atoms_in(atom)):
                raise self.error(stmt, f"no derivative of {_name(prim)} with respect to "
                                 f"its argument '{param}'",
                                 f"pass a constant as '{param}', or give the function a rule "
                                 "for it with srcad.extend.defvjp")
        for param, accepted in rule.fixed.items():  # hermitian=False written out: its rule's
            atom = bound.get(param)  # (a value known only when the code runs: checked then)
            if isinstance(atom, ir.Const) and not _accepted(atom.value, accepted):
                raise self.error(stmt, f"{_name(prim)}(..., {param}={atom.value!r}): srcad's "
                                 f"rule holds only for {param}=" + " or ".join(
                                     repr(v) for v in accepted),
                                 f"leave {param} out (or write {param}={accepted[0]!r}), or "
                                 "wrap the call in srcad.stop_gradient(...) if no gradient "
                                 "should flow")

    def complex_error(self, stmt, prim):
        return self.error(
            stmt, f"{_name(prim)} of a value that may be complex: srcad's rule for it is "
            "written for real numbers (it compares, or its complex derivative is not written)",
            "take .real, .imag or np.abs(...) of the value first, or write the function with "
            "operations srcad differentiates for complex numbers (docs/supported-python.md)")

    # ------------------------------------------------------------------ helpers

    def matters(self, stmt, prim, varied):
        """Can this operation's result or effect reach the output?"""
        if self.reaches(stmt):
            return True
        if stmt.target is None or getattr(stmt, "effect", False):
            return True  # an effect on something
        return any(self.an.kind(a) not in (SCALAR, OTHER) for a in varied) and \
            not registry.is_pure(prim)

    def writes_nothing(self, prim):
        """Whether the user function ``prim`` calls provably changes nothing its caller can
        see (:mod:`srcad.analysis.effects`): then a call of it whose result is not used has
        no effect on the output either."""
        callees = self.an.callees
        if callees is None:
            return False
        call = bind_call(prim, self.an.kind)
        return call is not None and (callees.writes_nothing(prim.fn, call.kinds, call.arity) or
                                     effects.own_objects_only(self.fn, self.an, prim,
                                                              call.kinds, call.arity))

    def reaches(self, stmt):
        return stmt.target is not None and stmt.target in self.reaching

    def error(self, stmt, what, hint):
        return _error(self.fn.source, stmt, what, hint)


def missing_rule(src, stmt, prim):
    """The error for a call with neither a rule nor source srcad can read (the sweeps use
    it too, for what reaches them)."""
    name = _name(prim)
    if prim.fn == ir.Method("format"):
        return _error(src, stmt, "a value turned into a string (an f-string or str.format) "
                      "cannot carry a gradient back",
                      "compute with the number itself; a string is fine for messages")
    kept = getattr(src, "record_refusals", {}).get(getattr(stmt, "line", None))
    if kept is not None and (isinstance(prim.fn, type) or getattr(
            prim.fn, "__srcad_builds_record__", False)):  # a record passed on, not followed
        return kept  # (srcad.frontend.lower_records: the refusal of the callee's copy)
    helper = family_of(prim.fn) == "numpy"  # grad_* helpers
    opaque = None if helper else functions.opaque(prim.fn, name)
    if opaque is not None:
        return _error(src, stmt, *opaque)
    if isinstance(prim.fn, type) and user_callee(getattr(prim.fn, "__init__", None)):
        return _error(src, stmt, f"an object of your class {name} built from differentiated "
                      "values: srcad follows objects built in the function only for "
                      "dataclasses and named tuples (their fields read, their methods called)",
                      f"make {name} a dataclass, pass the values to a function of yours "
                      "instead, or build the object outside and differentiate its bound "
                      "method (srcad.grad(obj.loss))")
    if isinstance(prim.fn, ir.Method) and prim.fn.name not in registry.methods:
        return _error(src, stmt, f"no derivative rule for {name}(), a method of an object "
                      "whose class srcad does not know where it makes the code (it reads the "
                      "methods of an argument's class, of the bound method's object, of a "
                      "global, of an object built here, and of the objects those hold in "
                      "attributes, or in a list, tuple or dict of objects of one class: an "
                      "attribute, an argument, a global)",
                      f"pass the object to the function you differentiate, or call the "
                      f"class's function (SomeClass{name}(obj, ...)); a library's method: give "
                      f"{name} a rule with @srcad.extend.defvjp, or wrap the value in "
                      "srcad.stop_gradient(...) if no gradient should flow through it")
    return _error(src, stmt, f"no derivative rule for {name}",
                  f"give {name} a rule with @srcad.extend.defvjp, or wrap the value in "
                  "srcad.stop_gradient(...) if no gradient should flow through it")


def _error(src, stmt, what, hint):
    line = getattr(stmt, "line", None)
    return MissingRuleError(what, filename=src.filename if src else None, lineno=line,
                            construct=src.line_text(line) if src and line else None, hint=hint)


def _accepted(value, accepted):
    """Whether the constant ``value`` is one of ``accepted`` (of its type: 0 is not False)."""
    return any(type(value) is type(v) and value == v or value is v for v in accepted)


def _given(atom):
    """Is this optional argument (``out=``) passed, not absent or ``None``?"""
    return atom is not None and not (isinstance(atom, ir.Const) and atom.value is None)


def _effect_hint(fn):
    """The rewrite for a call of a function of yours made for its effect: return the value;
    for a method of a class (``model.set_params(w)`` storing ``w`` in the object, read back by
    ``model(x)``: corpus29's PINN), build the object in the function from the new values,
    which srcad follows field by field (``Model(w)(x)``)."""
    owner, _, name = getattr(fn, "__qualname__", "").rpartition(".")
    if owner and not owner.endswith("<locals>"):
        return (f"return the new value instead of storing it (y = helper(...)); to give an "
                f"object new values, build it in the function from them: "
                f"{owner.rpartition('.')[2]}(w).method(x) rather than obj.{name}(w); "
                "obj.method(x)")
    return "return the new value instead of storing it: y = helper(...)"


def _name(prim):
    if isinstance(prim.fn, (ir.Method, ir.Attr)):
        return f".{prim.fn.name}"
    return prim.spelling or getattr(prim.fn, "__name__", repr(prim.fn))


def _reads_dtype(rule):
    """Whether a rule's templates read the dtype (``grad_astype(g, a, dtype)``): it gives the
    derivative of the conversion itself."""
    return any(isinstance(n, ast.Name) and n.id == "dtype" or isinstance(
        n, ast.Attribute) and n.attr == "dtype" for t in rule.templates.values()
        for n in walk_nodes(t))


def _forms(fn):
    rules = registry.rules_for(fn)
    return " or ".join(f"({', '.join(r.params)})" for r in rules) or "no form"


def _identity_only(fn, name):
    """Whether the value ``name`` (a ``functools.partial`` holding differentiated values) is
    used only to be told apart from other functions: by ``is``/``is not`` (a bool, no
    derivative), counted (``len``), stored in a tuple or list whose items are read only so,
    merged by a phi read only so. The choice of the callee a list of such functions is lowered to
    (``same = fs[i] is fn``), read again when its generated code is differentiated again
    (the calls themselves are calls of the function with the values passed)."""
    uses = {}
    for stmt in ir.walk(fn.body):
        if isinstance(stmt, ir.Assign):
            for a in ir.reads_of(stmt):
                uses.setdefault(a.name, []).append(stmt)
        elif isinstance(stmt, ir.SetItem):
            for a in ir.reads_of(stmt):
                uses.setdefault(a.name, []).append(None)  # stored: not followed
        elif isinstance(stmt, ir.Return):
            for a in ir.atoms_in(stmt.value):
                uses.setdefault(a.name, []).append(None)
        for phi in getattr(stmt, "phis", ()):
            for src in phi.sources:
                for a in ir.atoms_in(src) if src is not None else ():
                    uses.setdefault(a.name, []).append(("phi", phi.target))
        for part in (getattr(stmt, "test", None), getattr(stmt, "exit", None),
                     getattr(stmt, "iter", None)):
            for a in ir.atoms_in(part) if part is not None else ():
                uses.setdefault(a.name, []).append(None)
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for use in uses.get(current, ()):
            if isinstance(use, tuple):
                todo.append(use[1])
                continue
            prim = getattr(use, "value", None)
            if use is None or not isinstance(prim, ir.Prim) or use.target is None:
                return False
            if prim.fn in (operator.is_, operator.is_not, len):
                continue  # (a bool, a count: no derivative)
            if prim.fn in (ir.BUILD_TUPLE, ir.BUILD_LIST) or prim.fn is operator.getitem and \
                    isinstance(prim.args[0], ir.Var) and prim.args[0].name == current:
                todo.append(use.target)
                continue
            return False
    return True


def _reaching(fn):
    """Names whose value can reach a returned value, through any operation (differentiable
    or not) and through the objects that calls and writes may change."""
    deps = {}

    def add(target, atoms):
        if target is not None:
            deps.setdefault(target, set()).update(a.name for a in atoms)

    for stmt in ir.walk(fn.body):
        if isinstance(stmt, ir.Assign):
            reads = ir.reads_of(stmt)
            add(stmt.target, reads)
            if isinstance(stmt.value, ir.Prim) and (stmt.target is None or stmt.effect) and \
                    stmt.value.fn is not print:  # print(...) changes none of them
                # an effect: the objects it is given may change
                for a in reads:
                    add(a.name, reads)
        elif isinstance(stmt, ir.SetItem):
            add(stmt.target, ir.reads_of(stmt))
        elif isinstance(stmt, (ir.If, ir.Loop)):
            for phi in stmt.phis:
                add(phi.target, [a for s in phi.sources for a in ir.atoms_in(s)])
            if isinstance(stmt, ir.Loop) and stmt.target:
                add(stmt.target, ir.reads_of(stmt))
    returned = [a.name for ret in ir.walk(fn.body) if isinstance(ret, ir.Return)
                for a in ir.atoms_in(ret.value)]
    return ir.closure(returned, deps)
