"""``match`` statements (Python 3.10+) as ``if`` statements, before the checks (issue 16).

Each ``match`` becomes the tests Python makes, on the subject evaluated once into a name of
its own::

    match mode:                       srcad_subject = mode
        case "a":                     if srcad_subject == "a":
            y = x * x                     y = x * x
        case (n, m):                  elif isinstance(srcad_subject, Sequence) and not
            y = x * n                         isinstance(srcad_subject, (str, bytes, bytearray))
        case _:                               and len(srcad_subject) == 2:
            y = x                         n = srcad_subject[0]; m = srcad_subject[1]
                                          y = x * n
                                      else:
                                          y = x

so the branches are differentiated as any ``if`` (the branch taken is recorded as any
``if``'s is). Patterns read so: literals and dotted names (``==``), ``None``/``True``/``False``
(``is``), captures and ``_``, ``as``, alternatives ``|`` (without captures), sequences
(``[a, b]``, ``(a, *rest)``: a ``collections.abc.Sequence`` other than a string, of that
length; an array is not one, as in Python), mappings with constant keys (``{"w": w}``: a
``collections.abc.Mapping`` holding the keys), classes (``Point(x=a)``, ``float(v)``:
``isinstance`` and the attributes; positional sub-patterns by the class's
``__match_args__``, or the subject itself for the built-in classes that match so), and
guards (``case p if cond``: a flag carries "matched" to the cases after, as a failed guard
falls through). Refused at the line with a rewrite: ``**rest`` in a mapping pattern,
captures inside an alternative, a class whose ``__match_args__`` srcad cannot read.

Imports the standard library, gast, :mod:`srcad.errors` and :mod:`.built_records`
(``resolve_any``).
"""

from __future__ import annotations

import collections.abc
import types

import gast

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from .built_records import resolve_any

#: the classes whose positional sub-pattern matches the subject itself (PEP 634)
_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


def lower(src):
    """Rewrite every ``match`` in ``src.node`` (nested functions too) in place."""
    if not hasattr(gast, "Match") or not any(isinstance(n, gast.Match)
                                             for n in walk_nodes(src.node)):
        return
    _Lowering(src).blocks(src.node)


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _call(func, *args):
    return gast.Call(func=func, args=list(args), keywords=[])


def _and(tests):
    tests = [t for t in tests if t is not None]
    if not tests:
        return None
    return tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)


class _Lowering:
    def __init__(self, src):
        self.src = src
        self.taken = {n.id for n in walk_nodes(src.node) if isinstance(n, gast.Name)}
        #: the names the function binds (a builtin of that name is not Python's there)
        self.stored = {n.id for n in walk_nodes(src.node) if isinstance(n, gast.Name) and
                       not isinstance(n.ctx, gast.Load)}
        self.bound = {}  # object -> the hidden name that reads it

    def fresh(self, base):
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    def builtin(self, name):
        """Python's own ``name`` (isinstance, len, list, hasattr) where the function is: the
        name itself, else a name of srcad's reading it."""
        import builtins

        if name in self.stored or name in self.src.closure or name in self.src.globals:
            return self.constant(getattr(builtins, name), f"srcad_{name}")
        return _name(name)

    def constant(self, obj, base):
        """A name the code reads ``obj`` through (a closure variable of srcad's)."""
        if id(obj) not in self.bound:
            name = self.fresh(base)
            self.src.closure[name] = obj
            self.src.cells[name] = types.CellType(obj)
            self.src.bound = {**getattr(self.src, "bound", {}), name: obj}
            self.bound[id(obj)] = name
        return _name(self.bound[id(obj)])

    def error(self, node, what, hint):
        line = getattr(node, "lineno", None)
        return UnsupportedSyntaxError(what, filename=self.src.filename, lineno=line,
                                      construct=self.src.line_text(line), hint=hint)

    # ---------------------------------------------------------------- statements

    def blocks(self, node):
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            out = []
            for stmt in block:
                self.blocks(stmt)
                for case in getattr(stmt, "cases", ()):
                    self.blocks(case)
                out.extend(self.match(stmt) if isinstance(stmt, gast.Match) else [stmt])
            setattr(node, field, out)
        for child in walk_nodes(node):  # functions in expressions (lambdas hold no statements)
            if child is not node and isinstance(child, (gast.FunctionDef,
                                                        gast.AsyncFunctionDef)):
                self.blocks(child)

    def match(self, node):
        subject = self.fresh("srcad_subject")
        out = [gast.Assign(targets=[_name(subject, gast.Store())], value=node.subject,
                           type_comment=None)]
        arms = []
        for case in node.cases:
            test, binds = self.pattern(case.pattern, _name(subject))
            assigns = [gast.Assign(targets=[_name(n, gast.Store())], value=v, type_comment=None)
                       for n, v in binds]
            arms.append((test, assigns, case.guard, case.body, case))
        if any(guard is not None for _, _, guard, _, _ in arms):
            out += self.flagged(arms)
        else:
            out += self.chained(arms)
        for stmt in out:
            for sub in walk_nodes(stmt):
                if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                    gast.copy_location(sub, node)
        return out

    @staticmethod
    def chained(arms):
        """``if T0: ... elif T1: ... else: ...`` (no guards)."""
        out = tail = []
        for test, assigns, _, body, case in arms:
            if test is None:  # irrefutable: the rest cannot run
                tail.extend(assigns + body)
                return out
            node = gast.copy_location(gast.If(test=test, body=assigns + body, orelse=[]),
                                      case.pattern)
            tail.append(node)
            tail = node.orelse
        return out

    def flagged(self, arms):
        """Each case under ``if not matched and T`` (a failed guard falls through)."""
        flag = self.fresh("srcad_matched")
        out = [gast.Assign(targets=[_name(flag, gast.Store())],
                           value=gast.Constant(value=False, kind=None), type_comment=None)]
        for k, (test, assigns, guard, body, case) in enumerate(arms):
            taken = [gast.Assign(targets=[_name(flag, gast.Store())],
                                 value=gast.Constant(value=True, kind=None),
                                 type_comment=None)] + body
            inner = assigns + ([gast.If(test=guard, body=taken, orelse=[])] if guard else taken)
            first = None if k == 0 else gast.UnaryOp(op=gast.Not(), operand=_name(flag))
            test = _and([first, test])
            if test is None:  # the first case, a capture or _: its guard decides
                out.extend(inner)
                if guard is None:
                    break
                continue
            out.append(gast.copy_location(gast.If(test=test, body=inner, orelse=[]),
                                          case.pattern))
        return out

    # ---------------------------------------------------------------- patterns

    def pattern(self, p, subject):
        """``(test or None when it always matches, [(name, value)])`` of pattern ``p`` on the
        expression ``subject`` (re-read for each part: a name or an item of one)."""
        if isinstance(p, gast.MatchValue):
            return gast.Compare(left=subject, ops=[gast.Eq()], comparators=[p.value]), []
        if isinstance(p, gast.MatchSingleton):
            return gast.Compare(left=subject, ops=[gast.Is()],
                                comparators=[gast.Constant(value=p.value, kind=None)]), []
        if isinstance(p, gast.MatchAs):
            test, binds = (None, []) if p.pattern is None else self.pattern(p.pattern, subject)
            return test, binds + ([(p.name, subject)] if p.name else [])
        if isinstance(p, gast.MatchOr):
            parts = [self.pattern(q, subject) for q in p.patterns]
            if any(binds for _, binds in parts):
                raise self.error(p, "a capture inside an alternative of a match pattern (|)",
                                 "write one case per alternative")
            if any(test is None for test, _ in parts):
                return None, []
            return gast.BoolOp(op=gast.Or(), values=[t for t, _ in parts]), []
        if isinstance(p, gast.MatchSequence):
            return self.sequence(p, subject)
        if isinstance(p, gast.MatchMapping):
            return self.mapping(p, subject)
        if isinstance(p, gast.MatchClass):
            return self.klass(p, subject)
        raise self.error(p, "this match pattern", "use if/elif/else")

    def sequence(self, p, subject):
        stars = [i for i, q in enumerate(p.patterns) if isinstance(q, gast.MatchStar)]
        n = len(p.patterns)
        kind = _call(self.builtin("isinstance"), subject,
                     self.constant(collections.abc.Sequence, "srcad_Sequence"))
        text = gast.UnaryOp(op=gast.Not(), operand=_call(
            _name("isinstance"), subject, self.constant((str, bytes, bytearray), "srcad_text")))
        length = _call(self.builtin("len"), subject)
        size = gast.Compare(left=length, ops=[gast.GtE() if stars else gast.Eq()],
                            comparators=[gast.Constant(value=n - len(stars), kind=None)])
        tests, binds = [kind, text, size], []
        for i, q in enumerate(p.patterns):
            if isinstance(q, gast.MatchStar):
                after = n - 1 - i
                upper = None if after == 0 else gast.Constant(value=-after, kind=None)
                part = gast.Subscript(value=subject, slice=gast.Slice(
                    lower=gast.Constant(value=i, kind=None), upper=upper, step=None),
                    ctx=gast.Load())
                if q.name:
                    binds.append((q.name, _call(self.builtin("list"), part)))
                continue
            index = i if not stars or i < stars[0] else i - n
            item = gast.Subscript(value=subject, slice=gast.Constant(value=index, kind=None),
                                  ctx=gast.Load())
            test, more = self.pattern(q, item)
            tests.append(test)
            binds += more
        return _and(tests), binds

    def mapping(self, p, subject):
        if p.rest is not None:
            raise self.error(p, "**rest in a match mapping pattern",
                             "read the keys you need, or match with if/elif")
        tests = [_call(self.builtin("isinstance"), subject,
                       self.constant(collections.abc.Mapping, "srcad_Mapping"))]
        binds = []
        for key in p.keys:
            tests.append(gast.Compare(left=key, ops=[gast.In()], comparators=[subject]))
        for key, q in zip(p.keys, p.patterns):
            item = gast.Subscript(value=subject, slice=key, ctx=gast.Load())
            test, more = self.pattern(q, item)
            tests.append(test)
            binds += more
        return _and(tests), binds

    def klass(self, p, subject):
        tests, binds = [_call(self.builtin("isinstance"), subject, p.cls)], []
        if p.patterns:
            cls = resolve_any(self.src, p.cls)
            if cls in _SELF_MATCHING and len(p.patterns) == 1:
                attrs = [None]
            else:
                attrs = getattr(cls, "__match_args__", None)
                if not isinstance(attrs, tuple) or len(attrs) < len(p.patterns):
                    raise self.error(p, "positional sub-patterns of a class srcad cannot read "
                                     "the __match_args__ of", "name the attributes: "
                                     "Point(x=a, y=b)")
            for attr, q in zip(attrs, p.patterns):
                item = subject if attr is None else gast.Attribute(value=subject, attr=attr,
                                                                   ctx=gast.Load())
                test, more = self.pattern(q, item)
                tests.append(test)
                binds += more
        for attr, q in zip(p.kwd_attrs, p.kwd_patterns):
            tests.append(_call(self.builtin("hasattr"), subject,
                               gast.Constant(value=attr, kind=None)))
            test, more = self.pattern(q, gast.Attribute(value=subject, attr=attr,
                                                        ctx=gast.Load()))
            tests.append(test)
            binds += more
        return _and(tests), binds

