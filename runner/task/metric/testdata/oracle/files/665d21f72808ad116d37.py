  a
 b 
c
