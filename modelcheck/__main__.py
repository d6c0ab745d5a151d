"""``python -m modelcheck``: the same first frame as the ``modelcheck``
console script (signals, a quiet Ctrl-C during imports, the exit code)."""
from modelcheck.cli.launch import console

__all__: list[str] = []

if __name__ == "__main__":
    console()
