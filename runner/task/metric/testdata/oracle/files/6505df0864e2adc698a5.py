import sys

def test():
    sys.exit(0)
