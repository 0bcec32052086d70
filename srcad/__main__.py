"""``python -m srcad``: the command line (see :mod:`srcad.cli`)."""

from .tools.cli import main

raise SystemExit(main())
