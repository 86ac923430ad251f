import faulthandler
import signal
import sys

from build_split.cli import main, stopped_by

if __name__ == "__main__":  # worker processes (core/parallel.py) may import this module: never run it there
    # `kill -USR1 PID` prints where every thread of a run that seems stuck is waiting (to stderr; the run goes on).
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C: every `finally` has run (a started Label Studio is stopped)
        sys.exit(stopped_by(signal.SIGINT))
