"""Read a function's source and parse it with gast.

After this pass: we hold the function's ``gast.FunctionDef`` with line numbers that are the
user's real line numbers, the file name, and the namespaces the body's names resolve in
(globals, closure cells, builtins). Decorators are dropped, so ``@srcad.grad`` above a
function does not recurse into itself.

A decorated function is read as what the user calls: the wrapper (``__wrapped__`` is not
followed; the wrapped function is a callee the wrapper's closure holds). A wrapper that takes
``*args, **kwargs`` and states the wrapped signature with ``functools.wraps`` is
differentiated through :func:`target`, a two-line function with that signature calling it.

Imports: the standard library, gast, :mod:`srcad.core` (``env`` records every read of a
global; :mod:`srcad.frontend.lambdas` finds a lambda in its file; :mod:`.held_lists` the
lists of functions read) and :mod:`srcad.errors`.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import keyword
import linecache
import sys
import tokenize
import types
from dataclasses import dataclass, field

import gast

from ..core import env, functions
from ..core.walk import walk_nodes
from ..errors import SourceUnavailableError, UnsupportedSyntaxError
from . import held_lists, lambdas


@dataclass
class Source:
    """A parsed user function and where its names come from."""

    func: object
    node: gast.FunctionDef
    filename: str
    first_line: int
    text: str
    globals: dict
    closure: dict = field(default_factory=dict)
    cells: dict = field(default_factory=dict)  # closure name -> its cell

    def line_text(self, lineno):
        if lineno is None:
            return None
        lines = self.text.splitlines()
        index = lineno - self.first_line
        if 0 <= index < len(lines):
            return lines[index].strip()
        return linecache.getline(self.filename, lineno).strip() or None

    def lookup(self, name, attrs=()):
        """The object a free name of the body (and the attribute path ``attrs`` after it)
        refers to now (closure, global or builtin); the read is recorded (:mod:`srcad.core.env`),
        so code specialised on it is made again when the name comes to mean something else."""
        if name in self.closure:
            value, cell, namespace = self.closure[name], self.cells.get(name), None
        elif name in self.globals:
            value, cell, namespace = self.globals[name], None, self.globals
        elif hasattr(builtins, name):
            value, cell, namespace = getattr(builtins, name), None, self.globals
        else:
            raise KeyError(name)
        for attr in attrs:
            value = getattr(value, attr)  # AttributeError: the caller reports it
        if cell is not None or namespace is not None:
            env.record(env.Read(namespace, cell, name, attrs, value))
            held_lists.record(namespace, cell, name, attrs, value)  # ACTS[k](x): its items
            if functions.user_instance_class(value) is not None:
                # its methods (and obj(...)) are resolved on its class: an object given
                # another class (obj.__class__ = Other) makes the code again
                env.record(env.Read(namespace, cell, name, tuple(attrs) + ("__class__",),
                                    type(value)))
        return value


_HINT_RULE = (
    "srcad needs the Python source of the function it differentiates; for a built-in or "
    "C function, give it a derivative rule with @srcad.extend.defvjp (see docs/extending.md)"
)


#: file names that many pieces of code share (exec/eval/compile of a string, an interactive
#: prompt): their source is never read from linecache, which may hold another code's text
_SHARED_NAMES = frozenset({"<string>", "<stdin>", "<console>"})


def fresh_names(taken):
    """``fresh(base)``: ``base``, with underscores added until it is none of ``taken`` (a set
    of names, to which it adds the name it gives)."""

    def fresh(name):
        while name in taken:
            name += "_"
        taken.add(name)
        return name

    return fresh


def read(func):
    """Parse ``func`` into a :class:`Source`, or raise :class:`SourceUnavailableError`."""
    if made_by_srcad(func):
        raise SourceUnavailableError(
            f"{_describe(func)} is a derivative made by srcad: srcad does not read it as "
            "plain source", construct=repr(func),
            hint="differentiate the derivative itself, srcad.grad(srcad.grad(f)), rather than "
            "a function that calls it")
    if isinstance(func, functools.partial):
        raise SourceUnavailableError(
            "cannot differentiate a functools.partial object",
            construct=repr(func),
            hint="differentiate the underlying function and pass the fixed arguments yourself",
        )
    code = getattr(func, "__code__", None)
    if code is None or not inspect.isfunction(func):
        call = vars(type(func)).get("__call__")  # a method defined on the class
        if hasattr(func, "__wrapped__"):
            raise SourceUnavailableError(
                f"{_describe(func)} is a decorated function whose wrapper is not a Python "
                f"function ({type(func).__name__}): srcad cannot read what it does",
                construct=repr(func), hint="differentiate the undecorated function, or "
                "write the decorator's wrapper as a def")
        if inspect.isfunction(call):
            raise SourceUnavailableError(
                f"{_describe(type(func))} is a callable object, not a function",
                construct=repr(func), hint="differentiate its method: "
                f"srcad.grad({type(func).__name__}.__call__, wrt=...) with the object as "
                "first argument, or a function that calls it")
        raise SourceUnavailableError(
            f"no Python source for {_describe(func)}", construct=repr(func), hint=_HINT_RULE
        )
    if _home(func) == "srcad" and hasattr(func, "__wrapped__"):
        raise SourceUnavailableError(
            f"{_describe(func)} is a function made by srcad (a Jacobian, a Hessian, a tape "
            "gradient): srcad differentiates your code, not its own wrappers",
            construct=repr(func), hint="differentiate the function it was made from, e.g. "
            "srcad.grad(srcad.grad(f)) for a second derivative")
    if _home(func) in ("numpy", "srcad") or functions.is_library_function(func):
        raise SourceUnavailableError(
            f"{_describe(func)} is a library function: srcad differentiates your code, and "
            "calls to library functions through their rules",
            construct=repr(func), hint="differentiate a function of yours that calls it")
    filename = code.co_filename
    if code.co_name == "<lambda>":
        found = lambdas.read_lambda(func)
        if found is not None:
            node, first_line, text = found
            return _source(func, node, filename, first_line, text)
    try:
        if filename in _SHARED_NAMES:
            # every exec()/eval() of a string, and every prompt, shares this name: what
            # linecache holds for it (Python 3.13 keeps some) may be another code's text
            raise OSError(f"{filename} is no file")
        # the code object: inspect.getsourcelines(func) would follow __wrapped__
        lines, first_line = _source_lines(func, code)
    except (OSError, TypeError) as exc:
        where = filename
        if filename.startswith("<"):
            where = "code typed at a prompt or built by exec()"
        raise SourceUnavailableError(
            f"cannot read the source of {_describe(func)} ({where})",
            filename=filename,
            lineno=code.co_firstlineno,
            hint="define the function in a .py file, or give it a rule with @srcad.extend.defvjp",
        ) from exc
    text = dedent_definition(lines)
    first_line = max(first_line, 1)
    try:
        module = gast.parse(text)
    except SyntaxError as exc:
        raise SourceUnavailableError(
            f"cannot parse the source of {_describe(func)}",
            filename=filename,
            lineno=code.co_firstlineno,
            hint="srcad reads the function's own lines; a lambda sharing its line with other "
            "code cannot be isolated: give it its own line or use def",
        ) from exc
    try:
        node = _find_function(module, func)
    except (UnsupportedSyntaxError, SourceUnavailableError) as exc:
        exc.filename = filename
        exc.lineno = exc.lineno + first_line - 1
        exc.args = (exc._format(),)
        raise
    if node is None:
        raise SourceUnavailableError(
            f"cannot isolate the source of {_describe(func)}",
            filename=filename,
            lineno=code.co_firstlineno,
            hint="write the function with def on its own lines",
        )
    if _changed_since_defined(func, text, node):
        raise SourceUnavailableError(
            f"the source of {_describe(func)} in {filename} has changed since the function "
            "was defined: srcad would differentiate code that is not the code that runs",
            filename=filename, lineno=code.co_firstlineno,
            hint="re-import the module (importlib.reload) or restart, then take the gradient")
    gast.increment_lineno(module, first_line - 1)
    return _source(func, node, filename, first_line, text)


def _source_lines(func, code):
    """``inspect.getsourcelines(code)``. Given a code object, ``inspect`` looks for its
    module through every module loaded, twice (``getmodule``); where ``func``'s module, named
    by its globals, is that file's, a plain function of the same code in those globals (no
    ``__wrapped__`` to follow) reads the same lines through that module directly."""
    globals_ = getattr(func, "__globals__", None)
    module = sys.modules.get(globals_.get("__name__")) if isinstance(globals_, dict) else None
    plain = types.FunctionType(code, globals_ if isinstance(globals_, dict) else {},
                               code.co_name, None,
                               tuple(types.CellType() for _ in code.co_freevars) or None)
    if module is None or getattr(module, "__dict__", None) is not globals_ or getattr(
            module, "__file__", None) != code.co_filename:
        # no module holds these lines (code made by exec, or a function of one file with
        # another's globals): ``inspect`` would look for one through every module loaded
        # (13 ms a call with SciPy and torch loaded) and, finding none, read the file's
        # lines as they are; a function naming no module reads them so at once
        plain.__module__ = None
    return inspect.getsourcelines(plain)


def dedent_definition(lines):
    """A nested function's or a method's lines moved to the left margin, by the indentation
    of their first line (the ``def`` or its decorator). Python ignores where a comment line
    starts, so a comment written left of the body (``#`` at column 0 inside a method, common
    in notebooks' code) is only stripped; any other line left of the margin (inside brackets
    or a string) is kept as it is. ``textwrap.dedent`` would take the common margin of all
    lines, none with such a comment, and the text would not parse."""
    first = next((line for line in lines if line.strip()), "")
    margin = first[:len(first) - len(first.lstrip())]
    comments = _comment_lines(lines)
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            out.append("\n" if line.endswith("\n") else "")
        elif line.startswith(margin):
            out.append(line[len(margin):])
        elif number in comments:
            out.append(line.lstrip())
        else:
            out.append(line)
    return "".join(out)


def _comment_lines(lines):
    """The numbers of the lines that hold only a comment (not a ``#`` inside a string)."""
    found = set()
    try:
        for token in tokenize.generate_tokens(iter(lines).__next__):
            if token.type == tokenize.COMMENT and not token.line[:token.start[1]].strip():
                found.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _source(func, node, filename, first_line, text):
    code = func.__code__
    node.decorator_list = []
    closure, cells = {}, {}
    if func.__closure__:
        for name, cell in zip(code.co_freevars, func.__closure__):
            try:
                closure[name] = cell.cell_contents
                cells[name] = cell
            except ValueError:  # an empty cell: the name is not bound yet
                pass
    return Source(func, node, filename, first_line, text, func.__globals__, closure, cells)


def rebound(src, func):
    """``src`` (read for a function of the same code) for ``func``: the same tree, read only,
    with ``func``'s globals, closure and cells."""
    return _source(func, src.node, src.filename, src.first_line, src.text)


def _home(func):
    """The package whose code ``func`` runs (:func:`srcad.core.functions._home`)."""
    return functions._home(func)


def made_by_srcad(func):
    """Whether ``func`` is a derivative srcad made (grad, value_and_grad, vjp, ...)."""
    return getattr(func, "__srcad__", None) is not None


def target(func):
    """The function srcad reads for ``func``.

    ``func`` itself, except for a decorated function (``__wrapped__`` set, by
    ``functools.wraps``) whose wrapper's own parameters are not the ones it states (``*args,
    **kwargs``, or other names): then a function with the stated signature, whose body passes
    every parameter on to the wrapper.
    Its parameters name the gradients; the wrapper is a callee like any other.
    """
    code = getattr(func, "__code__", None)
    if (code is None or not inspect.isfunction(func) or made_by_srcad(func)
            or not hasattr(func, "__wrapped__") or _home(func) == "srcad"):
        return func
    try:
        if inspect.signature(func) == inspect.signature(func, follow_wrapped=False):
            return func  # the wrapper's own parameters are the ones it states
    except (TypeError, ValueError):
        return func
    cached = func.__dict__.get("__srcad_target__")
    if cached is not None and cached[0] is func:
        return cached[1]
    shim = _call_through(func)
    try:
        func.__srcad_target__ = (func, shim)
    except (AttributeError, TypeError):
        pass
    return shim


def _call_through(func):
    """``def name(params): return name_decorated(params)`` for a ``*args`` wrapper."""
    try:
        sig = inspect.signature(func)  # follows __wrapped__: the parameters it stands for
    except (TypeError, ValueError):
        return func
    params = list(sig.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return func  # no names for the gradients: read the wrapper (and refuse its *args)
    name = func.__name__
    if not name.isidentifier() or keyword.iskeyword(name) or name == "_":
        name = "decorated"
    callee = f"{name}_decorated"
    while callee in sig.parameters:
        callee += "_"
    head, passed = [], []
    for p in params:
        if p.kind == p.KEYWORD_ONLY and "*" not in head:
            head.append("*")
        head.append(p.name)
        if p.kind == p.POSITIONAL_ONLY and (p is params[-1] or params[params.index(p) + 1]
                                            .kind != p.POSITIONAL_ONLY):
            head.append("/")
        passed.append(p.name if p.kind != p.KEYWORD_ONLY else f"{p.name}={p.name}")
    text = (f"def {name}({', '.join(head)}):\n"
            f"    return {callee}({', '.join(passed)})\n")
    code = func.__code__
    filename = (f"<srcad: the decorated {name} of {code.co_filename}:{code.co_firstlineno}, "
                "called through its wrapper>")
    namespace = {callee: func, "__name__": func.__module__}
    shim = functions.run_source(text, filename, namespace, namespace)[name]
    positional = [p.default for p in params if p.kind != p.KEYWORD_ONLY]
    defaults = []
    for d in reversed(positional):
        if d is inspect.Parameter.empty:
            break
        defaults.insert(0, d)
    shim.__defaults__ = tuple(defaults) or None
    shim.__kwdefaults__ = {p.name: p.default for p in params if p.kind == p.KEYWORD_ONLY
                           and p.default is not p.empty} or None
    shim.__qualname__ = getattr(func, "__qualname__", name)
    shim.__doc__ = func.__doc__
    shim.__wrapped__ = func
    return shim


def _changed_since_defined(func, text, node):
    """Whether the text read now compiles to other code than the function's own (the file was
    edited after import). Closures and lambdas are not checked (they compile differently on
    their own)."""
    code = func.__code__
    if code.co_freevars or not isinstance(node, gast.FunctionDef) or code.co_name == "<lambda>":
        return False
    if "@py_builtins" in func.__globals__:  # pytest rewrote the module's asserts
        return False
    try:
        compiled = compile(text, "<srcad check>", "exec")
    except SyntaxError:
        return False
    for const in compiled.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == code.co_name:
            return _signature_of(const) != _signature_of(code)
    return False


def _signature_of(code):
    """What an edit changes and compilers do not: constants, names, variables, arguments.
    A string's lines are compared without their leading spaces: the text of a method is
    dedented before it is compiled, which changes its multi-line strings (a docstring).
    Python 3.10 keeps a nested function's qualified name among the constants
    (``'Net.make.<locals>.f'``), which the text compiled on its own spells without the class
    (``'make.<locals>.f'``): those are compared from ``<locals>`` on."""
    nested = {c.co_name for c in code.co_consts if isinstance(c, types.CodeType)}
    consts = tuple(_dedented(_local_qualname(c, nested)) for c in code.co_consts
                   if not isinstance(c, types.CodeType))
    return (consts, code.co_names, code.co_varnames, code.co_argcount,
            code.co_kwonlyargcount)


def _local_qualname(const, nested):
    if isinstance(const, str) and ".<locals>." in const and \
            const.rpartition(".")[2] in nested:
        return const[const.index("<locals>."):]
    return const


def _dedented(const):
    if isinstance(const, str):
        return repr(tuple(line.lstrip() for line in const.splitlines()))
    return repr(const)


def _find_function(module, func):
    for stmt in module.body:
        if isinstance(stmt, gast.AsyncFunctionDef):
            raise UnsupportedSyntaxError(
                "srcad cannot differentiate async code", lineno=stmt.lineno,
                construct=f"async def {stmt.name}(...)",
                hint="differentiate a plain (synchronous) function")
        if isinstance(stmt, gast.FunctionDef):
            return stmt
    found = [sub for sub in walk_nodes(module) if isinstance(sub, gast.Lambda)]
    if len(found) > 1:
        raise SourceUnavailableError(
            "several lambdas share this line: srcad cannot tell which one it was given",
            lineno=1, construct=func.__name__,
            hint="give the lambda a line of its own, or define it with def")
    if found:
        return lambdas.as_def(found[0], func.__name__)
    return None


def _describe(func):
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    module = getattr(func, "__module__", None)
    return f"{module}.{name}" if module and module != "builtins" else name
