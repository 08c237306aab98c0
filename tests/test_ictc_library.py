"""The card library's transitions: versions, approvals (members, guild votes, committees), protection,
minting, play decks, copies changing hands, first meetings, contests and options."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.ictc import engine
from games.ictc.actions import BeginBattle, CloseReview, CopyMove, MoveCopies
from games.ictc.approvals import next_review
from games.ictc.copies import deck_problems
from games.ictc.errors import CardStateError, NotYoursError, UnknownCardError
from games.ictc.meetings import excluded
from games.ictc.state import STARTER, DesignStatus, ReviewStatus, deck_key
from games.nomic.errors import RuleError

from .ictc_support import Lib, approved, lctx, new_soldier


def refused(lib: Lib, actor: str, text: str, error: type[RuleError] = RuleError, match: str | None = None) -> None:
    before = lib.state
    with pytest.raises(error, match=match):
        lib.do(actor, text)
    assert lib.state is before, "a refused command changes nothing"


# --- drafts, versions --------------------------------------------------------------------------


def test_a_new_card_is_a_private_draft_that_others_cannot_find() -> None:
    lib = Lib()
    number = new_soldier(lib, "alice", "Fire Imp")
    assert lib.said[-1].private
    assert lib.state.designs[number].status is DesignStatus.DRAFT
    refused(lib, "bob", f"!card show #{number}", UnknownCardError, "no card #")
    refused(lib, "bob", "!card show Fire Imp", UnknownCardError, "no card called")
    assert lib.do("alice", "!card show Fire Imp")[0].private
    refused(lib, "alice", "!card new Fire Imp | type: action | cost: R | text: Again.", CardStateError, "already have")


def test_editing_a_rules_field_makes_a_version_and_clears_its_approvals_keeping_the_history() -> None:
    lib = Lib()
    number = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card submit #{number}")
    lib.do("bob", f"!card approve #{number}")
    said = lib.text("alice", f"!card edit #{number} | cost: 2R+1 | cr: 3")
    assert "version 2" in said
    assert "approvals start over" in said
    design = lib.state.designs[number]
    assert [v.number for v in design.versions] == [1, 2]
    assert design.versions[0].approvals == ("bob",), "the history keeps version 1's approval"
    assert design.current.approvals == ()
    assert design.current.fields.cost.text() == "2R+1"
    assert design.current.fields.keywords == ("Haste",), "what the edit leaves out stays"
    assert design.status is DesignStatus.PENDING
    history = lib.text("carol", f"!card history #{number}")
    assert "v1" in history
    assert "v2" in history
    assert "changed cost, cr" in history


def test_a_rename_keeps_the_version_and_its_approvals() -> None:
    lib = Lib()
    number = approved(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card edit #{number} | name: Flame Imp")
    design = lib.state.designs[number]
    assert design.name == "Flame Imp"
    assert len(design.versions) == 1
    assert design.status is DesignStatus.APPROVED
    refused(lib, "alice", f"!card edit #{number} | name: Flame Imp", CardStateError, "changes nothing")


def test_an_old_versions_buttons_are_refused_after_an_edit() -> None:
    lib = Lib()
    number = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card submit #{number}")
    lib.do("alice", f"!card edit #{number} | cr: 3")
    refused(lib, "bob", f"!card approve #{number} v1", CardStateError, "replaced by version 2")
    lib.do("bob", f"!card approve #{number} v2")
    assert lib.state.designs[number].current.approvals == ("bob",)


def test_only_the_maker_edits_submits_and_mints() -> None:
    lib = Lib()
    number = approved(lib, "alice", "Fire Imp")
    refused(lib, "bob", f"!card edit #{number} | cr: 3", NotYoursError)
    refused(lib, "bob", f"!card mint #{number}", NotYoursError)


# --- approvals ---------------------------------------------------------------------------------


def test_two_distinct_members_other_than_the_maker_approve() -> None:
    lib = Lib()
    number = new_soldier(lib, "alice", "Fire Imp")
    refused(lib, "bob", f"!card approve #{number}", UnknownCardError)  # a draft is not shown
    lib.do("alice", f"!card submit #{number}")
    refused(lib, "alice", f"!card approve #{number}", NotYoursError, "your own card")
    lib.do("bob", f"!card approve #{number}")
    refused(lib, "bob", f"!card approve #{number}", CardStateError, "already")
    assert lib.state.designs[number].status is DesignStatus.PENDING
    lib.do("carol", f"!card reject #{number}: too cheap")
    assert lib.state.designs[number].status is DesignStatus.PENDING
    said = lib.text("carol", f"!card approve #{number}")
    assert "is approved by bob and carol" in said
    version = lib.state.designs[number].current
    assert version.approved_by == "players"
    assert version.rejections == ()


def test_a_members_latest_verdict_counts() -> None:
    lib = Lib()
    number = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card submit #{number}")
    lib.do("bob", f"!card approve #{number}")
    lib.do("bob", f"!card reject #{number}: on second thought")
    lib.do("carol", f"!card approve #{number}")
    assert lib.state.designs[number].status is DesignStatus.PENDING
    assert lib.state.designs[number].current.rejections[0].reason == "on second thought"


def test_the_number_of_approvals_is_an_option() -> None:
    lib = Lib()
    lib.do("mod", "!card option approvals_needed 1")
    number = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card submit #{number}")
    lib.do("bob", f"!card approve #{number}")
    assert lib.state.designs[number].status is DesignStatus.APPROVED
    refused(lib, "bob", "!card option approvals_needed 3", NotYoursError, "only moderators")
    refused(lib, "mod", "!card option approvals_needed 0", match="does not suit")
    refused(lib, "mod", "!card option colour red", match="not an option")


def _guild(lib: Lib, mode: str, *members: str, **settings: int) -> None:
    extra = " ".join(f"{k}:{v}" for k, v in settings.items())
    lib.do("gina", f"!guild create Smiths {mode} {extra}".strip())
    for member in members:
        lib.do(member, "!guild join Smiths")


def test_a_guild_committee_approves_with_k_officers() -> None:
    lib = Lib()
    lib.do("mod", "!card option approval guild")
    _guild(lib, "committee", "olga", "pete", committee=2)
    lib.do("gina", "!guild officer Smiths @olga")
    refused(lib, "pete", "!guild officer Smiths @pete", NotYoursError, "officers")
    number = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card submit #{number} guild:Smiths")
    lib.do("pete", f"!card approve #{number}")
    assert lib.state.designs[number].status is DesignStatus.PENDING, "pete is no officer"
    lib.do("gina", f"!card approve #{number}")
    assert lib.state.designs[number].status is DesignStatus.PENDING, "one officer of two"
    said = lib.text("olga", f"!card approve #{number}")
    assert "by the guild Smiths" in said
    version = lib.state.designs[number].current
    assert version.approved_by == "guild:Smiths"
    assert version.review is not None
    assert version.review.status is ReviewStatus.PASSED


def test_a_guild_vote_is_decided_at_its_deadline_by_majority_and_quorum() -> None:
    lib = Lib()
    _guild(lib, "vote", "olga", "pete", "alice", quorum=2, hours=24)
    lib.do("mod", "!card option approval guild")
    number = new_soldier(lib, "alice", "Fire Imp")
    said = lib.text("alice", f"!card submit #{number} guild:Smiths")
    assert "vote with Approve and Reject until" in said
    opened = lib.state.designs[number].current.review
    assert opened is not None
    assert opened.deadline == lib.at + timedelta(hours=24)
    # the deadline in UTC and as Discord timestamps, shown in each reader's time zone, as the round shows its own
    unix = int(opened.deadline.timestamp())
    shown = f"{opened.deadline:%a %Y-%m-%d %H:%M} UTC (<t:{unix}:F>, <t:{unix}:R>)"
    assert f"until {shown}; it passes with at least 2 votes" in said
    assert f"the guild Smiths votes until {shown}" in lib.text("bob", f"!card show #{number}")
    for member in ("olga", "pete", "bob", "carol"):
        lib.do(member, f"!card approve #{number}")
    assert lib.state.designs[number].status is DesignStatus.PENDING, "in guild mode members' approvals do not count"
    lib.do("gina", f"!card reject #{number}")
    deadline, design, version = next_review(lib.state) or (None, 0, 0)
    assert deadline == opened.deadline
    assert design == number
    assert version == 1
    early = engine.apply(
        lib.state, lctx("system", opened.deadline - timedelta(seconds=1)), CloseReview(design=number, version=1)
    )
    assert early.state is lib.state, "not before the deadline"
    step = engine.apply(lib.state, lctx("system", opened.deadline), CloseReview(design=number, version=1))
    result = step.state.designs[number].current
    assert result.approved_by == "guild:Smiths", "olga and pete for, gina against; alice (the maker) does not vote"
    assert result.review is not None
    assert (result.review.yes, result.review.no) == (2, 1)
    assert any(n.to == ("alice",) for n in step.notes), "the maker hears of it"
    assert next_review(step.state) is None
    again = engine.apply(step.state, lctx("system", opened.deadline), CloseReview(design=number, version=1))
    assert again.state is step.state, "counted once"


def test_a_guild_vote_without_quorum_fails() -> None:
    lib = Lib()
    _guild(lib, "vote", "olga", quorum=3, hours=1)
    number = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card submit #{number} guild:Smiths")
    lib.do("olga", f"!card approve #{number}")
    review = lib.state.designs[number].current.review
    assert review is not None
    assert review.deadline is not None
    step = engine.apply(lib.state, lctx("system", review.deadline), CloseReview(design=number, version=1))
    assert "does not approve" in step.notes[0].text
    assert "not enough votes" in step.notes[0].text
    assert step.state.designs[number].status is DesignStatus.PENDING


def test_an_edit_closes_the_guilds_review_of_the_old_version() -> None:
    lib = Lib()
    _guild(lib, "vote", "olga", quorum=1, hours=5)
    number = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card submit #{number} guild:Smiths")
    lib.do("alice", f"!card edit #{number} | cr: 3")
    assert lib.state.designs[number].versions[0].review.status is ReviewStatus.CLOSED  # type: ignore[union-attr]
    assert next_review(lib.state) is None


def test_guild_membership() -> None:
    lib = Lib()
    _guild(lib, "vote", "olga")
    refused(lib, "olga", "!guild join Smiths", CardStateError, "already")
    refused(lib, "gina", "!guild leave Smiths", CardStateError, "last officer")
    refused(lib, "zed", "!guild join Nowhere", UnknownCardError, "no guild called")
    refused(lib, "zed", "!guild create 🔥", match="not `🔥`")
    lib.do("olga", "!guild leave Smiths")
    lib.do("gina", "!guild leave Smiths")
    assert lib.state.guilds == {}, "the last member dissolves it"


# --- protection ----------------------------------------------------------------------------------


def test_up_to_three_protected_designs_chosen_while_drafts_and_unprotecting_is_for_good() -> None:
    lib = Lib()
    drafts = [new_soldier(lib, "alice", f"Imp {name}", text=f"Imp number {name}.") for name in "ABCD"]
    for number in drafts[:3]:
        lib.do("alice", f"!card protect #{number}")
    refused(lib, "alice", f"!card protect #{drafts[3]}", CardStateError, "3 designs already")
    lib.do("alice", f"!card unprotect #{drafts[0]}")
    refused(lib, "alice", f"!card protect #{drafts[0]}", CardStateError, "for good")
    lib.do("alice", f"!card protect #{drafts[3]}")
    lib.do("alice", f"!card submit #{drafts[3]}")
    shown = new_soldier(lib, "alice", "Imp E", text="Imp number E.")
    lib.do("alice", f"!card submit #{shown}")
    refused(lib, "alice", f"!card unprotect #{shown}", CardStateError, "not protected")
    lib.do("alice", f"!card unprotect #{drafts[3]}")
    refused(lib, "alice", f"!card protect #{shown}", CardStateError, "only while it is a private draft")


# --- copies and decks ----------------------------------------------------------------------------


def test_makers_mint_copies_of_approved_designs_up_to_the_limit() -> None:
    lib = Lib()
    number = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card submit #{number}")
    refused(lib, "alice", f"!card mint #{number}", CardStateError, "not approved")
    lib.do("bob", f"!card approve #{number}")
    lib.do("carol", f"!card approve #{number}")
    said = lib.text("alice", f"!card mint #{number} x3")
    assert "copies 1-3" in said
    assert [c.owner for c in lib.state.copies.values()] == ["alice"] * 3
    assert {c.version for c in lib.state.copies.values()} == {1}
    lib.do("mod", "!card option mint_limit 5")
    refused(lib, "alice", f"!card mint #{number} x3", CardStateError, "2 more can be")
    refused(lib, "alice", f"!card mint #{number} x31", match="1 to 30")


def test_a_starter_deck_gives_30_copies_and_a_playable_deck_once() -> None:
    lib = Lib()
    lib.do("alice", "!card starter Ember")
    lib.do("bob", "!card starter Tide")
    assert len(lib.state.copies_of("alice")) == 30
    assert len(lib.state.copies_of("bob")) == 30
    alice_deck = lib.state.decks[deck_key("alice", "Ember")]
    bob_deck = lib.state.decks[deck_key("bob", "Tide")]
    assert deck_problems(lib.state, alice_deck) == []
    assert deck_problems(lib.state, bob_deck) == []
    names = {lib.state.designs[lib.state.copies[c].design].name for c in alice_deck.copies}
    assert names != {lib.state.designs[lib.state.copies[c].design].name for c in bob_deck.copies}
    assert all(lib.state.designs[lib.state.copies[c].design].owner == STARTER for c in alice_deck.copies)
    refused(lib, "alice", "!card starter Grove", CardStateError, "claimed 1 starter deck")
    refused(lib, "carol", "!card starter Nothing", UnknownCardError, "Ember, Grove, Tide")


def test_play_decks_are_checked_against_what_the_owner_holds() -> None:
    lib = Lib()
    lib.do("alice", "!card starter Ember")
    said = lib.text("alice", "!card deck save Quick: Ember Well x10, Flame Hound x3, Fireball x2")
    assert "15 cards" in said
    assert "needs 15 more cards" in said
    assert lib.said[-1].private, "a play deck is for its owner's eyes"
    refused(lib, "alice", "!card deck save Greedy: Flame Hound x6", CardStateError, "5 copies of Flame Hound left")
    refused(lib, "alice", "!card deck save Theirs: Gull Rider x1", UnknownCardError, "no copies of Gull Rider")
    lib.do("bob", "!card starter Tide")
    bobs = lib.state.copies_of("bob")[0].id
    refused(lib, "alice", f"!card deck save Stolen: copy:{bobs}", NotYoursError, "not yours")
    deck = lib.state.decks[deck_key("alice", "Ember")]
    given = deck.copies[:2]
    moved = engine.apply(
        lib.state,
        lctx("system"),
        MoveCopies(moves=tuple(CopyMove(copy_id=c, giver="alice", taker="bob") for c in given)),
    ).state
    problems = deck_problems(moved, moved.decks[deck_key("alice", "Ember")])
    assert any("2 copies are no longer alice's" in p for p in problems)
    assert any("needs 2 more cards" in p for p in problems)


def test_copies_move_all_or_none() -> None:
    lib = Lib()
    lib.do("alice", "!card starter Ember")
    lib.do("bob", "!card starter Tide")
    mine, theirs = lib.state.copies_of("alice")[0].id, lib.state.copies_of("bob")[0].id
    bad = MoveCopies(
        moves=(CopyMove(copy_id=mine, giver="alice", taker="bob"), CopyMove(copy_id=theirs, giver="alice", taker="bob"))
    )
    with pytest.raises(NotYoursError, match=f"card copy {theirs} is not alice's"):
        engine.apply(lib.state, lctx("system"), bad)
    good = MoveCopies(
        moves=(CopyMove(copy_id=mine, giver="alice", taker="bob"), CopyMove(copy_id=theirs, giver="bob", taker="alice"))
    )
    state = engine.apply(lib.state, lctx("system"), good).state
    assert state.copies[mine].owner == "bob"
    assert state.copies[theirs].owner == "alice"
    assert state.copies[mine].origin == "trade"
    with pytest.raises(UnknownCardError):
        engine.apply(lib.state, lctx("system"), MoveCopies(moves=(CopyMove(copy_id=9999, giver="a", taker="b"),)))


# --- first meetings ------------------------------------------------------------------------------


def test_a_first_meeting_shows_the_master_deck_and_logs_exclusions_until_the_battle() -> None:
    lib = Lib()
    storm = approved(lib, "bob", "Storm Hawk", by=("carol", "dave"))
    draft = new_soldier(lib, "bob", "Secret Plan", text="Nobody knows.")
    shown = lib.text("alice", "!card meet @bob")
    assert "Storm Hawk" in shown
    assert "2 approvals" in shown
    assert "Secret Plan" not in shown, "drafts stay private"
    said = lib.text("alice", f"!card exclude @bob #{storm}")
    assert "excludes **Storm Hawk**" in said
    assert "2 approvals, so bob may take it amiss" in said
    refused(lib, "alice", f"!card exclude @bob #{storm}", CardStateError, "already")
    refused(lib, "alice", f"!card exclude @bob #{draft}", UnknownCardError)
    refused(lib, "alice", "!card exclude @alice #1", CardStateError, "two members")
    meeting = next(iter(lib.state.meetings.values()))
    assert [(e.by, e.design) for e in meeting.exclusions] == [("alice", storm)]
    assert excluded(lib.state, "alice", "bob") == {"alice": (), "bob": (storm,)}
    met = engine.apply(lib.state, lctx("system"), BeginBattle(a="bob", b="alice")).state
    assert excluded(met, "alice", "bob") == {"alice": (), "bob": ()}, "only the first battle"
    lib.state = met
    refused(lib, "alice", f"!card include @bob #{storm}", CardStateError, "battled before")
    assert "battled before" in lib.text("alice", "!card meet @bob")


# --- contests ------------------------------------------------------------------------------------


def test_a_protector_contests_and_a_moderator_decides() -> None:
    lib = Lib()
    mine = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card protect #{mine}")
    lib.do("alice", f"!card submit #{mine}")
    theirs = new_soldier(lib, "bob", "Ember Imp", text="A quick imp of living flame that burns the lines.", cr="5")
    lib.do("bob", f"!card submit #{theirs}")
    refused(lib, "carol", f"!card contest #{theirs}", CardStateError, "protect no Soldier")
    said = lib.text("alice", f"!card contest #{theirs}: it is my imp")
    assert "Contest 1" in said
    refused(lib, "alice", f"!card contest #{theirs}", CardStateError, "open already")
    refused(lib, "bob", "!card decide 1 uphold", NotYoursError, "only moderators")
    lib.do("mod", "!card decide 1 uphold copies a protected design")
    assert lib.state.designs[theirs].status is DesignStatus.BLOCKED
    refused(lib, "carol", f"!card approve #{theirs}", CardStateError, "blocked")
    refused(lib, "mod", "!card decide 1 dismiss", CardStateError, "decided already")


def test_where_members_alone_approve_no_guild_is_asked() -> None:
    lib = Lib()
    lib.do("mod", "!card option approval players")
    _guild(lib, "committee")
    number = new_soldier(lib, "alice", "Fire Imp")
    refused(lib, "alice", f"!card submit #{number} guild:Smiths", CardStateError, "approved by members, not guilds")


def test_the_palette_changes_only_while_every_design_fits_it() -> None:
    lib = Lib()
    lib.do("mod", "!card option palette bright")
    refused(lib, "alice", "!card new Dusk | type: action | cost: K | text: Darkness falls.", match="not a colour")
    lib.do("alice", "!card new Sun | type: action | cost: Y | text: The sun shines.")
    lib.do("alice", "!card submit Sun")  # a shown design holds the palette; a draft does not (test_ictc_privacy)
    refused(lib, "mod", "!card option palette classic", CardStateError, "colours the classic palette lacks")
    assert lib.state.options.palette.value == "bright"
