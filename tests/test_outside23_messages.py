"""Messages naming the user's line (issue 16, outside23 item 8): ``grad(grad(f))`` where ``f``
calls ``srcad.grad(lambda ...)(x)`` and srcad's own code for the lambda, differentiated again,
is refused (a sound MutationError, found by the fuzzer, seed 60321): the error names the
user's file, the line of the lambda and its text, the generated place kept in the message.
(The first derivative is exact; the refusal is kept, the message is what changed.)
"""

from __future__ import annotations

import numpy as np
import pytest
from test_robustness import load_module
from twin_checks import central

import srcad

TEXT = """import numpy as np
import srcad


def f(x):
    y2 = srcad.grad(lambda t1: np.sum((x ** 2 + (t1 - x)) * t1))(x)
    return y2 * x
"""


def test_the_error_names_the_lambdas_line(tmp_path):
    m = load_module(tmp_path, TEXT)
    g = srcad.grad(m.f)(0.7)
    assert g == pytest.approx(float(central(lambda v: np.array(m.f(v[0])), (np.array([0.7]),),
                                            0)[0]), rel=1e-6)
    with pytest.raises(srcad.SrcadError) as err:
        srcad.grad(srcad.grad(m.f))(0.7)
    e = err.value
    assert e.filename == m.__file__ and e.lineno == 6
    assert "srcad.grad(lambda t1:" in e.construct
    assert "<srcad" in e.message and "module-level function" in e.hint
