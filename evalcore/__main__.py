"""``python -m evalcore``: the command line, :mod:`evalcore.cli`."""

from evalcore.cli import run

if __name__ == "__main__":
    run()
