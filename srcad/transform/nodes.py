"""The trees generated code is made of: builders for stdlib ``ast`` nodes, the IR's atoms and
operations as expressions, and the statements of srcad's own (a comment, the markers where a
block pushes or pops what it saves).

Why stdlib ``ast`` and not gast: gast exists to give *reading* user code one tree across Python
versions; the code srcad writes uses a handful of node types that every supported Python spells
the same, rule templates are parsed with ``ast``, and ``ast.unparse`` prints the result. A gast
tree would have to be converted back before every print.

Every builder makes fresh nodes (tidy rewrites trees in place: a node shared by two statements
would change in both). Text is made later, once, by :mod:`srcad.backend.emit`.

Imports: ``srcad.core`` only.
"""

from __future__ import annotations

import ast
import inspect
import math
import operator

from ..core import ir
from ..core.walk import walk_nodes

LOAD, STORE = ast.Load(), ast.Store()  # shared, as the parser shares them


class Comment(ast.stmt):
    """``# text`` on a line of its own; ``line`` is the user's line it names (a comment that
    heads the code of one source line), or ``None``."""

    _fields = ("text",)

    def __init__(self, text, line=None):
        super().__init__(text=text)
        self.line = line


class PopMarker(ast.stmt):
    """Where a block's backward code pops what its forward code pushed (see :func:`realise`)."""

    _fields = ()

    def __init__(self, block):
        super().__init__()
        self.block = block


class PushMarker(ast.stmt):
    """Where a block's forward code pushes the values its backward code reads."""

    _fields = ()

    def __init__(self, block):
        super().__init__()
        self.block = block


# ---------------------------------------------------------------- builders


def name(id_):
    return ast.Name(id=id_, ctx=LOAD)


def node(value):
    """A name (given as a string) as a node; a node as it is."""
    return ast.Name(id=value, ctx=LOAD) if value.__class__ is str else value


def store(target):
    """An assignment target: a name, or a tuple of names (a list or tuple of them)."""
    if target.__class__ is str:
        return ast.Name(id=target, ctx=STORE)
    return ast.Tuple(elts=[ast.Name(id=t, ctx=STORE) for t in target], ctx=STORE)


def assign(target, value):
    """``target = value``; ``target``: a name, names, or a node (a subscript)."""
    if not isinstance(target, (str, list, tuple)):
        target.ctx = STORE
    else:
        target = store(target)
    return ast.Assign(targets=[target], value=node(value), lineno=0)  # unparse reads it


def add_to(target, value):
    """``target += value``."""
    if target.__class__ is str:
        target = ast.Name(id=target, ctx=STORE)
    else:
        target.ctx = STORE
    return ast.AugAssign(target=target, op=ast.Add(), value=node(value))


def expr_stmt(value):
    return ast.Expr(value=value)


def attr(obj, attribute):
    return ast.Attribute(value=node(obj), attr=attribute, ctx=LOAD)


def call(func, *args, **kwargs):
    """``func(*args, **kwargs)``; ``func`` and the arguments: names (strings) or nodes."""
    return ast.Call(func=node(func), args=[node(a) for a in args],
                    keywords=[ast.keyword(arg=k, value=node(v)) for k, v in kwargs.items()])


def method(obj, name_, *args):
    """``obj.name(*args)``."""
    return ast.Call(func=attr(obj, name_), args=[node(a) for a in args], keywords=[])


def subscript(obj, index):
    return ast.Subscript(value=node(obj), slice=index, ctx=LOAD)


def tuple_(items):
    return ast.Tuple(elts=[node(i) for i in items], ctx=LOAD)


def binop(left, op, right):
    return ast.BinOp(left=node(left), op=op, right=node(right))


def plus(left, right):
    return ast.BinOp(left=node(left), op=ast.Add(), right=node(right))


def not_(test):
    return ast.UnaryOp(op=ast.Not(), operand=test)


def if_(test, body, orelse=None):
    return ast.If(test=test, body=body, orelse=orelse or [])


def either(test, then, other):
    """``if test: then`` / ``else: other`` as statements, the test negated when only ``other``
    has code, no statement when neither has."""
    if then:
        return [if_(test, then, other or None)]
    return [if_(not_(test), other)] if other else []


def for_(target, iterable, body):
    return ast.For(target=store(target), iter=iterable, body=body, orelse=[], lineno=0)


def while_(test, body):
    return ast.While(test=test, body=body, orelse=[])


def break_if(test):
    """``if test: break``."""
    return ast.If(test=test, body=[ast.Break()], orelse=[])


def constant(value):
    return ast.Constant(value=value)


def dotted(text):
    """``np.linalg.norm`` (a spelling: how the user wrote a name, or a helper's) as a node."""
    head, *rest = text.split(".")
    out = ast.Name(id=head, ctx=LOAD)
    for part in rest:
        out = ast.Attribute(value=out, attr=part, ctx=LOAD)
    return out


def is_name(value, id_=None):
    return value.__class__ is ast.Name and (id_ is None or value.id == id_)


# ---------------------------------------------------------------- the IR as expressions


_SIMPLE = (bool, int, float, str, type(None))
_literals = {}  # a literal's text -> its tree (copied on every use)


def literal(value):
    """A Python value as the literal that spells it (its repr, as the IR prints it)."""
    cls = value.__class__
    if cls in _SIMPLE and not (cls in (int, float) and not value >= 0) and not (
            cls is float and (math.isinf(value) or math.copysign(1.0, value) < 0)):
        return ast.Constant(value=value)
    return spelled(repr(value))


def spelled(text):
    """The tree of a literal or a user's spelling: the value's own text, never generated
    code; parsed once, copied on every use."""
    tree = _literals.get(text)
    if tree is None:
        tree = _literals[text] = ast.parse(text, mode="eval").body
    return copy_tree(tree)


def copy_tree(tree):
    """A copy of a tree (what ``copy.deepcopy`` gives, several times faster). Leaf nodes
    without fields (``Load``, ``Add``) are shared, as the parser itself shares them."""
    cls = tree.__class__
    if cls is list:
        return [copy_tree(item) for item in tree]
    fields = getattr(cls, "_fields", None)
    if not fields:
        return tree  # a str, a number, None, or a field-less node
    new = cls.__new__(cls)
    for field in fields:
        if hasattr(tree, field):
            setattr(new, field, copy_tree(getattr(tree, field)))
    return new


def const(atom):
    if atom.spelling:
        return spelled(atom.spelling)
    value = atom.value
    cls = value.__class__
    if cls in _SIMPLE and not (cls in (int, float) and not value >= 0) and not (
            cls is float and (math.isinf(value) or math.copysign(1.0, value) < 0)):
        return ast.Constant(value=value)
    return spelled(str(atom))


def expr(value):
    """An IR operand or operation (:class:`srcad.core.ir.Prim`) as an expression: the tree
    ``ast.parse`` makes of the text the IR prints."""
    cls = value.__class__
    if cls is ir.Var:
        return ast.Name(id=value.name, ctx=LOAD)
    if cls is ir.Const:
        return const(value)
    if cls is ir.Prim:
        return prim(value)
    if cls is ir.Slice:
        return ast.Slice(lower=_opt(value.lower), upper=_opt(value.upper),
                         step=_opt(value.step))
    if cls is ir.Index:
        return ast.Tuple(elts=[expr(i) for i in value.items], ctx=LOAD)
    if cls is tuple:
        return ast.Tuple(elts=[expr(v) for v in value], ctx=LOAD)
    return literal(value)


def _opt(atom):
    return None if atom is None else expr(atom)


_BINOPS = {operator.add: ast.Add, operator.sub: ast.Sub, operator.mul: ast.Mult,
           operator.truediv: ast.Div, operator.floordiv: ast.FloorDiv, operator.mod: ast.Mod,
           operator.pow: ast.Pow, operator.matmul: ast.MatMult, operator.and_: ast.BitAnd,
           operator.or_: ast.BitOr, operator.xor: ast.BitXor, operator.lshift: ast.LShift,
           operator.rshift: ast.RShift}
_COMPARE = {operator.lt: ast.Lt, operator.le: ast.LtE, operator.gt: ast.Gt,
            operator.ge: ast.GtE, operator.eq: ast.Eq, operator.ne: ast.NotEq,
            operator.is_: ast.Is, operator.is_not: ast.IsNot}
_UNARY = {operator.neg: ast.USub, operator.pos: ast.UAdd, operator.not_: ast.Not,
          operator.invert: ast.Invert}


def _exact(node):
    """Mark an operation of the differentiated code itself: the simplifier, written for
    gradient arithmetic, leaves it as written (``np.arange(3) * 1.0`` is a float array,
    ``np.arange(3)`` an integer one; ``+b`` of a bool is an int)."""
    node.exact = True
    return node


def prim(value, func=None):
    """A primitive operation as an expression; ``func`` (a node) calls something else with
    the same arguments (a callee's forward part)."""
    fn, args = value.fn, value.args
    if func is None:
        if len(args) == 2 and not value.kwargs:
            op = _BINOPS.get(fn) if _hashable(fn) else None
            if op is not None:
                return _exact(ast.BinOp(left=expr(args[0]), op=op(), right=expr(args[1])))
            op = _COMPARE.get(fn) if _hashable(fn) else None
            if op is not None:
                return ast.Compare(left=expr(args[0]), ops=[op()], comparators=[expr(args[1])])
        if isinstance(fn, ir.BoolOp):
            return ast.BoolOp(op=ast.And() if fn is ir.AND else ast.Or(),
                              values=[expr(a) for a in args])
        if len(args) == 1 and _hashable(fn) and fn in _UNARY:
            return _exact(ast.UnaryOp(op=_UNARY[fn](), operand=expr(args[0])))
        if fn is operator.contains:
            return ast.Compare(left=expr(args[1]), ops=[ast.In()], comparators=[expr(args[0])])
        if fn is operator.getitem:
            return ast.Subscript(value=expr(args[0]), slice=expr(args[1]), ctx=LOAD)
        if isinstance(fn, ir.Attr):
            return ast.Attribute(value=expr(args[0]), attr=fn.name, ctx=LOAD)
        if fn is ir.BUILD_TUPLE:
            return ast.Tuple(elts=[expr(a) for a in args], ctx=LOAD)
        if fn is ir.BUILD_LIST:
            return ast.List(elts=[expr(a) for a in args], ctx=LOAD)
        if fn is ir.BUILD_DICT:
            return ast.Dict(keys=[expr(k) for k in args[::2]],
                            values=[expr(v) for v in args[1::2]])
    positional = args[1:] if isinstance(fn, ir.Method) and func is None else args
    keywords = [ast.keyword(arg=k, value=expr(v)) for k, v in value.kwargs.items()]
    if func is None:
        if isinstance(fn, ir.Method):
            func = ast.Attribute(value=expr(args[0]), attr=fn.name, ctx=LOAD)
        else:
            func = spelled(value.spelling) if value.spelling else name(
                getattr(fn, "__name__", repr(fn)))
    return ast.Call(func=func, args=[expr(a) for a in positional], keywords=keywords)


def _hashable(fn):
    try:
        hash(fn)
    except TypeError:
        return False
    return True


def statement(stmt):
    """The forward sweep's copy of an IR assignment (``target = value``, or the value alone
    for its effect)."""
    value = stmt.value
    if stmt.target is not None:
        kept = getattr(stmt, "kept_dtype", None)  # y op= v: y's dtype kept (augmented_casts)
        if kept and value.__class__ is ir.Prim and len(value.args) == 2:
            return assign(stmt.target, call(name(kept[0]), expr(value), expr(value.args[0]),
                                            constant(kept[1])))
        return assign(stmt.target, expr(value))
    if value.__class__ is ir.Prim and value.fn is ir.ASSERT:
        args = value.args
        return ast.Assert(test=expr(args[0]), msg=expr(args[1]) if len(args) > 1 else None)
    return ast.Expr(value=expr(value))


def call_part(fn, part, passed):
    """The call of ``part`` (a callee's forward part made for a ``*args``/``**kwargs``
    arity) with the ``passed`` atoms: positional-only parameters by position, every other
    one by keyword (the parts take the items of ``*args`` and ``**kwargs`` as keyword-only
    parameters)."""
    sig = inspect.signature(fn, follow_wrapped=False)
    args, keywords = [], []
    for p, atom in passed.items():
        param = sig.parameters.get(p)
        if param is not None and param.kind is param.POSITIONAL_ONLY:
            args.append(expr(atom))
        else:
            keywords.append(ast.keyword(arg=p, value=expr(atom)))
    return ast.Call(func=name(part), args=args, keywords=keywords)


def parallel(pairs):
    """Assignments ``target = source`` (target names, source nodes), made all at once when a
    source is another pair's target (a loop's back edge swapping ``x, y = y, x``)."""
    targets = {t for t, _ in pairs}
    if len(pairs) > 1 and any(is_name(src) and src.id in targets for _, src in pairs):
        return [assign([t for t, _ in pairs], tuple_([s for _, s in pairs]))]
    return [assign(t, s) for t, s in pairs]


# ---------------------------------------------------------------- markers


def realise(code, saves, restored=None):
    """``code`` with its markers made statements: a push appends the block's saved values to
    its stack, a pop takes them back (nothing, for a block that saves nothing). ``restored``
    (a set, for backward code) collects the names the code sets back to saved values: those
    popped and the targets of its loops."""
    out = []
    for item in code:
        cls = item.__class__
        if cls is PushMarker:
            stack, names = saves[item.block]
            value = name(names[0]) if len(names) == 1 else tuple_(names)
            out.append(ast.Expr(value=method(stack, "append", value)))
        elif cls is PopMarker:
            if item.block in saves:
                stack, names = saves[item.block]
                out.append(assign(names[0] if len(names) == 1 else names, method(stack, "pop")))
                if restored is not None:
                    restored.update(names)
        else:
            if cls in (ast.If, ast.For, ast.While):
                item.body = realise(item.body, saves, restored) or [ast.Pass()]
                item.orelse = realise(item.orelse, saves, restored)
                if cls is ast.For and restored is not None:
                    restored.update(n.id for n in walk_nodes(item.target)
                                    if isinstance(n, ast.Name))
            out.append(item)
    return out


def has_code(code):
    """Whether a block does anything (more than pop what it saved)."""
    return any(item.__class__ is not PopMarker for item in code)


def unshare(tree):
    """Copy every node reached twice, so that each node has one parent (tidy rewrites in
    place). A safety net for the builders' contract."""
    seen = set()

    def visit(parent):
        for field in parent._fields:
            child = getattr(parent, field, None)
            if isinstance(child, ast.AST) and child._fields:
                if id(child) in seen:
                    child = copy_tree(child)
                    setattr(parent, field, child)
                seen.add(id(child))
                visit(child)
            elif child.__class__ is list:
                for k, item in enumerate(child):
                    if isinstance(item, ast.AST) and item._fields:
                        if id(item) in seen:
                            item = child[k] = copy_tree(item)
                        seen.add(id(item))
                        visit(item)

    visit(tree)
    return tree
