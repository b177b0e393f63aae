def test():
    return 'ok'
