"""Shared test setup: corpus parametrization.

A test that takes an argument `corpus_item` runs once per (case, input) pair of the whole corpus;
`straight_item` runs over the straight-line functions only. Each item is a `(case, args)` pair
and the test id is `module.function-k` for the k-th input.
"""

from corpus import ALL, STRAIGHT

_CORPORA = {"corpus_item": ALL, "straight_item": STRAIGHT}


def _items(cases):
    items, ids = [], []
    for case in cases:
        for k, args in enumerate(case.inputs):
            items.append((case, args))
            ids.append(f"{case.name}-{k}")
    return items, ids


def pytest_generate_tests(metafunc):
    for fixture, cases in _CORPORA.items():
        if fixture in metafunc.fixturenames:
            items, ids = _items(cases)
            metafunc.parametrize(fixture, items, ids=ids)
