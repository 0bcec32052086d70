"""The forward-mode Jacobian of numbers whose output is a tuple of numbers (the Hessian of
a function of several numbers: ``hessian(f, wrt=(0, 1))``, ``jacfwd`` of a function
returning a tuple), compiled for the number of passes and of outputs its first call gave.

:func:`srcad.fast_calls.fwd_numbers` takes a pass, finds a tuple out and hands it to
:func:`srcad.jacobian_leaves.number_columns`, which runs the other passes and tests and
nests what they give, on every call. :func:`columns` writes that out once: each pass's
call with its seeds spelled, the value tested to be a tuple of that length of floats or
float64s, the tangent a tuple of that length of floats, and the result nested as
``number_columns`` nests it (by output item, then by ``wrt`` argument). Anything else (a name
the code read rebound, a value or tangent of another class or length) takes ``loop``, the
closure it came from, from the start.

Imports NumPy only (the test of the names the code read, ``ok``, is handed in).
"""

from __future__ import annotations

import numpy as np


def columns(fn, seeds, ok, loop, n_args, n_out):
    """The compiled closure for ``fn`` (the forward-mode code, called with ``n_args``
    numbers then one of ``seeds``) whose value was a tuple of ``n_out`` numbers."""
    params = [f"a{i}" for i in range(n_args)]
    given = "".join(p + ", " for p in params)
    lines = [f"def columns({', '.join(params)}):", "    if ok():"]
    indent = "        "
    for c, tangents in enumerate(seeds):
        spelled = "".join(f"{float(s)!r}, " for s in tangents)
        v_tests = [f"(v[{j}].__class__ is float or v[{j}].__class__ is F64)"
                   for j in range(n_out)]
        t_tests = [f"t{c}[{j}].__class__ is float" for j in range(n_out)]
        lines += [f"{indent}v, t{c} = fn({given}{spelled})",
                  f"{indent}if v.__class__ is tuple and len(v) == {n_out} and t{c}.__class__ "
                  f"is tuple and len(t{c}) == {n_out} and " + " and ".join(v_tests + t_tests)
                  + ":"]
        indent += "    "
    rows = ", ".join("(" + "".join(f"t{c}[{j}], " for c in range(len(seeds))) + ")"
                     for j in range(n_out))
    lines += [f"{indent}return ({rows},)", f"    return loop({given})"]
    space = {"fn": fn, "ok": ok, "loop": loop, "F64": np.float64}
    text = "\n".join(lines) + "\n"
    exec(compile(text, "<srcad columns of numbers>", "exec"), space)  # noqa: S102
    made = space["columns"]
    made.__srcad_source__ = text  # (for reading)
    return made
