import sys

from gpubench.cli import entry

sys.exit(entry())
