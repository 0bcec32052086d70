"""srcad's intermediate representation: structured SSA.

A function is a list of statements. Every statement performs at most one primitive operation
and assigns one new name; no name is assigned twice, except the header names of a loop (set
on entry and again at the end of each iteration). Control flow stays structured: an ``If``
holds its two arms and the merges (phi nodes) at their end; a ``Loop`` holds its body, the
merges of its loop-carried names and its exit test.

Operands are atoms: a :class:`Var` (an SSA name) or a :class:`Const` (a value known when the
function is transformed, possibly spelled as the user spelled it, such as ``math.pi``). An
index of a subscript may also be a :class:`Slice` or an :class:`Index` tuple of atoms.

``check`` verifies these invariants; ``to_source`` prints the IR as runnable Python.

Imports nothing from srcad.
"""

from __future__ import annotations

import copy
import operator
from dataclasses import dataclass, field

# ---------------------------------------------------------------- atoms


@dataclass(frozen=True)
class Var:
    name: str

    def __str__(self):
        return self.name


@dataclass(frozen=True, eq=False)
class Const:
    value: object
    spelling: str | None = None  # how the user wrote it ("math.pi", "SCALE"), if not a literal

    def __str__(self):
        if self.spelling:
            return self.spelling
        text = repr(self.value)
        if text in ("inf", "-inf", "nan"):
            return f"float('{text}')"
        return f"({text})" if text.startswith("-") else text


@dataclass(frozen=True)
class Slice:
    lower: object = None
    upper: object = None
    step: object = None

    def __str__(self):
        text = f"{_opt(self.lower)}:{_opt(self.upper)}"
        return text + (f":{self.step}" if self.step is not None else "")


@dataclass(frozen=True)
class Index:
    items: tuple

    def __str__(self):
        if len(self.items) == 1:
            return f"{self.items[0]},"
        return ", ".join(str(i) for i in self.items)


def _opt(atom):
    return "" if atom is None else str(atom)


def atoms_in(atom):
    """The Vars an operand reads (an index may hold several)."""
    if isinstance(atom, Var):
        yield atom
    elif isinstance(atom, Slice):
        for part in (atom.lower, atom.upper, atom.step):
            yield from atoms_in(part)
    elif isinstance(atom, Index):
        for part in atom.items:
            yield from atoms_in(part)


# ---------------------------------------------------------------- operations


@dataclass(frozen=True)
class Method:
    """A method call ``obj.name(...)``; the object is the first argument."""

    name: str


@dataclass(frozen=True)
class Attr:
    """An attribute read ``obj.name``."""

    name: str


class Build:
    """Builders of containers: ``(a, b)``, ``[a, b]`` and ``{k: a, j: b}`` (whose arguments
    are the keys and values in turn: ``k, a, j, b``)."""

    def __init__(self, kind):
        self.kind = kind

    def __repr__(self):
        return f"Build({self.kind})"


class BoolOp:
    """``a and b`` / ``a or b`` on plain truth values (comparisons, flags): no derivative."""

    def __init__(self, word):
        self.word = word

    def __repr__(self):
        return self.word


AND, OR = BoolOp("and"), BoolOp("or")


class _Assert:
    """The effect ``assert test`` (kept in the forward sweep)."""

    def __repr__(self):
        return "assert"


ASSERT = _Assert()

#: the result of a function before a ``return`` sets it, where every path through the
#: function sets it (its last statement is a ``return``): it never reaches the caller, so the
#: kind of a merge ignores it (``result = None`` joined with a number is a number)
UNSET = Const(None, "None")

BUILD_TUPLE = Build("tuple")
BUILD_LIST = Build("list")
BUILD_DICT = Build("dict")

BINARY = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
    operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lshift: "<<",
    operator.rshift: ">>", operator.lt: "<", operator.le: "<=", operator.gt: ">",
    operator.ge: ">=", operator.eq: "==", operator.ne: "!=", operator.is_: "is",
    operator.is_not: "is not",
}
UNARY = {operator.neg: "-", operator.pos: "+", operator.not_: "not ", operator.invert: "~"}


@dataclass
class Prim:
    """One primitive operation ``fn(*args, **kwargs)``.

    ``fn`` is the resolved callable (``operator.mul``, ``math.sin``, ``np.sum``, a user
    function) or a :class:`Method`, :class:`Attr` or :class:`Build`. ``spelling`` is how the
    user wrote the callee of a call, so that the generated code reads like theirs.
    """

    fn: object
    args: list
    kwargs: dict = field(default_factory=dict)
    spelling: str | None = None

    def operands(self):
        for a in self.args:
            yield from atoms_in(a)
        for a in self.kwargs.values():
            yield from atoms_in(a)

    def __str__(self):
        fn, args = self.fn, self.args
        if fn in BINARY and len(args) == 2 and not self.kwargs:
            return f"{args[0]} {BINARY[fn]} {args[1]}"
        if isinstance(fn, BoolOp):
            return f" {fn.word} ".join(map(str, args))
        if fn is ASSERT:
            return f"assert {args[0]}" + (f", {args[1]}" if len(args) > 1 else "")
        if fn in UNARY and len(args) == 1:
            return f"{UNARY[fn]}{args[0]}"
        if fn is operator.contains:
            return f"{args[1]} in {args[0]}"
        if fn is operator.getitem:
            return f"{args[0]}[{args[1]}]"
        if isinstance(fn, Attr):
            return f"{args[0]}.{fn.name}"
        if fn is BUILD_TUPLE:
            inner = ", ".join(map(str, args))
            return f"({inner},)" if len(args) == 1 else f"({inner})"
        if fn is BUILD_LIST:
            return "[" + ", ".join(map(str, args)) + "]"
        if fn is BUILD_DICT:
            return "{" + ", ".join(f"{k}: {v}" for k, v in zip(args[::2], args[1::2])) + "}"
        parts = [str(a) for a in (args[1:] if isinstance(fn, Method) else args)]
        parts += [f"{k}={v}" for k, v in self.kwargs.items()]
        if isinstance(fn, Method):
            return f"{args[0]}.{fn.name}({', '.join(parts)})"
        return f"{self.spelling or _name_of(fn)}({', '.join(parts)})"


def _name_of(fn):
    return getattr(fn, "__name__", repr(fn))


# ---------------------------------------------------------------- statements


@dataclass
class Assign:
    """``target = value``; ``effect`` marks calls kept for their side effects."""

    target: str
    value: object  # Var, Const or Prim
    line: int | None = None
    effect: bool = False


@dataclass
class SetItem:
    """``target = obj`` with ``target[index] = value`` written in: a functional array write."""

    target: str
    obj: Var
    index: object
    value: object
    line: int | None = None


@dataclass
class Phi:
    """A merge. For an ``If``: sources (then, else); for a ``Loop``: (entry, latch)."""

    target: str
    sources: list


@dataclass
class If:
    test: object
    body: list
    orelse: list
    phis: list
    line: int | None = None


@dataclass
class Loop:
    """``for target in iter`` (kind "for") or ``while test`` (kind "while").

    ``header`` computes the while test from the header names; ``exit`` is an atom computed
    at the end of the body that, when true, leaves the loop (from ``break``/``return``).
    """

    kind: str
    body: list
    phis: list
    target: str | None = None
    iter: object = None
    header: list = field(default_factory=list)
    test: object = None
    exit: object = None
    line: int | None = None


@dataclass
class Raise:
    value: object
    line: int | None = None


@dataclass
class Return:
    value: object
    line: int | None = None


@dataclass
class Function:
    name: str
    params: list
    body: list
    source: object = None  # the srcad.source.Source it came from


_MUTABLE = (Prim, Assign, SetItem, Phi, If, Loop, Raise, Return)


# ---------------------------------------------------------------- walking


def blocks_of(stmt):
    """The statement lists nested directly in ``stmt``."""
    if isinstance(stmt, If):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, Loop):
        return [stmt.header, stmt.body]
    return []


def defined_by(stmt):
    """Names a statement assigns at its own level (not inside its nested blocks)."""
    if isinstance(stmt, (Assign, SetItem)):
        return [stmt.target] if stmt.target is not None else []
    if isinstance(stmt, If):
        return [p.target for p in stmt.phis]
    if isinstance(stmt, Loop):
        return [p.target for p in stmt.phis]
    return []


def read_counts(body):
    """How many times each name is read in ``body``, its nested blocks, its merges' sources
    and its loops' tests and exits (a dict: name -> count)."""
    reads = {}

    def read(atoms):
        for v in atoms:
            reads[v.name] = reads.get(v.name, 0) + 1

    for stmt in walk(body):
        read(reads_of(stmt))
        if isinstance(stmt, (If, Loop)):
            for phi in stmt.phis:
                for source in phi.sources:
                    read(atoms_in(source))
        if isinstance(stmt, Loop):
            for atom in (stmt.test, stmt.exit):
                read(atoms_in(atom))
    return reads


def reads_of(stmt):
    """Vars a statement reads at its own level."""
    if isinstance(stmt, Assign):
        value = stmt.value
        return list(value.operands()) if isinstance(value, Prim) else list(atoms_in(value))
    if isinstance(stmt, SetItem):
        return [stmt.obj, *atoms_in(stmt.index), *atoms_in(stmt.value)]
    if isinstance(stmt, If):
        return list(atoms_in(stmt.test))
    if isinstance(stmt, Loop):
        iter_reads = list(stmt.iter.operands()) if isinstance(stmt.iter, Prim) else list(
            atoms_in(stmt.iter))
        return iter_reads + [s for p in stmt.phis for s in atoms_in(p.sources[0])]
    if isinstance(stmt, (Return, Raise)):
        return list(atoms_in(stmt.value))
    return []


def walk(stmts):
    """Every statement, depth first, in order."""
    for stmt in stmts:
        yield stmt
        for block in blocks_of(stmt):
            yield from walk(block)


def copy_function(fn):
    """A copy of ``fn`` that later passes may change without changing ``fn``: its statements,
    operations and their lists and dicts are new; atoms (frozen) and the values of constants
    (functions, arrays, modules) are shared, as are its source and the attributes lowering
    set (``lifted``, ``orders``, ...), which are copied one level deep."""
    new = copy.copy(fn)
    new.params = list(fn.params)
    new.body = _copied(fn.body)
    for attr, value in vars(fn).items():
        if attr not in ("params", "body") and type(value) in (dict, list, set):
            setattr(new, attr, type(value)(value))
    return new


def _copied(value):
    if type(value) is list:
        return [_copied(v) for v in value]
    if type(value) is dict:
        return {k: _copied(v) for k, v in value.items()}
    if type(value) in _MUTABLE:
        new = copy.copy(value)
        for attr, item in vars(value).items():
            if type(item) in (list, dict) or type(item) in _MUTABLE:
                setattr(new, attr, _copied(item))
        return new
    return value


def closure(roots, edges):
    """Every name reachable from ``roots`` along ``edges`` (name -> names it depends on)."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(edges.get(name, ()))
    return seen


# ---------------------------------------------------------------- checker


class IRError(AssertionError):
    """An IR invariant does not hold (a bug in srcad, never the user's fault)."""


def check(fn: Function):
    """Assert the SSA invariants: single assignment, definition before use, loop phis."""
    defined = set(fn.params)
    _check_block(fn.body, defined, set(fn.params))
    return True


def _check_block(stmts, visible, assigned):
    visible = set(visible)
    for stmt in stmts:
        for var in reads_of(stmt):
            if var.name not in visible:
                raise IRError(f"{var.name} read before it is defined in {stmt!r}")
        if isinstance(stmt, If):
            then_visible = _check_block(stmt.body, visible, assigned)
            else_visible = _check_block(stmt.orelse, visible, assigned)
            for phi in stmt.phis:
                for src, seen in zip(phi.sources, (then_visible, else_visible)):
                    for var in atoms_in(src):
                        if var.name not in seen:
                            raise IRError(f"phi {phi.target} reads {var.name}, undefined there")
        elif isinstance(stmt, Loop):
            inner = set(visible)
            if stmt.target:
                _assign(stmt.target, assigned)
                inner.add(stmt.target)
            for phi in stmt.phis:
                _assign(phi.target, assigned)
                inner.add(phi.target)
            inner = _check_block(stmt.header, inner, assigned)
            body_visible = _check_block(stmt.body, inner, assigned)
            for phi in stmt.phis:
                for var in atoms_in(phi.sources[1]):
                    if var.name not in body_visible:
                        raise IRError(f"loop phi {phi.target} latch {var.name} undefined")
            for var in atoms_in(stmt.exit):
                if var.name not in body_visible:
                    raise IRError(f"loop exit test {var.name} undefined")
            visible |= {p.target for p in stmt.phis}
            continue
        for name in defined_by(stmt):
            _assign(name, assigned)
            visible.add(name)
    return visible


def _assign(name, assigned):
    if name in assigned:
        raise IRError(f"{name} assigned twice")
    assigned.add(name)


# ---------------------------------------------------------------- printer


def to_source(fn: Function) -> str:
    """The IR as runnable Python. Phis print as the assignments that realise them."""
    lines = [f"def {fn.name}({', '.join(fn.params)}):"]
    _print_block(fn.body, lines, 1)
    return "\n".join(lines) + "\n"


def _print_block(stmts, lines, depth):
    pad = "    " * depth
    start = len(lines)
    for stmt in stmts:
        if isinstance(stmt, Assign):
            prefix = "" if stmt.target is None else f"{stmt.target} = "
            lines.append(f"{pad}{prefix}{stmt.value}")
        elif isinstance(stmt, SetItem):
            lines.append(f"{pad}{stmt.target} = {stmt.obj}.copy()")
            lines.append(f"{pad}{stmt.target}[{stmt.index}] = {stmt.value}")
        elif isinstance(stmt, If):
            lines.append(f"{pad}if {stmt.test}:")
            _print_block(stmt.body, lines, depth + 1)
            _print_phis(stmt.phis, 0, lines, depth + 1)
            if stmt.orelse or any(p.sources[1] is not None for p in stmt.phis):
                lines.append(f"{pad}else:")
                _print_block(stmt.orelse, lines, depth + 1)
                _print_phis(stmt.phis, 1, lines, depth + 1)
        elif isinstance(stmt, Loop):
            for phi in stmt.phis:
                if phi.sources[0] is not None:
                    lines.append(f"{pad}{phi.target} = {phi.sources[0]}  # phi")
            if stmt.kind == "for":
                lines.append(f"{pad}for {stmt.target} in {stmt.iter}:")
            elif not stmt.header:
                lines.append(f"{pad}while {stmt.test}:")
            else:
                lines.append(f"{pad}while True:")
                _print_block(stmt.header, lines, depth + 1)
                lines.append(f"{pad}    if not {stmt.test}:")
                lines.append(f"{pad}        break")
            _print_block(stmt.body, lines, depth + 1)
            _print_phis(stmt.phis, 1, lines, depth + 1)
            if stmt.exit is not None:
                lines.append(f"{pad}    if {stmt.exit}:")
                lines.append(f"{pad}        break")
        elif isinstance(stmt, Return):
            lines.append(f"{pad}return {stmt.value}")
        elif isinstance(stmt, Raise):
            lines.append(f"{pad}raise {stmt.value}")
    if len(lines) == start:
        lines.append(f"{pad}pass")


def _print_phis(phis, side, lines, depth):
    pad = "    " * depth
    pairs = [(p.target, str(p.sources[side])) for p in phis
             if p.sources[side] is not None and str(p.sources[side]) != p.target]
    if len(pairs) > 1 and any(src in {t for t, _ in pairs} for _, src in pairs):
        # the copies of a back edge happen at once (x, y = y, x)
        lines.append(f"{pad}{', '.join(t for t, _ in pairs)} = "
                     f"{', '.join(s for _, s in pairs)}  # phi")
        return
    for target, src in pairs:
        lines.append(f"{pad}{target} = {src}  # phi")
