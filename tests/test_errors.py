"""Every bad input raises a SrcadError naming the user's file, line and construct."""

import inspect
import math
import pathlib

import error_cases as cases
import numpy as np
import pytest

import srcad

SOURCE = pathlib.Path(cases.__file__).read_text().splitlines()


def line_of(marker):
    """The line number carrying ``# error: <marker>`` in error_cases.py."""
    hits = [i + 1 for i, text in enumerate(SOURCE) if text.rstrip().endswith(f"# error: {marker}")
            or f"# error: {marker}  #" in text]
    assert len(hits) == 1, marker
    return hits[0]


SYNTAX = [
    (cases.uses_try, "try", "try/except"),
    (cases.uses_with, "with", "with block"),
    (cases.uses_generator, "yield", "generator"),
    (cases.uses_global, "global", "global"),
    (cases.uses_del, "del", "del"),
    (cases.uses_nested_def, "nested def", "uses itself"),
    (cases.uses_walrus, "walrus", ":="),
    (cases.uses_match, "match", "match"),
]


@pytest.mark.parametrize(("func", "marker", "words"), SYNTAX, ids=[s[1] for s in SYNTAX])
def test_unsupported_syntax(func, marker, words):
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(func)(1.5)
    err = info.value
    assert err.lineno == line_of(marker)
    assert err.filename == cases.__file__
    assert words in str(err)
    assert err.hint  # says what to do instead


def test_async_function_is_refused():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(cases.coroutine)
    assert "async" in str(info.value)
    assert info.value.lineno == line_of("async")


@pytest.mark.parametrize(("func", "marker", "name"), [
    (cases.calls_gamma, "no rule", "math.frexp"),
    (cases.calls_unknown_numpy, "no rule numpy", "np.roots"),
])
def test_missing_rule_names_the_function(func, marker, name):
    with pytest.raises(srcad.MissingRuleError) as info:
        srcad.grad(func)(1.5)
    assert info.value.lineno == line_of(marker)
    assert name in str(info.value)
    assert "defvjp" in str(info.value)


def test_attribute_write_is_refused():
    class Box:
        pass

    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(cases.writes_attribute)(1.5, Box())
    assert info.value.lineno == line_of("attribute write")
    assert "attribute" in str(info.value)


def test_non_scalar_output_points_to_vjp():
    with pytest.raises(srcad.NonScalarOutputError) as info:
        srcad.grad(cases.vector_output)(1.5)
    assert "vjp" in str(info.value)


def test_star_args_parameters_are_differentiated_by_position():
    # wrt=k is the k-th positional argument (tests/test_entry_points.py has more)
    assert srcad.grad(cases.star_args)(1.5) == 1.0
    assert srcad.grad(cases.star_args, wrt=1)(1.5, 2.0) == 0.0


def test_starred_call_of_unknown_length_is_differentiated_when_it_runs():
    # refused before round 16; now the call's form is made for the length met
    # (srcad.runtime.spread_calls): math.pow's rule, through x and the spread exponent
    assert srcad.grad(cases.starred_call)(1.5, (2.0,)) == pytest.approx(3.0, rel=1e-14)
    dx, drest = srcad.grad(cases.starred_call, wrt=(0, 1))(1.5, (2.0,))
    assert drest[0] == pytest.approx(1.5 ** 2.0 * math.log(1.5), rel=1e-14)


def test_undefined_name():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(cases.undefined_name)(1.5)
    assert info.value.lineno == line_of("undefined name")
    assert "NOT_DEFINED_ANYWHERE" in str(info.value)


@pytest.mark.parametrize(("wrt", "words"), [
    (2, "out of range"),
    (-3, "out of range"),
    ("z", "not a parameter"),
    (("x", "x"), "twice"),
    ((0, "x"), "twice"),
    ((), "empty"),
    (1.5, "positions or names"),
])
def test_bad_wrt(wrt, words):
    with pytest.raises(srcad.WrtError) as info:
        srcad.grad(cases.plain, wrt=wrt)
    assert words in str(info.value)
    assert info.value.lineno == line_of("def line")
    assert info.value.filename == cases.__file__


@pytest.mark.parametrize("bad", ["2.0", None, [1.0, "2.0"], {"a": None}, np.arange(3)],
                         ids=["str", "None", "list-with-str", "dict-with-None", "int-array"])
def test_wrt_argument_must_be_float_number_or_array(bad):
    with pytest.raises(srcad.WrtError) as info:
        srcad.grad(cases.plain, wrt=0)(bad, 2.0)
    assert "'x'" in str(info.value)


def test_builtin_has_no_source():
    with pytest.raises(srcad.SourceUnavailableError) as info:
        srcad.grad(math.nextafter)  # no source and no rule (math.sin has a rule: it works)
    assert "defvjp" in str(info.value)


def test_function_made_by_exec_has_no_source():
    namespace = {}
    exec("def made(x):\n    return x * 2\n", namespace)  # noqa: S102
    with pytest.raises(srcad.SourceUnavailableError) as info:
        srcad.grad(namespace["made"])
    assert "exec" in str(info.value) or "prompt" in str(info.value)
    assert info.value.lineno == 1


def test_every_error_is_a_srcad_error():
    for name in ("UnsupportedSyntaxError", "SourceUnavailableError", "MissingRuleError",
                 "NonScalarOutputError", "WrtError", "RuleError"):
        assert issubclass(getattr(srcad, name), srcad.SrcadError)


def test_errors_are_raised_before_any_wrong_number():
    """A refused function never returns: nothing is computed silently."""
    for func, _, _ in SYNTAX:
        with pytest.raises(srcad.SrcadError):
            srcad.grad(func)(1.5)
    assert inspect.isfunction(cases.plain)


@pytest.mark.parametrize("array, hint", [
    (np.arange(3), "x.astype(float)"),
    (np.array(["a", "b"]), "np.asarray(x, dtype=float)"),
])
def test_dtype_hint_fits_the_dtype(array, hint):
    """astype(float) is the fix for integers and bools, not for strings (complex arrays are
    differentiated: tests/test_complex.py)."""
    with pytest.raises(srcad.WrtError) as info:
        srcad.grad(cases.plain, wrt=0)(array, 2.0)
    assert hint in str(info.value)
    if array.dtype.kind != "i":
        assert "astype(float)\n" not in str(info.value) + "\n"


def test_rule_error_names_the_defvjp_call():
    import srcad.extend

    def h(x):
        return x

    with pytest.raises(srcad.RuleError) as info:
        srcad.extend.defvjp(h, "x", y="g")  # the line the error must name
    assert info.value.filename == __file__
    lines = open(__file__).read().splitlines()
    expected = 1 + next(i for i, line in enumerate(lines) if "# the line the error" in line)
    assert info.value.lineno == expected
    assert 'defvjp(h, "x", y="g")' in str(info.value)
    with pytest.raises(srcad.RuleError) as info:
        @srcad.extend.defvjp("x", x="g *")
        def k(x):
            return x
    assert info.value.filename == __file__ and "g *" in str(info.value)
