"""The methods of NumPy's random generators (``np.random.Generator``, ``np.random.RandomState``).

Every method of a generator changes its state: a draw whose result nobody uses still moves
the draws after it, so none of them may be dropped as dead code (``rng.normal()`` twice, the
first unused: dropping it would give the second call the first call's numbers, a wrong value
and a wrong gradient). :data:`STATE_METHODS` lists them all, by name; the registry keeps a
call of any method of one of these names (whatever the object: a method of the user's of the
same name is only kept too).

:data:`SAMPLERS` are the methods that draw numbers and change nothing but the generator: they
read their arguments (``rng.choice(a)`` copies from ``a``) and return new arrays or numbers.
``shuffle``/``permuted`` (in place, ``out=``), ``spawn``, ``seed`` and the state setters are
left out. :data:`MAKERS` make a new generator from a seed.

Imports only NumPy.
"""

from __future__ import annotations

import numpy as np


def _public_methods(cls):
    return {name for name in dir(cls) if not name.startswith("_")
            and callable(getattr(cls, name, None))}


#: every method name of a generator (each changes or reads its state)
STATE_METHODS = frozenset(_public_methods(np.random.Generator) |
                          _public_methods(np.random.RandomState))

#: the methods that only draw: their arguments are read, never changed
SAMPLERS = frozenset(STATE_METHODS - {"shuffle", "permuted", "spawn", "seed", "set_state",
                                      "get_state", "bit_generator", "__setstate__"})

#: the functions that make a new generator from a seed (``default_rng(g)`` of a Generator
#: ``g`` returns ``g`` itself, and of a bit generator shares its state: the seed's kind is
#: checked where they are used, :mod:`srcad.analysis.random_generators`)
MAKERS = (np.random.default_rng, np.random.RandomState)
