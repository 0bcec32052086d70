"""Derivative rules for Python's operators, builtins and the ``math`` module.

One line per function. ``g`` is the gradient of the result, ``ans`` the result; names such
as ``cos`` and ``log`` become ``math.cos`` on scalars and ``np.cos`` on arrays.
To add a function, add one ``defvjp`` line under the right heading.

Imports ``srcad.rules``, ``srcad.runtime`` (and nothing above its layer).
"""

import builtins
import copy
import logging
import math
import operator
import warnings

from ..runtime import containers, items, special
from ..runtime import helpers as runtime
from .registry import POW_BASE, POW_EXPONENT, accept, defmethod, defvjp, nondiff

# ---------------------------------------------------------------- arithmetic operators
defvjp(operator.add, "a, b", a="g", b="g", broadcast=True)
defvjp(operator.sub, "a, b", a="g", b="-g", broadcast=True)
defvjp(operator.mul, "a, b", a="g * b", b="g * a", broadcast=True)
defvjp(operator.truediv, "a, b", a="g / b", b="-g * ans / b", broadcast=True,
       literal={"a": {"b": "-g * ans * ans / a"}})
defvjp(operator.pow, "a, b", a=POW_BASE,
       b="g * ans * log_base(a, g * ans)", broadcast=True)
defvjp(operator.mod, "a, b", a="g", b="-g * (a // b)", broadcast=True)
defvjp(operator.neg, "a", a="-g")
defvjp(operator.pos, "a", a="g")
nondiff(operator.floordiv)

# ---------------------------------------------------------------- comparisons and logic
nondiff(operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
        operator.not_, operator.is_, operator.is_not, operator.contains, operator.and_,
        operator.or_, operator.xor, operator.invert, operator.lshift, operator.rshift)

# ---------------------------------------------------------------- builtins
defvjp(builtins.abs, "x", x="g * sign(x)")
defvjp(builtins.pow, "a, b", a=POW_BASE,
       b="g * ans * log_base(a, g * ans)", broadcast=True)
accept(builtins.pow, mod=(None,))  # pow(a, b, None) is a ** b (an integer mod: no derivative)
defvjp(builtins.float, "x=0.0", x="g")
defvjp(builtins.sum, "iterable, start=0", iterable="fill(g, iterable)",
       start="unbroadcast(g, start)",
       jvp={"iterable": "sum(t)", "start": "t"})
defvjp(builtins.list, "iterable=()", iterable="seq_grad(g, iterable)")  # a dict: its keys
defvjp(builtins.reversed, "seq", seq="g[::-1]")
defvjp(builtins.tuple, "iterable=()", iterable="seq_grad(g, iterable)")
# the order is piecewise constant in what key= reads (a zero derivative there)
defvjp(builtins.sorted, "iterable, *, key=None, reverse=False", zero=("key", "reverse"),
       iterable="sorted_grad(g, iterable, key, reverse)",
       jvp={"iterable": "sorted_tangent(t, iterable, key, reverse)"})
# ys.sort(), ys.reverse() on a local list or array nobody else sees: a permutation (frontend)
defvjp(containers.sort_value, "seq, key=None, reverse=False, axis=-1, kind=None",
       zero=("key", "reverse", "axis", "kind"),
       seq="sort_value_grad(g, seq, key, reverse, axis, kind)",
       jvp={"seq": "sort_value_tangent(t, seq, key, reverse, axis, kind)"})
defvjp(containers.reverse_value, "seq", seq="reverse_grad(g)", jvp={"seq": "reverse_grad(t)"})
defvjp(containers.reverse_grad, "grad", grad="reverse_grad(g)", jvp={"grad": "reverse_grad(t)"})
defvjp(containers.extend_value, "seq, more", seq="split_concat(g, seq, True)",
       more="split_concat(g, seq, False)", jvp={"seq": "concat_tangent(t, zeros_like(more))",
                                                "more": "concat_tangent(zeros_like(seq), t)"})
# ys.insert(i, v), ys.pop(i), ys.remove(v), ys.clear() on a local list nobody else sees
# (frontend): new lists; which position is piecewise constant (a zero derivative there)
defvjp(containers.insert_value, "seq, i, value", zero=("i",),
       seq="without_item(g, insert_position(seq, i))", value="g[insert_position(seq, i)]",
       jvp={"seq": "insert_value(t, i, zeros_like(value))",
            "value": "insert_value(zeros_like(seq), i, t)"})
defvjp(containers.pop_value, "seq, i=-1", zero=("i",),
       seq="with_zero_at(g, seq, pop_position(seq, i))", jvp={"seq": "pop_value(t, i)"})
defvjp(containers.remove_value, "seq, value", zero=("value",),
       seq="with_zero_at(g, seq, remove_position(seq, value))",
       jvp={"seq": "pop_value(t, remove_position(seq, value))"})
# their gradients' helpers are linear in the gradient: each the other's adjoint
defvjp(containers.without_item, "grad, k", zero=("k",), grad="with_zero_at(g, grad, k)",
       jvp={"grad": "without_item(t, k)"})
defvjp(containers.with_zero_at, "grad, seq, k", zero=("seq", "k"), grad="without_item(g, k)",
       jvp={"grad": "with_zero_at(t, seq, k)"})
nondiff(containers.clear_value, containers.insert_position, containers.pop_position,
        containers.remove_position)
# copy.copy(v), copy.deepcopy(v) of a number, an array, a list, a tuple, a dict: the same
# values (the alias analysis knows a shallow copy's items are the original's)
defvjp(copy.copy, "x", x="g", jvp={"x": "t"}, complex_ok=True)
defvjp(copy.deepcopy, "x, memo=None", zero=("memo",), x="g", jvp={"x": "t"}, complex_ok=True)
# max(a, b) is b only when b > a, min(a, b) only when b < a (ties and NaN: a), as Python does
defvjp(builtins.min, "a, b", a="0.0 if b < a else g", b="g if b < a else 0.0")
defvjp(builtins.max, "a, b", a="0.0 if b > a else g", b="g if b > a else 0.0")
# max(items) and max(a, b, c, ...): the item Python returns gets g (which_max follows its rule)
for _extremum, _which in ((builtins.max, "which_max"), (builtins.min, "which_min")):
    defvjp(_extremum, "iterable", iterable=f"scatter(g, iterable, {_which}(iterable))",
           jvp={"iterable": f"t[{_which}(iterable)]"})
    # max(items, default=d): d when there are no items
    defvjp(_extremum, "iterable, *, default",
           iterable=f"scatter(g, iterable, {_which}(iterable)) if len(iterable) else "
           "zeros_like(iterable)", default="zeros_like(default) if len(iterable) else g",
           jvp={"iterable": f"t[{_which}(iterable)] if len(iterable) else zeros_like(default)",
                "default": "zeros_like(t) if len(iterable) else t"})
    for _n in range(3, 7):
        _names = [f"x{k}" for k in range(_n)]
        _items = f"({', '.join(_names)},)"
        defvjp(_extremum, ", ".join(_names), **{
            v: f"g if {_which}({_items}) == {k} else 0.0" for k, v in enumerate(_names)},
            jvp={v: f"t if {_which}({_items}) == {k} else 0.0 * t"
                 for k, v in enumerate(_names)})
del _n, _names, _items  # (_extremum stays: tools/gen_rules_doc.py reads the loop)
nondiff(operator.index)  # enumerate(xs, start): the start, an integer
nondiff(containers.extreme_index)  # max(xs, key=k): which item (read by position)
nondiff(builtins.int, builtins.round, builtins.len, builtins.range, builtins.bool,
        builtins.isinstance, builtins.print, builtins.type, builtins.any, builtins.all)
nondiff(builtins.slice)  # positions (integers): the backward of xs[k:] written slice(k, None)
# messages: logging (the module's functions and a logger's methods) formats the values it is
# given into a record for its handlers; no gradient comes back through a message
nondiff(*(getattr(owner, level) for owner in (logging, logging.Logger, logging.LoggerAdapter)
          for level in ("debug", "info", "warning", "error", "critical", "exception", "log")))
nondiff(warnings.warn)  # a message too (the forward sweep warns, or raises, as the function)
# no rule, on purpose: zip/enumerate as values, str/repr (a number through a string) are
# refused where a gradient would have to cross them (in a for loop they are understood)

# ---------------------------------------------------------------- dicts
# d.keys(), d.values(), d.items() are lowered to these (lists, not views); d.get(k) has the
# rule of dict_get; dict(a=x) is a dict literal (frontend)
defvjp(builtins.dict, "mapping", mapping="dict_of_grad(g, mapping)",
       jvp={"mapping": "dict_of_tangent(t, mapping)"})
nondiff(containers.dict_keys)
nondiff(containers.index_tuples)  # positions (integers): itertools' tuples read by position
defvjp(containers.dict_values, "d", d="values_grad(g, d)", jvp={"d": "values_tangent(t, d)"})
defvjp(containers.dict_items, "d", d="items_grad(g, d)", jvp={"d": "items_tangent(t, d)"})
defvjp(containers.dict_get, "d, key, default=None", zero="key", d="get_grad(g, d, key)",
       default="get_default_grad(g, d, key)",
       jvp={"d": "get_tangent_or(t, d, key, default)",
            "default": "get_default_grad(t, d, key)"})
defmethod("get", containers.dict_get)
# xs.index(v), xs.count(v) of a list or tuple: positions and counts (refused on another object)
nondiff(containers.seq_index, containers.seq_count)
defmethod("index", containers.seq_index)
defmethod("count", containers.seq_count)
# their gradients and tangents: linear in the first argument, each the other's adjoint
for _grad, _tangent, _params in (
        (containers.values_grad, containers.values_tangent, "d"),
        (containers.items_grad, containers.items_tangent, "d"),
        (containers.dict_of_grad, containers.dict_of_tangent, "mapping"),
        (containers.sorted_grad, containers.sorted_tangent, "iterable, key=None, reverse=False"),
        (containers.sort_value_grad, containers.sort_value_tangent,
         "seq, key=None, reverse=False, axis=-1, kind=None")):
    _passed = ", ".join(p.split("=")[0] for p in _params.split(", "))
    for _fn, _other in ((_grad, _tangent), (_tangent, _grad)):
        _first = "grad" if _fn is _grad else "tangent"
        defvjp(_fn, f"{_first}, {_params}", zero="*", **{
            _first: f"{_other.__name__}(g, {_passed})"},
            jvp={_first: f"{_fn.__name__}(t, {_passed})"})
del _grad, _tangent, _params, _passed, _fn, _other, _first
# get_grad's adjoint: zeros shaped like its gradient where d lacks the key (a list for a list)
defvjp(containers.get_grad, "grad, d, key", zero="*", grad="get_tangent_or(g, d, key, grad)",
       jvp={"grad": "get_grad(t, d, key)"})
defvjp(containers.get_tangent_or, "tangent, d, key, default=None", zero="*",
       tangent="get_grad(g, d, key)", jvp={"tangent": "get_tangent_or(t, d, key, default)"})
defvjp(containers.get_default_grad, "grad, d, key", zero="*",
       grad="get_default_grad(g, d, key)", jvp={"grad": "get_default_grad(t, d, key)"})
defvjp(containers.seq_grad, "grad, iterable", zero="*",
       grad="seq_back(g, grad, iterable)", jvp={"grad": "seq_grad(t, iterable)"})
defvjp(containers.concat_tangent, "ta, tb", ta="split_concat(g, ta, True)",
       tb="split_concat(g, ta, False)", jvp={"ta": "concat_tangent(t, zeros_like(tb))",
                                              "tb": "concat_tangent(zeros_like(ta), t)"})
defvjp(containers.split_concat, "grad, a, first", zero=("a", "first"),
       grad="split_concat_back(g, grad, a, first)",
       jvp={"grad": "split_concat(t, a, first)"})
defvjp(containers.split_concat_back, "back, grad, a, first", zero=("grad", "a", "first"),
       back="split_concat(g, a, first)", jvp={"back": "split_concat_back(t, grad, a, first)"})
defvjp(containers.seq_back, "back, grad, iterable", zero="*",
       back="seq_grad(g, iterable)", jvp={"back": "seq_back(t, grad, iterable)"})

# ---------------------------------------------------------------- srcad's own helpers
# (generated code calls them; these rules let srcad differentiate its own output again)
defvjp(runtime.add, "a, b", a="g", b="g")
defvjp(runtime.mutable, "grad", grad="g", jvp={"grad": "mutable(t)"})
# like(grad, value) broadcasts a leaf of grad to value's shape: its gradient sums back
defvjp(runtime.like, "grad, value", zero="value", grad="like_grad(g, grad)",
       jvp={"grad": "like(t, value)"})
defvjp(runtime.like_grad, "cot, grad", zero="grad", cot="like(g, cot)",
       jvp={"cot": "like_grad(t, grad)"})
# the check that a real argument's gradient is real: the identity in the gradient
defvjp(runtime.check_real, "grad, name, where=None", zero=("name", "where"), grad="g",
       jvp={"grad": "t"})
# (the derivative of 0 ** b raises one power lower: below - 1)
defvjp(special.power_of, "a, b, below=-1.0", zero="below",
       a=f"g * b * power_of(a, {POW_EXPONENT}, below - 1)",
       b="g * ans * log_base(a, g * ans)", broadcast=True)
defvjp(runtime.where, "c, a, b", zero="c", a="where(c, g, 0.0)", b="where(c, 0.0, g)")
# flat in by but at by = 0 at a negative base, where it jumps (to nan or a complex log: as
# log_base(a, t) is where t is not 0)
defvjp(runtime.log_base, "a, by=None", a="where(a, g / where(a, a, 1.0), 0.0)",  # 1 / a; 0 at 0
       by="0.0 * by * log_base(a, g)", broadcast=True,
       jvp={"a": "where(a, t / where(a, a, 1.0), 0.0)", "by": "0.0 * log_base(a, t)"})
defvjp(runtime.unbroadcast, "value, like", zero="*", value="broadcast_as(g, value)")
defvjp(runtime.unbroadcast_to, "value, shape", zero="*", value="broadcast_as(g, value)")
defvjp(runtime.broadcast_as, "value, like", zero="*", value="unbroadcast(g, value)")
# (value is every element of like, a list's or an array's along its first axis: the
# elements' gradients add up, then sum to value's shape)
# (an element of a list summed to its own shape: its gradient broadcasts back, so the
# gradients are added by Python's sum, which broadcasts them)
defvjp(runtime.fill, "value, like", zero="*",
       value="unbroadcast(sum(g) if isinstance(g, list) else np.sum(g, axis=0), value)")
defvjp(runtime.total, "value", value="fill(g, value)")
defvjp(runtime.scatter, "value, like, index", zero="*", value="g[index]")
defvjp(runtime.cleared, "value, index", zero="*", value="cleared(g, index)")
defvjp(runtime.added_at, "grad, index, value", zero="*", grad="g", value="g[index]",
       jvp={"grad": "t", "value": "added_at(zeros_like(grad), index, t)"})
# items_at(like, indices, values): zeros like the container, values added at indices
defvjp(items.items_at, "like, indices, values", zero="*", values="picked(g, indices)",
       jvp={"values": "items_at(like, indices, t)"})
defvjp(items.picked, "grad, indices", zero="*", grad="items_at(grad, indices, g)",
       jvp={"grad": "picked(t, indices)"})
defvjp(runtime.expand, "value, like, axis=None, keepdims=False", zero="*",
       value="np.sum(g, axis=axis, keepdims=keepdims) if axis is not None else np.sum(g)")
nondiff(runtime.sign, runtime.which_max, runtime.which_min, runtime.check_scalar,
        runtime.check_holomorphic, runtime.zeros_like, runtime.layout, runtime.shape_of,
        runtime.zeros_array)
# copy_tangent(tangent, value): a writable copy of the tangent, broadcast to value's shape
# (forward mode's code for y[i] = v), linear in the tangent: differentiated again when that
# code is (a jvp called in differentiated code)
defvjp(runtime.copy_tangent, "tangent, value", zero="value",
       tangent="copy_tangent_grad(g, tangent, value)", jvp={"tangent": "copy_tangent(t, value)"})
defvjp(runtime.copy_tangent_grad, "cot, tangent, value", zero=("tangent", "value"),
       cot="copy_tangent(g, cot)", jvp={"cot": "copy_tangent_grad(t, tangent, value)"})

# ---------------------------------------------------------------- math: trigonometry
defvjp(math.sin, "x", x="g * cos(x)")
defvjp(math.cos, "x", x="-g * sin(x)")
defvjp(math.tan, "x", x="g / cos(x) ** 2")
defvjp(math.asin, "x", x="g / sqrt(1 - x ** 2)")
defvjp(math.acos, "x", x="-g / sqrt(1 - x ** 2)")
defvjp(math.atan, "x", x="g / (1 + x ** 2)")
defvjp(math.atan2, "y, x", y="g * x / (x ** 2 + y ** 2)", x="-g * y / (x ** 2 + y ** 2)")
defvjp(math.hypot, "x, y", x="g * x / where(ans, ans, 1.0)", y="g * y / where(ans, ans, 1.0)")

# ---------------------------------------------------------------- math: hyperbolic
defvjp(math.sinh, "x", x="g * cosh(x)")
defvjp(math.cosh, "x", x="g * sinh(x)")
defvjp(math.tanh, "x", x="g * (1 - ans ** 2)")
defvjp(math.asinh, "x", x="g / sqrt(x ** 2 + 1)")
defvjp(math.acosh, "x", x="g / sqrt(x ** 2 - 1)")
defvjp(math.atanh, "x", x="g / (1 - x ** 2)")

# ---------------------------------------------------------------- math: exponentials, logs
defvjp(math.exp, "x", x="g * ans")
defvjp(math.expm1, "x", x="g * (ans + 1)")
defvjp(math.log, "x", x="g / x")
defvjp(math.log, "x, base", x="g / (x * log(base))", base="-g * ans / (base * log(base))")
defvjp(math.log1p, "x", x="g / (1 + x)")
defvjp(math.log2, "x", x="g / (x * 0.6931471805599453)")
defvjp(math.log10, "x", x="g / (x * 2.302585092994046)")
defvjp(math.sqrt, "x", x="g / (2 * ans)")
defvjp(math.pow, "a, b", a=POW_BASE,
       b="g * ans * log_base(a, g * ans)")
defvjp(math.fabs, "x", x="g * sign(x)")
# |x| with y's sign: flat in y
defvjp(math.copysign, "x, y", y=None, x="g * sign(x) * sign(ans)")
defvjp(math.fmod, "x, y", x="g", y="-g * (x - ans) / y")  # x - n y: n = (x - ans) / y
defvjp(math.remainder, "x, y", x="g", y="-g * (x - ans) / y")  # n: x / y to nearest
defvjp(math.ldexp, "x, i", x="g * 2.0 ** i")
defvjp(math.fsum, "seq", seq="fill(g, seq)", jvp={"seq": "math.fsum(t)"})
defvjp(math.degrees, "x", x="g * 57.29577951308232")  # 180 / pi
defvjp(math.radians, "x", x="g * 0.017453292519943295")  # pi / 180

# ---------------------------------------------------------------- math: special functions
defvjp(math.erf, "x", x="g * 1.1283791670955126 * exp(-x ** 2)")
defvjp(math.erfc, "x", x="-g * 1.1283791670955126 * exp(-x ** 2)")
# digamma and its derivatives written out (srcad/runtime/special.py): no SciPy needed
defvjp(math.lgamma, "x", x="g * polygamma_real(0, x)")
defvjp(math.gamma, "x", x="g * ans * polygamma_real(0, x)")
defvjp(special.polygamma_real, "n, x", zero=("n",), x="g * polygamma_real(n + 1, x)",
       jvp={"x": "t * polygamma_real(n + 1, x)"})

# ---------------------------------------------------------------- math: piecewise constant
nondiff(math.floor, math.ceil, math.trunc, math.isfinite, math.isnan, math.isinf,
        math.factorial, math.gcd, math.comb, math.perm)
