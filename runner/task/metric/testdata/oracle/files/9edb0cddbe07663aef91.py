test = True
