"""GradBench's stock ``jax`` tool, with its timer waiting for JAX's results.

``--ports``: the same tool reading the eval modules from ``jax_ports/`` beside this file (JAX
versions of the evals the stock tool lacks, written in this repository) instead of the stock
tool's directory; the driver's tool ``jax-ports``.

JAX dispatches work asynchronously: the stock tool stops its timer when the call returns,
before the numbers exist. This launcher wraps every timed function so that the timer covers
``jax.block_until_ready`` of its result, then runs the stock tool (read from the fetched copy
of GradBench, ``$GRADBENCH_DIR``) unchanged.
"""

import os
import runpy
import sys

import jax
from gradbench import wrap

_multiple_runs = wrap.multiple_runs
_function = wrap.function


def _blocking(decorator_factory):
    def factory(*args, **kwargs):
        decorator = decorator_factory(*args, **kwargs)

        def wrapping(function):
            def blocked(*fargs, **fkwargs):
                return jax.block_until_ready(function(*fargs, **fkwargs))

            made = decorator(blocked)
            made.function = function
            return made

        return wrapping

    return factory


wrap.multiple_runs = _blocking(_multiple_runs)
wrap.function = _blocking(_function)

tool = os.path.join(os.environ["GRADBENCH_DIR"], "python/gradbench/gradbench/tools/jax")
modules = (os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_ports")
           if "--ports" in sys.argv else tool)
sys.path.insert(0, modules)
# --multithreaded only stops the tool pinning itself to CPU 0: the driver has pinned it already
# and XLA_FLAGS keeps XLA on one thread
sys.argv = [os.path.join(tool, "run.py"), "--multithreaded"]
runpy.run_path(sys.argv[0], run_name="__main__")
