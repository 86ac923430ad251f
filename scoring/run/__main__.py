import sys

from scoring.run.cli import main

sys.exit(main())
