"""``python -m turngym.cli``: the ``turngym`` command (torchrun runs it this way)."""

import sys

from turngym.cli.parser import main

sys.exit(main())
