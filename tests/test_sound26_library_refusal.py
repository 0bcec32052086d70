"""Sound26: a construct refused inside an installed library's function (the standard
library's ``statistics.mean`` calls ``_convert``, which holds a try/except; in forward mode
srcad meets ``types_add`` first; ``statistics.variance`` a ``:=`` in a generator) is refused at
the user's line that reaches it, the library's line kept in the message; before, the refusal
named only lines of ``statistics.py`` (sound25's fuzzer, long run: py2 seeds 139, 154, 155,
188, 211). A try/except in the user's own helper stays located at the helper's ``try``
(tests/test_corpus16_unreadable_callee.py)."""

from __future__ import annotations

import pytest
from program_files import load

import srcad

CALLS = ["statistics.mean([x, x * 2.0])", "statistics.variance([x, 1.0, 3.0]) * x"]


@pytest.mark.parametrize("call", CALLS)
def test_library_try_is_refused_at_the_users_call(tmp_path, call):
    text = f"import statistics\n\n\ndef f(x):\n    y = x * 3.0\n    return {call} + y\n"
    f = load(tmp_path, "stats", text)
    for run in (lambda: srcad.grad(f)(1.5), lambda: srcad.jvp(f, (1.5,), (1.0,))):
        with pytest.raises(srcad.SrcadError) as info:
            run()
        err = info.value
        assert err.filename == f.__code__.co_filename and err.lineno == 6
        assert "statistics.py" in err.message  # the construct met there (a try, a :=)
        assert call.split("(")[0] in (err.construct or "")
