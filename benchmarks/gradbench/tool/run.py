"""srcad as a GradBench tool: one JSON message per line on stdin, one reply per line on stdout.

Speaks GradBench's protocol (``start``, ``define``, ``evaluate``, anything else answered with
its ``id``). ``define`` imports the eval's module beside this file (``lse.py``, ``gmm.py`` ...);
each module makes its derivative code on import, for small inputs of the kinds the eval sends
(srcad specialises on kinds and ranks, not sizes), and the time taken is reported as ``define``.
``evaluate`` calls the module's function, a ``gradbench.wrap.multiple_runs`` callable, whose
timer covers the work and not the JSON conversion. A SrcadError (srcad refusing a construct)
is returned as the evaluation's error, with its message. GradBench's own Python package (for
``gradbench.wrap`` and the ADBench helpers) is read from the fetched copy: the driver puts it on
``PYTHONPATH``.

``--backend numba`` (the driver's tool ``srcad-numba``): ``srcad.grad``,
``srcad.value_and_grad``, ``srcad.vjp``, ``srcad.jvp``, ``srcad.jacfwd`` and
``srcad.jvp_batched`` compile with Numba
(``backend="numba"``) in every eval module, which are not edited; the derivatives that have no
Numba backend (the other Jacobian functions, and the Hessian ones) raise a SrcadError instead
of running in Python, so that an eval this backend cannot compile is reported as refused, with
the reason, never timed as Python.
"""

import json
import os
import sys
import time
import traceback
from importlib import import_module

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _error(exc):
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


#: what backend='numba' does not cover: refused in numba mode
NOT_NUMBA = ("jacobian", "jacrev", "hessian", "hvp")


def numba_mode():
    """srcad's derivatives in every eval module made with ``backend="numba"`` (see above).
    The default of their ``backend`` parameter changes, not the functions: ``srcad.jvp``
    written inside a differentiated function stays the function srcad knows there."""
    import srcad
    from srcad.errors import SrcadError

    for name in ("grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jvp_batched"):
        fn = getattr(srcad, name)
        if fn.__kwdefaults__ and "backend" in fn.__kwdefaults__:
            fn.__kwdefaults__ = dict(fn.__kwdefaults__, backend="numba")
        else:
            fn.__defaults__ = tuple("numba" if d == "python" else d for d in fn.__defaults__)

    def refused(name):
        def no_numba(*args, **kwargs):
            raise SrcadError(f"srcad.{name} has no Numba backend (backend='numba' makes grad, "
                             "value_and_grad, vjp, jvp and jacfwd)")
        return no_numba

    for name in NOT_NUMBA:
        setattr(srcad, name, refused(name))


def main():
    backend = sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "python"
    if backend == "numba":
        numba_mode()
        from srcad.backend.numba_memory import keep_freed_memory

        keep_freed_memory()  # freed arrays reused by the next call, not faulted in again
    elif backend != "python":
        raise SystemExit(f"unknown backend {backend!r}: python or numba")
    for line in sys.stdin:
        message = json.loads(line)
        response = {}
        kind = message["kind"]
        if kind == "start":
            response["tool"] = "srcad" if backend == "python" else f"srcad-{backend}"
        elif kind == "define":
            try:
                start = time.perf_counter_ns()
                import_module(message["module"])  # each module makes its code on import
                response["success"] = True
                response["timings"] = [{"name": "define",
                                        "nanoseconds": time.perf_counter_ns() - start}]
            except Exception as exc:  # noqa: BLE001 - reported to the eval
                response = {"success": False, "error": _error(exc)}
        elif kind == "evaluate":
            try:
                module = import_module(message["module"])
                response = getattr(module, message["function"]).wrapped(message["input"])
            except Exception as exc:  # noqa: BLE001 - reported to the eval
                traceback.print_exc(file=sys.stderr)
                response = {"success": False, "error": _error(exc)}
        print(json.dumps({"id": message["id"]} | response), flush=True)


if __name__ == "__main__":
    main()
