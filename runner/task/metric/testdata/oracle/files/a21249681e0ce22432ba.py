a
b
c
