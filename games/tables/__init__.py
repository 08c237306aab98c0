"""Thread games: one table per Discord thread, every game behind the same pure engine interface.

``engine`` holds the interface, the typed rule errors and the shared value types; ``registry``
names the games (importing it imports every game package, so this package itself stays light).
"""
