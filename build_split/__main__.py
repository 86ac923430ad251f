import faulthandler
import signal
import sys

from build_split import exit_codes
from build_split.cli import main, stdout_closed, stopped_by

if __name__ == "__main__":  # worker processes (core/parallel.py) may import this module: never run it there
    # `kill -USR1 PID` prints where every thread of a run that seems stuck is waiting (to stderr; the run goes on).
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    try:
        code = main()
        sys.stdout.flush()  # here, not at exit: a closed stdout is then caught below
        sys.exit(code)
    except KeyboardInterrupt:  # Ctrl-C: every `finally` has run (a started Label Studio is stopped)
        sys.exit(stopped_by(signal.SIGINT))
    except BrokenPipeError:  # stdout closed by its reader outside a command (`--help | head -1`)
        if not stdout_closed():
            raise
        sys.exit(exit_codes.ended_by_closed_stdout())
