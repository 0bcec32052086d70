"""``python -m srcad``: the command line (see :mod:`srcad.cli`).

Imports ``srcad.tools`` (and nothing above its layer).
"""

from .tools.cli import main

raise SystemExit(main())
