"""`python -m bpeviz ...`: the `bpeviz` command."""

import sys

from bpeviz.cli import main

sys.exit(main())
