"""Typed member names: only a username nobody else is shown by names a member; the rest is refused with candidates."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.nomic.errors import AmbiguousMemberError, UnknownMemberError
from games.nomic.members import MAX_LISTED, Known, fold, match_member, plain
from games.tables.engine import BadCommandError, NotASeatError
from games.tables.lobby import Seat, Table
from games.tables.players import AmbiguousPlayerError, seat_for
from games.wikipedia.actions import GiveCard
from games.wikipedia.engine import ENGINE

MALLORY = Known("1", "mallory", nick="dave")
"""Took another member's username as her server nickname."""
DAVE = Known("2", "dave")
ERIN_K = Known("3", "erin.k", global_name="the_erin")
ERIN_J = Known("4", "erin.j", global_name="the_erin")
ROB = Known("5", "r_77", global_name="Robert")
ALICE = Known("6", "alice", global_name="Alice", nick="Alice")
SERVER = (MALLORY, DAVE, ERIN_K, ERIN_J, ROB, ALICE)


def test_a_username_nobody_else_goes_by_names_its_member() -> None:
    assert match_member("@mallory", SERVER) == "1"
    assert match_member("@MALLORY", SERVER) == "1", "usernames are compared without case"
    assert match_member("@erin.k", SERVER) == "3"
    assert match_member("@alice", SERVER) == "6", "a member's own display name does not compete with them"
    assert match_member("@r_77,", SERVER) == "5", "punctuation after the name is dropped when no name has it"


def test_a_nickname_equal_to_another_members_username_is_refused_with_both() -> None:
    with pytest.raises(AmbiguousMemberError) as caught:
        match_member("@dave", SERVER)
    assert [c.id for c in caught.value.candidates] == ["2", "1"], "the username's owner first"
    text = str(caught.value)
    assert "dave (`@dave`)" in text
    assert "dave (`@mallory`)" in text
    assert "@ list" in text
    assert "username" in text


def test_a_shared_display_name_is_refused_and_names_are_escaped() -> None:
    with pytest.raises(AmbiguousMemberError) as caught:
        match_member("@the_erin", SERVER)
    assert {c.id for c in caught.value.candidates} == {"3", "4"}
    assert r"the\_erin (`@erin.j`)" in str(caught.value)
    assert r"the\_erin (`@erin.k`)" in str(caught.value)


def test_a_nickname_alone_never_names_a_member() -> None:
    with pytest.raises(AmbiguousMemberError) as caught:
        match_member("@Robert", SERVER)
    assert [c.id for c in caught.value.candidates] == ["5"]
    assert "not a username" in str(caught.value)
    assert "(`@r_77`)" in str(caught.value)


def test_nobody_by_that_name() -> None:
    with pytest.raises(UnknownMemberError) as caught:
        match_member("@zed", SERVER)
    assert caught.value.candidates == ()
    assert str(caught.value).startswith("no member is called `@zed`")
    with pytest.raises(UnknownMemberError):
        match_member("@", SERVER)


def test_a_refusal_lists_a_handful_of_candidates() -> None:
    crowd = [Known(str(n), f"user{n}", nick="sam") for n in range(12)]
    with pytest.raises(AmbiguousMemberError) as caught:
        match_member("@sam", crowd)
    assert len(caught.value.candidates) == 12
    assert str(caught.value).count("(`@user") == MAX_LISTED
    assert "and 7 more" in str(caught.value)


def test_names_in_answers_carry_no_markdown_and_no_mention() -> None:
    assert plain("**big**") == r"\*\*big\*\*"
    assert plain("@everyone") == "@\u200beveryone"
    assert plain("<@123>") == "<@\u200b123>"
    assert len(plain("x" * 100)) <= 32
    assert fold("Ｂｏｂ\u200b") == "bob", "compatibility forms, invisible characters and case do not make a new name"


_NAMES = st.sampled_from(["bob", "Bob", "BOB", "alice", "al ice", "b\u200bob", "ｂｏｂ", "carol", "dave"])


@st.composite
def servers(draw: st.DrawFn) -> list[Known]:
    usernames = draw(st.lists(_NAMES, max_size=6, unique_by=fold))
    return [
        Known(
            str(n),
            username,
            nick=draw(st.none() | _NAMES),
            global_name=draw(st.none() | _NAMES),
        )
        for n, username in enumerate(usernames)
    ]


@given(servers(), _NAMES)
def test_a_typed_name_resolves_only_to_the_one_member_whose_username_it_is_when_nobody_else_shows_it(
    members: list[Known], typed: str
) -> None:
    wanted = fold(typed)
    owners = [m for m in members if fold(m.username) == wanted]
    lookalikes = [m for m in members if m not in owners and any(fold(n) == wanted for n in m.names())]
    if len(owners) != 1 or lookalikes:
        refusal = UnknownMemberError if not owners and not lookalikes else AmbiguousMemberError
        with pytest.raises(refusal) as caught:
            match_member("@" + typed, members)
        assert {c.id for c in caught.value.candidates} == {m.id for m in owners + lookalikes}
        return
    found = match_member("@" + typed, members)
    assert len(owners) == 1
    assert not lookalikes
    assert found == owners[0].id


# --- at a table: the same rule, and the table's own seat names -----------------------------------


def _table(*seats: Seat) -> Table:
    return Table(
        name="wikipedia-1",
        game="wikipedia",
        number=1,
        seed="s",
        host=seats[0].member or "",
        seats=seats,
        opened_at=datetime(2026, 12, 4, tzinfo=UTC),
    )


def _lookup(members: tuple[Known, ...]) -> Callable[[str], str]:
    def resolve(token: str) -> str:
        return match_member(token, members)

    return resolve


# mallory sat down first as "dave"; the real dave got "dave-2"
TABLE = _table(Seat(name="dave", member="1"), Seat(name="dave-2", member="2"), Seat(name="AI-1"))


@pytest.mark.parametrize(
    ("words", "seat"),
    [
        (["@mallory"], "dave"),
        (["<@2>"], "dave-2"),
        (["<@!1>"], "dave"),
        (["@dave-2"], "dave-2"),
        (["@AI-1"], "AI-1"),
        (["ai-1"], "AI-1"),
    ],
)
def test_a_table_names_seats_by_mention_username_or_a_seat_name_nobody_else_has(words: list[str], seat: str) -> None:
    assert seat_for(TABLE, words, _lookup(SERVER)) == seat


@pytest.mark.parametrize("words", [["@dave"], ["dave"], ["@Dave"]])
def test_a_table_refuses_a_name_that_is_one_seat_and_another_members_username(words: list[str]) -> None:
    with pytest.raises(AmbiguousPlayerError) as caught:
        seat_for(TABLE, words, _lookup(SERVER))
    assert "(`@mallory`)" in str(caught.value)
    assert "(`@dave`)" in str(caught.value)


def test_a_table_refuses_members_who_do_not_sit_and_names_nobody_has() -> None:
    with pytest.raises(NotASeatError):
        seat_for(TABLE, ["@erin.k"], _lookup(SERVER))
    with pytest.raises(NotASeatError):
        seat_for(TABLE, ["<@6>"], _lookup(SERVER))
    with pytest.raises(BadCommandError, match="nobody called `zed` sits at this table"):
        seat_for(TABLE, ["@zed"], _lookup(SERVER))
    with pytest.raises(BadCommandError):
        seat_for(TABLE, [], _lookup(SERVER))


def test_a_seat_name_from_a_display_name_works_while_nobody_else_goes_by_it() -> None:
    table = _table(Seat(name="Robert", member="5"), Seat(name="dave", member="2"))
    assert seat_for(table, ["@Robert"], _lookup(SERVER)) == "Robert"
    # robert has since changed his name, and someone else now shows as "Robert"
    renamed = (Known("5", "r_77", global_name="Rob"), Known("7", "imposter", nick="Robert"), DAVE)
    with pytest.raises(AmbiguousPlayerError) as caught:
        seat_for(table, ["@Robert"], _lookup(renamed))
    assert "the seat **Robert**" in str(caught.value)
    assert "Robert (`@imposter`, not at this table)" in str(caught.value)


def test_the_bots_own_menu_text_names_seats_as_the_board_does() -> None:
    assert seat_for(TABLE, ["@dave"], None) == "dave"
    assert seat_for(TABLE, ["@dave-2"], None) == "dave-2"


def test_the_engine_hands_the_player_words_as_typed() -> None:
    seen: list[list[str]] = []

    def players(words: Sequence[str]) -> str:
        seen.append(list(words))
        return "b"

    state = ENGINE.new_game(("a", "b"), None, random.Random(1))
    assert ENGINE.parse_action(state, "a", "!Give 4 to @Bob.Smith", players) == GiveCard(card=4, to="b")
    assert seen == [["@Bob.Smith"]]
