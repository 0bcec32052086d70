"""What a computation graph is made of: :class:`Node` (a value), :class:`Edge` (an operation),
:class:`Cluster` (an ``if`` arm or a loop body) and the :class:`Graph` that holds them.

Imports: the standard library and :mod:`.dot` (``Graph.to_dot``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .dot import _dot


@dataclass
class Node:
    """A value. ``kind``: "leaf", "input", "intermediate" or "output"."""

    id: str
    kind: str
    ssa: str | None = None  # the SSA name, when there is one
    expr: str | None = None  # what computes it, in the user's names
    cluster: int | None = None
    active: bool | None = None
    value: object = None
    grad: object = None
    has_value: bool = False
    note: str | None = None  # one more line of label (a loop value's constant start)


@dataclass
class Edge:
    src: str
    dst: str
    label: str
    carried: bool = False  # a loop-carried value, into the next iteration


@dataclass
class Cluster:
    id: int
    label: str
    parent: int | None = None


@dataclass
class Graph:
    """Nodes (by id, in order of definition), edges, clusters and notes of a function."""

    name: str
    params: list
    nodes: dict = field(default_factory=dict)
    edges: list = field(default_factory=list)
    clusters: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def edge_pairs(self):
        """The (source, destination) node ids of every edge."""
        return [(e.src, e.dst) for e in self.edges]

    def to_dot(self):
        return _dot(self)

