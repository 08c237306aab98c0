"""``python -m bot export-wiki GUILD``: the ruleset document and the week's tables as MediaWiki markup.

Made from the same page data as the web record (so it shows exactly what the site shows, and nothing
hidden), for communities that keep their game on a wiki and paste the state in. Every text a member
wrote is escaped and put in ``<nowiki>``, so no proposal can inject markup into the wiki.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from bot.web import pages
from bot.web.render import card, stamp
from bot.web.site import NotFound, Site
from data.base import Target
from data.read_store import ReadStore
from games.nomic.service import RoundService

SECTIONS = (("ruleset", "ruleset"), ("history", "ruleset/history"), ("week", "week"), ("players", "players"))
"""The pages the export is made of: (key, the page's address under the guild)."""
BOLD = "'''{}'''"
"""Bold in wiki markup: a value the bot enforces."""


def text(value: object) -> str:
    """A value as plain wiki text: nothing in it is read as markup."""
    shown = "" if value is None else str(value)
    return f"<nowiki>{html.escape(shown, quote=False)}</nowiki>" if shown else ""


def cards(codes: Sequence[str]) -> str:
    return text(" ".join(card(c) for c in codes))


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A sortable ``wikitable``; cells must already be wiki text."""
    out = ['{| class="wikitable sortable"', "! " + " !! ".join(headers)]
    for row in rows:
        out.append("|-")
        out.append("| " + " || ".join(cell or " " for cell in row))
    out.append("|}")
    return out


def _prize(row: dict[str, Any]) -> str:
    parts = [row["prize"]] if row.get("prize") else []
    if row.get("cards_returned"):
        parts.append("cards back")
    return text("; ".join(parts))


def rule_markup(rule: dict[str, Any]) -> list[str]:
    """A rule of the document: its heading, its text with the values the bot enforces in bold, what it binds,
    its mechanics (a rule block, as a preformatted block) and the rulings that cite it."""
    parts = rule["parts"]
    said = "".join(BOLD.format(text(part["value"])) if "option" in part else text(part["text"]) for part in parts)
    out = [f"==== {text(rule['number'])} {text(rule['title'])} ====", said]
    if rule["binds"]:
        bound = "; ".join(f"{text(b['label'])} ({text(b['option'])}) = {text(b['value'])}" for b in rule["binds"])
        out.append(f"''Enforced by the bot: {bound}.''")
    if rule["mechanics"]:
        out.extend(["''Its mechanics, a rule block the bot carries out:''", f"<pre>{html.escape(rule['block'])}</pre>"])
    out.extend(f"* Cited by request {r['number']} ({text(r['status'])}): {text(r['excerpt'])}" for r in rule["rulings"])
    return out


def ruleset_markup(ruleset: pages.Page, history: pages.Page) -> list[str]:
    """The rules in force as a document, the moderators' open to-do items, every option, and the versions."""
    data = ruleset.data
    made = data.get("made")
    document = data["document"]
    line = f"{text(document['title'])}: ruleset {text(data['name'])}, version {data['version']}"
    if made:
        line += f", made {text(stamp(made['at']))} by {text(made['by']['text'])}"
        if made.get("change"):
            line += f" ({text(made['change'])})"
    out = ["== The ruleset in force ==", line + "."]
    if document["intro"]:
        out.append(text(document["intro"]))
    for section in document["sections"]:
        out.append(f"=== {section['number']}. {text(section['title'])} ===")
        for rule in section["rules"]:
            out.extend(rule_markup(rule))
    out.append("== The moderators' to-do list ==")
    for item in data["todo"]:
        out.append(f"# From proposal {item['proposal']}, passed {text(stamp(item['at']))}:")
        out.extend(f"#* {text(line)}" for line in item["lines"])
    if not data["todo"]:
        out.append("Nothing to do.")
    out.append("== The options the bot enforces ==")
    for section in data["sections"]:
        out.append(f"=== {text(section['title'])} ===")
        rows = [[text(o["option"]), BOLD.format(text(o["value"])), text(o["meaning"])] for o in section["options"]]
        out.extend(table(["Option", "Value", "Meaning"], rows))
    out.append("== Ruleset history ==")
    rows = [
        [
            f"v{v['version']}",
            text(stamp(v["at"])),
            text(v["by"]["text"]),
            text(v["change"]),
            text(", ".join(r["number"] + ("" if r["fate"] == "changed" else f" ({r['fate']})") for r in v["rules"])),
        ]
        for v in history.data["versions"]
    ]
    out.extend(table(["Version", "Made", "By", "Change", "Rules"], rows))
    return out


def week_markup(week: pages.Page) -> list[str]:
    data = week.data
    now = data["now"]
    phase = f"The {text(now['phase'])} phase ends {text(stamp(now['ends']))}"
    out = ["== This week ==", f"{phase} ({text(now['time_left'])} left, as of {text(stamp(now['as_of']))})."]
    judge = data.get("judge")
    out.append(f"Judge: {text(judge['name']) if judge else 'nobody'}.")
    out.append(f"=== Lots ({len(data['lots'])} of {data['lots_per_auction']}) ===")
    rows = [
        [
            str(lot["number"]),
            cards(lot["cards"]),
            text(f"{lot['high_bid']['amount']} by {lot['high_bid']['name']}")
            if lot["high_bid"]
            else ("sealed until the auction ends" if lot.get("sealed") else "none"),
            str(lot["bids"]),
        ]
        for lot in data["lots"]
    ]
    out.extend(table(["Lot", "Cards", "Highest valid bid", "Bids"], rows) if rows else ["No lots."])
    out.append("=== Hands presented ===")
    rows = [[text(h["name"]), cards(h["cards"]), text(h["category"])] for h in data["hands"]]
    out.extend(table(["Player", "Hand", "Category"], rows) if rows else ["None."])
    out.append("=== The last placements ===")
    rows = [
        [str(r["place"]), text(r["name"]), cards(r["cards"]), text(r["category"]), _prize(r)]
        for r in data["placements"]
    ]
    out.extend(table(["Place", "Player", "Hand", "Category", "Prize"], rows) if rows else ["None yet."])
    return out


def players_markup(players: pages.Page) -> list[str]:
    rows = [
        [text(p["name"]), str(p["points"]), str(p["cards"]), str(p["spm"]), str(p["placements_won"])]
        for p in players.data["players"]
    ]
    head = ["Player", "Points", "Cards held", "Standard Proposal-Makers", "Prizes"]
    return ["== Players ==", *(table(head, rows) if rows else ["Nobody has joined yet."])]


def export(guild: pages.GuildHead, parts: dict[str, pages.Page], at: datetime) -> str:
    """The whole export: a line saying where it comes from, then each section."""
    out = [f"''The round of {text(guild.name)} as of {text(stamp(at))}, exported by the bot.''", ""]
    out += ruleset_markup(parts["ruleset"], parts["history"])
    out += ["", *week_markup(parts["week"])]
    out += ["", *players_markup(parts["players"])]
    return "\n".join(out) + "\n"


async def export_guild(
    db: Path | Target, guild: str, *, out: IO[str] = sys.stdout, errors: IO[str] = sys.stderr
) -> int:
    """Write the guild's export; 2 when the database holds no such guild."""
    read = await ReadStore.open(db)
    try:
        site = Site(read, RoundService(read), live=False)
        if guild not in await read.guilds():
            known = ", ".join(await read.guilds()) or "none"
            print(f"no round of the server {guild!r} in {db} (servers there: {known})", file=errors)
            return 2
        head, state, _ = await site.guild_any(guild)
        now = await site.now(guild, state)
        parts = {}
        for key, path in SECTIONS:
            try:
                parts[key] = await site.guild_page(head, state, path.split("/"))
            except NotFound:
                print(f"could not read {path} of {guild!r}", file=errors)
                return 2
        out.write(export(head, parts, now.astimezone(UTC)))
        return 0
    finally:
        await read.close()
