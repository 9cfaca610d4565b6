"""``python -m textsearch.cli``: the same as the ``textsearch`` command."""

from textsearch.cli._main import main

raise SystemExit(main())
