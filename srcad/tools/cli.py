"""``python -m srcad``: look at what srcad makes of a function, without writing a script.

    python -m srcad show FILE.py:FUNC [--wrt x,w] [--args 2.0 1.0] [--ssa] [--forward]
    python -m srcad compare FILE.py:FUNC --args 2.0 1.0 [--wrt x,w] [--repeat N]
    python -m srcad graph FILE.py:FUNC [-o graph.svg] [--args 2.0 1.0] [--wrt x,w]

``show`` prints the generated derivative (``--ssa``: the SSA form instead; ``--forward``: the
forward-mode code, exit status 2 where srcad has no forward mode), syntax-highlighted on a
terminal when Pygments is installed. ``compare`` prints the table of
:func:`srcad.compare.compare`; its exit status is 1 when srcad fails or disagrees with another
engine. ``graph`` writes the computation graph (:mod:`srcad.graph`): DOT text to standard output,
or to ``-o FILE`` (``.dot``, or ``.svg``/``.png``/``.pdf`` rendered by Graphviz when installed).

``--args`` are Python literals: ``2.0`` is a float, ``3`` an int, ``[1, 2.5]`` a float array.
``--wrt`` names parameters (or positions), comma-separated; by default the float arguments, or
every parameter when no ``--args`` are given.

An error (no such file or function, a :class:`srcad.SrcadError`, an exception in the function)
prints one line to standard error and exits with status 1.

Imports: NumPy, the standard library, ``srcad.errors`` and ``srcad.api``, the tools ``compare``
and ``graph``, and Pygments when installed.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import itertools
import os
import re
import sys
import warnings
from pathlib import Path

import numpy as np

__all__ = ["main"]

_counter = itertools.count()


class CLIError(Exception):
    """A user error with a one-line message."""


def main(argv=None):
    """Run the command line; returns the exit status."""
    parser = _parser()
    ns = parser.parse_args(argv)
    try:
        return ns.run(ns)
    except CLIError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # one line, never a traceback
        return _fail(_describe(exc))


def _fail(message):
    print(f"srcad: error: {message}", file=sys.stderr)
    return 1


def _describe(exc):
    from ..errors import SrcadError

    if isinstance(exc, SrcadError):
        where = ""
        if exc.filename is not None:
            where = f"{exc.filename}, line {exc.lineno}: " if exc.lineno else f"{exc.filename}: "
        text = where + " ".join(str(exc.message).split())
        if exc.construct:
            text += f" [{' '.join(str(exc.construct).split())}]"
        if exc.hint:
            text += f" (hint: {' '.join(str(exc.hint).split())})"
        return text
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


# ================================================================================================
# Arguments
# ================================================================================================


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m srcad",
        description="Show, check and draw what srcad makes of a Python function.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def common(p, args_required=False):
        p.add_argument("target", metavar="FILE.py:FUNC", help="the function, e.g. model.py:loss")
        p.add_argument("--wrt", help="parameters to differentiate, comma-separated (x,w or 0,1)")
        p.add_argument("--args", nargs="+", metavar="VALUE", required=args_required,
                       help="argument values, as Python literals (2.0, 3, [1.0, 2.0])")

    show = sub.add_parser("show", help="print the generated derivative or the SSA form")
    common(show)
    show.add_argument("--ssa", action="store_true", help="print the SSA form instead")
    show.add_argument("--forward", action="store_true", help="forward (tangent) mode")
    show.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                      help="syntax highlighting (auto: on a terminal, with Pygments)")
    show.set_defaults(run=_show)

    compare = sub.add_parser("compare", help="compare srcad with the tape, finite "
                             "differences, torch and autograd")
    common(compare, args_required=True)
    compare.add_argument("--repeat", type=int, default=None,
                         help="timed calls per engine (default: about 20 ms worth; 0: none)")
    compare.add_argument("--engines", help="comma-separated subset of: tape, finite "
                         "differences, torch, autograd")
    compare.set_defaults(run=_compare)

    graph = sub.add_parser("graph", help="draw the computation graph (Graphviz DOT)")
    common(graph)
    graph.add_argument("-o", "--output", help="file to write: .dot, or .svg/.png/.pdf "
                       "(rendered with Graphviz's dot when installed); default: standard output")
    graph.add_argument("--no-fold", action="store_true",
                       help="keep every SSA temporary as a node of its own")
    graph.set_defaults(run=_graph)
    return parser


def load(target):
    """The function named by ``FILE.py:FUNC`` (``FUNC`` may be dotted: ``Class.method``)."""
    path_text, sep, qualname = target.rpartition(":")
    if not sep or not path_text or not qualname:
        raise CLIError(f"expected FILE.py:FUNC, got {target!r}")
    path = Path(path_text)
    if not path.is_file():
        raise CLIError(f"no such file: {path_text}")
    stem = re.sub(r"\W", "_", path.stem)
    name = f"_srcad_cli_{stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path.resolve())
    if spec is None or spec.loader is None:
        raise CLIError(f"cannot load {path_text} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.resolve().parent))  # the file's own imports
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise CLIError(f"{path_text}, line {exc.lineno}: syntax error: {exc.msg}") from None
    except Exception as exc:
        raise CLIError(f"{path_text} failed to import: {_describe(exc)}") from None
    obj = module
    for part in qualname.split("."):
        if not hasattr(obj, part):
            found = sorted(n for n, v in vars(module).items()
                           if inspect.isfunction(v) and v.__module__ == name)
            listing = f" (functions: {', '.join(found)})" if found else ""
            raise CLIError(f"{path_text} has no function {qualname!r}{listing}")
        obj = getattr(obj, part)
    if getattr(obj, "__srcad__", None) is not None:  # @srcad.grad above it: the function
        obj = obj.__srcad__._user  # (a user's own decorator stays: srcad reads the wrapper)
    if not callable(obj):
        raise CLIError(f"{qualname} in {path_text} is not a function")
    return obj


def parse_value(text):
    """A command-line argument value: a Python literal; a list of numbers becomes an array."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        try:
            return float(text)  # inf, nan
        except ValueError:
            raise CLIError(f"--args: {text!r} is not a Python literal") from None
    if isinstance(value, (list, tuple)):
        try:
            return np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return value
    return value


def _args(ns):
    return None if ns.args is None else tuple(parse_value(t) for t in ns.args)


def _wrt(ns, func, args):
    if ns.wrt is None:
        if args is None:
            params = [p.name for p in inspect.signature(func).parameters.values()
                      if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            return tuple(params)
        return None
    items = [w.strip() for w in ns.wrt.split(",") if w.strip()]
    if not items:
        raise CLIError("--wrt is empty")
    return tuple(int(w) if w.lstrip("-").isdigit() else w for w in items)


def _float_wrt(func, args):
    params = [p.name for p in inspect.signature(func).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    names = tuple(p for p, a in zip(params, args) if isinstance(a, (float, np.ndarray)))
    if not names:
        raise CLIError("no float argument to differentiate: pass --wrt")
    return names


# ================================================================================================
# Commands
# ================================================================================================


def _show(ns):
    from .. import api

    func = load(ns.target)
    args = _args(ns)
    wrt = _wrt(ns, func, args)
    if wrt is None:
        wrt = _float_wrt(func, args)
    if ns.forward:
        text = _forward_source(func, wrt, args)
        if text is None:
            print("srcad: forward mode is not available yet", file=sys.stderr)
            return 2
    elif ns.ssa:
        text = api.ssa(func)
    else:
        text = api.source(api.grad(func, wrt=wrt), *(args or ()))
    print(_highlight(text, ns.color), end="" if text.endswith("\n") else "\n")
    return 0


def _forward_source(func, wrt, args):
    """The generated tangent (forward-mode) code, or None while srcad has no forward mode."""
    from .. import api

    jvp_source = getattr(api, "jvp_source", None)
    if jvp_source is None:
        return None
    if args is None:
        params = inspect.signature(func).parameters.values()
        args = tuple(1.0 for p in params if p.default is p.empty
                     and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    return jvp_source(func, *args, wrt=wrt)


def _highlight(text, color):
    if color == "never" or (color == "auto" and (
            not sys.stdout.isatty() or os.environ.get("NO_COLOR"))):
        return text
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return text
    return highlight(text, PythonLexer(), TerminalFormatter())


def _compare(ns):
    from .compare import ENGINES, compare

    func = load(ns.target)
    args = _args(ns)
    wrt = _wrt(ns, func, args)
    engines = None
    if ns.engines:
        engines = [e.strip() for e in ns.engines.split(",") if e.strip()]
        engines = ["finite differences" if e in ("fd", "finite-differences") else e
                   for e in engines]
        unknown = [e for e in engines if e not in ENGINES]
        if unknown:
            raise CLIError(f"--engines: unknown {', '.join(unknown)}; choose from "
                           f"{', '.join(ENGINES[1:])}")
    try:
        result = compare(func, *args, wrt=wrt, repeat=ns.repeat, engines=engines)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    print(result)
    if not result["srcad"].ok:
        return _fail(f"srcad failed: {result['srcad'].error}")
    if not result.agree:
        if result.disagreeing:
            return _fail(f"srcad disagrees with {', '.join(result.disagreeing)}")
        return _fail("no other engine could run")
    return 0


def _graph(ns):
    from .graph import build, render

    func = load(ns.target)
    args = _args(ns)
    wrt = _wrt(ns, func, args)
    dot = build(func, args=args, wrt=wrt, fold=not ns.no_fold).to_dot()
    if not ns.output:
        sys.stdout.write(dot)
        return 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = render(dot, ns.output)
    if Path(written) != Path(ns.output):
        print(f"srcad: Graphviz's dot program is not installed: wrote the DOT text to "
              f"{written} instead", file=sys.stderr)
    print(f"wrote {written}")
    return 0
