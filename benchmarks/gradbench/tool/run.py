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


def main():
    for line in sys.stdin:
        message = json.loads(line)
        response = {}
        kind = message["kind"]
        if kind == "start":
            response["tool"] = "srcad"
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
