"""srcad.graph: the computation graph drawn from the SSA form, as DOT text."""

import math
import re
import shutil

import numpy as np
import pytest
from corpus import ALL
from corpus.straight import seed_g, seed_y

from srcad import graph


def looped(x, n):
    s = 0.0
    for i in range(n):
        if x > 0:
            s = s + math.sin(x) * i
        else:
            s = s - x
    return s


def halving(x):
    y = x
    while y > 1.0:
        y = y * 0.5
    return y * x


# The second article's figure: a feeds b; b feeds c and d; c and d feed e; e feeds f; f and o
# feed g.
ARTICLE_EDGES = {("a", "b"), ("b", "c"), ("b", "d"), ("c", "e"), ("d", "e"), ("e", "f"),
                 ("f", "g"), ("o", "g")}

_NODE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)" \[label="((?:[^"\\]|\\.)*)"', re.M)
_EDGE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)" -> "((?:[^"\\]|\\.)*)" \[label="((?:[^"\\]|\\.)*)"',
                   re.M)


def parse(dot):
    """({node id: label}, [(source, destination, label)]) from DOT text made by srcad.graph."""
    nodes = {m.group(1): m.group(2).replace("\\n", "\n") for m in _NODE.finditer(dot)}
    edges = [(m.group(1), m.group(2), m.group(3)) for m in _EDGE.finditer(dot)]
    return nodes, edges


def test_seed_g_has_the_article_topology():
    nodes, edges = parse(graph.to_dot(seed_g))
    assert set(nodes) == {"a", "o", "b", "c", "d", "e", "f", "g"}
    assert len(nodes) == 8 and len(edges) == 8
    assert {(s, d) for s, d, _ in edges} == ARTICLE_EDGES
    labels = {(s, d): label for s, d, label in edges}
    assert labels["a", "b"] == "5 - 3 * a"
    assert labels["c", "e"] == labels["d", "e"] == "7 * c + d ** 2"
    assert labels["o", "g"] == "3 * f - o"
    assert "(leaf)" in nodes["a"] and "(leaf)" in nodes["o"]
    assert "(output)" in nodes["g"]
    assert all("(leaf)" not in nodes[n] and "(output)" not in nodes[n] for n in "bcdef")


def test_seed_g_annotated_with_values_and_gradients():
    g = graph.build(seed_g, args=(2.0, 1.0))
    d = 5 * (5 - 3 * 2.0) + 6
    values = {n.id: n.value for n in g.nodes.values()}
    grads = {n.id: n.grad for n in g.nodes.values()}
    assert values == {"a": 2.0, "o": 1.0, "b": -1.0, "c": 1.0, "d": 1.0, "e": 8.0, "f": 16.0,
                      "g": 47.0}
    # the article's chain rule, one value at a time
    assert grads == {"g": 1.0, "f": 3.0, "e": 6.0, "c": 42.0, "d": 12 * d, "b": 84 + 60 * d,
                     "a": -252 - 180 * d, "o": -1.0}
    nodes, _ = parse(g.to_dot())
    assert "value = 2.0" in nodes["a"] and "grad = -432.0" in nodes["a"]


def test_seed_f_leaves_and_output():
    g = graph.build(seed_y, args=(2.0, 1.0), wrt=("x", "w"))
    kinds = {n.id: n.kind for n in g.nodes.values()}
    out = next(n for n, k in kinds.items() if k == "output")
    assert kinds == {"x": "leaf", "w": "leaf", "a": "intermediate", "b": "intermediate",
                     out: "output"}
    assert set(g.edge_pairs()) == {("x", "a"), ("w", "a"), ("w", "b"), ("a", out), ("b", out)}
    assert {n.id: n.grad for n in g.nodes.values()} == {"x": 2.0, "w": 5.0, "a": 2.0, "b": 3.0,
                                                        out: 1.0}


def test_parameters_outside_wrt_are_inputs():
    nodes, _ = parse(graph.to_dot(seed_y, args=(2.0, 1.0), wrt="w"))
    assert "(input)" in nodes["x"] and "(leaf)" in nodes["w"]
    assert "grad" not in nodes["x"] and "grad = 5.0" in nodes["w"]


def test_unfolded_graph_keeps_temporaries():
    folded = graph.build(seed_g)
    unfolded = graph.build(seed_g, fold=False)
    assert len(unfolded.nodes) > len(folded.nodes)
    assert set(folded.nodes) <= set(unfolded.nodes)


def test_branches_and_loops_become_clusters():
    dot = graph.to_dot(looped, args=(1.0, 3))
    nodes, edges = parse(dot)
    assert 'label="for i in range(n)"' in dot and 'label="if x > 0"' in dot
    assert 'label="then"' in dot and 'label="else"' in dot
    assert "style=dashed, constraint=false" in dot  # the value carried to the next iteration
    assert "values of the last iteration" in dot
    assert "(input)" in nodes["n"] and "(leaf)" in nodes["x"]
    dot = graph.to_dot(halving, args=(3.0,))
    assert 'label="while y > 1.0"' in dot


@pytest.mark.parametrize("case", ALL, ids=[c.name for c in ALL])
def test_never_crashes_on_the_corpus(case):
    args = case.inputs[0]
    for dot in (graph.to_dot(case.func), graph.to_dot(case.func, args, case.wrt_indices())):
        assert dot.startswith("digraph ") and dot.rstrip().endswith("}")
        assert dot.count("{") == dot.count("}")


def test_array_values_are_shown_short():
    def f(x, w):
        return np.sum(np.tanh(x) * w)

    nodes, _ = parse(graph.to_dot(f, args=(np.ones(3), np.arange(3.0))))
    assert "value = [1. 1. 1.]" in nodes["x"] and "grad = [" in nodes["x"]


def test_render_without_graphviz_writes_dot(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.warns(RuntimeWarning, match="not installed"):
        written = graph.render(graph.to_dot(seed_g), tmp_path / "g.svg")
    assert written == tmp_path / "g.dot"
    assert written.read_text().startswith('digraph "seed_g"')
    assert graph.render("digraph {}\n", tmp_path / "h.dot") == tmp_path / "h.dot"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_render_with_graphviz(tmp_path):
    for f, args in ((seed_g, (2.0, 1.0)), (looped, (1.0, 3))):
        written = graph.render(graph.to_dot(f, args), tmp_path / f"{f.__name__}.svg")
        assert "<svg" in written.read_text()
