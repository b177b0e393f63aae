def test():
    return -1.5
