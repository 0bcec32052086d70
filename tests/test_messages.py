"""Log messages in differentiated code: ``logging.info("loss %s", v)``, ``log.debug(f"...")``.

A call of ``logging``'s functions, or of a logger's (or adapter's) methods, given a
differentiated value was refused as a call "for its effect" that might store the value where
srcad does not follow it. A message is formatted from the values; no gradient comes back
through it (``srcad.rules.python`` declares them without derivative, like ``print``). A
generated family of message forms x places (the function, a callee, a loop), checked against
finite differences and autograd, and that the message is still emitted with the primal value.
"""

from __future__ import annotations

import itertools
import logging
import warnings

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load

import srcad

#: statements logging the value v (a number computed from x)
MESSAGES = [
    'logging.info("value %s", v)',
    'logging.warning("value %.6f", v)',
    'LOG.debug("value %s", v)',
    'LOG.info(f"value {v:.6f}")',
    'LOG.log(logging.INFO, "value %s", v)',
    'ADAPTER.info("value %s", v)',
    'LOG.error("value %s and %s", v, x)',
]
#: where the message is
PLACES = {
    "body": "def f(x):\n    v = np.sum(np.sin(x) * x)\n    {msg}\n    return v * v\n",
    "callee": ("def helper(x):\n    v = np.sum(np.sin(x) * x)\n    {msg}\n    return v\n\n\n"
               "def f(x):\n    v = helper(x)\n    return v * v\n"),
    "loop": ("def f(x):\n    s = 0.0\n    for k in range(2):\n        v = np.sum(np.sin(x) * x) "
             "* (k + 1)\n        {msg}\n        s = s + v * v\n    return s\n"),
}
HEAD = ("import logging\n\nLOG = logging.getLogger('srcad_test_messages')\n"
        "ADAPTER = logging.LoggerAdapter(LOG, {})\n\n\n")
X = np.array([0.3, -1.1, 0.8])


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("m,place", list(itertools.product(range(len(MESSAGES)), PLACES)))
def test_a_message_of_a_differentiated_value(tmp_path, caplog, m, place):
    text = HEAD + PLACES[place].replace("{msg}", MESSAGES[m])
    f = load(tmp_path, f"msg{m}_{place}", text, modules=(np,))
    # autograd's boxes do not format as floats: its reference is the function without it
    fa = load(tmp_path, f"msga{m}_{place}", HEAD + PLACES[place].replace("{msg}", "pass"),
              modules=(anp,))
    caplog.set_level(logging.DEBUG, logger="srcad_test_messages")
    caplog.set_level(logging.DEBUG)
    g = srcad.grad(f)(X.copy())
    np.testing.assert_allclose(g, _fd(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(fa)(X.copy()), rtol=1e-10, atol=1e-12)
    caplog.clear()
    value, g2 = srcad.value_and_grad(f)(X.copy())
    np.testing.assert_allclose(g2, g, rtol=1e-12)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == (2 if place == "loop" else 1)
    v0 = float(np.sum(np.sin(X) * X))
    assert f"{v0:.6f}"[:7] in messages[0]
    _, tangent = srcad.jvp(f, (X.copy(),), (np.ones(3),))
    assert tangent == pytest.approx(float(np.sum(g)), rel=1e-10)


#: warnings given a differentiated value (``warnings.warn``: a message too, no derivative)
WARNINGS = [
    'warnings.warn(f"value {v:.6f}")',
    'warnings.warn("value {:.6f}".format(v), RuntimeWarning)',
    'warnings.warn("value %.6f" % v, stacklevel=2)',
    'if v > -100.0:\n        warnings.warn(f"value {v:.6f} large")',
]


@pytest.mark.parametrize("m,place", list(itertools.product(range(len(WARNINGS)), PLACES)))
def test_a_warning_of_a_differentiated_value(tmp_path, m, place):
    msg = WARNINGS[m]
    if place == "loop":
        msg = msg.replace("\n    ", "\n        ")
    text = "import warnings\n" + HEAD + PLACES[place].replace("{msg}", msg)
    f = load(tmp_path, f"warn{m}_{place}", text, modules=(np,))
    fa = load(tmp_path, f"warna{m}_{place}", HEAD + PLACES[place].replace("{msg}", "pass"),
              modules=(anp,))
    with pytest.warns(Warning) as record:
        g = srcad.grad(f)(X.copy())
    np.testing.assert_allclose(g, _fd(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(fa)(X.copy()), rtol=1e-10, atol=1e-12)
    v0 = float(np.sum(np.sin(X) * X))
    assert f"{v0:.6f}"[:7] in str(record[0].message)
    with warnings.catch_warnings():  # warnings as errors: the derivative raises as f does
        warnings.simplefilter("error")
        with pytest.raises(Warning):
            srcad.value_and_grad(f)(X.copy())
