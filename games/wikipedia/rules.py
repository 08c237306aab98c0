"""The rules of the Wikipedia game as pure functions: deal, check, apply, list, audit.

``validate`` says whether an action is legal (raising the typed error that forbids it) and what it
costs; ``apply`` validates and then builds the new state with ``model_copy``. Nothing here draws
randomness after the deal: the deck is shuffled once, by the injected RNG, in ``new_game``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from games.tables.engine import (
    GameOverError,
    IllegalActionError,
    MissingCardError,
    NotASeatError,
    NotEnoughHoursError,
    NotYourTurnError,
    SeatingError,
    WrongRoleError,
)
from games.wikipedia.actions import AddSection, EndTurn, FixProblem, GiveCard, PassHour, Protect, WikipediaAction
from games.wikipedia.cards import ALL_CARDS, ARTICLE_OF, ARTICLES, CARDS, KIND_OF, Kind, is_fact, supports
from games.wikipedia.events import (
    ArticleProtected,
    CardGiven,
    GameLost,
    GameWon,
    GradeChanged,
    HoursPassed,
    ProblemFixed,
    SectionAdded,
    TurnStarted,
    WikipediaEvent,
)
from games.wikipedia.state import (
    FA_SECTIONS,
    GA_SECTIONS,
    Grade,
    Outcome,
    Page,
    Protection,
    Section,
    WikipediaOptions,
    WikipediaState,
    blank_pages,
)

MIN_SEATS = 2
MAX_SEATS = 5
MAX_SEAT_NAME = 100
_ALL_SET = frozenset(ALL_CARDS)
_SOUND_SECTIONS = frozenset(
    (ARTICLE_OF[fact], fact, support)
    for fact in ALL_CARDS
    if is_fact(fact)
    for support in ALL_CARDS
    if supports(support, ARTICLE_OF[fact])
)
"""Every section the rules allow, as (article index, fact, support)."""


# --- setting up -------------------------------------------------------------------------------


def new_game(seats: Sequence[str], options: WikipediaOptions | None, rng: random.Random) -> WikipediaState:
    """Shuffle, deal a face-up role card and a starting hand to each seat, and start turn 1.

    The administrator (highest role card) plays first; turns then follow the order of ``seats``.
    """
    options = options or WikipediaOptions()
    names = tuple(seats)
    if not MIN_SEATS <= len(names) <= MAX_SEATS:
        raise SeatingError(f"Wikipedia is played by {MIN_SEATS} to {MAX_SEATS} editors, not {len(names)}")
    if len(set(names)) != len(names):
        raise SeatingError("each editor can take only one seat")
    if any(not name.strip() or len(name) > MAX_SEAT_NAME for name in names):
        raise SeatingError("every seat needs a name (up to 100 characters)")
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    k = len(names)
    roles = tuple(deck[:k])
    dealt = k + k * options.starting_hand
    hands = tuple(tuple(deck[k + i : dealt : k]) for i in range(k))
    admin = roles.index(max(roles))
    state = WikipediaState(
        options=options,
        seats=names,
        roles=roles,
        admin=admin,
        hands=hands,
        known=tuple(tuple(() for _ in range(k)) for _ in range(k)),
        deck=tuple(deck[dealt:]),
        pages=blank_pages(),
        current=admin,
        hours=options.hours_per_turn,
        turn=0,
    )
    state, _ = begin_turn(state, admin, 1)
    return state


def begin_turn(state: WikipediaState, seat: int, turn: int) -> tuple[WikipediaState, list[WikipediaEvent]]:
    """The negative phase of ``seat``'s turn: turn problems up, or lose when the deck runs short."""
    n = state.options.problems_per_turn
    if len(state.deck) < n:
        lost = state.model_copy(
            update={"current": seat, "turn": turn, "hours": 0, "outcome": Outcome.LOST, "drawn": ()}
        )
        return lost, [GameLost(turn, len(state.deck))]
    drawn = state.deck[:n]
    pages = list(state.pages)
    changes: list[WikipediaEvent] = []
    for card in drawn:
        page = pages[ARTICLE_OF[card]]
        before = page.grade
        pages[ARTICLE_OF[card]] = page.model_copy(update={"problems": (*page.problems, card)})
        if before is not Grade.DRAFT:
            changes.append(GradeChanged(page.article, before, Grade.DRAFT))
    hours = state.options.hours_per_turn
    started = state.model_copy(
        update={
            "deck": state.deck[n:],
            "pages": tuple(pages),
            "current": seat,
            "turn": turn,
            "hours": hours,
            "drawn": drawn,
        }
    )
    return started, [TurnStarted(turn, state.seats[seat], drawn, hours), *changes]


# --- roles and costs --------------------------------------------------------------------------


def needs_payment(state: WikipediaState, seat: int, article: int) -> bool:
    """Whether ``seat`` must discard a card to add a section to ``article`` (by index)."""
    if seat == state.admin:
        return state.options.administrator_pays
    return ARTICLE_OF[state.roles[seat]] != article


def fix_cost(state: WikipediaState, seat: int, article: int) -> int:
    """Hours ``seat`` needs to pick up a problem from ``article`` (by index)."""
    protection = state.pages[article].protection
    if protection is Protection.FULL:
        return 0
    admin = seat == state.admin
    expert = not admin and ARTICLE_OF[state.roles[seat]] == article
    if protection is Protection.SEMI:
        if admin or (expert and state.options.expert_instant_on_semi):
            return 0
        return 1
    return 1 if admin or expert else 2


def protection_for(page: Page) -> Protection | None:
    """The protection the administrator could give ``page`` now, or None."""
    grade = page.grade
    if grade is Grade.FEATURED:
        return None if page.protection is Protection.FULL else Protection.FULL
    if grade is Grade.GOOD:
        return Protection.SEMI if page.protection is Protection.NONE else None
    return None


def problem_article(state: WikipediaState, card: int) -> int | None:
    """The article (index) that ``card`` lies across as a problem, or None."""
    article = ARTICLE_OF.get(card)
    if article is None or card not in state.pages[article].problems:
        return None
    return article


def role_text(state: WikipediaState, seat: int) -> str:
    if seat == state.admin:
        return "the administrator"
    return f"the {ARTICLES[ARTICLE_OF[state.roles[seat]]].value} expert"


# --- checking ---------------------------------------------------------------------------------


def _hours(n: int) -> str:
    return f"{n} hour{'' if n == 1 else 's'}"


def _card_name(card: int) -> str:
    info = CARDS.get(card)
    return f"#{card} ({info.useful_end})" if info is not None else f"#{card}"


def _seat_of(state: WikipediaState, seat: str) -> int:
    if state.outcome is not Outcome.PLAYING:
        raise GameOverError(f"this game is over: the editors {state.outcome.value}")
    index = state.seat_index(seat)
    if index is None:
        raise NotASeatError(f"{seat} does not play at this table")
    if index != state.current:
        raise NotYourTurnError(f"it is {state.seats[state.current]}'s turn, not yours")
    return index


def _require_in_hand(hand: tuple[int, ...], card: int) -> None:
    if card not in hand:
        raise MissingCardError(f"you do not hold card #{card}")


def _check_room(state: WikipediaState, seat: int, who: str) -> None:
    limit = state.options.hand_limit
    if limit is not None and len(state.hands[seat]) >= limit:
        raise IllegalActionError(f"{who} already hold{'s' if who != 'you' else ''} {limit} cards, the most allowed")


def validate(state: WikipediaState, seat: str, action: WikipediaAction) -> tuple[int, int]:
    """Raise the rule error that forbids ``action``; otherwise return (seat index, hours it costs)."""
    i = _seat_of(state, seat)
    hand = state.hands[i]
    if isinstance(action, AddSection):
        _check_section(state, i, hand, action)
        return i, 1
    if isinstance(action, FixProblem):
        article = problem_article(state, action.card)
        if article is None:
            raise MissingCardError(f"card #{action.card} is not a problem on any article")
        cost = fix_cost(state, i, article)
        if cost > state.hours:
            raise NotEnoughHoursError(
                f"clearing a problem from {ARTICLES[article].label} takes you {_hours(cost)}"
                f" and you have {_hours(state.hours)} left"
            )
        _check_room(state, i, "you")
        return i, cost
    if isinstance(action, Protect):
        if i != state.admin:
            raise WrongRoleError(f"only the administrator ({state.seats[state.admin]}) can protect articles")
        page = state.page(action.article)
        if protection_for(page) is None:
            if page.grade is Grade.DRAFT:
                raise IllegalActionError(
                    f"{action.article.label} is neither a GA nor an FA right now"
                    f" ({GA_SECTIONS}+ sections and no problems), so it cannot be protected"
                )
            level = "fully" if page.protection is Protection.FULL else "semi-"
            raise IllegalActionError(f"{action.article.label} is already {level}protected")
        return i, 1
    if isinstance(action, GiveCard):
        to = state.seat_index(action.to)
        if to is None:
            raise IllegalActionError(f"{action.to} does not play at this table")
        if to == i:
            raise IllegalActionError("you cannot give a card to yourself")
        _check_room(state, to, action.to)
        _require_in_hand(hand, action.card)
        return i, 1
    if isinstance(action, PassHour):
        return i, 1
    if isinstance(action, EndTurn):
        return i, state.hours
    raise IllegalActionError("that is not a move of this game")  # pragma: no cover - the union is closed


def _check_section(state: WikipediaState, i: int, hand: tuple[int, ...], action: AddSection) -> None:
    # the cards' fit is checked before whether they are held: a refusal everyone reads must not
    # depend on the hand (which is told to the player alone: ``MissingCardError``)
    fact, support = action.fact, action.support
    if fact == support:
        raise IllegalActionError("a section takes two different cards")
    if not is_fact(fact):
        raise IllegalActionError(f"a section starts with a fact, and {_card_name(fact)} is not one")
    article = ARTICLE_OF[fact]
    label = ARTICLES[article].label
    if not supports(support, article):
        if KIND_OF[support] is Kind.LINK:
            raise IllegalActionError(f"a link must lead to another article: {_card_name(support)} cannot back {label}")
        if KIND_OF[support] is Kind.SOURCE:
            raise IllegalActionError(f"a source must be about the same article: {_card_name(support)} is not {label}")
        raise IllegalActionError(
            f"a fact needs a source of the same article or a link to another one, not {_card_name(support)}"
        )
    if needs_payment(state, i, article):
        if action.payment is None:
            raise IllegalActionError(
                f"as {role_text(state, i)} you pay for a {label} section with one more card from your hand"
                " (add `discard N`)"
            )
        if action.payment in (fact, support):
            raise IllegalActionError("the payment must be a third card, not one of the section's two")
    elif action.payment is not None:
        raise IllegalActionError(f"as the {ARTICLES[article].value} expert you add {label} sections for free")
    for card in (fact, support, action.payment):
        if card is not None:
            _require_in_hand(hand, card)


def check(state: WikipediaState, seat: str, action: WikipediaAction) -> None:
    validate(state, seat, action)


# --- applying ---------------------------------------------------------------------------------


def _without(cards: tuple[int, ...], *gone: int) -> tuple[int, ...]:
    return tuple(c for c in cards if c not in gone)


def _replace(items: tuple[tuple[int, ...], ...], index: int, value: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    return (*items[:index], value, *items[index + 1 :])


def _replace_page(pages: tuple[Page, ...], index: int, page: Page) -> tuple[Page, ...]:
    return (*pages[:index], page, *pages[index + 1 :])


def apply(
    state: WikipediaState, seat: str, action: WikipediaAction
) -> tuple[WikipediaState, tuple[WikipediaEvent, ...]]:
    """Check ``action`` and carry it out; after the last hour the next turn begins at once."""
    i, cost = validate(state, seat, action)
    name = state.seats[i]
    hours = state.hours - cost
    update: dict[str, object] = {"hours": hours, "actions": state.actions + 1}
    events: list[WikipediaEvent] = []
    touched: int | None = None
    if isinstance(action, AddSection):
        touched = ARTICLE_OF[action.fact]
        page = state.pages[touched]
        gone = (
            (action.fact, action.support) if action.payment is None else (action.fact, action.support, action.payment)
        )
        section = Section(fact=action.fact, support=action.support)
        new_page = page.model_copy(update={"sections": (*page.sections, section)})
        update["pages"] = _replace_page(state.pages, touched, new_page)
        update["hands"] = _replace(state.hands, i, _without(state.hands[i], *gone))
        _shown(state, update, i, gone)
        if action.payment is not None:
            update["discard"] = (*state.discard, action.payment)
        events.append(
            SectionAdded(name, page.article, action.fact, action.support, action.payment, len(new_page.sections), hours)
        )
    elif isinstance(action, FixProblem):
        touched = ARTICLE_OF[action.card]
        page = state.pages[touched]
        new_page = page.model_copy(update={"problems": _without(page.problems, action.card)})
        update["pages"] = _replace_page(state.pages, touched, new_page)
        update["hands"] = _replace(state.hands, i, (*state.hands[i], action.card))
        if state.known is not None:
            update["known"] = tuple(
                row if v == i else _replace(row, i, (*row[i], action.card)) for v, row in enumerate(state.known)
            )
        events.append(ProblemFixed(name, action.card, page.article, cost, hours))
    elif isinstance(action, Protect):
        index = action.article.position
        page = state.pages[index]
        level = protection_for(page)
        if level is None:  # pragma: no cover - validate() has ruled this out
            raise IllegalActionError(f"{action.article.label} cannot be protected now")
        update["pages"] = _replace_page(state.pages, index, page.model_copy(update={"protection": level}))
        events.append(ArticleProtected(name, action.article, level, hours))
    elif isinstance(action, GiveCard):
        to = state.seats.index(action.to)
        hands = _replace(state.hands, i, _without(state.hands[i], action.card))
        update["hands"] = _replace(hands, to, (*hands[to], action.card))
        if state.known is not None:
            update["known"] = _known_after_gift(state.known, i, to, action.card)
        events.append(CardGiven(name, action.to, action.card, hours))
    else:
        events.append(HoursPassed(name, cost, hours))
    new = state.model_copy(update=update)
    if touched is not None:
        before, after = state.pages[touched].grade, new.pages[touched].grade
        if before is not after:
            events.append(GradeChanged(ARTICLES[touched], before, after))
        if after is not Grade.DRAFT and all(p.grade is not Grade.DRAFT for p in new.pages):
            new = new.model_copy(update={"outcome": Outcome.WON})
            events.append(GameWon(new.turn))
            return new, tuple(events)
    if hours == 0:
        new, started = begin_turn(new, (i + 1) % len(state.seats), state.turn + 1)
        events.extend(started)
    return new, tuple(events)


def _shown(state: WikipediaState, update: dict[str, object], seat: int, cards: tuple[int, ...]) -> None:
    """Cards played face up from ``seat``'s hand are no longer there for anyone to name."""
    known = state.known
    if known is not None and any(c in row[seat] for row in known for c in cards):
        update["known"] = tuple(_replace(row, seat, _without(row[seat], *cards)) for row in known)


def _known_after_gift(
    known: tuple[tuple[tuple[int, ...], ...], ...], giver: int, to: int, card: int
) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Who can name what once ``giver`` has handed ``card`` to ``to`` (the others learn only that a card went)."""
    rows = []
    for v, row in enumerate(known):
        if v == giver:
            rows.append(_replace(row, to, (*row[to], card)))
        elif v == to:
            rows.append(_replace(row, giver, _without(row[giver], card)))
        else:
            rows.append(_replace(row, giver, ()))
    return tuple(rows)


# --- listing ----------------------------------------------------------------------------------


def legal_actions(state: WikipediaState, seat: str) -> list[WikipediaAction]:
    """Every legal action of ``seat`` now, in a stable order (sections, fixes, protection, gifts, pass)."""
    if state.outcome is not Outcome.PLAYING:
        return []
    i = state.seat_index(seat)
    if i is None or i != state.current:
        return []
    hand = state.hands[i]
    actions: list[WikipediaAction] = []
    for fact in hand:
        if not is_fact(fact):
            continue
        article = ARTICLE_OF[fact]
        pays = needs_payment(state, i, article)
        for support in hand:
            if support == fact or not supports(support, article):
                continue
            if not pays:
                actions.append(AddSection(fact=fact, support=support))
                continue
            actions.extend(AddSection(fact=fact, support=support, payment=p) for p in hand if p not in (fact, support))
    limit = state.options.hand_limit
    if limit is None or len(hand) < limit:
        for index, page in enumerate(state.pages):
            if page.problems and fix_cost(state, i, index) <= state.hours:
                actions.extend(FixProblem(card=c) for c in page.problems)
    if i == state.admin:
        actions.extend(Protect(article=page.article) for page in state.pages if protection_for(page) is not None)
    for to, other in enumerate(state.seats):
        if to == i or (limit is not None and len(state.hands[to]) >= limit):
            continue
        actions.extend(GiveCard(card=c, to=other) for c in hand)
    actions.append(PassHour())
    actions.append(EndTurn())
    return actions


# --- auditing ---------------------------------------------------------------------------------


def all_cards(state: WikipediaState) -> list[int]:
    """Every card on the table, wherever it lies (with repeats, if the state is broken)."""
    cards = [*state.roles, *state.deck, *state.discard]
    for hand in state.hands:
        cards.extend(hand)
    for page in state.pages:
        cards.extend(page.problems)
        for section in page.sections:
            cards.append(section.fact)
            cards.append(section.support)
    return cards


def _knowledge_holds(known: tuple[tuple[tuple[int, ...], ...], ...], hands: tuple[tuple[int, ...], ...]) -> bool:
    """Whether every card a seat is said to know of another hand is in that hand (and none of its own)."""
    k = len(hands)
    if len(known) != k:
        return False
    for v, row in enumerate(known):
        if len(row) != k or row[v]:
            return False
        for j, cards in enumerate(row):
            hand = hands[j]
            for card in cards:
                if card not in hand:
                    return False
    return True


def invariants(state: WikipediaState) -> list[str]:
    """What is inconsistent in ``state``; empty when every rule of the table holds."""
    out: list[str] = []
    k = len(state.seats)
    if not MIN_SEATS <= k <= MAX_SEATS:
        out.append(f"{k} seats (must be {MIN_SEATS} to {MAX_SEATS})")
    if len(set(state.seats)) != k:
        out.append("a seat name is repeated")
    if len(state.roles) != k or len(state.hands) != k:
        out.append(f"{len(state.roles)} role cards and {len(state.hands)} hands for {k} seats")
        return out
    cards = all_cards(state)
    if len(cards) != len(ALL_CARDS) or set(cards) != _ALL_SET:
        counts = Counter(cards)
        missing = sorted(set(ALL_CARDS) - counts.keys())
        twice = sorted(c for c, n in counts.items() if n > 1)
        alien = sorted(c for c in counts if c not in CARDS)
        out.append(
            f"cards not accounted for: {len(cards)} on the table, missing {missing}, repeated {twice}, unknown {alien}"
        )
    if state.roles and state.admin != state.roles.index(max(state.roles)):
        out.append(f"seat {state.admin} is administrator but does not hold the highest role card")
    if not 0 <= state.current < k:
        out.append(f"current seat {state.current} out of range")
    if tuple(p.article for p in state.pages) != ARTICLES:
        out.append("the four articles are not laid out in order")
        return out
    for index, page in enumerate(state.pages):
        for s in page.sections:
            fact, support = s.fact, s.support
            if (index, fact, support) not in _SOUND_SECTIONS:
                out.append(f"{page.article.label} has a section that breaks the rules: #{fact} with #{support}")
        strays = [c for c in page.problems if ARTICLE_OF.get(c) != index]
        out.extend(f"problem #{c} lies on {page.article.label} but names another article" for c in strays)
        protection = page.protection
        if protection is not Protection.NONE:
            n = len(page.sections)
            if n < (GA_SECTIONS if protection is Protection.SEMI else FA_SECTIONS):
                out.append(f"{page.article.label} is {protection.value}-protected with only {n} sections")
    finished = all(not p.problems and len(p.sections) >= GA_SECTIONS for p in state.pages)
    hpt = state.options.hours_per_turn
    if state.outcome is Outcome.PLAYING:
        if not 1 <= state.hours <= hpt:
            out.append(f"{state.hours} hours left in a turn of {hpt}")
        if finished:
            out.append("every article is a GA or FA but the game goes on")
    elif state.outcome is Outcome.WON and not finished:
        out.append("the game is won but not every article is a GA or FA")
    elif state.outcome is Outcome.LOST and len(state.deck) >= state.options.problems_per_turn:
        out.append(f"the game is lost with {len(state.deck)} cards still in the deck")
    if state.known is not None and not _knowledge_holds(state.known, state.hands):
        out.append("a seat is said to know a card that is not in that hand")
    limit = state.options.hand_limit
    if limit is not None and any(len(h) > limit for h in state.hands):
        out.append(f"a hand holds more than {limit} cards")
    if len(state.drawn) > state.options.problems_per_turn:
        out.append(f"{len(state.drawn)} problems drawn this turn")
    if state.turn < 1 or state.actions < 0:
        out.append(f"turn {state.turn}, {state.actions} actions")
    return out
