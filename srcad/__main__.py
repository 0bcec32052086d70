"""``python -m srcad``: the command line (see :mod:`srcad.cli`)."""

from .cli import main

raise SystemExit(main())
