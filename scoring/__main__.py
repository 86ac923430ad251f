import sys

from scoring.cli import main

sys.exit(main())
