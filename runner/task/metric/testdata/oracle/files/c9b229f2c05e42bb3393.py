c
b
a
