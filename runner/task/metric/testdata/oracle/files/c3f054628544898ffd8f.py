a

b
c
