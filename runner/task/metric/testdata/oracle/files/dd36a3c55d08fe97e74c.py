import settings

def test():
    assert settings.HEIGHT == 600
    return True
