"""What the thread shows: the public table, one seat's private hand, and the rules in our words."""

from __future__ import annotations

from games.tables.engine import NotASeatError
from games.wikipedia.cards import ARTICLE_OF, ARTICLES, CARDS, Kind
from games.wikipedia.commands import commands_text
from games.wikipedia.rules import fix_cost, needs_payment, role_text
from games.wikipedia.state import Grade, Outcome, Page, Protection, Section, WikipediaState


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _section_text(section: Section) -> str:
    fact, support = CARDS[section.fact], CARDS[section.support]
    if support.kind is Kind.SOURCE:
        backing = f"source #{support.number}"
    else:
        backing = f"link #{support.number} to {support.article.value}"
    return f"{fact.heading} (#{fact.number} + {backing})"


def _grade_text(page: Page) -> str:
    grade = page.grade
    text = {Grade.GOOD: "GA", Grade.FEATURED: "FA", Grade.DRAFT: "in progress"}[grade]
    if page.protection is Protection.SEMI:
        text += ", semi-protected"
    elif page.protection is Protection.FULL:
        text += ", fully protected"
    return text


def page_text(page: Page) -> str:
    sections = "; ".join(_section_text(s) for s in page.sections) if page.sections else "no sections yet"
    problems = ", ".join(CARDS[c].as_problem() for c in page.problems) if page.problems else "none"
    return (
        f"**{page.article.label}** ({_grade_text(page)}): {_plural(len(page.sections), 'section')}: {sections}."
        f" Problems: {problems}."
    )


def public_view(state: WikipediaState) -> str:
    if state.outcome is Outcome.WON:
        head = f"**Wikipedia**: won on turn {state.turn}, all four articles are GA or FA."
    elif state.outcome is Outcome.LOST:
        head = f"**Wikipedia**: lost, the deck ran short after {state.turn - 1} turns."
    else:
        head = (
            f"**Wikipedia**: turn {state.turn}, {state.seats[state.current]} to play with"
            f" {_plural(state.hours, 'hour')} left."
        )
    lines = [
        head,
        (
            f"Deck: {_plural(len(state.deck), 'card')} ({len(state.deck) // state.options.problems_per_turn} more turns"
            f" can start). Discard pile: {_plural(len(state.discard), 'card')}."
        ),
        "",
    ]
    lines.extend(page_text(page) for page in state.pages)
    lines.append("")
    for i, seat in enumerate(state.seats):
        marker = "▶ " if state.outcome is Outcome.PLAYING and i == state.current else ""
        lines.append(
            f"{marker}{seat}: {role_text(state, i)} (role card #{state.roles[i]}),"
            f" {_plural(len(state.hands[i]), 'card')} in hand"
        )
    return "\n".join(lines)


def private_view(state: WikipediaState, seat: str) -> str:
    i = state.seat_index(seat)
    if i is None:
        raise NotASeatError(f"{seat} does not play at this table")
    hand = sorted(state.hands[i])
    lines = [
        f"You are {role_text(state, i)} (role card #{state.roles[i]}).",
        f"Your hand ({_plural(len(hand), 'card')}):",
    ]
    lines.extend(f"- {CARDS[c].describe()}" for c in hand)
    if not hand:
        lines.append("- nothing yet: fix problems to pick cards up")
    costs = ", ".join(f"{a.value} {_plural(fix_cost(state, i, a.position), 'hour')}" for a in ARTICLES)
    lines.append(f"Fixing a problem costs you: {costs}.")
    free = [a.value for a in ARTICLES if not needs_payment(state, i, a.position)]
    if free:
        lines.append(f"You add sections to {', '.join(free)} without paying a card; elsewhere you discard one.")
    else:
        lines.append("Every section you add costs you one extra card from your hand.")
    playable = _sections_in(hand)
    if playable:
        lines.append("Sections you could write: " + ", ".join(f"`section {f} {s}`" for f, s in playable[:8]) + ".")
    return "\n".join(lines)


def _sections_in(hand: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for f in hand:
        if CARDS[f].kind is not Kind.FACT:
            continue
        article = ARTICLE_OF[f]
        for s in hand:
            kind = CARDS[s].kind
            if (kind is Kind.SOURCE and ARTICLE_OF[s] == article) or (kind is Kind.LINK and ARTICLE_OF[s] != article):
                out.append((f, s))
    return out


RULES = """\
**Wikipedia, the cooperative card game** (2 to 5 players)

Everyone at the table edits the same encyclopaedia: four articles (art, geography, history, \
science). The players win or lose together. You win the moment every article is a Good Article \
(GA: at least four sections and no problems) or a Featured Article (FA: at least five sections and \
no problems). You lose when a turn should start but the deck cannot supply its problems.

**The cards.** 52 cards, 13 for each article, numbered 1 to 52 (art 1-13, geography 14-26, \
history 27-39, science 40-52). In each article the first seven are facts, the next three sources \
and the last three links; a link card of an article is a link *to* that article. Every card also \
has a problem end (Spam, Bias, Copyvio...), used when it is turned up against an article.

**Setting up.** Each player gets one card face up: their role card. It stays on the table for the \
whole game and never comes back into play. The highest role card makes its holder the \
administrator, who plays first; every other player is the expert on the article of their own role \
card (two players can share an article, and an article can have no expert). Then everyone gets two \
cards face down as a hand. Turns go round in seat order from the administrator.

**A turn.** First the problems: the player turns up the top two cards of the deck and lays each one \
across the article it belongs to, as a problem. Then the player has four hours. Each of these takes \
one hour unless noted:
- *Write a section*: play a fact and either a source of the same article or a link to a different \
article. The section joins the fact's article. The article's expert plays it for free; anyone else, \
the administrator included, also discards one other card from hand.
- *Fix a problem*: take a problem card off its article into your hand (this is how cards reach the \
hands). It costs 1 hour for the administrator and that article's expert, 2 hours for the others. On \
a semi-protected article it is quicker: nothing for the administrator, one hour for everyone else \
(the article's expert included). On a fully protected article it costs nothing for anyone.
- *Protect* (administrator only): semi-protect an article that is a GA now, or fully protect one \
that is an FA now (a semi-protected article can be upgraded once it is an FA).
- *Give* one card from your hand to another player.
- *Pass* one hour, or *end* the turn and let all remaining hours go.
When the last hour is spent the next player's turn starts at once. Actions that cost nothing can \
only be taken while at least one hour is left.

**Choices this table makes where the original text is open** (the option name follows in brackets \
where the choice can be changed):
- Role cards stay face up in front of their owners and are out of the deck for good.
- Cards are named by their numbers: a section is written `section FACT SUPPORT`, with `discard CARD` \
for the payment.
- A picked-up problem goes to the hand of the player who fixed it.
- Protection stays on an article when problems land on it again; that is what makes it worth having \
(problems are never prevented, only cleared faster). Sections are never lost, so a protected article \
keeps the sections its protection needs.
- On a semi-protected article the administrator fixes at once and everyone else, its expert \
included, in one hour, as the original text says [expert_instant_on_semi: on, the expert is instant too].
- The administrator counts as nobody's expert and pays for every section [administrator_pays].
- Hands have no size limit [hand_limit].
- Giving needs no consent from the receiver, and only the player whose turn it is gives; the thread \
names the two players, not the card. Computer players know only what their seat may: their hand, the \
problems others picked up, their own gifts.
- `pass` spends one hour; `end` spends all the hours left.
- If the deck holds fewer cards than a turn needs, no card is turned up and the game is lost at once.
- The number of hours [hours_per_turn], problems per turn [problems_per_turn] and starting cards \
[starting_hand] can be changed for easier or harder games.

**Commands** (in the game's thread):
"""


def rules_text() -> str:
    return RULES + commands_text()
