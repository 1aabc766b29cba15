"""`python -m tensorcli`: the same program as the `tensorcli` console script."""
import signal
import sys

if __name__ == "__main__":
    try:  # Ctrl-C during start-up: status 130, no traceback (tensorcli.app takes over once imported)
        signal.signal(signal.SIGINT, lambda *_: __import__("os")._exit(130))
    except ValueError:  # pragma: no cover
        pass
    from tensorcli.app import main
    sys.exit(main())
