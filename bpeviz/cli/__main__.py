"""`python -m bpeviz.cli ...`: the `bpeviz` command."""

import sys

from bpeviz.cli import main

sys.exit(main())
