"""Drafts and holdings stay their member's: what anyone else is told never depends on a member's
private drafts (their existence or their content), the earlier versions a design had as a draft, or
which copies another member holds; a refusal about one's own draft goes to its maker alone."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.ictc.state import DesignStatus

from .ictc_support import Lib, approved, new_soldier

ASH = "A grey bird that nests in the embers of old fires."
"""The text of Ash Wing's first public version (its draft before it is drawn by the tests)."""


def _shown_design(lib: Lib, early: str, *, cost: str = "K+3") -> int:
    """Alice's design whose first version was a draft (``early`` its text), the second submitted."""
    number = new_soldier(lib, "alice", "Ash Wing", text=early, cost=cost, cr="1")
    lib.do("alice", f"!card edit #{number} | cost: R+2 | cr: 3 | text: {ASH}")
    lib.do("alice", f"!card submit #{number}")
    return number


# --- the cases found --------------------------------------------------------------------------


def test_a_moderators_palette_change_never_names_a_members_draft_and_the_draft_waits_for_an_edit() -> None:
    lib = Lib()
    draft = new_soldier(lib, "alice", "Dusk Imp", cost="K+1")
    said = lib.answer("mod", "!card option palette bright")
    assert said[0] == "said", "a private draft is its maker's to fit, not the moderators' to be stopped by"
    assert "Dusk" not in str(said)
    assert lib.state.options.palette.value == "bright"
    refused = lib.answer("alice", f"!card submit #{draft}")
    assert refused[0] == "refused"
    assert "colours" in str(refused[2])
    assert refused[3], "the refusal names the draft: to its maker alone"
    assert lib.state.designs[draft].status is DesignStatus.DRAFT
    lib.do("alice", f"!card edit #{draft} | cost: R+1 | colours: R")
    lib.do("alice", f"!card submit #{draft}")
    assert lib.state.designs[draft].status is DesignStatus.PENDING


def test_shown_designs_still_hold_the_palette() -> None:
    lib = Lib()
    shown = new_soldier(lib, "alice", "Dusk Imp", cost="K+1")
    lib.do("alice", f"!card submit #{shown}")
    refused = lib.answer("mod", "!card option palette bright")
    assert refused[0] == "refused"
    assert "Dusk Imp" in str(refused[2])
    assert not refused[3]


def test_minting_ones_own_draft_is_refused_to_its_maker_alone_and_to_others_it_does_not_exist() -> None:
    lib = Lib()
    draft = new_soldier(lib, "alice", "Fire Imp")
    own = lib.answer("alice", f"!card mint #{draft}")
    assert own[0] == "refused"
    assert own[3], "'not approved yet' names the draft: its maker alone reads it"
    missing = draft + 1
    theirs = lib.answer("bob", f"!card mint #{draft}")
    nothing = lib.answer("bob", f"!card mint #{missing}")
    assert theirs == (*(str(x).replace(f"#{missing}", f"#{draft}") for x in nothing[:3]), nothing[3])
    assert lib.answer("bob", "!card mint Fire Imp") == _without_drafts(lib).answer("bob", "!card mint Fire Imp")


def test_every_refusal_about_ones_own_draft_goes_to_its_maker_alone() -> None:
    lib = Lib()
    draft = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card protect #{draft}")
    for command in (
        f"!card protect #{draft}",
        f"!card approve #{draft}",
        f"!card show #{draft} v4",
        "!card exclude @bob Fire Imp",
        f"!card ask #{draft} guild:Nobody",
        f"!card edit #{draft} | cr: 99",
        "!card new Fire Imp | type: action | cost: R | text: Again.",
        "!card deck save Main: Fire Imp x2",
    ):
        said = lib.answer("alice", command)
        assert said[0] == "refused", command
        assert said[3], command
    shown = approved(lib, "bob", "Sea Wolf", by=("carol", "mod"))
    said = lib.answer("bob", f"!card approve #{shown}")
    assert said[0] == "refused"
    assert not said[3], "a refusal about a card everyone sees is answered where it was asked"


def test_an_earlier_draft_version_is_shown_to_its_maker_alone() -> None:
    lib = Lib()
    hidden = "Whispers the plan of the attack to no one at all."
    number = _shown_design(lib, hidden)
    refused = lib.answer("bob", f"!card show #{number} v1")
    assert refused[0] == "refused"
    assert hidden not in str(refused)
    assert "K+3" not in str(refused)
    public = lib.answer("bob", f"!card show #{number} v2")
    assert public[0] == "said"
    assert ASH in str(public)
    assert not public[1][1], "the submitted version is everyone's"
    own = lib.answer("alice", f"!card show #{number} v1")
    assert own[0] == "said"
    assert hidden in str(own)
    assert own[1][1], "its maker sees the draft version, privately"
    assert lib.answer("mod", f"!card show #{number} v1") == refused, "moderators see no member's drafts either"


def test_a_designs_history_shows_others_only_its_versions_since_it_was_submitted() -> None:
    lib = Lib()
    number = _shown_design(lib, "An early idea.")
    lib.do("alice", f"!card edit #{number} | cr: 4")
    history = lib.text("bob", f"!card history #{number}")
    assert "K+3" not in history, "the draft's cost"
    assert "cost R+2" in history
    assert "v2" in history
    assert "v3" in history
    assert "changed cr" in history
    assert "changed cost" not in history, "what changed since the draft is the draft's"
    own = lib.do("alice", f"!card history #{number}")
    assert "K+3" in own[0].text
    assert own[0].private


def test_another_members_copies_are_counted_and_ones_own_listed_privately() -> None:
    lib = Lib()
    lib.do("bob", "!card starter Ember")
    others = lib.do("alice", "!card copies @bob")
    assert not others[0].private
    assert "30" in others[0].text
    names = {d.name for d in lib.state.designs.values() if any(c.design == d.id for c in lib.state.copies_of("bob"))}
    assert not any(name in others[0].text for name in names), "which cards, only bob sees"
    assert "copy:" not in others[0].text, "nor their numbers"
    own = lib.do("bob", "!card copies")
    assert own[0].private
    assert any(name in own[0].text for name in names)
    assert lib.do("bob", "!card copies @bob")[0] == own[0]


# --- the property -----------------------------------------------------------------------------

DRAFT_NAMES = ("Dusk Imp", "Sea Wolf", "Hidden Wyrm")
"""Alice's drafts: one shares its name with Bob's shown card."""
TEXTS = (
    "Burns everything it touches.",
    "A shadow that waits behind the door.",
    "Whispers the plan of the attack to no one at all.",
    "Sings to the moon until it answers.",
)
drafts = st.lists(
    st.tuples(
        st.sampled_from(["soldier", "action"]),
        st.sampled_from(["R", "K+1", "2W", "G+2", "K+X"]),
        st.sampled_from(TEXTS),
        st.booleans(),
        st.booleans(),
    ),
    min_size=len(DRAFT_NAMES),
    max_size=len(DRAFT_NAMES),
)

REFS = ("#24", "#25", "#26", "#27", "#28", "#29", "#30", "#31", *DRAFT_NAMES, "Ash Wing", "Fire Imp", "Dusk Imps")
ABOUT = (
    "!card show {ref}",
    "!card show {ref} v1",
    "!card show {ref} v2",
    "!card history {ref}",
    "!card approve {ref}",
    "!card reject {ref}: too cheap",
    "!card comment {ref}: nice",
    "!card mint {ref}",
    "!card edit {ref} | cr: 3",
    "!card submit {ref}",
    "!card protect {ref}",
    "!card contest {ref}",
    "!card exclude @alice {ref}",
    "!card include @alice {ref}",
    "!card ask {ref} guild:Smiths",
)
PLAIN = (
    "!card list",
    "!card list pending",
    "!card list @alice",
    "!card master @alice",
    "!card meet @alice",
    "!card copies @alice",
    "!card new Hidden Wyrm | type: action | cost: R | script: damage(any, 2) | text: Mine, all mine.",
    "!card submit Hidden Wyrm",
    "!card protect Hidden Wyrm",
    "!card deck save Main: Dusk Imp x1",
)
MODERATORS = (
    "!card option palette bright",
    "!card option palette colourless",
    "!card option palette classic",
    "!card contests",
    "!card decide 1 uphold",
)
commands = st.lists(
    st.one_of(
        st.tuples(
            st.sampled_from(("bob", "carol", "mod")),
            st.builds(str.format, st.sampled_from(ABOUT), ref=st.sampled_from(REFS)),
        ),
        st.tuples(st.sampled_from(("bob", "carol")), st.sampled_from(PLAIN)),
        st.tuples(st.just("mod"), st.sampled_from(MODERATORS)),
    ),
    min_size=1,
    max_size=6,
)


def _library(specs: list[tuple[str, str, str, bool, bool]], early: str) -> Lib:
    """The same public library each time; alice's drafts (and her shown design's draft version) from ``specs``."""
    lib = Lib()
    approved(lib, "alice", "Fire Imp")  # 24
    _shown_design(lib, early)  # 25
    for name, (kind, cost, text, script, protect) in zip(DRAFT_NAMES, specs, strict=True):  # 26 to 28
        fields = f"type: {kind} | cost: {cost} | text: {text}"
        fields += " | cr: 2" if kind == "soldier" else " | script: damage(any, 2)" if script else ""
        lib.do("alice", f"!card new {name} | {fields}")
        if protect:
            lib.do("alice", f"!card protect {name}")
    approved(lib, "bob", "Sea Wolf", by=("carol", "alice"))  # 29
    lib.do("bob", "!card mint #29 x3")
    lib.do("alice", "!card mint #24 x2")
    lib.do("carol", "!guild create Smiths committee")
    return lib


def _without_drafts(lib: Lib) -> Lib:
    """The same library as though alice had never made her drafts (their numbers stay used)."""
    designs = {n: d for n, d in lib.state.designs.items() if d.visible or d.owner != "alice"}
    return Lib(lib.state.model_copy(update={"designs": designs}), lib.at)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drafts, drafts, st.sampled_from(TEXTS), st.sampled_from(TEXTS), commands)
def test_what_others_are_told_never_depends_on_a_members_drafts(
    one: list[Any], two: list[Any], early_one: str, early_two: str, said: list[tuple[str, str]]
) -> None:
    first = _library(one, early_one)
    libraries = (first, _library(two, early_two), _without_drafts(first))
    for actor, command in said:
        answers = [lib.answer(actor, command) for lib in libraries]
        assert answers[1] == answers[0], (actor, command)
        assert answers[2] == answers[0], (actor, command)


HOLDINGS = (
    "!card copies @alice",
    "!card copies",
    "!card meet @alice",
    "!card master @alice",
    "!card deck save Main: copy:3, copy:40",
    "!card deck save Main: Ember Well x1",
    "!card starter",
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(("Ember", "Tide", "Grove")), st.sampled_from(("Ember", "Tide", "Grove")), commands)
def test_what_others_are_told_never_depends_on_which_copies_a_member_holds(
    one: str, two: str, said: list[tuple[str, str]]
) -> None:
    libraries = []
    for deck in (one, two):
        lib = Lib()
        lib.do("alice", f"!card starter {deck}")
        libraries.append(lib)
    for actor, command in [*(("bob", c) for c in HOLDINGS), *said]:
        first, second = (lib.answer(actor, command) for lib in libraries)
        assert first == second, (actor, command)
