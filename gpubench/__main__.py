import sys

from gpubench.cli import main

sys.exit(main())
