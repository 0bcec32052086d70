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

Where the output is a tuple of numbers by the code's kinds (a Hessian's: grad's code of
numbers), the passes call the code of the tangent alone instead
(:class:`srcad.transform.tangent_only.TangentOnly`: the value ``None``, not computed; no
``like(dresult, result)``), kept only when each pass's tangent equals the general code's on
the first call, class for class; each call's tangent is tested as the general one's, and the
names that code read by its own test (:func:`srcad.fast_checks.fresh`).

Imports NumPy, :mod:`srcad.fast_checks` (the test of the names the general code read,
``ok``, is handed in; the code of the tangent alone is made by the Jacobian handed in) and
:mod:`srcad.backend.call_fronts` (``jacfwd``'s passes with the code's body compiled in).
"""

from __future__ import annotations

import numpy as np

from .backend import call_fronts
from .fast_checks import fresh, tests_text


def columns(fn, seeds, ok, loop, n_args, n_out, at=None):
    """The compiled closure for ``fn`` (the forward-mode code, called with ``n_args``
    numbers then one of ``seeds``) whose value was a tuple of ``n_out`` numbers; ``at``:
    ``(jac, args)``, the Jacobian and the first call's arguments (the code of the tangent
    alone tried)."""
    alone = _alone(fn, seeds, n_out, *at) if at is not None else None
    if alone is not None:
        fn, ok = alone, fresh(alone.__srcad_reads__)
    params = [f"a{i}" for i in range(n_args)]
    given = "".join(p + ", " for p in params)
    lines = [f"def columns({', '.join(params)}):", *_fresh(fn, space := {})]
    indent = "        "
    for c, tangents in enumerate(seeds):
        spelled = "".join(f"{float(s)!r}, " for s in tangents)
        v_tests = ["v is None"] if alone is not None else [
            f"(v[{j}].__class__ is float or v[{j}].__class__ is F64)" for j in range(n_out)]
        t_tests = [f"t{c}[{j}].__class__ is float" for j in range(n_out)]
        v_shape = "" if alone is not None else f"v.__class__ is tuple and len(v) == {n_out} and "
        lines += [f"{indent}v, t{c} = fn({given}{spelled})",
                  f"{indent}if {v_shape}t{c}.__class__ "
                  f"is tuple and len(t{c}) == {n_out} and " + " and ".join(v_tests + t_tests)
                  + ":"]
        indent += "    "
    rows = ", ".join("(" + "".join(f"t{c}[{j}], " for c in range(len(seeds))) + ")"
                     for j in range(n_out))
    lines += [f"{indent}return ({rows},)", f"    return loop({given})"]
    space.update({"fn": fn, "ok": ok, "loop": loop, "F64": np.float64})
    text = "\n".join(lines) + "\n"
    exec(compile(text, "<srcad columns of numbers>", "exec"), space)  # noqa: S102
    made = space["columns"]
    made.__srcad_source__ = text  # (for reading)
    return made


def numbers(jac, args, fn, seeds, general):
    """The Jacobian of numbers ``args`` (all floats, every one given) whose output was a
    number, one pass per seed, by the code of the tangent alone (the value None, the tangent
    a float: else ``general``, the closure as it was, from the start), when each pass gives
    the tangent ``fn``'s pass gives, class for class; None when it cannot be made."""
    code = jac.tangent_alone(args) if jac.backend == "python" else None
    if code is None:
        return None
    for tangents in seeds:
        try:
            value, t = fn(*args, *tangents)
            none, own = code(*args, *tangents)
        except Exception:  # noqa: BLE001 - the general closure decides, as before
            return None
        if type(value) is not float or none is not None or type(t) is not float or type(
                own) is not float or not own == t:
            return None
    given = "".join(f"a{i}, " for i in range(len(args)))
    lines = [f"def numbers({given}):", *_fresh(code, space := {})]
    for c, tangents in enumerate(seeds):
        pad = "    " * (c + 2)
        lines += [f"{pad}v, t{c} = fn({given}{''.join(f'{float(s)!r}, ' for s in tangents)})",
                  f"{pad}if v is None and t{c}.__class__ is float:"]
    out = "t0" if jac.single else "(" + "".join(f"t{c}, " for c in range(len(seeds))) + ")"
    lines += ["    " * (len(seeds) + 2) + f"return {out}", f"    return general({given})"]
    space.update({"fn": code, "ok": fresh(code.__srcad_reads__), "general": general})
    text = "\n".join(lines) + "\n"
    exec(compile(text, "<srcad columns of numbers>", "exec"), space)  # noqa: S102
    made = space["numbers"]
    made.__srcad_source__ = text  # (for reading)
    front = call_fronts.columns_front(jac.f, tuple(map(type, args)), code, seeds, made,
                                      jac.single)  # (the code's body compiled in)
    return front or made


def _fresh(fn, space):
    """The lines testing that each name ``fn``'s code read finds the very object it found
    (in the text, no call), else ``ok()`` (the full check), its names put in ``space``."""
    reads = fn.__srcad_reads__
    return ["    try:",
            f"        fresh = {tests_text(reads, space, baked=True) if reads else 'True'}",
            "    except (ValueError, AttributeError):  # an empty cell, an attribute gone",
            "        fresh = False",
            "    if fresh or ok():"]


def _alone(fn, seeds, n_out, jac, args):
    """The code of the tangent alone for ``args`` when each pass of it gives ``None`` and
    the tangent ``fn``'s pass gives (a tuple of ``n_out`` floats, equal, class for class),
    else None."""
    made = getattr(jac, "tangent_alone", None)
    code = made(args) if made is not None and getattr(jac, "backend", "") == "python" else None
    if code is None:
        return None
    for tangents in seeds:
        try:
            value, t = fn(*args, *tangents)
            none, own = code(*args, *tangents)
        except Exception:  # noqa: BLE001 - the general code's passes decide, as before
            return None
        if none is not None or type(own) is not tuple or type(t) is not tuple or len(
                own) != n_out or len(t) != n_out or any(
                type(a) is not float or type(b) is not float or not a == b
                for a, b in zip(own, t)):
            return None
    return code
