def test():
    return True
