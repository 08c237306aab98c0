"""Carrying out a card's script: its targets, each effect of the vocabulary, and the triggers.

A clause's chosen targets (``any``, ``player``, ``soldier``, ``own_soldier``, ``enemy_soldier``) are
named when the card is played, in order; the others are found when the effect happens. A target
that is gone by then (a Soldier that died of the effect before) makes its effect do nothing. A
discard that someone must choose pauses the clause (``BattleState.choice``) until they do.
"""

from __future__ import annotations

from games.ictc.battle.payment import add_to_pool, units_of
from games.ictc.battle.state import PLAYER, BattleState, Choice
from games.ictc.battle.table import Run, cr_of, has, is_soldier, soldiers, target_words
from games.ictc.errors import CardInputError
from games.ictc.script import Clause, Effect, Target
from games.tables.engine import IllegalActionError

_FILTER_OPS = {
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "=": lambda a, b: a == b,
}


def player_ref(seat: int) -> str:
    return f"{PLAYER}{seat}"


def fits(state: BattleState, card: int, filters: tuple[str, ...]) -> bool:
    """Whether a Soldier in play passes a target's filter (``cr<=2``, ``tapped``, ``flight``...)."""
    perm = state.permanent(card)
    if perm is None:
        return False
    for word in filters:
        if word.startswith("cr"):
            op = next(o for o in ("<=", ">=", "<", ">", "=") if word[2:].startswith(o))
            if not _FILTER_OPS[op](cr_of(state, card), int(word[2 + len(op) :])):
                return False
        elif word == "tapped":
            if not perm.tapped:
                return False
        elif word == "ready":
            if perm.tapped:
                return False
        elif not has(state, card, word):
            return False
    return True


def candidates(state: BattleState, caster: int, target: Target) -> list[str]:
    """The targets a player may name for a chosen ``target``, players first."""
    kind = target.kind
    out: list[str] = []
    if kind in {"any", "player"}:
        out += [player_ref(caster), player_ref(1 - caster)]
    if kind in {"any", "soldier"}:
        pool = soldiers(state)
    elif kind == "own_soldier":
        pool = soldiers(state, caster)
    elif kind == "enemy_soldier":
        pool = soldiers(state, 1 - caster)
    else:
        pool = []
    out += [str(c) for c in pool if fits(state, c, target.filter)]
    return out


def fixed(state: BattleState, caster: int, source: int, target: Target, it: str) -> list[str]:
    """The targets of an effect whose target needs no choosing."""
    kind = target.kind
    if kind == "you":
        return [player_ref(caster)]
    if kind == "opponent":
        return [player_ref(1 - caster)]
    if kind == "self":
        return [str(source)] if state.permanent(source) is not None else []
    if kind == "it":
        return [it] if it else []
    seats = {"all_soldiers": None, "own_soldiers": caster, "enemy_soldiers": 1 - caster}[kind]
    return [str(c) for c in soldiers(state, seats) if fits(state, c, target.filter)]


def check_targets(state: BattleState, caster: int, clause: Clause, refs: tuple[str, ...]) -> None:
    """The named targets fit the clause's chosen targets, in order (``IllegalActionError`` says which not)."""
    wanted = clause.chosen
    if len(refs) != len(wanted):
        what = ", ".join(_target_kind(e.target) for e in wanted) or "no target"
        raise IllegalActionError(
            f"name {len(wanted)} target{'s' if len(wanted) != 1 else ''} ({what}), not {len(refs)}"
        )
    for effect, ref in zip(wanted, refs, strict=True):
        if effect.target is None or ref not in candidates(state, caster, effect.target):
            raise IllegalActionError(
                f"{_shown_ref(state, ref)} is not a target {effect.name} may take: {_target_kind(effect.target)}"
            )


def needs_targets(clause: Clause) -> bool:
    return bool(clause.chosen)


def can_target(state: BattleState, caster: int, clause: Clause) -> bool:
    """Whether every chosen target of the clause has at least one candidate now."""
    return all(e.target is not None and candidates(state, caster, e.target) for e in clause.chosen)


def _target_kind(target: Target | None) -> str:
    return target.text().replace("_", " ") if target is not None else "nothing"


def _shown_ref(state: BattleState, ref: str) -> str:
    if ref.startswith(PLAYER) or (ref.isdigit() and 1 <= int(ref) <= len(state.cards)):
        return target_words(state, ref)
    return f"`{ref[:20]}`"


def resolve(
    run: Run,
    caster: int,
    source: int,
    clause: Clause,
    *,
    x: int,
    refs: tuple[str, ...],
    clause_index: int,
    trigger: str,
    start: int = 0,
    it: str = "",
) -> None:
    """Carry out ``clause`` (from effect ``start``); a choice to make pauses it."""
    queue = list(refs)
    for k in range(start, len(clause.effects)):
        if run.state.over:
            return
        effect = clause.effects[k]
        target = effect.target
        if target is not None and target.chosen:
            ref = queue.pop(0) if queue else ""
            targets = [ref] if ref and _still_there(run.state, ref) else []
            if not targets:
                run.say("effect.gone", name=effect.name)
                continue
        elif target is not None:
            targets = fixed(run.state, caster, source, target, it)
        else:
            targets = []
        if targets:
            it = targets[0]
        if effect.name == "discard" and trigger in {"death", "turn"} and effect.chooser != "random":
            effect = effect.model_copy(update={"chooser": "random"})  # nobody is asked in the middle of things
        paused = _one(run, caster, effect, x=x, targets=targets)
        run.deaths()
        if paused is not None:
            run.update(
                choice=paused.model_copy(
                    update={
                        "card": source,
                        "rest": (clause_index, k + 1),
                        "x": x,
                        "targets": tuple(queue),
                        "it": it,
                        "trigger": trigger,
                        "caster": caster,
                    }
                )
            )
            return
    run.deaths()
    run.check_over()


def _still_there(state: BattleState, ref: str) -> bool:
    if ref.startswith(PLAYER):
        return True
    return ref.isdigit() and state.permanent(int(ref)) is not None


def _one(run: Run, caster: int, effect: Effect, *, x: int, targets: list[str]) -> Choice | None:
    state = run.state
    amount = effect.value(x)
    name = effect.name
    for ref in targets:
        shown = target_words(run.state, ref)
        player = int(ref[1:]) if ref.startswith(PLAYER) else None
        card = int(ref) if player is None else None
        if name == "damage":
            if amount <= 0:
                continue
            if player is not None:
                taken = run.lose_health(player, amount)
                run.say("effect.damage_player", target=shown, n=taken, health=run.side(player).health)
            elif card is not None:
                taken = run.hurt(card, amount)
                run.say("effect.damage_soldier", target=shown, n=taken)
        elif name == "heal":
            if player is not None:
                run.gain_health(player, amount)
                run.say("effect.heal_player", target=shown, n=amount, health=run.side(player).health)
            elif card is not None:
                perm = run.state.permanent(card)
                if perm is not None:
                    run.change_perm(card, damage=max(0, perm.damage - amount))
                    run.say("effect.heal_soldier", target=shown, n=amount)
        elif name == "draw" and player is not None:
            run.draw(player, amount)
        elif name == "discard" and player is not None:
            found = _discard(run, caster, player, amount, effect.chooser)
            if found is not None:
                return found
        elif name == "destroy" and card is not None:
            run.say("effect.destroy", target=shown)
            run.dies(card)
        elif name == "cr_mod" and card is not None:
            perm = run.state.permanent(card)
            if perm is None:
                continue
            if effect.duration == "eot":
                run.change_perm(card, cr_eot=perm.cr_eot + amount)
            else:
                run.change_perm(card, cr_perm=perm.cr_perm + amount)
            run.say(f"effect.cr_{effect.duration}", target=shown, n=f"{amount:+d}", cr=cr_of(run.state, card))
        elif name in {"tap", "ready"} and card is not None:
            run.change_perm(card, tapped=name == "tap")
            run.say(f"effect.{name}", target=shown)
        elif name == "return_to_hand" and card is not None:
            owner = run.state.card(card).owner
            run.put(card, "hand")
            run.say("effect.return", target=shown, seat=run.seat(owner))
        elif name == "grant" and card is not None:
            perm = run.state.permanent(card)
            if perm is None:
                continue
            if effect.duration == "eot":
                run.change_perm(card, grants_eot=(*perm.grants_eot, effect.keyword))
            else:
                run.change_perm(card, grants=(*perm.grants, effect.keyword))
            run.say(f"effect.grant_{effect.duration}", target=shown, keyword=effect.keyword)
        elif name == "prevent":
            if player is not None:
                run.change_side(player, shield=run.side(player).shield + amount)
            elif card is not None:
                perm = run.state.permanent(card)
                if perm is not None:
                    run.change_perm(card, shield=perm.shield + amount)
            run.say("effect.prevent", target=shown, n=amount)
    if name == "add_power" and effect.power is not None:
        side = run.side(caster)
        run.change_side(caster, pool=add_to_pool(side.pool, units_of(effect.power)))
        run.say("effect.power", seat=run.seat(caster), power=effect.power.text())
    elif name == "extra_power_play":
        side = run.side(caster)
        run.change_side(caster, extra_powers=side.extra_powers + amount)
        run.say("effect.extra_power", amount, seat=run.seat(caster))
    del state
    return None


def _discard(run: Run, caster: int, seat: int, n: int, chooser: str) -> Choice | None:
    hand = run.side(seat).hand
    count = min(n, len(hand))
    if count == 0:
        run.say("effect.discard_none", seat=run.seat(seat))
        return None
    if count == len(hand) or chooser == "random":
        picked = list(hand) if count == len(hand) else run.rng.sample(list(hand), count)
        discard_cards(run, seat, picked)
        return None
    picker = seat if chooser == "owner" else caster
    if picker != seat:
        run.tell(picker, "choice.their_hand", seat=run.seat(seat), cards=", ".join(run.words(c) for c in hand))
    run.say("choice.waiting", count, chooser=run.seat(picker), seat=run.seat(seat))
    return Choice(seat=picker, hand_of=seat, count=count, card=0)


def discard_cards(run: Run, seat: int, cards: list[int]) -> None:
    for card in cards:
        run.put(card, "grave")
    run.say("effect.discard", len(cards), seat=run.seat(seat), cards=", ".join(run.words(c) for c in cards))


def on_death(run: Run, card: int, seat: int) -> None:
    """A Soldier died: its on-death clauses run for its controller."""
    script = run.state.defn(card).script
    if script is None:
        return
    for index, clause in enumerate(script.clauses):
        if clause.trigger == "death" and not run.state.over:
            run.say("trigger.death", card=run.words(card))
            resolve(run, seat, card, clause, x=0, refs=(), clause_index=index, trigger="death")


def start_of_turn(run: Run, seat: int) -> None:
    for perm in run.side(seat).play:
        script = run.state.defn(perm.card).script
        if script is None:
            continue
        for index, clause in enumerate(script.clauses):
            if clause.trigger == "turn" and not run.state.over and run.state.permanent(perm.card) is not None:
                run.say("trigger.turn", card=run.words(perm.card))
                resolve(run, seat, perm.card, clause, x=0, refs=(), clause_index=index, trigger="turn")


def clause_at(state: BattleState, card: int, index: int) -> Clause:
    script = state.defn(card).script
    if script is None or not 0 <= index < len(script.clauses):
        raise CardInputError("that card has no such clause")
    return script.clauses[index]


def is_creature(state: BattleState, card: int) -> bool:
    return is_soldier(state, card)
