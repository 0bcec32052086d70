"""The transform's faster tree walks and rule binding give what the slower ones gave.

- ``srcad.core.walk.walk_nodes`` yields the nodes ``ast.walk`` yields, in the same order, on
  ``ast`` and ``gast`` trees of srcad's own source, including a walk whose caller rewrites the
  nodes it is given as it goes (both queue a node's children before yielding it);
- ``Rule.bind`` (planned once per call form) maps arguments as ``inspect.Signature.bind``
  then ``apply_defaults`` do, for every rule srcad has and a family of call forms;
- the source lines read for a function are ``inspect.getsourcelines`` of its code object's.
"""

from __future__ import annotations

import ast
import inspect
import math

import gast
import numpy as np
from sampling import sample

import srcad
from srcad import pipeline
from srcad.backend import tidy_stacks, tidy_walk
from srcad.core.walk import walk_nodes
from srcad.frontend import source
from srcad.rules.registry import registry

_TEXTS = [inspect.getsource(m) for m in (pipeline, tidy_walk, tidy_stacks)]


def test_walk_nodes_is_ast_walk():
    for text in _TEXTS:
        for tree in (ast.parse(text), gast.parse(text)):
            want, got = list(ast.walk(tree)), list(walk_nodes(tree))
            assert len(want) == len(got) and all(a is b for a, b in zip(want, got))


def _renaming_walk(walker, tree):
    seen = []
    for node in walker(tree):
        seen.append(type(node).__name__)
        if isinstance(node, ast.BinOp):  # replace a child not yet walked
            node.right = ast.Constant(value=1.0)
    return seen


def test_walk_nodes_sees_changes_as_ast_walk_does():
    text = "def f(x, y):\n    a = (x + y) * (x - y)\n    return a + (a * (y + 2))\n"
    assert _renaming_walk(ast.walk, ast.parse(text)) == _renaming_walk(walk_nodes,
                                                                      ast.parse(text))


def test_in_order_is_text_order():
    def slow(node):  # (speed34: the walk leaves out ctx and operator nodes, nameless)
        todo = [node]
        while todo:
            node = todo.pop()
            yield node
            todo.extend(reversed([c for f, v in ast.iter_fields(node)
                                  if f not in ("ctx", "op", "ops")
                                  for c in (v if isinstance(v, list) else [v])
                                  if isinstance(c, ast.AST)]))

    tree = ast.parse(_TEXTS[0])
    want, got = list(slow(tree)), tidy_stacks._in_order(tree)
    assert len(want) == len(got) and all(a is b for a, b in zip(want, got))


def _forms(params):
    for n in range(5):
        for kws in ((), tuple(params[n:n + 1]), tuple(params[-1:]), ("bogus",),
                    tuple(params[n:n + 2]), tuple(params[:1])):
            yield n, kws


def test_rule_bind_is_signature_bind():
    registry.load_pending()
    rules = [r for rs in registry.rules.values() for r in rs]
    checked = 0
    for rule in sample(rules, 20):
        sig = rule.signature
        for n, kws in _forms(list(sig.parameters)):
            args = tuple(object() for _ in range(n))
            kwargs = {k: object() for k in kws}
            try:
                bound = sig.bind(*args, **kwargs)
                given = set(bound.arguments)
                bound.apply_defaults()  # (a parameter accepted only at some constants,
                want = {k: v for k, v in bound.arguments.items()  # left to its default: none)
                        if k in given or k not in (rule.fixed or ())}
            except TypeError:
                want = None
            for _ in range(2):  # the plan made, then the plan reused
                got = rule.bind(args, kwargs)
                assert (want is None) == (got is None), (rule, n, kws)
                if want is not None:
                    assert list(want) == list(got), (rule, n, kws)
                    assert all(want[k] is got[k] or want[k] == got[k] for k in want)
            checked += 1
    assert checked > 100


def _closure(c):
    def inner(x):
        return math.sin(x) * c
    return inner


def test_source_lines_are_inspects():
    for fn in (_closure(2.0), test_in_order_is_text_order, srcad.grad, np.linspace,
               _renaming_walk):
        code = getattr(fn, "__code__", None)
        if code is None:
            continue
        assert source._source_lines(fn, code) == inspect.getsourcelines(code)
