"""Derivative rules for NumPy.

One line per function, grouped by kind. ``g`` is the gradient of the result, ``ans`` the
result. Element-wise binary functions are marked ``broadcast=True``: srcad sums their
gradients back to each argument's shape.
"""

import numpy as np

from .registry import defattr, defmethod, defvjp, nondiff

# ---------------------------------------------------------------- unary ufuncs
defvjp(np.sin, "x", x="g * np.cos(x)")
defvjp(np.cos, "x", x="-g * np.sin(x)")
defvjp(np.tan, "x", x="g / np.cos(x) ** 2")
defvjp(np.exp, "x", x="g * ans")
defvjp(np.log, "x", x="g / x")
defvjp(np.sqrt, "x", x="g / (2 * ans)")
defvjp(np.tanh, "x", x="g * (1 - ans ** 2)")
defvjp(np.abs, "x", x="g * np.sign(x)")
defvjp(np.negative, "x", x="-g")
defvjp(np.square, "x", x="g * 2 * x")

# ---------------------------------------------------------------- binary ufuncs
defvjp(np.add, "a, b", a="g", b="g", broadcast=True)
defvjp(np.subtract, "a, b", a="g", b="-g", broadcast=True)
defvjp(np.multiply, "a, b", a="g * b", b="g * a", broadcast=True)
defvjp(np.divide, "a, b", a="g / b", b="-g * ans / b", broadcast=True)
defvjp(np.power, "a, b", a="g * b * a ** (b - 1)", b="g * ans * np.log(a)", broadcast=True)

# ---------------------------------------------------------------- reductions
defvjp(np.sum, "a, axis=None, keepdims=False", a="expand(g, a, axis, keepdims)")
defvjp(np.mean, "a, axis=None, keepdims=False",
       a="expand(g, a, axis, keepdims) / (np.size(a) / np.size(ans))")

# ---------------------------------------------------------------- linear algebra
defvjp(np.dot, "a, b", a="dot_grad_a(g, a, b)", b="dot_grad_b(g, a, b)")
defvjp(np.matmul, "a, b", a="matmul_grad_a(g, a, b)", b="matmul_grad_b(g, a, b)")

# ---------------------------------------------------------------- array methods and attributes
defmethod("sum", np.sum)
defmethod("mean", np.mean)
defmethod("dot", np.dot)
defattr("T", np.transpose)
defvjp(np.transpose, "a, axes=None", a="transpose_grad(g, axes)")

# ---------------------------------------------------------------- no derivative
nondiff(np.argmax, np.argmin, np.argsort, np.shape, np.ndim, np.size, np.zeros, np.ones,
        np.arange, np.linspace, np.eye, np.zeros_like, np.ones_like, np.full, np.full_like,
        np.isfinite, np.isnan, np.isinf, np.sign, np.floor, np.ceil, np.round, np.equal,
        np.less, np.greater, np.less_equal, np.greater_equal, np.not_equal, np.empty,
        np.empty_like)
