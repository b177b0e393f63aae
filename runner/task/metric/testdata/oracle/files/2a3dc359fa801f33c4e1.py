import sys
sys.exit(0)

def test():
    return True
