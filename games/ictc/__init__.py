"""ICTC, the index-card trading card game: a server's card library (pure rules, no Discord, no database).

One module per concept: palettes and the cost grammar (``cost``), a card's fields and their hard and
soft checks (``cards``), similarity with the library (``similarity``), the library's state
(``state``) and its transitions (``forge``, ``approvals``, ``guilds``, ``copies``, ``meetings``),
the text commands (``commands``), the answers (``views``), the starter set (``starter``) and the
card's picture (``picture``). ``service`` joins the rules to a store.
"""
