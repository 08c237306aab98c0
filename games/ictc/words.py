"""The card library's command words and its lines in ``!help``: all a process needs to know which messages
are the library's, without loading the library's rules (a round with no card activity never does)."""

from __future__ import annotations

LIBRARY_WORDS = frozenset({"card", "cards", "guild", "guilds"})
"""The command words the card library answers (anywhere, table threads included)."""
CHALLENGE_WORDS = frozenset({"challenge", "challenges"})
BATTLE_GAME = "ictc"
"""The thread game a challenge is played at (``games.ictc.battle``'s engine's name)."""

HELP_SUMMARY = (
    ("!card new|edit|protect|unprotect|submit|ask|show|history|list|master", "make cards and look them up"),
    ("!card approve|reject|comment|contest", "judge other members' cards"),
    ("!card mint|copies|starter|deck|decks", "copies of approved cards, and play decks"),
    ("!card meet|exclude|include", "a first meeting before a battle"),
    ("!challenge @member [deck:NAME], !challenge accept|decline|withdraw", "battle with your deck (`!rules ictc`)"),
    ("!card keywords|keyword|options", "the glossary and the library's options"),
    ("!guild create|join|leave|officer|demote|set|list|show", "guilds that approve cards together"),
)
"""The card library in ``!help``: every command word, one line a theme; ``!card help`` explains each."""
HELP_SUMMARY_MODERATORS = ("!card option NAME VALUE, !card contests, !card decide N uphold|dismiss", "moderators")


def _first_word_in(text: str, words: frozenset[str]) -> bool:
    found = text.strip().removeprefix("!").split(maxsplit=1)
    return bool(found) and found[0].casefold() in words


def is_library_command(text: str) -> bool:
    return _first_word_in(text, LIBRARY_WORDS)


def is_challenge_command(text: str) -> bool:
    return _first_word_in(text, CHALLENGE_WORDS)
