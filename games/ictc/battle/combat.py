"""Combat: the charge (attackers and their targets), the defence (blockers), and the damage.

Each attacker targets the defending player or one of their Soldiers and is tapped (unless
Vigilant). Each ready defender may block one attacker, any attacker (one with Flight only if the
blocker has Flight or Reach). A blocked attacker fights its blockers; an unblocked one hits its
target, and a targeted Soldier hits back. Every Soldier deals its CR once, split among the Soldiers
it fights by its controller (the attacker's side chooses first); damage does not roll over, except
that a blocked attacker with Pierce may send what is left, once each blocker has lethal damage, on
to what it attacked. Armor N prevents the first N damage a Soldier takes in the combat. All damage
lands at once; then Soldiers whose damage reaches their CR die.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.ictc.battle.effects import player_ref
from games.ictc.battle.state import PLAYER, Attack, BattleState, Combat
from games.ictc.battle.table import Run, armor_of, cr_of, has, is_soldier, must, restricted, soldiers, target_words
from games.tables.engine import IllegalActionError

Share = tuple[str, int]


def can_attack(state: BattleState, card: int) -> bool:
    perm = state.permanent(card)
    return (
        perm is not None
        and is_soldier(state, card)
        and not perm.tapped
        and (not perm.new or has(state, card, "haste"))
        and not restricted(state, card, "cannot_attack")
        and cr_of(state, card) > 0
    )


def can_block(state: BattleState, blocker: int, attacker: int) -> bool:
    perm = state.permanent(blocker)
    if perm is None or perm.tapped or not is_soldier(state, blocker) or restricted(state, blocker, "cannot_block"):
        return False
    return not has(state, attacker, "flight") or has(state, blocker, "flight") or has(state, blocker, "reach")


def check_attack(state: BattleState, seat: int, attacks: Sequence[tuple[int, str]]) -> None:
    if not attacks:
        raise IllegalActionError("name at least one attacker (or end your turn with !end)")
    seen: set[int] = set()
    enemy = soldiers(state, 1 - seat)
    for card, target in attacks:
        if card in seen:
            raise IllegalActionError(f"#{card} is named twice")
        seen.add(card)
        if state.permanent(card) is None or state.controller(card) != seat or not is_soldier(state, card):
            raise IllegalActionError(f"#{card} is not a Soldier of yours in play")
        if not can_attack(state, card):
            raise IllegalActionError(f"{target_words(state, str(card))} cannot attack now ({_why_not(state, card)})")
        if target == player_ref(1 - seat):
            continue
        if not target.isdigit() or int(target) not in enemy:
            raise IllegalActionError(
                f"an attacker targets {state.seats[1 - seat]} or one of their Soldiers, not {_ref(state, target)}"
            )


def _ref(state: BattleState, target: str) -> str:
    if target.startswith(PLAYER) or (target.isdigit() and 1 <= int(target) <= len(state.cards)):
        return target_words(state, target)
    return f"`{target[:20]}`"


def _why_not(state: BattleState, card: int) -> str:
    perm = state.permanent(card)
    if perm is not None and perm.tapped:
        return "it is tapped"
    if perm is not None and perm.new and not has(state, card, "haste"):
        return "it came into play this turn and has no Haste"
    if restricted(state, card, "cannot_attack"):
        return "it cannot attack"
    return "its CR is 0"


def declare(run: Run, seat: int, attacks: Sequence[tuple[int, str]]) -> None:
    for card, _ in attacks:
        if not has(run.state, card, "vigilant"):
            run.change_perm(card, tapped=True)
    combat = Combat(attacks=tuple(Attack(attacker=c, target=t) for c, t in attacks))
    run.update(combat=combat)
    lines = ", ".join(f"{run.words(c)} → {target_words(run.state, t)}" for c, t in attacks)
    run.say("combat.attack", seat=run.seat(seat), attacks=lines)


def check_blocks(state: BattleState, seat: int, blocks: Sequence[tuple[int, int]]) -> None:
    combat = state.combat
    if combat is None:
        raise IllegalActionError("there is no attack to block")
    attackers = {a.attacker for a in combat.attacks}
    seen: set[int] = set()
    for blocker, attacker in blocks:
        if blocker in seen:
            raise IllegalActionError(f"#{blocker} blocks once")
        seen.add(blocker)
        if state.permanent(blocker) is None or state.controller(blocker) != seat:
            raise IllegalActionError(f"#{blocker} is not a Soldier of yours in play")
        if attacker not in attackers:
            raise IllegalActionError(f"#{attacker} is not attacking")
        if not can_block(state, blocker, attacker):
            raise IllegalActionError(
                f"{target_words(state, str(blocker))} cannot block {target_words(state, str(attacker))}"
            )


def blockable(state: BattleState) -> bool:
    """Whether any defender can block any attacker now."""
    combat = state.combat
    if combat is None:
        return False
    defender = 1 - state.active
    return any(can_block(state, b, a.attacker) for b in soldiers(state, defender) for a in combat.attacks)


def declare_blocks(run: Run, seat: int, blocks: Sequence[tuple[int, int]]) -> None:
    combat = must(run.state.combat)
    attacks = tuple(
        a.model_copy(update={"blockers": tuple(b for b, t in blocks if t == a.attacker)}) for a in combat.attacks
    )
    run.update(combat=combat.model_copy(update={"attacks": attacks, "blocked": True}))
    if blocks:
        lines = ", ".join(f"{run.words(b)} blocks {run.words(a)}" for b, a in blocks)
        run.say("combat.blocks", seat=run.seat(seat), blocks=lines)
    else:
        run.say("combat.no_blocks", seat=run.seat(seat))


# --- damage -------------------------------------------------------------------------------------


def fights(state: BattleState) -> dict[int, list[str]]:
    """Each Soldier in the combat and what it deals damage to (Soldiers' numbers as text, or a player)."""
    combat = state.combat
    out: dict[int, list[str]] = {}
    if combat is None:
        return out
    for attack in combat.attacks:
        a = attack.attacker
        if state.permanent(a) is None:
            continue
        blockers = [b for b in attack.blockers if state.permanent(b) is not None]
        if attack.blockers:
            out.setdefault(a, []).extend(str(b) for b in blockers)
            for b in blockers:
                out.setdefault(b, []).append(str(a))
        elif attack.target.startswith(PLAYER):
            out.setdefault(a, []).append(attack.target)
        elif state.permanent(int(attack.target)) is not None:
            target = int(attack.target)
            out.setdefault(a, []).append(attack.target)
            out.setdefault(target, []).append(str(a))
    return out


def pierce_target(state: BattleState, dealer: int) -> str | None:
    """Where a blocked attacker with Pierce may send what is left: its target, if it is still there."""
    combat = state.combat
    if combat is None or not has(state, dealer, "pierce"):
        return None
    attack = next((a for a in combat.attacks if a.attacker == dealer), None)
    if attack is None or not attack.blockers:
        return None
    if attack.target.startswith(PLAYER) or state.permanent(int(attack.target)) is not None:
        return attack.target
    return None


def lethal(state: BattleState, victim: str) -> int:
    """Damage that kills a Soldier now (its Armor and shield counted); a player takes all."""
    if victim.startswith(PLAYER):
        return 10**6
    card = int(victim)
    perm = state.permanent(card)
    if perm is None:
        return 0
    armor = max(0, armor_of(state, card) - perm.armor_used)
    return max(1, cr_of(state, card) - perm.damage) + armor + perm.shield


def needs_split(state: BattleState, dealer: int, victims: list[str]) -> bool:
    if cr_of(state, dealer) <= 0:
        return False
    return len(victims) > 1 or (
        pierce_target(state, dealer) is not None and cr_of(state, dealer) > lethal(state, victims[0])
    )


def to_split(state: BattleState, seat: int) -> list[int]:
    """The Soldiers of ``seat`` whose damage its controller must split now."""
    return [d for d, v in fights(state).items() if state.controller(d) == seat and needs_split(state, d, v)]


def auto_split(state: BattleState, dealer: int, victims: list[str]) -> list[Share]:
    """Lethal damage to each in turn; what is left to the Pierce target, else to the last one."""
    left = cr_of(state, dealer)
    shares: list[Share] = []
    for victim in victims:
        if left <= 0:
            break
        n = min(left, lethal(state, victim))
        shares.append((victim, n))
        left -= n
    if left > 0:
        extra = pierce_target(state, dealer)
        if extra is not None:
            shares.append((extra, left))
        elif shares:
            last, n = shares[-1]
            shares[-1] = (last, n + left)
    return shares


def check_split(state: BattleState, seat: int, splits: Sequence[tuple[int, Sequence[Share]]]) -> None:
    wanted = set(to_split(state, seat))
    given = {d for d, _ in splits}
    if given - wanted:
        extra = ", ".join(f"#{d}" for d in sorted(given - wanted))
        raise IllegalActionError(f"only Soldiers of yours that fight several split their damage ({extra} do not)")
    table = fights(state)
    for dealer, shares in splits:
        victims = table[dealer]
        total = sum(n for _, n in shares)
        cr = cr_of(state, dealer)
        if total != cr or any(n < 0 for _, n in shares):
            raise IllegalActionError(f"{target_words(state, str(dealer))} deals {cr} in all, not {total}")
        allowed = set(victims)
        onward = pierce_target(state, dealer)
        for victim, n in shares:
            if victim in allowed or n == 0:
                continue
            if victim == onward and all(dict(shares).get(v, 0) >= lethal(state, v) for v in victims):
                continue
            raise IllegalActionError(f"{target_words(state, str(dealer))} does not fight {_ref(state, victim)}")


def resolve(run: Run) -> None:
    """All of the combat's damage at once, then deaths."""
    state = run.state
    combat = must(state.combat)
    for seat in (0, 1):
        for perm in run.side(seat).play:
            if perm.armor_used:
                run.change_perm(perm.card, armor_used=0)
    state = run.state
    chosen = dict(combat.splits)
    totals: dict[str, int] = {}
    lines: list[str] = []
    for dealer, victims in fights(state).items():
        shares = list(chosen.get(dealer, ())) or (
            auto_split(state, dealer, victims)
            if needs_split(state, dealer, victims)
            else [(victims[0], cr_of(state, dealer))]
        )
        for victim, n in shares:
            if n > 0:
                totals[victim] = totals.get(victim, 0) + n
                lines.append(f"{run.words(dealer)} → {target_words(state, victim)} {n}")
    for victim, n in totals.items():
        if victim.startswith(PLAYER):
            run.lose_health(int(victim[1:]), n)
        else:
            run.hurt(int(victim), n, combat=True)
    if lines:
        run.say("combat.damage", lines="; ".join(lines))
    for seat in (0, 1):
        if any(v == player_ref(seat) for v in totals):
            run.say("combat.health", seat=run.seat(seat), health=run.side(seat).health)
    run.deaths()
    run.update(combat=None, attacked=True)
    run.check_over()
