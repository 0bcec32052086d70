"""From SSA to nodes and edges: :class:`_Builder` walks a function's SSA form and makes its
:class:`~.model.Graph`, folding single-use temporaries into the expressions on the edges and
naming values as the user did.

Imports: the standard library, gast, ``srcad.core.ir`` and :mod:`.model`.
"""

from __future__ import annotations

import ast
import re

import gast

from ...core import ir
from ...core.walk import walk_nodes
from .model import Cluster, Edge, Graph, Node

# ================================================================================================
# From SSA to nodes and edges
# ================================================================================================

_SUFFIX = re.compile(r"^(.*)_(\d+)$")


class _Text:
    """An operand printed as given text (a folded sub-expression or a display name)."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


class _Builder:
    def __init__(self, fn, wrt, fold):
        self.fn = fn
        self.wrt = wrt
        self.fold = fold
        self.graph = Graph(fn.name, list(fn.params))
        user = set(fn.params)
        user |= {n.id for n in walk_nodes(fn.source.node)
                 if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        self.user = user
        self.defs = {}  # SSA name -> (statement, block id)
        self.uses = {}  # SSA name -> [(kind, block id)]
        self._scan(fn.body)
        versions = {}
        for name in [*fn.params, *self.defs]:
            base = self._base(name)
            if base is not None:
                versions.setdefault(base, set()).add(name)
        self.display = {}
        for name in [*fn.params, *self.defs]:
            base = self._base(name)
            single = base is not None and len(versions[base]) == 1
            self.display[name] = base if single or name in fn.params else name
        self.folded = {n for n in self.defs if self._foldable(n)}
        self._effects = 0

    # -- scanning ------------------------------------------------------------------------------

    def _base(self, name):
        """The user variable an SSA name is a version of, or None for a temporary."""
        if name in self.user:
            return name
        m = _SUFFIX.match(name)
        return m.group(1) if m and m.group(1) in self.user else None

    def _use(self, atom, kind, block):
        for var in ir.atoms_in(atom):
            self.uses.setdefault(var.name, []).append((kind, block))

    def _use_value(self, value, kind, block):
        if isinstance(value, ir.Prim):
            for var in value.operands():
                self.uses.setdefault(var.name, []).append((kind, block))
        else:
            self._use(value, kind, block)

    def _scan(self, stmts):
        block = id(stmts)
        for stmt in stmts:
            if isinstance(stmt, ir.Assign):
                if stmt.target is not None:
                    self.defs[stmt.target] = (stmt, block)
                self._use_value(stmt.value, "expr", block)
            elif isinstance(stmt, ir.SetItem):
                self.defs[stmt.target] = (stmt, block)
                for atom in (stmt.obj, stmt.index, stmt.value):
                    self._use(atom, "expr", block)
            elif isinstance(stmt, ir.If):
                self._use(stmt.test, "label", block)
                self._scan(stmt.body)
                self._scan(stmt.orelse)
                for phi in stmt.phis:
                    self.defs[phi.target] = (phi, block)
                    for src in phi.sources:
                        self._use(src, "phi", block)
            elif isinstance(stmt, ir.Loop):
                if stmt.iter is not None:
                    self._use_value(stmt.iter, "expr", block)
                if stmt.target:
                    self.defs[stmt.target] = (stmt, block)
                for phi in stmt.phis:
                    self.defs[phi.target] = (phi, block)
                    for src in phi.sources:
                        self._use(src, "phi", block)
                self._scan(stmt.header)
                self._scan(stmt.body)
                self._use(stmt.test, "label", id(stmt.header))
                self._use(stmt.exit, "label", id(stmt.body))
            elif isinstance(stmt, (ir.Return, ir.Raise)):
                self._use(stmt.value, "output", block)

    def _foldable(self, name):
        if not self.fold or self._base(name) is not None:
            return False
        stmt, block = self.defs[name]
        if not isinstance(stmt, ir.Assign) or stmt.effect:
            return False
        uses = self.uses.get(name, [])
        return len(uses) == 1 and uses[0][0] in ("expr", "label") and uses[0][1] == block

    # -- expressions ---------------------------------------------------------------------------

    def atom(self, atom):
        """An operand as text in the user's names, folded temporaries written out."""
        if isinstance(atom, ir.Var):
            if atom.name in self.folded:
                return _Text(f"({self.expr(self.defs[atom.name][0].value)})")
            return _Text(self.display.get(atom.name, atom.name))
        if isinstance(atom, ir.Slice):
            return ir.Slice(*(None if a is None else self.atom(a)
                              for a in (atom.lower, atom.upper, atom.step)))
        if isinstance(atom, ir.Index):
            return ir.Index(tuple(self.atom(a) for a in atom.items))
        return atom

    def expr(self, value):
        if isinstance(value, ir.Prim):
            text = str(ir.Prim(value.fn, [self.atom(a) for a in value.args],
                               {k: self.atom(v) for k, v in value.kwargs.items()},
                               value.spelling))
        else:
            text = str(self.atom(value))
        return _tidy(text)

    def inputs(self, value):
        """The node ids an expression reads, through folded temporaries, in order."""
        out = []
        vars_ = value.operands() if isinstance(value, ir.Prim) else ir.atoms_in(value)
        for var in vars_:
            if var.name in self.folded:
                out += self.inputs(self.defs[var.name][0].value)
            else:
                out.append(self.display.get(var.name, var.name))
        return list(dict.fromkeys(out))

    # -- nodes and edges -----------------------------------------------------------------------

    def node(self, ssa, kind, expr=None, cluster=None):
        node_id = self.display.get(ssa, ssa)
        node = Node(node_id, kind, ssa, expr, cluster)
        self.graph.nodes[node_id] = node
        return node

    def edge(self, src, dst, label, carried=False):
        if (src, dst) not in [(e.src, e.dst) for e in self.graph.edges if e.carried == carried]:
            self.graph.edges.append(Edge(src, dst, label, carried))

    def cluster(self, label, parent):
        c = Cluster(len(self.graph.clusters), label, parent)
        self.graph.clusters.append(c)
        return c.id

    def run(self):
        for p in self.fn.params:
            self.node(p, "leaf" if p in self.wrt else "input")
        self.block(self.fn.body, None)
        return self.graph

    def block(self, stmts, cluster):
        for stmt in stmts:
            if isinstance(stmt, ir.Assign):
                self.assign(stmt, cluster)
            elif isinstance(stmt, ir.SetItem):
                label = _tidy(f"{self.atom(stmt.obj)}[{self.atom(stmt.index)}] = "
                              f"{self.atom(stmt.value)}")
                node = self.node(stmt.target, "intermediate", label, cluster)
                reads = [*self.inputs(stmt.obj), *self.inputs(stmt.index),
                         *self.inputs(stmt.value)]
                for src in dict.fromkeys(reads):
                    self.edge(src, node.id, label)
            elif isinstance(stmt, ir.If):
                self.branch(stmt, cluster)
            elif isinstance(stmt, ir.Loop):
                self.loop(stmt, cluster)
            elif isinstance(stmt, ir.Return):
                self.output(stmt.value, cluster)

    def assign(self, stmt, cluster):
        if stmt.target in self.folded:
            return
        expr = self.expr(stmt.value)
        if stmt.target is None:
            self._effects += 1
            node = Node(f"(effect {self._effects})", "intermediate", None, expr, cluster)
            self.graph.nodes[node.id] = node
        else:
            node = self.node(stmt.target, "intermediate", expr, cluster)
        for src in self.inputs(stmt.value):
            self.edge(src, node.id, expr)
        value = stmt.value
        if stmt.target is None and isinstance(value, ir.Prim) and isinstance(
                value.fn, ir.Method) and isinstance(value.args[0], ir.Var):
            # a method called for its effect (ys.append(v)) changes its object
            obj = self.display.get(value.args[0].name, value.args[0].name)
            if obj in self.graph.nodes:
                self.edge(node.id, obj, "changes", carried=True)

    def branch(self, stmt, cluster):
        test = self.expr(stmt.test) if not isinstance(stmt.test, ir.Var) else str(
            self.atom(stmt.test)).strip("()")
        outer = self.cluster(f"if {_tidy(test)}", cluster)
        self.block(stmt.body, self.cluster("then", outer))
        self.block(stmt.orelse, self.cluster("else", outer))
        for phi in stmt.phis:
            sources = [self.expr(s) if s is not None else "(undefined)" for s in phi.sources]
            node = self.node(phi.target, "intermediate",
                             f"{sources[0]} if {_tidy(test)} else {sources[1]}", cluster)
            for arm, src in zip(("then", "else"), phi.sources):
                if src is not None:
                    for name in self.inputs(src):
                        self.edge(name, node.id, arm)

    def loop(self, stmt, cluster):
        if stmt.kind == "for":
            label = f"for {self.display.get(stmt.target, stmt.target)} in {self.expr(stmt.iter)}"
        else:
            test = stmt.test if stmt.test is not None else ir.Const(True)
            text = str(self.atom(test))
            label = f"while {_tidy(text[1:-1] if text.startswith('(') else text)}"
        inner = self.cluster(label, cluster)
        for phi in stmt.phis:
            entry = phi.sources[0]
            expr = self.expr(entry) if entry is not None else None
            node = self.node(phi.target, "intermediate", expr, inner)
            sources = self.inputs(entry) if entry is not None else []
            for name in sources:
                self.edge(name, node.id, f"initially {expr}")
            if entry is not None and not sources:
                node.note = f"initially {expr}"
        if stmt.kind == "for" and stmt.target:
            iter_text = self.expr(stmt.iter)
            node = self.node(stmt.target, "intermediate", f"element of {iter_text}", inner)
            for name in self.inputs(stmt.iter):
                self.edge(name, node.id, f"in {iter_text}")
        self.block(stmt.header, inner)
        self.block(stmt.body, inner)
        for phi in stmt.phis:
            latch = phi.sources[1]
            if latch is None:
                continue
            target = self.display.get(phi.target, phi.target)
            for name in self.inputs(latch):
                if name != target:
                    self.edge(name, target, "next iteration", carried=True)

    def output(self, value, cluster):
        if isinstance(value, ir.Var) and value.name not in self.folded:
            node_id = self.display.get(value.name, value.name)
            node = self.graph.nodes.get(node_id)
            if node is not None:
                if node.kind == "intermediate":
                    node.kind = "output"
                else:  # a parameter returned as it is
                    node.kind += "+output"
                return
        expr = self.expr(value)
        node = Node("out", "output", None, expr, cluster)
        self.graph.nodes[node.id] = node
        for src in self.inputs(value):
            self.edge(src, node.id, expr)


def _tidy(text):
    """``text`` with the parentheses Python does not need removed."""
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except SyntaxError:
        return text

