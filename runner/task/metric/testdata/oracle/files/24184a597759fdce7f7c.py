import settings
import main

def test():
    return settings.WIDTH == 800 and main.speed() == 20
