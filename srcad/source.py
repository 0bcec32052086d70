"""Read a function's source and parse it with gast.

After this pass: we hold the function's ``gast.FunctionDef`` with line numbers that are the
user's real line numbers, the file name, and the namespaces the body's names resolve in
(globals, closure cells, builtins). Decorators are dropped, so ``@srcad.grad`` above a
function does not recurse into itself.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import linecache
import textwrap
import types
from dataclasses import dataclass, field

import gast

from . import env, naming
from .errors import SourceUnavailableError, UnsupportedSyntaxError


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
        refers to now (closure, global or builtin); the read is recorded (:mod:`srcad.env`),
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
        return value


_HINT_RULE = (
    "srcad needs the Python source of the function it differentiates; for a built-in or "
    "C function, give it a derivative rule with @srcad.extend.defvjp (see docs/extending.md)"
)


def read(func):
    """Parse ``func`` into a :class:`Source`, or raise :class:`SourceUnavailableError`."""
    func = inspect.unwrap(func, stop=lambda f: hasattr(f, "__srcad_primal__"))
    if isinstance(func, functools.partial):
        raise SourceUnavailableError(
            "cannot differentiate a functools.partial object",
            construct=repr(func),
            hint="differentiate the underlying function and pass the fixed arguments yourself",
        )
    code = getattr(func, "__code__", None)
    if code is None or not inspect.isfunction(func):
        call = vars(type(func)).get("__call__")  # a method defined on the class
        if inspect.isfunction(call):
            raise SourceUnavailableError(
                f"{_describe(type(func))} is a callable object, not a function",
                construct=repr(func), hint="differentiate its method: "
                f"srcad.grad({type(func).__name__}.__call__, wrt=...) with the object as "
                "first argument, or a function that calls it")
        raise SourceUnavailableError(
            f"no Python source for {_describe(func)}", construct=repr(func), hint=_HINT_RULE
        )
    if (getattr(func, "__module__", "") or "").split(".")[0] in ("numpy", "srcad"):
        raise SourceUnavailableError(
            f"{_describe(func)} is a library function: srcad differentiates your code, and "
            "calls to library functions through their rules",
            construct=repr(func), hint="differentiate a function of yours that calls it")
    filename = code.co_filename
    try:
        lines, first_line = inspect.getsourcelines(func)
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
    text = textwrap.dedent("".join(lines))
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
    """What an edit changes and compilers do not: constants, names, variables, arguments."""
    consts = tuple(repr(c) for c in code.co_consts if not isinstance(c, types.CodeType))
    return (consts, code.co_names, code.co_varnames, code.co_argcount,
            code.co_kwonlyargcount)


def _find_function(module, func):
    for stmt in module.body:
        if isinstance(stmt, gast.AsyncFunctionDef):
            raise UnsupportedSyntaxError(
                "srcad cannot differentiate async code", lineno=stmt.lineno,
                construct=f"async def {stmt.name}(...)",
                hint="differentiate a plain (synchronous) function")
        if isinstance(stmt, gast.FunctionDef):
            return stmt
    lambdas = [sub for sub in gast.walk(module) if isinstance(sub, gast.Lambda)]
    if len(lambdas) > 1:
        raise SourceUnavailableError(
            "several lambdas share this line: srcad cannot tell which one it was given",
            lineno=1, construct=func.__name__,
            hint="give the lambda a line of its own, or define it with def")
    if lambdas:
        return _lambda_as_def(lambdas[0], func.__name__)
    return None


def _lambda_as_def(lam, name):
    ret = gast.Return(value=lam.body)
    gast.copy_location(ret, lam.body)
    fdef = gast.FunctionDef(
        name=naming.code_name(name),
        args=lam.args,
        body=[ret],
        decorator_list=[],
        returns=None,
        type_comment=None,
        type_params=[],
    )
    return gast.copy_location(fdef, lam)


def _describe(func):
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    module = getattr(func, "__module__", None)
    return f"{module}.{name}" if module and module != "builtins" else name
