"""The derivative-rule registry: the mechanism (the rules themselves live beside it).

A rule gives, for one function, the gradient flowing into each argument as a small Python
expression (a *template*) written in terms of:

* the function's parameter names (``x``, ``a``, ``b``, ...),
* ``g``, the gradient flowing into the result, and
* ``ans``, the result itself (so ``exp`` and ``tanh`` reuse their forward value).

A template may call the *kind-generic* names of :data:`GENERIC` (``cos``, ``log``, ``sign``,
...): srcad writes ``math.cos`` for Python scalars and ``np.cos`` for arrays. ``None`` means the
derivative is zero: no code is generated for it. A parameter left out (neither a template nor
``None`` nor in ``zero=``) takes no differentiated value: :mod:`srcad.soundness` refuses one
there, so a forgotten template is an error, never a silent zero.

    defvjp(math.sin, "x", x="g * cos(x)")
    defvjp(operator.mul, "a, b", a="g * b", b="g * a", broadcast=True)

``broadcast=True`` marks element-wise functions whose arguments may broadcast; srcad then
sums each argument's gradient back to the argument's shape, where shapes can differ.

``kind=`` tells the analysis what the result is, so the generated code can be plain:
``"array"``, ``"seq"``, ``"scalar"``, or ``"reduction"`` (a number when ``axis`` is None and
``keepdims`` false, an array otherwise: ``np.sum``, ``np.max``, ...).

``complex_ok=True`` says the templates hold for complex values as written: they are written
in ``d/dz`` and srcad follows JAX's convention, in which the gradient flowing into ``z`` of
``y = f(z)`` for a holomorphic ``f`` is ``g * f'(z)`` (no conjugate; see docs/supported-python.md).
A rule without it is refused where a value may be complex (a comparison-based rule, a
function whose complex derivative nobody wrote); a non-holomorphic function (``abs``,
``np.real``, ``np.conj``) gives its complex form as a rule of its own
(:func:`srcad.rules.numpy_complex.defcomplex`). ``complex_out`` says what the result is,
``"always"`` complex (``np.fft.fft``) or ``"never"`` (``np.abs``), where it does not follow
the operands.

``literal=`` maps a parameter to templates used instead of the general ones where that
parameter is a nonzero number literal in the call (``1.0 / t``): a derivative written from
the result and the literal, ``b="-g * ans * ans / a"``, does not read ``b``, so the backward
sweep need not keep it.

``fixed=`` maps a parameter to the constant values at which the templates hold
(``fixed={"hermitian": (False,)}`` for ``np.linalg.pinv``): a call writing one of them out
(``hermitian=False``, the default) is accepted, another constant is refused where the call is
differentiated (:mod:`srcad.analysis.soundness`, at the user's line, saying what to write),
and a value known only when the code runs is checked then, where a gradient flows through the
call (:func:`srcad.transform.templates.instantiate` wraps the instantiated template in
``fixed_check``). A parameter the signature does not name is added to it as a keyword-only
one (the first value its default); NumPy's ufuncs take their keywords ``out=None``,
``where=True``, ``casting="same_kind"``, ``order="K"``, ``dtype=None``, ``subok=True``,
``signature=None`` so (:data:`UFUNC_FIXED`).

``ranks=`` maps the ranks of the parameters (``(2, 1)``: a matrix and a vector) to templates
for arrays of exactly those ranks, used instead of the general ones when the analysis knows
the ranks: ``a @ b`` then reads ``np.outer(g, b)`` rather than a helper that looks at the
shapes on every call.

Imports ``srcad.core``, ``srcad.errors``, :mod:`.random_methods` (and nothing above its layer).
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import math
import sys

import numpy as np

from ..errors import RuleError
from .random_methods import STATE_METHODS

#: names a template may call; each maps to (scalar spelling, array spelling)
GENERIC = {
    name: (f"math.{name}", f"np.{name}")
    for name in ("sin", "cos", "tan", "exp", "log", "sqrt", "sinh", "cosh", "tanh", "log2",
                 "log10", "log1p", "expm1")
}
GENERIC.update({
    "sign": ("sign", "np.sign"),
    "pi": ("math.pi", "np.pi"),
    "erf_": ("math.erf", "erf"),
    "where": ("where", "np.where"),
})

#: the base's gradient of ``a ** b``: ``b * a ** (b - 1)``, except where ``a`` and ``b`` are
#: both 0, where ``0 ** -1`` would make ``0 * inf = nan`` of a derivative that is 0 (``x ** 0``
#: is 1 everywhere). Guarded on both, not on ``b`` alone: ``where(b, b - 1, 1.0)`` made the
#: mixed second derivative at ``b == 0`` ``a`` instead of ``1 / a`` (the exponent ``b - 1`` is
#: kept where ``a`` is not 0, so its derivative in ``b`` is too).
POW_EXPONENT = "where(b, b - 1, where(a, b - 1, 1.0))"
POW_BASE = f"g * b * a ** {POW_EXPONENT}"

#: modules whose functions raise on numbers where NumPy's give inf or nan (``math.log(0.0)``)
_PYTHON_NUMBERS = frozenset(("math", "cmath", "builtins", "_operator", "operator"))

#: the parts of a :class:`Rule` read from what was written only when first asked for
_PARSED = frozenset(("signature", "params", "templates", "zero", "shape_only", "uniform", "jvp",
                     "ranks", "literal"))


class Rule:
    """The vector-Jacobian templates of one function for one signature."""

    def __init__(self, fn, signature, templates, broadcast=False, kind=None, name=None,
                 jvp=None, shape_only=(), uniform=None, ranks=None, zero=(), no_forward=None,
                 complex_ok=False, complex_out=None, pieces=None, literal=None, fixed=None):
        self.fn = fn
        #: parameter -> the constant values the templates hold at (the module docstring)
        self.fixed = {p: tuple(v) for p, v in (fixed or {}).items()}
        # (sequence parameter, axis parameter) of a function joining arrays along an axis: the
        # gradient of the sequence is the list of consecutive slices of ``g`` along the axis,
        # one per array (what the template's helper computes); the reverse sweep writes the
        # slices itself where it knows the arrays (Rules.joined_pieces)
        self.pieces = pieces
        self.complex_ok = complex_ok  # the templates hold for complex values as written
        self.complex_out = complex_out  # "always", "never", None: as the operands
        self.complex_rule = None  # the form used when an operand may be complex
        self.name = name or getattr(fn, "__qualname__", repr(fn))
        self.broadcast = broadcast
        self.kind = kind
        # why this rule has no forward form, if it has none (tests/test_rule_parity.py
        # accepts a rule without one only with a reason here)
        self.no_forward = no_forward
        self.namespace = {}  # names a user rule's templates use, from where it was defined
        self.user = False  # made by srcad.extend.defvjp (not one of srcad's own rules)
        # the rule as written; read (signature and templates parsed) the first time one of
        # _PARSED is asked for, so that ``import srcad`` parses only the rules a program uses
        self._written = (signature, templates, jvp, shape_only, uniform, ranks, zero, literal)

    @property
    def numpy_numbers(self):
        """Whether the function gives inf or nan, never an exception, on numbers (NumPy's and
        SciPy's do; ``math``'s and Python's operators raise): its derivative on numbers must
        too (templates.instantiate). A user's rule is instantiated as written."""
        return not self.user and getattr(self.fn, "__module__", None) not in _PYTHON_NUMBERS \
            and not getattr(self.fn, "__srcad_python_numbers__", False)

    def __getattr__(self, attr):
        # only called for attributes not yet set: the parsed parts of the rule
        if attr in _PARSED and "_written" in self.__dict__:
            self._parse_written()
            return self.__dict__[attr]
        raise AttributeError(attr)

    def _parse_written(self):
        # (``_written`` goes last: a rule read by two threads at once is parsed twice, the same)
        written = self.__dict__.get("_written")
        if written is None:  # another thread finished it
            return
        signature, templates, jvp, shape_only, uniform, ranks, zero, literal = written
        self.signature = _signature(signature, self.fn)
        self.params = list(self.signature.parameters)
        if self.fixed:  # (those the signature does not name are added: not in params)
            self.signature = _with_fixed(self.signature, self.fixed, self.fn)
        reserved = {"g", "ans"} & set(self.params)
        if reserved:
            raise RuleError(f"rule for {self.name}: a parameter may not be named "
                            f"{sorted(reserved)[0]!r} (templates use it for the gradient of "
                            "the result / the result)", hint="rename it in the signature")
        unknown = set(templates) - set(self.params)
        if unknown:
            raise RuleError(f"rule for {self.name}: templates for unknown parameters {unknown}",
                            hint=f"the signature names {self.params}")
        self.templates = {p: _parse(t, self.name) for p, t in templates.items() if t is not None}
        # parameters with a zero derivative (piecewise constant in them, or read for their
        # shape); any other parameter without a template refuses a differentiated value
        if zero == "*":  # every parameter without a template (srcad's own gradient helpers)
            zero = [p for p in self.params if templates.get(p) is None]
        self.zero = ((zero,) if isinstance(zero, str) else tuple(zero)) + tuple(
            p for p, t in templates.items() if t is None)
        if set(self.zero) - set(self.params):
            raise RuleError(f"rule for {self.name}: zero names unknown parameters "
                            f"{sorted(set(self.zero) - set(self.params))}",
                            hint=f"the signature names {self.params}")
        # parameters the templates read for their shape alone: any array of that shape will do
        self.shape_only = (shape_only,) if isinstance(shape_only, str) else tuple(shape_only)
        if set(self.shape_only) - set(self.params):
            raise RuleError(f"rule for {self.name}: shape_only names unknown parameters "
                            f"{sorted(set(self.shape_only) - set(self.params))}",
                            hint=f"the signature names {self.params}")
        # a reduction over every axis to a number: the one number every element's gradient
        # equals (the generated code keeps it a number as long as it can)
        self.uniform = _parse(uniform, self.name) if uniform else None
        # forward mode: the tangent each argument adds, in ``t`` (that argument's tangent)
        self.jvp = {p: _parse(t, self.name) for p, t in (jvp or {}).items()}
        # (rank of each parameter, ...) -> templates for arrays of exactly those ranks
        self.ranks = {}
        for key, by_param in (ranks or {}).items():
            if len(key) != len(self.params) or set(by_param) - set(self.params):
                raise RuleError(f"rule for {self.name}: ranks entry {key!r} does not fit the "
                                f"parameters {self.params}",
                                hint="one rank per parameter, templates for parameters only")
            self.ranks[tuple(key)] = {p: _parse(t, self.name) for p, t in by_param.items()
                                      if t is not None}
        # parameter -> templates of the other parameters where it is a nonzero number literal
        self.literal = {}
        for param, by_param in (literal or {}).items():
            if param not in self.params or set(by_param) - set(self.templates):
                raise RuleError(f"rule for {self.name}: literal entry {param!r} does not fit "
                                f"the parameters {self.params}",
                                hint="a parameter, and templates for parameters that have one")
            self.literal[param] = {p: _parse(t, self.name) for p, t in by_param.items()}
        self.__dict__.pop("_written", None)

    def with_forward(self, jvp, namespace):
        """A copy of this rule whose forward-mode templates for some parameters are ``jvp``
        (``{param: expression}``; the others' kept), reading ``namespace``'s names too: what
        autograd's ``defjvp`` alone makes of a function srcad has its own rule for (autograd
        keeps a primitive's reverse mode when ``defjvp`` gives its forward mode)."""
        params = self.params  # parsed before the copy, so that both share the parsed parts
        rule = copy.copy(self)
        rule.jvp = {**self.jvp, **{p: _parse(t, self.name) for p, t in jvp.items()
                                   if p in params}}
        rule.namespace = {**self.namespace, **namespace}
        return rule

    def bind(self, args, kwargs):
        """Map the call's arguments to parameter names, or None if they do not fit (as
        ``signature.bind`` then ``apply_defaults`` map them: whether and how they fit depends
        only on how many are positional and which keywords are given, so the map is worked
        out once per such form, :func:`_plan`, and applied to the arguments after)."""
        plans = self.__dict__.get("_plans")
        if plans is None:
            plans = self.__dict__["_plans"] = {}
        form = (len(args), tuple(kwargs))
        plan = plans.get(form, _UNPLANNED)
        if plan is _UNPLANNED:
            plan = plans[form] = _plan(self.signature, *form)
            if plan is not None and self.fixed:  # (one left to its default holds)
                plan = plans[form] = [e for e in plan
                                      if e[1] != _DEFAULT or e[0] not in self.fixed]
        if plan is None:
            return None
        bound = {}
        for name, how, at in plan:
            if how == _POSITIONAL:
                bound[name] = args[at]
            elif how == _KEYWORD:
                bound[name] = kwargs[at]
            elif how == _DEFAULT:
                bound[name] = at
            elif how == _STAR:
                bound[name] = tuple(args[i] for i in at)
            else:
                bound[name] = {k: kwargs[k] for k in at}
        return bound

    def __repr__(self):
        return f"Rule({self.name}({', '.join(self.params)}))"


_UNPLANNED = object()
_POSITIONAL, _KEYWORD, _DEFAULT, _STAR, _STARSTAR = range(5)


class _Slot:
    """An argument's place (an index, a keyword) standing in for it in :func:`_plan`."""

    __slots__ = ("at",)

    def __init__(self, at):
        self.at = at


def _plan(signature, n, keywords):
    """How ``signature.bind`` (then ``apply_defaults``) maps ``n`` positional arguments and
    these keywords: ``[(parameter, how, where)]`` in the parameters' order, or None when they
    do not fit."""
    try:
        bound = signature.bind(*[_Slot(i) for i in range(n)], **{k: _Slot(k) for k in keywords})
    except TypeError:
        return None
    bound.apply_defaults()
    plan = []
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            plan.append((name, _STAR, tuple(v.at for v in value)))
        elif kind is inspect.Parameter.VAR_KEYWORD:
            plan.append((name, _STARSTAR, tuple(value)))
        elif value.__class__ is _Slot:
            plan.append((name, _POSITIONAL if type(value.at) is int else _KEYWORD, value.at))
        else:
            plan.append((name, _DEFAULT, value))
    return plan


class Registry:
    def __init__(self):
        self.rules = {}  # fn -> [Rule]
        self.nondiff = set()  # fns with zero derivative
        self.methods = {}  # method name -> fn whose rule applies (self is the first argument)
        self.attributes = {}  # attribute name -> fn
        self.impure = set()
        #: random samplers: no derivative with respect to their parameters (a value carrying a
        #: gradient passed to one is refused, never a silent zero)
        self.samplers = set()
        #: run-time checks: no derivative and no effect on any object, but never dropped as
        #: dead code (their result is unused; the generated code, read again for a second
        #: derivative, no longer marks them kept)
        self.kept = set()
        #: piecewise constant for real numbers only (np.sign of a complex z is z / |z|)
        self.real_only = set()
        # library module -> srcad rule module, loaded the first time a lookup happens after
        # the library was imported (so ``import srcad`` never imports SciPy)
        self.pending = {}

    def load_pending(self):
        """Load the rules of every optional library imported since the last lookup."""
        for module in [m for m in self.pending if m in sys.modules]:
            rules_module = self.pending.pop(module, None)  # a rule module loading may look
            if rules_module is not None:  # rules up, and so load the next ones itself
                importlib.import_module(rules_module)

    def add(self, rule):
        self.rules.setdefault(_key(rule.fn), []).insert(0, rule)
        return rule

    def find(self, fn, args, kwargs):
        """The rule for ``fn`` fitting these arguments and the bound arguments."""
        if self.pending:
            self.load_pending()
        for rule in self.rules.get(_key(fn), ()):
            bound = rule.bind(args, kwargs)
            if bound is not None:
                return rule, bound
        return None, None

    def rules_for(self, fn):
        if self.pending:
            self.load_pending()
        return self.rules.get(_key(fn), [])

    def has_rule(self, fn):
        if self.pending:
            self.load_pending()
        return _key(fn) in self.rules

    def is_nondiff(self, fn):
        if self.pending:
            self.load_pending()
        try:
            return fn in self.nondiff
        except TypeError:
            return False

    def is_pure(self, prim):
        from ..core import ir

        fn = prim.fn
        if isinstance(fn, ir.Method):  # (a random generator's draw moves the draws after it)
            return fn.name not in _MUTATING_METHODS and fn.name not in STATE_METHODS
        if isinstance(fn, (ir.Attr, ir.Build)) or fn in _PURE_MARKERS:
            return True
        try:
            if fn in self.impure or fn in self.kept:  # random draws: dropping one changes
                return False  # the draws after it; a check must run
        except TypeError:
            pass
        return self.has_rule(fn) or self.is_nondiff(fn)


_MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "sort", "fill", "update",
                     "clear", "setdefault", "add", "discard", "resize", "put", "itemset"}
_PURE_MARKERS = set()


def _key(fn):
    try:
        hash(fn)
        return fn
    except TypeError:
        return id(fn)


def _with_fixed(signature, fixed, fn=None):
    """``signature`` with the parameters of ``fixed`` it does not name added, each defaulting
    to its first accepted value: by position where ``fn``'s own signature takes them next after
    the rule's positional parameters (``pinv(a, None, False)``, ``np.sin(x, None)``), the
    others keyword-only."""
    kinds = inspect.Parameter
    params = list(signature.parameters.values())
    names = {p.name for p in params}
    positional = [p for p in params if p.kind in (kinds.POSITIONAL_ONLY,
                                                  kinds.POSITIONAL_OR_KEYWORD)]
    rest = [p for p in params if p not in positional]
    try:
        own = [p.name for p in inspect.signature(fn).parameters.values()
               if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        own = []
    if any(p.kind is kinds.VAR_POSITIONAL for p in params):
        own = []
    for name in own[len(positional):]:  # (a default cannot come before a parameter without)
        if name not in fixed or name in names:
            break
        positional.append(kinds(name, kinds.POSITIONAL_OR_KEYWORD, default=fixed[name][0]))
        names.add(name)
    tail = [p for p in rest if p.kind is kinds.VAR_KEYWORD]
    rest = [p for p in rest if p.kind is not kinds.VAR_KEYWORD]
    added = [kinds(p, kinds.KEYWORD_ONLY, default=values[0])
             for p, values in fixed.items() if p not in names]
    return signature.replace(parameters=positional + rest + added + tail)


#: the keywords every NumPy ufunc takes, at the values that leave its result as the rule has
#: it (``out=`` given is refused before, saying to assign the result)
UFUNC_FIXED = {"out": (None,), "where": (True,), "casting": ("same_kind",), "order": ("K",),
               "dtype": (None,), "subok": (True,), "signature": (None,)}


def _signature(spec, fn):
    if isinstance(spec, inspect.Signature):
        return spec
    try:
        code = compile(f"lambda {spec}: None", "<rule signature>", "eval")
        return inspect.signature(eval(code, {"math": math, "np": np}))  # noqa: S307
    except SyntaxError as exc:
        raise RuleError(f"rule for {fn!r}: bad signature {spec!r}",
                        hint='write it like a def: "x, axis=None, keepdims=False"') from exc


def _parse(template, name):
    if not isinstance(template, str):
        raise RuleError(f"rule for {name}: a template must be a string of Python, got "
                        f"{template!r}", hint='write it as text, e.g. x="g * cos(x)"')
    try:
        return ast.parse(template.strip(), mode="eval").body
    except SyntaxError as exc:
        raise RuleError(f"rule for {name}: template {template!r} is not a Python expression",
                        hint='write an expression in g, ans and the parameters, e.g. "g * x"'
                        ) from exc


registry = Registry()


def defvjp(fn, signature, *, broadcast=False, kind=None, jvp=None, shape_only=(),
           uniform=None, ranks=None, zero=(), name=None, no_forward=None, complex_ok=False,
           complex_out=None, pieces=None, literal=None, fixed=None, **templates):
    """Register the gradient templates of ``fn`` (see the module docstring); ``jvp`` gives
    forward-mode templates for a function neither element-wise nor linear in each argument;
    ``shape_only`` names parameters the templates read only for their shape; ``zero`` names
    parameters the result is piecewise constant in (a value reaching any other parameter
    without a template is refused, see :mod:`srcad.soundness`); ``uniform``
    (reductions) is the gradient of every element, a number, when ``fn`` reduces all axes;
    ``name`` is how messages and docs spell ``fn`` (``scipy.stats.norm.logpdf``);
    ``no_forward`` says why the rule has no forward form (the parity test asks for one);
    ``complex_ok``, ``complex_out``: see the module docstring; ``pieces``, ``(sequence,
    axis)`` parameters of a function joining arrays: the sequence's gradient is the slices of
    ``g`` along the axis, one per array (the sweep may write them itself); ``literal``: see
    the module docstring; ``fixed``: the constant values some parameters are accepted at
    (the module docstring; a ufunc's keywords are added)."""
    if isinstance(fn, np.ufunc):
        fixed = {**UFUNC_FIXED, **(fixed or {})}
    return registry.add(Rule(fn, signature, templates, broadcast=broadcast, kind=kind,
                             jvp=jvp, shape_only=shape_only, uniform=uniform, ranks=ranks,
                             zero=zero, name=name, no_forward=no_forward,
                             complex_ok=complex_ok, complex_out=complex_out, pieces=pieces,
                             literal=literal, fixed=fixed))


def accept(fn, **fixed):
    """Accept ``fn``'s calls (each of its rules) where these parameters take these constants
    (``hermitian=(False,)``): ``fixed=`` of :func:`defvjp`, declared after the rules (the
    tables of harmless defaults, :mod:`srcad.rules.numpy_defaults`)."""
    rules = registry.rules.get(_key(fn), [])  # (not rules_for: no optional library loaded
    if not rules:  # while srcad.rules itself is being imported)
        raise RuleError(f"accept({getattr(fn, '__name__', fn)!r}, ...): it has no rule",
                        hint="declare its rules first")
    for rule in rules:
        rule.fixed.update((p, tuple(v)) for p, v in fixed.items())
        if rule.complex_rule is not None:
            rule.complex_rule.fixed.update(rule.fixed)
        if "_written" not in rule.__dict__:  # parsed already: its signature grows now
            rule.signature = _with_fixed(rule.signature, rule.fixed, rule.fn)
        rule.__dict__.pop("_plans", None)


def defer(library, rules_module):
    """Load the rule module ``rules_module`` once ``library`` has been imported (by the user's
    code): rules for an optional library cost nothing when it is not used."""
    registry.pending[library] = rules_module


def nondiff(*fns):
    """Declare functions whose derivative is zero everywhere it exists."""
    for fn in fns:
        registry.nondiff.add(fn)


def defmethod(name, fn):
    """``x.name(...)`` on an array uses the rule of ``fn(x, ...)``."""
    registry.methods[name] = fn


def defattr(name, fn):
    """``x.name`` on an array uses the rule of ``fn(x)``."""
    registry.attributes[name] = fn
