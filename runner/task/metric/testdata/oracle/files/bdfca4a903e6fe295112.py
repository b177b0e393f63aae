def check():
    return True

def test():
    return False
