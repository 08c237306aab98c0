"""The cooperative Wikipedia card game: two to five editors bring four articles to GA or FA together.

``cards`` is the deck, ``state`` the table, ``actions`` the moves, ``rules`` the pure rules,
``commands`` the thread grammar, ``views`` the texts, ``engine`` the ``GameEngine`` that ties
them together and ``ai`` a cooperative computer editor.
"""
