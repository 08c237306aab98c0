"""Reading a rule block: words in, a ``Program`` out, or a ``RuleBlockError`` saying what and where.

The language is a fixed set of English phrases (``docs/rule-language.md`` lists them). This is its
own small reader: lines become tokens, indentation makes the bodies of ``when`` and ``if``, and each
phrase is matched word by word. Nothing a member writes is ever evaluated as code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.nomic.cards import Card
from games.nomic.errors import BadCardError, BadInputError
from games.nomic.hands import Category
from games.nomic.items import same_kind_word
from games.nomic.rulelang.program import (
    POINTS,
    ROLES_OF,
    SPM,
    AllOf,
    AmountIs,
    Announce,
    AnyOf,
    BidOn,
    CategoryIs,
    Compare,
    Cond,
    Cost,
    Every,
    Give,
    Holds,
    If,
    IsRole,
    ItemKind,
    Lose,
    Not,
    PhaseIs,
    Placed,
    PlayerCount,
    Program,
    Role,
    Rule,
    Stmt,
    Trigger,
    Use,
    Who,
)
from games.nomic.rulelang.program import Gain as GainStmt

MAX_SOURCE = 3000
"""Characters of a rule block at most."""
MAX_LINES = 80
MAX_DEPTH = 6
"""``if`` inside ``if`` at most this deep."""
MAX_PARENTHESES = 8
MAX_NODES = 400
"""Conditions and statements of a whole block at most."""
MAX_COUNT = 1_000_000
"""The largest number a rule may name."""
MAX_ANNOUNCEMENT = 300
MAX_KIND_NAME = 40
RUN_BUDGET = 200_000
"""Steps one run of one rule may take (a condition tested, an effect made, a player visited)."""
PLANNED_PLAYERS = 5_000
"""A rule whose bound exceeds ``RUN_BUDGET`` at this many players is refused when it is checked."""


class RuleBlockError(BadInputError):
    """A rule block that cannot be read or could run too long; ``line`` and ``column`` count from 1."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"rule block, line {line}, column {column}: {message}")
        self.reason = message
        self.line = line
        self.column = column


# --- tokens -----------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""(?P<space>\s+)
    |(?P<string>["“”][^"“”]*["“”])
    |(?P<ordinal>\d+(?:st|nd|rd|th)\b)
    |(?P<number>\d+)
    |(?P<word>[^\W\d_][\w'’\-]*)
    |(?P<punct>[:(),.])""",
    re.VERBOSE | re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    column: int

    @property
    def word(self) -> str:
        return self.text.casefold().replace("’", "'") if self.kind == "word" else ""


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    indent: int
    tokens: tuple[Token, ...]
    end: int
    """The column just after the line's last character."""


def _lines(source: str) -> list[Line]:
    if len(source) > MAX_SOURCE:
        raise RuleBlockError(f"a rule block is at most {MAX_SOURCE:,} characters", 1, 1)
    raw_lines = source.split("\n")
    if len(raw_lines) > MAX_LINES:
        raise RuleBlockError(f"a rule block is at most {MAX_LINES} lines", MAX_LINES + 1, 1)
    lines: list[Line] = []
    for number, raw in enumerate(raw_lines, start=1):
        text = raw.rstrip()
        stripped = text.lstrip(" ")
        if not stripped.strip() or stripped.startswith("#"):
            continue
        indent = len(text) - len(stripped)
        if stripped[0].isspace():
            raise RuleBlockError("indent with spaces, not tabs", number, indent + 1)
        lines.append(Line(number, indent, tuple(_tokens(text, number, indent)), len(raw) + 1))
    return lines


def _tokens(text: str, number: int, start: int) -> list[Token]:
    tokens: list[Token] = []
    at = start
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            shown = text[at] if text[at].isprintable() else f"U+{ord(text[at]):04X}"
            raise RuleBlockError(f"`{shown}` has no meaning here", number, at + 1)
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append(Token(kind, match.group(), at + 1))
        at = match.end()
    return tokens


# --- words ------------------------------------------------------------------------------------------

_ARTICLES = {"a", "an", "the", "each", "every", "any"}
_TRIGGERS: dict[str, Trigger] = {}
for _trigger, _phrases in (
    (Trigger.AUCTION_STARTS, ("auction phase starts", "auction phase begins", "auction starts", "auction begins")),
    (Trigger.AUCTION_ENDS, ("auction phase ends", "auction ends", "auction phase is over", "auction is over")),
    (Trigger.BARTERING_STARTS, ("bartering phase starts", "bartering phase begins", "bartering starts")),
    (Trigger.PLACEMENTS, ("placements are made", "placements happen", "placements")),
    (Trigger.PLAYER_JOINS, ("player joins",)),
    (Trigger.PLAYER_LEAVES, ("player leaves",)),
    (Trigger.HAND_PRESENTED, ("hand is presented", "player presents hand")),
    (Trigger.LOT_WON, ("lot is won", "lot is sold", "player wins lot")),
    (Trigger.PROPOSAL_PASSES, ("proposal passes",)),
    (Trigger.PROPOSAL_FAILS, ("proposal fails",)),
    (Trigger.RULING_MADE, ("ruling is made", "ruling is given", "judge rules")),
    (Trigger.WEEK_ENDS, ("week ends", "week is over")),
):
    for _phrase in _phrases:
        _TRIGGERS[_phrase] = _trigger

_ROLE_WORDS = {
    "player": Role.PLAYER,
    "presenter": Role.PLAYER,
    "judge": Role.JUDGE,
    "proposer": Role.PROPOSER,
    "author": Role.PROPOSER,
    "winner": Role.WINNER,
    "buyer": Role.WINNER,
}
_NUMBER_WORDS = {
    word: n
    for n, word in enumerate(
        (
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
            "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
        )
    )
}
_ORDINAL_WORDS = {
    word: n
    for n, word in enumerate(
        ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"), start=1
    )
}
_CATEGORY_WORDS: dict[tuple[str, ...], Category] = {
    tuple(c.label.casefold().split()): c for c in Category
}
_CATEGORY_WORDS[("pair",)] = Category.ONE_PAIR
_CATEGORY_WORDS[("two", "pairs")] = Category.TWO_PAIR
_CATEGORY_WORDS[("high", "cards")] = Category.HIGH_CARD
_STOP = {
    "and", "or", "to", "from", "is", "if", "then", "otherwise", "else", "works", "can", "that", "which",
    "who", "gains", "gain", "loses", "lose", "gives", "give", "takes", "take", "not", "when",
}  # fmt: skip
_GAIN = {"gains", "gain", "receives", "receive", "gets", "get"}
_LOSE = {"loses", "lose"}
_GIVE = {"gives", "give"}
_TAKE = {"takes", "take"}
_RESERVED_NAMES = {
    "point", "points", "pts", "pt", "spm", "spms", "nothing", "card", "cards", "copy", "item", "items",
    "standard_proposal_maker", "standard-proposal-maker", "proposal-maker", "proposal-makers",
}  # fmt: skip


class _Cursor:
    """The tokens of one line and a position in them."""

    def __init__(self, line: Line, start: int = 0) -> None:
        self.line = line
        self.tokens = line.tokens
        self.at = start

    @property
    def done(self) -> bool:
        return self.at >= len(self.tokens)

    def peek(self, ahead: int = 0) -> Token | None:
        index = self.at + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def word(self, ahead: int = 0) -> str:
        token = self.peek(ahead)
        return token.word if token is not None else ""

    def column(self) -> int:
        token = self.peek()
        return token.column if token is not None else self.line.end

    def fail(self, message: str) -> RuleBlockError:
        return RuleBlockError(message, self.line.number, self.column())

    def take(self) -> Token:
        token = self.peek()
        if token is None:
            raise self.fail("the line ends too soon")
        self.at += 1
        return token

    def accept(self, *words: str) -> bool:
        """Consume the words in order if the line goes on with exactly them."""
        for ahead, word in enumerate(words):
            if self.word(ahead) != word:
                return False
        self.at += len(words)
        return True

    def accept_any(self, words: set[str] | frozenset[str]) -> str:
        word = self.word()
        if word and word in words:
            self.at += 1
            return word
        return ""

    def expect(self, word: str, message: str) -> None:
        if not self.accept(word):
            raise self.fail(message)

    def punct(self, mark: str) -> bool:
        token = self.peek()
        if token is not None and token.kind == "punct" and token.text == mark:
            self.at += 1
            return True
        return False

    def at_punct(self) -> bool:
        token = self.peek()
        return token is not None and token.kind == "punct"

    def shown(self) -> str:
        token = self.peek()
        return f"`{token.text[:30]}`" if token is not None else "the end of the line"


# --- the parser ------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, source: str) -> None:
        self.lines = _lines(source)
        self.index = 0
        self.nodes = 0
        self.kinds: dict[str, ItemKind] = {}
        self.trigger: Trigger = Trigger.WEEK_ENDS
        self.parens = 0

    def _count_node(self, cur: _Cursor) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise cur.fail(f"a rule block has at most {MAX_NODES} conditions and effects; split it into rules")

    def program(self, source: str) -> Program:
        rules: list[Rule] = []
        if not self.lines:
            raise RuleBlockError("the rule block is empty: write `when ...:` and what happens then", 1, 1)
        base = self.lines[0].indent
        while self.index < len(self.lines):
            line = self.lines[self.index]
            cur = _Cursor(line)
            if line.indent > base:
                raise cur.fail("this line is indented but follows no `when ...:` or `if ...:` line")
            if line.indent < base:
                raise cur.fail("this line is indented less than the block's first line")
            first = cur.word()
            if first == "when":
                rules.append(self.rule(line))
            elif first in {"item", "there", "an", "a", "new"}:
                self.declaration(line)
                self.index += 1
            else:
                raise cur.fail("a rule block is made of `when ...:` rules and `item ...` lines")
        if not rules and not self.kinds:
            raise RuleBlockError("the rule block has no rule", self.lines[0].number, 1)
        costs = tuple(_cost(r.body) for r in rules)
        for rule, cost in zip(rules, costs, strict=True):
            if cost.at(PLANNED_PLAYERS) > RUN_BUDGET:
                raise RuleBlockError(
                    f"this rule could take {cost.at(PLANNED_PLAYERS):,} steps on a server of "
                    f"{PLANNED_PLAYERS:,} players, more than the {RUN_BUDGET:,} a rule may take: "
                    "use fewer `every player` effects or shorter conditions",
                    rule.line,
                    1,
                )
        return Program(source=source, rules=tuple(rules), kinds=tuple(self.kinds.values()), costs=costs)

    # rules and declarations

    def rule(self, line: Line) -> Rule:
        cur = _Cursor(line)
        cur.expect("when", "a rule begins with `when`")
        words: list[str] = []
        start = cur.column()
        while not cur.punct(":"):
            if cur.done:
                raise cur.fail("a trigger ends with `:`, e.g. `when a proposal fails:`")
            token = cur.take()
            if token.kind != "word":
                raise RuleBlockError(f"`{token.text[:30]}` cannot be part of a trigger", line.number, token.column)
            if token.word not in _ARTICLES:
                words.append(token.word)
        trigger = _TRIGGERS.get(" ".join(words))
        if trigger is None:
            known = "; ".join(f"`{t.value}`" for t in Trigger)
            raise RuleBlockError(f"that is not a trigger; triggers are {known}", line.number, start)
        self.trigger = trigger
        self.index += 1
        if not cur.done:
            body: tuple[Stmt, ...] = (self.statement_inline(cur, depth=1),)
        else:
            body = self.body(line.indent, depth=1, after=line)
        return Rule(trigger, body, line.number)

    def declaration(self, line: Line) -> None:
        cur = _Cursor(line)
        cur.accept("there", "is")
        cur.accept_any({"a", "an", "new"})
        cur.accept("new")
        if not cur.accept("item", "kind") and not cur.accept("item"):
            raise cur.fail("an item line reads `item \"NAME\" is a token` (or `works as a Standard Proposal-Maker`"
                           " or `can be redeemed for N points`)")
        cur.accept_any({"called", "named"})
        column = cur.column()
        name = self.kind_name(cur, declaring=True)
        cur.accept_any({"that", "which"})
        cur.punct(",")
        use, points = self.use(cur)
        cur.punct(".")
        if not cur.done:
            raise cur.fail(f"{cur.shown()} is not part of an item line")
        if any(_same_name(name, k) for k in self.kinds):
            raise RuleBlockError(f"the item `{name}` is made twice", line.number, column)
        self.kinds[name] = ItemKind(name, use, points)

    def use(self, cur: _Cursor) -> tuple[Use, int]:
        if cur.accept("is", "a", "token") or cur.accept("is", "just", "a", "token") or cur.accept("does", "nothing"):
            return Use.TOKEN, 0
        if cur.accept("has", "no", "use"):
            return Use.TOKEN, 0
        if cur.accept_any({"works", "counts"}) or cur.accept("can", "be", "used"):
            cur.expect("as", "write `works as a Standard Proposal-Maker`")
            cur.accept_any({"a", "an"})
            if self.builtin_item(cur) != SPM:
                raise cur.fail("an item can work only as a Standard Proposal-Maker")
            return Use.PROPOSAL_MAKER, 0
        if cur.accept("can", "be") and cur.accept_any({"redeemed", "exchanged", "cashed", "traded"}):
            cur.accept("in")
            cur.expect("for", "write `can be redeemed for N points`")
            points = self.count(cur, least=1)
            if not cur.accept_any({"point", "points"}):
                raise cur.fail("an item is redeemed for points: write `can be redeemed for N points`")
            return Use.REDEEMABLE, points
        raise cur.fail(
            "say what the item is: `is a token`, `works as a Standard Proposal-Maker` or `can be redeemed for N points`"
        )

    # bodies and statements

    def body(self, indent: int, depth: int, after: Line) -> tuple[Stmt, ...]:
        if depth > MAX_DEPTH:
            raise RuleBlockError(f"conditions nest at most {MAX_DEPTH} deep", after.number, 1)
        if self.index >= len(self.lines) or self.lines[self.index].indent <= indent:
            raise RuleBlockError("indent the lines that say what happens under this line", after.number, after.end)
        inner = self.lines[self.index].indent
        statements: list[Stmt] = []
        while self.index < len(self.lines):
            line = self.lines[self.index]
            if line.indent <= indent:
                break
            if line.indent > inner:
                raise RuleBlockError(
                    "this line is indented further than the line above it, which is no `if ...:`",
                    line.number,
                    inner + 1,
                )
            if line.indent != inner:
                raise RuleBlockError("this line's indentation matches no line above it", line.number, line.indent + 1)
            statements.append(self.statement(line, inner, depth))
        return tuple(statements)

    def statement(self, line: Line, indent: int, depth: int) -> Stmt:
        """A statement on its own line (an ``if`` takes the indented lines under it)."""
        cur = _Cursor(line)
        if cur.word() != "if":
            self.index += 1
            return self.effect(cur)
        cur.take()
        self._count_node(cur)
        condition = self.condition(cur, in_who=False)
        if not cur.punct(":"):
            raise cur.fail(f"a condition ends with `:`; found {cur.shown()}")
        self.index += 1
        if not cur.done:
            then: tuple[Stmt, ...] = (self.statement_inline(cur, depth + 1),)
        else:
            then = self.body(indent, depth + 1, line)
        otherwise: tuple[Stmt, ...] = ()
        if self.index < len(self.lines) and self.lines[self.index].indent == indent:
            other = _Cursor(self.lines[self.index])
            if other.accept_any({"otherwise", "else"}):
                other.punct(",")
                self.index += 1
                if other.punct(":") and other.done:
                    otherwise = self.body(indent, depth + 1, self.lines[self.index - 1])
                elif not other.done:
                    otherwise = (self.statement_inline(other, depth + 1),)
                else:
                    raise other.fail("write `otherwise:` and indent what happens under it")
        return If(condition, then, otherwise)

    def statement_inline(self, cur: _Cursor, depth: int) -> Stmt:
        """A statement after a colon on the same line: an effect, or an ``if`` with its effect after it."""
        if depth > MAX_DEPTH:
            raise cur.fail(f"conditions nest at most {MAX_DEPTH} deep")
        if cur.accept("if"):
            self._count_node(cur)
            condition = self.condition(cur, in_who=False)
            if not cur.punct(":") or cur.done:
                raise cur.fail("write `if CONDITION: EFFECT` on one line, or indent the effect under the `if`")
            return If(condition, (self.statement_inline(cur, depth + 1),))
        return self.effect(cur)

    def effect(self, cur: _Cursor) -> Stmt:
        self._count_node(cur)
        if cur.accept_any({"announce", "say", "post"}):
            cur.punct(":")
            token = cur.peek()
            if token is None or token.kind != "string":
                raise cur.fail('write the announcement in quotes: `announce "Well played!"`')
            cur.take()
            text = token.text[1:-1].strip()
            if not text:
                raise RuleBlockError("the announcement is empty", cur.line.number, token.column)
            if len(text) > MAX_ANNOUNCEMENT:
                raise RuleBlockError(
                    f"an announcement is at most {MAX_ANNOUNCEMENT} characters", cur.line.number, token.column
                )
            self.end(cur)
            return Announce(text)
        if cur.done or cur.peek() is None:
            raise cur.fail("say what happens, e.g. `the judge gains 20 points`")
        who = self.who(cur, in_who=False)
        verb = cur.word()
        if cur.accept_any(_GAIN):
            count, item = self.amount(cur)
            self.end(cur)
            return GainStmt(who, item, count)
        if cur.accept_any(_LOSE):
            count, item = self.amount(cur)
            self.end(cur)
            return Lose(who, item, count)
        if cur.accept_any(_GIVE | _TAKE):
            count, item = self.amount(cur)
            joiner = "to" if verb in _GIVE else "from"
            if not cur.accept(joiner):
                raise cur.fail(f"say whom: `... {verb} {count} {item} {joiner} the judge`")
            column = cur.column()
            other = self.who(cur, in_who=False)
            self.end(cur)
            giver, receiver = (who, other) if verb in _GIVE else (other, who)
            if isinstance(giver, Every) and isinstance(receiver, Every):
                raise RuleBlockError(
                    "points or items move from one player to many or from many to one, not many to many",
                    cur.line.number,
                    column,
                )
            if giver == receiver and not isinstance(giver, Every):
                raise RuleBlockError("a player cannot give to themselves", cur.line.number, column)
            return Give(giver, receiver, item, count)
        raise cur.fail(f"after whom, say what happens: `gains`, `loses`, `gives` or `takes`; found {cur.shown()}")

    def end(self, cur: _Cursor) -> None:
        cur.punct(".")
        if not cur.done:
            raise cur.fail(f"{cur.shown()} is not part of this line")

    # whom a rule names

    def who(self, cur: _Cursor, *, in_who: bool) -> Who:
        column = cur.column()
        if cur.accept_any({"every", "each", "all"}):
            if not cur.accept_any({"player", "players"}):
                raise cur.fail("write `every player` or `every player who ...`")
            if cur.accept("who"):
                self._count_node(cur)
                return Every(self.condition(cur, in_who=True))
            return Every()
        if in_who and cur.accept_any({"they", "he", "she"}):
            return Role.EACH
        if cur.accept_any({"the", "its", "their"}):
            role = _ROLE_WORDS.get(cur.word())
            if role is not None:
                cur.take()
                if role not in ROLES_OF[self.trigger]:
                    raise RuleBlockError(
                        f"`{role.value}` names nobody when {self.trigger.value}", cur.line.number, column
                    )
                return role
        raise RuleBlockError(
            "name whom: `the player`, `the judge`, `the proposer`, `the winner` or `every player [who ...]`",
            cur.line.number,
            column,
        )

    def subject(self, cur: _Cursor, *, in_who: bool) -> Role:
        who = self.who(cur, in_who=in_who)
        if isinstance(who, Every):
            raise cur.fail("a condition is about one player: `the player`, `the judge`...")
        return who

    # amounts and items

    def count(self, cur: _Cursor, *, least: int) -> int:
        token = cur.peek()
        if token is None:
            raise cur.fail("a number is missing")
        if token.kind == "number":
            cur.take()
            if len(token.text) > 7 or int(token.text) > MAX_COUNT:
                raise RuleBlockError(f"numbers go up to {MAX_COUNT:,}", cur.line.number, token.column)
            value = int(token.text)
        elif token.word in {"a", "an"}:
            cur.take()
            value = 1
        elif token.word in _NUMBER_WORDS:
            cur.take()
            value = _NUMBER_WORDS[token.word]
        elif token.word == "no":
            cur.take()
            value = 0
        else:
            raise cur.fail(f"a number is missing; found {cur.shown()}")
        if value < least:
            raise RuleBlockError(f"the number must be at least {least}", cur.line.number, token.column)
        return value

    def amount(self, cur: _Cursor) -> tuple[int, str]:
        count = self.count(cur, least=1)
        return count, self.item(cur)

    def builtin_item(self, cur: _Cursor) -> str | None:
        if cur.accept_any({"point", "points", "pts"}):
            return POINTS
        if cur.accept_any({"spm", "spms"}):
            return SPM
        if cur.accept("standard", "proposal-maker") or cur.accept("standard", "proposal-makers"):
            return SPM
        if cur.accept("standard", "proposal", "maker") or cur.accept("standard", "proposal", "makers"):
            return SPM
        if cur.accept_any({"proposal-maker", "proposal-makers"}):
            return SPM
        return None

    def item(self, cur: _Cursor) -> str:
        builtin = self.builtin_item(cur)
        if builtin is not None:
            return builtin
        name = self.kind_name(cur, declaring=False)
        for declared in self.kinds:
            if _same_name(name, declared):
                return declared
        return name

    def kind_name(self, cur: _Cursor, *, declaring: bool) -> str:
        token = cur.peek()
        if token is None:
            raise cur.fail("name the item")
        if token.kind == "string":
            cur.take()
            words = token.text[1:-1].split()
        else:
            words = []
            while True:
                nxt = cur.peek()
                if nxt is None or nxt.kind != "word" or nxt.word in _STOP:
                    break
                words.append(cur.take().text)
        name = " ".join(words)
        if not name:
            raise RuleBlockError(f"name the item; found {cur.shown()}", cur.line.number, token.column)
        problem = kind_name_problem(name) if declaring else None
        if problem is None and len(name) > MAX_KIND_NAME:
            problem = f"an item's name is at most {MAX_KIND_NAME} characters"
        if problem is not None:
            raise RuleBlockError(problem, cur.line.number, token.column)
        return name

    # conditions

    def condition(self, cur: _Cursor, *, in_who: bool) -> Cond:
        parts = [self.conjunction(cur, in_who=in_who)]
        while cur.accept("or"):
            self._count_node(cur)
            parts.append(self.conjunction(cur, in_who=in_who))
        return parts[0] if len(parts) == 1 else AnyOf(tuple(parts))

    def conjunction(self, cur: _Cursor, *, in_who: bool) -> Cond:
        parts = [self.factor(cur, in_who=in_who)]
        while cur.accept("and"):
            self._count_node(cur)
            parts.append(self.factor(cur, in_who=in_who))
        return parts[0] if len(parts) == 1 else AllOf(tuple(parts))

    def factor(self, cur: _Cursor, *, in_who: bool) -> Cond:
        self._count_node(cur)
        if cur.accept("not") or cur.accept("it", "is", "not", "true", "that"):
            return Not(self.factor(cur, in_who=in_who))
        column = cur.column()
        if cur.punct("("):
            self.parens += 1
            if self.parens > MAX_PARENTHESES:
                raise RuleBlockError(f"parentheses nest at most {MAX_PARENTHESES} deep", cur.line.number, column)
            inner = self.condition(cur, in_who=in_who)
            if not cur.punct(")"):
                raise cur.fail("a `(` is not closed")
            self.parens -= 1
            return inner
        return self.simple(cur, in_who=in_who)

    def simple(self, cur: _Cursor, *, in_who: bool) -> Cond:
        column = cur.column()
        if (cur.word() in {"its", "the"} and cur.accept(cur.word(), "category")) or cur.accept(
            "the", "hand's", "category"
        ):
            if self.trigger is not Trigger.HAND_PRESENTED:
                raise RuleBlockError(
                    "a hand's category is known only when a hand is presented", cur.line.number, column
                )
            cur.expect("is", "write `its category is five of a kind`")
            return self.category(cur)
        if cur.accept("the", "phase", "is") or cur.accept("it", "is"):
            cur.accept("the")
            phase = cur.accept_any({"auction", "bartering"})
            if not phase:
                raise cur.fail("the phase is `auction` or `bartering`")
            cur.accept("phase")
            return PhaseIs(phase)
        if cur.accept("there", "are") or cur.accept("there", "is"):
            compare = self.compare(cur)
            count = self.count(cur, least=0)
            if not cur.accept_any({"player", "players"}):
                raise cur.fail("write `there are at least N players`")
            return PlayerCount(compare, count)
        if cur.accept("the", "number", "of", "players", "is"):
            compare = self.compare(cur)
            return PlayerCount(compare, self.count(cur, least=0))
        if cur.word() in {"the", "its"} and cur.word(1) in {"amount", "price"}:
            cur.take()
            cur.take()
            if self.trigger is not Trigger.LOT_WON:
                raise RuleBlockError("an amount is known only when a lot is won", cur.line.number, column)
            cur.expect("is", "write `the amount is at least N`")
            compare = self.compare(cur)
            return AmountIs(compare, self.count(cur, least=0))
        if in_who and cur.word() in _PREDICATE_WORDS:
            return self.predicate(cur, Role.EACH)
        subject = self.subject(cur, in_who=in_who)
        return self.predicate(cur, subject)

    def predicate(self, cur: _Cursor, subject: Role) -> Cond:
        negate = False
        if cur.accept("does", "not") or cur.accept("do", "not") or cur.accept("did", "not"):
            negate = True
        condition = self.plain_predicate(cur, subject, negated=negate)
        return Not(condition) if negate else condition

    def plain_predicate(self, cur: _Cursor, subject: Role, *, negated: bool) -> Cond:
        if cur.accept_any({"has", "have", "holds", "hold", "owns", "own", "possesses"}):
            if cur.accept("bid", "on"):
                return self.bid_on(cur, subject)
            if cur.accept("any") or cur.accept("a") or cur.accept("an"):
                return Holds(subject, self.item(cur), Compare.AT_LEAST, 1)
            compare = self.compare(cur)
            count = self.count(cur, least=0)
            return Holds(subject, self.item(cur), compare, count)
        if cur.accept_any({"bid", "bids"}):
            cur.expect("on", "write `bid on no lot` or `bid on at least N lots`")
            return self.bid_on(cur, subject)
        if cur.accept_any({"placed", "place", "was"}):
            cur.accept("placed")
            return self.placed(cur, subject, negated=negated)
        if cur.accept("is"):
            negate = cur.accept("not")
            cur.expect("the", "write `is the judge` (or the proposer, the winner, the player)")
            role = _ROLE_WORDS.get(cur.word())
            if role is None:
                raise cur.fail("write `is the judge` (or the proposer, the winner, the player)")
            column = cur.column()
            cur.take()
            if role not in ROLES_OF[self.trigger]:
                raise RuleBlockError(f"`{role.value}` names nobody when {self.trigger.value}", cur.line.number, column)
            found: Cond = IsRole(subject, role)
            return Not(found) if negate else found
        raise cur.fail(
            f"say what is true of them: `has at least N points`, `is the judge`, `bid on no lot`, `placed 1st`;"
            f" found {cur.shown()}"
        )

    def bid_on(self, cur: _Cursor, subject: Role) -> Cond:
        if cur.accept("no"):
            if not cur.accept_any({"lot", "lots"}):
                raise cur.fail("write `bid on no lot`")
            return BidOn(subject, Compare.EXACTLY, 0)
        if cur.accept_any({"a", "any"}):
            if not cur.accept_any({"lot", "lots"}):
                raise cur.fail("write `bid on a lot`")
            return BidOn(subject, Compare.AT_LEAST, 1)
        compare = self.compare(cur)
        count = self.count(cur, least=0)
        if not cur.accept_any({"lot", "lots"}):
            raise cur.fail("write `bid on at least N lots`")
        return BidOn(subject, compare, count)

    def placed(self, cur: _Cursor, subject: Role, *, negated: bool) -> Cond:
        if cur.accept("in", "the", "top"):
            return Placed(subject, Compare.AT_MOST, self.count(cur, least=1))
        token = cur.peek()
        place = 0
        if token is not None and token.kind == "ordinal":
            cur.take()
            place = int(token.text[:-2]) if len(token.text) < 9 else MAX_COUNT + 1
            if place < 1 or place > MAX_COUNT:
                raise RuleBlockError(f"places go from 1st to {MAX_COUNT:,}th", cur.line.number, token.column)
        elif token is not None and token.word in _ORDINAL_WORDS:
            cur.take()
            place = _ORDINAL_WORDS[token.word]
        elif negated or cur.done or cur.word() in {"and", "or"} or cur.at_punct():
            # `did not place`: no place at all; `placed` alone: some place
            return Placed(subject, Compare.NOT, 0)
        else:
            raise cur.fail("write `placed 1st`, `placed 3rd or better` or `placed in the top 3`")
        if cur.accept("or", "better") or cur.accept("or", "higher"):
            return Placed(subject, Compare.AT_MOST, place)
        if cur.accept("or", "worse") or cur.accept("or", "lower"):
            return Placed(subject, Compare.AT_LEAST, place)
        return Placed(subject, Compare.EXACTLY, place)

    def category(self, cur: _Cursor) -> Cond:
        compare = Compare.EXACTLY
        if cur.accept("not"):
            compare = Compare.NOT
        elif cur.accept("at", "least"):
            compare = Compare.AT_LEAST
        elif cur.accept("better", "than"):
            compare = Compare.MORE_THAN
        elif cur.accept("at", "most"):
            compare = Compare.AT_MOST
        elif cur.accept("worse", "than"):
            compare = Compare.FEWER_THAN
        cur.accept_any({"a", "an"})
        best: tuple[int, Category] | None = None
        for words, category in _CATEGORY_WORDS.items():
            if all(cur.word(i) == w for i, w in enumerate(words)) and (best is None or len(words) > best[0]):
                best = (len(words), category)
        if best is None:
            names = ", ".join(c.label.lower() for c in Category)
            raise cur.fail(f"that is not a hand category; they are {names}")
        cur.at += best[0]
        return CategoryIs(compare, int(best[1]))

    def compare(self, cur: _Cursor) -> Compare:
        if cur.accept("at", "least") or cur.accept("no", "fewer", "than") or cur.accept("no", "less", "than"):
            return Compare.AT_LEAST
        if cur.accept("at", "most") or cur.accept("no", "more", "than"):
            return Compare.AT_MOST
        if cur.accept("more", "than") or cur.accept("over"):
            return Compare.MORE_THAN
        if cur.accept("fewer", "than") or cur.accept("less", "than") or cur.accept("under"):
            return Compare.FEWER_THAN
        cur.accept("exactly")
        return Compare.EXACTLY


_PREDICATE_WORDS = {
    "has", "have", "holds", "hold", "owns", "own", "possesses", "bid", "bids", "placed", "place", "was", "is",
    "does", "do", "did",
}  # fmt: skip


def _same_name(typed: str, name: str) -> bool:
    typed_words, words = typed.split(), name.split()
    if len(typed_words) != len(words):
        return False
    return all(same_kind_word(t, w) for t, w in zip(typed_words, words, strict=True))


def kind_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an item kind (it must read unmistakably in commands), or None."""
    if len(name) > MAX_KIND_NAME:
        return f"an item's name is at most {MAX_KIND_NAME} characters"
    words = name.split()
    if not words:
        return "an item needs a name"
    if _same_name(name, SPM) or name.casefold() in {"standard proposal maker", "proposal-maker"}:
        return "that is the Standard Proposal-Maker's name"
    for word in words:
        low = word.casefold()
        if not re.fullmatch(r"[^\W\d_][\w'’\-]*", word):
            return f"`{word[:20]}` cannot be part of an item's name: use letters, digits, `-` and `'`"
        if low in _RESERVED_NAMES or low in _STOP or low in _NUMBER_WORDS or low in {"a", "an", "the", "no"}:
            return f"`{word}` cannot be part of an item's name: it has a meaning of its own in commands"
        try:
            Card.parse(word)
        except BadCardError:
            continue
        return f"`{word}` cannot be part of an item's name: it reads as a card"
    return None


def _cond_size(cond: Cond) -> int:
    if isinstance(cond, Not):
        return 1 + _cond_size(cond.inner)
    if isinstance(cond, AllOf | AnyOf):
        return 1 + sum(_cond_size(p) for p in cond.parts)
    return 1


def _who_cost(who: Who) -> Cost:
    """Finding whom an effect names: one step, and for each player of ``every`` one and its condition's."""
    if isinstance(who, Every):
        return Cost(1, 1 + (_cond_size(who.who) if who.who is not None else 0))
    return Cost(1, 0)


def _targets(who: Who) -> Cost:
    """How many players an effect may name: one, or each player."""
    return Cost(0, 1) if isinstance(who, Every) else Cost(1, 0)


def _cost(body: tuple[Stmt, ...]) -> Cost:
    """An upper bound on the steps a body takes: what ``run`` counts, statement by statement."""
    total = Cost()
    for stmt in body:
        if isinstance(stmt, If):
            total = total + Cost(_cond_size(stmt.condition)) + _cost(stmt.then) + _cost(stmt.otherwise)
        elif isinstance(stmt, GainStmt | Lose):
            total = total + _who_cost(stmt.who) + _targets(stmt.who)
        elif isinstance(stmt, Give):
            # never many to many (refused when read): the pairs are as many as the one side's players
            pairs = _targets(stmt.giver) if isinstance(stmt.giver, Every) else _targets(stmt.receiver)
            total = total + _who_cost(stmt.giver) + _who_cost(stmt.receiver) + pairs
        else:
            total = total + Cost(1)
    return total


def check_block(source: str) -> Program:
    """The program a rule block says, or a ``RuleBlockError`` with the line and column of the problem."""
    return _Parser(source).program(source)
