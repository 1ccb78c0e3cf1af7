"""``python -m trex.cli``."""

import sys

from . import main

sys.exit(main())
