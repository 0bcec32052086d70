"""A :class:`~.model.Graph` as Graphviz DOT text (:func:`_dot`), and the text rendered as an
image by Graphviz's ``dot`` program (:func:`render`).

Imports: NumPy and the standard library only.
"""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np

# ================================================================================================
# DOT
# ================================================================================================

_STYLE = {
    "leaf": 'shape=box, style="rounded,filled", fillcolor="#cfe2ff"',
    "input": 'shape=box, style="rounded,filled", fillcolor="#e9ecef"',
    "intermediate": "shape=ellipse",
    "output": 'shape=ellipse, peripheries=2, style=filled, fillcolor="#ffd8a8"',
}


def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _short(value):
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=4, threshold=4, edgeitems=2,
                               max_line_width=60)
        return " ".join(text.split())
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return repr(value) if len(repr(value)) <= 10 else f"{value:.6g}"
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def _node_label(node):
    kinds = node.kind.split("+")
    tag = {"leaf": "leaf", "input": "input", "output": "output"}
    lines = [node.id + "".join(f" ({tag[k]})" for k in kinds if k in tag)]
    if node.expr is not None and not node.kind.startswith(("leaf", "input")):
        if node.id.startswith("(") or node.id == "out":
            lines.append(node.expr)
    if node.note:
        lines.append(node.note)
    if node.has_value:
        lines.append(f"value = {_short(node.value)}")
        if node.grad is not None:
            lines.append(f"grad = {_short(node.grad)}")
    return "\n".join(lines)


def _node_line(node, pad):
    style = _STYLE[node.kind.split("+")[-1] if "output" in node.kind else node.kind]
    if node.kind.startswith(("leaf", "input")) and "output" in node.kind:
        style = _STYLE[node.kind.split("+")[0]] + ", peripheries=2"
    if node.active is False and node.kind == "intermediate":
        style += ', style=dashed, color="#868e96", fontcolor="#868e96"'
    return f"{pad}{_quote(node.id)} [label={_quote(_node_label(node))}, {style}];"


def _dot(graph):
    title = f"{graph.name}({', '.join(graph.params)})"
    if graph.notes:
        title += "\n" + "\n".join(graph.notes)
    lines = [
        f"digraph {_quote(graph.name)} {{",
        "  rankdir=LR;",
        f"  label={_quote(title)};",
        "  labelloc=t;",
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    children = {}
    for c in graph.clusters:
        children.setdefault(c.parent, []).append(c)
    members = {}
    for node in graph.nodes.values():
        members.setdefault(node.cluster, []).append(node)

    def emit(cluster_id, depth):
        pad = "  " * depth
        for node in members.get(cluster_id, []):
            lines.append(_node_line(node, pad))
        for c in children.get(cluster_id, []):
            lines.append(f"{pad}subgraph {_quote(f'cluster_{c.id}')} {{")
            lines.append(f"{pad}  label={_quote(c.label)};")
            lines.append(f'{pad}  style="rounded,dashed"; color="#868e96";')
            emit(c.id, depth + 1)
            lines.append(f"{pad}}}")

    emit(None, 1)
    for e in graph.edges:
        attrs = f"label={_quote(e.label)}"
        if e.carried:
            attrs += ", style=dashed, constraint=false"
        lines.append(f"  {_quote(e.src)} -> {_quote(e.dst)} [{attrs}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ================================================================================================
# Rendering
# ================================================================================================


def render(dot, path):
    """Write ``dot`` to ``path``, rendered by Graphviz when the suffix asks for an image.

    A ``.dot`` or ``.gv`` path gets the text. Another suffix (``.svg``, ``.png``, ``.pdf``)
    is rendered by the ``dot`` program; when ``dot`` is not installed the text is written to
    the same path with the suffix ``.dot`` instead, and a warning says so. Returns the path
    written.
    """
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt in ("dot", "gv", ""):
        path.write_text(dot)
        return path
    program = shutil.which("dot")
    if program is None:
        fallback = path.with_suffix(".dot")
        fallback.write_text(dot)
        warnings.warn(f"Graphviz's dot program is not installed: wrote the DOT text to "
                      f"{fallback} instead of {path}", RuntimeWarning, stacklevel=2)
        return fallback
    done = subprocess.run([program, f"-T{fmt}", "-o", str(path)], input=dot.encode(),
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot -T{fmt} failed: {done.stderr.decode().strip()}")
    return path
