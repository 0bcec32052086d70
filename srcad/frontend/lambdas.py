"""Find a lambda's own tree in its file, even when other lambdas share its line.

A lambda's code object knows its file and first line, not which of the lambdas on that line it
is. :func:`read_lambda` parses the whole file (cached per file text, with its lambdas by
line), takes the lambdas that start on that line, and keeps the one whose code it is:

* on every version, each candidate is compiled on its own and compared with the code object:
  its parameters, its constants, the names it reads and its operations (name reads made
  alike: a free variable compiles to a global read alone) must be the same;
* then, on Python 3.11+, every instruction of the code object carries its columns
  (``co_positions``): the lambda is the smallest one whose span holds them all.

The one kept must have the code's parameters, whatever decided, and (unless it holds code of
its own, a comprehension) compile to the same code: a lambda whose line was edited after
import is refused, not differentiated as the new text.

Candidates that are textually the same lambda are one candidate (they compile to the same code,
so either reads the same). When the candidates still differ, the lambda is refused with a
precise error rather than guessed.

After this module: a ``gast.FunctionDef`` standing for the lambda (``return body``), with the
file's real line numbers.

Imports: the standard library, gast, :mod:`srcad.core.naming` and :mod:`srcad.errors`.
"""

from __future__ import annotations

import ast
import dis
import linecache
import types

import gast

from ..core import naming
from ..core.walk import walk_nodes
from ..errors import SourceUnavailableError

_parsed = {}  # filename -> (text, {line: the lambdas starting on it, in walk order})


def read_lambda(func):
    """``(FunctionDef, first_line, text from that line on)`` for the lambda ``func``, or None
    when its file cannot be read or parsed whole (the caller then reads its lines alone)."""
    code = func.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, func.__globals__)
    if not lines:
        return None
    text = "".join(lines)
    known = _parsed.get(filename)
    if known is not None and known[0] == text:
        by_line = known[1]
    else:
        try:
            module = gast.parse(text)
        except (SyntaxError, ValueError):
            return None
        if len(_parsed) >= 32:  # a few files at a time
            _parsed.clear()
        by_line = {}  # the file walked once, not once a lambda read (a test file's hundreds)
        for n in walk_nodes(module):
            if isinstance(n, gast.Lambda):
                by_line.setdefault(n.lineno, []).append(n)
        _parsed[filename] = (text, by_line)
    line = code.co_firstlineno
    candidates = list(by_line.get(line, ()))
    if not candidates:
        return None
    node = _choose(candidates, code, func)
    return as_def(_copy(node), func.__name__), line, "".join(lines[line - 1:])


def _choose(candidates, code, func):
    candidates = _distinct(candidates)
    if len(candidates) > 1:  # those that compile to this code (else those with its parameters)
        same = [c for c in candidates if _same_code(c, code)]
        candidates = same or [c for c in candidates if _same_params(c, code)]
    if len(candidates) > 1:  # then the one whose columns hold the code's
        candidates = _distinct(_by_positions(candidates, code))
    if len(candidates) == 1 and _same_params(candidates[0], code):
        if not _nests_code(code) and not _same_code(candidates[0], code):
            raise SourceUnavailableError(
                "the lambda on this line is not the code that runs (the file was edited "
                "since it was imported?): srcad would differentiate other code",
                filename=code.co_filename, lineno=code.co_firstlineno,
                construct=func.__name__,
                hint="re-import the module (importlib.reload) or restart, then take the "
                "gradient")
        return candidates[0]
    raise SourceUnavailableError(
        "several lambdas on this line could be the one given: srcad cannot tell which",
        filename=code.co_filename, lineno=code.co_firstlineno, construct=func.__name__,
        hint="give the lambda a line of its own, or define it with def")


def _distinct(nodes):
    """One node per text: lambdas written the same compile to the same code."""
    seen, kept = set(), []
    for node in nodes:
        text = gast.dump(node)
        if text not in seen:
            seen.add(text)
            kept.append(node)
    return kept


def _span(node):
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def _by_positions(candidates, code):
    """The smallest candidate whose span holds every located instruction of ``code``
    (Python 3.11+); all of them when the code carries no columns."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return candidates
    located = [(a, b, c, d) for a, b, c, d in positions()
               if None not in (a, b, c, d) and (a, c) != (b, d)]
    if not located:
        return candidates
    holding = []
    for node in candidates:
        start, end = _span(node)
        if all(start <= (a, c) and (b, d) <= end for a, b, c, d in located):
            holding.append(node)
    if not holding:
        return candidates
    smallest = min(holding, key=lambda n: (_span(n)[1][0] - _span(n)[0][0],
                                           _span(n)[1][1] - _span(n)[0][1]))
    return [n for n in holding if _span(n) == _span(smallest)]


def _same_code(node, code):
    """Whether ``node``, compiled on its own, has ``code``'s parameters, constants and names
    (compiled alone its free variables read as globals, so those are compared as a set)."""
    try:
        tree = ast.Expression(body=gast.gast_to_ast(_copy(node)))
        ast.fix_missing_locations(tree)
        outer = compile(tree, code.co_filename, "eval")
    except (SyntaxError, ValueError, TypeError):
        return True  # cannot tell: keep it
    alone = next((c for c in outer.co_consts if isinstance(c, types.CodeType)), None)
    if alone is None:
        return True
    nargs = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(
        code.co_flags & 8)
    if (alone.co_argcount, alone.co_posonlyargcount, alone.co_kwonlyargcount,
            alone.co_flags & 12, alone.co_varnames[:nargs]) != (
            code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_flags & 12, code.co_varnames[:nargs]):
        return False
    return _fingerprint(alone) == _fingerprint(code) and _names(alone) == _names(code)


def _fingerprint(code):
    """Constants and operations of ``code`` and of the code it holds (comprehensions)."""
    return (_plain_consts(code), _ops(code),
            tuple(_fingerprint(c) for c in code.co_consts if isinstance(c, types.CodeType)))


def _names(code):
    """The names ``code`` and the code it holds read, wherever the compiler put them (a
    comprehension's free variable is the lambda's too in place, a global alone)."""
    found = set(code.co_names) | set(code.co_freevars)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            found |= _names(c)
    return found


def _nests_code(code):
    """Whether ``code`` holds code of its own (a comprehension, a lambda): compiled alone,
    such a lambda may place its names differently, so the comparison cannot judge it."""
    return any(isinstance(c, types.CodeType) for c in code.co_consts)


def _same_params(node, code):
    """Whether ``node``'s parameters are ``code``'s, in the order the code lists them."""
    args = node.args
    names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    return tuple(names) == code.co_varnames[:len(names)] and len(names) == (
        code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4)
        + bool(code.co_flags & 8))


def _plain_consts(code):
    """The constants of ``code`` but its code objects and their qualified names (which
    name the enclosing function in place, not alone: Python 3.10)."""
    nested = [c.co_name for c in code.co_consts if isinstance(c, types.CodeType)]
    return tuple(repr(c) for c in code.co_consts if not isinstance(c, types.CodeType) and not (
        isinstance(c, str) and any(c == n or c.endswith("." + n) for n in nested)))


#: how a name is read, which differs between the lambda in place and compiled alone
_LOADS = {"LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_CLASSDEREF", "LOAD_FAST",
           "LOAD_FAST_CHECK", "LOAD_FROM_DICT_OR_DEREF", "LOAD_FROM_DICT_OR_GLOBALS"}
_PROLOGUE = {"RESUME", "COPY_FREE_VARS", "MAKE_CELL", "NOP", "CACHE", "PUSH_NULL",
             "LOAD_CLOSURE", "BUILD_TUPLE"}  # the last two: a comprehension's closure
#: and an attribute read for a call: a method lookup, except on a name imported in the same file
_ALIKE = dict.fromkeys(_LOADS, "LOAD") | {"LOAD_METHOD": "ATTR", "LOAD_ATTR": "ATTR"}


def _ops(code):
    """The operations of ``code``, name reads made alike and the closure prologue left out."""
    return tuple(_ALIKE.get(i.opname, i.opname) for i in dis.get_instructions(code)
                 if i.opname not in _PROLOGUE)


def _copy(node):
    """A deep copy (the cached tree is shared; later passes change the one they get)."""
    if isinstance(node, list):
        return [_copy(n) for n in node]
    if not isinstance(node, gast.AST):
        return node
    copy = type(node)(**{f: _copy(getattr(node, f, None)) for f in node._fields})
    for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if hasattr(node, attr):
            setattr(copy, attr, getattr(node, attr))
    return copy


def as_def(lam, name):
    """``def <name>(<lam's parameters>): return <lam's body>``, at the lambda's place."""
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
