def test():
    print('result: 0')
    return True
