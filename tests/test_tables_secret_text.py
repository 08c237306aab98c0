"""What a hand holds is said to its holder alone: a secret move's word typed in a table's thread is refused
privately however it is typed (a typo, no prefix, a stray full stop), and a refusal that confirms or denies
what the author holds goes ``to`` the author, never to the thread. Public refusals are decided before any
look at the hand, so their words are the same whatever it holds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.sim.replay import replay
from bot.sim.world import read_line
from data.table_store import TableStore
from games.ictc.battle.engine import ENGINE as BATTLE
from games.nuclear.commands import SECRET_WORDS
from games.nuclear.state import NuclearState, Phase
from games.sardini.actions import AttemptTrick
from games.sardini.cards import parse_card
from games.tables import lobby
from games.tables.engine import GameRuleError, IllegalActionError, MissingCardError
from games.tables.registry import GAMES, register, unregister
from games.tables.service import Actor, TablePost, TableService
from games.tables.text import near_word, opens_with
from games.wikipedia.actions import AddSection, GiveCard
from games.wikipedia.engine import ENGINE as WIKIPEDIA

from .ballot_game import BALLOT
from .battle_support import Zones, battle, number, starter
from .test_sardini_rules import act as sardini_act
from .test_sardini_rules import apply as sardini_apply
from .test_sardini_rules import move
from .test_sardini_rules import table as sardini_table
from .test_wikipedia import ARTIST
from .test_wikipedia import table as wikipedia_table

GUILD = "g1"
T0 = datetime(2026, 12, 7, 9, tzinfo=UTC)
MEMBERS = ("alice", "bob", "carol", "dan")


@pytest.fixture(scope="module", autouse=True)
def ballot_registered() -> Iterator[None]:
    register(BALLOT)
    yield
    unregister(BALLOT.name)


# --- the words a secret move starts with ---------------------------------------------------------

PREFIXES = ("", "!", "/", "！", "／", "  !", "> !", "||!", "**")
TAILS = ("", ".", "。", "!", " P04.", ":P04", ": P04", " p4 p5 extra", ",P04", "4", "P04", " @bob")


def _cased(word: str, flips: list[bool]) -> str:
    return "".join(ch.upper() if flip else ch for ch, flip in zip(word, flips + [False] * len(word), strict=False))


def test_every_game_with_secret_moves_names_their_words() -> None:
    secret = {name for name, engine in GAMES.items() if engine.secret_words()}
    assert secret == {"nuclear", "ballot"}, "the games whose moves can be secret"
    assert {"vote", "投", "蓋牌", "give", "給", "reveal", "開牌", "withdraw", "收回", "abstain"} <= SECRET_WORDS
    assert not {"propose", "transfer", "promise", "end", "count"} & SECRET_WORDS, "public moves stay typed"


@given(
    game=st.sampled_from(["nuclear", "ballot"]),
    data=st.data(),
    prefix=st.sampled_from(PREFIXES),
    tail=st.sampled_from(TAILS),
)
def test_a_secret_word_is_recognised_however_it_is_typed(game: str, data: Any, prefix: str, tail: str) -> None:
    words = sorted(GAMES[game].secret_words())
    word = data.draw(st.sampled_from(words))
    flips = data.draw(st.lists(st.booleans(), max_size=len(word)))
    assert opens_with(prefix + _cased(word, flips) + tail, frozenset(words))


@pytest.mark.parametrize(
    "talk", ["開始吧", "收到", "給你們看", "voter turnout", "votes are in", "given that", "opened it", "hello vote", ""]
)
def test_talk_that_only_looks_like_a_secret_word_is_left_alone(talk: str) -> None:
    assert not opens_with(talk, SECRET_WORDS)


# --- in the simulator: typed in the thread, answered to the author alone -----------------------


def _lines(*typed: str) -> list[tuple[int, Any]]:
    at = iter(T0 + timedelta(seconds=n) for n in range(100))

    def msg(mid: str, channel: str, author: str, content: str) -> dict[str, Any]:
        when = next(at).isoformat().replace("+00:00", "Z")
        return {"at": when, "type": "message", "id": mid, "channel": channel, "author": author, "content": content}

    raw = [{"at": "2026-12-07T08:59:00Z", "type": "setup", "admins": ["mod"]}]
    raw.append(msg("open", "game-actions", "alice", "!play nuclear"))
    raw += [msg(f"join-{m}", "nuclear-1", m, "!join") for m in MEMBERS[1:]]
    raw.append(msg("start", "nuclear-1", "alice", "!start"))
    raw += [msg(f"t{n}", "nuclear-1", "alice", text) for n, text in enumerate(typed)]
    return [(i, read_line(d)) for i, d in enumerate(raw)]


TYPED = ("!vote P04.", "vote P04", "/vote P04", "！投 P04", "投P04", "!give P04 @bob", "收回。", "開始吧")


def test_secret_words_in_the_thread_are_answered_to_their_author_alone_in_the_simulator() -> None:
    result = asyncio.run(replay(_lines(*TYPED), seed="1"))
    for n, text in enumerate(TYPED[:-1]):
        answers = [e for e in result.transcript if e.get("reply_to") == f"t{n}"]
        assert answers, text
        assert all(e.get("to") == "alice" for e in answers), (text, answers)
        assert answers[0]["content"].startswith("無法這樣做：這是秘密行動"), answers
    assert not [e for e in result.transcript if e.get("reply_to") == f"t{len(TYPED) - 1}"], "talk gets no answer"
    assert not any("P04" in e["content"] for e in result.transcript if e.get("channel") == "nuclear-1")


MISTYPED = (
    "!vot P04",
    "!voet P04",
    "!votes P04",
    "!palce P04",
    "!giv P04 @bob",
    "!頭票 P04",
    "!盖牌 P04",
    "!v\u200bote P04",
)


def test_a_secret_word_mistyped_as_a_command_is_answered_to_its_author_alone() -> None:
    """A command word one slip from a secret move's (a letter missing, added, changed or swapped) that the game
    cannot read is refused as the secret move is, privately: a public "not a command" would leave the card
    after it in the thread."""
    result = asyncio.run(replay(_lines(*MISTYPED, "!hello P04"), seed="1"))
    for n, text in enumerate(MISTYPED):
        answers = [e for e in result.transcript if e.get("reply_to") == f"t{n}"]
        assert answers, text
        assert all(e.get("to") == "alice" for e in answers), (text, answers)
        assert answers[0]["content"].startswith("無法這樣做：這是秘密行動"), answers
    assert not any("P04" in e["content"] for e in result.transcript if e.get("channel") == "nuclear-1")
    far = [e for e in result.transcript if e.get("reply_to") == f"t{len(MISTYPED)}"]
    assert [e.get("channel") for e in far] == ["nuclear-1"], "a word near no secret move's is refused as before"


@pytest.mark.parametrize(
    ("typed", "near"),
    [
        *[("vot", True), ("vtoe", True), ("withdrw", True), ("投漂", True), ("開牌啦", True), ("note", True)],
        *[("propose", False), ("promise", False), ("count", False), ("end", False), ("給", False), ("gift", False)],
    ],
)
def test_a_slip_is_one_edit_from_a_secret_word_of_two_letters_or_four(typed: str, near: bool) -> None:
    assert near_word(f"!{typed} P04", SECRET_WORDS) is near


# --- refusals that tell a hand -----------------------------------------------------------------


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[TableService]:
    store = await TableStore.open(tmp_path / "tables.db", synchronous="NORMAL")
    yield TableService(store, seed="x")
    await store.close()


async def _say(service: TableService, member: str, text: str, thread: str | None, n: list[int]) -> list[TablePost]:
    n[0] += 1
    at = T0 + timedelta(seconds=n[0])
    posts = await service.command(GUILD, Actor(member, member), text, at=at, event_id=f"e{n[0]}", thread=thread)
    assert posts is not None
    return posts


async def test_not_holding_a_proposed_card_is_told_to_the_speaker_alone(service: TableService) -> None:
    n = [0]
    await _say(service, "alice", "!play nuclear", None, n)
    for member in MEMBERS[1:]:
        await _say(service, member, "!join", "nuclear-1", n)
    await _say(service, "alice", "!start", "nuclear-1", n)
    found = await service.find(GUILD, "nuclear-1")
    assert found is not None
    state = lobby.game_state(found)
    assert isinstance(state, NuclearState)
    assert state.phase is Phase.PROPOSE
    speaker = state.seats[state.speaker]
    member = found.seat_named(speaker).member  # type: ignore[union-attr]
    assert member is not None
    missing = next(c for c in ("P28", "P01", "P02") if c not in state.hands[state.speaker])
    posts = await _say(service, member, f"!propose {missing}", "nuclear-1", n)
    assert posts == [
        TablePost(f"無法這樣做：你手上沒有 {missing}。", private=True, error=True, kind="error", to=(member,))
    ]
    other = next(m for m in MEMBERS if m != member)
    public = await _say(service, other, f"!propose {missing}", "nuclear-1", n)
    assert len(public) == 1
    assert not public[0].to
    assert not public[0].private, "only the speaker proposes: said in the thread, naming no hand"


def test_sardini_refuses_a_set_that_misses_the_move_in_the_same_words_held_or_not() -> None:
    said: list[GameRuleError] = []
    for hand in ("7W 5S 4S", "7W 4S 1K"):  # 5S held, then not
        state = sardini_table(hands=[hand, "", ""], shown="2H")
        state, _ = sardini_act(state, AttemptTrick(trick=parse_card("2H")))
        with pytest.raises(GameRuleError) as refused:
            sardini_apply(state, "ann", move(1, "7W 5S"))
        said.append(refused.value)
    assert str(said[0]) == str(said[1])
    assert "add up to 12" in str(said[0])
    assert not any(error.private for error in said), "told in the thread"
    with pytest.raises(GameRuleError, match="you do not hold 7K") as missing:
        sardini_apply(state, "ann", move(1, "7K 4S"))
    assert missing.value.private


@pytest.mark.parametrize(
    "action",
    [AddSection(fact=1, support=1), AddSection(fact=1, support=2), AddSection(fact=8, support=1)],
    ids=["the same card twice", "two facts", "a source is no fact"],
)
def test_wikipedia_refuses_a_broken_section_in_the_same_words_held_or_not(action: AddSection) -> None:
    said: list[GameRuleError] = []
    for hand in ((1, 2, 8, 11, 21), (11, 21)):  # the named cards held, then not
        state = wikipedia_table(hands=((), hand, ()), current=1)
        with pytest.raises(GameRuleError) as refused:
            WIKIPEDIA.check(state, ARTIST, action)
        said.append(refused.value)
    assert str(said[0]) == str(said[1])
    assert not any(error.private for error in said), "told in the thread"


def test_wikipedia_tells_a_card_not_held_to_its_author_alone() -> None:
    state = wikipedia_table(hands=((), (2, 8), ()), current=1)
    with pytest.raises(GameRuleError, match="you do not hold card #1") as missing:
        WIKIPEDIA.check(state, ARTIST, GiveCard(card=1, to="alice"))
    assert missing.value.private
    with pytest.raises(GameRuleError, match="you do not hold card #1") as section:
        WIKIPEDIA.check(state, ARTIST, AddSection(fact=1, support=8))
    assert section.value.private


def test_ictc_naming_a_card_the_author_cannot_see_is_refused_privately() -> None:
    hound, scout = starter("Flame Hound"), starter("Cinder Scout")
    state = battle(Zones(hand=[hound], deck=[scout]), Zones(hand=[scout], deck=[hound]))
    mine_in_deck = number(state, "Cinder Scout", 0)
    for typed in (f"!play #{mine_in_deck}", "!play Cinder Scout", f"!play #{mine_in_deck} Cinder"):
        with pytest.raises(GameRuleError) as refused:
            BATTLE.parse_action(state, "alice", typed)
        assert refused.value.private, typed


def test_a_private_refusal_reaches_only_its_author_in_every_game() -> None:
    """The class that says a card is not held is private wherever it is raised."""
    assert MissingCardError("x").private
    assert not MissingCardError("x", private=False).private
    assert not IllegalActionError("x").private
    translated = MissingCardError("x", texts={"zh-TW": "y"}).in_language("zh-TW")
    assert translated.private
