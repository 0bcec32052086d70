"""Derivative rules for ``scipy.signal``: ``convolve`` (every ``mode``, any number of axes).

Loaded the first time srcad looks a rule up after the user's code has imported
``scipy.signal`` (see :mod:`srcad.rules.scipy_special`). A convolution is linear in each
input: its gradient into one input correlates the gradient of the result (placed where the
result lies in the full convolution) with the other input (``grad_convolve_a``/``_b`` of
:mod:`srcad.runtime.scipy_helpers`), and its tangent is the convolution of the tangent.
``method`` (``'auto'``, ``'direct'``, ``'fft'``) changes how SciPy computes, not what.
The two helpers are linear in the gradient and in the other input, so their own rules (the
convolution itself and each other) give derivatives of every order.
"""

from scipy import signal

from ..runtime import scipy_helpers as H
from .registry import defvjp

# ---------------------------------------------------------------- convolution
defvjp(signal.convolve, "in1, in2, mode='full', method='auto'", kind="array",
       zero=("mode", "method"), name="scipy.signal.convolve",
       in1="grad_convolve_a(g, in1, in2, mode)", in2="grad_convolve_b(g, in1, in2, mode)",
       jvp=dict(in1="scipy_signal.convolve(t, in2, mode=mode)",
                in2="scipy_signal.convolve(in1, t, mode=mode)"))

# ---------------------------------------------------------------- srcad's own helpers
# each is linear in the gradient it takes (whose adjoint is the convolution) and in the other
# input (whose adjoint is the other helper, with the roles of the inputs swapped)
defvjp(H.grad_convolve_a, "value, a, b, mode='full'", zero=("a", "mode"), kind="array",
       value="scipy_signal.convolve(g, b, mode=mode)", b="grad_convolve_b(value, g, b, mode)",
       jvp=dict(value="grad_convolve_a(t, a, b, mode)", b="grad_convolve_a(value, a, t, mode)"))
defvjp(H.grad_convolve_b, "value, a, b, mode='full'", zero=("b", "mode"), kind="array",
       value="scipy_signal.convolve(a, g, mode=mode)", a="grad_convolve_a(value, a, g, mode)",
       jvp=dict(value="grad_convolve_b(t, a, b, mode)", a="grad_convolve_b(value, t, b, mode)"))
