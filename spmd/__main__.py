"""``python -m spmd run -n 4 script.py``: the same as the ``spmd`` command."""

import sys

from spmd._src.launcher import main

sys.exit(main())
