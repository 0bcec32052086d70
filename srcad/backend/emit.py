"""Print generated code, compile it under a real file name, and bind its names.

Generated code arrives as a tree (an ``ast.FunctionDef`` with srcad's own
:class:`~srcad.transform.nodes.Comment` statements); :func:`print_function` is the one place
where it becomes text, and :func:`compile_function` the one place that calls it. Statements
print as ``ast.unparse`` prints them (blocks indented by four spaces, ``elif`` for an ``if``
alone in an ``else``), comments as ``# text``, and ``return (a, b)`` as ``return a, b``.

The source text is registered in :mod:`linecache` under a file name such as
``<srcad grad_f of model.py:12>``, so tracebacks and ``pdb`` show the generated lines. No file
is written. The generated function reads the user's globals live (the user's module dict is
its globals) and sees the user's closure cells; srcad's helpers (``math``, ``np``, ``sign``,
...) are bound as closure cells of their own, under names that no user name shadows.

Imports: ``srcad.errors`` (where a line came from), ``srcad.runtime`` (the helpers, the
float64 constants),
:mod:`srcad.transform.nodes` (the comment node) and its neighbour :mod:`.float_literals`
(the float64 constants).
"""

from __future__ import annotations

import ast
import builtins
import dis
import itertools
import linecache
import math
import types
import weakref

import numpy as np

from .. import errors
from ..core.walk import walk_nodes
from ..runtime import HELPERS
from ..runtime.float_constants import CONSTANTS
from ..transform.nodes import Comment
from . import float_literals

#: the names generated code reads, bound as it is compiled: modules, srcad's runtime helpers
#: and its float64 constants (:mod:`.float_literals`)
HELPER_OBJECTS = {"math": math, "np": np, **CONSTANTS, **HELPERS}
_counter = itertools.count()


def print_function(fdef, origins=None):
    """The text of a function definition (a tree). ``origins``, a dict, receives for each
    line of the text (from 1) the line of the differentiated code it was made from, where
    known: a forward sweep's statement's own (``srcad_line``), or that of the comment
    heading the backward code of one source line."""
    lines = []
    _print(fdef, "", lines, origins)
    return "\n".join(lines) + "\n"


def _print(stmt, pad, lines, origins=None, line=None):
    cls = stmt.__class__
    if cls is Comment:
        lines.append(f"{pad}# {stmt.text}")
    elif cls is ast.FunctionDef:
        lines.append(f"{pad}def {stmt.name}({ast.unparse(stmt.args)}):")
        _block(stmt.body, pad, lines, origins, line)
    elif cls is ast.If:
        lines.append(f"{pad}if {ast.unparse(stmt.test)}:")
        _block(stmt.body, pad, lines, origins, line)
        while len(stmt.orelse) == 1 and stmt.orelse[0].__class__ is ast.If:
            stmt = stmt.orelse[0]  # else: if ...: as ast.unparse writes it, elif
            lines.append(f"{pad}elif {ast.unparse(stmt.test)}:")
            _block(stmt.body, pad, lines, origins, line)
        _orelse(stmt, pad, lines, origins, line)
    elif cls is ast.For:
        lines.append(f"{pad}for {_bare(stmt.target)} in {ast.unparse(stmt.iter)}:")
        _block(stmt.body, pad, lines, origins, line)
        _orelse(stmt, pad, lines, origins, line)
    elif cls is ast.While:
        lines.append(f"{pad}while {ast.unparse(stmt.test)}:")
        _block(stmt.body, pad, lines, origins, line)
        _orelse(stmt, pad, lines, origins, line)
    elif cls is ast.Return and stmt.value.__class__ is ast.Tuple and stmt.value.elts:
        lines.append(f"{pad}return {_bare(stmt.value)}")  # return a, b: as people write it
    else:
        lines.extend(pad + line for line in ast.unparse(stmt).split("\n"))


def _block(body, pad, lines, origins=None, line=None):
    inner = pad + "    "
    for stmt in body or [ast.Pass()]:
        if stmt.__class__ is Comment and stmt.line is not None:
            line = stmt.line  # the backward code of one source line follows
        own = getattr(stmt, "srcad_line", None) or line
        start = len(lines)
        _print(stmt, inner, lines, origins, own)
        if origins is not None and own is not None:
            for k in range(start + 1, len(lines) + 1):
                origins.setdefault(k, own)  # (a nested statement's own line came first)


def _orelse(stmt, pad, lines, origins=None, line=None):
    if stmt.orelse:
        lines.append(f"{pad}else:")
        _block(stmt.orelse, pad, lines, origins, line)


def _bare(value):
    """A tuple without its parentheses (a loop's target, a returned tuple); else as it is."""
    if value.__class__ is ast.Tuple and value.elts:
        return ast.unparse(value)[1:-1]
    return ast.unparse(value)


def helpers_read(tree, spelled):
    """The helpers a function's tree reads (by their spelling in it)."""
    names = {n.id for n in walk_nodes(tree) if n.__class__ is ast.Name}
    return {h for h in HELPER_OBJECTS if spelled.get(h, h) in names}


def helper_names(namer, user_globals, user_names):
    """Spelling of each helper in generated code: its own name unless a user name takes it."""
    names = {}
    for name, obj in HELPER_OBJECTS.items():
        if name in user_names and user_globals.get(name) is not obj:
            names[name] = namer.fresh(name + "_")
        else:
            names[name] = name
    return names


def compile_function(fdef, user_func, helpers, spelled, label, defaults, kwdefaults,
                     cells=None):
    """Print ``fdef`` (a function definition's tree), compile it and return it bound to the
    user's namespace; the text is its ``__srcad_source__``."""
    _drop_default_arguments(fdef, helpers, spelled)
    fdef = float_literals.headed(fdef, helpers, spelled)  # (what one, half are)
    origins = {}
    text = print_function(fdef, origins)
    name = fdef.name
    filename = f"<srcad {label} #{next(_counter)}>"
    # Line 1 of the compiled text is the factory; linecache shows a comment there instead.
    shown = f"# generated by srcad: {label}\n" + text
    linecache.cache[filename] = (len(shown), None, shown.splitlines(True), filename)
    # an error srcad raises at a line of this code (differentiated in turn) names the line
    # of the user's code it was made from
    errors.note_origin(filename, user_func.__code__.co_filename,
                       {k + 1: line for k, line in origins.items()},
                       user_func.__code__.co_firstlineno)
    freevars = list(user_func.__code__.co_freevars)
    cells = dict(cells or {})
    cells.update(_builtins_shadowed(fdef, user_func, set(cells) | {spelled[h] for h in helpers}))
    helper_params = [spelled[h] for h in sorted(helpers)] + sorted(cells)
    factory_params = helper_params + [v for v in freevars if v not in helper_params]
    wrapped = "def __srcad_factory__({}):\n{}    return {}\n".format(
        ", ".join(factory_params), _indent(text), name)
    code = compile(wrapped, filename, "exec")
    namespace = {}
    exec(code, {"__builtins__": __builtins__}, namespace)  # noqa: S102
    inner = namespace["__srcad_factory__"](*([None] * len(factory_params)))
    inner_code = inner.__code__
    closure = []
    user_cells = dict(zip(freevars, user_func.__closure__ or ()))
    helper_values = {spelled[h]: HELPER_OBJECTS[h] for h in helpers}
    for var in inner_code.co_freevars:
        if var in helper_values:
            closure.append(types.CellType(helper_values[var]))
        elif var in cells:
            closure.append(cells[var])
        elif var in user_cells:
            closure.append(user_cells[var])
        else:
            closure.append(types.CellType())
    fn = types.FunctionType(inner_code, user_func.__globals__, name, defaults,
                            tuple(closure) or None)
    fn.__kwdefaults__ = kwdefaults
    fn.__srcad_source__ = text
    weakref.finalize(fn, linecache.cache.pop, filename, None)  # its lines go with it
    weakref.finalize(fn, errors.forget_origin, filename)
    return fn


def _drop_default_arguments(fdef, helpers, spelled):
    """``grad_sum(g, a)`` for ``grad_sum(g, a, None, False)``: a helper's trailing arguments
    that are literals equal to its defaults left out, as a person would write the call."""
    defaults = {}
    for h in helpers:
        found = _defaults(h)
        if found:
            defaults[spelled.get(h, h)] = found
    if not defaults:
        return
    for node in walk_nodes(fdef):
        if node.__class__ is not ast.Call or node.func.__class__ is not ast.Name or \
                node.keywords or node.func.id not in defaults:
            continue
        params = defaults[node.func.id]
        args = node.args
        while args and len(args) <= len(params) and args[-1].__class__ is ast.Constant and \
                params[len(args) - 1] is not _REQUIRED and \
                type(args[-1].value) is type(params[len(args) - 1]) and \
                args[-1].value == params[len(args) - 1]:
            args.pop()


_REQUIRED = object()
_DEFAULTS = {}


def _defaults(helper):
    """The defaults of ``helper``'s positional parameters (``_REQUIRED`` for one without),
    or None for a helper whose parameters are not all plain positional ones."""
    if helper not in _DEFAULTS:
        import inspect

        found = None
        obj = HELPER_OBJECTS.get(helper)
        try:
            params = list(inspect.signature(obj, follow_wrapped=False).parameters.values()) \
                if isinstance(obj, types.FunctionType) else None
        except (TypeError, ValueError):
            params = None
        if params and all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params):
            found = tuple(_REQUIRED if p.default is p.empty else p.default for p in params)
        _DEFAULTS[helper] = found
    return _DEFAULTS[helper]


def _builtins_shadowed(fdef, user_func, bound):
    """Python's builtins the generated code reads (``reversed``, ``slice``, ``len``, ...,
    which srcad writes itself) that the user's module defines otherwise, when the user's own
    function never reads that name: bound to the builtins, as cells (the user's ``reversed``
    would walk a backward loop in the wrong order)."""
    names = {n.id for n in walk_nodes(fdef) if n.__class__ is ast.Name} - bound
    user_globals = user_func.__globals__
    shadowed = {n for n in names if n in _BUILTINS and n in user_globals
                and user_globals[n] is not _BUILTINS[n]}
    if not shadowed:
        return {}
    both = shadowed & _names_read(user_func.__code__) & _STRUCTURAL
    if both:
        from ..errors import UnsupportedSyntaxError

        name = sorted(both)[0]
        code = user_func.__code__
        raise UnsupportedSyntaxError(
            f"{user_func.__qualname__} calls its module's own {name!r}, which hides Python's "
            f"builtin {name}() that srcad's generated code calls too",
            filename=code.co_filename, lineno=code.co_firstlineno,
            construct=f"{name} = {user_globals[name]!r}"[:120],
            hint=f"rename the module's {name} (my_{name}), or call builtins.{name} there")
    return {n: types.CellType(_BUILTINS[n]) for n in shadowed - _names_read(user_func.__code__)}


def _names_read(code):
    """The global and free names a code object (and the code nested in it) reads: loads of
    names, not attributes (``builtins.range`` reads ``builtins``)."""
    names = {i.argval for i in dis.get_instructions(code) if i.opname in _LOADS}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_read(const)
    return names


_LOADS = {"LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF",
          "LOAD_FROM_DICT_OR_GLOBALS"}
#: builtins srcad's lowering and sweeps write for their own loops, stacks and slices: a
#: module's own function of that name, called by the code too, makes the name ambiguous
_STRUCTURAL = {"range", "len", "list", "tuple", "reversed", "slice", "zip", "enumerate",
               "iter", "next", "isinstance", "float", "dict"}


_BUILTINS = vars(builtins)


def _indent(text):
    return "".join("    " + line + "\n" for line in text.splitlines())


def program_text(fn):
    """``fn``'s generated text followed by that of each generated function it calls (the
    forward and backward parts of the user's callees, theirs in turn), each once, in the
    order they are first called, each under the name its caller calls it by (two
    specialisations of one callee are ``f_fwd`` and ``f_fwd_1``): the whole derivative
    program, as :func:`srcad.source` shows it."""
    texts, seen = [], set()

    def add(made, called_as=None):
        raw = getattr(made, "__srcad_raw__", None) or getattr(made, "py_func", made)
        if id(raw) in seen or getattr(made, "__srcad_source__", None) is None:
            return
        seen.add(id(raw))
        text = made.__srcad_source__
        own = getattr(raw, "__name__", None)
        if called_as and own and called_as != own:
            text = text.replace(f"def {own}(", f"def {called_as}(", 1)
        texts.append(text)
        code = getattr(raw, "__code__", None)
        if code is None:
            return
        called = []
        for name, cell in zip(code.co_freevars, raw.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if getattr(value, "__srcad_source__", None) is not None:
                at = text.find(name + "(")
                called.append((at if at >= 0 else len(text), name, value))
        for _, name, value in sorted(called, key=lambda item: item[:2]):
            add(value, name)

    add(fn)
    return "\n".join(texts)
