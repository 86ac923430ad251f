import sys

from scoring.leaderboard.cli import main

sys.exit(main())
