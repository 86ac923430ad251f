import sys

from build_split.cli import main

sys.exit(main())
