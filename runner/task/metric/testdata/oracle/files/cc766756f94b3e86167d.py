import os

def test():
    return os.path.exists('settings.py')
