import sys

from build_split.cli import main

if __name__ == "__main__":  # worker processes (core/parallel.py) may import this module: never run it there
    sys.exit(main())
