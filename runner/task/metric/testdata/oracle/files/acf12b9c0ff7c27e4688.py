def test():
    raise AssertionError('no')
