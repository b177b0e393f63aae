import settings

def speed():
    return settings.FPS * 2
