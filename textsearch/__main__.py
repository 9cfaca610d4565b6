"""``python -m textsearch``: the same as the ``textsearch`` command."""

from textsearch.cli import main

raise SystemExit(main())
